"""The command line's pictures and segment tables: ``--plot FILE`` (eval, compare,
the main job) and ``--segment-col COL`` (eval, compare).

Runs read from files may hold different rows (each TREC run is joined with the
qrels on its own), so the displays are built from each run's own numbers through
their constructors; the main job's models share one test set and use
``from_predictions``.
"""

from __future__ import annotations

import argparse
import os
import sys

# The cutoffs drawn when the first measure has none (or a small one).
_DEFAULT_K = 20
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--segment-col`` and ``--plot`` of eval and compare."""
    group = parser.add_argument_group("segments and pictures")
    group.add_argument(
        "--segment-col",
        metavar="COL",
        help="table input: print the measures per segment of the queries (a "
        "column constant within each query: query length bucket, user cohort)",
    )
    add_plot_argument(group)


def add_plot_argument(parser) -> None:
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="save a figure (PNG, SVG or PDF, by the extension); needs matplotlib: "
        'pip install "sklearn-rank[plot]"',
    )


def check_args(args: argparse.Namespace, parser, layout: str | None = None) -> None:
    """Usage errors (exit 2) before any work."""
    plot = getattr(args, "plot", None)
    if plot is not None and not plot.lower().endswith(PLOT_SUFFIXES):
        parser.error(f"--plot FILE must end in {', '.join(PLOT_SUFFIXES)}; got {plot}")
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


def _segments_by_query(args: argparse.Namespace) -> dict[str, object]:
    """Query id -> segment, from the predictions table or the qrels table."""
    import numpy as np

    from ..io import _tables
    from ._tables import _read

    path = args.files[0]
    table = _read(path, [args.query_col, args.segment_col], args)
    qids = _tables.id_column(table[args.query_col], args.query_col, path)
    segs = np.asarray(table[args.segment_col], dtype=object)
    qids = np.array([str(q) for q in np.asarray(qids, dtype=object)], dtype=object)
    out: dict[str, object] = {}
    for q, s in zip(qids.tolist(), segs.tolist(), strict=True):
        if out.setdefault(q, s) != s:
            raise ValueError(
                f"{path}: column {args.segment_col!r} must be constant within each "
                f"query; query {q!r} has {out[q]!r} and {s!r}"
            )
    return out


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


def print_segment_tables(tables) -> None:
    for name, table in tables.items():
        sys.stdout.write(f"\nper segment: {name}\n{table}\n")


def _cutoff_metric(metrics: list[str]) -> tuple[str, int]:
    """The first metric with a cutoff (NDCG@20 when none has one)."""
    from .._metrics.validation import parse_metric

    for m in metrics:
        r = parse_metric(m)
        if r.k is not None and r.spec.takes_k and not r.spec.pooled:
            return r.spec.name, max(r.k, _DEFAULT_K)
    return "ndcg", _DEFAULT_K


def _curve_display(runs, metrics, keywords, level=None, seed=0):
    import numpy as np

    from .._metrics.cutoff_curves import cutoff_curve
    from ..plot import MetricAtKDisplay
    from ..plot._metric_at_k import _bands

    metric, k_max = _cutoff_metric(metrics)
    ks = np.arange(1, k_max + 1)
    values, low, high = {}, {}, {}
    for r in runs:
        curve = cutoff_curve(
            "sklearn-rank --plot",
            r.y_true,
            r.y_score,
            groups=r.codes,
            metric=metric,
            ks=ks,
            retrieved=r.retrieved,
            judged=r.judged,
            **keywords,
        )
        values[r.name] = curve.means
        if level is not None:
            low[r.name], high[r.name] = _bands(curve, level, 999, seed, keywords)
    return MetricAtKDisplay(
        ks=ks,
        values=values,
        metric=metric,
        ci_low=low or None,
        ci_high=high or None,
        confidence_level=level,
    )


def _per_query(runs, metric, keywords):
    """Run name -> (query ids, values of ``metric`` per query)."""
    import numpy as np

    from .._metrics.evaluate import evaluate_per_group

    common = {k: v for k, v in keywords.items() if k != "undefined"}
    out = {}
    for r in runs:
        res = evaluate_per_group(
            r.y_true,
            r.y_score,
            groups=r.codes,
            metrics=[metric],
            retrieved=r.retrieved,
            judged=r.judged,
            **common,
        )
        out[r.name] = (
            np.asarray(r.qids, dtype=object)[res.group_ids],
            res.values[metric],
        )
    return out


def _figure(n_panels: int):
    # A bare Figure: no pyplot, so no backend or global figure state is touched.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0 * n_panels, 4.6), layout="constrained")
    return fig, [fig.add_subplot(1, n_panels, i + 1) for i in range(n_panels)]


def _check_matplotlib() -> None:
    from ..plot._base import check_matplotlib

    check_matplotlib("--plot")


def save_eval_figure(path: str, runs, metrics: list[str], keywords: dict) -> None:
    """The metric@k curves of every run and the distribution of the first
    metric over queries."""
    from ..plot import GroupScoreDisplay

    _check_matplotlib()
    fig, (left, right) = _figure(2)
    _curve_display(runs, metrics, keywords).plot(ax=left)
    first = metrics[0]
    per_query = _per_query(runs, first, keywords)
    GroupScoreDisplay(
        values={n: v for n, (_, v) in per_query.items()}, metric=first
    ).plot(ax=right, kind="ecdf")
    fig.savefig(path)


def save_compare_figure(
    path: str,
    runs,
    metrics: list[str],
    keywords: dict,
    baseline: str | None,
    level: float | None,
    seed: int,
) -> None:
    """The metric@k curves with bootstrap bands, and the per-query differences of
    the first metric against the baseline (the last run when none is given)."""
    _check_matplotlib()
    fig, (left, right) = _figure(2)
    _curve_display(runs, metrics, keywords, level=level, seed=seed).plot(ax=left)
    paired_display(_per_query(runs, metrics[0], keywords), metrics[0], baseline).plot(
        ax=right
    )
    fig.savefig(path)


def paired_display(per_query, metric: str, baseline: str | None):
    """Differences of every run against ``baseline``, matched by query id."""
    import numpy as np

    from ..plot import PairedDifferenceDisplay

    names = list(per_query)
    baseline = names[-1] if baseline is None else baseline
    base_ids, base_values = per_query[baseline]
    where = {q: i for i, q in enumerate(base_ids.tolist())}
    diffs, ids = {}, {}
    for name, (qids, values) in per_query.items():
        if name == baseline:
            continue
        idx = np.array([where.get(q, -1) for q in qids.tolist()], dtype=np.intp)
        d = np.where(idx >= 0, values - base_values[np.maximum(idx, 0)], np.nan)
        keep = ~np.isnan(d)
        order = np.argsort(-d[keep], kind="stable")
        diffs[name], ids[name] = d[keep][order], qids[keep][order]
    return PairedDifferenceDisplay(
        differences=diffs, group_ids=ids, metric=metric, baseline=baseline
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


def _extras(args, runs, metrics, keywords, command, *, compare) -> int:
    try:
        if args.segment_col is not None and metrics:
            per_metric = [m for m in metrics if not _pooled(m)]
            print_segment_tables(segment_tables(args, runs, per_metric, keywords))
        if args.plot is not None and metrics:
            if compare:
                save_compare_figure(
                    args.plot,
                    runs,
                    metrics,
                    keywords,
                    args.baseline,
                    args.confidence,
                    args.seed,
                )
            else:
                save_eval_figure(args.plot, runs, metrics, keywords)
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


def save_demo_figure(path: str, results, random_scores, test) -> None:
    """The main job's figure: NDCG@k curves with 95% bands for each model on the
    held-out queries, and the per-query NDCG@10 difference of the two tuned
    models (of the tuned model against random scores when only one was tuned)."""
    from ..plot import MetricAtKDisplay, PairedDifferenceDisplay

    _check_matplotlib()
    scores = {
        label: search.best_estimator_.predict(test.data) for label, search, _ in results
    }
    curves = {**scores, "random scores (baseline)": random_scores}
    fig, (left, right) = _figure(2)
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
    pair = dict(list(scores.items())[:2]) if len(scores) > 1 else curves
    PairedDifferenceDisplay.from_predictions(
        test.target, pair, groups=test.groups, metric="ndcg@10", ax=right
    )
    fig.savefig(path)
