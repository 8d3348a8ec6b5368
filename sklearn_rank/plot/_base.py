"""What every display shares: the lazy matplotlib import, the axes, the models.

matplotlib is imported only when a display draws (scikit-learn's displays do the
same), so computing a display's data needs no matplotlib, and ``import
sklearn_rank`` never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._metrics.validation import check_lengths, check_numeric
from .._utils.params import param_error

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


def check_options(metric_options: Any, func: str) -> dict[str, Any]:
    if metric_options is None:
        return {}
    if not isinstance(metric_options, Mapping):
        raise param_error(
            "metric_options",
            func,
            "a dict of evaluate keywords or None",
            type(metric_options).__name__,
        )
    return dict(metric_options)


def per_group(
    y_true: Any,
    scores: dict[str, np.ndarray],
    groups: Any,
    metrics: list[str],
    sample_weight: Any,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Model name -> :class:`~sklearn_rank.GroupScores` (NaN where undefined);
    ``undefined`` is not an option here (the displays show undefined groups)."""
    from .._metrics.evaluate import evaluate_per_group
    from .._utils.array_api import on_host

    options = {k: v for k, v in options.items() if k != "undefined"}
    # Displays draw from numpy: array API inputs are read on the host.
    with on_host(y_true, groups, sample_weight, *scores.values(), *options.values()):
        return {
            model: evaluate_per_group(
                y_true,
                score,
                groups=groups,
                metrics=metrics,
                sample_weight=sample_weight,
                **options,
            )
            for model, score in scores.items()
        }


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
    import warnings

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


def outside_legend(
    ax: Any, handles=None, labels=None, *, fontsize="small", chars=None, **kw
):
    """The legend beside the axes (right, outside): it covers no data, and
    constrained layout makes room for it."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    fig = ax.figure
    if chars is None:
        width_in = ax.get_position().width * fig.get_figwidth()
        chars = max(14, int(width_in * 5.0))
    labels = [wrap(" ".join(str(t).split()), chars) for t in labels]
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0.0,
        fontsize=fontsize,
        **kw,
    )


def quiet_draw(fig: Any) -> bool:
    """Draw without rendering, to measure; True unless constrained layout
    collapsed an axes (its warning is kept from the user: this is a trial)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.draw_without_rendering()
    return not any("collapsed" in str(w.message) for w in caught)


def _draw_fits(ax: Any, legend: Any) -> bool:
    """Whether, drawn, the legend stays in the figure and leaves the axes a
    fair share of its column (constrained layout not collapsed)."""
    fig = ax.figure
    if not quiet_draw(fig):
        return False
    if legend is None:
        return True
    b, fb = legend.get_window_extent(), fig.bbox
    inside = (
        b.x0 >= fb.x0 - 1
        and b.x1 <= fb.x1 + 1
        and b.y0 >= fb.y0 - 1
        and b.y1 <= fb.y1 + 1
    )
    return inside and roomy(ax)


def _fits_at_a_glance(ax: Any, legend: Any) -> bool:
    """Whether the legend, measured alone (its text extents: no draw of the
    figure), is so small beside the only axes of its figure that constrained
    layout leaves it inside the figure and the axes roomy: then the trial draw
    of :func:`_draw_fits` (most of a display's drawing time) is skipped."""
    fig = ax.figure
    get_renderer = getattr(fig.canvas, "get_renderer", None)
    if get_renderer is None or len(fig.axes) != 1:
        return False
    box, fb = legend.get_window_extent(get_renderer()), fig.bbox
    return box.width <= 0.3 * fb.width and box.height <= 0.6 * fb.height


def _in_figure(ax: Any, legend: Any) -> bool:
    """Whether the legend, measured alone (its extents, no draw), lies within
    the figure."""
    fig = ax.figure
    get_renderer = getattr(fig.canvas, "get_renderer", None)
    if get_renderer is None:
        return True  # nothing to measure with: as laid out
    b, fb = legend.get_window_extent(get_renderer()), fig.bbox
    return (
        b.x0 >= fb.x0 - 1
        and b.x1 <= fb.x1 + 1
        and b.y0 >= fb.y0 - 1
        and b.y1 <= fb.y1 + 1
    )


def _inside_legend(ax: Any, legend: Any) -> Any:
    """The same entries as ``legend``, inside the axes where they cover least."""
    handles, labels, heading = _entries(legend)
    legend.remove()
    return ax.legend(handles, labels, title=heading, loc="best", fontsize="small")


def _entries(legend: Any) -> tuple[list, list[str], str | None]:
    """A legend's handles, label texts and title (None if empty)."""
    handles = list(getattr(legend, "legend_handles", None) or legend.legendHandles)
    labels = [t.get_text() for t in legend.get_texts()]
    return handles, labels, legend.get_title().get_text() or None


def roomy(ax: Any) -> bool:
    """Whether the axes keeps at least 30% of its cell of the figure in each
    direction (its decorations did not squeeze it)."""
    fb = ax.figure.bbox
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    rows, columns = spec.get_gridspec().get_geometry() if spec is not None else (1, 1)
    box = ax.get_window_extent()
    return (
        box.width >= 0.3 * fb.width / columns and box.height >= 0.3 * fb.height / rows
    )


def finish(ax: Any, legend: Any, title: str | None = None) -> Any:
    """Make the legend fit (beside the axes; else smaller; else, when the
    axes has its figure alone, below it as the figure's legend) and wrap the
    title to the axes' final width. Returns the legend drawn."""
    fig = ax.figure
    if fig.get_layout_engine() is None:
        # The user's figure (plt.subplots without a layout): nothing would make
        # room for the decorations, and they would cover the next axes or leave
        # the figure. Constrained layout is matplotlib's own way to make room.
        fig.set_layout_engine("constrained")
    if title is not None:
        fit_title(ax, title)
    if legend is not None and len(fig.axes) > 1:
        # A figure of several axes: the legend goes below its own axes, where
        # it covers neither data nor a neighbour, whatever the others draw.
        legend = legend_below(ax, legend)
        if title is not None:
            fit_title(ax, title)
        fit_ylabel(ax)
        return legend
    managed = fig.get_layout_engine() is not None
    fits = (
        not managed
        or legend is None
        or _fits_at_a_glance(ax, legend)
        or _draw_fits(ax, legend)
    )
    if not managed and legend is not None and not _in_figure(ax, legend):
        # The user's figure makes no room beside the axes: the legend would be
        # cut at the figure's edge, so it goes inside the axes instead.
        legend = _inside_legend(ax, legend)
    if not fits:
        handles, labels, heading = _entries(legend)
        labels = [t.replace("\n", " ") for t in labels]
        legend.remove()
        legend = outside_legend(
            ax, handles, labels, title=heading, fontsize="x-small", chars=14
        )
        if not _draw_fits(ax, legend) and len(fig.axes) == 1:
            legend.remove()
            # one line per entry (cut with an ellipsis): a small figure
            legend = fig.legend(
                handles,
                shorten_distinct(labels, 24),
                title=heading,
                loc="outside lower center",
                ncols=min(2, len(labels)),
                fontsize="x-small",
            )
    if title is not None:
        fit_title(ax, title)
    return legend


def fit_ylabel(ax: Any) -> None:
    """Rewrap the y label onto more lines while it is taller than 60% of its
    axes (a small axes in a grid, whose height the displays drawn later on the
    other axes may still reduce), measured after a draw without rendering."""
    label = ax.yaxis.label
    text = " ".join(label.get_text().split())
    for lines in (2, 3):
        quiet_draw(ax.figure)
        if label.get_window_extent().height <= 0.6 * ax.get_window_extent().height:
            return
        label.set_text(wrap(text, max(8, len(text) // lines + 1)))


def legend_below(ax: Any, legend: Any) -> Any:
    """The legend's entries below the axes' x labels, in a small font, each on
    one line of the axes' width (two with at most two entries), cut beyond and
    kept distinct."""
    from matplotlib.font_manager import FontProperties

    handles, labels, heading = _entries(legend)
    legend.remove()
    fig = ax.figure
    quiet_draw(fig)  # measure the x axis' ticks and label as drawn
    box = ax.get_window_extent()
    under = max(0.0, box.y0 - ax.xaxis.get_tightbbox().y0)
    size = FontProperties(size="x-small").get_size_in_points()
    chars = max(12, int(box.width * 72 / fig.dpi / (0.55 * size)) - 5)
    # one line an entry (two for one or two entries), cut where longer and
    # kept distinct: the legend's height stays that of a few lines of text
    lines = 2 if len(labels) <= 2 else 1
    labels = [wrap(t, chars) for t in _cut_names(labels, lines * chars)]
    return ax.legend(
        handles,
        labels,
        title=heading,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        # the pad is in font sizes: the x axis' decorations plus a little
        borderaxespad=under * 72 / fig.dpi / size + 0.4,
        fontsize="x-small",
        title_fontsize="x-small",
    )


def _cut_names(labels: list[str], width: int) -> list[str]:
    """Each label in at most ``width`` characters, kept distinct. Where every
    label ends in figures (what follows its first ": ", as the paired
    display's wins, ties and losses, or a closing parenthesis, as "(11-pt AP
    0.884)"), those are kept whole and the names before them are cut."""
    import re

    flat = [" ".join(t.split()) for t in labels]
    parts = [re.match(r"^(.+?)(: .*| \([^()]*\))?$", t).groups("") for t in flat]
    heads, tails = [h for h, _ in parts], [t for _, t in parts]
    if not all(tails):  # figures only where the display gave every entry some
        heads, tails = flat, [""] * len(flat)
    pairs = list(zip(heads, tails, strict=True))
    out = [shorten(h, max(12, width - len(t))) + t for h, t in pairs]
    if len(set(out)) == len(set(flat)):
        return out
    room = max(12, width - max(len(t) for t in tails))
    return [h + t for h, t in zip(shorten_distinct(heads, room), tails, strict=True)]


def wrap(text: str, width: int) -> str:
    """``text`` wrapped at ``width`` characters, line by line."""
    import textwrap

    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False)
        if line
        else line
        for line in text.split("\n")
    )


def fit_title(ax: Any, text: str, fontsize: str = "medium") -> Any:
    """Set the title, wrapped so that it is no wider than its axes (measured
    after a draw without rendering, rewrapped narrower until it fits)."""
    fig = ax.figure
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size=fontsize).get_size_in_points() * fig.dpi / 72
    width = ax.get_position().width * fig.get_figwidth() * fig.dpi
    chars = max(16, int(width / (0.55 * size)))
    title = ax.set_title(wrap(text, chars), fontsize=fontsize)
    for _ in range(8):
        quiet_draw(fig)
        if title.get_text().count("\n") >= 3 and title.get_fontsize() > 9:
            title.set_fontsize("small")  # a long title: a smaller font first
        box, own = ax.get_window_extent(), title.get_window_extent()
        if own.width <= max(box.width, 1.0) or chars <= 16:
            break
        chars = max(16, int(chars * box.width / own.width * 0.95))
        title.set_text(wrap(text, chars))
        if title.get_text().count("\n") >= 3 and title.get_fontsize() > 9:
            title.set_fontsize("small")
    return title


def shorten(text: str, width: int = 22) -> str:
    """One line of at most ``width`` characters (an ellipsis where cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def fit_ticklabels(ax: Any, short: list[str]) -> None:
    """Make the x tick labels fit: as set; else rotated 30 degrees; else the
    one-line ``short`` labels rotated 90 degrees; else those in a smaller
    font. Checked after a draw without rendering."""
    fig = ax.figure
    managed = fig.get_layout_engine() is not None

    def clash() -> bool:
        quiet_draw(fig)
        boxes = [t.get_window_extent() for t in ax.get_xticklabels()]
        fb = fig.bbox
        outside = managed and any(
            b.x0 < fb.x0 or b.x1 > fb.x1 or b.y0 < fb.y0 for b in boxes
        )
        return outside or any(
            a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
        )

    if not clash():
        return
    ax.tick_params(axis="x", labelrotation=30)
    for t in ax.get_xticklabels():
        t.set_ha("right")
        t.set_rotation_mode("anchor")
    if not clash() and (roomy(ax) or not managed):
        return
    ax.set_xticks(ax.get_xticks(), short)
    ax.tick_params(axis="x", labelrotation=90)
    for t in ax.get_xticklabels():
        t.set_ha("center")
        t.set_rotation_mode("default")
    if not clash() and (roomy(ax) or not managed):
        return
    ax.set_xticks(ax.get_xticks(), shorten_distinct(short, 14))
    ax.tick_params(axis="x", labelsize="x-small")


def drop_overlaps(texts: list, ax: Any) -> list:
    """Remove each text that overlaps an earlier one or leaves the axes (after a
    draw without rendering); return the texts kept."""
    fig = ax.figure
    quiet_draw(fig)
    box = ax.get_window_extent()
    kept: list[Any] = []
    boxes: list[Any] = []
    for t in texts:
        b = t.get_window_extent()
        inside = (
            b.x0 >= box.x0 - 0.5
            and b.x1 <= box.x1 + 0.5
            and b.y0 >= box.y0 - 0.5
            and b.y1 <= box.y1 + 0.5
        )
        if not inside or any(b.overlaps(o) for o in boxes):
            t.remove()
            continue
        kept.append(t)
        boxes.append(b)
    return kept


def texts_fit(texts: list, ax: Any) -> bool:
    """Whether the texts (measured as last drawn) stay within the axes' width
    and below its top, and overlap no other."""
    box = ax.get_window_extent()
    boxes = [t.get_window_extent() for t in texts]
    out = any(b.x0 < box.x0 or b.x1 > box.x1 or b.y1 > box.y1 for b in boxes)
    return not out and not any(
        a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
    )


def shorten_distinct(texts: list[str], width: int) -> list[str]:
    """Each text on one line of at most ``width`` characters; where cutting the
    end would make two texts alike, the middle is cut instead (start and end
    kept), so that distinct texts stay distinct when that is possible."""
    short = [shorten(t, width) for t in texts]
    if len(set(short)) == len(set(texts)):
        return short
    head = (width - 1) // 2
    tail = width - 1 - head
    middle = [
        t if len(t) <= width else f"{t[:head]}\u2026{t[len(t) - tail :]}"
        for t in (" ".join(str(t).split()) for t in texts)
    ]
    if len(set(middle)) == len(set(texts)):
        return middle
    # the same start and end: number them (their order is the drawing order)
    return [f"{i + 1}. {shorten(t, width - 4)}" for i, t in enumerate(texts)]


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


def _estimator_doc(cls: type) -> str:
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


def _estimator_signature(cls: type):
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
            from_estimator.__signature__ = _estimator_signature(cls)
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
        cls, y_score: Any, name: Any, metric_options: Any, metric: Any = None
    ) -> tuple[str, dict, dict, Any]:
        """``from_predictions``' checks before any work: matplotlib, the
        metric (when given), the options, then the scores. Returns the
        function's name, the options, the scores and the names left."""
        func = f"{cls.__name__}.from_predictions"
        check_matplotlib(func)
        if metric is not None:
            check_metric_name(metric, func)
        options = check_options(metric_options, func)
        return (func, options, *cls._scores(y_score, name, func))
