"""Counterfactual estimates of a new ranking's click metric: inverse-propensity
(IPS, clipped IPS, SNIPS), the direct method and the doubly robust estimator."""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.gains_public import dcg_discount
from .._engine.reduce import weighted_mean
from .._metrics.validation import check_numeric
from .._utils.params import Interval, IsNone, StrOptions, check_param, param_error
from ._inputs import (
    CI_METHODS,
    Log,
    bootstrap_distribution,
    check_choice,
    check_clicks,
    check_level,
    check_log,
    check_no_unshown_clicks,
    check_position,
    check_propensity,
    check_random_state,
    check_resamples,
    check_same_length,
    check_unique_positions,
    confidence_interval,
    rank_within_groups,
)
from ._propensity import PropensityEstimate, swap_ratios

ESTIMATORS = ("ips", "clipped_ips", "snips", "direct", "doubly_robust")
_METRIC = re.compile(r"^(clicks|dcg|rr_sum)(?:@([1-9][0-9]*))?$")

ESTIMANDS = {
    "total": "V = mean over groups of sum_i lambda(r_i) alpha_i (the metric at "
    "full examination: attraction weighed by the new ranking's discount)",
    "ratio": "V = sum_g w_g sum_i lambda(r_i) alpha_i / sum_g w_g sum_i alpha_i "
    "(the metric per unit of attraction, not the metric itself)",
}


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
    estimand : str
        What ``value`` estimates: the metric itself (``"ips"``, ``"clipped_ips"``,
        ``"direct"``, ``"doubly_robust"``) or, for ``"snips"``, the metric per
        unit of attraction.
    propensity_uncertainty : bool
        True when the interval also resamples the swap experiment the
        propensities came from; False: the interval is conditional on the
        propensities (treats them as exact).
    """

    value: float
    per_group: np.ndarray
    weights: np.ndarray
    group_ids: np.ndarray
    ci: tuple[float, float] | None
    standard_error: float
    metric: str
    estimator: str
    estimand: str = ESTIMANDS["total"]
    propensity_uncertainty: bool = False

    def __repr__(self) -> str:
        ci = "None" if self.ci is None else f"({self.ci[0]:.6g}, {self.ci[1]:.6g})"
        kind = "with" if self.propensity_uncertainty else "conditional on"
        note = "" if self.ci is None else f", interval {kind} the propensities"
        return (
            f"IPSEstimate(value={self.value:.6g}, ci={ci}, "
            f"standard_error={self.standard_error:.4g}, metric={self.metric!r}, "
            f"estimator={self.estimator!r}, n_groups={self.group_ids.shape[0]}"
            f"{note};\n  estimand: {self.estimand})"
        )


def parse_metric(metric: Any, func: str) -> tuple[str, int | None]:
    if isinstance(metric, str) and re.match(r"^rr(@[0-9]+)?$", metric):
        raise param_error(
            "metric",
            func,
            'one of "clicks@k", "dcg@k", "rr_sum@k"',
            metric,
            '"rr" was the sum of alpha / r over all items (1.83 for three clicked '
            'items), not a reciprocal rank: it is now "rr_sum". The reciprocal '
            "rank of the first click depends on how clicks interact and has no "
            'inverse-propensity estimate; online_metrics gives "rr_first_click" '
            "of logged clicks.",
        )
    match = _METRIC.match(metric) if isinstance(metric, str) else None
    if match is None:
        raise param_error(
            "metric",
            func,
            'one of "clicks@k", "dcg@k", "rr_sum@k" (k a positive int; no @k: the '
            "whole list)",
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
            lam = dcg_discount(rank)
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
    propensity: ArrayLike | PropensityEstimate,
    metric: str = "clicks@10",
    estimator: str = "ips",
    clip: float | None = None,
    discount: str | ArrayLike | None = None,
    predicted_attraction: ArrayLike | None = None,
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
    metric weighs rank r by λ(r). Per group g the estimand is
    V_g = Σ_i λ(r_i) α_i, and:

    - ``"ips"``: V̂_g = Σ_i c_i λ(r_i) / ρ(p_i), unbiased when every ρ is right
      and > 0 and every row the new ranking weighs was shown;
    - ``"clipped_ips"``: ρ replaced by max(ρ, ``clip``): less variance, biased
      down where ρ < clip;
    - ``"snips"``: the self-normalised form Σ_i c_i λ(r_i)/ρ(p_i) / Σ_i c_i/ρ(p_i)
      (undefined without a click), pooled over groups as
      Σ_g w_g N_g / Σ_g w_g D_g. **Another estimand**: Σ λα / Σ α, the metric
      per unit of attraction (for ``"clicks@k"`` the share of the attractive
      items that the new ranking puts in its top k); ``.estimand`` says so. It is
      unchanged when every propensity is multiplied by one factor and varies
      less. ``clip`` clips its propensities too when given;
    - ``"direct"``: Σ_i λ(r_i) â_i with â = ``predicted_attraction`` (right when
      the predictions are right; no propensity used);
    - ``"doubly_robust"``: Σ_i λ(r_i) [â_i + (c_i − ρ(p_i) â_i) / ρ(p_i)] over
      the shown rows plus Σ λ â over the rows never shown (position 0). Shown
      rows keep IPS's unbiasedness whatever â (with one logged position per row
      the prediction cancels out there: the estimate equals IPS plus the
      predictions of the unshown rows); unshown rows, which IPS counts as
      unclicked, are right when the predictions are. So it is unbiased when the
      propensities are right and the unshown rows' predictions are right; it is
      NOT "unbiased if either model is right": with wrong propensities it is
      biased like IPS however good the predictions (see docs/online.md, table A).

    λ: ``"clicks@k"`` 1[r <= k]; ``"dcg@k"`` 1[r <= k] / log2(r + 1);
    ``"rr_sum@k"`` 1[r <= k] / r (a sum over all items, not the reciprocal rank
    of the first click); ``discount="propensity"`` replaces it by ρ(r) (times the
    cutoff): the estimate is then the expected number of clicks the new ranking
    would get online. **Ties** in ``new_score`` are ordered by logged position
    among shown rows, and rows never shown come after every shown row of their
    tie (in row order): an unshown row never wins a tie. See docs/online.md.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        Logged 0/1 clicks; rows not shown (position 0) have none.
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    position : array-like of shape (n_samples,)
        1-based logged position, one per shown row of a group; 0 = not shown (the
        new ranking may still rank the row, but its clicks are unknown: IPS counts
        it as unclicked).
    new_score : array-like of shape (n_samples,)
        Scores of the new ranker (ties: see above).
    propensity : array-like of shape (n_positions,) or PropensityEstimate
        ``propensity[p - 1]``: examination probability of logged position p, or
        the result of :func:`propensity_from_swaps` /
        :func:`propensity_regression_em`. A swap result makes the interval
        resample the swap experiment too (``.propensity_uncertainty``).
    metric : str, default="clicks@10"
        ``"clicks@k"``, ``"dcg@k"`` or ``"rr_sum@k"`` (``@k`` optional on each).
    estimator : {"ips", "clipped_ips", "snips", "direct", "doubly_robust"}, \
default="ips"
    clip : float in (0, 1], default=None
        The clipping threshold τ: ρ becomes max(ρ, τ). Required by
        ``"clipped_ips"``; optional with ``"snips"`` and ``"doubly_robust"``.
    discount : "propensity", array-like or None, default=None
        λ(r) per rank of the new ranking instead of the metric's own.
    predicted_attraction : array-like of shape (n_samples,), default=None
        â per row in [0, 1] (e.g. a fitted regressor's prediction), required by
        ``"direct"`` and ``"doubly_robust"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a group weighs its rows' mean weight.
    confidence_level : float, default=None
        When given, a bootstrap interval over groups at this level. It is
        conditional on the propensities unless ``propensity`` is a swap result.
    n_resamples : int, default=9999
    method : {"BCa", "percentile"}, default="BCa"
    random_state : None, int, RandomState or Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    estimate : IPSEstimate
        ``.value``, ``.per_group``, ``.ci``, ``.standard_error``, ``.estimand``.

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
    ...              propensity=rho, metric="rr_sum").value  # 1/0.25 + (1/2)/0.5
    5.0
    >>> ips_estimate(clicks, groups=[0, 0, 0], position=position, new_score=new,
    ...              propensity=rho, metric="clicks@1", estimator="snips").value
    0.6666666666666666
    """
    func = "ips_estimate"
    name, k = parse_metric(metric, func)
    _check_estimator(estimator, clip, predicted_attraction, func)
    c = check_clicks(clicks, func)
    pos = check_position(position, func)
    score = check_numeric(new_score, "new_score", func)
    n = check_same_length(func, clicks=c, position=pos, new_score=score)
    log = check_log(func, groups, n=n, position=pos, sample_weight=sample_weight)
    check_no_unshown_clicks(c, pos, func)
    _check_something_shown(pos, func)
    check_unique_positions(log, pos, func)
    rho = check_propensity(propensity, func, int(pos.max()))
    pred = _check_predictions(predicted_attraction, c, func)
    if discount is not None and not (isinstance(discount, str)):
        discount = check_numeric(discount, "discount", func)
        _check_discount(discount, func)
    elif discount is not None and discount != "propensity":
        raise param_error("discount", func, '"propensity", an array or None', discount)
    level = None if confidence_level is None else check_level(confidence_level, func)
    n_resamples = check_resamples(n_resamples, func)
    method = check_choice("method", func, method, CI_METHODS)
    rng = check_random_state(random_state, func)

    rank = _new_ranks(log, score, pos)
    lam = metric_discount(name, k, rank, discount, rho)
    if clip is not None:
        rho = np.maximum(rho, clip)
    parts = _Parts(log, c, pos, lam, pred, estimator)
    if isinstance(discount, str):  # λ(r) = ρ(r): the bootstrap redraws it too
        parts.lam_index(rank, k, c, pos, pred, rho.size)
    per_group, weights, defined = parts.per_group(rho)
    value = _value(per_group, weights, defined, estimator, func)
    ci, se = None, float("nan")
    swaps = isinstance(propensity, PropensityEstimate) and propensity.clicks is not None
    resample_rho = swaps and estimator != "direct"
    if level is not None:
        rho_star = None
        if resample_rho:
            raw = _resampled_propensity(propensity, n_resamples, rng, None)
            rho_star = raw if clip is None else np.maximum(raw, clip)
            parts.lam_star = raw  # the discount ρ(r) is not clipped
        ci, se = _interval(
            parts, rho, rho_star, (per_group, weights, defined), value, level,
            n_resamples, method, rng,
        )  # fmt: skip
    return IPSEstimate(
        value,
        per_group,
        weights,
        log.group_ids,
        ci,
        se,
        metric,
        estimator,
        ESTIMANDS["ratio" if estimator == "snips" else "total"],
        bool(level is not None and resample_rho),
    )


def _check_discount(discount: np.ndarray, func: str) -> None:
    if (discount < 0).any():
        i = int(np.flatnonzero(discount < 0)[0])
        raise ValueError(
            f"discount in {func} must hold weights >= 0, one per rank; got "
            f"{float(discount[i])!r} at rank {i + 1}. Pass e.g. "
            "1 / np.log2(np.arange(2, K + 2))."
        )


def _check_something_shown(pos: np.ndarray, func: str) -> None:
    if not (pos > 0).any():
        raise ValueError(
            f"{func}: no row of the log was shown (every position is 0), so the "
            "log says nothing about any ranking; pass the logged 1-based positions "
            "of the shown rows."
        )


def _check_predictions(pred: Any, c: np.ndarray, func: str) -> np.ndarray | None:
    if pred is None:
        return None
    pred = check_numeric(pred, "predicted_attraction", func)
    check_same_length(func, clicks=c, predicted_attraction=pred)
    bad = (pred < 0) | (pred > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"predicted_attraction in {func} must hold probabilities in [0, 1]; "
            f"got {float(pred[i])!r} at row {i}. Clip the regressor's "
            "predictions, e.g. np.clip(pred, 0, 1)."
        )
    return pred


def _new_ranks(log: Log, score: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Ranks in the new ranking; ties: shown rows by logged position, unshown
    rows after them (row order)."""
    last = int(pos.max()) + 1
    tiebreak = np.where(pos > 0, pos, last)
    if last < 2**16:  # numpy sorts 16-bit keys by radix: linear
        tiebreak = tiebreak.astype(np.uint16)
    rank, _ = rank_within_groups(log.codes, score, log.n_groups, tiebreak)
    return rank


def _check_estimator(estimator, clip, pred, func: str) -> None:
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
    if estimator in ("ips", "direct") and clip is not None:
        raise param_error(
            "clip",
            func,
            f'None with estimator="{estimator}"',
            clip,
            'Use estimator="clipped_ips" to clip the propensities.',
        )
    needs = estimator in ("direct", "doubly_robust")
    if needs and pred is None:
        raise param_error(
            "predicted_attraction",
            func,
            f'one predicted attraction per row with estimator="{estimator}"',
            pred,
            "Pass e.g. a fitted regressor's predictions of the click probability at "
            "full examination.",
        )
    if not needs and pred is not None:
        raise param_error(
            "predicted_attraction",
            func,
            f'None with estimator="{estimator}" (it uses no predictions)',
            "an array",
            'Use estimator="direct" or "doubly_robust" to use predictions.',
        )


class _Parts:
    """Per-group sums of one log, split by logged position so that the estimate
    can be recomputed for other propensities (the bootstrap of the swap
    experiment) without touching the rows again."""

    def __init__(self, log: Log, c, pos, lam, pred, estimator: str) -> None:
        self.log, self.estimator = log, estimator
        self.group_w = log.group_weight()
        hit = np.flatnonzero(c)  # only clicked rows enter the inverse sums
        self.hit_codes, self.hit_pos = log.codes[hit], pos[hit]
        self.hit_lam = lam[hit]
        self.base = np.zeros(log.n_groups)
        self.shown_codes = self.shown_pos = self.shown_lp = None
        self.pairs: Any = None
        self.lam_star: Any = None
        if pred is not None:
            if estimator == "direct":
                self.base = log.group_sum(lam * pred)
            else:  # doubly robust: the model's term cancels on shown rows
                self.base = log.group_sum(lam * pred, pos == 0)

    def lam_index(self, rank, k, c, pos, pred, size: int) -> None:
        """With λ(r) = ρ(r): per group, Σ c by (logged position, index of λ in
        ρ) and Σ pred of the unshown rows by index of λ, so that a resample can
        redraw ρ in the discount as well as in 1/ρ."""
        log = self.log
        n = log.n_groups
        idx = np.minimum(rank, size) - 1
        idx = idx if k is None else np.where(rank <= k, idx, -1)
        hit = np.flatnonzero(c)
        keep = idx[hit] >= 0
        pair = (self.hit_pos[keep] - 1) * size + idx[hit][keep]
        keys, inv = np.unique(pair, return_inverse=True)
        codes = self.hit_codes[keep] * keys.size + inv
        counts = seg.segment_sum(codes, np.ones(codes.size), n * keys.size)
        self.pairs = (keys // size, keys % size, counts.reshape(n, keys.size))
        self.base_by_lam: Any = None
        if pred is not None and self.estimator == "doubly_robust":
            m = (pos == 0) & (idx >= 0)
            key = log.codes[m] * size + idx[m]
            self.base_by_lam = seg.segment_sum(key, pred[m], n * size).reshape(n, size)

    def per_group(self, rho: np.ndarray):
        log = self.log
        if self.estimator == "direct":
            return self.base, self.group_w, np.ones(log.n_groups, bool)
        inv = 1.0 / rho[self.hit_pos - 1]
        num = self.base + seg.segment_sum(
            self.hit_codes, inv * self.hit_lam, log.n_groups
        )
        if self.estimator != "snips":
            return num, self.group_w, np.ones(log.n_groups, bool)
        den = seg.segment_sum(self.hit_codes, inv, log.n_groups)
        defined = den > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            per_group = np.where(defined, num / den, np.nan)
        return per_group, self.group_w * den, defined

    def by_position(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(G, size) matrices of Σ λ c and Σ c per group and logged position."""
        n = self.log.n_groups
        key = self.hit_codes * size + (self.hit_pos - 1)
        num = seg.segment_sum(key, self.hit_lam, n * size).reshape(n, size)
        den = seg.segment_sum(key, np.ones(key.size), n * size).reshape(n, size)
        return num, den


def _value(per_group, weights, defined, estimator: str, func: str) -> float:
    if not (weights[defined] > 0).any():
        raise ValueError(
            f"{func} has no group to average: with estimator={estimator!r} a group "
            "needs a click and a positive weight."
        )
    return weighted_mean(per_group, defined, weights, func)


def _resampled_propensity(est, n_resamples, rng, clip) -> np.ndarray:
    """Propensities of resampled swap experiments, (n_resamples, size).

    With 0/1 clicks, resampling the lists of each swap position (the stratified
    bootstrap) draws the clicks at position k from Binomial(n_k, CTR_k); the
    ratios are clipped by the estimator's own rule.
    """
    n = est.impressions.astype(np.int64)
    ctr = np.where(n > 0, est.clicks / np.maximum(n, 1), 0.0)
    s_star = rng.binomial(n, ctr, size=(n_resamples, n.size)).astype(np.float64)
    s_star[:, 0] = np.maximum(s_star[:, 0], 0.5)  # no click at 1: half a click
    _, prop = swap_ratios(s_star, n)
    # positions never swapped (no impressions) keep the estimate's value
    out = np.where(np.isnan(prop), est.propensity, prop)
    return out if clip is None else np.maximum(out, clip)


def _interval(parts, rho, rho_star, fitted, value, level, n_resamples, method, rng):
    """Bootstrap over groups; with ``rho_star``, each resample of the groups is
    paired with a resample of the swap experiment."""
    per_group, weights, defined = fitted
    v, w = per_group[defined], weights[defined]
    if rho_star is None:
        star = bootstrap_distribution(v[:, None], w[:, None], n_resamples, rng)[:, 0]
    elif parts.pairs is not None:  # λ = ρ(r): redraw it in the discount too
        star = _propensity_discount_star(parts, rho_star, n_resamples, rng)
    else:
        num, den = parts.by_position(rho.size)
        gw = parts.group_w[:, None]
        cols = [num, parts.base[:, None]] + (
            [den] if parts.estimator == "snips" else []
        )
        mat = np.concatenate(cols, axis=1)
        means = bootstrap_distribution(
            mat, np.broadcast_to(gw, mat.shape), n_resamples, rng
        )
        size = rho.size
        inv = 1.0 / rho_star
        total = (means[:, :size] * inv).sum(axis=1) + means[:, size]
        if parts.estimator == "snips":
            star = total / (means[:, size + 1 :] * inv).sum(axis=1)
        else:
            star = total
    low, high = confidence_interval(
        np.array([value]), star[:, None], v[:, None], w[:, None], level, method
    )
    se = float(star.std(ddof=1)) if n_resamples > 1 else float("nan")
    return (float(low[0]), float(high[0])), se


def _propensity_discount_star(parts, rho_star, n_resamples, rng) -> np.ndarray:
    """Resampled estimates with λ(r) = ρ*(r) and 1/ρ*(p) both from the same
    resampled swap experiment, paired with one resample of the groups."""
    p_idx, l_idx, counts = parts.pairs
    size = rho_star.shape[1]
    cols = [counts]
    if parts.base_by_lam is not None:
        cols.append(parts.base_by_lam)
    if parts.estimator == "snips":
        cols.append(parts.by_position(size)[1])
    mat = np.concatenate(cols, axis=1)
    gw = np.broadcast_to(parts.group_w[:, None], mat.shape)
    means = bootstrap_distribution(mat, gw, n_resamples, rng)
    lam, j = parts.lam_star, counts.shape[1]
    total = (means[:, :j] * lam[:, l_idx] / rho_star[:, p_idx]).sum(axis=1)
    if parts.base_by_lam is not None:
        total = total + (means[:, j : j + size] * lam).sum(axis=1)
        j += size
    if parts.estimator == "snips":
        return total / (means[:, j:] / rho_star).sum(axis=1)
    return total
