"""Grouped ranking metrics for scikit-learn model selection.

Every metric takes flat per-row arrays ``y_true``, ``y_score`` and ``groups``,
computes one value per group from a single shared ordering and averages over groups.
"""

from ._evaluate import GroupScores, evaluate, evaluate_per_group
from ._metrics import (
    auc_score,
    dcg_score,
    err_score,
    gauc_score,
    hit_rate_score,
    map_score,
    mrr_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._rankers import GroupedRanker
from ._registry import get_metric_names
from ._scorer import (
    MultiMetricRankingScorer,
    RankingScorer,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "GroupScores",
    "GroupedRanker",
    "MultiMetricRankingScorer",
    "RankingScorer",
    "auc_score",
    "dcg_score",
    "err_score",
    "evaluate",
    "evaluate_per_group",
    "gauc_score",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "hit_rate_score",
    "make_ranking_scorer",
    "map_score",
    "mrr_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "recall_at_k_score",
]
