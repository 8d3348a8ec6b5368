"""How well offline metric changes predict online ones, across experiments."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._engine.group_codes import encode_groups
from .._engine.reduce import group_counts
from .._metrics.validation import check_lengths, check_numeric
from ._inputs import check_level, show_id


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
        Below ±1 the Pearson interval is scipy's, unchanged. With exactly 4
        experiments Kendall's variance is infinite: ``kendall_ci`` is
        (-1.0, 1.0) and a UserWarning says so.
    sign_agreement : float
        Share of the experiments with both deltas non-zero whose signs agree.
    sign_agreement_ci : tuple of float
        Clopper-Pearson interval of that share.
    n_signed : int
        Experiments with both deltas non-zero.
    confidence_level : float
    online_reliability : float or None
        With ``online_standard_error``: 1 - mean(s²) / Var(online_delta), the
        share of the online deltas' variance that is not sampling noise.
    pearson_corrected, pearson_corrected_ci : float, tuple or None
        Pearson's r and its interval divided by sqrt(reliability) (Spearman's
        correction for attenuation), capped inside (-1, 1).
    shared_controls : int
        Experiments whose control group another experiment also uses (0 without
        ``control``).
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
    online_reliability: float | None = None
    pearson_corrected: float | None = None
    pearson_corrected_ci: tuple[float, float] | None = None
    shared_controls: int = 0


def offline_online_agreement(
    offline_delta: ArrayLike,
    online_delta: ArrayLike,
    *,
    online_standard_error: ArrayLike | None = None,
    control: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> Agreement:
    """Correlation of offline metric deltas with online deltas over experiments.

    The intervals treat the experiments as independent pairs measured without
    error. Two things they cannot see unless told: the online deltas are noisy
    (sampling error attenuates every correlation towards 0: with online
    standard errors s_i, Pearson's r by about sqrt(reliability), reliability =
    1 - mean(s_i²) / Var(online_delta); pass ``online_standard_error`` for the
    corrected value), and experiments that share a control group share its
    noise, so they are not independent (pass ``control`` to be warned; use one
    treatment per control, or average the treatments of a control first).

    Parameters
    ----------
    offline_delta : array-like of shape (n_experiments,)
        Change of the offline metric (e.g. NDCG@10 of treatment minus control).
    online_delta : array-like of shape (n_experiments,)
        Change of the online metric in the same experiments (e.g. CTR).
    online_standard_error : array-like of shape (n_experiments,), default=None
        Standard error of each online delta (e.g. ``ab_test(...).standard_error``).
    control : array-like of shape (n_experiments,), default=None
        Id of each experiment's control group; a warning names shared ones.
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
    if abs(r) < 1.0:  # scipy's interval itself, however close to ±1
        p_ci = pr.confidence_interval(level)
        p_ci = (float(p_ci.low), float(p_ci.high))
    else:  # exactly ±1: z is infinite, centre at the Spearman value below 1
        p_ci = _fisher_ci(r, top_s, q / np.sqrt(n - 3))
    s_ci = _fisher_ci(rho, top_s, q * np.sqrt((1 + rho**2 / 2) / (n - 3)))
    if n > 4:
        k_ci = _fisher_ci(tau, top_k, q * np.sqrt(0.437 / (n - 4)))
    else:
        warnings.warn(
            f"{func}: with 4 experiments the Fieller-Hartley-Pearson variance "
            "0.437 / (n - 4) of Kendall's tau is infinite, so kendall_ci is the "
            "whole range (-1.0, 1.0); give at least 5 experiments for a finite "
            "interval.",
            UserWarning,
            stacklevel=2,
        )
        k_ci = (-1.0, 1.0)
    rel, r_corr, r_corr_ci = _disattenuated(online_standard_error, y, r, p_ci, n, func)
    shared = _shared_controls(control, n, func)
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
        rel,
        r_corr,
        r_corr_ci,
        shared,
    )


def _fisher_ci(r: float, top: float, half: float) -> tuple[float, float]:
    """tanh(atanh(r) ± half), with |r| capped at ``top`` (< 1)."""
    z = np.arctanh(np.clip(r, -top, top))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def _disattenuated(se, y, r, r_ci, n, func):
    """Reliability of the online deltas and Pearson's r corrected for it."""
    if se is None:
        return None, None, None
    s = check_numeric(se, "online_standard_error", func)
    check_lengths(func, online_delta=y, online_standard_error=s)
    if (s < 0).any():
        i = int(np.flatnonzero(s < 0)[0])
        raise ValueError(
            f"online_standard_error in {func} must be >= 0; got {s[i]!r} at "
            f"experiment {i}."
        )
    rel = float(1.0 - np.mean(s**2) / np.var(y, ddof=1))
    if rel <= 0:
        warnings.warn(
            f"{func}: the online deltas vary no more than their standard errors "
            f"(reliability {rel:.3g}); their correlation with anything is noise, "
            "and no corrected value is given.",
            UserWarning,
            stacklevel=3,
        )
        return rel, None, None
    root = np.sqrt(rel)
    cap = 1 - 1e-12

    def fix(v):
        return float(np.clip(v / root, -cap, cap))

    return rel, fix(r), (fix(r_ci[0]), fix(r_ci[1]))


def _shared_controls(control, n, func) -> int:
    if control is None:
        return 0
    codes, ids = encode_groups(control, n, func)
    count = group_counts(codes, ids.size)
    shared = int((count[codes] > 1).sum())
    if shared:
        names = ", ".join(show_id(i) for i in ids[count > 1][:5])
        warnings.warn(
            f"{func}: {shared} experiments share a control group ({names}); their "
            "online deltas share its noise, so the intervals, which take the "
            "experiments as independent, are too narrow. Use one treatment per "
            "control, or average the treatments of a control first.",
            UserWarning,
            stacklevel=3,
        )
    return shared
