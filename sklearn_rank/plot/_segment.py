"""One metric per segment: grouped bars per model with bootstrap intervals and
the paired test against a baseline in every segment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    check_metric_name,
    check_names,
    check_options,
    estimator_scores,
    get_axes,
    model_scores,
)


class SegmentDisplay:
    """A metric per segment as grouped bars, one bar per model, with bootstrap
    confidence intervals and, against a baseline, the adjusted p-value of the
    paired test of :func:`sklearn_rank.stats.compare` in each segment.

    Parameters
    ----------
    segments : array-like of shape (n_segments,)
        Segment labels.
    values : mapping of str to array-like of shape (n_segments,)
        Model name -> the metric on each segment.
    metric : str
        The metric name.
    n_groups : array-like of int of shape (n_segments,), default=None
        Groups per segment (shown under the labels).
    ci_low, ci_high : mapping of str to array-like, default=None
        Interval ends per model and segment; None draws no error bars.
    p_adjusted : mapping of str to array-like, default=None
        Model name -> adjusted p-value against ``baseline`` per segment.
    baseline : str, default=None
        The model the p-values compare with.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : dict of str to BarContainer
    texts_ : list of Text
        The p-value labels.

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
    ) -> None:
        self.segments = np.asarray(segments)
        self.values = {m: np.asarray(v, float) for m, v in values.items()}
        self.metric = metric
        self.n_groups = None if n_groups is None else np.asarray(n_groups)
        self.ci_low = None if ci_low is None else dict(ci_low)
        self.ci_high = None if ci_high is None else dict(ci_high)
        self.p_values = None if p_values is None else dict(p_values)
        self.p_adjusted = None if p_adjusted is None else dict(p_adjusted)
        self.baseline = baseline

    def plot(self, ax: Any = None, *, name: Any = None, **kwargs: Any):
        """Draw the grouped bars on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str or list of str, default=None
            Legend names per model; None uses the model names.
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.bar` for every model.

        Returns
        -------
        display : SegmentDisplay
        """
        func = "SegmentDisplay.plot"
        ax, fig = get_axes(ax, func)
        models = list(self.values)
        names = check_names(name, models, func)
        n_seg = self.segments.size
        x = np.arange(n_seg, dtype=np.float64)
        width = 0.8 / len(models)
        self.bars_ = {}
        for i, (m, label) in enumerate(zip(models, names, strict=True)):
            h = self.values[m]
            yerr = None
            if self.ci_low is not None and self.ci_high is not None:
                yerr = np.vstack([h - self.ci_low[m], self.ci_high[m] - h])
            self.bars_[m] = ax.bar(
                x + (i - (len(models) - 1) / 2) * width,
                h,
                width,
                yerr=yerr,
                capsize=3,
                label=label,
                **kwargs,
            )
        self.texts_ = []
        if self.p_adjusted:
            top = max(np.nanmax(self._tops(m)) for m in models)
            tested = list(self.p_adjusted)
            for s in range(n_seg):
                # One tested model: the p-value alone (the title names the pair).
                text = "\n".join(
                    (f"{m}: " if len(tested) > 1 else "") + f"p = {_fmt_p(p[s])}"
                    for m, p in self.p_adjusted.items()
                )
                self.texts_.append(
                    ax.text(
                        x[s],
                        top * 1.03,
                        text,
                        ha="center",
                        va="bottom",
                        fontsize="small",
                    )
                )
            ax.set_ylim(top=top * 1.18)
        ticks = [str(s) for s in self.segments.tolist()]
        if self.n_groups is not None:
            ticks = [
                f"{t}\n({n} groups)" for t, n in zip(ticks, self.n_groups, strict=True)
            ]
        ax.set_xticks(x, ticks)
        ax.set_ylabel(self.metric)
        if self.baseline is not None and self.p_adjusted:
            ax.set_title(
                f"{self.metric} per segment\np: paired test against "
                f"{self.baseline}, adjusted over segments",
                fontsize="medium",
            )
        ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, fig
        return self

    def _tops(self, m: str) -> np.ndarray:
        if self.ci_high is not None:
            return np.fmax(self.values[m], self.ci_high[m])
        return self.values[m]

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
        ax: Any = None,
        name: Any = None,
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
            Adjustment of the p-values over all the tests drawn (every segment,
            every model against the baseline).
        n_resamples : int, default=999
            Resamples of the intervals and of the resampling tests.
        random_state : None, int or Generator, default=None
            Seed of the resampling.
        metric_options : dict, default=None
            Other keywords of :func:`sklearn_rank.evaluate` (``undefined``
            included).
        ax, name, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : SegmentDisplay
        """
        from .._metrics.by_segment import evaluate_by_segment
        from ..stats import bootstrap_ci, compare
        from ..stats._corrections import CORRECTIONS, adjust
        from ..stats._inputs import check_random_state

        func = "SegmentDisplay.from_predictions"
        check_metric_name(metric, func)
        options = check_options(metric_options, func)
        if correction not in CORRECTIONS:
            raise param_error(
                "correction", func, f"a str among {set(CORRECTIONS)}", correction
            )
        scores = model_scores(
            y_score, func, name=name if isinstance(name, str) else None
        )
        models = list(scores)
        if len(models) > 1:
            if baseline is None:
                baseline = models[-1]
            elif baseline not in scores:
                raise param_error(
                    "baseline", func, f"None or one of {models}", baseline
                )
        else:
            baseline = None
        rng = check_random_state(random_state, func)
        tables = {
            m: evaluate_by_segment(
                y_true,
                s,
                groups=groups,
                segments=segments,
                metrics=[metric],
                sample_weight=sample_weight,
                **options,
            )
            for m, s in scores.items()
        }
        first = tables[models[0]]
        n_seg = first.segments.size
        values = {m: t.values[metric] for m, t in tables.items()}
        low = {m: np.full(n_seg, np.nan) for m in models}
        high = {m: np.full(n_seg, np.nan) for m in models}
        others = [m for m in models if m != baseline] if baseline else []
        raw = {m: np.full(n_seg, np.nan) for m in others}
        stat_options = (
            {"undefined": options["undefined"]} if "undefined" in options else {}
        )
        for s in range(n_seg):
            subsets = {m: t.subset(s) for m, t in tables.items()}
            if baseline is None:
                if confidence_level is None:
                    continue
                r = bootstrap_ci(
                    None,
                    subsets[models[0]],
                    metrics=metric,
                    confidence_level=confidence_level,
                    n_resamples=n_resamples,
                    random_state=rng,
                    **stat_options,
                )[metric]
                low[models[0]][s], high[models[0]][s] = r.ci_low, r.ci_high
                continue
            report = compare(
                None,
                subsets,
                metrics=metric,
                baseline=baseline,
                test=test,
                correction="none",
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                random_state=rng,
                **stat_options,
            )
            for m in models:
                r = report.mean(metric, m)
                low[m][s], high[m][s] = r.ci_low, r.ci_high
            for m in others:
                raw[m][s] = report.pair(metric, m, baseline).p_value
        adjusted = None
        if others:
            flat = adjust(np.concatenate([raw[m] for m in others]), correction)
            adjusted = {
                m: flat[i * n_seg : (i + 1) * n_seg] for i, m in enumerate(others)
            }
        with_ci = confidence_level is not None
        disp = cls(
            segments=first.segments,
            values=values,
            metric=metric,
            n_groups=first.n_groups,
            ci_low=low if with_ci else None,
            ci_high=high if with_ci else None,
            p_values=raw or None,
            p_adjusted=adjusted,
            baseline=baseline,
        )
        return disp.plot(ax=ax, name=name, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: ArrayLike,
        *,
        groups: ArrayLike,
        segments: ArrayLike | Mapping[Any, Any],
        response_method: Any = ("decision_function", "predict_proba", "predict"),
        **kwargs: Any,
    ) -> SegmentDisplay:
        """Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions` with the same keywords."""
        scores = estimator_scores(
            estimator, X, response_method, "SegmentDisplay.from_estimator"
        )
        return cls.from_predictions(
            y, scores, groups=groups, segments=segments, **kwargs
        )


def _fmt_p(p: float) -> str:
    if np.isnan(p):
        return "n/a"
    return f"{p:.2g}" if p >= 0.001 else "<0.001"
