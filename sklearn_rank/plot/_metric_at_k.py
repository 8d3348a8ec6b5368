"""A cutoff metric against the cutoff k, one line per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._metrics.cutoff_curves import check_cutoff_metric, check_ks, cutoff_curve
from .._utils.params import param_error
from ._base import (
    check_names,
    check_options,
    estimator_scores,
    get_axes,
    model_scores,
)


class MetricAtKDisplay:
    """A cutoff metric at ``k = 1..K``, one line per model (with bootstrap bands).

    Build it with :meth:`from_predictions` or :meth:`from_estimator`; the
    constructor takes values already computed.

    Parameters
    ----------
    ks : array-like of int of shape (n_k,)
        The cutoffs.
    values : mapping of str to array-like of shape (n_k,)
        Model name -> the metric at each cutoff.
    metric : str
        The metric name without a cutoff (``"ndcg"``).
    ci_low, ci_high : mapping of str to array-like of shape (n_k,), default=None
        Bootstrap interval ends per model; None draws no band.
    confidence_level : float, default=None
        The level of the intervals (for the legend).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : dict of str to Line2D
        The line of each model.
    bands_ : dict of str to PolyCollection
        The interval band of each model (empty without intervals).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import MetricAtKDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(30), 20)
    >>> y_true = rng.integers(0, 3, 600)
    >>> scores = {"good": y_true + rng.normal(size=600), "noise": rng.normal(size=600)}
    >>> disp = MetricAtKDisplay.from_predictions(
    ...     y_true, scores, groups=groups, metric="ndcg", k_max=10)
    >>> disp.ks.tolist()
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> sorted(disp.lines_)
    ['good', 'noise']
    >>> bool(disp.values["good"][-1] > disp.values["noise"][-1])
    True
    """

    def __init__(
        self,
        *,
        ks: ArrayLike,
        values: Mapping[str, ArrayLike],
        metric: str,
        ci_low: Mapping[str, ArrayLike] | None = None,
        ci_high: Mapping[str, ArrayLike] | None = None,
        confidence_level: float | None = None,
    ) -> None:
        self.ks = np.asarray(ks)
        self.values = {m: np.asarray(v, dtype=np.float64) for m, v in values.items()}
        self.metric = metric
        self.ci_low = None if ci_low is None else dict(ci_low)
        self.ci_high = None if ci_high is None else dict(ci_high)
        self.confidence_level = confidence_level

    def plot(self, ax: Any = None, *, name: Any = None, **kwargs: Any):
        """Draw one line per model (and its band) on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str or list of str, default=None
            Legend names (one per model); None uses the model names.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for every line.

        Returns
        -------
        display : MetricAtKDisplay
        """
        func = "MetricAtKDisplay.plot"
        ax, fig = get_axes(ax, func)
        models = list(self.values)
        names = check_names(name, models, func)
        self.lines_, self.bands_ = {}, {}
        for model, label in zip(models, names, strict=True):
            style = {"marker": "o", "markersize": 3, **kwargs}
            (line,) = ax.plot(self.ks, self.values[model], label=label, **style)
            self.lines_[model] = line
            if self.ci_low is not None and self.ci_high is not None:
                self.bands_[model] = ax.fill_between(
                    self.ks,
                    self.ci_low[model],
                    self.ci_high[model],
                    color=line.get_color(),
                    alpha=0.2,
                    linewidth=0,
                )
        ax.set_xlabel("cutoff k")
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        level = ""
        if self.bands_ and self.confidence_level is not None:
            level = f" ({self.confidence_level:.0%} bootstrap bands)"
        ax.set_ylabel(f"{self.metric}@k{level}")
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike | Mapping[str, ArrayLike],
        *,
        groups: ArrayLike,
        metric: str = "ndcg",
        k_max: int = 20,
        ks: Sequence[int] | None = None,
        confidence_level: float | None = None,
        n_resamples: int = 999,
        random_state: Any = None,
        sample_weight: ArrayLike | None = None,
        metric_options: Mapping[str, Any] | None = None,
        ax: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> MetricAtKDisplay:
        """Compute the metric at every cutoff from scores, then draw it.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        y_score : array-like of shape (n_samples,) or mapping of str to array-like
            Scores of one model, or model name -> scores (a DataFrame gives one
            model per column).
        groups : array-like of shape (n_samples,)
            Query, user or session id of each row.
        metric : str, default="ndcg"
            A metric with a cutoff (``get_metric_names()`` entries ending in
            ``@k``), given without it.
        k_max : int, default=20
            Cutoffs ``1..k_max`` (ignored when ``ks`` is given).
        ks : sequence of int, default=None
            The cutoffs, increasing.
        confidence_level : float, default=None
            Draw bootstrap bands of this level (:func:`sklearn_rank.stats.
            bootstrap_ci` over groups, one bootstrap per model for every k).
        n_resamples : int, default=999
            Bootstrap resamples.
        random_state : None, int or Generator, default=None
            Seed of the bootstrap.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, as in :func:`sklearn_rank.evaluate`.
        metric_options : dict, default=None
            Other keywords of :func:`sklearn_rank.evaluate` (``convention``,
            ``ties``, ``undefined``, ...).
        ax, name, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        func = "MetricAtKDisplay.from_predictions"
        check_cutoff_metric(metric, func)
        if ks is None:
            if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)):
                raise param_error("k_max", func, "an int in the range [1, inf)", k_max)
            if k_max < 1:
                raise param_error("k_max", func, "an int in the range [1, inf)", k_max)
            ks = np.arange(1, int(k_max) + 1)
        ks = check_ks(ks, func)
        options = check_options(metric_options, func)
        scores = model_scores(
            y_score, func, name=name if isinstance(name, str) else None
        )
        values, low, high = {}, {}, {}
        for model, score in scores.items():
            curve = cutoff_curve(
                func,
                y_true,
                score,
                groups=groups,
                metric=metric,
                ks=ks,
                sample_weight=sample_weight,
                **options,
            )
            values[model] = curve.means
            if confidence_level is not None:
                low[model], high[model] = _bands(
                    curve, confidence_level, n_resamples, random_state, options
                )
        disp = cls(
            ks=ks,
            values=values,
            metric=metric,
            ci_low=low or None,
            ci_high=high or None,
            confidence_level=confidence_level,
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
        response_method: Any = ("decision_function", "predict_proba", "predict"),
        **kwargs: Any,
    ) -> MetricAtKDisplay:
        """Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions` with the same keywords."""
        scores = estimator_scores(
            estimator, X, response_method, "MetricAtKDisplay.from_estimator"
        )
        return cls.from_predictions(y, scores, groups=groups, **kwargs)


def _bands(curve, level, n_resamples, random_state, options):
    """Bootstrap interval ends at every cutoff: one bootstrap over groups for all
    of them (columns on the same groups share their draws)."""
    from ..stats import bootstrap_ci

    extra = {"undefined": options["undefined"]} if "undefined" in options else {}
    report = bootstrap_ci(
        None,
        curve.group_scores(),
        confidence_level=level,
        n_resamples=n_resamples,
        random_state=random_state,
        **extra,
    )
    low = np.array([r.ci_low for r in report])
    high = np.array([r.ci_high for r in report])
    return low, high
