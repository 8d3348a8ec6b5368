"""A/B tests of online metrics between two arms with different groups: ratio
metrics with delta-method standard errors clustered by group, CUPED, sample
sizes."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._metrics.validation import check_numeric
from .._utils.params import (
    Interval,
    StrOptions,
    check_param,
    param_error,
    validate_params,
)
from ._inputs import (
    check_clicks,
    check_level,
    check_log,
    check_same_length,
    show_id,
)

AB_METRICS = ("ctr", "clicks_per_group")
ALTERNATIVES = ("two-sided", "less", "greater")


@dataclass(frozen=True)
class ABTestResult:
    """The result of :func:`ab_test`: arm B minus arm A.

    Attributes
    ----------
    metric : str
    value_a, value_b : float
        The metric in each arm (CUPED-adjusted when a covariate is given).
    diff : float
        ``value_b - value_a``.
    standard_error : float
        Of ``diff``: delta method, clustered by group (groups independent, the
        rows of a group not).
    ci_low, ci_high : float
        Normal interval of ``diff`` (one end infinite for one-sided tests).
    p_value : float
        Of the z test of ``diff == 0`` against ``alternative``.
    n_groups_a, n_groups_b : int
    cuped_theta : float or None
        The CUPED coefficient (None without a covariate).
    variance_reduction : float
        1 - Var(adjusted) / Var(unadjusted) of ``diff`` (0 without a covariate).
    alternative : str
    confidence_level : float
    """

    metric: str
    value_a: float
    value_b: float
    diff: float
    standard_error: float
    ci_low: float
    ci_high: float
    p_value: float
    n_groups_a: int
    n_groups_b: int
    cuped_theta: float | None
    variance_reduction: float
    alternative: str
    confidence_level: float

    def __repr__(self) -> str:
        cuped = (
            ""
            if self.cuped_theta is None
            else (f", CUPED variance reduction {self.variance_reduction:.1%}")
        )
        return (
            f"ABTestResult({self.metric}: A {self.value_a:.6g}, B {self.value_b:.6g}, "
            f"diff (B - A) {self.diff:.6g} [{self.ci_low:.6g}, {self.ci_high:.6g}] at "
            f"{self.confidence_level:g}, SE {self.standard_error:.4g}, "
            f"p={self.p_value:.4g} ({self.alternative}), groups "
            f"{self.n_groups_a} / {self.n_groups_b}{cuped})"
        )


@dataclass(frozen=True)
class _Arm:
    """Per-group totals of one arm: clicks C_g, impressions N_g, covariate X_g."""

    clicks: np.ndarray
    impressions: np.ndarray
    covariate: np.ndarray | None

    @property
    def n(self) -> int:
        return self.clicks.size

    def linearized(self, metric: str) -> tuple[float, np.ndarray]:
        """The arm's metric and its per-group influence values: the metric's
        mean is the mean of ``value + influence`` to first order (the delta
        method), so Var(metric) = Var(influence) / n."""
        c, m = self.clicks, self.impressions
        if metric == "clicks_per_group":
            value = float(c.mean())
            return value, c - value
        value = float(c.sum() / m.sum())
        return value, (c - value * m) / m.mean()


def _arm(clicks, groups, covariate, label: str, func: str) -> _Arm:
    """Per-group totals of one arm (``label``: "_a", "_b" or "" for the names)."""
    c = check_clicks(clicks, func, f"clicks{label}")
    n = c.size
    log = check_log(func, groups, n=n)
    if log.n_groups < 2:
        raise ValueError(
            f"groups{label} in {func} holds {log.n_groups} group; the standard "
            "error is clustered by group and needs at least 2 per arm."
        )
    cov = None
    if covariate is not None:
        x = check_numeric(covariate, f"covariate{label}", func)
        check_same_length(func, **{f"clicks{label}": c, f"covariate{label}": x})
        lo = seg.segment_min(log.codes, x, log.n_groups, np.inf)
        hi = seg.segment_max(log.codes, x, log.n_groups, -np.inf)
        bad = np.flatnonzero(lo != hi)
        if bad.size:
            gid = show_id(log.group_ids[bad[0]])
            raise ValueError(
                f"covariate{label} in {func} differs within group {gid} (values "
                f"{lo[bad[0]]:g} and {hi[bad[0]]:g}); give every row its group's "
                "pre-period value (e.g. the group's clicks per impression before "
                "the test)."
            )
        cov = lo
    return _Arm(log.group_sum(c), log.group_count().astype(np.float64), cov)


@validate_params(
    {
        "metric": [StrOptions(*AB_METRICS)],
        "alternative": [StrOptions(*ALTERNATIVES)],
    }
)
def ab_test(
    clicks_a: ArrayLike,
    clicks_b: ArrayLike,
    *,
    groups_a: ArrayLike,
    groups_b: ArrayLike,
    metric: str = "ctr",
    covariate_a: ArrayLike | None = None,
    covariate_b: ArrayLike | None = None,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> ABTestResult:
    """A/B test of an online metric between two arms with different groups.

    Rows are impressions of arm A and of arm B; each arm's groups (users or
    sessions: the unit that was randomised) are its own. Per group g, C_g is its
    clicks and N_g its impressions (rows).

    - ``"ctr"``: clicks per impression, Σ C / Σ N per arm: a ratio of sums over
      groups. Its standard error is the delta method's, clustered by group:
      Var = Var_g(C_g − R N_g) / (n N̄²) (Deng et al., 2018), which stays right
      when the rows of a group are correlated (a naive binomial SE over rows
      does not);
    - ``"clicks_per_group"``: the mean of C_g over groups; Var = Var_g(C_g) / n.

    The difference B − A is tested with a z test (unequal variances), whose
    normal approximation needs a few hundred groups per arm with skewed group
    sizes (docs/online.md has the calibration).

    **CUPED** (Deng et al., 2013): with a pre-period covariate X_g per group
    (e.g. the group's CTR or clicks before the test, unaffected by the
    treatment), each arm's linearized metric is replaced by L_g − θ(X_g − X̄)
    with θ the pooled within-arm regression slope of L on X (X̄ the mean over
    both arms): the treatment estimate of the regression L ~ arm + X. The
    expected difference is unchanged; the variance drops by the squared
    correlation of L and X.

    Parameters
    ----------
    clicks_a, clicks_b : array-like of shape (n_rows_a,), (n_rows_b,)
        0/1 clicks of each impression of arm A (control) and B (treatment).
    groups_a, groups_b : array-like
        Group (user or session) of each row of A and B.
    metric : {"ctr", "clicks_per_group"}, default="ctr"
    covariate_a, covariate_b : array-like, default=None
        The pre-period covariate of each row's group (the same on every row of a
        group); both or neither.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        "greater": B's metric is larger.
    confidence_level : float, default=0.95

    Returns
    -------
    result : ABTestResult
        ``.diff``, ``.ci_low``, ``.ci_high``, ``.p_value``, ``.standard_error``.

    Examples
    --------
    >>> from sklearn_rank.online import ab_test
    >>> r = ab_test([1, 0, 0, 1, 0, 0], [1, 1, 0, 1, 0, 1],
    ...             groups_a=[0, 0, 1, 1, 2, 2], groups_b=[0, 0, 1, 1, 2, 2])
    >>> round(r.diff, 4), r.n_groups_a
    (0.3333, 3)
    """
    from scipy.special import ndtr, ndtri

    func = "ab_test"
    level = check_level(confidence_level, func)
    if (covariate_a is None) != (covariate_b is None):
        given = "covariate_a" if covariate_b is None else "covariate_b"
        raise param_error(
            given,
            func,
            "None when the other arm has no covariate",
            "an array",
            "Give both covariate_a and covariate_b (CUPED), or neither.",
        )
    a = _arm(clicks_a, groups_a, covariate_a, "_a", func)
    b = _arm(clicks_b, groups_b, covariate_b, "_b", func)
    va, la = a.linearized(metric)
    vb, lb = b.linearized(metric)
    var_plain = la.var(ddof=1) / a.n + lb.var(ddof=1) / b.n
    theta, reduction = None, 0.0
    if a.covariate is not None:
        xa, xb = a.covariate, b.covariate
        xa_c, xb_c = xa - xa.mean(), xb - xb.mean()
        sxx = (xa_c**2).sum() + (xb_c**2).sum()
        if sxx <= 0:
            raise ValueError(
                f"covariate_a and covariate_b in {func} are constant within each "
                "arm, so CUPED has nothing to adjust with; drop them."
            )
        theta = float(((la * xa_c).sum() + (lb * xb_c).sum()) / sxx)
        x_bar = (xa.sum() + xb.sum()) / (a.n + b.n)
        va -= theta * (xa.mean() - x_bar)
        vb -= theta * (xb.mean() - x_bar)
        la, lb = la - theta * xa_c, lb - theta * xb_c
    var = la.var(ddof=1) / a.n + lb.var(ddof=1) / b.n
    if theta is not None and var_plain > 0:
        reduction = float(1.0 - var / var_plain)
    diff = vb - va
    se = float(np.sqrt(var))
    if se == 0:
        raise ValueError(
            f"{func}: every group of both arms has the same {metric}, so the "
            "difference has no variance to test against."
        )
    z = diff / se
    if alternative == "two-sided":
        p = float(2 * ndtr(-abs(z)))
        half = ndtri(0.5 + level / 2) * se
        low, high = diff - half, diff + half
    elif alternative == "greater":
        p = float(ndtr(-z))
        low, high = diff - ndtri(level) * se, np.inf
    else:
        p = float(ndtr(z))
        low, high = -np.inf, diff + ndtri(level) * se
    return ABTestResult(
        metric, float(va), float(vb), float(diff), se, float(low), float(high), p,
        a.n, b.n, theta, reduction, alternative, level,
    )  # fmt: skip


@validate_params(
    {
        "metric": [StrOptions(*AB_METRICS)],
        "alternative": [StrOptions(*ALTERNATIVES)],
        "ratio": [Interval(numbers.Real, 0, None, closed="neither")],
        "effect": [Interval(numbers.Real, None, None)],
    }
)
def ab_sample_size(
    clicks: ArrayLike,
    *,
    groups: ArrayLike,
    effect: float,
    metric: str = "ctr",
    alpha: float = 0.05,
    power: float = 0.8,
    ratio: float = 1.0,
    alternative: str = "two-sided",
) -> int:
    """Groups needed in arm A to detect an absolute change ``effect`` of the metric.

    The per-group variance of the metric's linearization (as in :func:`ab_test`)
    is estimated on a pilot log (``clicks``, ``groups``: e.g. last week's
    traffic) and taken to be the same in both arms; arm B gets ``ratio`` times as
    many groups. n_A = (z_(1-α/2) + z_power)² σ² (1 + 1/ratio) / effect², the
    normal power calculation of ``statsmodels.stats.power.NormalIndPower`` with
    effect size ``effect / σ``.

    Parameters
    ----------
    clicks : array-like of shape (n_rows,)
        0/1 clicks of the pilot log.
    groups : array-like of shape (n_rows,)
        Group of each row.
    effect : float
        The absolute difference to detect (e.g. 0.002 for +0.2 points of CTR).
    metric : {"ctr", "clicks_per_group"}, default="ctr"
    alpha : float, default=0.05
    power : float, default=0.8
    ratio : float, default=1.0
        Groups of B per group of A.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"

    Returns
    -------
    n_groups_a : int
        Rounded up; B needs ``ceil(ratio * n_groups_a)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.online import ab_sample_size
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.integers(0, 2000, 20000)  # about 10 impressions per user
    >>> clicks = (rng.random(20000) < 0.1).astype(int)  # CTR 0.1
    >>> ab_sample_size(clicks, groups=groups, effect=0.01)  # users per arm
    1368
    """
    from scipy.special import ndtri

    func = "ab_sample_size"
    for name, value in (("alpha", alpha), ("power", power)):
        check_param(
            value, name, func, (Interval(numbers.Real, 0, 1, closed="neither"),)
        )
    if effect == 0:
        raise param_error("effect", func, "a non-zero difference", effect)
    arm = _arm(clicks, groups, None, "", func)
    _, infl = arm.linearized(metric)
    sigma2 = infl.var(ddof=1)
    z_a = ndtri(1 - alpha / 2) if alternative == "two-sided" else ndtri(1 - alpha)
    n = (z_a + ndtri(power)) ** 2 * sigma2 * (1 + 1 / ratio) / effect**2
    return int(np.ceil(n))
