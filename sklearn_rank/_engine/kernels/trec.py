"""Per-group kernels of trec_eval's other measures: G, binG, infAP, R-precision at
multiples of R, Unjudged@k and the RBP residual.

Each kernel has the signature of :mod:`sklearn_rank._engine.kernels`
(``kernel(ctx, k, opts) -> GroupValues``) and reads only the ordered view
(:class:`~sklearn_rank._engine.context.RankingContext`, its ``totals``) and the segment
primitives, in the context's array namespace (``ctx.xp``). The definitions follow
trec_eval 10's ``m_*.c`` files; docs/metrics.md §2.21-2.26 states each one.

Ties: R-precision at multiples of R, Unjudged@k and the RBP residual are linear in
the rows, so ``ties="average"`` is the exact expectation (block means). G, binG and
infAP are not: a tie block whose order changes the value (it mixes relevant and
other rows, or different gains) raises under ``ties="average"`` and
``"threshold"``, as interpolated precision does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import segments as seg
from ..context import RankingContext
from ..gain_order import ideal_rows
from .arrays import as_float_operand, index_dtype, prefix_sum
from .base import GroupValues, cutoff_position, defined_if_relevant
from .cumulative import hits_in_top
from .gain_discount import custom_gain, gains, ideal_dcg, judged_gains, level_gain

if TYPE_CHECKING:
    from ..conventions import Options

# trec_eval.h: INFAP_EPSILON.
INFAP_EPSILON = 0.00001


def _refuse_mixed_blocks(ctx: RankingContext, key: np.ndarray, func: str) -> None:
    """Raise where a tie block holds rows of different ``key`` (the value then
    depends on the order of the tie, whose expectation is not implemented)."""
    blocks = ctx.blocks
    if not blocks:
        return
    xp = ctx.xp
    mixed = blocks.min(key) != blocks.max(key)
    if bool(xp.any(mixed)):  # a scalar sync for the check (it raises)
        _refuse_mixed_blocks_count(ctx, int(xp.count_nonzero(mixed)), func)


def _g_values(
    ctx: RankingContext, ranked_gain: np.ndarray, ideal: tuple, func: str
) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_i g_i / log2(2 + C_i - S_i)`` per group over the ranked rows with
    ``g_i != 0`` (S_i: the gains up to and including row i; ``ranked_gain``
    may be a mask, gains 1 and 0), and the normalising
    total of the gains of the group's ideal list (``ideal``: all rows' gains,
    the ideal list's rows and their sort key, :func:`_gain_lists`)."""
    xp = ctx.xp
    if ctx.blocks:
        _refuse_mixed_blocks(ctx, xp.astype(ranked_gain, ctx.float), func)
    all_gain, keep, _ = ideal
    norm = seg.segment_sum(ctx.totals.codes_all[keep], all_gain[keep], ctx.n_groups)
    # Only the rows with a gain add a term or move the running gain: every
    # per-row quantity is taken at those rows (the same sums: the others add
    # 0; time and memory on long lists of few relevant rows).
    gained = ranked_gain if ranked_gain.dtype == xp.bool else ranked_gain != 0
    rows = seg.flatnonzero(gained)
    gain_at = xp.astype(seg.take(ranked_gain, rows), ctx.float)
    seen = ctx.group_exclusive_cumsum_at(gain_at, rows) + gain_at
    group_at = seg.take(ctx.group, rows)
    arg = 2.0 + _ideal_costs_from(ctx, ideal, rows) - seen
    bad = arg <= 0.0
    # Only in a defined group (an ideal list): elsewhere there is no value.
    bad &= seg.take(norm, group_at) > 0
    if bool(xp.any(bad)):  # a scalar sync (it raises)
        # The running gain can pass the ideal cost only with gains the ideal
        # list leaves out: unjudged rows' (levels -1, -2), or levels that
        # ideal_order="trec_eval" walks past.
        raise ValueError(
            f"{func}: the running gain of a ranked list passes its ideal cost "
            "plus 2 (gains of unjudged rows, levels -1 / -2, or of levels the "
            "ideal list leaves out): G takes log2(2 + cost - gain) of a number "
            "<= 0 there (trec_eval prints nan)."
        )
    hit = arg > 0.0
    # At 2 + cost - gain = 1 the term is gain / 0: infinite, as trec_eval's.
    if xp is np:
        with np.errstate(divide="ignore"):
            found = gain_at[hit] / np.log2(arg[hit])
    else:
        found = gain_at[hit] / xp.log2(arg[hit])
    return ctx.group_sum(found, group_at[hit]), norm


def _ideal_costs_from(ctx: RankingContext, ideal_rows_: tuple, rows) -> np.ndarray:
    """The ideal cost of the position of each ranked row of index ``rows``: the
    ideal gains of its group summed up to its rank (each at least 1), plus 1
    per position past the group's ideal list."""
    xp = ctx.xp
    totals = ctx.totals
    all_gain, keep, key = ideal_rows_
    codes = totals.codes_all[keep]
    ideal = all_gain[keep]
    order = seg.group_order(codes, key[keep])
    codes, ideal = seg.take(codes, order), xp.maximum(seg.take(ideal, order), 1.0)
    n_ideal = seg.segment_count(codes, ctx.n_groups)
    first = prefix_sum(xp, n_ideal)[:-1]
    prefix = prefix_sum(xp, ideal)
    group, rank = seg.take(ctx.group, rows), seg.take(ctx.rank, rows)
    n_g = seg.take(n_ideal, group)
    start = seg.take(first, group)
    cost = seg.take(prefix, start + xp.minimum(rank, n_g)) - seg.take(prefix, start)
    # Past the ideal list every position costs 1 (trec_eval's min_cost).
    cost += as_float_operand(xp, xp.maximum(rank - n_g, 0))
    return cost


def g_gain(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's G (m_G.c): gains are the labels (0 for unjudged rows; a gain
    mapping or callable maps them), the ideal cost of position i is
    ``max(ideal_i, 1)``; defined where the group's ideal list (``ideal_order``)
    has a positive gain, whatever the relevance threshold."""
    y, ideal = _gain_lists(ctx, opts)
    total, norm = _g_values(ctx, y, ideal, "g_score")
    defined = norm > 0
    values = seg.divide(total, norm, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


def bing(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's binG (m_binG.c): ``(1/R) Σ 1/log2(2 + n_r)`` over the ranked
    relevant rows r, ``n_r`` the non-relevant rows ranked above r (G with gain 1
    for a relevant row, 0 otherwise)."""
    xp, f = ctx.xp, ctx.float
    threshold = opts.relevance_threshold
    rel_all = xp.astype(ctx.totals.relevant_all(threshold), f)
    ideal = (rel_all, rel_all > 0, rel_all)
    # (gains 1 / 0: the relevance mask itself, as floats where read)
    total, norm = _g_values(ctx, ctx.relevant(threshold), ideal, "bing_score")
    return defined_if_relevant(ctx, total / xp.maximum(norm, 1.0), opts)


def infap(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's infAP (m_infap.c; Yilmaz and Aslam, 2006): a relevant row at
    1-based position p, with ``a`` relevant, ``b`` judged non-relevant and ``u``
    pooled but unjudged rows (``in_pool`` and not ``judged``) above it, adds 1
    at p = 1 and otherwise
    ``1/p + ((p - 1)/p) ((a + b + u)/(p - 1)) ((a + ε)/(a + b + 2ε))``; the sum
    is divided by R. Unjudged rows outside the pool count only through p."""
    xp, f = ctx.xp, ctx.float
    threshold = opts.relevance_threshold
    rel = ctx.judged_relevant(threshold)
    judged_non = ~rel if ctx.judged is None else ~rel & ctx.judged
    if ctx.blocks:
        _refuse_mixed_blocks(ctx, xp.astype(rel, f), "infap_score")
    # a, b and u counted at the relevant rows only (the terms' rows).
    rows = seg.flatnonzero(rel)
    a = ctx.group_count_before(rel, rel)
    b = ctx.group_count_before(judged_non, rel)
    p = xp.astype(seg.take(ctx.rank, rows), f)
    pool_above = b  # judged, or pooled without a judgement (u)
    if ctx.in_pool is not None:  # validated: some row is pooled, not judged
        pool_above = b + ctx.group_count_before(ctx.in_pool & ~ctx.judged, rel)
    later = p > 1
    term = xp.ones(rows.shape[0], dtype=f, device=ctx.device)
    q = p[later] - 1.0
    ab = a[later] + b[later]
    term[later] = 1.0 / p[later] + (q / p[later]) * (
        (a[later] + pool_above[later]) / q
    ) * ((a[later] + INFAP_EPSILON) / (ab + 2 * INFAP_EPSILON))
    total = ctx.group_sum(term, seg.take(ctx.group, rows))
    n_rel = ctx.n_relevant(threshold)
    return defined_if_relevant(
        ctx, total / as_float_operand(xp, xp.maximum(n_rel, 1)), opts
    )


def r_precision_mult(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's Rprec_mult (m_Rprec_mult.c): precision at the cutoff
    ``c = floor(m R + 0.9)`` of each group (``m`` the ``r_multiple`` keyword),
    ``E[hits in the top c] / c``; 0 where c = 0. A list shorter than c counts as
    padded with non-relevant rows."""
    xp = ctx.xp
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    cut = xp.astype(
        xp.floor(opts.r_multiple * as_float_operand(xp, n_rel) + 0.9), xp.int64
    )
    hits = hits_in_top(ctx, cut, opts)
    values = seg.divide(hits, as_float_operand(xp, cut), cut > 0, 0.0)
    return defined_if_relevant(ctx, values, opts)


def _ranked_any(ctx: RankingContext, values: np.ndarray) -> GroupValues:
    """Defined where the group ranks at least one row (labels play no part)."""
    xp = ctx.xp
    defined = ctx.length > 0
    return GroupValues(xp.where(defined, values, xp.nan), defined, ctx.group_weight())


def unjudged_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's unj (m_unjudged.c): the unjudged rows among the top k over k
    (a list shorter than k counts as padded with judged rows; ``k=None``: over
    the list's length)."""
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    top = cutoff_position(ctx, k)  # k capped: no int overflow
    if ctx.judged is None:
        count = xp.zeros(ctx.n_groups, dtype=f, device=dev)
    elif ctx.blocks:  # a tied row counts with its block's share inside k
        unjudged = xp.astype(~ctx.judged, f)
        unjudged *= ctx.in_top(top)
        count = ctx.group_sum(unjudged)
    else:  # a count of rows: the unjudged rows in the top k, counted alone
        hit = ~ctx.judged
        if top is not None:
            hit &= ctx.rank <= (top if np.ndim(top) == 0 else seg.take(top, ctx.group))
        group = seg.take(ctx.group, seg.flatnonzero(hit))
        count = xp.astype(seg.segment_count(group, ctx.n_groups), f)
    denom = (
        xp.astype(ctx.length, f)
        if k is None
        else xp.full(ctx.n_groups, float(k), dtype=f, device=dev)
    )
    values = seg.divide(count, denom, denom > 0, 0.0)
    return _ranked_any(ctx, values)


def rbp_residual(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's rbp_resid (m_rbp_resid.c): the RBP mass the judgements leave
    open, ``p^n + (1 - p) Σ p^(i-1)`` over the unjudged rows at positions i of a
    list of n rows; 0 for a list without an unjudged row (as trec_eval, which
    then leaves the tail ``p^n`` out)."""
    xp, f = ctx.xp, ctx.float
    p = opts.persistence
    if ctx.judged is None:
        return _ranked_any(ctx, xp.zeros(ctx.n_groups, dtype=f, device=ctx.device))
    if xp is np:
        # p^i as m_rbp_resid.c makes it, one product per position (cur_p *= p):
        # its last bits, which a rounding boundary of the printed mean can show.
        deepest = int(ctx.length.max()) if ctx.n_groups else 0
        power = np.cumprod(np.r_[1.0, np.full(deepest, float(p))])
        weight = ctx.block_mean(power[ctx.rank - 1])
        tail = power[ctx.length]
    else:
        weight = ctx.block_mean(p ** (as_float_operand(xp, ctx.rank) - 1.0))
        tail = p ** xp.astype(ctx.length, f)
    unjudged = ~ctx.judged
    mass = ctx.group_sum(xp.where(unjudged, weight, 0.0))
    has = ctx.group_sum(xp.astype(unjudged, f)) > 0
    values = xp.where(has, tail + (1.0 - p) * mass, 0.0)
    return _ranked_any(ctx, values)


def _gain_lists(ctx: RankingContext, opts: Options) -> tuple:
    """Gains of the ranked rows, and ``(gains of all rows, the rows of the ideal
    list, their sort key)``: trec_eval's get_gain and setup_gains. The gains
    are the labels (0 where unjudged), or a gain mapping's or callable's values
    (an unjudged row: its level -1 or -2, else 0); the ideal list follows
    ``ideal_order`` (:mod:`.gain_order`)."""
    totals = ctx.totals
    gain = opts.gain if custom_gain(opts.gain) else "linear"
    ranked = judged_gains(ctx, gain)
    all_gain = gains(totals.y_all, gain)
    keep, key = ideal_rows(
        totals.y_all,
        totals.codes_all,
        totals.judged_all,
        ctx.n_groups,
        gain,
        all_gain,
        opts.ideal_order,
        level_gain(gain),
    )
    return ranked, (all_gain, keep, key)


def _ideal_prefix(ctx: RankingContext, ideal_rows_: tuple):
    """Per group: P (the ideal list's length), the offset of its ideal list in
    ``prefix`` and ``prefix`` (running ideal DCG over every group's ideal list,
    one leading 0 per group), so IDCG@c = prefix[first + min(c, P)] -
    prefix[first]."""
    xp = ctx.xp
    all_gain, keep, key = ideal_rows_
    codes = ctx.totals.codes_all[keep]
    ideal = all_gain[keep]
    order = seg.group_order(codes, key[keep])
    codes, ideal = seg.take(codes, order), seg.take(ideal, order)
    n_ideal = seg.segment_count(codes, ctx.n_groups)
    first = prefix_sum(xp, n_ideal)[:-1]
    position = xp.arange(
        1, ideal.shape[0] + 1, dtype=index_dtype(xp), device=ctx.device
    )
    position -= seg.take(first, codes)
    prefix = prefix_sum(xp, ideal / xp.log2(as_float_operand(xp, position) + 1.0))
    return n_ideal, first, prefix, codes, ideal


def _idcg_at(first, prefix, n_ideal, group, cut) -> np.ndarray:
    xp = seg.array_namespace(prefix)
    start = seg.take(first, group)
    end = start + xp.minimum(cut, seg.take(n_ideal, group))
    return seg.take(prefix, end) - seg.take(prefix, start)


def _running_dcg(ctx: RankingContext, gain: Any):
    """``dcg_at(pos, group)``: DCG@p at the rows of index ``pos`` (of groups
    ``group``), the running sum of ``gain / log2(p + 1)`` within the group; it
    is summed over the rows of nonzero gain alone, and a row reads the sum at
    the last of them up to it (the same sums: the other rows add 0)."""
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    rows = seg.flatnonzero(gain != 0)
    rank = as_float_operand(xp, seg.take(ctx.rank, rows))
    term = seg.take(gain, rows) / xp.log2(rank + 1.0)
    running = ctx.group_exclusive_cumsum_at(term, rows) + term
    rows_group = seg.take(ctx.group, rows)

    def dcg_at(pos: Any, group: Any) -> Any:
        if not rows.shape[0]:
            return xp.zeros(pos.shape, dtype=f, device=dev)
        i = xp.searchsorted(rows, pos, side="right") - 1
        found = i >= 0
        i = xp.where(found, i, 0)
        found &= seg.take(rows_group, i) == group
        return xp.where(found, seg.take(running, i), 0.0)

    return dcg_at


def ndcg_rel(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's ndcg_rel (m_ndcg_rel.c): NDCG averaged over the relevant rows,
    ``(1/P) [Σ_{ranked g_p > 0} DCG@p / IDCG@min(p, P) + (P - P_ret) DCG@n /
    IDCG@P]``, P the length of the group's ideal list (its judged rows of
    positive gain), P_ret the ranked rows of positive gain, n the list length;
    0 when the sum is <= 0. Defined where P > 0."""
    xp = ctx.xp
    gain, ideal_list = _gain_lists(ctx, opts)
    _refuse_mixed_blocks(ctx, gain, "ndcg_rel_score")
    n_ideal, first, prefix, _, _ = _ideal_prefix(ctx, ideal_list)
    dcg_at = _running_dcg(ctx, gain)
    rows = seg.flatnonzero(gain > 0)
    group = seg.take(ctx.group, rows)
    ideal = _idcg_at(first, prefix, n_ideal, group, seg.take(ctx.rank, rows))
    # (IDCG is 0 only in a group without an ideal list: undefined below.)
    dcg = dcg_at(rows, group)
    total = ctx.group_sum(seg.divide(dcg, ideal, ideal > 0, 0.0), group)
    n_ret = seg.segment_count(group, ctx.n_groups)
    full = xp.zeros(ctx.n_groups, dtype=ctx.float, device=ctx.device)
    has = ctx.length > 0
    groups = seg.flatnonzero(has)
    full[has] = dcg_at(seg.take(ctx.starts[1:] - 1, groups), groups)
    all_ideal = seg.take(prefix, first + n_ideal) - seg.take(prefix, first)
    defined = n_ideal > 0
    total += seg.divide(
        as_float_operand(xp, n_ideal - n_ret) * full, all_ideal, defined, 0.0
    )
    values = seg.divide(total, as_float_operand(xp, n_ideal), defined, np.nan)
    # m_ndcg_rel.c keeps 0 unless the sum is > 0: with gains that give ranked
    # rows outside the ideal list a positive gain, the last term can drive it
    # below 0.
    values = xp.where(defined & (total <= 0), 0.0, values)
    return GroupValues(values, defined, ctx.group_weight())


def rndcg(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """trec_eval's Rndcg (m_Rndcg.c): the mean of NDCG@b over the R levels b of
    the ideal list, the positions where its gain drops (after each positive
    grade's run, the last at P), plus NDCG over the whole list against IDCG@P
    when the list is longer than P + 1 (trec_eval's final point). Defined where
    the group has a relevant row (trec_eval returns 0 otherwise) and its ideal
    list is not empty (trec_eval divides 0 by 0)."""
    xp, f, dev = ctx.xp, ctx.float, ctx.device
    gain, ideal_list = _gain_lists(ctx, opts)
    n_ideal, first, prefix, codes, ideal = _ideal_prefix(ctx, ideal_list)
    # R levels: the ideal positions whose gain differs from the next one's.
    drop = xp.ones(ideal.shape[0], dtype=xp.bool, device=dev)
    if ideal.shape[0]:  # (the standard slices no empty array from 1)
        drop[:-1] = (codes[1:] != codes[:-1]) | (ideal[1:] != ideal[:-1])
    at = seg.flatnonzero(drop)
    b_group = seg.take(codes, at)
    b_cut = at + 1 - seg.take(first, b_group)
    blocks = ctx.blocks
    if blocks:
        # DCG@b depends on the order of a block mixing gains that starts at a
        # position <= b; the last point read is n, or P when n = P + 1.
        last = xp.where(ctx.length == n_ideal + 1, n_ideal, ctx.length)
        mixed = blocks.min(gain) != blocks.max(gain)
        mixed &= blocks.rank <= seg.take(last, blocks.group)
        # Only where the group is defined (a relevant row): elsewhere no value.
        n_rel = ctx.n_relevant(opts.relevance_threshold)
        mixed &= seg.take(n_rel, blocks.group) > 0
        if bool(xp.any(mixed)):  # a scalar sync for the check (it raises)
            _refuse_mixed_blocks_count(ctx, int(xp.count_nonzero(mixed)), "rndcg_score")
    dcg_rows = _running_dcg(ctx, gain)
    start = ctx.starts[:-1]

    def dcg_at(group, cut):
        cut = xp.minimum(cut, seg.take(ctx.length, group))
        out = xp.zeros(cut.shape, dtype=f, device=dev)
        some = cut > 0
        g = group[some]
        out[some] = dcg_rows(seg.take(start, g) + cut[some] - 1, g)
        return out

    points = dcg_at(b_group, b_cut) / _idcg_at(first, prefix, n_ideal, b_group, b_cut)
    total = seg.segment_sum(b_group, points, ctx.n_groups)
    count = xp.astype(seg.segment_count(b_group, ctx.n_groups), f)
    extra = (ctx.length > n_ideal + 1) & (n_ideal > 0)
    groups = seg.flatnonzero(extra)
    final = dcg_at(groups, seg.take(ctx.length, groups)) / _idcg_at(
        first, prefix, n_ideal, groups, seg.take(n_ideal, groups)
    )
    total = seg.put(total, groups, seg.take(total, groups) + final)
    count = seg.put(count, groups, seg.take(count, groups) + 1.0)
    # No R level (an empty ideal list: every judged gain <= 0, or trec_eval's
    # walk stops at once): m_Rndcg.c divides 0 by 0; undefined here.
    defined = (ctx.n_relevant(opts.relevance_threshold) > 0) & (count > 0)
    values = seg.divide(total, count, defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())


def _refuse_mixed_blocks_count(ctx: RankingContext, n: int, func: str) -> None:
    raise ValueError(
        f"{func} with ties={ctx.totals.ties!r}: {n} tie block(s) (equal scores "
        "within a group) mix rows whose order changes the value, and its exact "
        "expectation is not implemented. Pass ties='stable', 'pessimistic' or "
        "'optimistic', or break the ties."
    )


def ideal_dcg_values(
    y_true: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    *,
    gain,
    judged: np.ndarray | None = None,
    ideal_order: str = "gain",
    discount="log2",
) -> np.ndarray:
    """Per group, the DCG of its ideal ranking (trec_eval's ``ideal_dcg``):
    the judged rows of gain > 0 in the ``ideal_order`` (:mod:`.gain_order`),
    whether retrieved or not; 0 for a group without one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank._engine.kernels.trec import ideal_dcg_values
    >>> y, codes = np.array([1.0, 0.0, 2.0]), np.array([0, 0, 0])
    >>> float(ideal_dcg_values(y, codes, 1, gain="linear")[0])
    2.6309297535714578
    """
    ctx = RankingContext.from_inputs(
        y_true, np.zeros(y_true.shape), codes, n_groups, ties="stable", judged=judged
    )
    return ideal_dcg(ctx, None, gain, discount, "judged", ideal_order)


def recall_level_count(level: float, n_rel: Any, xp: Any = np) -> Any:
    """Relevant documents a recall level asks for: ``lround(level * R)``
    (trec_eval's ``floor(level * R + 0.5)``, as the iprec_at_recall kernel)."""
    return xp.floor(level * n_rel + 0.5)


def yaap_from_ap(ap: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """trec_eval's yaap (m_yaap.c) from AP: ``S = AP * R`` (the sum of the
    precisions at the relevant documents), ``log((1 + S) / (1 + R - S))``."""
    s = np.nan_to_num(ap) * n_rel
    return np.log((1.0 + s) / (1.0 + n_rel - s))
