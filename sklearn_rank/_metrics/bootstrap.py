"""Bootstrap over groups of weighted means, many columns per resample.

A resample draws groups with replacement; the statistic of a column is the
weighted mean ``sum_i c_i w_i v_i / sum_i c_i w_i`` with ``c_i`` the number of
times group i was drawn, i.e. the mean ``evaluate`` computes on the resampled
groups. Columns that share their groups share the draws (one count matrix, one
matrix product per batch), which also makes the bootstrap of a difference paired.

scipy.stats.bootstrap computes the same percentile and BCa intervals (the tests
compare with it); it is not used here because it calls the statistic on index
arrays of shape (resamples, n) per column, while one count matrix serves every
column here. scipy has no studentized bootstrap (bootstrap-t); it is written here
from Efron & Tibshirani (1993, 12.5) and checked against a plain loop in the tests.

No labels are scored here, so there is nothing to :func:`~.prepared.prepare`:
a resample reweights the per-group values computed once before it (by
``stats``' per-model evaluation, which prepares the labels once for several
models, or by the online estimators' per-group sums).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .._engine.reduce import weighted_average, weighted_averages
from .shards import map_threads

# Bytes of counts per block of resamples (resamples x groups never at once;
# small blocks stay in cache and out of the allocator's page faults).
_COUNT_BUDGET = 1 << 20

# Resamples drawn from one seed at most. The blocks are the threads' unit of
# work (``n_jobs``), cut by the data's size and ``n_resamples`` alone, so the
# number of threads never changes a draw.
BLOCK_RESAMPLES = 512


def resample_blocks(
    rng: np.random.Generator, n_resamples: int, bytes_per_resample: int, budget: int
) -> list[tuple[int, int, np.random.Generator]]:
    """``(start, stop, generator)`` of each block of resamples, in order.

    The blocks' seeds are drawn from ``rng`` up front, one per block, so the
    resamples are the same whichever thread draws a block and in what order.
    A block holds at most ``budget`` bytes (``bytes_per_resample`` each) and
    :data:`BLOCK_RESAMPLES` resamples.
    """
    size = int(max(1, min(n_resamples, BLOCK_RESAMPLES, budget // bytes_per_resample)))
    starts = range(0, n_resamples, size)
    seeds = rng.integers(0, 2**63, size=len(starts), dtype=np.int64)
    return [
        (a, min(a + size, n_resamples), np.random.default_rng(int(s)))
        for a, s in zip(starts, seeds.tolist(), strict=True)
    ]


def run_blocks(work: Callable[[Any], Any], blocks: list, n_threads: int = 1) -> list:
    """``work`` on each block, on ``n_threads`` threads; results in block order."""
    return map_threads(work, blocks, max(int(n_threads), 1))


# The mean ``evaluate`` returns: the one formula, so the same float.
weighted_mean = weighted_average


def standard_error(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Standard error of each column's weighted mean (the bootstrap-t scale).

    ``sqrt(n / (n - 1) * sum_i w_i**2 (v_i - mean)**2) / sum_i w_i``: with equal
    weights, the sample standard deviation (ddof=1) over ``sqrt(n)``.
    """
    n = values.shape[0]
    theta = weighted_averages(values, weights)
    ss = (weights**2 * (values - theta) ** 2).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(ss * n / (n - 1)) / weights.sum(axis=0)


def bootstrap_distribution(
    values: np.ndarray,
    weights: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    studentized: bool = False,
    n_threads: int = 1,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Resampled weighted means, shape (n_resamples, n_columns).

    ``values`` and ``weights`` have shape (n, n_columns): the same n groups are
    drawn for every column. With ``studentized``, also the standard error of
    every resampled mean (same formula as :func:`standard_error`, computed from
    the same count matrix), as a second array of the same shape. The blocks of
    resamples (:func:`resample_blocks`) run on ``n_threads`` threads, with the
    same result bit for bit.
    """
    n, n_cols = values.shape
    # Centred at the sample mean: the sums of squares below lose no precision.
    centre = weighted_averages(values, weights)
    u = values - centre
    w2 = weights**2
    parts = [weights * u, weights]
    if studentized:
        parts += [w2 * u * u, w2 * u, w2]
    rhs = np.concatenate(parts, axis=1)
    blocks = resample_blocks(rng, n_resamples, 8 * n, _COUNT_BUDGET)
    out = np.empty((n_resamples, n_cols))
    se = np.empty((n_resamples, n_cols)) if studentized else None
    size = blocks[0][1] - blocks[0][0] if blocks else 0
    offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
    k = n_cols

    def draw(block):
        start, stop, block_rng = block
        b = stop - start
        draws = block_rng.integers(0, n, size=(b, n), dtype=np.int64)
        draws += offsets[:b]
        counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)
        sums = counts @ rhs
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = sums[:, :k] / sums[:, k : 2 * k]  # resampled mean - centre
            out[start:stop] = centre + delta
            if se is not None:
                s_uu, s_u, s_1 = (sums[:, j * k : (j + 1) * k] for j in (2, 3, 4))
                ss = s_uu - 2 * delta * s_u + delta**2 * s_1
                # sums of squares within rounding of 0: every drawn value equal
                ss[ss <= 1e-13 * s_uu] = 0.0
                se[start:stop] = np.sqrt(ss * n / (n - 1)) / sums[:, k : 2 * k]

    run_blocks(draw, blocks, n_threads)
    return out if se is None else (out, se)


def studentized(theta_hat, se_hat, theta_star, se_star, n=None):
    """Bootstrap-t statistics ``(theta* - theta) / se*`` per resample.

    With ``n`` (the number of groups), ``se*`` is floored at ``se / sqrt(n)``:
    on tied or discrete scores a resample that draws few distinct values has a
    standard error near or at 0, and its t* near infinity would make the
    interval's ends infinite (``[-0.015, inf)`` for a metric in [0, 1]) and
    the quantiles erratic. The floor leaves t* unchanged wherever ``se*`` is
    within ``sqrt(n)`` of ``se``, the usual case (docs/statistics.md,
    Calibration). Without a floor, or when ``se`` is 0, a resample whose values
    are all equal has ``se* = 0``: its statistic is 0 when its mean equals the
    estimate and +-inf otherwise (never NaN).
    """
    delta = theta_star - theta_hat
    if n is not None and se_hat > 0:
        se_star = np.maximum(se_star, se_hat / np.sqrt(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        t = delta / se_star
    zero = se_star == 0
    t[zero] = np.where(delta[zero] == 0, 0.0, np.copysign(np.inf, delta[zero]))
    return t


def _jackknife_acceleration(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """BCa acceleration from leave-one-group-out weighted means (closed form)."""
    total_w = weights.sum(axis=0)
    total = (weights * values).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = (total - weights * values) / (total_w - weights)
    u = loo.mean(axis=0) - loo
    with np.errstate(invalid="ignore", divide="ignore"):
        return (u**3).sum(axis=0) / (6 * ((u**2).sum(axis=0)) ** 1.5)


def _sides(confidence_level, alternative, n_cols):
    """Tail probabilities below the low and high ends; NaN: that end is infinite.

    Two-sided: ``(alpha / 2, 1 - alpha / 2)``; "greater" (the mean is above):
    ``(alpha, -)``, so the interval is ``[low, inf)``; "less": ``(-, 1 - alpha)``,
    the interval ``(-inf, high]``; with ``alpha = 1 - confidence_level``.
    """
    alpha = 1 - confidence_level
    alt = np.broadcast_to(np.asarray(alternative, dtype=object), (n_cols,))
    lo = np.where(
        alt == "two-sided", alpha / 2, np.where(alt == "greater", alpha, np.nan)
    )
    hi = np.where(
        alt == "two-sided", 1 - alpha / 2, np.where(alt == "less", 1 - alpha, np.nan)
    )
    return lo.astype(float), hi.astype(float)


def _quantile(col, q):
    """Linear-interpolated quantile that keeps infinite ends infinite (no NaN)."""
    big = 1e300
    v = np.quantile(np.clip(col, -big, big), q)
    return np.where(np.abs(v) >= 1e299, np.sign(v) * np.inf, v)


def confidence_interval(
    theta_hat: np.ndarray,
    theta_star: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    confidence_level: float,
    method: str,
    alternative: str | np.ndarray = "two-sided",
    se_star: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile, BCa or bootstrap-t interval per column.

    Percentile and BCa: the same definitions as scipy.stats.bootstrap (Efron &
    Tibshirani 1993, 13.3 and 14.3): the bias correction uses the 'mean'
    percentile of the estimate among the resamples, the acceleration the
    jackknife, and the interval ends are linear-interpolated percentiles.
    Bootstrap-t (12.5): ``[theta - t*_(1 - a_lo) se, theta - t*_(a_lo') se]``
    with t* the studentized resamples and se the sample's standard error.
    ``alternative`` (one per column or one for all) makes the interval
    one-sided, with the other end infinite.
    """
    n_cols = theta_star.shape[1]
    p_lo, p_hi = _sides(confidence_level, alternative, n_cols)
    open_lo, open_hi = np.isnan(p_lo), np.isnan(p_hi)
    if method == "BCa":
        below = (theta_star < theta_hat).sum(axis=0)
        at_or_below = (theta_star <= theta_hat).sum(axis=0)
        z0 = ndtri((below + at_or_below) / (2 * theta_star.shape[0]))
        acc = _jackknife_acceleration(values, weights)
        z_lo, z_hi = ndtri(p_lo), ndtri(p_hi)
        with np.errstate(invalid="ignore", divide="ignore"):  # constant: NaN
            p_lo = ndtr(z0 + (z0 + z_lo) / (1 - acc * (z0 + z_lo)))
            p_hi = ndtr(z0 + (z0 + z_hi) / (1 - acc * (z0 + z_hi)))
    se_hat = standard_error(values, weights) if method == "bootstrap-t" else None
    low = np.where(open_lo, -np.inf, np.nan)
    high = np.where(open_hi, np.inf, np.nan)
    for j in range(n_cols):
        col = theta_star[:, j]
        if np.all(col == theta_hat[j]) or np.ptp(values[:, j]) == 0:
            # constant values: the interval is a point
            low[j] = theta_hat[j] if np.isnan(low[j]) else low[j]
            high[j] = theta_hat[j] if np.isnan(high[j]) else high[j]
            continue
        broken = (np.isnan(p_lo[j]) and not open_lo[j]) or (
            np.isnan(p_hi[j]) and not open_hi[j]
        )
        if broken or np.isnan(col).any():
            low[j] = high[j] = np.nan
            continue
        if method == "bootstrap-t":
            t = studentized(
                theta_hat[j], se_hat[j], col, se_star[:, j], values.shape[0]
            )
            if not open_lo[j]:  # the low end comes from the upper quantile of t*
                low[j] = theta_hat[j] - _quantile(t, 1 - p_lo[j]) * se_hat[j]
            if not open_hi[j]:
                high[j] = theta_hat[j] - _quantile(t, 1 - p_hi[j]) * se_hat[j]
            continue
        if not open_lo[j]:
            low[j] = np.percentile(col, 100 * p_lo[j])
        if not open_hi[j]:
            high[j] = np.percentile(col, 100 * p_hi[j])
    return low, high
