"""sklearn_rank.online: online metrics, click simulation, propensities, IPS.

Every number is checked against a definition written here with plain Python loops
over groups, against scipy, or against a known truth in seeded simulations.
"""

import math

import numpy as np
import pytest
from scipy import stats

from sklearn_rank.online import (
    ctr_by_position,
    ips_estimate,
    offline_online_agreement,
    online_metrics,
    online_metrics_per_group,
    propensity_from_swaps,
    propensity_regression_em,
    simulate_clicks,
)
from sklearn_rank.stats import bootstrap_ci

EXAM = np.array([1.0, 0.7, 0.5, 0.35, 0.25, 0.2, 0.15, 0.1])


def lists(n_groups, length, rng, max_grade=3):
    """Shown lists: every group has ``length`` items at positions 1..length."""
    groups = np.repeat(np.arange(n_groups), length)
    position = np.tile(np.arange(1, length + 1), n_groups)
    grade = rng.integers(0, max_grade + 1, groups.size)
    return groups, position, grade


def by_group(groups):
    out = {}
    for i, g in enumerate(np.asarray(groups).tolist()):
        out.setdefault(g, []).append(i)
    return dict(sorted(out.items()))


# -- online metrics ---------------------------------------------------------------
def test_online_metrics_match_a_loop_over_groups():
    rng = np.random.default_rng(0)
    n = 300
    groups = rng.integers(0, 40, n)
    position = np.zeros(n, dtype=int)
    for rows in by_group(groups).values():  # one row per position, some unshown
        position[rows] = rng.permutation(len(rows)) + 1
    position[rng.random(n) < 0.15] = 0
    clicks = np.where(position > 0, rng.random(n) < 0.4, 0).astype(int)
    weight = rng.uniform(0.5, 2, n)
    got = online_metrics_per_group(
        clicks, groups=groups, position=position, sample_weight=weight
    )
    for j, (g, rows) in enumerate(by_group(groups).items()):
        shown = [i for i in rows if position[i] > 0]
        assert got.group_ids[j] == g
        if not shown:
            assert all(np.isnan(got.values[m][j]) for m in got.values)
            continue
        ctr = sum(weight[i] * clicks[i] for i in shown) / sum(weight[i] for i in shown)
        n_clicks = sum(clicks[i] for i in shown)
        first = min((position[i] for i in shown if clicks[i] > 0), default=None)
        assert got.values["ctr"][j] == pytest.approx(ctr)
        assert got.values["impression_ctr"][j] == pytest.approx(ctr)
        assert got.weights["impression_ctr"][j] == pytest.approx(
            sum(weight[i] for i in shown)
        )
        assert got.weights["ctr"][j] == pytest.approx(np.mean(weight[rows]))
        assert got.values["clicks"][j] == n_clicks
        assert got.values["success"][j] == (n_clicks > 0)
        assert got.values["abandonment"][j] == (n_clicks == 0)
        assert got.values["rr_first_click"][j] == (1 / first if first else 0.0)
    means = online_metrics(
        clicks, groups=groups, position=position, sample_weight=weight
    )
    shown = position > 0
    pooled = (weight * clicks)[shown].sum() / weight[shown].sum()
    assert means["impression_ctr"] == pytest.approx(pooled)


def test_online_metrics_take_pandas_and_feed_the_bootstrap():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    groups, position, grade = lists(60, 5, rng)
    clicks = simulate_clicks(grade, groups=groups, position=position, random_state=0)
    frame = pd.DataFrame({"g": [f"q{g}" for g in groups], "p": position, "c": clicks})
    scores = online_metrics_per_group(
        frame["c"], groups=frame["g"], position=frame["p"]
    )
    ci = bootstrap_ci(None, scores, metrics="ctr", n_resamples=999, random_state=0)
    per_group_ctr = clicks.reshape(60, 5).mean(axis=1)
    assert ci["ctr"].mean == pytest.approx(per_group_ctr.mean())
    ref = stats.bootstrap(
        (per_group_ctr,), np.mean, n_resamples=999, random_state=0, method="BCa"
    ).confidence_interval
    assert ci["ctr"].ci_low == pytest.approx(ref.low, abs=0.01)
    assert ci["ctr"].ci_high == pytest.approx(ref.high, abs=0.01)


def test_ctr_by_position_matches_counts():
    rng = np.random.default_rng(2)
    position = rng.integers(1, 6, 200)
    clicks = (rng.random(200) < 0.3).astype(int)
    got = ctr_by_position(clicks, position=position)
    for p, ctr, imp in zip(got.position, got.ctr, got.impressions, strict=True):
        assert imp == (position == p).sum()
        assert ctr == pytest.approx(clicks[position == p].mean())
    np.testing.assert_array_equal(got.position, [1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metrics": "ndcg"}, "'metrics' parameter of online_metrics_per_group"),
        ({"position": [1, -1, 2]}, "position in online_metrics_per_group"),
        ({"position": [0, 1, 2], "clicks": [1, 0, 0]}, "position is 0"),
        ({"clicks": [0, -1, 0]}, "must be 0 or 1 .*got -1 at row 1"),
        ({"clicks": [0, 0.5, 0]}, "must be 0 or 1 .*got 0.5 at row 1"),
        ({"clicks": [0, 2, 0]}, r"got 2 at row 1\. .*np\.minimum\(clicks, 1\)"),
        ({"position": [1, 1.5, 1]}, "whole numbers >= 0 .*got 1.5 at row 1"),
        ({"position": [1, 1, 1]}, "repeats position 1 in group 0 \\(rows 0 and 1\\)"),
        ({"position": [0, 0, 0], "clicks": [0, 0, 0]}, "0 on every row"),
    ],
)
def test_online_metrics_errors(kwargs, match):
    args = {"clicks": [0, 1, 0], "groups": [0, 0, 1], "position": [1, 2, 1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        online_metrics_per_group(**args)


# -- click simulation -------------------------------------------------------------
def test_position_based_clicks_follow_examination_times_attraction():
    rng = np.random.default_rng(3)
    groups, position, grade = lists(4000, 4, rng)
    clicks = simulate_clicks(
        grade, groups=groups, position=position, examination=EXAM, random_state=1
    )
    for p in range(1, 5):
        for y in range(4):
            rows = (position == p) & (grade == y)
            prob = EXAM[p - 1] * (2**y - 1) / (2**3 - 1)
            se = math.sqrt(prob * (1 - prob) / rows.sum()) or 1e-9
            assert abs(clicks[rows].mean() - prob) < 4 * se + 1e-12, (p, y)


def test_cascade_clicks_once_with_the_first_click_law():
    # Two grades: attraction 1 for grade 1, 0 for grade 0; examination 0.8 each.
    rng = np.random.default_rng(4)
    n_groups, length = 6000, 3
    groups, position, _ = lists(n_groups, length, rng)
    grade = np.tile([0, 1, 1], n_groups)
    attraction = np.array([0.0, 0.5, 0.5])  # with max_grade=log2(3): (2^1-1)/2
    clicks = simulate_clicks(
        grade,
        groups=groups,
        position=position,
        model="cascade",
        examination=[0.8, 0.8, 0.8],
        max_grade=math.log2(3),
        random_state=2,
    )
    per_list = clicks.reshape(n_groups, length)
    assert per_list.sum(axis=1).max() == 1
    hit = 0.8 * attraction
    first = [hit[0], (1 - hit[0]) * hit[1], (1 - hit[0]) * (1 - hit[1]) * hit[2]]
    for p in range(3):
        se = math.sqrt(first[p] * (1 - first[p]) / n_groups) or 1e-9
        assert abs(per_list[:, p].mean() - first[p]) < 4 * se + 1e-12


def test_simulate_clicks_never_clicks_unshown_rows_and_is_seeded():
    y = np.array([3, 3, 3, 3])
    kw = {"groups": [0, 0, 1, 1], "position": [1, 0, 0, 1], "examination": [1.0]}
    a = simulate_clicks(y, **kw, random_state=5)
    assert a.tolist() == [1, 0, 0, 1]
    with pytest.raises(ValueError, match="examination in simulate_clicks"):
        simulate_clicks(y, groups=[0, 0, 1, 1], position=[1, 2, 2, 1], examination=[1])
    with pytest.raises(ValueError, match="'model' parameter of simulate_clicks"):
        simulate_clicks(y, **kw, model="dbn")
    with pytest.raises(ValueError, match=r"got 1\.5 for position 2"):
        simulate_clicks(y, groups=[0, 0, 1, 1], position=[1, 2, 2, 1],
                        examination=[1, 1.5])  # fmt: skip
    with pytest.raises(ValueError, match=r"got -1\.0 at row 2"):
        simulate_clicks([0, 1, -1, 0], **kw)


# -- IPS --------------------------------------------------------------------------
def lam(metric, r, discount=None):
    name, _, k = metric.partition("@")
    k = int(k) if k else math.inf
    if r > k:
        return 0.0
    if discount is not None:
        return discount[r - 1]
    return {"clicks": 1.0, "dcg": 1 / math.log2(r + 1), "rr_sum": 1 / r}[name]


def new_ranks(rows, score, position):
    """1-based rank in the new ranking: descending score, ties by logged position
    among shown rows, unshown rows (position 0) after them in row order."""
    ordered = sorted(rows, key=lambda i: (-score[i], position[i] or math.inf, i))
    return {i: r for r, i in enumerate(ordered, start=1)}


def ips_oracle(clicks, groups, position, score, rho, metric, estimator, clip, disc):
    per_group, weights = [], []
    for rows in by_group(groups).values():
        ranks = new_ranks(rows, score, position)
        num = den = 0.0
        for i in rows:
            if clicks[i]:
                prop = rho[position[i] - 1]
                if clip is not None:
                    prop = max(prop, clip)
                d = rho if disc == "propensity" else disc
                num += clicks[i] * lam(metric, ranks[i], d) / prop
                den += clicks[i] / prop
        if estimator == "snips":
            per_group.append(num / den if den else np.nan)
            weights.append(den)
        else:
            per_group.append(num)
            weights.append(1.0)
    per_group, weights = np.array(per_group), np.array(weights)
    ok = ~np.isnan(per_group)
    return per_group, np.dot(per_group[ok], weights[ok]) / weights[ok].sum()


@pytest.mark.parametrize(
    "metric", ["clicks@3", "dcg@5", "rr_sum", "rr_sum@2", "dcg", "clicks@1"]
)
@pytest.mark.parametrize(
    ("estimator", "clip"), [("ips", None), ("clipped_ips", 0.3), ("snips", None)]
)
@pytest.mark.parametrize("discount", [None, "propensity"])
@pytest.mark.parametrize("scale", [1.0, 1 / 3])  # whole / real scores, with ties
def test_ips_estimate_matches_a_loop_over_groups(
    metric, estimator, clip, discount, scale
):
    rng = np.random.default_rng(6)
    n = 120
    groups = rng.integers(0, 25, n)
    position = np.zeros(n, dtype=int)
    for rows in by_group(groups).values():
        position[rows] = rng.permutation(len(rows)) + 1
    position[rng.random(n) < 0.1] = 0  # a few rows never shown
    clicks = (rng.random(n) < 0.4) * (position > 0)
    score = rng.integers(0, 4, n) * scale  # ties resolved by logged position
    rho = np.linspace(1, 0.2, position.max())
    if discount == "propensity" and metric in ("rr_sum", "dcg"):
        metric = "clicks@4"  # the discount table must cover the ranks used
    disc = discount
    if discount == "propensity":
        rho_full = np.linspace(1, 0.2, 20)
        rho, disc = rho_full, "propensity"
    got = ips_estimate(
        clicks,
        groups=groups,
        position=position,
        new_score=score,
        propensity=rho,
        metric=metric,
        estimator=estimator,
        clip=clip,
        discount=disc,
    )
    per_group, value = ips_oracle(
        clicks, groups, position, score, rho, metric, estimator, clip, disc
    )
    np.testing.assert_allclose(got.per_group, per_group, rtol=1e-12)
    assert got.value == pytest.approx(value, rel=1e-12)
    assert got.ci is None


def test_ips_bootstrap_interval_matches_scipy():
    rng = np.random.default_rng(7)
    groups, position, grade = lists(80, 5, rng)
    clicks = simulate_clicks(grade, groups=groups, position=position, random_state=3)
    score = grade + rng.normal(size=grade.size)
    got = ips_estimate(
        clicks,
        groups=groups,
        position=position,
        new_score=score,
        propensity=1 / np.arange(1, 6),
        metric="dcg@3",
        confidence_level=0.9,
        n_resamples=2000,
        method="percentile",
        random_state=0,
    )
    ref = stats.bootstrap(
        (got.per_group,),
        np.mean,
        n_resamples=2000,
        confidence_level=0.9,
        method="percentile",
        random_state=0,
    )
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert got.ci[0] == pytest.approx(ref.confidence_interval.low, abs=0.05 * width)
    assert got.ci[1] == pytest.approx(ref.confidence_interval.high, abs=0.05 * width)
    assert got.standard_error == pytest.approx(ref.standard_error, rel=0.1)


def simulated_estimates(estimator, n_sims=400, n_groups=40, length=6, clip=None):
    """Estimates of one fixed new ranking over repeated click simulations.

    Returns the estimates, the naive (propensity 1) estimates and both truths.
    """
    rng = np.random.default_rng(8)
    groups, position, grade = lists(n_groups, length, rng)
    # The logging ranker put the better items higher (so position and relevance
    # are correlated, as in real logs); the new ranker is another noisy one.
    logged = grade + rng.normal(size=grade.size)
    for rows in by_group(groups).values():
        position[rows] = np.argsort(np.argsort(-logged[rows])) + 1
    new_score = grade + rng.normal(scale=1.0, size=grade.size)
    alpha = (2.0**grade - 1) / 7
    # The truth, from the definition: Σ_i λ(r_i) α_i per group, λ = DCG@4.
    truth_num = truth_den = 0.0
    for rows in by_group(groups).values():
        ranks = new_ranks(rows, new_score, position)
        truth_num += sum(lam("dcg@4", ranks[i]) * alpha[i] for i in rows)
        truth_den += sum(alpha[i] for i in rows)
    truth = truth_num / n_groups
    if estimator == "snips":
        truth = truth_num / truth_den
    # n_sims copies of the same lists, one click simulation each, in one call.
    rep_groups = np.repeat(np.arange(n_sims), groups.size) * n_groups + np.tile(
        groups, n_sims
    )
    tile = {"position": np.tile(position, n_sims)}
    clicks = simulate_clicks(
        np.tile(grade, n_sims),
        groups=rep_groups,
        examination=EXAM[:length],
        random_state=9,
        **tile,
    )
    out = {}
    for name, prop in (("est", EXAM[:length]), ("naive", np.ones(length))):
        est = ips_estimate(
            clicks,
            groups=rep_groups,
            new_score=np.tile(new_score, n_sims),
            propensity=prop,
            metric="dcg@4",
            estimator=estimator,
            clip=clip,
            **tile,
        )
        v = np.nan_to_num(est.per_group.reshape(n_sims, n_groups))
        w = est.weights.reshape(n_sims, n_groups)
        out[name] = (v * w).sum(axis=1) / w.sum(axis=1)
    return out["est"], out["naive"], truth


def test_ips_is_unbiased_and_the_naive_metric_is_not():
    est, naive, truth = simulated_estimates("ips")
    se = est.std(ddof=1) / math.sqrt(est.size)
    assert abs(est.mean() - truth) < 2 * se  # within its standard error (2 SE)
    naive_se = naive.std(ddof=1) / math.sqrt(naive.size)
    assert truth - naive.mean() > 20 * naive_se  # clicks alone miss the unseen


def test_clipping_trades_bias_for_variance():
    est, _, truth = simulated_estimates("ips")
    clipped, _, _ = simulated_estimates("clipped_ips", clip=0.3)
    assert clipped.std() < est.std()
    assert truth - clipped.mean() > 5 * clipped.std(ddof=1) / math.sqrt(clipped.size)


def test_snips_is_consistent_and_varies_less_than_ips():
    ips, _, ips_truth = simulated_estimates("ips")
    snips, naive, snips_truth = simulated_estimates("snips")
    se = snips.std(ddof=1) / math.sqrt(snips.size)
    # A ratio estimator: bias O(1/G), here well inside 3 standard errors.
    assert abs(snips.mean() - snips_truth) < 3 * se
    # Relative spread (the two estimate different scales: Σλα and Σλα / Σα).
    assert snips.std() / snips_truth < 0.7 * ips.std() / ips_truth
    # Without propensities, self-normalisation alone does not remove the bias.
    assert abs(naive.mean() - snips_truth) > 10 * se


def test_snips_ignores_the_scale_of_the_propensities():
    rng = np.random.default_rng(10)
    groups, position, grade = lists(30, 5, rng)
    clicks = simulate_clicks(grade, groups=groups, position=position, random_state=4)
    kw = {"groups": groups, "position": position, "new_score": -position + 0.0}
    base = ips_estimate(clicks, **kw, propensity=EXAM[:5], estimator="snips")
    half = ips_estimate(clicks, **kw, propensity=EXAM[:5] / 2, estimator="snips")
    assert half.value == pytest.approx(base.value)
    ips = ips_estimate(clicks, **kw, propensity=EXAM[:5])
    ips_half = ips_estimate(clicks, **kw, propensity=EXAM[:5] / 2)
    assert ips_half.value == pytest.approx(2 * ips.value)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"metric": "ndcg@10"}, ValueError, "'metric' parameter of ips_estimate"),
        ({"estimator": "dr"}, ValueError, "'estimator' parameter of ips_estimate"),
        ({"estimator": "clipped_ips"}, ValueError, "clip=0.1"),
        ({"clip": 0.1}, ValueError, 'estimator="clipped_ips"'),
        ({"propensity": [1.0, 0.0]}, ValueError, "got 0.0 for position 2"),
        ({"propensity": [1.0, 1.2, 0.5]}, ValueError, "got 1.2 for position 2"),
        ({"propensity": [1.0]}, ValueError, "one propensity per position"),
        ({"clicks": [1, 0, 1], "position": [1, 2, 0]}, ValueError, "row 2, whose po"),
        ({"clicks": [1, 0, 0.5]}, ValueError, "0 or 1 .*got 0.5 at row 2"),
        ({"position": [1, 2, 2]}, ValueError, "repeats position 2 in group 0"),
        ({"position": [1, 2.5, 3]}, ValueError, "got 2.5 at row 1"),
        ({"metric": "rr"}, ValueError, 'now "rr_sum"'),
        ({"estimator": "direct"}, ValueError, "'predicted_attraction' parameter"),
        ({"predicted_attraction": [0.1] * 3}, ValueError, "None with estimator"),
        (
            {"estimator": "direct", "predicted_attraction": [0.1, 2.0, 0.0]},
            ValueError,
            "got 2.0 at row 1",
        ),
        ({"random_state": "x"}, ValueError, "'random_state' parameter"),
    ],
)
def test_ips_estimate_errors(kwargs, error, match):
    args = {
        "clicks": [1, 0, 1],
        "groups": [0, 0, 0],
        "position": [1, 2, 3],
        "new_score": [1.0, 2.0, 3.0],
        "propensity": [1.0, 0.5, 0.3],
    }
    args.update(kwargs)
    with pytest.raises(error, match=match):
        ips_estimate(**args)


# -- propensities -----------------------------------------------------------------
def test_swap_interventions_recover_the_propensities():
    rng = np.random.default_rng(11)
    n_lists, length = 30000, 5
    groups, logged, grade = lists(n_lists, length, rng)
    # Production ranker: the top result is relevant more often.
    grade[logged == 1] = rng.choice([1, 2, 3], size=n_lists, p=[0.3, 0.4, 0.3])
    swap_with = rng.integers(1, length + 1, n_lists)[groups]  # 1: no swap
    position = logged.copy()
    position[logged == 1] = swap_with[logged == 1]
    position[(logged == swap_with) & (logged != 1)] = 1
    exam = EXAM[:length]
    clicks = simulate_clicks(
        grade, groups=groups, position=position, examination=exam, random_state=5
    )
    got = propensity_from_swaps(clicks, position=position, logged_position=logged)
    z = (got.propensity[1:] - exam[1:]) / got.standard_error[1:]
    assert np.all(np.abs(z) < 3), z
    assert got.propensity[0] == 1.0
    assert got.impressions.sum() == n_lists


def test_regression_em_recovers_the_propensities():
    rng = np.random.default_rng(12)
    n = 60000
    item = rng.integers(0, 300, n)
    grade = rng.integers(0, 4, 300)[item]
    position = rng.integers(1, 6, n)  # each item shown at many positions
    exam = EXAM[:5]
    clicks = simulate_clicks(
        grade, groups=np.arange(n), position=position, examination=exam, random_state=6
    )
    got = propensity_regression_em(clicks, position=position, item=item)
    # Sampling error of a position's CTR ratio is about 0.01 here.
    np.testing.assert_allclose(got.propensity, exam, atol=0.04)
    # The regression-EM on features (one-hot grades; an eighth of the rows, as
    # each iteration fits a logistic regression) agrees with the plain EM.
    part = slice(0, n // 8)
    reg = propensity_regression_em(
        clicks[part], position=position[part], features=np.eye(4)[grade[part]], tol=1e-4
    )
    np.testing.assert_allclose(reg.propensity, got.propensity, atol=0.06)
    np.testing.assert_allclose(reg.propensity, exam, atol=0.08)


# -- offline vs online ------------------------------------------------------------
def test_offline_online_agreement_matches_scipy_and_the_definitions():
    rng = np.random.default_rng(14)
    off = rng.normal(size=40)
    on = 0.5 * off + rng.normal(size=40)
    on[3] = 0.0
    got = offline_online_agreement(off, on, confidence_level=0.9)
    pr = stats.pearsonr(off, on)
    assert got.pearson == pytest.approx(pr.statistic)
    lo, hi = pr.confidence_interval(0.9)
    assert got.pearson_ci == pytest.approx((lo, hi))
    rho = stats.spearmanr(off, on).statistic
    assert got.spearman == pytest.approx(rho)
    z, half = math.atanh(rho), 1.6448536269514722 * math.sqrt((1 + rho**2 / 2) / 37)
    assert got.spearman_ci == pytest.approx((math.tanh(z - half), math.tanh(z + half)))
    pairs = [(a, b) for a, b in zip(off, on, strict=True) if a != 0 and b != 0]
    agree = sum((a > 0) == (b > 0) for a, b in pairs)
    assert got.n_signed == 39
    assert got.sign_agreement == agree / 39
    ci = stats.binomtest(agree, 39).proportion_ci(0.9)
    assert got.sign_agreement_ci == pytest.approx((ci.low, ci.high))
    tau = stats.kendalltau(off, on).statistic
    assert got.kendall == pytest.approx(tau)
    z, half = math.atanh(tau), 1.6448536269514722 * math.sqrt(0.437 / 36)
    assert got.kendall_ci == pytest.approx((math.tanh(z - half), math.tanh(z + half)))
    with pytest.raises(ValueError, match="at least 4 experiments"):
        offline_online_agreement([1, 2, 3], [1, 2, 3])


def test_agreement_intervals_stay_inside_and_are_honest_at_the_boundary():
    got = offline_online_agreement([1, 2, 3, 4, 5], [1.0, 2.5, 3, 4, 7])
    assert got.spearman == pytest.approx(1.0) and got.kendall == pytest.approx(1.0)
    for low, high in (got.pearson_ci, got.spearman_ci, got.kendall_ci):
        assert -1 < low < 0.5 and 0.95 < high < 1  # wide, never a point at 1
    # Coverage of the population correlations (bivariate normal, rho = 0.97:
    # Spearman 6/pi asin(rho/2), Kendall 2/pi asin(rho)) with 5 experiments,
    # where half the samples have a perfect rank agreement.
    rng = np.random.default_rng(17)
    rho = 0.97
    truth = [rho, 6 / math.pi * math.asin(rho / 2), 2 / math.pi * math.asin(rho)]
    hits, reps = np.zeros(3), 300
    for _ in range(reps):
        xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], 5)
        a = offline_online_agreement(xy[:, 0], xy[:, 1])
        for j, (low, high) in enumerate((a.pearson_ci, a.spearman_ci, a.kendall_ci)):
            hits[j] += low <= truth[j] <= high
    assert np.all(hits / reps >= 0.95 - 2 * math.sqrt(0.95 * 0.05 / reps)), hits


def test_pandas_inputs_give_the_numpy_results_and_inputs_stay_unchanged():
    pd = pytest.importorskip("pandas")
    from sklearn_rank.online import interleave

    rng = np.random.default_rng(15)
    groups, position, grade = lists(50, 4, rng)
    clicks = simulate_clicks(grade, groups=groups, position=position, random_state=8)
    score = rng.normal(size=grade.size)
    frame = pd.DataFrame(
        {"q": [f"q{g:03d}" for g in groups], "p": position, "c": clicks, "s": score}
    )
    before = frame.copy()
    rho = EXAM[:4].copy()
    kw = {"metric": "dcg@3", "estimator": "snips"}
    a = ips_estimate(
        clicks, groups=groups, position=position, new_score=score, propensity=rho, **kw
    )
    b = ips_estimate(
        frame["c"],
        groups=frame["q"],
        position=frame["p"],
        new_score=frame["s"],
        propensity=pd.Series(rho),
        **kw,
    )
    assert a.value == b.value
    np.testing.assert_array_equal(a.per_group, b.per_group)
    assert b.group_ids[0] == "q000"
    r1 = interleave(score, -score, groups=groups, random_state=0)
    r2 = interleave(frame["s"], -frame["s"], groups=frame["q"], random_state=0)
    np.testing.assert_array_equal(r1.position, r2.position)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(rho, EXAM[:4])


def test_online_modules_import_only_the_rows_above_them():
    # The online/ rows of the architecture table are the layering of the package.
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    order = re.findall(r"^\| `online/(_\w+)\.py`", text, flags=re.M)
    package = root / "sklearn_rank" / "online"
    modules = {p.stem for p in package.glob("_*.py")} - {"__init__"}
    assert sorted(order) == sorted(modules)
    for i, name in enumerate(order):
        source = (package / f"{name}.py").read_text(encoding="utf-8")
        siblings = set(re.findall(r"^\s*from \.(_\w+) import", source, flags=re.M))
        assert siblings <= set(order[:i]), (name, siblings - set(order[:i]))


def test_ips_group_weights_are_the_mean_row_weights():
    rng = np.random.default_rng(16)
    groups, position, grade = lists(30, 4, rng)
    clicks = simulate_clicks(grade, groups=groups, position=position, random_state=9)
    weight = rng.uniform(0.5, 3.0, groups.size)
    kw = {"groups": groups, "position": position, "new_score": -position + 0.0}
    plain = ips_estimate(clicks, **kw, propensity=EXAM[:4])
    weighted = ips_estimate(clicks, **kw, propensity=EXAM[:4], sample_weight=weight)
    group_w = weight.reshape(30, 4).mean(axis=1)
    np.testing.assert_allclose(weighted.weights, group_w)
    expected = np.dot(group_w, plain.per_group) / group_w.sum()
    assert weighted.value == pytest.approx(expected)
    snips = ips_estimate(
        clicks,
        **kw,
        propensity=EXAM[:4],
        sample_weight=weight,
        estimator="snips",
        metric="clicks@2",
    )
    # The new ranking keeps the logged order: rank = position.
    num = np.bincount(groups, clicks / EXAM[position - 1] * (position <= 2))
    den = np.bincount(groups, clicks / EXAM[position - 1])
    assert snips.value == pytest.approx(np.dot(group_w, num) / np.dot(group_w, den))


def test_agreement_corrects_for_noisy_online_deltas_and_names_shared_controls():
    rng = np.random.default_rng(18)
    n, reps, rho = 40, 200, 0.8
    plain, corrected = [], []
    for _ in range(reps):
        off = rng.normal(size=n)
        true_on = rho * off + math.sqrt(1 - rho**2) * rng.normal(size=n)
        se = np.full(n, 0.8)  # noise as large as most of the signal
        on = true_on + se * rng.normal(size=n)
        a = offline_online_agreement(off, on, online_standard_error=se)
        rel = 1 - np.mean(se**2) / np.var(on, ddof=1)
        assert a.online_reliability == pytest.approx(rel)
        assert a.pearson_corrected == pytest.approx(
            np.clip(a.pearson / math.sqrt(rel), -1 + 1e-12, 1 - 1e-12)
        )
        plain.append(a.pearson)
        corrected.append(a.pearson_corrected)
    # attenuated towards 0 without the correction, close to rho with it
    assert np.mean(plain) < rho - 0.15
    assert abs(np.median(corrected) - rho) < 0.05
    with pytest.warns(UserWarning, match="2 experiments share a control group .*c1"):
        got = offline_online_agreement(
            [1, 2, 3, 4, 5], [1, 3, 2, 5, 4], control=["c1", "c1", "c2", "c3", "c4"]
        )
    assert got.shared_controls == 2
