#!/usr/bin/env python
"""Benchmark of the metric@k curves of sklearn_rank.plot.MetricAtKDisplay.

The ratio measured side by side in one run, on the same data: the data of
``MetricAtKDisplay`` for K cutoffs (``metric@1 .. metric@K`` as means over
groups, from one ordering: ``sklearn_rank._metrics.cutoff_curves.cutoff_curve``) divided
by one ``evaluate`` of the same data with one metric (``metric@10``). The next
column adds the (K, groups) array of per-group values (``CutoffCurve.values``,
expanded on access; confidence bands read the same values without it). Drawing
is not timed (matplotlib's cost does not grow with the rows). For comparison, one
``evaluate`` call naming all K cutoffs (one ordering, one kernel pass per cutoff)
is timed once too, unless ``--no-naive``.

Times are medians of ``--repeats`` interleaved rounds after one warm-up round.
Run ``python benchmarks/bench_plots.py --help``; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)  # this checkout's sklearn_rank


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--groups", type=float, default=1e4)
    parser.add_argument("--k", type=int, default=100, help="cutoffs 1..K")
    parser.add_argument("--metrics", default="ndcg,precision,recall,map,mrr")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-naive", action="store_true")
    args = parser.parse_args(argv)

    from sklearn_rank import evaluate
    from sklearn_rank._metrics.cutoff_curves import cutoff_curve

    rng = np.random.default_rng(0)
    n, g = int(args.rows), int(args.groups)
    groups = rng.integers(0, g, n)
    y = rng.integers(0, 5, n) * (rng.random(n) < 0.3)
    score = y * 0.3 + rng.normal(size=n)
    ks = np.arange(1, args.k + 1)
    print(f"{n} rows, {g} groups, K = {args.k} cutoffs, median of {args.repeats}")
    print(f"{'metric':<10} {'evaluate@10 (s)':>16} {'K cutoffs (s)':>14} "
          f"{'ratio':>6} {'+ values (s)':>13} {'ratio':>6} "
          f"{'K names, one evaluate':>22}")  # fmt: skip
    for metric in args.metrics.split(","):
        items = {
            "one": lambda m=metric: evaluate(y, score, groups=groups,
                                             metrics=[f"{m}@10"]),
            "curve": lambda m=metric: cutoff_curve("bench", y, score, groups=groups,
                                                   metric=m, ks=ks),
            "values": lambda m=metric: cutoff_curve("bench", y, score, groups=groups,
                                                    metric=m, ks=ks).values,
        }  # fmt: skip
        times = {k: [] for k in items}
        for round_ in range(args.repeats + 1):
            for name, fn in items.items():
                t0 = time.perf_counter()
                fn()
                if round_:  # the first round warms up
                    times[name].append(time.perf_counter() - t0)
        one = statistics.median(times["one"])
        curve = statistics.median(times["curve"])
        values = statistics.median(times["values"])
        naive = "-"
        if not args.no_naive:
            t0 = time.perf_counter()
            evaluate(y, score, groups=groups, metrics=[f"{metric}@{k}" for k in ks])
            naive = f"{(time.perf_counter() - t0) / one:.1f}"
        print(f"{metric:<10} {one:>16.3f} {curve:>14.3f} {curve / one:>6.2f} "
              f"{values:>13.3f} {values / one:>6.2f} {naive:>22}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
