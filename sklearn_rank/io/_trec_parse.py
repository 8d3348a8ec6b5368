"""Parsing of TREC qrels and run files into id columns (:mod:`._id_columns`).

The files are split into byte spans by numpy passes (:mod:`._text`); each parse
also checks that no document is listed twice for one query and keeps the sorted
key table of that check for the join (:mod:`._trec_join`).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._utils.memory import trim_heap
from . import _numbers, _text
from ._id_columns import _check_unique, _KeyTable, _RowText, _TextColumn

_LAYOUT = {
    "qrels": "qid iter docno rel",
    "run": "qid Q0 docno rank score runid",
    "ndeval_qrels": "topic subtopic docno judgment",
}


def _parse(
    source: Any,
    kind: str,
    wanted: list[int],
    progress=None,
    keep_bom=False,
    strict_utf8=True,
    n_threads=1,
) -> _text.Fields:
    buf, name = _text.read_buffer(source, progress, keep_bom)
    if strict_utf8:  # else ids are their bytes, as trec_eval reads them
        _text.check_utf8_buffer(buf, name)
    n_fields, exact = (6, False) if kind == "run" else (4, True)
    return _text.split_fields(
        buf, name, n_fields, exact, wanted, _LAYOUT[kind], progress, n_threads
    )


def _run_tag(fields: _text.Fields) -> str:
    """The last line's sixth field, its bytes kept (as :mod:`._spans` decodes)."""
    start = int(fields.starts[0][-1])
    stop = _text._next_line(fields.buf, start, fields.buf.size - _text.PAD)
    return (
        fields.buf[start:stop].tobytes().split()[5].decode("utf-8", "surrogateescape")
    )


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
    # (first row, row) of each document listed twice for a query, when the
    # check waits for the join's -M cut (trec_eval checks the top M only)
    repeats: list | None = None
    # That check still running on a second thread (a table run): the join
    # ranks the rows meanwhile and waits for it (settle) before reading
    # ``keys`` or ``repeats``.
    pending: Future | None = None

    def settle(self) -> None:
        """Wait for the duplicate check running beside the caller; its key
        table is kept (its error, if any, raised again at every call)."""
        if self.pending is None:
            return
        self.keys = self.pending.result()
        self.pending = None
        trim_heap()  # the check's temporaries, freed on its thread
        if self.keys is not None:  # the join reads the key table, not these
            self.docno._hashes = None


def _parse_qrels(
    source: Any, progress=None, keep_bom=False, strict_utf8=True, n_threads=1
) -> _ParsedQrels:
    """``progress(done, total)``: bytes read, then bytes split (optional);
    ``keep_bom``: a byte-order mark stays part of the first field (trec_eval);
    ``strict_utf8=False``: bytes that are not UTF-8 are kept (trec_eval);
    ``n_threads``: threads of the duplicate check and the copies of the ids
    (:mod:`._threads`; the same result at every count)."""
    fields = _parse(
        source, "qrels", [0, 2, 3], progress, keep_bom, strict_utf8, n_threads
    )
    relevance = _numbers.parse_numbers(fields, 2, "rel", float, reader="atol")
    qid = _TextColumn.from_fields(fields, 0)
    fields.starts[0] = fields.ends[0] = fields.starts[2] = fields.ends[2] = None
    docno = _RowText.from_fields(fields, 1)
    keys = _check_unique(qid, docno, fields.line, fields.name, None, n_threads)
    line, name = fields.line, fields.name
    del fields  # the spans of every field: only the ids' are kept
    qid, docno = _own_bytes(qid, docno, n_threads)
    return _ParsedQrels(qid, docno, relevance, line, name, keys)


def _own_bytes(
    qid: _TextColumn, docno: _RowText, n_threads: int = 1
) -> tuple[_TextColumn, _RowText]:
    """The id columns over buffers of their own bytes, when these take less than
    half the file's: the file's buffer is then freed before the join (a run's
    text is mostly scores, ranks and tags; memory); ``n_threads``: the
    documents' copy's."""
    buf = docno.buf
    if qid.buf is not buf:
        return qid, docno
    used = int((docno.ends - docno.starts).sum(dtype=np.int64))
    if 2 * used >= buf.size:
        return qid, docno
    return qid.compacted(), docno.compacted(n_threads)


def _parse_scores(fields: _text.Fields) -> np.ndarray:
    """The run's scores (field 2); their spans are freed as soon as read."""
    try:
        return _numbers.parse_numbers(fields, 2, "score", float, infinite=True)
    finally:
        fields.starts[2] = fields.ends[2] = None


def _parse_run(
    source: Any,
    ranks: bool = True,
    progress=None,
    keep_bom=False,
    strict_utf8=True,
    repeats_at_join=False,
    n_threads=1,
) -> _ParsedRun:
    """``ranks=False`` skips the rank column, which trec_eval ignores too;
    ``progress``, ``keep_bom``, ``strict_utf8`` and ``n_threads`` as for
    :func:`_parse_qrels`."""
    wanted = [0, 2, 4, 3] if ranks else [0, 2, 4]
    fields = _parse(source, "run", wanted, progress, keep_bom, strict_utf8, n_threads)
    # trec_eval reads scores with atof: 1e400 and inf are infinities. The
    # scores are parsed on a second thread while this one reads the ids and
    # sorts their key table (numpy releases the GIL in both): on two cores the
    # wall time of the shorter is saved.
    pool = ThreadPoolExecutor(max_workers=1)
    scores = pool.submit(_parse_scores, fields)
    try:
        rank = None
        if ranks:
            hint = f" (are the columns in the order {_LAYOUT['run']}?)"
            rank = _numbers.parse_numbers(fields, 3, "rank", int, hint)
        # The run tag of the last line (trec_eval keeps that one): only that
        # line's text is split for it.
        n = fields.line.size
        runid = _run_tag(fields) if n else ""
        qid = _TextColumn.from_fields(fields, 0)
        # Spans read: freed before the key table (memory: two arrays of n each).
        for j in (0, *range(3, len(wanted))):
            fields.starts[j] = fields.ends[j] = None
        docno = _RowText.from_fields(fields, 1)
        repeats: list | None = [] if repeats_at_join else None
        keys = _check_unique(qid, docno, fields.line, fields.name, repeats, n_threads)
    except BaseException:
        scores.result()  # a bad score comes first in the file's checks
        raise
    finally:
        pool.shutdown(wait=True)
        trim_heap()
    score = scores.result()
    if keys is not None:  # the join reads the key table, not the hashes
        docno._hashes = None  # (memory: recomputed if ever asked for)
    line, name = fields.line, fields.name
    del fields  # the spans of every field: only the ids' are kept
    qid, docno = _own_bytes(qid, docno, n_threads)
    return _ParsedRun(qid, docno, score, rank, runid, line, name, keys, repeats)
