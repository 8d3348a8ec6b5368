#!/usr/bin/env python
"""Benchmark of sklearn_rank.stats: paired tests as ratios to one ``evaluate``.

Every figure is a ratio measured side by side in one run, on the same data:

* ``evaluate`` of 5 metrics (NDCG@10, MAP, MRR, P@10, GAUC) for one model: the unit;
* ``compare`` of two models, 10,000-resample randomization test, no intervals
  (``confidence_level=None``): the two ``evaluate_per_group`` calls included;
* ``compare`` with the default 95% BCa intervals as well (10,000 resamples);
* ranx's ``compare`` (Fisher randomization, same number of permutations) on the
  4 metrics it shares, when ranx is installed (``pip install -e ".[bench]"``),
  timed warm and without its input conversion, with sklearn_rank's randomization
  test on the same 4 metrics and trec_eval conventions beside it; the p-values of
  both are printed to check that they agree within Monte Carlo error.

Times are medians of ``--repeats`` runs after one warm-up run, in interleaved
rounds. Run ``python benchmarks/bench_stats.py --help``; see docs/benchmarks.md.

``--calibration`` runs simulations instead and prints the calibration tables of
docs/statistics.md: the rejection rate of every paired test under a true null on
continuous, skewed and tied (RR, P@10) scores, the agreement of the default
interval with the p-value, and the coverage of every interval method, at 5, 10,
20 and 50 groups (``--sims`` runs each, seeded).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np

METRICS = ["ndcg@10", "map", "mrr", "precision@10", "gauc"]
RANX_METRICS = ["ndcg@10", "map", "mrr", "precision@10"]
TREC = {"gain": "linear", "undefined": 0.0}


def make_data(n_rows: int, n_groups: int, seed: int = 0):
    """Two models of slightly different quality on the same shuffled groups."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n_rows)
    y = rng.binomial(1, 0.2, n_rows) * rng.integers(1, 4, n_rows)
    s1 = np.round(0.5 * y + rng.normal(size=n_rows), 3)
    s2 = np.round(0.48 * y + rng.normal(size=n_rows), 3)
    return y, s1, s2, groups


def timed(items: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds per item: one warm-up, then interleaved rounds."""
    for fn in items.values():
        fn()
    times: dict[str, list[float]] = {k: [] for k in items}
    for _ in range(repeats):
        for name, fn in items.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def ranx_items(y, s1, s2, groups, n_resamples):
    """ranx's compare on the same data, built once (conversion not timed)."""
    try:
        import ranx
    except ImportError:
        return None
    q = groups.astype(str)
    d = np.arange(y.size).astype(str)
    qrels: dict[str, dict[str, int]] = {}
    r1: dict[str, dict[str, float]] = {}
    r2: dict[str, dict[str, float]] = {}
    for qi, di, yi, a, b in zip(
        q, d, y.tolist(), s1.tolist(), s2.tolist(), strict=True
    ):
        if yi > 0:
            qrels.setdefault(qi, {})[di] = yi
        r1.setdefault(qi, {})[di] = a
        r2.setdefault(qi, {})[di] = b
    # ranx needs a query in the qrels; queries without relevant rows score 0
    # there as with undefined=0.0 only if present, so keep queries with one.
    keep = set(qrels)
    run1 = ranx.Run({k: v for k, v in r1.items() if k in keep}, name="m1")
    run2 = ranx.Run({k: v for k, v in r2.items() if k in keep}, name="m2")
    qrels_obj = ranx.Qrels(qrels)
    mask = np.isin(q, list(keep))

    def run():
        return ranx.compare(
            qrels_obj, [run1, run2], metrics=RANX_METRICS, stat_test="fisher",
            n_permutations=n_resamples, max_p=0.05, random_seed=0,
        )  # fmt: skip

    return run, mask


CAL_TESTS = ("randomization", "bootstrap", "bootstrap-shift", "t", "wilcoxon")
CAL_CIS = ("matched", "percentile", "BCa", "bootstrap-t")
CAL_KINDS = ("continuous", "skewed", "RR (tied)", "P@10 (tied)")


def _gs(values):
    from sklearn_rank import GroupScores

    return GroupScores(
        np.arange(values.size), {"m": values}, {"m": np.ones(values.size)}
    )


def scores(kind: str, n: int, rng, shift: float = 0.0):
    """Per-query scores of two models, exchangeable within each query (a true
    null) plus ``shift`` on the first: continuous NDCG-like (a query difficulty
    and model noise), skewed (Beta(0.5, 2)), and two tied, discrete metrics:
    the reciprocal rank of a first relevant item in the top 10 and P@10."""
    if kind == "continuous":
        q = rng.beta(2, 2, n)
        a, b = q + rng.normal(0, 0.12, (2, n))
    elif kind == "skewed":
        a, b = rng.beta(0.5, 2.0, (2, n))
    elif kind == "RR (tied)":
        p = rng.beta(1.0, 2.0, n)
        rank = rng.geometric(np.broadcast_to(p, (2, n)))
        a, b = np.where(rank <= 10, 1.0 / rank, 0.0)
    else:
        p = rng.beta(1.0, 3.0, n)
        a, b = rng.binomial(10, np.broadcast_to(p, (2, n))) / 10
    return a + shift, b


def calibration(sims: int, resamples: int, sizes=(5, 10, 20, 50), seed=0) -> None:
    """Rejection rates and coverages by simulation (seeded), as Markdown tables.

    Tests: the rejection rate at alpha 0.05 (two-sided) under a true null on
    each kind of scores, with the default interval (which inverts the test)
    checked against the p-value in every run. Intervals: coverage of the true
    difference 0.1 (the first model's scores shifted by 0.1) on continuous and
    skewed scores, and of the mean 0.2 of Beta(0.5, 2) scores (``bootstrap_ci``).
    """
    from sklearn_rank.stats import bootstrap_ci, compare

    rng = np.random.default_rng(seed)
    rej = {(t, k, n): 0 for t in CAL_TESTS for k in CAL_KINDS for n in sizes}
    cov = {(m, k, n): 0 for m in CAL_CIS for k in CAL_KINDS[:2] for n in sizes}
    mean_cov = {(m, n): 0 for m in CAL_CIS[1:] for n in sizes}
    rows = disagree = 0
    kw = dict(n_resamples=resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in sizes:
            for i in range(sims):
                for kind in CAL_KINDS:
                    a, b = scores(kind, n, rng)
                    ys = {"a": _gs(a), "b": _gs(b)}
                    for test in CAL_TESTS:
                        level = None if test == "wilcoxon" else 0.95  # slow CI
                        p = compare(
                            None, ys, test=test, confidence_level=level,
                            random_state=i, **kw,
                        ).pairs[0]  # fmt: skip
                        rej[test, kind, n] += p.p_value <= 0.05
                        if level is not None:
                            rows += 1
                            disagree += (p.p_value <= 0.05) != (
                                p.ci_low > 0 or p.ci_high < 0
                            )
                for kind in CAL_KINDS[:2]:
                    a, b = scores(kind, n, rng, 0.1)
                    ys = {"a": _gs(a), "b": _gs(b)}
                    for m in CAL_CIS:
                        p = compare(None, ys, ci_method=m, random_state=i, **kw).pairs[
                            0
                        ]
                        cov[m, kind, n] += p.ci_low <= 0.1 <= p.ci_high
                v = _gs(rng.beta(0.5, 2.0, n))
                for m in CAL_CIS[1:]:
                    c = bootstrap_ci(None, v, method=m, random_state=i, **kw)["m"]
                    mean_cov[m, n] += c.ci_low <= 0.2 <= c.ci_high
    err = 2 * np.sqrt(0.05 * 0.95 / sims)
    cols = " | ".join(f"{n} groups" for n in sizes)
    print(f"\n# {sims} simulations per cell, {resamples} resamples, seed {seed}; "
          f"Monte Carlo error of a rate near 0.05: +-{err:.3f} (2 SE)")  # fmt: skip
    print(f"\n| test (alpha 0.05), null | {cols} |\n|---|" + "---:|" * len(sizes))
    for t in CAL_TESTS:
        for k in CAL_KINDS:
            cells = " | ".join(f"{rej[t, k, n] / sims:.3f}" for n in sizes)
            print(f"| {t}: {k} | {cells} |")
    print(f"\nDefault interval vs p <= 0.05: {disagree} disagreements in {rows} rows.")
    print(f"\n| 95% interval | {cols} |\n|---|" + "---:|" * len(sizes))
    for m in CAL_CIS:
        for k in CAL_KINDS[:2]:
            cells = " | ".join(f"{cov[m, k, n] / sims:.3f}" for n in sizes)
            print(f"| {m}: difference, {k} | {cells} |")
    for m in CAL_CIS[1:]:
        cells = " | ".join(f"{mean_cov[m, n] / sims:.3f}" for n in sizes)
        print(f"| {m}: mean, skewed | {cells} |")


TIED_KINDS = ("RR (tied)", "P@10 (tied)", "RR, close systems", "P@10, close systems")


def tied_scores(kind: str, n: int, rng):
    """Two exchangeable models on tied, discrete scores (a true null, true
    difference 0). "close systems": the second model re-ranks ~30% of the
    queries of the first (most per-query differences are 0), as two variants
    of one system; the others: the two models drawn independently per query."""
    if not kind.endswith("close systems"):
        return scores(kind, n, rng)
    if kind.startswith("RR"):
        q = rng.uniform(0.1, 0.9, n)
        base = rng.geometric(q)
        ranks = [np.where(rng.random(n) < 0.3, rng.geometric(q), base) for _ in "ab"]
        return tuple(np.where(r <= 10, 1 / r, 0.0) for r in ranks)
    q = rng.uniform(0.0, 0.6, n)
    base = rng.binomial(10, q)
    return tuple(
        np.where(rng.random(n) < 0.3, rng.binomial(10, q), base) / 10 for _ in "ab"
    )


def tied_coverage(sims: int, resamples: int, sizes=(10, 20, 50), seed=0) -> None:
    """Coverage of 95% intervals of the difference (true value 0) and of one
    model's mean (true value from 10**6 draws) on tied scores, and the rejection
    rate of the studentized bootstrap test there, as Markdown tables."""
    from sklearn_rank.stats import bootstrap_ci, compare

    methods = ("matched", "percentile", "BCa", "bootstrap-t")
    truth = {k: tied_scores(k, 10**6, np.random.default_rng(99))[0].mean()
             for k in TIED_KINDS}  # fmt: skip
    cov = {(m, k, n): 0 for m in methods for k in TIED_KINDS for n in sizes}
    mean_cov = {(m, k, n): 0 for m in methods[1:] for k in TIED_KINDS for n in sizes}
    rej = {(k, n): 0 for k in TIED_KINDS for n in sizes}
    rng = np.random.default_rng(seed)
    kw = dict(n_resamples=resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n, i, kind in itertools.product(sizes, range(sims), TIED_KINDS):
            a, b = tied_scores(kind, n, rng)
            ys = {"a": _gs(a), "b": _gs(b)}
            for m in methods:
                p = compare(None, ys, ci_method=m, random_state=i, **kw).pairs[0]
                cov[m, kind, n] += p.ci_low <= 0 <= p.ci_high
            p = compare(
                None, ys, test="bootstrap", confidence_level=None, random_state=i, **kw
            ).pairs[0]
            rej[kind, n] += p.p_value <= 0.05
            for m in methods[1:]:
                c = bootstrap_ci(None, _gs(a), method=m, random_state=i, **kw)["m"]
                mean_cov[m, kind, n] += c.ci_low <= truth[kind] <= c.ci_high
    cols = " | ".join(f"{n} groups" for n in sizes)
    print(f"\n# {sims} simulations per cell, {resamples} resamples, seed {seed}")
    print(f"\n| 95% interval, tied scores | {cols} |\n|---|" + "---:|" * len(sizes))
    for m in methods:
        for k in TIED_KINDS:
            cells = " | ".join(f"{cov[m, k, n] / sims:.3f}" for n in sizes)
            print(f"| {m}: difference, {k} | {cells} |")
    for m in methods[1:]:
        for k in TIED_KINDS:
            cells = " | ".join(f"{mean_cov[m, k, n] / sims:.3f}" for n in sizes)
            print(f"| {m}: mean, {k} | {cells} |")
    print(
        f"\n| bootstrap test (alpha 0.05), null | {cols} |\n|---|"
        + "---:|" * len(sizes)
    )
    for k in TIED_KINDS:
        cells = " | ".join(f"{rej[k, n] / sims:.3f}" for n in sizes)
        print(f"| {k} | {cells} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--groups", type=float, default=1e5)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-ranx", action="store_true")
    parser.add_argument("--ranx-rows", type=float, default=1e5)
    parser.add_argument(
        "--calibration", action="store_true", help="simulations, not timings"
    )
    parser.add_argument(
        "--tied-coverage",
        action="store_true",
        help="simulations: interval coverage on tied scores (RR, P@10)",
    )
    parser.add_argument("--sims", type=int, default=400)
    args = parser.parse_args(argv)
    if args.calibration:
        calibration(args.sims, min(args.resamples, 499))
        return 0
    if args.tied_coverage:
        tied_coverage(args.sims, min(args.resamples, 499))
        return 0

    import sklearn_rank
    from sklearn_rank.stats import compare

    n_rows, n_groups, R = int(args.rows), int(args.groups), args.resamples
    y, s1, s2, groups = make_data(n_rows, n_groups)
    both = {"m1": s1, "m2": s2}
    items = {
        "evaluate, 5 metrics, one model": lambda: sklearn_rank.evaluate(
            y, s1, groups=groups, metrics=METRICS
        ),
        f"compare, randomization {R}, 5 metrics, 2 models": lambda: compare(
            y, both, groups=groups, metrics=METRICS, n_resamples=R,
            confidence_level=None, random_state=0,
        ),
        f"compare, randomization + BCa intervals {R}": lambda: compare(
            y, both, groups=groups, metrics=METRICS, n_resamples=R, random_state=0
        ),
    }  # fmt: skip
    print(f"# {n_rows} rows, {n_groups} groups, {R} resamples, "
          f"median of {args.repeats} (python {sys.version.split()[0]}, "
          f"numpy {np.__version__})")  # fmt: skip
    res = timed(items, args.repeats)
    unit = res["evaluate, 5 metrics, one model"]
    print("\n| work | median s | ÷ evaluate |\n|---|---:|---:|")
    for name, t in res.items():
        print(f"| {name} | {t:.3f} | {t / unit:.1f} |")

    if args.no_ranx:
        return 0
    m = int(args.ranx_rows)
    y, s1, s2, groups = make_data(m, m // 10, seed=1)
    got = ranx_items(y, s1, s2, groups, R)
    if got is None:
        print("\nranx is not installed: no ranx row (pip install -e '.[bench]').")
        return 0
    ranx_run, mask = got
    y, s1, s2, groups = y[mask], s1[mask], s2[mask], groups[mask]

    def ours():
        return compare(
            y, {"m1": s1, "m2": s2}, groups=groups, metrics=RANX_METRICS,
            n_resamples=R, confidence_level=None, random_state=0, **TREC,
        )  # fmt: skip

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = timed({"ranx compare (fisher)": ranx_run, "sklearn_rank compare": ours},
                    args.repeats)  # fmt: skip
        report = ranx_run()
    print(f"\n# vs ranx: {m} rows, {m // 10} groups, {R} permutations, 4 metrics")
    print("\n| work | median s | ÷ sklearn_rank |\n|---|---:|---:|")
    for name, t in res.items():
        print(f"| {name} | {t:.3f} | {t / res['sklearn_rank compare']:.1f} |")
    mine = ours()
    print("\n| metric | p sklearn_rank | p ranx | mean diff sklearn_rank | ranx |")
    print("|---|---:|---:|---:|---:|")
    rd = report.to_dict()
    for metric in RANX_METRICS:
        p = mine.pair(metric, "m1", "m2")
        pr = rd["m1"]["comparisons"]["m2"][metric]
        diff = rd["m1"]["scores"][metric] - rd["m2"]["scores"][metric]
        print(f"| {metric} | {p.p_value:.4f} | {pr:.4f} | {p.mean_diff:+.5f} | "
              f"{diff:+.5f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
