"""Per-group metric kernels on the ordered view.

Each kernel has the signature ``kernel(ctx, k, opts) -> (values, defined, weight)``
with one entry per group: the metric value (NaN where undefined), whether the group
is defined, and the weight of the group in the mean. ``k=None`` is the whole list.

Tie expectations (``ties="average"``) are exact. For a tie block holding positions
``a..b`` (``m = b - a + 1`` rows, ``r`` of them relevant) every order of the block is
equally likely, so each row sits at each of those positions with probability
``1/m``; positional sums therefore become block means (:meth:`block_mean`), and the
few non-linear metrics (Hit, MRR, AP, ERR) use the exact forms derived next to
them.

Kernels compute in the namespace and on the device of the context (``ctx.xp``,
``ctx.device``, ``ctx.float``): numpy on the numpy path, any array API namespace
under scikit-learn's ``array_api_dispatch``. The few helpers below that branch on
``xp is np`` keep numpy's own (faster or extended-precision) operation there; every
formula exists once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import segments as seg
from .gain_order import ideal_rows, unjudged_gains
from .segments import ranges

if TYPE_CHECKING:
    from .context import RankingContext
    from .conventions import Options


class GroupValues(NamedTuple):
    """What every kernel returns, one entry per group."""

    values: np.ndarray  # the metric value; NaN where undefined
    defined: np.ndarray  # whether the group enters the mean
    weight: np.ndarray  # the group's weight in the mean


# -- namespace helpers ----------------------------------------------------------------
def _ns(x: Any) -> Any:
    """The namespace of an array (numpy for numpy arrays and scalars)."""
    if isinstance(x, (np.ndarray, np.generic, float, int)):
        return np
    return seg.array_namespace(x)


def _index(xp: Any) -> Any:
    """The index dtype: numpy's intp, int64 in other namespaces."""
    return np.intp if xp is np else xp.int64


def _float_of(xp: Any, x: Any) -> Any:
    """The float dtype of a computation on ``x``'s device (float64, or float32
    on a device without it)."""
    return np.float64 if xp is np else seg._float(xp, x)


def _to_float(xp: Any, x: Any) -> Any:
    """``x`` as a float array (no copy when it is one already)."""
    if xp is np:
        return np.asarray(x, dtype=np.float64)
    return xp.astype(x, _float_of(xp, x), copy=False)


def _as_f(xp: Any, x: Any) -> Any:
    """``x`` ready for arithmetic with float arrays: numpy promotes integers
    inside the operation itself (no extra pass); the standard mixes no kinds."""
    return x if xp is np else xp.astype(x, _float_of(xp, x), copy=False)


def _times_mask(xp: Any, x: Any, mask: Any) -> Any:
    """``x * mask`` for a float ``x`` (overwritten on numpy) and a bool mask."""
    if xp is np:
        x *= mask
        return x
    return x * xp.astype(mask, x.dtype)


def _prefix_sum(xp: Any, x: Any) -> Any:
    """``[0, x0, x0 + x1, ...]``: one pass on numpy (``cumulative_sum`` with
    ``include_initial`` concatenates), in ``x``'s dtype."""
    if xp is np:
        out = np.zeros(x.shape[0] + 1, dtype=x.dtype)
        np.cumsum(x, out=out[1:])
        return out
    return xp.cumulative_sum(x, include_initial=True)


def _exp2(xp: Any, x: Any) -> Any:
    """``2 ** x`` (the standard has no ``exp2``; powers of two stay exact)."""
    exp2 = getattr(xp, "exp2", None)
    return exp2(x) if exp2 is not None else 2.0**x


def _log1p_where(xp: Any, x: Any, ok: Any) -> Any:
    """``log1p(x)`` where ``ok``, 0 elsewhere (no log of a bad ``x``)."""
    if xp is np:
        out = np.zeros_like(x)
        np.log1p(x, out=out, where=ok)
        return out
    return xp.where(ok, xp.log1p(xp.where(ok, x, 0.0)), 0.0)


def _binary_result(
    ctx: RankingContext, values: np.ndarray, opts: Options
) -> GroupValues:
    xp = ctx.xp
    defined = ctx.n_relevant(opts.relevance_threshold) > 0
    return GroupValues(xp.where(defined, values, xp.nan), defined, ctx.group_weight())


def custom_gain(gain) -> bool:
    """A gain mapping or callable (the ideal order then sorts by gain)."""
    return not isinstance(gain, str)


def gains(labels: np.ndarray, gain, shift: np.ndarray | None = None) -> np.ndarray:
    """Gain of each label; with ``shift``, exponential gains scaled by ``2**-shift``
    (exactly: powers of two), so that sums of gains of labels up to 1023 stay
    finite. In the namespace of ``labels``."""
    xp = _ns(labels)
    if custom_gain(gain):
        return _custom_gains(xp, _to_float(xp, labels), gain)
    if gain != "exponential":
        return labels
    if shift is None:
        return _exp2(xp, labels) - 1.0
    return _exp2(xp, labels - shift) - _exp2(xp, -shift)


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
    xp = _ns(rank)
    rank = _to_float(xp, rank)
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


def _position_discounts(ctx: RankingContext, k: int | None, discount) -> np.ndarray:
    """Per ranked row, the discount of its position, 0 beyond ``k``. A named
    discount or a log base is computed once per position and gathered (a table
    of at most ``k`` entries: no logarithm per row); a callable gets the rows'
    positions, as documented."""
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    if callable(discount):
        disc = position_discount(ctx.rank, discount)
        if k is not None:
            disc[ctx.rank > k] = 0.0
        return disc
    # A scalar sync: the table's size.
    deepest = int(xp.max(ctx.length)) if ctx.n_groups else 0
    depth = deepest if k is None else min(k, deepest)
    table = xp.zeros(depth + 2, dtype=f, device=dev)  # 0 unused; depth + 1: beyond k
    table[1 : depth + 1] = position_discount(
        xp.arange(1, depth + 1, dtype=f, device=dev), discount
    )
    if depth == deepest:
        return xp.take(table, ctx.rank)
    if xp is np:  # positions beyond k read the table's last entry, 0
        return np.take(table, ctx.rank, mode="clip")
    return xp.take(table, xp.minimum(ctx.rank, depth + 1))


# -- the cutoff metrics: per-row contributions and a finisher --------------------------
# DCG, NDCG, precision, recall, hit rate, RR and AP are written once, as
#   (a) ``rows(view, depth, opts)``: per-row contributions on the ordered view, each
#       the expected contribution of the row's *position* (tie blocks by their exact
#       expectation at every cutoff), for each of the metric's sums;
#   (b) ``finish(ctx, sums, k, opts)``: the metric from its sums at ``k`` (the
#       denominators, normalisers, option values and undefined groups).
# The metric's sums at ``k`` add each contribution at a position <= k. The kernel
# below is that at one cutoff (a masked group sum on ``ctx.head(k)``); the cutoff
# axis (``_engine/cutoffs.py``) is the same contributions summed down the positions
# (``segments.sums_to_cutoffs``) and the same finisher with ``k`` an (n_cuts, 1)
# array. A wrong number in either part changes both.
class Part(NamedTuple):
    """Contributions to one sum: ``values[i]`` at row ``index[i]`` of the view (every
    row when ``index`` is None). ``cut``: already 0 beyond the depth asked for.
    ``blocks``: ``index`` is the rows of these tie blocks, block after block (each
    inside one group), so one cutoff sums them block by block."""

    index: Any
    values: Any
    cut: bool = False
    blocks: Any = None


def _always(*_: Any) -> bool:
    return True


class Cumulative(NamedTuple):
    """A cutoff metric as contributions plus a finisher (see above).

    ``past_end(opts)``: whether a cutoff past every list (all its rows, ranked or
    not) has the value at the longest list (False: the finisher reads the real
    ``k``, as precision's ``k`` denominator). ``on_axis(ctx, opts)``: whether the
    cutoff axis can sum the contributions down the positions; where not (AP's
    random denominator of a tie block across the cutoff), it calls the kernel at
    each cutoff -- the same formulation, one cutoff at a time.
    """

    rows: Callable
    finish: Callable
    past_end: Callable = _always
    on_axis: Callable = _always


def cumulate(form: Cumulative, ctx: RankingContext, k: int | None, opts: Options):
    """The metric of ``form`` at one cutoff ``k``: its contributions at positions
    <= k summed per group, then finished."""
    top = _positions(ctx, k)
    view = ctx.head(top)
    sums = tuple(_sum_within(view, top, parts) for parts in form.rows(view, top, opts))
    return form.finish(ctx, sums, k, opts)


def _sum_within(view: RankingContext, k: int | None, parts) -> Any:
    """Per group, the sum of the parts' contributions at positions <= k."""
    xp = view.xp
    total = None
    for part in parts:
        values, group, rank = part.values, view.group, view.rank
        if part.index is not None and (k is not None or part.blocks is None):
            group, rank = seg.take(group, part.index), seg.take(rank, part.index)
        if k is not None and not part.cut:
            values = xp.where(rank <= k, values, 0.0)
        if part.blocks is not None:  # no gather of the rows' groups
            b = part.blocks
            values, group = _run_sum(values, b.offsets, b.size), b.group
        s = view.group_sum(values, group)
        total = s if total is None else total + s
    if total is None:
        return xp.zeros(view.n_groups, dtype=view.float, device=view.device)
    return total


def _unrouted(option: str, value: object) -> ValueError:
    # A value no branch knows must never fall into another's branch.
    return ValueError(f"No finisher branch for {option}={value!r}: add one.")


# -- DCG / NDCG -----------------------------------------------------------------------
def _gain_rows(view: RankingContext, depth: int | None, opts: Options):
    """E[gain at the row's position] x the position's discount: each row's gain
    (unjudged rows 0, or the gain map's levels -1 / -2, under
    ``gain_rows="judged"``: :func:`judged_gains`) averaged over its tie block,
    times its position's discount (McSherry & Najork, 2008)."""
    xp, f = view.xp, view.float
    shift = gain_shift(view, opts.gain)
    row_shift = None if shift is None else seg.take(shift, view.group)
    gain = judged_gains(view, opts.gain, row_shift, opts.gain_rows)
    if view.blocks:
        # block_mean overwrites its input: a copy unless the gains are new.
        fresh = isinstance(opts.gain, str) and opts.gain == "exponential"
        fresh = fresh and gain is not view.y
        gain = view.block_mean(xp.astype(gain, f, copy=not fresh))
    disc = _position_discounts(view, depth, opts.discount)  # 0 beyond depth
    disc *= gain
    return ((Part(None, disc, cut=True),),)


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
        return _times_mask(xp, g, ctx.judged)
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
        y, codes, judged, ctx.n_groups, gain, g, order, _level_gain(gain)
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
    rank = xp.arange(1, codes.shape[0] + 1, dtype=_index(xp), device=ctx.device)
    rank -= seg.take(_prefix_sum(xp, size)[:-1], sorted_codes)
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


def _level_gain(gain) -> Callable:
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
        higher = xp.zeros(n_groups, dtype=_index(xp), device=dev)
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
        key = xp.astype(y, _index(xp))
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


def _judged_gain_result(
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
        ctx, _positions(ctx, k), opts.gain, opts.discount, "judged", order
    )
    defined = ideal > 0
    return GroupValues(xp.where(defined, values, xp.nan), defined, ctx.group_weight())


def _scale_back(xp: Any, values: Any, shift: Any) -> Any:
    """``values * 2**shift``, exactly (inf on overflow, no warning)."""
    if xp is np:
        with np.errstate(over="ignore"):
            return np.ldexp(values, shift.astype(np.intp))
    return values * _exp2(xp, shift)


def _dcg_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    """DCG from its sum: scaled back (exponential gains of huge labels)."""
    xp = ctx.xp
    (values,) = sums
    shift = gain_shift(ctx, opts.gain)
    if shift is not None:
        values = _scale_back(xp, values, shift)
        if not bool(xp.all(xp.isfinite(values))):  # a scalar sync (it raises)
            top = float(xp.max(ctx.totals.y_all))
            raise ValueError(
                "DCG with gain='exponential' overflows float64 for y_true labels up "
                f"to {top:g} (2**label - 1 summed over a list). Use "
                "NDCG (scale-free, exact for every label up to 1023), gain='linear', "
                "or smaller labels."
            )
    if opts.gain_rows == "judged":
        found = _judged_gain_result(ctx, k, values, opts)
        if not custom_gain(opts.gain):
            return found
        # trec_eval's dcg is a plain sum: with gains <= 0, or gains of unjudged
        # rows (levels -1, -2), a group whose ideal DCG is <= 0 can still rank
        # a row of nonzero gain; it is defined then too.
        gained = ctx.group_sum(
            ctx.xp.astype(judged_gains(ctx, opts.gain) != 0, ctx.float)
        )
        defined = found.defined | (gained > 0)
        return GroupValues(xp.where(defined, values, xp.nan), defined, found.weight)
    return _binary_result(ctx, values, opts)


def _ndcg_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    """NDCG from the DCG sum and the ideal DCG at the same cutoff(s). DCG and
    ideal DCG are scaled alike per group (gain_shift): the ratio is exact."""
    xp = ctx.xp
    (dcg_k,) = sums
    ideal = ideal_dcg(
        ctx,
        _positions(ctx, k),
        opts.gain,
        opts.discount,
        opts.gain_rows,
        opts.ideal_order,
    )
    if opts.gain_rows == "judged":  # trec_eval: defined where the ideal DCG is > 0
        defined = ideal > 0
    else:
        defined = ctx.n_relevant(opts.relevance_threshold) > 0
        if custom_gain(opts.gain):  # gains may be <= 0: no ideal gain, no NDCG
            defined = defined & (ideal > 0)
    # Defined groups hold a label >= threshold > 0, so their ideal DCG is > 0
    # for every positive discount; a callable discount may break that (a scalar
    # sync for the check, which raises; the named discounts are all > 0).
    if callable(opts.discount) and bool(xp.any(defined & (ideal <= 0))):
        raise ValueError(
            "ndcg_score: the ideal DCG of a group with a relevant row is <= 0 under "
            "the given 'discount' callable; discounts of the first positions must be "
            "> 0."
        )
    values = seg.divide(dcg_k, ideal, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


DCG = Cumulative(_gain_rows, _dcg_finish)
NDCG = Cumulative(_gain_rows, _ndcg_finish)


def dcg(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[DCG@k] (:func:`_gain_rows`, :func:`_dcg_finish`)."""
    return cumulate(DCG, ctx, k, opts)


def ndcg(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[DCG@k] / ideal DCG@k (:func:`_gain_rows`, :func:`_ndcg_finish`)."""
    return cumulate(NDCG, ctx, k, opts)


# -- counting metrics -----------------------------------------------------------------
def _hits_in_top(ctx: RankingContext, k, opts: Options) -> np.ndarray:
    """E[number of relevant rows at positions <= k] per group (``k`` an int or
    one cutoff per group): :meth:`RankingContext.hits_in_top`, whose running
    count serves every cutoff of the view."""
    xp = ctx.xp
    if k is None:  # every row of the view
        k = ctx.starts[1:] - ctx.starts[:-1]
    elif isinstance(k, (int, np.integer)):
        k = xp.full(ctx.n_groups, int(k), dtype=xp.int64, device=ctx.device)
    return ctx.hits_in_top(k, opts.relevance_threshold)


def _relevant_rows(view: RankingContext, depth: int | None, opts: Options):
    """E[the row at this position is relevant]: relevance averaged over the row's
    tie block (hits@k is linear in the rows)."""
    rel = view.relevant(opts.relevance_threshold)
    return ((Part(None, view.block_mean(view.xp.astype(rel, view.float))),),)


def _precision_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    (hits,) = sums
    denom = _precision_denominator(ctx, k, opts)
    if k is not None and opts.precision_denominator == "k":  # k >= 1
        return _binary_result(ctx, hits / _as_f(ctx.xp, denom), opts)
    # A group with nothing ranked has retrieved nothing: precision 0.
    values = seg.divide(hits, _as_f(ctx.xp, denom), denom > 0, 0.0)
    return _binary_result(ctx, values, opts)


def _recall_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    xp = ctx.xp
    (hits,) = sums
    denom = _recall_denominator(ctx, k, opts)
    return _binary_result(ctx, hits / _as_f(xp, xp.maximum(denom, 1)), opts)


PRECISION = Cumulative(
    _relevant_rows,
    _precision_finish,
    past_end=lambda opts: opts.precision_denominator != "k",
)
RECALL = Cumulative(_relevant_rows, _recall_finish)


def precision(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[hits@k] / the ``precision_denominator``."""
    return cumulate(PRECISION, ctx, k, opts)


def recall(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[hits@k] / the ``recall_denominator``."""
    return cumulate(RECALL, ctx, k, opts)


def _recall_denominator(ctx: RankingContext, k, opts: Options):
    """R, or min(k, R) (a list of k rows can then reach recall 1)."""
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if k is None or opts.recall_denominator == "n_relevant":
        return n_rel
    if opts.recall_denominator != "min_k_n_relevant":
        raise _unrouted("recall_denominator", opts.recall_denominator)
    return ctx.xp.minimum(n_rel, _positions(ctx, k))  # capped k: never below R here


def r_precision(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Precision at R, the group's own number of relevant rows (``k`` unused)."""
    xp = ctx.xp
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    hits = _hits_in_top(ctx, n_rel, opts)
    return _binary_result(ctx, hits / _as_f(xp, xp.maximum(n_rel, 1)), opts)


# -- first-hit metrics ----------------------------------------------------------------
def _first_relevant_block(ctx: RankingContext, opts: Options):
    """Per group: the row of the first relevant row (-1 if none) and the tie block
    holding it: its tied-block index (-1 for a single row), first position ``a``,
    size ``m`` and relevant count ``r``."""
    xp, dev, n = ctx.xp, ctx.device, ctx.n_groups
    rel = ctx.relevant(opts.relevance_threshold)
    first = ctx.first_in_group(rel)
    found = first >= 0
    # Selections by `where` over gathers at a stand-in row 0 rather than boolean
    # indexing, which waits for the device to count the selected entries.
    at = xp.where(found, first, 0)
    one = xp.ones(n, dtype=xp.int64, device=dev)
    a = m = r = one
    if ctx.rank.shape[0]:  # else no group has a ranked row: none found
        a = xp.where(found, xp.astype(seg.take(ctx.rank, at), xp.int64), one)
    block = xp.full(n, -1, dtype=_index(xp), device=dev)
    blocks = ctx.blocks
    if blocks:
        block = xp.where(found, xp.astype(blocks.block_of(at), _index(xp)), block)
        tied = block >= 0
        tb = xp.where(tied, block, 0)
        a = xp.where(tied, xp.astype(seg.take(blocks.rank, tb), xp.int64), a)
        m = xp.where(tied, xp.astype(seg.take(blocks.size, tb), xp.int64), one)
        r = xp.where(tied, xp.astype(seg.take(blocks.sum(rel), tb), xp.int64), one)
    return first, block, a, m, r


def _first_hit_rows(view: RankingContext, depth: int | None, opts, reciprocal: bool):
    """P(the first relevant row sits at this position), divided by the position
    for RR: the hit rate at k and RR at k are their sums over positions <= k.

    An untied first relevant row at position ``a`` is there with probability 1.
    In the first block holding a relevant row (``m`` rows, ``r`` relevant, first
    position ``a``) the first relevant row is at offset ``j`` with probability
    ``P_j = [C(m - r, j) / C(m, j)] * r / (m - j)``, ``0 <= j <= m - r``: the first
    ``j`` rows miss every relevant row, then row ``j`` is one of them. Its log is a
    running sum of ``log1p(-r / (m - i))`` over ``i < j`` (no cancellation, exact
    even when tiny), and only offsets inside the depth are expanded. Under
    ``ties="threshold"`` the block is one threshold: RR reads the precision at its
    end, ``r / (a + m - 1)``, spread evenly over its ``m`` positions.
    """
    xp, f = view.xp, view.float
    first, block, a, m, r = _first_relevant_block(view, opts)
    untied = seg.flatnonzero((first >= 0) & (block < 0))
    one = xp.ones(untied.shape[0], dtype=f, device=view.device)
    if reciprocal:
        one /= _as_f(xp, seg.take(a, untied))
    parts = [Part(seg.take(first, untied), one)]
    tied = seg.flatnonzero(block >= 0)
    if tied.shape[0]:
        m_t, r_t, a_t = seg.take(m, tied), seg.take(r, tied), seg.take(a, tied)
        whole = reciprocal and view.thresholds
        last = m_t - 1 if whole else m_t - r_t  # the last offset that counts
        if depth is not None:
            last = xp.minimum(last, depth - a_t)
        count = xp.maximum(last + 1, 0)
        total = int(xp.sum(count))  # a scalar sync, shared by the two expansions
        owner, starts, n = _runs(count, total)
        # the offset of each row in its block
        j = ranges(xp.zeros_like(count), count, total)
        m_j = xp.astype(seg.take(m_t, owner), f)
        r_j = xp.astype(seg.take(r_t, owner), f)
        if whole:
            term = r_j / (_as_f(xp, seg.take(a_t + m_t - 1, owner)) * m_j)
        else:
            j_f = _as_f(xp, j)
            # log P(row j misses | rows < j missed); the last possible offset's
            # step is log(0) and never used (the sum is exclusive): left at 0.
            step = _log1p_where(xp, -r_j / (m_j - j_f), j_f < m_j - r_j)
            log_miss = seg.exclusive_cumsum(step, owner, starts, n)
            term = xp.exp(log_miss) * (r_j / (m_j - j_f))
            if reciprocal:
                term = term / _as_f(xp, seg.take(a_t, owner) + j)
        start = seg.take(view.blocks.start, seg.take(block, tied))
        parts.append(Part(seg.take(start, owner) + j, term, cut=True))
    return (tuple(parts),)


def _first_hit_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    return _binary_result(ctx, sums[0], opts)


HIT_RATE = Cumulative(
    lambda view, depth, opts: _first_hit_rows(view, depth, opts, False),
    _first_hit_finish,
)
MRR = Cumulative(
    lambda view, depth, opts: _first_hit_rows(view, depth, opts, True),
    _first_hit_finish,
)


def hit_rate(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """P(some relevant row at positions <= k) (:func:`_first_hit_rows`)."""
    return cumulate(HIT_RATE, ctx, k, opts)


def mrr(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[1/position of the first relevant row], 0 beyond the cutoff
    (:func:`_first_hit_rows`)."""
    return cumulate(MRR, ctx, k, opts)


def _runs(
    count: np.ndarray, total: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """(run id per row, run starts, number of runs) of consecutive runs of the
    given lengths (``total`` rows, when known), for the segment primitives."""
    xp = _ns(count)
    n = count.shape[0]
    starts = _prefix_sum(xp, xp.astype(count, _index(xp), copy=False))
    run = xp.arange(n, dtype=_index(xp), device=seg._device(count))
    return seg.repeat(run, count, total), starts, n


def _positions(ctx: RankingContext, k):
    """The cutoff as a position: a ``k`` beyond every list is capped at the number
    of rows (any ``k`` is valid; only precision's ``k`` denominator needs the real
    value), so position arithmetic never overflows. ``k`` may be an array of
    cutoffs (the cutoff axis)."""
    if k is None:
        return None
    cap = max(ctx.totals.y_all.shape[0], 1)
    return np.minimum(k, cap) if isinstance(k, np.ndarray) else min(k, cap)


# -- average precision ----------------------------------------------------------------
def _ap_rows(view: RankingContext, depth: int | None, opts: Options):
    """E[precision at this position if a relevant row is there], times the
    probability that one is: AP@k x D is their sum over positions <= k; and, for
    ``ap_denominator="n_relevant_retrieved"``, E[relevant at this position].

    An untied relevant row at position p with ``c`` relevant rows above it adds
    ``(c + 1) / p``. In a tied block (first position ``a``, ``m`` rows, ``r``
    relevant, ``c`` relevant rows in earlier blocks) position ``a + j`` holds a
    relevant row with probability ``r/m``, and given that, the other ``r - 1``
    relevant rows fill its ``j`` earlier slots ``j (r - 1) / (m - 1)`` times in
    expectation, so it adds ``(r/m) (c + 1 + j (r - 1)/(m - 1)) / (a + j)``. Under
    ``ties="threshold"`` a block is one threshold: its ``r`` relevant rows read
    the precision at its end, ``(c + r) / (a + m - 1)``, spread evenly over its
    ``m`` positions.
    """
    xp, f = view.xp, view.float
    rel = view.relevant(opts.relevance_threshold)
    # seen[p] = relevant rows at ranked positions < p (over all groups), and
    # before[g] = seen at group g's first row: counts by differences, no search.
    seen = _count_before(xp, rel)
    before = seen[view.starts[:-1]]
    blocks = view.blocks
    untied = rel if not blocks else rel & ~blocks.row_mask(view.n_rows)
    hits = seg.flatnonzero(untied)
    term = xp.astype(seen[hits + 1] - before[view.group[hits]], f)
    term /= _as(xp, view.rank[hits], f)
    ap = [Part(hits, term)]
    if blocks:
        start, m = blocks.start, blocks.size
        r = xp.astype(seen[start + m] - seen[start], f)
        c = _as(xp, seen[start] - before[blocks.group], f)
        m_f = _as(xp, m, f)
        if view.thresholds:
            last = _as(xp, blocks.rank + m - 1, f)
            per_row = blocks.spread(r * (c + r) / (last * m_f))
        else:
            position = xp.astype(seg.take(view.rank, blocks.rows), f)
            offset = position - xp.astype(blocks.spread(blocks.rank), f)
            spread = seg.divide(r - 1.0, m_f - 1.0, m > 1, 0.0)
            per_row = blocks.spread(spread * r / m_f) * offset
            per_row += blocks.spread((c + 1.0) * r / m_f)
            per_row /= position
        ap.append(Part(blocks.rows, per_row, blocks=blocks))
    if opts.ap_denominator != "n_relevant_retrieved":
        return (tuple(ap),)
    if blocks:
        found = Part(None, view.block_mean(xp.astype(rel, f)))
    else:
        found = Part(hits, xp.ones(hits.shape[0], dtype=f, device=view.device))
    return tuple(ap), (found,)


def _ap_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    """AP from its sum and the ``ap_denominator``: R, min(k, R), or the relevant
    rows within the cutoff (a tie block across it by its share under
    ``ties="threshold"``, by the exact expectation of the ratio under
    ``ties="average"``: :func:`_ap_straddling`)."""
    xp, f = ctx.xp, ctx.float
    total, choice = sums[0], opts.ap_denominator
    if choice == "n_relevant_retrieved":
        found = sums[1]
        if ctx.thresholds:  # a fixed (possibly fractional) count
            return _binary_result(ctx, seg.divide(total, found, found > 0, 0.0), opts)
        # No relevant row within the cutoff: the sum is 0 too, and so is AP.
        values = total / xp.maximum(found, 1.0)
        if k is not None and ctx.blocks:
            values = _ap_straddling(ctx, _positions(ctx, k), total, values, opts)
        return _binary_result(ctx, values, opts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if k is None or choice == "n_relevant":
        denom = n_rel
    elif choice == "min_k_n_relevant":
        denom = xp.minimum(n_rel, _positions(ctx, k))
    else:
        raise _unrouted("ap_denominator", choice)
    return _binary_result(ctx, total / _as(xp, xp.maximum(denom, 1), f), opts)


AVERAGE_PRECISION = Cumulative(
    _ap_rows,
    _ap_finish,
    # Under averaged ties a block across the cutoff that mixes relevance makes
    # the retrieved count random: one cutoff at a time (_ap_straddling).
    on_axis=lambda ctx, opts: (
        not (
            opts.ap_denominator == "n_relevant_retrieved"
            and ctx.blocks
            and not ctx.thresholds
        )
    ),
)


def average_precision(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[AP@k] = (1/D) Σ over relevant rows at positions p <= k of precision@p
    (:func:`_ap_rows`, :func:`_ap_finish`)."""
    return cumulate(AVERAGE_PRECISION, ctx, k, opts)


def _ap_straddling(ctx: RankingContext, top: int, total, values, opts: Options):
    """``values`` with the groups whose tie block straddles ``top`` and mixes
    relevance replaced by their exact E[AP@k] (:func:`_ap_straddling_block`),
    under ``ap_denominator="n_relevant_retrieved"`` and averaged ties."""
    view = ctx.head(top)
    xp, f, blocks = view.xp, view.float, view.blocks
    rel = view.relevant(opts.relevance_threshold)
    seen = _count_before(xp, rel)
    start, m, a = blocks.start, blocks.size, blocks.rank
    r = xp.astype(seen[start + m] - seen[start], f)
    straddling = (a <= top) & (a + m - 1 > top) & (r > 0) & (r < _as(xp, m, f))
    i = seg.flatnonzero(straddling)
    if not i.shape[0]:
        return values
    group = blocks.group[i]  # at most one straddling block per group
    a, m, r = a[i], m[i], r[i]
    c = seen[start[i]] - seen[view.starts[:-1]][group]  # relevant rows above
    t = xp.astype(top - a + 1, _index(xp))  # positions of the block inside
    owner, _, n = _runs(t)
    j = _as(xp, ranges(xp.zeros_like(t), t), f)
    inv = 1.0 / (_as(xp, seg.take(a, owner), f) + j)
    u = seg.segment_sum(owner, inv, n)
    v = seg.segment_sum(owner, j * inv, n)
    m_f = _as(xp, m, f)
    spread = seg.divide(r - 1.0, m_f - 1.0, m > 1, 0.0)
    inside = (r / m_f) * ((_as(xp, c, f) + 1.0) * u + spread * v)
    rest = seg.take(total, group) - inside  # the rows above the block
    return seg.put(values, group, _ap_straddling_block(rest, a, m, r, c, top, u, v))


def _ap_straddling_block(rest, a, m, r, c, k, u, v) -> np.ndarray:
    """E[AP@k] of groups whose tie block at positions ``a .. a + m - 1`` (``r``
    relevant rows of ``m``, ``c`` relevant rows above it) straddles ``k``, with
    ``ap_denominator="n_relevant_retrieved"`` (at most one such block per group).

    The ``t = k - a + 1`` positions of the block inside the cutoff hold ``X``
    relevant rows, hypergeometric: ``P(X = x) = C(r, x) C(m - r, t - x) / C(m, t)``.
    Given ``X = x`` the top ``t`` of the block are a uniform order of ``x``
    relevant and ``t - x`` other rows, so the block adds, as in
    :func:`average_precision`, ``B(x) = (x/t) [(c + 1) U + (x - 1)/(t - 1) V]``
    (``U``, ``V`` over the ``t`` offsets inside), and the denominator is ``c + x``.
    The rows above the block add ``rest`` whatever ``X`` is (the other blocks are
    ordered independently), so ``E[AP] = Σ_x P(X = x) (rest + B(x)) / (c + x)``
    (0 where ``c + x = 0``: nothing is then found). ``P`` comes from its ratios
    ``P(x + 1) / P(x)`` summed as logs and normalised per block, exact for blocks
    of any size.
    """
    xp = seg.array_namespace(rest)
    f = rest.dtype
    m, r = xp.astype(m, f), xp.astype(r, f)
    t = xp.astype(k - a + 1, f)
    lo = xp.maximum(0.0, t - (m - r))
    hi = xp.minimum(r, t)
    count = xp.astype(hi - lo + 1, xp.int64)
    owner, starts, n = _runs(count)
    x = lo[owner] + _as(xp, ranges(xp.zeros_like(count), count), f)
    m_x, r_x, t_x = m[owner], r[owner], t[owner]
    # log P(x + 1) - log P(x); the last x of a block has no successor (0 here).
    step = xp.zeros_like(x)
    more = x < hi[owner]
    xs, ms, rs, ts = x[more], m_x[more], r_x[more], t_x[more]
    step[more] = (
        xp.log(rs - xs)
        + xp.log(ts - xs)
        - xp.log(xs + 1.0)
        - xp.log(ms - rs - ts + xs + 1.0)
    )
    log_p = seg.exclusive_cumsum(step, owner, starts, n)
    log_p -= _run_max(log_p, starts[:-1], count, owner)[owner]
    p = xp.exp(log_p)
    p /= _run_sum(p, starts[:-1], count, owner)[owner]
    spread = seg.divide(x - 1.0, t_x - 1.0, t_x > 1, 0.0)
    c_x = xp.astype(c[owner], f)
    found = (x / t_x) * ((c_x + 1.0) * u[owner] + spread * v[owner])
    found += rest[owner]
    found *= p
    found /= xp.maximum(c_x + x, 1.0)
    return seg.segment_sum(owner, found, n)


# -- ERR ---------------------------------------------------------------------------
# The largest tie block that mixes grades (inside the cutoff) whose exact ERR
# expectation under ties="average" is computed; a larger one raises. The work is
# about d * m * t multiply-adds per block (d distinct grades, m rows, t positions
# inside the cutoff): up to m**3 / 2 = 5e8 for a block of 1024 distinct grades,
# seconds of numpy, beyond which the cost, not the precision (the recurrence is a
# convex combination, rounding grows like m * eps), is what goes bad.
ERR_TIE_BLOCK_LIMIT = 1024
# Cells of the recurrence's table held at once (the table is cut into chunks).
_ERR_CELLS = 1 << 22


def err(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Expected reciprocal rank (Chapelle et al., 2009) with stop probability
    ``R(g) = (2^g - 1) / 2^max_grade``.

    Under ``ties="average"`` a tie block whose rows share one grade gives the same
    value in every order; a block that mixes grades gets its exact expectation from
    :func:`_err_mixed_blocks`, in place of its rows' terms in the resolved order.
    The product of ``1 - R`` over a whole block does not depend on its order, so
    every later row is reached with the same probability either way.
    """
    k = _positions(ctx, k)
    ctx = ctx.head(k)
    xp, f = ctx.xp, ctx.float
    mixed = None
    if ctx.blocks:
        is_mixed = ctx.blocks.min(ctx.y) != ctx.blocks.max(ctx.y)
        if k is not None:
            is_mixed &= ctx.blocks.rank <= k
        mixed = seg.flatnonzero(is_mixed)
        _check_err_block_sizes(ctx.blocks.size[mixed])
    # 2**max_grade of the Python float, on the host (numpy's exp2, as ever).
    stop = (_exp2(xp, ctx.y) - 1.0) / float(np.exp2(opts.max_grade))
    through = ctx.segmented_cumprod(1.0 - stop)  # P(user passes row p)
    reach = xp.ones(ctx.n_rows, dtype=f, device=ctx.device)
    if ctx.n_rows > 1:
        reach[1:] = xp.where(ctx.rank[1:] > 1, through[:-1], 1.0)
    term = stop * reach / _as(xp, ctx.rank, f)
    if k is not None:
        term[ctx.rank > k] = 0.0
    if mixed is None or not mixed.shape[0]:
        return _binary_result(ctx, ctx.group_sum(term), opts)
    b = ctx.blocks
    start, size = b.start[mixed], b.size[mixed]
    term = seg.put(term, ranges(start, size), 0.0)
    inside = _err_mixed_blocks(stop, start, size, b.rank[mixed], k)
    inside *= reach[start]  # P(the user reaches the block): order-free
    values = ctx.group_sum(term) + ctx.group_sum(inside, b.group[mixed])
    return _binary_result(ctx, values, opts)


def _check_err_block_sizes(size: np.ndarray) -> None:
    xp = seg.array_namespace(size)
    too_big = size > ERR_TIE_BLOCK_LIMIT
    if bool(xp.any(too_big)):
        raise ValueError(
            f"err_score with ties='average': {_n_true(too_big)} tie block(s) "
            "(equal scores within a group) mix grades inside the cutoff and hold "
            f"more than ERR_TIE_BLOCK_LIMIT={ERR_TIE_BLOCK_LIMIT} rows (the largest "
            f"has {int(xp.max(size))}); their exact expectation costs too much. Pass "
            "ties='stable', 'pessimistic' or 'optimistic', or break the ties."
        )


def _err_mixed_blocks(
    stop: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    first: np.ndarray,
    k: int | None,
) -> np.ndarray:
    """Per tie block (ranked rows ``start .. start + size - 1``, first position
    ``first``), ``E[Σ_i R_i / p_i Π_{q before i in the block} (1 - R_q)]`` over the
    uniformly random orders of the block, for the positions ``p_i <= k``.

    Row ``i`` sits at offset ``j`` with probability ``1/m``, and the ``j`` rows in
    front of it are a uniform ``j``-subset of the other ``m - 1`` rows, so
    ``E[Π (1 - R_q)] = E_j = e_j / C(m - 1, j)``, ``e_j`` the elementary symmetric
    polynomial of the others' ``1 - R``. Adding the others one at a time,
    ``E_j <- ((n - j) E_j + j x E_{j-1}) / n`` after the n-th one (value ``x``): a
    convex combination, so no overflow and no cancellation. Rows of one grade share
    their others: one recurrence per distinct grade of a block ("item"), with every
    item of every block advanced together, one step per within-block index; only
    ``E_j`` for offsets inside the cutoff are kept.
    """
    xp = seg.array_namespace(stop)
    n_blocks = start.shape[0]
    owner = _run_owner(xp, size)
    rows = ranges(start, size)
    # Rows sorted by grade within each block: a grade's rows are a run, and its
    # "others" are the block less that run's first row.
    order = _order_by(xp, owner, stop[rows])
    stops = stop[rows[order]]
    offsets = _run_starts(xp, size)
    n = stops.shape[0]
    new = xp.ones(n, dtype=xp.bool, device=stop.device)
    new[1:] = (owner[1:] != owner[:-1]) | (stops[1:] != stops[:-1])
    item_at = seg.flatnonzero(new)
    end_at = xp.asarray([n], dtype=item_at.dtype, device=stop.device)
    count = xp.diff(xp.concat((item_at, end_at)))  # rows of the grade
    # Rows that never stop (grade 0) add no term of their own.
    keep = stops[item_at] > 0
    item_at, count = item_at[keep], count[keep]
    block = owner[item_at]
    skip = item_at - offsets[block]  # the left-out row's index in its block
    n_others = size[block] - 1
    # The largest offset inside the cutoff (a block starts at a position <= k).
    last = n_others if k is None else xp.minimum(n_others, k - first[block])
    x = 1.0 - stops
    value = xp.zeros(item_at.shape[0], dtype=stop.dtype, device=stop.device)
    by_size = xp.argsort(-n_others, stable=True)  # active items: a prefix
    # Table widths are shapes: read on the host (one sync per chunk).
    widest = int(xp.max(last)) if last.shape[0] else 0
    begin = 0
    while begin < by_size.shape[0]:
        width = min(int(n_others[by_size[begin]]), widest) + 1
        end = min(by_size.shape[0], begin + max(1, _ERR_CELLS // width))
        items = by_size[begin:end]
        value = seg.put(
            value,
            items,
            _err_items(
                x,
                offsets[block[items]],
                skip[items],
                n_others[items],
                last[items],
                first[block[items]],
                width,
            ),
        )
        begin = end
    value *= (
        _as(xp, count, value.dtype) * stops[item_at] / _as(xp, size[block], value.dtype)
    )
    return seg.segment_sum(block, value, n_blocks)


def _err_items(x, base, skip, n_others, last, first, width):
    """``Σ_{j <= last} E_j / (first + j)`` per item (items by descending
    ``n_others``), the recurrence of :func:`_err_mixed_blocks` run over the
    item's block (rows ``base ..``, sorted by grade) less its row ``skip``."""
    xp = seg.array_namespace(x)
    f, dev = x.dtype, x.device
    table = xp.zeros((base.shape[0], width), dtype=f, device=dev)
    table[:, 0] = 1.0
    # Items still adding others at step s: those with n_others > s, a prefix.
    # Its steps and prefix lengths are loop bounds and shapes: read on the host.
    steps = int(n_others[0]) if n_others.shape[0] else 0
    active = base.shape[0] - xp.searchsorted(
        xp.flip(n_others),
        xp.arange(steps, dtype=n_others.dtype, device=dev),
        side="right",
    )
    for s in range(steps):
        c = int(active[s])
        n = s + 1
        top = min(n, width - 1)
        j = xp.arange(1, top + 1, dtype=f, device=dev)
        xs = x[base[:c] + s + _as(xp, s >= skip[:c], base.dtype)]
        # E_j <- ((n - j) E_j + j x E_{j-1}) / n for j = 1..top, from the old E,
        # updated in place through slices of the table.
        carried = table[:c, :top] * xs[:, None]
        carried *= j / n
        table[:c, 1 : top + 1] *= (n - j) / n
        table[:c, 1 : top + 1] += carried
    j = xp.arange(width, dtype=xp.int64, device=dev)
    weight = xp.where(j <= last[:, None], 1.0 / _as(xp, first[:, None] + j, f), 0.0)
    return _row_dot(table, weight)


# -- AUC ---------------------------------------------------------------------------
def _auc_parts(ctx: RankingContext, pos_w: np.ndarray, neg_w: np.ndarray):
    """Per group: Mann-Whitney credit Σ_pos Σ_neg ([s_i > s_j] + ½[s_i = s_j]) with
    pair weights ``pos_w[i] * neg_w[j]``, and the positive / negative totals.

    An untied positive row beats every negative below it; a tied block's positives
    beat the negatives below the block and half of those inside it. With resolved
    ties every row is untied, so tied pairs are credited by the resolved order.
    """
    neg_total = ctx.group_sum(neg_w)
    below = neg_total[ctx.group]
    neg_above = ctx.group_exclusive_cumsum(neg_w)
    below -= neg_above
    below -= neg_w
    below *= pos_w
    blocks = ctx.blocks
    if blocks:
        pos_b, neg_b = blocks.sum(pos_w), blocks.sum(neg_w)
        under = neg_total[blocks.group] - neg_above[blocks.start] - neg_b
        below = seg.put(below, blocks.rows, 0.0)
        credit = ctx.group_sum(below) + ctx.group_sum(
            pos_b * (under + 0.5 * neg_b), blocks.group
        )
    else:
        credit = ctx.group_sum(below)
    return credit, ctx.group_sum(pos_w), neg_total


def gauc(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Per-group AUC, weighted by rows, positives or uniformly (Zhou et al., 2018)."""
    xp, f = ctx.xp, ctx.float
    pos = xp.astype(ctx.relevant(opts.relevance_threshold), f)
    credit, n_pos, n_neg = _auc_parts(ctx, pos, 1.0 - pos)
    defined = (n_pos > 0) & (n_neg > 0)
    values = seg.divide(credit, n_pos * n_neg, defined, np.nan)
    if opts.weights == "rows":
        size = xp.astype(ctx.length, f)
    elif opts.weights == "positives":
        size = n_pos
    else:
        size = xp.ones(ctx.n_groups, dtype=f, device=ctx.device)
    return GroupValues(values, defined, ctx.group_weight() * size)


def auc(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Pooled AUC over all ranked rows (one list), pairs weighted by sample weights;
    equals ``sklearn.metrics.roc_auc_score``. Returns a single "group"."""
    pooled = ctx.pooled()
    xp, f, dev = pooled.xp, pooled.float, pooled.device
    rel = pooled.relevant(opts.relevance_threshold)
    w = pooled.row_weight
    if w is None:
        w = xp.ones(pooled.n_rows, dtype=f, device=dev)
    credit, w_pos, w_neg = _auc_parts(pooled, w * _as(xp, rel, f), w * _as(xp, ~rel, f))
    defined = (w_pos > 0) & (w_neg > 0)
    values = seg.divide(credit, w_pos * w_neg, defined, np.nan)
    return GroupValues(values, defined, xp.ones(1, dtype=f, device=dev))


# -- judged rows: bpref, judged@k, Elasticsearch's ignore_unlabeled ------------------
def _judged_in_top(ctx: RankingContext, k: int | None, opts: Options) -> np.ndarray:
    """The judged rows among the top k of each group, which must not depend on
    the order of a tie: in a group with a relevant row (where precision is
    defined), a tie block that straddles the cutoff and mixes judged and
    unjudged rows makes it random (the metric a ratio of random sums), and
    raises."""
    top = _positions(ctx, k)
    head = ctx.head(top)
    xp, f = ctx.xp, ctx.float
    if head.judged is None:  # every row judged
        length = ctx.length if top is None else xp.minimum(ctx.length, top)
        return xp.astype(length, f)
    blocks = head.blocks
    if top is not None and blocks:
        j = blocks.sum(xp.astype(head.judged, f))
        straddles = (blocks.rank <= top) & (blocks.rank + blocks.size - 1 > top)
        mixed = straddles & (j > 0) & (j < _as(xp, blocks.size, f))
        mixed &= ctx.n_relevant(opts.relevance_threshold)[blocks.group] > 0
        if bool(xp.any(mixed)):
            raise ValueError(
                "precision_denominator='n_judged' with ties='average': "
                f"{_n_true(mixed)} tie block(s) "
                "(equal scores within a group) straddle the cutoff k and mix judged "
                "and unjudged rows, so the number of judged rows within the cutoff "
                "depends on the order of the tie; the expectation of the ratio is "
                "not implemented. Pass ties='stable', 'pessimistic' or "
                "'optimistic', or break the ties."
            )
    inside = head.judged if top is None else head.judged & (head.rank <= top)
    return head.group_sum(xp.astype(inside, f))


def judged_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """The share of the top k that is judged, ``J_k / min(k, n)`` (ir_measures'
    ``Judged@k``, reported by the TREC Deep Learning tracks). Linear in the rows:
    a tied row counts with the share of its block inside the cutoff. Defined
    where the group ranks at least one row; relevance plays no part."""
    top = _positions(ctx, k)
    head = ctx.head(top)
    xp, f = ctx.xp, ctx.float
    share = head.in_top(top)
    if head.judged is not None:
        share *= _as(xp, head.judged, f)
    count = head.group_sum(share)
    n = xp.astype(ctx.length, f)
    denom = n if top is None else xp.minimum(n, top)
    defined = denom > 0
    values = seg.divide(count, denom, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


def _sum_of_min(low: np.ndarray, count: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """``Σ_{v=low}^{low+count-1} min(v, cap)`` elementwise (count >= 1)."""
    high = low + count - 1
    below = (low + high) * count / 2.0  # every term under the cap
    flat = cap * count  # every term at the cap
    mixed = (low + cap) * (cap - low + 1) / 2.0 + cap * (high - cap)
    xp = seg.array_namespace(low, count, cap)
    return xp.where(high <= cap, below, xp.where(low >= cap, flat, mixed))


def bpref(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's bpref (m_bpref.c; Buckley and Voorhees, 2004):
    ``(1/R) Σ_r (1 - min(n_r, R) / min(N, R))`` over the ranked judged relevant
    rows r, with ``n_r`` the judged non-relevant rows ranked above r, R the
    group's relevant rows and N its judged non-relevant rows (retrieved or not).
    Unjudged rows are skipped; a term with ``n_r = 0`` is 1.

    Under ``ties="average"``, the relative order of a relevant row and the
    ``b`` judged non-relevant rows of its tie block is uniform, so the number of
    them above it is uniform on ``0..b``: E[min(c + X, R)] is a mean of
    ``min`` over a run of consecutive integers (:func:`_sum_of_min`), exact.
    """
    threshold = opts.relevance_threshold
    xp, f = ctx.xp, ctx.float
    rel = ctx.judged_relevant(threshold)
    non_rel = ~rel if ctx.judged is None else ~rel & ctx.judged
    non_rel_f = xp.astype(non_rel, f)
    above = ctx.group_exclusive_cumsum(non_rel_f)
    n_rel = xp.astype(ctx.n_relevant(threshold), f)
    n_non = _as(xp, ctx.n_judged_non_relevant(threshold), f)
    scale = xp.maximum(xp.minimum(n_non, n_rel), 1.0)
    term = xp.where(
        rel, 1.0 - xp.minimum(above, n_rel[ctx.group]) / scale[ctx.group], 0.0
    )
    blocks = ctx.blocks
    if blocks:
        term = seg.put(term, blocks.rows, 0.0)
        b = blocks.sum(non_rel_f)
        r = blocks.sum(xp.astype(rel, f))
        cap = n_rel[blocks.group]
        mean_min = _sum_of_min(above[blocks.start], b + 1, cap) / (b + 1)
        contrib = r * (1.0 - mean_min / scale[blocks.group])
        total = ctx.group_sum(term) + ctx.group_sum(contrib, blocks.group)
    else:
        total = ctx.group_sum(term)
    return _binary_result(ctx, total / xp.maximum(n_rel, 1.0), opts)


# -- F1, fall-out, ARP, RBP, pairwise accuracy, interpolated precision ---------------
def _precision_denominator(ctx: RankingContext, k, opts: Options):
    """The denominator of P@k per group, as :func:`precision` reads it; per
    cutoff and group for an (n_cuts, 1) array of cutoffs."""
    xp, f = ctx.xp, ctx.float
    many = isinstance(k, np.ndarray)  # (n_cuts, 1) cutoffs: the cutoff axis
    if opts.precision_denominator == "n_judged":
        if many:
            return np.stack([_judged_in_top(ctx, int(c), opts) for c in k.ravel()])
        return _judged_in_top(ctx, k, opts)
    if k is None:
        return xp.astype(ctx.length, f)
    if opts.precision_denominator == "k":
        # the real k, however large
        if many:
            return np.broadcast_to(k.astype(np.float64), (k.shape[0], ctx.n_groups))
        return xp.full(ctx.n_groups, float(k), dtype=f, device=ctx.device)
    if opts.precision_denominator != "min_k_n":
        raise _unrouted("precision_denominator", opts.precision_denominator)
    return xp.astype(xp.minimum(ctx.length, _positions(ctx, k)), f)


def f1_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[F1@k], the harmonic mean of P@k = H/D and R@k = H/R (0 when H = 0).

    ``2 (H/D)(H/R) / (H/D + H/R) = 2H / (D + R)`` for ``H > 0``, and the right-hand
    side is also 0 at ``H = 0``. ``D`` (k, min(k, n) or n) and ``R`` (R or
    min(k, R), per ``recall_denominator``) do not depend
    on the order of tied rows, so F1 is linear in the hit count H and
    ``E[F1] = 2 E[H] / (D + R)``. That equals the harmonic mean of E[P] and E[R]
    only because both are linear in the same H; it is not true of F1 in general.
    """
    top = _positions(ctx, k)
    hits = _hits_in_top(ctx.head(top), top, opts)
    denom = _precision_denominator(ctx, k, opts)  # a new array: added to below
    denom += _as(ctx.xp, _recall_denominator(ctx, k, opts), ctx.float)
    values = seg.divide(2.0 * hits, denom, denom > 0, 0.0)
    return _binary_result(ctx, values, opts)


def _n_non_relevant(ctx: RankingContext, threshold: float | None) -> np.ndarray:
    """Non-relevant rows per group, retrieved or not."""

    def count() -> np.ndarray:
        size = seg.segment_count(ctx.totals.codes_all, ctx.n_groups)
        return size - ctx.n_relevant(threshold)

    return ctx.totals.cached(("N", threshold), count)


def fallout(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[non-relevant rows at positions <= k] / N, N the group's non-relevant rows
    (retrieved or not). Linear in the rows, so tied rows count with the share of
    their block inside the cutoff. Defined where N > 0 (a group without relevant
    rows is defined: fall-out is the recall of the non-relevant rows)."""
    k = _positions(ctx, k)
    head = ctx.head(k)
    xp, f = ctx.xp, ctx.float
    share = head.in_top(k)
    share *= _as(xp, ~head.relevant(opts.relevance_threshold), f)
    false_pos = head.group_sum(share)
    n_non = _n_non_relevant(ctx, opts.relevance_threshold)
    defined = n_non > 0
    values = seg.divide(false_pos, _as(xp, n_non, f), defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


def arp(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Average relevant position: ``Σ y_p p / Σ y_p`` over the group's ranked
    relevant rows (lower is better); with binary labels the mean position of a
    relevant row. Labels weight the positions, as in TF-Ranking's ARP; relevant
    labels are > 0, so the weights are positive.

    The weights do not depend on the order of tied rows, so the expectation is the
    weighted mean of expected positions; a row of a block at positions
    ``a..a+m-1`` sits at ``a + (m - 1)/2`` on average (block mean). Defined where
    at least one relevant row is ranked.
    """
    xp = ctx.xp
    weight = xp.where(ctx.relevant(opts.relevance_threshold), ctx.y, 0.0)
    position = ctx.block_mean(xp.astype(ctx.rank, ctx.float))
    total = ctx.group_sum(weight * position)
    mass = ctx.group_sum(weight)
    defined = mass > 0
    values = seg.divide(total, mass, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


def rbp(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Rank-biased precision (Moffat and Zobel, 2008):
    ``(1 - p) Σ_{i<=k} u(y_i) p^(i-1)`` with utility ``u(y) = y / max_grade`` in
    [0, 1] (binary labels: 0 or 1).

    Linear in the rows, so under ``ties="average"`` each row's utility is multiplied
    by the mean of ``p^(i-1)`` over its block's positions inside the cutoff (block
    mean), as for DCG.
    """
    k = _positions(ctx, k)
    ctx = ctx.head(k)
    xp = ctx.xp
    p = opts.persistence
    weight = xp.pow(p, _as(xp, ctx.rank, ctx.float) - 1.0)
    if k is not None:
        weight[ctx.rank > k] = 0.0
    weight = ctx.block_mean(weight)
    weight *= ctx.y / opts.max_grade
    if opts.gain_rows == "judged":  # trec_eval: judged gains; -l plays no part
        if ctx.judged is not None:
            weight *= _as(xp, ctx.judged, ctx.float)
        return _judged_gain_result(ctx, None, (1.0 - p) * ctx.group_sum(weight), opts)
    return _binary_result(ctx, (1.0 - p) * ctx.group_sum(weight), opts)


def pairwise_accuracy(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Share of a group's ranked pairs with different labels that are ordered
    correctly (the higher label above), a tied pair counting ½ under
    ``ties="average"``; the group weighs its number of such pairs.

    Pairs are split by their lower label ``v``: ``Σ_v AUC-credit(y > v against
    y = v)``, each term the Mann-Whitney credit of :func:`_auc_parts` (exact ½ for
    tied pairs, whose two orders are equally likely). One linear pass per distinct
    label below the top, so the cost grows with the number of label levels
    (graded relevance has a handful).
    """
    xp, f = ctx.xp, ctx.float
    credit = xp.zeros(ctx.n_groups, dtype=f, device=ctx.device)
    pairs = xp.zeros(ctx.n_groups, dtype=f, device=ctx.device)
    levels = _sorted_levels(ctx.y)
    for i in range(levels.shape[0] - 1):  # a loop over label levels, not groups
        level = levels[i]
        above = xp.astype(ctx.y > level, f)
        at = xp.astype(ctx.y == level, f)
        won, n_above, n_at = _auc_parts(ctx, above, at)
        credit += won
        pairs += n_above * n_at
    defined = pairs > 0
    values = seg.divide(credit, pairs, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight() * pairs)


# trec_eval's recall levels of the 11-point average (m_11pt_avg.c).
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def _interpolated_precisions(
    ctx: RankingContext, opts: Options, levels, func: str
) -> list[np.ndarray]:
    """Interpolated precision per group at each recall level, as trec_eval's
    ``iprec_at_recall``: with ``c = lround(level * R)`` (at least 1), the largest
    precision ``m / p_m`` at the position ``p_m`` of any m-th relevant row with
    ``m >= c``; 0 when fewer than ``c`` relevant rows are ranked.

    Under ``ties="average"`` a tie block mixing relevant and non-relevant rows
    makes the value random. Its last relevant row (index ``c0 + r``, ``c0``
    relevant rows above the block) bounds the block's precisions: the block's
    best value ``(c0 + r) / (a + r - 1)`` (relevant rows first) and its worst
    ``(c0 + r) / (a + m - 1)`` (last). The value is ``max(F, worst of each
    block)`` in every order exactly when no block's best exceeds that (F: the
    untied rows); otherwise the expectation of a maximum over several random
    blocks has no closed form in block sums, and this raises.
    """
    threshold = opts.relevance_threshold
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    n = ctx.n_groups
    rel = ctx.relevant(threshold)
    hits = seg.flatnonzero(rel)
    hit_group = ctx.group[hits]
    per_group = seg.segment_count(hit_group, n)
    first_hit = xp.cumulative_sum(per_group) - per_group
    nth = xp.arange(1, hits.shape[0] + 1, dtype=xp.int64, device=dev)
    nth -= first_hit[hit_group]
    precision = _as(xp, nth, f) / _as(xp, ctx.rank[hits], f)
    nth = _as(xp, nth, f)  # compared with float thresholds below
    fixed = xp.ones(hits.shape[0], dtype=xp.bool, device=dev)
    blocks = ctx.blocks
    any_mixed = False
    if blocks:
        r = blocks.sum(xp.astype(rel, f))
        mixed = (r > 0) & (r < _as(xp, blocks.size, f))
        any_mixed = bool(xp.any(mixed))
        in_mixed = xp.zeros(ctx.n_rows, dtype=xp.bool, device=dev)
        in_mixed = seg.put(in_mixed, blocks.rows, blocks.spread(mixed))
        fixed = ~in_mixed[hits]
        c0 = xp.searchsorted(hits, blocks.start) - first_hit[blocks.group]
        last = (_as(xp, c0, f) + r)[mixed]
        a, m, b_group = blocks.rank[mixed], blocks.size[mixed], blocks.group[mixed]
        best = last / (_as(xp, a, f) + r[mixed] - 1)
        worst = last / _as(xp, a + m - 1, f)
    n_rel = _as(xp, ctx.n_relevant(threshold), f)
    out = []
    for level in levels:
        need = xp.maximum(xp.floor(level * n_rel + 0.5), 1)  # lround, as C's
        keep = fixed & (nth >= need[hit_group])
        value = seg.segment_max(hit_group[keep], precision[keep], n, 0.0)
        if any_mixed:
            counted = last >= need[b_group]
            value = _maximum_at(value, b_group[counted], worst[counted])
            top = seg.segment_max(b_group[counted], best[counted], n, 0.0)
            random = top > value
            # Under ties="threshold" a block is read at its end only: the value
            # is max(F, worst of each block), with nothing random.
            if not ctx.thresholds and bool(xp.any(random)):
                raise ValueError(
                    f"{func} with ties='average': in {_n_true(random)} group(s) "
                    "a tie block (equal scores within a group) mixes relevant and "
                    "non-relevant rows where the interpolated precision is read, "
                    "so the value depends on the order of the tie, and its exact "
                    "expectation is not implemented. Pass ties='stable', "
                    "'pessimistic' or 'optimistic', or break the ties."
                )
        out.append(value)
    return out


def interpolated_precision(
    ctx: RankingContext, k: int | None, opts: Options
) -> GroupValues:
    """trec_eval's ``iprec_at_recall`` at ``opts.recall_level``."""
    if opts.recall_level is None:
        raise ValueError(
            "interpolated precision needs recall_level=<a float in [0, 1]>, e.g. "
            "recall_level=0.5 (trec_eval's iprec_at_recall_0.50); it has no default."
        )
    (values,) = _interpolated_precisions(
        ctx, opts, [opts.recall_level], "interpolated_precision_score"
    )
    return _binary_result(ctx, values, opts)


def eleven_point_precision(
    ctx: RankingContext, k: int | None, opts: Options
) -> GroupValues:
    """trec_eval's ``11pt_avg``: the mean interpolated precision at recall 0, 0.1,
    ..., 1 (exact under averaged ties exactly where each level is)."""
    levels = _interpolated_precisions(
        ctx, opts, ELEVEN_POINTS, "eleven_point_precision_score"
    )
    # Summed from recall 1.0 down to 0.0, then divided by 11, as m_11pt_avg.c
    # does: the 4th printed decimal of a value like 0.09375 depends on it.
    total = ctx.xp.zeros(ctx.n_groups, dtype=ctx.float, device=ctx.device)
    for value in reversed(levels):
        total += value
    return _binary_result(ctx, total / len(levels), opts)


# -- namespace helpers of the kernels above ------------------------------------------
# Each has numpy's own fast operation in its numpy branch (the code the kernels
# used before) and a form in the array API standard for every other namespace; the
# metric formulas themselves exist once, above.
def _as(xp, x, dtype):
    """``x`` as an operand of arithmetic with arrays of ``dtype``: numpy promotes
    integer and boolean operands itself (the same values, without a pass over
    the array), the standard does not mix kinds, so elsewhere it is cast."""
    return x if xp is np else xp.astype(x, dtype)


def _n_true(mask) -> int:
    """The number of True entries (for error messages: a host read)."""
    xp = seg.array_namespace(mask)
    return int(xp.sum(xp.astype(mask, xp.int64)))


def _count_before(xp, mask):
    """``out[p]`` = True entries of ``mask`` before position ``p`` (``p = 0..n``),
    as int64."""
    if xp is np:
        out = np.zeros(mask.size + 1, dtype=np.int64)
        np.cumsum(mask, out=out[1:])
        return out
    return xp.cumulative_sum(xp.astype(mask, xp.int64), include_initial=True)


def _run_starts(xp, size):
    """First position of each of consecutive runs of the given sizes."""
    if xp is np:
        offsets = np.zeros(size.size, dtype=np.intp)
        np.cumsum(size[:-1], out=offsets[1:])
        return offsets
    return xp.cumulative_sum(xp.astype(size, xp.int64), include_initial=True)[:-1]


def _run_owner(xp, size):
    """The run index of each row of consecutive runs of the given sizes."""
    n = size.shape[0]
    index = np.intp if xp is np else xp.int64
    return xp.repeat(xp.arange(n, dtype=index, device=size.device), size)


def _run_sum(values, offsets, size, owner=None):
    """Sum of ``values`` over each of consecutive non-empty runs (first positions
    ``offsets``, lengths ``size``; ``owner``: each row's run, if known)."""
    if isinstance(values, np.ndarray):
        return np.add.reduceat(values, offsets)
    xp = seg.array_namespace(values)
    owner = _run_owner(xp, size) if owner is None else owner
    return seg.segment_sum(owner, values, size.shape[0])


def _run_max(values, offsets, size, owner=None):
    """Maximum of ``values`` over each of consecutive non-empty runs."""
    if isinstance(values, np.ndarray):
        return np.maximum.reduceat(values, offsets)
    xp = seg.array_namespace(values)
    owner = _run_owner(xp, size) if owner is None else owner
    return seg.segment_max(owner, values, size.shape[0], -float("inf"))


def _maximum_at(out, ids, values):
    """``out[g] = max(out[g], values of id g)``, returned (in place on numpy)."""
    if isinstance(out, np.ndarray):
        np.maximum.at(out, ids, values)
        return out
    xp = seg.array_namespace(out)
    found = seg.segment_max(ids, values, out.shape[0], -float("inf"))
    return xp.maximum(out, found)


def _order_by(xp, major, minor):
    """Row order by ``major``, then ``minor``, stable: ``np.lexsort((minor,
    major))``, or two stable sorts (the last key first) in the standard."""
    if xp is np:
        return np.lexsort((minor, major))
    by_minor = xp.argsort(minor, stable=True)
    return xp.take(by_minor, xp.argsort(xp.take(major, by_minor), stable=True))


def _row_dot(a, b):
    """Per row of two 2-d arrays, the sum of their products."""
    if isinstance(a, np.ndarray):
        return np.einsum("ij,ij->i", a, b)
    return seg.array_namespace(a).sum(a * b, axis=1)


def _sorted_levels(y):
    """The distinct values of ``y``, ascending (``unique_values`` does not
    promise an order)."""
    if isinstance(y, np.ndarray):
        return np.unique(y)
    xp = seg.array_namespace(y)
    return xp.sort(xp.unique_values(y))


# The kernels written as contributions plus a finisher (see ``Cumulative``): the
# cutoff axis reads every cutoff of these from one pass down the positions.
CUMULATIVE: dict[Callable, Cumulative] = {
    dcg: DCG,
    ndcg: NDCG,
    precision: PRECISION,
    recall: RECALL,
    hit_rate: HIT_RATE,
    mrr: MRR,
    average_precision: AVERAGE_PRECISION,
}
