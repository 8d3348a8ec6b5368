"""``sklearn-rank eval`` on tables: one predictions table, qrels + run tables (or
a TREC file on either side), or ranked lists. Every layout ends in the same flat
arrays as TREC input; table columns are read as Arrow arrays and their ids as
byte spans, the TREC reader's own representation, so no Python object is made
per row."""

from __future__ import annotations

import argparse
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import io as _io
from ._inputs import (
    RunInput,
    _from_arrays,
    _names,
    check_overlap,
    finish_background,
)
from ._progress import showing


def _read(path: str, columns: list[str], args: argparse.Namespace):
    fmt = args.input_format if args.input_format != "trec" else None
    return _io.read_table(path, columns, input_format=fmt)


def _columns(path, columns, text, args, progress=None):
    """Arrow columns of one table (ids as strings, query ids dictionary-encoded
    where a Parquet file stores them so), bytes read reported."""
    fmt = args.input_format if args.input_format != "trec" else None
    report = None if progress is None else progress.reader(path)
    return _io.read_table_columns(
        path,
        columns,
        input_format=fmt,
        text=text,
        dictionary=[args.query_col],
        progress=report,
    )


def _score_cols(args: argparse.Namespace) -> list[str]:
    return args.score_col or ["score"]


def _single(args: argparse.Namespace, progress=None) -> list[RunInput]:
    """One table: query, label and one or more score columns."""
    path = args.files[0]
    scores = _score_cols(args)
    table = _columns(
        path,
        [args.query_col, args.label_col, *scores],
        [args.query_col],
        args,
        progress,
    )
    codes, qids = _io.table_query_codes(table, args.query_col, path)
    labels = _io.table_numbers(table, args.label_col, path)
    return [
        RunInput(
            name=col,
            runid=col,
            y_true=labels,
            y_score=_io.table_numbers(table, col, path),
            codes=codes,
            qids=qids,
            origin=(path, args.label_col),
        )
        for col in scores
    ]


def _table_qrels(path: str, args: argparse.Namespace, progress=None):
    from ..io import table_qrels_columns

    q, d, label = args.query_col, args.doc_col, args.label_col
    table = _columns(path, [q, d, label], [q, d], args, progress)
    return table_qrels_columns(table, q, d, label, path)


def _table_runs(path: str, args: argparse.Namespace, progress=None) -> list:
    """One run per score column of a run table (the table read once)."""
    from ..io import table_run_columns

    q, d, scores = args.query_col, args.doc_col, _score_cols(args)
    table = _columns(path, [q, d, *scores], [q, d], args, progress)
    # As for TREC files: under trec_eval's convention a document listed twice
    # is an error only where the join keeps both (trec_eval checks the top -M);
    # that check then runs beside the join's ranking.
    trec = getattr(args, "convention", None) == "trec_eval"
    return table_run_columns(
        table, q, d, scores, path, duplicates="join" if trec else "raise"
    )


def _joined(args: argparse.Namespace, progress=None) -> list[RunInput]:
    """Qrels and runs, each a table or a TREC file, joined on query and
    document as trec_eval joins TREC files (same data, same numbers)."""
    from ..io import join_columns, read_qrels_columns, read_run_columns
    from ._inputs import byte_order_mark, check_not_empty, file_format, from_join

    first = args.files[0]
    bom = byte_order_mark(args)

    def load_qrels():
        if file_format(first, args.input_format) == "trec":
            qrels = read_qrels_columns(
                first, byte_order_mark=bom, progress=_reader(progress, first)
            )
            check_not_empty(qrels, "qrels")
            return qrels
        return _table_qrels(first, args, progress)

    # The qrels are read on a second thread while the runs are (as for TREC
    # files, _inputs._load_trec); their errors still come first.
    pool = None if showing(progress) else ThreadPoolExecutor(max_workers=1)
    pending = pool.submit(load_qrels) if pool is not None else None
    if pending is None:
        qrels = load_qrels()
    runs, paths = [], []
    try:
        for path in args.files[1:]:
            if file_format(path, args.input_format) == "trec":
                run = read_run_columns(
                    path, byte_order_mark=bom, progress=_reader(progress, path)
                )
                check_not_empty(run, "run")
                found = [run]
            else:
                found = _table_runs(path, args, progress)
            for run in found:
                runs.append(run)
                paths.append(path if len(found) == 1 else f"{path}:{run.run_tag}")
    finally:
        if pending is not None:
            qrels = finish_background(pool, pending)
    names = _names(paths, [os.path.basename(p) for p in paths])
    out = []
    for name, run in zip(names, runs, strict=True):
        joined = join_columns(
            qrels, run, complete=args.complete, max_docs_per_query=args.max_docs
        )
        check_overlap(joined, run.source, qrels.source, args.complete)
        out.append(from_join(name, name, joined, args.max_docs))
    return out


def _reader(progress, path):
    return None if progress is None else progress.reader(path)


def _ranked(args: argparse.Namespace) -> list[RunInput]:
    """One ranked list of items per query plus the relevant items."""
    path = args.files[0]
    columns = [args.query_col, args.items_col, args.relevant_col]
    if args.grades_col:
        columns.append(args.grades_col)
    table = _read(path, columns, args)
    groups = _ids(table[args.query_col], args.query_col, path)
    try:
        arrays = _io.ranked_list_arrays(
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


def _ids(values, column: str, name: str) -> np.ndarray:
    """Query ids as strings (an object array); a missing id is named."""
    values = np.asarray(values, dtype=object)
    for row, value in enumerate(values.tolist(), start=1):
        if value is None or (isinstance(value, float) and value != value):
            raise ValueError(
                f"{name}, row {row}: column {column!r} has a missing id; every "
                "row needs one"
            )
    return np.array([str(v) for v in values.tolist()], dtype=object)


def load(layout: str, args: argparse.Namespace, progress=None) -> list[RunInput]:
    if layout == "table":
        return _single(args, progress)
    if layout == "joined":
        return _joined(args, progress)
    return _ranked(args)
