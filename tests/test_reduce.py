"""The one reduction module against independent definitions (scipy, plain loops)."""

import numpy as np
import pytest
from scipy import stats

from sklearn_rank._engine import reduce


def test_geometric_mean_is_scipy_gmean_of_floored_values():
    rng = np.random.default_rng(0)
    values = rng.uniform(0, 1, 50)
    values[:5] = 0.0  # floored at trec_eval's 1e-5
    expected = stats.gmean(np.maximum(values, 1e-5))
    assert reduce.geometric_mean(values) == pytest.approx(expected, rel=1e-12)
    w = rng.uniform(0.5, 2, 50)
    weighted = stats.gmean(np.maximum(values, 1e-5), weights=w)
    assert reduce.geometric_mean(values, w) == pytest.approx(weighted, rel=1e-12)


def test_geometric_mean_hand_worked():
    # trec_eval's gm_map of per-query APs 0.5 and 0 (floored at 1e-5):
    # exp((log 0.5 + log 1e-5) / 2) = sqrt(0.5e-5)
    assert reduce.geometric_mean([0.5, 0.0]) == pytest.approx(np.sqrt(0.5e-5))
    assert np.isnan(reduce.geometric_mean([]))


def test_mean_over_groups_follows_the_undefined_rule():
    values = np.array([1.0, 0.0, 0.5])
    defined = np.array([True, False, True])
    w = np.array([1.0, 1.0, 3.0])
    ids = np.array(["a", "b", "c"], dtype=object)
    skip = reduce.mean_over_groups(values, defined, w, "skip", "m", ids)
    assert skip == pytest.approx((1.0 + 1.5) / 4)
    zero = reduce.mean_over_groups(values, defined, w, 0.25, "m", ids)
    assert zero == pytest.approx((1.0 + 0.25 + 1.5) / 5)
    with pytest.raises(ValueError, match=r"undefined for 1 of 3 groups \(ids 'b'\)"):
        reduce.mean_over_groups(values, defined, w, "raise", "m", ids)


def test_fill_undefined_reads_nan_as_undefined():
    ids = np.arange(3)
    out = reduce.fill_undefined([0.5, np.nan, 1.0], 0.0, "m", ids)
    np.testing.assert_array_equal(out, [0.5, 0.0, 1.0])
    out = reduce.fill_undefined([0.5, np.nan, 1.0], "skip", "m", ids)
    np.testing.assert_array_equal(out, [0.5, np.nan, 1.0])
    with pytest.raises(ValueError, match="undefined for 1 of 3"):
        reduce.fill_undefined([0.5, np.nan, 1.0], "raise", "m", ids)


def test_weighted_average_and_group_counts_match_loops():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 7, 200)
    w = rng.uniform(size=200)
    counts = reduce.group_counts(codes, 9)
    sums = reduce.group_counts(codes, 9, w)
    for g in range(9):
        assert counts[g] == np.sum(codes == g)
        assert sums[g] == pytest.approx(w[codes == g].sum())
    v = rng.uniform(size=9)
    loop = sum(a * b for a, b in zip(v, sums, strict=True)) / sum(sums)
    assert reduce.weighted_average(v, sums) == pytest.approx(loop, rel=1e-13)


def test_fill_weight_is_the_mean_of_the_counted_groups_else_one():
    # Hand-worked: groups with weights 0.5 and 2.0 enter the fill -> 1.25; none -> 1.0.
    assert float(reduce.fill_weight(np.float64(2.5), np.float64(2))) == 1.25
    assert float(reduce.fill_weight(np.float64(0.0), np.float64(0))) == 1.0
