"""
Early stopping on this library's metric inside a search
=======================================================

A boosted ranker is selected twice: the number of trees by early stopping on a
validation set, the other parameters by a search over folds of queries. With
:class:`sklearn_rank.GroupedRanker` ``(early_stopping=True)`` both use this
library's NDCG@10, and neither leaks a query: each training fold holds out whole
queries for the early stopping, and the outer test fold is never trained on.
"""

# %%
# A search over the number of leaves of an ``LGBMRanker``, up to 300 trees each,
# stopped after 20 rounds without improvement of NDCG@10 on a tenth of the
# training queries of each fold.
import matplotlib.pyplot as plt
import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rank import GroupedRanker, evaluate, make_ranking_scorer
from sklearn_rank.datasets import load_lambdarank

X, y, qid = load_lambdarank(subset="train", return_X_y=True)
model = GroupedRanker(
    LGBMRanker(n_estimators=300, learning_rate=0.05, verbose=-1),
    early_stopping=True,
    validation_fraction=0.1,
    scoring="ndcg@10",
    n_iter_no_change=20,
    random_state=0,
)
with sklearn.config_context(enable_metadata_routing=True):
    search = GridSearchCV(
        model,
        {"estimator__num_leaves": [7, 31]},
        cv=GroupKFold(n_splits=3),
        scoring=make_ranking_scorer("ndcg@10"),
    ).fit(X, y, groups=qid)
best = search.best_estimator_
print(f"best: {search.best_params_}, CV NDCG@10 {search.best_score_:.4f}")
print(f"trees kept by early stopping on the refit: {best.best_iteration_}")

# %%
# The refit model's validation curve: NDCG@10 of the held-out training queries
# after every round, and the round early stopping kept. The queries of the
# curve are never trained on (``validation_groups_`` names them).
train_ids = np.unique(qid)
held_out = np.unique(best.validation_groups_)
print(f"{held_out.size} of {train_ids.size} training queries held out for stopping")

fig, ax = plt.subplots(figsize=(6.4, 4))
rounds = np.arange(1, best.validation_scores_.shape[0] + 1)
ax.plot(rounds, best.validation_scores_, label="validation NDCG@10")
ax.axvline(best.best_iteration_, color="0.4", linestyle="--", label="kept")
ax.set_xlabel("boosting round")
ax.set_ylabel("NDCG@10 (held-out training queries)")
ax.legend(loc="lower right")

# %%
# The same metric, with the same definition, on the held-out test queries.
test = load_lambdarank(subset="test")
print(
    evaluate(
        test.target,
        best.predict(test.data),
        groups=test.groups,
        metrics=["ndcg@10", "map"],
    )
)
