"""A comparison report as the table a paper prints (LaTeX booktabs, Markdown).

One row per model, one column per metric: the mean, the best mean of each
metric in bold, and superscript letters naming the models this one is
significantly better than (adjusted p-value <= alpha), as ranx's ``compare``
report marks them. With a baseline only the pairs against it are tested, so
marks name the baseline only. The caption names the test and the correction.
"""

from __future__ import annotations

import string
from typing import Any

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _greater_is_better(metric: str) -> bool:
    """From the registry where the name is a metric's; else True."""
    from .._metrics.validation import parse_metric

    try:
        return parse_metric(metric).spec.greater_is_better
    except (TypeError, ValueError):
        return True


def _cells(report: Any, digits: int):
    """(models, metrics, letters, {(model, metric): (text, bold, marks)})."""
    metrics = list(dict.fromkeys(m.metric for m in report.models))
    models = list(dict.fromkeys(m.model for m in report.models))
    letters = {
        model: string.ascii_lowercase[i % 26] * (1 + i // 26)
        for i, model in enumerate(models)
    }
    means = {(m.model, m.metric): m.mean for m in report.models}
    marks: dict[tuple[str, str], list[str]] = {}
    for p in report.pairs:
        if not p.p_adjusted <= report.alpha:  # NaN never marks
            continue
        better = p.mean_diff > 0 if _greater_is_better(p.metric) else p.mean_diff < 0
        winner, loser = (p.model, p.baseline) if better else (p.baseline, p.model)
        if p.mean_diff != 0:
            marks.setdefault((winner, p.metric), []).append(letters[loser])
    out = {}
    for metric in metrics:
        values = [means[(m, metric)] for m in models if (m, metric) in means]
        finite = [v for v in values if v == v]
        best = None
        if finite:
            best = max(finite) if _greater_is_better(metric) else min(finite)
        for model in models:
            value = means.get((model, metric), float("nan"))
            text = "--" if value != value else f"{value:.{digits}f}"
            bold = best is not None and round(value, digits) == round(best, digits)
            order = sorted(marks.get((model, metric), []), key=models_order(letters))
            out[(model, metric)] = (text, bold, "".join(order))
    return models, metrics, letters, out


def models_order(letters: dict[str, str]):
    rank = {letter: i for i, letter in enumerate(letters.values())}
    return lambda letter: rank[letter]


def _caption(report: Any) -> str:
    correction = {"none": "no correction"}.get(
        report.correction, f"{report.correction} correction"
    )
    baselines = {p.baseline for p in report.pairs}
    models = {m.model for m in report.models}
    against = ""
    if len(baselines) == 1 and len(models) > 2:
        against = f", against the baseline {next(iter(baselines))} only"
    return (
        f"Mean over queries; best per metric in bold. Superscript letters mark "
        f"the systems a system is significantly better than{against} (paired "
        f"{report.test} test, {report.alternative}, {correction} over "
        f"{report.family}, adjusted p <= {report.alpha:g})."
    )


# How each format writes a bold value and superscript marks.
_LATEX = (r"\textbf{{{}}}", r"$^{{{}}}$")
_MARKDOWN = ("**{}**", "<sup>{}</sup>")


def _rows(models, metrics, letters, cells, escape, styles):
    """The cells of each model's row: letter, name, then one per metric."""
    bold_style, mark_style = styles
    for model in models:
        row = [letters[model], escape(model)]
        for metric in metrics:
            text, bold, marks = cells[(model, metric)]
            text = bold_style.format(text) if bold else text
            row.append(text + (mark_style.format(marks) if marks else ""))
        yield row


def to_latex(report: Any, *, digits: int = 4, caption: str | None = None) -> str:
    """The report as a LaTeX ``table`` with booktabs rules (needs
    ``\\usepackage{booktabs}``)."""
    models, metrics, letters, cells = _cells(report, digits)
    caption = _caption(report) if caption is None else caption
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{_latex_escape(caption)}}}",
        r"\begin{tabular}{cl" + "r" * len(metrics) + "}",
        r"\toprule",
        " & ".join(["\\#", "Model", *(_latex_escape(m) for m in metrics)]) + r" \\",
        r"\midrule",
    ]
    for row in _rows(models, metrics, letters, cells, _latex_escape, _LATEX):
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(report: Any, *, digits: int = 4, caption: str | None = None) -> str:
    """The report as a Markdown (GitHub) table with the caption under it."""
    models, metrics, letters, cells = _cells(report, digits)
    caption = _caption(report) if caption is None else caption

    def md(text: str) -> str:
        return text.replace("|", r"\|")

    lines = [
        "| # | Model | " + " | ".join(md(m) for m in metrics) + " |",
        "|---|---|" + "---:|" * len(metrics),
    ]
    for row in _rows(models, metrics, letters, cells, md, _MARKDOWN):
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + f"\n\n{caption}\n"


__all__ = ["to_latex", "to_markdown"]
