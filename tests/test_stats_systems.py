"""Many systems: randomised Tukey HSD, two-way ANOVA, topic set size design,
against brute force, statsmodels and seeded simulations."""

import itertools

import numpy as np
import pytest
from scipy import stats

from sklearn_rank import GroupScores
from sklearn_rank.stats import topic_set_size, tukey_hsd, two_way_anova


def _runs(x, metric="m"):
    """GroupScores per system from a (topics x systems) table."""
    n = x.shape[0]
    return {
        f"s{j}": GroupScores(np.arange(n), {metric: x[:, j]}, {metric: np.ones(n)})
        for j in range(x.shape[1])
    }


def _tukey_exact(x):
    """Tukey p of every pair by enumerating every per-topic permutation."""
    n, k = x.shape
    perms = list(itertools.permutations(range(k)))
    ranges = []
    for choice in itertools.product(perms, repeat=n):
        shuffled = np.array([x[t, list(p)] for t, p in enumerate(choice)])
        means = shuffled.mean(axis=0)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    means = x.mean(axis=0)
    return {
        (i, j): np.mean(ranges >= abs(means[i] - means[j]) - 1e-12)
        for i in range(k)
        for j in range(i + 1, k)
    }


def test_tukey_hsd_matches_the_enumerated_definition():
    rng = np.random.default_rng(0)
    x = 0.3 * rng.random((4, 3)) + np.array([0.0, 0.15, 0.3])
    exact = _tukey_exact(x)  # 6**4 = 1296 permutations
    n_res = 20000
    r = tukey_hsd(None, _runs(x), metric="m", n_resamples=n_res, random_state=1)
    for (i, j), p in exact.items():
        got = r.pair("m", f"s{i}", f"s{j}")
        assert got.mean_diff == pytest.approx(x[:, i].mean() - x[:, j].mean())
        assert abs(got.p_value - p) < 4.5 * np.sqrt(p * (1 - p) / n_res) + 2 / n_res
        assert got.p_adjusted == got.p_value
        # the simultaneous interval inverts the test
        assert (got.p_value <= 0.05) == (got.ci_low > 0 or got.ci_high < 0)
    assert 0.01 < min(exact.values()) < 0.5  # the check has power


def test_tukey_hsd_family_wise_error_under_five_identical_systems():
    # 5 exchangeable systems on 20 topics (topic effects, tied discrete
    # scores): the chance that any of the 10 pairs rejects at 0.05 is 0.05.
    rng = np.random.default_rng(2)
    reps, alpha = 200, 0.05
    hits = 0
    for i in range(reps):
        p_topic = rng.beta(1, 3, 20)
        x = rng.binomial(10, np.broadcast_to(p_topic, (5, 20)).T) / 10
        r = tukey_hsd(None, _runs(x), metric="m", n_resamples=199, random_state=i)
        hits += min(p.p_value for p in r.pairs) <= alpha
    err = 3 * np.sqrt(alpha * (1 - alpha) / reps)
    assert abs(hits / reps - alpha) < err


def test_tukey_hsd_takes_score_arrays_and_drops_undefined_groups():
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(12), 5)
    y = rng.integers(0, 2, 60)
    y[:5] = 0  # group 0: no relevant row, MAP undefined for every system
    scores = {f"r{i}": y * i * 0.3 + rng.normal(size=60) for i in range(3)}
    r = tukey_hsd(y, scores, groups=groups, metric="map", n_resamples=99)
    assert {p.n_groups for p in r.pairs} == {11} and r.pairs[0].n_dropped == 1
    assert len(r.to_frame()) == 3 and "p_value" in r.to_frame().columns
    assert isinstance(r.seed, int)
    with pytest.raises(ValueError, match="The 'y_scores' parameter of tukey_hsd"):
        tukey_hsd(None, {"a": _runs(np.ones((3, 1)))["s0"]}, metric="m")


def test_two_way_anova_matches_statsmodels():
    pd = pytest.importorskip("pandas")
    smf = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(4)
    x = rng.random((15, 4)) + rng.random((15, 1)) + np.array([0, 0.05, 0.1, 0.0])
    r = two_way_anova(None, _runs(x), metric="m")
    frame = pd.DataFrame(
        {
            "score": x.ravel(),
            "topic": np.repeat(np.arange(15), 4),
            "system": np.tile(np.arange(4), 15),
        }
    )
    ref = anova_lm(smf.ols("score ~ C(system) + C(topic)", data=frame).fit())
    assert r.statistic == pytest.approx(ref.loc["C(system)", "F"], rel=1e-9)
    assert r.p_value == pytest.approx(ref.loc["C(system)", "PR(>F)"], rel=1e-9)
    assert r.residual_variance == pytest.approx(
        ref.loc["Residual", "sum_sq"] / ref.loc["Residual", "df"], rel=1e-9
    )
    assert (r.df_systems, r.df_groups, r.df_residual) == (3, 14, 42)
    assert "residual" in str(r)


def test_two_way_anova_holds_its_level_under_five_identical_systems():
    rng = np.random.default_rng(5)
    reps = 400
    rej = 0
    for _ in range(reps):
        x = rng.normal(size=(20, 1)) + rng.normal(0, 0.3, (20, 5))
        rej += two_way_anova(None, _runs(x), metric="m").p_value <= 0.05
    assert abs(rej / reps - 0.05) < 3 * np.sqrt(0.05 * 0.95 / reps)


# --- Topic set size ------------------------------------------------------------


@pytest.mark.parametrize("effect, variance", [(0.05, 0.02), (0.02, 0.01)])
def test_topic_set_size_t_form_matches_statsmodels_and_simulation(effect, variance):
    from statsmodels.stats.power import TTestPower

    r = topic_set_size(effect, variance=variance, power=0.8)
    d = effect / np.sqrt(2 * variance)  # Cohen's d of the paired differences
    n_ref = TTestPower().solve_power(effect_size=d, alpha=0.05, power=0.8)
    assert r.n_topics == int(np.ceil(n_ref))
    assert r.power >= 0.8
    assert topic_set_size(effect, variance=variance, power=r.power).n_topics == (
        r.n_topics
    )
    # simulation: paired t-tests on r.n_topics normal differences
    rng = np.random.default_rng(6)
    reps = 4000
    diffs = rng.normal(effect, np.sqrt(2 * variance), (reps, r.n_topics))
    p = stats.ttest_1samp(diffs, 0.0, axis=1).pvalue
    achieved = np.mean(p <= 0.05)
    assert abs(achieved - r.power) < 2.5 * np.sqrt(r.power * (1 - r.power) / reps)


def test_topic_set_size_anova_form_matches_statsmodels_and_simulation():
    from statsmodels.stats.power import FTestAnovaPower

    effect, variance, m = 0.1, 0.02, 5
    r = topic_set_size(effect, variance=variance, power=0.8, n_systems=m)
    assert r.form == "one-way ANOVA"
    f = np.sqrt(effect**2 / 2 / (m * variance))  # Cohen's f, least favourable
    nobs = FTestAnovaPower().solve_power(
        effect_size=f, alpha=0.05, power=0.8, k_groups=m
    )
    assert r.n_topics == int(np.ceil(nobs / m))
    # simulation: one-way ANOVA, two systems effect apart, three at the middle
    rng = np.random.default_rng(7)
    reps, n = 3000, r.n_topics
    mu = np.array([-effect / 2, effect / 2, 0.0, 0.0, 0.0])
    x = mu + rng.normal(0, np.sqrt(variance), (reps, n, m))
    grand = x.mean(axis=(1, 2), keepdims=True)
    ss_b = n * ((x.mean(axis=1, keepdims=True) - grand) ** 2).sum(axis=(1, 2))
    ss_w = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=(1, 2))
    fstat = (ss_b / (m - 1)) / (ss_w / (m * (n - 1)))
    achieved = np.mean(stats.f.sf(fstat, m - 1, m * (n - 1)) <= 0.05)
    assert abs(achieved - r.power) < 2.5 * np.sqrt(r.power * (1 - r.power) / reps)


def test_topic_set_size_from_a_pilot_and_errors():
    rng = np.random.default_rng(8)
    x = rng.random((30, 1)) + rng.normal(0, 0.1, (30, 3))
    runs = _runs(x)
    v = two_way_anova(None, runs, metric="m").residual_variance
    a = topic_set_size(0.05, pilot=runs, metric="m")
    b = topic_set_size(0.05, variance=v)
    c = topic_set_size(0.05, pilot=x)
    assert a == b == c and "topics" in str(a)
    with pytest.raises(ValueError, match="The 'variance' parameter"):
        topic_set_size(0.05)
    with pytest.raises(ValueError, match="The 'power' parameter"):
        topic_set_size(0.05, variance=0.1, power=1.5)
    with pytest.raises(ValueError, match="The 'n_systems' parameter"):
        topic_set_size(0.05, variance=0.1, n_systems=1)


def test_tukey_prints_the_means_intervals_not_nan():
    # Before: the systems' rows printed "95% CI [nan, nan]".
    from sklearn_rank.stats import bootstrap_ci, tukey_hsd

    rng = np.random.default_rng(0)
    topic = rng.random(30)
    runs = {
        f"run{i}": GroupScores(
            np.arange(30),
            {"ap": topic + 0.1 * i + rng.normal(0, 0.05, 30)},
            {"ap": np.ones(30)},
        )
        for i in range(3)
    }
    r = tukey_hsd(None, runs, metric="ap", n_resamples=999, random_state=0)
    assert "nan" not in str(r)
    for m in r.models:
        assert m.ci_low < m.mean < m.ci_high and m.standard_error > 0
        one = bootstrap_ci(None, runs[m.model], metrics="ap", method="bootstrap-t")
        assert m.mean == one["ap"].mean  # the one weighted mean
