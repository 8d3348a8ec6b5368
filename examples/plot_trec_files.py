"""
Evaluating TREC run files from Python
=====================================

:func:`sklearn_rank.io.load_trec` reads a qrels file and a run file and joins them
into flat arrays (one row per judged or retrieved document); with
``convention="trec_eval"`` the metrics are trec_eval's (its tie order, its gains,
its ``-c`` and ``-J`` switches as keywords). The command line does the same job:
``sklearn-rank eval -m map -m ndcg_cut.10 qrels.txt run.txt``.
"""

# %%
# Two small files, written here so that the example runs anywhere.
import tempfile
from pathlib import Path

from sklearn_rank import evaluate, evaluate_per_group
from sklearn_rank.io import load_trec

folder = Path(tempfile.mkdtemp())
(folder / "qrels.txt").write_text(
    "301 0 d1 2\n301 0 d2 0\n301 0 d3 1\n301 0 d9 1\n"
    "302 0 d4 1\n302 0 d5 0\n302 0 d6 0\n"
)
(folder / "run.txt").write_text(
    "301 Q0 d3 1 9.1 mine\n301 Q0 d2 2 8.0 mine\n301 Q0 d1 3 7.5 mine\n"
    "301 Q0 d7 4 1.0 mine\n"
    "302 Q0 d5 1 3.0 mine\n302 Q0 d4 2 2.0 mine\n302 Q0 d6 3 1.0 mine\n"
)

# %%
# The joined arrays: ``retrieved`` marks d9, judged but not returned (it counts
# in the number of relevant documents and in the ideal DCG only); ``judged``
# marks d7, returned but not judged.
trec = load_trec(folder / "qrels.txt", folder / "run.txt")
print("query doc grade score retrieved judged")
for row in zip(
    trec.groups,
    trec.docno,
    trec.y_true,
    trec.y_score,
    trec.retrieved,
    trec.judged,
    strict=True,
):
    print(*row)

# %%
# trec_eval's measures, averaged over queries.
metrics = ["map", "ndcg", "ndcg@10", "precision@2", "recall@3", "mrr"]
print(
    evaluate(
        trec.y_true,
        trec.y_score,
        groups=trec.groups,
        retrieved=trec.retrieved,
        metrics=metrics,
        convention="trec_eval",
    )
)

# %%
# Per query, as ``trec_eval -q`` prints it.
per_query = evaluate_per_group(
    trec.y_true,
    trec.y_score,
    groups=trec.groups,
    retrieved=trec.retrieved,
    metrics=["map", "ndcg@10"],
    convention="trec_eval",
)
for metric, values in per_query.values.items():
    print(metric, dict(zip(per_query.group_ids, values.round(4).tolist(), strict=True)))

# %%
# The run's interpolated precision-recall curve, averaged over the queries
# with trec_eval's conventions (the legend gives its 11-point average).
from sklearn_rank.plot import InterpolatedPrecisionRecallDisplay

_ = InterpolatedPrecisionRecallDisplay.from_predictions(
    trec.y_true,
    {"mine": trec.y_score},
    groups=trec.groups,
    convention="trec_eval",
    retrieved=trec.retrieved,
)
