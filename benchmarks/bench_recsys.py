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

Times are medians of ``--repeats`` interleaved rounds after one warm-up. Run
``python benchmarks/bench_recsys.py --help``; results in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sklearn_rank.recsys import top_k


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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=100_000)
    p.add_argument("--items", type=int, default=20_000)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--block", type=int, default=1000)
    p.add_argument("--seen", type=int, default=50)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    score = _generator(a.items, 0)
    rng = np.random.default_rng(1)
    users = np.repeat(np.arange(a.users), a.seen)
    items = rng.integers(0, a.items, size=users.size)
    seen = sp.csr_matrix(
        (np.ones(users.size, dtype=np.float32), (users, items)),
        shape=(a.users, a.items),
    )
    cases = {
        "generation": lambda: _gen_only(score, a.users, a.block),
        "floor": lambda: _floor(score, a.users, a.k, a.block),
        "top_k": lambda: top_k(score, a.k, n_users=a.users, block_size=a.block),
        "top_k+exclude": lambda: top_k(score, a.k, exclude=seen, block_size=a.block),
    }
    times = {name: [] for name in cases}
    for fn in cases.values():
        fn()  # warm-up
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
        print(f"{name:15s} {net:8.3f} s  {net / floor:5.2f}x floor")


if __name__ == "__main__":
    main()
