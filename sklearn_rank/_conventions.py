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
