"""Interpolated precision at recall levels and trec_eval's 11-point average
(``iprec_at_recall``, ``11pt_avg``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from .arrays import as_operand, count_true, maximum_at
from .base import GroupValues, defined_if_relevant

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


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
    precision = as_operand(xp, nth, f) / as_operand(xp, ctx.rank[hits], f)
    nth = as_operand(xp, nth, f)  # compared with float thresholds below
    fixed = xp.ones(hits.shape[0], dtype=xp.bool, device=dev)
    blocks = ctx.blocks
    any_mixed = False
    if blocks:
        r = blocks.sum(xp.astype(rel, f))
        mixed = (r > 0) & (r < as_operand(xp, blocks.size, f))
        any_mixed = bool(xp.any(mixed))
        in_mixed = xp.zeros(ctx.n_rows, dtype=xp.bool, device=dev)
        in_mixed = seg.put(in_mixed, blocks.rows, blocks.spread(mixed))
        fixed = ~in_mixed[hits]
        c0 = xp.searchsorted(hits, blocks.start) - first_hit[blocks.group]
        last = (as_operand(xp, c0, f) + r)[mixed]
        a, m, b_group = blocks.rank[mixed], blocks.size[mixed], blocks.group[mixed]
        best = last / (as_operand(xp, a, f) + r[mixed] - 1)
        worst = last / as_operand(xp, a + m - 1, f)
    n_rel = as_operand(xp, ctx.n_relevant(threshold), f)
    out = []
    for level in levels:
        need = xp.maximum(xp.floor(level * n_rel + 0.5), 1)  # lround, as C's
        keep = fixed & (nth >= need[hit_group])
        value = seg.segment_max(hit_group[keep], precision[keep], n, 0.0)
        if any_mixed:
            counted = last >= need[b_group]
            value = maximum_at(value, b_group[counted], worst[counted])
            top = seg.segment_max(b_group[counted], best[counted], n, 0.0)
            random = top > value
            # Under ties="threshold" a block is read at its end only: the value
            # is max(F, worst of each block), with nothing random.
            if not ctx.thresholds and bool(xp.any(random)):
                raise ValueError(
                    f"{func} with ties='average': in {count_true(random)} group(s) "
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
    return defined_if_relevant(ctx, values, opts)


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
    return defined_if_relevant(ctx, total / len(levels), opts)
