"""Scale benchmark: grouped evaluation of a Parquet dataset with Dask and Spark.

Writes ROWS rows in ROWS / 100 groups (ragged lists of 50..150 rows, graded
labels, scores with ties) as a Parquet dataset partitioned by query (each file
holds whole groups), then times, in one run:

- in-memory ``sklearn_rank.evaluate`` on the same rows (read from the Parquet
  files into memory first; the read is timed apart),
- ``sklearn_rank.dask.evaluate`` on 1 and on 2 worker processes (one thread
  each, the given memory limit), with ``partitioned_by_group=True`` (no shuffle),
  and with the shuffle by group (``--shuffle``),
- ``sklearn_rank.spark.evaluate`` on ``local[2]`` (``--spark``),

and prints wall times (median of ``--repeat`` runs), the overhead ratio to the
in-memory engine, the 1 -> 2 worker throughput ratio, and each worker's peak
resident memory. Every engine's numbers are checked against the in-memory ones.

    python benchmarks/bench_scale.py --rows 10_000_000 --spark
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

METRICS = ["ndcg@10", "map", "mrr"]


def write_dataset(path: str, rows: int, files: int, seed: int = 0) -> int:
    """``rows`` rows of ragged groups, written file by file (never all in
    memory), each file holding whole groups. Returns the number of groups."""
    import pandas as pd

    os.makedirs(path, exist_ok=True)
    rng = np.random.default_rng(seed)
    per_file = rows // files
    first = 0
    for i in range(files):
        sizes = rng.integers(50, 151, size=per_file // 100 + 2)
        cut = np.searchsorted(np.cumsum(sizes), per_file)
        sizes = sizes[: cut + 1]
        sizes[-1] -= sizes.sum() - per_file  # exactly per_file rows
        sizes = sizes[sizes > 0]
        qid = np.repeat(np.arange(first, first + sizes.size, dtype=np.int64), sizes)
        first += sizes.size
        n = qid.size
        frame = pd.DataFrame(
            {
                "qid": qid,
                "label": rng.integers(0, 4, size=n).astype(np.float32),
                "score": np.round(rng.random(n), 3),  # ties within groups
            }
        )
        frame.to_parquet(os.path.join(path, f"part-{i:04d}.parquet"), index=False)
    return first


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB: VmHWM of /proc/self/status
    (Linux), which starts afresh at exec. Not ru_maxrss: it survives fork and
    exec, so a worker started by a client holding the in-memory copy of the
    data would report the client's memory."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(call, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def in_memory(path: str, repeat: int):
    import pandas as pd

    import sklearn_rank

    start = time.perf_counter()
    frame = pd.read_parquet(path)
    read = time.perf_counter() - start
    y, s, g = (frame[c].to_numpy() for c in ("label", "score", "qid"))
    seconds, result = timed(
        lambda: sklearn_rank.evaluate(y, s, groups=g, metrics=METRICS), repeat
    )
    return read, seconds, result


def on_dask(path: str, workers: int, memory: str, repeat: int, shuffle: bool):
    import dask.dataframe as dd
    import distributed

    import sklearn_rank.dask as srd

    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            memory_limit=memory,
            dashboard_address=":0",
            silence_logs=40,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):

        def run():
            frame = dd.read_parquet(path)
            return srd.evaluate(
                frame, metrics=METRICS, partitioned_by_group=not shuffle
            )

        seconds, result = timed(run, repeat)
        peaks = client.run(peak_rss_mib)
    return seconds, result, sorted(peaks.values())


def on_spark(path: str, repeat: int):
    from pyspark.sql import SparkSession

    import sklearn_rank.spark as srs

    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter() - start
    frame = spark.read.parquet(path)
    seconds, result = timed(lambda: srs.evaluate(frame, metrics=METRICS), repeat)
    spark.stop()
    return started, seconds, result


def check(name: str, found: dict, expected: dict) -> None:
    for metric, value in expected.items():
        if abs(found[metric] - value) > 1e-12 * max(1.0, abs(value)):
            sys.exit(f"{name}: {metric} = {found[metric]!r}, in memory {value!r}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--memory", default="1GiB", help="memory limit per worker")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shuffle", action="store_true", help="time the shuffle too")
    parser.add_argument("--spark", action="store_true", help="time Spark local[2]")
    parser.add_argument("--no-memory", action="store_true", help="skip in-memory")
    parser.add_argument("--dir", default=None, help="where to write the dataset")
    args = parser.parse_args(argv)

    root = args.dir or tempfile.mkdtemp(prefix="sklearn_rank_scale_")
    path = os.path.join(root, "rows")
    try:
        start = time.perf_counter()
        groups = write_dataset(path, args.rows, args.files)
        print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")
        print(
            f"{args.rows:,} rows in {groups:,} groups, {args.files} Parquet files "
            f"(written in {time.perf_counter() - start:.1f} s)"
        )
        expected = None
        if not args.no_memory:
            read, base, expected = in_memory(path, args.repeat)
            print(f"in-memory evaluate: {base:.2f} s (read {read:.2f} s)")
        rows = []
        for workers in (1, 2):
            modes = [False, True] if args.shuffle else [False]
            for shuffle in modes:
                seconds, found, peaks = on_dask(
                    path, workers, args.memory, args.repeat, shuffle
                )
                if expected is not None:
                    check("dask", found, expected)
                expected = expected or found
                rows.append((workers, shuffle, seconds))
                label = "shuffled by group" if shuffle else "partitioned by group"
                ratio = "" if args.no_memory else f", {seconds / base:.2f}x in-memory"
                print(
                    f"dask, {workers} worker(s), {label}: {seconds:.2f} s{ratio}; "
                    f"peak RSS per worker {', '.join(f'{p:.0f}' for p in peaks)} MiB"
                )
        one = next(s for w, sh, s in rows if w == 1 and not sh)
        two = next(s for w, sh, s in rows if w == 2 and not sh)
        print(f"throughput 2 workers / 1 worker: {one / two:.2f}")
        if args.spark:
            started, seconds, found = on_spark(path, args.repeat)
            check("spark", found, expected)
            print(
                f"spark local[2]: {seconds:.2f} s ({seconds / two:.2f}x dask on 2 "
                f"workers); session start-up {started:.1f} s"
            )
        print(f"load: {os.getloadavg()[0]:.2f}")
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
