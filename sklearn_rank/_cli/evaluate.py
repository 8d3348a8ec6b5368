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

from .._engine.conventions import OPTIONS, PRESETS
from .._utils.params import Interval
from . import (
    _dask_engine,
    _flags,
    _judgment_groups,
    _measures,
    _messages,
    _output,
    _plotting,
)
from ._progress import Progress
from ._runs import _check_stdin, check_trec_flags, complete_summary, load_runs

NAME = "eval"
HELP = "evaluate runs against judgments (trec_eval's options and measures)"
DESCRIPTION = (
    "Evaluate one or more runs against relevance judgments: TREC qrels and run "
    "files (trec_eval's options under the same letters, its output layout by "
    "default), or CSV / TSV / Parquet / JSON-lines tables. Measures are the "
    "library's names (ndcg@10, map, mrr, precision@5, ...) or trec_eval's "
    "(P.5,10, ndcg_cut.10, recip_rank, Rprec, success.1, map_cut.10, official, "
    "all_trec; --list-measures lists them). trec_eval's flags are accepted under "
    "their letters and long names, or refused with the reason. Malformed input: "
    "one line on stderr, exit status 1; usage errors exit 2."
)
FORMATTER = argparse.RawDescriptionHelpFormatter

CONVENTION_OPTIONS = tuple(OPTIONS)
LIBRARY_DEFAULT_MEASURES = ["ndcg@10", "map", "mrr"]


_number_or_text = _flags._number_or_text
_positive_int = _flags.positive_int


def argument_groups(parser: argparse.ArgumentParser) -> dict:
    """The sections of ``--help``: inputs, measures, conventions, output."""
    return {
        key: parser.add_argument_group(title) for key, title in _flags.GROUPS.items()
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of ``sklearn-rank eval``, in the sections of ``--help``."""
    groups = argument_groups(parser)
    add_files(groups["inputs"])
    _flags.add_flags(groups, NAME, _version())
    add_inputs(groups["inputs"])
    groups["measures"].add_argument(
        "--list-measures",
        action=_ListMeasures,
        help="list every measure (trec_eval's name, the library's name, what it "
        "means) and exit",
    )
    add_conventions(groups["conventions"])
    add_output(groups["output"])
    add_jobs(groups["inputs"])
    _plotting.add_arguments(parser)  # --segment-col, --plot
    _dask_engine.add_arguments(parser)  # --engine dask, --scheduler


def add_files(group) -> None:
    """The positional files (eval and compare)."""
    group.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="QRELS RUN [RUN ...] (TREC or tables; '-' reads a TREC run from "
        "standard input), or one TABLE",
    )


def add_inputs(group) -> None:
    """The table options (eval and compare)."""
    group.add_argument(
        "--input-format",
        choices=("trec", "csv", "tsv", "parquet", "jsonl"),
        help="format of every FILE (default: from the extension; .gz is read "
        "directly; other extensions are TREC)",
    )
    group.add_argument("--query-col", default="qid", help="query id column")
    group.add_argument("--label-col", default="label", help="relevance column")
    group.add_argument(
        "--score-col",
        action="append",
        metavar="COL",
        help="score column, repeatable: one run per column (default: score)",
    )
    group.add_argument(
        "--doc-col", default="docno", help="document id column (qrels + run tables)"
    )
    group.add_argument(
        "--ranked-lists",
        action="store_true",
        help="TABLE holds one ranked list of item ids per query",
    )
    group.add_argument("--items-col", default="items", help="ranked item ids column")
    group.add_argument(
        "--relevant-col", default="relevant", help="relevant item ids column"
    )
    group.add_argument(
        "--grades-col",
        default=None,
        help="grades of the relevant items, aligned with --relevant-col",
    )


def add_conventions(group) -> None:
    """--convention and one flag per keyword of the option table (eval, compare)."""
    group.add_argument(
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
        group.add_argument(
            f"--{option.name.replace('_', '-')}",
            type=_number_or_text if numeric else str,
            metavar=option.name.upper(),
            help=(choices + (" or a number" if choices else "a number"))
            if numeric
            else choices,
        )


def add_output(group, formats=_output.FORMATS) -> None:
    """--format, --digits, --quiet."""
    group.add_argument(
        "--format",
        choices=formats,
        default=None,
        help="trec (trec_eval's layout; the default for one TREC run), table "
        "(the default otherwise), markdown, csv, json"
        if "trec" in formats
        else "table (the default), markdown, csv, json",
    )
    if "trec" in formats:
        group.add_argument(
            "--digits",
            type=_positive_int,
            default=4,
            help="decimals in table/markdown",
        )
    group.add_argument(
        "--quiet", action="store_true", help="no progress line and no notes on stderr"
    )


def add_jobs(group) -> None:
    """-j / --jobs: the library's ``n_jobs`` on every call the command makes."""
    group.add_argument(
        "-j",
        "--jobs",
        type=_flags.jobs,
        default=1,
        metavar="N",
        help="threads over shards of whole queries (the library's n_jobs: -1 "
        "for all cores; the output is the same at every N; default 1)",
    )


def _version() -> str:
    from .. import __version__

    return f"sklearn-rank {__version__} (trec_eval 10.0 options and output)"


class _ListMeasures(argparse.Action):
    """``--list-measures``: print the measure table and exit (no files needed)."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .._metrics.registry import METRICS

        summaries = {name: spec.summary for name, spec in METRICS.items()}
        sys.stdout.write(_measures.measure_listing(summaries))
        parser.exit()


def _conventions(args: argparse.Namespace, trec_input: bool) -> dict:
    given = {name: getattr(args, name, None) for name in CONVENTION_OPTIONS}
    convention = args.convention
    if convention is None and trec_input:
        convention = "trec_eval"
    level = given.get("relevance_threshold")
    if convention == "trec_eval" and isinstance(level, _flags.TrecLevel):
        # trec_eval reads -l with atol: -l 2.5 is level 2.
        given["relevance_threshold"] = float(level.atol)
    return {
        "convention": convention,
        **{k: v for k, v in given.items() if v is not None},
    }


def low_level(args, parser, keywords: dict, command: str = NAME) -> int | None:
    """``-l`` at or below 0 (``-l 0.5`` is 0, read with atol) under the
    ``trec_eval`` convention, where trec_eval's test ``rel >= level`` reaches
    the relevance values it gives documents it did not judge. ``-l 0``: every
    judged document is relevant; ``-l -1``: documents without a qrels line (-1)
    too, and ``-l -2`` and below: documents with a negative grade (-2) as well,
    at their ranks only: R (num_rel) and num_rel_ret count judged documents.
    The library's threshold is > 0: the binary measures read the levels of
    :func:`._scores.judged_levels` at threshold 1, the gain measures the grades
    themselves (trec_eval's gains never read ``-l``). Returns the level, or
    None above 0."""
    level = getattr(args, "relevance_threshold", None)
    trec = keywords.get("convention") == "trec_eval"
    if not (trec and isinstance(level, _flags.TrecLevel) and level.atol <= 0):
        return None
    from ._usage import typed_spelling

    flag = typed_spelling(_flags.FLAG_NAMES["-l"]) or "-l"
    if (
        command != NAME
        or getattr(args, "engine", None) == "dask"
        or (getattr(args, "rel_info_format", "qrels") == "qrels_jg")
    ):
        reading = (
            "every judged document relevant"
            if level.atol == 0
            else "unjudged documents relevant at their ranks"
        )
        parser.error(
            f"{flag} {level.atol} ({reading}) is computed by `sklearn-rank eval` "
            "on qrels and run files; give a level >= 1 here"
        )
    if level.atol < 0 and not isinstance(keywords.get("undefined", 0.0), float):
        parser.error(
            f"{flag} {level.atol} is trec_eval's reading, which scores every "
            "query (--undefined must be a number, as under the trec_eval "
            "convention)"
        )
    keywords["relevance_threshold"] = 1.0
    return level.atol


def _resolve(parser: argparse.ArgumentParser, keywords: dict):
    """The library's own validation of every convention (exit 2 on a bad one)."""
    from .._engine.conventions import resolve_options

    keywords = dict(keywords)
    convention = keywords.pop("convention", None)
    try:
        return resolve_options("evaluate", convention, keywords)
    except (TypeError, ValueError) as exc:
        parser.error(_messages.command_wording(str(exc)))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Evaluate, print, and return the exit status."""
    from . import _inputs

    debug_qid = check_trec_flags(args, parser)
    _dask_engine.check_input(args, parser)
    layout = _inputs.detect_layout(args, parser)
    _check_stdin(args, parser, layout)
    _plotting.check_args(args, parser, layout)
    trec_input = layout == "trec"
    groups = getattr(args, "rel_info_format", "qrels") == "qrels_jg"
    if groups and not trec_input:
        parser.error("-R qrels_jg reads TREC qrels and run files")
    measures, bases, skipped = _parse_measures(args, parser, trec_input, groups)
    _dask_engine.check_measures(args, parser, measures)
    keywords = _conventions(args, trec_input)
    args.low_level = low_level(args, parser, keywords)
    options = _resolve(parser, keywords)
    if skipped and not args.quiet:
        print(
            "sklearn-rank eval: note: trec_eval measures not implemented, left out: "
            + ", ".join(skipped),
            file=sys.stderr,
        )
    labels = [m.label for m in measures]
    progress = Progress(args.quiet)
    try:
        zscores = None
        if args.zscores is not None:
            from ._zscores import read_zscores

            zscores = read_zscores(args.zscores)
        progress.step(f"reading {', '.join(args.files)}")
        per_query = args.per_query or zscores is not None
        notes: list[str] = []
        if args.engine == "dask":  # partition by partition (docs/scale.md)
            runs: list = []
            results = _dask_engine.run_eval(args, measures, keywords, options)
        elif groups:
            results = _group_results(
                args, measures, bases, keywords, options, debug_qid, progress
            )
            if not per_query:
                for result in results:
                    result.per_query = {}
            runs = []
        else:
            runs = load_runs(layout, args, debug_qid, measures, progress)
            results = []
        for r in runs:
            progress.step(f"evaluating {r.name}")
            results.append(
                _run_result(r, args, measures, keywords, options, zscores, notes)
            )
    except (ValueError, TypeError, OSError, ImportError) as exc:
        progress.done()
        print(f"sklearn-rank eval: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    progress.done()
    if zscores is not None and groups:
        from ._zscores import apply_zscores

        results = [apply_zscores(r, labels, zscores) for r in results]
        if not args.per_query:
            for result in results:
                result.per_query = {}
    for note in dict.fromkeys(notes if not args.quiet else []):
        print(f"sklearn-rank eval: note: {note}", file=sys.stderr)
    labels = [m.label for m in measures if all(m.label in r.summary for r in results)]
    fmt = args.format or ("trec" if trec_input and len(results) == 1 else "table")
    text = _output.render(
        fmt,
        results,
        labels,
        summary=not args.no_summary,
        digits=args.digits,
        prefix="Z" if zscores is not None else "",
    )
    write_stdout(text)
    return _plotting.eval_extras(args, runs, measures, keywords, NAME)


def write_stdout(text: str) -> None:
    """Print ``text``; an id read from bytes that are not UTF-8 (trec_eval's
    reading) holds lone surrogates, written back as those bytes."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        sys.stdout.buffer.write(text.encode(encoding, "surrogateescape"))
        sys.stdout.buffer.flush()


def _parse_measures(args, parser, trec_input: bool, groups: bool):
    """The ``-m`` values (or the default set) as measures; usage error if bad."""
    from .._metrics.registry import get_metric_names

    default = "qrels_jg" if groups else "official"
    specs = args.measures or ([default] if trec_input else LIBRARY_DEFAULT_MEASURES)
    try:
        if groups:
            return _judgment_groups.parse_measures(specs, set(get_metric_names()))
        measures, skipped = _measures.parse_measures(specs, get_metric_names())
        return measures, None, skipped
    except (_measures.MeasureError, _judgment_groups.JudgmentGroupError) as exc:
        parser.error(str(exc))


def _run_result(r, args, measures, keywords, options, zscores, notes):
    """One run's result: its values, then -Z's z-scores and -c's summary."""
    per_query = args.per_query or zscores is not None
    n_total = r.complete_totals[0] if args.complete else None
    r.low_level = getattr(args, "low_level", None)  # -l <= 0: see low_level
    result = score_run(
        r,
        measures,
        keywords,
        options,
        per_query,
        notes,
        args.num_docs_in_coll,
        n_total,
        n_jobs=getattr(args, "jobs", 1),
    )
    n_evaluated = len(r.qids)
    # (a measure refused on this input, with a note, has no value)
    present = [m.label for m in measures if m.label in result.summary]
    if zscores is not None:
        from ._zscores import apply_zscores

        divisor = r.complete_totals[0] if args.complete else None
        result = apply_zscores(result, present, zscores, divisor)
        n_evaluated = r.complete_totals[0]  # the means are complete
        if not args.per_query:
            result.per_query = {}
    if args.complete:
        geometric = {m.label for m in measures if m.kind == "gm"}
        complete_summary(
            result,
            present,
            r.complete_totals,
            n_evaluated,
            geometric,
            options.integer_grades,
        )
    return result


def _group_results(args, measures, bases, keywords, options, debug_qid, progress):
    """-R qrels_jg: each run scored against each judgment group (unique names)."""
    results = []
    for path in args.files[1:]:
        progress.step(f"evaluating {path}")
        results.append(
            _judgment_groups.score_run(
                path, args.files[0], measures, bases, keywords, options, args, debug_qid
            )
        )
    names = _output.unique_names([r.name for r in results], args.files[1:])
    for result, name in zip(results, names, strict=True):
        result.name = name
    return results


def score_run(
    run,
    measures,
    keywords,
    options,
    per_query: bool,
    notes=None,
    num_docs_in_coll=0,
    n_total=None,
    *,
    n_jobs=1,
):
    """One run's values; the library's messages in the command's wording
    (``num_docs_in_coll``: ``-N``, which trec_eval's utility reads;
    ``n_total``: ``-c``'s number of judged queries; ``n_jobs``: ``-j``)."""
    from . import _inputs, _scores

    try:
        return _scores.score(
            run,
            measures,
            keywords,
            options,
            per_query,
            notes,
            num_docs_in_coll,
            n_total,
            n_jobs=n_jobs,
        )
    except ValueError as exc:
        if run.origin is not None and "negative labels" in str(exc):
            raise _inputs.negative_label(run) from None  # names file and row
        undefined: tuple | None = getattr(exc, "undefined_groups", None)
        if undefined is not None:  # --undefined raise: name the query ids
            metric, codes, n_groups = undefined
            message = _messages.undefined_queries(metric, codes, n_groups, run)
            raise ValueError(message) from None
        raise ValueError(_messages.command_wording(str(exc))) from None


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or text}"
    return " ".join(text.split())
