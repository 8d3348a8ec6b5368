"""Per-group differences of one metric between models and a baseline, sorted."""

from __future__ import annotations

import warnings
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

# |difference| at or below this is a tie (as in sklearn_rank.stats.compare).
TIE = 1e-12


def _warn_all_undefined(func, metric, model, baseline, n_groups) -> None:
    """evaluate's warning when no group is defined: the plot of that model is
    empty (as the mean of evaluate is NaN)."""
    from sklearn.exceptions import UndefinedMetricWarning

    warnings.warn(
        f"{func}: {metric} is undefined for every one of the {n_groups} groups in "
        f"{model!r} - {baseline!r} (no group has a relevant item for both); its "
        "plot is empty. Check y_true and relevance_threshold.",
        UndefinedMetricWarning,
        stacklevel=3,
    )


class PairedDifferenceDisplay:
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
    >>> disp.ax_.get_title().startswith("ndcg@5, new - old:")
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
    ) -> None:
        self.differences = {m: np.asarray(d, float) for m, d in differences.items()}
        self.group_ids = {m: np.asarray(g) for m, g in group_ids.items()}
        self.metric, self.baseline, self.n_labels = metric, baseline, n_labels
        self.wins = {m: int((d > TIE).sum()) for m, d in self.differences.items()}
        self.losses = {m: int((d < -TIE).sum()) for m, d in self.differences.items()}
        self.ties = {
            m: d.size - self.wins[m] - self.losses[m]
            for m, d in self.differences.items()
        }

    def plot(self, ax: Any = None, *, name: Any = None, **kwargs: Any):
        """Draw the sorted differences of every model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str or list of str, default=None
            Names per model; None uses the model names.
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.plot` for every model.

        Returns
        -------
        display : PairedDifferenceDisplay
        """
        func = "PairedDifferenceDisplay.plot"
        ax, fig = get_axes(ax, func)
        models = list(self.differences)
        names = check_names(name, models, func)
        self.lines_, self.annotations_ = {}, {}
        titles = []
        for m, label in zip(models, names, strict=True):
            d, ids = self.differences[m], self.group_ids[m]
            x = np.arange(1, d.size + 1)
            style = {"drawstyle": "steps-mid", **kwargs}
            (line,) = ax.plot(x, d, label=f"{label} - {self.baseline}", **style)
            ax.fill_between(x, d, 0.0, step="mid", color=line.get_color(), alpha=0.25)
            self.lines_[m] = line
            self.annotations_[m] = self._label_extremes(ax, x, d, ids, line)
            titles.append(
                f"{label} - {self.baseline}:\n{self.wins[m]} wins, "
                f"{self.ties[m]} ties, {self.losses[m]} losses"
            )
        ax.axhline(0.0, color="0.3", linewidth=0.8)
        ax.set_xlabel("groups, sorted by difference")
        ax.set_ylabel(f"{self.metric} difference")
        ax.set_title(f"{self.metric}, " + "\n".join(titles), fontsize="medium")
        if len(models) > 1:
            ax.legend(loc="best")
        self.ax_, self.figure_ = ax, fig
        return self

    def _label_extremes(self, ax, x, d, ids, line) -> list:
        n = self.n_labels
        wins = [i for i in range(min(n, d.size)) if d[i] > TIE]
        losses = [
            i for i in range(d.size - 1, max(d.size - n, 0) - 1, -1) if d[i] < -TIE
        ]
        out = []
        for j, i in enumerate(wins + losses):
            # Staggered to the right of the point, so that neighbours do not
            # overlap: the j-th win (loss) label sits j lines lower (higher).
            step = j if j < len(wins) else j - len(wins)
            out.append(
                ax.annotate(
                    str(ids[i]),
                    (x[i], d[i]),
                    textcoords="offset points",
                    xytext=(6, -9 * step - 3 if d[i] > 0 else 9 * step - 3),
                    arrowprops={
                        "arrowstyle": "-",
                        "linewidth": 0.5,
                        "color": line.get_color(),
                    },
                    fontsize="x-small",
                    color=line.get_color(),
                )
            )
        return out

    @classmethod
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
            Other keywords of :func:`sklearn_rank.evaluate_per_group`.
        ax, name, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PairedDifferenceDisplay
        """
        func = "PairedDifferenceDisplay.from_predictions"
        check_metric_name(metric, func)
        if (
            isinstance(n_labels, bool)
            or not isinstance(n_labels, (int, np.integer))
            or n_labels < 0
        ):
            raise param_error(
                "n_labels", func, "an int in the range [0, inf)", n_labels
            )
        options = check_options(metric_options, func)
        scores = model_scores(y_score, func)
        if len(scores) < 2:
            raise param_error(
                "y_score", func, "a mapping of at least two models", list(scores)
            )
        models = list(scores)
        if baseline is None:
            baseline = models[-1]
        elif baseline not in scores:
            raise param_error("baseline", func, f"None or one of {models}", baseline)
        res = per_group(y_true, scores, groups, [metric], sample_weight, options)
        base = res[baseline].values[metric]
        diffs, ids = {}, {}
        for m in models:
            if m == baseline:
                continue
            d = res[m].values[metric] - base
            keep = ~np.isnan(d)
            if not keep.any():
                _warn_all_undefined(func, metric, m, baseline, d.size)
            order = np.argsort(-d[keep], kind="stable")
            diffs[m] = d[keep][order]
            ids[m] = res[m].group_ids[keep][order]
        disp = cls(
            differences=diffs,
            group_ids=ids,
            metric=metric,
            baseline=baseline,
            n_labels=int(n_labels),
        )
        return disp.plot(ax=ax, name=name, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Mapping[str, Any],
        X: Any,
        y: ArrayLike,
        *,
        groups: ArrayLike,
        response_method: Any = ("decision_function", "predict_proba", "predict"),
        **kwargs: Any,
    ) -> PairedDifferenceDisplay:
        """Score ``X`` with a mapping name -> fitted estimator (at least two),
        then :meth:`from_predictions` with the same keywords."""
        scores = estimator_scores(
            estimator, X, response_method, "PairedDifferenceDisplay.from_estimator"
        )
        return cls.from_predictions(y, scores, groups=groups, **kwargs)
