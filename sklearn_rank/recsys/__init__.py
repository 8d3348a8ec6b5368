"""Recommender evaluation: the top-k items of each user from scores over a
catalogue, training interactions excluded exactly, in blocks of users so memory is
bounded by one block.

See docs/recsys.md for the workflow, the tie rule and the bad-input rules.
"""

from ._beyond import BEYOND_ACCURACY, beyond_accuracy
from ._evaluate import evaluate_recommendations, flat_table
from ._sampled import evaluate_sampled
from ._scorer import RecommenderScorer, make_recommender_scorer
from ._topk import top_k

__all__ = [
    "BEYOND_ACCURACY",
    "RecommenderScorer",
    "beyond_accuracy",
    "evaluate_recommendations",
    "evaluate_sampled",
    "flat_table",
    "make_recommender_scorer",
    "top_k",
]
