"""Counterfactual (inverse-propensity) estimates of a new ranking's click metric."""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._metrics.validation import check_numeric
from .._utils.params import Interval, IsNone, StrOptions, check_param, param_error
from ..stats._bootstrap import bootstrap_distribution, confidence_interval
from ..stats._inputs import (
    CI_METHODS,
    check_choice,
    check_level,
    check_random_state,
    check_resamples,
)
from ._inputs import (
    check_clicks,
    check_log,
    check_position,
    check_propensity,
    check_same_length,
    rank_within_groups,
)

ESTIMATORS = ("ips", "clipped_ips", "snips")
_METRIC = re.compile(r"^(clicks|dcg|rr)(?:@([1-9][0-9]*))?$")


@dataclass(frozen=True)
class IPSEstimate:
    """The result of :func:`ips_estimate`.

    Attributes
    ----------
    value : float
        The estimate: the weighted mean of ``per_group`` over defined groups.
    per_group : ndarray of shape (n_groups,)
        The estimate of each group (NaN where undefined: ``"snips"`` groups
        without a click), aligned with ``group_ids`` (sorted).
    weights : ndarray of shape (n_groups,)
        Each group's weight in ``value``.
    group_ids : ndarray of shape (n_groups,)
    ci : tuple of float or None
        ``(low, high)`` bootstrap interval over groups when asked for.
    standard_error : float
        The bootstrap standard error (NaN without an interval).
    metric, estimator : str
    """

    value: float
    per_group: np.ndarray
    weights: np.ndarray
    group_ids: np.ndarray
    ci: tuple[float, float] | None
    standard_error: float
    metric: str
    estimator: str


def parse_metric(metric: Any, func: str) -> tuple[str, int | None]:
    match = _METRIC.match(metric) if isinstance(metric, str) else None
    if match is None:
        raise param_error(
            "metric",
            func,
            'one of "clicks@k", "dcg@k", "rr" (k a positive int; no @k: the whole '
            "list)",
            metric,
        )
    k = match.group(2)
    return match.group(1), None if k is None else int(k)


def metric_discount(
    name: str, k: int | None, rank: np.ndarray, discount: Any, propensity: np.ndarray
) -> np.ndarray:
    """λ(r) of every row from its 1-based rank r in the new ranking."""
    if discount is None:
        if name == "clicks":
            lam = np.ones(rank.size)
        elif name == "dcg":
            lam = 1.0 / np.log2(rank + 1.0)
        else:
            lam = 1.0 / rank
    else:
        table = propensity if isinstance(discount, str) else discount
        deepest = int(rank.max()) if k is None else min(int(rank.max()), k)
        if table.size < deepest:
            raise ValueError(
                f"The discount has {table.size} entries but the new ranking places "
                f"items down to rank {deepest}; give one per rank (or set a cutoff "
                "in metric, e.g. 'clicks@10')."
            )
        lam = table[np.minimum(rank, table.size) - 1]
    if k is not None:
        lam = np.where(rank <= k, lam, 0.0)
    return lam


def ips_estimate(
    clicks: ArrayLike,
    *,
    groups: ArrayLike,
    position: ArrayLike,
    new_score: ArrayLike,
    propensity: ArrayLike,
    metric: str = "clicks@10",
    estimator: str = "ips",
    clip: float | None = None,
    discount: str | ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    confidence_level: float | None = None,
    n_resamples: int = 9999,
    method: str = "BCa",
    random_state: Any = None,
) -> IPSEstimate:
    """Estimate a new ranking's click metric from the clicks logged on an old one.

    Under the position-based click model a row shown at position p is clicked
    with probability ρ(p)·α: examined with probability ρ(p) =
    ``propensity[p - 1]``, then clicked with its attraction α. The new ranking
    (``new_score``, descending, within each group) puts the row at rank r and the
    metric weighs rank r by λ(r). Per group g:

    - ``"ips"``: V̂_g = Σ_i c_i λ(r_i) / ρ(p_i), an unbiased estimate of
      V_g = Σ_i λ(r_i) α_i when every ρ is right and > 0;
    - ``"clipped_ips"``: ρ replaced by max(ρ, ``clip``): less variance, biased
      down where ρ < clip;
    - ``"snips"``: the self-normalised form Σ_i c_i λ(r_i)/ρ(p_i) / Σ_i c_i/ρ(p_i)
      (undefined without a click), pooled over groups as
      Σ_g w_g N_g / Σ_g w_g D_g. It estimates Σ λα / Σ α, the metric per unit of
      attraction (for ``"clicks@k"`` the share of the attractive items that the
      new ranking puts in its top k), is unchanged when every propensity is
      multiplied by one factor (so relative propensities suffice), and varies
      less. ``clip`` clips its propensities too when given.

    λ: ``"clicks@k"`` 1[r <= k]; ``"dcg@k"`` 1[r <= k] / log2(r + 1); ``"rr"``
    1 / r; ``discount="propensity"`` replaces it by ρ(r) (times the cutoff): the
    estimate is then the expected number of clicks the new ranking would get
    online. See docs/online.md for assumptions and failure modes.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        Logged clicks (0/1 or counts); rows not shown (position 0) have none.
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    position : array-like of shape (n_samples,)
        1-based logged position; 0 = not shown (the new ranking may still rank
        the row, but its clicks are unknown: it counts as unclicked).
    new_score : array-like of shape (n_samples,)
        Scores of the new ranker; ties are ordered by logged position.
    propensity : array-like of shape (n_positions,)
        ``propensity[p - 1]``: examination probability of logged position p.
    metric : str, default="clicks@10"
        ``"clicks@k"``, ``"dcg@k"`` or ``"rr"`` (``@k`` optional on each).
    estimator : {"ips", "clipped_ips", "snips"}, default="ips"
    clip : float in (0, 1], default=None
        The clipping threshold τ: ρ becomes max(ρ, τ). Required by
        ``"clipped_ips"``; optional with ``"snips"``.
    discount : "propensity", array-like or None, default=None
        λ(r) per rank of the new ranking instead of the metric's own.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a group weighs its rows' mean weight.
    confidence_level : float, default=None
        When given, a bootstrap interval over groups at this level.
    n_resamples : int, default=9999
    method : {"BCa", "percentile"}, default="BCa"
    random_state : None, int, RandomState or Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    estimate : IPSEstimate
        ``.value``, ``.per_group``, ``.ci``, ``.standard_error``.

    Examples
    --------
    One query, three items shown at positions 1, 2, 3, examined with
    probabilities 1, 0.5 and 0.25; the items at positions 2 and 3 were clicked.
    The new ranking reverses the list, so they move to ranks 2 and 1:

    >>> from sklearn_rank.online import ips_estimate
    >>> clicks, position, new = [0, 1, 1], [1, 2, 3], [1.0, 2.0, 3.0]
    >>> rho = [1.0, 0.5, 0.25]
    >>> ips_estimate(clicks, groups=[0, 0, 0], position=position, new_score=new,
    ...              propensity=rho, metric="clicks@1").value  # 1 / 0.25
    4.0
    >>> ips_estimate(clicks, groups=[0, 0, 0], position=position, new_score=new,
    ...              propensity=rho, metric="rr").value  # 1/0.25 + (1/2)/0.5
    5.0
    >>> ips_estimate(clicks, groups=[0, 0, 0], position=position, new_score=new,
    ...              propensity=rho, metric="clicks@1", estimator="snips").value
    0.6666666666666666
    """
    func = "ips_estimate"
    name, k = parse_metric(metric, func)
    check_param(estimator, "estimator", func, (StrOptions(*ESTIMATORS),))
    check_param(
        clip, "clip", func, (Interval(numbers.Real, 0, 1, closed="right"), IsNone())
    )
    if estimator == "clipped_ips" and clip is None:
        raise param_error(
            "clip",
            func,
            'a float in (0, 1] with estimator="clipped_ips"',
            clip,
            "Pass the clipping threshold, e.g. clip=0.1.",
        )
    if estimator == "ips" and clip is not None:
        raise param_error(
            "clip",
            func,
            'None with estimator="ips"',
            clip,
            'Use estimator="clipped_ips" to clip the propensities.',
        )
    c = check_clicks(clicks, func)
    pos = check_position(position, func)
    score = check_numeric(new_score, "new_score", func)
    n = check_same_length(func, clicks=c, position=pos, new_score=score)
    log = check_log(func, groups, n=n, position=pos, sample_weight=sample_weight)
    rho = check_propensity(propensity, func, int(pos.max()))
    if (c[pos == 0] > 0).any():
        raise ValueError(
            f"clicks in {func} has clicks on rows with position 0 (not shown); give "
            "clicked rows their logged position."
        )
    if discount is not None and not (isinstance(discount, str)):
        discount = check_numeric(discount, "discount", func)
    elif discount is not None and discount != "propensity":
        raise param_error("discount", func, '"propensity", an array or None', discount)
    level = None if confidence_level is None else check_level(confidence_level, func)
    n_resamples = check_resamples(n_resamples, func)
    method = check_choice("method", func, method, CI_METHODS)
    rng = check_random_state(random_state, func)

    rank, _ = rank_within_groups(log.codes, score, log.n_groups, pos)
    lam = metric_discount(name, k, rank, discount, rho)
    if clip is not None:
        rho = np.maximum(rho, clip)
    hit = np.flatnonzero(c)  # only clicked rows enter the sums
    inv = c[hit] / rho[pos[hit] - 1]
    codes = log.codes[hit]
    num = np.bincount(codes, inv * lam[hit], log.n_groups)
    group_w = log.group_weight()
    if estimator == "snips":
        den = np.bincount(codes, inv, log.n_groups)
        defined = den > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            per_group = np.where(defined, num / den, np.nan)
        weights = group_w * den
    else:
        per_group, weights, defined = num, group_w, np.ones(log.n_groups, bool)
    return _result(
        per_group,
        weights,
        defined,
        log.group_ids,
        metric,
        estimator,
        level,
        n_resamples,
        method,
        rng,
        func,
    )


def _result(
    per_group,
    weights,
    defined,
    group_ids,
    metric,
    estimator,
    level,
    n_resamples,
    method,
    rng,
    func,
) -> IPSEstimate:
    v, w = per_group[defined], weights[defined]
    if w.sum() <= 0:
        raise ValueError(
            f"{func} has no group to average: with estimator={estimator!r} a group "
            "needs a click and a positive weight."
        )
    value = float(np.dot(w, v) / w.sum())
    ci, se = None, float("nan")
    if level is not None:
        star = bootstrap_distribution(v[:, None], w[:, None], n_resamples, rng)
        low, high = confidence_interval(
            np.array([value]), star, v[:, None], w[:, None], level, method
        )
        ci = (float(low[0]), float(high[0]))
        se = float(star[:, 0].std(ddof=1)) if n_resamples > 1 else float("nan")
    return IPSEstimate(value, per_group, weights, group_ids, ci, se, metric, estimator)
