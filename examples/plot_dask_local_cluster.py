"""
Dask on a local cluster
=======================

:mod:`sklearn_rank.dask` computes the same numbers as the in-memory functions from
a Dask DataFrame, partition by partition, and scikit-learn's searches run on a
``distributed`` cluster through joblib's dask backend. A
``distributed.LocalCluster`` stands in for a real cluster here (in-process
workers, so the example starts in a second); with a real scheduler only the
``Client(...)`` line changes.
"""

# %%
# A Dask DataFrame of 2,000 queries in 8 partitions; a query may span two
# partitions (the functions group the rows with a shuffle where needed).
import logging

import dask.dataframe as dd
import joblib
import numpy as np
import pandas as pd
import sklearn
from distributed import Client, LocalCluster
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

import sklearn_rank
import sklearn_rank.dask
from sklearn_rank import make_ranking_scorer
from sklearn_rank.datasets import load_lambdarank

cluster = LocalCluster(
    n_workers=2,
    threads_per_worker=1,
    processes=False,
    dashboard_address=None,
    silence_logs=logging.ERROR,
)
client = Client(cluster)

rng = np.random.default_rng(0)
n = 20_000
rows = pd.DataFrame(
    {
        "qid": np.repeat(np.arange(2_000), 10),
        "label": rng.integers(0, 3, n),
    }
)
rows["score"] = rows["label"] + rng.normal(0, 1.5, n)
frame = dd.from_pandas(rows, npartitions=8)

metrics = ["ndcg@10", "map", "mrr"]
on_dask = sklearn_rank.dask.evaluate(frame, metrics=metrics)
in_memory = sklearn_rank.evaluate(
    rows["label"], rows["score"], groups=rows["qid"], metrics=metrics
)
for name in metrics:
    print(f"{name:8} dask {on_dask[name]:.12f}  in memory {in_memory[name]:.12f}")

# %%
# Per-query values stay lazy until computed.
per_query = sklearn_rank.dask.evaluate_per_group(frame, metrics=["ndcg@10"])
print(per_query.compute().sort_index().head())

# %%
# Computed, they draw like any per-query values: here their distribution.
from sklearn_rank.plot import GroupScoreDisplay

values = per_query.compute()["ndcg@10"].to_numpy()
_ = GroupScoreDisplay(values={"score": values}, metric="ndcg@10").plot()

# %%
# A search whose fits and scorings run on the cluster's workers.
X, y, qid = load_lambdarank(subset="train", return_X_y=True)
with sklearn.config_context(enable_metadata_routing=True):
    search = GridSearchCV(
        Ridge(),
        {"alpha": [10.0, 1000.0]},
        scoring=make_ranking_scorer(["ndcg@10", "map"]),
        refit="ndcg@10",
        cv=GroupKFold(n_splits=3),
        n_jobs=-1,
    )
    with joblib.parallel_backend("dask"):
        search.fit(X, y, groups=qid)
print(search.best_params_, round(search.best_score_, 4))

# %%
client.close()
cluster.close()
