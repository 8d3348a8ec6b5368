"""Printing ``sklearn-rank eval`` results: trec_eval's layout, tables, CSV, JSON."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field

FORMATS = ("trec", "table", "markdown", "csv", "json")
# Measures trec_eval prints only in the summary ("all"), never per query.
SUMMARY_ONLY = ("runid", "num_q", "gm_map", "gm_bpref")
# The line before each run's block in --format trec with several runs.
RUN_LABEL = "# run: "


@dataclass
class RunResult:
    """The values of one run: ``summary[label]`` and ``per_query[qid][label]``."""

    name: str
    summary: dict[str, object]
    per_query: dict[str, dict[str, object]] = field(default_factory=dict)


def _trec_value(value: object) -> str:
    if type(value) is float:  # the common case first
        # 0.0 / 0.0 is -nan in C on x86-64 (sign bit set): trec_eval's bytes.
        return f"{value:6.4f}" if value == value else "  -nan"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return f"{value:6.4f}"  # trec_eval's "%6.4f"


def _spec(value: object) -> str:
    """The %-format of one printed value, as :func:`_trec_value` writes it."""
    if type(value) is float:
        return "%6.4f"
    return "%s" if isinstance(value, str | int) else "%6.4f"


def format_trec(
    results: list[RunResult], labels: list[str], summary: bool, prefix: str = ""
) -> str:
    """trec_eval's ``%-22s\\t%s\\t%6.4f`` lines: per query first, then ``all``.

    With several runs, each run's lines follow a line ``# run: NAME`` (one run:
    trec_eval's output exactly, no such line). ``prefix`` (``Z`` for ``-Z``) goes
    before each numeric measure's name, as trec_eval's ``Z%-22s``. Each query's
    lines are one %-format of a template built once per set of measures present
    (each measure's values come from one column, of one type), so that a million
    lines cost one format call per query.
    """

    def name(label: str, value: object) -> str:
        return label if isinstance(value, str) else f"{prefix}{label:<22}"

    parts = []
    printed = [label for label in labels if label not in SUMMARY_ONLY]
    for result in results:
        if len(results) > 1:
            parts.append(f"{RUN_LABEL}{result.name}\n")
        templates: dict[tuple, str] = {}
        for qid, values in result.per_query.items():
            present = tuple(label for label in printed if label in values)
            row = [values[label] for label in present]
            template = templates.get(present)
            if template is None:  # a measure's values share one type
                template = templates[present] = "".join(
                    f"{name(label, v):<22}\t%s\t{_spec(v)}\n"
                    for label, v in zip(present, row, strict=True)
                )
            args = [qid] * (2 * len(row))  # (qid, value) pairs, interleaved
            args[1::2] = row
            text = template % tuple(args)
            if "\t   nan\n" in text:  # C prints 0.0 / 0.0 as -nan (x86-64)
                text = text.replace("\t   nan\n", "\t  -nan\n")
            parts.append(text)
        if summary:
            for label in labels:
                value = result.summary[label]
                if value is None:  # per query only (relstring)
                    continue
                parts.append(f"{name(label, value):<22}\tall\t{_trec_value(value)}\n")
    return "".join(parts)


def unique_names(names: list[str], sources: list[str | None]) -> list[str]:
    """Run names made unique, so that no output drops or merges a run.

    A name that several runs share becomes the run's file path as given when the
    name is that file's name, and else gets its source (the path, or the score
    column) in parentheses; names still shared after that (the same file given
    twice) get ``#2``, ``#3``, ... in command-line order.

    Examples
    --------
    >>> from sklearn_rank._cli._output import unique_names
    >>> unique_names(["run", "run", "x"], ["a/run", "b/run", "x"])
    ['a/run', 'b/run', 'x']
    >>> unique_names(["STANDARD", "STANDARD"], ["a/r1", "b/r2"])
    ['STANDARD (a/r1)', 'STANDARD (b/r2)']
    >>> unique_names(["run", "run"], ["a/run", "a/run"])
    ['a/run', 'a/run #2']
    """
    counts = {n: names.count(n) for n in names}
    out = [
        n
        if counts[n] == 1 or s is None
        else s
        if os.path.basename(s) == n
        else f"{n} ({s})"
        for n, s in zip(names, sources, strict=True)
    ]
    seen: dict[str, int] = {}
    for i, name in enumerate(out):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            out[i] = f"{name} #{seen[name]}"
    return out


def _grid(
    results: list[RunResult], labels: list[str], summary: bool
) -> tuple[list[str], list[list[object]]]:
    """Rows of (query id, measure, one value per run); ``all`` rows last."""
    per_query = any(r.per_query for r in results)
    header = [*(["query"] if per_query else []), "measure", *(r.name for r in results)]
    rows: list[list[object]] = []
    if per_query:
        qids = sorted({q for r in results for q in r.per_query})
        for qid in qids:
            for label in labels:
                if label in SUMMARY_ONLY:
                    continue
                cells = [r.per_query.get(qid, {}).get(label) for r in results]
                rows.append([qid, label, *cells])
    if summary:
        for label in labels:
            cells = [r.summary[label] for r in results]
            rows.append([*(["all"] if per_query else []), label, *cells])
    return header, rows


def _text(value: object, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def format_table(
    results: list[RunResult], labels: list[str], summary: bool, digits: int
) -> str:
    """Aligned columns: text left, numbers right."""
    header, rows = _grid(results, labels, summary)
    n_text = len(header) - len(results)
    cells = [header, *([_text(v, digits) for v in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row):
        return "  ".join(
            c.ljust(w) if i < n_text else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in cells[1:])]) + "\n"


def format_markdown(
    results: list[RunResult], labels: list[str], summary: bool, digits: int
) -> str:
    """A GitHub-flavoured Markdown table."""
    header, rows = _grid(results, labels, summary)
    n_text = len(header) - len(results)
    align = ["---"] * n_text + ["---:"] * len(results)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    for row in rows:
        out.append("| " + " | ".join(_text(v, digits) for v in row) + " |")
    return "\n".join(out) + "\n"


def format_csv(results: list[RunResult], labels: list[str], summary: bool) -> str:
    """CSV with full precision (``repr`` of each float)."""
    header, rows = _grid(results, labels, summary)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(
            ["" if v is None else repr(v) if isinstance(v, float) else v for v in row]
        )
    return buffer.getvalue()


def _json_value(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN
    return value


def format_json(results: list[RunResult], labels: list[str], summary: bool) -> str:
    """``{"measures": [...], "runs": {name: {"all": {...}, "per_query": {...}}}}``."""
    runs = {}
    for result in results:
        entry: dict[str, object] = {}
        if summary:
            entry["all"] = {k: _json_value(result.summary[k]) for k in labels}
        if result.per_query:
            entry["per_query"] = {
                qid: {k: _json_value(v[k]) for k in labels if k not in SUMMARY_ONLY}
                for qid, v in result.per_query.items()
            }
        runs[result.name] = entry
    return json.dumps({"measures": labels, "runs": runs}, indent=2) + "\n"


def render(
    fmt: str,
    results: list[RunResult],
    labels: list[str],
    *,
    summary: bool = True,
    digits: int = 4,
    prefix: str = "",
) -> str:
    """The text to print for ``--format fmt``; ``prefix`` (``Z``) names z-scores."""
    if fmt == "trec":
        return format_trec(results, labels, summary, prefix)
    if prefix:  # other formats: the prefix is part of each numeric measure's name
        results, labels = _prefixed(results, labels, prefix)
    if fmt == "table":
        return format_table(results, labels, summary, digits)
    if fmt == "markdown":
        return format_markdown(results, labels, summary, digits)
    if fmt == "csv":
        return format_csv(results, labels, summary)
    return format_json(results, labels, summary)


def _prefixed(
    results: list[RunResult], labels: list[str], prefix: str
) -> tuple[list[RunResult], list[str]]:
    def name(label: str, value: object) -> str:
        return label if isinstance(value, str) else prefix + label

    first = results[0].summary
    new_labels = [name(label, first[label]) for label in labels]
    out = [
        RunResult(
            r.name,
            {name(k, v): v for k, v in r.summary.items()},
            {
                q: {name(k, v): v for k, v in row.items()}
                for q, row in r.per_query.items()
            },
        )
        for r in results
    ]
    return out, new_labels
