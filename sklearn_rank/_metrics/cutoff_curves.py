"""A cutoff metric at many cutoffs ``k`` from one ordering: ``metric@k`` for every
``k`` of a list, the data of :class:`sklearn_rank.plot.MetricAtKDisplay`.

The rows are validated, encoded and ordered once (:func:`rank_inputs`); the values
come from the engine's cutoff axis (:mod:`sklearn_rank._engine.cutoffs`: the
kernel's own contributions summed down the positions and its own finisher where
the kernel is written that way, else the kernel once per cutoff) and the means
from the reduction module. Cutoffs past the longest group
read one row of the table: the (cutoffs, groups) array is expanded only when
asked for (:attr:`CutoffCurve.values`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.conventions import resolve_options
from .._engine.cutoffs import values_at_cutoffs
from .._engine.reduce import mean_over_groups
from .._utils.params import param_error
from .evaluate import rank_inputs
from .registry import METRICS
from .validation import MetricRequest, parse_metric


@dataclass(frozen=True)
class CutoffCurve:
    """One metric at several cutoffs, per group and as the mean over groups.

    Attributes
    ----------
    metric : str
        The metric name without a cutoff (``"ndcg"``).
    ks : ndarray of int of shape (n_k,)
        The cutoffs, increasing.
    group_ids : ndarray of shape (n_groups,)
        Sorted distinct group ids.
    table : ndarray of shape (n_rows, n_groups)
        The per-group values at the distinct cutoffs (cutoffs past the longest
        group read one row); NaN where undefined.
    rows : ndarray of int of shape (n_k,)
        The row of ``table`` each ``k`` reads.
    divisor : ndarray of shape (n_k,) or None
        What each ``k``'s row is divided by (precision's ``k``), if anything.
    weights : ndarray of shape (n_groups,)
        Each group's weight in the mean.
    means : ndarray of shape (n_k,)
        ``evaluate(..., metrics=[f"{metric}@{k}"])`` for each ``k``.
    values : ndarray of shape (n_k, n_groups)
        ``metric@k`` per group; NaN where undefined. Expanded from ``table`` on
        first access: the means need no (cutoffs, groups) array.
    """

    metric: str
    ks: np.ndarray
    group_ids: np.ndarray
    table: np.ndarray
    rows: np.ndarray
    divisor: np.ndarray | None
    weights: np.ndarray
    means: np.ndarray

    @cached_property
    def values(self) -> np.ndarray:
        if self.rows.size == self.table.shape[0]:  # every cutoff distinct
            values = self.table
        else:
            values = self.table[self.rows]
        if self.divisor is not None:
            values = values / self.divisor[:, None]
        return values

    def at(self, i: int) -> np.ndarray:
        """The per-group values at the ``i``-th cutoff, ``values[i]`` without
        expanding ``values``."""
        row = self.table[self.rows[i]]
        return row if self.divisor is None else row / self.divisor[i]

    def group_scores(self):
        """The per-group values as a :class:`~sklearn_rank.GroupScores` with one
        entry ``"metric@k"`` per cutoff (for
        :func:`sklearn_rank.stats.bootstrap_ci`)."""
        from .evaluate import GroupScores

        names = [f"{self.metric}@{k}" for k in self.ks.tolist()]
        return GroupScores(
            group_ids=self.group_ids,
            values={n: self.at(i) for i, n in enumerate(names)},
            weights={n: self.weights for n in names},
        )


def check_cutoff_metric(metric: Any, func: str) -> MetricRequest:
    """A registry metric that takes a cutoff, given without one (``"ndcg"``)."""
    if not isinstance(metric, str) or "@" in metric:
        raise param_error(
            "metric",
            func,
            "the name of a metric with a cutoff, without '@k'",
            metric,
            "Pass e.g. metric='ndcg'; the cutoffs come from 'k_max' or 'ks'.",
        )
    request = parse_metric(metric)  # unknown names: the usual ValueError
    spec = request.spec
    if not spec.takes_k or spec.pooled or spec.intents:
        takes = [
            m.name
            for m in METRICS.values()
            if m.takes_k and not m.pooled and not m.intents
        ]
        raise param_error(
            "metric",
            func,
            f"a metric with a cutoff, one of {takes}",
            metric,
        )
    return request


def check_ks(ks: Any, func: str) -> np.ndarray:
    """Positive integer cutoffs, strictly increasing."""
    arr = np.asarray(ks)
    ok = (
        arr.ndim == 1
        and arr.size > 0
        and arr.dtype.kind in "iu"
        and bool((arr >= 1).all())
        and bool((np.diff(arr) > 0).all())
    )
    if not ok:
        raise param_error(
            "ks", func, "a non-empty increasing sequence of positive ints", ks
        )
    return arr.astype(np.int64)


def cutoff_curve(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    metric: str,
    ks: Sequence[int] | np.ndarray,
    sample_weight: ArrayLike | None = None,
    convention: str | None = None,
    **options: Any,
) -> CutoffCurve:
    """``metric@k`` for every ``k`` in ``ks`` from one ordering of the rows.

    ``options`` are the convention keywords of :func:`sklearn_rank.evaluate`
    (``undefined`` included); ``retrieved`` and ``judged`` are taken too.
    """
    request = check_cutoff_metric(metric, func)
    ks = check_ks(ks, func)
    retrieved = options.pop("retrieved", None)
    judged = options.pop("judged", None)
    opts = resolve_options(func, convention, options)
    requests = [MetricRequest(f"{metric}@{k}", request.spec, int(k)) for k in ks]
    ctx, ids = rank_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        requests[:1],
        opts,
        judged,
        host=True,  # the curves are tabulated on the host (numpy)
    )
    out = values_at_cutoffs(ctx, metric, request.spec.kernel, ks, opts)
    table, rows, divisor, defined, weight, means = out
    curve = CutoffCurve(metric, ks, ids, table, rows, divisor, weight, means)
    if means is None:  # an edge case: the per-cutoff path warns or raises
        means = np.empty(ks.size)
        for i, (r, row) in enumerate(zip(requests, rows.tolist(), strict=True)):
            means[i] = mean_over_groups(
                curve.at(i), defined[row], weight, opts.undefined, r.label, ids
            )
        curve = dataclasses.replace(curve, means=means)
    return curve
