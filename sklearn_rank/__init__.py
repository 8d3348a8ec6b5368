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
    "GroupScores": "_metrics.evaluate",
    "evaluate": "_metrics.evaluate",
    "evaluate_per_group": "_metrics.evaluate",
    "PreparedEvaluation": "_metrics.prepared",
    "prepare": "_metrics.prepared",
    "RankingAccumulator": "_metrics.accumulator",
    "evaluate_run": "io._stack",
    "SegmentTable": "_metrics.by_segment",
    "evaluate_by_segment": "_metrics.by_segment",
    "arp_score": "_metrics.functions",
    "auc_score": "_metrics.functions",
    "bpref_score": "_metrics.functions",
    "dcg_score": "_metrics.functions",
    "eleven_point_precision_score": "_metrics.functions",
    "err_score": "_metrics.functions",
    "f1_at_k_score": "_metrics.functions",
    "fallout_at_k_score": "_metrics.functions",
    "gauc_score": "_metrics.functions",
    "hit_rate_score": "_metrics.functions",
    "interpolated_precision_score": "_metrics.functions",
    "judged_at_k_score": "_metrics.functions",
    "map_score": "_metrics.functions",
    "mrr_score": "_metrics.functions",
    "ndcg_score": "_metrics.functions",
    "pairwise_accuracy_score": "_metrics.functions",
    "precision_at_k_score": "_metrics.functions",
    "r_precision_score": "_metrics.functions",
    "rbp_score": "_metrics.functions",
    "recall_at_k_score": "_metrics.functions",
    "g_score": "_metrics.functions_trec",
    "bing_score": "_metrics.functions_trec",
    "infap_score": "_metrics.functions_trec",
    "r_precision_mult_score": "_metrics.functions_trec",
    "unjudged_at_k_score": "_metrics.functions_trec",
    "rbp_residual_score": "_metrics.functions_trec",
    "ndcg_rel_score": "_metrics.functions_trec",
    "rndcg_score": "_metrics.functions_trec",
    "alpha_ndcg_score": "_metrics.intent",
    "err_ia_score": "_metrics.intent",
    "evaluate_intents": "_metrics.intent",
    "precision_ia_score": "_metrics.intent",
    "subtopic_recall_score": "_metrics.intent",
    "GroupedRanker": "_sklearn.rankers",
    "get_metric_names": "_metrics.registry",
    "MultiMetricRankingScorer": "_sklearn.scorer",
    "RankingScorer": "_sklearn.scorer",
    "get_scorer": "_sklearn.scorer",
    "get_scorer_names": "_sklearn.scorer",
    "make_ranking_scorer": "_sklearn.scorer",
}


# Subpackages reachable as attributes (``sklearn_rank.stats``) without an import.
_SUBPACKAGES = ("boosting", "datasets", "io", "online", "plot", "stats")


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
