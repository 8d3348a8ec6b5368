#!/usr/bin/env python
"""Benchmark of the intent-aware metrics (issue 45): alpha-nDCG as a ratio to one
single-label NDCG call, and the growth of ndeval's greedy ideal.

Every figure is measured side by side in one run, on the same data:

* ``alpha_ndcg_score(k=20)`` on ``--rows`` rows x ``--intents`` intents (queries
  of ``--per-query`` rows, each (row, intent) relevant with probability
  ``--density``, grades 1-2 as int8), against ``ndcg_score(k=20)`` of the same
  rows with each row's largest grade: the ratio is the target of issue 45
  (<= 3x at 1M rows x 10 intents);
* the greedy ideal alone (the engine's ``greedy_ideal_gains``) at three sizes of
  rows x k per query with the same total rows: its time per (row x k) should not
  grow (one pass over the relevant pairs per ideal position);
* with ``--ties``, ``ties="average"`` (the expectation over the orders of each
  tie block) against ``ties="stable"`` for alpha-nDCG@20 and for every metric
  of the table in one ``evaluate_intents`` call, on the continuous scores (no
  tie: the same cost is the target) and on scores rounded to ``--round``
  decimals (tie blocks of about ``per-query / 10 ** round`` rows).

Times are medians of ``--repeats`` interleaved rounds after one warm-up round.
``--root`` times another checkout (a tree before a change) with this script:
``git worktree add --detach /tmp/intent_before main`` then
``python benchmarks/bench_intent.py --root /tmp/intent_before``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np


def _data(rows: int, intents: int, per_query: int, density: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    groups = np.arange(rows) // per_query
    relevant = rng.random((rows, intents)) < density
    grades = (relevant * rng.integers(1, 3, (rows, intents))).astype(np.int8)
    return grades, rng.random(rows), groups


def _median_times(funcs: dict, repeats: int, clock=time.perf_counter) -> dict:
    """Median seconds of each callable over interleaved rounds (one warm-up)."""
    times = {name: [] for name in funcs}
    for round_ in range(repeats + 1):
        for name, func in funcs.items():
            start = clock()
            func()
            if round_:
                times[name].append(clock() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def ratio_to_ndcg(args) -> None:
    from sklearn_rank import alpha_ndcg_score, ndcg_score

    grades, score, groups = _data(args.rows, args.intents, args.per_query, args.density)
    best = grades.max(axis=1)
    funcs = {
        "ndcg@20": lambda: ndcg_score(best, score, groups=groups, k=20),
        "alpha_ndcg@20": lambda: alpha_ndcg_score(grades, score, groups=groups, k=20),
    }
    print(
        f"{args.rows:,} rows x {args.intents} intents, {args.per_query} rows per "
        f"query, density {args.density}:"
    )
    # Wall time, then CPU time of this process (less sensitive to other load).
    for clock in (time.perf_counter, time.process_time):
        t = _median_times(funcs, args.repeats, clock)
        print(
            f"  {clock.__name__:<12} ndcg@20 {t['ndcg@20']:.3f} s, alpha_ndcg@20 "
            f"{t['alpha_ndcg@20']:.3f} s, ratio "
            f"{t['alpha_ndcg@20'] / t['ndcg@20']:.2f}x (target <= 3x)"
        )


def greedy_growth(args) -> None:
    from sklearn_rank._engine.context import RankingContext
    from sklearn_rank._engine.kernels.intent import greedy_ideal_gains, intent_view

    rows = args.rows // 4
    sizes = [(100, 10), (300, 20), (1000, 40)]  # rows per query, k
    funcs = {}
    for per_query, k in sizes:
        grades, score, groups = _data(rows, args.intents, per_query, args.density)
        ctx = RankingContext.from_inputs(
            grades.max(axis=1).astype(float),
            score,
            groups,
            int(groups[-1]) + 1,
            ties="stable",
        )
        view = intent_view(ctx, (grades > 0).astype(np.int8))
        funcs[per_query, k] = lambda c=ctx, v=view, k=k: greedy_ideal_gains(
            c, v, 0.5, k
        )
    t = _median_times(funcs, args.repeats)
    print(f"greedy ideal, {rows:,} rows x {args.intents} intents:")
    for (per_query, k), seconds in t.items():
        print(
            f"  {per_query:>5} rows per query, k={k:<3} {seconds:.3f} s, "
            f"{seconds / (rows * k) * 1e9:.2f} ns per row x k"
        )


def ties_average(args) -> None:
    from sklearn_rank import evaluate_intents

    grades, score, groups = _data(args.rows, args.intents, args.per_query, args.density)
    every = [
        "alpha_ndcg@20", "alpha_dcg@20", "err_ia@20", "nerr_ia@20", "nrbp", "nnrbp",
        "map_ia", "precision_ia@20", "subtopic_recall@20",
    ]  # fmt: skip
    for label, s in (("no ties", score), ("rounded", np.round(score, args.round))):
        funcs = {}
        for names in (["alpha_ndcg@20"], every):
            for ties in ("stable", "average"):
                funcs[len(names), ties] = lambda n=names, t=ties, s=s: evaluate_intents(
                    grades, s, groups=groups, metrics=n, ties=t
                )
        t = _median_times(funcs, args.repeats, time.process_time)
        print(f"ties, {label} ({args.rows:,} rows x {args.intents} intents, CPU s):")
        for n, what in ((1, "alpha_ndcg@20"), (len(every), "all 9 metrics")):
            a, b = t[n, "stable"], t[n, "average"]
            print(f"  {what:<14} stable {a:.3f}, average {b:.3f}, ratio {b / a:.2f}x")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--intents", type=int, default=10)
    parser.add_argument("--per-query", type=int, default=100)
    parser.add_argument("--density", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--root",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
        help="the checkout whose sklearn_rank is timed (default: this one)",
    )
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--ties", action="store_true", help="time ties='average'")
    parser.add_argument("--round", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.root))
    ratio_to_ndcg(args)
    if not args.skip_growth:
        greedy_growth(args)
    if args.ties:
        ties_average(args)


if __name__ == "__main__":
    main()
