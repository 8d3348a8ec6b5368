"""``sklearn-rank eval``: trec_eval's job from TREC files or tables.

Inputs (see docs/cli.md):

- ``QRELS RUN [RUN ...]``: TREC qrels and run files, joined as trec_eval does;
- ``TABLE``: one CSV / TSV / Parquet / JSON-lines file with query, label and score
  columns (``--score-col`` repeated: one run per score column);
- ``QRELS_TABLE RUN_TABLE [...]``: tables joined on query and document columns;
- ``--ranked-lists TABLE``: one ranked list of item ids per query plus the
  relevant ids.

Module-level imports stay light: numpy and the library load in :func:`run`.
"""

from __future__ import annotations

import argparse
import sys

from .._conventions import OPTIONS, PRESETS
from .._params import Interval
from . import _measures, _output
from ._progress import Progress

NAME = "eval"
HELP = "evaluate runs against judgments (trec_eval's options and measures)"
DESCRIPTION = (
    "Evaluate one or more runs against relevance judgments: TREC qrels and run "
    "files (trec_eval's options under the same letters, its output layout by "
    "default), or CSV / TSV / Parquet / JSON-lines tables. Measures are the "
    "library's names (ndcg@10, map, mrr, precision@5, ...) or trec_eval's "
    "(P.5,10, ndcg_cut.10, recip_rank, Rprec, success.1, map_cut.10, official, "
    "all_trec). Malformed input: one line on stderr, exit status 1; usage errors "
    "exit 2."
)
FORMATTER = argparse.RawDescriptionHelpFormatter

CONVENTION_OPTIONS = tuple(OPTIONS)
LIBRARY_DEFAULT_MEASURES = ["ndcg@10", "map", "mrr"]


def _number_or_text(text: str) -> float | str:
    """Option values such as ``--undefined 0`` are numbers, others stay text."""
    try:
        return float(text)
    except ValueError:
        return text


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of ``sklearn-rank eval``."""
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="QRELS RUN [RUN ...] (TREC or tables), or one TABLE",
    )
    trec = parser.add_argument_group("trec_eval's options")
    trec.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure(s) to print, repeatable: 'ndcg@10,map', 'P.5,10', "
        "'ndcg_cut.10', 'official', 'all_trec' (default: official for TREC "
        "files, ndcg@10,map,mrr for tables)",
    )
    trec.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="print each query's values too",
    )
    trec.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="average over every judged query; queries a run misses score 0",
    )
    trec.add_argument(
        "-M",
        "--max-docs",
        type=_positive_int,
        metavar="N",
        help="keep only the top N documents of each query",
    )
    trec.add_argument(
        "-l",
        "--relevance-level",
        "--relevance-threshold",
        dest="relevance_threshold",
        type=_number_or_text,
        metavar="T",
        help="grade from which a document is relevant: a number (y >= T) or "
        "'positive' (y > 0); default from the convention (trec_eval: 1)",
    )
    trec.add_argument(
        "-J",
        "--judged-only",
        dest="judged_only",
        action="store_const",
        const=True,
        help="remove the documents without a judgement (no qrels line, or a "
        "negative grade) from every ranking before every measure",
    )
    trec.add_argument(
        "-n",
        "--no-summary",
        action="store_true",
        help="do not print the summary over queries ('all')",
    )
    conv = parser.add_argument_group(
        "conventions (the library's keywords; default: the convention's value)"
    )
    conv.add_argument(
        "--convention",
        metavar="NAME",
        help=f"preset: {', '.join(PRESETS)} "
        "(default: trec_eval for TREC files, sklearn_rank for tables)",
    )
    for option in OPTIONS.values():  # one flag per keyword of the option table
        if option.name in ("relevance_threshold", "judged_only", "integer_grades"):
            continue  # -l and -J above, trec_eval's letters
        numeric = any(isinstance(c, Interval) for c in option.constraints)
        choices = ", ".join(option.choices)
        conv.add_argument(
            f"--{option.name.replace('_', '-')}",
            type=_number_or_text if numeric else str,
            metavar=option.name.upper(),
            help=(choices + (" or a number" if choices else "a number"))
            if numeric
            else choices,
        )
    table = parser.add_argument_group("tables (CSV, TSV, Parquet, JSON lines)")
    table.add_argument(
        "--input-format",
        choices=("trec", "csv", "tsv", "parquet", "jsonl"),
        help="format of every FILE (default: from the extension; .gz is read "
        "directly; other extensions are TREC)",
    )
    table.add_argument("--query-col", default="qid", help="query id column")
    table.add_argument("--label-col", default="label", help="relevance column")
    table.add_argument(
        "--score-col",
        action="append",
        metavar="COL",
        help="score column, repeatable: one run per column (default: score)",
    )
    table.add_argument(
        "--doc-col", default="docno", help="document id column (qrels + run tables)"
    )
    table.add_argument(
        "--ranked-lists",
        action="store_true",
        help="TABLE holds one ranked list of item ids per query",
    )
    table.add_argument("--items-col", default="items", help="ranked item ids column")
    table.add_argument(
        "--relevant-col", default="relevant", help="relevant item ids column"
    )
    table.add_argument(
        "--grades-col",
        default=None,
        help="grades of the relevant items, aligned with --relevant-col",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--format",
        choices=_output.FORMATS,
        default=None,
        help="trec (trec_eval's layout; the default for one TREC run), table "
        "(the default otherwise), markdown, csv, json",
    )
    out.add_argument(
        "--digits", type=_positive_int, default=4, help="decimals in table/markdown"
    )
    out.add_argument(
        "--quiet", action="store_true", help="no progress bar and no notes on stderr"
    )


def _conventions(args: argparse.Namespace, trec_input: bool) -> dict:
    given = {name: getattr(args, name, None) for name in CONVENTION_OPTIONS}
    convention = args.convention
    if convention is None and trec_input:
        convention = "trec_eval"
    return {
        "convention": convention,
        **{k: v for k, v in given.items() if v is not None},
    }


def _resolve(parser: argparse.ArgumentParser, keywords: dict):
    """The library's own validation of every convention (exit 2 on a bad one)."""
    from .._conventions import resolve_options

    keywords = dict(keywords)
    convention = keywords.pop("convention", None)
    try:
        return resolve_options("evaluate", convention, keywords)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Evaluate, print, and return the exit status."""
    from .._registry import get_metric_names
    from . import _inputs

    layout = _inputs.detect_layout(args, parser)
    trec_input = layout == "trec"
    specs = args.measures or (["official"] if trec_input else LIBRARY_DEFAULT_MEASURES)
    try:
        measures, skipped = _measures.parse_measures(specs, get_metric_names())
    except _measures.MeasureError as exc:
        parser.error(str(exc))
    keywords = _conventions(args, trec_input)
    options = _resolve(parser, keywords)
    if skipped and not args.quiet:
        print(
            "sklearn-rank eval: note: trec_eval measures not implemented, left out: "
            + ", ".join(skipped),
            file=sys.stderr,
        )
    progress = Progress(args.quiet)
    try:
        progress.step(f"reading {', '.join(args.files)}")
        runs = _inputs.load(layout, args)
        results, notes = [], []
        for r in runs:
            progress.step(f"evaluating {r.name}")
            results.append(
                _inputs.score(r, measures, keywords, options, args.per_query, notes)
            )
    except (ValueError, TypeError, OSError, ImportError) as exc:
        progress.done()
        print(f"sklearn-rank eval: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    progress.done()
    for note in dict.fromkeys(notes if not args.quiet else []):
        print(f"sklearn-rank eval: note: {note}", file=sys.stderr)
    fmt = args.format or ("trec" if trec_input and len(results) == 1 else "table")
    labels = [m.label for m in measures if all(m.label in r.summary for r in results)]
    text = _output.render(
        fmt, results, labels, summary=not args.no_summary, digits=args.digits
    )
    sys.stdout.write(text)
    return 0


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or text}"
    return " ".join(text.split())
