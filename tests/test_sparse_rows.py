"""Issue 44 (item 5): kernels that read a few rows of long lists (the relevant,
the judged) count and sum at those rows alone, and rows already in order are not
copied. Each is checked against the full-length formulation it replaces."""

import numpy as np
import pytest

from sklearn_rank._engine import segments as seg
from sklearn_rank._engine.context import RankingContext


def _in_order_rows(seed, n_groups=40, tie_decimals=1):
    """Rows grouped by code and by descending score (a TREC join's output)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 60, n_groups)
    codes = np.repeat(np.arange(n_groups), sizes)
    score = np.round(rng.normal(size=codes.size), tie_decimals)
    order = np.lexsort((-score, codes))
    codes, score = codes[order], score[order]
    labels = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0], size=codes.size)
    judged = rng.random(codes.size) < 0.3
    return codes, score, np.where(judged, labels, 0.0), judged


@pytest.mark.parametrize("seed", range(4))
def test_rows_in_order_are_not_copied(seed):
    codes, score, labels, judged = _in_order_rows(seed)
    ctx = RankingContext.from_inputs(
        labels, score, codes, 40, ties="stable", judged=judged
    )
    # Red before: the labels and the judged mask went through an identity
    # permutation (two copies of n, kept for the whole evaluation).
    assert np.shares_memory(ctx.y, labels) or ctx.y is labels
    assert np.shares_memory(ctx.judged, judged)
    np.testing.assert_array_equal(ctx.order, np.arange(codes.size))


@pytest.mark.parametrize("seed", range(6))
def test_sums_at_listed_rows_equal_the_full_running_sums(seed):
    rng = np.random.default_rng(seed)
    codes, score, labels, _ = _in_order_rows(seed, tie_decimals=3)
    ctx = RankingContext.from_inputs(labels, score, codes, 40, ties="stable")
    values = np.where(rng.random(codes.size) < 0.2, rng.normal(size=codes.size), 0)
    rows = np.flatnonzero(values != 0)
    full = ctx.group_exclusive_cumsum(values)
    got = ctx.group_exclusive_cumsum_at(values[rows], rows)
    # The same bits: each group's sums from 0 in row order, zeros skipped.
    np.testing.assert_array_equal(got.view(np.int64), full[rows].view(np.int64))
    mask, at = rng.random(codes.size) < 0.4, rng.random(codes.size) < 0.1
    counts = ctx.group_count_before(mask, at)
    np.testing.assert_array_equal(
        counts, ctx.group_exclusive_cumsum(mask.astype(float))[np.flatnonzero(at)]
    )
    # Brute force: mask rows earlier in the same group.
    brute = [
        np.count_nonzero(mask[:r][ctx.group[:r] == ctx.group[r]])
        for r in np.flatnonzero(at)
    ]
    np.testing.assert_array_equal(counts, brute)
    assert seg.flatnonzero(at).size == counts.size
