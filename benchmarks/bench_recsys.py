#!/usr/bin/env python
"""Benchmark of sklearn_rank.recsys.top_k against numpy's floor on the same blocks.

Scores are generated block by block by a callable (``--users`` x ``--items``
float32, ``--block`` users per block), so the full matrix never sits in memory;
both sides receive the same blocks from the same generator:

* floor: ``np.argpartition`` of each block for the top ``k`` then an ``argsort``
  of those ``k`` scores (no tie rule, no exclusion, no NaN check);
* ``top_k`` (NaN check, ties by item index, also at the k-th place);
* ``top_k`` with ``--seen`` random training items per user excluded;
* the generation of the blocks alone (subtracted from every time above).

Times are medians of ``--repeats`` interleaved rounds after ``--warmup`` rounds.
Then, on the lists of the last ``top_k`` with exclusion, the time of each
beyond-accuracy metric (``intra_list_diversity`` on 32 random features, cosine
and Hamming). ``--memory`` instead measures the peak memory that numpy
allocates (``tracemalloc``) during the floor and ``top_k`` with exclusion, at
``--users`` and at a quarter of it: the peak less the ``(n_users, k)`` result
should not grow with the number of users, and is compared with the bytes of one
block of scores. ``--paired`` times the floor, ``top_k`` and ``top_k`` with
exclusion on each block in turn (the order rotating from block to block) and
sums over the blocks: on a loaded machine the load then drifts alike for the
three. Run ``python benchmarks/bench_recsys.py --help``; results in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sklearn_rank.recsys import beyond_accuracy, top_k


def _generator(n_items: int, seed: int):
    base = np.random.default_rng(seed).random((4096, n_items), dtype=np.float32)

    def score(users: np.ndarray) -> np.ndarray:
        # Cheap distinct blocks: a rolled slice of one random table.
        rows = base[users % base.shape[0]]
        return rows + np.float32(1e-3) * (users[:, None] % 7).astype(np.float32)

    return score


def _floor(score, n_users: int, k: int, block: int) -> np.ndarray:
    out = np.empty((n_users, k), dtype=np.intp)
    for start in range(0, n_users, block):
        s = score(np.arange(start, min(start + block, n_users)))
        n = s.shape[1]
        part = np.argpartition(s, n - k, axis=1)[:, n - k :]
        vals = np.take_along_axis(s, part, axis=1)
        order = np.argsort(-vals, axis=1)
        out[start : start + s.shape[0]] = np.take_along_axis(part, order, axis=1)
    return out


def _gen_only(score, n_users: int, block: int) -> None:
    for start in range(0, n_users, block):
        score(np.arange(start, min(start + block, n_users)))


def _peak(fn) -> int:
    """Peak bytes traced while ``fn`` runs (numpy reports to tracemalloc)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _seen(n_users: int, n_items: int, per_user: int, seed: int) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), per_user)
    items = rng.integers(0, n_items, size=users.size)
    return sp.csr_matrix(
        (np.ones(users.size, dtype=np.float32), (users, items)),
        shape=(n_users, n_items),
    )


def _memory(a, score) -> None:
    block_mb = a.block * a.items * 4 / 2**20
    print(
        f"peak traced memory, {a.items} items, k={a.k}, block={a.block} users "
        f"({block_mb:.0f} MiB of float32 scores per block)"
    )
    for n_users in (a.users // 4, a.users):
        seen = _seen(n_users, a.items, a.seen, 1)
        result_mb = n_users * a.k * 16 / 2**20  # items (intp) + their scores
        for name, fn in (
            ("floor", lambda n=n_users: _floor(score, n, a.k, a.block)),
            (
                "top_k+exclude",
                lambda s=seen: top_k(score, a.k, exclude=s, block_size=a.block),
            ),
        ):
            peak = _peak(fn) / 2**20
            extra = peak - result_mb
            print(
                f"{n_users:>8} users  {name:15s} peak {peak:8.1f} MiB  "
                f"less result {extra:8.1f} MiB = {extra / block_mb:4.2f} blocks"
            )


def _beyond(a, lists, seen) -> None:
    rng = np.random.default_rng(2)
    n_users = lists.shape[0]
    test = _seen(n_users, a.items, 5, 3)
    feats = rng.random((a.items, 32))
    binary = (feats > 0.5).astype(np.float64)
    cases = [
        ("catalog_coverage", {}),
        ("gini", {}),
        ("entropy", {}),
        ("novelty", {}),
        ("arp", {}),
        ("aplt", {}),
        ("personalization", {}),
        ("serendipity", {}),
        ("intra_list_diversity", {"item_features": feats}),
        (
            "intra_list_diversity",
            {"item_features": binary, "distance": "hamming"},
        ),
    ]
    print(f"beyond-accuracy metrics of {n_users} lists of {lists.shape[1]} items")
    for name, extra in cases:
        t = time.perf_counter()
        beyond_accuracy(
            lists, n_items=a.items, metrics=name, train=seen, test=test, **extra
        )
        label = name + (" (hamming)" if "distance" in extra else "")
        print(f"{label:30s} {time.perf_counter() - t:8.3f} s")


def _paired(a, score, seen) -> None:
    def floor(s, start):
        n = s.shape[1]
        part = np.argpartition(s, n - a.k, axis=1)[:, n - a.k :]
        vals = np.take_along_axis(s, part, axis=1)
        return np.take_along_axis(part, np.argsort(-vals, axis=1), axis=1)

    cases = {
        "floor": floor,
        "top_k": lambda s, start: top_k(s, a.k),
        "top_k+exclude": lambda s, start: top_k(
            s, a.k, exclude=seen[start : start + s.shape[0]]
        ),
    }
    total = dict.fromkeys(cases, 0.0)
    names = list(cases)
    for i, start in enumerate(range(0, a.users, a.block)):
        s = score(np.arange(start, min(start + a.block, a.users)))
        for name in names[i % 3 :] + names[: i % 3]:
            t = time.perf_counter()
            cases[name](s, start)
            total[name] += time.perf_counter() - t
    print(
        f"{a.users} users x {a.items} items float32, k={a.k}, block={a.block}: "
        "each block timed for all three in turn (sums over the blocks)"
    )
    for name in names:
        ratio = total[name] / total["floor"]
        print(f"{name:15s} {total[name]:8.3f} s  {ratio:5.2f}x floor")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=100_000)
    p.add_argument("--items", type=int, default=20_000)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--block", type=int, default=1000)
    p.add_argument("--seen", type=int, default=50)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--memory", action="store_true")
    p.add_argument("--paired", action="store_true")
    a = p.parse_args(argv)
    score = _generator(a.items, 0)
    if a.memory:
        _memory(a, score)
        return
    seen = _seen(a.users, a.items, a.seen, 1)
    if a.paired:
        _paired(a, score, seen)
        return
    out = {}

    def excluded():
        out["lists"] = top_k(score, a.k, exclude=seen, block_size=a.block)

    cases = {
        "generation": lambda: _gen_only(score, a.users, a.block),
        "floor": lambda: _floor(score, a.users, a.k, a.block),
        "top_k": lambda: top_k(score, a.k, n_users=a.users, block_size=a.block),
        "top_k+exclude": excluded,
    }
    times = {name: [] for name in cases}
    for _ in range(a.warmup):
        for fn in cases.values():
            fn()
    for _ in range(a.repeats):
        for name, fn in cases.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    med = {name: statistics.median(v) for name, v in times.items()}
    gen = med["generation"]
    floor = med["floor"] - gen
    print(
        f"{a.users} users x {a.items} items float32, k={a.k}, block={a.block}, "
        f"{a.repeats} repeats (medians, generation subtracted)"
    )
    for name in cases:
        net = med[name] - (0 if name == "generation" else gen)
        rounds = " ".join(f"{t:.2f}" for t in times[name])
        print(f"{name:15s} {net:8.3f} s  {net / floor:5.2f}x floor  (raw {rounds})")
    _beyond(a, out["lists"], seen)


if __name__ == "__main__":
    main()
