#!/usr/bin/env python
"""``sklearn-rank eval -q -m all_trec`` against trec_eval on the same TREC files.

Uses bench_cli.py's files (a run of ``--lines`` lines over ``--queries`` queries,
``--qrels`` judgments with grades 0-2) and its measurement of one child process
(wall time, peak memory); each command runs once per round after a warm-up, and
the medians over the rounds are printed with their ratio, and whether the two
outputs agree line for line once the lines trec_eval prints and ``eval`` refuses
are left out (``rbp`` on graded judgments; see docs/metrics.md §2.26).

    python benchmarks/bench_cli_all_trec.py --trec-eval PATH [--repeat 7]

``bench_cli.py --large FOLDER`` times ``-q -m all_trec`` and every other measure
set of issue 28 on 5M run lines, with memory and the table formats.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--qrels", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--trec-eval",
        default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"),
        help="trec_eval binary built from its public source",
    )
    args = parser.parse_args()
    if not args.trec_eval:
        sys.exit("needs --trec-eval PATH (or TREC_EVAL)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_cli.make_files(folder, args.lines, args.queries, args.qrels)
        env = dict(os.environ, PYTHONPATH=str(bench_cli.REPO))
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        files = [str(folder / "qrels.txt"), str(folder / "run.txt")]
        flags = ["-q", "-m", "all_trec"]
        commands = {
            "sklearn-rank eval": [
                sys.executable,
                *("-m", "sklearn_rank", "eval", "--quiet"),
                *flags,
                *files,
            ],
            "trec_eval": [args.trec_eval, *flags, *files],
        }
        for cmd in commands.values():  # warm-up: bytecode, page cache
            bench_cli.run_measured(cmd, env)
        wall = {k: [] for k in commands}
        peak = {k: [] for k in commands}
        out = {}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                seconds, memory, text = bench_cli.run_measured(cmd, env)
                wall[name].append(seconds)
                peak[name].append(memory)
                out[name] = text
    print(f"load average: {os.getloadavg()}")
    for name in commands:
        print(
            f"{name}: wall median {statistics.median(wall[name]):.2f} s "
            f"{[round(x, 2) for x in wall[name]]}, peak "
            f"{statistics.median(peak[name]) / 2**20:.0f} MiB"
        )
    ratio = statistics.median(wall["sklearn-rank eval"]) / statistics.median(
        wall["trec_eval"]
    )
    print(f"wall ratio eval / trec_eval: {ratio:.2f}")
    ours = out["sklearn-rank eval"].splitlines()
    theirs = [
        line for line in out["trec_eval"].splitlines() if not line.startswith("rbp ")
    ]
    print(f"lines: {len(ours)}; same as trec_eval's (less rbp): {ours == theirs}")


if __name__ == "__main__":
    main()
