"""Grouped ranking metrics for scikit-learn model selection.

Every metric takes flat per-row arrays ``y_true``, ``y_score`` and ``groups``,
computes one value per group from a single shared ordering and averages over groups.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0.dev0"

# Public name -> private module that defines it. Modules load on first use, so
# that ``import sklearn_rank`` (and the command line) pays neither for
# scikit-learn nor for scipy until a name that needs them is used.
_LAZY = {
    "GroupScores": "_evaluate",
    "evaluate": "_evaluate",
    "evaluate_per_group": "_evaluate",
    "SegmentTable": "_by_segment",
    "evaluate_by_segment": "_by_segment",
    "arp_score": "_metrics",
    "auc_score": "_metrics",
    "bpref_score": "_metrics",
    "dcg_score": "_metrics",
    "eleven_point_precision_score": "_metrics",
    "err_score": "_metrics",
    "f1_at_k_score": "_metrics",
    "fallout_at_k_score": "_metrics",
    "gauc_score": "_metrics",
    "hit_rate_score": "_metrics",
    "interpolated_precision_score": "_metrics",
    "judged_at_k_score": "_metrics",
    "map_score": "_metrics",
    "mrr_score": "_metrics",
    "ndcg_score": "_metrics",
    "pairwise_accuracy_score": "_metrics",
    "precision_at_k_score": "_metrics",
    "r_precision_score": "_metrics",
    "rbp_score": "_metrics",
    "recall_at_k_score": "_metrics",
    "g_score": "_metrics_trec",
    "bing_score": "_metrics_trec",
    "infap_score": "_metrics_trec",
    "r_precision_mult_score": "_metrics_trec",
    "unjudged_at_k_score": "_metrics_trec",
    "rbp_residual_score": "_metrics_trec",
    "ndcg_rel_score": "_metrics_trec",
    "rndcg_score": "_metrics_trec",
    "GroupedRanker": "_rankers",
    "get_metric_names": "_registry",
    "MultiMetricRankingScorer": "_scorer",
    "RankingScorer": "_scorer",
    "get_scorer": "_scorer",
    "get_scorer_names": "_scorer",
    "make_ranking_scorer": "_scorer",
}


# Subpackages reachable as attributes (``sklearn_rank.stats``) without an import.
_SUBPACKAGES = ("datasets", "io", "online", "plot", "stats")


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sklearn_rank' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))


__all__ = sorted(_LAZY)  # one edit in _LAZY adds a public name
