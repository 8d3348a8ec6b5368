"""How many topics (queries) an evaluation needs: Sakai's topic set size design.

Sakai (2016, "Topic set size design", Information Retrieval Journal 19(3);
2018, Laboratory Experiments in Information Retrieval, ch. 6) sizes a test
collection from a variance estimate so that a test has the requested power
against a minimum detectable difference:

- paired t-test form (two systems): the smallest n with
  ``P(|T'| >= t_{alpha/2, n-1}) >= power``, ``T'`` a noncentral t with n - 1
  degrees of freedom and noncentrality ``effect * sqrt(n) / sigma_d``, where
  ``sigma_d**2 = 2 * variance`` is the variance of the per-topic differences;
- one-way ANOVA form (m systems): the smallest n with
  ``P(F' >= F_{alpha; m-1, m(n-1)}) >= power``, ``F'`` a noncentral F with
  noncentrality ``n * effect**2 / (2 * variance)``: the least favourable
  configuration, two systems ``effect`` apart and the others at their
  midpoint (Sakai's minD).

Here the powers are computed exactly from scipy's noncentral distributions
(Sakai's Excel tools use approximations, so their n can differ by one).
``variance`` is the residual variance V_E of a two-way ANOVA (systems x
topics) on pilot data: :func:`two_way_anova`'s ``residual_variance``.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._metrics.evaluate import GroupScores
from .._utils.params import param_error

_MAX_N = 1_000_000


@dataclass(frozen=True)
class TopicSetSize:
    """The result of :func:`topic_set_size`.

    Attributes
    ----------
    n_topics : int
        The smallest number of topics with at least the requested power.
    power : float
        The power at ``n_topics`` (at least the requested one).
    form : {"paired t", "one-way ANOVA"}
    effect, variance, alpha, requested_power : float
    n_systems : int
    """

    n_topics: int
    power: float
    form: str
    effect: float
    variance: float
    alpha: float
    requested_power: float
    n_systems: int

    def __str__(self) -> str:
        return (
            f"{self.n_topics} topics: power {self.power:.3f} (requested "
            f"{self.requested_power:g}) to detect a difference of {self.effect:g} "
            f"at alpha {self.alpha:g} with the {self.form} test, {self.n_systems} "
            f"systems, residual variance {self.variance:.6g} (Sakai's topic set "
            "size design)"
        )


def paired_t_power(n: int, effect: float, variance: float, alpha: float) -> float:
    """Power of the two-sided paired t-test on n topics (noncentral t)."""
    from scipy import stats

    df = n - 1
    nc = effect * np.sqrt(n) / np.sqrt(2 * variance)
    crit = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def anova_power(
    n: int, effect: float, variance: float, alpha: float, n_systems: int
) -> float:
    """Power of the one-way ANOVA F test, n topics per system (noncentral F)."""
    from scipy import stats

    df1, df2 = n_systems - 1, n_systems * (n - 1)
    nc = n * effect**2 / (2 * variance)
    crit = stats.f.ppf(1 - alpha, df1, df2)
    return float(stats.ncf.sf(crit, df1, df2, nc))


def _positive(name, value, func, upper=None):
    bad = (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not value > 0
        or (upper is not None and not value < upper)
    )
    if bad:
        rng = "(0, inf)" if upper is None else f"(0, {upper})"
        raise param_error(name, func, f"a float in the range {rng}", value)
    return float(value)


def _pilot_variance(pilot: Any, metric: str | None, func: str) -> float:
    from ._systems import anova_table

    if isinstance(pilot, Mapping):
        cols = []
        for v in pilot.values():
            if isinstance(v, GroupScores):
                if metric is None:
                    raise param_error(
                        "metric", func, "a metric name with GroupScores pilots", None
                    )
                v = v.values[metric]
            cols.append(np.asarray(v, dtype=float))
        x = np.stack(cols, axis=1)
    else:
        x = np.asarray(pilot, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise param_error(
            "pilot",
            func,
            "per-topic scores of at least 2 systems on at least 2 topics: a "
            "mapping of system to scores, or an array of shape (n_topics, "
            "n_systems)",
            f"shape {x.shape}",
        )
    x = x[~np.isnan(x).any(axis=1)]
    return anova_table(x)[-1]


def topic_set_size(
    effect: float,
    *,
    variance: float | None = None,
    pilot: Any = None,
    metric: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_systems: int = 2,
) -> TopicSetSize:
    """Topics needed to detect a difference with a given power (Sakai 2016).

    Parameters
    ----------
    effect : float
        Minimum detectable difference between two systems' mean scores
        (Sakai's minDt for two systems, minD between the best and the worst
        of ``n_systems``), e.g. 0.02 in NDCG@10.
    variance : float, default=None
        Residual variance of per-topic scores (V_E of a two-way ANOVA over
        systems x topics); the variance of a per-topic difference of two
        systems is ``2 * variance``. Give this or ``pilot``.
    pilot : mapping or array of shape (n_topics, n_systems), default=None
        Per-topic scores of a pilot: system name -> per-topic values (or
        GroupScores, with ``metric``); V_E is estimated from them
        (:func:`two_way_anova`).
    metric : str, default=None
        The metric read from GroupScores pilots.
    alpha : float, default=0.05
        Significance level (two-sided for the t form).
    power : float, default=0.8
        Requested power, ``1 - beta``.
    n_systems : int, default=2
        2: the paired t-test form; more: the one-way ANOVA form.

    Returns
    -------
    result : TopicSetSize
        ``n_topics`` and the power reached there.

    Examples
    --------
    >>> from sklearn_rank.stats import topic_set_size
    >>> r = topic_set_size(0.05, variance=0.02, power=0.8)
    >>> r.n_topics, round(r.power, 3)
    (128, 0.802)
    """
    func = "topic_set_size"
    effect = _positive("effect", effect, func)
    alpha = _positive("alpha", alpha, func, 1)
    power = _positive("power", power, func, 1)
    if isinstance(n_systems, bool) or not isinstance(n_systems, numbers.Integral):
        raise param_error("n_systems", func, "an int in the range [2, inf)", n_systems)
    if n_systems < 2:
        raise param_error("n_systems", func, "an int in the range [2, inf)", n_systems)
    if (variance is None) == (pilot is None):
        raise param_error(
            "variance",
            func,
            "a float when pilot is None (give exactly one of them)",
            variance,
        )
    if variance is None:
        variance = _pilot_variance(pilot, metric, func)
    variance = _positive("variance", variance, func)

    if n_systems == 2:
        form = "paired t"

        def at(n):
            return paired_t_power(n, effect, variance, alpha)
    else:
        form = "one-way ANOVA"

        def at(n):
            return anova_power(n, effect, variance, alpha, n_systems)

    # power grows with n: double up to a bracket, then bisect
    lo, hi = 2, 2
    while at(hi) < power:
        lo, hi = hi, hi * 2
        if hi > _MAX_N:
            raise ValueError(
                f"{func}: more than {_MAX_N} topics would be needed for effect "
                f"{effect:g} with variance {variance:g}; check the units."
            )
    while lo < hi:
        mid = (lo + hi) // 2
        if at(mid) >= power:
            hi = mid
        else:
            lo = mid + 1
    return TopicSetSize(
        hi, at(hi), form, effect, variance, alpha, power, int(n_systems)
    )
