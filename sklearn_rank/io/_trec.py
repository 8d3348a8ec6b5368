"""Readers for TREC relevance judgments (qrels) and run files.

Both formats are whitespace-separated text, one judgment or one retrieved document
per line:

- qrels: ``qid iter docno rel`` (``iter`` is ignored),
- run: ``qid Q0 docno rank score runid`` (``Q0`` is ignored; fields after ``runid``
  are ignored, as trec_eval does).

Blank lines and lines whose first field starts with ``#`` are skipped. Files are
split into byte spans by numpy passes (:mod:`._text`); a run of a million lines
reads in about 0.15 s without pandas. Query ids become integer codes; document
ids stay spans with a 64-bit hash each, and duplicates, the join and trec_eval's
order come from sorts of packed integer keys (every hash match is confirmed byte
for byte).

:func:`trec_arrays` joins a qrels and a run into the flat per-row arrays that every
metric of this package takes, following trec_eval's rules (see its docstring).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from .._params import CUTOFF, check_param
from . import _text

__all__ = [
    "Qrels",
    "Run",
    "TrecArrays",
    "load_trec",
    "read_qrels",
    "read_run",
    "trec_arrays",
]

_LAYOUT = {
    "qrels": "qid iter docno rel",
    "run": "qid Q0 docno rank score runid",
}


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


# --------------------------------------------------------------------------- columns


def _padded(encoded: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A buffer holding the strings one after the other (then ``PAD`` zero
    bytes), and each string's span."""
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    ends = np.cumsum(lengths)
    buf = np.zeros(int(ends[-1]) + _text.PAD if ends.size else _text.PAD, np.uint8)
    buf[: buf.size - _text.PAD] = np.frombuffer(b"".join(encoded), np.uint8)
    return buf, ends - lengths, ends


class _Spans:
    """Byte spans ``buf[starts[i]:ends[i]]`` and their 64-bit hashes."""

    buf: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    _hashes: np.ndarray | None = None

    @property
    def hashes(self) -> np.ndarray:
        """The 64-bit hash of each span (computed once)."""
        if self._hashes is None:
            self._hashes = _text.hash_spans(self.buf, self.starts, self.ends)
        return self._hashes


class _TextColumn(_Spans):
    """A column of strings as integer codes plus the bytes of each distinct value.

    ``codes[i]`` numbers row i's string; ``buf[starts[c]:ends[c]]`` is the UTF-8 of
    code ``c``. Text is decoded only where it is needed.
    """

    def __init__(self, codes, buf, starts, ends):
        self.codes, self.buf, self.starts, self.ends = codes, buf, starts, ends
        self._hashes = None

    @classmethod
    def from_fields(cls, fields: _text.Fields, column: int) -> _TextColumn:
        starts, ends = fields.starts[column], fields.ends[column]
        codes, first = _text.factorize(fields.buf, starts, ends)
        return cls(codes, fields.buf, starts[first], ends[first])

    @classmethod
    def from_values(cls, values: Any) -> _TextColumn:
        """From any array of ids (their ``str``), e.g. a table column."""
        table: dict[str, int] = {}
        codes = np.fromiter(
            (table.setdefault(str(v), len(table)) for v in np.asarray(values).tolist()),
            np.int64,
            len(values),
        )
        return cls.from_codes(codes, list(table))

    @classmethod
    def from_codes(cls, codes: np.ndarray, uniques: list[str]) -> _TextColumn:
        buf, starts, ends = _padded([u.encode("utf-8") for u in uniques])
        return cls(np.asarray(codes, np.int64), buf, starts, ends)

    @property
    def n_unique(self) -> int:
        return int(self.starts.size)

    def text(self, codes: np.ndarray | None = None) -> list[str]:
        """The distinct strings (or those of ``codes``)."""
        if codes is None:
            return _text.decode(self.buf, self.starts, self.ends)
        return _text.decode(self.buf, self.starts[codes], self.ends[codes])

    def strings(self) -> np.ndarray:
        """One Python str per row (an object array: memory grows with the data,
        not with the longest string)."""
        return np.array(self.text(), dtype=object)[self.codes]


class _RowText(_Spans):
    """A column of strings kept as the byte span of every row, not factorized:
    document ids are joined and checked through 64-bit hashes of the spans
    (every hash match is confirmed byte for byte), and decoded only for ties."""

    def __init__(self, buf, starts, ends):
        self.buf, self.starts, self.ends = buf, starts, ends
        self._hashes = None

    @classmethod
    def from_fields(cls, fields: _text.Fields, column: int) -> _RowText:
        return cls(fields.buf, fields.starts[column], fields.ends[column])

    @classmethod
    def from_values(cls, values: Any) -> _RowText:
        """From any array of ids (their ``str``); equal ids share their bytes."""
        column = _TextColumn.from_values(values)
        codes = column.codes
        return cls(column.buf, column.starts[codes], column.ends[codes])

    def __len__(self) -> int:
        return int(self.starts.size)

    def factorized(self) -> _TextColumn:
        codes, first = _text.factorize(self.buf, self.starts, self.ends, False)
        return _TextColumn(codes, self.buf, self.starts[first], self.ends[first])

    @property
    def n_unique(self) -> int:
        return self.factorized().n_unique

    def text(self, rows: np.ndarray | None = None) -> list[str]:
        """The strings of ``rows`` (all rows by default)."""
        if rows is None:
            return _text.decode(self.buf, self.starts, self.ends)
        return _text.decode(self.buf, self.starts[rows], self.ends[rows])

    def raw(self, row: int) -> bytes:
        return self.buf[int(self.starts[row]) : int(self.ends[row])].tobytes()

    def strings(self) -> np.ndarray:
        """One Python str per row (an object array), decoded row by row: no
        factorization, which costs more than it saves for ids that rarely repeat."""
        out = np.empty(len(self), dtype=object)
        out[:] = self.text()
        return out


_MIX = np.uint64(0xD6E8FEB86659FD93)


def _row_keys(qcodes: np.ndarray, qhash: np.ndarray, docno: _RowText) -> np.ndarray:
    """A 64-bit key of each row's (query, document): equal pairs, equal keys."""
    with np.errstate(over="ignore"):
        keys = qhash[qcodes] * _MIX
        keys ^= docno.hashes
        keys *= _text._P1
        keys ^= keys >> np.uint64(31)
    return keys


def _merge(a: _TextColumn, b: _TextColumn) -> tuple[np.ndarray, np.ndarray, int]:
    """Map the distinct values of two columns onto one numbering."""
    ha, hb = a.hashes, b.hashes
    _, first, inverse = np.unique(
        np.concatenate([ha, hb]), return_index=True, return_inverse=True
    )
    inverse = inverse.reshape(-1)
    map_a, map_b = inverse[: ha.size], inverse[ha.size :]
    # Counting, not sorting: a code seen twice within one column is a collision.
    distinct_a = map_a.size == 0 or np.bincount(map_a).max() <= 1
    distinct_b = map_b.size == 0 or np.bincount(map_b).max() <= 1
    # Only a value of b may share a code with a value of a (each column's values
    # are distinct): check those pairs byte for byte.
    shared = first[map_b] < ha.size
    same = distinct_a and distinct_b
    if same and shared.any():
        rep = first[map_b[shared]]
        la, lb = a.ends[rep] - a.starts[rep], b.ends[shared] - b.starts[shared]
        same = np.array_equal(la, lb) and _text._same_bytes(
            a.buf, a.starts[rep], b.buf, b.starts[shared], lb
        )
    if not same:  # a 64-bit hash collision: merge through the text
        table: dict[str, int] = {}
        map_a = np.array([table.setdefault(t, len(table)) for t in a.text()], int)
        map_b = np.array([table.setdefault(t, len(table)) for t in b.text()], int)
        return map_a.astype(np.int64), map_b.astype(np.int64), len(table)
    return map_a.astype(np.int64), map_b.astype(np.int64), int(first.size)


# --------------------------------------------------------------------------- parsing


def _parse(source: Any, kind: str, wanted: list[int]) -> _text.Fields:
    buf, name = _text.read_buffer(source)
    _text.check_utf8_buffer(buf, name)
    n_fields, exact = (4, True) if kind == "qrels" else (6, False)
    return _text.split_fields(buf, name, n_fields, exact, wanted, _LAYOUT[kind])


# A key table packs, for each row, its query code (the file's own numbering), the
# top bits of its docno hash and its row index into one integer, and sorts those:
# one sort of plain integers (no argsort; fast on a file grouped by query, whose
# codes then come in order) finds repeated (query, document) pairs and serves the
# join's binary search.
_MIN_HASH_BITS = 16
_MIN_SCORE_BITS = 16  # trec_eval's order: fewer score bits in the key, two sorts


@dataclass
class _KeyTable:
    packed: np.ndarray  # sorted uint64: query code | docno hash bits | row
    row_bits: int
    hash_bits: int

    def rows(self, at: Any) -> np.ndarray:
        """The row index of the entries ``at``."""
        mask = np.uint64((1 << self.row_bits) - 1)
        return (self.packed[at] & mask).astype(np.intp)


def _key_table(qid: _TextColumn, docno: _RowText) -> _KeyTable | None:
    """The rows' sorted key table; None when the bits do not fit."""
    n = qid.codes.size
    row_bits = max(1, (n - 1).bit_length())
    query_bits = max(1, (qid.n_unique - 1).bit_length())
    hash_bits = 64 - row_bits - query_bits
    if hash_bits < _MIN_HASH_BITS:
        return None
    packed = qid.codes.astype(np.uint64)
    packed <<= np.uint64(64 - query_bits)
    bits = docno.hashes >> np.uint64(64 - hash_bits)
    bits <<= np.uint64(row_bits)
    packed |= bits
    bits[:] = np.arange(n, dtype=np.uint64)
    packed |= bits
    del bits
    grouped = n < 2 or bool((qid.codes[1:] >= qid.codes[:-1]).all())
    packed.sort(kind="stable" if grouped else None)
    return _KeyTable(packed, row_bits, hash_bits)


def _check_unique(
    qid: _TextColumn, docno: _RowText, lines: np.ndarray, name: str
) -> _KeyTable | None:
    """Raise on a document listed twice for one query, naming both lines.

    One sort of the rows' packed keys (:func:`_key_table`, returned for the
    join); rows whose key's high bits repeat are compared exactly, in file order
    (the message names the first repeat).
    """
    table = _key_table(qid, docno)
    if table is None:  # too many bits for one integer: unpacked keys
        keys = _row_keys(qid.codes, qid.hashes, docno)
        ranked = np.sort(keys)
        repeated = ranked[1:][ranked[1:] == ranked[:-1]]
        candidates = np.flatnonzero(np.isin(keys, repeated))
    else:
        differ = table.packed[1:] ^ table.packed[:-1]  # same high part: row bits
        differ >>= np.uint64(table.row_bits)
        repeat = np.flatnonzero(differ == 0)
        del differ
        if repeat.size == 0:
            return table
        candidates = np.sort(
            np.concatenate([table.rows(repeat), table.rows(repeat + 1)])
        )
        candidates = candidates[np.r_[True, candidates[1:] != candidates[:-1]]]
    seen: dict[tuple[int, bytes], int] = {}
    for row in candidates.tolist():
        pair = (int(qid.codes[row]), docno.raw(row))
        if pair not in seen:
            seen[pair] = row
            continue
        d = docno.text(np.array([row]))[0]
        q = qid.text(qid.codes[row : row + 1])[0]
        raise _text.error(
            name,
            int(lines[row]),
            f"duplicate document {d!r} for query {q!r} (first listed on line "
            f"{int(lines[seen[pair]])}); each document may appear once per query",
        )
    return table


@dataclass
class _ParsedQrels:
    qid: _TextColumn
    docno: _RowText
    relevance: np.ndarray
    line: np.ndarray
    source: str
    keys: _KeyTable | None = None  # from _check_unique


@dataclass
class _ParsedRun:
    qid: _TextColumn
    docno: _RowText
    score: np.ndarray
    rank: np.ndarray | None
    runid: str
    line: np.ndarray
    source: str
    keys: _KeyTable | None = None  # from _check_unique


def _parse_qrels(source: Any) -> _ParsedQrels:
    fields = _parse(source, "qrels", [0, 2, 3])
    relevance = _text.parse_numbers(fields, 2, "rel", float)
    qid, docno = _TextColumn.from_fields(fields, 0), _RowText.from_fields(fields, 1)
    keys = _check_unique(qid, docno, fields.line, fields.name)
    return _ParsedQrels(qid, docno, relevance, fields.line, fields.name, keys)


def _parse_run(source: Any, ranks: bool = True) -> _ParsedRun:
    """``ranks=False`` skips the rank column, which trec_eval ignores too."""
    fields = _parse(source, "run", [0, 2, 4, 3] if ranks else [0, 2, 4])
    score = _text.parse_numbers(fields, 2, "score", float)
    rank = None
    if ranks:
        hint = f" (are the columns in the order {_LAYOUT['run']}?)"
        rank = _text.parse_numbers(fields, 3, "rank", int, hint)
    qid, docno = _TextColumn.from_fields(fields, 0), _RowText.from_fields(fields, 1)
    keys = _check_unique(qid, docno, fields.line, fields.name)
    # The run tag of the last line (trec_eval keeps that one): only that line's
    # text is split for it.
    n = fields.line.size
    runid = (
        _text._line_text(fields.buf, int(fields.starts[0][-1])).split()[5] if n else ""
    )
    return _ParsedRun(qid, docno, score, rank, runid, fields.line, fields.name, keys)


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
    check_param(max_docs_per_query, "max_docs_per_query", "trec_arrays", CUTOFF)


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


def _query_codes(qrels: _ParsedQrels, run: _ParsedRun):
    """Query codes shared by both files, numbered in string order."""
    map_q, map_r, n = _merge(qrels.qid, run.qid)
    names = np.empty(n, dtype=object)
    names[map_q] = qrels.qid.text()
    names[map_r] = run.qid.text()
    order = np.argsort(names, kind="stable")
    renumber = np.empty(n, np.int64)
    renumber[order] = np.arange(n)
    qq = renumber[map_q][qrels.qid.codes]
    rq = renumber[map_r][run.qid.codes]
    return qq, rq, names[order]


def _run_code_of(qrels: _ParsedQrels, run: _ParsedRun, qq, rq, qrels_rows, run_rows):
    """The run file's own query code of each kept qrels row (-1: none)."""
    n = int(max(qq.max(initial=-1), rq.max(initial=-1))) + 1
    to_run = np.full(n, -1, np.int64)
    to_run[rq] = run.qid.codes[run_rows]
    return to_run[qq]


def _descending_key(s: np.ndarray) -> np.ndarray:
    """Unsigned keys whose ascending order is the descending order of the finite
    floats ``s`` (equal floats, 0.0 and -0.0 included, give equal keys)."""
    bits = (s + 0.0).view(np.uint64)  # -0.0 + 0.0 is 0.0
    # Non-negative: flip all bits but the sign; negative: keep them as they are.
    flip = (bits >> np.uint64(63)) - np.uint64(1)
    flip >>= np.uint64(1)
    bits ^= flip
    return bits


def _group_pass(by_score: np.ndarray, q: np.ndarray, n_q: int) -> np.ndarray:
    """Stable reorder of ``by_score`` by query code (radix passes on 16 bits)."""
    if n_q <= 1 << 16:
        return by_score[np.argsort(q[by_score].astype(np.uint16), kind="stable")]
    halves = q.astype(np.uint32)[by_score].view(np.uint16).reshape(-1, 2)
    low_half, high_half = (0, 1) if np.little_endian else (1, 0)
    low = np.argsort(halves[:, low_half], kind="stable")
    high = np.argsort(halves[low, high_half], kind="stable")
    return by_score[low[high]]


def _trec_order(
    q: np.ndarray,
    s: np.ndarray,
    rows: np.ndarray,
    docno: _RowText,
    file_q: np.ndarray | None = None,
):
    """trec_eval's ranking: query, score descending, then docno descending.

    One sort of plain integers packing a query code, the top bits of the
    score's order key and the row index. Rows whose query and truncated score
    agree are then ordered by their exact score, and rows whose scores tie by
    their docno text (decoded for those rows only).

    ``file_q``, the run file's own query codes (in order of appearance), leads
    the packed key when given: a file grouped by query gives a key already in
    query order, which the (stable, run-aware) sort takes fast; the query
    blocks are then put in the order of ``q``.
    """
    n = q.size
    if n == 0:
        return np.zeros(0, np.intp)
    lead = q if file_q is None else file_q
    row_bits = max(1, (n - 1).bit_length())
    query_bits = max(1, int(lead.max()).bit_length())
    score_bits = 64 - row_bits - query_bits
    if score_bits < _MIN_SCORE_BITS:  # huge inputs: full score key, then query
        order = _group_pass(np.argsort(_descending_key(s)), q, int(q.max()) + 1)
        return _order_ties(order, q, s, rows, docno)
    packed = lead.astype(np.uint64) << np.uint64(64 - query_bits)
    packed |= (_descending_key(s) >> np.uint64(64 - score_bits)) << np.uint64(row_bits)
    packed |= np.arange(n, dtype=np.uint64)
    grouped = bool((lead[1:] >= lead[:-1]).all())
    packed.sort(kind="stable" if grouped else None)
    order = (packed & np.uint64((1 << row_bits) - 1)).astype(np.intp)
    differ = packed[1:] ^ packed[:-1]  # equal high parts: only row bits differ
    differ >>= np.uint64(row_bits)
    merged = differ == 0
    del differ, packed
    if merged.any():
        # Rows sharing a truncated key: order them by their exact score.
        in_run = np.r_[merged, False] | np.r_[False, merged]
        pos = np.flatnonzero(in_run)
        run = np.cumsum(np.r_[True, ~merged])[pos]
        sub = order[pos]
        order[pos] = sub[np.lexsort((-s[sub], run))]
        order = _order_ties(order, q, s, rows, docno, pos)
    if file_q is not None:
        order = _blocks_in_order(order, q)
    return order


def _blocks_in_order(order: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``order`` with its blocks of equal ``q`` moved into ascending ``q``."""
    qo = q[order]
    starts = np.flatnonzero(np.r_[True, qo[1:] != qo[:-1]])
    block_q = qo[starts]
    if (block_q[1:] > block_q[:-1]).all():
        return order
    by_q = np.argsort(block_q)
    sizes = np.diff(np.r_[starts, qo.size])[by_q]
    # Position k of the new order reads old position start + (k - new start).
    new_starts = np.cumsum(sizes) - sizes
    shift = np.repeat(starts[by_q] - new_starts, sizes)
    return order[np.arange(qo.size) + shift]


def _order_ties(order, q, s, rows, docno, pos=None):
    """Rows with the same query and score, ordered by docno descending.

    ``pos``: the only positions of ``order`` where ties can be (None: any).
    """
    at = order if pos is None else order[pos]
    tie = (q[at[1:]] == q[at[:-1]]) & (s[at[1:]] == s[at[:-1]])
    if pos is not None:
        tie &= pos[1:] == pos[:-1] + 1
    if not tie.any():
        return order
    in_block = np.r_[tie, False] | np.r_[False, tie]
    where = np.flatnonzero(in_block)
    block = np.cumsum(np.r_[True, ~tie])[where]
    place = where if pos is None else pos[where]
    tied = rows[order[place]]
    starts, ends = docno.starts[tied], docno.ends[tied]
    words = _text.byte_order_words(docno.buf, starts, ends)
    if words is not None:  # descending bytes: every key complemented
        keys = [~(ends - starts).astype(np.uint64)] + [~w for w in words[::-1]]
        order[place] = order[place][np.lexsort((*keys, block))]
        return order
    names = np.array(docno.text(tied), dtype=object)  # ids over 32 bytes
    _, text_rank = np.unique(names, return_inverse=True)
    order[place] = order[place][np.lexsort((-text_rank.reshape(-1), block))]
    return order


@dataclass
class _Joined:
    """Rows of the join, retrieved ones first (grouped by query, in trec_eval's
    order), then the judged-but-not-retrieved ones."""

    y_true: np.ndarray
    y_score: np.ndarray
    qcode: np.ndarray  # query code per row, codes numbered in string order
    retrieved: np.ndarray
    rank: np.ndarray
    qids: np.ndarray  # the query id of each code
    judged: np.ndarray  # a qrels line with grade >= 0 (trec_eval -J keeps these)
    run_docs: tuple  # (docno column, codes) of retrieved rows, for text
    qrels_docs: tuple  # (docno column, codes) of the other rows

    def to_arrays(self) -> TrecArrays:
        """Public arrays, grouped by query, not-retrieved rows by docno."""
        n_run = int(self.rank.size)
        run_col, run_codes = self.run_docs
        qrels_col, qrels_codes = self.qrels_docs
        docno = np.array(
            run_col.text(run_codes) + qrels_col.text(qrels_codes), dtype=object
        )
        _, text_rank = np.unique(docno[n_run:], return_inverse=True)
        within = np.concatenate([self.rank, n_run + 1 + text_rank.reshape(-1)])
        final = np.lexsort((within, self.qcode))
        ranks = np.concatenate([self.rank, np.zeros(docno.size - n_run, np.int64)])
        return TrecArrays(
            y_true=self.y_true[final],
            y_score=self.y_score[final],
            groups=self.qids[self.qcode][final],
            retrieved=self.retrieved[final],
            docno=docno[final],
            rank=ranks[final],
            judged=self.judged[final],
        )


def _join(
    qrels: _ParsedQrels,
    run: _ParsedRun,
    complete: bool,
    max_docs_per_query: int | None,
) -> _Joined:
    """trec_eval's join of a qrels and a run (see :func:`trec_arrays`)."""
    qq, rq, qids = _query_codes(qrels, run)
    n_q = qids.size
    # Run rows of judged queries; qrels rows of the queries the run returns.
    judged = np.bincount(qq, minlength=n_q) > 0
    run_rows = np.flatnonzero(judged[rq])
    rq, rs = rq[run_rows], run.score[run_rows]
    if complete:
        qrels_rows = np.arange(qq.size)
    else:
        qrels_rows = np.flatnonzero((np.bincount(rq, minlength=n_q) > 0)[qq])
    qq = qq[qrels_rows]
    raw = qrels.relevance[qrels_rows]
    qr = np.maximum(raw, 0.0)
    rq, rs, run_rows, rank = _rank_and_cut(
        rq, rs, run_rows, run.docno, max_docs_per_query, run.qid.codes[run_rows]
    )
    # One lookup of each judgment's position (1-based, exact in float64; 0: no
    # qrels line) gives both the grade and the judged flag of every run row.
    position = np.arange(1, qq.size + 1, dtype=np.float64)
    found, missing = _lookup(qrels, run, qq, qrels_rows, position, rq, run_rows)
    found = found.astype(np.intp)
    matched = found > 0
    y_run = np.where(matched, qr[found - 1], 0.0) if qq.size else found * 0.0
    # Judged: a qrels line with a grade >= 0 (trec_eval: negative = unjudged).
    judged_run = matched & (raw[found - 1] >= 0) if qq.size else matched
    floor = float(rs.min()) if rs.size else 0.0
    floor -= max(1.0, abs(floor))
    m = int(missing.sum())
    return _Joined(
        y_true=np.concatenate([y_run, qr[missing]]),
        y_score=np.concatenate([rs, np.full(m, floor)]),
        qcode=np.concatenate([rq, qq[missing]]),
        retrieved=np.concatenate([np.ones(rq.size, bool), np.zeros(m, bool)]),
        rank=rank.astype(np.int64, copy=False),
        qids=qids,
        judged=np.concatenate([judged_run, raw[missing] >= 0]),
        run_docs=(run.docno, run_rows),
        qrels_docs=(qrels.docno, qrels_rows[missing]),
    )


def _rank_and_cut(rq, rs, rows, docno, max_docs_per_query, file_q=None):
    """Run rows in trec_eval's order with their rank, cut at max_docs_per_query."""
    order = _trec_order(rq, rs, rows, docno, file_q)
    rq, rs, rows = rq[order], rs[order], rows[order]
    starts = np.flatnonzero(np.r_[True, rq[1:] != rq[:-1]]) if rq.size else rq
    sizes = np.diff(np.r_[starts, rq.size])
    rank = np.arange(rq.size) - np.repeat(starts, sizes) + 1
    if max_docs_per_query is not None:
        cut = rank <= max_docs_per_query
        rq, rs, rows, rank = (a[cut] for a in (rq, rs, rows, rank))
    return rq, rs, rows, rank


def _lookup(qrels, run, qq, qrels_rows, qr, rq, run_rows):
    """(grade of each run row, mask of qrels rows the run did not retrieve).

    The kept judgments' keys, written in the run's key table layout (the run
    file's query code, docno hash bits), are looked up in that table by binary
    search; every match is confirmed byte for byte. Keys shared by several run
    rows (hash bits that collide) are resolved exactly.
    """
    y_run = np.zeros(rq.size)
    missing = np.ones(qq.size, bool)
    if qq.size == 0 or rq.size == 0:
        return y_run, missing
    table = run.keys if run.keys is not None else _key_table(run.qid, run.docno)
    if table is None:
        return _lookup_exact(qrels, run, qq, qrels_rows, qr, rq, run_rows)
    code = _run_code_of(qrels, run, qq, rq, qrels_rows, run_rows)
    # Position of each original run row among the kept ones (-1: dropped).
    r_pos = np.full(len(run.docno), -1, np.intp if rq.size >= 2**31 else np.int32)
    r_pos[run_rows] = np.arange(run_rows.size)
    wanted = np.flatnonzero(code >= 0)  # judgments of queries the run has
    hashes = qrels.docno.hashes[qrels_rows[wanted]]
    high = code[wanted].astype(np.uint64) << np.uint64(table.hash_bits)
    high |= hashes >> np.uint64(64 - table.hash_bits)
    by_high = np.argsort(high, kind="stable")
    wanted, high = wanted[by_high], high[by_high]
    # The table is sorted by (high part, row): the rows of one high part lie
    # between the packed values high << row_bits and (high + 1) << row_bits.
    shift = np.uint64(table.row_bits)
    left = np.searchsorted(table.packed, high << shift, "left")
    count = np.searchsorted(table.packed, (high + np.uint64(1)) << shift, "left")
    count -= left
    one = np.flatnonzero(count == 1)
    i, j = wanted[one], r_pos[table.rows(left[one])]
    kept = j >= 0
    i, j = i[kept], j[kept]
    extra_i, extra_j = [i], [j]
    for k in np.flatnonzero(count > 1).tolist():  # colliding hash bits: rare
        js = r_pos[table.rows(slice(left[k], left[k] + count[k]))]
        js = js[js >= 0]
        extra_i.append(np.full(js.size, wanted[k]))
        extra_j.append(js)
    i, j = np.concatenate(extra_i), np.concatenate(extra_j)
    d_run, d_qrels = run.docno, qrels.docno
    r_at, q_at = run_rows[j], qrels_rows[i]
    same = (rq[j] == qq[i]) & _text.same_spans(
        d_run.buf,
        d_run.starts[r_at],
        d_run.ends[r_at],
        d_qrels.buf,
        d_qrels.starts[q_at],
        d_qrels.ends[q_at],
    )
    i, j = i[same], j[same]
    y_run[j] = qr[i]
    missing[i] = False
    return y_run, missing


def _lookup_exact(qrels, run, qq, qrels_rows, qr, rq, run_rows):
    """:func:`_lookup` through a dict of (query, document bytes): slow, exact."""
    table: dict[tuple[int, bytes], int] = {}
    for i, (q, row) in enumerate(zip(qq.tolist(), qrels_rows.tolist(), strict=True)):
        table.setdefault((q, qrels.docno.raw(row)), i)
    y_run = np.zeros(rq.size)
    missing = np.ones(qq.size, bool)
    for j, (q, row) in enumerate(zip(rq.tolist(), run_rows.tolist(), strict=True)):
        i = table.get((q, run.docno.raw(row)))
        if i is not None:
            y_run[j] = qr[i]
            missing[i] = False
    return y_run, missing


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
        are not retrieved. ``None`` keeps every document.

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
    return joined.to_arrays()


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
    return trec_arrays(
        read_qrels(qrels),
        read_run(run),
        complete=complete,
        max_docs_per_query=max_docs_per_query,
    )
