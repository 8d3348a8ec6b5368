"""``sklearn-rank compare``: paired comparison of several runs on the same queries.

It reads its inputs exactly as ``sklearn-rank eval`` does (TREC qrels and runs, a
table with one score column per run, qrels + run tables), computes every run's
per-query values with the library and hands them to
:func:`sklearn_rank.stats.compare`: mean differences with confidence intervals,
adjusted p-values and wins / ties / losses over queries.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from . import _dask_engine, _flags, _measures, _messages, _plotting
from . import evaluate as _eval
from ._progress import Progress
from ._runs import check_trec_flags, load_runs

NAME = "compare"
HELP = "paired comparison of several runs (differences, CIs, adjusted p-values)"
DESCRIPTION = (
    "Compares runs on the same queries, pair by pair: the mean per-query "
    "difference of each measure with its bootstrap confidence interval, the p-value "
    "of a paired test adjusted for multiple comparisons, and wins / ties / losses. "
    "Inputs are read as by 'sklearn-rank eval': QRELS RUN RUN [RUN ...], or one "
    "TABLE with several --score-col. Queries undefined for either run of a pair are "
    "left out of that pair (counted in n_dropped)."
)
FORMATTER = argparse.RawDescriptionHelpFormatter

TESTS = (
    "randomization",
    "bootstrap",
    "bootstrap-t",
    "bootstrap-shift",
    "t",
    "wilcoxon",
)
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
CI_METHODS = ("matched", "BCa", "percentile", "bootstrap-t")
SYSTEMS_TESTS = ("pairs", "tukey", "anova")


FORMATS = ("table", "markdown", "latex", "csv", "json")


def _level(text: str) -> float:
    """--confidence: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"must be a number between 0 and 1 (exclusive), such as 0.95; got {text!r}"
        )
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sklearn-rank eval`` that select data, measures and
    conventions (not its per-query, summary or trec_eval-layout output), and the
    options of the comparison."""
    groups = _eval.argument_groups(parser)
    _eval.add_files(groups["inputs"])
    _flags.add_flags(groups, NAME, "")
    _eval.add_inputs(groups["inputs"])
    _eval.add_conventions(groups["conventions"])
    _eval.add_output(groups["output"], formats=FORMATS)
    _eval.add_jobs(groups["inputs"])  # -j: every run's evaluation, the resampling
    _plotting.add_arguments(parser)  # --segment-col, --plot
    _dask_engine.add_arguments(parser)  # --engine dask, --scheduler
    stats = parser.add_argument_group("comparison")
    stats.add_argument(
        "--baseline",
        metavar="RUN",
        help="compare every run with this one (a run name as printed; default: "
        "all pairs)",
    )
    stats.add_argument(
        "--test",
        choices=TESTS,
        default="randomization",
        help="paired test of each pair (bootstrap = bootstrap-t: studentized; "
        "bootstrap-shift: the shifted-mean bootstrap test)",
    )
    stats.add_argument(
        "--systems-test",
        choices=SYSTEMS_TESTS,
        default="pairs",
        help="pairs: --test on each pair, adjusted by --correction; tukey: the "
        "randomised Tukey HSD test over all runs at once (family-wise p-values); "
        "anova: the two-way ANOVA F test over runs x queries",
    )
    stats.add_argument("--correction", choices=CORRECTIONS, default="holm")
    stats.add_argument(
        "--correction-scope",
        choices=("metric", "all"),
        default="metric",
        help="the family of --correction: the pairs of each measure, or every "
        "pair of every measure",
    )
    stats.add_argument(
        "--zero-method",
        choices=("wilcox", "pratt", "zsplit"),
        default="wilcox",
        help="zero differences in the Wilcoxon test (as scipy.stats.wilcoxon)",
    )
    stats.add_argument(
        "--alternative", choices=("two-sided", "greater", "less"), default="two-sided"
    )
    stats.add_argument(
        "--ci-method",
        choices=CI_METHODS,
        default="matched",
        help="interval of the differences: matched (the interval that inverts "
        "the test, default) or a bootstrap interval",
    )
    stats.add_argument(
        "--resamples", type=_eval._positive_int, default=9999, metavar="N"
    )
    stats.add_argument(
        "--confidence", type=_level, default=0.95, metavar="LEVEL", help="CI level"
    )
    stats.add_argument("--seed", type=int, default=0, help="random seed")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Compare the runs, print the report, and return the exit status."""
    from .._metrics.registry import get_metric_names
    from . import _inputs

    check_trec_flags(args, parser)
    _dask_engine.check_input(args, parser)
    layout = _inputs.detect_layout(args, parser)
    _plotting.check_args(args, parser, layout)
    trec_input = layout == "trec"
    specs = args.measures or _eval.LIBRARY_DEFAULT_MEASURES
    try:
        measures, _ = _measures.parse_measures(specs, get_metric_names())
    except _measures.MeasureError as exc:
        parser.error(str(exc))
    _dask_engine.check_measures(args, parser, measures)
    # A measure with keywords of its own (relative_P, rbp.p=0.5, ndcg.1=3) is
    # reported under its printed label, computed in a call of its own.
    calls = measure_calls(measures)
    metrics = [key for keyed in calls.values() for key, _ in keyed]
    _check_left_out(measures, metrics, args, parser)
    own = [m.label for m in measures if m.metric and m.gains]
    if own and (args.plot is not None or args.segment_col is not None):
        parser.error(
            f"--plot and --segment-col take the library's metric names; "
            f"{', '.join(own)} set keywords of their own (compare them without "
            "--plot / --segment-col)"
        )
    keywords = _eval._conventions(args, trec_input)
    _eval.low_level(args, parser, keywords, "compare")
    options = _eval._resolve(parser, keywords)
    progress = Progress(args.quiet)
    try:
        progress.step(f"reading {', '.join(args.files)}")
        if args.engine == "dask":  # partition by partition (docs/scale.md)
            runs = _dask_engine.group_scores(args, metrics, keywords)
        else:
            runs = load_runs(layout, args, None)
        if len(runs) < 2:
            raise ValueError("compare needs at least two runs (or --score-col twice)")
        names = list(runs) if isinstance(runs, dict) else [r.name for r in runs]
        if args.baseline is not None and args.baseline not in names:
            progress.done()
            parser.error(
                f"--baseline {args.baseline}: no run of that name; the runs are "
                + ", ".join(repr(n) for n in names)
            )
        report = _compare(runs, measures, calls, keywords, options, args, progress)
    except (ValueError, TypeError, OSError, ImportError) as exc:
        progress.done()
        text = _messages.command_wording(_eval._one_line(exc))
        print(f"sklearn-rank compare: error: {text}", file=sys.stderr)
        return 1
    progress.done()
    status = _write(report, args)
    if status:
        return status
    # segments and figures take the library's metric names (a measure with
    # keywords of its own is refused with them above)
    plain = [key for keyed in calls.values() for key, metric in keyed if key == metric]
    return _plotting.compare_extras(args, runs, plain, keywords)


def _write(report, args) -> int:
    """Print the report in --format's form; 1 on an error (printed)."""
    fmt = args.format or "table"
    if fmt == "table":
        sys.stdout.write(f"{report}\n")
    elif fmt in ("latex", "markdown") and hasattr(report, "to_latex"):
        _paper_table(report, fmt, args)
    elif fmt == "latex":
        print(_NO_LATEX, file=sys.stderr)
        return 1
    else:
        try:
            frame = report.to_frame()  # one row per (metric, model, baseline)
        except ImportError as exc:
            print(f"sklearn-rank compare: error: {exc}", file=sys.stderr)
            return 1
        if fmt == "csv":
            sys.stdout.write(frame.to_csv(index=False))
        elif fmt == "json":
            text = frame.to_json(orient="records", indent=1, double_precision=15)
            sys.stdout.write(text + "\n")
        else:  # markdown, without pandas' optional tabulate dependency
            cells = [list(frame.columns), *frame.astype(str).values.tolist()]
            rows = ["| " + " | ".join(map(str, r)) + " |" for r in cells]
            rows.insert(1, "|" + "---|" * len(frame.columns))
            sys.stdout.write("\n".join(rows) + "\n")
    return 0


_NO_LATEX = (
    "sklearn-rank compare: error: --format latex prints pairwise comparisons; "
    "use --format csv with --systems-test"
)


def _paper_table(report, fmt: str, args) -> None:
    """--format latex / markdown: the paper's table (models x metrics, best in
    bold, significance letters, the test and correction in the caption)."""
    digits = getattr(args, "digits", None) or 4
    paper = report.to_latex if fmt == "latex" else report.to_markdown
    sys.stdout.write(paper(digits=digits))


def _check_left_out(measures, metrics, args, parser) -> None:
    """Counts, set measures, strings and the values read off a library metric
    (yaap, ideal_dcg, ...) have no per-query library metric to test: a note
    names them, or the usage error when no measure is left."""
    dropped = [m.label for m in measures if m.metric is None]
    left_out = (
        f"left out: {', '.join(dropped)} (compare tests measures that are a "
        "library metric per query; `sklearn-rank eval -q` prints these)"
    )
    if not metrics:
        parser.error(
            "compare needs at least one metric (e.g. -m ndcg@10,map)"
            + (f"; {left_out}" if dropped else "")
        )
    if dropped and not args.quiet:
        print(f"sklearn-rank compare: note: {left_out}", file=sys.stderr)


def measure_calls(measures) -> dict[tuple, list[tuple[str, str]]]:
    """The library calls that give every measure's per-query values: for each
    set of measure keywords, the (reported name, library metric) pairs. A
    measure without keywords of its own is reported under its metric's name,
    one with them (relative_P, trec_eval's rbp, per-level gains) under its label."""
    calls: dict[tuple, list[tuple[str, str]]] = {}
    for m in measures:
        if m.metric is None:
            continue
        key = m.label if m.gains else m.metric
        keyed = calls.setdefault(m.keywords, [])
        if (key, m.metric) not in keyed:
            keyed.append((key, m.metric))
    return calls


def _per_query(r, measures, calls, common, options):
    """One run's per-query values of every measure: one evaluate_per_group call
    (one ordering) per set of measure keywords, as ``eval`` computes them."""

    from .._metrics.evaluate import GroupScores, evaluate_per_group
    from ._scores import _refuse_graded_rbp

    # errors, as when named in eval
    _refuse_graded_rbp(measures, r.y_true, options.integer_grades, None)
    values, weights, group_ids = {}, {}, None
    for extra, keyed in calls.items():
        result = evaluate_per_group(
            r.y_true,
            r.y_score,
            groups=r.codes,
            retrieved=r.retrieved,
            judged=r.judged,
            in_pool=r.pooled,
            metrics=list(dict.fromkeys(metric for _, metric in keyed)),
            **{**common, **dict(extra)},
        )
        group_ids = result.group_ids
        for key, metric in keyed:
            values[key] = result.values[metric]
            weights[key] = result.weights[metric]
    return GroupScores(group_ids, values, weights)


def _compare(runs, measures, calls, keywords, options, args, progress):
    """Per-query values of every run, then the paired tests."""
    import numpy as np

    from .._metrics.evaluate import GroupScores
    from ..stats import compare

    metrics = [key for keyed in calls.values() for key, _ in keyed]
    per_run = runs if isinstance(runs, dict) else {}  # GroupScores (--engine dask)
    runs = [] if per_run else runs
    common = {k: v for k, v in keywords.items() if k != "undefined"}
    common["n_jobs"] = args.jobs  # -j: the same values at every N
    first_qids = None
    for r in runs:
        progress.step(f"evaluating {r.name}")
        result = _per_query(r, measures, calls, common, options)
        qids = np.asarray(r.qids, dtype=object)[result.group_ids]
        if options.undefined == "raise":
            for metric, values in result.values.items():
                if np.isnan(values).any():
                    raise ValueError(
                        _messages.undefined_in_compare(
                            metric, r.name, qids[np.isnan(values)]
                        )
                    )
        if first_qids is None:
            first_qids = qids
        elif not np.array_equal(qids, first_qids):
            raise ValueError(
                f"run {r.name!r} covers other queries than {runs[0].name!r}; pass -c "
                "to score every judged query in every run"
            )
        per_run[r.name] = GroupScores(qids, result.values, result.weights)
    if args.systems_test != "pairs":
        return _systems(per_run, metrics, args, options, progress)
    progress.step(f"comparing: {args.test} test, {args.resamples} resamples")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        report = compare(
            None,
            per_run,
            metrics=metrics,
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            correction_scope=args.correction_scope,
            zero_method=args.zero_method,
            alternative=args.alternative,
            ci_method=args.ci_method,
            confidence_level=args.confidence,
            n_resamples=args.resamples,
            random_state=args.seed,
            undefined=options.undefined,
            n_jobs=args.jobs,
        )
    table = (args.format or "table") == "table"
    for w in caught:  # one line each on stderr (the table prints its own notes)
        text = str(w.message)
        if table and "cannot reject" in text:
            continue
        if not issubclass(w.category, RuntimeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        print(f"sklearn-rank {text.replace('compare: ', 'compare: note: ', 1)}",
              file=sys.stderr)  # fmt: skip
    return report


class SystemsReport:
    """The per-measure reports of --systems-test tukey / anova, printed one
    after the other; ``to_frame`` stacks their rows."""

    def __init__(self, reports):
        self.reports = reports

    def __str__(self) -> str:
        return "\n\n".join(str(r) for r in self.reports)

    def to_frame(self):
        import pandas as pd

        frames = []
        for r in self.reports:
            frame = r.to_frame()
            if not hasattr(r, "pairs"):  # ANOVA: one row per source
                frame = frame.rename_axis("source").reset_index()
                frame.insert(0, "metric", r.metric)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)


def _systems(per_run, metrics, args, options, progress):
    """--systems-test tukey / anova: every run at once, one report per measure."""
    from ..stats import tukey_hsd, two_way_anova

    if args.baseline is not None:
        raise ValueError(
            f"--baseline applies to --systems-test pairs, not {args.systems_test} "
            "(which compares every run with every other at once)"
        )
    progress.step(f"comparing: {args.systems_test} over {len(per_run)} runs")
    reports = []
    for metric in metrics:
        if args.systems_test == "tukey":
            reports.append(
                tukey_hsd(
                    None, per_run, metric=metric, n_resamples=args.resamples,
                    confidence_level=args.confidence, random_state=args.seed,
                    undefined=options.undefined, n_jobs=args.jobs,
                )
            )  # fmt: skip
        else:
            reports.append(
                two_way_anova(None, per_run, metric=metric, undefined=options.undefined)
            )
    return SystemsReport(reports)
