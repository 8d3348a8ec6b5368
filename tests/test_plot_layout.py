"""The layout of every display, measured after drawing with Agg: for 1-4 models,
1-8 segments, short and long names, the default and a small figure size, no two
texts overlap, no text leaves the figure, the legend covers no data, and the
figure has a layout engine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backend_bases import FigureCanvasBase  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from sklearn_rank.plot import (  # noqa: E402
    GroupScoreDisplay,
    InterpolatedPrecisionRecallDisplay,
    MetricAtKDisplay,
    PairedDifferenceDisplay,
    SegmentDisplay,
)

SHORT = ["bm25", "lambdamart", "ridge", "random"]
LONG = [
    "LambdaMART, 500 trees, early stopping on ndcg@10",
    "BM25 with RM3 query expansion (k1=0.9, b=0.4)",
    "Ridge regression on 136 LETOR features",
    "random scores (baseline)",
]
SEGMENTS_SHORT = ["new", "returning", "mobile", "desktop", "de", "fr", "us", "jp"]
SEGMENTS_LONG = [
    "returning users from the mobile app",
    "first-time visitors from search engines",
    "queries of one or two words",
    "long natural-language questions",
    "navigational queries",
    "informational queries",
    "transactional queries",
    "unclassified",
]
SIZES = {"default": None, "small": (4.0, 3.0)}
TOL = 1.0  # pixels


def _axes(size):
    if size is None:
        _, ax = plt.subplots(layout="constrained")
        return ax
    return Figure(figsize=size, layout="constrained").add_subplot()


def _drawn_ticklabels(axis):
    """The tick labels matplotlib draws: those of ticks inside the view."""
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-9 * max(1.0, abs(hi - lo))
    out = []
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if lo - eps <= tick.get_loc() <= hi + eps:
            out += [tick.label1, tick.label2]
    return out


def _texts(fig):
    """Every text drawn: figure texts, titles, axis labels, drawn tick labels,
    annotations and texts of the axes, legend entries and titles."""
    out = list(fig.texts)
    for ax in fig.axes:
        out += [ax.title, ax._left_title, ax._right_title]
        for axis in (ax.xaxis, ax.yaxis):
            out += [axis.label, axis.get_offset_text(), *_drawn_ticklabels(axis)]
        out += list(ax.texts)
        legend = ax.get_legend()
        if legend is not None:
            out += [*legend.get_texts(), legend.get_title()]
    for legend in fig.legends:
        out += [*legend.get_texts(), legend.get_title()]
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def _boxes(texts):
    return [t.get_window_extent() for t in texts]


def check_layout(fig, where=""):
    """The four rules of the layout test; returns nothing, asserts each."""
    assert fig.get_layout_engine() is not None, f"{where}: no layout engine"
    if type(fig.canvas) is FigureCanvasBase:  # a bare Figure: draw with Agg
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    texts = _texts(fig)
    boxes = _boxes(texts)
    fb = fig.bbox
    for t, b in zip(texts, boxes, strict=True):
        inside = (
            b.x0 >= fb.x0 - TOL
            and b.y0 >= fb.y0 - TOL
            and b.x1 <= fb.x1 + TOL
            and b.y1 <= fb.y1 + TOL
        )
        assert inside, f"{where}: {t.get_text()!r} leaves the figure ({b} vs {fb})"
    for (t1, b1), (t2, b2) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        shrunk1 = b1.padded(-TOL)
        shrunk2 = b2.padded(-TOL)
        assert not shrunk1.overlaps(shrunk2), (
            f"{where}: {t1.get_text()!r} overlaps {t2.get_text()!r}"
        )
    for ax in fig.axes:
        for legend in [ax.get_legend(), *fig.legends]:
            if legend is not None:
                _legend_covers_nothing(ax, legend, where)


def _legend_covers_nothing(ax, legend, where):
    if True:
        lb = legend.get_window_extent().padded(-TOL)
        for line in ax.get_lines():
            if line in legend.get_lines():
                continue
            xy = line.get_xydata()
            if xy.size == 0:
                continue
            pts = line.get_transform().transform(xy)
            pts = pts[np.isfinite(pts).all(axis=1)]
            hit = (
                (pts[:, 0] > lb.x0)
                & (pts[:, 0] < lb.x1)
                & (pts[:, 1] > lb.y0)
                & (pts[:, 1] < lb.y1)
            )
            assert not hit.any(), f"{where}: the legend covers a point"
        for patch in ax.patches:
            if isinstance(patch, Rectangle) and patch.get_visible():
                pb = patch.get_window_extent()
                if pb.width > 0 and pb.height > 0:
                    assert not lb.overlaps(pb), f"{where}: the legend covers a bar"
        for coll in ax.collections:
            if isinstance(coll, PolyCollection):
                for path in coll.get_paths():
                    v = coll.get_transform().transform(path.vertices)
                    inside = (
                        (v[:, 0] > lb.x0)
                        & (v[:, 0] < lb.x1)
                        & (v[:, 1] > lb.y0)
                        & (v[:, 1] < lb.y1)
                    )
                    assert not inside.any(), f"{where}: the legend covers a band"


def _data(n_models, names, seed=0, n_groups=60):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 12)
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.5)
    scores = {
        names[i]: y * (n_models - i) * 0.4 + rng.normal(size=y.size)
        for i in range(n_models)
    }
    return y, scores, groups


CASES = list(itertools.product([1, 2, 3, 4], ["short", "long"], list(SIZES)))


@pytest.mark.parametrize(("n_models", "names", "size"), CASES)
def test_metric_at_k_layout(n_models, names, size):
    y, scores, groups = _data(n_models, SHORT if names == "short" else LONG)
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        k_max=10,
        confidence_level=0.9,
        n_resamples=49,
        random_state=0,
        ax=_axes(SIZES[size]),
    )
    check_layout(disp.figure_, f"MetricAtK {n_models} {names} {size}")
    plt.close("all")


@pytest.mark.parametrize(("n_models", "names", "size"), CASES)
def test_precision_recall_layout(n_models, names, size):
    y, scores, groups = _data(n_models, SHORT if names == "short" else LONG)
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(
        y, scores, groups=groups, ax=_axes(SIZES[size])
    )
    check_layout(disp.figure_, f"PR {n_models} {names} {size}")
    plt.close("all")


@pytest.mark.parametrize("kind", ["hist", "ecdf", "box"])
@pytest.mark.parametrize(("n_models", "names", "size"), CASES)
def test_group_scores_layout(kind, n_models, names, size):
    y, scores, groups = _data(n_models, SHORT if names == "short" else LONG)
    disp = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", kind=kind, ax=_axes(SIZES[size])
    )
    check_layout(disp.figure_, f"GroupScore {kind} {n_models} {names} {size}")
    plt.close("all")


@pytest.mark.parametrize(("n_models", "names", "size"), [c for c in CASES if c[0] >= 2])
def test_paired_layout(n_models, names, size):
    y, scores, groups = _data(n_models, SHORT if names == "short" else LONG, 1, 50)
    disp = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=_axes(SIZES[size])
    )
    check_layout(disp.figure_, f"Paired {n_models} {names} {size}")
    plt.close("all")


def _segment_display(n_models, n_seg, names, seg_names, seed=0):
    rng = np.random.default_rng(seed)
    models = names[:n_models]
    values = {m: rng.uniform(0.3, 0.9, n_seg) for m in models}
    low = {m: v - rng.uniform(0.01, 0.1, n_seg) for m, v in values.items()}
    high = {m: v + rng.uniform(0.01, 0.1, n_seg) for m, v in values.items()}
    tested = models[:-1]
    p = {m: rng.uniform(0.0001, 0.5, n_seg) for m in tested}
    return SegmentDisplay(
        segments=seg_names[:n_seg],
        values=values,
        metric="ndcg@10",
        n_groups=rng.integers(1, 500, n_seg),
        ci_low=low,
        ci_high=high,
        p_values=p or None,
        p_adjusted={m: np.minimum(1, v * 3) for m, v in p.items()} or None,
        baseline=models[-1] if tested else None,
        confidence_level=0.95,
        test="randomization",
        correction="holm",
        family=f"{n_seg * len(tested)} tests (segments x models)",
        n_resamples=999,
    )


@pytest.mark.parametrize("n_seg", [1, 2, 4, 8])
@pytest.mark.parametrize(("n_models", "names", "size"), CASES)
def test_segment_layout(n_seg, n_models, names, size):
    long = names == "long"
    disp = _segment_display(
        n_models,
        n_seg,
        LONG if long else SHORT,
        SEGMENTS_LONG if long else SEGMENTS_SHORT,
    )
    disp.plot(ax=_axes(SIZES[size]))
    check_layout(disp.figure_, f"Segment {n_seg} {n_models} {names} {size}")
    plt.close("all")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_segment_layout_from_predictions_with_an_undefined_segment():
    # (evaluate's warning for the segment without a defined group is expected)
    # A segment whose every group is undefined, and one with a single group.
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(30), 10)
    y = rng.integers(0, 2, groups.size)
    seg = np.array(["a", "b", "c"], dtype=object)[groups % 3]
    y[seg == "c"] = 0
    seg[groups == 1] = "lonely"
    scores = {"one": y + rng.normal(size=y.size), "two": rng.normal(size=y.size)}
    with pytest.warns(RuntimeWarning, match="fewer than two groups"):
        disp = SegmentDisplay.from_predictions(
            y,
            scores,
            groups=groups,
            segments=seg,
            metric="mrr",
            n_resamples=99,
            random_state=0,
            ax=_axes(None),
        )
    check_layout(disp.figure_, "Segment undefined")
    labels = [t.get_text() for t in disp.ax_.texts]
    assert "no defined group" in labels
    plt.close("all")


def test_combined_figure_layout():
    # Three displays side by side in one figure (the CLI's and the docs' case).
    y, scores, groups = _data(3, LONG)
    fig = Figure(figsize=(15, 4.5), layout="constrained")
    axes = fig.subplots(1, 3)
    MetricAtKDisplay.from_predictions(y, scores, groups=groups, k_max=10, ax=axes[0])
    PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@10", ax=axes[1]
    )
    GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@10", kind="box", ax=axes[2]
    )
    check_layout(fig, "combined")
