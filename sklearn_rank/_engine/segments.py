"""Segment primitives: reductions over runs of consecutive rows, for any array
namespace.

Rows arrive ordered so that each segment (a group, or a tie block inside a group)
is a contiguous run. Every kernel reduces through these few functions, which are
the primitives the array API standard lacks (``bincount``, ``ufunc.at`` /
``reduceat``, ``lexsort``, integer-indexed assignment). Each takes arrays of one
namespace and device and returns arrays of it, never converting to numpy:

- numpy arrays take numpy's own fast functions (the code below the ``numpy``
  branches is the numpy engine, unchanged);
- PyTorch tensors take ``index_add_`` / ``scatter_reduce_`` / ``index_put_``;
- any other namespace (CuPy, array-api-strict, ...) takes a form written in the
  standard alone (stable sorts, ``searchsorted``, ``cumulative_sum``, ``take``).

- ``segment_sum(ids, values, n)``, ``segment_count(ids, n)``,
  ``segment_max`` / ``segment_min(ids, values, n, fill)``: per segment id.
- ``run_sums(values, starts)``: per run of consecutive rows (numpy).
- ``exclusive_cumsum(values, group, starts, n)``: per row, the sum over the
  earlier rows of its segment.
- ``first_in_segment(mask, group, n)``: position of each segment's first True.
- ``segment_cumprod(values, rank)``: running product restarting at each segment.
- ``block_sum`` / ``block_min`` / ``block_max(values, rows, offsets)``: reductions
  over blocks listed as row positions with their start offsets.
- ``ranges(start, size)``: the concatenated row positions of several runs;
  ``repeat(x, counts, total)``: ``x[i]`` repeated ``counts[i]`` times.
- ``to_floats(x)``: a few values read back to the host in one transfer.
- ``sums_to_cutoffs(group, rank, values, n, cuts)``: per cutoff and segment, the
  sum over the rows at positions <= the cutoff (numpy: the cutoff axis).
- ``flatnonzero(mask)``, ``put(x, rows, values)`` (``x[rows] = values``),
  ``divide(a, b, ok, fill)``, ``group_order(codes, score)``, ``take``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


# -- namespaces -----------------------------------------------------------------------
def array_namespace(*arrays: Any) -> Any:
    """numpy for numpy arrays, else the namespace ``array-api-compat`` gives."""
    if all(isinstance(a, np.ndarray) for a in arrays if a is not None):
        return np
    import array_api_compat

    return array_api_compat.array_namespace(*[a for a in arrays if a is not None])


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch")


def _device(x: Any) -> Any:
    return None if isinstance(x, np.ndarray) else x.device


def _float(xp: Any, x: Any) -> Any:
    """The float dtype of a computation on ``x``'s device: float64, or float32
    where the device has no float64 (Apple MPS)."""
    if xp is np:
        return np.float64
    if _is_torch(x) and x.device.type == "mps":
        return xp.float32
    return xp.float64


def ranges(start: Any, size: Any, total: int | None = None) -> Any:
    """Concatenated ``arange(start[i], start[i] + size[i])`` for every i
    (``total``: ``sum(size)``, when the caller knows it)."""
    if isinstance(size, np.ndarray):
        total = int(size.sum())
        offsets = np.zeros(size.size, dtype=np.intp)
        np.cumsum(size[:-1], out=offsets[1:])
        return np.repeat(start - offsets, size) + np.arange(total)
    xp = array_namespace(start, size)
    size = xp.astype(size, xp.int64)
    offsets = xp.cumulative_sum(size, include_initial=True)
    if total is None:  # a scalar sync: the output's length
        total = int(offsets[-1]) if size.shape[0] else 0
    base = xp.astype(start, xp.int64) - offsets[:-1]
    dev = size.device
    return repeat(base, size, total) + xp.arange(total, dtype=xp.int64, device=dev)


def repeat(x: Any, counts: Any, total: int | None = None) -> Any:
    """``x[i]`` repeated ``counts[i]`` times. ``total`` is ``sum(counts)`` when
    the caller knows it: PyTorch then sizes the output without reading the
    counts back from the device (a synchronisation per call otherwise)."""
    if isinstance(x, np.ndarray):
        return np.repeat(x, counts)
    if _is_torch(x):
        import torch

        return torch.repeat_interleave(x, counts, output_size=total)
    return array_namespace(x, counts).repeat(x, counts)


def to_floats(x: Any) -> list[float]:
    """The values of a short 1-d array as Python floats, read back from its
    device in one transfer where the library has one (``tolist``)."""
    if isinstance(x, np.ndarray) or _is_torch(x):
        return [float(v) for v in x.tolist()]
    return [float(x[i]) for i in range(x.shape[0])]


def flatnonzero(mask: Any) -> Any:
    """Positions of the True entries of a 1-d mask."""
    if isinstance(mask, np.ndarray):
        return np.flatnonzero(mask)
    return array_namespace(mask).nonzero(mask)[0]


def put(x: Any, rows: Any, values: Any) -> Any:
    """``x[rows] = values`` (integer positions, each at most once); returns the
    array to use from then on: ``x`` itself (numpy, PyTorch: in place, so only on
    an array the caller created), or a new array where the namespace has no
    integer-indexed assignment (the standard's ``where`` over a ``searchsorted``)."""
    if isinstance(x, np.ndarray) or _is_torch(x):
        x[rows] = values
        return x
    xp = array_namespace(x, rows)
    n, m = x.shape[0], rows.shape[0]
    if m == 0:
        return x
    order = xp.argsort(rows)
    rows = xp.take(rows, order)
    scalar = not hasattr(values, "shape") or values.ndim == 0
    pos = xp.arange(n, dtype=rows.dtype, device=x.device)
    at = xp.clip(xp.searchsorted(rows, pos), 0, m - 1)
    hit = xp.take(rows, at) == pos
    new = values if scalar else xp.take(xp.take(values, order), at)
    if scalar:
        new = xp.asarray(values, dtype=x.dtype, device=x.device)
    return xp.where(hit, new, x)


def divide(a: Any, b: Any, ok: Any, fill: float) -> Any:
    """``a / b`` where ``ok``, ``fill`` elsewhere, with no division by a bad ``b``."""
    if isinstance(a, np.ndarray):
        return np.divide(a, b, out=np.full(np.shape(a), fill), where=ok)
    xp = array_namespace(a)
    one = xp.ones_like(a)
    return xp.where(ok, a / xp.where(ok, b, one), xp.full_like(a, fill))


# -- reductions per segment -----------------------------------------------------------
def segment_sum(ids: Any, values: Any, n: int) -> Any:
    """Float sum of ``values`` per segment id ``0..n-1`` (ids in any order)."""
    if isinstance(values, np.ndarray):
        # bincount returns ints for empty input; keep float64 throughout.
        return np.bincount(ids, weights=values, minlength=n).astype(
            np.float64, copy=False
        )
    xp = array_namespace(ids, values)
    values = xp.astype(values, _float(xp, values))
    if _is_torch(values):
        out = xp.zeros(n, dtype=values.dtype, device=values.device)
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


def segment_count(ids: Any, n: int) -> Any:
    """Rows per segment id ``0..n-1``, as int64."""
    if isinstance(ids, np.ndarray):
        return np.bincount(ids, minlength=n).astype(np.int64, copy=False)
    xp = array_namespace(ids)
    if _is_torch(ids):  # bincount would read max(ids) back from the device
        out = xp.zeros(n, dtype=xp.int64, device=ids.device)
        return out.index_add_(
            0, ids, xp.ones(ids.shape[0], dtype=xp.int64, device=ids.device)
        )
    sorted_ids = xp.sort(ids)
    segments = xp.arange(n, dtype=ids.dtype, device=ids.device)
    end = xp.searchsorted(sorted_ids, segments, side="right")
    return xp.astype(end - xp.searchsorted(sorted_ids, segments), xp.int64)


def segment_max(ids: Any, values: Any, n: int, fill: float) -> Any:
    """Maximum of ``values`` per segment id, ``fill`` where larger or empty
    (numpy's ``np.maximum.at`` on an array of ``fill``)."""
    if isinstance(values, np.ndarray):
        out = np.full(n, fill, dtype=np.result_type(values.dtype, np.float64))
        np.maximum.at(out, ids, values)
        return out
    return -segment_min(ids, -values, n, -fill)


def segment_min(ids: Any, values: Any, n: int, fill: float) -> Any:
    """Minimum of ``values`` per segment id, ``fill`` where smaller or empty."""
    if isinstance(values, np.ndarray):
        out = np.full(n, fill, dtype=np.result_type(values.dtype, np.float64))
        np.minimum.at(out, ids, values)
        return out
    xp = array_namespace(ids, values)
    values = xp.astype(values, _float(xp, values))
    out = xp.full(n, fill, dtype=values.dtype, device=values.device)
    if _is_torch(values):
        return out.scatter_reduce_(0, ids, values, reduce="amin")
    if not values.shape[0]:
        return out
    order = group_order(ids, -values)  # by id, then ascending value
    sorted_ids = xp.take(ids, order)
    segments = xp.arange(n, dtype=ids.dtype, device=ids.device)
    first = xp.searchsorted(sorted_ids, segments, side="left")
    found = first < sorted_ids.shape[0]
    first = xp.where(found, first, xp.zeros_like(first))
    hit = found & (xp.take(sorted_ids, first) == segments)
    low = xp.take(xp.take(values, order), first)
    return xp.where(hit, xp.minimum(low, out), out)


def run_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Float sum of ``values`` over each run of rows ``starts[g]:starts[g + 1]``
    (numpy; ``starts`` the cumulative sum of the run sizes, from 0). One
    sequential pass (``np.add.reduceat``): an order of magnitude faster than
    :func:`segment_sum`'s ``bincount`` on sorted rows, and as exact (pairwise
    summation within each run)."""
    n = starts.shape[0] - 1
    if values.dtype != np.float64:
        values = values.astype(np.float64)
    if not values.shape[0]:
        return np.zeros(n)
    first = starts[:-1]
    nonempty = first < starts[1:]
    if nonempty.all():
        return np.add.reduceat(values, first)
    # An empty run would read the next run's first value: they stay 0.
    out = np.zeros(n)
    out[nonempty] = np.add.reduceat(values, first[nonempty])
    return out


# The (segments, longest) table of exclusive_cumsum's exact form: at most this
# many cells per row (the rest keep the restarting running sum).
_TABLE_CELLS_PER_ROW = 4


def _exclusive_by_rows(values, group, starts, n) -> np.ndarray | None:
    """:func:`exclusive_cumsum` as one running sum per row of a (segments,
    longest) table, each from 0; None when the table would be too large."""
    size = values.shape[0]
    if size == 0 or n == 0:
        return None
    # ``starts``: each segment's first row, with or without the end after them.
    edges = starts if starts.shape[0] == n + 1 else np.r_[starts[:n], size]
    if edges[0] != 0 or edges[-1] != size:  # not a cover of the rows
        return None
    sizes = np.diff(edges)
    width = int(sizes.max())
    if width * n > _TABLE_CELLS_PER_ROW * size + 1024:
        return _exclusive_by_widths(values, group, edges, sizes)
    # Exclusive from the start: column j + 1 holds the sum of columns <= j.
    table = np.zeros((n, width + 1))
    if int(sizes.min()) == width:  # equal segments: the rows are the table
        table[:, 1:] = values.reshape(n, width)
        at = None
    else:
        at = np.arange(size, dtype=np.intp)
        at -= edges[:-1].repeat(sizes)  # position within the segment
        at += group * (width + 1)
        table.reshape(-1)[at + 1] = values
    np.cumsum(table, axis=1, out=table)
    if at is None:
        return table[:, :-1].reshape(-1)
    return table.reshape(-1)[at]


def _exclusive_by_rows_xp(xp, values, group, starts, n):
    """:func:`_exclusive_by_rows` in any array API namespace: each segment's
    running sum from 0 in row order (the numpy path's bits; a sum that is 0
    is 0, not the previous segment's rounding), or None when the table would
    be too large (the restarting running sum then serves)."""
    size = values.shape[0]
    if size == 0 or n <= 1:
        return None
    edges = starts[: n + 1]
    if edges.shape[0] != n + 1 or int(edges[0]) != 0 or int(edges[-1]) != size:
        return None  # not a cover of the rows
    sizes = edges[1:] - edges[:-1]
    width = int(xp.max(sizes))
    if width * n > _TABLE_CELLS_PER_ROW * size + 1024:
        return None
    # Exclusive from the start: column j + 1 holds the sum of columns <= j.
    within = xp.arange(size, dtype=edges.dtype, device=values.device)
    within = within - xp.take(edges, xp.astype(group, edges.dtype))
    at = xp.astype(group, edges.dtype) * (width + 1) + within
    flat = xp.zeros(n * (width + 1), dtype=values.dtype, device=values.device)
    flat = put(flat, at + 1, values)
    table = xp.cumulative_sum(xp.reshape(flat, (n, width + 1)), axis=1)
    return xp.take(xp.reshape(table, (-1,)), at)


def _exclusive_by_widths(values, group, edges, sizes) -> np.ndarray:
    """:func:`_exclusive_by_rows` for segments of very unequal sizes: one table
    per power-of-two width class (at most twice the cells of its rows), each
    segment's running sum from 0 as in the one table. So a segment's sums never
    depend on the other segments (threads over shards of segments give the same
    bits; the restarting running sum carried the previous segment's rounding)."""
    size = values.shape[0]
    width_class = np.zeros(sizes.shape[0], dtype=np.uint8)
    big = sizes > 1
    width_class[big] = np.frexp((sizes[big] - 1).astype(np.float64))[1]
    row_class = width_class[group]
    by_class = np.argsort(row_class, kind="stable")  # radix sort, in row order
    class_edges = np.searchsorted(row_class[by_class], np.arange(65))
    position = np.arange(size, dtype=np.intp)
    position -= edges[:-1].repeat(sizes)
    slot = np.zeros(sizes.shape[0], dtype=np.intp)  # a segment's table row
    out = np.empty(size, dtype=np.float64)
    for c in np.flatnonzero(np.diff(class_edges)).tolist():
        rows = by_class[class_edges[c] : class_edges[c + 1]]
        segments = np.flatnonzero((width_class == c) & (sizes > 0))
        slot[segments] = np.arange(segments.shape[0])
        width = int(sizes[segments].max())
        at = slot[group[rows]] * (width + 1) + position[rows]
        table = np.zeros((segments.shape[0], width + 1))
        table.reshape(-1)[at + 1] = values[rows]
        np.cumsum(table, axis=1, out=table)
        out[rows] = table.reshape(-1)[at]
    return out


def exclusive_cumsum(values: Any, group: Any, starts: Any, n: int) -> Any:
    """Per row, the sum of ``values`` over the earlier rows of its segment.

    Rows of one segment are contiguous and ``starts[g]`` is segment g's first row.
    On numpy, when the segments fit a (segments, longest) table of a few cells per
    row, each segment's running sum is its own row's, from 0, in row order: the
    sums trec_eval makes per query, to the last bit. Otherwise each segment's
    first row first takes away the previous segment's total, so one running sum
    restarts at every segment: exact for the integer counts it serves, with a
    single row-length array (float sums then carry a residue of the order of
    the previous segment's rounding, e.g. -1e-17 where a sum is 0).
    """
    if isinstance(values, np.ndarray):
        by_rows = _exclusive_by_rows(values, group, starts, n)
        if by_rows is not None:
            return by_rows
        out = np.array(values, dtype=np.float64)
        if n > 1 and out.size:
            totals = np.bincount(group, weights=values, minlength=n)
            nonempty = np.flatnonzero(starts[1:] > starts[:-1])
            # The running sum restarted at the previous segment, so it carries
            # only that segment's total into the next one.
            out[starts[nonempty[1:]]] -= totals[nonempty[:-1]]
        np.cumsum(out, out=out)
        out -= values
        return out
    xp = array_namespace(values, group)
    values = xp.astype(values, _float(xp, values))
    by_rows = _exclusive_by_rows_xp(xp, values, group, starts, n)
    if by_rows is not None:
        return by_rows
    out = xp.asarray(values, copy=True)
    if n > 1 and values.shape[0]:
        totals = segment_sum(group, values, n)
        nonempty = flatnonzero(starts[1:] > starts[:-1])
        at = xp.take(starts, nonempty[1:])
        carried = xp.take(totals, nonempty[:-1])
        out = put(out, at, xp.take(out, at) - carried)
    return xp.cumulative_sum(out) - values


def first_in_segment(mask: Any, group: Any, n: int) -> Any:
    """Position of the first row with ``mask`` in each segment, -1 if none
    (``group``: each row's segment, ascending)."""
    if isinstance(mask, np.ndarray):
        pos = np.flatnonzero(mask)
        first = np.full(n, -1, dtype=np.intp)
        if pos.size:
            grp = group[pos]
            keep = np.empty(pos.size, dtype=bool)
            keep[0] = True
            np.not_equal(grp[1:], grp[:-1], out=keep[1:])
            first[grp[keep]] = pos[keep]
        return first
    xp = array_namespace(mask, group)
    pos = flatnonzero(mask)
    grp = xp.astype(xp.take(group, pos), xp.int64)  # ascending: rows are ordered
    segments = xp.arange(n, dtype=xp.int64, device=mask.device)
    at = xp.searchsorted(grp, segments)
    found = at < grp.shape[0]
    at = xp.where(found, at, xp.zeros_like(at))
    found &= xp.take(grp, at) == segments if grp.shape[0] else found
    if not grp.shape[0]:
        return xp.full(n, -1, dtype=xp.int64, device=mask.device)
    return xp.where(found, xp.astype(xp.take(pos, at), xp.int64), -1)


def segment_cumprod(values: Any, rank: Any) -> Any:
    """Inclusive running product within each segment, ``rank`` being each row's
    1-based position in it (Hillis-Steele doubling, so products stay products: no
    logs, no cancellation across segments)."""
    xp = np if isinstance(values, np.ndarray) else array_namespace(values)
    out = xp.asarray(values, copy=True)
    step = 1
    longest = int(xp.max(rank)) if rank.shape[0] else 0
    while step < longest:
        same = rank[step:] > step
        out[step:] = xp.where(same, out[step:] * out[:-step], out[step:])
        step *= 2
    return out


def _block_owner(xp: Any, offsets: Any, n_rows: int) -> Any:
    """Block index of each listed row (blocks start at ``offsets``)."""
    # A fill, not asarray([n_rows]): a list becomes a host-to-device copy.
    end = xp.full(1, n_rows, dtype=offsets.dtype, device=offsets.device)
    size = xp.diff(offsets, append=end)
    nb = offsets.shape[0]
    return repeat(xp.arange(nb, dtype=xp.int64, device=offsets.device), size, n_rows)


def block_sum(values: Any, rows: Any, offsets: Any) -> Any:
    """Sum of ``values`` over each block (its rows listed block after block)."""
    if isinstance(values, np.ndarray):
        return np.add.reduceat(values[rows], offsets) if offsets.size else np.zeros(0)
    xp = array_namespace(values)
    nb = offsets.shape[0]
    owner = _block_owner(xp, offsets, rows.shape[0])
    return segment_sum(owner, xp.take(values, rows), nb)


def block_min(values: Any, rows: Any, offsets: Any) -> Any:
    return _block_extreme(values, rows, offsets, np.minimum, segment_min, np.inf)


def block_max(values: Any, rows: Any, offsets: Any) -> Any:
    return _block_extreme(values, rows, offsets, np.maximum, segment_max, -np.inf)


def _block_extreme(values, rows, offsets, ufunc, per_segment, fill) -> Any:
    """Minimum or maximum over each block: numpy's ``ufunc.reduceat``, else the
    per-segment reduction over each listed row's block."""
    if isinstance(values, np.ndarray):
        return ufunc.reduceat(values[rows], offsets) if offsets.size else np.zeros(0)
    xp = array_namespace(values)
    owner = _block_owner(xp, offsets, rows.shape[0])
    return per_segment(owner, xp.take(values, rows), offsets.shape[0], fill)


def positions(length: Any, n: int) -> tuple[Any, Any]:
    """Group code and 1-based position in the group of each of the ``n`` rows
    ordered by group, from the rows per group."""
    n_groups = length.shape[0]
    if isinstance(length, np.ndarray):
        group = np.repeat(np.arange(n_groups, dtype=np.intp), length)
        # Positions fit in 32 bits for any input that fits in memory twice over.
        rank_type = np.int32 if n < 2**31 else np.int64
        first = np.zeros(n_groups, dtype=rank_type)
        np.cumsum(length[:-1], out=first[1:])
        rank = np.arange(1, n + 1, dtype=rank_type)
        rank -= first.repeat(length)
        return group, rank
    xp = array_namespace(length)
    codes = xp.arange(n_groups, dtype=xp.int64, device=length.device)
    group = repeat(codes, length, n)
    first = xp.cumulative_sum(length, include_initial=True)[:-1]
    rank = xp.arange(1, n + 1, dtype=xp.int64, device=length.device)
    return group, rank - xp.take(first, group)


# -- orderings and gathers ----------------------------------------------------------
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


# -- sums down the positions, at many cutoffs (numpy) ----------------------------------
def sums_to_cutoffs(
    group: np.ndarray,
    rank: np.ndarray,
    values: np.ndarray,
    n: int,
    cuts: np.ndarray,
) -> np.ndarray:
    """``out[c, g]``: the sum of ``values`` over the rows of segment ``g`` at
    1-based positions ``rank <= cuts[c]`` (``cuts`` increasing), of shape
    ``(cuts.size, n)``; each (segment, position) pair at most once.

    One table of positions up to the deepest cutoff (or row) and one running sum
    down it: the cutoff axis's counterpart of a masked :func:`segment_sum` at one
    cutoff. numpy only (the axis is tabulated on the host).
    """
    deepest = int(rank.max()) if rank.size else 0
    width = int(min(cuts[-1], deepest)) if cuts.size else 0
    if width == 0:
        return np.zeros((cuts.size, n))
    # Rows deeper than the table land in one spare row past its end (cheaper
    # than cutting three arrays down to the rows that count).
    spare = int(width < deepest)
    table = np.zeros((width + spare, n))
    # One flat index: a pair of index arrays costs twice as much.
    if spare:
        flat = np.minimum(rank, width + 1, dtype=np.intp)
    else:
        flat = rank.astype(np.intp)
    flat -= 1
    flat *= n
    flat += group
    table.reshape(-1)[flat] = values
    table = table[:width]
    # np.cumsum along axis 0 of a C-ordered table runs an unvectorised strided
    # loop, an order of magnitude slower than one vectorised add per position.
    for p in range(1, width):
        np.add(table[p - 1], table[p], out=table[p])
    if cuts.size == width and cuts[-1] == width:
        return table
    return table[np.minimum(cuts, width) - 1]
