"""Bootstrap over groups of weighted means, many columns per resample.

A resample draws groups with replacement; the statistic of a column is the
weighted mean ``sum_i c_i w_i v_i / sum_i c_i w_i`` with ``c_i`` the number of
times group i was drawn, i.e. the mean ``evaluate`` computes on the resampled
groups. Columns that share their groups share the draws (one count matrix, one
matrix product per batch), which also makes the bootstrap of a difference paired.

scipy.stats.bootstrap computes the same intervals (the tests compare with it);
it is not used here because it calls the statistic on index arrays of shape
(resamples, n) per column, while one count matrix serves every column here.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

# Bytes of float64 counts held at once (resamples x groups never at once).
_COUNT_BUDGET = 1 << 25


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> float:
    """The mean ``evaluate`` returns: same operations, so the same float."""
    return float(np.dot(weights, values) / weights.sum())


def bootstrap_distribution(
    values: np.ndarray,
    weights: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Resampled weighted means, shape (n_resamples, n_columns).

    ``values`` and ``weights`` have shape (n, n_columns): the same n groups are
    drawn for every column.
    """
    n, n_cols = values.shape
    rhs = np.concatenate([weights * values, weights], axis=1)
    batch = int(max(1, min(n_resamples, _COUNT_BUDGET // (8 * n))))
    out = np.empty((n_resamples, n_cols))
    offsets = (np.arange(batch, dtype=np.int64) * n)[:, None]
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        draws = rng.integers(0, n, size=(b, n), dtype=np.int64)
        draws += offsets[:b]
        counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)
        sums = counts @ rhs
        with np.errstate(invalid="ignore", divide="ignore"):
            out[done : done + b] = sums[:, :n_cols] / sums[:, n_cols:]
        done += b
    return out


def _jackknife_acceleration(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """BCa acceleration from leave-one-group-out weighted means (closed form)."""
    total_w = weights.sum(axis=0)
    total = (weights * values).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = (total - weights * values) / (total_w - weights)
    u = loo.mean(axis=0) - loo
    with np.errstate(invalid="ignore", divide="ignore"):
        return (u**3).sum(axis=0) / (6 * ((u**2).sum(axis=0)) ** 1.5)


def confidence_interval(
    theta_hat: np.ndarray,
    theta_star: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    confidence_level: float,
    method: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile or BCa interval per column (Efron & Tibshirani 1993, 14.3).

    Same definitions as scipy.stats.bootstrap: the bias correction uses the
    'mean' percentile of the estimate among the resamples, the acceleration the
    jackknife, and the interval ends are linear-interpolated percentiles.
    """
    alpha = (1 - confidence_level) / 2
    n_cols = theta_star.shape[1]
    if method == "percentile":
        a1 = np.full(n_cols, alpha)
        a2 = np.full(n_cols, 1 - alpha)
    else:
        below = (theta_star < theta_hat).sum(axis=0)
        at_or_below = (theta_star <= theta_hat).sum(axis=0)
        z0 = ndtri((below + at_or_below) / (2 * theta_star.shape[0]))
        acc = _jackknife_acceleration(values, weights)
        z = ndtri(alpha)
        a1 = ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        a2 = ndtr(z0 + (z0 - z) / (1 - acc * (z0 - z)))
    low = np.empty(n_cols)
    high = np.empty(n_cols)
    for j in range(n_cols):
        col = theta_star[:, j]
        if np.all(col == theta_hat[j]):  # constant values: the interval is a point
            low[j] = high[j] = theta_hat[j]
            continue
        if np.isnan(a1[j]) or np.isnan(a2[j]) or np.isnan(col).any():
            low[j] = high[j] = np.nan
            continue
        low[j], high[j] = np.percentile(col, [100 * a1[j], 100 * a2[j]])
    return low, high
