"""Interpolated precision at recall levels, averaged over groups, per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    DisplayMixin,
    check_matplotlib,
    check_options,
    check_values,
    metric_keywords_doc,
)

ELEVEN_POINTS = tuple(np.round(np.linspace(0.0, 1.0, 11), 1).tolist())


def iprec_names(levels: np.ndarray) -> list[str]:
    """``iprec@r`` metric names of the recall levels (``"iprec@0.1"``)."""
    return [f"iprec@{r:g}" for r in levels.tolist()]


class InterpolatedPrecisionRecallDisplay(DisplayMixin):
    """The ranked-retrieval precision-recall curve: interpolated precision at
    recall levels (trec_eval's ``iprec_at_recall``, the 11-point curve by
    default), averaged over groups, one line per model.

    Not scikit-learn's :class:`~sklearn.metrics.PrecisionRecallDisplay` (one
    binary classifier's curve over thresholds): here each point is a mean over
    groups of a ranking's interpolated precision. ``PrecisionRecallDisplay`` is
    this class's former name, kept as an alias.

    Parameters
    ----------
    recall : array-like of shape (n_levels,)
        The recall levels.
    precision : mapping of str to array-like of shape (n_levels,)
        Model name -> mean interpolated precision at each level
        (``evaluate(..., metrics=["iprec@0", "iprec@0.1", ...])``).
    prevalence : float, default=None
        The mean over groups of the share of relevant rows: the precision of a
        random ranking, drawn as a dashed line inside the y range (named with
        its value in the legend).
    name : str or list of str, default=None
        Legend names per model.
    average_precision : mapping of str to float, default=None
        Model name -> the engine's 11-point average precision (the metric
        ``"iprec_11pt"``, trec_eval's ``11pt_avg``), shown in the legend as
        "11-pt AP"; :meth:`from_predictions` computes it with the default
        levels. None shows no summary in the legend.

    Attributes
    ----------
    average_precision : dict of str to float
        Per model, the ``average_precision`` given (empty when None).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : dict of str to Line2D

    See Also
    --------
    sklearn_rank.interpolated_precision_score : One point of the curve.
    sklearn_rank.eleven_point_precision_score : The 11-point average in the legend.
    MetricAtKDisplay : A metric against the cutoff k.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.plot import InterpolatedPrecisionRecallDisplay
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(20), 15)
    >>> y_true = rng.integers(0, 2, 300)
    >>> disp = InterpolatedPrecisionRecallDisplay.from_predictions(
    ...     y_true, {"good": y_true + rng.normal(size=300)}, groups=groups)
    >>> disp.recall.tolist()[:3], len(disp.precision["good"])
    ([0.0, 0.1, 0.2], 11)
    """

    def __init__(
        self,
        *,
        recall: ArrayLike,
        precision: Mapping[str, ArrayLike],
        prevalence: float | None = None,
        name: Any = None,
        average_precision: Mapping[str, float] | None = None,
    ) -> None:
        self.recall = np.asarray(recall, dtype=np.float64)
        self.precision = {m: np.asarray(p, float) for m, p in precision.items()}
        check_values("precision", self.precision, self.recall.size, type(self).__name__)
        self.prevalence = prevalence
        self.name = name
        # Taken from the engine's metric, never averaged here from the points.
        self.average_precision = {
            str(m): float(v) for m, v in (average_precision or {}).items()
        }

    def _models(self):
        return self.precision

    def _draw(self, ax, names, curve_kwargs, kwargs) -> None:
        """Draw every model on ``ax`` (the mixin's :meth:`plot` calls it)."""
        models = list(self._models())
        ap = self.average_precision
        labels = [
            f"{n} (11-pt AP {ap[m]:.3f})" if m in ap else n
            for m, n in zip(models, names, strict=True)
        ]
        styles = self._styles(
            models, labels, curve_kwargs, kwargs, {"marker": "o", "markersize": 3}
        )
        self.lines_ = {}
        for m, style in zip(models, styles, strict=True):
            (self.lines_[m],) = ax.plot(self.recall, self.precision[m], **style)
        ax.set_xlabel("recall")
        ax.set_ylabel("interpolated precision\n(mean over groups)")
        ax.set_xlim(-0.02, 1.02)
        # The curves and the random-ranking line set the y range (not [0, 1]:
        # realistic curves would be squeezed). The line is always drawn inside
        # it: with one model far above chance, a range from the curve alone
        # left the line out of the axes.
        values = np.concatenate(
            [np.asarray(p) for p in self.precision.values()] or [np.zeros(1)]
        )
        values = values[np.isfinite(values)]
        lo, hi = (values.min(), values.max()) if values.size else (0.0, 1.0)
        if self.prevalence is not None and self.prevalence == self.prevalence:
            ax.axhline(
                self.prevalence,
                color="0.5",
                linestyle="--",
                linewidth=1,
                label=f"random ranking (mean prevalence {self.prevalence:.3f})",
            )
            lo, hi = min(lo, self.prevalence), max(hi, self.prevalence)
        pad = max(0.05 * (hi - lo), 0.02)
        ax.set_ylim(max(lo - pad, -0.02), min(hi + pad, 1.02))
        self._legend(ax)

    @classmethod
    @metric_keywords_doc
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
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> InterpolatedPrecisionRecallDisplay:
        """Compute the mean interpolated precision at each recall level (the
        values of one :func:`sklearn_rank.evaluate` call per model; the labels
        are checked once for all models), then draw it.

        Parameters
        ----------
        y_true, groups, sample_weight
            As in :func:`sklearn_rank.evaluate`.
        y_score : array-like of shape (n_samples,) or mapping of str to array-like
            Scores of one model, or model name -> scores.
        recall_levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            Recall levels in [0, 1], increasing.
        metric_options : dict, default=None
            Deprecated in 0.1, removed in 0.3: pass the options as keywords.
        ax, name, curve_kwargs, **kwargs
            {metric_keywords}

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
        """
        from .._metrics.prepared import evaluate_models

        func = f"{cls.__name__}.from_predictions"
        check_matplotlib(func)  # before any work
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
        options = check_options(metric_options, func, kwargs)
        scores, name = cls._scores(y_score, name, func)
        names = iprec_names(levels)
        eleven = levels.size == 11 and np.allclose(levels, np.linspace(0, 1, 11))
        # The legend's summary is the engine's 11-point AP (iprec_11pt), only
        # where the curve drawn is that metric's 11 points.
        summary = ["iprec_11pt"] if eleven else []
        precision, prevalence, ap = {}, None, {}
        # The models share the labels: checked and encoded once (prepare).
        results = evaluate_models(
            y_true,
            scores,
            groups=groups,
            metrics=[*names, *summary, "precision"],
            sample_weight=sample_weight,
            **options,
        )
        for m, res in results.items():
            precision[m] = np.array([res[n] for n in names])
            if eleven:
                ap[m] = res["iprec_11pt"]
            # precision over the whole list: the share of relevant rows
            prevalence = res["precision"]
        disp = cls(
            recall=levels,
            precision=precision,
            prevalence=prevalence,
            name=name,
            average_precision=ap or None,
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)


# The former name (it is not scikit-learn's PrecisionRecallDisplay).
PrecisionRecallDisplay = InterpolatedPrecisionRecallDisplay


def _numbers(x: Any) -> bool:
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind in "iuf"
