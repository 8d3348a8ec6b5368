"""Group ids to integer codes: the first step of every grouped computation.

``encode_groups`` maps any supported id column (ints, floats, datetimes, strings,
bytes, objects, pandas Series and Categoricals) to codes ``0..G-1`` in sorted id
order, and rejects missing ids and ids of mixed types.

Every kind is encoded in time linear in the rows, with only the ``G`` distinct ids
sorted: small-span integers through a lookup table, other integers and floats
through their 64-bit patterns, objects and pandas strings through a hash table
(``pandas.factorize`` when pandas is already imported, a ``dict`` otherwise:
importing pandas costs about 0.25 s, what the ``dict`` loses on ~3.5M rows), and
numpy fixed-width strings through a hash of their bytes that is checked row by row.
Strings and objects whose rows come in runs of one id (rows sorted or grouped by
query, as most ranking files are) are first cut into runs by one comparison of each
row with the one before it, and only the first row of each run is factorized.
"""

from __future__ import annotations

import datetime
import numbers
import sys
import warnings
from typing import Any

import numpy as np

from .._utils.array_api import is_foreign, to_numpy
from .segments import put

# Integer group ids spanning at most this many values per row are encoded with a
# lookup table (linear time) instead of a sort.
_TABLE_SPAN_PER_ROW = 4
# String and object ids are factorized one run of equal neighbours at a time when
# the runs average at least this many rows, judged first on the leading rows.
_RUN_ROWS = 4
_RUN_SAMPLE = 1024
# Multiplying by an odd constant is a bijection of 64-bit integers that carries
# every bit into the top ones, which index the hash table below.
_ODD = np.uint64(0x9E3779B97F4A7C15)


def encode_groups(
    groups: Any, n: int | None, func: str
) -> tuple[np.ndarray, np.ndarray]:
    """Map group ids to codes ``0..G-1`` in sorted id order.

    Returns ``(codes, ids)`` where ``ids[codes[i]]`` is the group of row ``i``.
    ``n``: the rows of the other inputs (None: checked later with
    :func:`check_group_rows`).
    """
    if groups is None:
        raise ValueError(
            f"{func} needs groups: pass groups=<one query/user/session id per row>. "
            "To score all rows as one list, pass groups=np.zeros(len(y_true))."
        )
    if is_foreign(groups):  # group ids of another array library are numbers
        groups = to_numpy(groups, "groups", func)
    if _is_categorical(groups):
        codes, ids = _encode_categorical(groups, func)
    else:
        codes, ids = _encode_column(groups, func)
    if n is not None:
        check_group_rows(codes, n, func)
    return np.asarray(codes, dtype=np.intp).reshape(-1), ids


def check_group_rows(codes: Any, n: int, func: str) -> None:
    """One group id per row of the other inputs."""
    if codes.shape[0] != n:
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: y_true={n}, "
            f"groups={codes.shape[0]}. Every per-row input must have one entry "
            "per row."
        )


def encode_integer_ids(groups: Any, n: int, func: str, space: Any) -> tuple[Any, Any]:
    """:func:`encode_groups` for integer group ids of an array API namespace under
    dispatch, on their device: codes ``0..G-1`` in sorted id order from one
    stable sort (the standard's ``unique_inverse`` promises no order)."""
    xp = space.xp
    ids = xp.asarray(groups, device=space.device)
    if ids.ndim != 1 or not xp.isdtype(ids.dtype, "integral"):
        raise TypeError(
            f"groups in {func} is a {ids.ndim}-d array of dtype {ids.dtype}; on a "
            "device (array API dispatch) group ids must be a 1-D integer array. "
            "Encode them as integers first (e.g. with np.unique(..., "
            "return_inverse=True)), or pass them as a host list or numpy array."
        )
    if ids.shape[0] != n:
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: y_true={n}, "
            f"groups={ids.shape[0]}. Every per-row input must have one entry "
            "per row."
        )
    order = xp.argsort(ids, stable=True)
    ranked = xp.take(ids, order)
    new = xp.ones(n, dtype=xp.bool, device=space.device)
    new[1:] = ranked[1:] != ranked[:-1]
    sorted_codes = xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
    codes = xp.zeros(n, dtype=xp.int64, device=space.device)
    codes = put(codes, order, sorted_codes)  # the scatter the standard lacks
    return codes, ranked[new]


def _missing_error(func: str) -> ValueError:
    return ValueError(
        f"groups in {func} contains missing values (None, NaN, NaT or pd.NA); "
        "every row needs a group id. Drop those rows or give them an id."
    )


def _is_categorical(groups: Any) -> bool:
    dtype = getattr(groups, "dtype", None)
    return getattr(dtype, "name", None) == "category" or hasattr(groups, "categories")


def _encode_categorical(groups: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """A Categorical is already encoded: keep its codes, drop unused categories."""
    cat = getattr(groups, "array", groups)  # Series -> Categorical
    codes = np.asarray(cat.codes, dtype=np.intp)
    if codes.ndim != 1:
        raise ValueError(f"groups in {func} must be 1-D.")
    if (codes < 0).any():
        raise _missing_error(func)
    used = np.bincount(codes, minlength=len(cat.categories)) > 0
    remap = np.cumsum(used) - 1
    return remap[codes], np.asarray(cat.categories)[used]


def _is_pandas_text(groups: Any) -> bool:
    """A pandas Series/Index/array of objects or strings (any storage)."""
    if not type(groups).__module__.startswith("pandas"):
        return False
    dtype = getattr(groups, "dtype", None)
    if dtype is None:
        return False
    return getattr(dtype, "kind", None) in ("O", "U", "S")


def _encode_column(groups: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    if _is_pandas_text(groups):  # the extension array's own factorize
        return _encode_objects(groups, func)
    arr = _as_array(groups)
    if arr.ndim != 1:
        raise ValueError(
            f"groups in {func} must be 1-D with one id per row; got shape {arr.shape}."
        )
    kind = arr.dtype.kind
    if kind == "b":
        return _encode_ints(arr.astype(np.intp))
    if kind in "iu":
        return _encode_ints(arr)
    if kind in "mM":
        return _encode_datetimes(arr, func)
    if kind in "US":
        return _encode_fixed_width(arr, func)
    if kind == "O":
        return _encode_objects(arr, func)
    if kind == "f" and arr.dtype.itemsize <= 8:  # exact in float64
        if np.isnan(arr).any():
            raise _missing_error(func)
        keys = (arr.astype(np.float64) + 0.0).view(np.uint64)  # -0.0 becomes 0.0
        return _encode_by_keys(arr, keys * _ODD)
    if kind == "f" and np.isnan(arr).any():
        raise _missing_error(func)
    return _sorted_unique(arr, func)


def _as_array(groups: Any) -> np.ndarray:
    """``groups`` as an ndarray, without numpy's merging of mixed lists.

    ``np.asarray([1, "1"])`` turns both ids into the string ``'1'`` and
    ``np.asarray(["a", "a\\x00"])`` drops the trailing NUL, so a list holding
    strings or several kinds of ids becomes an object array instead.
    """
    if hasattr(groups, "to_numpy"):
        return groups.to_numpy()
    if not isinstance(groups, (list, tuple)):
        return np.asarray(groups)
    kinds = {_id_kind(t) for t in set(map(type, groups))}
    if kinds <= {"number"} or kinds <= {"bool"} or kinds & {list, tuple, np.ndarray}:
        return np.asarray(groups)  # nested lists get the 1-D error
    return np.fromiter(groups, dtype=object, count=len(groups))


def _encode_ints(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if not arr.size:
        return np.zeros(0, dtype=np.intp), arr[:0]
    lo, hi = int(arr.min()), int(arr.max())
    if lo == 0 and arr.dtype == np.intp and hi < arr.size:
        # Codes 0..G-1 already (the command line's joined queries): when every
        # value is present they are their own codes (no copy of n; read-only).
        present = np.zeros(hi + 1, dtype=bool)
        present[arr] = True
        if present.all():
            codes = arr.view()
            codes.flags.writeable = False
            return codes, np.arange(hi + 1, dtype=arr.dtype)
    if hi - lo > _TABLE_SPAN_PER_ROW * arr.size + 1024:
        wide = np.uint64 if arr.dtype.kind == "u" else np.int64
        return _encode_by_keys(arr, arr.astype(wide).view(np.uint64) * _ODD)
    # Offsets from the minimum are computed modulo 2**bits and read as unsigned,
    # so int8 spans of 255 and uint64 ids >= 2**63 need no wider type.
    unsigned = np.dtype(f"u{arr.dtype.itemsize}")
    shifted = (arr - arr.dtype.type(lo)).view(unsigned)
    shifted = (
        shifted.view(np.intp) if unsigned.itemsize == 8 else shifted.astype(np.intp)
    )
    present = np.zeros(hi - lo + 1, dtype=bool)
    present[shifted] = True
    table = np.cumsum(present) - 1
    offsets = np.flatnonzero(present).astype(unsigned)
    ids = (offsets.view(arr.dtype) + arr.dtype.type(lo)).astype(arr.dtype)
    return table[shifted], ids


def _encode_datetimes(arr: np.ndarray, func: str) -> tuple[np.ndarray, np.ndarray]:
    if np.isnat(arr).any():
        raise _missing_error(func)
    codes, ids = _encode_ints(arr.view(np.int64))
    return codes, ids.view(arr.dtype)


def _sorted_unique(arr: np.ndarray, func: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        ids, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise _mixed_error(func, {arr.dtype.name}) from None
    return codes.reshape(-1), ids


def _encode_fixed_width(arr: np.ndarray, func: str) -> tuple[np.ndarray, np.ndarray]:
    """numpy ``<U``/``S`` strings: a 64-bit hash of each row's bytes, checked.

    numpy has no hash table and sorting strings costs several times the sort of
    the scores, so each row is reduced to one random linear combination of its
    8-byte words (a matrix-vector product), the hashes are factorized, and every
    row is then compared with its group's first row: a collision (never seen in
    practice) falls back to the exact sort. Both passes go through the rows in
    chunks, so that no temporary is as large as the ids.
    """
    if not arr.size or arr.dtype.itemsize == 0:
        return _sorted_unique(arr, func)
    starts = _run_starts(arr)
    if starts is not None:
        codes, ids = _encode_fixed_width(arr[starts[:-1]], func)
        return _spread_runs(codes, starts), ids
    width = -(-arr.dtype.itemsize // 8) * 8
    padded = f"{arr.dtype.kind}{width // (4 if arr.dtype.kind == 'U' else 1)}"
    multipliers = np.random.default_rng(0).integers(
        1, 2**63, size=width // 8, dtype=np.uint64
    )
    multipliers |= np.uint64(1)
    keys = np.empty(arr.size, dtype=np.uint64)
    for rows in _chunks(arr.size):
        words = arr[rows].astype(padded).view(np.uint64).reshape(-1, width // 8)
        np.matmul(words, multipliers, out=keys[rows])
    keys ^= keys >> np.uint64(31)
    keys *= _ODD
    codes, first = _factorize_keys(keys)
    uniques = arr[first]
    for rows in _chunks(arr.size):
        if not np.array_equal(uniques[codes[rows]], arr[rows]):
            return _sorted_unique(arr, func)
    return _in_sorted_order(codes, uniques, np.argsort(uniques))


def _chunks(n: int, size: int = 1 << 16) -> list[slice]:
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]


def _encode_by_keys(arr: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids whose 64-bit keys are equal exactly when the ids are."""
    codes, first = _factorize_keys(keys)
    return _in_sorted_order(codes, arr[first], np.argsort(arr[first]))


def _factorize_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of 64-bit keys in any order, and one row of each code."""
    pd = _loaded_pandas()
    if pd is not None:
        codes, uniques = pd.factorize(keys)
        n_codes = len(uniques)
    else:
        codes, n_codes = _table_factorize(keys)
    first = np.empty(n_codes, dtype=np.intp)
    first[codes] = np.arange(codes.size)  # any row of each code will do
    return codes, first


def _table_factorize(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """numpy's stand-in for a hash table: a direct-address table on the top bits.

    Each slot keeps the last key written to it; the rows whose key lost its slot to
    another key (about keys**2 / (2 * slots) keys) are factorized by a sort.
    """
    bits = max(10, keys.size.bit_length())
    slot = (keys >> np.uint64(64 - bits)).astype(np.intp)
    owner = np.empty(1 << bits, dtype=np.uint64)
    owner[slot] = keys
    present = np.zeros(1 << bits, dtype=bool)
    present[slot] = True
    table = np.cumsum(present, dtype=np.intp) - 1
    codes = table[slot]
    n_codes = int(table[-1]) + 1
    clash = owner[slot] != keys
    if clash.any():
        _, rest = np.unique(keys[clash], return_inverse=True)
        codes[clash] = n_codes + rest.reshape(-1)
        n_codes += int(rest.max()) + 1
    return codes, n_codes


def _loaded_pandas() -> Any:
    """pandas if something already imported it (it is never imported here)."""
    return sys.modules.get("pandas")


def _encode_objects(values: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Python objects (or a pandas string column) through a hash table: of each
    run's first row when the ids come in runs, of every row otherwise."""
    starts = _run_starts(values)
    heads = values if starts is None else values.take(starts[:-1])
    codes, uniques = _factorize_objects(heads, func)
    types = set(map(type, uniques))
    if not types <= {str, bytes, int} and any(map(_is_missing, uniques)):
        raise _missing_error(func)
    kinds = {_id_kind(t) for t in types}
    if kinds & {"number", "bool"}:
        # True == 1 and hash(True) == hash(1), so a hash table keeps only one of
        # them: look at every row's type, not just the distinct ids'.
        kinds = {_id_kind(t) for t in set(map(type, values))}
    if len(kinds) > 1:
        raise _mixed_error(func, {t.__name__ for t in set(map(type, values))})
    try:
        rows = uniques.tolist()  # a list's __getitem__ is cheaper than an array's
        order = sorted(range(len(rows)), key=rows.__getitem__)
    except (TypeError, ArithmeticError):
        raise _mixed_error(func, {t.__name__ for t in types}) from None
    codes, ids = _in_sorted_order(codes, uniques, np.asarray(order, dtype=np.intp))
    return (codes, ids) if starts is None else (_spread_runs(codes, starts), ids)


def _run_starts(values: Any) -> np.ndarray | None:
    """The first row of each run of equal neighbouring ids and, last, the number
    of rows, when the ids come in runs of about :data:`_RUN_ROWS` rows or more;
    ``None`` when they do not, or when two neighbours cannot be compared (the
    caller then encodes every row and reports what is wrong with the ids).

    Neighbours are compared with ``==``, the equality a hash table uses, so the
    first row of each run holds every distinct id, first seen in the same order.
    """
    n = len(values)
    if n < _RUN_SAMPLE:
        return None
    if isinstance(values, np.ndarray):
        rows = values
    elif isinstance(values.dtype, np.dtype):  # pandas objects: numpy compares them
        rows = values.to_numpy()  # several times faster than pandas
    else:
        rows = values.array  # pandas strings (a Series would compare by label)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if _changes(rows[:_RUN_SAMPLE]).sum() * _RUN_ROWS > _RUN_SAMPLE:
                return None
            change = _changes(rows)
    except Exception:  # ids without a boolean ==: NA, arrays, signalling NaN
        return None
    n_runs = 1 + int(np.count_nonzero(change))
    if n_runs * _RUN_ROWS > n or n_runs == n:
        return None
    starts = np.empty(n_runs + 1, dtype=np.intp)  # and the end of the last run
    starts[0], starts[-1] = 0, n
    starts[1:-1] = np.flatnonzero(change) + 1
    return starts


def _changes(rows: Any) -> np.ndarray:
    """``rows[i + 1] != rows[i]`` for every row but the last, as a bool array."""
    same = np.asarray(rows[1:] == rows[:-1], dtype=bool)
    if same.shape != (len(rows) - 1,):
        raise ValueError("ids compared as a whole")
    return ~same  # a new array: ``same`` may be a read-only view


def _spread_runs(codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The code of each run's first row given to every row of the run."""
    return np.repeat(codes, np.diff(starts))


def _factorize_objects(values: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes in first-seen order and the distinct ids as an object array."""
    pd = _loaded_pandas()
    try:
        if pd is not None:
            codes, uniques = pd.factorize(values)  # missing ids get code -1
            if codes.size and codes.min() < 0:
                raise _missing_error(func)
            return codes, np.asarray(uniques, dtype=object)
        # One pass at C speed (no Python frame per row): each id keeps the
        # index of its first row, then the distinct ids' first rows, ascending,
        # number them 0, 1, ... in first-seen order through a table of rows.
        index: dict[Any, int] = {}
        rows = values.tolist() if isinstance(values, np.ndarray) else list(values)
        n = len(rows)
        first = np.fromiter(map(index.setdefault, rows, range(n)), np.intp, n)
    except TypeError:  # unhashable ids, a signalling NaN, pd.NA compared
        if any(map(_is_missing, values)):
            raise _missing_error(func) from None
        raise TypeError(
            f"groups in {func} holds ids that are not hashable (e.g. lists); use "
            "one int or str id per row."
        ) from None
    heads = np.fromiter(index.values(), np.intp, len(index))
    number = np.empty(n, dtype=np.intp)
    number[heads] = np.arange(heads.size, dtype=np.intp)
    return number[first], np.fromiter(index, object, len(index))


def _is_missing(value: Any) -> bool:
    """None, and anything not equal to itself (NaN, NaT, Decimal('NaN'), pd.NA)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError, ArithmeticError):  # pd.NA, signalling NaN
        return True


def _id_kind(t: type) -> Any:
    """The family an id's type belongs to: ids of one family can be compared."""
    if issubclass(t, (bool, np.bool_)):
        return "bool"  # equal to 1 and 0, so never mixed with numbers
    if issubclass(t, str):
        return "str"
    if issubclass(t, bytes):
        return "bytes"
    if issubclass(t, numbers.Number):
        return "number"
    if issubclass(t, datetime.datetime):  # also pandas Timestamps
        return "datetime"
    return t


def _mixed_error(func: str, type_names: set[str]) -> TypeError:
    names = ", ".join(sorted(type_names))
    return TypeError(
        f"groups in {func} mixes id types ({names}) that cannot be ordered (e.g. "
        "ints and strings); use one type for all ids, e.g. "
        "groups=[str(g) for g in groups]."
    )


def _in_sorted_order(
    codes: np.ndarray, uniques: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Renumber codes so that ``uniques[order]`` (the sorted ids) is code order."""
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[np.asarray(codes, dtype=np.intp)], uniques[order]
