"""Metrics per segment of the groups (query length bucket, user cohort, country):
:func:`evaluate_by_segment` and its :class:`SegmentTable`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.conventions import resolve_options
from .._engine.group_codes import encode_groups
from .._engine.reduce import group_counts, mean_over_groups
from .._utils.array_api import reads_on_host
from .._utils.jobs import check_n_jobs
from .._utils.params import param_error
from .evaluate import DEFAULT_METRICS, GroupScores, evaluate, evaluate_per_group
from .validation import check_metrics

_SHOWN = 5


@dataclass(frozen=True)
class SegmentTable:
    """Metrics per segment, from :func:`evaluate_by_segment`.

    Attributes
    ----------
    segments : ndarray of shape (n_segments,)
        The segment labels: sorted, or in the order of ``order=`` or of a pandas
        categorical's categories.
    metrics : list of str
        The metric names.
    values : dict of str to ndarray of shape (n_segments,)
        Per metric, the value on each segment: ``evaluate`` on that segment's
        rows.
    n_groups : ndarray of int of shape (n_segments,)
        Groups in each segment, defined or not.
    per_group : GroupScores
        The values of every group (NaN where undefined).
    group_segment : ndarray of int of shape (n_groups,)
        The index in ``segments`` of each group of ``per_group``.
    n_undefined : dict of str to ndarray of int of shape (n_segments,)
        Per metric, the groups of each segment where it is undefined (no
        relevant row).
    n_used : dict of str to ndarray of int of shape (n_segments,)
        Per metric, the groups of each segment that enter its value: the
        defined ones under ``undefined="skip"``, all of them under a float.
    ci_low, ci_high : dict of str to ndarray of shape (n_segments,) or None
        Bootstrap interval ends per metric (filled by
        :func:`sklearn_rank.stats.compare_by_segment`; None here).
    confidence_level : float or None
        The level of ``ci_low`` / ``ci_high``.
    """

    segments: np.ndarray
    metrics: list[str]
    values: dict[str, np.ndarray]
    n_groups: np.ndarray
    per_group: GroupScores
    group_segment: np.ndarray
    n_undefined: dict[str, np.ndarray] | None = None
    n_used: dict[str, np.ndarray] | None = None
    ci_low: dict[str, np.ndarray] | None = None
    ci_high: dict[str, np.ndarray] | None = None
    confidence_level: float | None = None

    def used(self, metric: str) -> np.ndarray:
        """Groups of each segment in the value of ``metric`` (``n_groups`` when
        the table was built without per-metric counts)."""
        if self.n_used is None:
            return self.n_groups
        return self.n_used[metric]

    def subset(self, segment_index: int) -> GroupScores:
        """The per-group values of one segment's groups."""
        keep = self.group_segment == segment_index
        pg = self.per_group
        return GroupScores(
            group_ids=pg.group_ids[keep],
            values={m: v[keep] for m, v in pg.values.items()},
            weights={m: w[keep] for m, w in pg.weights.items()},
        )

    def to_frame(self):
        """A pandas DataFrame indexed by segment: ``n_groups``, then per metric
        its value, the groups in it (``<metric> n``), the undefined groups
        (``<metric> undefined``) and, with intervals, ``<metric> ci_low`` /
        ``<metric> ci_high``."""
        import pandas as pd  # optional dependency, only needed here

        data: dict[str, Any] = {"n_groups": self.n_groups}
        for m in self.metrics:
            data[m] = self.values[m]
            data[f"{m} n"] = self.used(m)
            if self.n_undefined is not None:
                data[f"{m} undefined"] = self.n_undefined[m]
            if self.ci_low is not None and self.ci_high is not None:
                data[f"{m} ci_low"] = self.ci_low[m]
                data[f"{m} ci_high"] = self.ci_high[m]
        return pd.DataFrame(data, index=pd.Index(self.segments, name="segment"))

    def _columns(self) -> list[tuple[str, list[str]]]:
        """(header, cells) of every metric's columns: the value (with its
        interval when there is one), then the groups in it when some group of
        the segment is left out as undefined."""
        out = []
        with_ci = self.ci_low is not None and self.ci_high is not None
        for m in self.metrics:
            v = self.values[m]
            if with_ci:
                lo, hi = self.ci_low[m], self.ci_high[m]
                cells = [
                    f"{v[i]:.4f} [{lo[i]:.4f}, {hi[i]:.4f}]" for i in range(v.size)
                ]
            else:
                cells = [f"{x:.4f}" for x in v.tolist()]
            out.append((m, cells))
            used = self.used(m)
            if not np.array_equal(used, self.n_groups):
                out.append((f"{m} n", [str(int(n)) for n in used.tolist()]))
        return out

    def __str__(self) -> str:
        columns = self._columns()
        header = ["segment", "groups", *(h for h, _ in columns)]
        rows = [
            [str(s), str(int(n))] + [cells[i] for _, cells in columns]
            for i, (s, n) in enumerate(zip(self.segments, self.n_groups, strict=True))
        ]
        widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
        lines = [
            "  ".join(
                c.ljust(w) if j == 0 else c.rjust(w)
                for j, (c, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in [header, *rows]
        ]
        notes = []
        if any(h.endswith(" n") for h in header):
            notes.append(
                "<metric> n: the groups in its value ('groups' less those where it "
                "is undefined)"
            )
        if self.confidence_level is not None and self.ci_low is not None:
            notes.append(
                f"[low, high]: {self.confidence_level:.0%} bootstrap interval over "
                "the segment's groups"
            )
        return "\n".join(lines + notes)


def segment_of_groups(
    segments: Any,
    groups: Any,
    n_rows: int,
    group_ids: np.ndarray,
    func: str,
    order: Sequence[Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Segment labels and the index of each group's segment.

    ``segments`` is per row (an array-like, constant within each group) or per
    group (a mapping group id -> label). A label that holds no group of the data
    (a mapping value, an unused pandas category) is an error. The labels are
    sorted, unless ``order`` lists them or ``segments`` is a pandas categorical
    (then its categories' order).
    """
    if isinstance(segments, Mapping):
        missing = [g for g in group_ids.tolist() if g not in segments]
        if missing:
            raise ValueError(
                f"The 'segments' mapping of {func} has no segment for "
                f"{len(missing)} group(s) (ids {_show(missing)}); give every group "
                "a segment."
            )
        per_group = [segments[g] for g in group_ids.tolist()]
        labels, index = _labels(np.asarray(per_group, dtype=object), func)
        declared = set(segments.values())
    else:
        codes, ids = encode_groups(groups, n_rows, func)
        if not np.array_equal(ids, group_ids):  # pragma: no cover - same encoding
            raise RuntimeError("group encodings disagree")
        declared = _categories(segments)
        arr = np.asarray(
            segments.to_numpy() if hasattr(segments, "to_numpy") else segments,
            dtype=object,
        )
        if arr.ndim != 1 or arr.shape[0] != n_rows:
            raise ValueError(
                f"Inconsistent numbers of rows in {func}: y_true={n_rows}, "
                f"segments={arr.shape[0] if arr.ndim else 'a scalar'}. Pass one "
                "segment label per row, or a mapping of group id to segment."
            )
        labels, row_index = _labels(arr, func)
        n_groups = group_ids.shape[0]
        lo = np.full(n_groups, np.iinfo(np.intp).max)
        hi = np.full(n_groups, -1)
        np.minimum.at(lo, codes, row_index)
        np.maximum.at(hi, codes, row_index)
        split = np.flatnonzero(lo != hi)
        if split.size:
            raise ValueError(
                f"segments in {func} must be constant within each group; "
                f"{split.size} group(s) span several segments (ids "
                f"{_show(group_ids[split].tolist())}). A segment is a set of "
                "groups: label every row of a group alike."
            )
        index = lo
    if declared is not None:
        empty = [s for s in declared if s not in set(labels.tolist())]
        if empty:
            raise ValueError(
                f"Segment(s) {_show(sorted(map(str, empty)))} in {func} hold no "
                "group of the data; drop them (for a pandas categorical: "
                ".cat.remove_unused_categories())."
            )
    if order is None and not isinstance(segments, Mapping) and declared is not None:
        order = declared  # a pandas categorical: its categories' order
    if order is not None:
        labels, index = _reorder(labels, index, order, func)
    return labels, index


def _reorder(labels, index, order, func):
    """``labels`` in the order given (every label once, no other)."""
    if isinstance(order, (str, bytes)) or not hasattr(order, "__iter__"):
        raise param_error(
            "order", func, "None or a sequence of the segment labels", order
        )
    wanted = list(order)
    where = {v: i for i, v in enumerate(labels.tolist())}
    unknown = [v for v in wanted if v not in where]
    if unknown or len(set(wanted)) != len(wanted) or len(wanted) != labels.size:
        raise param_error(
            "order",
            func,
            f"each of the {labels.size} segment labels once ({_show(labels.tolist())})",
            wanted,
        )
    old = np.array([where[v] for v in wanted], dtype=np.intp)
    new_of_old = np.empty_like(old)
    new_of_old[old] = np.arange(old.size)
    out = np.empty(old.size, dtype=labels.dtype)
    out[:] = [labels[i] for i in old.tolist()]
    return out, new_of_old[index]


def _categories(segments: Any):
    cat = getattr(segments, "cat", None)
    if cat is not None:
        return list(cat.categories)
    if hasattr(segments, "categories"):
        return list(segments.categories)
    return None


def _labels(values: np.ndarray, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct labels and the index of each value among them."""
    missing = np.array([_is_missing(v) for v in values.tolist()], dtype=bool)
    if missing.any():
        raise ValueError(
            f"segments in {func} contains missing values (None, NaN or pandas' "
            f"<NA>) at {int(missing.sum())} position(s); give every row or group "
            "a segment."
        )
    try:
        labels, index = np.unique(values, return_inverse=True)
    except TypeError:
        raise TypeError(
            f"segments in {func} mixes labels that cannot be sorted together "
            f"(e.g. str and int); use one type: {values[:3].tolist()!r}."
        ) from None
    return labels, index.reshape(-1)


def _is_missing(v: Any) -> bool:
    """None, a float NaN, or pandas' ``NA`` / ``NaT`` (without importing pandas)."""
    if v is None or (isinstance(v, float) and v != v):
        return True
    return type(v).__name__ in ("NAType", "NaTType")


def _show(ids: list) -> str:
    more = ", ..." if len(ids) > _SHOWN else ""
    return ", ".join(repr(g) for g in ids[:_SHOWN]) + more


@reads_on_host  # segments are tabulated in numpy
def evaluate_by_segment(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    segments: ArrayLike | Mapping[Any, Any],
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    undefined: str | float | None = None,
    convention: str | None = None,
    order: Sequence[Any] | None = None,
    **options: Any,
) -> SegmentTable:
    """Metrics on each segment of the groups, from one ordering of the rows.

    The groups are scored once (:func:`evaluate_per_group`); each segment's
    value is the mean over its groups under the ``undefined`` rule, the number
    :func:`evaluate` returns on that segment's rows.

    Parameters
    ----------
    y_true, y_score, groups, sample_weight
        As in :func:`sklearn_rank.evaluate`.
    segments : array-like of shape (n_samples,) or mapping
        The segment of each row (constant within a group: query length bucket,
        user cohort, country), or a mapping group id -> segment.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names with a per-group value.
    undefined : {"skip", "raise"} or float, default=None
        As in :func:`sklearn_rank.evaluate`.
    convention : str, default=None
        As in :func:`sklearn_rank.evaluate`.
    order : sequence, default=None
        The segment labels in the order of the table (each once). None sorts
        them, except a pandas categorical, which keeps its categories' order.
    **options
        The other convention keywords of :func:`sklearn_rank.evaluate`
        (``ties``, ``gain``, ``retrieved``, ...), and ``n_jobs`` (threads, as
        in :func:`sklearn_rank.evaluate`; the same table at every value).

    Returns
    -------
    table : SegmentTable
        ``table.values[metric]`` per segment, ``table.n_groups``, per metric
        ``table.n_used`` (the groups in the value: undefined ones are left out
        under ``undefined="skip"``) and ``table.n_undefined``;
        ``table.to_frame()``; ``print(table)`` shows it. For intervals and
        tests, see :func:`sklearn_rank.stats.compare_by_segment`.

    Examples
    --------
    >>> from sklearn_rank import evaluate_by_segment
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.1, 0.8, 0.3, 0.7, 0.2, 0.6, 0.5]
    >>> groups = ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"]
    >>> lengths = ["short", "short", "long", "long", "short", "short", "long", "long"]
    >>> table = evaluate_by_segment(y_true, y_score, groups=groups,
    ...                             segments=lengths, metrics=["mrr"])
    >>> print(table)
    segment  groups     mrr
    long          2  0.5000
    short         2  1.0000
    """
    func = "evaluate_by_segment"
    check_n_jobs(options.get("n_jobs"), func)  # the error names this function
    requests = check_metrics(metrics, func, per_group=True)
    names = [r.label for r in requests]
    rule = resolve_options(func, convention, {"undefined": undefined}).undefined
    res = evaluate_per_group(
        y_true,
        y_score,
        groups=groups,
        metrics=names,
        sample_weight=sample_weight,
        convention=convention,
        **options,
    )
    n_rows = len(y_true) if hasattr(y_true, "__len__") else np.asarray(y_true).size
    labels, index = segment_of_groups(
        segments, groups, n_rows, res.group_ids, func, order
    )
    n_groups = group_counts(index, labels.size)
    values = {m: np.empty(labels.size) for m in names}
    n_undefined = {
        m: group_counts(index[np.isnan(res.values[m])], labels.size) for m in names
    }
    # A float ``undefined`` scores undefined groups: they enter the value.
    scored = rule not in ("skip", "raise")
    n_used = {m: n_groups - (0 if scored else n_undefined[m]) for m in names}
    # The "relevant_mean" group weight of a group without a relevant row is the
    # mean over the other groups: it depends on the segment, so score its rows.
    opts = resolve_options(func, convention, _conventions_only(options))
    by_rows = opts.group_weight == "relevant_mean"
    for s in range(labels.size):
        keep = index == s
        if by_rows:
            _score_rows(
                values,
                s,
                keep,
                y_true,
                y_score,
                groups,
                sample_weight,
                names,
                rule,
                convention,
                options,
            )
            continue
        for m in names:
            v = res.values[m][keep]
            values[m][s] = mean_over_groups(
                v, ~np.isnan(v), res.weights[m][keep], rule, m, res.group_ids[keep]
            )
    return SegmentTable(
        labels, names, values, n_groups, res, index, n_undefined, n_used
    )


def _conventions_only(options: dict[str, Any]) -> dict[str, Any]:
    from .._engine.conventions import OPTIONS

    return {k: v for k, v in options.items() if k in OPTIONS}


def _score_rows(
    values,
    s,
    keep_groups,
    y_true,
    y_score,
    groups,
    sample_weight,
    names,
    rule,
    convention,
    options,
) -> None:
    codes, _ = encode_groups(groups, np.asarray(y_true).shape[0], "evaluate")
    rows = keep_groups[codes]

    def take(x):
        return None if x is None else np.asarray(x)[rows]

    extra = {
        k: take(v) if k in ("retrieved", "judged") else v for k, v in options.items()
    }
    out = evaluate(
        take(y_true),
        take(y_score),
        groups=take(groups),
        metrics=names,
        sample_weight=take(sample_weight),
        undefined=rule,
        convention=convention,
        **extra,
    )
    for m in names:
        values[m][s] = out[m]
