"""Per-group kernels of trec_eval's other measures: G, binG, infAP, R-precision at
multiples of R, Unjudged@k and the RBP residual.

Each kernel has the signature of :mod:`sklearn_rank._kernels`
(``kernel(ctx, k, opts) -> GroupValues``) and reads only the ordered view
(:class:`~sklearn_rank._engine.RankingContext`, its ``totals``) and the segment
primitives. The definitions follow trec_eval 10's ``m_*.c`` files; docs/metrics.md
§2.21-2.26 states each one.

Ties: R-precision at multiples of R, Unjudged@k and the RBP residual are linear in
the rows, so ``ties="average"`` is the exact expectation (block means). G, binG and
infAP are not: a tie block whose order changes the value (it mixes relevant and
other rows, or different gains) raises under ``ties="average"`` and
``"threshold"``, as interpolated precision does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._kernels import GroupValues, _binary_result, _positions

if TYPE_CHECKING:
    from ._conventions import Options
    from ._engine import RankingContext

# trec_eval.h: INFAP_EPSILON.
INFAP_EPSILON = 0.00001


def _refuse_mixed_blocks(ctx: RankingContext, key: np.ndarray, func: str) -> None:
    """Raise where a tie block holds rows of different ``key`` (the value then
    depends on the order of the tie, whose expectation is not implemented)."""
    blocks = ctx.blocks
    if not blocks:
        return
    mixed = blocks.min(key) != blocks.max(key)
    if mixed.any():
        raise ValueError(
            f"{func} with ties={ctx.totals.ties!r}: {int(mixed.sum())} tie "
            "block(s) (equal scores within a group) mix rows whose order changes "
            "the value, and its exact expectation is not implemented. Pass "
            "ties='stable', 'pessimistic' or 'optimistic', or break the ties."
        )


def _g_values(
    ctx: RankingContext, ranked_gain: np.ndarray, all_gain: np.ndarray, func: str
) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_i g_i / log2(2 + C_i - S_i)`` per group over the ranked rows with
    ``g_i != 0`` (S_i: the gains up to and including row i), and the normalising
    total of the positive gains of all the group's rows."""
    _refuse_mixed_blocks(ctx, ranked_gain, func)
    seen = ctx.group_exclusive_cumsum(ranked_gain) + ranked_gain
    cost = _ideal_costs_from(ctx, all_gain)
    term = np.zeros(ctx.n_rows)
    hit = ranked_gain != 0
    term[hit] = ranked_gain[hit] / np.log2(2.0 + cost[hit] - seen[hit])
    positive = all_gain > 0
    norm = np.bincount(
        ctx.totals.codes_all[positive],
        weights=all_gain[positive],
        minlength=ctx.n_groups,
    )
    return ctx.group_sum(term), norm


def _ideal_costs_from(ctx: RankingContext, all_gain: np.ndarray) -> np.ndarray:
    totals = ctx.totals
    positive = all_gain > 0
    codes = totals.codes_all[positive]
    ideal = all_gain[positive]
    order = np.lexsort((-ideal, codes))
    codes, ideal = codes[order], np.maximum(ideal[order], 1.0)
    n_ideal = np.bincount(codes, minlength=ctx.n_groups)
    first = np.zeros(ctx.n_groups, dtype=np.intp)
    np.cumsum(n_ideal[:-1], out=first[1:])
    prefix = np.zeros(ideal.size + 1)
    np.cumsum(ideal, out=prefix[1:])
    n_g = n_ideal[ctx.group]
    start = first[ctx.group]
    cost = prefix[start + np.minimum(ctx.rank, n_g)] - prefix[start]
    # Past the ideal list every position costs 1 (trec_eval's min_cost).
    cost += np.maximum(ctx.rank - n_g, 0)
    return cost


def g_gain(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's G (m_G.c): gains are the labels (0 for unjudged rows), the
    ideal cost of position i is ``max(ideal_i, 1)``; defined where the group has
    a positive gain, whatever the relevance threshold."""
    y = ctx.y if ctx.judged is None else np.where(ctx.judged, ctx.y, 0.0)
    y_all = ctx.totals.y_all
    if ctx.totals.judged_all is not None:
        y_all = np.where(ctx.totals.judged_all, y_all, 0.0)
    total, norm = _g_values(ctx, y, y_all, "g_score")
    defined = norm > 0
    values = np.divide(total, norm, out=np.full(ctx.n_groups, np.nan), where=defined)
    return GroupValues(values, defined, ctx.group_weight())


def bing(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's binG (m_binG.c): ``(1/R) Σ 1/log2(2 + n_r)`` over the ranked
    relevant rows r, ``n_r`` the non-relevant rows ranked above r (G with gain 1
    for a relevant row, 0 otherwise)."""
    threshold = opts.relevance_threshold
    rel = ctx.relevant(threshold).astype(np.float64)
    y_all = ctx.totals.y_all
    rel_all = (y_all > 0 if threshold is None else y_all >= threshold).astype(float)
    total, norm = _g_values(ctx, rel, rel_all, "bing_score")
    return _binary_result(ctx, total / np.maximum(norm, 1.0), opts)


def infap(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's infAP (m_infap.c; Yilmaz and Aslam, 2006): a relevant row at
    1-based position p, with ``a`` relevant, ``b`` judged non-relevant and ``u``
    pooled but unjudged rows (``in_pool`` and not ``judged``) above it, adds 1
    at p = 1 and otherwise
    ``1/p + ((p - 1)/p) ((a + b + u)/(p - 1)) ((a + ε)/(a + b + 2ε))``; the sum
    is divided by R. Unjudged rows outside the pool count only through p."""
    threshold = opts.relevance_threshold
    rel = ctx.relevant(threshold)
    judged_non = ~rel if ctx.judged is None else ~rel & ctx.judged
    _refuse_mixed_blocks(ctx, rel.astype(np.float64), "infap_score")
    a = ctx.group_exclusive_cumsum(rel.astype(np.float64))
    b = ctx.group_exclusive_cumsum(judged_non.astype(np.float64))
    p = ctx.rank.astype(np.float64)
    rows = np.flatnonzero(rel)
    a, b, p = a[rows], b[rows], p[rows]
    pool_above = b  # judged, or pooled without a judgement (u)
    if ctx.in_pool is not None:  # validated: some row is pooled, not judged
        unjudged_in_pool = (ctx.in_pool & ~ctx.judged).astype(np.float64)
        pool_above = b + ctx.group_exclusive_cumsum(unjudged_in_pool)[rows]
    later = p > 1
    term = np.ones(rows.size)
    q = p[later] - 1.0
    ab = a[later] + b[later]
    term[later] = 1.0 / p[later] + (q / p[later]) * (
        (a[later] + pool_above[later]) / q
    ) * ((a[later] + INFAP_EPSILON) / (ab + 2 * INFAP_EPSILON))
    total = ctx.group_sum(term, ctx.group[rows])
    n_rel = ctx.n_relevant(threshold)
    return _binary_result(ctx, total / np.maximum(n_rel, 1), opts)


def r_precision_mult(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's Rprec_mult (m_Rprec_mult.c): precision at the cutoff
    ``c = floor(m R + 0.9)`` of each group (``m`` the ``r_multiple`` keyword),
    ``E[hits in the top c] / c``; 0 where c = 0. A list shorter than c counts as
    padded with non-relevant rows."""
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    cut = np.floor(opts.r_multiple * n_rel + 0.9).astype(np.int64)
    share = ctx.in_top(cut)
    share *= ctx.relevant(opts.relevance_threshold)
    hits = ctx.group_sum(share)
    values = np.divide(hits, cut, out=np.zeros(ctx.n_groups), where=cut > 0)
    return _binary_result(ctx, values, opts)


def _ranked_any(ctx: RankingContext, values: np.ndarray) -> GroupValues:
    """Defined where the group ranks at least one row (labels play no part)."""
    defined = ctx.length > 0
    return GroupValues(np.where(defined, values, np.nan), defined, ctx.group_weight())


def unjudged_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's unj (m_unjudged.c): the unjudged rows among the top k over k
    (a list shorter than k counts as padded with judged rows; ``k=None``: over
    the list's length)."""
    unjudged = (
        np.zeros(ctx.n_rows) if ctx.judged is None else (~ctx.judged).astype(float)
    )
    unjudged *= ctx.in_top(_positions(ctx, k))  # k capped: no int overflow
    count = ctx.group_sum(unjudged)
    denom = (
        ctx.length.astype(np.float64) if k is None else np.full(ctx.n_groups, float(k))
    )
    values = np.divide(count, denom, out=np.zeros(ctx.n_groups), where=denom > 0)
    return _ranked_any(ctx, values)


def rbp_residual(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's rbp_resid (m_rbp_resid.c): the RBP mass the judgements leave
    open, ``p^n + (1 - p) Σ p^(i-1)`` over the unjudged rows at positions i of a
    list of n rows; 0 for a list without an unjudged row (as trec_eval, which
    then leaves the tail ``p^n`` out)."""
    p = opts.persistence
    if ctx.judged is None:
        return _ranked_any(ctx, np.zeros(ctx.n_groups))
    weight = ctx.block_mean(np.power(p, ctx.rank - 1.0))
    unjudged = ~ctx.judged
    mass = ctx.group_sum(np.where(unjudged, weight, 0.0))
    has = ctx.group_sum(unjudged.astype(np.float64)) > 0
    tail = np.power(p, ctx.length.astype(np.float64))
    values = np.where(has, tail + (1.0 - p) * mass, 0.0)
    return _ranked_any(ctx, values)


def _judged_gains(ctx: RankingContext) -> tuple[np.ndarray, np.ndarray]:
    """Gains of the ranked rows and of all rows: the labels, 0 where unjudged
    (trec_eval's get_gain with its default levels)."""
    y = ctx.y if ctx.judged is None else np.where(ctx.judged, ctx.y, 0.0)
    y_all = ctx.totals.y_all
    if ctx.totals.judged_all is not None:
        y_all = np.where(ctx.totals.judged_all, y_all, 0.0)
    return y, y_all


def _ideal_prefix(ctx: RankingContext, all_gain: np.ndarray):
    """Per group: P (positive gains), the offset of its ideal list in ``prefix``
    and ``prefix`` (running ideal DCG over every group's ideal list, one leading
    0 per group), so IDCG@c = prefix[first + min(c, P)] - prefix[first]."""
    positive = all_gain > 0
    codes = ctx.totals.codes_all[positive]
    ideal = all_gain[positive]
    order = np.lexsort((-ideal, codes))
    codes, ideal = codes[order], ideal[order]
    n_ideal = np.bincount(codes, minlength=ctx.n_groups)
    first = np.zeros(ctx.n_groups, dtype=np.intp)
    np.cumsum(n_ideal[:-1], out=first[1:])
    position = np.arange(1, ideal.size + 1) - first[codes]
    prefix = np.zeros(ideal.size + 1)
    np.cumsum(ideal / np.log2(position + 1.0), out=prefix[1:])
    return n_ideal, first, prefix, codes, ideal


def _idcg_at(first, prefix, n_ideal, group, cut) -> np.ndarray:
    return prefix[first[group] + np.minimum(cut, n_ideal[group])] - prefix[first[group]]


def ndcg_rel(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's ndcg_rel (m_ndcg_rel.c): NDCG averaged over the relevant rows,
    ``(1/P) [Σ_{ranked g_p > 0} DCG@p / IDCG@min(p, P) + (P - P_ret) DCG@n /
    IDCG@P]``, P the group's judged rows of positive gain (the label), P_ret
    those ranked, n the list length; 0 when the sum is 0. Defined where P > 0."""
    gain, all_gain = _judged_gains(ctx)
    _refuse_mixed_blocks(ctx, gain, "ndcg_rel_score")
    n_ideal, first, prefix, _, _ = _ideal_prefix(ctx, all_gain)
    dcg = gain / np.log2(ctx.rank + 1.0)
    dcg = ctx.group_exclusive_cumsum(dcg) + dcg  # DCG@p at each row
    rows = np.flatnonzero(gain > 0)
    group = ctx.group[rows]
    ideal = _idcg_at(first, prefix, n_ideal, group, ctx.rank[rows])
    total = ctx.group_sum(dcg[rows] / ideal, group)
    n_ret = np.bincount(group, minlength=ctx.n_groups)
    full = np.zeros(ctx.n_groups)
    ends = ctx.starts[1:] - 1
    has = ctx.length > 0
    full[has] = dcg[ends[has]]
    all_ideal = prefix[first + n_ideal] - prefix[first]
    defined = n_ideal > 0
    total += np.divide(
        (n_ideal - n_ret) * full, all_ideal, out=np.zeros(ctx.n_groups), where=defined
    )
    values = np.divide(total, n_ideal, out=np.full(ctx.n_groups, np.nan), where=defined)
    return GroupValues(values, defined, ctx.group_weight())


def rndcg(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's Rndcg (m_Rndcg.c): the mean of NDCG@b over the R levels b of
    the ideal list, the positions where its gain drops (after each positive
    grade's run, the last at P), plus NDCG over the whole list against IDCG@P
    when the list is longer than P + 1 (trec_eval's final point). Defined where
    the group has a relevant row (trec_eval returns 0 otherwise)."""
    gain, all_gain = _judged_gains(ctx)
    n_ideal, first, prefix, codes, ideal = _ideal_prefix(ctx, all_gain)
    # R levels: the ideal positions whose gain differs from the next one's.
    drop = np.ones(ideal.size, dtype=bool)
    drop[:-1] = (codes[1:] != codes[:-1]) | (ideal[1:] != ideal[:-1])
    at = np.flatnonzero(drop)
    b_group = codes[at]
    b_cut = at + 1 - first[b_group]
    blocks = ctx.blocks
    if blocks:
        # DCG@b depends on the order of a block mixing gains that starts at a
        # position <= b; the last point read is n, or P when n = P + 1.
        last = np.where(ctx.length == n_ideal + 1, n_ideal, ctx.length)
        mixed = blocks.min(gain) != blocks.max(gain)
        mixed &= blocks.rank <= last[blocks.group]
        # Only where the group is defined (a relevant row): elsewhere no value.
        mixed &= ctx.n_relevant(opts.relevance_threshold)[blocks.group] > 0
        if mixed.any():
            _refuse_mixed_blocks_count(ctx, int(mixed.sum()), "rndcg_score")
    dcg = gain / np.log2(ctx.rank + 1.0)
    dcg = ctx.group_exclusive_cumsum(dcg) + dcg
    start = ctx.starts[:-1]

    def dcg_at(group, cut):
        cut = np.minimum(cut, ctx.length[group])
        out = np.zeros(cut.shape)
        some = cut > 0
        out[some] = dcg[start[group[some]] + cut[some] - 1]
        return out

    points = dcg_at(b_group, b_cut) / _idcg_at(first, prefix, n_ideal, b_group, b_cut)
    total = np.bincount(b_group, weights=points, minlength=ctx.n_groups).astype(float)
    count = np.bincount(b_group, minlength=ctx.n_groups).astype(np.float64)
    extra = (ctx.length > n_ideal + 1) & (n_ideal > 0)
    groups = np.flatnonzero(extra)
    total[groups] += dcg_at(groups, ctx.length[groups]) / _idcg_at(
        first, prefix, n_ideal, groups, n_ideal[groups]
    )
    count[groups] += 1
    values = np.divide(total, count, out=np.zeros(ctx.n_groups), where=count > 0)
    return _binary_result(ctx, values, opts)


def _refuse_mixed_blocks_count(ctx: RankingContext, n: int, func: str) -> None:
    raise ValueError(
        f"{func} with ties={ctx.totals.ties!r}: {n} tie block(s) (equal scores "
        "within a group) mix rows whose order changes the value, and its exact "
        "expectation is not implemented. Pass ties='stable', 'pessimistic' or "
        "'optimistic', or break the ties."
    )
