"""What every display shares: the lazy matplotlib import, the axes, the models.

matplotlib is imported only when a display draws (scikit-learn's displays do the
same), so computing a display's data needs no matplotlib, and ``import
sklearn_rank`` never loads it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine.conventions import OPTIONS, take_options
from .._metrics.validation import check_lengths, check_numeric
from .._utils.params import param_error
from ._layout import (
    finish,
    outside_legend,
)

PLOT_EXTRA = 'pip install "sklearn-rank[plot]"'


def check_matplotlib(func: str) -> None:
    """Raise an ImportError naming the extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{func} draws with matplotlib, which is not installed. Install it "
            f"with the plot extra: {PLOT_EXTRA}"
        ) from None


def get_axes(ax: Any, func: str):
    """The axes to draw on and its figure: ``ax``, or a new figure's axes."""
    check_matplotlib(func)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    elif not hasattr(ax, "plot") or not hasattr(ax, "figure"):
        raise param_error("ax", func, "a matplotlib Axes or None", type(ax).__name__)
    return ax, ax.figure


def model_scores(
    y_score: Any, func: str, *, name: str | None = None, n_rows: int | None = None
) -> dict[str, np.ndarray]:
    """Model name -> 1-D scores, from one array or a mapping of them (a DataFrame
    gives one model per column). Every model has the same number of rows."""
    if isinstance(y_score, Mapping) or (
        hasattr(y_score, "items") and hasattr(y_score, "columns")
    ):
        scores = {str(k): v for k, v in y_score.items()}
        if not scores:
            raise param_error(
                "y_score", func, "an array of scores or a non-empty mapping", {}
            )
    else:
        scores = {name if name is not None else "model": y_score}
    out = {m: check_numeric(s, f"y_score[{m!r}]", func) for m, s in scores.items()}
    lengths = {f"y_score[{m!r}]": s for m, s in out.items()}
    if n_rows is not None:
        lengths = {"y_true": np.empty(n_rows), **lengths}
    check_lengths(func, **lengths)
    return out


RESPONSE_METHODS = ("decision_function", "predict_proba", "predict")


def estimator_scores(
    estimator: Any, X: Any, response_method: Any, func: str
) -> dict[str, np.ndarray]:
    """Model name -> scores of one fitted estimator or a mapping of them.
    ``response_method="auto"`` is scikit-learn's order: decision_function,
    predict_proba, predict."""
    from .._sklearn.scorer import ranking_scores  # imports scikit-learn: only here

    check_matplotlib(func)  # before any scoring
    if isinstance(response_method, str) and response_method == "auto":
        response_method = RESPONSE_METHODS

    if isinstance(estimator, Mapping):
        if not estimator:
            raise param_error(
                "estimator", func, "a fitted estimator or a non-empty mapping", {}
            )
        models = {str(k): v for k, v in estimator.items()}
    else:
        models = {type(estimator).__name__: estimator}
    return {m: ranking_scores(e, X, response_method, func) for m, e in models.items()}


def check_names(name: Any, models: list[str], func: str) -> list[str]:
    """Legend names: None keeps the model names; a str names a single model; a
    list names each model."""
    if name is None:
        return list(models)
    if isinstance(name, str):
        if len(models) != 1:
            raise param_error(
                "name", func, f"a list of {len(models)} names or None", name
            )
        return [name]
    names = list(name)
    if len(names) != len(models) or not all(isinstance(n, str) for n in names):
        raise param_error(
            "name", func, f"None, a str or a list of {len(models)} str", name
        )
    return names


# Keywords of ``evaluate`` beside the conventions that a display passes on.
_ROW_KEYWORDS = ("retrieved", "judged", "in_pool")


def metric_keywords_doc(func: Any) -> Any:
    """Fill ``{metric_keywords}`` in a ``from_predictions`` docstring with the
    keywords that go to the metric, listed from the option table."""
    import textwrap

    names = ", ".join(f"``{n}``" for n in ("convention", *_ROW_KEYWORDS, *OPTIONS))
    text = textwrap.fill(
        f"Passed to :meth:`plot`, except {names}: as in "
        ":func:`sklearn_rank.evaluate`, they set the metric.",
        width=72,
    )
    func.__doc__ = func.__doc__.replace(
        "{metric_keywords}", text.replace("\n", "\n            ")
    )
    return func


def check_options(
    metric_options: Any, func: str, kwargs: dict[str, Any], stacklevel: int = 3
) -> dict[str, Any]:
    """The metric's keywords of a ``from_predictions`` call.

    ``convention``, the convention keywords of ``evaluate`` and the row masks
    are taken out of ``kwargs`` (the rest goes to :meth:`plot`). The old
    ``metric_options`` dict still works, with a ``FutureWarning``.
    """
    options = take_options(kwargs, _ROW_KEYWORDS)
    if metric_options is None:
        return options
    warnings.warn(
        "'metric_options' was deprecated in 0.1 and will be removed in 0.3; "
        "pass the options as keywords",
        FutureWarning,
        stacklevel=stacklevel,
    )
    if not isinstance(metric_options, Mapping):
        raise param_error(
            "metric_options",
            func,
            "a dict of evaluate keywords or None",
            type(metric_options).__name__,
        )
    twice = sorted(set(metric_options) & set(options))
    if twice:
        raise param_error(
            "metric_options", func, "no keyword also passed directly", twice
        )
    return {**metric_options, **options}


def per_group(
    y_true: Any,
    scores: dict[str, np.ndarray],
    groups: Any,
    metrics: list[str],
    sample_weight: Any,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Model name -> :class:`~sklearn_rank.GroupScores` (NaN where undefined);
    ``undefined`` is not an option here (the displays show undefined groups).
    Several models share the labels: checked and encoded once (``prepare``)."""
    from .._metrics.prepared import evaluate_models
    from .._utils.array_api import on_host

    options = {k: v for k, v in options.items() if k != "undefined"}
    # Displays draw from numpy: array API inputs are read on the host.
    with on_host(y_true, groups, sample_weight, *scores.values(), *options.values()):
        return evaluate_models(
            y_true,
            scores,
            groups=groups,
            metrics=metrics,
            per_group=True,
            sample_weight=sample_weight,
            **options,
        )


def check_metric_name(metric: Any, func: str) -> str:
    """One metric name with a per-group value (``"ndcg@10"``, not ``"auc"``)."""
    from .._metrics.validation import check_metrics

    if not isinstance(metric, str):
        raise param_error("metric", func, "a metric name such as 'ndcg@10'", metric)
    check_metrics([metric], func, per_group=True)
    return metric


# --- drawing helpers shared by the displays ---------------------------------

_PALETTE = "_sklearn_rank_colors"


def model_colors(fig: Any, models: list[str]) -> dict[str, Any]:
    """One colour per model name for the whole figure: a model keeps the colour
    it got in the first display drawn on the figure; a new model takes the next
    colour of the style's cycle not yet used there."""
    import matplotlib as mpl

    store = fig.__dict__.setdefault(_PALETTE, {})
    cycle = [c["color"] for c in mpl.rcParams["axes.prop_cycle"] if "color" in c] or [
        f"C{i}" for i in range(10)
    ]
    for m in models:
        if m not in store:
            used = set(store.values())
            free = [c for c in cycle if c not in used]
            store[m] = free[0] if free else cycle[len(store) % len(cycle)]
    return {m: store[m] for m in models}


def check_curve_kwargs(
    curve_kwargs: Any, models: list[str], func: str
) -> list[dict[str, Any]]:
    """Per-model style keywords: one dict for every model, a list of dicts (one
    per model) or a mapping model name -> dict."""
    if curve_kwargs is None:
        return [{} for _ in models]
    if isinstance(curve_kwargs, Mapping):
        if curve_kwargs and all(isinstance(v, Mapping) for v in curve_kwargs.values()):
            unknown = [k for k in curve_kwargs if k not in models]
            if unknown:
                raise param_error(
                    "curve_kwargs", func, f"a mapping with keys among {models}", unknown
                )
            return [dict(curve_kwargs.get(m, {})) for m in models]
        return [dict(curve_kwargs) for _ in models]
    items = list(curve_kwargs)
    if len(items) != len(models) or not all(isinstance(d, Mapping) for d in items):
        raise param_error(
            "curve_kwargs",
            func,
            f"None, a dict, a list of {len(models)} dicts or a mapping model -> dict",
            curve_kwargs,
        )
    return [dict(d) for d in items]


def model_styles(
    fig: Any,
    models: list[str],
    labels: list[str],
    curve_kwargs: Any,
    kwargs: dict[str, Any],
    func: str,
    defaults: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Style of each model: the defaults, the model's colour (from
    :func:`model_colors`), ``**kwargs`` for every model, then its own
    ``curve_kwargs``; the label is the model's name."""
    if "label" in kwargs:
        raise param_error(
            "label",
            func,
            "not given: the legend names are the model names; rename them with name=",
            kwargs["label"],
        )
    if len(models) > 1 and ("color" in kwargs or "c" in kwargs):
        warnings.warn(
            f"{func}: a color for every model draws them alike and the legend "
            "cannot tell them apart; pass per-model colors with curve_kwargs.",
            UserWarning,
            stacklevel=3,
        )
    colors = model_colors(fig, models)
    own = check_curve_kwargs(curve_kwargs, models, func)
    return [
        {**(defaults or {}), "color": colors[m], **kwargs, **own[i], "label": labels[i]}
        for i, m in enumerate(models)
    ]


def new_axes(ax: Any, func: str, figsize: Any = None):
    """The axes and figure to draw on; a new figure uses constrained layout."""
    check_matplotlib(func)
    if ax is None:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax, fig
    return get_axes(ax, func)


def check_values(
    name: str, values: Any, size: int, func: str, models: Any = None
) -> None:
    """Every array of a mapping has ``size`` entries (and, given ``models``,
    the mapping has exactly those models)."""
    if values is None:
        return
    if models is not None and set(values) != set(models):
        raise param_error(
            name, func, f"a mapping with the models {list(models)}", list(values)
        )
    for m, v in values.items():
        n = np.asarray(v).shape[0] if np.ndim(v) else -1
        if n != size:
            raise ValueError(
                f"{func}: {name}[{m!r}] has {n} entries where {size} are needed; "
                f"give one per entry of the display's axis."
            )


def external_stacklevel() -> int:
    """The ``stacklevel`` of a warning raised here that points at the first
    caller outside the plot package (the user's line)."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        here
    ):
        frame, level = frame.f_back, level + 1
    return level


def check_per_group(per_group: Any, func: str, at_least: int = 1) -> dict[str, Any]:
    """Model name -> GroupScores, at least ``at_least`` models."""
    if not isinstance(per_group, Mapping) or len(per_group) < at_least:
        what = (
            "a non-empty mapping model -> GroupScores"
            if at_least == 1
            else f"a mapping of at least {at_least} models -> GroupScores"
        )
        raise param_error(
            "per_group",
            func,
            what,
            type(per_group).__name__,
        )
    return {str(m): v for m, v in per_group.items()}


def _estimator_doc(cls: Any) -> str:
    import inspect

    rest = [
        p
        for p in list(inspect.signature(cls.from_predictions).parameters)[2:]
        if p not in ("groups", "kwargs")
    ]
    return f"""Score ``X`` with a fitted estimator (or a mapping name -> estimator),
        then :meth:`from_predictions`.

        Parameters
        ----------
        estimator : estimator or mapping of str to estimator
            Fitted; a single one is named by its class.
        X : array-like
            The rows to score.
        y : array-like of shape (n_samples,)
            Relevance labels of the rows.
        groups : array-like of shape (n_samples,)
            Group ids of the rows.
        response_method : "auto", str or tuple of str, default="auto"
            The estimator's methods tried in order; "auto" is
            ``("decision_function", "predict_proba", "predict")``.
        {", ".join(rest)}, **kwargs
            As in :meth:`from_predictions`.

        Returns
        -------
        display : {cls.__name__}
        """


def _estimator_signature(cls: Any):
    """``from_predictions``' signature with the estimator's first arguments."""
    import inspect

    sig = inspect.signature(cls.from_predictions)
    params = list(sig.parameters.values())
    P = inspect.Parameter
    head = [
        P("cls", P.POSITIONAL_OR_KEYWORD),
        P("estimator", P.POSITIONAL_OR_KEYWORD),
        P("X", P.POSITIONAL_OR_KEYWORD),
        P("y", P.POSITIONAL_OR_KEYWORD),
    ]
    rest = [p for p in params[2:]]
    at = next(i for i, p in enumerate(rest) if p.name == "groups") + 1
    method = P("response_method", P.KEYWORD_ONLY, default="auto")
    return sig.replace(parameters=[*head, *rest[:at], method, *rest[at:]])


_PLOT_DOC = """Draw every model on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure (constrained layout). A
            figure without a layout engine gets constrained layout.
        name : str or list of str, default=None
            Legend names, one per model; None uses the names given to the
            constructor, else the model names (kept for the next plot).
        curve_kwargs : dict, list of dict or mapping of str to dict, default=None
            Keywords of :meth:`matplotlib.axes.Axes.{artist}` per model (one
            dict for all, one per model, or model name -> dict).
        **kwargs
            Keywords of :meth:`matplotlib.axes.Axes.{artist}` for every model
            (``label`` is refused: use ``name``).

        Returns
        -------
        display : {cls}
        """


class DisplayMixin:
    """What every display shares (scikit-learn keeps the same in
    ``sklearn.utils._plotting``): the axes and legend names of :meth:`plot`,
    the models' styles and colours, the legend placed by the layout rules, and
    ``from_estimator``, which scores ``X`` and hands over to the display's own
    ``from_predictions`` (its signature and docstring are derived from it)."""

    name: Any = None
    # made per display by __init_subclass__ (plot, from_estimator) or written by
    # the display itself (from_predictions): declared for the type checker
    plot: Any
    from_estimator: Any
    from_predictions: Any
    # the Axes method that draws each model (named in plot's docstring)
    _artist = "plot"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "from_predictions" in cls.__dict__ and "from_estimator" not in cls.__dict__:

            def from_estimator(
                cls, estimator, X, y, *, groups, response_method="auto", **kw
            ):
                func = f"{cls.__name__}.from_estimator"
                scores = estimator_scores(estimator, X, response_method, func)
                return cls.from_predictions(y, scores, groups=groups, **kw)

            from_estimator.__doc__ = _estimator_doc(cls)
            from_estimator.__signature__ = _estimator_signature(cls)  # type: ignore[attr-defined]
            from_estimator.__qualname__ = f"{cls.__name__}.from_estimator"
            from_estimator.__module__ = cls.__module__
            cls.from_estimator = classmethod(from_estimator)
        if "_draw" in cls.__dict__ and "plot" not in cls.__dict__:

            def plot(self, ax=None, *, name=None, curve_kwargs=None, **kwargs):
                ax, _, names = self._start(ax, name, list(self._models()))
                self._draw(ax, names, curve_kwargs, kwargs)
                return self

            plot.__doc__ = _PLOT_DOC.format(artist=cls._artist, cls=cls.__name__)
            plot.__qualname__ = f"{cls.__name__}.plot"
            plot.__module__ = cls.__module__
            cls.plot = plot

    def _start(self, ax: Any, name: Any, models: list[str]):
        """The axes, the figure and the legend names of :meth:`plot` (a name
        given here is kept for the next plot)."""
        func = f"{type(self).__name__}.plot"
        ax, fig = new_axes(ax, func)
        name = self.name if name is None else name
        names = check_names(name, models, func)
        self.name = name
        self.ax_, self.figure_ = ax, fig
        return ax, fig, names

    def _styles(
        self,
        models: list[str],
        labels: list[str],
        curve_kwargs: Any,
        kwargs: dict[str, Any],
        defaults: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Each model's style keywords (see :func:`model_styles`)."""
        func = f"{type(self).__name__}.plot"
        return model_styles(
            self.figure_, models, labels, curve_kwargs, kwargs, func, defaults
        )

    def _legend(
        self, ax: Any, handles=None, labels=None, *, heading=None, title=None
    ) -> Any:
        """The legend beside the axes, fitted by the layout rules of
        :func:`finish` (with the axes' ``title``, wrapped to fit)."""
        legend = outside_legend(ax, handles, labels, title=heading)
        self.legend_ = finish(ax, legend, title)
        return self.legend_

    @staticmethod
    def _scores(y_score: Any, name: Any, func: str) -> tuple[dict, Any]:
        """The models' scores, and the legend names left for :meth:`plot` (a
        single str names the one model's scores)."""
        single = name if isinstance(name, str) else None
        scores = model_scores(y_score, func, name=single)
        return scores, None if single is not None else name

    @classmethod
    def _inputs(
        cls,
        y_score: Any,
        name: Any,
        metric_options: Any,
        kwargs: dict[str, Any],
        metric: Any = None,
    ) -> tuple[str, dict, dict, Any]:
        """``from_predictions``' checks before any work: matplotlib, the
        metric (when given), the options, then the scores. Returns the
        function's name, the options, the scores and the names left."""
        func = f"{cls.__name__}.from_predictions"
        check_matplotlib(func)
        if metric is not None:
            check_metric_name(metric, func)
        options = check_options(metric_options, func, kwargs, stacklevel=4)
        return (func, options, *cls._scores(y_score, name, func))
