"""sklearn_rank.plot: every display's data against the library's own numbers
computed independently (evaluate, evaluate_per_group, compare), the artists'
data, labels and legends, axes handling and global matplotlib state, bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sklearn_rank import evaluate, evaluate_per_group  # noqa: E402
from sklearn_rank.plot import (  # noqa: E402
    GroupScoreDisplay,
    MetricAtKDisplay,
    PairedDifferenceDisplay,
    PrecisionRecallDisplay,
)
from sklearn_rank.stats import bootstrap_ci, compare  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(seed=0, n_groups=30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 25, n_groups)
    groups = np.repeat(np.arange(n_groups) * 7 + 100, sizes)  # ids not 0..G-1
    n = groups.size
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
    y[groups == groups[0]] = 0  # one group without a relevant row: undefined
    good = y + rng.normal(size=n)
    noise = rng.normal(size=n)
    return y, {"good": good, "noise": noise}, groups


def _axes():
    fig = Figure()
    return fig.add_subplot()


# -- MetricAtKDisplay -----------------------------------------------------------
@pytest.mark.parametrize("metric", ["ndcg", "precision", "recall", "map", "mrr"])
def test_metric_at_k_values_are_evaluate_at_each_k(metric):
    y, scores, groups = _data()
    disp = MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, metric=metric, k_max=12, ax=_axes()
    )
    assert disp.ks.tolist() == list(range(1, 13))
    for model, score in scores.items():
        expected = [
            evaluate(y, score, groups=groups, metrics=[f"{metric}@{k}"])[
                f"{metric}@{k}"
            ]
            for k in range(1, 13)
        ]
        np.testing.assert_allclose(disp.values[model], expected, rtol=1e-12)
        line = disp.lines_[model]
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 13))
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    legend = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert legend == ["good", "noise"]
    assert disp.ax_.get_xlabel() == "cutoff k"
    assert disp.ax_.get_ylabel() == f"{metric}@k"
    assert disp.bands_ == {}


def test_metric_at_k_pandas_inputs_and_one_array_with_a_name():
    pd = pytest.importorskip("pandas")
    y, scores, groups = _data(1)
    frame = pd.DataFrame(scores)
    disp = MetricAtKDisplay.from_predictions(
        pd.Series(y), frame, groups=pd.Series(groups), k_max=5, ax=_axes()
    )
    ref = MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, k_max=5, ax=_axes()
    )
    for m in scores:
        np.testing.assert_array_equal(disp.values[m], ref.values[m])
    one = MetricAtKDisplay.from_predictions(
        y, scores["good"], groups=groups, k_max=5, name="mine", ax=_axes()
    )
    assert list(one.values) == ["mine"]
    np.testing.assert_array_equal(one.values["mine"], ref.values["good"])


# precision@k divides each k's hits by k on the way out, past the longest list too.
@pytest.mark.filterwarnings("ignore:bootstrap_ci. BCa intervals:RuntimeWarning")
@pytest.mark.parametrize(("metric", "k_max"), [("ndcg", 6), ("precision", 30)])
def test_metric_at_k_bands_are_bootstrap_ci_of_each_k(metric, k_max):
    y, scores, groups = _data(2)
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        metric=metric,
        k_max=k_max,
        confidence_level=0.9,
        n_resamples=199,
        random_state=3,
        ax=_axes(),
    )
    # bootstrap_ci on the raw arrays with the same seed draws the same groups.
    for model, score in scores.items():
        report = bootstrap_ci(
            y,
            score,
            groups=groups,
            metrics=[f"{metric}@{k}" for k in range(1, k_max + 1)],
            confidence_level=0.9,
            n_resamples=199,
            random_state=3,
        )
        # ... clipped to the range of each cutoff's group values (where every
        # mean of resampled groups lies; a bootstrap-t interval can leave it)
        names = [r.metric for r in report]
        pg = evaluate_per_group(y, score, groups=groups, metrics=names)
        lo = [np.nanmin(pg.values[m]) for m in names]
        hi = [np.nanmax(pg.values[m]) for m in names]
        low = np.clip([r.ci_low for r in report], lo, hi)
        high = np.clip([r.ci_high for r in report], lo, hi)
        np.testing.assert_allclose(disp.ci_low[model], low, rtol=1e-12)
        np.testing.assert_allclose(disp.ci_high[model], high, rtol=1e-12)
        ys = disp.bands_[model].get_paths()[0].vertices[:, 1]
        assert ys.min() == pytest.approx(min(low))
        assert ys.max() == pytest.approx(max(high))
    legend = [x.get_text() for x in disp.ax_.get_legend().get_texts()]
    assert legend[-1] == "90% bootstrap band"  # the bands have a legend entry


def test_metric_at_k_from_estimator_equals_from_predictions():
    from sklearn.linear_model import LinearRegression

    y, scores, groups = _data(3)
    X = np.column_stack([scores["good"], scores["noise"]])
    est = LinearRegression().fit(X, y)
    disp = MetricAtKDisplay.from_estimator(
        {"lr": est}, X, y, groups=groups, metric="recall", k_max=4, ax=_axes()
    )
    ref = MetricAtKDisplay.from_predictions(
        y,
        {"lr": est.predict(X)},
        groups=groups,
        metric="recall",
        k_max=4,
        ax=_axes(),
    )
    np.testing.assert_array_equal(disp.values["lr"], ref.values["lr"])
    single = MetricAtKDisplay.from_estimator(est, X, y, groups=groups, ax=_axes())
    assert list(single.values) == ["LinearRegression"]


# -- GroupScoreDisplay ----------------------------------------------------------
def _per_group(y, scores, groups, metric):
    return {
        m: evaluate_per_group(y, s, groups=groups, metrics=[metric]).values[metric]
        for m, s in scores.items()
    }


def test_group_scores_hist_counts_and_undefined_in_legend():
    y, scores, groups = _data(4)
    disp = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", bins=10, ax=_axes()
    )
    ref = _per_group(y, scores, groups, "ndcg@5")
    legend = [
        t.get_text().replace("\n", " ") for t in disp.ax_.get_legend().get_texts()
    ]
    for i, (m, v) in enumerate(ref.items()):
        defined = v[~np.isnan(v)]
        n_undef = int(np.isnan(v).sum())
        assert n_undef >= 1
        assert disp.n_undefined[m] == n_undef
        assert legend[i] == f"{m} ({defined.size} groups, {n_undef} undefined)"
        counts, _ = np.histogram(defined, bins=disp.bin_edges_)
        np.testing.assert_array_equal(disp.counts_[m], counts)
    every = np.concatenate([v[~np.isnan(v)] for v in ref.values()])
    assert disp.bin_edges_[0] == every.min() and disp.bin_edges_[-1] == every.max()


def test_group_scores_ecdf_and_box():
    y, scores, groups = _data(5)
    ref = _per_group(y, scores, groups, "mrr")
    disp = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="mrr", kind="ecdf", ax=_axes()
    )
    for m, v in ref.items():
        xs = disp.artists_[m].get_xdata()
        np.testing.assert_array_equal(
            np.unique(xs[np.isfinite(xs)]), np.unique(v[~np.isnan(v)])
        )
        assert np.nanmax(disp.artists_[m].get_ydata()) == 1.0
    box = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="mrr", kind="box", ax=_axes()
    )
    ticks = [t.get_text().replace("\n", " ") for t in box.ax_.get_xticklabels()]
    assert ticks == [
        f"{m} ({int((~np.isnan(v)).sum())} groups, {int(np.isnan(v).sum())} undefined)"
        for m, v in ref.items()
    ]
    for m, v in ref.items():  # the box's median line sits at the median
        median = box.artists_[m]["medians"].get_ydata()[0]
        assert median == pytest.approx(np.median(v[~np.isnan(v)]))


# -- PairedDifferenceDisplay ----------------------------------------------------
def test_paired_differences_sorted_counts_and_labels():
    y, scores, groups = _data(6)
    disp = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@10", baseline="noise", ax=_axes()
    )
    res = {
        m: evaluate_per_group(y, s, groups=groups, metrics=["ndcg@10"])
        for m, s in scores.items()
    }
    d = res["good"].values["ndcg@10"] - res["noise"].values["ndcg@10"]
    keep = ~np.isnan(d)
    expected = np.sort(d[keep])[::-1]
    np.testing.assert_allclose(disp.differences["good"], expected)
    np.testing.assert_allclose(disp.lines_["good"].get_ydata(), expected)
    pair = compare(
        y,
        scores,
        groups=groups,
        metrics="ndcg@10",
        baseline="noise",
        n_resamples=99,
        random_state=0,
    ).pair("ndcg@10", "good", "noise")
    assert (disp.wins["good"], disp.ties["good"], disp.losses["good"]) == (
        pair.wins,
        pair.ties,
        pair.losses,
    )
    legend = disp.ax_.get_legend().get_texts()[0].get_text().replace("\n", " ")
    assert f"{pair.wins} wins, {pair.ties} ties, {pair.losses} losses" in legend
    ids = res["good"].group_ids[keep]
    by_diff = ids[np.argsort(-d[keep], kind="stable")]
    # The ids shown (labels that meet are joined: "12, 7") are among the
    # extremes, in order; the largest win and loss are always shown.
    labels = [a.get_text() for a in disp.annotations_["good"]]
    shown = [i for text in labels for i in text.split(", ")]
    extremes = [str(g) for g in [*by_diff[:3], *by_diff[::-1][:3]]]
    assert shown == [x for x in extremes if x in shown]
    assert extremes[0] in shown and extremes[3] in shown


def test_paired_needs_two_models_and_a_known_baseline():
    y, scores, groups = _data(7)
    with pytest.raises(ValueError, match="at least two models"):
        PairedDifferenceDisplay.from_predictions(
            y, {"good": scores["good"]}, groups=groups
        )
    with pytest.raises(ValueError, match="'baseline' parameter"):
        PairedDifferenceDisplay.from_predictions(
            y, scores, groups=groups, baseline="other"
        )


def test_paired_warns_when_every_group_is_undefined():
    # As evaluate: UndefinedMetricWarning (its mean is NaN), here with an empty
    # plot. One undefined group among defined ones does not warn (_data has
    # one, and the suite turns warnings into errors).
    from sklearn.exceptions import UndefinedMetricWarning

    y, scores, groups = _data(9)
    y = np.zeros_like(y)
    with pytest.warns(UndefinedMetricWarning, match="ndcg@10 is undefined for every"):
        res = evaluate(y, scores["good"], groups=groups, metrics=["ndcg@10"])
    assert np.isnan(res["ndcg@10"])
    with pytest.warns(
        UndefinedMetricWarning,
        match="ndcg@10 is undefined for every one of the 30 groups in 'good' - ",
    ) as record:
        disp = PairedDifferenceDisplay.from_predictions(
            y, scores, groups=groups, baseline="noise", ax=_axes()
        )
    assert len(record) == 1
    assert record[0].filename == __file__  # points at the caller
    assert disp.differences["good"].size == 0
    assert (disp.wins["good"], disp.ties["good"], disp.losses["good"]) == (0, 0, 0)
    assert disp.lines_["good"].get_ydata().size == 0


# -- PrecisionRecallDisplay -----------------------------------------------------
def test_precision_recall_is_iprec_at_each_level():
    y, scores, groups = _data(8)
    disp = PrecisionRecallDisplay.from_predictions(y, scores, groups=groups, ax=_axes())
    np.testing.assert_allclose(disp.recall, np.linspace(0, 1, 11))
    for m, s in scores.items():
        names = [f"iprec@{r:g}" for r in np.round(np.linspace(0, 1, 11), 1)]
        ref = evaluate(y, s, groups=groups, metrics=names)
        np.testing.assert_allclose(
            disp.lines_[m].get_ydata(), [ref[n] for n in names], rtol=1e-12
        )
    assert disp.ax_.get_xlabel() == "recall"
    legend = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    for m, s in scores.items():
        # The summary: the 11-point average precision, trec_eval's iprec_11pt.
        ap = evaluate(y, s, groups=groups, metrics=["iprec_11pt"])["iprec_11pt"]
        assert disp.average_precision[m] == pytest.approx(ap, rel=1e-12)
        assert f"{m} (11-pt AP {ap:.3f})" in legend
    # The random-ranking line: the mean share of relevant rows over the groups
    # the curve averages (those with a relevant row).
    shares = [np.mean(y[groups == g] > 0) for g in np.unique(groups)]
    shares = [x for x in shares if x > 0]
    assert disp.prevalence == pytest.approx(np.mean(shares), rel=1e-12)
    low, high = disp.ax_.get_ylim()
    assert high <= 1.02 and low > -0.02  # the curves' range, not [0, 1] fixed


def test_precision_recall_eleven_points_by_hand():
    # One query, relevant at ranks 1 and 4 of 5 (R = 2): precision 1 after the
    # first relevant row, 0.5 after the second. trec_eval reads level r after
    # round(r * R) relevant rows, so 0.6 and 0.7 (1.2 and 1.4 rows) still read
    # 1.0; trec_eval 10.0-rc3 -m iprec_at_recall prints exactly this curve.
    y = [1, 0, 0, 1, 0]
    disp = PrecisionRecallDisplay.from_predictions(
        y, [5, 4, 3, 2, 1], groups=[0] * 5, ax=_axes()
    )
    np.testing.assert_allclose(disp.precision["model"], [1.0] * 8 + [0.5] * 3)


# -- conventions shared by every display ---------------------------------------
CASES = [
    (MetricAtKDisplay, {"k_max": 4}),
    (GroupScoreDisplay, {}),
    (PairedDifferenceDisplay, {}),
    (PrecisionRecallDisplay, {}),
]


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_plot_draws_into_the_given_axes_and_leaves_global_state(cls, kw):
    y, scores, groups = _data(9)
    before_params = dict(matplotlib.rcParams)
    before_figs = plt.get_fignums()
    fig, ax = plt.subplots()  # a pyplot figure: counted by get_fignums
    n_figs = len(plt.get_fignums())
    disp = cls.from_predictions(y, scores, groups=groups, ax=ax, **kw)
    assert disp.ax_ is ax and disp.figure_ is fig
    assert len(plt.get_fignums()) == n_figs
    assert ax.has_data()
    # plot() again on a bare Figure's axes: pyplot never involved.
    other = _axes()
    assert disp.plot(ax=other) is disp
    assert disp.ax_ is other and other.has_data()
    assert len(plt.get_fignums()) == n_figs
    assert dict(matplotlib.rcParams) == before_params
    plt.close(fig)
    assert plt.get_fignums() == before_figs


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_legend_on_the_users_own_figure_stays_inside_it(cls, kw):
    # plt.subplots() has no layout engine: nothing makes room beside the axes,
    # so a legend placed there would be cut at the figure's edge.
    y, scores, groups = _data(11)
    fig, ax = plt.subplots()
    for name in ("model A", "model B with a rather long name"):
        disp = cls.from_predictions(y, scores, groups=groups, ax=ax, name=name, **kw)
    fig.canvas.draw()
    fb = fig.bbox
    for legend in [disp.ax_.get_legend(), *fig.legends]:
        if legend is not None:
            b = legend.get_window_extent()
            assert b.x0 >= fb.x0 - 1 and b.x1 <= fb.x1 + 1, (b, fb)
            assert b.y0 >= fb.y0 - 1 and b.y1 <= fb.y1 + 1, (b, fb)
    plt.close(fig)


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_plot_without_axes_makes_a_figure(cls, kw):
    y, scores, groups = _data(10)
    n = len(plt.get_fignums())
    disp = cls.from_predictions(y, scores, groups=groups, **kw)
    assert len(plt.get_fignums()) == n + 1
    assert disp.figure_ is disp.ax_.figure


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_name_relabels_the_models(cls, kw):
    y, scores, groups = _data(11)
    disp = cls.from_predictions(y, scores, groups=groups, ax=_axes(), **kw)
    with pytest.raises(ValueError, match="'name' parameter"):
        disp.plot(ax=_axes(), name=["only one", "two", "three"])


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_bad_inputs_raise_the_usual_errors(cls, kw):
    y, scores, groups = _data(12)
    short = {"good": scores["good"], "noise": scores["noise"][:-1]}
    with pytest.raises(ValueError, match="Inconsistent numbers of rows"):
        cls.from_predictions(y, short, groups=groups, ax=_axes(), **kw)
    with pytest.raises(ValueError, match="Inconsistent numbers of rows"):
        cls.from_predictions(
            y[:-1], scores, groups=[*groups[:-1].tolist(), 0, 1], ax=_axes(), **kw
        )
    with pytest.raises(TypeError, match="must be numeric"):
        cls.from_predictions(
            y,
            {"a": ["x"] * y.size, "b": scores["good"]},
            groups=groups,
            ax=_axes(),
            **kw,
        )


@pytest.mark.parametrize("cls", [GroupScoreDisplay, PairedDifferenceDisplay])
def test_unknown_metric(cls):
    y, scores, groups = _data(13)
    with pytest.raises(ValueError, match="Unknown metric 'ndgc@10'"):
        cls.from_predictions(y, scores, groups=groups, metric="ndgc@10", ax=_axes())
    with pytest.raises(ValueError, match="pooled"):
        cls.from_predictions(y, scores, groups=groups, metric="auc", ax=_axes())


@pytest.mark.parametrize(
    ("metric", "match"),
    [
        ("ndgc", "Unknown metric"),
        ("map@10", "without '@k'"),
        ("r_precision", "a metric with a cutoff"),
        ("auc", "a metric with a cutoff"),
        (3, "without '@k'"),
    ],
)
def test_metric_at_k_needs_a_cutoff_metric(metric, match):
    y, scores, groups = _data(14)
    with pytest.raises(ValueError, match=match):
        MetricAtKDisplay.from_predictions(y, scores, groups=groups, metric=metric)


@pytest.mark.parametrize(
    "kw", [{"k_max": 0}, {"k_max": 2.5}, {"ks": [3, 2]}, {"ks": []}, {"ks": [0, 1]}]
)
def test_metric_at_k_bad_cutoffs(kw):
    y, scores, groups = _data(15)
    with pytest.raises(ValueError, match="parameter of MetricAtKDisplay"):
        MetricAtKDisplay.from_predictions(y, scores, groups=groups, **kw)


def test_bad_kind_and_bad_recall_levels():
    y, scores, groups = _data(16)
    with pytest.raises(ValueError, match="'kind' parameter"):
        GroupScoreDisplay.from_predictions(y, scores, groups=groups, kind="violin")
    with pytest.raises(ValueError, match="'recall_levels' parameter"):
        PrecisionRecallDisplay.from_predictions(
            y, scores, groups=groups, recall_levels=[0.5, 0.2]
        )
    with pytest.raises(ValueError, match="'ax' parameter"):
        PrecisionRecallDisplay.from_predictions(y, scores, groups=groups, ax="axes")


@pytest.mark.filterwarnings("ignore:bootstrap_ci. BCa intervals:RuntimeWarning")
def test_inputs_are_not_modified():
    y, scores, groups = _data(17)
    copies = (y.copy(), {m: s.copy() for m, s in scores.items()}, groups.copy())
    MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, ax=_axes(), confidence_level=0.9, n_resamples=49
    )
    PairedDifferenceDisplay.from_predictions(y, scores, groups=groups, ax=_axes())
    np.testing.assert_array_equal(y, copies[0])
    np.testing.assert_array_equal(groups, copies[2])
    for m in scores:
        np.testing.assert_array_equal(scores[m], copies[1][m])


def test_missing_matplotlib_names_the_extra(monkeypatch):
    y, scores, groups = _data(18)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    with pytest.raises(ImportError, match=r'pip install "sklearn-rank\[plot\]"'):
        MetricAtKDisplay.from_predictions(y, scores, groups=groups, k_max=3)


def test_import_sklearn_rank_never_imports_matplotlib():
    code = (
        "import sys, sklearn_rank, sklearn_rank.plot; "
        "from sklearn_rank.plot import MetricAtKDisplay; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("kind", ["hist", "ecdf", "box"])
def test_group_scores_with_no_defined_group(kind):
    y, s, groups = np.zeros(6), np.arange(6.0), [1, 1, 1, 2, 2, 2]
    disp = GroupScoreDisplay.from_predictions(
        y, {"a": s, "b": -s}, groups=groups, kind=kind, ax=_axes()
    )
    assert disp.n_undefined == {"a": 2, "b": 2}


def test_docs_pictures_exist_for_every_link():
    # examples/plot_displays.py draws one PNG per picture link of docs/plots.md
    # (the docs build copies them to docs/images/plots, docs/conf.py).
    import re
    from pathlib import Path

    docs = Path(__file__).parents[1] / "docs"
    links = re.findall(
        r"\]\((images/plots/\w+\.png)\)", (docs / "plots.md").read_text()
    )
    assert len(links) == 7
    for link in links:
        assert (docs / link).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", link


def _data_of(disp):
    for attr in ("values", "differences", "precision"):
        if hasattr(disp, attr):
            return getattr(disp, attr)
    raise AssertionError(type(disp))


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_from_estimator_with_pandas_equals_from_predictions(cls, kw):
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LinearRegression, Ridge

    y, scores, groups = _data(19)
    X = pd.DataFrame({"f0": scores["good"], "f1": scores["noise"]})
    models = {"lr": LinearRegression().fit(X, y), "ridge": Ridge(alpha=50).fit(X, y)}
    disp = cls.from_estimator(
        models, X, pd.Series(y), groups=pd.Series(groups), ax=_axes(), **kw
    )
    ref = cls.from_predictions(
        y, {m: e.predict(X) for m, e in models.items()}, groups=groups,
        ax=_axes(), **kw,
    )  # fmt: skip
    got, want = _data_of(disp), _data_of(ref)
    assert list(got) == list(want)
    for m in want:
        np.testing.assert_array_equal(got[m], want[m])
