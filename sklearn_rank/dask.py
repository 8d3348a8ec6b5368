"""Grouped ranking metrics on Dask DataFrames and Dask arrays.

The numbers are those of :func:`sklearn_rank.evaluate` and
:func:`sklearn_rank.evaluate_per_group` on the same rows: each partition runs the
in-memory engine on whole groups, and the mean over groups is a tree reduction of
per-group values and weights. Rows never travel to the client. See
``docs/scale.md``.

Needs the ``dask`` extra: ``pip install "sklearn-rank[dask]"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._distributed import partitions as parts
from ._metrics.evaluate import DEFAULT_METRICS, GroupScores
from ._utils.params import param_error

try:  # absolute imports: this module is sklearn_rank.dask, the library is dask
    import dask
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
except ImportError as exc:  # pragma: no cover - the extra is installed in tests
    raise ImportError(
        "sklearn_rank.dask needs Dask with its DataFrame support: "
        'pip install "sklearn-rank[dask]"'
    ) from exc

__all__ = ["evaluate", "evaluate_per_group", "to_group_scores"]

_ROW_COLUMNS = {
    "y_true": "label",
    "y_score": "score",
    "groups": "qid",
    "sample_weight": "sample_weight",
    "retrieved": "retrieved",
    "judged": "judged",
}


def _from_arrays(func: str, arrays: dict[str, Any]) -> dd.DataFrame:
    """Dask arrays (or array-likes) as one Dask DataFrame, chunked like y_true."""
    first = arrays["y_true"]
    if not isinstance(first, da.Array):
        first = da.from_array(np.asarray(first))
    if first.ndim != 1:
        raise ValueError(f"y_true in {func} must be 1-D; got shape {first.shape}.")
    columns = []
    for name, value in arrays.items():
        if value is None:
            continue
        arr = value if isinstance(value, da.Array) else da.from_array(np.asarray(value))
        if arr.ndim != 1 or arr.shape[0] != first.shape[0]:
            raise ValueError(
                f"Inconsistent numbers of rows in {func}: y_true={first.shape[0]}, "
                f"{name}={arr.shape}. Every per-row input must have one entry per "
                "row."
            )
        arr = arr.rechunk(first.chunks)
        columns.append(dd.from_dask_array(arr, columns=_ROW_COLUMNS[name]))
    return dd.concat(columns, axis=1)


def _inputs(func, data, y_score, y_true, groups, sample_weight, retrieved, judged):
    """The Dask DataFrame and the column name of each per-row input."""
    if isinstance(data, dd.DataFrame):
        names = {
            "y_true": y_true,
            "y_score": y_score,
            "groups": groups,
            "sample_weight": sample_weight,
            "retrieved": retrieved,
            "judged": judged,
        }
        present = {*data.columns, data.index.name}
        for arg, name in names.items():
            if name is None and arg in ("sample_weight", "retrieved", "judged"):
                continue
            if not isinstance(name, str) or name not in present:
                raise param_error(
                    arg,
                    func,
                    f"the name of a column of data ({list(data.columns)})",
                    name,
                )
        return data, names
    if isinstance(data, (dd.Series, dd.Index)) or not hasattr(data, "__len__"):
        if not isinstance(data, da.Array):
            raise param_error(
                "data", func, "a dask DataFrame or a dask Array of labels", data
            )
    arrays = {
        "y_true": data,
        "y_score": y_score,
        "groups": groups,
        "sample_weight": sample_weight,
        "retrieved": retrieved,
        "judged": judged,
    }
    for arg in ("y_score", "groups"):
        if arrays[arg] is None or isinstance(arrays[arg], str):
            raise param_error(
                arg, func, "an array when data is an array of labels", arrays[arg]
            )
    frame = _from_arrays(func, arrays)
    names = {
        arg: _ROW_COLUMNS[arg] if v is not None else None for arg, v in arrays.items()
    }
    return frame, names


def _with_row_keys(pdf: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    """Each row's input position (partition, row), to restore it after a shuffle."""
    number = 0 if partition_info is None else partition_info["number"]
    return pdf.assign(
        **{
            parts.ROW_KEYS[0]: np.full(len(pdf), number, dtype=np.int64),
            parts.ROW_KEYS[1]: np.arange(len(pdf), dtype=np.int64),
        }
    )


def _by_group(frame: dd.DataFrame, plan: parts.Plan, partitioned_by_group: bool):
    """The frame with every group inside one partition: as it is when the index
    is the group column with known divisions or when the caller promises it,
    otherwise shuffled on the group column. Returns (frame, shuffled)."""
    keep = [c for c in plan.columns if c in frame.columns]
    frame = frame[keep]
    index_groups = frame.index.name == plan.groups and plan.groups not in frame.columns
    if partitioned_by_group or (index_groups and frame.known_divisions):
        return frame, False
    if index_groups:
        frame = frame.reset_index()
    if plan.needs_order:
        meta = _with_row_keys(frame._meta)
        frame = frame.map_partitions(_with_row_keys, meta=meta)
    return frame.shuffle(on=plan.groups), True


def _ids(values: Any) -> pd.DataFrame:
    return pd.DataFrame({"id": np.asarray(values).ravel()})


def _partition_ids(index: pd.Series) -> pd.DataFrame:
    return _ids(np.unique(index.to_numpy()))


def _merge_ids(ids: pd.DataFrame, groups: str) -> pd.DataFrame:
    """The union of disjoint id sets; a shared id breaks the promise."""
    values = np.asarray(ids).ravel()
    unique, counts = np.unique(values, return_counts=True)
    if unique.size != values.size:
        shown = ", ".join(repr(v) for v in unique[counts > 1][:5].tolist())
        raise ValueError(
            f"partitioned_by_group=True, but group ids of {groups!r} have rows in "
            f"more than one partition (ids {shown}). Pass partitioned_by_group=False "
            "to shuffle rows by group, or write the data partitioned by that column."
        )
    return _ids(unique)


def _count_ids(ids: pd.DataFrame, groups: str) -> int:
    return len(_merge_ids(ids, groups))


def _after_check(frame: pd.DataFrame, n_groups: int) -> pd.DataFrame:
    return frame


def _plan_and_groups(
    func,
    data,
    y_score,
    y_true,
    groups,
    sample_weight,
    retrieved,
    judged,
    metrics,
    convention,
    options,
    partitioned_by_group,
    per_group,
):
    frame, names = _inputs(
        func, data, y_score, y_true, groups, sample_weight, retrieved, judged
    )
    if not isinstance(partitioned_by_group, bool):
        raise param_error(
            "partitioned_by_group", func, "a bool (True or False)", partitioned_by_group
        )
    plan = parts.make_plan(
        func,
        **names,
        metrics=metrics,
        convention=convention,
        options=options,
        per_group=per_group,
    )
    grouped, _ = _by_group(frame, plan, partitioned_by_group)
    fill = None
    if plan.needs_fill:
        sums = grouped.map_partitions(
            lambda pdf: pd.DataFrame([parts.fill_parts(pdf, plan)], columns=["s", "n"]),
            meta=pd.DataFrame({"s": [0.0], "n": [0.0]}).iloc[:0],
        ).sum()
        fill = dask.delayed(parts.fill_value)(sums)
    group_dtype = (
        frame.index.dtype
        if plan.groups not in frame.columns
        else frame[plan.groups].dtype
    )
    meta = plan.meta(group_dtype)
    per_group_frame = grouped.map_partitions(
        parts.group_frame, plan, fill, meta=meta, align_dataframes=False
    )
    if partitioned_by_group:
        # The promise, checked on the per-group ids: a tree reduction of sorted id
        # sets that raises on an id seen in two partitions (no shuffle).
        n_groups = per_group_frame.index.to_series().reduction(
            chunk=_partition_ids,
            combine=_merge_ids,
            aggregate=_count_ids,
            combine_kwargs={"groups": plan.groups},
            aggregate_kwargs={"groups": plan.groups},
            split_every=8,
            meta=("n_groups", "i8"),
        )
        per_group_frame = per_group_frame.map_partitions(
            _after_check, n_groups, meta=meta
        )
    return frame, plan, per_group_frame


def evaluate(
    data: Any,
    y_score: Any = "score",
    *,
    y_true: str = "label",
    groups: Any = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: Any = None,
    retrieved: Any = None,
    judged: Any = None,
    partitioned_by_group: bool = False,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    convention: str | None = None,
    compute: bool = True,
) -> dict[str, float] | Any:
    """:func:`sklearn_rank.evaluate` on a Dask DataFrame or on Dask arrays.

    Each partition runs the in-memory engine on whole groups; the mean over
    groups is a tree reduction of per-group sums, so the result equals the
    in-memory one on the same rows (to float rounding) and no row reaches the
    client.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or dask.array.Array
        A DataFrame with one row per (group, item), or the labels as a 1-D Dask
        array (then ``y_score`` and ``groups`` are arrays of the same length).
    y_score : str or array, default="score"
        The score column of ``data``, or the array of scores.
    y_true : str, default="label"
        The label column (DataFrame input only).
    groups : str or array, default="qid"
        The group column (or the name of the index), or the array of group ids.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`sklearn_rank.get_metric_names`, with ``"@k"``.
    sample_weight, retrieved, judged : str or array, default=None
        Columns (or arrays) with the per-row inputs of
        :func:`sklearn_rank.evaluate`.
    partitioned_by_group : bool, default=False
        A promise that every group has all its rows in one partition (data
        written partitioned by the group column), so no shuffle is needed. It is
        checked on the per-group result (one id per group, counted once): a
        broken promise raises instead of giving a wrong number. Without it, rows
        are shuffled by group unless the index is the group column with known
        divisions.
    ties, gain, discount, relevance_threshold, undefined, precision_denominator, \
ap_denominator, recall_denominator, max_grade, weights, group_weight, \
persistence, recall_level, r_multiple, integer_grades, judged_only, gain_rows, \
convention : see :func:`sklearn_rank.evaluate`
        Conventions; None takes the value of ``convention``.
    compute : bool, default=True
        False returns a ``dask.delayed`` object instead, whose ``compute()``
        gives the dict: pass several to one ``dask.compute`` call to read the
        data once for all of them.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order (a ``Delayed`` with
        ``compute=False``).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from sklearn_rank.dask import evaluate
    >>> rows = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2", "q2"],
    ...                      "label": [1, 0, 0, 0, 1, 0],
    ...                      "score": [0.9, 0.8, 0.1, 0.3, 0.2, 0.7]})
    >>> frame = dd.from_pandas(rows, npartitions=3)  # q2 spans two partitions
    >>> evaluate(frame, metrics=["mrr", "precision@2"])
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    """
    func = "evaluate"
    options = parts.option_values(locals())
    frame, plan, per_group = _plan_and_groups(
        func,
        data,
        y_score,
        y_true,
        groups,
        sample_weight,
        retrieved,
        judged,
        metrics,
        convention,
        options,
        partitioned_by_group,
        False,
    )
    meta = pd.DataFrame({c: [0.0] for c in parts.sum_columns(plan)}).iloc[:0]
    sums = hist = None
    if plan.requests:
        sums = per_group.map_partitions(parts.partial_sums, plan, meta=meta).sum()
    if plan.pooled:
        hist_meta = pd.DataFrame({c: [0.0] for c in parts.HISTOGRAM}).iloc[:0]
        rows = frame[[c for c in plan.columns if c in frame.columns]]
        hist = rows.map_partitions(parts.auc_histogram, plan, meta=hist_meta)
        hist = hist.groupby(["score", "positive"]).weight.sum()
    if not compute:
        return dask.delayed(_finish, pure=True)(sums, hist, plan)
    sums, hist = dask.compute(sums, hist)
    return _finish(sums, hist, plan)  # on the client: its warnings reach the caller


def _finish(sums, hist, plan: parts.Plan) -> dict[str, float]:
    """The dict of means from the reduced sums and the pooled-AUC histogram."""
    sums = {} if sums is None else sums.to_dict()
    auc = {} if hist is None else parts.auc_from_histogram(hist.reset_index(), plan)
    return parts.finish(sums, auc, plan)


def evaluate_per_group(
    data: Any,
    y_score: Any = "score",
    *,
    y_true: str = "label",
    groups: Any = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: Any = None,
    retrieved: Any = None,
    judged: Any = None,
    partitioned_by_group: bool = False,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    relevance_threshold: float | str | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    convention: str | None = None,
) -> dd.DataFrame:
    """:func:`sklearn_rank.evaluate_per_group` as a lazy Dask DataFrame.

    Takes the arguments of :func:`evaluate` except ``undefined``.

    Returns
    -------
    per_group : dask.dataframe.DataFrame
        One row per group, indexed by group id (named like the group column);
        for each metric a column of values (NaN where undefined) and a column
        ``"weight:<metric>"`` with the group's weight in that metric's mean.
        Nothing is computed until you call ``.compute()`` (or pass it to
        :func:`to_group_scores`, :func:`sklearn_rank.stats.compare` or
        :func:`sklearn_rank.stats.bootstrap_ci`). Ids are sorted within each
        partition; with a group index of known divisions the result keeps them.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from sklearn_rank.dask import evaluate_per_group
    >>> rows = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2", "q2"],
    ...                      "label": [1, 0, 0, 0, 1, 0],
    ...                      "score": [0.9, 0.8, 0.1, 0.3, 0.2, 0.7]})
    >>> per_group = evaluate_per_group(dd.from_pandas(rows, npartitions=2),
    ...                                metrics=["mrr"])
    >>> list(per_group.columns)
    ['mrr', 'weight:mrr']
    >>> per_group.compute().sort_index()["mrr"].to_dict()
    {'q1': 1.0, 'q2': 0.3333333333333333}
    """
    func = "evaluate_per_group"
    options = parts.option_values(locals())
    _, _, per_group = _plan_and_groups(
        func,
        data,
        y_score,
        y_true,
        groups,
        sample_weight,
        retrieved,
        judged,
        metrics,
        convention,
        options,
        partitioned_by_group,
        True,
    )
    return per_group


def to_group_scores(per_group: Any) -> GroupScores:
    """A per-group result (:func:`evaluate_per_group`'s frame, computed or not)
    as the in-memory :class:`~sklearn_rank.GroupScores`, ids sorted.

    This is what :func:`sklearn_rank.stats.compare` and
    :func:`sklearn_rank.stats.bootstrap_ci` do with such a frame: the per-group
    values (one row per group, a million groups is a few tens of MB) come to the
    client; the rows stay on the cluster.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from sklearn_rank.dask import evaluate_per_group, to_group_scores
    >>> rows = pd.DataFrame({"qid": [2, 2, 1, 1], "label": [1, 0, 0, 1],
    ...                      "score": [0.9, 0.8, 0.3, 0.2]})
    >>> res = to_group_scores(evaluate_per_group(dd.from_pandas(rows, npartitions=2),
    ...                                          metrics=["mrr"]))
    >>> res.group_ids.tolist(), res.values["mrr"].tolist()
    ([1, 2], [0.5, 1.0])
    """
    frame = per_group.compute() if isinstance(per_group, dd.DataFrame) else per_group
    if not isinstance(frame, pd.DataFrame):
        raise param_error(
            "per_group", "to_group_scores", "a DataFrame from evaluate_per_group", frame
        )
    return parts.group_scores_from_frame(frame)
