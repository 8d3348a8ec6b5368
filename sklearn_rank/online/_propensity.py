"""Examination propensities of positions, from interventions or ordinary logs."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.group_codes import encode_groups
from .._metrics.validation import check_numeric
from .._utils.params import Interval, check_param
from ._inputs import check_clicks, check_position, check_same_length


@dataclass(frozen=True)
class PropensityEstimate:
    """Estimated examination propensities, relative to position 1.

    Attributes
    ----------
    propensity : ndarray of shape (n_positions,)
        ``propensity[p - 1]`` = ρ(p) / ρ(1); NaN where the log holds no
        information on position p.
    standard_error : ndarray of shape (n_positions,)
        Delta-method standard error (swap interventions); NaN for the EM.
    impressions : ndarray of shape (n_positions,)
        Rows that informed each position.
    n_iter : int
        EM iterations (0 for swap interventions).
    """

    propensity: np.ndarray
    standard_error: np.ndarray
    impressions: np.ndarray
    n_iter: int = 0


def propensity_from_swaps(
    clicks: ArrayLike,
    *,
    position: ArrayLike,
    logged_position: ArrayLike,
) -> PropensityEstimate:
    """Relative propensities from a swap-intervention experiment.

    In each list of the experiment (Joachims et al., 2017), the result the
    production ranker put at position 1 was swapped with the one at a randomly
    chosen position k (k = 1: no swap). As k is chosen independently of the
    query, the top results shown at position k are as relevant on average as
    those shown at position 1, so under the position-based model

        ρ(k) / ρ(1) = CTR(top result shown at k) / CTR(top result shown at 1),

    each CTR taken over the rows with ``logged_position == 1``. The standard
    error is the delta method's for a ratio of two independent means.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        Clicks of each row (0/1 or counts).
    position : array-like of shape (n_samples,)
        1-based position the row was shown at (after the swap).
    logged_position : array-like of shape (n_samples,)
        1-based position the production ranker gave it (before the swap).

    Returns
    -------
    estimate : PropensityEstimate

    Examples
    --------
    The top result was clicked 4 times in 4 lists where it stayed at 1, and 1
    time in 2 lists where it was swapped to position 2:

    >>> from sklearn_rank.online import propensity_from_swaps
    >>> r = propensity_from_swaps([1, 1, 1, 1, 1, 0], position=[1, 1, 1, 1, 2, 2],
    ...                           logged_position=[1, 1, 1, 1, 1, 1])
    >>> r.propensity, r.impressions
    (array([1. , 0.5]), array([4, 2]))
    """
    func = "propensity_from_swaps"
    c = check_clicks(clicks, func)
    pos = check_position(position, func)
    logged = check_position(logged_position, func, "logged_position")
    check_same_length(func, clicks=c, position=pos, logged_position=logged)
    top = (logged == 1) & (pos > 0)
    if not (top & (pos == 1)).any():
        raise ValueError(
            f"{func} needs rows with logged_position == 1 shown at position 1 (the "
            "lists without a swap): they are the reference of every ratio."
        )
    p, x = pos[top], c[top]
    size = int(p.max())
    n = np.bincount(p, minlength=size + 1)[1:]
    s = np.bincount(p, x, size + 1)[1:]
    ss = np.bincount(p, x * x, size + 1)[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        var = np.where(n > 1, (ss - n * mean**2) / (n - 1), np.nan) / n
        ratio = mean / mean[0]
        rel_var = var / mean**2
        se = np.abs(ratio) * np.sqrt(rel_var + rel_var[0])
    if mean[0] == 0:
        raise ValueError(
            f"{func}: the top results shown at position 1 got no click, so no ratio "
            "to position 1 can be formed; collect more swap-intervention traffic."
        )
    se[0] = 0.0
    return PropensityEstimate(ratio, se, n)


def propensity_regression_em(
    clicks: ArrayLike,
    *,
    position: ArrayLike,
    item: ArrayLike | None = None,
    features: ArrayLike | None = None,
    max_iter: int = 1000,
    tol: float = 1e-7,
) -> PropensityEstimate:
    """Relative propensities from ordinary click logs by (regression-)EM.

    The position-based model P(click) = θ(p)·γ(x) is fitted by expectation
    maximisation (Wang et al., 2018): the E-step gives each unclicked row the
    posterior probabilities of "examined, not relevant" and "not examined,
    relevant",

        P(E=1 | c=0) = θ(1-γ) / (1-θγ),   P(R=1 | c=0) = (1-θ)γ / (1-θγ),

    and the M-step sets θ(p) to the mean of c + (1-c)·P(E=1 | c=0) over the rows
    at p, and γ to the mean (``item``: per item) or the logistic regression on
    ``features`` (the regression-EM) of c + (1-c)·P(R=1 | c=0). The same items
    must appear at several positions (ranking changes over time, or different
    rankers): otherwise θ and γ cannot be told apart.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks.
    position : array-like of shape (n_samples,)
        1-based shown position (rows at 0 are ignored).
    item : array-like of shape (n_samples,), default=None
        Key of the relevance γ (e.g. the query-document pair id).
    features : array-like of shape (n_samples, n_features), default=None
        Features of the relevance regression (needs scikit-learn); exactly one of
        ``item`` and ``features`` is given.
    max_iter : int, default=1000
    tol : float, default=1e-7
        Stop when no θ(p) moves by more than this.

    Returns
    -------
    estimate : PropensityEstimate
        ``.propensity`` = θ(p) / θ(1).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.online import propensity_regression_em, simulate_clicks
    >>> rng = np.random.default_rng(0)
    >>> items = rng.integers(0, 50, 20000)
    >>> position = rng.integers(1, 4, 20000)  # items shown at random positions
    >>> grade = items % 2
    >>> clicks = simulate_clicks(grade, groups=np.arange(20000), position=position,
    ...                          examination=[1.0, 0.6, 0.3], random_state=0)
    >>> r = propensity_regression_em(clicks, position=position, item=items)
    >>> np.round(r.propensity, 1)
    array([1. , 0.6, 0.3])
    """
    func = "propensity_regression_em"
    c = check_clicks(clicks, func)
    pos = check_position(position, func)
    n = check_same_length(func, clicks=c, position=pos)
    check_param(max_iter, "max_iter", func, (Interval(numbers.Integral, 1, None),))
    check_param(tol, "tol", func, (Interval(numbers.Real, 0, None, closed="neither"),))
    if (item is None) == (features is None):
        raise ValueError(
            f"{func} needs exactly one of item= (a relevance key per row) and "
            "features= (a feature matrix for the relevance regression)."
        )
    if c.max() > 1:
        raise ValueError(f"clicks in {func} must be 0/1 for the EM; got counts.")
    shown = pos > 0
    c, pos = c[shown], pos[shown]
    size = int(pos.max())
    n_at = np.bincount(pos, minlength=size + 1)[1:]
    if item is not None:
        key, _ = encode_groups(item, n, func)
        model = _KeyRelevance(key[shown])
    else:
        model = _RegressionRelevance(np.asarray(features)[shown])
    theta = np.full(size, 0.5)
    gamma = model.init(c)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        t = theta[pos - 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            denom = 1.0 - t * gamma
            e_post = np.where(c > 0, 1.0, t * (1.0 - gamma) / denom)
            r_post = np.where(c > 0, 1.0, (1.0 - t) * gamma / denom)
        new_theta = np.bincount(pos, e_post, size + 1)[1:] / np.maximum(n_at, 1)
        gamma = model.fit(r_post)
        done = np.nanmax(np.abs(new_theta - theta)) <= tol
        theta = np.clip(new_theta, 1e-12, 1.0 - 1e-12)
        if done:
            break
    else:
        warnings.warn(
            f"{func} did not converge in {max_iter} iterations; raise max_iter.",
            RuntimeWarning,
            stacklevel=2,
        )
    prop = np.where(n_at > 0, theta / theta[0], np.nan)
    return PropensityEstimate(prop, np.full(size, np.nan), n_at, n_iter)


class _KeyRelevance:
    """γ per key: the plain EM of the position-based model."""

    def __init__(self, key: np.ndarray) -> None:
        self.key = key
        self.count = np.maximum(np.bincount(key), 1)

    def init(self, c: np.ndarray) -> np.ndarray:
        return np.full(c.size, 0.5)

    def fit(self, target: np.ndarray) -> np.ndarray:
        gamma = np.bincount(self.key, target, self.count.size) / self.count
        return np.clip(gamma, 1e-12, 1 - 1e-12)[self.key]


class _RegressionRelevance:
    """γ(x) by logistic regression on soft targets (the regression-EM)."""

    def __init__(self, features: Any) -> None:
        from sklearn.linear_model import LogisticRegression

        x = check_numeric(
            np.asarray(features, dtype=float).ravel(),
            "features",
            "propensity_regression_em",
        ).reshape(len(features), -1)
        self.x2 = np.concatenate([x, x])
        self.model = LogisticRegression(warm_start=True, max_iter=200)

    def init(self, c: np.ndarray) -> np.ndarray:
        return np.full(c.size, 0.5)

    def fit(self, target: np.ndarray) -> np.ndarray:
        m = target.size
        y = np.r_[np.ones(m), np.zeros(m)]
        w = np.r_[target, 1.0 - target]
        self.model.fit(self.x2, y, sample_weight=w)
        gamma = self.model.predict_proba(self.x2[:m])[:, 1]
        return np.clip(gamma, 1e-12, 1 - 1e-12)
