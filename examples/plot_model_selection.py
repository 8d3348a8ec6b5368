"""
Model selection with GridSearchCV and group splitters
=====================================================

A ranking metric is computed per query and averaged over queries, so the folds of
a search must keep every query whole (a group splitter) and the scorer must know
the query of each test row. With scikit-learn's metadata routing on,
:func:`sklearn_rank.make_ranking_scorer` asks for ``groups`` and the search hands
each test fold's ids to it.
"""

# %%
# The bundled LambdaRank sample: 201 training queries, grades 0-4.
import numpy as np
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit

from sklearn_rank import evaluate, make_ranking_scorer
from sklearn_rank.datasets import load_lambdarank

X, y, qid = load_lambdarank(subset="train", return_X_y=True)
X_test, y_test, qid_test = load_lambdarank(subset="test", return_X_y=True)
print(f"{X.shape[0]} rows, {np.unique(qid).size} training queries")

# %%
# One scorer for several metrics (one prediction, one ordering per fold), and
# ``refit`` names the metric that picks the model.
sklearn.set_config(enable_metadata_routing=True)
scorer = make_ranking_scorer(["ndcg@10", "map", "mrr"])
search = GridSearchCV(
    Ridge(),
    {"alpha": [1.0, 100.0, 1000.0]},
    scoring=scorer,
    refit="ndcg@10",
    cv=GroupKFold(n_splits=3),
).fit(X, y, groups=qid)
print("best:", search.best_params_, f"CV NDCG@10 {search.best_score_:.4f}")
for alpha, ndcg, mrr in zip(
    search.cv_results_["param_alpha"],
    search.cv_results_["mean_test_ndcg@10"],
    search.cv_results_["mean_test_mrr"],
    strict=True,
):
    print(f"alpha={alpha:<7} NDCG@10 {ndcg:.4f}  MRR {mrr:.4f}")

# %%
# Any group splitter works: here repeated random splits of the queries.
search = GridSearchCV(
    Ridge(),
    {"alpha": [1.0, 1000.0]},
    scoring=make_ranking_scorer("ndcg@10"),
    cv=GroupShuffleSplit(n_splits=4, test_size=0.25, random_state=0),
).fit(X, y, groups=qid)
print("best:", search.best_params_)

# %%
# Scored at several cutoffs, the candidates draw as curves over k: the mean
# over the folds, and mean +- one standard deviation as a band.
from sklearn_rank.plot import MetricAtKDisplay

curves = GridSearchCV(
    Ridge(),
    {"alpha": [1.0, 1000.0]},
    scoring=make_ranking_scorer([f"ndcg@{k}" for k in (1, 3, 5, 10)]),
    refit=False,
    cv=GroupKFold(n_splits=3),
).fit(X, y, groups=qid)
_ = MetricAtKDisplay.from_cv_results(curves.cv_results_, metric="ndcg")

# %%
# The refit model on held-out queries, every metric from one call.
scores = search.predict(X_test)
print(evaluate(y_test, scores, groups=qid_test, metrics=["ndcg@10", "map", "mrr"]))
sklearn.set_config(enable_metadata_routing=False)
