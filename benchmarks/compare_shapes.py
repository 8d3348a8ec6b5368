#!/usr/bin/env python
"""Side-by-side ``evaluate`` ÷ lexsort of two checkouts on the shapes of this one.

Each (round, shape, checkout) runs in a fresh process, which imports
``sklearn_rank`` from the given checkout, builds the shape with this checkout's
generator (``_bench.shapes``, so both checkouts see the same rows, including
shapes the other checkout does not know), prefaults memory, and times
``evaluate`` (5 metrics, ties averaged) and ``np.lexsort((-score, ids))`` in
interleaved rounds. The checkouts alternate within every round, so load drifts
hit both alike. Prints one JSON line per process, then the median and range of
each ratio.

    python benchmarks/compare_shapes.py ../baseline . --shapes int_scores,tiny,huge
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")


def _child(root: str, shape: str, rows: int, repeats: int) -> None:
    sys.path[:0] = [os.path.abspath(root), HERE]
    import numpy as np
    from _bench.shapes import BY_NAME, make_shape
    from _bench.timing import prefault

    import sklearn_rank as srank

    prefault(1024)
    d = make_shape(BY_NAME[shape], rows)

    def run():
        return srank.evaluate(d.y_true, d.y_score, groups=d.groups, metrics=METRICS)

    def floor():
        return np.lexsort((-d.y_score, d.int_ids))

    run(), floor()
    te, tl = [], []
    for _ in range(repeats):
        for fn, times in ((run, te), (floor, tl)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    ev, lex = statistics.median(te), statistics.median(tl)
    out = {"root": root, "shape": shape, "evaluate": ev, "lexsort": lex}
    print(json.dumps({**out, "ratio": ev / lex, "module": srank.__file__}))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("roots", nargs="*", help="two checkouts (before, after)")
    p.add_argument("--shapes", default="int_scores,tiny,huge")
    p.add_argument("--rows", type=lambda x: int(float(x)), default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--_child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args._child:
        _child(args._child[0], args._child[1], args.rows, args.repeats)
        return 0
    if len(args.roots) != 2:
        p.error("give two checkouts: before and after")
    ratios: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for shape in args.shapes.split(","):
            for root in args.roots:
                cmd = [sys.executable, __file__, "--_child", root, shape]
                cmd += ["--rows", str(args.rows), "--repeats", str(args.repeats)]
                env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
                line = (
                    subprocess.run(
                        cmd, capture_output=True, text=True, check=True, env=env
                    )
                    .stdout.strip()
                    .splitlines()[-1]
                )
                print(line, flush=True)
                ratios.setdefault((shape, root), []).append(json.loads(line)["ratio"])
    print(f"load average after: {os.getloadavg()}")
    for (shape, root), r in ratios.items():
        print(
            f"{shape:12} {root:24} evaluate ÷ lexsort median {statistics.median(r):.2f}"
            f" (range {min(r):.2f} to {max(r):.2f}, {len(r)} runs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
