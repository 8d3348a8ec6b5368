"""Metrics of pairs of rows: AUC (pooled over groups), GAUC (per group) and
pairwise accuracy (pairs of different labels), all from one Mann-Whitney count
per group, tied pairs credited by half."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from .arrays import as_operand, sorted_levels
from .base import GroupValues

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


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
    credit, w_pos, w_neg = _auc_parts(
        pooled, w * as_operand(xp, rel, f), w * as_operand(xp, ~rel, f)
    )
    defined = (w_pos > 0) & (w_neg > 0)
    values = seg.divide(credit, w_pos * w_neg, defined, np.nan)
    return GroupValues(values, defined, xp.ones(1, dtype=f, device=dev))


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
    levels = sorted_levels(ctx.y)
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
