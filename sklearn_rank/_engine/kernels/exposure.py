"""Exposure under a browsing model, for the fairness-of-exposure metrics.

A user reading a ranking under rank-biased precision's model (Moffat and Zobel,
2008) reaches rank ``r`` with probability ``patience ** (r - 1)``: that is the
exposure of the row placed there. Rows of equal score get the mean over their tie
block's positions, the expectation under a uniformly random order of the block
(the engine's ``ties="average"`` rule). Ranked by the labels themselves, that rule
gives the target exposure of Diaz et al. (2020): rows of the same grade share the
exposure of the positions their grade occupies in an ideal ranking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg

if TYPE_CHECKING:
    from ..context import RankingContext


def row_exposure(ctx: RankingContext, patience: float) -> np.ndarray:
    """Per ranked input row (in input order), ``patience ** (rank - 1)`` averaged
    over the row's tie block."""
    ranked = ctx.block_mean(np.power(patience, ctx.rank - 1.0))
    out = np.empty(ctx.n_rows, dtype=np.float64)
    out[ctx.order] = ranked
    return out


def exposure_terms(
    exposure: np.ndarray, target: np.ndarray, codes: np.ndarray, n_groups: int
) -> dict[str, np.ndarray]:
    """Per group, Diaz et al.'s three sums over its rows: ``ee_l`` the squared
    distance of the exposure from the target, ``ee_d`` the squared norm of the
    exposure (disparity), ``ee_r`` their inner product (relevance);
    ``ee_l = ee_d - 2 ee_r + |target|^2``."""

    def per_group(values: np.ndarray) -> np.ndarray:
        return seg.segment_sum(codes, values, n_groups)

    return {
        "ee_l": per_group((exposure - target) ** 2),
        "ee_d": per_group(exposure**2),
        "ee_r": per_group(exposure * target),
    }
