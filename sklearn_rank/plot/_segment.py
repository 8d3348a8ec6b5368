"""One metric per segment: grouped bars per model with bootstrap intervals and
the paired test against a baseline in every segment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    check_matplotlib,
    check_metric_name,
    check_names,
    check_options,
    check_values,
    drop_overlaps,
    estimator_scores,
    finish,
    fit_ticklabels,
    fit_title,
    model_scores,
    model_styles,
    new_axes,
    outside_legend,
    shorten,
    wrap,
)


class SegmentDisplay:
    """A metric per segment as grouped bars, one bar per model, with bootstrap
    confidence intervals and, against a baseline, the adjusted p-value of the
    paired test in each segment (:func:`sklearn_rank.stats.compare_by_segment`).


    One class over the size line: scikit-learn's Display API puts every
    constructor (``from_predictions``, ``from_estimator``, from precomputed
    data) and the drawing on the display class.
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
        self.ci_low = None if ci_low is None else dict(ci_low)
        self.ci_high = None if ci_high is None else dict(ci_high)
        self.p_values = None if p_values is None else dict(p_values)
        self.p_adjusted = None if p_adjusted is None else dict(p_adjusted)
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

    def plot(
        self,
        ax: Any = None,
        *,
        name: Any = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ):
        """Draw the grouped bars on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure (constrained layout).
        name : str or list of str, default=None
            Legend names per model; None uses the constructor's, else the model
            names.
        curve_kwargs : dict, list of dict or mapping of str to dict, default=None
            Keywords of :meth:`~matplotlib.axes.Axes.bar` per model.
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.bar` for every model.

        Returns
        -------
        display : SegmentDisplay
        """
        import matplotlib as mpl

        func = "SegmentDisplay.plot"
        ax, fig = new_axes(ax, func)
        models = list(self.values)
        name = self.name if name is None else name
        names = check_names(name, models, func)
        self.name = name
        label_of = dict(zip(models, names, strict=True))
        self.figure_ = fig
        n_seg = self.segments.size
        x = np.arange(n_seg, dtype=np.float64)
        width = 0.8 / len(models)
        edge = mpl.rcParams["text.color"]  # error bars visible on dark styles
        styles = model_styles(
            fig,
            models,
            names,
            curve_kwargs,
            kwargs,
            func,
            {"capsize": 2, "error_kw": {"ecolor": edge, "elinewidth": 1}},
        )
        centers = self._bars(ax, x, width, models, styles)
        finite = [t for m in models for t in self._tops(m).tolist() if t == t]
        top = max(finite) if finite else 1.0
        bottom = min(0.0, *(v for m in models for v in self.values[m] if v == v))
        span = (top - bottom) or 1.0
        self.texts_: list[Any] = []
        self.markers_: list[Any] = []
        undefined = [
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
            for s in range(n_seg)
            if all(self.values[m][s] != self.values[m][s] for m in models)
        ]
        tested = [m for m in (self.p_adjusted or {}) if m in centers]
        headroom = 0.3 if tested else 0.08
        ax.set_ylim(bottom, top + headroom * span)
        self._p_labels(ax, tested, centers, span)
        ticks = [wrap(str(v), 14) for v in self.segments.tolist()]
        if self.n_groups is not None:
            ticks = [
                f"{t}\n({int(n)} groups)"
                for t, n in zip(ticks, self.n_groups, strict=True)
            ]
        ax.set_xticks(x, ticks)
        ax.set_xlim(-0.5, n_seg - 0.5)
        ax.set_ylabel(self.metric)
        handles, labels = ax.get_legend_handles_labels()
        self.legend_ = outside_legend(ax, handles, labels)
        fit_title(ax, self._title(label_of), fontsize="medium")
        self.ax_, self.figure_ = ax, fig
        self._fit(ax, tested, centers, span, undefined, handles, labels)
        self.legend_ = finish(ax, self.legend_, self._title(label_of))
        return self

    def _bars(self, ax, x, width, models, styles) -> dict:
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
            self.bars_[m] = ax.bar(
                centers[m], np.nan_to_num(h), width, yerr=yerr, **style
            )
        return centers

    def _p_labels(self, ax, tested, centers, span) -> None:
        """The adjusted p-value of each tested bar, rotated, above its interval."""
        for m in tested:
            for s in range(self.segments.size):
                if self.p_adjusted[m][s] != self.p_adjusted[m][s]:
                    continue
                self.texts_.append(
                    ax.text(
                        centers[m][s],
                        self._tops(m)[s] + 0.02 * span,
                        f"p {self._p_text(m, s)}",
                        rotation=90,
                        ha="center",
                        va="bottom",
                        fontsize="x-small",
                    )
                )

    def _p_text(self, m: str, s: int) -> str:
        p = float(np.asarray(self.p_adjusted[m])[s])
        raw = None if self.p_values is None else self.p_values[m][s]
        text = f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"
        floor = 1.0 / (self.n_resamples + 1) if self.n_resamples else 0.0
        if raw is not None and floor and raw <= floor * (1 + 1e-9):
            return f"<= {text}"  # at the Monte Carlo floor: a bound
        return f"= {text}"

    def _title(self, label_of: dict) -> str:
        title = f"{self.metric} per segment"
        if self.confidence_level is not None and self.ci_low is not None:
            title += f", {self.confidence_level:.0%} bootstrap CI"
        small = (
            self.figure_.get_figheight() < 3.6 if hasattr(self, "figure_") else False
        )
        if small and self.baseline is not None and self.p_adjusted:
            # a small figure: the test and its adjustment, without the family
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

    def _fit(self, ax, tested, centers, span, undefined, handles, labels):
        """Tick labels rotated when they overlap; p-value labels replaced by
        markers when they overlap or leave the axes."""
        fig = ax.figure
        short = [shorten(v, 16) for v in self.segments.tolist()]
        if self.n_groups is not None:
            short = [
                f"{t} ({int(n)})" for t, n in zip(short, self.n_groups, strict=True)
            ]
        fit_ticklabels(ax, short)
        kept = drop_overlaps(list(undefined), ax) if undefined else []
        del kept
        if not self.texts_:
            return
        box = ax.get_window_extent()
        boxes = [t.get_window_extent() for t in self.texts_]
        bad = any(
            b.x0 < box.x0 or b.x1 > box.x1 or b.y1 > box.y1 for b in boxes
        ) or any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        if not bad:
            return
        for t in self.texts_:
            t.remove()
        self.texts_ = []
        for m in tested:
            hit = np.flatnonzero(self.p_adjusted[m] < 0.05)
            (mark,) = ax.plot(
                centers[m][hit],
                self._tops(m)[hit] + 0.04 * span,
                linestyle="none",
                marker="*",
                color=fig.__dict__["_sklearn_rank_colors"][m],
                markersize=7,
            )
            self.markers_.append(mark)
        from matplotlib.lines import Line2D

        handles = [
            *handles,
            Line2D([], [], linestyle="none", marker="*", color="0.4", markersize=7),
        ]
        labels = [*labels, "adjusted p < 0.05"]
        self.legend_ = outside_legend(ax, handles, labels)

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
        tables = report.tables
        first = tables[report.models[0]]
        with_ci = first.ci_low is not None
        tested = bool(report.p_adjusted)
        disp = cls(
            segments=report.segments,
            values={m: t.values[metric] for m, t in tables.items()},
            metric=metric,
            n_groups=first.used(metric),
            ci_low={m: t.ci_low[metric] for m, t in tables.items()}
            if with_ci
            else None,
            ci_high={m: t.ci_high[metric] for m, t in tables.items()}
            if with_ci
            else None,
            p_values={m: v[metric] for m, v in report.p_value.items()}
            if tested
            else None,
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
            name=name,
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
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
            Other keywords of :func:`sklearn_rank.evaluate` (``undefined``
            included).
        order : sequence, default=None
            The segment labels in the order drawn; None sorts them (a pandas
            categorical keeps its categories' order).
        ax, name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : SegmentDisplay
        """
        from ..stats import compare_by_segment

        func = "SegmentDisplay.from_predictions"
        check_matplotlib(func)  # before any work
        check_metric_name(metric, func)
        options = check_options(metric_options, func)
        scores = model_scores(
            y_score, func, name=name if isinstance(name, str) else None
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
            name=None if isinstance(name, str) else name,
            curve_kwargs=curve_kwargs,
            **kwargs,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: ArrayLike,
        *,
        groups: ArrayLike,
        segments: ArrayLike | Mapping[Any, Any],
        response_method: Any = "auto",
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
        """Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions`.

        Parameters
        ----------
        estimator : estimator or mapping of str to estimator
        X : array-like
        y, groups, segments
            Relevance labels, group ids and segments of the rows.
        response_method : "auto", str or tuple of str, default="auto"
            The methods tried in order; "auto" is ``("decision_function",
            "predict_proba", "predict")``.
        metric, baseline, confidence_level, test, correction, n_resamples
            As in :meth:`from_predictions`.
        random_state, sample_weight, metric_options, order
            As in :meth:`from_predictions`.
        ax, name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : SegmentDisplay
        """
        scores = estimator_scores(
            estimator, X, response_method, "SegmentDisplay.from_estimator"
        )
        return cls.from_predictions(
            y,
            scores,
            groups=groups,
            segments=segments,
            metric=metric,
            baseline=baseline,
            confidence_level=confidence_level,
            test=test,
            correction=correction,
            n_resamples=n_resamples,
            random_state=random_state,
            sample_weight=sample_weight,
            metric_options=metric_options,
            order=order,
            ax=ax,
            name=name,
            curve_kwargs=curve_kwargs,
            **kwargs,
        )


def _short_family(report: Any) -> str:
    n = report.model_family_size
    return f"{n} test{'s' if n != 1 else ''} (segments x models)"
