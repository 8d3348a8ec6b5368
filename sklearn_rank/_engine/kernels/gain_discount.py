"""Gains, position discounts and the ideal DCG.

``gains`` maps labels to gains (``"exponential"`` ``2**y - 1``, ``"linear"`` the
label, a mapping or a callable), scaled by a power of two per group where labels
are large (``gain_shift``) so that sums stay finite; ``position_discount`` gives
each 1-based position its discount; ``ideal_dcg`` is the DCG of each group's best
order (by counting label levels where there are few, by sorting otherwise, or in
trec_eval's level order), read by NDCG, and by DCG and RBP under
``gain_rows="judged"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import segments as seg
from ..gain_order import ideal_rows, unjudged_gains
from .arrays import exp2, index_dtype, namespace_of, prefix_sum, times_mask, to_float
from .base import GroupValues, cutoff_position

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


def custom_gain(gain) -> bool:
    """A gain mapping or callable (the ideal order then sorts by gain)."""
    return not isinstance(gain, str)


def gains(labels: np.ndarray, gain, shift: np.ndarray | None = None) -> np.ndarray:
    """Gain of each label; with ``shift``, exponential gains scaled by ``2**-shift``
    (exactly: powers of two), so that sums of gains of labels up to 1023 stay
    finite. In the namespace of ``labels``."""
    xp = namespace_of(labels)
    if custom_gain(gain):
        return _custom_gains(xp, to_float(xp, labels), gain)
    if gain != "exponential":
        return labels
    if shift is None:
        return exp2(xp, labels) - 1.0
    return exp2(xp, labels - shift) - exp2(xp, -shift)


def _user_values(xp: Any, func: Any, x: Any) -> tuple[Any, bool]:
    """A user callable (gain, discount) applied to a copy of ``x`` in its
    namespace, as a float array like ``x``, and whether that has ``x``'s shape
    and only finite values (a scalar sync, for the check that raises)."""
    out = func(xp.asarray(x, copy=True))
    if xp is np:
        out = np.asarray(out, dtype=np.float64)
    else:
        out = xp.asarray(out, dtype=x.dtype, device=x.device)
    return out, out.shape == x.shape and bool(xp.all(xp.isfinite(out)))


def _custom_gains(xp: Any, labels: np.ndarray, gain) -> np.ndarray:
    """A mapping's or a callable's gains. The callable receives a copy of the
    labels as a float array of their namespace (numpy on the numpy path)."""
    if callable(gain):
        out, ok = _user_values(xp, gain, labels)
        if not ok:
            raise ValueError(
                "The 'gain' callable must map the label array to finite gains of "
                f"the same shape {tuple(labels.shape)}."
            )
        return out
    keys, values = [k for k, _ in gain], [v for _, v in gain]
    if xp is np:  # numpy keeps the mapping's own dtypes
        keys, values = np.array(keys), np.array(values)
    else:
        dev = labels.device
        keys = xp.asarray(keys, dtype=labels.dtype, device=dev)
        values = xp.asarray(values, dtype=labels.dtype, device=dev)
    at = xp.clip(xp.searchsorted(keys, labels), 0, keys.shape[0] - 1)
    missing = xp.take(keys, at) != labels
    if bool(xp.any(missing)):  # a scalar sync for the check (it raises)
        raise ValueError(
            f"y_true has the label {float(labels[missing][0]):g}, which the 'gain' "
            f"mapping {dict(gain)!r} has no entry for; give every label a gain."
        )
    return xp.take(values, at)


# Exponential gains of labels up to this are summed unscaled (n * 2**512 is far
# from float64's limit); above it each group's gains are scaled by a power of two.
_UNSCALED_LABEL = 512


def gain_shift(ctx: RankingContext, gain: str) -> np.ndarray | None:
    """Per group, the power of two that scales its exponential gains (None when
    every label is small enough, the usual case). NDCG is a ratio of sums scaled
    alike, so it is exact for every accepted label; DCG is scaled back."""
    if gain != "exponential":
        return None

    def compute() -> np.ndarray | None:
        xp = ctx.xp
        y, codes = ctx.totals.y_all, ctx.totals.codes_all
        # A scalar sync, once per input: whether any label needs the scaling.
        if not y.shape[0] or float(xp.max(y)) <= _UNSCALED_LABEL:
            return None
        top = seg.segment_max(codes, y, ctx.n_groups, 0.0)
        return xp.maximum(xp.floor(top) - _UNSCALED_LABEL, 0.0)

    return ctx.totals.cached("gain_shift", compute)


def position_discount(rank: np.ndarray, discount="log2") -> np.ndarray:
    """The discount of each 1-based position (see the ``discount`` keyword), in
    the namespace of ``rank``; a callable receives a float copy of it."""
    xp = namespace_of(rank)
    rank = to_float(xp, rank)
    if discount == "log2":
        return 1.0 / xp.log2(rank + 1.0)
    if discount == "jarvelin":
        return 1.0 / xp.log2(xp.maximum(rank, 2.0))
    if not callable(discount):  # a log base b > 1
        return float(np.log(discount)) / xp.log(rank + 1.0)
    out, ok = _user_values(xp, discount, rank)
    if not ok:
        shape = tuple(out.shape)
        got = "non-finite values" if out.shape == rank.shape else f"shape {shape}"
        raise ValueError(
            "The 'discount' callable must map the float array of 1-based positions "
            f"to finite discounts of the same shape {tuple(rank.shape)}. Got {got} "
            "instead."
        )
    return out


def row_discounts(
    ctx: RankingContext, k: int | None, discount, rows: Any = None
) -> np.ndarray:
    """Per ranked row (or per row of index ``rows``), the discount of its
    position, 0 beyond ``k``. A named discount or a log base is computed once
    per position and gathered (a table of at most ``k`` entries: no logarithm
    per row); a callable gets the rows' positions, as documented."""
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    rank = ctx.rank if rows is None else seg.take(ctx.rank, rows)
    if callable(discount):
        disc = position_discount(rank, discount)
        if k is not None:
            disc[rank > k] = 0.0
        return disc
    # A scalar sync: the table's size.
    deepest = int(xp.max(ctx.length)) if ctx.n_groups else 0
    depth = deepest if k is None else min(k, deepest)
    table = xp.zeros(depth + 2, dtype=f, device=dev)  # 0 unused; depth + 1: beyond k
    table[1 : depth + 1] = position_discount(
        xp.arange(1, depth + 1, dtype=f, device=dev), discount
    )
    if depth == deepest:
        return xp.take(table, rank)
    if xp is np:  # positions beyond k read the table's last entry, 0
        return np.take(table, rank, mode="clip")
    return xp.take(table, xp.minimum(rank, depth + 1))


def judged_gains(ctx: RankingContext, gain, shift=None, rows="judged") -> np.ndarray:
    """The ranked rows' gains; with ``rows="judged"`` an unjudged row gains 0,
    or the gain's level -1 (outside the pool) or -2 (in the pool), as
    trec_eval's ``get_gain`` (see the ``gain`` keyword)."""
    xp = ctx.xp
    g = gains(ctx.y, gain, shift)
    if rows != "judged" or ctx.judged is None:
        return g
    nonpool, pooled = unjudged_gains(gain)
    if not (nonpool or pooled):
        return times_mask(xp, g, ctx.judged)
    other = xp.full(g.shape, nonpool, dtype=g.dtype, device=ctx.device)
    if ctx.in_pool is not None:
        other = xp.where(ctx.in_pool, pooled, other)
    return xp.where(ctx.judged, g, other)


# Integer labels with at most this many levels get the linear-time ideal DCG, as
# long as the (group, level) count table stays within a few cells per row.
COUNTING_LEVELS = 16
_LEVEL_CELLS_PER_ROW = 4
# Up to this depth float64 prefix sums of discounts differ from exact by < 1e-15.
_SHORT_PREFIX = 64


def _discount_prefix(ctx: RankingContext, n: int, discount="log2") -> np.ndarray:
    """``P[p] = Σ_{q<=p} discount(q)``; on numpy in extended precision for deep
    lists, so that differences of far-apart prefixes keep float64 accuracy. Other
    namespaces have no extended type: there the prefix is in ``ctx.float``, and a
    difference of prefixes at depth p can lose ~p ulps of the prefix (about 1e-13
    relative at depth 1000 in float64)."""
    xp, f = ctx.xp, ctx.float
    disc = position_discount(xp.arange(1, n + 1, dtype=f, device=ctx.device), discount)
    if xp is not np:
        return xp.cumulative_sum(disc, include_initial=True)
    prefix = np.zeros(n + 1, dtype=np.float64 if n <= _SHORT_PREFIX else np.longdouble)
    np.cumsum(disc, out=prefix[1:])
    return prefix


def ideal_dcg(
    ctx: RankingContext,
    k: int | None,
    gain: str,
    discount="log2",
    rows="all",
    order="gain",
) -> np.ndarray:
    """DCG@k of each group's own labels (retrieved or not) sorted descending; with
    ``rows="judged"`` (trec_eval) of its judged rows with a gain > 0 only, in the
    ``ideal_order`` ``order`` (:mod:`.gain_order`). With
    ``k`` an (n_cuts, 1) array of increasing cutoffs (numpy), per cutoff and
    group: the same contributions, summed down the positions."""
    key = tuple(k.ravel().tolist()) if isinstance(k, np.ndarray) else k
    return ctx.totals.cached(
        ("idcg", key, gain, discount, rows, order),
        lambda: _ideal_dcg(ctx, k, gain, discount, rows, order),
    )


def _trec_ideal_dcg(ctx, k, gain, discount, rows, order):
    """The ideal DCG in trec_eval's level order (``ideal_order="trec_eval"``
    with gains whose differences are not all integers): the kept rows sorted
    by their level's position in the group's sorted gain list."""
    y, codes = ctx.totals.y_all, ctx.totals.codes_all
    judged = ctx.totals.judged_all if rows == "judged" else None
    g = gains(y, gain)
    keep, key = ideal_rows(
        y, codes, judged, ctx.n_groups, gain, g, order, level_gain(gain)
    )
    codes, g, key = codes[keep], g[keep], key[keep]
    return _ideal_sum(ctx, codes, key, k, discount, lambda by, _: seg.take(g, by))


def _ideal_sum(ctx, codes, key, k, discount, sorted_gains) -> Any:
    """The ideal DCG of rows sorted by group, then ``key`` descending:
    ``sorted_gains(order, sorted_codes)`` gives their gains in that order."""
    xp = ctx.xp
    by = seg.group_order(codes, key)
    sorted_codes = seg.take(codes, by)
    size = seg.segment_count(sorted_codes, ctx.n_groups)
    rank = xp.arange(1, codes.shape[0] + 1, dtype=index_dtype(xp), device=ctx.device)
    rank -= seg.take(prefix_sum(xp, size)[:-1], sorted_codes)
    contrib = sorted_gains(by, sorted_codes) * position_discount(rank, discount)
    return _sum_to(xp, sorted_codes, contrib, rank, k, ctx.n_groups)


def _sum_to(xp, codes, contrib, rank, k, n_groups):
    """Per group, the sum of ``contrib`` at ranks <= k (every rank if None);
    with ``k`` an (n_cuts, 1) array (the cutoff axis), per cutoff and group."""
    if isinstance(k, np.ndarray):
        return seg.sums_to_cutoffs(codes, rank, contrib, n_groups, k.ravel())
    if k is not None:
        contrib = xp.where(rank <= k, contrib, 0.0)
    return seg.segment_sum(codes, contrib, n_groups)


def level_gain(gain) -> Callable:
    """The gain of one level (for the sorted gain list of :mod:`.gain_order`)."""
    return lambda level: float(gains(np.asarray([float(level)]), gain)[0])


def _ideal_dcg(
    ctx: RankingContext,
    k: int | None,
    gain: str,
    discount="log2",
    rows="all",
    order="gain",
) -> np.ndarray:
    xp, f, dev, n_groups = ctx.xp, ctx.float, ctx.device, ctx.n_groups
    if order == "trec_eval" and custom_gain(gain):
        return _trec_ideal_dcg(ctx, k, gain, discount, rows, order)
    many = isinstance(k, np.ndarray)  # (n_cuts, 1) cutoffs: the cutoff axis
    shape = (k.shape[0], n_groups) if many else n_groups
    y, codes, counts = _ideal_levels(ctx, gain, rows)
    if not y.shape[0]:
        return xp.zeros(shape, dtype=f, device=dev)
    if counts is not None:
        # In the ideal order the rows of label l take the positions right after
        # every higher label of the group, so each level adds its gain times a
        # difference of discount prefixes. One pass per level, none per group.
        top = counts.shape[0] - 1
        deepest = int(xp.max(xp.sum(counts, axis=0)))  # the longest group
        if k is None:
            depth = deepest
        else:
            depth = min(int(np.max(k)) if many else k, deepest)
        prefix = _discount_prefix(ctx, depth, discount)
        if many:
            return _ideal_by_levels_at_cutoffs(
                prefix, counts, np.minimum(k, depth), gain
            )
        total = xp.zeros(shape, dtype=f, device=dev)
        higher = xp.zeros(n_groups, dtype=index_dtype(xp), device=dev)
        below = prefix[0]  # prefix at min(higher, depth): 0 before any level
        for level in range(top, 0, -1):
            higher += counts[level, :]
            reach = xp.take(prefix, xp.minimum(higher, depth))
            span = xp.astype(reach - below, f, copy=False)
            span *= float(gains(np.float64(level), gain))
            total += span
            below = reach
        return total
    return _ideal_by_sorting(ctx, y, codes, k, gain, discount)


def _ideal_levels(ctx: RankingContext, gain, rows: str) -> tuple:
    """``(y, codes, counts)``: the labels and group codes of the rows an ideal
    list is made of (``rows="judged"``, trec_eval's m_ndcg.c: the judged rows
    whose gain is > 0; else every row) and, when those labels are few whole
    numbers, their level-major (label, group) count table (else None). For the
    built-in gains (gain > 0 exactly when the label is > 0) this depends on no
    cutoff or discount: computed once per input, not once per cutoff."""
    xp, n_groups = ctx.xp, ctx.n_groups

    def compute() -> tuple:
        y, codes = ctx.totals.y_all, ctx.totals.codes_all
        if rows == "judged":
            keep = gains(y, gain) > 0
            if ctx.totals.judged_all is not None:
                keep &= ctx.totals.judged_all
            y, codes = y[keep], codes[keep]
        if not y.shape[0] or custom_gain(gain):
            return y, codes, None
        # Scalar syncs: the method and the table's size depend on them.
        top = int(xp.max(y))
        dense = (top + 1) * n_groups <= _LEVEL_CELLS_PER_ROW * (y.shape[0] + 1024)
        if not (top < COUNTING_LEVELS and dense and bool(xp.all(y == xp.floor(y)))):
            return y, codes, None
        # A level-major count table: each level's counts are contiguous.
        key = xp.astype(y, index_dtype(xp))
        key *= n_groups
        key += codes
        counts = seg.segment_count(key, n_groups * (top + 1))
        counts = xp.reshape(counts, (top + 1, n_groups))
        if rows != "judged":  # the input's own table: GroupTotals.n_relevant
            ctx.totals.cached("label_counts", lambda: counts)
        return y, codes, counts

    if custom_gain(gain):
        return compute()
    return ctx.totals.cached(("ideal_levels", rows), compute)


def _ideal_by_sorting(ctx, y, codes, k, gain, discount) -> np.ndarray:
    """:func:`_ideal_dcg` by sorting each group by gain: by label for the
    monotone gains, by the gain itself for a mapping or a callable."""
    g = gains(y, gain) if custom_gain(gain) else None
    shift = gain_shift(ctx, gain)

    def sorted_gains(by, sorted_codes):
        if g is not None:
            return seg.take(g, by)
        row_shift = None if shift is None else seg.take(shift, sorted_codes)
        return gains(seg.take(y, by), gain, row_shift)

    return _ideal_sum(ctx, codes, y if g is None else g, k, discount, sorted_gains)


# The largest table of prefix differences the cutoff axis reads the ideal DCG from.
_SPAN_CELLS = 1 << 20
# Cells of the (cutoffs, groups) buffers it works in.
_SPAN_CHUNK = 1 << 16


def _ideal_by_levels_at_cutoffs(prefix, counts, caps, gain) -> np.ndarray:
    """:func:`_ideal_dcg`'s counting form at each cutoff of ``caps`` ((n_cuts, 1),
    capped at the prefix's depth), (n_cuts, n_groups), numpy: the same spans
    ``float64(prefix[a] - prefix[b]) * gain`` added level by level in the same
    order, so each cutoff's value is the one the kernel computes. The spans come
    from a table of every difference of two prefixes, times each level's gain
    (no extended-precision arithmetic per cell), when it is small, else from the
    prefixes themselves."""
    width = prefix.shape[0]
    levels = range(counts.shape[0] - 1, 0, -1)
    scaled = {}
    if width * width <= _SPAN_CELLS:
        table = (prefix[:, None] - prefix[None, :]).astype(np.float64).ravel()
        # The product each cell would get after the gather, taken once per level.
        scaled = {lv: table * float(gains(np.float64(lv), gain)) for lv in levels}
    n_groups = counts.shape[1]
    total = np.zeros((caps.shape[0], n_groups))
    # A few cutoffs at a time, in buffers reused throughout: fresh (n_cuts,
    # n_groups) temporaries cost more in page faults than the arithmetic.
    rows = max(1, _SPAN_CHUNK // max(n_groups, 1))
    below, at, index = (np.empty((rows, n_groups), dtype=np.intp) for _ in range(3))
    span = np.empty((rows, n_groups))
    for first in range(0, caps.shape[0], rows):
        cap = caps[first : first + rows]
        n = cap.shape[0]
        out, low, up = total[first : first + n], below[:n], at[:n]
        low[...] = 0  # min(higher, cap) so far
        higher = np.zeros(n_groups, dtype=np.intp)
        for level in levels:
            higher += counts[level, :]
            np.minimum(higher[None, :], cap, out=up)
            if scaled:
                np.multiply(up, width, out=index[:n])
                index[:n] += low
                # 0 + x is x: the top level's spans are the running sum itself.
                into = out if level == levels[0] else span[:n]
                np.take(scaled[level], index[:n], out=into, mode="clip")
                if into is not out:
                    out += into
            else:
                part = (prefix[up] - prefix[low]).astype(np.float64)
                part *= float(gains(np.float64(level), gain))
                out += part
            low, up = up, low
    return total


def judged_gain_result(
    ctx: RankingContext,
    k: int | None,
    values: np.ndarray,
    opts: Options,
    order: str = "gain",
) -> GroupValues:
    """``gain_rows="judged"``: a group is defined where its ideal DCG is > 0
    (trec_eval's NDCG never reads the relevance threshold); the ideal list in
    ``order`` (NDCG's ``ideal_order``; DCG and RBP, plain sums in trec_eval,
    by gain)."""
    xp = ctx.xp
    ideal = ideal_dcg(
        ctx, cutoff_position(ctx, k), opts.gain, opts.discount, "judged", order
    )
    defined = ideal > 0
    return GroupValues(xp.where(defined, values, xp.nan), defined, ctx.group_weight())


def scale_back(xp: Any, values: Any, shift: Any) -> Any:
    """``values * 2**shift``, exactly (inf on overflow, no warning)."""
    if xp is np:
        with np.errstate(over="ignore"):
            return np.ldexp(values, shift.astype(np.intp))
    return values * exp2(xp, shift)
