"""sklearn_rank.online.ab_test and ab_sample_size: checked against statsmodels
where it has the same test, and calibrated by a simulation written here (skewed
group sizes, clicks correlated within groups)."""

import math

import numpy as np
import pytest
from scipy import stats

from sklearn_rank.online import ab_sample_size, ab_test

sm_weightstats = pytest.importorskip("statsmodels.stats.weightstats")


def arm(rng, n_groups, ctr=0.1, lift=0.0, spread=18.0):
    """Rows of one arm: skewed group sizes, a click rate per group (Beta), a
    pre-period CTR per group from the same rate (the CUPED covariate)."""
    size = 1 + rng.geometric(0.25, n_groups) + (rng.random(n_groups) < 0.05) * 30
    a = ctr * (spread + 2)
    rate = np.minimum(rng.beta(a, spread + 2 - a, n_groups) + lift, 1.0)
    groups = np.repeat(np.arange(n_groups), size)
    clicks = (rng.random(groups.size) < rate[groups]).astype(int)
    pre_n = 20
    pre = rng.binomial(pre_n, np.minimum(rate - lift, 1.0)) / pre_n
    return clicks, groups, pre[groups]


def per_group(clicks, groups):
    return np.bincount(groups, clicks), np.bincount(groups)


def test_clicks_per_group_is_statsmodels_z_test_with_unequal_variances():
    rng = np.random.default_rng(0)
    ca, ga, _ = arm(rng, 300)
    cb, gb, _ = arm(rng, 250, lift=0.02)
    for alternative, sm_alt in [
        ("two-sided", "two-sided"),
        ("greater", "larger"),
        ("less", "smaller"),
    ]:
        got = ab_test(
            ca, cb, groups_a=ga, groups_b=gb, metric="clicks_per_group",
            alternative=alternative, confidence_level=0.9,
        )  # fmt: skip
        ya, yb = per_group(ca, ga)[0], per_group(cb, gb)[0]
        cm = sm_weightstats.CompareMeans(
            sm_weightstats.DescrStatsW(yb), sm_weightstats.DescrStatsW(ya)
        )
        z, p = cm.ztest_ind(alternative=sm_alt, usevar="unequal")
        lo, hi = cm.zconfint_diff(alpha=0.1, alternative=sm_alt, usevar="unequal")
        assert got.diff == pytest.approx(yb.mean() - ya.mean())
        assert got.diff / got.standard_error == pytest.approx(z)
        assert got.p_value == pytest.approx(p)
        assert (got.ci_low, got.ci_high) == pytest.approx((lo, hi))


def test_ctr_with_equal_group_sizes_is_the_z_test_of_per_group_ctrs():
    rng = np.random.default_rng(1)
    ga, gb = np.repeat(np.arange(200), 6), np.repeat(np.arange(150), 6)
    ca = (rng.random(ga.size) < rng.beta(2, 18, 200)[ga]).astype(int)
    cb = (rng.random(gb.size) < rng.beta(2, 16, 150)[gb]).astype(int)
    got = ab_test(ca, cb, groups_a=ga, groups_b=gb)
    ya, yb = ca.reshape(200, 6).mean(1), cb.reshape(150, 6).mean(1)
    cm = sm_weightstats.CompareMeans(
        sm_weightstats.DescrStatsW(yb), sm_weightstats.DescrStatsW(ya)
    )
    z, p = cm.ztest_ind(usevar="unequal")
    assert got.value_a == pytest.approx(ca.mean())
    assert got.diff / got.standard_error == pytest.approx(z)
    assert got.p_value == pytest.approx(p)


def test_ctr_delta_method_matches_its_formula_with_unequal_sizes():
    rng = np.random.default_rng(2)
    ca, ga, _ = arm(rng, 120)
    cb, gb, _ = arm(rng, 90)
    got = ab_test(ca, cb, groups_a=ga, groups_b=gb)
    var = 0.0
    for c, g in ((ca, ga), (cb, gb)):
        # by hand: Var(R) = (s_c^2 - 2 R s_cn + R^2 s_n^2) / (n mean_n^2)
        cg, ng = per_group(c, g)
        r, n = cg.sum() / ng.sum(), cg.size
        s = np.cov(cg, ng, ddof=1)
        var += (s[0, 0] - 2 * r * s[0, 1] + r * r * s[1, 1]) / (n * ng.mean() ** 2)
    assert got.standard_error == pytest.approx(math.sqrt(var))


def test_cuped_is_the_treatment_coefficient_of_the_regression_on_the_covariate():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    ca, ga, xa = arm(rng, 300)
    cb, gb, xb = arm(rng, 280, lift=0.01)
    got = ab_test(
        ca, cb, groups_a=ga, groups_b=gb, metric="clicks_per_group",
        covariate_a=xa, covariate_b=xb,
    )  # fmt: skip
    ya, yb = per_group(ca, ga)[0], per_group(cb, gb)[0]
    xa_g = np.bincount(ga, xa) / np.bincount(ga)
    xb_g = np.bincount(gb, xb) / np.bincount(gb)
    design = np.column_stack(
        [np.ones(580), np.r_[np.zeros(300), np.ones(280)], np.r_[xa_g, xb_g]]
    )
    fit = sm.OLS(np.r_[ya, yb], design).fit(cov_type="HC0")
    assert got.diff == pytest.approx(fit.params[1], rel=1e-10)
    assert got.cuped_theta == pytest.approx(fit.params[2], rel=1e-10)
    # the robust regression SE agrees to first order
    assert got.standard_error == pytest.approx(fit.bse[1], rel=0.05)
    plain = ab_test(ca, cb, groups_a=ga, groups_b=gb, metric="clicks_per_group")
    assert got.standard_error < plain.standard_error
    assert got.variance_reduction == pytest.approx(
        1 - got.standard_error**2 / plain.standard_error**2
    )
    assert "CUPED" in repr(got)


def test_sample_size_is_statsmodels_normal_power():
    from statsmodels.stats.power import NormalIndPower

    rng = np.random.default_rng(4)
    c, g, _ = arm(rng, 3000)
    cg, ng = per_group(c, g)
    r = cg.sum() / ng.sum()
    sigma = np.std((cg - r * ng) / ng.mean(), ddof=1)
    for ratio, alt, sm_alt in [
        (1.0, "two-sided", "two-sided"),
        (2.0, "greater", "larger"),
    ]:
        got = ab_sample_size(c, groups=g, effect=0.005, ratio=ratio, alternative=alt)
        want = NormalIndPower().solve_power(
            effect_size=0.005 / sigma, alpha=0.05, power=0.8, ratio=ratio,
            alternative=sm_alt,
        )  # fmt: skip
        assert got == math.ceil(want)


def test_rejection_rate_holds_its_level_under_a_true_null():
    # Skewed group sizes and clicks correlated within groups; 1000 A/A tests.
    rng = np.random.default_rng(5)
    reps = 1000
    reject = {"ctr": 0, "cuped": 0, "naive": 0}
    for _ in range(reps):
        ca, ga, xa = arm(rng, 300)
        cb, gb, xb = arm(rng, 300)
        reject["ctr"] += ab_test(ca, cb, groups_a=ga, groups_b=gb).p_value < 0.05
        cup = ab_test(ca, cb, groups_a=ga, groups_b=gb, covariate_a=xa, covariate_b=xb)
        reject["cuped"] += cup.p_value < 0.05
        # the binomial test over rows, which ignores the groups
        pa, pb = ca.mean(), cb.mean()
        se = math.sqrt(pa * (1 - pa) / ca.size + pb * (1 - pb) / cb.size)
        reject["naive"] += 2 * stats.norm.sf(abs(pb - pa) / se) < 0.05
    se = math.sqrt(0.05 * 0.95 / reps)
    print({k: v / reps for k, v in reject.items()})
    assert abs(reject["ctr"] / reps - 0.05) <= 2 * se, reject
    assert abs(reject["cuped"] / reps - 0.05) <= 2 * se, reject
    assert reject["naive"] / reps > 0.05 + 3 * se, reject


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"clicks_a": [1, 0, 2, 0]}, "clicks_a in ab_test must be 0 or 1 .*got 2"),
        ({"groups_b": [0, 0, 0, 0]}, "groups_b in ab_test holds 1 group"),
        ({"covariate_a": [1, 1, 2, 2]}, "'covariate_a' parameter"),
        (
            {"covariate_a": [1, 2, 2, 2], "covariate_b": [1, 1, 2, 2]},
            "covariate_a in ab_test differs within group 0 .*values 1 and 2",
        ),
        ({"metric": "ndcg"}, "'metric' parameter of ab_test"),
    ],
)
def test_ab_test_errors(kwargs, match):
    args = {"clicks_a": [1, 0, 0, 0], "clicks_b": [1, 1, 0, 1],
            "groups_a": [0, 0, 1, 1], "groups_b": [0, 0, 1, 1]}  # fmt: skip
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ab_test(args.pop("clicks_a"), args.pop("clicks_b"), **args)
