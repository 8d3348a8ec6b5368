"""``sklearn-rank eval`` on tables: one predictions table, qrels + run tables, or
ranked lists. Every layout ends in the same flat arrays as TREC input."""

from __future__ import annotations

import argparse
import os

import numpy as np

from ..io import _tables
from ..io._trec import Qrels, Run, _parsed_qrels, _parsed_run
from ..io._trec_join import _join
from ._inputs import RunInput, _from_arrays, _names, check_overlap


def _read(path: str, columns: list[str], args: argparse.Namespace):
    fmt = args.input_format if args.input_format != "trec" else None
    return _tables.read_table(path, columns, input_format=fmt)


def _score_cols(args: argparse.Namespace) -> list[str]:
    return args.score_col or ["score"]


def _single(args: argparse.Namespace) -> list[RunInput]:
    """One table: query, label and one or more score columns."""
    path = args.files[0]
    scores = _score_cols(args)
    table = _read(path, [args.query_col, args.label_col, *scores], args)
    groups = _tables.id_column(table[args.query_col], args.query_col, path)
    labels = _tables.numeric_column(table[args.label_col], args.label_col, path)
    return [
        _from_arrays(
            col, col, labels, _tables.numeric_column(table[col], col, path), groups
        )
        for col in scores
    ]


def _qrels_table(path: str, args: argparse.Namespace) -> Qrels:
    table = _read(path, [args.query_col, args.doc_col, args.label_col], args)
    n = table[args.query_col].size
    return Qrels(
        qid=_tables.id_column(table[args.query_col], args.query_col, path),
        docno=_tables.id_column(table[args.doc_col], args.doc_col, path),
        relevance=_tables.numeric_column(table[args.label_col], args.label_col, path),
        line=np.arange(1, n + 1),
        source=f"{path} (row numbers)",
    )


def _run_table(path: str, score: str, args: argparse.Namespace) -> Run:
    table = _read(path, [args.query_col, args.doc_col, score], args)
    n = table[args.query_col].size
    return Run(
        qid=_tables.id_column(table[args.query_col], args.query_col, path),
        docno=_tables.id_column(table[args.doc_col], args.doc_col, path),
        rank=np.arange(1, n + 1),
        score=_tables.numeric_column(table[score], score, path),
        runid=os.path.basename(path),
        line=np.arange(1, n + 1),
        source=f"{path} (row numbers)",
    )


def _joined(args: argparse.Namespace) -> list[RunInput]:
    """A qrels table and run tables joined on query and document, as trec_eval
    joins TREC files (so the same data gives the same numbers)."""
    from ..io._id_columns import _check_unique

    qrels = _parsed_qrels(_qrels_table(args.files[0], args))
    _check_unique(qrels.qid, qrels.docno, qrels.line, qrels.source)
    runs, paths = [], []
    for path in args.files[1:]:
        for score in _score_cols(args):
            run = _parsed_run(_run_table(path, score, args))
            _check_unique(run.qid, run.docno, run.line, run.source)
            runs.append(run)
            paths.append(path if len(_score_cols(args)) == 1 else f"{path}:{score}")
    names = _names(paths, [os.path.basename(p) for p in paths])
    out = []
    for name, run in zip(names, runs, strict=True):
        joined = _join(qrels, run, args.complete, args.max_docs)
        check_overlap(joined, run.source, qrels.source)
        present = np.unique(joined.qcode)
        out.append(
            RunInput(
                name=name,
                runid=name,
                y_true=joined.y_true,
                y_score=joined.y_score,
                codes=np.searchsorted(present, joined.qcode),
                qids=joined.qids[present].tolist(),
                retrieved=joined.retrieved,
                judged=joined.judged,
            )
        )
    return out


def _ranked(args: argparse.Namespace) -> list[RunInput]:
    """One ranked list of items per query plus the relevant items."""
    path = args.files[0]
    columns = [args.query_col, args.items_col, args.relevant_col]
    if args.grades_col:
        columns.append(args.grades_col)
    table = _read(path, columns, args)
    groups = _tables.id_column(table[args.query_col], args.query_col, path)
    try:
        arrays = _tables.ranked_list_arrays(
            table[args.items_col],
            table[args.relevant_col],
            grades=table[args.grades_col] if args.grades_col else None,
            groups=groups,
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    name = os.path.basename(path)
    return [
        _from_arrays(
            name, name, arrays.y_true, arrays.y_score, arrays.groups, arrays.retrieved
        )
    ]


def load(layout: str, args: argparse.Namespace) -> list[RunInput]:
    if layout == "table":
        return _single(args)
    if layout == "joined":
        return _joined(args)
    return _ranked(args)
