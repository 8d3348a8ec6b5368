"""What every kernel shares: its result, the cutoff as a position, and the
result defined where a group has a relevant row."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


class GroupValues(NamedTuple):
    """What every kernel returns, one entry per group."""

    values: np.ndarray  # the metric value; NaN where undefined
    defined: np.ndarray  # whether the group enters the mean
    weight: np.ndarray  # the group's weight in the mean


def defined_if_relevant(
    ctx: RankingContext, values: np.ndarray, opts: Options
) -> GroupValues:
    """``values`` where the group has a relevant row (the rule of the binary
    metrics: precision, recall, AP, ...), NaN and left out of the mean elsewhere."""
    xp = ctx.xp
    defined = ctx.n_relevant(opts.relevance_threshold) > 0
    return GroupValues(xp.where(defined, values, xp.nan), defined, ctx.group_weight())


def unrouted_option(option: str, value: object) -> ValueError:
    # A value no branch knows must never fall into another's branch.
    return ValueError(f"No finisher branch for {option}={value!r}: add one.")


def cutoff_position(ctx: RankingContext, k):
    """The cutoff as a position: a ``k`` beyond every list is capped at the number
    of rows (any ``k`` is valid; only precision's ``k`` denominator needs the real
    value), so position arithmetic never overflows. ``k`` may be an array of
    cutoffs (the cutoff axis)."""
    if k is None:
        return None
    cap = max(ctx.totals.y_all.shape[0], 1)
    return np.minimum(k, cap) if isinstance(k, np.ndarray) else min(k, cap)
