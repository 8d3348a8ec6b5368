"""Intent-aware (diversity) metrics over relevance per (row, intent): alpha-nDCG
with ndeval's greedy ideal, ERR-IA, precision-IA and subtopic (intent) recall.

Judgements are binary per intent (grade > 0, as ndeval reads its qrels). A
group's intents are the columns with a relevant row in the group (ndeval's
"actual subtopics"); a group with none is undefined. numpy only for now.

The rows come in the context's one ordering (``ctx.order``); the running count of
earlier relevant rows per (group, intent) is one exclusive running sum over the
rows x intents, each (intent, group) pair a segment of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .. import segments as seg
from .base import GroupValues
from .gain_discount import position_discount

if TYPE_CHECKING:
    from ..context import RankingContext


class IntentView(NamedTuple):
    """Intent relevance of the ranked rows of one context."""

    rel: np.ndarray  # (n_rows, n_intents) int8 0/1, in ranked order
    prior: np.ndarray  # (n_rows, n_intents) relevant rows above, same group
    n_intents: np.ndarray  # (n_groups,) intents with a relevant row
    rel_input: np.ndarray  # (n_rows, n_intents) int8 0/1, in input order


def intent_view(ctx: RankingContext, rel_input: np.ndarray) -> IntentView:
    """The intent labels (binary, input order) laid out in the context's order,
    with the per-(group, intent) exclusive running counts and intent counts."""
    rel = rel_input[ctx.order]
    prior, per_intent = seg.exclusive_cumsum_columns(rel, ctx.group, ctx.starts)
    n_intents = (per_intent > 0).sum(axis=1).astype(np.float64)
    return IntentView(rel, prior, n_intents, rel_input)


def _decay_powers(alpha: float, top: int) -> np.ndarray:
    """``(1 - alpha) ** c`` for the counts ``c = 0 .. top``: a table read by index."""
    return np.power(1.0 - alpha, np.arange(top + 1, dtype=np.float64))


def novelty_gain(rel: np.ndarray, prior: np.ndarray, alpha: float) -> np.ndarray:
    """Per row, ``sum_i J(d, i) (1 - alpha) ** r_i``: each intent's gain decays
    with the relevant rows for it ranked above (Clarke et al., 2008)."""
    counts = prior.astype(np.intp, copy=False)
    powers = _decay_powers(alpha, int(counts.max()) if counts.size else 0)
    return (rel * powers[counts]).sum(axis=1)


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
    (``alpha < 1``)."""
    g, m = ctx.n_groups, view.rel_input.shape[1]
    out = np.zeros((g, depth))
    codes = ctx.totals.codes_all
    cand = np.flatnonzero(view.rel_input.any(axis=1))
    if not cand.size or not depth:
        return out
    # Candidates by group, then input order: each group's a contiguous run.
    cand = cand[np.argsort(codes[cand], kind="stable")]
    rel, grp = view.rel_input[cand], codes[cand]
    sizes = np.bincount(grp, minlength=g)
    owners = np.flatnonzero(sizes)  # groups with a candidate, ascending
    starts = np.r_[0, np.cumsum(sizes[owners])[:-1]]
    every = np.arange(cand.size)
    pos = every.astype(np.float64)
    # The relevant (candidate, intent) pairs, by candidate.
    pair_row, pair_intent = np.nonzero(rel)
    pair_cell = grp[pair_row] * m + pair_intent
    seen = np.zeros(g * m, dtype=np.intp)  # placed rows per (group, intent)
    powers = _decay_powers(alpha, depth)
    taken = np.zeros(cand.size, dtype=bool)
    for t in range(depth):
        weight = powers[seen[pair_cell]]
        gain = np.bincount(pair_row, weights=weight, minlength=cand.size)
        gain[taken] = -1.0
        best = seg.block_max(gain, every, starts)
        hit = (gain == np.repeat(best, sizes[owners])) & ~taken
        last = seg.block_max(np.where(hit, pos, -1.0), every, starts)
        ok = last >= 0
        if not ok.any():
            break
        rows = last[ok].astype(np.intp)
        out[owners[ok], t] = best[ok]
        taken[rows] = True
        seen.reshape(g, m)[owners[ok]] += rel[rows].astype(np.intp)
    return out


def alpha_ndcg(
    ctx: RankingContext, view: IntentView, k: int | None, alpha: float
) -> GroupValues:
    """alpha-nDCG@k: alpha-DCG of the ranking over that of ndeval's greedy ideal."""
    gain = novelty_gain(view.rel, view.prior, alpha)
    term = np.where(_in_cutoff(ctx, k), gain * position_discount(ctx.rank), 0.0)
    dcg = ctx.group_sum(term)
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    depth = longest if k is None else min(k, longest)
    ideal = greedy_ideal_gains(ctx, view, alpha, depth)
    ideal_dcg = ideal @ position_discount(np.arange(1, depth + 1))
    return _result(ctx, view, seg.divide(dcg, ideal_dcg, ideal_dcg > 0, np.nan))


def err_ia(
    ctx: RankingContext, view: IntentView, k: int | None, alpha: float
) -> GroupValues:
    """ERR-IA@k as ndeval computes it: per intent the cascade with stop
    probability ``alpha`` at each relevant row, averaged over the group's intents
    and divided by the ERR of a list relevant at every position down to ``k``
    (ndeval's "ideal ideal" normalisation)."""
    gain = novelty_gain(view.rel, view.prior, alpha)
    term = np.where(_in_cutoff(ctx, k), gain / ctx.rank, 0.0)
    depth = _depth(ctx, k)
    top = int(depth.max()) if depth.size else 0
    p = np.arange(1, top + 1, dtype=np.float64)
    series = np.cumsum(np.power(1.0 - alpha, p - 1.0) / p)
    norm = view.n_intents * series[np.maximum(depth, 1) - 1] if top else view.n_intents
    ok = view.n_intents > 0
    return _result(ctx, view, seg.divide(ctx.group_sum(term), norm, ok, np.nan))


def precision_ia(
    ctx: RankingContext, view: IntentView, k: int | None, alpha: float
) -> GroupValues:
    """Precision-IA@k: relevant (row, intent) pairs in the top ``k`` over ``k``
    times the group's intents (a short list counts as padded, as ndeval)."""
    hits = np.where(_in_cutoff(ctx, k), view.rel.sum(axis=1), 0.0)
    norm = view.n_intents * _depth(ctx, k)
    ok = view.n_intents > 0
    return _result(ctx, view, seg.divide(ctx.group_sum(hits), norm, ok, np.nan))


def subtopic_recall(
    ctx: RankingContext, view: IntentView, k: int | None, alpha: float
) -> GroupValues:
    """Subtopic (intent) recall@k (Zhai et al., 2003): the share of the group's
    intents with a relevant row in the top ``k``."""
    # A row is an intent's first relevant row where none is ranked above it.
    first = (view.rel > 0) & (view.prior == 0) & _in_cutoff(ctx, k)[:, None]
    covered = ctx.group_sum(first.sum(axis=1).astype(np.float64))
    ok = view.n_intents > 0
    return _result(ctx, view, seg.divide(covered, view.n_intents, ok, np.nan))


# name -> kernel(ctx, view, k, alpha)
INTENT_KERNELS = {
    "alpha_ndcg": alpha_ndcg,
    "err_ia": err_ia,
    "precision_ia": precision_ia,
    "subtopic_recall": subtopic_recall,
}
