"""One metric per segment: grouped bars per model with bootstrap intervals and
the paired test against a baseline in every segment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    DisplayMixin,
    check_matplotlib,
    check_values,
    metric_keywords_doc,
    model_colors,
)
from ._layout import (
    drop_overlaps,
    finish,
    fit_ticklabels,
    fit_title,
    outside_legend,
    shorten,
    shorten_distinct,
    texts_fit,
    wrap,
)


class SegmentDisplay(DisplayMixin):
    """A metric per segment as grouped bars, one bar per model, with bootstrap
    confidence intervals and, against a baseline, the adjusted p-value of the
    paired test in each segment (:func:`sklearn_rank.stats.compare_by_segment`).

    Parameters
    ----------
    segments : array-like of shape (n_segments,)
        Segment labels, in the order drawn.
    values : mapping of str to array-like of shape (n_segments,)
        Model name -> the metric on each segment.
    metric : str
        The metric name.
    n_groups : array-like of int of shape (n_segments,), default=None
        Groups in each segment's value (undefined groups left out under
        ``undefined="skip"``), shown under the labels.
    ci_low, ci_high : mapping of str to array-like, default=None
        Interval ends per model and segment; None draws no error bars.
        :meth:`from_comparison` clips them to the range of the segment's group
        values (a mean of resampled groups cannot leave it; a bootstrap-t
        interval can).
    p_values, p_adjusted : mapping of str to array-like, default=None
        Model name -> raw and adjusted p-value against ``baseline`` per segment.
    baseline : str, default=None
        The model the p-values compare with.
    confidence_level : float, default=None
        The level of the intervals (stated in the title).
    test, correction, family : str, default=None
        The paired test, the adjustment and its family in words (the title
        states them).
    n_resamples : int, default=None
        Resamples of a resampling test: a raw p-value at its floor
        ``1 / (n_resamples + 1)`` is printed as a bound (``<=``).
    name : str or list of str, default=None
        Legend names per model.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : dict of str to BarContainer
    texts_ : list of Text
        The p-value labels (rotated, above each tested bar); empty when they
        would not fit, and then ``markers_`` marks the bars with adjusted
        p < 0.05.
    markers_ : list of Line2D

    See Also
    --------
    sklearn_rank.stats.compare_by_segment : The report drawn.
    sklearn_rank.evaluate_by_segment : The values per segment alone.
    PairedDifferenceDisplay : Per-group differences against a baseline.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import SegmentDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(40), 10)
    >>> y_true = rng.integers(0, 2, 400)
    >>> cohort = np.where(groups < 20, "new", "old")
    >>> scores = {"a": y_true + rng.normal(size=400), "b": rng.normal(size=400)}
    >>> disp = SegmentDisplay.from_predictions(
    ...     y_true, scores, groups=groups, segments=cohort, metric="mrr",
    ...     baseline="b", n_resamples=199, random_state=0)
    >>> disp.segments.tolist(), disp.n_groups.tolist()
    (['new', 'old'], [20, 20])
    >>> bool((disp.values["a"] > disp.values["b"]).all()), disp.p_adjusted["a"].size
    (True, 2)
    """

    bars_: dict  # set by plot (one BarContainer per model)

    _artist = "bar"

    def __init__(
        self,
        *,
        segments: ArrayLike,
        values: Mapping[str, ArrayLike],
        metric: str,
        n_groups: ArrayLike | None = None,
        ci_low: Mapping[str, ArrayLike] | None = None,
        ci_high: Mapping[str, ArrayLike] | None = None,
        p_values: Mapping[str, ArrayLike] | None = None,
        p_adjusted: Mapping[str, ArrayLike] | None = None,
        baseline: str | None = None,
        confidence_level: float | None = None,
        test: str | None = None,
        correction: str | None = None,
        family: str | None = None,
        n_resamples: int | None = None,
        name: Any = None,
    ) -> None:
        func = "SegmentDisplay"
        self.segments = np.asarray(segments)
        n = self.segments.size
        self.values = {m: np.asarray(v, float) for m, v in values.items()}
        self.metric = metric
        self.n_groups = None if n_groups is None else np.asarray(n_groups)
        self.ci_low, self.ci_high = _copy(ci_low), _copy(ci_high)
        self.p_values, self.p_adjusted = _copy(p_values), _copy(p_adjusted)
        for what in ("values", "ci_low", "ci_high", "p_values", "p_adjusted"):
            check_values(what, getattr(self, what), n, func)
        if self.n_groups is not None and self.n_groups.shape != (n,):
            raise ValueError(
                f"{func}: n_groups needs one count per segment ({n}); got "
                f"{self.n_groups.shape}."
            )
        if self.p_adjusted and baseline not in self.values:
            raise param_error(
                "baseline", func, f"one of {list(self.values)} with p-values", baseline
            )
        self.baseline = baseline
        self.confidence_level = confidence_level
        self.test, self.correction, self.family = test, correction, family
        self.n_resamples = n_resamples
        self.name = name

    def _models(self):
        return self.values

    def _draw(self, ax, names, curve_kwargs, kwargs) -> None:
        """Draw every model on ``ax`` (the mixin's :meth:`plot` calls it)."""
        import matplotlib as mpl

        models = list(self._models())
        label_of = dict(zip(models, names, strict=True))
        n_seg = self.segments.size
        x = np.arange(n_seg, dtype=np.float64)
        width = 0.8 / len(models)
        edge = mpl.rcParams["text.color"]  # error bars visible on dark styles
        styles = self._styles(
            models,
            names,
            curve_kwargs,
            kwargs,
            {"capsize": 2, "error_kw": {"ecolor": edge, "elinewidth": 1}},
        )
        centers = _bars(self, ax, x, width, models, styles)
        finite = [t for m in models for t in self._tops(m).tolist() if t == t]
        top = max(finite) if finite else 1.0
        bottom = min(0.0, *(v for m in models for v in self.values[m] if v == v))
        span = (top - bottom) or 1.0
        self.texts_: list[Any] = []
        self.markers_: list[Any] = []
        undefined = _mark_undefined(ax, x, [self.values[m] for m in models])
        tested = [m for m in (self.p_adjusted or {}) if m in centers]
        headroom = 0.3 if tested else 0.08
        ax.set_ylim(bottom, top + headroom * span)
        _p_labels(self, ax, tested, centers, span)
        ticks, self._short_ticks = _tick_labels(self.segments, self.n_groups)
        ax.set_xticks(x, ticks)
        ax.set_xlim(-0.5, n_seg - 0.5)
        ax.set_ylabel(self.metric)
        handles, labels = ax.get_legend_handles_labels()
        self.legend_ = outside_legend(ax, handles, labels)
        fit_title(ax, _title(self, label_of), fontsize="medium")
        self._fit(ax, tested, centers, span, undefined, handles, labels)
        self.legend_ = finish(ax, self.legend_, _title(self, label_of))

    def _fit(self, ax, tested, centers, span, undefined, handles, labels):
        """Tick labels rotated when they overlap; p-value labels replaced by
        markers when they overlap or leave the axes."""
        fit_ticklabels(ax, self._short_ticks)
        if undefined:
            drop_overlaps(undefined, ax)
        if not self.texts_ or texts_fit(self.texts_, ax):
            return
        for t in self.texts_:
            t.remove()
        self.texts_ = []
        self.markers_, key = _p_markers(self, ax, tested, centers, span)
        self.legend_ = outside_legend(
            ax, [*handles, key], [*labels, "adjusted p < 0.05"]
        )

    def _tops(self, m: str) -> np.ndarray:
        v = np.nan_to_num(self.values[m])
        if self.ci_high is not None:
            return np.fmax(v, self.ci_high[m])
        return v

    @classmethod
    def from_comparison(
        cls,
        report: Any,
        *,
        metric: str | None = None,
        ax: Any = None,
        name: Any = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> SegmentDisplay:
        """Draw one metric of a :func:`sklearn_rank.stats.compare_by_segment`
        report (its values, intervals and paired tests).

        Parameters
        ----------
        report : SegmentComparison
        metric : str, default=None
            One of ``report.metrics``; None is the first.
        ax, name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : SegmentDisplay
        """
        func = "SegmentDisplay.from_comparison"
        check_matplotlib(func)
        metric = report.metrics[0] if metric is None else metric
        if metric not in report.metrics:
            raise param_error("metric", func, f"one of {report.metrics}", metric)
        disp = cls(**_report_fields(report, metric), name=name)
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
    @metric_keywords_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike | Mapping[str, ArrayLike],
        *,
        groups: ArrayLike,
        segments: ArrayLike | Mapping[Any, Any],
        metric: str = "ndcg@10",
        baseline: str | None = None,
        confidence_level: float | None = 0.95,
        test: str = "randomization",
        correction: str = "holm",
        n_resamples: int = 999,
        random_state: Any = None,
        sample_weight: ArrayLike | None = None,
        metric_options: Mapping[str, Any] | None = None,
        order: Any = None,
        ax: Any = None,
        name: Any = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> SegmentDisplay:
        """Score every segment for each model, test each model against the
        baseline in every segment, then draw.

        Parameters
        ----------
        y_true, groups, sample_weight
            As in :func:`sklearn_rank.evaluate`.
        y_score : array-like of shape (n_samples,) or mapping of str to array-like
            Scores of one model, or model name -> scores.
        segments : array-like of shape (n_samples,) or mapping
            As in :func:`sklearn_rank.evaluate_by_segment`.
        metric : str, default="ndcg@10"
            A metric with a per-group value.
        baseline : str, default=None
            With several models: the one the others are tested against; None
            is the last model.
        confidence_level : float or None, default=0.95
            Level of the bootstrap intervals; None draws none.
        test : {"randomization", "bootstrap", "t", "wilcoxon"}, default="randomization"
            The paired test of :func:`sklearn_rank.stats.compare`.
        correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
            Adjustment of the p-values over all the tests drawn (every segment
            x every model against the baseline; the title names the family).
        n_resamples : int, default=999
            Resamples of the intervals and of the resampling tests.
        random_state : None, int or Generator, default=None
            Seed of the resampling.
        metric_options : dict, default=None
            Deprecated in 0.1, removed in 0.3: pass the options as keywords.
        order : sequence, default=None
            The segment labels in the order drawn; None sorts them (a pandas
            categorical keeps its categories' order).
        ax, name, curve_kwargs, **kwargs
            {metric_keywords}

        Returns
        -------
        display : SegmentDisplay
        """
        from ..stats import compare_by_segment

        func, options, scores, name = cls._inputs(
            y_score, name, metric_options, kwargs, metric
        )
        if len(scores) > 1 and baseline is not None and baseline not in scores:
            raise param_error(
                "baseline", func, f"None or one of {list(scores)}", baseline
            )
        report = compare_by_segment(
            y_true,
            scores,
            groups=groups,
            segments=segments,
            metrics=[metric],
            baseline=baseline,
            test=test,
            segment_test=None,
            correction=correction,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            order=order,
            sample_weight=sample_weight,
            **options,
        )
        return cls.from_comparison(
            report,
            ax=ax,
            name=name,
            curve_kwargs=curve_kwargs,
            **kwargs,
        )


def _short_family(report: Any) -> str:
    n = report.model_family_size
    return f"{n} test{'s' if n != 1 else ''} (segments x models)"


def _p_text(self: SegmentDisplay, m: str, s: int) -> str:
    """The adjusted p-value of model ``m`` in segment ``s``, as printed."""
    p = float(np.asarray(self.p_adjusted[m])[s])
    raw = None if self.p_values is None else self.p_values[m][s]
    text = f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"
    floor = 1.0 / (self.n_resamples + 1) if self.n_resamples else 0.0
    if raw is not None and floor and raw <= floor * (1 + 1e-9):
        return f"<= {text}"  # at the Monte Carlo floor: a bound
    return f"= {text}"


def _title(self: SegmentDisplay, label_of: dict) -> str:
    """The title: the metric, the intervals' level and the paired test."""
    title = f"{self.metric} per segment"
    if self.confidence_level is not None and self.ci_low is not None:
        title += f", {self.confidence_level:.0%} bootstrap CI"
    # a small figure, or a small cell of the user's grid (by the axes' share)
    ax = getattr(self, "ax_", None)
    small = ax is not None and (
        ax.figure.get_figheight() < 3.6
        or ax.get_position().height * ax.figure.get_figheight() < 2.4
    )
    if small and self.baseline is not None and self.p_adjusted:
        # a small axes: the test and its adjustment, without the family
        base = shorten(label_of.get(self.baseline, self.baseline), 16)
        return f"{title}\np: {self.correction or ''} {self.test or ''} vs {base}"
    if self.baseline is not None and self.p_adjusted:
        test = f"paired {self.test} test" if self.test else "paired test"
        base = shorten(label_of.get(self.baseline, self.baseline), 24)
        title += f"\np: {test} vs {base}"
        if self.correction:
            title += f", {self.correction}-adjusted"
            if self.family:
                title += f" over {self.family}"
    return title


def _report_fields(report: Any, metric: str) -> dict[str, Any]:
    """The constructor's keywords for one metric of a segment comparison."""
    tables = report.tables
    first = tables[report.models[0]]
    with_ci = first.ci_low is not None
    tested = bool(report.p_adjusted)
    return dict(
        segments=report.segments,
        values={m: t.values[metric] for m, t in tables.items()},
        metric=metric,
        n_groups=first.used(metric),
        ci_low={m: _clip(t, metric, t.ci_low) for m, t in tables.items()}
        if with_ci
        else None,
        ci_high={m: _clip(t, metric, t.ci_high) for m, t in tables.items()}
        if with_ci
        else None,
        p_values={m: v[metric] for m, v in report.p_value.items()} if tested else None,
        p_adjusted={m: v[metric] for m, v in report.p_adjusted.items()}
        if tested
        else None,
        baseline=report.baseline,
        confidence_level=report.confidence_level,
        test=report.test,
        correction=report.correction,
        family=_short_family(report) if tested else None,
        n_resamples=report.n_resamples
        if report.test in ("randomization", "bootstrap", "bootstrap-t")
        else None,
    )


def _copy(values: Any) -> dict | None:
    return None if values is None else dict(values)


def _tick_labels(segments: np.ndarray, n_groups: Any) -> tuple[list, list]:
    """The segments' tick labels (wrapped, with their group counts) and the
    one-line labels used when those do not fit. Labels cut to one line keep
    their end, where long labels that share a start differ."""
    labels = [" ".join(str(v).split()) for v in segments.tolist()]
    ticks = [wrap(t, 14) for t in labels]
    short = shorten_distinct(labels, 16)
    if n_groups is not None:
        counts = [int(n) for n in n_groups]
        ticks = [f"{t}\n({n} groups)" for t, n in zip(ticks, counts, strict=True)]
        short = [f"{t} ({n})" for t, n in zip(short, counts, strict=True)]
    return ticks, short


def _mark_undefined(ax: Any, x: np.ndarray, values: list) -> list:
    """'no defined group' written in each segment where no model has a value."""
    return [
        ax.text(
            x[s],
            0.02,
            "no defined group",
            rotation=90,
            ha="center",
            va="bottom",
            fontsize="x-small",
            transform=ax.get_xaxis_transform(),
        )
        for s in range(x.size)
        if all(v[s] != v[s] for v in values)
    ]


def _p_markers(disp: SegmentDisplay, ax, tested, centers, span) -> tuple:
    """A star above each bar with adjusted p < 0.05 (where the p-values do not
    fit as text), in its model's colour; and the legend's grey key."""
    colors = model_colors(ax.figure, tested)
    marks = []
    for m in tested:
        hit = np.flatnonzero(disp.p_adjusted[m] < 0.05)
        (mark,) = ax.plot(
            centers[m][hit],
            disp._tops(m)[hit] + 0.04 * span,
            linestyle="none",
            marker="*",
            color=colors[m],
            markersize=7,
        )
        marks.append(mark)
    from matplotlib.lines import Line2D

    key = Line2D([], [], linestyle="none", marker="*", color="0.4", markersize=7)
    return marks, key


def _bars(self: SegmentDisplay, ax, x, width, models, styles) -> dict:
    """One bar per model and segment, with its interval; the bar centres."""
    self.bars_, centers = {}, {}
    for i, (m, style) in enumerate(zip(models, styles, strict=True)):
        h = self.values[m]
        yerr = None
        if self.ci_low is not None and self.ci_high is not None:
            lo = np.nan_to_num(h - self.ci_low[m])
            hi = np.nan_to_num(self.ci_high[m] - h)
            # nested lists: matplotlib 3.8 reads a (2, 1) array's rows as scalars
            # (numpy's deprecation, an error under the suite's warnings filter)
            yerr = np.vstack([np.fmax(lo, 0), np.fmax(hi, 0)]).tolist()
        centers[m] = x + (i - (len(models) - 1) / 2) * width
        self.bars_[m] = ax.bar(centers[m], np.nan_to_num(h), width, yerr=yerr, **style)
    return centers


def _p_labels(self: SegmentDisplay, ax, tested, centers, span) -> None:
    """The adjusted p-value of each tested bar, rotated, above its interval."""
    for m in tested:
        for s in range(self.segments.size):
            if self.p_adjusted[m][s] != self.p_adjusted[m][s]:
                continue
            self.texts_.append(
                ax.text(
                    centers[m][s],
                    self._tops(m)[s] + 0.02 * span,
                    f"p {_p_text(self, m, s)}",
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize="x-small",
                )
            )


def _clip(table: Any, metric: str, ends: dict) -> np.ndarray:
    """Interval ends of ``metric`` within the range of its group values in each
    segment: a mean of resampled groups cannot leave that range, while a
    studentized (bootstrap-t) interval can (above 1 for a metric bounded by
    1). Segments where undefined groups enter with a fill value are kept."""
    n_seg = table.segments.size
    v = np.asarray(table.per_group.values[metric], dtype=np.float64)
    seg = np.asarray(table.group_segment)
    ok = ~np.isnan(v)
    lo, hi = np.full(n_seg, np.inf), np.full(n_seg, -np.inf)
    np.minimum.at(lo, seg[ok], v[ok])
    np.maximum.at(hi, seg[ok], v[ok])
    filled = np.bincount(seg[ok], minlength=n_seg) != table.used(metric)
    out = np.asarray(ends[metric], dtype=np.float64)
    return np.where(filled, out, np.clip(out, lo, hi))
