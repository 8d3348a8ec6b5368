"""Per-group differences of one metric between models and a baseline, sorted."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    DisplayMixin,
    check_matplotlib,
    check_metric_name,
    check_options,
    check_per_group,
    external_stacklevel,
    metric_keywords_doc,
    model_colors,
    model_scores,
    per_group,
)
from ._layout import (
    drop_overlaps,
    quiet_draw,
)

# |difference| at or below this is a tie (as in sklearn_rank.stats.compare).
TIE = 1e-12
# A group-id label's gap to its point's level (points, more than the line's
# half width), and its room to the axes' edge (pixels).
LIFT = 3.0
GAP = 2.0


def _warn_all_undefined(func, metric, model, baseline, n_groups) -> None:
    """evaluate's warning when no group is defined: the plot of that model is
    empty (as the mean of evaluate is NaN)."""
    from sklearn.exceptions import UndefinedMetricWarning

    warnings.warn(
        f"{func}: {metric} is undefined for every one of the {n_groups} groups in "
        f"{model!r} - {baseline!r} (no group has a relevant item for both); its "
        "plot is empty. Check y_true and relevance_threshold.",
        UndefinedMetricWarning,
        stacklevel=external_stacklevel(),
    )


class PairedDifferenceDisplay(DisplayMixin):
    """Per-group differences ``model - baseline`` of one metric, sorted from the
    largest win to the largest loss (the per-query difference plot of IR papers).

    Groups where the metric is undefined for either model are left out (as in
    :func:`sklearn_rank.stats.compare`); when that leaves no group,
    :meth:`from_predictions` warns with scikit-learn's ``UndefinedMetricWarning``
    (as :func:`sklearn_rank.evaluate` does) and that model's plot is empty.
    The title counts wins, ties (within 1e-12) and losses; the largest wins and
    losses are labelled with group ids.

    Parameters
    ----------
    differences : mapping of str to array-like
        Model name -> per-group differences, sorted in decreasing order.
    group_ids : mapping of str to array-like
        Model name -> the group id of each difference.
    metric : str
        The metric name.
    baseline : str
        The baseline's name.
    n_labels : int, default=3
        Label this many of the largest wins and of the largest losses.

    Attributes
    ----------
    wins, ties, losses : dict of str to int
        Per model.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : dict of str to Line2D
        The sorted differences of each model (x: rank of the difference).
    annotations_ : dict of str to list of Annotation
        The group-id labels of each model.

    See Also
    --------
    sklearn_rank.stats.compare : The paired test on the same differences.
    GroupScoreDisplay : Each model's distribution over groups.
    SegmentDisplay : The comparison within each segment.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import PairedDifferenceDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(30), 10)
    >>> y_true = rng.integers(0, 2, 300)
    >>> scores = {"new": y_true + rng.normal(size=300), "old": rng.normal(size=300)}
    >>> disp = PairedDifferenceDisplay.from_predictions(
    ...     y_true, scores, groups=groups, metric="ndcg@5", baseline="old")
    >>> disp.wins["new"] + disp.ties["new"] + disp.losses["new"]
    30
    >>> disp.ax_.get_legend().get_texts()[0].get_text().startswith("new - old: ")
    True
    """

    def __init__(
        self,
        *,
        differences: Mapping[str, ArrayLike],
        group_ids: Mapping[str, ArrayLike],
        metric: str,
        baseline: str,
        n_labels: int = 3,
        n_dropped: Mapping[str, int] | None = None,
        name: Any = None,
        baseline_name: str | None = None,
    ) -> None:
        func = "PairedDifferenceDisplay"
        self.differences, self.group_ids = {}, {}
        if set(group_ids) != set(differences):
            raise param_error(
                "group_ids",
                func,
                f"a mapping with the models {list(differences)}",
                list(group_ids),
            )
        for m, d in differences.items():
            d = np.asarray(d, float)
            ids = np.asarray(group_ids[m])
            if d.ndim != 1 or ids.shape != d.shape:
                raise ValueError(
                    f"{func}: differences[{m!r}] and group_ids[{m!r}] need one id "
                    f"per difference; got {d.shape} and {ids.shape}."
                )
            order = np.argsort(-d, kind="stable")  # largest win first
            self.differences[m], self.group_ids[m] = d[order], ids[order]
        self.metric, self.baseline, self.n_labels = metric, baseline, n_labels
        self.n_dropped = {m: 0 for m in self.differences}
        if n_dropped is not None:
            self.n_dropped.update({m: int(v) for m, v in n_dropped.items()})
        self.name, self.baseline_name = name, baseline_name
        self.wins = {m: int((d > TIE).sum()) for m, d in self.differences.items()}
        self.losses = {m: int((d < -TIE).sum()) for m, d in self.differences.items()}
        self.ties = {
            m: d.size - self.wins[m] - self.losses[m]
            for m, d in self.differences.items()
        }

    def plot(
        self,
        ax: Any = None,
        *,
        name: Any = None,
        baseline_name: str | None = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ):
        """Draw the sorted differences of every model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure (constrained layout).
        name : str or list of str, default=None
            Names per model; None uses the constructor's, else the model names.
        baseline_name : str, default=None
            The baseline's name in the picture; None uses the constructor's,
            else ``baseline``.
        curve_kwargs : dict, list of dict or mapping of str to dict, default=None
            Keywords of :meth:`~matplotlib.axes.Axes.plot` per model.
        **kwargs
            Keywords of :meth:`~matplotlib.axes.Axes.plot` for every model.

        Returns
        -------
        display : PairedDifferenceDisplay
        """
        models = list(self.differences)
        ax, fig, names = self._start(ax, name, models)
        base = baseline_name or self.baseline_name or self.baseline
        self.baseline_name = base
        model_colors(fig, [*models, self.baseline])  # the baseline keeps its own
        labels = []
        for m, n in zip(models, names, strict=True):
            w, t, lo = self.wins[m], self.ties[m], self.losses[m]
            text = f"{n} - {base}: {w} wins, {t} ties, {lo} losses"
            if self.n_dropped[m]:
                total = self.differences[m].size + self.n_dropped[m]
                text += f"; {self.n_dropped[m]} of {total} groups undefined, left out"
            labels.append(text)
        styles = self._styles(
            models, labels, curve_kwargs, kwargs, {"drawstyle": "steps-mid"}
        )
        self.lines_, self.annotations_ = {}, {}
        for m, style in zip(models, styles, strict=True):
            d, ids = self.differences[m], self.group_ids[m]
            x = np.arange(1, d.size + 1)
            (line,) = ax.plot(x, d, **style)
            ax.fill_between(x, d, 0.0, step="mid", color=line.get_color(), alpha=0.2)
            self.lines_[m] = line
            self.annotations_[m] = _label_extremes(ax, x, d, ids, line, self.n_labels)
        ax.axhline(0.0, color=_edge(), linewidth=0.8)
        ax.set_xlabel("groups, sorted by difference")
        ax.set_ylabel(f"{self.metric} difference")
        self._legend(ax, title=f"{self.metric} per group, model - {base}")
        self.annotations_ = _place_labels(ax, self.annotations_)
        return self

    @classmethod
    def from_group_scores(
        cls,
        per_group: Mapping[str, Any],
        *,
        metric: str,
        baseline: str | None = None,
        n_labels: int = 3,
        undefined: str | float | None = None,
        ax: Any = None,
        name: Any = None,
        baseline_name: str | None = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> PairedDifferenceDisplay:
        """Draw from per-group values already computed, matched by group id.

        Parameters
        ----------
        per_group : mapping of str to GroupScores
            Model name -> :func:`sklearn_rank.evaluate_per_group` results
            holding ``metric`` (at least two models). Groups are matched by id;
            a group missing from the baseline, or undefined for either model, is
            left out (and counted).
        metric : str
        baseline : str, default=None
            None is the last model.
        n_labels : int, default=3
        undefined : {"skip"} or float, default=None
            A float scores undefined groups (as in :func:`sklearn_rank.evaluate`)
            instead of leaving them out.
        ax, name, baseline_name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PairedDifferenceDisplay
        """
        func = "PairedDifferenceDisplay.from_group_scores"
        check_matplotlib(func)
        n_labels = _check_n_labels(n_labels, func)
        per_group = check_per_group(per_group, func, at_least=2)
        baseline, diffs, ids, dropped = _differences(
            per_group, metric, baseline, undefined, func
        )
        disp = cls(
            differences=diffs,
            group_ids=ids,
            metric=metric,
            baseline=baseline,
            n_labels=n_labels,
            n_dropped=dropped,
            name=name,
            baseline_name=baseline_name,
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
    @metric_keywords_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_score: Mapping[str, ArrayLike],
        *,
        groups: ArrayLike,
        baseline: str | None = None,
        metric: str = "ndcg@10",
        n_labels: int = 3,
        sample_weight: ArrayLike | None = None,
        metric_options: Mapping[str, Any] | None = None,
        ax: Any = None,
        name: Any = None,
        baseline_name: str | None = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> PairedDifferenceDisplay:
        """Compute the per-group differences against a baseline, then draw them.

        Parameters
        ----------
        y_true, groups, sample_weight
            As in :func:`sklearn_rank.evaluate_per_group`.
        y_score : mapping of str to array-like
            Model name -> scores, at least two models (a DataFrame: one per
            column).
        baseline : str, default=None
            The model every other one is compared with; None is the last one.
        metric : str, default="ndcg@10"
            A metric with a per-group value.
        n_labels : int, default=3
            Label this many of the largest wins and of the largest losses.
        metric_options : dict, default=None
            Deprecated in 0.1, removed in 0.3: pass the options as keywords.
        ax, name, baseline_name, curve_kwargs, **kwargs
            {metric_keywords}

        Returns
        -------
        display : PairedDifferenceDisplay
        """
        func = "PairedDifferenceDisplay.from_predictions"
        check_matplotlib(func)  # before any work
        check_metric_name(metric, func)
        n_labels = _check_n_labels(n_labels, func)
        options = check_options(metric_options, func, kwargs)
        scores = model_scores(y_score, func)
        if len(scores) < 2:
            raise param_error(
                "y_score", func, "a mapping of at least two models", list(scores)
            )
        if baseline is not None and baseline not in scores:
            raise param_error(
                "baseline", func, f"None or one of {list(scores)}", baseline
            )
        res = per_group(y_true, scores, groups, [metric], sample_weight, options)
        return cls.from_group_scores(
            res,
            metric=metric,
            baseline=baseline,
            n_labels=n_labels,
            ax=ax,
            name=name,
            baseline_name=baseline_name,
            curve_kwargs=curve_kwargs,
            **kwargs,
        )


def _label_extremes(ax, x, d, ids, line, n) -> list:
    """The group-id labels of the ``n`` largest wins and losses."""
    wins = [i for i in range(min(n, d.size)) if d[i] > TIE]
    losses = [i for i in range(d.size - 1, max(d.size - n, 0) - 1, -1) if d[i] < -TIE]
    out = []
    for i in wins + losses:
        # A win (left end, where the sorted steps descend) is labelled
        # above its level and to its right, a loss (right end) below its
        # level and to its left: on that side the steps never come back
        # to the point's level, so the label clears the line at any
        # figure size. Labels that meet join the first one ("12, 7":
        # _merge_labels); those that still overlap or leave the axes are
        # dropped after drawing.
        win = d[i] > 0
        out.append(
            ax.annotate(
                str(ids[i]),
                (x[i], d[i]),
                textcoords="offset points",
                xytext=(6, LIFT) if win else (-6, -LIFT),
                ha="left" if win else "right",
                va="bottom" if win else "top",
                arrowprops={
                    "arrowstyle": "-",
                    "linewidth": 0.5,
                    "color": line.get_color(),
                },
                fontsize="x-small",
                color=line.get_color(),
                annotation_clip=True,
            )
        )
    return out


def _place_labels(ax: Any, annotations: dict[str, list]) -> dict[str, list]:
    """Make room for every model's group-id labels (a new y range moves them),
    join those that meet, drop those that still overlap or leave the axes;
    returns the labels kept per model."""
    every = [a for texts in annotations.values() for a in texts]
    if not every:
        return annotations
    quiet_draw(ax.figure)
    _fit_labels(ax, every)
    quiet_draw(ax.figure)
    annotations = {m: _merge_labels(t, ax) for m, t in annotations.items()}
    every = [a for texts in annotations.values() for a in texts]
    kept = set(map(id, drop_overlaps(every, ax)))
    return {m: [a for a in t if id(a) in kept] for m, t in annotations.items()}


def _merge_labels(texts: list, ax: Any) -> list:
    """One model's group-id labels, measured (leader line included) after a
    draw: a label that meets an earlier one of its side joins it ("1021,
    1022"), unless the longer label would leave the axes (then it is left
    out). Returns the labels kept."""
    box = ax.get_window_extent()
    kept: list[Any] = []
    for t in texts:
        b = t.get_window_extent()
        right = t.get_ha() == "left"  # a win's label
        host = next(
            (
                k
                for k in kept
                if (k.get_ha() == "left") == right and k.get_window_extent().overlaps(b)
            ),
            None,
        )
        if host is None:
            kept.append(t)
            continue
        before = host.get_text()
        host.set_text(f"{before}, {t.get_text()}")
        wide = host.get_window_extent()
        if wide.x1 > box.x1 if right else wide.x0 < box.x0:
            host.set_text(before)
        t.remove()
    return kept


def _fit_labels(ax: Any, texts: list) -> None:
    """Widen the y range so that the labels of the extremes fit inside the
    axes: top >= y + f * (top - bottom) for the fraction f of the axes'
    height a label takes above its point (below, for a loss), solved by a
    few fixed-point steps."""
    box = ax.get_window_extent()
    lo, hi = ax.get_ylim()
    need = []
    for t in texts:
        b = t.get_window_extent()
        py = ax.transData.transform(t.xy)[1]
        above = t.get_va() == "bottom"
        extent = (b.y1 - py if above else py - b.y0) + GAP
        frac = extent / max(box.height, 1.0)
        if frac < 0.3:  # taller labels than that are dropped, not fitted
            need.append((t.xy[1], frac, above))
    top, bottom = hi, lo
    for _ in range(4):
        span = top - bottom
        top = max([hi] + [y + f * span for y, f, up in need if up])
        bottom = min([lo] + [y - f * span for y, f, up in need if not up])
    if (top, bottom) != (hi, lo) and np.isfinite([top, bottom]).all():
        ax.set_ylim(bottom, top)


def _check_n_labels(n_labels: Any, func: str) -> int:
    if (
        isinstance(n_labels, bool)
        or not isinstance(n_labels, (int, np.integer))
        or n_labels < 0
    ):
        raise param_error("n_labels", func, "an int in the range [0, inf)", n_labels)
    return int(n_labels)


def _edge():
    import matplotlib as mpl

    return mpl.rcParams["axes.edgecolor"]


def _differences(per_group, metric, baseline, undefined, func):
    """The baseline (None: the last model) and per model: the differences to
    it on the groups both define (matched by id), those groups' ids, and how
    many were left out."""
    models = list(per_group)
    if baseline is None:
        baseline = models[-1]
    elif baseline not in per_group:
        raise param_error("baseline", func, f"None or one of {models}", baseline)
    fill = None if undefined is None or isinstance(undefined, str) else undefined

    def values(m):
        v = np.asarray(per_group[m].values[metric], float)
        return v if fill is None else np.where(np.isnan(v), float(fill), v)

    base_ids = np.asarray(per_group[baseline].group_ids)
    where = {g: i for i, g in enumerate(base_ids.tolist())}
    base = values(baseline)
    diffs, ids, dropped = {}, {}, {}
    for m in per_group:
        if m == baseline:
            continue
        own = np.asarray(per_group[m].group_ids)
        idx = np.array([where.get(g, -1) for g in own.tolist()], dtype=np.intp)
        d = np.where(idx >= 0, values(m) - base[np.maximum(idx, 0)], np.nan)
        keep = ~np.isnan(d)
        if not keep.any():
            _warn_all_undefined(func, metric, m, baseline, d.size)
        diffs[m], ids[m], dropped[m] = d[keep], own[keep], int((~keep).sum())
    return baseline, diffs, ids, dropped
