"""Fairness of exposure: how a ranking (or a distribution of rankings) spreads
the attention of a user over the rows of each group. The browsing model and the
per-group sums live in ``_engine/kernels/exposure.py``; see ``docs/diversity.md``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.context import GroupTotals, RankingContext
from .._engine.kernels.exposure import exposure_terms, row_exposure
from .._engine.reduce import mean_over_groups
from .._utils.params import Interval, check_param, param_error
from .validation import check_inputs

__all__ = ["expected_exposure", "exposure_by_item_group"]

_PATIENCE = (Interval(numbers.Real, 0, 1, closed="both"),)


def _draws(y_score: Any, func: str) -> np.ndarray:
    """The scores as ``(n_samples, n_draws)``: one column per sampled ranking."""
    try:
        s = np.asarray(y_score, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "y_score", func, "a numeric array", type(y_score).__name__
        ) from None
    if s.ndim == 1:
        s = s[:, None]
    if s.ndim != 2 or s.shape[1] < 1:
        raise param_error(
            "y_score",
            func,
            "an array of shape (n_samples,) or (n_samples, n_rankings)",
            f"an array of shape {np.shape(y_score)}",
            "Give one column per sampled ranking of a stochastic ranker.",
        )
    if not np.isfinite(s).all():
        raise param_error("y_score", func, "finite scores", "NaN or inf")
    return s


def _mean_exposure(totals: GroupTotals, scores: np.ndarray, patience: float):
    """Per input row, the exposure averaged over the sampled rankings."""
    out = np.zeros(scores.shape[0])
    for j in range(scores.shape[1]):  # one ordering per sampled ranking
        out += row_exposure(RankingContext.from_scores(totals, scores[:, j]), patience)
    return out / scores.shape[1]


def expected_exposure(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    patience: float = 0.5,
    sample_weight: ArrayLike | None = None,
) -> dict[str, float]:
    """Expected exposure (Diaz et al., 2020): the attention a ranker gives each row,
    against the attention a fair ideal ranker would give it.

    A user reads rank ``r`` with probability ``patience ** (r - 1)`` (the browsing
    model of rank-biased precision); that is the exposure of the row placed
    there, averaged over the sampled rankings of a stochastic ranker (the columns
    of a 2-D ``y_score``) and over the positions of a tie. The target exposure
    of a row is that of its grade's positions in an ideal ranking, shared
    equally by the rows of the grade (every ideal ranking equally likely).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance grades.
    y_score : array-like of shape (n_samples,) or (n_samples, n_rankings)
        Scores of one ranking, or one column per sampled ranking.
    groups : array-like of shape (n_samples,)
        Query id of each row; the exposure is spread over the rows of a query.
    patience : float, default=0.5
        Probability in [0, 1] of reading on to the next rank.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a query weighs the mean of its rows' weights.

    Returns
    -------
    scores : dict of str to float
        Means over queries of the sums over each query's rows: ``"ee_l"`` the
        squared distance of the exposure from the target (lower is better; 0
        for a fair ideal ranker), ``"ee_d"`` the squared norm of the exposure
        (disparity: lower spreads attention more evenly), ``"ee_r"`` the inner
        product of exposure and target (relevance: higher is better).
        ``ee_l = ee_d - 2 ee_r + |target|^2`` per query.

    Examples
    --------
    >>> from sklearn_rank import expected_exposure
    >>> # Two relevant rows: the target gives each (1 + 0.5) / 2 = 0.75, and the
    >>> # third row 0.25. One ranking gives them 1, 0.5, 0.25:
    >>> y_true = [1, 1, 0]
    >>> one = expected_exposure(y_true, [3, 2, 1], groups=[0, 0, 0])
    >>> one["ee_l"]  # 0.25**2 + 0.25**2 + 0**2
    0.125
    >>> # A ranker that swaps the two relevant rows half of the time is fair.
    >>> both = expected_exposure(y_true, [[3, 2], [2, 3], [1, 1]], groups=[0, 0, 0])
    >>> both["ee_l"]
    0.0
    """
    func = "expected_exposure"
    patience = float(check_param(patience, "patience", func, _PATIENCE))
    scores = _draws(y_score, func)
    inputs = check_inputs(
        func, y_true, scores[:, 0], groups, sample_weight, None, host=True
    )
    totals = GroupTotals.from_inputs(
        inputs.y_true,
        inputs.codes,
        inputs.n_groups,
        ties="average",
        sample_weight=inputs.sample_weight,
    )
    target = row_exposure(RankingContext.from_scores(totals, inputs.y_true), patience)
    exposure = _mean_exposure(totals, scores, patience)
    terms = exposure_terms(exposure, target, inputs.codes, inputs.n_groups)
    weight = totals.group_weight()
    every = np.ones(inputs.n_groups, dtype=bool)
    return {
        name: mean_over_groups(values, every, weight, "skip", name, inputs.group_ids)
        for name, values in terms.items()
    }


def exposure_by_item_group(
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    item_groups: ArrayLike,
    patience: float = 0.5,
) -> dict[Any, float]:
    """Mean exposure of a row of each item group (a provider, a category), over
    every query: the attention each item group gets per item ranked.

    The exposure of a row is that of :func:`expected_exposure`
    (``patience ** (r - 1)`` at rank ``r``, averaged over ties and over the
    sampled rankings of a 2-D ``y_score``). Demographic parity of exposure
    (Singh and Joachims, 2018) holds when every item group gets the same mean;
    the ratio of the largest to the smallest is a common disparity summary.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,) or (n_samples, n_rankings)
        Scores of one ranking, or one column per sampled ranking.
    groups : array-like of shape (n_samples,)
        Query id of each row.
    item_groups : array-like of shape (n_samples,)
        The item group of each row.
    patience : float, default=0.5
        Probability in [0, 1] of reading on to the next rank.

    Returns
    -------
    exposure : dict
        Item group -> mean exposure of its rows, item groups sorted.

    Examples
    --------
    >>> from sklearn_rank import exposure_by_item_group
    >>> exposure_by_item_group(
    ...     [3, 2, 1, 0], groups=[0, 0, 0, 0], item_groups=["a", "b", "a", "b"]
    ... )
    {'a': 0.625, 'b': 0.3125}
    """
    func = "exposure_by_item_group"
    patience = float(check_param(patience, "patience", func, _PATIENCE))
    scores = _draws(y_score, func)
    n = scores.shape[0]
    inputs = check_inputs(
        func, np.zeros(n), scores[:, 0], groups, None, None, host=True
    )
    kinds = np.asarray(item_groups)
    if kinds.ndim != 1 or kinds.shape[0] != n:
        raise param_error(
            "item_groups",
            func,
            f"one item group per row: shape ({n},)",
            f"an array of shape {kinds.shape}",
        )
    totals = GroupTotals.from_inputs(
        inputs.y_true, inputs.codes, inputs.n_groups, ties="average"
    )
    exposure = _mean_exposure(totals, scores, patience)
    names, codes = np.unique(kinds, return_inverse=True)
    total = seg.segment_sum(codes, exposure, names.size)
    count = seg.segment_count(codes, names.size)
    return {
        name.item() if hasattr(name, "item") else name: float(t / c)
        for name, t, c in zip(names, total, count, strict=True)
    }
