"""Issue 50 (online): agreement intervals, the propensity-discount bootstrap,
input errors."""

import numpy as np
import pytest
from scipy import stats

from sklearn_rank.online import ips_estimate, offline_online_agreement


def test_pearson_interval_is_scipys_near_one():
    # x = y with one tie nudged: r just below 1; the interval must be scipy's
    # and contain r (it excluded r when |r| was capped).
    x = np.arange(40) / 40
    y = x.copy()
    y[20] = y[19]
    got = offline_online_agreement(x, y)
    ref = stats.pearsonr(x, y).confidence_interval(0.95)
    assert 0.999 < got.pearson < 1
    np.testing.assert_allclose(got.pearson_ci, (ref.low, ref.high), rtol=1e-12)
    assert got.pearson_ci[0] <= got.pearson <= got.pearson_ci[1]


@pytest.mark.parametrize("seed", range(5))
def test_pearson_interval_is_scipys(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=9)
    y = x + rng.normal(scale=0.05 * (seed + 1), size=9)
    got = offline_online_agreement(x, y, confidence_level=0.9)
    ref = stats.pearsonr(x, y).confidence_interval(0.9)
    np.testing.assert_allclose(got.pearson_ci, (ref.low, ref.high), rtol=1e-12)


def test_kendall_ci_at_four_experiments_is_not_silent_nan():
    x = np.array([0.1, 0.3, 0.2, 0.4])
    y = np.array([0.2, 0.1, 0.5, 0.6])
    with pytest.warns(UserWarning, match="kendall_ci is the whole range"):
        got = offline_online_agreement(x, y)
    assert got.kendall_ci == (-1.0, 1.0)
    assert not np.isnan(got.kendall_ci).any()


LOG = dict(
    position=[1, 2, 3, 1, 2, 0],
    new_score=[0.3, 0.2, 0.9, 0.5, 0.4, 0.1],
    groups=[0, 0, 0, 1, 1, 1],
    propensity=[1.0, 0.6, 0.4],
)


def test_negative_discount_is_an_error():
    with pytest.raises(ValueError, match="discount in ips_estimate must hold"):
        ips_estimate([1, 0, 1, 0, 1, 0], discount=[1.0, -0.5, 0.2], **LOG)


def test_nothing_shown_is_an_error():
    kw = dict(LOG, position=[0] * 6)
    with pytest.raises(ValueError, match="no row of the log was shown"):
        ips_estimate([0] * 6, **kw)
