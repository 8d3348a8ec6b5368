"""The command line's pictures and segment tables: ``--plot FILE`` (eval, compare,
the main job) and ``--segment-col COL`` (eval, compare).

Every panel of a figure shows one measure: ``--plot-metric``, else the first
measure given with ``-m`` (in the order given, not the printing order). Runs
read from files may hold different rows (each TREC run is joined with the qrels
on its own), so each run is scored on its own (``evaluate_per_group``) and the
displays are drawn from those per-query values through their public
``from_group_scores`` constructors; the segment statistics come from
:func:`sklearn_rank.stats.compare_by_segment`.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

# The cutoffs drawn when the plotted measure has none (or a small one).
_DEFAULT_K = 20
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
_PANEL = (6.0, 4.6)  # inches per panel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--segment-col``, ``--plot`` and its options, of eval and compare."""
    group = parser.add_argument_group("segments and pictures")
    group.add_argument(
        "--segment-col",
        metavar="COL",
        help="table input: the measures per segment of the queries (a column "
        "constant within each query: query length bucket, user cohort), with "
        "bootstrap intervals and tests; with --plot, a panel of them",
    )
    add_plot_argument(group)
    group.add_argument(
        "--plot-metric",
        metavar="METRIC",
        help="the measure every panel of --plot shows (a library metric name "
        "such as ndcg@10); default: the first measure given with -m",
    )


def add_plot_argument(parser) -> None:
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="save a figure (PNG, SVG or PDF, by the extension); needs matplotlib: "
        'pip install "sklearn-rank[plot]"',
    )
    parser.add_argument(
        "--figsize",
        metavar="W,H",
        help="size of the --plot figure in inches (default: 6 x 4.6 per panel)",
    )
    parser.add_argument(
        "--dpi", type=float, metavar="DPI", help="resolution of a --plot PNG"
    )


def check_args(args: argparse.Namespace, parser, layout: str | None = None) -> None:
    """Usage errors (exit 2) before any work: the figure's path and options."""
    plot = getattr(args, "plot", None)
    if plot is not None:
        if not plot.lower().endswith(PLOT_SUFFIXES):
            parser.error(
                f"--plot FILE must end in {', '.join(PLOT_SUFFIXES)}; got {plot}"
            )
        folder = os.path.dirname(os.path.abspath(plot))
        if not os.path.isdir(folder):
            parser.error(f"--plot {plot}: no directory {folder}")
        if not os.access(folder, os.W_OK):
            parser.error(f"--plot {plot}: directory {folder} is not writable")
    elif getattr(args, "plot_metric", None) is not None:
        parser.error("--plot-metric chooses the measure of --plot; add --plot FILE")
    if getattr(args, "figsize", None) is not None:
        args.figsize = _figsize(args.figsize, parser)
    dpi = getattr(args, "dpi", None)
    if dpi is not None and not dpi > 0:
        parser.error(f"--dpi must be positive; got {dpi:g}")
    if getattr(args, "plot_metric", None) is not None:
        from .._metrics.validation import check_metrics

        try:
            check_metrics([args.plot_metric], "--plot-metric", per_group=True)
        except (TypeError, ValueError) as exc:
            parser.error(
                f"--plot-metric {args.plot_metric}: {' '.join(str(exc).split())}"
            )
    if getattr(args, "segment_col", None) is not None and layout in ("trec", "ranked"):
        parser.error(
            "--segment-col needs table input (a predictions table, or a "
            "qrels table holding the column)"
        )
    if getattr(args, "engine", None) == "dask" and (
        plot is not None or getattr(args, "segment_col", None) is not None
    ):
        parser.error(
            "--plot and --segment-col read the runs in memory; drop --engine dask "
            "or run them without it"
        )


def _figsize(text: str, parser) -> tuple[float, float]:
    try:
        w, h = (float(x) for x in text.replace("x", ",").split(","))
    except ValueError:
        parser.error(f"--figsize takes W,H in inches (e.g. 12,5); got {text}")
    if not (w > 0 and h > 0):
        parser.error(f"--figsize takes positive W,H; got {text}")
    return w, h


def _segments_by_query(args: argparse.Namespace) -> dict[str, object]:
    """Query id -> segment, from the predictions table or the qrels table. An
    empty cell is a missing segment (an error naming the query), not a segment
    named ``""``."""
    import numpy as np

    from ..io import id_column
    from ._tables import _read

    path = args.files[0]
    table = _read(path, [args.query_col, args.segment_col], args)
    qids = id_column(table[args.query_col], args.query_col, path)
    segs = np.asarray(table[args.segment_col], dtype=object)
    qids = np.array([str(q) for q in np.asarray(qids, dtype=object)], dtype=object)
    out: dict[str, object] = {}
    for q, s in zip(qids.tolist(), segs.tolist(), strict=True):
        if _missing(s):
            raise ValueError(
                f"{path}: column {args.segment_col!r} is empty for query {q!r}; "
                "give every query a segment"
            )
        if out.setdefault(q, s) != s:
            raise ValueError(
                f"{path}: column {args.segment_col!r} must be constant within each "
                f"query; query {q!r} has {out[q]!r} and {s!r}"
            )
    return out


def _missing(value: object) -> bool:
    if value is None or (isinstance(value, float) and value != value):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def segment_tables(args, runs, metrics: list[str], keywords: dict):
    """Per run: the :class:`~sklearn_rank.SegmentTable` of ``metrics``."""
    from .._metrics.by_segment import evaluate_by_segment

    by_query = _segments_by_query(args)
    out = {}
    for r in runs:
        missing = [q for q in r.qids if q not in by_query]
        if missing:
            raise ValueError(f"no {args.segment_col!r} value for query {missing[0]!r}")
        segments = {code: by_query[q] for code, q in enumerate(r.qids)}
        out[r.name] = evaluate_by_segment(
            r.y_true,
            r.y_score,
            groups=r.codes,
            segments=segments,
            metrics=metrics,
            retrieved=r.retrieved,
            judged=r.judged,
            **keywords,
        )
    return out


def segment_report(args, tables, keywords: dict, *, compare: bool):
    """The statistics of the segment tables: intervals and the test between
    segments of every run; with compare, the paired test against the baseline
    within each segment."""
    from ..stats import compare_by_segment

    undefined = {"undefined": keywords["undefined"]} if "undefined" in keywords else {}
    return compare_by_segment(
        None,
        tables,
        baseline=args.baseline if compare else None,
        test=args.test if compare else None,
        segment_test="permutation",
        correction=getattr(args, "correction", "holm"),
        confidence_level=getattr(args, "confidence", 0.95),
        n_resamples=min(getattr(args, "resamples", 999), 9999),
        random_state=getattr(args, "seed", 0),
        n_jobs=keywords.get("n_jobs", 1),
        **undefined,
    )


def print_segment_report(args, report) -> None:
    sys.stdout.write(f"\nper segment of {args.segment_col}:\n{report}\n")


def _cutoff(metric: str):
    """(family, k) of a metric with a cutoff, or None."""
    from .._metrics.validation import parse_metric

    r = parse_metric(metric)
    if r.k is not None and r.spec.takes_k and not r.spec.pooled:
        return r.spec.name, r.k
    return None


def _per_group(runs, metrics: list[str], keywords: dict):
    """Run name -> GroupScores of ``metrics`` with the query ids as group ids
    (the runs may hold different queries)."""
    import dataclasses

    import numpy as np

    from .._metrics.evaluate import evaluate_per_group

    common = {k: v for k, v in keywords.items() if k != "undefined"}
    out = {}
    for r in runs:
        res = evaluate_per_group(
            r.y_true,
            r.y_score,
            groups=r.codes,
            metrics=metrics,
            retrieved=r.retrieved,
            judged=r.judged,
            **common,
        )
        qids = np.asarray(r.qids, dtype=object)[res.group_ids]
        out[r.name] = dataclasses.replace(res, group_ids=qids)
    return out


def _figure(args, n_panels: int):
    # A bare Figure: no pyplot, so no backend or global figure state is touched.
    from matplotlib.figure import Figure

    size = getattr(args, "figsize", None) or (_PANEL[0] * n_panels, _PANEL[1])
    fig = Figure(figsize=size, layout="constrained")
    return fig, [fig.add_subplot(1, n_panels, i + 1) for i in range(n_panels)]


def _save(fig, args) -> None:
    dpi = getattr(args, "dpi", None)
    fig.savefig(args.plot, **({"dpi": dpi} if dpi else {}))


def _check_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(
            "--plot draws with matplotlib, which is not installed. Install it "
            'with the plot extra: pip install "sklearn-rank[plot]"'
        ) from None


def plot_metric(args, metrics: list[str]) -> str:
    """The measure of every panel: --plot-metric, else the first given."""
    given = getattr(args, "plot_metric", None)
    if given is not None:
        return given
    return metrics[0]


def save_figure(args, runs, metrics, keywords, report, *, compare: bool) -> None:
    """The figure of eval or compare, every panel on one measure: its cutoff
    curve (or distribution over queries, without a cutoff), the paired
    differences against the baseline (compare) or the ECDF over queries (eval),
    and, with --segment-col, the measure per segment."""
    from ..plot import (
        GroupScoreDisplay,
        MetricAtKDisplay,
        PairedDifferenceDisplay,
        SegmentDisplay,
    )

    _check_matplotlib()
    metric = plot_metric(args, metrics)
    level = getattr(args, "confidence", None) if compare else None
    undefined = keywords.get("undefined")
    cut = _cutoff(metric)
    n_panels = 2 + (report is not None)
    fig, axes = _figure(args, n_panels)
    values = _per_group(runs, [metric], keywords)
    if cut is not None:
        family, k = cut
        ks = list(range(1, max(k, _DEFAULT_K) + 1))
        curves = _per_group(runs, [f"{family}@{j}" for j in ks], keywords)
        with warnings.catch_warnings():
            # the bands are a picture; compare's table reports its own intervals
            warnings.filterwarnings("ignore", "bootstrap_ci: BCa", RuntimeWarning)
            _curves(MetricAtKDisplay, curves, family, level, args, undefined, axes[0])
        axes[0].axvline(k, color="0.5", linewidth=0.8, linestyle=":")
        axes[0].set_title(f"{metric}: the curve over k", fontsize="medium")
    else:
        GroupScoreDisplay.from_group_scores(
            values, metric=metric, kind="box", ax=axes[0]
        )
        axes[0].set_title(f"{metric} over queries", fontsize="medium")
    if compare:
        PairedDifferenceDisplay.from_group_scores(
            values,
            metric=metric,
            baseline=args.baseline,
            undefined=undefined,
            ax=axes[1],
        )
    else:
        GroupScoreDisplay.from_group_scores(
            values, metric=metric, kind="ecdf", ax=axes[1]
        )
        axes[1].set_title(f"{metric}: distribution over queries", fontsize="medium")
    if report is not None:
        SegmentDisplay.from_comparison(report, metric=metric, ax=axes[2])
    _save(fig, args)


def _curves(display, curves, family, level, args, undefined, ax):
    display.from_group_scores(
        curves,
        metric=family,
        confidence_level=level,
        n_resamples=999,
        random_state=getattr(args, "seed", 0),
        undefined=undefined,
        ax=ax,
    )


def eval_extras(args, runs, measures, keywords: dict, command: str) -> int:
    """After ``eval`` printed its output: segment tables and the figure."""
    metrics = list(
        dict.fromkeys(m.metric for m in measures if m.metric and not m.gains)
    )
    return _extras(args, runs, metrics, keywords, command, compare=False)


def compare_extras(args, runs, metrics: list[str], keywords: dict) -> int:
    """After ``compare`` printed its report: segment tables and the figure."""
    return _extras(args, runs, metrics, keywords, "compare", compare=True)


def in_given_order(specs, metrics: list[str]) -> list[str]:
    """``metrics`` in the order the ``-m`` values name them (the printed tables
    follow trec_eval's order instead)."""
    from .._metrics.registry import get_metric_names
    from ._measures import MeasureError, parse_measures, split_list

    known = get_metric_names()
    rank: dict[str, int] = {}
    for item in (x for s in specs or [] for x in split_list(s, set(known))):
        try:
            found, _ = parse_measures([item], known)
        except MeasureError:  # pragma: no cover - parsed before, as a whole
            continue
        for m in found:
            if m.metric:
                rank.setdefault(m.metric, len(rank))
    return sorted(metrics, key=lambda m: rank.get(m, len(rank)))


def _extras(args, runs, metrics, keywords, command, *, compare) -> int:
    metrics = [m for m in in_given_order(args.measures, metrics) if not _pooled(m)]
    # -j: the threads of every evaluation and resampling below (same output)
    keywords = {**keywords, "n_jobs": getattr(args, "jobs", 1)}
    try:
        report = None
        if args.segment_col is not None and metrics:
            wanted = list(metrics)
            chosen = getattr(args, "plot_metric", None)
            if chosen is not None and chosen not in wanted:
                wanted.append(chosen)
            tables = segment_tables(args, runs, wanted, keywords)
            report = segment_report(args, tables, keywords, compare=compare)
            print_segment_report(args, report)
        if args.plot is not None and metrics:
            save_figure(args, runs, metrics, keywords, report, compare=compare)
            if not getattr(args, "quiet", False):
                print(
                    f"sklearn-rank {command}: figure saved to {os.fspath(args.plot)}",
                    file=sys.stderr,
                )
    except (ValueError, TypeError, OSError, ImportError) as exc:
        text = " ".join((str(exc) or type(exc).__name__).split())
        print(f"sklearn-rank {command}: error: {text}", file=sys.stderr)
        return 1
    return 0


def _pooled(metric: str) -> bool:
    from .._metrics.validation import parse_metric

    return parse_metric(metric).spec.pooled


def save_demo_figure(args, results, random_scores, test) -> str:
    """The main job's figure: NDCG@k curves with 95% bands for each model on the
    held-out queries, and the per-query NDCG@10 difference of the two best tuned
    models on the held-out NDCG@10 (of the tuned model against random scores
    when only one was tuned). Returns the path written."""
    from .._metrics.evaluate import evaluate
    from ..plot import MetricAtKDisplay, PairedDifferenceDisplay

    _check_matplotlib()
    scores = {
        label: search.best_estimator_.predict(test.data) for label, search, _ in results
    }
    curves = {**scores, "random scores (baseline)": random_scores}
    fig, (left, right) = _figure(args, 2)
    MetricAtKDisplay.from_predictions(
        test.target,
        curves,
        groups=test.groups,
        metric="ndcg",
        k_max=_DEFAULT_K,
        confidence_level=0.95,
        random_state=0,
        ax=left,
    )
    held_out = {
        m: evaluate(test.target, s, groups=test.groups, metrics=["ndcg@10"])["ndcg@10"]
        for m, s in scores.items()
    }
    best = sorted(scores, key=lambda m: -held_out[m])[:2]
    # The better of the two is compared with the runner-up (the baseline).
    pair = {m: scores[m] for m in best} if len(best) > 1 else curves
    PairedDifferenceDisplay.from_predictions(
        test.target, pair, groups=test.groups, metric="ndcg@10", ax=right
    )
    _save(fig, args)
    return os.fspath(args.plot)
