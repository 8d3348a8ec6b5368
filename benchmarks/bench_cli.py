#!/usr/bin/env python
"""Benchmark of ``sklearn-rank eval`` against trec_eval on the same TREC files.

Generates a run of ``--lines`` lines over ``--queries`` queries and ``--qrels``
judgments (deterministic), then measures, in interleaved rounds (each command once
per round, medians over rounds):

* end to end, process start to output: wall time and peak memory (the child's
  ``ru_maxrss`` from ``os.wait4``) of ``python -m sklearn_rank eval`` and of
  trec_eval, five measures, and whether both print the same lines;
* reading alone: the package's run reader in MB/s of run file, and ranx and
  ir_measures reading the same files when installed (the ``bench`` extra).

trec_eval is not part of this repository: build it from its public source
(github.com/usnistgov/trec_eval, ``make``) and pass the binary with
``--trec-eval PATH`` or the ``TREC_EVAL`` environment variable; without it the
trec_eval rows are skipped with a message.

Run ``python benchmarks/bench_cli.py --help``; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TREC_MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank"]
TREC_MEASURES += ["-m", "recall.100"]


def make_files(folder: Path, lines: int, queries: int, qrels: int, seed: int = 0):
    """A run (``lines`` lines, ``lines // queries`` per query) and qrels that judge
    half retrieved and half unretrieved documents."""
    rng = np.random.default_rng(seed)
    per = lines // queries
    q = np.repeat(np.arange(queries), per)
    docs = rng.integers(0, 50_000_000, size=q.size)
    scores = np.round(rng.normal(size=q.size), 4)  # 4 decimals: some ties
    rank = np.tile(np.arange(1, per + 1), queries)
    run_path = folder / "run.txt"
    with open(run_path, "w") as f:
        f.writelines(
            f"q{a} Q0 doc{b:08d} {c} {d:.4f} bench\n"
            for a, b, c, d in zip(
                q.tolist(), docs.tolist(), rank.tolist(), scores.tolist(), strict=True
            )
        )
    per_q = qrels // queries
    qrels_path = folder / "qrels.txt"
    with open(qrels_path, "w") as f:
        for i in range(queries):
            block = docs[i * per : (i + 1) * per]
            seen = rng.choice(np.unique(block), per_q // 2, replace=False)
            unseen = rng.integers(50_000_000, 99_999_999, per_q - per_q // 2)
            judged = np.unique(np.concatenate([seen, unseen]))
            grades = rng.integers(0, 3, judged.size)
            f.writelines(
                f"q{i} 0 doc{d:08d} {g}\n"
                for d, g in zip(judged.tolist(), grades.tolist(), strict=True)
            )
    return qrels_path, run_path


def run_measured(cmd: list[str], env: dict | None = None) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in bytes, stdout) of one child process.

    Peak memory comes from GNU time when installed: Linux carries a forked
    child's high-water mark across exec, so a child forked straight from this
    Python process would report at least this process's size.
    """
    gnu_time = shutil.which("time") or "/usr/bin/time"
    with tempfile.NamedTemporaryFile("r") as peak_file:
        use_time = os.access(gnu_time, os.X_OK)
        full = [gnu_time, "-f", "%M", "-o", peak_file.name, *cmd] if use_time else cmd
        start = time.perf_counter()
        proc = subprocess.Popen(
            full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        out = proc.stdout.read()
        proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"{cmd[0]} failed with status {status}")
        text = peak_file.read().strip().splitlines()
        peak_kb = int(text[-1]) if use_time and text else usage.ru_maxrss
    return wall, peak_kb * 1024, out.decode()


def end_to_end(
    qrels: Path, run: Path, trec_eval: str | None, repeat: int, pycache: str
):
    # Bytecode as an installed package has it (pip compiles .pyc files at
    # install): written once to a private cache by the warm-up run, even where
    # PYTHONDONTWRITEBYTECODE is set, instead of compiling every module per run.
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    commands = {
        "sklearn-rank eval": [
            sys.executable,
            "-m",
            "sklearn_rank",
            "eval",
            "--quiet",
            *TREC_MEASURES,
            str(qrels),
            str(run),
        ],
    }
    if trec_eval:
        commands["trec_eval"] = [trec_eval, *TREC_MEASURES, str(qrels), str(run)]
    times = {k: [] for k in commands}
    peaks = {k: [] for k in commands}
    outputs = {}
    for cmd in commands.values():  # warm-up: bytecode, page cache
        run_measured(cmd, env)
    for _ in range(repeat):
        for name, cmd in commands.items():
            wall, peak, out = run_measured(cmd, env)
            times[name].append(wall)
            peaks[name].append(peak)
            outputs[name] = out
    same = None
    if trec_eval:
        same = outputs["sklearn-rank eval"] == outputs["trec_eval"]
    return (
        {k: statistics.median(v) for k, v in times.items()},
        {k: statistics.median(v) for k, v in peaks.items()},
        same,
    )


def reading(qrels: Path, run: Path, repeat: int) -> dict[str, float]:
    """Seconds (median) to read the run (and qrels) per reader."""
    sys.path.insert(0, str(REPO))
    from sklearn_rank.io import read_run
    from sklearn_rank.io._trec_parse import _parse_qrels, _parse_run

    readers = {
        "sklearn_rank (CLI path: codes, rank column skipped)": lambda: _parse_run(
            run, ranks=False
        ),
        "sklearn_rank.io.read_run (public: str arrays)": lambda: read_run(run),
        "sklearn_rank qrels + run (CLI path)": lambda: (
            _parse_qrels(qrels),
            _parse_run(run, ranks=False),
        ),
    }
    try:
        import ranx

        readers["ranx Run.from_file"] = lambda: ranx.Run.from_file(
            str(run), kind="trec"
        )
    except ImportError:
        print("ranx not installed: skipped (pip install -e '.[bench]')")
    try:
        import ir_measures

        readers["ir_measures read_trec_run (list)"] = lambda: list(
            ir_measures.read_trec_run(str(run))
        )
    except ImportError:
        print("ir_measures not installed: skipped (pip install -e '.[bench]')")
    for read in readers.values():
        read()  # warm-up (imports, ranx's numba compilation)
    times = {k: [] for k in readers}
    for _ in range(repeat):
        for name, read in readers.items():
            start = time.perf_counter()
            read()
            times[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--qrels", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--trec-eval",
        default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"),
        help="trec_eval binary (default: $TREC_EVAL, then trec_eval on PATH)",
    )
    args = parser.parse_args(argv)
    trec_eval = args.trec_eval
    if not trec_eval or not os.access(trec_eval, os.X_OK):
        print(
            "trec_eval not found: its rows are skipped. Build it from "
            "github.com/usnistgov/trec_eval (make) and pass --trec-eval PATH."
        )
        trec_eval = None
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = make_files(Path(tmp), args.lines, args.queries, args.qrels)
        size = run.stat().st_size
        print(
            f"# {args.lines:,} run lines ({size / 1e6:.1f} MB), {args.queries:,} "
            f"queries, {sum(1 for _ in open(qrels)):,} qrels lines; medians of "
            f"{args.repeat}; {platform.platform()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, numpy {np.__version__}; "
            f"load average at start {os.getloadavg()[0]:.2f}\n"
        )
        times, peaks, same = end_to_end(
            qrels, run, trec_eval, args.repeat, os.path.join(tmp, "pycache")
        )
        print("| end to end, 5 measures | wall (s) | peak memory (MB) |")
        print("|---|---:|---:|")
        for name in times:
            print(f"| {name} | {times[name]:.2f} | {peaks[name] / 2**20:.0f} |")
        if trec_eval:
            ours, theirs = "sklearn-rank eval", "trec_eval"
            print(
                f"\nratios to trec_eval: wall {times[ours] / times[theirs]:.2f}x "
                f"(target <= 0.75x), peak memory {peaks[ours] / peaks[theirs]:.2f}x "
                f"(target <= 3x); identical output: {same}\n"
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}\n")
        read = reading(qrels, run, args.repeat)
        print("| reading | time (s) | MB/s of run file |")
        print("|---|---:|---:|")
        for name, seconds in read.items():
            print(f"| {name} | {seconds:.2f} | {size / 1e6 / seconds:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
