"""How well offline metric changes predict online ones, across experiments."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._metrics.validation import check_lengths, check_numeric
from ._inputs import check_level


@dataclass(frozen=True)
class Agreement:
    """Correlation and sign agreement of offline and online deltas.

    Attributes
    ----------
    n : int
        Experiments.
    pearson, spearman, kendall : float
        Linear correlation, Spearman's rank correlation and Kendall's tau-b.
    pearson_ci, spearman_ci, kendall_ci : tuple of float
        Confidence intervals, always inside (-1, 1): Fisher's z for Pearson (as
        ``scipy.stats.pearsonr(...).confidence_interval()``), Fisher's z with the
        Bonett-Wright variance (1 + r²/2) / (n - 3) for Spearman and the
        Fieller-Hartley-Pearson variance 0.437 / (n - 4) for Kendall. A
        correlation at ±1 has an infinite z: its interval is centred at the
        nearest value the statistic can take below 1 in absolute value (Spearman:
        one adjacent swap, 1 - 12 / (n(n² - 1)); Kendall: one discordant pair,
        1 - 4 / (n(n - 1)); Pearson: the Spearman value), so that a perfect
        agreement over few experiments gives a wide interval, not a point.
    sign_agreement : float
        Share of the experiments with both deltas non-zero whose signs agree.
    sign_agreement_ci : tuple of float
        Clopper-Pearson interval of that share.
    n_signed : int
        Experiments with both deltas non-zero.
    confidence_level : float
    """

    n: int
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]
    kendall: float
    kendall_ci: tuple[float, float]
    sign_agreement: float
    sign_agreement_ci: tuple[float, float]
    n_signed: int
    confidence_level: float


def offline_online_agreement(
    offline_delta: ArrayLike,
    online_delta: ArrayLike,
    *,
    confidence_level: float = 0.95,
) -> Agreement:
    """Correlation of offline metric deltas with online deltas over experiments.

    The intervals treat the experiments as independent pairs measured without
    error. Two caveats the numbers cannot see: the online deltas are noisy
    (sampling error attenuates every correlation towards 0: with online
    standard errors s_i, Pearson's r is attenuated by about
    sqrt(1 - mean(s_i²) / Var(online_delta))), and experiments that share a
    control group share its noise, so they are not independent (use one
    treatment per control, or average the treatments of a control first).

    Parameters
    ----------
    offline_delta : array-like of shape (n_experiments,)
        Change of the offline metric (e.g. NDCG@10 of treatment minus control).
    online_delta : array-like of shape (n_experiments,)
        Change of the online metric in the same experiments (e.g. CTR).
    confidence_level : float, default=0.95

    Returns
    -------
    agreement : Agreement

    Examples
    --------
    >>> from sklearn_rank.online import offline_online_agreement
    >>> a = offline_online_agreement([0.01, 0.02, -0.01, 0.03, 0.00, 0.02],
    ...                              [0.002, 0.001, -0.003, 0.004, 0.001, -0.001])
    >>> a.n, round(a.spearman, 3), a.sign_agreement, a.n_signed
    (6, 0.603, 0.8, 5)
    """
    from scipy import stats

    func = "offline_online_agreement"
    level = check_level(confidence_level, func)
    x = check_numeric(offline_delta, "offline_delta", func)
    y = check_numeric(online_delta, "online_delta", func)
    n = check_lengths(func, offline_delta=x, online_delta=y)
    if n < 4:
        raise ValueError(
            f"{func} needs at least 4 experiments for correlation intervals; got {n}."
        )
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        raise ValueError(
            f"{func}: the {'offline' if np.ptp(x) == 0 else 'online'} deltas are all "
            "equal, so no correlation is defined."
        )
    pr = stats.pearsonr(x, y)
    r = float(pr.statistic)
    rho = float(stats.spearmanr(x, y).statistic)
    tau = float(stats.kendalltau(x, y).statistic)
    q = stats.norm.ppf(0.5 + level / 2)
    top_s = 1 - 12 / (n * (n * n - 1))
    top_k = 1 - 4 / (n * (n - 1))
    if abs(r) < top_s:
        p_ci = pr.confidence_interval(level)
        p_ci = (float(p_ci.low), float(p_ci.high))
    else:
        p_ci = _fisher_ci(r, top_s, q / np.sqrt(n - 3))
    s_ci = _fisher_ci(rho, top_s, q * np.sqrt((1 + rho**2 / 2) / (n - 3)))
    k_ci = (float("nan"), float("nan"))
    if n > 4:
        k_ci = _fisher_ci(tau, top_k, q * np.sqrt(0.437 / (n - 4)))
    signed = (x != 0) & (y != 0)
    m = int(signed.sum())
    agree = int((np.sign(x[signed]) == np.sign(y[signed])).sum())
    if m:
        ci = stats.binomtest(agree, m).proportion_ci(level)
        share, share_ci = agree / m, (float(ci.low), float(ci.high))
    else:
        share, share_ci = float("nan"), (float("nan"), float("nan"))
    return Agreement(
        n,
        r,
        p_ci,
        rho,
        s_ci,
        tau,
        k_ci,
        share,
        share_ci,
        m,
        level,
    )


def _fisher_ci(r: float, top: float, half: float) -> tuple[float, float]:
    """tanh(atanh(r) ± half), with |r| capped at ``top`` (< 1)."""
    z = np.arctanh(np.clip(r, -top, top))
    return float(np.tanh(z - half)), float(np.tanh(z + half))
