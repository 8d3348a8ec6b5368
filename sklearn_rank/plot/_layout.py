"""The layout rules every display follows, measured after a draw without
rendering: legends beside the axes (below it in a figure of several axes),
titles, labels and tick labels wrapped, rotated or cut (kept distinct) until
no two texts overlap and none leaves the figure; a figure without a layout
engine gets constrained layout. Imports matplotlib only inside the functions
(they run when a display draws)."""

from __future__ import annotations

from typing import Any


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
    collapsed an axes (its warning is kept from the user: this is a trial).
    A figure unchanged since its last trial draw (matplotlib's ``stale`` flag,
    cleared by a draw, set by any change of an artist) is not drawn again: its
    extents are those measured, and a draw is most of a display's time."""
    import warnings

    last = getattr(fig, "_sklearn_rank_draw_ok", None)
    if last is not None and not fig.stale:
        return last
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.draw_without_rendering()
    ok = not any("collapsed" in str(w.message) for w in caught)
    fig._sklearn_rank_draw_ok = ok
    return ok


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
