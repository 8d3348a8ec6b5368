"""evaluate_run against ir_measures (default providers) and ranx, side by side.

One synthetic run frame (PyTerrier columns qid, docno, score) and qrels frame
(qid, docno, label); each library is timed end to end from the frames (its own
conversion included) on the same measures, a few repeats, the best time kept.

    python benchmarks/bench_ir_stack.py --queries 5000 --depth 100 --repeats 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

MEASURES = ["nDCG@10", "P@10", "AP", "RR", "R@100"]


def frames(n_queries: int, depth: int, judged_per_query: int, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    qid = np.repeat(np.array([f"q{i}" for i in range(n_queries)], dtype=object), depth)
    # distinct documents per query: the first `depth` of a shuffled pool
    pool = np.argsort(rng.random((n_queries, depth * 5)), axis=1)[:, :depth]
    docno = np.char.add("d", pool.ravel().astype(str)).astype(object)
    score = np.round(rng.random(n_queries * depth), 2)  # ties
    run = pd.DataFrame({"qid": qid, "docno": docno, "score": score})
    jpool = np.argsort(rng.random((n_queries, depth * 5)), axis=1)[:, :judged_per_query]
    qrels = pd.DataFrame(
        {
            "qid": np.repeat(qid[::depth], judged_per_query),
            "docno": np.char.add("d", jpool.ravel().astype(str)).astype(object),
            "label": rng.integers(0, 3, n_queries * judged_per_query),
        }
    )
    return qrels, run


def best_of(repeats: int, fn):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    qrels, run = frames(args.queries, args.depth, args.judged)
    print(f"run rows {len(run):,}, qrels rows {len(qrels):,}, measures {MEASURES}")

    from sklearn_rank import evaluate_run

    rows = {}
    t, ours = best_of(args.repeats, lambda: evaluate_run(qrels, run, metrics=MEASURES))
    rows["sklearn_rank.evaluate_run"] = (t, ours)
    try:
        import ir_measures

        parsed = [ir_measures.parse_measure(m) for m in MEASURES]
        ir_q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id",
                                     "label": "relevance"})  # fmt: skip
        ir_r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})

        def ir():
            out = ir_measures.calc_aggregate(parsed, ir_q, ir_r)
            return {m: out[p] for m, p in zip(MEASURES, parsed, strict=True)}

        rows["ir_measures.calc_aggregate"] = best_of(args.repeats, ir)
    except ImportError:
        pass
    try:
        import ranx

        names = {"nDCG@10": "ndcg@10", "P@10": "precision@10", "AP": "map",
                 "RR": "mrr", "R@100": "recall@100"}  # fmt: skip
        rq = qrels.rename(columns={"qid": "q_id", "docno": "doc_id"})
        rr = run.rename(columns={"qid": "q_id", "docno": "doc_id"})
        for frame in (rq, rr):  # ranx asserts object ids (pandas 3: str dtype)
            for col in ("q_id", "doc_id"):
                frame[col] = frame[col].astype(object)

        def rx():
            q = ranx.Qrels.from_df(rq, q_id_col="q_id", doc_id_col="doc_id",
                                   score_col="label")  # fmt: skip
            r = ranx.Run.from_df(rr, q_id_col="q_id", doc_id_col="doc_id",
                                 score_col="score")  # fmt: skip
            out = ranx.evaluate(q, r, list(names.values()))
            return {m: out[n] for m, n in names.items()}

        rx()  # numba compiles on the first call: not timed
        rows["ranx.evaluate"] = best_of(args.repeats, rx)
    except ImportError:
        pass
    base = rows["sklearn_rank.evaluate_run"][0]
    print(
        f"{'':28s} {'seconds':>8s} {'x ours':>7s}  "
        + " ".join(f"{m:>8s}" for m in MEASURES)
    )
    for name, (t, out) in rows.items():
        values = " ".join(f"{out[m]:8.4f}" for m in MEASURES)
        print(f"{name:28s} {t:8.3f} {t / base:7.1f}  {values}")


if __name__ == "__main__":
    main()
