"""Segment tables counting undefined groups apart, pandas <NA>, the order of the
segments, and stats.compare_by_segment against scipy and compare."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps

from sklearn_rank import evaluate, evaluate_by_segment
from sklearn_rank.stats import bootstrap_ci, compare, compare_by_segment


def _data(seed=0, n_groups=48, n_seg=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 12, n_groups)
    gid = np.repeat(np.arange(n_groups), sizes)
    n = gid.size
    y = rng.integers(0, 3, n) * (rng.random(n) < 0.5)
    y[gid < 4] = 0  # four groups without a relevant row: undefined
    seg = np.array(["short", "mid", "long", "x", "y", "z", "u", "v"])[gid % n_seg]
    good = y + rng.normal(size=n) * np.where(seg == "short", 3.0, 0.7)
    return y, good, rng.normal(size=n), gid, seg


def test_counts_leave_undefined_groups_out():
    y, good, _, g, seg = _data()
    t = evaluate_by_segment(y, good, groups=g, segments=seg, metrics=["gauc", "mrr"])
    for i, label in enumerate(t.segments):
        rows = seg == label
        groups = np.unique(g[rows])
        defined = [q for q in groups if y[g == q].max() > 0]
        assert t.n_groups[i] == groups.size
        assert t.used("mrr")[i] == len(defined)
        assert t.n_undefined["mrr"][i] == groups.size - len(defined)
    assert "mrr n" in str(t)  # the count in the value is printed
    scored = evaluate_by_segment(
        y, good, groups=g, segments=seg, metrics="mrr", undefined=0.0
    )
    np.testing.assert_array_equal(scored.used("mrr"), scored.n_groups)


def test_pandas_string_na_and_order():
    pd = pytest.importorskip("pandas")
    y, good, _, g, seg = _data(1)
    s = pd.Series(seg, dtype="string")
    s[3] = pd.NA
    with pytest.raises(ValueError, match=r"missing values.*<NA>"):
        evaluate_by_segment(y, good, groups=g, segments=s)
    cat = pd.Categorical(seg, categories=["short", "mid", "long"], ordered=True)
    t = evaluate_by_segment(y, good, groups=g, segments=cat, metrics="mrr")
    assert t.segments.tolist() == ["short", "mid", "long"]
    ref = evaluate_by_segment(y, good, groups=g, segments=seg, metrics="mrr")
    for i, label in enumerate(t.segments):
        j = ref.segments.tolist().index(label)
        assert t.values["mrr"][i] == ref.values["mrr"][j]
        assert t.n_groups[i] == ref.n_groups[j]
        np.testing.assert_array_equal(
            t.per_group.group_ids[t.group_segment == i],
            ref.per_group.group_ids[ref.group_segment == j],
        )
    o = evaluate_by_segment(
        y, good, groups=g, segments=seg, metrics="mrr", order=["mid", "long", "short"]
    )
    assert o.segments.tolist() == ["mid", "long", "short"]
    with pytest.raises(ValueError, match="'order' parameter"):
        evaluate_by_segment(y, good, groups=g, segments=seg, order=["mid", "long"])


def _segment_values(table, metric, s):
    keep = table.group_segment == s
    v = table.per_group.values[metric][keep]
    return v[~np.isnan(v)]


@pytest.mark.parametrize("test", ["t", "mannwhitneyu"])
def test_unpaired_segment_tests_equal_scipy(test):
    y, good, _, g, seg = _data(2)
    r = compare_by_segment(
        y,
        {"m": good},
        groups=g,
        segments=seg,
        metrics="ndcg@5",
        segment_test=test,
        confidence_level=None,
        correction="none",
    )
    t = r.tables["m"]
    for s in range(3):
        a = _segment_values(t, "ndcg@5", s)
        b = np.concatenate(
            [_segment_values(t, "ndcg@5", j) for j in range(3) if j != s]
        )
        if test == "t":
            ref = sps.ttest_ind(a, b, equal_var=False).pvalue
        else:
            ref = sps.mannwhitneyu(a, b, alternative="two-sided").pvalue
        assert r.segment_p["m"]["ndcg@5"][s] == pytest.approx(ref, rel=1e-12)
        assert r.segment_difference["m"]["ndcg@5"][s] == pytest.approx(
            a.mean() - b.mean(), rel=1e-12
        )


def test_permutation_segment_test_agrees_with_scipy():
    y, good, _, g, seg = _data(3, n_seg=2)
    r = compare_by_segment(
        y,
        good,
        groups=g,
        segments=seg,
        metrics="ndcg@5",
        confidence_level=None,
        n_resamples=20000,
        random_state=0,
    )
    t = r.tables["model"]
    a, b = _segment_values(t, "ndcg@5", 0), _segment_values(t, "ndcg@5", 1)
    ref = sps.permutation_test(
        (a, b),
        lambda x, z: abs(np.mean(x) - np.mean(z)),
        permutation_type="independent",
        alternative="greater",
        n_resamples=20000,
        random_state=1,
    ).pvalue
    p = r.segment_p["model"]["ndcg@5"]
    assert p[0] == p[1]  # two segments: one test, both rows
    assert abs(p[0] - ref) < 4 * np.sqrt(ref * (1 - ref) / 20000) + 1e-3
    assert r.segment_family_size == 1
    # Holm over one test is the test itself.
    np.testing.assert_array_equal(r.segment_p_adjusted["model"]["ndcg@5"], p)


def test_permutation_p_is_calibrated_under_the_null():
    # Same distribution in both segments: P(p <= 0.1) about 0.1.
    rng = np.random.default_rng(5)
    hits = []
    for rep in range(60):
        g = np.repeat(np.arange(30), 6)
        y = rng.integers(0, 2, g.size)
        y[::6] = 1
        seg = np.where(rng.random(30) < 0.5, "a", "b")[g]
        r = compare_by_segment(
            y,
            rng.normal(size=g.size),
            groups=g,
            segments=seg,
            metrics="mrr",
            confidence_level=None,
            n_resamples=199,
            random_state=rep,
        )
        hits.append(r.segment_p["model"]["mrr"][0] <= 0.1)
    assert 0.0 <= np.mean(hits) <= 0.25


@pytest.mark.filterwarnings("ignore:bootstrap_ci. BCa intervals:RuntimeWarning")
def test_intervals_and_paired_tests_equal_bootstrap_ci_and_compare():
    y, good, noise, g, seg = _data(4)
    scores = {"good": good, "noise": noise}
    r = compare_by_segment(
        y,
        scores,
        groups=g,
        segments=seg,
        metrics=["mrr", "ndcg@5"],
        test="t",
        n_resamples=299,
        random_state=0,
    )
    assert r.baseline == "noise"
    for s, label in enumerate(r.segments):
        rows = seg == label
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = compare(
                y[rows],
                {k: v[rows] for k, v in scores.items()},
                groups=g[rows],
                metrics=["mrr", "ndcg@5"],
                baseline="noise",
                test="t",
                correction="none",
                confidence_level=None,
            )
        for m in ["mrr", "ndcg@5"]:
            pair = rep.pair(m, "good", "noise")
            assert r.p_value["good"][m][s] == pytest.approx(pair.p_value, rel=1e-12)
            assert r.difference["good"][m][s] == pytest.approx(pair.mean_diff)
            assert r.tables["good"].values[m][s] == pytest.approx(
                evaluate(y[rows], good[rows], groups=g[rows], metrics=[m])[m]
            )
    # Holm over segments x models of each metric (3 tests here).
    from statsmodels.stats.multitest import multipletests

    raw = r.p_value["good"]["mrr"]
    np.testing.assert_allclose(
        r.p_adjusted["good"]["mrr"], multipletests(raw, method="holm")[1]
    )
    assert "3 tests" in r.model_family and "segment x every model" in r.model_family
    # The intervals: bootstrap_ci of the segment's groups with the same draws.
    r2 = compare_by_segment(
        y,
        {"good": good},
        groups=g,
        segments=seg,
        metrics="mrr",
        segment_test=None,
        n_resamples=299,
        random_state=7,
    )
    t = r2.tables["good"]
    rng = np.random.default_rng(7)
    for s in range(3):
        keep = t.group_segment == s
        from sklearn_rank import GroupScores

        sub = GroupScores(
            t.per_group.group_ids[keep],
            {"mrr": t.per_group.values["mrr"][keep]},
            {"mrr": t.per_group.weights["mrr"][keep]},
        )
        ci = bootstrap_ci(None, sub, metrics="mrr", n_resamples=299, random_state=rng)
        assert t.ci_low["mrr"][s] == ci["mrr"].ci_low
        assert t.ci_high["mrr"][s] == ci["mrr"].ci_high
    assert "95% bootstrap interval" in str(r2)


def test_one_group_segment_warns_and_gives_nan():
    y, good, _, g, seg = _data(5)
    seg = seg.astype(object)
    seg[g == 10] = "lonely"
    with pytest.warns(RuntimeWarning, match="fewer than two groups in lonely"):
        r = compare_by_segment(
            y,
            {"a": good, "b": good[::-1]},
            groups=g,
            segments=seg,
            metrics="mrr",
            n_resamples=99,
            random_state=0,
        )
    i = r.segments.tolist().index("lonely")
    assert np.isnan(r.tables["a"].ci_low["mrr"][i])
    assert np.isnan(r.segment_p["a"]["mrr"][i])
    assert np.isnan(r.p_value["a"]["mrr"][i])
    assert "n/a" in str(r)


def test_segment_tables_as_input_and_errors():
    y, good, noise, g, seg = _data(6)
    tabs = {
        k: evaluate_by_segment(y, v, groups=g, segments=seg, metrics="mrr")
        for k, v in {"a": good, "b": noise}.items()
    }
    r = compare_by_segment(None, tabs, n_resamples=99, random_state=0)
    direct = compare_by_segment(
        y,
        {"a": good, "b": noise},
        groups=g,
        segments=seg,
        metrics="mrr",
        n_resamples=99,
        random_state=0,
    )
    np.testing.assert_array_equal(r.p_value["a"]["mrr"], direct.p_value["a"]["mrr"])
    with pytest.raises(ValueError, match="'segment_test' parameter"):
        compare_by_segment(y, good, groups=g, segments=seg, segment_test="anova")
    with pytest.raises(ValueError, match="'baseline' parameter"):
        compare_by_segment(
            y, {"a": good, "b": noise}, groups=g, segments=seg, baseline="c"
        )
