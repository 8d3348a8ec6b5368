"""Interpolated precision at recall levels, averaged over groups, per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    check_names,
    check_options,
    estimator_scores,
    get_axes,
    model_scores,
)

ELEVEN_POINTS = tuple(np.round(np.linspace(0.0, 1.0, 11), 1).tolist())


def iprec_names(levels: np.ndarray) -> list[str]:
    """``iprec@r`` metric names of the recall levels (``"iprec@0.1"``)."""
    return [f"iprec@{r:g}" for r in levels.tolist()]


class PrecisionRecallDisplay:
    """The ranked-retrieval precision-recall curve: interpolated precision at
    recall levels (trec_eval's ``iprec_at_recall``, the 11-point curve by
    default), averaged over groups, one line per model.

    Parameters
    ----------
    recall : array-like of shape (n_levels,)
        The recall levels.
    precision : mapping of str to array-like of shape (n_levels,)
        Model name -> mean interpolated precision at each level
        (``evaluate(..., metrics=["iprec@0", "iprec@0.1", ...])``).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : dict of str to Line2D

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import PrecisionRecallDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(20), 15)
    >>> y_true = rng.integers(0, 2, 300)
    >>> disp = PrecisionRecallDisplay.from_predictions(
    ...     y_true, {"good": y_true + rng.normal(size=300)}, groups=groups)
    >>> disp.recall.tolist()[:3], len(disp.precision["good"])
    ([0.0, 0.1, 0.2], 11)
    """

    def __init__(
        self, *, recall: ArrayLike, precision: Mapping[str, ArrayLike]
    ) -> None:
        self.recall = np.asarray(recall, dtype=np.float64)
        self.precision = {m: np.asarray(p, float) for m, p in precision.items()}

    def plot(self, ax: Any = None, *, name: Any = None, **kwargs: Any):
        """Draw one curve per model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str or list of str, default=None
            Legend names per model; None uses the model names.
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.plot` for every line.

        Returns
        -------
        display : PrecisionRecallDisplay
        """
        func = "PrecisionRecallDisplay.plot"
        ax, fig = get_axes(ax, func)
        models = list(self.precision)
        names = check_names(name, models, func)
        self.lines_ = {}
        for m, label in zip(models, names, strict=True):
            style = {"marker": "o", "markersize": 3, **kwargs}
            (self.lines_[m],) = ax.plot(
                self.recall, self.precision[m], label=label, **style
            )
        ax.set_xlabel("recall")
        ax.set_ylabel("interpolated precision (mean over groups)")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
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
        recall_levels: Sequence[float] = ELEVEN_POINTS,
        sample_weight: ArrayLike | None = None,
        metric_options: Mapping[str, Any] | None = None,
        ax: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> PrecisionRecallDisplay:
        """Compute the mean interpolated precision at each recall level (one
        :func:`sklearn_rank.evaluate` call per model), then draw it.

        Parameters
        ----------
        y_true, groups, sample_weight
            As in :func:`sklearn_rank.evaluate`.
        y_score : array-like of shape (n_samples,) or mapping of str to array-like
            Scores of one model, or model name -> scores.
        recall_levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            Recall levels in [0, 1], increasing.
        metric_options : dict, default=None
            Other keywords of :func:`sklearn_rank.evaluate`.
        ax, name, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PrecisionRecallDisplay
        """
        from .._metrics.evaluate import evaluate

        func = "PrecisionRecallDisplay.from_predictions"
        levels = (
            np.asarray(recall_levels, dtype=np.float64)
            if _numbers(recall_levels)
            else None
        )
        if (
            levels is None
            or levels.ndim != 1
            or levels.size == 0
            or not ((levels >= 0) & (levels <= 1)).all()
            or (np.diff(levels) <= 0).any()
        ):
            raise param_error(
                "recall_levels",
                func,
                "a non-empty increasing sequence of floats in [0, 1]",
                recall_levels,
            )
        options = check_options(metric_options, func)
        scores = model_scores(
            y_score, func, name=name if isinstance(name, str) else None
        )
        names = iprec_names(levels)
        precision = {}
        for m, score in scores.items():
            res = evaluate(
                y_true,
                score,
                groups=groups,
                metrics=names,
                sample_weight=sample_weight,
                **options,
            )
            precision[m] = np.array([res[n] for n in names])
        disp = cls(recall=levels, precision=precision)
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
    ) -> PrecisionRecallDisplay:
        """Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions` with the same keywords."""
        scores = estimator_scores(
            estimator, X, response_method, "PrecisionRecallDisplay.from_estimator"
        )
        return cls.from_predictions(y, scores, groups=groups, **kwargs)


def _numbers(x: Any) -> bool:
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind in "iuf"
