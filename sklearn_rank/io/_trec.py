"""Readers for TREC relevance judgments (qrels) and run files.

Both formats are whitespace-separated text, one judgment or one retrieved document
per line:

- qrels: ``qid iter docno rel`` (``iter`` is ignored),
- run: ``qid Q0 docno rank score runid`` (``Q0`` is ignored; fields after ``runid``
  are ignored, as trec_eval does).

Blank lines and lines whose first field starts with ``#`` are skipped. Files are
split into byte spans by numpy passes (:mod:`._text`, parsed in :mod:`._trec_parse`);
a run of a million lines reads in about 0.15 s without pandas. Query ids become
integer codes; document ids stay spans with a 64-bit hash each (:mod:`._id_columns`),
and duplicates, the join and trec_eval's order come from sorts of packed integer
keys (every hash match is confirmed byte for byte).

:func:`trec_arrays` joins a qrels and a run into the flat per-row arrays that every
metric of this package takes, following trec_eval's rules (see its docstring; the
join itself is in :mod:`._trec_join`). This module holds the public dataclasses and
functions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from .._utils.params import check_param
from ._columns import (
    MAX_DOCS,
    TrecArrays,
    _to_arrays,
    join_columns,
    read_qrels_columns,
    read_run_columns,
)
from ._id_columns import _RowText, _TextColumn
from ._trec_join import _join
from ._trec_parse import _parse_qrels, _parse_run, _ParsedQrels, _ParsedRun

__all__ = [
    "Qrels",
    "Run",
    "TrecArrays",
    "load_trec",
    "read_qrels",
    "read_run",
    "trec_arrays",
]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments read from a TREC qrels file.

    Attributes
    ----------
    qid, docno : ndarray of object (str), shape (n,)
        Query and document identifiers, in file order.
    relevance : ndarray of float64, shape (n,)
        The judged grade. trec_eval reads it as an integer; a negative grade means
        "in the pool but not judged" and never counts as relevant.
    line : ndarray of int64, shape (n,)
        The 1-based line of each judgment in the source file.
    source : str
        The file name (or ``"<stream>"``), used in error messages.
    """

    qid: np.ndarray
    docno: np.ndarray
    relevance: np.ndarray
    line: np.ndarray
    source: str = "<qrels>"
    _parsed: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.qid.shape[0])


@dataclass(frozen=True, eq=False)
class Run:
    """Retrieved documents read from a TREC run file.

    Attributes
    ----------
    qid, docno : ndarray of object (str), shape (n,)
        Query and document identifiers, in file order.
    rank : ndarray of int64, shape (n,)
        The rank column as written. trec_eval ignores it and ranks by ``score``.
    score : ndarray of float64, shape (n,)
        The retrieval score; higher is ranked first.
    runid : str
        The run tag of the last line (trec_eval keeps that one).
    line : ndarray of int64, shape (n,)
        The 1-based line of each row in the source file.
    source : str
        The file name (or ``"<stream>"``), used in error messages.
    """

    qid: np.ndarray
    docno: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    runid: str
    line: np.ndarray
    source: str = "<run>"
    _parsed: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.qid.shape[0])


# --------------------------------------------------------------------------- readers


def read_qrels(source: str | os.PathLike[str] | IO[Any]) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``).

    Parameters
    ----------
    source : str, path-like or file-like
        The file name, or an open text/binary stream.

    Returns
    -------
    Qrels
        The judgments in file order, with their line numbers.

    Raises
    ------
    ValueError
        On a line without exactly 4 fields, a non-numeric or non-finite ``rel``, or
        a document judged twice for one query; the message gives the file name and
        the line number.

    Examples
    --------
    >>> import io
    >>> from sklearn_rank.io import read_qrels
    >>> qrels = read_qrels(io.StringIO("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n"))
    >>> qrels.qid.tolist(), qrels.docno.tolist(), qrels.relevance.tolist()
    (['q1', 'q1', 'q2'], ['d1', 'd2', 'd7'], [1.0, 0.0, 2.0])
    >>> read_qrels(io.StringIO("q1 0 d1 1\\nq1 0 d1 yes\\n"))
    Traceback (most recent call last):
    ...
    ValueError: <stream>, line 2: the rel field must be a finite number, got 'yes'
    """
    p = _parse_qrels(source)
    return Qrels(
        qid=p.qid.strings(),
        docno=p.docno.strings(),
        relevance=p.relevance,
        line=p.line.astype(np.int64),
        source=p.source,
        _parsed=p,
    )


def read_run(source: str | os.PathLike[str] | IO[Any]) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score runid``).

    Fields after ``runid`` are ignored, as trec_eval does.

    Parameters
    ----------
    source : str, path-like or file-like
        The file name, or an open text/binary stream.

    Returns
    -------
    Run
        The retrieved documents in file order, with their line numbers.

    Raises
    ------
    ValueError
        On a line with fewer than 6 fields, a non-integer ``rank``, a non-numeric or
        non-finite ``score``, or a document retrieved twice for one query; the
        message gives the file name and the line number.

    Examples
    --------
    >>> import io
    >>> from sklearn_rank.io import read_run
    >>> run = read_run(io.StringIO("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d3 2 1.0 bm25\\n"))
    >>> run.docno.tolist(), run.score.tolist(), run.runid
    (['d1', 'd3'], [2.5, 1.0], 'bm25')
    >>> read_run(io.StringIO("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d3 2 1.0\\n"))
    Traceback (most recent call last):
    ...
    ValueError: <stream>, line 2: expected at least 6 whitespace-separated fields \
(qid Q0 docno rank score runid), found 5: 'q1 Q0 d3 2 1.0'
    """
    p = _parse_run(source)
    return Run(
        qid=p.qid.strings(),
        docno=p.docno.strings(),
        rank=p.rank,
        score=p.score,
        runid=p.runid,
        line=p.line.astype(np.int64),
        source=p.source,
        _parsed=p,
    )


# --------------------------------------------------------------------------- joining


def _check_max_docs(max_docs_per_query: Any) -> None:
    check_param(max_docs_per_query, "max_docs_per_query", "trec_arrays", MAX_DOCS)


def _parsed_qrels(qrels: Qrels) -> _ParsedQrels:
    if qrels._parsed is not None:
        return qrels._parsed
    return _ParsedQrels(
        _TextColumn.from_values(qrels.qid),
        _RowText.from_values(qrels.docno),
        np.asarray(qrels.relevance, np.float64),
        np.asarray(qrels.line),
        qrels.source,
    )


def _parsed_run(run: Run) -> _ParsedRun:
    if run._parsed is not None:
        return run._parsed
    return _ParsedRun(
        _TextColumn.from_values(run.qid),
        _RowText.from_values(run.docno),
        np.asarray(run.score, np.float64),
        None,
        run.runid,
        np.asarray(run.line),
        run.source,
    )


def trec_arrays(
    qrels: Qrels,
    run: Run,
    *,
    complete: bool = False,
    max_docs_per_query: int | None = None,
) -> TrecArrays:
    """Join judgments and a run into per-row arrays, following trec_eval's rules.

    - Queries absent from the qrels are ignored.
    - Without ``complete``, queries the run does not return are ignored too; with
      ``complete=True`` (trec_eval's ``-c``) they are kept as groups whose rows are
      all not retrieved, so they score 0 and count in the mean.
    - Within a query, documents are ranked by score descending, ties broken by docno
      descending (string order); the run's rank column is not used.
    - A retrieved document without a judgment has grade 0; negative grades (trec_eval:
      "in the pool, not judged") become 0 as well.

    The rows come out in trec_eval's order, so ``ties="stable"`` (keep input order
    among equal scores) reproduces trec_eval exactly.

    Parameters
    ----------
    qrels : Qrels
        From :func:`read_qrels`.
    run : Run
        From :func:`read_run`.
    complete : bool, default=False
        Keep judged queries that the run does not return (trec_eval ``-c``).
    max_docs_per_query : int or None, default=None
        Keep only the first ``max_docs_per_query`` documents of each query after
        ranking (trec_eval ``-M``); the judged documents cut off become rows that
        are not retrieved. ``None`` keeps every document, 0 none.

    Returns
    -------
    TrecArrays
        ``y_true``, ``y_score``, ``groups``, ``retrieved``, ``docno`` and ``rank``.

    Examples
    --------
    >>> import io
    >>> from sklearn_rank.io import read_qrels, read_run, trec_arrays
    >>> qrels = read_qrels(io.StringIO("q1 0 a 1\\nq1 0 b 0\\nq1 0 z 2\\nq9 0 x 1\\n"))
    >>> run = read_run(io.StringIO(
    ...     "q1 Q0 a 1 0.5 r\\nq1 Q0 c 2 0.5 r\\nq1 Q0 b 3 0.9 r\\nq5 Q0 a 1 1.0 r\\n"
    ... ))
    >>> t = trec_arrays(qrels, run)
    >>> t.docno.tolist()  # b first (0.9); a and c tie at 0.5: docno descending
    ['b', 'c', 'a', 'z']
    >>> t.y_true.tolist()  # c is unjudged: 0; z is judged but not retrieved
    [0.0, 0.0, 1.0, 2.0]
    >>> t.retrieved.tolist(), t.rank.tolist()
    ([True, True, True, False], [1, 2, 3, 0])
    >>> trec_arrays(qrels, run, complete=True).groups.tolist()  # q9 kept with -c
    ['q1', 'q1', 'q1', 'q1', 'q9']
    """
    _check_max_docs(max_docs_per_query)
    joined = _join(_parsed_qrels(qrels), _parsed_run(run), complete, max_docs_per_query)
    return _to_arrays(joined)


def load_trec(
    qrels: str | os.PathLike[str] | IO[Any],
    run: str | os.PathLike[str] | IO[Any],
    *,
    complete: bool = False,
    max_docs_per_query: int | None = None,
) -> TrecArrays:
    """Read a qrels and a run file and join them (:func:`trec_arrays`).

    Parameters
    ----------
    qrels, run : str, path-like or file-like
        The judgments and the run.
    complete : bool, default=False
        Keep judged queries that the run does not return (trec_eval ``-c``).
    max_docs_per_query : int or None, default=None
        Keep only the top documents of each query (trec_eval ``-M``).

    Returns
    -------
    TrecArrays

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.io import load_trec
    >>> folder = tempfile.mkdtemp()
    >>> qrels_path = os.path.join(folder, "qrels.txt")
    >>> run_path = os.path.join(folder, "run.txt")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("301 0 doc-a 1\\n301 0 doc-b 0\\n")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("301 Q0 doc-b 1 3.0 mine\\n301 Q0 doc-a 2 2.0 mine\\n")
    >>> t = load_trec(qrels_path, run_path)
    >>> t.groups.tolist(), t.docno.tolist(), t.y_true.tolist(), t.y_score.tolist()
    (['301', '301'], ['doc-b', 'doc-a'], [0.0, 1.0], [3.0, 2.0])
    """
    # The columnar path (no per-row strings until the result's own).
    _check_max_docs(max_docs_per_query)
    joined = join_columns(
        read_qrels_columns(qrels),
        read_run_columns(run),
        complete=complete,
        max_docs_per_query=max_docs_per_query,
    )
    return joined.to_arrays()
