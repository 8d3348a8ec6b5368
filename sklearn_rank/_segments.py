"""Segment primitives: reductions over runs of consecutive rows.

Rows arrive ordered so that each segment (a group, or a tie block inside a group)
is a contiguous run. Every kernel reduces through these few functions, so they are
the seam where another array backend (Dask partitions, an array-API namespace)
plugs in. Each takes plain arrays and returns a new array; none keeps state.

- ``segment_sum(ids, values, n)``: sum per segment id (ids need not be sorted).
- ``exclusive_cumsum(values, group, starts, n)``: per row, the sum over the
  earlier rows of its segment.
- ``first_in_segment(mask, group, n)``: position of each segment's first True.
- ``segment_cumprod(values, rank)``: running product restarting at each segment.
- ``block_sum`` / ``block_min`` / ``block_max(values, rows, offsets)``: reductions
  over blocks listed as row positions with their start offsets.
- ``ranges(start, size)``: the concatenated row positions of several runs.

The primitives the array API standard lacks also exist for any namespace
(``segment_sum_any``, ``segment_min_any``, ``group_order``, ``take``): numpy's own
functions, PyTorch's ``index_add_`` / ``scatter_reduce_``, and a sort-based form in
the standard alone for every other namespace.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def ranges(start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start[i], start[i] + size[i])`` for every i."""
    total = int(size.sum())
    offsets = np.zeros(size.size, dtype=np.intp)
    np.cumsum(size[:-1], out=offsets[1:])
    return np.repeat(start - offsets, size) + np.arange(total)


def segment_sum(ids: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Float64 sum of ``values`` per segment id ``0..n-1``."""
    # bincount returns ints for empty input; keep float64 throughout.
    return np.bincount(ids, weights=values, minlength=n).astype(np.float64, copy=False)


def exclusive_cumsum(
    values: np.ndarray, group: np.ndarray, starts: np.ndarray, n: int
) -> np.ndarray:
    """Per row, the sum of ``values`` over the earlier rows of its segment.

    Rows of one segment are contiguous and ``starts[g]`` is segment g's first row.
    Each segment's first row first takes away the previous segment's total, so one
    running sum restarts at every segment: exact for the integer counts it serves,
    with a single row-length array.
    """
    out = np.array(values, dtype=np.float64)
    if n > 1 and out.size:
        totals = np.bincount(group, weights=values, minlength=n)
        nonempty = np.flatnonzero(starts[1:] > starts[:-1])
        # The running sum restarted at the previous segment, so it carries only
        # that segment's total into the next one.
        out[starts[nonempty[1:]]] -= totals[nonempty[:-1]]
    np.cumsum(out, out=out)
    out -= values
    return out


def first_in_segment(mask: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
    """Position of the first row with ``mask`` in each segment, -1 if none."""
    pos = np.flatnonzero(mask)
    first = np.full(n, -1, dtype=np.intp)
    if pos.size:
        grp = group[pos]
        keep = np.empty(pos.size, dtype=bool)
        keep[0] = True
        np.not_equal(grp[1:], grp[:-1], out=keep[1:])
        first[grp[keep]] = pos[keep]
    return first


def segment_cumprod(values: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Inclusive running product within each segment, ``rank`` being each row's
    1-based position in it (Hillis-Steele doubling, so products stay products: no
    logs, no cancellation across segments)."""
    out = values.copy()
    step = 1
    longest = int(rank.max()) if rank.size else 0
    while step < longest:
        same = rank[step:] > step
        out[step:] = np.where(same, out[step:] * out[:-step], out[step:])
        step *= 2
    return out


def block_sum(values: np.ndarray, rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each block (its rows listed block after block)."""
    return np.add.reduceat(values[rows], offsets) if offsets.size else np.zeros(0)


def block_min(values: np.ndarray, rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.minimum.reduceat(values[rows], offsets) if offsets.size else np.zeros(0)


def block_max(values: np.ndarray, rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(values[rows], offsets) if offsets.size else np.zeros(0)


# -- The same primitives for any array API namespace ----------------------------------
# The standard has stable argsort, searchsorted, cumulative_sum and take, but no
# bincount, ufunc.at / reduceat or lexsort. These versions take arrays of one
# namespace and device and return arrays of it, never converting to numpy: numpy
# keeps its own fast functions, PyTorch gets index_add_ / scatter_reduce_, and any
# other namespace a sort-based form written in the standard alone.


def array_namespace(*arrays: Any) -> Any:
    """numpy for numpy arrays, else the namespace ``array-api-compat`` gives."""
    if all(isinstance(a, np.ndarray) for a in arrays):
        return np
    import array_api_compat

    return array_api_compat.array_namespace(*arrays)


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch")


def segment_sum_any(ids: Any, values: Any, n: int) -> Any:
    """Float64 sum of ``values`` per segment id ``0..n-1`` (ids in any order)."""
    if isinstance(values, np.ndarray):
        return segment_sum(ids, values, n)
    xp = array_namespace(ids, values)
    values = xp.astype(values, xp.float64)
    if _is_torch(values):
        out = xp.zeros(n, dtype=xp.float64, device=values.device)
        return out.index_add_(0, ids, values)
    order = xp.argsort(ids, stable=True)
    running = xp.cumulative_sum(xp.take(values, order), include_initial=True)
    return _per_segment_difference(xp, xp.take(ids, order), running, n)


def _per_segment_difference(xp: Any, sorted_ids: Any, running: Any, n: int) -> Any:
    """Segment totals from an inclusive-initial running sum over sorted ids."""
    segments = xp.arange(n, dtype=sorted_ids.dtype, device=sorted_ids.device)
    end = xp.searchsorted(sorted_ids, segments, side="right")
    start = xp.searchsorted(sorted_ids, segments, side="left")
    return xp.take(running, end) - xp.take(running, start)


def segment_min_any(ids: Any, values: Any, n: int) -> Any:
    """Float64 minimum of ``values`` per segment id (``inf`` for an empty one)."""
    xp = array_namespace(ids, values)
    values = xp.astype(values, xp.float64)
    if xp is np:
        out = np.full(n, np.inf)
        np.minimum.at(out, ids, values)
        return out
    if _is_torch(values):
        out = xp.full(n, float("inf"), dtype=xp.float64, device=values.device)
        return out.scatter_reduce_(0, ids, values, reduce="amin")
    order = group_order(ids, -values)  # by id, then ascending value
    sorted_ids = xp.take(ids, order)
    segments = xp.arange(n, dtype=ids.dtype, device=ids.device)
    first = xp.searchsorted(sorted_ids, segments, side="left")
    found = first < sorted_ids.shape[0]
    first = xp.where(found, first, xp.zeros_like(first))
    hit = found & (xp.take(sorted_ids, first) == segments)
    inf = xp.asarray(float("inf"), dtype=xp.float64, device=values.device)
    return xp.where(hit, xp.take(xp.take(values, order), first), inf)


def group_order(codes: Any, score: Any) -> Any:
    """Row order by group code, then descending score, input order within ties:
    two stable sorts (by score, then by code taken in that order), the standard's
    replacement for ``np.lexsort((-score, codes))``."""
    xp = array_namespace(codes, score)
    if xp is np:
        return np.lexsort((-score, codes))
    by_score = xp.argsort(-score, stable=True)
    by_code = xp.argsort(xp.take(codes, by_score), stable=True)
    return xp.take(by_score, by_code)


def take(x: Any, rows: Any) -> Any:
    """``x[rows]`` for integer positions, in any namespace (the gather)."""
    if isinstance(x, np.ndarray):
        return x.take(rows)
    return array_namespace(x).take(x, rows)
