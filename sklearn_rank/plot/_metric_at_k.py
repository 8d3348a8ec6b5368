"""A cutoff metric against the cutoff k, one line per model."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._metrics.cutoff_curves import check_cutoff_metric, check_ks, cutoff_curve
from .._utils.params import param_error
from ._base import (
    DisplayMixin,
    check_matplotlib,
    check_options,
    check_per_group,
    check_values,
    metric_keywords_doc,
)


class MetricAtKDisplay(DisplayMixin):
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

    See Also
    --------
    sklearn_rank.evaluate_per_group : The per-group values behind each point.
    sklearn_rank.stats.bootstrap_ci : The intervals drawn as bands.
    InterpolatedPrecisionRecallDisplay : Precision against recall levels.

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
        name: Any = None,
        band_label: str | None = None,
    ) -> None:
        func = "MetricAtKDisplay"
        self.ks = np.asarray(ks)
        self.values = {m: np.asarray(v, dtype=np.float64) for m, v in values.items()}
        self.metric = metric
        self.ci_low = None if ci_low is None else dict(ci_low)
        self.ci_high = None if ci_high is None else dict(ci_high)
        self.confidence_level = confidence_level
        self.name = name
        self.band_label = band_label
        if self.ks.ndim != 1:
            raise param_error("ks", func, "a 1-D array of cutoffs", ks)
        for what in ("values", "ci_low", "ci_high"):
            check_values(what, getattr(self, what), self.ks.size, func, self.values)

    def _models(self):
        return self.values

    def _draw(self, ax, names, curve_kwargs, kwargs) -> None:
        """Draw every model on ``ax`` (the mixin's :meth:`plot` calls it)."""
        models = list(self._models())
        styles = self._styles(
            models, names, curve_kwargs, kwargs, {"marker": "o", "markersize": 3}
        )
        self.lines_, self.bands_ = {}, {}
        # Up to three translucent bands stay readable; more overlap into a
        # blur, so then each band is its two edges, dotted, without a fill.
        filled = len(models) <= 3
        for model, style in zip(models, styles, strict=True):
            (line,) = ax.plot(self.ks, self.values[model], **style)
            self.lines_[model] = line
            if self.ci_low is not None and self.ci_high is not None:
                self.bands_[model] = ax.fill_between(
                    self.ks,
                    self.ci_low[model],
                    self.ci_high[model],
                    **_band_style(line.get_color(), filled),
                )
        ax.set_xlabel("cutoff k")
        from matplotlib.ticker import MaxNLocator

        if 0 < self.ks.size <= 12:  # the requested cutoffs themselves
            ax.set_xticks(self.ks, [str(k) for k in self.ks.tolist()])
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(f"{self.metric}@k")
        handles, labels = ax.get_legend_handles_labels()
        if self.bands_:
            from matplotlib.patches import Patch

            text = self.band_label
            if text is None:
                level = self.confidence_level
                text = f"{level:.0%} bootstrap band" if level is not None else "band"
            handles.append(Patch(**_band_style("0.5", filled)))
            labels.append(text)
        self._legend(ax, handles, labels)

    @classmethod
    def from_group_scores(
        cls,
        per_group: Mapping[str, Any],
        *,
        metric: str,
        confidence_level: float | None = None,
        n_resamples: int = 999,
        random_state: Any = None,
        undefined: str | float | None = None,
        ax: Any = None,
        name: Any = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> MetricAtKDisplay:
        """Draw from per-group values already computed.

        Parameters
        ----------
        per_group : mapping of str to GroupScores
            Model name -> :func:`sklearn_rank.evaluate_per_group` results holding
            ``f"{metric}@{k}"`` for every cutoff (the same cutoffs for every
            model; the models may cover different groups).
        metric : str
            The metric without its cutoff (``"ndcg"``).
        confidence_level : float, default=None
            Draw bootstrap bands of this level
            (:func:`sklearn_rank.stats.bootstrap_ci` of each model), clipped
            to the range of each cutoff's group values (where every mean of
            resampled groups lies; a bootstrap-t interval can leave it).
        n_resamples, random_state
            Of the bootstrap.
        undefined : {"skip"} or float, default=None
            The rule of :func:`sklearn_rank.evaluate` for undefined groups.
        ax, name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        func = "MetricAtKDisplay.from_group_scores"
        check_matplotlib(func)
        per_group = check_per_group(per_group, func)
        ks, values, low, high = _group_score_curves(
            per_group, metric, undefined, confidence_level, n_resamples, random_state
        )
        disp = cls(
            ks=np.asarray(ks),
            values=values,
            metric=metric,
            ci_low=low or None,
            ci_high=high or None,
            confidence_level=confidence_level,
            name=name,
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
    def from_cv_results(
        cls,
        cv_results: Mapping[str, Any],
        *,
        metric: str = "ndcg",
        candidates: Any = None,
        n_candidates: int = 5,
        ax: Any = None,
        name: Any = None,
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> MetricAtKDisplay:
        """The cutoff curves of a search's candidates: mean +- one standard
        deviation over the folds.

        Parameters
        ----------
        cv_results : dict
            ``search.cv_results_`` of a search scored with
            :func:`sklearn_rank.make_ranking_scorer` on ``metric@k`` for several
            ``k`` (``mean_test_ndcg@5``, ``std_test_ndcg@5``, ...).
        metric : str, default="ndcg"
            The metric without its cutoff.
        candidates : sequence of int, default=None
            Indices of the candidates to draw; None draws the ``n_candidates``
            best by the mean at the largest cutoff.
        n_candidates : int, default=5
        ax, name, curve_kwargs, **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
            The band is ``mean +- std`` over folds (``band_label`` says so).
        """
        func = "MetricAtKDisplay.from_cv_results"
        check_matplotlib(func)
        ks, values, low, high = _cv_curves(
            cv_results, metric, candidates, n_candidates, func
        )
        disp = cls(
            ks=ks,
            values=values,
            metric=metric,
            ci_low=low,
            ci_high=high,
            name=name,
            band_label="mean +- 1 SD over folds",
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
    @metric_keywords_doc
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
        curve_kwargs: Any = None,
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
            bootstrap_ci` over groups, one bootstrap per model for every k),
            clipped to the range of each cutoff's group values (where every
            mean of resampled groups lies; a bootstrap-t interval can leave
            it). With more than three models a band is drawn as its dotted
            edges (translucent fills would overlap into a blur).
        n_resamples : int, default=999
            Bootstrap resamples.
        random_state : None, int or Generator, default=None
            Seed of the bootstrap.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, as in :func:`sklearn_rank.evaluate`.
        metric_options : dict, default=None
            Deprecated in 0.1, removed in 0.3: pass the options as keywords.
        ax, name, curve_kwargs, **kwargs
            {metric_keywords}

        Returns
        -------
        display : MetricAtKDisplay
        """
        func = "MetricAtKDisplay.from_predictions"
        check_matplotlib(func)  # before any work
        check_cutoff_metric(metric, func)
        if ks is None:
            if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)):
                raise param_error("k_max", func, "an int in the range [1, inf)", k_max)
            if k_max < 1:
                raise param_error("k_max", func, "an int in the range [1, inf)", k_max)
            ks = np.arange(1, int(k_max) + 1)
        ks = check_ks(ks, func)
        options = check_options(metric_options, func, kwargs)
        scores, name = cls._scores(y_score, name, func)
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
            name=name,
        )
        return disp.plot(ax=ax, curve_kwargs=curve_kwargs, **kwargs)


def _unique(label: str, before: list[str]) -> str:
    return label if label not in before else f"{label} ({len(before)})"


def _with_rule(res: Any, keys: list[str], undefined: Any) -> Any:
    """``res`` with undefined groups scored ``undefined`` when it is a float."""
    if undefined is None or isinstance(undefined, str):
        return res
    from dataclasses import replace

    return replace(
        res,
        values={
            k: np.where(np.isnan(v), float(undefined), v)
            for k, v in ((k, res.values[k]) for k in keys)
        },
        weights={k: res.weights[k] for k in keys},
    )


def _bands(curve, level, n_resamples, random_state, options):
    """Bootstrap interval ends at every cutoff: one bootstrap over groups for all
    of them (columns on the same groups share their draws)."""
    from ..stats import bootstrap_ci

    extra = {"undefined": options["undefined"]} if "undefined" in options else {}
    scores = curve.group_scores()
    report = bootstrap_ci(
        None,
        scores,
        confidence_level=level,
        n_resamples=n_resamples,
        random_state=random_state,
        **extra,
    )
    low = np.array([r.ci_low for r in report])
    high = np.array([r.ci_high for r in report])
    if isinstance(extra.get("undefined"), (int, float)):
        return low, high  # undefined groups enter with a fill value: as computed
    # Within the group values' range, where every mean of resampled groups
    # lies (a bootstrap-t interval of a metric bounded by 1 can reach above 1).
    return _within_values(low, high, [scores.values[r.metric] for r in report])


def _within_values(low, high, columns):
    """Interval ends at each cutoff clipped to the range of its group values."""
    values = np.array([np.asarray(c, dtype=np.float64) for c in columns])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN cutoff
        lo, hi = np.nanmin(values, axis=1), np.nanmax(values, axis=1)
    return np.clip(low, lo, hi), np.clip(high, lo, hi)


def _group_score_curves(per_group, metric, undefined, level, n_resamples, random_state):
    """Cutoffs, means and bootstrap interval ends per model from per-group
    values holding ``metric@k`` for every cutoff."""
    from ..stats import bootstrap_ci

    func = "MetricAtKDisplay.from_group_scores"
    first = next(iter(per_group.values()))
    prefix = f"{metric}@"
    ks = sorted(int(k[len(prefix) :]) for k in first.values if k.startswith(prefix))
    if not ks:
        raise param_error(
            "metric",
            func,
            f"a metric with '{prefix}k' entries in per_group",
            metric,
        )
    keys = [f"{prefix}{k}" for k in ks]
    values, low, high = {}, {}, {}
    for model, res in per_group.items():
        missing = [k for k in keys if k not in res.values]
        if missing:
            raise ValueError(
                f"{func}: the per-group values of {model!r} lack {missing}; "
                "score every model at the same cutoffs."
            )
        res = _with_rule(res, keys, undefined)
        values[str(model)] = np.array([res.mean(k) for k in keys])
        if level is not None:
            report = bootstrap_ci(
                None,
                res,
                metrics=keys,
                confidence_level=level,
                n_resamples=n_resamples,
                random_state=random_state,
            )
            low[str(model)], high[str(model)] = _within_values(
                np.array([r.ci_low for r in report]),
                np.array([r.ci_high for r in report]),
                [res.values[k] for k in keys],
            )
    return ks, values, low, high


def _cv_curves(cv_results, metric, candidates, n_candidates, func):
    """Cutoffs, and per candidate the mean and mean +- 1 SD over folds, read
    from a search's ``cv_results_``."""
    if not isinstance(cv_results, Mapping):
        raise param_error(
            "cv_results",
            func,
            "a search's cv_results_ dict",
            type(cv_results).__name__,
        )
    prefix = f"mean_test_{metric}@"
    ks = sorted(
        int(k[len(prefix) :])
        for k in cv_results
        if k.startswith(prefix) and k[len(prefix) :].isdigit()
    )
    if not ks:
        raise param_error(
            "metric",
            func,
            f"a metric scored at cutoffs ('{prefix}k' keys in cv_results)",
            metric,
        )
    mean = np.array([np.asarray(cv_results[f"{prefix}{k}"], float) for k in ks])
    std = np.array(
        [np.asarray(cv_results[f"std_test_{metric}@{k}"], float) for k in ks]
    )
    n = mean.shape[1]
    if candidates is None:
        if (
            isinstance(n_candidates, bool)
            or not isinstance(n_candidates, (int, np.integer))
            or n_candidates < 1
        ):
            raise param_error(
                "n_candidates", func, "an int in the range [1, inf)", n_candidates
            )
        last = np.where(np.isnan(mean[-1]), -np.inf, mean[-1])
        candidates = np.argsort(-last, kind="stable")[: int(n_candidates)]
    idx = [int(i) for i in candidates]
    if any(i < 0 or i >= n for i in idx):
        raise param_error("candidates", func, f"indices in [0, {n})", candidates)
    params = cv_results.get("params")
    labels = [
        ", ".join(f"{k}={v!r}" for k, v in params[i].items())
        if params is not None and params[i]
        else f"candidate {i}"
        for i in idx
    ]
    labels = [_unique(lab, labels[:j]) for j, lab in enumerate(labels)]
    pairs = list(zip(labels, idx, strict=True))
    return (
        np.asarray(ks),
        {lab: mean[:, i] for lab, i in pairs},
        {lab: mean[:, i] - std[:, i] for lab, i in pairs},
        {lab: mean[:, i] + std[:, i] for lab, i in pairs},
    )


def _band_style(color: Any, filled: bool) -> dict[str, Any]:
    if filled:
        return {"facecolor": color, "alpha": 0.2, "linewidth": 0}
    return {"facecolor": "none", "edgecolor": color, "linestyle": ":", "linewidth": 1}
