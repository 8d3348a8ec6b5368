#!/usr/bin/env python
"""Train-time evaluation (issue 42): a prepared evaluation against a cold
``evaluate`` of the same metrics, side by side in one run.

Every call scores a new set of scores (as a validation set after each boosting
round): the cold call encodes groups, checks labels and recomputes the ideal DCG
and relevant counts each time; the prepared one made them once. Figures are
medians of interleaved rounds after a warm-up; the ratio is what counts.

Sections: the prepared evaluation against a cold ``evaluate``; LightGBM on the
bundled LambdaRank sample with early stopping on this library's ``ndcg@10``
against LightGBM's built-in ``ndcg@10``, and the time a round adds on a large
validation set; the accumulator (``compute`` against one ``evaluate``, peak
memory of the in-order mode); torchmetrics' ``RetrievalNormalizedDCG`` on the
same stream when it is installed.

Run ``python benchmarks/bench_training.py [--rows 1000000] [--groups 10000]``.
"""

import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sklearn_rank as sr

METRICS = ("ndcg@10", "map", "mrr")


def prepared_vs_cold(
    n_rows, n_groups, repeats, metrics=METRICS, ties=None, decimals=None
):
    rng = np.random.default_rng(0)
    groups = rng.integers(0, n_groups, n_rows)
    y = rng.integers(0, 5, n_rows).astype(float)
    scores = [rng.normal(size=n_rows) for _ in range(repeats + 1)]
    if decimals is not None:  # tied scores, as a few trees give
        scores = [np.round(s, decimals) for s in scores]
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


def _data(n_rows, n_groups, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.sort(rng.integers(0, n_groups, n_rows))  # whole queries, in order
    y = rng.integers(0, 5, n_rows).astype(float)
    return y, rng.normal(size=n_rows), groups


def lightgbm_rounds(n_rounds, repeats):
    """Total training time with early stopping on this library's ndcg@10 each
    round, against the same run on LightGBM's built-in ndcg@10."""
    import lightgbm as lgb

    from sklearn_rank.boosting import lightgbm_metric
    from sklearn_rank.datasets import load_lambdarank

    train, test = load_lambdarank(subset="train"), load_lambdarank(subset="test")

    def sizes(g):
        return np.unique(g, return_counts=True)[1]

    def run(ours):
        dtrain = lgb.Dataset(train.data, train.target, group=sizes(train.groups))
        dvalid = lgb.Dataset(
            test.data, test.target, group=sizes(test.groups), reference=dtrain
        )
        params = {
            "objective": "lambdarank",
            "verbose": -1,
            "num_threads": 1,
            "metric": "None" if ours else "ndcg",
            "eval_at": [10],
        }
        t0 = time.perf_counter()
        lgb.train(
            params,
            dtrain,
            n_rounds,
            valid_sets=[dvalid],
            feval=lightgbm_metric("ndcg@10") if ours else None,
            callbacks=[lgb.early_stopping(n_rounds, verbose=False)],
        )
        return time.perf_counter() - t0

    times = {True: [], False: []}
    for _ in range(repeats):
        for ours in (False, True):
            times[ours].append(run(ours))
    builtin, ours = statistics.median(times[False]), statistics.median(times[True])
    return builtin, ours


def _large_validation(n_rows, n_groups):
    """A small training set (20k rows) and the large validation set, as
    LightGBM Datasets, and the training parameters (one thread)."""
    import lightgbm as lgb

    rng = np.random.default_rng(1)
    y, _, groups = _data(n_rows, n_groups)
    X = rng.normal(size=(n_rows, 4))
    X[:, 0] += y * 0.5
    sizes = np.unique(groups, return_counts=True)[1]
    small = slice(0, 20_000)
    small_sizes = np.unique(groups[small], return_counts=True)[1]
    dtrain = lgb.Dataset(X[small], y[small], group=small_sizes)
    dvalid = lgb.Dataset(X, y, group=sizes, reference=dtrain)
    params = {
        "objective": "lambdarank",
        "verbose": -1,
        "num_threads": 1,
        "num_leaves": 7,
        "eval_at": [10],
    }
    return dtrain, dvalid, params


def lightgbm_added_per_round(n_rows, n_groups, n_rounds, repeats):
    """The time one round adds for evaluating a large validation set: this
    library's ndcg@10 against LightGBM's built-in, each minus a run without a
    metric (the training itself)."""
    import lightgbm as lgb

    from sklearn_rank.boosting import lightgbm_metric

    def run(kind):
        dtrain, dvalid, params = _large_validation(n_rows, n_groups)
        params["metric"] = "ndcg" if kind == "builtin" else "None"
        feval = {
            "ours": lightgbm_metric("ndcg@10"),
            "ours_lightgbm": lightgbm_metric("ndcg@10", convention="lightgbm"),
        }.get(kind)
        t0 = time.perf_counter()
        lgb.train(params, dtrain, n_rounds, valid_sets=[dvalid], feval=feval)
        return time.perf_counter() - t0

    times = {k: [] for k in ("none", "builtin", "ours", "ours_lightgbm")}
    for _ in range(repeats):
        for kind in times:
            times[kind].append(run(kind))
    med = {k: statistics.median(v) for k, v in times.items()}
    return {k: (med[k] - med["none"]) / n_rounds for k in med if k != "none"}


def lightgbm_round_parts(n_rows, n_groups, n_rounds):
    """The same large validation set, each round's evaluation taken apart in
    one process, medians over the rounds (wall and CPU clocks): LightGBM's
    built-in ndcg@10 (its C++ evaluation of the stored scores), the copy of
    the predictions LightGBM hands to any ``feval`` (its ``__inner_predict``,
    paid by every Python metric, not by the built-in one) and this library's
    ``feval`` on them. No subtraction of whole runs: steadier on a loaded
    machine than :func:`lightgbm_added_per_round`."""
    import lightgbm as lgb

    from sklearn_rank.boosting import lightgbm_metric

    dtrain, dvalid, params = _large_validation(n_rows, n_groups)
    params["metric"] = "ndcg"
    booster = lgb.Booster(params, dtrain)
    booster.add_valid(dvalid, "valid")
    # update() marks the predictions stale: each round copies them afresh.
    predict = getattr(booster, "_Booster__inner_predict", None)
    if predict is None:  # another LightGBM: no such seam
        return None
    fevals = {
        "ours": lightgbm_metric("ndcg@10"),
        "ours_lightgbm": lightgbm_metric("ndcg@10", convention="lightgbm"),
    }
    times = {k: [] for k in ("builtin", "predict", *fevals)}

    def timed(kind, call):
        w, c = time.perf_counter(), time.process_time()
        out = call()
        times[kind].append((time.perf_counter() - w, time.process_time() - c))
        return out

    for _ in range(n_rounds):
        booster.update()
        timed("builtin", booster.eval_valid)
        preds = timed("predict", lambda: predict(data_idx=1))
        for kind, feval in fevals.items():
            timed(kind, lambda f=feval, p=preds: f(p, dvalid))
    return {
        k: tuple(statistics.median(t[i] for t in v[1:]) for i in (0, 1))
        for k, v in times.items()
    }


def accumulator(n_rows, n_groups, batch, repeats, metrics=METRICS):
    """compute() after 1000-row batches against one evaluate; peak memory of
    the in-order mode (updates and compute) against one evaluate call."""
    y, s, g = _data(n_rows, n_groups)
    t_eval, t_compute, t_update = [], [], []
    for _ in range(repeats + 1):
        acc = sr.RankingAccumulator(metrics)
        t0 = time.perf_counter()
        for lo in range(0, n_rows, batch):
            acc.update(y[lo : lo + batch], s[lo : lo + batch], g[lo : lo + batch])
        t1 = time.perf_counter()
        got = acc.compute()
        t2 = time.perf_counter()
        want = sr.evaluate(y, s, groups=g, metrics=metrics)
        t3 = time.perf_counter()
        assert got == want
        t_update.append(t1 - t0)
        t_compute.append(t2 - t1)
        t_eval.append(t3 - t2)
    tracemalloc.start()
    sr.evaluate(y, s, groups=g, metrics=metrics)
    peak_eval = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    tracemalloc.start()
    acc = sr.RankingAccumulator(metrics, in_order=True)
    t0 = time.perf_counter()
    for lo in range(0, n_rows, batch):
        acc.update(y[lo : lo + batch], s[lo : lo + batch], g[lo : lo + batch])
    ordered = acc.compute()
    t_ordered = time.perf_counter() - t0
    peak_ordered = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    gap = max(abs(ordered[m] - want[m]) for m in metrics)
    return {
        "evaluate_s": statistics.median(t_eval[1:]),
        "compute_s": statistics.median(t_compute[1:]),
        "update_s": statistics.median(t_update[1:]),
        "in_order_total_s": t_ordered,
        "peak_evaluate": peak_eval,
        "peak_in_order": peak_ordered,
        "in_order_gap": gap,
    }


def torchmetrics_stream(n_rows, n_groups, batch):
    """torchmetrics' RetrievalNormalizedDCG(top_k=10) on the same stream, beside
    the accumulator: time and value (it breaks ties by input order)."""
    try:
        import torch
        from torchmetrics.retrieval import RetrievalNormalizedDCG
    except ImportError:
        return None
    y, s, g = _data(n_rows, n_groups)
    s = np.round(s, 1)  # ties
    yt, st, gt = torch.asarray(y), torch.asarray(s), torch.asarray(g)
    t0 = time.perf_counter()
    metric = RetrievalNormalizedDCG(top_k=10)
    for lo in range(0, n_rows, batch):
        metric.update(st[lo : lo + batch], yt[lo : lo + batch], gt[lo : lo + batch])
    theirs = float(metric.compute())
    t1 = time.perf_counter()
    acc = sr.RankingAccumulator("ndcg@10", gain="linear", undefined=0.0)
    for lo in range(0, n_rows, batch):
        acc.update(yt[lo : lo + batch], st[lo : lo + batch], gt[lo : lo + batch])
    ours = acc.compute()["ndcg@10"]
    t2 = time.perf_counter()
    stable = sr.evaluate(
        y, s, groups=g, metrics="ndcg@10", gain="linear", undefined=0.0, ties="stable"
    )["ndcg@10"]
    return {
        "torchmetrics_s": t1 - t0,
        "ours_s": t2 - t1,
        "torchmetrics": theirs,
        "ours_ties_average": ours,
        "ours_ties_stable": stable,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument(
        "--sections", nargs="*", default=["prepared", "lightgbm", "accumulator"]
    )
    args = parser.parse_args(argv)
    print(
        f"prepared evaluate vs cold evaluate, {args.rows} rows, "
        f"{args.groups} groups, median of {args.repeats}"
    )
    for ties, decimals in ((None, None), ("stable", None), (None, 1)):
        if "prepared" not in args.sections:
            break
        r = prepared_vs_cold(
            args.rows, args.groups, args.repeats, ties=ties, decimals=decimals
        )
        tied = "" if decimals is None else f", scores rounded to {decimals} decimal"
        print(
            f"  metrics={list(METRICS)} ties={ties or 'default'}{tied}: "
            f"cold {r['cold_s'] * 1e3:.1f} ms, prepared {r['prepared_s'] * 1e3:.1f}"
            f" ms, ratio {r['ratio']:.2f}x (prepare once: "
            f"{r['prepare_s'] * 1e3:.1f} ms)"
        )
    if "lightgbm" in args.sections:
        builtin, ours = lightgbm_rounds(args.rounds, max(1, args.repeats // 2))
        print(
            f"LightGBM, LambdaRank sample, {args.rounds} rounds, early stopping "
            f"on ndcg@10: built-in {builtin:.2f} s, sklearn_rank {ours:.2f} s, "
            f"ratio {ours / builtin:.2f}x"
        )
        added = lightgbm_added_per_round(args.rows, args.groups, 20, 2)
        b = added["builtin"]
        print(
            f"LightGBM, {args.rows}-row validation set, added per round: built-in "
            f"ndcg@10 {b * 1e3:.1f} ms; sklearn_rank ndcg@10 (ties averaged) "
            f"{added['ours'] * 1e3:.1f} ms ({added['ours'] / b:.2f}x); "
            f"convention='lightgbm' (stable ties) "
            f"{added['ours_lightgbm'] * 1e3:.1f} ms "
            f"({added['ours_lightgbm'] / b:.2f}x)"
        )
        parts = lightgbm_round_parts(args.rows, args.groups, 20)
        if parts is not None:
            b = parts["builtin"]
            line = ", ".join(
                f"{label} {parts[k][0] * 1e3:.1f} ms ({parts[k][0] / b[0]:.2f}x; "
                f"CPU {parts[k][1] * 1e3:.1f} ms, {parts[k][1] / b[1]:.2f}x)"
                for k, label in (
                    ("predict", "predictions handed to feval"),
                    ("ours", "sklearn_rank ndcg@10 feval"),
                    ("ours_lightgbm", "with convention='lightgbm'"),
                )
            )
            print(
                f"LightGBM, {args.rows}-row validation set, one round taken apart "
                f"(medians of 19 rounds): built-in ndcg@10 {b[0] * 1e3:.1f} ms "
                f"(CPU {b[1] * 1e3:.1f} ms); {line}"
            )
    if "accumulator" in args.sections:
        r = accumulator(args.rows, args.groups, 1000, args.repeats)
        print(
            f"RankingAccumulator, {args.rows} rows in 1000-row batches: compute "
            f"{r['compute_s'] * 1e3:.1f} ms vs evaluate {r['evaluate_s'] * 1e3:.1f} "
            f"ms ({r['compute_s'] / r['evaluate_s']:.2f}x; updates "
            f"{r['update_s'] * 1e3:.1f} ms); in_order: peak "
            f"{r['peak_in_order'] / 2**20:.1f} MiB vs evaluate "
            f"{r['peak_evaluate'] / 2**20:.1f} MiB "
            f"({r['peak_in_order'] / r['peak_evaluate']:.2f}x), total "
            f"{r['in_order_total_s'] * 1e3:.0f} ms, |gap| {r['in_order_gap']:.1e}"
        )
        t = torchmetrics_stream(args.rows, args.groups, 1000)
        if t is None:
            print("torchmetrics: not installed, left out")
        else:
            print(
                f"torchmetrics RetrievalNormalizedDCG(top_k=10) on the same "
                f"stream: {t['torchmetrics_s'] * 1e3:.0f} ms, value "
                f"{t['torchmetrics']:.6f}; RankingAccumulator "
                f"{t['ours_s'] * 1e3:.0f} ms, value {t['ours_ties_average']:.6f} "
                f"(ties averaged), {t['ours_ties_stable']:.6f} with ties='stable'"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
