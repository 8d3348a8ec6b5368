"""Evaluate a Parquet dataset larger than the Dask workers' memory limit.

The example of docs/scale.md. It writes ROWS rows (one file at a time, so the
writer never holds the data either) as a Parquet dataset partitioned by query,
starts a local cluster of two worker processes with a memory limit well below
the data's size in memory, and evaluates the dataset with
``sklearn_rank.dask.evaluate(..., partitioned_by_group=True)``: each task reads
one file, runs the in-memory engine on its whole groups and sends back a few
sums, so a worker holds one file's rows at a time. It prints the data's size
against the limit, the result, each worker's peak memory, and checks the
numbers against the in-memory engine run one file at a time on the client
(the per-group values are the same, and so is their weighted mean).

    python benchmarks/larger_than_memory.py               # 60M rows, 2 x 400 MiB
    python benchmarks/larger_than_memory.py --rows 100_000_000 --memory 1GiB
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_scale import METRICS, peak_rss_mib, write_dataset


def reference(path: str) -> dict[str, float]:
    """The in-memory engine's per-group values, one file at a time, averaged
    over the defined groups: the number evaluate gives on all rows at once."""
    import pandas as pd

    import sklearn_rank

    sums = {m: 0.0 for m in METRICS}
    counts = {m: 0.0 for m in METRICS}
    for name in sorted(glob.glob(os.path.join(path, "*.parquet"))):
        frame = pd.read_parquet(name)
        res = sklearn_rank.evaluate_per_group(
            frame["label"].to_numpy(),
            frame["score"].to_numpy(),
            groups=frame["qid"].to_numpy(),
            metrics=METRICS,
        )
        for m in METRICS:
            # A group without a relevant row (the short last group of a file
            # can have one) is undefined (NaN) and left out of the mean, as
            # evaluate does by default: count only the defined groups.
            defined = ~np.isnan(res.values[m])
            sums[m] += float(np.sum(res.values[m][defined] * res.weights[m][defined]))
            counts[m] += float(np.sum(res.weights[m][defined]))
    return {m: sums[m] / counts[m] for m in METRICS}


def main(argv=None) -> int:
    import dask
    import dask.dataframe as dd
    import distributed

    import sklearn_rank.dask as srd

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=60_000_000)
    parser.add_argument("--files", type=int, default=120)
    parser.add_argument("--memory", default="400MiB", help="limit per worker")
    args = parser.parse_args(argv)

    root = tempfile.mkdtemp(prefix="sklearn_rank_ltm_")
    path = os.path.join(root, "rows")
    try:
        start = time.perf_counter()
        write_dataset(path, args.rows, args.files)
        frame = dd.read_parquet(path)
        in_memory = frame.memory_usage(deep=True).sum().compute() / 2**20
        limit = dask.utils.parse_bytes(args.memory) / 2**20
        print(
            f"{args.rows:,} rows, {in_memory:,.0f} MiB in memory, {args.files} files "
            f"(written in {time.perf_counter() - start:.0f} s); 2 workers of "
            f"{limit:,.0f} MiB each: the data is {in_memory / limit:.1f}x one "
            f"worker's limit, {in_memory / (2 * limit):.1f}x both"
        )
        with (
            distributed.LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                memory_limit=args.memory,
                dashboard_address=":0",
            ) as cluster,  # its memory warnings (pausing, spilling) are shown
            distributed.Client(cluster) as client,
        ):
            before = set(client.scheduler_info()["workers"])
            start = time.perf_counter()
            found = srd.evaluate(
                dd.read_parquet(path), metrics=METRICS, partitioned_by_group=True
            )
            seconds = time.perf_counter() - start
            peaks = sorted(client.run(peak_rss_mib).values())
            if set(client.scheduler_info()["workers"]) != before:
                sys.exit("a worker was restarted (out of memory?) during the run")
        print("no worker restarted")
        print(f"dask: {found} in {seconds:.1f} s")
        print(f"peak RSS per worker: {', '.join(f'{p:.0f}' for p in peaks)} MiB")
        expected = reference(path)
        for m in METRICS:
            if abs(found[m] - expected[m]) > 1e-12:
                sys.exit(f"{m}: {found[m]!r} != in-memory {expected[m]!r}")
        print("equal to the in-memory engine (file by file) to 1e-12")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
