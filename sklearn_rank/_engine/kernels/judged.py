"""Metrics of judged rows: judged@k (the judged share of the top k) and bpref
(relevant rows ranked above judged non-relevant ones)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from .arrays import as_operand
from .base import GroupValues, cutoff_position, defined_if_relevant

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


def judged_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """The share of the top k that is judged, ``J_k / min(k, n)`` (ir_measures'
    ``Judged@k``, reported by the TREC Deep Learning tracks). Linear in the rows:
    a tied row counts with the share of its block inside the cutoff. Defined
    where the group ranks at least one row; relevance plays no part."""
    top = cutoff_position(ctx, k)
    head = ctx.head(top)
    xp, f = ctx.xp, ctx.float
    share = head.in_top(top)
    if head.judged is not None:
        share *= as_operand(xp, head.judged, f)
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
    n_rel = xp.astype(ctx.n_relevant(threshold), f)
    n_non = as_operand(xp, ctx.n_judged_non_relevant(threshold), f)
    scale = xp.maximum(xp.minimum(n_non, n_rel), 1.0)
    blocks = ctx.blocks
    if not blocks:  # the terms at the relevant rows only (the others add 0)
        group = seg.take(ctx.group, seg.flatnonzero(rel))
        above = ctx.group_count_before(non_rel, rel)
        term = 1.0 - xp.minimum(above, n_rel[group]) / scale[group]
        total = ctx.group_sum(term, group)
        return defined_if_relevant(ctx, total / xp.maximum(n_rel, 1.0), opts)
    non_rel_f = xp.astype(non_rel, f)
    above = ctx.group_exclusive_cumsum(non_rel_f)
    term = xp.where(
        rel, 1.0 - xp.minimum(above, n_rel[ctx.group]) / scale[ctx.group], 0.0
    )
    term = seg.put(term, blocks.rows, 0.0)
    b = blocks.sum(non_rel_f)
    r = blocks.sum(xp.astype(rel, f))
    cap = n_rel[blocks.group]
    mean_min = _sum_of_min(above[blocks.start], b + 1, cap) / (b + 1)
    contrib = r * (1.0 - mean_min / scale[blocks.group])
    total = ctx.group_sum(term) + ctx.group_sum(contrib, blocks.group)
    return defined_if_relevant(ctx, total / xp.maximum(n_rel, 1.0), opts)
