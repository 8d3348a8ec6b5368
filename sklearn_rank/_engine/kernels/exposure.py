"""Exposure under a browsing model, for the fairness-of-exposure metrics.

A user reading a ranking under rank-biased precision's model (Moffat and Zobel,
2008) reaches rank ``r`` with probability ``patience ** (r - 1)``: that is the
exposure of the row placed there. Rows of equal score get the mean over their tie
block's positions, the expectation under a uniformly random order of the block
(the engine's ``ties="average"`` rule). Ranked by the labels themselves, that rule
gives the target exposure of Diaz et al. (2020): rows of the same grade share the
exposure of the positions their grade occupies in an ideal ranking.

Under the cascade model of Chapelle et al. (2009) as Diaz's ``expeval`` reads it
(``-u gerr``), the reader also stops after each relevant row with probability
``stop``: the row at rank ``r`` gets ``patience ** (r - 1) * (1 - stop) ** c``,
``c`` the relevant rows above it, and a tie's expectation depends on how many of
the block's relevant rows precede each row (:func:`row_cascade_exposure`).

Attention-weighted rank fairness (Sapiezynski et al., 2019, as the TREC Fair
Ranking track 2021 and 2022 evaluates it) reads the attention of a rank from a
DCG discount instead, sums it per item group and compares the share of each item
group with a target distribution by the Jensen-Shannon divergence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import rel_entr

from .. import segments as seg
from .gain_discount import position_discount
from .intent_ties import geometric_block_sums

if TYPE_CHECKING:
    from ..context import RankingContext


def row_exposure(ctx: RankingContext, patience: float) -> np.ndarray:
    """Per ranked input row (in input order), ``patience ** (rank - 1)`` averaged
    over the row's tie block."""
    ranked = ctx.block_mean(np.power(patience, ctx.rank - 1.0))
    out = np.empty(ctx.n_rows, dtype=np.float64)
    out[ctx.order] = ranked
    return out


def row_cascade_exposure(
    ctx: RankingContext, patience: float, stop: float
) -> np.ndarray:
    """Per ranked input row (in input order), the exposure under the cascade
    browsing model (expeval's ``gerr``): ``patience ** (rank - 1) * (1 - stop)
    ** c``, ``c`` the relevant rows (label > 0) ranked above it in its group,
    in expectation over uniformly random orders of its tie block.

    In a block of ``b`` rows, ``K`` relevant, the relevant rows share the
    block's expected sum over its relevant rows and the others the rest
    (:func:`.intent_ties.geometric_block_sums`); the relevant rows before the
    block are the same in every order of it."""
    x = 1.0 - stop
    rel = ctx.relevant(None)
    above = ctx.group_exclusive_cumsum(rel.astype(np.float64))
    ranked = np.power(patience, ctx.rank - 1.0) * np.power(x, above)
    if ctx.blocks:
        b = ctx.blocks
        size = np.asarray(b.size).astype(np.int64)
        count = np.rint(b.sum(rel.astype(np.float64))).astype(np.int64)
        args = (count, above[b.start], size, np.asarray(b.rank), patience, x)
        on_rel = geometric_block_sums(*args, relevant=True)
        on_other = geometric_block_sums(*args, relevant=False)
        share_rel = on_rel / np.maximum(count, 1)
        share_other = on_other / np.maximum(size - count, 1)
        ranked[b.rows] = np.where(
            rel[b.rows], b.spread(share_rel), b.spread(share_other)
        )
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


def row_attention(ctx: RankingContext, discount, k: int | None) -> np.ndarray:
    """Per ranked input row (in input order), the ``discount`` of its rank (0
    below rank ``k``), averaged over the row's tie block."""
    weight = position_discount(ctx.rank, discount)
    if k is not None:
        weight = np.where(ctx.rank <= k, weight, 0.0)
    out = np.empty(ctx.n_rows, dtype=np.float64)
    out[ctx.order] = ctx.block_mean(weight)
    return out


def group_attention(
    attention: np.ndarray, alignment: np.ndarray, codes: np.ndarray, n_groups: int
) -> np.ndarray:
    """``(n_groups, n_item_groups)``: per query, the attention of its rows summed
    per item group, a row's attention split by its ``alignment`` row (its
    membership in each item group)."""
    c = alignment.shape[1]
    cells = (codes.astype(np.intp)[:, None] * c + np.arange(c)).ravel()
    weights = (attention[:, None] * alignment).ravel()
    return np.bincount(cells, weights=weights, minlength=n_groups * c).reshape(
        n_groups, c
    )


def awrf(exposure: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per query, ``1 - JSD(p, q)``: ``p`` the exposure per item group as a
    distribution (uniform where a query's rows have no attention on any item
    group, as the track's script), ``q`` the target (rows of ``target``, one per
    query, each summing to 1), JSD the Jensen-Shannon divergence in nats
    (scipy's ``jensenshannon`` squared)."""
    total = exposure.sum(axis=1, keepdims=True)
    none = total[:, 0] <= 0
    share = np.where(none[:, None], 1.0 / exposure.shape[1], exposure)
    share = share / np.where(none[:, None], 1.0, total)
    mid = (share + target) / 2.0
    divergence = (
        rel_entr(share, mid).sum(axis=1) + rel_entr(target, mid).sum(axis=1)
    ) / 2.0
    return 1.0 - divergence
