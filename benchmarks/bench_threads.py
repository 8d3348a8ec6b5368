"""Threads over group shards (issue 48): ``evaluate(n_jobs=1)`` against
``n_jobs=2`` (or ``--jobs``), and XGBoost's C++ ``ndcg@10`` evaluator at
``nthread`` 1 and 2 on a ``DMatrix`` with query ids, side by side in one run.

Each layout is timed in rounds: every round runs each contender once, in
turn, so that the load of a shared machine falls on all of them alike; the
table shows medians over ``--repeat`` rounds, and the ratios of those medians
(ratios measured in the same run are what count on a busy machine). Every
threaded result is checked equal (``==``) to the single-threaded one first.

Layouts: ``--rows`` rows in groups of ~100 rows (``ragged``: 50-150 rows,
shuffled), ``skewed`` groups of ~100 rows on average (log-normal: 1 to ~1,500
rows at 1M, as search logs have them), tiny groups (1-3 rows), and 5 huge
groups; XGBoost on ``ragged`` and ``skewed``; graded labels 0..4, scores with
ties (two decimals); 5 metrics, ``ties="average"``.

    python benchmarks/bench_threads.py --rows 1_000_000 10_000_000 --repeat 3
    python benchmarks/bench_threads.py --rows 10_000_000 --jobs 1 2 4 8 16
    python benchmarks/bench_threads.py --rows 0 --resampling 5000 --jobs 1 2 4
    python benchmarks/bench_threads.py --rows 1_000_000 --evaluate-only --repeat 9

``faults``: the median minor page faults of one call (fresh pages from the
kernel; 0 where unknown). How many a call takes depends on what glibc kept
from the calls before it, and changes the ratios (docs/benchmarks.md, "Fifth
round"); ``MALLOC_MMAP_THRESHOLD_=1000000000 MALLOC_TRIM_THRESHOLD_=10000000000
MALLOC_TOP_PAD_=1000000000`` in the environment takes them away.

``--resampling GROUPS`` also times ``stats.bootstrap_ci`` and
``stats.compare`` (9,999 resamples) at each ``--jobs``; ``--rows 0`` skips the
evaluation layouts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

METRICS = ["ndcg@10", "map", "mrr", "precision@5", "recall@20"]


def make_rows(n: int, layout: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    if layout == "tiny":
        sizes = rng.integers(1, 4, n // 2 + 1)
    elif layout == "huge":
        sizes = np.full(5, n // 5)
    elif layout == "skewed":  # query sizes of a search log: 1 to ~1,500 rows
        sizes = np.maximum(1, rng.lognormal(4.2, 0.9, n // 50 + 1)).astype(np.int64)
    else:
        sizes = rng.integers(50, 151, n // 100 + 1)
    sizes = sizes[np.cumsum(sizes) <= n]
    groups = np.repeat(np.arange(sizes.size), sizes)
    m = groups.size
    y = np.minimum(rng.geometric(0.55, m) - 1, 4).astype(np.float64)
    score = np.round(y * 0.3 + rng.normal(size=m), 2)
    perm = rng.permutation(m)
    return y[perm], score[perm], groups[perm], sizes


def xgb_ndcg(y, score, groups, nthread: int):
    """A callable running XGBoost's ``ndcg@10`` evaluator (C++, ``nthread``
    threads) on a DMatrix with query ids, the scores set as base margins of a
    booster of no trees, so the evaluation reads exactly ``score``."""
    import xgboost as xgb

    order = np.argsort(groups, kind="stable")  # XGBoost wants rows by query
    dm = xgb.DMatrix(
        np.zeros((y.size, 1), dtype=np.float32),
        label=y[order],
        qid=groups[order],
        base_margin=score[order],
        nthread=nthread,
    )
    booster = xgb.train(
        {
            "objective": "rank:ndcg",
            "eval_metric": "ndcg@10",
            "nthread": nthread,
            "base_score": 0.0,
        },
        dm,
        num_boost_round=0,
    )
    return lambda: float(booster.eval(dm, "d").split(":")[-1])


def _minor_faults() -> int:
    """Minor page faults of this process so far (0 where unknown): fresh pages
    that numpy's arrays get from the kernel, which depend on what glibc kept
    from earlier calls (see docs/benchmarks.md, "Fifth round")."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def time_round(contenders: dict, repeat: int, faults: dict | None = None) -> dict:
    """Median seconds of each contender over ``repeat`` rounds; ``faults``
    (when given) receives each one's median minor page faults per call."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    pages: dict[str, list[int]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            f0 = _minor_faults()
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
            pages[name].append(_minor_faults() - f0)
    if faults is not None:
        faults.update({name: statistics.median(p) for name, p in pages.items()})
    return {name: statistics.median(t) for name, t in times.items()}


def contenders_of(
    y, s, g, jobs, with_xgboost: bool, evaluate_only: bool = False
) -> dict:
    """The timed callables of one layout, each threaded result checked equal
    to the single-threaded one first. ``evaluate_only``: ``evaluate`` at each
    thread count and nothing else alive in the process."""
    from sklearn_rank import evaluate, prepare

    ref = evaluate(y, s, groups=g, metrics=METRICS, n_jobs=1)
    out = {}
    for j in jobs:
        got = evaluate(y, s, groups=g, metrics=METRICS, n_jobs=j)
        assert got == ref, (j, got, ref)
        out[f"evaluate n_jobs={j}"] = lambda j=j: evaluate(
            y, s, groups=g, metrics=METRICS, n_jobs=j
        )
    if evaluate_only:
        return out
    for j in jobs:  # prepared once, each round on n_jobs threads
        p = prepare(y, groups=g, metrics=METRICS, n_jobs=j)
        assert p.evaluate(s) == ref, j
        out[f"prepared n_jobs={j}"] = lambda p=p: p.evaluate(s)
    if not with_xgboost:
        return out
    one = prepare(y, groups=g, metrics=["ndcg@10"])
    out["prepared ndcg@10 (1 thread)"] = lambda: one.evaluate(s)
    for j in jobs[1:]:
        p = prepare(y, groups=g, metrics=["ndcg@10"], n_jobs=j)
        assert p.evaluate(s) == one.evaluate(s), j
        out[f"prepared ndcg@10 n_jobs={j}"] = lambda p=p: p.evaluate(s)
    # The rows by query, as XGBoost's DMatrix holds them (the same rows and
    # query layout it is given below).
    o = np.argsort(g, kind="stable")
    ys, ss, gs = y[o], s[o], g[o]
    for j in jobs:
        p = prepare(ys, groups=gs, metrics=["ndcg@10"], n_jobs=j)
        assert p.evaluate(ss) == one.evaluate(s), j
        out[f"prepared ndcg@10 by query n_jobs={j}"] = lambda p=p: p.evaluate(ss)
    for j in jobs:
        out[f"evaluate ndcg@10 n_jobs={j}"] = lambda j=j: evaluate(
            y, s, groups=g, metrics=["ndcg@10"], n_jobs=j
        )
    try:
        for j in jobs:
            out[f"xgboost ndcg@10 nthread={j}"] = xgb_ndcg(y, s, g, j)
    except ImportError:
        print("xgboost not installed: its rows are left out")
    return out


def resampling_contenders(n_groups: int, jobs) -> dict:
    """``stats.bootstrap_ci`` (bootstrap-t) and ``stats.compare``
    (randomization test, two models) on ``n_groups`` per-group values, 9,999
    resamples, at each ``n_jobs``; each result checked equal to ``n_jobs=1``'s."""
    from sklearn_rank import GroupScores
    from sklearn_rank.stats import bootstrap_ci, compare

    rng = np.random.default_rng(0)
    ids, w = np.arange(n_groups), np.ones(n_groups)
    a = rng.beta(0.5, 2.0, n_groups)
    b = np.clip(a + rng.normal(0.01, 0.1, n_groups), 0, 1)
    runs = {m: GroupScores(ids, {"ndcg@10": v}, {"ndcg@10": w}) for m, v in
            (("a", a), ("b", b))}  # fmt: skip
    out = {}
    for name, call in (
        ("bootstrap_ci", lambda j: bootstrap_ci(None, runs["a"], random_state=0,
                                                n_jobs=j).intervals),
        ("compare", lambda j: compare(None, runs, random_state=0, n_jobs=j).pairs),
    ):  # fmt: skip
        ref = repr(call(1))
        for j in jobs:
            assert repr(call(j)) == ref, (name, j)
            out[f"{name} n_jobs={j}"] = lambda call=call, j=j: call(j)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--layouts", nargs="+", default=["ragged", "skewed", "tiny", "huge"]
    )
    parser.add_argument("--no-xgboost", action="store_true")
    parser.add_argument(
        "--evaluate-only", action="store_true",
        help="time evaluate alone (no prepared evaluations or XGBoost alive "
        "in the process: they change what glibc keeps between calls)",
    )  # fmt: skip
    parser.add_argument(
        "--resampling", type=int, default=0, metavar="GROUPS",
        help="also time the statistics' resampling on this many groups",
    )  # fmt: skip
    args = parser.parse_args(argv)

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    import sklearn_rank

    print(
        f"sklearn_rank {sklearn_rank.__version__}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    print(f"metrics {METRICS}, ties='average', median of {args.repeat}")
    if args.resampling:
        med = time_round(resampling_contenders(args.resampling, args.jobs), args.repeat)
        print(f"\nresampling, {args.resampling:,} groups, 9,999 resamples; "
              f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
        for name, t in med.items():
            first = med[f"{name.split()[0]} n_jobs={args.jobs[0]}"]
            print(f"{name:<40} {t:9.4f} {t / first:8.2f}")
    for n in (n for n in args.rows if n > 0):
        for layout in args.layouts:
            y, s, g, sizes = make_rows(n, layout)
            xgb = layout in ("ragged", "skewed") and not args.no_xgboost
            faults: dict = {}
            contenders = contenders_of(y, s, g, args.jobs, xgb, args.evaluate_only)
            med = time_round(contenders, args.repeat, faults)
            del contenders
            base = med[f"evaluate n_jobs={args.jobs[0]}"]
            print(
                f"\n{n:,} rows, {sizes.size:,} groups ({layout}); "
                f"load {os.getloadavg()[0]:.2f}"
            )
            print(f"{'contender':<40} {'median s':>9} {'/ first':>8} {'faults':>8}")
            for name, t in med.items():
                print(f"{name:<40} {t:9.4f} {t / base:8.2f} {faults[name]:8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
