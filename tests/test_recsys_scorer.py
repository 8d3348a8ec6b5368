"""make_recommender_scorer in a GridSearchCV over a TruncatedSVD recommender:
the score equals evaluate_recommendations on each validation fold, training
items excluded, and the search prefers the rank that fits the data."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.decomposition import TruncatedSVD
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_rank.recsys import evaluate_recommendations, make_recommender_scorer


class SVDRecommender(BaseEstimator):
    """Item factors from a TruncatedSVD of the training interactions; a user's
    scores are their interactions projected on the factors and back."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        svd = TruncatedSVD(self.n_components, random_state=0).fit(X)
        self.components_ = svd.components_
        return self

    def predict(self, X):
        return np.asarray(X @ self.components_.T @ self.components_)


def _data(seed=0, n_users=300, n_items=60, rank=4):
    rng = np.random.default_rng(seed)
    u, v = rng.random((n_users, rank)), rng.random((rank, n_items))
    p = u @ v
    p = p**2 / (p**2).max()
    inter = rng.random((n_users, n_items)) < 0.6 * p
    split = rng.random((n_users, n_items)) < 0.2
    train = sp.csr_matrix((inter & ~split).astype(float))
    test = sp.csr_matrix((inter & split).astype(float))
    return train, test


def test_scorer_equals_evaluate_recommendations_on_the_fold():
    train, test = _data()
    model = SVDRecommender(3).fit(train[:200])
    scorer = make_recommender_scorer("ndcg", k=10)
    got = scorer(model, train[200:], test[200:])
    want = evaluate_recommendations(
        model.predict(train[200:]),
        test[200:],
        exclude=train[200:],
        k=10,
        metrics="ndcg",
    )["ndcg@10"]
    assert got == want
    # the training items are excluded: ranking them in changes the value
    kept = evaluate_recommendations(
        model.predict(train[200:]), test[200:], k=10, metrics="ndcg"
    )["ndcg@10"]
    assert abs(got - kept) > 0.01


def test_grid_search_over_the_number_of_components():
    train, test = _data()
    search = GridSearchCV(
        SVDRecommender(),
        {"n_components": [1, 4, 30]},
        scoring=make_recommender_scorer("recall", k=10),
        cv=KFold(3, shuffle=True, random_state=0),
    )
    search.fit(train, test)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all((scores >= 0) & (scores <= 1))
    assert search.best_params_["n_components"] != 30  # overfits the folds
    # the first fold by hand
    tr, va = next(KFold(3, shuffle=True, random_state=0).split(train))
    model = SVDRecommender(4).fit(train[tr])
    want = evaluate_recommendations(
        model.predict(train[va]), test[va], exclude=train[va], k=10, metrics="recall"
    )["recall@10"]
    assert search.cv_results_["split0_test_score"][1] == pytest.approx(want, abs=1e-12)


def test_bad_response_method():
    train, test = _data(n_users=20)
    model = SVDRecommender(2).fit(train)
    scorer = make_recommender_scorer("ndcg", response_method="score_items")
    with pytest.raises(ValueError, match="'response_method'"):
        scorer(model, train, test)
