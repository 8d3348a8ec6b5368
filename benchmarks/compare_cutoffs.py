#!/usr/bin/env python
"""Side-by-side timing of one metric at many cutoffs in two checkouts.

Two calls, each in a fresh process per (round, checkout), checkouts alternating in
every round so load drifts hit both alike: ``evaluate`` with ``ndcg@1`` ...
``ndcg@20`` (one call), and ``MetricAtKDisplay.from_predictions`` at cutoffs
1..100 (Agg, figure closed). Both are also divided by ``np.lexsort`` of the same
rows in the same process (the sort floor). Prints one JSON line per process, then
the median of each ratio per checkout.

    python benchmarks/compare_cutoffs.py ../baseline . --rows 1e6 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _child(root: str, rows: int, repeats: int) -> None:
    sys.path[:0] = [os.path.abspath(root)]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    import sklearn_rank as srank
    from sklearn_rank.plot import MetricAtKDisplay

    rng = np.random.default_rng(0)
    groups = rng.integers(0, rows // 100, rows)
    y = rng.integers(0, 4, rows)
    score = rng.normal(size=rows).round(2)  # some ties
    names = [f"ndcg@{k}" for k in range(1, 21)]

    def many():
        return srank.evaluate(y, score, groups=groups, metrics=names)

    def display():
        disp = MetricAtKDisplay.from_predictions(
            y, score, groups=groups, metric="ndcg", k_max=100
        )
        plt.close(disp.figure_)

    def floor():
        return np.lexsort((-score, groups))

    out = {"root": root}
    for label, fn in (("evaluate_20_cutoffs", many), ("display_100_cutoffs", display)):
        fn()
        times, floors = [], []
        for _ in range(repeats):
            for f, acc in ((fn, times), (floor, floors)):
                t0 = time.perf_counter()
                f()
                acc.append(time.perf_counter() - t0)
        out[label] = statistics.median(times)
        out[label + "_ratio"] = out[label] / statistics.median(floors)
    print(json.dumps(out), flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("roots", nargs="*", help="two checkouts (before, after)")
    p.add_argument("--rows", type=lambda x: int(float(x)), default=1_000_000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--_child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args._child:
        _child(args._child, args.rows, args.repeats)
        return 0
    if len(args.roots) != 2:
        p.error("give two checkouts: before, after")
    results: dict[str, list[dict]] = {r: [] for r in args.roots}
    for _ in range(args.rounds):
        for root in args.roots:
            cmd = [sys.executable, __file__, "--_child", root, "--rows", str(args.rows)]
            cmd += ["--repeats", str(args.repeats)]
            line = subprocess.run(cmd, capture_output=True, text=True, check=True)
            print(line.stdout.strip(), flush=True)
            results[root].append(json.loads(line.stdout))
    for root, rows in results.items():
        keys = [k for k in rows[0] if k != "root"]
        summary = {k: round(statistics.median(r[k] for r in rows), 4) for k in keys}
        print(root, json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
