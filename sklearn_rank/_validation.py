"""Input conversion and checks, done once at the public boundary.

Every error names the argument, what was found and how to fix it, in the format
scikit-learn uses for parameter validation.
"""

from __future__ import annotations

import numbers
from collections.abc import Collection
from typing import Any

import numpy as np


def param_error(
    name: str, func: str, expected: str, got: Any, fix: str = ""
) -> ValueError:
    """Build the one error format for a bad option value."""
    msg = f"The {name!r} parameter of {func} must be {expected}. Got {got!r} instead."
    if fix:
        msg = f"{msg} {fix}"
    return ValueError(msg)


def check_option(name: str, func: str, value: Any, allowed: Collection[str]) -> str:
    """Check a string option against its allowed values."""
    if not isinstance(value, str) or value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise param_error(name, func, f"a str among {{{choices}}}", value)
    return value


def check_k(k: Any, func: str, name: str = "k") -> int | None:
    """Check a cutoff: a positive int or None (the whole list)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise param_error(name, func, "an int in the range [1, inf) or None", k)
    return int(k)


def _to_1d(x: Any, name: str, func: str) -> np.ndarray:
    """Return a 1-D ndarray view or copy of ``x`` without modifying it."""
    if hasattr(x, "to_numpy") and not hasattr(x, "categories"):
        # pandas Series / Index; DataFrames are 2-D and rejected below.
        x = x.to_numpy()
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError(
            f"{name} in {func} must be a 1-D array-like with one entry per row; "
            f"got a scalar {x!r}."
        )
    if arr.ndim != 1:
        raise ValueError(
            f"{name} in {func} must be 1-D with one entry per row; got an array of "
            f"shape {arr.shape}. Pass a flat array: groups say which rows belong to "
            "which query (use .ravel() on a column vector)."
        )
    return arr


def check_numeric(x: Any, name: str, func: str) -> np.ndarray:
    """Convert labels or scores to a finite float64 1-D array."""
    arr = _to_1d(x, name, func)
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    elif arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} in {func} must be numeric; got dtype {arr.dtype}. "
                "Encode labels as numbers (e.g. 0/1 or grades 0..4)."
            ) from None
    arr = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr))
        raise ValueError(
            f"{name} in {func} contains {bad.size} NaN or infinite value(s), first at "
            f"row {bad[0]}. Remove those rows or replace them with finite values."
        )
    return arr


def check_bool_mask(x: Any, name: str, func: str) -> np.ndarray:
    """Convert a per-row boolean mask (e.g. ``retrieved``)."""
    arr = _to_1d(x, name, func)
    if arr.dtype != bool:
        if arr.dtype.kind in "iu" and np.isin(arr, (0, 1)).all():
            arr = arr.astype(bool)
        else:
            raise TypeError(
                f"{name} in {func} must be a boolean array (True = ranked); got dtype "
                f"{arr.dtype}."
            )
    return arr


def check_sample_weight(x: Any, n: int, func: str) -> np.ndarray:
    """Convert sample weights: finite, non-negative, one per row."""
    arr = check_numeric(x, "sample_weight", func)
    if arr.shape[0] != n:
        raise ValueError(
            f"sample_weight in {func} has {arr.shape[0]} entries but y_true has {n}; "
            "give one weight per row."
        )
    if (arr < 0).any():
        raise ValueError(
            f"sample_weight in {func} contains negative values; weights must be >= 0."
        )
    return arr


def check_lengths(func: str, **arrays: np.ndarray | None) -> int:
    """All per-row inputs have the same, non-zero length."""
    lengths = {k: v.shape[0] for k, v in arrays.items() if v is not None}
    n = next(iter(lengths.values()))
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: {detail}. Every per-row input "
            "must have one entry per row."
        )
    if n == 0:
        raise ValueError(f"{func} got empty inputs (0 rows); pass at least one row.")
    return n


def check_threshold(value: Any, func: str) -> float | None:
    """'positive' -> None (y_true > 0); a float t > 0 -> t (y_true >= t)."""
    if value == "positive":
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise param_error(
            "relevance_threshold", func, "'positive' or a float in (0, inf)", value
        )
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise param_error(
            "relevance_threshold",
            func,
            "'positive' or a float in (0, inf)",
            value,
            "A threshold <= 0 would make rows with zero gain relevant.",
        )
    return value


def check_undefined(value: Any, func: str) -> str | float:
    if isinstance(value, str) and value in ("skip", "raise"):
        return value
    if (
        not isinstance(value, bool)
        and isinstance(value, numbers.Real)
        and np.isfinite(value)
    ):
        return float(value)
    raise param_error(
        "undefined", func, "'skip', 'raise' or a finite float (e.g. 0.0)", value
    )


def check_max_grade(value: Any, func: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (0 < value <= 1023)
    ):
        raise param_error("max_grade", func, "a float in the range (0, 1023]", value)
    return float(value)
