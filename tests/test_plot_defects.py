"""One test per display defect of issue 30 (each reproduction now right)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sklearn_rank import evaluate, evaluate_per_group  # noqa: E402
from sklearn_rank.plot import (  # noqa: E402
    GroupScoreDisplay,
    InterpolatedPrecisionRecallDisplay,
    MetricAtKDisplay,
    PairedDifferenceDisplay,
    PrecisionRecallDisplay,
    SegmentDisplay,
)


def _data(seed=0, n_groups=60):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 10)
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.5)
    scores = {
        "a": y + rng.normal(size=y.size),
        "b": 0.5 * y + rng.normal(size=y.size),
        "c": rng.normal(size=y.size),
    }
    return y, scores, groups


def _ax(size=(6.4, 4.8)):
    return Figure(figsize=size, layout="constrained").add_subplot()


def _same(c1, c2):
    return to_rgba(c1) == to_rgba(c2)


def test_kwargs_for_every_line_warn_and_label_is_refused():
    y, scores, groups = _data()
    with pytest.warns(UserWarning, match="curve_kwargs"):
        MetricAtKDisplay.from_predictions(
            y, scores, groups=groups, k_max=5, ax=_ax(), color="black"
        )
    with pytest.raises(ValueError, match="'label' parameter"):
        MetricAtKDisplay.from_predictions(
            y, scores, groups=groups, k_max=5, ax=_ax(), label="x"
        )


def test_ticks_are_the_requested_cutoffs_and_bands_have_a_legend_entry():
    y, scores, groups = _data()
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        ks=[1, 5, 10, 20],
        confidence_level=0.9,
        n_resamples=49,
        random_state=0,
        ax=_ax(),
    )
    assert disp.ax_.get_xticks().tolist() == [1, 5, 10, 20]
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert texts[-1] == "90% bootstrap band"


def test_one_colour_per_model_across_displays_and_curve_kwargs():
    y, scores, groups = _data()
    fig = Figure(layout="constrained")
    left, right = fig.subplots(1, 2)
    curves = MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, k_max=5, ax=left
    )
    # The baseline (last) keeps its colour; "a" and "b" keep theirs.
    paired = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=right
    )
    for m in ("a", "b"):
        assert _same(paired.lines_[m].get_color(), curves.lines_[m].get_color())
    colors = [curves.lines_[m].get_color() for m in scores]
    assert len({to_rgba(c) for c in colors}) == 3
    styled = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        k_max=5,
        ax=_ax(),
        curve_kwargs={"b": {"color": "red", "linestyle": "--"}},
    )
    assert _same(styled.lines_["b"].get_color(), "red")
    assert styled.lines_["b"].get_linestyle() == "--"
    assert styled.lines_["a"].get_linestyle() == "-"


def test_name_is_stored_for_the_next_plot():
    y, scores, groups = _data()
    disp = MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, k_max=3, ax=_ax(), name=["A", "B", "C"]
    )
    disp.plot(ax=_ax())
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert texts == ["A", "B", "C"]


def test_constructors_check_lengths():
    with pytest.raises(ValueError, match="values\\['a'\\] has 2 entries"):
        MetricAtKDisplay(ks=[1, 2, 3], values={"a": [0.1, 0.2]}, metric="ndcg")
    with pytest.raises(ValueError, match="one id per difference"):
        PairedDifferenceDisplay(
            differences={"a": [0.1, 0.2]},
            group_ids={"a": [1]},
            metric="ndcg@5",
            baseline="b",
        )
    with pytest.raises(ValueError, match="n_groups needs one count"):
        SegmentDisplay(
            segments=["x", "y"], values={"a": [1, 2]}, metric="m", n_groups=[1]
        )


def test_matplotlib_missing_is_found_before_any_work(monkeypatch):
    import sklearn_rank.plot._base as base

    monkeypatch.setitem(sys.modules, "matplotlib", None)

    def boom(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("computed before checking matplotlib")

    monkeypatch.setattr(base, "per_group", boom)
    y, scores, groups = _data()
    with pytest.raises(ImportError, match="sklearn-rank\\[plot\\]"):
        GroupScoreDisplay.from_predictions(y, scores, groups=groups)
    with pytest.raises(ImportError, match="sklearn-rank\\[plot\\]"):
        SegmentDisplay.from_predictions(y, scores, groups=groups, segments=groups % 2)


def test_paired_sorts_counts_dropped_and_renames_the_baseline():
    disp = PairedDifferenceDisplay(
        differences={"a": [0.1, -0.3, 0.5]},
        group_ids={"a": ["q1", "q2", "q3"]},
        metric="ndcg@5",
        baseline="b",
        n_dropped={"a": 43},
    )
    np.testing.assert_array_equal(disp.differences["a"], [0.5, 0.1, -0.3])
    assert disp.group_ids["a"].tolist() == ["q3", "q1", "q2"]
    disp.plot(ax=_ax(), baseline_name="production")
    text = disp.ax_.get_legend().get_texts()[0].get_text().replace("\n", " ")
    assert "a - production" in text
    assert "43 of 46 groups undefined, left out" in text
    assert "production" in disp.ax_.get_title().replace("\n", " ")


def test_paired_from_group_scores_matches_by_id():
    y, scores, groups = _data(1)
    res = {
        m: evaluate_per_group(y, s, groups=groups, metrics=["mrr"])
        for m, s in scores.items()
    }
    # The baseline covers the groups in another order: matched by id.
    base = res["c"]
    order = np.argsort(-base.group_ids)
    res["c"] = type(base)(
        base.group_ids[order],
        {"mrr": base.values["mrr"][order]},
        {"mrr": base.weights["mrr"][order]},
    )
    disp = PairedDifferenceDisplay.from_group_scores(res, metric="mrr", ax=_ax())
    ref = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="mrr", ax=_ax()
    )
    for m in ("a", "b"):
        np.testing.assert_allclose(disp.differences[m], ref.differences[m])


def test_group_scores_bins_boxes_and_ids():
    y, scores, groups = _data()
    hist = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=_ax(), bins=10
    )
    assert hist.bin_edges_[0] == 0.0 and hist.bin_edges_[-1] == 1.0
    ref = evaluate_per_group(y, scores["a"], groups=groups, metrics=["ndcg@5"])
    np.testing.assert_array_equal(hist.group_ids["a"], ref.group_ids)
    box = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=_ax(), kind="box"
    )
    colors = {m: box.artists_[m]["boxes"].get_facecolor() for m in scores}
    assert len({c[:3] for c in colors.values()}) == 3


def test_segment_labels_names_floor_order_and_dark_style():
    pd = pytest.importorskip("pandas")
    y, scores, groups = _data(2)
    seg = pd.Categorical(
        np.where(groups % 3 == 0, "new", np.where(groups % 3 == 1, "mid", "old")),
        categories=["old", "new", "mid"],
        ordered=True,
    )
    with matplotlib.rc_context({"text.color": "white"}):
        disp = SegmentDisplay.from_predictions(
            y,
            {"a": scores["a"], "c": scores["c"]},
            groups=groups,
            segments=seg,
            metric="ndcg@5",
            n_resamples=99,
            random_state=0,
            name=["model A", "model C"],
            ax=_ax(),
        )
    assert disp.segments.tolist() == ["old", "new", "mid"]
    title = disp.ax_.get_title().replace("\n", " ")
    assert "vs model C" in title and "95% bootstrap CI" in title
    # "a" is far better than random scores: p at the floor 1/100, a bound.
    assert all(t.get_text().startswith("p <= ") for t in disp.texts_)
    errbar = disp.bars_["a"].errorbar.lines[2][0]
    assert _same(errbar.get_color()[0], "white")


def test_precision_recall_name_and_alias():
    assert PrecisionRecallDisplay is InterpolatedPrecisionRecallDisplay
    y, scores, groups = _data()
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(
        y, {"a": scores["a"]}, groups=groups, ax=_ax()
    )
    low, high = disp.ax_.get_ylim()
    p = disp.precision["a"]
    assert low >= min(p.min(), disp.prevalence) - 0.1 and high <= p.max() + 0.1


def test_from_estimator_response_method_auto():
    from sklearn.linear_model import LogisticRegression

    y, scores, groups = _data()
    X = np.column_stack([scores["a"], scores["c"]])
    est = LogisticRegression().fit(X, y > 0)
    disp = MetricAtKDisplay.from_estimator(
        est, X, y, groups=groups, response_method="auto", k_max=3, ax=_ax()
    )
    ref = evaluate(y, est.decision_function(X), groups=groups, metrics=["ndcg@3"])
    assert disp.values["LogisticRegression"][-1] == pytest.approx(ref["ndcg@3"])


def test_from_cv_results_is_mean_and_sd_over_folds():
    cv = {
        "params": [{"alpha": 1}, {"alpha": 2}, {"alpha": 3}],
        "mean_test_ndcg@1": np.array([0.5, 0.6, 0.4]),
        "mean_test_ndcg@2": np.array([0.55, 0.7, 0.45]),
        "std_test_ndcg@1": np.array([0.1, 0.05, 0.02]),
        "std_test_ndcg@2": np.array([0.1, 0.05, 0.02]),
        "mean_test_map": np.array([0.1, 0.2, 0.3]),
    }
    disp = MetricAtKDisplay.from_cv_results(cv, metric="ndcg", n_candidates=2, ax=_ax())
    assert list(disp.values) == ["alpha=2", "alpha=1"]
    np.testing.assert_allclose(disp.values["alpha=2"], [0.6, 0.7])
    np.testing.assert_allclose(disp.ci_low["alpha=1"], [0.4, 0.45])
    np.testing.assert_allclose(disp.ci_high["alpha=1"], [0.6, 0.65])
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert texts[-1] == "mean +- 1 SD over folds"
    with pytest.raises(ValueError, match="'metric' parameter"):
        MetricAtKDisplay.from_cv_results(cv, metric="recall")
