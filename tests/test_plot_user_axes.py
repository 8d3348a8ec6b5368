"""The layout rules on axes the user made (issue 50 items 5-6): a 2 x 3 grid of
``plt.subplots`` without a layout engine and with ``layout="constrained"``, at
two figure sizes, and a small (4 x 3 in) single axes; then the segment and
legend labels that must stay distinct, the intervals of bounded metrics and the
precision-recall summary taken from the engine. Measured after drawing with Agg
(``fig.canvas.draw()`` and ``get_window_extent()``)."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from test_plot_layout import LONG, _drawn_ticklabels, check_layout  # noqa: E402

from sklearn_rank import evaluate  # noqa: E402
from sklearn_rank.plot import (  # noqa: E402
    GroupScoreDisplay,
    InterpolatedPrecisionRecallDisplay,
    MetricAtKDisplay,
    PairedDifferenceDisplay,
    SegmentDisplay,
)

SEGMENTS = [
    "returning users from the mobile app",
    "first-time visitors from search engines",
    "long natural-language questions",
]


def _data(names, n_groups=60, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 12)
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.5)
    k = len(names)
    scores = {
        n: y * (k - i) * 0.4 + rng.normal(size=y.size) for i, n in enumerate(names)
    }
    return y, scores, groups


def _six_displays(axes):
    y, scores, groups = _data(LONG[:3])
    seg = np.array(SEGMENTS, dtype=object)[groups % 3]
    a = axes.ravel()
    MetricAtKDisplay.from_predictions(y, scores, groups=groups, k_max=10, ax=a[0])
    InterpolatedPrecisionRecallDisplay.from_predictions(
        y, scores, groups=groups, ax=a[1]
    )
    for ax, kind in ((a[2], "ecdf"), (a[3], "box")):
        GroupScoreDisplay.from_predictions(
            y, scores, groups=groups, metric="ndcg@5", kind=kind, ax=ax
        )
    PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=a[4]
    )
    SegmentDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        segments=seg,
        metric="ndcg@5",
        n_resamples=99,
        random_state=0,
        ax=a[5],
    )


def _decorations(ax):
    """The title, axis labels, drawn tick labels and legend of one axes."""
    out = [ax.title, ax.xaxis.label, ax.yaxis.label]
    out += _drawn_ticklabels(ax.xaxis) + _drawn_ticklabels(ax.yaxis)
    out = [t for t in out if t.get_visible() and t.get_text().strip()]
    legend = ax.get_legend()
    return out + ([legend] if legend is not None else [])


def check_grid(fig, where):
    """No decoration of one axes covers another axes (its data area and its
    own decorations), none leaves the figure, the texts inside an axes (group
    ids, p-values) overlap no other, and no axes keeps under 20% of its cell
    (constrained layout collapsing it)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    fb = fig.bbox
    rows, cols = fig.axes[0].get_subplotspec().get_gridspec().get_geometry()
    tight = [other.get_tightbbox(renderer) for other in fig.axes]  # measured once
    for i, ax in enumerate(fig.axes):
        box = ax.get_window_extent()
        assert box.width >= 0.2 * fb.width / cols, f"{where}: axes {i} collapsed"
        assert box.height >= 0.2 * fb.height / rows, f"{where}: axes {i} collapsed"
        inner = [t.get_window_extent(renderer).padded(-1) for t in ax.texts]
        for k, b in enumerate(inner):
            assert not any(b.overlaps(o) for o in inner[k + 1 :]), (
                f"{where}: {ax.texts[k].get_text()!r} of axes {i} overlaps a text"
            )
        for art in _decorations(ax):
            b = art.get_window_extent(renderer)
            what = getattr(art, "get_text", lambda: "the legend")()
            inside = (
                b.x0 >= fb.x0 - 1
                and b.x1 <= fb.x1 + 1
                and b.y0 >= fb.y0 - 1
                and b.y1 <= fb.y1 + 1
            )
            assert inside, f"{where}: {what!r} of axes {i} leaves the figure"
            for j, other in enumerate(fig.axes):
                if other is not ax:
                    assert not b.padded(-1).overlaps(tight[j]), (
                        f"{where}: {what!r} of axes {i} covers axes {j}"
                    )


@pytest.mark.filterwarnings("ignore:.*fewer than two groups:RuntimeWarning")
@pytest.mark.parametrize(
    # two sizes without a layout engine, the smaller (the harder) with one
    ("layout", "size"),
    [(None, (12.0, 7.0)), (None, (9.0, 6.0)), ("constrained", (9.0, 6.0))],
)
def test_six_displays_on_a_users_grid(layout, size):
    fig, axes = plt.subplots(2, 3, figsize=size, layout=layout)
    _six_displays(axes)
    check_grid(fig, f"2x3 layout={layout} {size}")
    plt.close(fig)


@pytest.mark.parametrize("size", [(4.0, 3.0), (6.4, 4.8)])
def test_a_users_single_axes_without_layout(size):
    # plt.subplots(figsize=(4, 3)) without a layout engine: the legend, the
    # labels and the title stay in the figure and clear of each other.
    y, scores, groups = _data(LONG[:3])
    fig, ax = plt.subplots(figsize=size)
    MetricAtKDisplay.from_predictions(y, scores, groups=groups, k_max=10, ax=ax)
    check_layout(fig, f"MetricAtK on plt.subplots({size})")
    fig, ax = plt.subplots(figsize=size)
    PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=ax
    )
    check_layout(fig, f"Paired on plt.subplots({size})")
    plt.close("all")


def _twelve_segments(size):
    rng = np.random.default_rng(0)
    labels = [f"customers from the region number {i:02d}" for i in range(12)]
    models = ["model A", "model B"]
    values = {m: rng.uniform(0.4, 0.8, 12) for m in models}
    disp = SegmentDisplay(
        segments=labels,
        values=values,
        metric="ndcg@10",
        n_groups=rng.integers(20, 99, 12),
    )
    _, ax = plt.subplots(figsize=size)
    return disp.plot(ax=ax)


@pytest.mark.parametrize("size", [(4.0, 3.0), (6.4, 4.8)])
def test_twelve_segments_keep_distinct_labels(size):
    disp = _twelve_segments(size)
    disp.figure_.canvas.draw()
    labels = _drawn_ticklabels(disp.ax_.xaxis)
    texts = [t.get_text() for t in labels if t.get_visible()]
    assert len(texts) == 12
    assert len(set(texts)) == 12, texts
    check_layout(disp.figure_, f"12 segments {size}")
    plt.close("all")


@pytest.mark.parametrize("layout", [None, "constrained"])
def test_long_model_names_that_share_a_start_stay_distinct(layout):
    # Two models whose names differ only at the end, in a grid (one-line
    # legend entries) and in a box plot's tick labels.
    names = [
        "LambdaMART with 500 trees and early stopping, variant A",
        "LambdaMART with 500 trees and early stopping, variant B",
    ]
    y, scores, groups = _data(names)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5), layout=layout)
    d1 = MetricAtKDisplay.from_predictions(y, scores, groups=groups, ax=axes[0])
    d2 = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", kind="box", ax=axes[1]
    )
    fig.canvas.draw()
    legend = [t.get_text() for t in d1.legend_.get_texts()]
    assert len(set(legend)) == 2, legend
    ticks = [t.get_text() for t in d2.ax_.get_xticklabels()]
    assert len(set(ticks)) == 2, ticks
    check_grid(fig, f"two long names layout={layout}")
    plt.close(fig)


def test_bootstrap_t_intervals_stay_in_the_range_of_group_values():
    # Few groups near the metric's bound of 1: the studentized interval of
    # the mean reaches above 1; the bars are clipped to the group values.
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(24), 6)
    y = (rng.random(groups.size) < 0.4).astype(int)
    y[::6] = 1
    good = y * 3.0 + rng.normal(scale=0.3, size=y.size)
    scores = {"good": good, "noise": rng.normal(size=y.size)}
    seg = np.array(["a", "b", "c", "d"])[groups % 4]
    disp = SegmentDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        segments=seg,
        metric="mrr",
        n_resamples=199,
        random_state=0,
    )
    for m in scores:
        assert np.nanmax(disp.ci_high[m]) <= 1.0
        assert np.nanmin(disp.ci_low[m]) >= 0.0
        assert (disp.ci_low[m] <= disp.values[m] + 1e-12).all()
        assert (disp.ci_high[m] >= disp.values[m] - 1e-12).all()
    plt.close("all")


def test_precision_recall_summary_is_the_engines_metric_or_none():
    y, scores, groups = _data(["a", "b"])
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(y, scores, groups=groups)
    for m, s in scores.items():
        ap = evaluate(y, s, groups=groups, metrics=["iprec_11pt"])["iprec_11pt"]
        assert disp.average_precision[m] == ap
    # Other levels: no AP-like number is made up beside the metric.
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(
        y, scores, groups=groups, recall_levels=[0.0, 0.5, 1.0]
    )
    texts = [t.get_text() for t in disp.legend_.get_texts()]
    assert disp.average_precision == {}
    assert not any("AP" in t or "mean iP" in t for t in texts), texts
    plt.close("all")


# (at the cutoffs where every group scores 1 the bootstrap-t standard error is 0)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_metric_at_k_bands_stay_in_the_range_of_group_values():
    # ndcg@k of a good ranker on 8 groups is near its bound of 1 at every
    # cutoff (its bootstrap-t band reached 1.011 before).
    y, _, groups = _data(["good"], n_groups=8)
    noise = np.random.default_rng(1).normal(scale=0.6, size=y.size)
    disp = MetricAtKDisplay.from_predictions(
        y,
        {"good": y * 2.0 + noise},
        groups=groups,
        k_max=5,
        confidence_level=0.95,
        n_resamples=99,
        random_state=0,
    )
    assert np.nanmax(disp.ci_high["good"]) <= 1.0
    assert np.nanmin(disp.ci_low["good"]) >= 0.0
    plt.close("all")


def test_six_bands_are_outlines_not_a_blur():
    # Six translucent bands overlap into one blur: beyond three models each
    # band is drawn as its dotted edges, without a fill.
    names = [f"model {i}" for i in range(6)]
    y, scores, groups = _data(names)
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        k_max=5,
        confidence_level=0.9,
        n_resamples=49,
        random_state=0,
    )
    for band in disp.bands_.values():
        assert band.get_facecolor().size == 0 or band.get_facecolor()[0][3] == 0.0
        assert band.get_linestyle() != [(0, None)]
    plt.close("all")


def test_cli_panels_with_long_run_names(tmp_path, monkeypatch):
    # compare --plot with two long run names that differ only near the end:
    # three panels side by side, none squeezed, nothing covering a neighbour,
    # the two names distinct in every legend.
    pd = pytest.importorskip("pandas")
    from sklearn_rank._cli import _plotting, main

    rng = np.random.default_rng(0)
    q = rng.integers(0, 40, 600)
    y = rng.integers(0, 3, 600)
    a = "lambdamart_500_trees_early_stopping_ndcg10_fold1_run"
    b = "lambdamart_500_trees_early_stopping_ndcg10_fold2_run"
    frame = pd.DataFrame(
        {
            "qid": q,
            "label": y,
            a: y + rng.normal(size=600),
            b: rng.normal(size=600),
            "cohort": np.where(q % 3 == 0, "new users", "returning users"),
        }
    )
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    figures = []
    monkeypatch.setattr(_plotting, "_save", lambda fig, args: figures.append(fig))
    argv = ["compare", "--quiet", str(path), "--score-col", a, "--score-col", b]
    argv += ["-m", "ndcg@10", "--resamples", "99", "--segment-col", "cohort"]
    assert main([*argv, "--plot", str(tmp_path / "x.png")]) == 0
    (fig,) = figures
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    check_grid(fig, "CLI compare, long run names")
    for ax in (fig.axes[0], fig.axes[2]):
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert len(set(texts)) == len(texts), texts
