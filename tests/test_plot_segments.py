"""evaluate_by_segment against evaluate on each segment's rows, and SegmentDisplay
against scipy's paired t-test and statsmodels' Holm adjustment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

from sklearn_rank import evaluate, evaluate_by_segment, evaluate_per_group  # noqa: E402
from sklearn_rank.plot import SegmentDisplay  # noqa: E402

METRICS = ["ndcg@5", "map", "mrr", "precision@3", "gauc"]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    n_groups = 36
    sizes = rng.integers(2, 15, n_groups)
    groups = np.repeat(np.array([f"q{i:02d}" for i in range(n_groups)]), sizes)
    gid = np.repeat(np.arange(n_groups), sizes)
    n = groups.size
    y = rng.integers(0, 3, n) * (rng.random(n) < 0.45)
    segment = np.array(["short", "long", "mid"])[gid % 3]
    return y, rng.normal(size=n) + y, rng.normal(size=n), groups, segment, rng


def _by_rows(y, s, groups, segment, label, metrics, **kw):
    rows = segment == label
    w = kw.pop("sample_weight", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(
            y[rows],
            s[rows],
            groups=groups[rows],
            metrics=metrics,
            sample_weight=None if w is None else w[rows],
            **kw,
        )


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"undefined": 0.0},
        {"convention": "trec_eval"},
        {"weights": True},
        {"weights": True, "group_weight": "relevant_mean", "undefined": 0.0},
    ],
)
def test_values_equal_evaluate_on_each_segment_rows(kw):
    y, good, _, groups, segment, rng = _data(1)
    kw = dict(kw)
    if kw.pop("weights", False):
        kw["sample_weight"] = rng.random(y.size) + 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = evaluate_by_segment(
            y, good, groups=groups, segments=segment, metrics=METRICS, **kw
        )
    assert table.segments.tolist() == ["long", "mid", "short"]
    for i, label in enumerate(table.segments):
        ref = _by_rows(y, good, groups, segment, label, METRICS, **dict(kw))
        for m in METRICS:
            assert table.values[m][i] == pytest.approx(ref[m], rel=1e-12), (label, m)
        assert table.n_groups[i] == np.unique(groups[segment == label]).size


def test_mapping_pandas_and_frame():
    pd = pytest.importorskip("pandas")
    y, good, _, groups, segment, _ = _data(2)
    per_group = dict(zip(groups.tolist(), segment.tolist(), strict=True))
    a = evaluate_by_segment(y, good, groups=groups, segments=per_group, metrics="mrr")
    b = evaluate_by_segment(
        pd.Series(y),
        pd.Series(good),
        groups=pd.Series(groups),
        segments=pd.Series(segment),
        metrics="mrr",
    )
    np.testing.assert_array_equal(a.values["mrr"], b.values["mrr"])
    frame = a.to_frame()
    assert list(frame.columns) == ["n_groups", "mrr", "mrr n", "mrr undefined"]
    assert frame.index.tolist() == ["long", "mid", "short"]
    text = str(a).splitlines()
    assert text[0].split()[:3] == ["segment", "groups", "mrr"]
    assert text[1].split()[:2] == ["long", str(a.n_groups[0])]


def test_segment_errors():
    pd = pytest.importorskip("pandas")
    y, good, _, groups, segment, _ = _data(3)
    broken = segment.copy()
    broken[0] = "other" if broken[1] == broken[0] else broken[0]
    broken[1] = "mid" if broken[0] != "mid" else "long"
    with pytest.raises(ValueError, match="constant within each group"):
        evaluate_by_segment(y, good, groups=groups, segments=broken)
    with pytest.raises(ValueError, match="Inconsistent numbers of rows"):
        evaluate_by_segment(y, good, groups=groups, segments=segment[:-1])
    per_group = dict(zip(groups.tolist(), segment.tolist(), strict=True))
    del per_group["q05"]
    with pytest.raises(ValueError, match="no segment for 1 group"):
        evaluate_by_segment(y, good, groups=groups, segments=per_group)
    per_group["q05"] = "short"
    per_group["not a group"] = "empty"
    with pytest.raises(ValueError, match=r"'empty'.*hold no group"):
        evaluate_by_segment(y, good, groups=groups, segments=per_group)
    cat = pd.Series(pd.Categorical(segment, categories=["short", "mid", "long", "x"]))
    with pytest.raises(ValueError, match=r"'x'.*hold no group"):
        evaluate_by_segment(y, good, groups=groups, segments=cat)
    with pytest.raises(ValueError, match="missing values"):
        evaluate_by_segment(
            y, good, groups=groups, segments=np.where(segment == "mid", None, segment)
        )
    with pytest.raises(ValueError, match="Unknown metric"):
        evaluate_by_segment(y, good, groups=groups, segments=segment, metrics="ndgc")


def test_display_bars_tests_and_adjustment():
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    y, good, noise, groups, segment, _ = _data(4)
    scores = {"good": good, "noise": noise}
    ax = Figure().add_subplot()
    disp = SegmentDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        segments=segment,
        metric="ndcg@5",
        baseline="noise",
        test="t",
        correction="holm",
        n_resamples=99,
        random_state=0,
        ax=ax,
    )
    labels = disp.segments.tolist()
    raw = []
    for i, label in enumerate(labels):
        for m, s in scores.items():
            ref = _by_rows(y, s, groups, segment, label, ["ndcg@5"])["ndcg@5"]
            assert disp.values[m][i] == pytest.approx(ref, rel=1e-12)
            assert disp.bars_[m].patches[i].get_height() == pytest.approx(ref)
            assert disp.ci_low[m][i] <= ref <= disp.ci_high[m][i]
        rows = segment == label
        a = evaluate_per_group(
            y[rows], good[rows], groups=groups[rows], metrics="ndcg@5"
        ).values["ndcg@5"]
        b = evaluate_per_group(
            y[rows], noise[rows], groups=groups[rows], metrics="ndcg@5"
        ).values["ndcg@5"]
        keep = ~np.isnan(a) & ~np.isnan(b)
        raw.append(ttest_rel(a[keep], b[keep]).pvalue)
    # (1e-9: the per-group values reach scipy through the engine's reductions)
    np.testing.assert_allclose(disp.p_values["good"], raw, rtol=1e-9)
    holm = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose(disp.p_adjusted["good"], holm, rtol=1e-9)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == [
        f"{s}\n({n} groups)" for s, n in zip(labels, disp.n_groups, strict=True)
    ]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["good", "noise"]
    assert len(disp.texts_) == len(labels)
    title = ax.get_title().replace("\n", " ")
    assert "paired t test vs noise, holm-adjusted over 3 tests" in title
    assert "(segments x models)" in title and "95% bootstrap CI" in title


def test_display_one_model_and_from_estimator():
    from sklearn.linear_model import Ridge

    y, good, noise, groups, segment, _ = _data(5)
    X = np.column_stack([good, noise])
    est = Ridge().fit(X, y)
    disp = SegmentDisplay.from_estimator(
        est,
        X,
        y,
        groups=groups,
        segments=segment,
        metric="mrr",
        n_resamples=99,
        random_state=0,
        ax=Figure().add_subplot(),
    )
    ref = evaluate_by_segment(
        y, est.predict(X), groups=groups, segments=segment, metrics="mrr"
    )
    np.testing.assert_allclose(disp.values["Ridge"], ref.values["mrr"], rtol=1e-12)
    assert disp.p_adjusted is None and disp.texts_ == []
    assert np.all(disp.ci_low["Ridge"] <= disp.values["Ridge"])


def test_display_bad_input():
    y, good, noise, groups, segment, _ = _data(6)
    scores = {"good": good, "noise": noise}
    with pytest.raises(ValueError, match="'baseline' parameter"):
        SegmentDisplay.from_predictions(
            y, scores, groups=groups, segments=segment, baseline="x"
        )
    with pytest.raises(ValueError, match="'correction' parameter"):
        SegmentDisplay.from_predictions(
            y, scores, groups=groups, segments=segment, correction="sidak"
        )
    with pytest.raises(ValueError, match="constant within each group"):
        SegmentDisplay.from_predictions(
            y, scores, groups=groups, segments=np.arange(y.size) % 2
        )
