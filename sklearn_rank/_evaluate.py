"""Many metrics from one ordering, as one number each or one value per group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._conventions import Options, resolve_options
from ._engine import RankingContext
from ._group_codes import encode_groups
from ._reduce import apply_undefined, weighted_mean
from ._registry import MetricSpec, parse_metric
from ._validation import (
    check_bool_mask,
    check_lengths,
    check_numeric,
    check_sample_weight,
)

DEFAULT_METRICS = ("ndcg@10", "map", "mrr")


def _check_labels(y_true: np.ndarray, specs: Iterable[MetricSpec], opts: Options, func):
    specs = list(specs)
    if any(s.uses_gain or s.uses_grades for s in specs) and (y_true < 0).any():
        raise ValueError(
            f"y_true in {func} contains negative labels; graded gains need labels "
            ">= 0. Shift or clip the labels (e.g. grades 0..4)."
        )
    if opts.gain == "exponential" and any(s.uses_gain for s in specs):
        if y_true.max() > 1023:
            raise ValueError(
                f"y_true in {func} has a label of {y_true.max():g}: the exponential "
                "gain 2**label - 1 overflows float64 above 1023. Use gain='linear' "
                "or rescale the labels."
            )
    if any(s.uses_grades for s in specs) and y_true.max() > opts.max_grade:
        raise ValueError(
            f"y_true in {func} has a grade of {y_true.max():g} above "
            f"max_grade={opts.max_grade:g}. Pass max_grade=<the top of your grade "
            "scale> (e.g. max_grade=4 for grades 0..4); it must not depend on the "
            "data of one fold."
        )


def prepare(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    groups: Any,
    sample_weight: ArrayLike | None,
    retrieved: ArrayLike | None,
    specs: Sequence[MetricSpec],
    opts: Options,
) -> tuple[RankingContext, np.ndarray]:
    """Validate the per-row inputs and build the shared ordered view."""
    yt = check_numeric(y_true, "y_true", func)
    ys = check_numeric(y_score, "y_score", func)
    ret = None if retrieved is None else check_bool_mask(retrieved, "retrieved", func)
    n = check_lengths(func, y_true=yt, y_score=ys, retrieved=ret)
    sw = None if sample_weight is None else check_sample_weight(sample_weight, n, func)
    if groups is None and all(s.pooled for s in specs):
        codes, ids = np.zeros(n, dtype=np.intp), np.zeros(1, dtype=np.intp)
    else:
        codes, ids = encode_groups(groups, n, func)
    _check_labels(yt, specs, opts, func)
    ctx = RankingContext(
        yt,
        ys,
        codes,
        ids.shape[0],
        ties=opts.ties,
        retrieved=ret,
        sample_weight=sw,
    )
    return ctx, ids


def _parse_all(metrics: str | Sequence[str], func: str):
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError(
            f"The 'metrics' parameter of {func} must name at least one metric, "
            "e.g. metrics=('ndcg@10', 'map')."
        )
    return names, [parse_metric(name) for name in names]


def _setup(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: Any,
    metrics: str | Sequence[str],
    sample_weight: ArrayLike | None,
    retrieved: ArrayLike | None,
    convention: str | None,
    per_group: bool = False,
    **conventions: Any,
):
    """Resolve options, parse metric names and build the shared ordered view."""
    opts = resolve_options(func, convention, **conventions)
    names, parsed = _parse_all(metrics, func)
    if per_group:
        for name, (spec, _) in zip(names, parsed, strict=True):
            if spec.pooled:
                raise ValueError(
                    f"{name!r} is pooled over all rows and has no per-group value; "
                    "use 'gauc' for per-group AUC."
                )
    specs = [spec for spec, _ in parsed]
    ctx, ids = prepare(
        func, y_true, y_score, groups, sample_weight, retrieved, specs, opts
    )
    return opts, names, parsed, ctx, ids


def evaluate(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike | None,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    ties: str | None = None,
    gain: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    convention: str | None = None,
) -> dict[str, float]:
    """Compute several ranking metrics from one shared ordering.

    Groups are encoded once and rows ordered once (by group, then descending
    score); every requested metric is computed from that view.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance labels, binary or graded.
    y_score : array-like of shape (n_samples,)
        Scores; higher ranks first.
    groups : array-like of shape (n_samples,)
        Query, user or session id of each row (any hashable type, any order).
        May be None when only ``"auc"`` is requested.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`get_metric_names`, with ``"@k"`` for a cutoff.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights. A group's weight is the mean of its rows' weights; the result
        is the weighted mean over groups (pooled ``"auc"`` weights pairs instead).
    retrieved : array-like of bool of shape (n_samples,), default=None
        False marks rows that are judged but not ranked: they count in the number
        of relevant items and the ideal DCG, never in the ranked list.
    ties, gain, relevance_threshold, undefined, precision_denominator, \
ap_denominator, max_grade, weights : see the metric functions
        Conventions; None takes the value of ``convention``.
    convention : str, default=None
        Name of a preset of conventions; None is ``"sklearn_rank"``.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> y_true = [1, 0, 0, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.2, 0.7]
    >>> groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> evaluate(y_true, y_score, groups=groups, metrics=["mrr", "precision@2"])
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    """
    opts, names, parsed, ctx, ids = _setup("evaluate", **locals())
    return {
        name: score_context(ctx, ids, spec, k, opts, name)
        for name, (spec, k) in zip(names, parsed, strict=True)
    }


def score_context(
    ctx: RankingContext,
    ids: np.ndarray,
    spec: MetricSpec,
    k: int | None,
    opts: Options,
    label: str,
) -> float:
    """One metric from a prepared context, reduced to a float."""
    values, defined, weight = spec.kernel(ctx, k, opts)
    group_ids = np.array(["<all rows>"], dtype=object) if spec.pooled else ids
    values, include = apply_undefined(values, defined, opts.undefined, label, group_ids)
    return weighted_mean(values, include, weight, label)


@dataclass(frozen=True)
class GroupScores:
    """Per-group metric values from :func:`evaluate_per_group`.

    Attributes
    ----------
    group_ids : ndarray of shape (n_groups,)
        The distinct group ids, sorted; every other array is aligned with it.
    values : dict of str to ndarray of shape (n_groups,)
        Metric value per group; NaN where the metric is undefined for the group.
    weights : dict of str to ndarray of shape (n_groups,)
        The weight of each group in that metric's mean: the mean sample weight of
        its rows (times the GAUC size weight for ``"gauc"``).
    """

    group_ids: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)

    def mean(self, name: str) -> float:
        """Weighted mean over the defined groups (``undefined="skip"``)."""
        values = self.values[name]
        return weighted_mean(values, ~np.isnan(values), self.weights[name], name)

    def to_frame(self):
        """A pandas DataFrame indexed by group id, one column per metric."""
        import pandas as pd  # optional dependency, only needed here

        frame = pd.DataFrame(self.values, index=pd.Index(self.group_ids, name="group"))
        return frame


def evaluate_per_group(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    ties: str | None = None,
    gain: str | None = None,
    relevance_threshold: float | str | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    convention: str | None = None,
) -> GroupScores:
    """One value per group for each metric, aligned with the sorted group ids.

    Takes the same arguments as :func:`evaluate` except ``undefined``: undefined
    groups are NaN here. The pooled ``"auc"`` has no per-group value (use
    ``"gauc"``).

    Returns
    -------
    scores : GroupScores
        ``scores.group_ids``, ``scores.values[name]`` and ``scores.weights[name]``;
        ``scores.mean(name)`` equals ``evaluate(...)[name]`` with
        ``undefined="skip"``.

    Examples
    --------
    >>> from sklearn_rank import evaluate_per_group
    >>> res = evaluate_per_group(
    ...     [1, 0, 0, 0, 1, 0], [0.9, 0.8, 0.1, 0.3, 0.2, 0.7],
    ...     groups=["q1", "q1", "q1", "q2", "q2", "q2"], metrics=["mrr"])
    >>> res.group_ids.tolist(), res.values["mrr"].tolist()
    (['q1', 'q2'], [1.0, 0.3333333333333333])
    """
    opts, names, parsed, ctx, ids = _setup(
        "evaluate_per_group", per_group=True, **locals()
    )
    values, weights_out = {}, {}
    for name, (spec, k) in zip(names, parsed, strict=True):
        v, defined, w = spec.kernel(ctx, k, opts)
        values[name] = np.where(defined, v, np.nan)
        weights_out[name] = w
    return GroupScores(group_ids=ids, values=values, weights=weights_out)
