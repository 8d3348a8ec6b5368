"""ndeval's qrels long form (``topic subtopic docno judgment``) and its join with
a TREC run into the arrays of :func:`sklearn_rank.evaluate_intents`.

The rules are those of ``ndeval.c`` (TREC Web track, version 4.5): topics,
subtopics and judgments are natural numbers, a judgment above 1 counts as 1
(binary per subtopic), a run's topic may carry a task prefix ending in ``-``
(``wt09-1`` is topic 1), the run is ranked by its rank column (or, with
``traditional``, by score descending then docno descending), ``depth`` keeps each
topic's first rows. The run is read by :func:`sklearn_rank.io.read_run`; the
qrels are split into fields by the same byte-span reader as the TREC qrels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from . import _numbers
from ._id_columns import _RowText
from ._trec import Run, read_run
from ._trec_parse import _parse

__all__ = ["NdevalArrays", "NdevalQrels", "ndeval_arrays", "read_ndeval_qrels"]

# ndeval's naturalNumber: decimal digits, at most 7 of them (its LARGE_ENOUGH).
_MAX_NATURAL = 1_000_009


@dataclass(frozen=True, eq=False)
class NdevalQrels:
    """Subtopic judgments read from an ndeval qrels file.

    Attributes
    ----------
    topic, subtopic : ndarray of int64, shape (n,)
        The topic and subtopic numbers.
    docno : ndarray of object (str), shape (n,)
        The document ids.
    judgment : ndarray of int64, shape (n,)
        The judgment as written (ndeval reads any value above 1 as 1).
    line : ndarray of int64, shape (n,)
        The 1-based line of each judgment in the source file.
    source : str
        The file name (or ``"<stream>"``), used in error messages.
    """

    topic: np.ndarray
    subtopic: np.ndarray
    docno: np.ndarray
    judgment: np.ndarray
    line: np.ndarray
    source: str = "<qrels>"

    def __len__(self) -> int:
        return int(self.topic.shape[0])


def _sorted_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct strings, ascending (code points: UTF-8's byte order, as
    ndeval's ``strcmp``), and each value's index among them: dict look-ups in C
    loops (numpy's sort of a unicode array is several times slower on document
    ids)."""
    items = values.tolist()
    distinct = sorted(dict.fromkeys(items))
    index = dict(zip(distinct, range(len(distinct)), strict=True))
    codes = np.fromiter(map(index.__getitem__, items), np.int64, len(items))
    names = np.empty(len(distinct), dtype=object)
    names[:] = distinct
    return names, codes


def _naturals(fields: Any, column: int, what: str) -> np.ndarray:
    """A column of natural numbers, as ndeval's ``naturalNumber`` reads them."""
    values = _numbers.parse_numbers(fields, column, what, int)
    bad = np.flatnonzero((values < 0) | (values > _MAX_NATURAL))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{fields.name}, line {int(fields.line[i])}: the {what} field must be a "
            f"natural number (0 to {_MAX_NATURAL}, as ndeval), got {int(values[i])}"
        )
    return values


def read_ndeval_qrels(source: str | os.PathLike[str] | IO[Any]) -> NdevalQrels:
    """Read an ndeval qrels file (``topic subtopic docno judgment``).

    This is the long form of intent (subtopic) judgments of the TREC Web track
    diversity task: one line per (topic, subtopic, document).

    Parameters
    ----------
    source : str, path-like or file-like
        The file name, or an open text/binary stream.

    Returns
    -------
    NdevalQrels
        The judgments in file order, with their line numbers.

    Raises
    ------
    ValueError
        On a line without exactly 4 fields, a topic, subtopic or judgment that
        is not a natural number, or a (topic, subtopic, docno) judged twice; the
        message gives the file name and the line number.

    Examples
    --------
    >>> import io
    >>> from sklearn_rank.io import read_ndeval_qrels
    >>> qrels = read_ndeval_qrels(io.StringIO("1 1 d1 1\\n1 2 d1 0\\n1 2 d2 1\\n"))
    >>> qrels.subtopic.tolist(), qrels.docno.tolist(), qrels.judgment.tolist()
    ([1, 2, 2], ['d1', 'd1', 'd2'], [1, 0, 1])
    >>> read_ndeval_qrels(io.StringIO("1 1 d1 1\\n1 x d2 1\\n"))
    Traceback (most recent call last):
    ...
    ValueError: <stream>, line 2: ...
    """
    fields = _parse(source, "ndeval_qrels", [0, 1, 2, 3])
    topic = _naturals(fields, 0, "topic")
    subtopic = _naturals(fields, 1, "subtopic")
    judgment = _naturals(fields, 3, "judgment")
    docno = _RowText.from_fields(fields, 2).strings()
    line = fields.line.astype(np.int64)
    if not topic.size:
        raise ValueError(f"{fields.name}: the qrels file is empty (ndeval refuses it)")
    _, codes = _sorted_codes(docno)
    key = np.stack([topic, subtopic, codes])
    order = np.lexsort(key[::-1])
    same = (np.diff(key[:, order], axis=1) == 0).all(axis=0)
    if same.any():
        i = int(order[1:][same][0])
        raise ValueError(
            f"{fields.name}, line {int(line[i])}: topic {int(topic[i])} subtopic "
            f"{int(subtopic[i])} document {docno[i]!r} is judged twice (ndeval "
            "would count it twice in MAP-IA's denominator)"
        )
    return NdevalQrels(topic, subtopic, docno, judgment, line, fields.name)


@dataclass(frozen=True, eq=False)
class NdevalArrays:
    """An ndeval qrels joined with a run: the inputs of
    :func:`sklearn_rank.evaluate_intents`.

    One row per (topic, document) in the union of the judged and the retrieved
    documents of the topics both files have, grouped by topic (ascending), then
    by docno (byte order: the greedy ideal breaks ties to the largest docno, as
    ndeval, by taking the last row).

    Attributes
    ----------
    y_true : ndarray of int8, shape (n_rows, n_subtopics)
        Binary relevance per (row, subtopic); column ``j`` is subtopic ``j``.
    y_score : ndarray of float64, shape (n_rows,)
        Minus the row's position in ndeval's ranking of the run (0 for rows not
        retrieved).
    groups : ndarray of int64, shape (n_rows,)
        The topic number of each row.
    retrieved : ndarray of bool, shape (n_rows,)
        False for judged documents the run did not return (within ``depth``).
    docno : ndarray of object (str), shape (n_rows,)
        The document id of each row.
    run_topics : ndarray of int64
        The run's topics, ascending (ndeval prints one line per run topic).
    n_qrels_topics : int
        Topics in the qrels (the mean's denominator under ndeval's ``-c``).
    runid : str
        The run tag of the run's first line (ndeval prints that one).
    """

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray
    retrieved: np.ndarray
    docno: np.ndarray
    run_topics: np.ndarray
    n_qrels_topics: int
    runid: str


def _run_topic(qid: str, source: str, line: int) -> int:
    """ndeval's ``parseTopic``: a topic number, after a prefix ending in ``-``."""
    digits = qid if qid[:1].isdigit() else qid.partition("-")[2]
    if digits.isascii() and digits.isdigit() and int(digits) <= _MAX_NATURAL:
        return int(digits)
    raise ValueError(
        f"{source}, line {line}: the topic field must be a natural number, "
        f"optionally after a prefix ending in '-' (as ndeval), got {qid!r}"
    )


def _run_order(run: Run, topic: np.ndarray, traditional: bool) -> np.ndarray:
    """The run's rows in ndeval's order: by topic, then rank (or score
    descending, then docno descending)."""
    if traditional:
        _, code = _sorted_codes(np.asarray(run.docno, dtype=object))
        return np.lexsort((-code, -np.asarray(run.score), topic))
    order = np.lexsort((run.rank, topic))
    rank = np.asarray(run.rank)[order]
    dup = np.flatnonzero((np.diff(topic[order]) == 0) & (np.diff(rank) == 0))
    if dup.size:
        i = int(order[dup[0] + 1])
        raise ValueError(
            f"{run.source}, line {int(run.line[i])}: duplicate rank "
            f"({int(rank[dup[0]])}) for topic {int(topic[i])} (ndeval refuses it; "
            "use traditional=True to rank by score)"
        )
    return order


def ndeval_arrays(
    qrels: NdevalQrels,
    run: Run | str | os.PathLike[str] | IO[Any],
    *,
    traditional: bool = False,
    depth: int | None = None,
) -> NdevalArrays:
    """Join ndeval qrels and a TREC run into the arrays of
    :func:`sklearn_rank.evaluate_intents`, following ndeval's rules.

    Parameters
    ----------
    qrels : NdevalQrels
        From :func:`read_ndeval_qrels`.
    run : Run, str, path-like or file-like
        A :class:`Run`, or a run file read with :func:`read_run`.
    traditional : bool, default=False
        Rank by score descending then docno descending (ndeval's
        ``-traditional``); by default by the rank column, as ndeval.
    depth : int, default=None
        Keep each topic's first ``depth`` ranked rows (ndeval's ``-M``).

    Returns
    -------
    NdevalArrays

    Raises
    ------
    ValueError
        On a run topic that is not a natural number (after an optional prefix
        ending in ``-``), a negative rank, or a rank used twice for one topic (by
        default).

    Examples
    --------
    >>> import io
    >>> from sklearn_rank import evaluate_intents
    >>> from sklearn_rank.io import ndeval_arrays, read_ndeval_qrels
    >>> qrels = read_ndeval_qrels(io.StringIO("1 0 d1 1\\n1 1 d2 1\\n1 1 d3 1\\n"))
    >>> run = io.StringIO("1 Q0 d3 1 9.0 r\\n1 Q0 d4 2 8.0 r\\n")
    >>> arrays = ndeval_arrays(qrels, run)
    >>> arrays.docno.tolist(), arrays.retrieved.tolist()
    (['d1', 'd2', 'd3', 'd4'], [False, False, True, True])
    >>> evaluate_intents(
    ...     arrays.y_true, arrays.y_score, groups=arrays.groups,
    ...     retrieved=arrays.retrieved, metrics=["subtopic_recall@5", "map_ia"],
    ... )
    {'subtopic_recall@5': 0.5, 'map_ia': 0.25}
    """
    if not isinstance(run, Run):
        run = read_run(run)
    if not len(run):
        raise ValueError(f"{run.source}: the run file is empty (ndeval refuses it)")
    bad = np.flatnonzero(np.asarray(run.rank) < 0)
    if bad.size:
        raise ValueError(
            f"{run.source}, line {int(run.line[bad[0]])}: the rank field must be a "
            f"natural number (as ndeval), got {int(run.rank[bad[0]])}"
        )
    runid = _first_tag(run) or str(run.runid)  # ndeval keeps the first line's
    qids, where, inverse = np.unique(
        np.asarray(run.qid, dtype=str), return_index=True, return_inverse=True
    )
    first_line = np.asarray(run.line)[where]
    topic_of = np.array(
        [
            _run_topic(q, run.source, int(w))
            for q, w in zip(qids, first_line, strict=True)
        ],
        dtype=np.int64,
    )
    topic = topic_of[inverse.ravel()]
    order = _run_order(run, topic, traditional)
    topic, docno = topic[order], np.asarray(run.docno, dtype=object)[order]
    start = np.flatnonzero(np.r_[True, np.diff(topic) != 0])
    position = np.arange(topic.size) - np.repeat(
        start, np.diff(np.r_[start, topic.size])
    )
    if depth is not None:
        keep = position < depth
        topic, docno, position = topic[keep], docno[keep], position[keep]
    run_topics = np.unique(topic)
    both = np.intersect1d(run_topics, np.unique(qrels.topic))
    in_run = np.isin(topic, both)
    in_qrels = np.isin(qrels.topic, both)
    # Rows: the union of (topic, docno) of both files, by topic then docno.
    all_topic = np.r_[topic[in_run], qrels.topic[in_qrels]]
    all_doc = np.r_[docno[in_run], qrels.docno[in_qrels]]
    names, code = _sorted_codes(all_doc)
    key = all_topic * np.int64(names.size) + code
    rows, row_of = np.unique(key, return_inverse=True)
    row_of = row_of.ravel()
    n_run = int(in_run.sum())
    dup = np.flatnonzero(np.bincount(row_of[:n_run], minlength=rows.size) > 1)
    if dup.size:
        raise ValueError(
            f"{run.source}: document {names[rows[dup[0]] % names.size]!r} is "
            f"retrieved twice for topic {int(rows[dup[0]] // names.size)} "
            "(ndeval refuses it)"
        )
    n_sub = int(qrels.subtopic.max()) + 1
    y_true = np.zeros((rows.size, n_sub), dtype=np.int8)
    judged = row_of[n_run:]
    y_true[judged, qrels.subtopic[in_qrels]] = np.minimum(qrels.judgment[in_qrels], 1)
    retrieved = np.zeros(rows.size, dtype=bool)
    retrieved[row_of[:n_run]] = True
    y_score = np.zeros(rows.size)
    y_score[row_of[:n_run]] = -1.0 - position[in_run]
    return NdevalArrays(
        y_true=y_true,
        y_score=y_score,
        groups=rows // names.size,
        retrieved=retrieved,
        docno=names[rows % names.size],
        run_topics=run_topics,
        n_qrels_topics=int(np.unique(qrels.topic).size),
        runid=runid,
    )


def _first_tag(run: Run) -> str | None:
    """The sixth field of the run's first line, when its file can be reread."""
    source = run.source
    if not source or source.startswith("<") or not os.path.isfile(source):
        return None
    with open(source, "rb") as f:
        for raw in f:
            parts = raw.split()
            if len(parts) >= 6 and not parts[0].startswith(b"#"):
                return parts[5].decode("utf-8", "surrogateescape")
    return None
