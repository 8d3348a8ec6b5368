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


def _propensity_discount_replicate(seed, rho, n_swap=1500, n_groups=1500):
    """One swap experiment and one log from a position-based click model; the
    metric λ(r) = ρ(r) over all 4 ranks, so the truth is E[α] Σ ρ = Σ ρ / 2."""
    from sklearn_rank.online import propensity_from_swaps

    rng = np.random.default_rng(seed)
    m = rho.size
    k = rng.integers(1, m + 1, n_swap)
    swap_clicks = (rng.random(n_swap) < 0.6 * rho[k - 1]).astype(int)
    est = propensity_from_swaps(
        swap_clicks, position=k, logged_position=np.ones(n_swap)
    )
    pos = np.argsort(rng.random((n_groups, m)), axis=1).ravel() + 1
    alpha = rng.random(n_groups * m)
    clicks = (rng.random(alpha.size) < alpha * rho[pos - 1]).astype(int)
    return ips_estimate(
        clicks, position=pos, new_score=rng.random(alpha.size),
        groups=np.repeat(np.arange(n_groups), m), propensity=est,
        discount="propensity", metric="clicks", confidence_level=0.9,
        n_resamples=200, method="percentile", random_state=seed,
    )  # fmt: skip


def test_propensity_discount_bootstrap_redraws_rho_in_the_discount():
    # Own simulator, analytic truth: the bootstrap SE should match the spread of
    # the estimate over independent (swap experiment, log) pairs, and the 90%
    # interval should cover about 90% (the SE was 1.7x the SD before: the
    # discount kept the fitted ρ while 1/ρ was redrawn).
    rho = np.array([1.0, 0.7, 0.5, 0.35])
    truth = rho.sum() / 2
    reps = [_propensity_discount_replicate(s, rho) for s in range(150)]
    values = np.array([r.value for r in reps])
    se = np.array([r.standard_error for r in reps])
    cover = np.mean([r.ci[0] <= truth <= r.ci[1] for r in reps])
    ratio = se.mean() / values.std(ddof=1)
    assert abs(values.mean() - truth) < 3 * values.std(ddof=1) / np.sqrt(len(reps))
    assert 0.8 < ratio < 1.25, ratio
    assert 0.82 <= cover <= 0.97, cover


@pytest.mark.parametrize(
    "kw",
    [
        {"estimator": "snips"},
        {"estimator": "clipped_ips", "clip": 0.6},
        {"estimator": "doubly_robust"},
        {"metric": "clicks@2"},
    ],
)
def test_propensity_discount_bootstrap_other_estimators(kw):
    from sklearn_rank.online import propensity_from_swaps

    rng = np.random.default_rng(1)
    rho = np.array([1.0, 0.6, 0.4])
    k = rng.integers(1, 4, 600)
    swap = (rng.random(600) < 0.6 * rho[k - 1]).astype(int)
    est = propensity_from_swaps(swap, position=k, logged_position=np.ones(600))
    n = 300
    pos = np.c_[
        np.argsort(rng.random((n, 3)), axis=1) + 1, np.zeros((n, 2), int)
    ].ravel()
    alpha = rng.random(5 * n)
    clicks = (rng.random(5 * n) < alpha * np.r_[rho, 0.0][pos - 1]).astype(int)
    clicks[pos == 0] = 0
    if kw.get("estimator") == "doubly_robust":
        kw = dict(kw, predicted_attraction=alpha)
    kw = {"metric": "clicks@3", **kw}
    got = ips_estimate(
        clicks, position=pos, new_score=rng.random(5 * n),
        groups=np.repeat(np.arange(n), 5), propensity=est, discount="propensity",
        confidence_level=0.9, n_resamples=100, random_state=0, **kw,
    )  # fmt: skip
    assert np.isfinite(got.standard_error) and got.ci[0] <= got.value <= got.ci[1]


def test_online_takes_gain_and_discount_from_the_engine():
    # Issue 43 item 2: no DCG discount or exponential gain restated in online/.
    import re
    from pathlib import Path

    import sklearn_rank.online as online

    for path in Path(online.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert not re.search(r"np\.log2\(rank", text), path.name
        assert not re.search(r"expm1\(\w+ \* np\.log\(2", text), path.name
