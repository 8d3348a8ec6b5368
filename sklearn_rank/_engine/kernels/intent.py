"""Intent-aware (diversity) metrics over relevance per (row, intent): alpha-nDCG
and nERR-IA with ndeval's greedy ideal, alpha-DCG and ERR-IA as ndeval prints
them, NRBP and nNRBP, MAP-IA, precision-IA and subtopic (intent) recall.

Judgements are binary per intent (grade > 0, as ndeval reads its qrels). A
group's intents are the columns with a relevant row in the group (ndeval's
"actual subtopics"); a group with none is undefined. numpy only for now.
Rows the context does not rank (its ``retrieved`` mask) still count in a group's
intents, in MAP-IA's per-intent denominators and as candidates of the greedy
ideal, as ndeval reads them from its qrels; only ranked rows are scored.

The rows come in the context's one ordering (``ctx.order``). Only the relevant
(row, intent) pairs are kept: each pair's count of relevant rows for its intent
ranked above it is its position in its (group, intent) cell after one sort of the
pairs, and per-row sums over pairs are ``bincount`` s; no pass runs over all rows x
intents and no Python loop over groups.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .. import segments as seg
from .base import GroupValues

if TYPE_CHECKING:
    from ..context import RankingContext


class IntentView(NamedTuple):
    """The relevant (row, intent) pairs of one context, in input row order (then
    intent), with their rows in the context's order."""

    row: np.ndarray  # (n_pairs,) the pair's position in the ranked view
    prior: np.ndarray  # (n_pairs,) rows relevant to its intent ranked above it
    n_intents: np.ndarray  # (n_groups,) intents with a relevant row
    rel_input: np.ndarray  # (n_rows, n_intents) int8 0/1, in input order
    cell_size: np.ndarray  # (n_pairs,) relevant rows of the pair's (group, intent)
    intent: np.ndarray  # (n_pairs,) the pair's intent (column)
    ideals: dict  # alpha -> the longest greedy ideal computed (``ideal_gains``)


class IntentParams(NamedTuple):
    """The user model's parameters: ``alpha`` the redundancy intolerance (and
    ERR-IA's stop probability), ``beta`` NRBP's patience, ``shares`` each
    relevant pair's intent probability P(i|q) (:func:`intent_shares`; None:
    uniform over the group's intents)."""

    alpha: float = 0.5
    beta: float = 0.5
    shares: np.ndarray | None = None


def intent_view(ctx: RankingContext, rel_input: np.ndarray) -> IntentView:
    """The relevant (row, intent) pairs laid out in the context's one ordering,
    with each pair's count of relevant rows for its intent ranked above it in its
    group: its position among the pairs of its (group, intent) cell, ordered by
    cell then rank (one sort of the pairs, no pass over rows x intents).

    ``rel_input`` covers every row, ranked or not (the context's ``retrieved``
    mask): a group's intents and each cell's size (MAP-IA's denominator) count
    the unranked rows too, as ndeval counts its qrels; only ranked rows are
    pairs of the view."""
    n, m = rel_input.shape
    in_row, intent = _nonzero(rel_input)
    ranked_rows = ctx.totals.ranked_rows
    size_all = None
    if ranked_rows is not None:  # judged rows the ranking did not retrieve
        cells_all = ctx.totals.codes_all[in_row].astype(np.intp) * m + intent
        size_all = np.bincount(cells_all, minlength=ctx.n_groups * m)
        position = np.full(n, -1, dtype=np.intp)
        position[ranked_rows] = np.arange(ctx.n_rows)
        in_row = position[in_row]
        keep = in_row >= 0
        in_row, intent = in_row[keep], intent[keep]
    rank_of = np.empty(ctx.n_rows, dtype=np.intp)
    rank_of[ctx.order] = np.arange(ctx.n_rows)
    row = rank_of[in_row]
    cell = ctx.group[row].astype(np.intp) * m + intent
    p = max(row.size, 1)
    if ctx.n_groups * m * n * p < 2**62:
        # The pairs by (cell, row) from one sort of int64 values (faster than
        # an argsort): the key packs cell, row and the pair's index, unique.
        by_cell = np.sort((cell * n + row) * p + np.arange(row.size)) % p
    else:
        by_cell = np.lexsort((row, cell))
    size = np.bincount(cell, minlength=ctx.n_groups * m)
    first = np.cumsum(size) - size
    prior = np.empty(row.size, dtype=np.intp)
    prior[by_cell] = np.arange(row.size) - first[cell[by_cell]]
    if size_all is not None:
        size = size_all
    n_intents = (size.reshape(ctx.n_groups, m) > 0).sum(axis=1).astype(np.float64)
    return IntentView(row, prior, n_intents, rel_input, size[cell], intent, {})


def largest_grade(labels: np.ndarray) -> np.ndarray:
    """Per row, the largest grade over the intents: one ``maximum`` per column,
    several times faster than ``labels.max(axis=1)`` over a few columns."""
    if labels.shape[1] > 64 or not labels.shape[1]:
        return labels.max(axis=1, initial=0)
    out = labels[:, 0].copy()
    for j in range(1, labels.shape[1]):
        np.maximum(out, labels[:, j], out=out)
    return out


def _nonzero(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-D array (row-major order), from the flat indices:
    about half the time of the 2-D form."""
    return np.divmod(np.flatnonzero(a), a.shape[1])


def _decay_powers(alpha: float, top: int) -> np.ndarray:
    """``(1 - alpha) ** c`` for the counts ``c = 0 .. top``: a table read by
    index, each power the one before times ``1 - alpha`` (ndeval's repeated
    product, whose last bits ``np.power`` need not give)."""
    return _repeated_products(1.0, 1.0 - alpha, top + 1)


def _repeated_products(first, factor: float, n: int) -> np.ndarray:
    """``first * factor ** i`` for ``i < n`` (along the last axis, ``first`` a
    column of starts), each the one before times ``factor``."""
    first = np.asarray(first, dtype=np.float64)
    steps = np.full((*first.shape, n), factor)
    steps[..., 0] = first
    return np.cumprod(steps, axis=-1)


@functools.lru_cache(maxsize=16)
def _ndeval_discounts(depth: int) -> np.ndarray:
    """ndeval's ``discount``: ``log(2) / log(r + 1)`` at ranks ``1 .. depth``,
    from the C library's ``log`` (numpy's own may differ in the last bit)."""
    out = np.array([math.log(2.0) / math.log(r + 1.0) for r in range(1, depth + 1)])
    out.setflags(write=False)
    return out


def _ideal_ideal(view: IntentView, alpha: float, depth: int, per_rank) -> np.ndarray:
    """``(n_groups, depth)``: ndeval's "ideal ideal" normalisation at each
    depth, a list relevant to every one of the group's intents at every rank:
    the running sum of ``|I_q| (1 - alpha) ** (r - 1)`` at rank ``r`` divided
    by ``r`` (``per_rank`` None, ERR) or times ``per_rank[r - 1]`` (DCG), in
    ndeval's order of operations."""
    counts, at = np.unique(view.n_intents, return_inverse=True)
    return _ideal_ideal_of(counts, alpha, depth, per_rank)[at.reshape(-1)]


def _ideal_ideal_of(counts, alpha: float, depth: int, per_rank) -> np.ndarray:
    """:func:`_ideal_ideal` of lists relevant to ``counts`` intents (one row
    each)."""
    gain = _repeated_products(counts, 1.0 - alpha, max(depth, 1))
    if per_rank is None:
        gain /= np.arange(1, gain.shape[1] + 1, dtype=np.float64)
    else:
        gain *= per_rank[: gain.shape[1]]
    return np.cumsum(gain, axis=1)


def _at_depth(table: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Per group, ``table[g, depth[g] - 1]`` (0 where ``depth`` is 0)."""
    if not table.shape[1]:
        return np.zeros(table.shape[0])
    col = np.clip(depth, 1, table.shape[1]) - 1
    return table[np.arange(table.shape[0]), col]


def _running(ideal: np.ndarray, per_rank=None) -> np.ndarray:
    """The greedy ideal's gains (``(n_groups, depth)``) summed down the ranks,
    each divided by its rank (``per_rank`` None, ERR) or times ``per_rank``
    (DCG), one rank after the other as ndeval sums."""
    if per_rank is None:
        terms = ideal / np.arange(1, ideal.shape[1] + 1, dtype=np.float64)
    else:
        terms = ideal * per_rank[: ideal.shape[1]]
    return np.cumsum(terms, axis=1)


def _per_row(ctx: RankingContext, view: IntentView, weights=None, pairs=None):
    """Per ranked row, the sum of ``weights`` (or the count) over its pairs."""
    row = view.row if pairs is None else view.row[pairs]
    return np.bincount(row, weights=weights, minlength=ctx.n_rows).astype(
        np.float64, copy=False
    )


def novelty_gain(ctx: RankingContext, view: IntentView, alpha: float) -> np.ndarray:
    """Per ranked row, ``sum_i J(d, i) (1 - alpha) ** r_i``: each intent's gain
    decays with the relevant rows for it ranked above (Clarke et al., 2008).
    Summed over a row's intents in column order, as ndeval."""
    top = int(view.prior.max()) if view.prior.size else 0
    return _per_row(ctx, view, _decay_powers(alpha, top)[view.prior])


def _in_cutoff(ctx: RankingContext, k: int | None) -> np.ndarray:
    return np.ones(ctx.n_rows, dtype=bool) if k is None else ctx.rank <= k


def _result(ctx: RankingContext, view: IntentView, values: np.ndarray) -> GroupValues:
    defined = view.n_intents > 0
    return GroupValues(np.where(defined, values, np.nan), defined, ctx.group_weight())


def _depth(ctx: RankingContext, k: int | None) -> np.ndarray:
    """Per group, the cutoff of a normalisation that counts empty positions:
    ``k``, or the list length without a cutoff."""
    return ctx.length.astype(np.int64) if k is None else np.full(ctx.n_groups, k)


def greedy_ideal_gains(
    ctx: RankingContext, view: IntentView, alpha: float, depth: int
) -> np.ndarray:
    """``(n_groups, depth)``: the novelty gain at each position of ndeval's greedy
    ideal ranking (its ``idealResult``): at each position the row of largest
    marginal gain, ties to the last row in input order (ndeval: the largest
    docno). Vectorized over groups; one pass per position over the relevant
    (row, intent) pairs. Only rows relevant to some intent are candidates: an
    irrelevant row adds 0, and a relevant row always adds more than 0
    (``alpha < 1``).

    The gains are summed straight into a matrix of one row per group, its
    candidates last to first, so that one ``argmax`` per position finds every
    group's pick with the tie rule (:class:`_LastBest`)."""
    g, m = ctx.n_groups, view.rel_input.shape[1]
    out = np.zeros((g, depth))
    if not depth or (ctx.totals.ranked_rows is None and not view.row.size):
        return out
    codes = ctx.totals.codes_all
    # The candidates (rows with a relevant pair) by group, then input order,
    # and the relevant (candidate, intent) pairs, by candidate then intent.
    if ctx.totals.ranked_rows is None:
        # The view's pairs, in input row order (then intent): sorted by group
        # where the input is not already grouped (a stable sort keeps the rest).
        in_row, pair_intent = ctx.order[view.row], view.intent
        pair_grp = codes[in_row]
        if pair_grp.size > 1 and (pair_grp[1:] < pair_grp[:-1]).any():
            by_grp = np.argsort(_small_uint(pair_grp, g), kind="stable")
            in_row, pair_intent = in_row[by_grp], pair_intent[by_grp]
        new_row = np.r_[True, in_row[1:] != in_row[:-1]]
        cand = in_row[new_row]
        pair_row = np.cumsum(new_row) - 1
        grp = codes[cand]
    else:  # judged rows the ranking did not retrieve are candidates too
        cand = np.flatnonzero(view.rel_input.any(axis=1))
        if not cand.size:
            return out
        cand = cand[np.argsort(_small_uint(codes[cand], g), kind="stable")]
        rel, grp = view.rel_input[cand], codes[cand]
        pair_row, pair_intent = _nonzero(rel)
    pair_cell = grp[pair_row] * m + pair_intent
    pick = _LastBest(grp, g)
    pair_slot = pick.slot[pair_row]
    n_pairs = np.bincount(pair_row, minlength=cand.size)
    pair_first = np.cumsum(n_pairs) - n_pairs
    seen = np.zeros(g * m, dtype=np.intp)  # placed rows per (group, intent)
    powers = _decay_powers(alpha, depth)
    cell_weight = np.ones(g * m)  # (1 - alpha) ** seen, per (group, intent)
    # A placed row's pairs are summed into a spare bin past the gains: its slot
    # reads 0 like the padding. A group whose largest gain is 0 (every power
    # left underflows) adds 0 at every later position, placed or not.
    spare = pick.size
    for t in range(depth):
        weight = cell_weight[pair_cell]
        gain = np.bincount(pair_slot, weights=weight, minlength=spare + 1)[:spare]
        top, ok, rows = pick.best(gain)
        if not ok.size:
            break
        out[pick.owners[ok], t] = top
        placed = seg.ranges(pair_first[rows], n_pairs[rows])
        cells = pair_cell[placed]  # distinct: one row per group
        seen[cells] += 1
        cell_weight[cells] = powers[seen[cells]]
        pair_slot[placed] = spare
    return out


def _small_uint(x: np.ndarray, top: int) -> np.ndarray:
    """``x`` (values below ``top``) as 16-bit ints where they fit: numpy's
    stable sort of them is a linear radix sort."""
    return x.astype(np.uint16) if top <= 1 << 16 else x


# Padding cells the matrix layout of the greedy ideal may add beyond the
# candidates (a few large groups among small ones use the flat layout).
_PAD_SLACK = 4096


class _LastBest:
    """Per group, the candidate of largest gain, ties to the last (candidates
    listed by group, then input order). Candidate ``c``'s gain is read at
    ``slot[c]`` of an array of ``size``: a matrix of one row per group with a
    candidate, its candidates last to first (one ``argmax`` per position), or,
    where a few large groups would make that matrix mostly padding, the
    candidates themselves, read block by block. Placed rows and padding read
    0."""

    def __init__(self, grp: np.ndarray, n_groups: int) -> None:
        sizes = np.bincount(grp, minlength=n_groups)
        self.owners = np.flatnonzero(sizes)  # groups with a candidate, ascending
        self.sizes = sizes[self.owners]
        self.first = np.cumsum(self.sizes) - self.sizes  # each one's first candidate
        self.width = int(self.sizes.max())
        n_owners = self.owners.size
        self.padded = n_owners * self.width <= 2 * grp.size + _PAD_SLACK
        if self.padded:
            owner = np.repeat(np.arange(n_owners), self.sizes)
            within = np.arange(grp.size) - self.first[owner]
            self.slot = owner * self.width + (self.width - 1 - within)
            self.size = n_owners * self.width
        else:
            self.slot = np.arange(grp.size)
            self.size = grp.size
            self.pos = np.arange(grp.size, dtype=np.float64)

    def best(self, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The largest gains of the groups with a gain above 0, those groups
        (indices into ``owners``) and the candidates (ties to the last)."""
        if self.padded:
            matrix = gain.reshape(self.owners.size, self.width)
            col = np.argmax(matrix, axis=1)  # the first: the last candidate
            top = matrix[np.arange(self.owners.size), col]
            ok = np.flatnonzero(top > 0)
            return top[ok], ok, self.first[ok] + (self.width - 1 - col[ok])
        top = seg.block_max(gain, self.slot, self.first)
        hit = gain == np.repeat(top, self.sizes)
        last = seg.block_max(np.where(hit, self.pos, -1.0), self.slot, self.first)
        ok = np.flatnonzero(top > 0)
        return top[ok], ok, last[ok].astype(np.intp)


def _ideal_depth(ctx: RankingContext, k: int | None) -> int:
    """Positions of the greedy ideal a metric reads: the longest group (its
    unranked rows too), or ``k``."""
    # Every row of a group is a candidate of its ideal, retrieved or not.
    sizes = ctx.length if ctx.totals.ranked_rows is None else ctx.totals.size()
    longest = int(sizes.max()) if ctx.n_groups else 0
    return longest if k is None else min(k, longest)


def ideal_gains(
    ctx: RankingContext, view: IntentView, alpha: float, depth: int
) -> np.ndarray:
    """:func:`greedy_ideal_gains`, computed once per view and ``alpha`` for the
    longest depth asked: the greedy ideal is built position by position, so a
    shorter one is a prefix of a longer (alpha-nDCG, nERR-IA and nNRBP of one
    call share it)."""
    known = view.ideals.get(alpha)
    if known is None or known.shape[1] < depth:
        known = view.ideals[alpha] = greedy_ideal_gains(ctx, view, alpha, depth)
    return known[:, :depth]


def alpha_ndcg(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """alpha-nDCG@k: alpha-DCG of the ranking over that of ndeval's greedy ideal."""
    alpha = p.alpha
    depth = _ideal_depth(ctx, k)
    dcg = _alpha_dcg_sum(ctx, view, k, alpha)
    ideal = ideal_gains(ctx, view, alpha, depth)
    ideal_dcg = _at_depth(_running(ideal, _ndeval_discounts(depth)), depth_of(ctx, k))
    # ndeval divides both by the "ideal ideal" DCG at k before their ratio (the
    # ratio's last bits).
    at, top = _norm_depth(ctx, k)
    norm = _at_depth(_ideal_ideal(view, alpha, top, _ndeval_discounts(top)), at)
    ok = (ideal_dcg > 0) & (norm > 0)
    value = seg.divide(
        seg.divide(dcg, norm, ok, 0.0), seg.divide(ideal_dcg, norm, ok, 1.0), ok, np.nan
    )
    return _result(ctx, view, value)


def depth_of(ctx: RankingContext, k: int | None) -> np.ndarray:
    """Per group, the last rank a cutoff metric reads: ``k``, or every row of
    the group (its unranked rows too, as the greedy ideal's candidates)."""
    sizes = ctx.length if ctx.totals.ranked_rows is None else ctx.totals.size()
    sizes = np.asarray(sizes, dtype=np.int64)
    return sizes if k is None else np.minimum(sizes, k)


def _norm_depth(ctx: RankingContext, k: int | None) -> tuple[np.ndarray, int]:
    """Per group, the depth of the "ideal ideal" normalisation of a ratio to
    the greedy ideal (``k``, as ndeval's, whatever the list's length; without
    a cutoff :func:`depth_of`), and the deepest."""
    at = depth_of(ctx, None) if k is None else np.full(ctx.n_groups, k)
    return at, int(at.max()) if at.size else 0


def _alpha_dcg_sum(ctx: RankingContext, view: IntentView, k: int | None, alpha):
    """Per group, ``sum_{r <= k} gain_r log(2) / log(r + 1)`` (ndeval's terms)."""
    gain = novelty_gain(ctx, view, alpha)
    top = int(ctx.length.max()) if ctx.n_groups else 0
    top = top if k is None else min(k, top)
    inside = _in_cutoff(ctx, k)
    at = np.where(inside, ctx.rank, 1).astype(np.intp) - 1
    discount = _ndeval_discounts(max(top, 1))
    return ctx.group_sum(np.where(inside, gain * discount[at], 0.0))


def alpha_dcg(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """alpha-DCG@k as ndeval prints it: alpha-DCG over that of an "ideal ideal"
    list, relevant to every intent at every position down to ``k`` (ndeval's
    collection-independent normalisation; no greedy ideal)."""
    alpha = p.alpha
    depth = _depth(ctx, k)
    top = int(depth.max()) if depth.size else 0
    norm = _at_depth(_ideal_ideal(view, alpha, top, _ndeval_discounts(top)), depth)
    dcg = _alpha_dcg_sum(ctx, view, k, alpha)
    return _result(ctx, view, seg.divide(dcg, norm, norm > 0, np.nan))


def _err_ia_sum(ctx: RankingContext, view: IntentView, k: int | None, alpha: float):
    """Per group, ``sum_{p <= k} gain_p / p``: the intent-aware cascade summed
    over the intents (each intent's ERR with stop probability ``alpha``)."""
    gain = novelty_gain(ctx, view, alpha)
    return ctx.group_sum(np.where(_in_cutoff(ctx, k), gain / ctx.rank, 0.0))


def err_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """ERR-IA@k as ndeval computes it: per intent the cascade with stop
    probability ``alpha`` at each relevant row, averaged over the group's intents
    and divided by the ERR of a list relevant at every position down to ``k``
    (ndeval's "ideal ideal" normalisation)."""
    alpha = p.alpha
    depth = _depth(ctx, k)
    top = int(depth.max()) if depth.size else 0
    ok = view.n_intents > 0
    if p.shares is not None:  # sum_i P(i|q) ERR_i over one intent's series
        one = _ideal_ideal_of(np.ones(1), alpha, top, None)  # one intent's
        norm = _at_depth(np.broadcast_to(one, (ctx.n_groups, one.shape[1])), depth)
        top_prior = int(view.prior.max()) if view.prior.size else 0
        decay = _decay_powers(alpha, top_prior)[view.prior]
        gain = _per_row(ctx, view, decay * p.shares)
        err = ctx.group_sum(np.where(_in_cutoff(ctx, k), gain / ctx.rank, 0.0))
    else:
        norm = _at_depth(_ideal_ideal(view, alpha, top, None), depth)
        err = _err_ia_sum(ctx, view, k, alpha)
    return _result(ctx, view, seg.divide(err, norm, ok & (norm > 0), np.nan))


def nerr_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """nERR-IA@k as ndeval: the ranking's intent-aware ERR over that of ndeval's
    greedy ideal ranking (the one of alpha-nDCG), both cut at ``k``."""
    depth = _ideal_depth(ctx, k)
    ideal = ideal_gains(ctx, view, p.alpha, depth)
    ideal_err = _at_depth(_running(ideal), depth_of(ctx, k))
    err = _err_ia_sum(ctx, view, k, p.alpha)
    # ndeval divides both by the "ideal ideal" ERR at k before their ratio.
    at, top = _norm_depth(ctx, k)
    norm = _at_depth(_ideal_ideal(view, p.alpha, top, None), at)
    ok = (ideal_err > 0) & (norm > 0)
    value = seg.divide(
        seg.divide(err, norm, ok, 0.0), seg.divide(ideal_err, norm, ok, 1.0), ok, np.nan
    )
    return _result(ctx, view, value)


def _rbp_factor(view: IntentView, p: IntentParams) -> np.ndarray:
    """NRBP's normalisation: ``(1 - (1 - alpha) beta) / intents`` (Clarke et
    al., 2009: the largest value a list could reach is 1)."""
    ok = view.n_intents > 0
    top = np.full(view.n_intents.shape, 1.0 - (1.0 - p.alpha) * p.beta)
    return seg.divide(top, view.n_intents, ok, 0.0)


def nrbp(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """NRBP (Clarke et al., 2009) as ndeval: the novelty gain at rank ``r``
    weighted by ``beta ** (r - 1)`` (rank-biased patience), summed over the whole
    list and scaled by ``(1 - (1 - alpha) beta) / intents``."""
    return _result(ctx, view, _nrbp_sum(ctx, view, p) * _rbp_factor(view, p))


def _patience(beta: float, depth: int) -> np.ndarray:
    """``beta ** (r - 1)`` at ranks ``1 .. depth``, by repeated products."""
    return _repeated_products(1.0, beta, max(depth, 1))


def _nrbp_sum(ctx: RankingContext, view: IntentView, p: IntentParams) -> np.ndarray:
    """Per group, ``sum_r gain_r beta ** (r - 1)`` over the whole list."""
    gain = novelty_gain(ctx, view, p.alpha)
    top = int(ctx.length.max()) if ctx.n_groups else 0
    decay = _patience(p.beta, top)
    return ctx.group_sum(gain * decay[np.asarray(ctx.rank, dtype=np.intp) - 1])


def nnrbp(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """nNRBP as ndeval: NRBP over that of ndeval's greedy ideal ranking (all of
    its positions)."""
    factor = _rbp_factor(view, p)
    total = _nrbp_sum(ctx, view, p) * factor
    depth = _ideal_depth(ctx, None)
    ideal = ideal_gains(ctx, view, p.alpha, depth)
    terms = ideal * _patience(p.beta, depth)[:depth]
    ideal_total = (np.cumsum(terms, axis=1)[:, -1] if depth else 0.0) * factor
    ok = ideal_total > 0
    return _result(ctx, view, seg.divide(total, ideal_total, ok, np.nan))


def map_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """MAP-IA as ndeval: per intent, average precision over the group's rows
    relevant to it (their count the denominator), averaged over the group's
    intents; with ``k``, precision is summed over the top ``k`` only."""
    rank = ctx.rank[view.row].astype(np.float64)
    precision = (view.prior + 1.0) / rank
    if k is not None:
        precision = np.where(rank <= k, precision, 0.0)
    ok = view.n_intents > 0
    if p.shares is not None:  # sum_i P(i|q) AP_i
        precision *= p.shares / view.cell_size
        total = ctx.group_sum(_per_row(ctx, view, precision))
        return _result(ctx, view, np.where(ok, total, np.nan))
    # ndeval's sums, in its order (the last bits of a printed mean depend on
    # it): per intent, the precisions in rank order, over the intent's
    # relevant rows; then those over the group's intents in column order.
    m = view.rel_input.shape[1]
    cell = ctx.group[view.row].astype(np.intp) * m + view.intent
    count = np.bincount(cell, minlength=ctx.n_groups * m)
    at = np.cumsum(count) - count
    by_cell = np.empty_like(precision)
    by_cell[at[cell] + view.prior] = precision
    cells = np.repeat(np.arange(count.size), count)
    per_cell = np.bincount(cells, weights=by_cell, minlength=count.size)
    relevant = np.ones(count.size)
    relevant[cell] = view.cell_size
    has = np.flatnonzero(count)
    total = np.bincount(
        has // m, weights=per_cell[has] / relevant[has], minlength=ctx.n_groups
    )
    return _result(ctx, view, seg.divide(total, view.n_intents, ok, np.nan))


def precision_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """Precision-IA@k: relevant (row, intent) pairs in the top ``k`` over ``k``
    times the group's intents (a short list counts as padded, as ndeval)."""
    hits = np.where(_in_cutoff(ctx, k), _per_row(ctx, view, p.shares), 0.0)
    # sum_i P(i|q) P@k_i; uniform: the pairs over k |I_q|
    norm = _depth(ctx, k) * (1.0 if p.shares is not None else view.n_intents)
    # 0 for a group none of whose rows is retrieved (no intent: undefined).
    return _result(ctx, view, seg.divide(ctx.group_sum(hits), norm, norm > 0, 0.0))


def subtopic_recall(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """Subtopic (intent) recall@k (Zhai et al., 2003): the share of the group's
    intents with a relevant row in the top ``k``."""
    # A pair is its intent's first where no relevant row is ranked above it.
    first = _per_row(ctx, view, pairs=view.prior == 0)
    covered = ctx.group_sum(np.where(_in_cutoff(ctx, k), first, 0.0))
    ok = view.n_intents > 0
    return _result(ctx, view, seg.divide(covered, view.n_intents, ok, np.nan))


# name -> kernel(ctx, view, k, params)
INTENT_KERNELS = {
    "alpha_ndcg": alpha_ndcg,
    "alpha_dcg": alpha_dcg,
    "err_ia": err_ia,
    "nerr_ia": nerr_ia,
    "nrbp": nrbp,
    "nnrbp": nnrbp,
    "map_ia": map_ia,
    "precision_ia": precision_ia,
    "subtopic_recall": subtopic_recall,
}
# The metrics of the whole list (ndeval has no cutoff for them).
WHOLE_LIST = frozenset({"nrbp", "nnrbp"})

_VIEW = "intent_view"  # the key of a context's view in its scored cache
_SHARES = "intent_shares"  # and of its pairs' P(i|q), when weights are given
# The metrics with a definition over intent weights P(i|q) (Agrawal et al.,
# 2009: sum_i P(i|q) M_i); the others (novelty gains, greedy ideals, intent
# coverage) have none.
WEIGHTED = frozenset({"err_ia", "precision_ia", "map_ia"})


def intent_shares(
    ctx: RankingContext, view: IntentView, weights: np.ndarray
) -> np.ndarray:
    """Per relevant pair (in the view's order), ``P(i|q)``: its intent's weight
    in ``weights`` (``(n_groups, n_intents)``, >= 0) over the sum of the
    weights of its group's intents (those with a relevant row). A group whose
    intents all weigh 0 gets shares of 0 (the caller refuses it). A group's
    intents come from every row, ranked or not (as the view's ``n_intents``);
    the shares from the view's pairs, ranked rows only."""
    m = view.rel_input.shape[1]
    in_row, intent = _nonzero(view.rel_input)  # every relevant pair, any row
    cells = np.zeros(ctx.n_groups * m, dtype=bool)
    cells[ctx.totals.codes_all[in_row].astype(np.intp) * m + intent] = True
    total = (weights * cells.reshape(ctx.n_groups, m)).sum(axis=1)
    ok = total > 0
    group = ctx.group[view.row].astype(np.intp)
    return seg.divide(weights[group, view.intent], total[group], ok[group], 0.0)


def attach_intent_shares(
    ctx: RankingContext, view: IntentView, weights: np.ndarray
) -> np.ndarray:
    """:func:`intent_shares` kept with the context's scores, where the metric
    table's kernels read them."""
    return ctx.totals.cached_scored(_SHARES, lambda: intent_shares(ctx, view, weights))


def attach_intent_view(ctx: RankingContext, rel_input: np.ndarray) -> IntentView:
    """The view of ``rel_input`` (``(n_rows, n_intents)`` 0/1, input order) on
    ``ctx``, made once and kept with the context's scores, where the metric
    table's kernels (:data:`TABLE_KERNELS`) read it."""
    return ctx.totals.cached_scored(_VIEW, lambda: intent_view(ctx, rel_input))


def _no_view() -> IntentView:
    raise ValueError(
        "an intent-aware metric needs a 2-D y_true of shape (n_samples, "
        "n_intents); use evaluate, evaluate_intents or a scorer."
    )


def _from_table(kernel):
    """``kernel(ctx, view, k, params)`` as the metric table calls a kernel:
    ``(ctx, k, opts)``, the view attached to ``ctx``, alpha and beta from
    ``opts``."""

    def run(ctx: RankingContext, k: int | None, opts) -> GroupValues:
        view = ctx.totals.cached_scored(_VIEW, _no_view)
        shares = ctx.totals.cached_scored(_SHARES, lambda: None)
        return kernel(ctx, view, k, IntentParams(opts.alpha, opts.beta, shares))

    run.__name__ = run.__qualname__ = kernel.__name__
    run.__doc__ = kernel.__doc__
    return run


# name -> kernel(ctx, k, opts), the metric table's form of INTENT_KERNELS.
TABLE_KERNELS = {name: _from_table(kernel) for name, kernel in INTENT_KERNELS.items()}
