"""The columnar reading path: judgments and runs as columns, joined as trec_eval.

One path from a file (TREC text, or a table read through pyarrow) to the flat
arrays the metrics take, without a Python string per row: query ids become
integer codes, document ids stay byte spans with hashes (:mod:`._id_columns`),
and only the query ids of the evaluated queries are decoded.
:func:`sklearn_rank.io.load_trec` and ``sklearn-rank eval`` both read through
it; :class:`TrecArrays` (with its per-row ``docno`` strings) is built from a
:class:`TrecColumns` only when asked for.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from .._utils.jobs import effective_n_jobs
from .._utils.params import Interval, IsNone, validate_params
from ._id_columns import _check_unique, _RowText, _TextColumn
from ._trec_join import _join, _Joined
from ._trec_parse import _parse_qrels, _parse_run, _ParsedQrels, _ParsedRun

__all__ = [
    "QrelsColumns",
    "RunColumns",
    "TrecArrays",
    "TrecColumns",
    "join_columns",
    "read_qrels_columns",
    "read_run_columns",
    "table_qrels_columns",
    "table_query_codes",
    "table_run_columns",
]

Source = str | os.PathLike[str] | IO[Any]
Progress = Callable[[int, int, str], None]
_BOM_CHOICES = ("skip", "keep")
_ERRORS_CHOICES = ("strict", "surrogateescape")
# trec_eval's -M: 0 keeps no document (every query ranks nothing), None all.
MAX_DOCS = (Interval(numbers.Integral, 0, None, closed="left"), IsNone())


class QrelsColumns:
    """Judgments read as columns (:func:`read_qrels_columns`,
    :func:`table_qrels_columns`); pass them to :func:`join_columns`.

    Attributes
    ----------
    source : str
        The file's name (in messages).
    """

    def __init__(self, parsed: _ParsedQrels) -> None:
        self._parsed = parsed

    @property
    def source(self) -> str:
        return self._parsed.source

    def __len__(self) -> int:
        return int(self._parsed.line.size)


class RunColumns:
    """A run read as columns (:func:`read_run_columns`,
    :func:`table_run_columns`); pass it to :func:`join_columns`.

    Attributes
    ----------
    source : str
        The file's name (in messages).
    run_tag : str
        The run tag of the file's last line (trec_eval keeps that one); for a
        table, the score column's name.
    """

    def __init__(self, parsed: _ParsedRun) -> None:
        self._parsed = parsed

    @property
    def source(self) -> str:
        return self._parsed.source

    @property
    def run_tag(self) -> str:
        return self._parsed.runid

    def __len__(self) -> int:
        return int(self._parsed.line.size)


@dataclass(frozen=True, eq=False)
class TrecArrays:
    """Flat per-row arrays joining a qrels and a run, ready for the metrics.

    One row per (query, document) in the union of the judged and the retrieved
    documents of the evaluated queries. Rows are grouped by query (queries in string
    order); within a query the retrieved rows come first in trec_eval's order
    (score descending, then docno descending), then the judged-but-not-retrieved
    rows (docno ascending).

    Attributes
    ----------
    y_true : ndarray of float64
        The judged grade; unjudged documents and negative grades are 0.
    y_score : ndarray of float64
        The run's score; for rows that were not retrieved a finite value below every
        score of the run, so that they sort last even if ``retrieved`` is ignored.
    groups : ndarray of object (str)
        The query id of each row.
    retrieved : ndarray of bool
        False for judged documents that the run did not return (they count in the
        number of relevant documents and in the ideal DCG only).
    docno : ndarray of object (str)
        The document id of each row.
    rank : ndarray of int64
        trec_eval's rank (1-based) of retrieved rows; 0 for rows not retrieved.
    judged : ndarray of bool
        True for rows whose document has a qrels line with a grade >= 0 for the
        query; False for retrieved documents without one and for negative grades
        (trec_eval's ``form_res_rels.c``: both leave the ranking under ``-J``).
        Pass it as ``judged=`` (with ``judged_only=True`` for ``-J``).
    """

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray
    retrieved: np.ndarray
    docno: np.ndarray
    rank: np.ndarray
    judged: np.ndarray

    def __len__(self) -> int:
        return int(self.y_true.shape[0])


@dataclass(frozen=True, eq=False)
class TrecColumns:
    """A run joined with the judgments as trec_eval joins them, as columns.

    Rows: the retrieved documents of each evaluated query in trec_eval's order
    (score descending, then docno descending), then the judged documents that
    were not retrieved. ``query_codes`` index ``query_ids``, the evaluated
    queries in string order.

    Attributes
    ----------
    y_true : ndarray of float64
        The judged grade; unjudged documents and negative grades are 0.
    y_score : ndarray of float64
        The score; rows not retrieved get a value below every score of the run.
    query_codes : ndarray of int64
        The query of each row, ``0 .. len(query_ids) - 1``.
    query_ids : list of str
        The evaluated queries, in string order.
    retrieved : ndarray of bool
        False for judged documents the run did not return (or ``-M`` cut).
    rank : ndarray of int32 (int64 from 2**31 rows)
        trec_eval's rank (1-based) of the retrieved rows (the first
        ``retrieved.sum()`` rows), in row order.
    judged : ndarray of bool
        A qrels line with a grade >= 0 (trec_eval's ``-J`` keeps these).
    pooled : ndarray of bool
        Any qrels line (a negative grade: in the pool, not judged).
    run_tag : str
        The run's tag.
    """

    y_true: np.ndarray
    y_score: np.ndarray
    query_codes: np.ndarray
    query_ids: list[str]
    retrieved: np.ndarray
    rank: np.ndarray
    judged: np.ndarray
    pooled: np.ndarray
    run_tag: str
    _joined: _Joined = field(repr=False)

    def __len__(self) -> int:
        return int(self.y_true.shape[0])

    def to_arrays(self):
        """The :class:`TrecArrays` of this join (per-row query and document
        strings, rows grouped by query)."""
        return _to_arrays(self._joined)


def _to_arrays(joined: _Joined) -> TrecArrays:
    """Public arrays, grouped by query, not-retrieved rows by docno."""
    n_run = int(joined.rank.size)
    run_col, run_codes = joined.run_docs
    qrels_col, qrels_codes = joined.qrels_docs
    docno = np.array(
        run_col.text(run_codes) + qrels_col.text(qrels_codes), dtype=object
    )
    _, text_rank = np.unique(docno[n_run:], return_inverse=True)
    within = np.concatenate([joined.rank, n_run + 1 + text_rank.reshape(-1)])
    final = np.lexsort((within, joined.qcode))
    ranks = np.concatenate([joined.rank, np.zeros(docno.size - n_run, np.int64)])
    return TrecArrays(
        y_true=joined.y_true[final],
        y_score=joined.y_score[final],
        groups=joined.qids[joined.qcode][final],
        retrieved=joined.retrieved[final],
        docno=docno[final],
        rank=ranks[final],
        judged=joined.judged[final],
    )


def read_bytes(source: Source) -> tuple[bytes, str]:
    """The whole content of a path or stream, gunzipped when gzip'd, without a
    UTF-8 byte-order mark, and its name (for messages): ``(data, name)``."""
    from ._text import read_bytes as _read

    return _read(source)


def table_format(path: str | os.PathLike[str]) -> str | None:
    """The table format a file name says (``csv``, ``tsv``, ``parquet``,
    ``jsonl``; ``.gz`` looked through), or None for any other name."""
    from ._tables import table_format as _format

    return _format(path)


def read_table_columns(
    source: str | os.PathLike[str],
    columns: list[str],
    *,
    input_format: str | None = None,
    text: Sequence[str] = (),
    dictionary: Sequence[str] = (),
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The given columns of a table as pyarrow arrays (``{name: array}``),
    without a Python object per row: ``text`` columns are read as strings,
    and the ``dictionary`` ones (query ids) stay dictionary-encoded where a
    Parquet file stores them so; pass the result to
    :func:`table_qrels_columns`, :func:`table_run_columns`,
    :func:`table_query_codes` and :func:`table_numbers`. Needs pyarrow."""
    from ._arrow_columns import read_columns

    return read_columns(
        source,
        columns,
        input_format=input_format,
        text=list(text),
        dictionary=list(dictionary),
        progress=progress,
    )


def table_numbers(table: dict, column: str, path: str) -> np.ndarray:
    """A numeric column of :func:`read_table_columns` as float64; a missing or
    non-numeric value is named by file, row and column."""
    from ._arrow_columns import arrow_numbers

    return arrow_numbers(table[column], column, path)


def _check_bom(byte_order_mark: str) -> None:
    if byte_order_mark not in _BOM_CHOICES:
        raise ValueError(
            f"byte_order_mark must be 'skip' or 'keep', got {byte_order_mark!r}"
        )


def _check_errors(encoding_errors: str) -> bool:
    if encoding_errors not in _ERRORS_CHOICES:
        raise ValueError(
            "encoding_errors must be 'strict' or 'surrogateescape', got "
            f"{encoding_errors!r}"
        )
    return encoding_errors == "strict"


def read_qrels_columns(
    source: Source,
    *,
    byte_order_mark: str = "skip",
    encoding_errors: str = "strict",
    progress: Progress | None = None,
    n_jobs: int | None = None,
) -> QrelsColumns:
    """Read a TREC qrels file (``qid iter docno rel``) as columns.

    Parameters
    ----------
    source : str, path-like or binary file-like
        The judgments (``.gz`` is read directly).
    byte_order_mark : {"skip", "keep"}, default="skip"
        A UTF-8 byte-order mark at the start of the file is skipped, or kept
        as part of the first query id ("keep": trec_eval's reading).
    encoding_errors : {"strict", "surrogateescape"}, default="strict"
        A file that is not UTF-8 raises, naming its line ("strict"), or is
        read as trec_eval reads it, ids as bytes ("surrogateescape": a byte
        that is not UTF-8 becomes a lone surrogate in the id strings, as
        Python's ``errors="surrogateescape"``; write them back with the same
        error handler to get the bytes).
    progress : callable, default=None
        ``progress(done, total, stage)`` with the bytes read ("read") and
        split ("split") so far.
    n_jobs : int or None, default=None
        Threads for the reading's hashing, sorting and copies (scikit-learn's
        convention: None is 1 unless in a ``joblib.parallel_config``
        context, -1 all cores); the result is the same at every count.

    Returns
    -------
    QrelsColumns
    """
    _check_bom(byte_order_mark)
    strict = _check_errors(encoding_errors)
    n_threads = effective_n_jobs(n_jobs, "read_qrels_columns")
    return QrelsColumns(
        _parse_qrels(source, progress, byte_order_mark == "keep", strict, n_threads)
    )


def read_run_columns(
    source: Source,
    *,
    byte_order_mark: str = "skip",
    encoding_errors: str = "strict",
    duplicates: str = "raise",
    progress: Progress | None = None,
    n_jobs: int | None = None,
) -> RunColumns:
    """Read a TREC run file (``qid Q0 docno rank score runid``) as columns.

    The rank field is not read (trec_eval ignores it too). Parameters as
    :func:`read_qrels_columns` (``n_jobs`` included), and ``duplicates``: a
    document listed twice for one query raises here, naming both lines
    ("raise"), or in :func:`join_columns` only if both are among the
    documents it keeps ("join": trec_eval checks the top ``-M`` documents
    only).

    Returns
    -------
    RunColumns
    """
    _check_bom(byte_order_mark)
    strict = _check_errors(encoding_errors)
    if duplicates not in ("raise", "join"):
        raise ValueError(f"duplicates must be 'raise' or 'join', got {duplicates!r}")
    keep = byte_order_mark == "keep"
    n_threads = effective_n_jobs(n_jobs, "read_run_columns")
    parsed = _parse_run(
        source, False, progress, keep, strict, duplicates == "join", n_threads
    )
    return RunColumns(parsed)


def _query_column(table: dict, query_col: str, path: str) -> _TextColumn:
    """The query ids of an Arrow column as codes (a dictionary-encoded column
    keeps its indices: no span per row)."""
    from ._arrow_columns import arrow_codes

    codes, spans = arrow_codes(table[query_col], query_col, path)
    if codes is None:
        return _TextColumn.from_spans(*spans)
    return _TextColumn(codes, *spans, every_code_held=False)  # (unused values)


def _arrow_ids(table: dict, query_col: str, doc_col: str, path: str):
    from ._arrow_columns import arrow_spans

    qid = _query_column(table, query_col, path)
    docno = _RowText(*arrow_spans(table[doc_col], doc_col, path))
    n = len(table[query_col])
    line = np.arange(1, n + 1, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    source = f"{path} (row numbers)"
    return qid, docno, line, source


def table_query_codes(table: dict, query_col: str, path: str):
    """Integer codes of an Arrow column of query ids, numbered in the ids'
    string order, and the ids: ``(codes, query_ids)``; no string per row."""
    column = _query_column(table, query_col, path)
    names = np.array(column.text(), dtype=object)
    order = np.argsort(names, kind="stable")
    renumber = np.empty(order.size, np.int64)
    renumber[order] = np.arange(order.size)
    return renumber[column.codes], names[order].tolist()


def table_qrels_columns(
    table: dict, query_col: str, doc_col: str, label_col: str, path: str
) -> QrelsColumns:
    """Judgments from Arrow columns (``{name: pyarrow array}``, ids as strings),
    as :func:`read_qrels_columns` reads a file; ``path`` names the table in
    messages (rows are numbered from 1)."""
    from ._arrow_columns import arrow_numbers

    qid, docno, line, source = _arrow_ids(table, query_col, doc_col, path)
    relevance = arrow_numbers(table[label_col], label_col, path)
    parsed = _ParsedQrels(qid, docno, relevance, line, source)
    parsed.keys = _check_unique(qid, docno, line, source)
    return QrelsColumns(parsed)


def table_run_columns(
    table: dict,
    query_col: str,
    doc_col: str,
    score_cols: list[str],
    path: str,
    *,
    duplicates: str = "raise",
) -> list[RunColumns]:
    """One run per score column of Arrow columns (ids as strings), each named
    by its column; as :func:`table_qrels_columns`.

    ``duplicates`` as for :func:`read_run_columns`: a document listed twice
    for one query raises here ("raise"), or in :func:`join_columns` only if
    both rows are among the documents it keeps ("join": trec_eval checks the
    top ``-M`` documents only). With "join" the check runs on a second thread
    while the caller goes on, and the join waits for it after ranking the
    rows (on two cores the check then costs no wall time).
    """
    from ._arrow_columns import arrow_numbers

    if duplicates not in ("raise", "join"):
        raise ValueError(f"duplicates must be 'raise' or 'join', got {duplicates!r}")
    qid, docno, line, source = _arrow_ids(table, query_col, doc_col, path)
    keys, repeats, pending = None, None, None
    if duplicates == "raise":
        keys = _check_unique(qid, docno, line, source)
        if keys is not None:  # the join reads the key table, not the hashes
            docno._hashes = None
    else:
        repeats = []
        pool = ThreadPoolExecutor(max_workers=1)
        pending = pool.submit(_check_unique, qid, docno, line, source, repeats)
        pool.shutdown(wait=False)  # the thread ends with the check
    return [
        RunColumns(
            _ParsedRun(
                qid,
                docno,
                arrow_numbers(table[s], s, path),
                None,
                s,
                line,
                source,
                keys,
                repeats,
                pending,
            )
        )
        for s in score_cols
    ]


@validate_params(
    {
        "max_docs_per_query": list(MAX_DOCS),
    }
)
def join_columns(
    qrels: QrelsColumns,
    run: RunColumns,
    *,
    complete: bool = False,
    max_docs_per_query: int | None = None,
    n_jobs: int | None = None,
) -> TrecColumns:
    """Join judgments and a run as trec_eval does (see :func:`trec_arrays`).

    Parameters
    ----------
    qrels : QrelsColumns
    run : RunColumns
    complete : bool, default=False
        Keep judged queries that the run does not return (trec_eval ``-c``).
    max_docs_per_query : int or None, default=None
        Keep the top documents of each query only (trec_eval ``-M``); 0 keeps
        none (the judged documents stay, not retrieved).
    n_jobs : int or None, default=None
        Threads for ranking the run's rows (scikit-learn's convention, as
        :func:`read_qrels_columns`); the result is the same at every count.

    Returns
    -------
    TrecColumns

    Examples
    --------
    >>> import io
    >>> from sklearn_rank.io import join_columns, read_qrels_columns, read_run_columns
    >>> qrels = read_qrels_columns(io.BytesIO(b"q1 0 a 1\\nq1 0 b 0\\nq1 0 z 2\\n"))
    >>> run = read_run_columns(io.BytesIO(b"q1 Q0 a 1 0.5 r\\nq1 Q0 b 2 0.9 r\\n"))
    >>> t = join_columns(qrels, run)
    >>> t.y_true.tolist(), t.retrieved.tolist(), t.query_ids
    ([0.0, 1.0, 2.0], [True, True, False], ['q1'])
    """
    n_threads = effective_n_jobs(n_jobs, "join_columns")
    joined = _join(qrels._parsed, run._parsed, complete, max_docs_per_query, n_threads)
    # Codes follow the query ids' string order; number the present ones 0..G-1.
    seen = np.bincount(joined.qcode, minlength=joined.qids.size) > 0
    present = np.flatnonzero(seen)
    # Every query present (the common case): the codes are already 0..G-1, and
    # no second array of n is made (memory: the join's peak).
    codes = joined.qcode if seen.all() else (np.cumsum(seen) - 1)[joined.qcode]
    return TrecColumns(
        y_true=joined.y_true,
        y_score=joined.y_score,
        query_codes=codes,
        query_ids=joined.qids[present].tolist(),
        retrieved=joined.retrieved,
        rank=joined.rank,
        judged=joined.judged,
        pooled=joined.pooled,
        run_tag=run.run_tag,
        _joined=joined,
    )
