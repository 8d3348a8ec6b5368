"""How far ndeval's greedy ideal of alpha-nDCG lies from the exact ideal.

The exact ideal (the ranking of largest alpha-DCG@k) is found by dynamic
programming over subsets of a query's relevant rows: the gain of a row depends
only on which rows are ranked above it, not on their order, so
``best[S] = max_{x in S} best[S - x] + gain(x | S - x) / log2(|S| + 1)``
(exponential in the rows: small queries only). The greedy ideal's alpha-DCG is
read through the library: ``alpha_ndcg_score`` of the exact ideal ranking is
``exact / greedy``, so it is >= 1, and equal to 1 where the greedy ideal is
exact. Prints, per setting, the share of queries where the greedy ideal falls
short, and the mean and largest shortfall ``1 - greedy / exact``.

    python benchmarks/greedy_vs_exact_ideal.py --queries 400 --seed 0
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from sklearn_rank import alpha_ndcg_score


def exact_ideal(rel: np.ndarray, alpha: float, k: int) -> tuple[float, list[int]]:
    """alpha-DCG@k of the best ranking of the rows of ``rel`` (rows x intents,
    0/1), and that ranking (the other rows after it)."""
    n = rel.shape[0]
    depth = min(k, n)
    best = {0: (0.0, [])}
    layer = {0}
    for size in range(1, depth + 1):
        disc = 1.0 / math.log2(size + 1)
        nxt: dict[int, tuple[float, list[int]]] = {}
        for s in layer:
            value, order = best[s]
            seen = rel[order].sum(axis=0) if order else np.zeros(rel.shape[1])
            for x in range(n):
                if s >> x & 1:
                    continue
                gain = float((rel[x] * (1.0 - alpha) ** seen).sum())
                t = s | 1 << x
                cand = value + gain * disc
                if t not in nxt or cand > nxt[t][0] + 1e-15:
                    nxt[t] = (cand, [*order, x])
        best.update(nxt)
        layer = set(nxt)
    value, order = max((best[s] for s in layer), key=lambda v: v[0])
    rest = [x for x in range(n) if x not in order]
    return value, order + rest


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(
        "rows  intents  p(rel)  alpha  k   queries  greedy<exact  mean short  max short"
    )
    for rows, intents, p, alpha, k in [
        (6, 3, 0.4, 0.5, 5),
        (8, 4, 0.3, 0.5, 5),
        (10, 4, 0.3, 0.5, 10),
        (10, 6, 0.3, 0.5, 10),
        (12, 5, 0.25, 0.5, 5),
        (10, 4, 0.3, 0.2, 10),
        (10, 4, 0.3, 0.8, 10),
    ]:
        short = []
        n = args.queries if rows <= 10 else args.queries // 4
        for _ in range(n):
            rel = (rng.random((rows, intents)) < p).astype(int)
            rel = rel[rel.any(axis=1)]
            if not rel.shape[0]:
                continue
            _, order = exact_ideal(rel, alpha, k)
            score = -np.argsort(order).astype(float)  # the exact ideal ranked
            ratio = alpha_ndcg_score(
                rel, score, groups=np.zeros(len(rel)), k=k, alpha=alpha
            )
            short.append(1.0 - 1.0 / ratio)  # 1 - greedy / exact
        short = np.array(short)
        # The exact ideal is never below the greedy one (else the DP is wrong).
        assert short.min() > -1e-12, short.min()
        print(
            f"{rows:4d}  {intents:7d}  {p:6.2f}  {alpha:5.2f}  {k:2d}  "
            f"{short.size:7d}  {np.mean(short > 1e-12):12.1%}  "
            f"{short.mean():10.2e}  {short.max():9.2e}"
        )


if __name__ == "__main__":
    main()
