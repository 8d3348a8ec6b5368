"""Examination propensities of positions, from interventions or ordinary logs."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.group_codes import encode_groups
from .._metrics.validation import check_numeric
from .._utils.params import Interval, validate_params
from ._inputs import (
    check_clicks,
    check_position,
    check_random_state,
    check_same_length,
)


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
    raw : ndarray of shape (n_positions,)
        The estimate before clipping (equal to ``propensity`` where nothing was
        clipped).
    clipped : ndarray of bool of shape (n_positions,)
        Where ``raw`` fell outside ``[floor, 1]`` and was clipped (a warning says
        so): a relative propensity above 1, or 0 for a position that got no click.
    clicks : ndarray of shape (n_positions,) or None
        Swap interventions: clicks on the top results shown at each position, so
        that :func:`ips_estimate` can resample the experiment; None for the EM.
    identified : ndarray of bool of shape (n_positions,) or None
        EM on ``item``: positions linked to position 1 by items shown at both
        (directly or through other positions); NaN propensity elsewhere.
    method : str
        ``"swaps"`` or ``"em"``.
    """

    propensity: np.ndarray
    standard_error: np.ndarray
    impressions: np.ndarray
    n_iter: int = 0
    raw: np.ndarray | None = None
    clipped: np.ndarray | None = None
    clicks: np.ndarray | None = None
    identified: np.ndarray | None = None
    method: str = "swaps"

    def __repr__(self) -> str:
        flagged = np.array([], dtype=int) if self.clipped is None else self.clipped
        clipped = [int(i) + 1 for i in np.flatnonzero(flagged)]
        return (
            f"PropensityEstimate(method={self.method!r}, "
            f"propensity={np.array2string(self.propensity, precision=4)}, "
            f"standard_error={np.array2string(self.standard_error, precision=4)}, "
            f"impressions={self.impressions.tolist()}, "
            f"clipped_positions={clipped})"
        )


def swap_ratios(s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relative propensities CTR(k) / CTR(1) and the clipped ones.

    A ratio is clipped into ``[floor_k, 1]`` with ``floor_k`` the ratio that half
    a click at k would give (a position without a click still gets a positive
    propensity), and 1 as position 1 is taken to be the most examined.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        ratio = mean / mean[..., :1]
        floor = (0.5 / n) / mean[..., :1]
    return ratio, np.clip(ratio, np.minimum(floor, 1.0), 1.0)


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

    Noise can put a ratio above 1 or at 0 (no click at k): each ratio is clipped
    into [floor_k, 1], floor_k the ratio half a click at k would give, with a
    warning; ``.raw`` keeps the unclipped values and ``.clipped`` marks them, so
    the result is always a valid ``propensity`` for :func:`ips_estimate`, which
    also resamples this experiment in its interval when given the result.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks of each row.
    position : array-like of shape (n_samples,)
        1-based position the row was shown at (after the swap).
    logged_position : array-like of shape (n_samples,)
        1-based position the production ranker gave it (before the swap).

    Returns
    -------
    estimate : PropensityEstimate
        ``.propensity`` (clipped), ``.standard_error``, ``.raw``, ``.clipped``,
        ``.impressions`` and ``.clicks`` per position.

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
    pos = check_position(position, func, unshown=False)
    logged = check_position(logged_position, func, "logged_position", unshown=False)
    check_same_length(func, clicks=c, position=pos, logged_position=logged)
    top = logged == 1
    if not (top & (pos == 1)).any():
        raise ValueError(
            f"{func} needs rows with logged_position == 1 shown at position 1 (the "
            "lists without a swap): they are the reference of every ratio."
        )
    p, x = pos[top] - 1, c[top]
    size = int(p.max()) + 1
    n = seg.segment_count(p, size)
    s = seg.segment_sum(p, x, size)
    if s[0] == 0:
        raise ValueError(
            f"{func}: the top results shown at position 1 got no click, so no ratio "
            "to position 1 can be formed; collect more swap-intervention traffic."
        )
    ratio, prop = swap_ratios(s, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        # binary clicks: the variance of a mean is p(1 - p) / (n - 1)
        var = np.where(n > 1, mean * (1 - mean) / np.maximum(n - 1, 1), np.nan)
        rel_var = var / mean**2
        se = np.abs(ratio) * np.sqrt(rel_var + rel_var[0])
    se[0] = 0.0
    clipped = (prop != ratio) & ~np.isnan(ratio)
    if clipped.any():
        where = ", ".join(
            f"position {k + 1}: {ratio[k]:.4g}" for k in np.flatnonzero(clipped)[:5]
        )
        warnings.warn(
            f"{func} clipped {int(clipped.sum())} relative propensities into "
            f"[half a click, 1] ({where}): a ratio above 1 or a position without a "
            "click is sampling noise at this many lists. .raw keeps the unclipped "
            "values; collect more swap traffic to shrink the noise.",
            UserWarning,
            stacklevel=2,
        )
    return PropensityEstimate(
        prop, se, n, 0, ratio, clipped, s.astype(np.float64), None, "swaps"
    )


@validate_params(
    {
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "n_bootstrap": [Interval(numbers.Integral, 0, None)],
    }
)
def propensity_regression_em(
    clicks: ArrayLike,
    *,
    position: ArrayLike,
    item: ArrayLike | None = None,
    features: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    max_iter: int = 1000,
    tol: float = 1e-7,
    n_bootstrap: int = 0,
    random_state: Any = None,
) -> PropensityEstimate:
    """Relative propensities from ordinary click logs by (regression-)EM.

    The position-based model P(click) = θ(p)·γ(x) is fitted by expectation
    maximisation (Wang et al., 2018): the E-step gives each unclicked row the
    posterior probabilities of "examined, not relevant" and "not examined,
    relevant",

        P(E=1 | c=0) = θ(1-γ) / (1-θγ),   P(R=1 | c=0) = (1-θ)γ / (1-θγ),

    and the M-step sets θ(p) to the mean of c + (1-c)·P(E=1 | c=0) over the rows
    at p, and γ to the mean (``item``: per item) or the logistic regression on
    ``features`` (the regression-EM) of c + (1-c)·P(R=1 | c=0).

    **Identifiability.** θ and γ can only be told apart where the same items
    appear at several positions (ranking changes over time, or different
    rankers). With ``item``, a position is *identified* when items shown at it
    and at position 1 link it to position 1 (directly or through other
    positions); the propensity of any other position is NaN, with a warning (on
    one fixed ranking no position but 1 is identified). A warning also says when
    the items have few impressions each (median below 10): the EM is then biased
    (docs/online.md has a table of how much data it needs). With ``features``
    the regression must not be able to predict the position; no check is made.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks.
    position : array-like of shape (n_samples,)
        1-based shown position (only shown rows: 0 is refused).
    item : array-like of shape (n_samples,), default=None
        Key of the relevance γ (e.g. the query-document pair id).
    features : array-like of shape (n_samples, n_features), default=None
        Features of the relevance regression (needs scikit-learn); exactly one of
        ``item`` and ``features`` is given.
    groups : array-like of shape (n_samples,), default=None
        Query or session id of each row: the unit the bootstrap resamples (None:
        each row is its own unit).
    max_iter : int, default=1000
    tol : float, default=1e-7
        Stop when no θ(p) moves by more than this.
    n_bootstrap : int, default=0
        Bootstrap resamples (of ``groups``) for ``standard_error``; 0 leaves it
        NaN. Each resample refits the EM from the fitted values (warm start).
    random_state : None, int, RandomState or Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    estimate : PropensityEstimate
        ``.propensity`` = θ(p) / θ(1), ``.identified``, ``.standard_error``.

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
    pos = check_position(position, func, unshown=False)
    n = check_same_length(func, clicks=c, position=pos)
    if (item is None) == (features is None):
        raise ValueError(
            f"{func} needs exactly one of item= (a relevance key per row) and "
            "features= (a feature matrix for the relevance regression)."
        )
    rng = check_random_state(random_state, func)
    unit = None if groups is None else encode_groups(groups, n, func)[0]
    size = int(pos.max())
    identified = None
    if item is not None:
        key, _ = encode_groups(item, n, func)
        identified = _identified(key, pos - 1, size, func)
        fit = _EMFit(c, pos, size, _KeyRelevance(key), max_iter, tol)
    else:
        fit = _EMFit(c, pos, size, _RegressionRelevance(features), max_iter, tol)
    theta, gamma, n_iter, converged = fit.run(None, None)
    if not converged:
        warnings.warn(
            f"{func} did not converge in {max_iter} iterations; raise max_iter.",
            RuntimeWarning,
            stacklevel=2,
        )
    n_at = fit.n_at
    prop = np.where(n_at > 0, theta / theta[0], np.nan)
    if identified is not None:
        prop = np.where(identified, prop, np.nan)
    se = np.full(size, np.nan)
    if n_bootstrap:
        se = fit.bootstrap_se(theta, gamma, unit, n_bootstrap, rng)
        if identified is not None:
            se = np.where(identified, se, np.nan)
    no_clip = np.zeros(size, dtype=bool)
    return PropensityEstimate(
        prop, se, n_at, n_iter, prop.copy(), no_clip, None, identified, "em"
    )


def _identified(key: np.ndarray, p: np.ndarray, size: int, func: str) -> np.ndarray:
    """Positions linked to position 1 through items shown at both, and warnings
    for unlinked positions and thin items."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_items = int(key.max()) + 1
    pairs = np.unique(key * size + p)
    k, q = pairs // size, pairs % size
    # an item's positions are linked to its first one: a star per item
    first = seg.segment_min(k, q.astype(np.float64), n_items, size).astype(np.int64)
    graph = coo_matrix((np.ones(q.size), (first[k], q)), shape=(size, size))
    _, label = connected_components(graph, directed=False)
    seen = seg.segment_count(p, size) > 0
    identified = seen & (label == label[0])
    lost = np.flatnonzero(seen & ~identified)
    if lost.size:
        shown = ", ".join(str(i + 1) for i in lost[:8])
        warnings.warn(
            f"{func} cannot identify the propensity of position(s) {shown}"
            f"{', ...' if lost.size > 8 else ''}: no item shown there was also shown "
            "at a position linked to position 1, so examination and relevance cannot "
            "be told apart (they are NaN). Log the same items at several positions "
            "(e.g. randomise or swap), or use propensity_from_swaps.",
            UserWarning,
            stacklevel=3,
        )
    per_item = seg.segment_count(key, n_items)
    median = float(np.median(per_item[per_item > 0]))
    if median < 10:
        warnings.warn(
            f"{func}: the items have a median of {median:g} impressions each; below "
            "about 10 the EM's propensities are biased (see the table in "
            "docs/online.md). Pool rare items or use propensity_from_swaps.",
            UserWarning,
            stacklevel=3,
        )
    return identified


class _EMFit:
    """The EM iterations on one log, and their bootstrap over units."""

    def __init__(self, c, pos, size, model, max_iter, tol) -> None:
        self.c, self.pos, self.size, self.model = c, pos, size, model
        self.max_iter, self.tol = max_iter, tol
        self.n_at = seg.segment_count(pos - 1, size)

    def run(self, theta, gamma, rows=None, weight=None):
        c = self.c if rows is None else self.c[rows]
        pos = self.pos if rows is None else self.pos[rows]
        w = np.ones(c.size) if weight is None else weight
        n_at = seg.segment_sum(pos - 1, w, self.size)
        theta = np.full(self.size, 0.5) if theta is None else theta.copy()
        gamma = self.model.init(c) if gamma is None else gamma
        n_iter, converged = 0, False
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007 (reported)
            t = theta[pos - 1]
            with np.errstate(invalid="ignore", divide="ignore"):
                denom = 1.0 - t * gamma
                e_post = np.where(c > 0, 1.0, t * (1.0 - gamma) / denom)
                r_post = np.where(c > 0, 1.0, (1.0 - t) * gamma / denom)
            new_theta = seg.segment_sum(pos - 1, w * e_post, self.size) / np.maximum(
                n_at, 1e-300
            )
            new_theta = np.where(n_at > 0, new_theta, theta)
            gamma = self.model.fit(r_post, rows, w)
            converged = np.nanmax(np.abs(new_theta - theta)) <= self.tol
            theta = np.clip(new_theta, 1e-12, 1.0 - 1e-12)
            if converged:
                break
        return theta, gamma, n_iter, converged

    def bootstrap_se(self, theta, gamma, unit, n_boot, rng) -> np.ndarray:
        """Standard deviation of θ(p)/θ(1) over resamples of the units (each
        unit's rows get the count of its draws as weight)."""
        n = self.c.size
        unit = np.arange(n) if unit is None else unit
        n_units = int(unit.max()) + 1
        star = np.empty((n_boot, self.size))
        for b in range(n_boot):
            draws = seg.segment_count(rng.integers(0, n_units, n_units), n_units)
            w = draws[unit].astype(np.float64)
            rows = np.flatnonzero(w > 0)
            t, _, _, _ = self.run(theta, gamma[rows], rows, w[rows])
            star[b] = t / t[0]
        return star.std(axis=0, ddof=1) if n_boot > 1 else np.full(self.size, np.nan)


class _KeyRelevance:
    """γ per key: the plain EM of the position-based model."""

    def __init__(self, key: np.ndarray) -> None:
        self.key = key
        self.n_keys = int(key.max()) + 1

    def init(self, c: np.ndarray) -> np.ndarray:
        return np.full(c.size, 0.5)

    def fit(self, target: np.ndarray, rows=None, weight=None) -> np.ndarray:
        key = self.key if rows is None else self.key[rows]
        w = np.ones(target.size) if weight is None else weight
        total = seg.segment_sum(key, w * target, self.n_keys)
        count = np.maximum(seg.segment_sum(key, w, self.n_keys), 1e-300)
        return np.clip(total / count, 1e-12, 1 - 1e-12)[key]


class _RegressionRelevance:
    """γ(x) by logistic regression on soft targets (the regression-EM)."""

    def __init__(self, features: Any) -> None:
        from sklearn.linear_model import LogisticRegression

        x = check_numeric(
            np.asarray(features, dtype=float).ravel(),
            "features",
            "propensity_regression_em",
        ).reshape(len(features), -1)
        self.x = x
        self.model = LogisticRegression(warm_start=True, max_iter=200)

    def init(self, c: np.ndarray) -> np.ndarray:
        return np.full(c.size, 0.5)

    def fit(self, target: np.ndarray, rows=None, weight=None) -> np.ndarray:
        x = self.x if rows is None else self.x[rows]
        w = np.ones(target.size) if weight is None else weight
        m = target.size
        y = np.r_[np.ones(m), np.zeros(m)]
        self.model.fit(
            np.concatenate([x, x]), y, sample_weight=np.r_[w * target, w * (1 - target)]
        )
        gamma = self.model.predict_proba(x)[:, 1]
        return np.clip(gamma, 1e-12, 1 - 1e-12)
