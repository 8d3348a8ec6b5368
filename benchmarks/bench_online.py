#!/usr/bin/env python
"""Benchmark of sklearn_rank.online as ratios to one ``evaluate`` of the same size.

Every figure is a ratio measured side by side in one run, on the same impression
log (``--rows`` rows in ``--groups`` groups, positions 1..rows/groups, graded
labels, two rankers' scores, clicks from the position-based simulator):

* ``evaluate`` (NDCG@10, MAP, MRR on labels and one score): the unit;
* ``online_metrics_per_group`` (all six metrics) and ``ctr_by_position``;
* ``simulate_clicks`` (position-based and cascade);
* ``ips_estimate`` of a new ranker's DCG@10 with IPS, clipped IPS and SNIPS (no
  interval), and with a 200-resample percentile interval;
* ``propensity_from_swaps`` and ``propensity_regression_em`` (per-item relevance,
  ``--em-iter`` iterations);
* ``interleave`` (team-draft, balanced) and ``interleaving_outcome``.

Times are medians of ``--repeats`` interleaved rounds after one warm-up. Run
``python benchmarks/bench_online.py --help``; results in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sklearn_rank import evaluate
from sklearn_rank.online import (
    ctr_by_position,
    interleave,
    interleaving_outcome,
    ips_estimate,
    online_metrics_per_group,
    propensity_from_swaps,
    propensity_regression_em,
    simulate_clicks,
)

EXAM = 1.0 / np.arange(1, 101)


def make_log(n_rows: int, n_groups: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Shuffled rows of equal-size groups: labels, two scores, logged positions."""
    rng = np.random.default_rng(seed)
    size = n_rows // n_groups
    groups = np.repeat(np.arange(n_groups), size)
    y = rng.binomial(1, 0.3, groups.size) * rng.integers(1, 4, groups.size)
    logged = np.round(y + rng.normal(size=groups.size), 3)
    new = np.round(y + rng.normal(scale=0.8, size=groups.size), 3)
    order = np.lexsort((-logged, groups))
    position = np.empty(groups.size, dtype=np.int64)
    position[order] = np.tile(np.arange(1, size + 1), n_groups)
    perm = rng.permutation(groups.size)  # rows arrive in no particular order
    return {
        "groups": groups[perm],
        "y": y[perm],
        "logged": logged[perm],
        "new": new[perm],
        "position": position[perm],
        "item": rng.integers(0, max(n_groups // 10, 1), groups.size)[perm],
    }


def timed(items: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    for fn in items.values():
        fn()
    times: dict[str, list[float]] = {k: [] for k in items}
    for _ in range(repeats):
        for name, fn in items.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--em-iter", type=int, default=20)
    args = parser.parse_args(argv)
    d = make_log(args.rows, args.groups)
    g, pos = d["groups"], d["position"]
    size = args.rows // args.groups
    exam = EXAM[:size]
    clicks = simulate_clicks(
        d["y"], groups=g, position=pos, examination=exam, random_state=0
    )
    inter = interleave(d["logged"], d["new"], groups=g, random_state=0)
    inter_clicks = simulate_clicks(
        d["y"], groups=g, position=inter.position, examination=exam, random_state=1
    )

    def ips(estimator, clip=None, **kw):
        return lambda: ips_estimate(
            clicks,
            groups=g,
            position=pos,
            new_score=d["new"],
            propensity=exam,
            metric="dcg@10",
            estimator=estimator,
            clip=clip,
            **kw,
        )

    items = {
        "evaluate (ndcg@10, map, mrr)": lambda: evaluate(d["y"], d["logged"], groups=g),
        "online_metrics_per_group (6 metrics)": lambda: online_metrics_per_group(
            clicks, groups=g, position=pos
        ),
        "ctr_by_position": lambda: ctr_by_position(clicks, position=pos),
        "simulate_clicks position_based": lambda: simulate_clicks(
            d["y"], groups=g, position=pos, examination=exam, random_state=0
        ),
        "simulate_clicks cascade": lambda: simulate_clicks(
            d["y"], groups=g, position=pos, model="cascade", random_state=0
        ),
        "ips_estimate ips dcg@10": ips("ips"),
        "ips_estimate clipped_ips dcg@10": ips("clipped_ips", 0.2),
        "ips_estimate snips dcg@10": ips("snips"),
        "ips_estimate ips + 200-resample CI": ips(
            "ips",
            confidence_level=0.95,
            n_resamples=200,
            method="percentile",
            random_state=0,
        ),
        "propensity_from_swaps": lambda: propensity_from_swaps(
            clicks, position=pos, logged_position=pos
        ),
        f"propensity_regression_em ({args.em_iter} iterations)": lambda: (
            propensity_regression_em(
                clicks, position=pos, item=d["item"], max_iter=args.em_iter, tol=1e-300
            )
        ),
        "interleave team_draft": lambda: interleave(
            d["logged"], d["new"], groups=g, random_state=0
        ),
        "interleave balanced": lambda: interleave(
            d["logged"], d["new"], groups=g, method="balanced", random_state=0
        ),
        "interleaving_outcome": lambda: interleaving_outcome(
            inter_clicks, inter, groups=g
        ),
    }
    import warnings

    load = os.getloadavg()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the EM's notices, clipped swap ratios
        times = timed(items, args.repeats)
    unit = times["evaluate (ndcg@10, map, mrr)"]
    print(
        f"### {args.rows:,} rows, {args.groups:,} groups; median of "
        f"{args.repeats} after a warm-up"
    )
    print(
        f"machine: {os.cpu_count()} CPUs, python {platform.python_version()}, "
        f"numpy {np.__version__}; load average at start "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, at end "
        f"{os.getloadavg()[0]:.1f}"
    )
    print()
    print("| call | seconds | x evaluate |")
    print("|---|---:|---:|")
    for name, t in times.items():
        print(f"| {name} | {t:.3f} | {t / unit:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
