"""Metrics that weight the positions of the rows: average relevant position
(ARP) and rank-biased precision (RBP, persistence ``p``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from .arrays import as_operand
from .base import GroupValues, cutoff_position, defined_if_relevant
from .gain_discount import judged_gain_result

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


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
    k = cutoff_position(ctx, k)
    ctx = ctx.head(k)
    xp = ctx.xp
    p = opts.persistence
    weight = xp.pow(p, as_operand(xp, ctx.rank, ctx.float) - 1.0)
    if k is not None:
        weight[ctx.rank > k] = 0.0
    weight = ctx.block_mean(weight)
    weight *= ctx.y / opts.max_grade
    if opts.gain_rows == "judged":  # trec_eval: judged gains; -l plays no part
        if ctx.judged is not None:
            weight *= as_operand(xp, ctx.judged, ctx.float)
        return judged_gain_result(ctx, None, (1.0 - p) * ctx.group_sum(weight), opts)
    return defined_if_relevant(ctx, (1.0 - p) * ctx.group_sum(weight), opts)
