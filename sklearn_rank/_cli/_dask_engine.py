"""``--engine dask`` for ``sklearn-rank eval`` and ``compare``: a Parquet dataset
(a directory of files, or one file) evaluated by :mod:`sklearn_rank.dask`, on a
local cluster or on the scheduler given by ``--scheduler``. The numbers and the
output are those of the in-memory path on the same table."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

_ERROR = 40  # logging.ERROR, without importing logging at start-up

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
    scale.add_argument(
        "--partitioned-by-query",
        action="store_true",
        help="with --engine dask: every query's rows are in one file (or row "
        "group) of TABLE, so no shuffle is needed (checked: an id found in two "
        "partitions is an error)",
    )


def check_input(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Usage errors of the dask engine's input (exit 2); a dataset directory is
    read as Parquet."""
    if args.scheduler and args.engine != "dask":
        parser.error("--scheduler needs --engine dask")
    if getattr(args, "partitioned_by_query", False) and args.engine != "dask":
        parser.error("--partitioned-by-query needs --engine dask")
    if args.engine != "dask":
        return
    if getattr(args, "jobs", 1) != 1:
        parser.error(
            "-j runs the in-process engine on threads; --engine dask has "
            "its own workers (--scheduler)"
        )
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
            processes=True, dashboard_address=":0", silence_logs=_ERROR
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
    frame = frame.assign(**{args.query_col: query})
    qid = _debug_query(args)
    if qid is not None:  # -D 0.QID: that query only
        frame = frame[frame[args.query_col] == qid]
    return frame, scores


def _debug_query(args: argparse.Namespace) -> str | None:
    """The query of -D 0.QID (validated by the usage checks), or None."""
    debug = getattr(args, "debug", None)
    return None if debug is None else (debug.partition(".")[2] or None)


def per_run(args: argparse.Namespace, metrics: list[str], keywords: dict):
    """{score column: (means, per-group frame)} for every run, computed in one
    pass over the data: one read, one shuffle (none with --partitioned-by-query)
    for every score column; the means come from the per-group values through
    the distributed front-end's own reduction."""
    import dask

    from .. import dask as srd
    from .._distributed import frontend as front
    from .._distributed import partitions as parts

    frame, scores = _frame(args)
    per_group = {k: v for k, v in keywords.items() if k != "undefined"}
    common = {
        "y_true": args.label_col,
        "groups": args.query_col,
        "metrics": metrics,
        "partitioned_by_group": bool(getattr(args, "partitioned_by_query", False)),
    }
    lazy = srd.evaluate_per_group(frame, list(scores), **common, **per_group)
    found = dict(zip(lazy, dask.compute(*lazy.values()), strict=True))
    qid = _debug_query(args)
    out = {}
    for col in scores:
        groups = found[col].sort_index()
        if qid is not None and len(groups) == 0:
            raise ValueError(f"-D 0.{qid}: query {qid!r} is not in {args.files[0]}")
        names = {"y_true": args.label_col, "y_score": col, "groups": args.query_col}
        plan = front.make_plan(
            "evaluate",
            names,
            metrics,
            keywords.get("convention"),
            {k: v for k, v in keywords.items() if k != "convention"},
            False,
        )
        means = parts.finish(parts.partial(groups, plan), {}, plan)
        out[col] = (means, groups)
    return out


def run_eval(args, measures, keywords, options):
    """The RunResult of every score column, as the in-memory path prints them
    (z-scores under -Z)."""
    import numpy as np

    from ._output import RunResult

    metrics = list(dict.fromkeys(m.metric for m in measures if m.metric))
    zscores = None
    if getattr(args, "zscores", None) is not None:
        from ._zscores import read_zscores

        zscores = read_zscores(args.zscores)
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
        if args.per_query or zscores is not None:
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
        result = RunResult(name=col, summary=summary, per_query=per_query)
        if zscores is not None:
            from ._zscores import apply_zscores

            result = apply_zscores(result, [m.label for m in measures], zscores)
            if not args.per_query:
                result.per_query = {}
        results.append(result)
    return results


def group_scores(args, metrics, keywords):
    """{run name: GroupScores} for ``compare``."""
    from ..dask import to_group_scores

    with client(args.scheduler):
        found = per_run(args, metrics, keywords)
    return {col: to_group_scores(groups) for col, (_, groups) in found.items()}
