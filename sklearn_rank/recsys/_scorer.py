"""``make_recommender_scorer``: a scikit-learn scorer that ranks each validation
user's catalogue, their training items excluded, for searches over
recommenders (GridSearchCV with users as samples)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils.params import param_error
from ._evaluate import evaluate_recommendations

_FUNC = "make_recommender_scorer"


class RecommenderScorer:
    """Callable ``scorer(estimator, X, y)``: ``X`` the users' training
    interactions (excluded from the ranking), ``y`` their held-out ones; the
    scores over the catalogue come from ``getattr(estimator, response_method)(X)``.
    """

    def __init__(self, metric: str, k: int, response_method: str, options: dict):
        self.metric, self.k = metric, k
        self.response_method, self.options = response_method, options

    def __call__(self, estimator: Any, X: Any, y: Any) -> float:
        method = getattr(estimator, self.response_method, None)
        if method is None:
            raise param_error(
                "response_method",
                _FUNC,
                "a method of the estimator returning (n_users, n_items) scores",
                self.response_method,
            )
        scores = np.asarray(method(X))
        res = evaluate_recommendations(
            scores, y, exclude=X, k=self.k, metrics=self.metric, **self.options
        )
        return next(iter(res.values()))

    def __repr__(self) -> str:
        return (
            f"make_recommender_scorer({self.metric!r}, k={self.k}, "
            f"response_method={self.response_method!r})"
        )


def make_recommender_scorer(
    metric: str = "ndcg",
    *,
    k: int = 10,
    response_method: str = "predict",
    **options: Any,
) -> RecommenderScorer:
    """A scorer for recommenders: each validation user's catalogue ranked, their
    training items excluded, evaluated by :func:`evaluate_recommendations`.

    Users are the samples: ``X`` is the sparse ``(n_users, n_items)`` matrix of
    the users' training interactions (what the estimator folds in, and what is
    excluded from their lists) and ``y`` the sparse matrix of their held-out
    interactions, so a cross-validation over users splits both alike.

    Parameters
    ----------
    metric : str, default="ndcg"
        A registry name accepted by :func:`evaluate_recommendations` (``@k``
        added when absent).
    k : int, default=10
        Length of each list.
    response_method : str, default="predict"
        The estimator's method returning the ``(n_users, n_items)`` scores of
        ``X``'s users.
    **options
        The conventions' keywords, as in :func:`evaluate_recommendations`.

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y) -> float`` (higher is better)

    Examples
    --------
    >>> from sklearn_rank.recsys import make_recommender_scorer
    >>> make_recommender_scorer("recall", k=20)
    make_recommender_scorer('recall', k=20, response_method='predict')
    """
    if not isinstance(metric, str):
        raise param_error("metric", _FUNC, "a str", metric)
    return RecommenderScorer(metric, k, response_method, options)
