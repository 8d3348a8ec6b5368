"""Group ids to integer codes: the first step of every grouped computation.

``encode_groups`` maps any supported id column (ints, strings, objects, a pandas
Categorical) to codes ``0..G-1`` in sorted id order, and rejects missing ids.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# Integer group ids spanning at most this many values per row are encoded with a
# lookup table (linear time) instead of a sort.
_TABLE_SPAN_PER_ROW = 4


def _is_categorical(groups: Any) -> bool:
    dtype = getattr(groups, "dtype", None)
    return getattr(dtype, "name", None) == "category" or hasattr(groups, "categories")


def encode_groups(groups: Any, n: int, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Map group ids to codes ``0..G-1`` in sorted id order.

    Returns ``(codes, ids)`` where ``ids[codes[i]]`` is the group of row ``i``.
    """
    if groups is None:
        raise ValueError(
            f"{func} needs groups: pass groups=<one query/user/session id per row>. "
            "To score all rows as one list, pass groups=np.zeros(len(y_true))."
        )
    if _is_categorical(groups):
        cat = getattr(groups, "array", groups)  # Series -> Categorical
        codes = np.asarray(cat.codes, dtype=np.intp)
        if codes.ndim != 1:
            raise ValueError(f"groups in {func} must be 1-D.")
        if (codes < 0).any():
            raise ValueError(
                f"groups in {func} contains missing values (NaN); every row needs a "
                "group id."
            )
        used = np.bincount(codes, minlength=len(cat.categories)) > 0
        remap = np.cumsum(used) - 1  # drop unused categories
        ids = np.asarray(cat.categories)[used]
        arr_codes = remap[codes]
    else:
        if hasattr(groups, "to_numpy"):
            groups = groups.to_numpy()
        arr = np.asarray(groups)
        if arr.ndim != 1:
            raise ValueError(
                f"groups in {func} must be 1-D with one id per row; got shape "
                f"{arr.shape}."
            )
        if arr.dtype.kind == "b":
            arr = arr.astype(np.intp)
        if arr.dtype.kind in "iu" and arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo <= _TABLE_SPAN_PER_ROW * arr.size + 1024:
                shifted = (arr - lo).astype(np.intp, copy=False)
                present = np.zeros(hi - lo + 1, dtype=bool)
                present[shifted] = True
                table = np.cumsum(present) - 1
                ids = np.flatnonzero(present) + lo
                ids = ids.astype(arr.dtype, copy=False)
                arr_codes = table[shifted]
            else:
                ids, arr_codes = np.unique(arr, return_inverse=True)
        else:
            if arr.dtype.kind == "f" and np.isnan(arr).any():
                raise ValueError(
                    f"groups in {func} contains NaN; every row needs a group id."
                )
            if arr.dtype.kind == "O":
                missing = [v is None or (isinstance(v, float) and v != v) for v in arr]
                if any(missing):
                    raise ValueError(
                        f"groups in {func} contains missing values (None/NaN); every "
                        "row needs a group id."
                    )
            try:
                ids, arr_codes = np.unique(arr, return_inverse=True)
            except TypeError:
                raise TypeError(
                    f"groups in {func} mixes id types that cannot be ordered (e.g. "
                    "ints and strings); use one type for all ids."
                ) from None
    if arr_codes.shape[0] != n:
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: y_true={n}, "
            f"groups={arr_codes.shape[0]}. Every per-row input must have one entry "
            "per row."
        )
    return np.asarray(arr_codes, dtype=np.intp).reshape(-1), ids
