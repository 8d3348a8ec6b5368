"""The one table of metric names. ``evaluate``, the scorers, the error messages,
the docs and the invariance tests all read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import _kernels


@dataclass(frozen=True)
class MetricSpec:
    """One metric: its kernel and what it needs."""

    name: str
    kernel: Callable
    function: str  # public function name
    summary: str
    takes_k: bool = True
    uses_gain: bool = False  # graded gain: labels must be >= 0
    uses_grades: bool = False  # ERR: labels within [0, max_grade]
    pooled: bool = False  # one value over all rows, no per-group values


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "ndcg",
            _kernels.ndcg,
            "ndcg_score",
            "normalised discounted cumulative gain",
            uses_gain=True,
        ),
        MetricSpec(
            "dcg",
            _kernels.dcg,
            "dcg_score",
            "discounted cumulative gain",
            uses_gain=True,
        ),
        MetricSpec(
            "map", _kernels.average_precision, "map_score", "mean average precision"
        ),
        MetricSpec("mrr", _kernels.mrr, "mrr_score", "mean reciprocal rank"),
        MetricSpec(
            "precision", _kernels.precision, "precision_at_k_score", "precision at k"
        ),
        MetricSpec("recall", _kernels.recall, "recall_at_k_score", "recall at k"),
        MetricSpec(
            "hit_rate",
            _kernels.hit_rate,
            "hit_rate_score",
            "share of groups with a relevant item in the top k",
        ),
        MetricSpec(
            "r_precision",
            _kernels.r_precision,
            "r_precision_score",
            "precision at R, the group's number of relevant items",
            takes_k=False,
        ),
        MetricSpec(
            "err",
            _kernels.err,
            "err_score",
            "expected reciprocal rank",
            uses_grades=True,
        ),
        MetricSpec(
            "gauc",
            _kernels.gauc,
            "gauc_score",
            "per-group AUC averaged over groups",
            takes_k=False,
        ),
        MetricSpec(
            "auc",
            _kernels.auc,
            "auc_score",
            "AUC pooled over all rows (roc_auc_score)",
            takes_k=False,
            pooled=True,
        ),
    )
}


def get_metric_names() -> list[str]:
    """Names accepted by :func:`evaluate` and the scorers.

    Metrics with a cutoff also take ``"name@k"`` with a positive int ``k``.

    Returns
    -------
    names : list of str
        Sorted base names; those taking ``@k`` are listed as ``"name@k"`` too.

    Examples
    --------
    >>> from sklearn_rank import get_metric_names
    >>> "ndcg@k" in get_metric_names()
    True
    """
    names = []
    for spec in METRICS.values():
        names.append(spec.name)
        if spec.takes_k:
            names.append(f"{spec.name}@k")
    return sorted(names)


def parse_metric(name: str) -> tuple[MetricSpec, int | None]:
    """``"ndcg@10"`` -> (ndcg spec, 10); ``"map"`` -> (map spec, None)."""
    if not isinstance(name, str):
        raise TypeError(
            f"Metric names must be strings such as 'ndcg@10'; got {name!r}."
        )
    base, sep, cut = name.partition("@")
    spec = METRICS.get(base)
    if spec is None:
        valid = ", ".join(get_metric_names())
        raise ValueError(f"Unknown metric {name!r}. Valid names: {valid}.")
    if not sep:
        return spec, None
    if not spec.takes_k:
        raise ValueError(
            f"Metric {base!r} takes no cutoff; use {base!r} instead of {name!r}."
        )
    if not cut.isdigit() or int(cut) < 1:
        raise ValueError(
            f"The cutoff in {name!r} must be a positive integer, as in '{base}@10'."
        )
    return spec, int(cut)
