"""The distribution of one metric over groups, one series per model."""

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
    per_group,
)

KINDS = ("hist", "ecdf", "box")


class GroupScoreDisplay:
    """The per-group values of one metric: histogram, empirical CDF or box plot.

    Groups where the metric is undefined (no relevant row) are not drawn; the
    legend (the tick labels of a box plot) counts them for each model.

    Parameters
    ----------
    values : mapping of str to array-like of shape (n_groups,)
        Model name -> the metric per group, NaN where undefined.
    metric : str
        The metric name (``"ndcg@10"``).

    Attributes
    ----------
    n_undefined : dict of str to int
        Undefined groups per model.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    artists_ : dict of str to matplotlib artist
        Per model: the histogram's patches (``kind="hist"``), the ECDF line
        (``"ecdf"``) or the box plot's dict of lines (``"box"``).
    counts_ : dict of str to ndarray
        Histogram counts per bin (``kind="hist"`` only).
    bin_edges_ : ndarray
        The shared histogram bins (``kind="hist"`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import GroupScoreDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(40), 10)
    >>> y_true = rng.integers(0, 2, 400) * (groups >= 4)  # 4 groups: no relevant row
    >>> disp = GroupScoreDisplay.from_predictions(
    ...     y_true, rng.normal(size=400), groups=groups, metric="ndcg@5", kind="ecdf")
    >>> disp.n_undefined
    {'model': 4}
    >>> disp.ax_.get_legend().get_texts()[0].get_text()
    'model (36 groups, 4 undefined)'
    """

    def __init__(self, *, values: Mapping[str, ArrayLike], metric: str) -> None:
        self.values = {m: np.asarray(v, dtype=np.float64) for m, v in values.items()}
        self.metric = metric
        self.n_undefined = {m: int(np.isnan(v).sum()) for m, v in self.values.items()}

    def plot(
        self, ax: Any = None, *, name: Any = None, kind: str = "hist", **kwargs: Any
    ):
        """Draw the distribution of every model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str or list of str, default=None
            Names per model; None uses the model names.
        kind : {"hist", "ecdf", "box"}, default="hist"
            Histogram (shared bins, step outlines), empirical CDF, or box plot.
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.hist` (``bins`` included),
            :meth:`~matplotlib.axes.Axes.ecdf` or
            :meth:`~matplotlib.axes.Axes.boxplot`.

        Returns
        -------
        display : GroupScoreDisplay
        """
        func = "GroupScoreDisplay.plot"
        if kind not in KINDS:
            raise param_error("kind", func, f"a str among {set(KINDS)}", kind)
        ax, fig = get_axes(ax, func)
        models = list(self.values)
        names = check_names(name, models, func)
        defined = {m: v[~np.isnan(v)] for m, v in self.values.items()}
        labels = [
            f"{n} ({defined[m].size} groups, {self.n_undefined[m]} undefined)"
            for m, n in zip(models, names, strict=True)
        ]
        self.artists_ = {}
        if kind == "hist":
            everything = np.concatenate([defined[m] for m in models])
            bins = kwargs.pop("bins", 20)
            lo, hi = (
                (0.0, 1.0)
                if everything.size == 0
                else (float(everything.min()), float(everything.max()))
            )
            self.bin_edges_ = np.histogram_bin_edges(everything, bins, (lo, hi))
            self.counts_ = {}
            style = {"histtype": "step", "linewidth": 1.5, **kwargs}
            for m, label in zip(models, labels, strict=True):
                counts, _, patches = ax.hist(
                    defined[m], bins=self.bin_edges_, label=label, **style
                )
                self.counts_[m], self.artists_[m] = counts, patches
            from matplotlib.ticker import MaxNLocator

            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(self.metric)
            ax.set_ylabel("groups")
            ax.legend(loc="best")
        elif kind == "ecdf":
            for m, label in zip(models, labels, strict=True):
                if defined[m].size:
                    self.artists_[m] = ax.ecdf(defined[m], label=label, **kwargs)
                else:  # no defined group: no curve, the legend still counts
                    (self.artists_[m],) = ax.plot([], [], label=label, **kwargs)
            ax.set_xlabel(self.metric)
            ax.set_ylabel("share of defined groups at or below")
            ax.legend(loc="best")
        else:
            out = ax.boxplot([defined[m] for m in models], tick_labels=labels, **kwargs)
            for i, m in enumerate(models):
                self.artists_[m] = {
                    key: lines[i]
                    for key, lines in out.items()
                    if len(lines) == len(models)
                }
            ax.set_ylabel(self.metric)
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_score: ArrayLike | Mapping[str, ArrayLike],
        *,
        groups: ArrayLike,
        metric: str = "ndcg@10",
        sample_weight: ArrayLike | None = None,
        metric_options: Mapping[str, Any] | None = None,
        ax: Any = None,
        name: Any = None,
        kind: str = "hist",
        **kwargs: Any,
    ) -> GroupScoreDisplay:
        """Compute the metric per group for each model, then draw it.

        Parameters
        ----------
        y_true, groups, sample_weight
            As in :func:`sklearn_rank.evaluate_per_group`.
        y_score : array-like of shape (n_samples,) or mapping of str to array-like
            Scores of one model, or model name -> scores.
        metric : str, default="ndcg@10"
            A metric with a per-group value.
        metric_options : dict, default=None
            Other keywords of :func:`sklearn_rank.evaluate_per_group`.
        ax, name, kind, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : GroupScoreDisplay
        """
        func = "GroupScoreDisplay.from_predictions"
        check_metric_name(metric, func)
        options = check_options(metric_options, func)
        scores = model_scores(
            y_score, func, name=name if isinstance(name, str) else None
        )
        res = per_group(y_true, scores, groups, [metric], sample_weight, options)
        disp = cls(values={m: r.values[metric] for m, r in res.items()}, metric=metric)
        return disp.plot(ax=ax, name=name, kind=kind, **kwargs)

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
    ) -> GroupScoreDisplay:
        """Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions` with the same keywords."""
        scores = estimator_scores(
            estimator, X, response_method, "GroupScoreDisplay.from_estimator"
        )
        return cls.from_predictions(y, scores, groups=groups, **kwargs)
