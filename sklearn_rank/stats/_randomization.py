"""Paired sign-flip randomization test, shared across many columns at once.

Under the null hypothesis that two models are exchangeable on every group, the
sign of each group's difference is a fair coin. The statistic of one column is
``T = sum_i x_i`` with ``x_i = w_i d_i / sum(w)``; a resample flips signs:
``T* = sum_i s_i x_i``. All columns (metrics x pairs) share the same signs, so
one matrix product per batch serves every column.

scipy.stats.permutation_test computes the same test, but one statistic call per
batch of float64 resamples; here the signs come from random bytes (8 signs per
byte), kept as 0/1 flip indicators (``T* = sum(x) - 2 * flipped @ x``), the
product runs in float32 over blocks whose rounding error is bounded,
and the few resamples that fall inside that bound are recomputed in float64, so
every decision is the float64 one.
"""

from __future__ import annotations

import numpy as np

from .._metrics.bootstrap import resample_blocks, run_blocks

EXACT_MAX_GROUPS = 16
# Groups per float32 block: the rounding error of a float32 dot product over K
# terms is at most gamma_K * sum|x| with gamma_K = K u / (1 - K u), u = 2**-24.
_BLOCK = 2048
_U32 = 2.0**-24
_GAMMA_BLOCK = _BLOCK * _U32 / (1 - _BLOCK * _U32)
# Bytes of float32 signs per block of resamples (resamples x groups is never
# materialised).
_SIGN_BUDGET = 1 << 22


def _tolerance(x: np.ndarray) -> np.ndarray:
    """Per-column float64 tolerance that treats theoretically equal sums as equal.

    Like scipy.stats.permutation_test's relative tolerance, but scaled by
    ``sum|x|`` (the size of the terms), not by the observed value.
    """
    n = x.shape[0]
    return (n + 100) * np.finfo(np.float64).eps * np.abs(x).sum(axis=0)


def _count_extreme(t_star, t_obs, tol, alternative):
    """Resamples at least as extreme as the observed statistic, per column."""
    if alternative == "greater":
        hit = t_star >= t_obs - tol
    elif alternative == "less":
        hit = t_star <= t_obs + tol
    else:
        hit = np.abs(t_star) >= np.abs(t_obs) - tol
    return np.count_nonzero(hit, axis=0)


def _margin(t_star, t_obs, alternative):
    """Distance of each resample from the decision boundary (same sign rule)."""
    if alternative == "greater":
        return np.abs(t_star - t_obs)
    if alternative == "less":
        return np.abs(t_star - t_obs)
    return np.abs(np.abs(t_star) - np.abs(t_obs))


def sign_flip_exact(
    x: np.ndarray, alternative: str = "two-sided", return_null: bool = False
):
    """Exact p-values by enumerating all 2**n sign vectors (column-wise).

    ``x`` has shape (n, n_columns) with n <= EXACT_MAX_GROUPS. The identity is one
    of the 2**n vectors, so p = count / 2**n is never 0. ``return_null`` also
    returns the 2**n sums ``T*`` of every column, shape (2**n, n_columns).
    """
    n = x.shape[0]
    codes = np.arange(2**n, dtype=np.uint32)[:, None]
    signs = 1.0 - 2.0 * ((codes >> np.arange(n, dtype=np.uint32)) & 1)
    t_star = signs @ x
    t_obs = x.sum(axis=0)
    count = _count_extreme(t_star, t_obs, _tolerance(x), alternative)
    return (count / 2.0**n, t_star) if return_null else count / 2.0**n


def sign_flip_monte_carlo(
    x: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    alternative: str = "two-sided",
    return_null: bool = False,
    n_threads: int = 1,
):
    """Monte Carlo p-values ``(b + 1) / (n_resamples + 1)`` for every column of x.

    ``x`` has shape (n, n_columns); zero rows (groups outside a column's pairs)
    contribute nothing whatever their sign, so columns with different pairs share
    the same signs. ``return_null`` also returns every resample's ``T*``, shape
    (n_resamples, n_columns): float64 within the float32 bound above, exactly
    the float64 value where a resample was near the decision. The blocks of
    resamples run on ``n_threads`` threads, with the same result bit for bit.
    """
    n, n_cols = x.shape
    n_blocks = -(-n // _BLOCK)
    width = n_blocks * _BLOCK  # bits drawn per resample: the random stream
    # Groups multiplied: fewer than one block uses only its first bytes' bits (the
    # same signs, without products of zero rows up to the block's size).
    used = width if n_blocks > 1 else -(-n // 8) * 8
    block = used // n_blocks
    x_pad = np.zeros((used, n_cols))
    x_pad[:n] = x
    x32 = x_pad.astype(np.float32).reshape(n_blocks, block, n_cols)
    abs_sum = np.abs(x).sum(axis=0)
    t_obs = x.sum(axis=0)
    tol = _tolerance(x)
    # T* = sum(x) - 2 * (flipped @ x): only 0/1 flip indicators are materialised.
    # Bound on |T*_float32 - T*_exact|: twice the error of the 0/1 product
    # (rounding x to float32, the float32 products within a block), and the
    # float64 sum of block results.
    band = 2 * (_GAMMA_BLOCK + 2 * _U32) * abs_sum + 2 * tol
    null = np.empty((n_resamples, n_cols)) if return_null else None

    def draw(resamples) -> np.ndarray:
        start, stop, block_rng = resamples
        b = stop - start
        bits = block_rng.integers(0, 256, size=(b, width // 8), dtype=np.uint8)
        # bit 1: the group's sign is flipped (0/1)
        flipped = np.unpackbits(bits, axis=1, count=used).astype(np.float32)
        parts = np.matmul(flipped.reshape(b, n_blocks, block).transpose(1, 0, 2), x32)
        t_star = t_obs - 2.0 * parts.sum(axis=0, dtype=np.float64)
        near = _margin(t_star, t_obs, alternative) <= band
        rows = np.flatnonzero(near.any(axis=1))
        if rows.size:  # decide these resamples in float64
            t_star[rows] = (1.0 - 2.0 * flipped[rows].astype(np.float64)) @ x_pad
        if null is not None:
            null[start:stop] = t_star
        return _count_extreme(t_star, t_obs, tol, alternative)

    resamples = resample_blocks(rng, n_resamples, 4 * width, _SIGN_BUDGET)
    count = np.zeros(n_cols, dtype=np.int64)
    for c in run_blocks(draw, resamples, n_threads):
        count += c
    p = (count + 1.0) / (n_resamples + 1.0)
    return (p, null) if return_null else p
