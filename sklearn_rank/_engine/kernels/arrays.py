"""Array operations of the kernels, in any array API namespace.

Each helper has numpy's own operation in its numpy branch (``reduceat``,
``lexsort``, ``cumsum`` into a buffer, integer promotion inside an operation:
faster, or no extra pass over the array) and a form in the array API standard
for every other namespace. No metric formula lives here; the kernels hold each
formula once and call these for the operations that differ between namespaces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import segments as seg


# -- dtypes and operands ---------------------------------------------------------------
def namespace_of(x: Any) -> Any:
    """The namespace of an array (numpy for numpy arrays and scalars)."""
    if isinstance(x, (np.ndarray, np.generic, float, int)):
        return np
    return seg.array_namespace(x)


def index_dtype(xp: Any) -> Any:
    """The index dtype: numpy's intp, int64 in other namespaces."""
    return np.intp if xp is np else xp.int64


def float_dtype(xp: Any, x: Any) -> Any:
    """The float dtype of a computation on ``x``'s device (float64, or float32
    on a device without it)."""
    return np.float64 if xp is np else seg._float(xp, x)


def to_float(xp: Any, x: Any) -> Any:
    """``x`` as a float array (no copy when it is one already)."""
    if xp is np:
        return np.asarray(x, dtype=np.float64)
    return xp.astype(x, float_dtype(xp, x), copy=False)


def as_operand(xp: Any, x: Any, dtype: Any, copy: bool = True) -> Any:
    """``x`` as an operand of arithmetic with arrays of ``dtype``: numpy promotes
    integer and boolean operands itself (the same values, without a pass over
    the array), the standard does not mix kinds, so elsewhere it is cast."""
    return x if xp is np else xp.astype(x, dtype, copy=copy)


def as_float_operand(xp: Any, x: Any) -> Any:
    """``x`` as an operand of arithmetic with float arrays (:func:`as_operand`
    with the float dtype of ``x``'s device, no copy when it is one already)."""
    return as_operand(xp, x, float_dtype(xp, x), copy=False)


# -- element-wise ----------------------------------------------------------------------
def times_mask(xp: Any, x: Any, mask: Any) -> Any:
    """``x * mask`` for a float ``x`` (overwritten on numpy) and a bool mask."""
    if xp is np:
        x *= mask
        return x
    return x * xp.astype(mask, x.dtype)


def exp2(xp: Any, x: Any) -> Any:
    """``2 ** x`` (the standard has no ``exp2``; powers of two stay exact)."""
    native = getattr(xp, "exp2", None)
    return native(x) if native is not None else 2.0**x


def log1p_where(xp: Any, x: Any, ok: Any) -> Any:
    """``log1p(x)`` where ``ok``, 0 elsewhere (no log of a bad ``x``)."""
    if xp is np:
        out = np.zeros_like(x)
        np.log1p(x, out=out, where=ok)
        return out
    return xp.where(ok, xp.log1p(xp.where(ok, x, 0.0)), 0.0)


# -- prefix sums and consecutive runs --------------------------------------------------
def prefix_sum(xp: Any, x: Any, dtype: Any = None) -> Any:
    """``[0, x0, x0 + x1, ...]`` in ``dtype`` (default: ``x``'s): one pass on numpy
    (``cumulative_sum`` with ``include_initial`` concatenates)."""
    if xp is np:
        out = np.zeros(x.shape[0] + 1, dtype=x.dtype if dtype is None else dtype)
        np.cumsum(x, out=out[1:])
        return out
    if dtype is not None:
        x = xp.astype(x, dtype, copy=False)
    return xp.cumulative_sum(x, include_initial=True)


def count_before(xp: Any, mask: Any) -> Any:
    """``out[p]`` = True entries of ``mask`` before position ``p`` (``p = 0..n``),
    as int64."""
    return prefix_sum(xp, mask, np.int64 if xp is np else xp.int64)


def run_starts(xp: Any, size: Any) -> Any:
    """First position of each of consecutive runs of the given sizes."""
    return prefix_sum(xp, size, index_dtype(xp))[:-1]


def run_owner(xp: Any, size: Any) -> Any:
    """The run index of each row of consecutive runs of the given sizes."""
    n = size.shape[0]
    return xp.repeat(xp.arange(n, dtype=index_dtype(xp), device=size.device), size)


def runs(
    count: np.ndarray, total: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """(run id per row, run starts, number of runs) of consecutive runs of the
    given lengths (``total`` rows, when known), for the segment primitives."""
    xp = namespace_of(count)
    n = count.shape[0]
    starts = prefix_sum(xp, count, index_dtype(xp))
    run = xp.arange(n, dtype=index_dtype(xp), device=seg._device(count))
    return seg.repeat(run, count, total), starts, n


def run_sum(values, offsets, size, owner=None):
    """Sum of ``values`` over each of consecutive non-empty runs (first positions
    ``offsets``, lengths ``size``; ``owner``: each row's run, if known)."""
    if isinstance(values, np.ndarray):
        return np.add.reduceat(values, offsets)
    xp = seg.array_namespace(values)
    owner = run_owner(xp, size) if owner is None else owner
    return seg.segment_sum(owner, values, size.shape[0])


def run_max(values, offsets, size, owner=None):
    """Maximum of ``values`` over each of consecutive non-empty runs."""
    if isinstance(values, np.ndarray):
        return np.maximum.reduceat(values, offsets)
    xp = seg.array_namespace(values)
    owner = run_owner(xp, size) if owner is None else owner
    return seg.segment_max(owner, values, size.shape[0], -float("inf"))


# -- reductions and orders -------------------------------------------------------------
def count_true(mask) -> int:
    """The number of True entries (for error messages: a host read)."""
    xp = seg.array_namespace(mask)
    return int(xp.sum(xp.astype(mask, xp.int64)))


def maximum_at(out, ids, values):
    """``out[g] = max(out[g], values of id g)``, returned (in place on numpy)."""
    if isinstance(out, np.ndarray):
        np.maximum.at(out, ids, values)
        return out
    xp = seg.array_namespace(out)
    found = seg.segment_max(ids, values, out.shape[0], -float("inf"))
    return xp.maximum(out, found)


def row_dot(a, b):
    """Per row of two 2-d arrays, the sum of their products."""
    if isinstance(a, np.ndarray):
        return np.einsum("ij,ij->i", a, b)
    return seg.array_namespace(a).sum(a * b, axis=1)


def order_by(xp, major, minor):
    """Row order by ``major``, then ``minor``, stable: ``np.lexsort((minor,
    major))``, or two stable sorts (the last key first) in the standard."""
    if xp is np:
        return np.lexsort((minor, major))
    by_minor = xp.argsort(minor, stable=True)
    return xp.take(by_minor, xp.argsort(xp.take(major, by_minor), stable=True))


def sorted_levels(y):
    """The distinct values of ``y``, ascending (``unique_values`` does not
    promise an order)."""
    if isinstance(y, np.ndarray):
        return np.unique(y)
    xp = seg.array_namespace(y)
    return xp.sort(xp.unique_values(y))
