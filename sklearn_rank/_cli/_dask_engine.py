"""``--engine dask`` for ``sklearn-rank eval`` and ``compare``: a Parquet dataset
(a directory of files, or one file) evaluated by :mod:`sklearn_rank.dask`, on a
local cluster or on the scheduler given by ``--scheduler``. The numbers and the
output are those of the in-memory path on the same table."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
from collections.abc import Iterator

ENGINES = ("memory", "dask")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--scheduler``."""
    scale = parser.add_argument_group("beyond one machine (docs/scale.md)")
    scale.add_argument(
        "--engine",
        choices=ENGINES,
        default="memory",
        help="memory (default) or dask: a Parquet TABLE (a dataset directory or a "
        "file) evaluated partition by partition on a Dask cluster",
    )
    scale.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: the address of a running distributed scheduler "
        "(tcp://host:8786); default: a local cluster for this command",
    )


def check_input(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Usage errors of the dask engine's input (exit 2); a dataset directory is
    read as Parquet."""
    if args.scheduler and args.engine != "dask":
        parser.error("--scheduler needs --engine dask")
    if args.engine != "dask":
        return
    path = args.files[0]
    if args.input_format is None and (os.path.isdir(path) or path.endswith(".parquet")):
        args.input_format = "parquet"
    if len(args.files) != 1 or args.ranked_lists or args.input_format != "parquet":
        parser.error(
            "--engine dask reads one Parquet TABLE (a dataset directory or a "
            ".parquet file) with query, label and score columns"
        )


def check_measures(args: argparse.Namespace, parser, measures) -> None:
    """Measures the dask engine computes: the library's metrics, num_q, runid."""
    if args.engine != "dask":
        return
    for m in measures:
        if (m.metric is None and m.label not in ("num_q", "runid")) or m.gains:
            parser.error(
                f"measure {m.label} is not available with --engine dask; use the "
                "library's metric names (ndcg@10, map, ...)"
            )


@contextlib.contextmanager
def client(address: str | None) -> Iterator[object]:
    """A distributed Client on ``address``, or on a local cluster."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            '--engine dask needs Dask: pip install "sklearn-rank[dask]"'
        ) from exc
    if address:
        with distributed.Client(address) as c:
            yield c
        return
    with (
        distributed.LocalCluster(
            processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _frame(args: argparse.Namespace):
    import dask.dataframe as dd

    scores = args.score_col or ["score"]
    frame = dd.read_parquet(
        args.files[0], columns=[args.query_col, args.label_col, *scores]
    )
    # Query ids as text, as the in-memory reader makes them (same order of output).
    query = frame[args.query_col].astype(str)
    return frame.assign(**{args.query_col: query}), scores


def per_run(args: argparse.Namespace, metrics: list[str], keywords: dict):
    """{score column: (means, per-group frame)} for every run, computed in one
    pass over the data."""
    import dask

    from .. import dask as srd

    frame, scores = _frame(args)
    common = {
        "y_true": args.label_col,
        "groups": args.query_col,
        "metrics": metrics,
        **keywords,
    }
    per_group = {k: v for k, v in common.items() if k != "undefined"}
    means = [srd.evaluate(frame, col, compute=False, **common) for col in scores]
    groups = [srd.evaluate_per_group(frame, col, **per_group) for col in scores]
    found_means = dask.compute(*means)
    found_groups = dask.compute(*groups)
    return {
        col: (m, g.sort_index())
        for col, m, g in zip(scores, found_means, found_groups, strict=True)
    }


def run_eval(args, measures, keywords, options):
    """The RunResult of every score column, as the in-memory path prints them."""
    import numpy as np

    from ._output import RunResult

    metrics = list(dict.fromkeys(m.metric for m in measures if m.metric))
    with client(args.scheduler):
        found = per_run(args, metrics, keywords)
    results = []
    for col, (means, groups) in found.items():
        summary: dict[str, object] = {}
        for m in measures:
            if m.metric is not None:
                summary[m.label] = float(means[m.metric])
            elif m.label == "num_q":
                summary[m.label] = len(groups)
            else:
                summary[m.label] = col
        per_query: dict[str, dict[str, object]] = {}
        if args.per_query:
            fill = options.undefined
            for qid, row in groups.iterrows():
                values = {}
                for m in measures:
                    if m.metric is None:
                        continue
                    value = float(row[m.metric])
                    if np.isnan(value) and isinstance(fill, float):
                        value = fill
                    values[m.label] = value
                per_query[str(qid)] = values
        results.append(RunResult(name=col, summary=summary, per_query=per_query))
    return results


def group_scores(args, metrics, keywords):
    """{run name: GroupScores} for ``compare``."""
    from ..dask import to_group_scores

    with client(args.scheduler):
        found = per_run(args, metrics, keywords)
    return {col: to_group_scores(groups) for col, (_, groups) in found.items()}
