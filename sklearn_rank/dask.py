"""Grouped ranking metrics on Dask DataFrames and Dask arrays.

The numbers are those of :func:`sklearn_rank.evaluate` and
:func:`sklearn_rank.evaluate_per_group` on the same rows: each partition runs the
in-memory engine on whole groups, and the mean over groups is a tree reduction of
per-group values and weights. Rows never travel to the client. See
``docs/scale.md``.

Needs the ``dask`` extra: ``pip install "sklearn-rank[dask]"``.

Why this module is over 800 lines: besides the two public functions it holds
the steps of their task graphs (the partition plans' row checks, the id counts
across partitions, the tree reductions), which take and return Dask objects and
run inside ``try: import dask``; the Dask-free parts (plans, kernels per
partition, the front-end checks) are already in ``_distributed``.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._distributed import frontend as front
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

_ROW_COLUMNS = {arg: arg for arg in front.ROW_ARGS} | {
    "y_true": "label",
    "y_score": "score",
    "groups": "qid",
}


def _from_arrays(func: str, arrays: dict[str, Any]) -> dd.DataFrame:
    """Dask arrays (or array-likes) as one Dask DataFrame, chunked like y_true."""
    converted = {}
    for name, value in arrays.items():
        if value is None:
            continue
        if isinstance(value, da.Array):
            arr = value
        else:  # object ids (text) in one chunk: Dask's auto chunks cannot size them
            value = np.asarray(value)
            arr = da.from_array(value, chunks=-1 if value.dtype == object else "auto")
        if arr.ndim != 1:
            raise ValueError(f"{name} in {func} must be 1-D; got shape {arr.shape}.")
        if np.isnan(arr.shape[0]):
            raise ValueError(
                f"{name} in {func} is a Dask array of unknown length (chunk sizes "
                "nan, as after boolean indexing). Call .compute_chunk_sizes() on "
                "it first, or pass the columns as one Dask DataFrame."
            )
        converted[name] = arr
    first = converted["y_true"]
    for name, arr in converted.items():
        if arr.shape[0] != first.shape[0]:
            raise ValueError(
                f"Inconsistent numbers of rows in {func}: y_true={first.shape[0]}, "
                f"{name}={arr.shape[0]}. Every per-row input must have one entry "
                "per row."
            )
    # Object ids stay objects (Dask would turn them into text, merging 1 and
    # "1"); a mix of types is then refused as in memory.
    with dask.config.set({"dataframe.convert-string": False}):
        columns = [
            dd.from_dask_array(arr.rechunk(first.chunks), columns=_ROW_COLUMNS[name])
            for name, arr in converted.items()
        ]
        return dd.concat(columns, axis=1)


def _inputs(func, data, y_score, names):
    """The Dask DataFrame, the column of each per-row input and the score
    columns (one argument shape: column names of a frame, a Parquet path, or
    arrays)."""
    if isinstance(data, (str, os.PathLike)):  # a Parquet file, directory or glob
        data = dd.read_parquet(front.parquet_path(data, func, "dd.read_csv"))
    if isinstance(data, dd.DataFrame):
        columns = front.score_columns(y_score, func)
        present = [*data.columns, data.index.name]
        front.check_columns(func, {**names, "y_score": columns[0]}, present, "data")
        for column in columns[1:]:
            front.check_columns(func, {"y_score": column}, present, "data")
        return data, names, columns
    if not isinstance(data, da.Array) and (
        isinstance(data, (dd.Series, dd.Index)) or not hasattr(data, "__len__")
    ):
        raise param_error(
            "data",
            func,
            "a dask DataFrame, a Parquet path or a dask Array of labels",
            data,
        )
    arrays = {**names, "y_true": data, "y_score": y_score}
    for arg in ("y_score", "groups"):
        if arrays[arg] is None or isinstance(arrays[arg], str):
            raise param_error(
                arg, func, "an array when data is an array of labels", arrays[arg]
            )
    frame = _from_arrays(func, arrays)
    names = {
        arg: _ROW_COLUMNS[arg] if v is not None else None for arg, v in arrays.items()
    }
    return frame, names, [names["y_score"]]


def _kinds(frame: dd.DataFrame) -> dict[str, str]:
    """numpy kind of every column (and of the index), from the frame's meta."""
    meta = frame._meta
    kinds = {c: _kind(meta[c].dtype) for c in meta.columns}
    if meta.index.name is not None:
        kinds[meta.index.name] = _kind(meta.index.dtype)
    return kinds


def _kind(dtype: Any) -> str:
    try:
        return np.dtype(dtype).kind
    except TypeError:  # pandas extension types: nullable ints, Arrow strings
        numpy_type = getattr(dtype, "numpy_dtype", None)
        return "O" if numpy_type is None else np.dtype(numpy_type).kind


def _check_pandas_ids(frame: dd.DataFrame, groups: str, func: str) -> None:
    """Ids of mixed types (1 and "1") in a frame made by ``dd.from_pandas``, on
    the client where they still are: Dask turns object columns into text, which
    would merge the two groups; the in-memory engine refuses them."""
    expr = getattr(frame, "expr", None)
    for node in expr.walk() if expr is not None else ():
        # an operand named "frame" (dd.from_pandas); other nodes (from_delayed,
        # isin's) raise NotImplementedError, not AttributeError, for the name
        if "frame" not in getattr(node, "_parameters", ()):
            continue
        original = getattr(node.operand("frame"), "_data", None)
        if not isinstance(original, pd.DataFrame):
            continue
        column = (
            original[groups]
            if groups in original.columns
            else original.index
            if original.index.name == groups
            else None
        )
        if column is not None and column.dtype == object:
            ids = column.to_numpy()
            parts.check_id_types(parts.id_types(ids), func)


def _converted_ids(frame: dd.DataFrame, groups: str, func: str):
    """A lazy 0 after the in-memory refusal of ids of mixed types (1 and "1")
    in a group column that Dask turns from objects into text inside each
    partition (frames of ``dd.from_map``, ``dd.from_delayed``: the conversion
    would merge the two groups), read before that conversion; None when no
    such conversion reads the group column. (Each partition is read twice.)"""
    expr = getattr(frame, "expr", None)
    for node in expr.walk() if expr is not None else ():
        if type(node).__name__ != "ArrowStringConversion":
            continue
        try:
            from dask.dataframe.dask_expr import new_collection
        except ImportError:  # pragma: no cover - a Dask without expressions
            continue
        inner = node.operand("frame")
        meta = inner._meta
        if groups in meta.columns:
            column = new_collection(inner)[groups]
        elif meta.index.name == groups:
            column = new_collection(inner).index.to_series()
        else:
            continue
        if column.dtype != object:
            continue
        return _typed_count(column, func)
    return None


def _with_row_keys(pdf: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    """Each row's input position (partition, row), to restore it after a shuffle."""
    number = 0 if partition_info is None else partition_info["number"]
    return pdf.assign(
        **{
            parts.ROW_KEYS[0]: np.full(len(pdf), number, dtype=np.int64),
            parts.ROW_KEYS[1]: np.arange(len(pdf), dtype=np.int64),
        }
    )


def _checked(pdf: pd.DataFrame, plans, partition_info=None) -> pd.DataFrame:
    """The input partition unchanged after the in-memory row checks (before the
    shuffle: a bad row fails the call before rows move)."""
    number = None if partition_info is None else partition_info["number"]
    front.run_located(number, _check_all, pdf, plans)
    return pdf


def _layout(frame: dd.DataFrame, plan: parts.Plan, partitioned_by_group: bool):
    """How the rows reach whole-group partitions: "promise" (the caller's),
    "divisions" (a group index with known divisions) or "shuffle"."""
    index_groups = frame.index.name == plan.groups and plan.groups not in frame.columns
    if partitioned_by_group:
        return "promise"
    if index_groups and frame.known_divisions:
        return "divisions"
    return "shuffle"


def _by_group(frame, plans, layout: str, npartitions: int | None, defer: bool):
    """The frame with every group inside one partition: as it is (checked later
    on the per-group ids), or shuffled on the group column after the row checks,
    and the verdict of the row checks when ``defer`` (else None)."""
    plan = plans[0]
    keep = list(
        dict.fromkeys(c for p in plans for c in p.columns if c in frame.columns)
    )
    frame = frame[keep]
    verdict = _verdict(frame, plans) if defer else None
    if layout != "shuffle":
        return frame, verdict
    if frame.index.name == plan.groups and plan.groups not in frame.columns:
        frame = frame.reset_index()
    if not defer:
        frame = frame.map_partitions(_checked, plans, meta=frame._meta)
    if plan.needs_order:
        meta = _with_row_keys(frame._meta)
        frame = frame.map_partitions(_with_row_keys, meta=meta)
    return frame.shuffle(on=plan.groups, npartitions=npartitions), verdict


def _report_frame(pdf: pd.DataFrame, plans) -> pd.DataFrame:
    return _wrap(_report(pdf, plans))


def _raise_merged(reports: pd.DataFrame) -> int:
    found = front.merged_error(list(reports["p"]))
    if found is not None:
        raise found
    return 0


def _verdict(frame: dd.DataFrame, plans):
    """A lazy 0 after the row checks of every input partition, or the
    in-memory error of the bad rows of them all (each partition's count and
    first row, merged in input order): the per-group frames wait for it, so
    that no partition's own error (its count, its row) reaches the caller."""
    return frame.reduction(
        chunk=_report_frame,
        chunk_kwargs={"plans": plans},
        combine=_stack,
        aggregate=_raise_merged,
        split_every=8,
        meta=("verdict", "i8"),
    )


def _deferred(call, pdf: pd.DataFrame, plans, *args):
    """``call(pdf, *args)``, or, where the rows of ``pdf`` fail the row checks
    (which the verdict reports), ``call`` on none of them."""
    try:
        return call(pdf, *args)
    except (ValueError, TypeError):
        if not front.names_a_row(_report(pdf, plans)[2]):
            raise
        return call(pdf.iloc[:0], *args)


def _group_frame(pdf, plan, fill, located: bool, plans=None, partition_info=None):
    """The per-group frame of a partition. With ``plans`` (the verdict of the
    row checks is awaited), a partition whose rows fail those checks gives no
    groups: the verdict raises the error, counted over the whole input."""
    if plans is not None:
        return _deferred(parts.group_frame, pdf, plans, plan, fill)
    number = None if partition_info is None or not located else partition_info["number"]
    return front.run_located(number, parts.group_frame, pdf, plan, fill)


def _fill_chunk(pdf, plan, plans=None):
    if plans is not None:
        return pd.DataFrame({"s": [_deferred(parts.fill_parts, pdf, plans, plan)]})
    return pd.DataFrame({"s": [parts.fill_parts(pdf, plan)]})


def _fill_total(frame):
    return parts.fill_value(np.sum(np.stack(list(frame["s"])), axis=0))


# -- the checks of a layout without a shuffle, on the per-group ids -----------------
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


def _bounds(index: pd.Series) -> pd.DataFrame:
    """A partition's first and last group id (its ids are sorted)."""
    values = index.to_numpy()
    if values.size == 0:
        return pd.DataFrame({"b": []}, dtype=object)
    return pd.DataFrame({"b": [(values.min(), values.max(), values.size)]})


def _stack(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


def _check_bounds(frame: pd.DataFrame, groups: str) -> int:
    """Known divisions, verified: no group id on both sides of a partition
    boundary (Parquet statistics give divisions that allow it)."""
    spans = sorted(frame["b"], key=lambda b: (b[0], b[1]))
    for (_, hi, _), (lo, _, _) in itertools.pairwise(spans):
        if not hi < lo:
            raise ValueError(
                f"The index {groups!r} has known divisions, but group {lo!r} has "
                "rows in two partitions (divisions computed from Parquet "
                "statistics allow an id on both sides of a file boundary). Call "
                "data.clear_divisions() to shuffle the rows by group, or write "
                "each group's rows in one file."
            )
    return int(sum(b[2] for b in spans))


def _after_check(
    frame: pd.DataFrame, n_groups: int, verdict: int, ids: int, func: str
) -> pd.DataFrame:
    if n_groups == 0:  # as the in-memory check
        raise ValueError(f"{func} got empty inputs (0 rows); pass at least one row.")
    return frame


def _n_groups(per_group: dd.DataFrame, layout: str, groups: str, func: str):
    """The number of groups, after the check of a layout without a shuffle."""
    index = per_group.index.to_series()
    if layout == "promise":
        # A tree reduction of sorted id sets that raises on an id seen in two
        # partitions (one id per group moves, never rows).
        return index.reduction(
            chunk=_partition_ids,
            combine=_merge_ids,
            aggregate=_count_ids,
            combine_kwargs={"groups": groups},
            aggregate_kwargs={"groups": groups},
            split_every=8,
            meta=("n_groups", "i8"),
        )
    if layout == "divisions":  # two ids per partition
        return index.reduction(
            chunk=_bounds,
            combine=_stack,
            aggregate=_check_bounds,
            aggregate_kwargs={"groups": groups},
            split_every=8,
            meta=("n_groups", "i8"),
        )
    return _typed_count(index, func)


def _typed_count(ids: dd.Series, func: str):
    """The number of entries of ``ids`` (lazy), after the in-memory refusal of
    ids of types that cannot be ordered."""
    return ids.reduction(
        chunk=_count,
        combine=_total,
        aggregate=functools.partial(_total_int, func=func),
        split_every=8,
        meta=("n_groups", "i8"),
    )


def _count(index: pd.Series) -> pd.DataFrame:
    """A partition's number of groups and one id per id type."""
    return _wrap((len(index), parts.id_types(index.to_numpy())))


def _total(counts: pd.DataFrame) -> pd.DataFrame:
    types: dict = {}
    for _, found in counts["p"]:
        for name, value in found.items():
            types.setdefault(name, value)
    return _wrap((sum(n for n, _ in counts["p"]), types))


def _total_int(counts: pd.DataFrame, func: str) -> int:
    """The number of groups, after the in-memory refusal of ids of types that
    cannot be ordered (each partition may hold one type only)."""
    n, types = _total(counts)["p"].iloc[0]
    parts.check_id_types(types, func)
    return int(n)


class _Prepared:
    """Everything one call builds: the frame, the plans (one per score column),
    the layout and each plan's lazy per-group frame."""

    def __init__(self, frame, plans, layout, per_group, n_groups, names, verdict):
        self.frame, self.plans, self.layout = frame, plans, layout
        self.per_group, self.n_groups, self.names = per_group, n_groups, names
        self.verdict = verdict
        self.id_check = None


def _prepare(
    func,
    data,
    y_score,
    names,
    metrics,
    convention,
    options,
    *,
    per_group,
    partitioned_by_group,
    npartitions,
) -> _Prepared:
    if not isinstance(partitioned_by_group, bool):
        raise param_error(
            "partitioned_by_group", func, "a bool (True or False)", partitioned_by_group
        )
    npartitions = front.check_count(npartitions, "npartitions", func)
    frame, names, columns = _inputs(func, data, y_score, names)
    plans = [
        front.make_plan(
            func, {**names, "y_score": c}, metrics, convention, options, per_group
        )
        for c in columns
    ]
    plan = plans[0]
    kinds = _kinds(frame)
    for p in plans:
        front.check_schema(func, {**names, "y_score": p.y_score}, kinds)
    _check_pandas_ids(frame, plan.groups, func)
    layout = _layout(frame, plan, partitioned_by_group)
    grouped, verdict = _by_group(frame, plans, layout, npartitions, per_group)
    group_dtype = (
        frame.index.dtype
        if plan.groups not in frame.columns
        else frame[plan.groups].dtype
    )
    frames = {}
    n_groups = None
    for p in plans:
        fill = None
        if p.needs_fill:
            fill = grouped.reduction(
                chunk=_fill_chunk,
                chunk_kwargs={"plan": p, "plans": plans if per_group else None},
                combine=_stack,
                aggregate=_fill_total,
                split_every=8,
                meta=("fill", "f8"),
            )
        meta = p.meta(group_dtype)
        frames[p.y_score] = grouped.map_partitions(
            _group_frame,
            p,
            fill,
            layout != "shuffle",
            plans if per_group else None,
            meta=meta,
            align_dataframes=False,
        )
        if n_groups is None:
            n_groups = _n_groups(frames[p.y_score], layout, p.groups, func)
    prep = _Prepared(frame, plans, layout, frames, n_groups, names, verdict)
    prep.id_check = _converted_ids(frame, plan.groups, func)
    return prep


def _check_all(pdf: pd.DataFrame, plans) -> None:
    for plan in plans:
        parts.check_rows(pdf, plan)


def _report(pdf: pd.DataFrame, plans) -> tuple[int, str, str]:
    """A partition's number of rows and the error of its row checks."""
    return front.row_report(len(pdf), _check_all, pdf, plans)


def _run(func, lazy, client, progress: bool, frame: dd.DataFrame, plans=()):
    """Compute ``lazy`` (a tuple) in one pass, on ``client`` if given (with
    Dask's progress bar), with its errors in the terms of the input ``frame``
    (a row number counted from the first row of ``frame``)."""
    try:
        if client is not None:
            futures = client.compute(list(lazy))
            if progress:
                from distributed import progress as show

                show(futures)
            return tuple(client.gather(futures))
        if progress:
            from dask.diagnostics import ProgressBar

            with ProgressBar():
                return dask.compute(*lazy)
        return dask.compute(*lazy)
    except Exception as exc:
        if type(exc).__name__ == "KilledWorker":  # distributed's, after restarts
            raise MemoryError(
                f"{func}: Dask workers died while running this call ({exc}). "
                "Most often a worker went over its memory limit: a shuffle by "
                "group holds a partition's rows about twice (docs/scale.md, "
                "Memory). Give the workers more memory, pass npartitions= for "
                "more, smaller partitions, or write the data partitioned by "
                "group and pass partitioned_by_group=True."
            ) from exc
        if not isinstance(exc, (ValueError, TypeError)):
            raise
        number = getattr(exc, front.PARTITION_ATTR, None)
        if number is None:
            raise
        if plans:  # every partition's bad rows, counted in the whole input
            report = dask.delayed(_report)
            reports = [report(part, plans) for part in frame.to_delayed()]
            if client is not None:
                reports = client.gather(client.compute(reports))
            else:
                reports = dask.compute(*reports)
            merged = front.merged_error(reports)
            if merged is not None:
                raise merged from None
        offset = 0
        if number > 0:  # the rows before: counted only now, on an error
            lengths = frame.partitions[:number].map_partitions(len)
            offset = int(np.sum(lengths.compute()))
        raise front.relocate(exc, offset) from None


def _check_client(client, func):
    if client is None:
        return None
    if not hasattr(client, "compute") or not hasattr(client, "gather"):
        raise param_error("client", func, "a distributed.Client or None", client)
    return client


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
    in_pool: Any = None,
    partitioned_by_group: bool = False,
    npartitions: int | None = None,
    client: Any = None,
    progress: bool = False,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
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
    alpha: float | None = None,
    beta: float | None = None,
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
    data : dask.dataframe.DataFrame, str or dask.array.Array
        A DataFrame with one row per (group, item), the path of a Parquet file,
        directory or glob (read with ``dd.read_parquet``), or the labels as a
        1-D Dask array (then ``y_score`` and ``groups`` are arrays of the same
        length).
    y_score : str, list of str or array, default="score"
        The score column of ``data``, several (one result per column, keyed by
        its name; the rows are read and shuffled once for all), or the array of
        scores.
    y_true : str, default="label"
        The label column (DataFrame input only).
    groups : str or array, default="qid"
        The group column (or the name of the index), or the array of group ids.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`sklearn_rank.get_metric_names`, with ``"@k"``.
    sample_weight, retrieved, judged, in_pool : str or array, default=None
        Columns (or arrays) with the per-row inputs of
        :func:`sklearn_rank.evaluate`.
    partitioned_by_group : bool, default=False
        A promise that every group has all its rows in one partition (data
        written partitioned by the group column), so no shuffle is needed. It is
        checked on the per-group result (one id per group, counted once): a
        broken promise raises instead of giving a wrong number. Without it, rows
        are shuffled by group unless the index is the group column with known
        divisions (verified too: two ids per partition; a group on both sides
        of a partition boundary raises).
    npartitions : int, default=None
        Partitions after the shuffle by group; None keeps the input's number.
    ties, gain, discount, relevance_threshold, undefined, precision_denominator, \
ap_denominator, recall_denominator, max_grade, weights, group_weight, \
persistence, recall_level, r_multiple, integer_grades, judged_only, alpha, beta, \
gain_rows, ideal_order, convention : see :func:`sklearn_rank.evaluate`
        Conventions; None takes the value of ``convention``.
    client : distributed.Client, default=None
        The cluster to compute on; None is Dask's current scheduler (the last
        ``Client`` made, or the local one).
    progress : bool, default=False
        Show a progress bar while the work runs (Dask's ``progress`` on a
        client, its ``ProgressBar`` on a local scheduler).
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
    names = front.row_names(y_true, groups, sample_weight, retrieved, judged, in_pool)
    client = _check_client(client, func)
    prep = _prepare(
        func,
        data,
        y_score,
        names,
        metrics,
        convention,
        options,
        per_group=False,
        partitioned_by_group=partitioned_by_group,
        npartitions=npartitions,
    )
    lazy = [prep.n_groups]
    if prep.id_check is not None:
        lazy.append(prep.id_check)
    for plan in prep.plans:
        lazy += _reductions(prep, plan)
    if not compute:
        return dask.delayed(_finish_lazy, pure=True)(prep.plans, _many(y_score), *lazy)
    found = _run(func, tuple(lazy), client, progress, prep.frame, prep.plans)
    # On the client: its warnings reach the caller.
    return _finish(found, prep.plans, _many(y_score))


def _many(y_score: Any) -> bool:
    return isinstance(y_score, (list, tuple))


def _wrap(value: Any) -> pd.DataFrame:
    return pd.DataFrame({"p": [value]})


def _chunk(pdf: pd.DataFrame, work, plan: parts.Plan) -> pd.DataFrame:
    return _wrap(work(pdf, plan))


def _combine(frame: pd.DataFrame, merge) -> pd.DataFrame:
    return _wrap(merge(list(frame["p"])))


def _aggregate(frame: pd.DataFrame, merge) -> Any:
    return merge(list(frame["p"]))


def _tree(frame: dd.DataFrame, work, merge, plan: parts.Plan, name: str):
    """``work(partition, plan)`` on every partition, merged by ``merge`` (exact
    and associative) in a tree: the one result, lazy."""
    return frame.reduction(
        chunk=_chunk,
        chunk_kwargs={"work": work, "plan": plan},
        combine=_combine,
        combine_kwargs={"merge": merge},
        aggregate=_aggregate,
        aggregate_kwargs={"merge": merge},
        split_every=8,
        meta=(name, object),
    )


def _reductions(prep: _Prepared, plan: parts.Plan) -> list:
    """(merged partial, merged pooled-AUC histogram) of one score column: tree
    reductions of exact merges (None where not asked)."""
    merged = hist = None
    if plan.requests:
        merged = _tree(
            prep.per_group[plan.y_score],
            parts.partial,
            parts.merge_partials,
            plan,
            "partial",
        )
    if plan.pooled:  # on the input partitions: the pooled AUC needs no shuffle
        rows = prep.frame[[c for c in plan.columns if c in prep.frame.columns]]
        hist = _tree(
            rows, parts.auc_histogram, parts.merge_histograms, plan, "histogram"
        )
    return [merged, hist]


def _finish_lazy(plans, many: bool, *found):
    return _finish(found, plans, many)


def _finish(found, plans, many: bool):
    """The dict of means of every score column (one dict per column when
    several were given)."""
    # first the number of groups (and the id check), after the layout checks
    rest = found[len(found) - 2 * len(plans) :]
    out = {}
    for i, plan in enumerate(plans):
        merged, hist = rest[2 * i], rest[2 * i + 1]
        auc = {} if hist is None else parts.auc_from_histogram(hist, plan)
        merged = parts.Partial() if merged is None else merged
        out[plan.y_score] = parts.finish(merged, auc, plan)
    return out if many else out[plans[0].y_score]


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
    in_pool: Any = None,
    partitioned_by_group: bool = False,
    npartitions: int | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
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
    alpha: float | None = None,
    beta: float | None = None,
    convention: str | None = None,
) -> dd.DataFrame | dict[str, dd.DataFrame]:
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
    names = front.row_names(y_true, groups, sample_weight, retrieved, judged, in_pool)
    prep = _prepare(
        func,
        data,
        y_score,
        names,
        metrics,
        convention,
        options,
        per_group=True,
        partitioned_by_group=partitioned_by_group,
        npartitions=npartitions,
    )
    out = {
        column: frame.map_partitions(
            _after_check,
            prep.n_groups,
            prep.verdict,
            prep.id_check,
            func,
            meta=frame._meta,
        )
        for column, frame in prep.per_group.items()
    }
    return out if _many(y_score) else out[prep.plans[0].y_score]


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
