"""
Recommenders over the whole catalogue: accuracy and beyond
==========================================================

A recommender scores every item for every user. Evaluating it means ranking
each user's catalogue with the items they already saw in training *excluded*,
comparing the top k with their held-out items, and looking past accuracy: how
much of the catalogue is recommended at all, how popular the recommended items
are, how diverse each list is. :func:`sklearn_rank.recsys.evaluate_recommendations`
does all of it from a score matrix and two sparse matrices, and
:func:`sklearn_rank.recsys.make_recommender_scorer` puts it in a search.
"""

# %%
# Simulated implicit feedback: 500 users, 200 items in 6 genres with a long
# tail of popularity; a user likes two genres. Each interaction goes to
# training (80%) or is held out (20%).
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.decomposition import NMF, TruncatedSVD
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_rank.recsys import (
    evaluate_recommendations,
    make_recommender_scorer,
    top_k,
)

rng = np.random.default_rng(0)
n_users, n_items, n_genres = 500, 200, 6
genre = rng.integers(0, n_genres, n_items)
item_features = np.eye(n_genres)[genre]  # one-hot genres, for the diversity
popularity = 1.0 / np.arange(1, n_items + 1) ** 0.7
likes = np.zeros((n_users, n_genres))
for u in range(n_users):
    likes[u, rng.choice(n_genres, 2, replace=False)] = 1.0
p = (0.1 + likes[:, genre]) * popularity
p *= 25 / p.sum(axis=1, keepdims=True)  # about 25 interactions per user
seen = rng.random((n_users, n_items)) < np.minimum(p, 1)
held_out = rng.random((n_users, n_items)) < 0.2
train = sp.csr_matrix((seen & ~held_out).astype(float))
test = sp.csr_matrix((seen & held_out).astype(float))
print(f"{train.nnz} training and {test.nnz} held-out interactions")


# %%
# A matrix factorisation as a scikit-learn estimator: ``fit`` learns item
# factors from the training interactions, ``predict`` folds users in from
# their interactions and returns scores over the whole catalogue (the
# reconstruction ``X V' V`` for TruncatedSVD, ``W H`` for NMF).
class Factorisation(BaseEstimator):
    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y=None):
        self.model_ = clone(self.model).fit(X)
        return self

    def predict(self, X):
        return self.model_.inverse_transform(self.model_.transform(X))


models = {
    "popularity": None,
    "SVD 4": Factorisation(TruncatedSVD(4, random_state=0)),
    "SVD 16": Factorisation(TruncatedSVD(16, random_state=0)),
    "SVD 48": Factorisation(TruncatedSVD(48, random_state=0)),
    "NMF 8": Factorisation(NMF(8, init="nndsvda", max_iter=100, random_state=0)),
}

# %%
# Each model scores the catalogue of every user; ``exclude=train`` removes
# their training items from the ranking exactly, so no list recommends an item
# already seen. Accuracy (NDCG, recall) and the beyond-accuracy metrics of
# the same top-10 lists come from one call.
metrics = [
    "ndcg@10",
    "recall@10",
    "catalog_coverage@10",
    "gini@10",
    "novelty@10",
    "arp@10",
    "intra_list_diversity@10",
]
counts = np.asarray(train.sum(axis=0)).ravel()
results = {}
for name, model in models.items():
    if model is None:
        scores = np.broadcast_to(counts, (n_users, n_items))  # most popular first
    else:
        scores = model.fit(train).predict(train)
    lists = top_k(scores, 10, exclude=train)
    assert not train[np.arange(n_users)[:, None], lists].toarray().any()
    results[name] = evaluate_recommendations(
        scores, test, exclude=train, k=10, metrics=metrics, item_features=item_features
    )

width = max(map(len, metrics))
print(f"{'':{width}}" + "".join(f"{name:>12}" for name in results))
for metric in metrics:
    row = "".join(f"{results[name][metric]:12.3f}" for name in results)
    print(f"{metric:{width}}{row}")

# %%
# The popularity baseline recommends the same handful of items to everyone:
# low coverage, a Gini near 1, low novelty and a high average popularity (ARP).
# A low-rank factorisation is both more accurate and wider; a higher rank
# covers more of the catalogue with more novel items, and past some rank it
# fits noise and loses accuracy.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
for ax, other in zip(axes, ["catalog_coverage@10", "novelty@10"], strict=True):
    for name, values in results.items():
        ax.scatter(values[other], values["ndcg@10"])
        ax.annotate(name, (values[other], values["ndcg@10"]), fontsize=8)
    ax.set_xlabel(other)
    ax.set_ylabel("ndcg@10")
axes[0].set_title("accuracy against coverage")
axes[1].set_title("accuracy against novelty")
plt.show()

# %%
# In a search the users are the samples: ``X`` holds their training
# interactions and ``y`` their held-out ones, so every validation user's
# catalogue is ranked with their own training items excluded.
search = GridSearchCV(
    Factorisation(TruncatedSVD(random_state=0)),
    {"model__n_components": [4, 16, 48]},
    scoring=make_recommender_scorer("ndcg", k=10),
    cv=KFold(3, shuffle=True, random_state=0),
).fit(train, test)
for params, score in zip(
    search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
):
    print(params, f"ndcg@10 = {score:.3f}")
print("best:", search.best_params_)
