"""Readers for TREC relevance judgments (qrels) and run files.

Both formats are whitespace-separated text, one judgment or one retrieved document
per line:

- qrels: ``qid iter docno rel`` (``iter`` is ignored),
- run: ``qid Q0 docno rank score runid`` (``Q0`` is ignored; fields after ``runid``
  are ignored, as trec_eval does).

Blank lines and lines whose first field starts with ``#`` are skipped. Files are
parsed in chunks with plain ``str.split`` and numpy conversions, so a run of a
million lines reads in a few seconds without pandas.

:func:`trec_arrays` joins a qrels and a run into the flat per-row arrays that every
metric of this package takes, following trec_eval's rules (see its docstring).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

__all__ = [
    "Qrels",
    "Run",
    "TrecArrays",
    "load_trec",
    "read_qrels",
    "read_run",
    "trec_arrays",
]

_BLOCK_BYTES = 1 << 24


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments read from a TREC qrels file.

    Attributes
    ----------
    qid, docno : ndarray of str, shape (n,)
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

    def __len__(self) -> int:
        return int(self.qid.shape[0])


@dataclass(frozen=True, eq=False)
class Run:
    """Retrieved documents read from a TREC run file.

    Attributes
    ----------
    qid, docno : ndarray of str, shape (n,)
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
    groups : ndarray of str
        The query id of each row.
    retrieved : ndarray of bool
        False for judged documents that the run did not return (they count in the
        number of relevant documents and in the ideal DCG only).
    docno : ndarray of str
        The document id of each row.
    rank : ndarray of int64
        trec_eval's rank (1-based) of retrieved rows; 0 for rows not retrieved.
    """

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray
    retrieved: np.ndarray
    docno: np.ndarray
    rank: np.ndarray

    def __len__(self) -> int:
        return int(self.y_true.shape[0])


# --------------------------------------------------------------------------- parsing


def _open_binary(source: Any) -> tuple[IO[bytes], str, bool]:
    """Return (binary stream, display name, whether we opened it)."""
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        if isinstance(source, io.TextIOBase):
            # A text stream: encode what it holds; the caller's stream stays open.
            return io.BytesIO(source.read().encode("utf-8")), name, False
        return source, name, False
    path = os.fspath(source)
    return open(path, "rb"), os.fsdecode(path), True


def _iter_blocks(stream: IO[bytes]):
    """Yield blocks of whole lines, about ``_BLOCK_BYTES`` each (bounded memory)."""
    rest = b""
    while True:
        data = stream.read(_BLOCK_BYTES)
        if not data:
            if rest:
                yield rest
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        rest = data[cut:]
        yield data[:cut]


_LAYOUT = {
    "qrels": "qid iter docno rel",
    "run": "qid Q0 docno rank score runid",
}

_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True  # what C's isspace and bytes.split use


def _split_block(block: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Find the fields of a block of lines, vectorized over its bytes.

    Returns the buffer, the (start, end) byte offsets of every field, the number of
    fields of each line, the index of each line's first field, and whether each
    line is a comment (first field starts with ``#``).
    """
    buf = np.frombuffer(block, dtype=np.uint8)
    word = ~_WHITESPACE[buf]
    edges = np.flatnonzero(np.diff(np.r_[False, word, False]))
    starts, ends = edges[::2], edges[1::2]
    newlines = np.flatnonzero(buf == 10)
    n_lines = newlines.size + (0 if block.endswith(b"\n") else 1)
    counts = np.bincount(np.searchsorted(newlines, starts), minlength=n_lines)
    first = np.cumsum(counts) - counts
    comment = np.zeros(n_lines, dtype=bool)
    has = counts > 0
    comment[has] = buf[starts[first[has]]] == ord("#")
    return buf, np.stack([starts, ends]), counts, first, comment


def _gather(buf: np.ndarray, spans: np.ndarray, fields: np.ndarray) -> np.ndarray:
    """Copy the given fields out of ``buf`` into a fixed-width bytes array."""
    start = spans[0, fields]
    length = spans[1, fields] - start
    width = max(int(length.max()), 1) if length.size else 1
    table = np.zeros((fields.size, width), dtype=np.uint8)
    for w in range(width):  # one vectorized gather per character position
        live = length > w
        table[live, w] = buf[start[live] + w]
    return table.view(f"S{width}").ravel()


def _line_text(block: bytes, i: int) -> str:
    return block.split(b"\n")[i].decode("utf-8", "replace")


def _decode(column: np.ndarray) -> np.ndarray:
    """Bytes column -> str column (fast for ASCII, exact for UTF-8)."""
    try:
        return column.astype(str)
    except UnicodeDecodeError:
        return np.array([v.decode("utf-8") for v in column.tolist()], dtype=str)


def _parse_table(
    source: Any, kind: str, n_fields: int, exact: bool
) -> tuple[list[np.ndarray], np.ndarray, str]:
    """Split a TREC text file into ``n_fields`` bytes columns and line numbers.

    ``exact`` requires exactly ``n_fields`` fields per line (qrels); otherwise more
    are allowed and ignored (runs). Blank lines and comment lines are skipped.
    """
    stream, name, owned = _open_binary(source)
    columns: list[list[np.ndarray]] = [[] for _ in range(n_fields)]
    line_numbers: list[np.ndarray] = []
    first_line = 1
    try:
        for block in _iter_blocks(stream):
            buf, spans, counts, first, comment = _split_block(block)
            keep = (counts > 0) & ~comment
            bad = keep & ((counts != n_fields) if exact else (counts < n_fields))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise _format_error(
                    name,
                    first_line + i,
                    f"expected {'' if exact else 'at least '}{n_fields} "
                    f"whitespace-separated fields ({_LAYOUT[kind]}), "
                    f"found {counts[i]}",
                    _line_text(block, i),
                )
            idx = np.flatnonzero(keep)
            if idx.size:
                for j in range(n_fields):
                    columns[j].append(_gather(buf, spans, first[idx] + j))
                line_numbers.append(idx + first_line)
            first_line += counts.size
    finally:
        if owned:
            stream.close()
    cols = [np.concatenate(c) if c else np.array([], dtype=bytes) for c in columns]
    lines = np.concatenate(line_numbers) if line_numbers else np.array([], np.int64)
    return cols, lines.astype(np.int64), name


def _format_error(
    name: str, line: int, what: str, text: str | None = None
) -> ValueError:
    msg = f"{name}, line {line}: {what}"
    if text is not None:
        msg += f": {text.rstrip()!r}"
    return ValueError(msg)


def _to_float(
    values: np.ndarray, lines: np.ndarray, name: str, field: str
) -> np.ndarray:
    """Parse a string column as finite floats; name the first bad line."""
    try:
        out = values.astype(np.float64)
    except ValueError:
        out = None
    if out is not None:
        bad = ~np.isfinite(out)
        if not bad.any():
            return out
        i = int(np.flatnonzero(bad)[0])
    else:
        i = next(i for i, v in enumerate(values) if not _is_float(v))
    raise _format_error(
        name,
        int(lines[i]),
        f"the {field} field must be a finite number, got {_text(values[i])!r}",
    )


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _is_float(text: bytes | str) -> bool:
    try:
        return bool(np.isfinite(float(text)))
    except ValueError:
        return False


def _to_int(values: np.ndarray, lines: np.ndarray, name: str, field: str) -> np.ndarray:
    """Parse a string column as int64; name the first bad line."""
    try:
        return values.astype(np.int64)
    except (ValueError, OverflowError):
        pass
    for i, v in enumerate(values):
        try:
            np.int64(int(v))
        except (ValueError, OverflowError):
            raise _format_error(
                name,
                int(lines[i]),
                f"the {field} field must be an integer, got {_text(v)!r} (are the "
                f"columns in the order {_LAYOUT['run']}?)",
            ) from None
    return values.astype(np.int64)  # pragma: no cover (every value parsed above)


def _check_unique(
    qid: np.ndarray, docno: np.ndarray, lines: np.ndarray, name: str
) -> None:
    """Raise on a document listed twice for one query, naming both lines."""
    if qid.size < 2:
        return
    order = np.lexsort((lines, docno, qid))
    q, d = qid[order], docno[order]
    dup = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first, second = int(lines[order[i]]), int(lines[order[i + 1]])
        raise _format_error(
            name,
            second,
            f"duplicate document {str(d[i])!r} for query {str(q[i])!r} (first "
            f"listed on line {first}); each document may appear once per query",
        )


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
    (qid, _, docno, rel), lines, name = _parse_table(source, "qrels", 4, exact=True)
    relevance = _to_float(rel, lines, name, "rel")
    qid, docno = _decode(qid), _decode(docno)
    _check_unique(qid, docno, lines, name)
    return Qrels(qid=qid, docno=docno, relevance=relevance, line=lines, source=name)


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
    (qid, _, docno, rank, score, runid), lines, name = _parse_table(
        source, "run", 6, exact=False
    )
    scores = _to_float(score, lines, name, "score")
    ranks = _to_int(rank, lines, name, "rank")
    qid, docno = _decode(qid), _decode(docno)
    _check_unique(qid, docno, lines, name)
    tag = _text(runid[-1]) if runid.size else ""
    return Run(
        qid=qid,
        docno=docno,
        rank=ranks,
        score=scores,
        runid=tag,
        line=lines,
        source=name,
    )


# --------------------------------------------------------------------------- joining


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
    if max_docs_per_query is not None and (
        isinstance(max_docs_per_query, bool)
        or not isinstance(max_docs_per_query, int | np.integer)
        or max_docs_per_query < 1
    ):
        raise ValueError(
            "The 'max_docs_per_query' parameter of trec_arrays must be an int in the "
            f"range [1, inf) or None. Got {max_docs_per_query!r} instead."
        )
    judged_q = np.unique(qrels.qid)
    run_keep = np.isin(run.qid, judged_q)
    rq, rd, rs = run.qid[run_keep], run.docno[run_keep], run.score[run_keep]
    qrels_keep = np.ones(len(qrels), bool) if complete else np.isin(qrels.qid, rq)
    qq, qd = qrels.qid[qrels_keep], qrels.docno[qrels_keep]
    qr = np.maximum(qrels.relevance[qrels_keep], 0.0)

    # Integer codes for query and document strings (shared by run and qrels).
    _, q_code = np.unique(np.concatenate([rq, qq]), return_inverse=True)
    _, d_code = np.unique(np.concatenate([rd, qd]), return_inverse=True)
    n_run = rq.shape[0]
    rq_code, qq_code = q_code[:n_run], q_code[n_run:]
    rd_code, qd_code = d_code[:n_run], d_code[n_run:]

    # trec_eval's ranking: query, then score descending, then docno descending.
    order = np.lexsort((-rd_code, -rs, rq_code))
    rq_code, rd_code, rs, rq, rd = (
        rq_code[order],
        rd_code[order],
        rs[order],
        rq[order],
        rd[order],
    )
    starts = np.r_[0, np.flatnonzero(rq_code[1:] != rq_code[:-1]) + 1] if n_run else []
    sizes = np.diff(np.r_[starts, n_run]).astype(np.int64)
    rank = (
        np.arange(n_run, dtype=np.int64)
        - np.repeat(np.asarray(starts, dtype=np.int64), sizes)
        + 1
    )
    if max_docs_per_query is not None:
        cut = rank <= max_docs_per_query
        rq_code, rd_code, rs, rq, rd, rank = (
            a[cut] for a in (rq_code, rd_code, rs, rq, rd, rank)
        )
        n_run = rq.shape[0]

    # Look up each retrieved document's judgment; the rest of the qrels are rows
    # that were judged but not retrieved.
    n_docs = int(d_code.max()) + 1 if d_code.size else 1
    run_key = rq_code.astype(np.int64) * n_docs + rd_code
    qrels_key = qq_code.astype(np.int64) * n_docs + qd_code
    by_key = np.argsort(qrels_key, kind="stable")
    pos = np.searchsorted(qrels_key[by_key], run_key)
    pos_c = np.minimum(pos, max(qrels_key.shape[0] - 1, 0))
    hit = (pos < qrels_key.shape[0]) & (qrels_key[by_key][pos_c] == run_key)
    y_run = np.zeros(n_run)
    y_run[hit] = qr[by_key[pos_c[hit]]]
    missing = np.ones(qrels_key.shape[0], bool)
    missing[by_key[pos_c[hit]]] = False

    floor = float(rs.min()) if n_run else 0.0
    floor -= max(1.0, abs(floor))
    m = int(missing.sum())
    groups = np.concatenate([rq, qq[missing]])
    docno = np.concatenate([rd, qd[missing]])
    y_true = np.concatenate([y_run, qr[missing]])
    y_score = np.concatenate([rs, np.full(m, floor)])
    retrieved = np.concatenate([np.ones(n_run, bool), np.zeros(m, bool)])
    ranks = np.concatenate([rank, np.zeros(m, np.int64)])
    # Final row order: query, retrieved rows by rank, then the others by docno.
    within = np.concatenate([rank, n_run + 1 + qd_code[missing]])
    final = np.lexsort((within, np.concatenate([rq_code, qq_code[missing]])))
    return TrecArrays(
        y_true=y_true[final],
        y_score=y_score[final],
        groups=groups[final],
        retrieved=retrieved[final],
        docno=docno[final],
        rank=ranks[final],
    )


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
