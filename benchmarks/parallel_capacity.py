#!/usr/bin/env python
"""How much two cores give this machine on the engine's work (issue 48): the
bound under any thread count target.

Times one ``evaluate`` (5 metrics, ``ties="average"``, the ragged layout of
``bench_threads.py``) of ``--rows`` rows alone, then two of them at once in two
processes (no GIL, nothing shared) and on two threads of one process, and, for
comparison, two compute-bound numpy jobs (a sort of 4M floats, ``np.sin`` over
a cached array) and two memory-bound ones (a pass over 8M floats, far larger
than the caches; a random gather of 4M floats) on two threads: the last two
are the machine's bound for work that streams through memory, whatever the
library does. Medians of ``--repeat`` rounds after a warm-up.

    python benchmarks/parallel_capacity.py --rows 500000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _evaluate_job(rows: int, seed: int):
    from bench_threads import METRICS, make_rows

    from sklearn_rank import evaluate

    y, s, g, _ = make_rows(rows, "ragged", seed=seed)
    return lambda: evaluate(y, s, groups=g, metrics=METRICS, ties="average", n_jobs=1)


def _median_time(func, repeat: int) -> float:
    func()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _in_process(args) -> float:
    rows, seed, repeat = args
    return _median_time(_evaluate_job(rows, seed), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    import numpy as np

    alone = _in_process((args.rows, 1, args.repeat))
    with get_context("spawn").Pool(2) as pool:
        both = pool.map(_in_process, [(args.rows, 1, args.repeat)] * 2)
    print(
        f"evaluate of {args.rows:,} rows: alone {alone * 1e3:.1f} ms; two processes "
        f"at once {both[0] * 1e3:.1f} / {both[1] * 1e3:.1f} ms each: "
        f"{2 * alone / max(both):.2f}x for two"
    )
    a, b = _evaluate_job(args.rows, 1), _evaluate_job(args.rows, 2)
    pool = ThreadPoolExecutor(2)

    def sequential():
        a(), b()

    def threaded():
        fa, fb = pool.submit(a), pool.submit(b)
        fa.result(), fb.result()

    seq = _median_time(sequential, args.repeat)
    par = _median_time(threaded, args.repeat)
    print(
        f"two evaluates one after the other {seq * 1e3:.1f} ms, on two threads "
        f"{par * 1e3:.1f} ms: {seq / par:.2f}x"
    )
    rng = np.random.default_rng(0)
    big = [rng.random(4_000_000) for _ in range(2)]
    small = [rng.random(100_000) for _ in range(2)]

    def sort(x):
        np.sort(x)

    def sines(x):
        y = x.copy()
        for _ in range(300):
            np.sin(y, out=y)

    wide = [rng.random(8_000_000) for _ in range(2)]
    wide_out = [np.empty_like(x) for x in wide]
    where = [rng.integers(0, 4_000_000, 4_000_000) for _ in range(2)]

    def stream(i):
        np.multiply(wide[i], 1.0001, out=wide_out[i])

    def gather(i):
        np.take(big[i], where[i], out=wide_out[i][: where[i].size])

    jobs = (
        ("sort of 4M floats", sort, big),
        ("np.sin", sines, small),
        ("pass over 8M floats (memory-bound)", stream, [0, 1]),
        ("random gather of 4M floats (memory-bound)", gather, [0, 1]),
    )
    for name, work, data in jobs:
        seq = _median_time(lambda w=work, d=data: [w(x) for x in d], 3)
        par = _median_time(lambda w=work, d=data: list(pool.map(w, d)), 3)
        print(f"{name}: two on two threads {seq / par:.2f}x")


if __name__ == "__main__":
    main()
