"""The distribution of one metric over groups, one series per model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._base import (
    DisplayMixin,
    check_curve_kwargs,
    check_matplotlib,
    check_per_group,
    metric_keywords_doc,
    model_colors,
    per_group,
)
from ._layout import (
    fit_ticklabels,
    shorten_distinct,
    wrap,
)

KINDS = ("hist", "ecdf", "box")


class GroupScoreDisplay(DisplayMixin):
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

    See Also
    --------
    sklearn_rank.evaluate_per_group : The values drawn.
    PairedDifferenceDisplay : The same values as differences to a baseline.
    SegmentDisplay : The metric per segment of the groups.

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
    >>> label = disp.ax_.get_legend().get_texts()[0].get_text()
    >>> " ".join(label.split())  # wrapped to the axes' width in the legend
    'model (36 groups, 4 undefined)'
    """

    def __init__(
        self,
        *,
        values: Mapping[str, ArrayLike],
        metric: str,
        group_ids: Mapping[str, ArrayLike] | None = None,
        name: Any = None,
    ) -> None:
        self.values = {m: np.asarray(v, dtype=np.float64) for m, v in values.items()}
        for m, v in self.values.items():
            if v.ndim != 1:
                raise ValueError(
                    f"GroupScoreDisplay: values[{m!r}] must be 1-D (one value per "
                    f"group); got shape {v.shape}."
                )
        self.metric = metric
        self.group_ids = None
        if group_ids is not None:
            self.group_ids = {m: np.asarray(g) for m, g in group_ids.items()}
            for m, g in self.group_ids.items():
                if m not in self.values or g.shape != self.values[m].shape:
                    raise ValueError(
                        f"GroupScoreDisplay: group_ids[{m!r}] needs one id per "
                        "value of the same model."
                    )
        self.name = name
        self.n_undefined = {m: int(np.isnan(v).sum()) for m, v in self.values.items()}

    def plot(
        self,
        ax: Any = None,
        *,
        name: Any = None,
        kind: str = "hist",
        curve_kwargs: Any = None,
        **kwargs: Any,
    ):
        """Draw the distribution of every model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure (constrained layout).
        name : str or list of str, default=None
            Names per model; None uses the constructor's, else the model names.
        kind : {"hist", "ecdf", "box"}, default="hist"
            Histogram (shared bins over the metric's range, one bar per model
            side by side), empirical CDF, or box plot.
        curve_kwargs : dict, list of dict or mapping of str to dict, default=None
            Per-model keywords of :meth:`~matplotlib.axes.Axes.ecdf` (``"ecdf"``)
            or of the histogram's bars (``"hist"``); the box plot takes the
            ``color`` of each model from it.
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
        models = list(self.values)
        ax, fig, names = self._start(ax, name, models)
        defined = {m: v[~np.isnan(v)] for m, v in self.values.items()}
        labels = [
            f"{n} ({defined[m].size} groups, {self.n_undefined[m]} undefined)"
            for m, n in zip(models, names, strict=True)
        ]
        self.artists_ = {}
        if kind == "hist":
            self._hist(ax, fig, models, labels, defined, curve_kwargs, kwargs)
        elif kind == "ecdf":
            styles = self._styles(models, labels, curve_kwargs, kwargs)
            for m, style in zip(models, styles, strict=True):
                if defined[m].size:
                    self.artists_[m] = ax.ecdf(defined[m], **style)
                else:  # no defined group: no curve, the legend still counts
                    (self.artists_[m],) = ax.plot([], [], **style)
            ax.set_xlabel(self.metric)
            ax.set_ylabel("share of defined groups\nat or below")
            self._legend(ax)
        else:
            self._box(
                ax, fig, models, names, labels, defined, curve_kwargs, kwargs, func
            )
        return self

    def _hist(self, ax, fig, models, labels, defined, curve_kwargs, kwargs):
        everything = np.concatenate([defined[m] for m in models])
        bins = kwargs.pop("bins", 20)
        # The metric's own range [0, 1] (wider only if the data are).
        lo = min(0.0, float(everything.min())) if everything.size else 0.0
        hi = max(1.0, float(everything.max())) if everything.size else 1.0
        self.bin_edges_ = np.histogram_bin_edges(everything, bins, (lo, hi))
        styles = self._styles(models, labels, curve_kwargs, kwargs)
        colors = [st.pop("color") for st in styles]
        names = [st.pop("label") for st in styles]
        shared = (
            {
                k: v
                for k, v in styles[0].items()
                if all(k in st and st[k] == v for st in styles)
            }
            if styles
            else {}
        )
        counts, _, patches = ax.hist(
            [defined[m] for m in models],
            bins=self.bin_edges_,
            color=colors,
            label=names,
            histtype="bar",
            **shared,
        )
        counts = counts if len(models) > 1 else [counts]
        patches = patches if len(models) > 1 else [patches]
        self.counts_ = {m: np.asarray(c) for m, c in zip(models, counts, strict=True)}
        self.artists_ = dict(zip(models, patches, strict=True))
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(self.metric)
        ax.set_ylabel("groups")
        self._legend(ax)

    def _box(self, ax, fig, models, names, labels, defined, curve_kwargs, kwargs, func):
        colors = model_colors(fig, models)
        own = check_curve_kwargs(curve_kwargs, models, func)
        # No tick_labels / labels keyword (renamed in matplotlib 3.9): the
        # ticks are set afterwards, on every version the extra allows.
        import matplotlib as mpl

        style = {
            "patch_artist": True,
            "medianprops": {"color": mpl.rcParams["text.color"]},
            **kwargs,
        }
        out = ax.boxplot([defined[m] for m in models], **style)
        for i, m in enumerate(models):
            c = own[i].get("color", colors[m])
            out["boxes"][i].set_facecolor(c)
            out["boxes"][i].set_alpha(0.6)
            self.artists_[m] = {
                key: lines[i] for key, lines in out.items() if len(lines) == len(models)
            }
        positions = np.arange(1, len(models) + 1)
        ax.set_xticks(positions, [wrap(t.replace("\n", " "), 16) for t in labels])
        ax.tick_params(axis="x", labelsize="small")
        ax.set_ylabel(self.metric)
        self.legend_ = None
        short = [
            f"{n} ({defined[m].size})"
            for m, n in zip(models, shorten_distinct(names, 18), strict=True)
        ]
        fit_ticklabels(ax, short)

    @classmethod
    def from_group_scores(
        cls,
        per_group: Mapping[str, Any],
        *,
        metric: str,
        ax: Any = None,
        name: Any = None,
        kind: str = "hist",
        curve_kwargs: Any = None,
        **kwargs: Any,
    ) -> GroupScoreDisplay:
        """Draw from per-group values already computed: model name ->
        :func:`sklearn_rank.evaluate_per_group` results holding ``metric`` (the
        models may cover different groups). ``ax``, ``name``, ``kind``,
        ``curve_kwargs`` and ``**kwargs`` go to :meth:`plot`."""
        func = "GroupScoreDisplay.from_group_scores"
        check_matplotlib(func)
        per_group = check_per_group(per_group, func)
        disp = cls(
            values={str(m): r.values[metric] for m, r in per_group.items()},
            group_ids={str(m): r.group_ids for m, r in per_group.items()},
            metric=metric,
            name=name,
        )
        return disp.plot(ax=ax, kind=kind, curve_kwargs=curve_kwargs, **kwargs)

    @classmethod
    @metric_keywords_doc
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
        curve_kwargs: Any = None,
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
            Deprecated in 0.1, removed in 0.3: pass the options as keywords.
        ax, name, kind, curve_kwargs, **kwargs
            {metric_keywords}

        Returns
        -------
        display : GroupScoreDisplay
        """
        _, options, scores, name = cls._inputs(
            y_score, name, metric_options, kwargs, metric
        )
        res = per_group(y_true, scores, groups, [metric], sample_weight, options)
        return cls.from_group_scores(
            res,
            metric=metric,
            ax=ax,
            name=name,
            kind=kind,
            curve_kwargs=curve_kwargs,
            **kwargs,
        )
