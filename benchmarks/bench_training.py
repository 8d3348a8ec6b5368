#!/usr/bin/env python
"""Train-time evaluation (issue 42): a prepared evaluation against a cold
``evaluate`` of the same metrics, side by side in one run.

Every call scores a new set of scores (as a validation set after each boosting
round): the cold call encodes groups, checks labels and recomputes the ideal DCG
and relevant counts each time; the prepared one made them once. Figures are
medians of interleaved rounds after a warm-up; the ratio is what counts.

Run ``python benchmarks/bench_training.py [--rows 1000000] [--groups 10000]``.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sklearn_rank as sr

METRICS = ("ndcg@10", "map", "mrr")


def prepared_vs_cold(n_rows, n_groups, repeats, metrics=METRICS, ties=None):
    rng = np.random.default_rng(0)
    groups = rng.integers(0, n_groups, n_rows)
    y = rng.integers(0, 5, n_rows).astype(float)
    scores = [rng.normal(size=n_rows) for _ in range(repeats + 1)]
    opts = {} if ties is None else {"ties": ties}
    t0 = time.perf_counter()
    prepared = sr.prepare(y, groups=groups, metrics=metrics, **opts)
    t_prepare = time.perf_counter() - t0
    cold, warm = [], []
    for i, s in enumerate(scores):  # interleaved; the first round is a warm-up
        t0 = time.perf_counter()
        a = sr.evaluate(y, s, groups=groups, metrics=metrics, **opts)
        t1 = time.perf_counter()
        b = prepared.evaluate(s)
        t2 = time.perf_counter()
        assert a == b, (a, b)
        if i:
            cold.append(t1 - t0)
            warm.append(t2 - t1)
    c, w = statistics.median(cold), statistics.median(warm)
    return {"prepare_s": t_prepare, "cold_s": c, "prepared_s": w, "ratio": w / c}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(
        f"prepared evaluate vs cold evaluate, {args.rows} rows, "
        f"{args.groups} groups, median of {args.repeats}"
    )
    for ties in (None, "stable"):
        r = prepared_vs_cold(args.rows, args.groups, args.repeats, ties=ties)
        print(
            f"  metrics={list(METRICS)} ties={ties or 'default'}: "
            f"cold {r['cold_s'] * 1e3:.1f} ms, prepared {r['prepared_s'] * 1e3:.1f}"
            f" ms, ratio {r['ratio']:.2f}x (prepare once: "
            f"{r['prepare_s'] * 1e3:.1f} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
