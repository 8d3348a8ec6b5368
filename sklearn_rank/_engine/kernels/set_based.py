"""Metrics of the retrieved set: F1@k (from precision's and recall's
denominators) and fall-out (non-relevant rows retrieved)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from .arrays import as_operand
from .base import GroupValues, cutoff_position, defined_if_relevant
from .cumulative import hits_in_top, precision_denominator_of, recall_denominator_of

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


def f1_at_k(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[F1@k], the harmonic mean of P@k = H/D and R@k = H/R (0 when H = 0).

    ``2 (H/D)(H/R) / (H/D + H/R) = 2H / (D + R)`` for ``H > 0``, and the right-hand
    side is also 0 at ``H = 0``. ``D`` (k, min(k, n) or n) and ``R`` (R or
    min(k, R), per ``recall_denominator``) do not depend
    on the order of tied rows, so F1 is linear in the hit count H and
    ``E[F1] = 2 E[H] / (D + R)``. That equals the harmonic mean of E[P] and E[R]
    only because both are linear in the same H; it is not true of F1 in general.
    """
    top = cutoff_position(ctx, k)
    hits = hits_in_top(ctx.head(top), top, opts)
    denom = precision_denominator_of(ctx, k, opts)  # a new array: added to below
    denom += as_operand(ctx.xp, recall_denominator_of(ctx, k, opts), ctx.float)
    values = seg.divide(2.0 * hits, denom, denom > 0, 0.0)
    return defined_if_relevant(ctx, values, opts)


def _n_non_relevant(ctx: RankingContext, threshold: float | None) -> np.ndarray:
    """Non-relevant rows per group, retrieved or not."""

    def count() -> np.ndarray:
        size = seg.segment_count(ctx.totals.codes_all, ctx.n_groups)
        return size - ctx.n_relevant(threshold)

    return ctx.totals.cached(("N", threshold), count)


def fallout(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """E[non-relevant rows at positions <= k] / N, N the group's non-relevant rows
    (retrieved or not). Linear in the rows, so tied rows count with the share of
    their block inside the cutoff. Defined where N > 0 (a group without relevant
    rows is defined: fall-out is the recall of the non-relevant rows)."""
    k = cutoff_position(ctx, k)
    head = ctx.head(k)
    xp, f = ctx.xp, ctx.float
    share = head.in_top(k)
    share *= as_operand(xp, ~head.relevant(opts.relevance_threshold), f)
    false_pos = head.group_sum(share)
    n_non = _n_non_relevant(ctx, opts.relevance_threshold)
    defined = n_non > 0
    values = seg.divide(false_pos, as_operand(xp, n_non, f), defined, np.nan)
    return GroupValues(values, defined, ctx.group_weight())
