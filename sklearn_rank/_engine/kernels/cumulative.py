"""The cutoff family: metrics written as per-row contributions plus a finisher.

DCG, NDCG, precision, recall, hit rate, RR and AP are each a ``Cumulative``: the
kernel at one cutoff sums the contributions at positions <= k (``cumulate``); the
cutoff axis (``_engine/cutoffs.py``) sums the same contributions down the positions
and calls the same finisher, for every kernel listed in ``CUMULATIVE``.
R-precision and the denominators that F1 shares live here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import segments as seg
from ..segments import ranges
from .arrays import (
    as_float_operand,
    as_operand,
    count_before,
    count_true,
    index_dtype,
    log1p_where,
    run_max,
    run_sum,
    runs,
)
from .base import GroupValues, cutoff_position, defined_if_relevant, unrouted_option
from .gain_discount import (
    custom_gain,
    gain_shift,
    ideal_dcg,
    judged_gain_result,
    judged_gains,
    row_discounts,
    scale_back,
)

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


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
    top = cutoff_position(ctx, k)
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
            values, group = run_sum(values, b.offsets, b.size), b.group
        s = view.group_sum(values, group)
        total = s if total is None else total + s
    if total is None:
        return xp.zeros(view.n_groups, dtype=view.float, device=view.device)
    return total


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
    if not view.blocks and not callable(opts.discount):
        # Only the rows of nonzero gain add to a sum (the same sums).
        rows = seg.flatnonzero(gain != 0)
        disc = row_discounts(view, depth, opts.discount, rows)
        disc *= seg.take(gain, rows)
        return ((Part(rows, disc, cut=True),),)
    if view.blocks:
        # block_mean overwrites its input: a copy unless the gains are new.
        fresh = isinstance(opts.gain, str) and opts.gain == "exponential"
        fresh = fresh and gain is not view.y
        gain = view.block_mean(xp.astype(gain, f, copy=not fresh))
    disc = row_discounts(view, depth, opts.discount)  # 0 beyond depth
    disc *= gain
    return ((Part(None, disc, cut=True),),)


def _dcg_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    """DCG from its sum: scaled back (exponential gains of huge labels)."""
    xp = ctx.xp
    (values,) = sums
    shift = gain_shift(ctx, opts.gain)
    if shift is not None:
        values = scale_back(xp, values, shift)
        if not bool(xp.all(xp.isfinite(values))):  # a scalar sync (it raises)
            top = float(xp.max(ctx.totals.y_all))
            raise ValueError(
                "DCG with gain='exponential' overflows float64 for y_true labels up "
                f"to {top:g} (2**label - 1 summed over a list). Use "
                "NDCG (scale-free, exact for every label up to 1023), gain='linear', "
                "or smaller labels."
            )
    if opts.gain_rows == "judged":
        found = judged_gain_result(ctx, k, values, opts)
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
    return defined_if_relevant(ctx, values, opts)


def _ndcg_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    """NDCG from the DCG sum and the ideal DCG at the same cutoff(s). DCG and
    ideal DCG are scaled alike per group (gain_shift): the ratio is exact."""
    xp = ctx.xp
    (dcg_k,) = sums
    ideal = ideal_dcg(
        ctx,
        cutoff_position(ctx, k),
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
def hits_in_top(ctx: RankingContext, k, opts: Options) -> np.ndarray:
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
    if not view.blocks:  # a count of the relevant rows, from those rows alone
        rows = seg.flatnonzero(rel)
        ones = view.xp.ones(rows.shape[0], dtype=view.float, device=view.device)
        return ((Part(rows, ones),),)
    return ((Part(None, view.block_mean(view.xp.astype(rel, view.float))),),)


def _precision_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    (hits,) = sums
    denom = precision_denominator_of(ctx, k, opts)
    if k is not None and opts.precision_denominator == "k":  # k >= 1
        return defined_if_relevant(ctx, hits / as_float_operand(ctx.xp, denom), opts)
    # A group with nothing ranked has retrieved nothing: precision 0.
    values = seg.divide(hits, as_float_operand(ctx.xp, denom), denom > 0, 0.0)
    return defined_if_relevant(ctx, values, opts)


def _recall_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    xp = ctx.xp
    (hits,) = sums
    denom = recall_denominator_of(ctx, k, opts)
    return defined_if_relevant(
        ctx, hits / as_float_operand(xp, xp.maximum(denom, 1)), opts
    )


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


def recall_denominator_of(ctx: RankingContext, k, opts: Options):
    """R, or min(k, R) (a list of k rows can then reach recall 1)."""
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if k is None or opts.recall_denominator == "n_relevant":
        return n_rel
    if opts.recall_denominator != "min_k_n_relevant":
        raise unrouted_option("recall_denominator", opts.recall_denominator)
    return ctx.xp.minimum(
        n_rel, cutoff_position(ctx, k)
    )  # capped k: never below R here


def r_precision(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Precision at R, the group's own number of relevant rows (``k`` unused)."""
    xp = ctx.xp
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    hits = hits_in_top(ctx, n_rel, opts)
    return defined_if_relevant(
        ctx, hits / as_float_operand(xp, xp.maximum(n_rel, 1)), opts
    )


def _judged_in_top(ctx: RankingContext, k: int | None, opts: Options) -> np.ndarray:
    """The judged rows among the top k of each group, which must not depend on
    the order of a tie: in a group with a relevant row (where precision is
    defined), a tie block that straddles the cutoff and mixes judged and
    unjudged rows makes it random (the metric a ratio of random sums), and
    raises."""
    top = cutoff_position(ctx, k)
    head = ctx.head(top)
    xp, f = ctx.xp, ctx.float
    if head.judged is None:  # every row judged
        length = ctx.length if top is None else xp.minimum(ctx.length, top)
        return xp.astype(length, f)
    blocks = head.blocks
    if top is not None and blocks:
        j = blocks.sum(xp.astype(head.judged, f))
        straddles = (blocks.rank <= top) & (blocks.rank + blocks.size - 1 > top)
        mixed = straddles & (j > 0) & (j < as_operand(xp, blocks.size, f))
        mixed &= ctx.n_relevant(opts.relevance_threshold)[blocks.group] > 0
        if bool(xp.any(mixed)):
            raise ValueError(
                "precision_denominator='n_judged' with ties='average': "
                f"{count_true(mixed)} tie block(s) "
                "(equal scores within a group) straddle the cutoff k and mix judged "
                "and unjudged rows, so the number of judged rows within the cutoff "
                "depends on the order of the tie; the expectation of the ratio is "
                "not implemented. Pass ties='stable', 'pessimistic' or "
                "'optimistic', or break the ties."
            )
    inside = head.judged if top is None else head.judged & (head.rank <= top)
    return head.group_sum(xp.astype(inside, f))


def precision_denominator_of(ctx: RankingContext, k, opts: Options):
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
        raise unrouted_option("precision_denominator", opts.precision_denominator)
    return xp.astype(xp.minimum(ctx.length, cutoff_position(ctx, k)), f)


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
    block = xp.full(n, -1, dtype=index_dtype(xp), device=dev)
    blocks = ctx.blocks
    if blocks:
        block = xp.where(found, xp.astype(blocks.block_of(at), index_dtype(xp)), block)
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
        one /= as_float_operand(xp, seg.take(a, untied))
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
        owner, starts, n = runs(count, total)
        # the offset of each row in its block
        j = ranges(xp.zeros_like(count), count, total)
        m_j = xp.astype(seg.take(m_t, owner), f)
        r_j = xp.astype(seg.take(r_t, owner), f)
        if whole:
            term = r_j / (as_float_operand(xp, seg.take(a_t + m_t - 1, owner)) * m_j)
        else:
            j_f = as_float_operand(xp, j)
            # log P(row j misses | rows < j missed); the last possible offset's
            # step is log(0) and never used (the sum is exclusive): left at 0.
            step = log1p_where(xp, -r_j / (m_j - j_f), j_f < m_j - r_j)
            log_miss = seg.exclusive_cumsum(step, owner, starts, n)
            term = xp.exp(log_miss) * (r_j / (m_j - j_f))
            if reciprocal:
                term = term / as_float_operand(xp, seg.take(a_t, owner) + j)
        start = seg.take(view.blocks.start, seg.take(block, tied))
        parts.append(Part(seg.take(start, owner) + j, term, cut=True))
    return (tuple(parts),)


def _first_hit_finish(ctx: RankingContext, sums, k, opts: Options) -> GroupValues:
    return defined_if_relevant(ctx, sums[0], opts)


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
    seen = count_before(xp, rel)
    before = seen[view.starts[:-1]]
    blocks = view.blocks
    untied = rel if not blocks else rel & ~blocks.row_mask(view.n_rows)
    hits = seg.flatnonzero(untied)
    term = xp.astype(seen[hits + 1] - before[view.group[hits]], f)
    term /= as_operand(xp, view.rank[hits], f)
    ap = [Part(hits, term)]
    if blocks:
        start, m = blocks.start, blocks.size
        r = xp.astype(seen[start + m] - seen[start], f)
        c = as_operand(xp, seen[start] - before[blocks.group], f)
        m_f = as_operand(xp, m, f)
        if view.thresholds:
            last = as_operand(xp, blocks.rank + m - 1, f)
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
            return defined_if_relevant(
                ctx, seg.divide(total, found, found > 0, 0.0), opts
            )
        # No relevant row within the cutoff: the sum is 0 too, and so is AP.
        values = total / xp.maximum(found, 1.0)
        if k is not None and ctx.blocks:
            values = _ap_straddling(ctx, cutoff_position(ctx, k), total, values, opts)
        return defined_if_relevant(ctx, values, opts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if k is None or choice == "n_relevant":
        denom = n_rel
    elif choice == "min_k_n_relevant":
        denom = xp.minimum(n_rel, cutoff_position(ctx, k))
    else:
        raise unrouted_option("ap_denominator", choice)
    return defined_if_relevant(
        ctx, total / as_operand(xp, xp.maximum(denom, 1), f), opts
    )


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
    seen = count_before(xp, rel)
    start, m, a = blocks.start, blocks.size, blocks.rank
    r = xp.astype(seen[start + m] - seen[start], f)
    straddling = (a <= top) & (a + m - 1 > top) & (r > 0) & (r < as_operand(xp, m, f))
    i = seg.flatnonzero(straddling)
    if not i.shape[0]:
        return values
    group = blocks.group[i]  # at most one straddling block per group
    a, m, r = a[i], m[i], r[i]
    c = seen[start[i]] - seen[view.starts[:-1]][group]  # relevant rows above
    t = xp.astype(top - a + 1, index_dtype(xp))  # positions of the block inside
    owner, _, n = runs(t)
    j = as_operand(xp, ranges(xp.zeros_like(t), t), f)
    inv = 1.0 / (as_operand(xp, seg.take(a, owner), f) + j)
    u = seg.segment_sum(owner, inv, n)
    v = seg.segment_sum(owner, j * inv, n)
    m_f = as_operand(xp, m, f)
    spread = seg.divide(r - 1.0, m_f - 1.0, m > 1, 0.0)
    inside = (r / m_f) * ((as_operand(xp, c, f) + 1.0) * u + spread * v)
    rest = seg.take(total, group) - inside  # the rows above the block
    expected = _ap_straddling_block(
        sum_above=rest,
        block_start=a,
        block_size=m,
        block_relevant=r,
        relevant_above=c,
        cutoff=top,
        inverse_positions=u,
        offsets_over_positions=v,
    )
    return seg.put(values, group, expected)


def _ap_straddling_block(
    sum_above,
    block_start,
    block_size,
    block_relevant,
    relevant_above,
    cutoff,
    inverse_positions,
    offsets_over_positions,
) -> np.ndarray:
    """E[AP@k] of groups whose tie block straddles the cutoff ``k``, with
    ``ap_denominator="n_relevant_retrieved"`` (at most one such block per group).

    Per group: the block holds positions ``a .. a + m - 1`` (``a``:
    ``block_start``, ``m``: ``block_size``), ``r`` relevant rows of its ``m``
    (``block_relevant``) and ``c`` relevant rows above it (``relevant_above``);
    ``sum_above`` is the sum of AP's contributions of the rows above the block.
    The ``t = k - a + 1`` positions of the block inside the cutoff hold ``X``
    relevant rows, hypergeometric: ``P(X = x) = C(r, x) C(m - r, t - x) / C(m, t)``.
    Given ``X = x`` the top ``t`` of the block are a uniform order of ``x``
    relevant and ``t - x`` other rows, so the block adds, as in
    :func:`average_precision`, ``B(x) = (x/t) [(c + 1) U + (x - 1)/(t - 1) V]``
    (over the ``t`` offsets ``j`` inside, ``U = Σ 1/(a + j)``:
    ``inverse_positions``, ``V = Σ j/(a + j)``: ``offsets_over_positions``), and
    the denominator is ``c + x``. The rows above the block add ``sum_above``
    whatever ``X`` is (the other blocks are ordered independently), so
    ``E[AP] = Σ_x P(X = x) (sum_above + B(x)) / (c + x)`` (0 where
    ``c + x = 0``: nothing is then found). ``P`` comes from its ratios
    ``P(x + 1) / P(x)`` summed as logs and normalised per block, exact for blocks
    of any size.
    """
    # The symbols of the derivation above.
    rest, a, c, k = sum_above, block_start, relevant_above, cutoff
    u, v = inverse_positions, offsets_over_positions
    xp = seg.array_namespace(rest)
    f = rest.dtype
    m, r = xp.astype(block_size, f), xp.astype(block_relevant, f)
    t = xp.astype(k - a + 1, f)
    lo = xp.maximum(0.0, t - (m - r))
    hi = xp.minimum(r, t)
    count = xp.astype(hi - lo + 1, xp.int64)
    owner, starts, n = runs(count)
    x = lo[owner] + as_operand(xp, ranges(xp.zeros_like(count), count), f)
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
    log_p -= run_max(log_p, starts[:-1], count, owner)[owner]
    p = xp.exp(log_p)
    p /= run_sum(p, starts[:-1], count, owner)[owner]
    spread = seg.divide(x - 1.0, t_x - 1.0, t_x > 1, 0.0)
    c_x = xp.astype(c[owner], f)
    found = (x / t_x) * ((c_x + 1.0) * u[owner] + spread * v[owner])
    found += rest[owner]
    found *= p
    found /= xp.maximum(c_x + x, 1.0)
    return seg.segment_sum(owner, found, n)


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
