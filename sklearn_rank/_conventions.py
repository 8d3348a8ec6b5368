"""Convention presets and the resolution of metric options.

Every convention is an ordinary keyword. A keyword left at ``None`` takes its value
from the preset named by ``convention``; a keyword given explicitly always wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._validation import (
    check_max_grade,
    check_option,
    check_threshold,
    check_undefined,
    param_error,
)

TIES = ("average", "stable", "pessimistic", "optimistic")
GAINS = ("exponential", "linear")
PRECISION_DENOMINATORS = ("k", "min_k_n")
AP_DENOMINATORS = ("n_relevant", "min_k_n_relevant")
GAUC_WEIGHTS = ("rows", "uniform", "positives")

DEFAULT_CONVENTION = "sklearn_rank"

# Preset name -> value of every convention keyword. Presets for other libraries
# record where their values come from next to each entry.
CONVENTIONS: dict[str, dict[str, Any]] = {
    DEFAULT_CONVENTION: {
        "ties": "average",
        "gain": "exponential",
        "relevance_threshold": "positive",
        "undefined": "skip",
        "precision_denominator": "k",
        "ap_denominator": "n_relevant",
        "max_grade": 1.0,
        "weights": "rows",
    },
    # trec_eval (usnistgov/trec_eval). Use with rows from sklearn_rank.io, which
    # come in trec_eval's order (form_res_rels.c: score descending, then docno
    # descending), so that "stable" reproduces its tie rule.
    "trec_eval": {
        "ties": "stable",
        "gain": "linear",  # m_ndcg.c: gain = the relevance level by default
        "relevance_threshold": 1.0,  # rel >= relevance_level, default 1 (-l)
        "undefined": 0.0,  # no relevant doc: every measure 0, topic still averaged
        "precision_denominator": "k",  # m_P.c: missing ranks count as nonrelevant
        "ap_denominator": "n_relevant",  # m_map.c, m_map_cut.c: sum / num_rel
        "max_grade": 1.0,  # no ERR in trec_eval: project default
        "weights": "rows",  # no grouped AUC in trec_eval: project default
    },
    # scikit-learn sklearn/metrics/_ranking.py (ndcg_score, dcg_score).
    "sklearn": {
        "ties": "average",  # ignore_ties=False: _tie_averaged_dcg
        "gain": "linear",  # _dcg_sample_scores: y_true is the gain
        "relevance_threshold": "positive",
        "undefined": 0.0,  # _ndcg_sample_scores: all_irrelevant -> 0, averaged
        "precision_denominator": "k",  # no precision@k in scikit-learn: default
        "ap_denominator": "n_relevant",  # average_precision_score: all positives
        "max_grade": 1.0,  # no ERR: project default
        "weights": "rows",  # no grouped AUC: project default
    },
    # LightGBM src/metric/rank_metric.hpp, map_metric.hpp, dcg_calculator.cpp.
    "lightgbm": {
        "ties": "stable",  # CalDCG / CalMapAtK: std::stable_sort by score
        "gain": "exponential",  # DefaultLabelGain: label_gain = 2^i - 1
        "relevance_threshold": "positive",  # map: label > 0.5 on integer labels
        "undefined": 1.0,  # "if all doc in this query are all negative, NDCG=1";
        # CalMapAtK: npos == 0 -> 1
        "precision_denominator": "k",  # no precision@k in LightGBM: default
        "ap_denominator": "min_k_n_relevant",  # sum_ap / min(npos, k)
        "max_grade": 1.0,  # no ERR: project default
        "weights": "rows",  # no grouped AUC: project default
    },
    # XGBoost src/metric/rank_metric.cc (2.0 and later), common/algorithm.h.
    "xgboost": {
        "ties": "stable",  # ArgSort -> StableSort with std::greater
        "gain": "exponential",  # ndcg_exp_gain defaults to true
        "relevance_threshold": "positive",  # pre/map take binary labels
        "undefined": 1.0,  # ndcg/map without "-" suffix: 1 for empty groups
        "precision_denominator": "min_k_n",  # PreScore: hits / min(k, group size)
        "ap_denominator": "min_k_n_relevant",  # MAPScore: / min(n_hits, k)
        "max_grade": 1.0,  # no ERR: project default
        "weights": "uniform",  # grouped AUC: one (group-weighted) value per group
    },
}


@dataclass(frozen=True)
class Options:
    """Resolved, validated convention values shared by every metric of one call."""

    ties: str
    gain: str
    relevance_threshold: float | None  # None: y_true > 0
    undefined: str | float
    precision_denominator: str
    ap_denominator: str
    max_grade: float
    weights: str


def resolve_options(func: str, convention: str | None = None, **given: Any) -> Options:
    """Merge explicit keywords over the preset and validate the result."""
    name = DEFAULT_CONVENTION if convention is None else convention
    if not isinstance(name, str) or name not in CONVENTIONS:
        choices = ", ".join(repr(c) for c in CONVENTIONS)
        raise param_error(
            "convention", func, f"None or a str among {{{choices}}}", name
        )
    unknown = set(given) - set(CONVENTIONS[name])
    if unknown:  # programming error inside the package, not user input
        raise TypeError(f"unknown convention keyword(s) {sorted(unknown)}")
    values = dict(CONVENTIONS[name])
    values.update({key: val for key, val in given.items() if val is not None})
    return Options(
        ties=check_option("ties", func, values["ties"], TIES),
        gain=check_option("gain", func, values["gain"], GAINS),
        relevance_threshold=check_threshold(values["relevance_threshold"], func),
        undefined=check_undefined(values["undefined"], func),
        precision_denominator=check_option(
            "precision_denominator",
            func,
            values["precision_denominator"],
            PRECISION_DENOMINATORS,
        ),
        ap_denominator=check_option(
            "ap_denominator", func, values["ap_denominator"], AP_DENOMINATORS
        ),
        max_grade=check_max_grade(values["max_grade"], func),
        weights=check_option("weights", func, values["weights"], GAUC_WEIGHTS),
    )
