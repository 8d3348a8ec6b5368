"""Grouped ranking metrics for scikit-learn model selection.

Every metric takes flat per-row arrays ``y_true``, ``y_score`` and ``groups``,
computes one value per group from a single shared ordering and averages over groups.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0.dev0"

# Public name -> private module that defines it, for the names that are not
# metric functions. Modules load on first use, so that ``import sklearn_rank``
# (and the command line) pays neither for scikit-learn nor for scipy until a
# name that needs them is used.
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
    "alpha_dcg_score": "_metrics.intent",
    "alpha_ndcg_score": "_metrics.intent",
    "attention_weighted_rank_fairness": "_metrics.exposure",
    "cross_item_groups": "_metrics.exposure",
    "relevant_item_group_shares": "_metrics.exposure",
    "err_ia_score": "_metrics.intent",
    "evaluate_intents": "_metrics.intent",
    "expected_exposure": "_metrics.exposure",
    "exposure_by_item_group": "_metrics.exposure",
    "map_ia_score": "_metrics.intent",
    "nerr_ia_score": "_metrics.intent",
    "nnrbp_score": "_metrics.intent",
    "nrbp_score": "_metrics.intent",
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


def _add_metric_functions() -> None:
    """Add every ``*_score`` function of the metric table to ``_LAZY``.

    The table (``_metrics/registry.METRICS``) names each public function and its
    module, so a metric added there is exported without an edit here. It loads
    numpy and the engine, hence on the first look-up that needs it, not at
    ``import sklearn_rank``.
    """
    registry = importlib.import_module("._metrics.registry", __name__)
    for spec in registry.METRICS.values():
        _LAZY[spec.function] = spec.module
    globals()["__all__"] = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name == "__all__" or (name.endswith("_score") and name not in _LAZY):
        if "__all__" not in globals():
            _add_metric_functions()
        if name == "__all__":
            return globals()["__all__"]
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sklearn_rank' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")) | set(_SUBPACKAGES))
