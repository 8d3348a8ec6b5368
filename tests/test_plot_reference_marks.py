"""The marks drawn over the curves (issue 50 item 6): the random-ranking line of
the precision-recall display stays inside the axes with one model, and the
group-id labels of the paired display clear their step line. Measured on the
artists' data, the axes limits and the renderer's text extents (Agg), on axes
the user made, at two figure sizes."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.cbook import pts_to_midstep  # noqa: E402
from matplotlib.path import Path  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from sklearn_rank.plot import (  # noqa: E402
    InterpolatedPrecisionRecallDisplay,
    PairedDifferenceDisplay,
)

# A user's axes: one small figure, and one cell of a 2 x 3 grid.
SIZES = {"4x3 in": (4.0, 3.0, 1, 1), "grid 12x7 in": (12.0, 7.0, 2, 3)}


def _users_axes(size, layout=None):
    w, h, rows, cols = SIZES[size]
    _, axes = plt.subplots(rows, cols, figsize=(w, h), layout=layout, squeeze=False)
    return axes.ravel()[0]


def _one_model(case):
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(20), 15)
    if case == "sparse":
        y = (rng.random(groups.size) < 0.05).astype(int)
        y[::15] = 1  # every group has a relevant row
    else:
        y = rng.integers(0, 2, groups.size)
    score = {
        "perfect": y.astype(float),
        "good": y + rng.normal(size=y.size),
        "sparse": y * 2.0 + rng.normal(size=y.size),
    }[case]
    return y, score, groups


def _random_lines(ax):
    return [line for line in ax.lines if line.get_linestyle() == "--"]


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("case", ["perfect", "good", "sparse"])
def test_random_ranking_line_inside_the_axes_with_one_model(case, size):
    # One model far above chance: the curve alone set the y range and the
    # line at the mean prevalence fell below it (named in the legend's title
    # only). It is drawn, inside the y range, with the curve.
    y, score, groups = _one_model(case)
    ax = _users_axes(size)
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(
        y, {"model": score}, groups=groups, ax=ax
    )
    lo, hi = ax.get_ylim()
    lines = _random_lines(ax)
    assert len(lines) == 1, f"{case}, {size}: no random-ranking line drawn"
    level = np.unique(lines[0].get_ydata())
    assert level.tolist() == [pytest.approx(disp.prevalence)]
    assert lo < disp.prevalence < hi, (case, size, disp.prevalence, (lo, hi))
    curve = disp.lines_["model"].get_ydata()
    assert lo < curve.min() and curve.max() < hi
    # the legend names it with its value
    texts = [t.get_text() for t in disp.legend_.get_texts()]
    assert any(f"{disp.prevalence:.3f}" in t for t in texts), texts
    plt.close("all")


def _paired_data(n_groups, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 10)
    y = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.5)
    new = y * 0.6 + rng.normal(size=y.size)
    old = y * 0.4 + rng.normal(size=y.size)
    return y, {"new": new, "old": old}, 1000 + groups


def _step_path(line, ax):
    """The drawn steps-mid polyline of ``line`` in display coordinates."""
    x, y = pts_to_midstep(line.get_xdata(), line.get_ydata())
    return Path(ax.transData.transform(np.column_stack([x, y])))


@pytest.mark.parametrize("layout", [None, "constrained"])
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("n_groups", [40, 300])
def test_paired_group_ids_clear_the_step_line(n_groups, size, layout):
    # The ids of the largest wins and losses sat on (wins: 3 points under the
    # point's level, to its right, where the descending steps still run) the
    # step line. Each kept label's box, grown by one pixel, meets no step.
    y, scores, groups = _paired_data(n_groups)
    ax = _users_axes(size, layout)
    disp = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", baseline="old", ax=ax
    )
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = disp.annotations_["new"]
    # the ids of the 3 largest wins and losses; labels that met are joined
    shown = [i for t in labels for i in t.get_text().split(", ")]
    assert len(shown) >= 4, f"{n_groups} groups, {size}: {shown} shown"
    assert set(shown) <= {str(g) for g in groups}
    steps = _step_path(disp.lines_["new"], ax)
    for text in labels:
        # the text's own box (an Annotation's extent includes its leader line,
        # which does reach the point on the line)
        box = Text.get_window_extent(text, renderer).padded(1.0)
        assert not steps.intersects_bbox(box, filled=False), (
            f"{n_groups} groups, {size}, {layout}: {text.get_text()!r} "
            "touches the step line"
        )
    # nor another label (leader lines included)
    boxes = [t.get_window_extent(renderer).padded(-1) for t in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    plt.close("all")
