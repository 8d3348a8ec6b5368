"""Runs and qrels as the IR research stack holds them, evaluated in one call.

PyTerrier's frames (``qid``, ``docno``, ``label`` / ``score``), ir_measures' and
ir_datasets' frames and namedtuple iterators (``query_id``, ``doc_id``,
``relevance`` / ``score``), pytrec_eval's dict of dicts and ranx's ``Qrels`` /
``Run`` become Arrow columns and join by (query, document) through the columnar
path (:func:`~sklearn_rank.io.join_columns`), as trec_eval joins two files.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .._engine.conventions import resolve_options
from .._engine.reduce import fill_undefined
from .._metrics.evaluate import GroupScores, evaluate, evaluate_per_group
from .._metrics.ir_measures_names import tie_order
from .._metrics.validation import parse_metric
from ._columns import (
    TrecColumns,
    join_columns,
    table_qrels_columns,
    table_run_columns,
)

# Column names by role, in the order they are looked for.
_QID = ("qid", "query_id")
_DOCNO = ("docno", "doc_id")
_LABEL = ("label", "relevance")
_SCORE = ("score",)


def _arrow():
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError(
            "evaluate_run needs pyarrow: pip install 'sklearn-rank[tables]'."
        ) from None
    return pa


def _pick(columns, names: tuple[str, ...], what: str, role: str) -> str:
    for name in names:
        if name in columns:
            return name
    raise ValueError(
        f"{what} has no {' or '.join(map(repr, names))} column (its columns: "
        f"{', '.join(map(str, columns))}); name the {role} column "
        f"{names[0]!r} (PyTerrier) or {names[-1]!r} (ir_measures)."
    )


def _id_array(values: Any, column: str, what: str, pa):
    """An id column as an Arrow array: all text or all integers, never mixed
    (a qid 1 and a qid "1" would otherwise be one query or two by accident)."""
    if hasattr(values, "to_numpy"):  # pandas Series: its own type inference
        import pandas as pd

        kind = pd.api.types.infer_dtype(values, skipna=False)
        array = values.to_numpy()
    else:
        array = np.asarray(values)
        kind = array.dtype.kind
        if kind == "O":  # Python objects (a dict's keys): every one's type
            types = {type(v) for v in array}
            kind = "string" if types <= {str} else "/".join(t.__name__ for t in types)
    if kind in ("string", "U"):
        return pa.array(array, type=pa.string()), "text"
    if kind in ("integer", "i", "u"):
        return pa.array(np.asarray(array, dtype=np.int64)), "integer"
    raise TypeError(
        f"{what}: column {column!r} must hold ids of one type (all strings or all "
        f"integers); found {kind}. Convert it, e.g. frame[{column!r}].astype(str)."
    )


def _records(data: Any, what: str, number: str):
    """(qids, docnos, numbers) of one input, with the column names used."""
    if hasattr(data, "to_dict") and type(data).__module__.startswith("ranx"):
        data = data.to_dict()  # ranx Qrels / Run
    if hasattr(data, "columns") and hasattr(data, "__getitem__"):  # a frame
        roles = _LABEL if number == "label" else _SCORE
        q = _pick(data.columns, _QID, what, "query id")
        d = _pick(data.columns, _DOCNO, what, "document id")
        n = _pick(data.columns, roles, what, number)
        return data[q], data[d], data[n], (q, d, n)
    if isinstance(data, Mapping):  # pytrec_eval: {qid: {docno: number}}
        qids, docnos, numbers = [], [], []
        for qid, docs in data.items():
            if not isinstance(docs, Mapping):
                raise TypeError(
                    f"{what} as a dict must map each query id to a dict "
                    f"{{docno: {number}}} (pytrec_eval's form); query {qid!r} maps "
                    f"to a {type(docs).__name__}."
                )
            qids += [qid] * len(docs)
            docnos += list(docs)
            numbers += list(docs.values())
        return qids, docnos, numbers, ("qid", "docno", number)
    if isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        # ir_datasets / ir_measures namedtuples: query_id, doc_id, relevance|score
        field = "relevance" if number == "label" else "score"
        qids, docnos, numbers = [], [], []
        for row in data:
            try:
                qids.append(row.query_id)
                docnos.append(row.doc_id)
                numbers.append(getattr(row, field))
            except AttributeError:
                raise TypeError(
                    f"{what}: each item must have query_id, doc_id and {field} "
                    f"(ir_datasets' namedtuples); got {row!r}."
                ) from None
        return qids, docnos, numbers, ("query_id", "doc_id", field)
    raise TypeError(
        f"{what} must be a pandas DataFrame (qid, docno, {number}), a dict "
        f"{{qid: {{docno: {number}}}}}, an iterator of ir_datasets namedtuples or "
        f"a ranx object; got a {type(data).__name__}."
    )


def _table(data: Any, what: str, number: str):
    pa = _arrow()
    qids, docnos, numbers, (q, d, n) = _records(data, what, number)
    q_array, q_kind = _id_array(qids, q, what, pa)
    d_array, _ = _id_array(docnos, d, what, pa)
    values = numbers.to_numpy() if hasattr(numbers, "to_numpy") else numbers
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: column {n!r} must hold numbers.") from None
    table = {"qid": q_array, "docno": d_array, number: pa.array(values)}
    return table, q_kind


def join_run(qrels: Any, run: Any, *, complete: bool = False) -> TrecColumns:
    """Join qrels and a run given in any of the stack's forms (see the module)
    as trec_eval joins two files: rows in its order, ties by docno descending.

    Parameters
    ----------
    qrels, run : DataFrame, dict of dicts, iterator of namedtuples or ranx object
    complete : bool, default=False
        Keep judged queries the run does not return (trec_eval ``-c``).

    Returns
    -------
    TrecColumns
    """
    qtable, qkind = _table(qrels, "qrels", "label")
    rtable, rkind = _table(run, "run", "score")
    if qkind != rkind:
        raise TypeError(
            f"the query ids of the qrels are {qkind} and those of the run {rkind}: "
            "they would never match. Give both the same type, e.g. "
            "frame['qid'].astype(str)."
        )
    q = table_qrels_columns(qtable, "qid", "docno", "label", "qrels")
    (r,) = table_run_columns(rtable, "qid", "docno", ["score"], "run")
    return join_columns(q, r, complete=complete)


def _is_one_run(run: Any) -> bool:
    """A pytrec_eval run ({qid: {docno: score}}) rather than {name: run}."""
    if not isinstance(run, Mapping) or not run:
        return True
    first = next(iter(run.values()))
    if not isinstance(first, Mapping):
        return False  # {name: frame, ...}
    inner = next(iter(first.values()), 0.0)
    return not isinstance(inner, Mapping)


def evaluate_run(
    qrels: Any,
    run: Any,
    *,
    metrics: Any,
    convention: str | None = None,
    **options: Any,
) -> dict[str, float] | dict[str, GroupScores]:
    """Evaluate a run (or several) against qrels as the IR stack holds them.

    Parameters
    ----------
    qrels : DataFrame, dict of dicts, iterable of namedtuples or ranx Qrels
        Judgments: a frame with ``qid``, ``docno``, ``label`` (PyTerrier) or
        ``query_id``, ``doc_id``, ``relevance`` columns (ir_measures), pytrec_eval's
        ``{qid: {docno: grade}}``, ir_datasets' ``qrels_iter()`` or a ranx
        ``Qrels``.
    run : DataFrame, dict of dicts, iterable of namedtuples, ranx Run, or a dict of them
        A run: a frame with ``qid``, ``docno``, ``score`` (or ``query_id``,
        ``doc_id``, ``score``), ``{qid: {docno: score}}``, ir_datasets'
        ``scoreddocs_iter()`` or a ranx ``Run``. A dict ``{name: run}`` evaluates
        several runs for :func:`sklearn_rank.stats.compare`.
    metrics : str or sequence of str
        Metric names: the library's (``"ndcg@10"``) or ir_measures' (``"nDCG@10"``,
        ``"P(rel=2)@5"``, ``"AP"``, ir_measures' measure objects).
    convention : str, default=None
        The preset of the options left unset; None is ``"trec_eval"`` here (rows
        come in trec_eval's order: ties by docno descending).
    **options
        Convention keywords of :func:`sklearn_rank.evaluate`.

    Returns
    -------
    scores : dict of str to float, or dict of str to GroupScores
        For one run, the mean of each metric over the judged queries, as
        ir_measures averages (trec_eval's ``-c``: a judged query the run does
        not return scores as if it ranked nothing; a query of the run without
        judgments is left out). For a dict of runs, each run's per-query values
        (:class:`~sklearn_rank.GroupScores`) over the same queries, ready for
        ``stats.compare(None, scores)``.

    Examples
    --------
    >>> from sklearn_rank import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d1": 0.2, "d2": 0.9}, "q2": {"d3": 1.0, "d4": 0.5}}
    >>> evaluate_run(qrels, run, metrics=["P@1", "AP", "ndcg@10"])
    {'P@1': 0.5, 'AP': 0.75, 'ndcg@10': 0.8154648767857288}
    """
    if _is_one_run(run):
        cols = join_run(qrels, run, complete=True)
        return _evaluate(evaluate, cols, metrics, convention, options)
    if not run:
        raise ValueError("run is an empty dict; pass a run or {name: run}.")
    return {
        name: _evaluate(
            evaluate_per_group,
            join_run(qrels, one, complete=True),
            metrics,
            convention,
            options,
        )
        for name, one in run.items()
    }


def _evaluate(function, cols: TrecColumns, metrics, convention, options):
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    convention = "trec_eval" if convention is None else convention
    by_order: dict[str, list] = {}
    for name in names:
        by_order.setdefault(tie_order(name), []).append(name)
    out: dict[str, Any] = {}
    for order, group in by_order.items():
        rows = slice(None)
        if order == "docno_ascending":  # the judged provider's (-score, docno)
            n = cols.y_score.shape[0]
            rows = np.lexsort((-np.arange(n), -cols.y_score, cols.query_codes))
        result = function(
            cols.y_true[rows],
            cols.y_score[rows],
            groups=cols.query_codes[rows],
            retrieved=cols.retrieved[rows],
            judged=cols.judged[rows],
            in_pool=cols.pooled[rows],
            metrics=group,
            convention=convention,
            **options,
        )
        out[order] = result
    if function is evaluate:
        merged = {}
        for result in out.values():
            merged.update(result)
        return {str(n): merged[str(n)] for n in names}
    return _fill(_merge_group_scores(list(out.values()), cols.query_ids), convention,
                 options)  # fmt: skip


def _fill(scores: GroupScores, convention: str, options: dict) -> GroupScores:
    """Each metric's undefined rule on its per-query values (the name's, as
    ``AP`` sets 0, else the call's), so that ``compare`` averages what
    ``evaluate_run`` on one run averages."""
    given = {"undefined": options.get("undefined")}
    rule = resolve_options("evaluate_run", convention, given).undefined
    values = {}
    for name, v in scores.values.items():
        named = dict(parse_metric(name).options).get("undefined", rule)
        values[name] = fill_undefined(v, named, name, scores.group_ids)
    return dataclasses.replace(scores, values=values)


def _merge_group_scores(parts: list[GroupScores], query_ids) -> GroupScores:
    """One GroupScores of the metrics of every tie order, by query id."""
    first = parts[0]
    values, weights = dict(first.values), dict(first.weights)
    for part in parts[1:]:
        values.update(part.values)
        weights.update(part.weights)
    ids = np.asarray(query_ids, dtype=object)[first.group_ids]
    return dataclasses.replace(first, group_ids=ids, values=values, weights=weights)


__all__ = ["evaluate_run", "join_run"]
