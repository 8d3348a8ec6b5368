"""Per-group metric kernels on the ordered view.

Each kernel has the signature ``kernel(ctx, k, opts) -> (values, defined, weight)``
with one entry per group: the metric value (NaN where undefined), whether the group
is defined, and the weight of the group in the mean. ``k=None`` is the whole list.

Tie expectations (``ties="average"``) are exact. For a tie block holding positions
``a..b`` (``m = b - a + 1`` rows, ``r`` of them relevant) every order of the block is
equally likely, so each row sits at each of those positions with probability
``1/m``; positional sums therefore become block means (:meth:`block_mean`), and the
few non-linear metrics (Hit, MRR, AP) use the closed forms derived next to them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ._conventions import Options
from ._engine import RankingContext

_Result = tuple[np.ndarray, np.ndarray, np.ndarray]


def _within(ctx: RankingContext, k: int | None) -> np.ndarray | None:
    """Mask of ranked rows at positions <= k (None: every row)."""
    return None if k is None else ctx.rank <= k


def _masked(values: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    return values if mask is None else np.where(mask, values, 0.0)


def _binary_result(ctx: RankingContext, values: np.ndarray, opts: Options) -> _Result:
    defined = ctx.n_relevant(opts.relevance_threshold) > 0
    return np.where(defined, values, np.nan), defined, ctx.group_weight()


def gains(labels: np.ndarray, gain: str) -> np.ndarray:
    return np.exp2(labels) - 1.0 if gain == "exponential" else labels


def _discount(rank: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(rank + 1.0)


def _expected_top_k_count(ctx: RankingContext, k_block: np.ndarray | int | None):
    """Per row, the probability that it lands at a position <= k: the share of its
    tie block inside the cutoff (``k_block`` may differ per block)."""
    if k_block is None:
        return np.ones(ctx.n_rows)
    inside = np.clip(k_block - ctx.block_rank + 1, 0, ctx.block_size)
    return ctx.to_rows(inside / ctx.block_size)


# -- DCG / NDCG -----------------------------------------------------------------------
def dcg_values(ctx: RankingContext, k: int | None, gain: str) -> np.ndarray:
    """E[DCG@k]: each row's gain times the mean discount of its block's positions
    that fall inside the cutoff (McSherry & Najork, 2008)."""
    ctx = ctx.head(k)
    disc = ctx.block_mean(_masked(_discount(ctx.rank), _within(ctx, k)))
    return ctx.group_sum(gains(ctx.y, gain) * disc)


# Integer labels with at most this many levels per row get the linear-time ideal DCG.
_LEVELS_PER_ROW = 4


def _discount_prefix(n: int) -> np.ndarray:
    """``P[p] = Σ_{q<=p} 1/log2(q + 1)`` in extended precision, so that differences
    of far-apart prefixes keep float64 accuracy."""
    prefix = np.zeros(n + 1, dtype=np.longdouble)
    np.cumsum(_discount(np.arange(1, n + 1, dtype=np.float64)), out=prefix[1:])
    return prefix


def ideal_dcg(ctx: RankingContext, k: int | None, gain: str) -> np.ndarray:
    """DCG@k of each group's own labels (retrieved or not) sorted descending."""
    key, cache = ("idcg", k, gain), ctx._root._cache
    if key not in cache:
        cache[key] = _ideal_dcg(ctx, k, gain)
    return cache[key]


def _ideal_dcg(ctx: RankingContext, k: int | None, gain: str) -> np.ndarray:
    y, codes, n_groups = ctx.y_all, ctx.codes_all, ctx.n_groups
    top = int(y.max())
    n_levels = top + 1
    if np.array_equal(y, np.floor(y)) and n_levels * n_groups <= _LEVELS_PER_ROW * (
        y.size + 256
    ):
        # Count each label level per group; in the ideal order level ``l`` holds the
        # positions after all higher levels, so its DCG is a difference of prefixes.
        counts = np.bincount(
            codes * n_levels + y.astype(np.intp), minlength=n_groups * n_levels
        ).reshape(n_groups, n_levels)
        higher = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1] - counts
        size = counts.sum(axis=1)
        depth = int(size.max()) if k is None else min(k, int(size.max()))
        prefix = _discount_prefix(depth)
        start = np.minimum(higher, depth)
        stop = np.minimum(higher + counts, depth)
        level_gain = gains(np.arange(n_levels, dtype=np.float64), gain)
        return ((prefix[stop] - prefix[start]).astype(np.float64) * level_gain).sum(
            axis=1
        )
    order = np.lexsort((-y, codes))
    sorted_codes = codes[order]
    size = np.bincount(codes, minlength=n_groups)
    first = np.zeros(n_groups, dtype=np.intp)
    np.cumsum(size[:-1], out=first[1:])
    rank = np.arange(1, y.shape[0] + 1) - first[sorted_codes]
    contrib = gains(y[order], gain) * _discount(rank)
    if k is not None:
        contrib = np.where(rank <= k, contrib, 0.0)
    return np.bincount(sorted_codes, weights=contrib, minlength=n_groups)


def dcg(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    return _binary_result(ctx, dcg_values(ctx, k, opts.gain), opts)


def ndcg(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    values, defined, weight = dcg(ctx, k, opts)
    ideal = ideal_dcg(ctx, k, opts.gain)
    # Defined groups hold a label >= threshold > 0, so their ideal DCG is > 0.
    safe = np.where(defined, ideal, 1.0)
    return np.where(defined, values / safe, np.nan), defined, weight


# -- counting metrics -----------------------------------------------------------------
def _hits_in_top(ctx: RankingContext, k_block, opts: Options) -> np.ndarray:
    """E[number of relevant rows at positions <= k] per group."""
    rel = ctx.relevant(opts.relevance_threshold)
    return ctx.group_sum(rel * _expected_top_k_count(ctx, k_block))


def precision(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    hits = _hits_in_top(ctx.head(k), k, opts)
    if k is None:
        denom = ctx.length.astype(np.float64)
    elif opts.precision_denominator == "k":
        denom = np.full(ctx.n_groups, float(k))
    else:  # "min_k_n"
        denom = np.minimum(ctx.length, k).astype(np.float64)
    # A group with nothing ranked has retrieved nothing: precision 0.
    values = np.divide(hits, denom, out=np.zeros_like(hits), where=denom > 0)
    return _binary_result(ctx, values, opts)


def recall(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    hits = _hits_in_top(ctx.head(k), k, opts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    values = hits / np.maximum(n_rel, 1)
    return _binary_result(ctx, values, opts)


def r_precision(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """Precision at R, the group's own number of relevant rows (``k`` unused)."""
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    hits = _hits_in_top(ctx, n_rel[ctx.block_group], opts)
    return _binary_result(ctx, hits / np.maximum(n_rel, 1), opts)


# -- first-hit metrics ----------------------------------------------------------------
def _first_relevant_block(ctx: RankingContext, opts: Options):
    """Per group: the tie block holding the first relevant row (-1 if none), its
    first position ``a``, size ``m`` and relevant count ``r``."""
    rel = ctx.relevant(opts.relevance_threshold)
    first_row = ctx.first_in_group(rel)
    found = first_row >= 0
    block = np.full(ctx.n_groups, -1, dtype=np.intp)
    if ctx.has_ties:
        block[found] = ctx.row_block[first_row[found]]
    else:
        block[found] = first_row[found]
    safe = np.where(found, block, 0)
    if ctx.n_rows == 0:
        zeros = np.zeros(ctx.n_groups, dtype=np.int64)
        return found, block, zeros, zeros, zeros
    a = ctx.block_rank[safe]
    m = ctx.block_size[safe]
    r = ctx.block_sum(rel.astype(np.float64))[safe].astype(np.int64)
    return found, block, a, m, r


def _log_comb(n: np.ndarray, j: np.ndarray) -> np.ndarray:
    return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)


def hit_rate(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """P(some relevant row at positions <= k).

    Only the first block holding a relevant row matters. If it straddles the cutoff
    with ``t = k - a + 1`` of its ``m`` positions inside, the top ``t`` of that block
    is a uniform ``t``-subset, which misses all ``r`` relevant rows with probability
    ``C(m - r, t) / C(m, t)``.
    """
    ctx = ctx.head(k)
    found, _, a, m, r = _first_relevant_block(ctx, opts)
    if k is None:
        values = found.astype(np.float64)
    else:
        t = np.clip(k - a + 1, 0, m)
        miss = np.where(
            m - r >= t,
            np.exp(_log_comb(m - r, np.minimum(t, m - r)) - _log_comb(m, t)),
            0.0,
        )
        values = np.where(found & (t > 0), 1.0 - miss, 0.0)
    return _binary_result(ctx, values, opts)


def mrr(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """E[1/position of the first relevant row], 0 beyond the cutoff.

    In the first block holding a relevant row (``m`` rows, ``r`` relevant, first
    position ``a``) the first relevant row is at offset ``j`` with probability
    ``C(m - 1 - j, r - 1) / C(m, r)``, ``0 <= j <= m - r``.
    """
    ctx = ctx.head(k)
    found, block, a, m, r = _first_relevant_block(ctx, opts)
    if not ctx.has_ties:
        values = np.where(found, 1.0 / np.maximum(a, 1), 0.0)
        if k is not None:
            values = np.where(a <= k, values, 0.0)
        return _binary_result(ctx, values, opts)
    # Rows of each group's first relevant block, with their offset j in the block.
    in_first = ctx.row_block == block[ctx.group]
    rows = np.flatnonzero(in_first)
    g = ctx.group[rows]
    a_g, m_g, r_g = a[g], m[g], r[g]
    j = ctx.rank[rows] - a_g
    possible = j <= m_g - r_g
    jj = np.where(possible, j, 0)
    log_p = _log_comb(m_g - 1 - jj, r_g - 1) - _log_comb(m_g, r_g)
    term = np.where(possible, np.exp(log_p) / ctx.rank[rows], 0.0)
    if k is not None:
        term = np.where(ctx.rank[rows] <= k, term, 0.0)
    values = np.bincount(g, weights=term, minlength=ctx.n_groups)
    return _binary_result(ctx, values, opts)


# -- average precision ----------------------------------------------------------------
def average_precision(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """E[AP@k] = (1/D) Σ over relevant rows at positions p <= k of precision@p.

    For a relevant row of a block (first position ``a``, ``m`` rows, ``r`` relevant,
    ``c`` relevant rows in earlier blocks) placed at offset ``j``, the other ``r - 1``
    relevant rows of the block fill the ``j`` earlier slots in expectation
    ``j (r - 1) / (m - 1)`` times, so E[precision at a + j] is
    ``(c + 1 + j (r - 1)/(m - 1)) / (a + j)``. Averaging over the ``m`` offsets and
    summing over the ``r`` relevant rows gives, per block,
    ``(r/m) [(c + 1) U + (r - 1)/(m - 1) V]`` with ``U = Σ_j 1/(a + j)`` and
    ``V = Σ_j j/(a + j)`` over the offsets inside the cutoff.
    """
    ctx = ctx.head(k)
    rel = ctx.relevant(opts.relevance_threshold).astype(np.float64)
    inside = _within(ctx, k)
    if ctx.has_ties:
        offset = ctx.rank - ctx.block_rank[ctx.row_block]
        u = ctx.block_sum(_masked(1.0 / ctx.rank, inside))
        v = ctx.block_sum(_masked(offset / ctx.rank, inside))
        r = ctx.block_sum(rel)
        m = ctx.block_size
        c = ctx.group_exclusive_cumsum(rel, at=ctx.block_start)
        spread = np.divide(r - 1.0, m - 1.0, out=np.zeros_like(r), where=m > 1)
        contrib = (r / m) * ((c + 1.0) * u + spread * v)
        total = ctx.group_sum(contrib, ctx.block_group)
    else:
        before = ctx.group_exclusive_cumsum(rel)
        total = ctx.group_sum(_masked(rel * (before + 1.0) / ctx.rank, inside))
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    denom = (
        n_rel
        if (k is None or opts.ap_denominator == "n_relevant")
        else np.minimum(n_rel, k)
    )
    return _binary_result(ctx, total / np.maximum(denom, 1), opts)


# -- ERR ---------------------------------------------------------------------------
def err(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """Expected reciprocal rank (Chapelle et al., 2009) with stop probability
    ``R(g) = (2^g - 1) / 2^max_grade``.

    Under ``ties="average"`` the exact expectation over a block that mixes grades
    involves elementary symmetric polynomials of its stop probabilities, which has
    no linear-time vectorised form; such a block inside the cutoff raises instead of
    being approximated. Blocks of equal grades give the same value in every order.
    """
    ctx = ctx.head(k)
    if ctx.has_ties:
        y = ctx.y
        lo = np.minimum.reduceat(y, ctx.block_start)
        hi = np.maximum.reduceat(y, ctx.block_start)
        mixed = (lo != hi) & (ctx.block_size > 1)
        if k is not None:
            mixed &= ctx.block_rank <= k
        if mixed.any():
            raise ValueError(
                f"err_score with ties='average': {int(mixed.sum())} tie block(s) "
                "(equal scores within a group) hold different grades inside the "
                "cutoff, where the exact expectation is not implemented. Pass "
                "ties='stable', 'pessimistic' or 'optimistic', or break the ties."
            )
    stop = (np.exp2(ctx.y) - 1.0) / np.exp2(opts.max_grade)
    through = ctx.segmented_cumprod(1.0 - stop)  # P(user passes row p)
    reach = np.ones(ctx.n_rows)
    if ctx.n_rows > 1:
        reach[1:] = np.where(ctx.rank[1:] > 1, through[:-1], 1.0)
    term = _masked(stop * reach / ctx.rank, _within(ctx, k))
    return _binary_result(ctx, ctx.group_sum(term), opts)


# -- AUC ---------------------------------------------------------------------------
def _auc_parts(ctx: RankingContext, pos_w: np.ndarray, neg_w: np.ndarray):
    """Per group: Mann-Whitney credit Σ_pos Σ_neg ([s_i > s_j] + ½[s_i = s_j]) with
    pair weights ``pos_w[i] * neg_w[j]``, and the positive / negative totals.

    With resolved ties every row is its own block, so tied pairs are credited by the
    resolved order instead of ½.
    """
    pos_b = ctx.block_sum(pos_w)
    neg_b = ctx.block_sum(neg_w)
    neg_total = ctx.group_sum(neg_w)
    neg_before = ctx.group_exclusive_cumsum(neg_w, at=ctx.block_start)
    below = neg_total[ctx.block_group] - neg_before - neg_b
    credit = ctx.group_sum(pos_b * (below + 0.5 * neg_b), ctx.block_group)
    return credit, ctx.group_sum(pos_w), neg_total


def gauc(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """Per-group AUC, weighted by rows, positives or uniformly (Zhou et al., 2018)."""
    rel = ctx.relevant(opts.relevance_threshold)
    pos = rel.astype(np.float64)
    credit, n_pos, n_neg = _auc_parts(ctx, pos, 1.0 - pos)
    defined = (n_pos > 0) & (n_neg > 0)
    values = np.divide(
        credit, n_pos * n_neg, out=np.full(ctx.n_groups, np.nan), where=defined
    )
    if opts.weights == "rows":
        size = ctx.length.astype(np.float64)
    elif opts.weights == "positives":
        size = n_pos
    else:
        size = np.ones(ctx.n_groups)
    return values, defined, ctx.group_weight() * size


def auc(ctx: RankingContext, k: int | None, opts: Options) -> _Result:
    """Pooled AUC over all ranked rows (one list), pairs weighted by sample weights;
    equals ``sklearn.metrics.roc_auc_score``. Returns a single "group"."""
    pooled = ctx.pooled()
    rel = pooled.relevant(opts.relevance_threshold)
    w = (
        np.ones(pooled.n_rows)
        if pooled.sample_weight is None
        else pooled.sample_weight[pooled.order]
    )
    credit, w_pos, w_neg = _auc_parts(pooled, w * rel, w * ~rel)
    defined = (w_pos > 0) & (w_neg > 0)
    values = np.divide(credit, w_pos * w_neg, out=np.full(1, np.nan), where=defined)
    return values, defined, np.ones(1)
