"""Reading ``sklearn-rank eval``'s inputs into flat arrays, and scoring them."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from ..io import _tables

# The table readers' own suffix map: one list of what counts as a table.
TABLE_SUFFIXES = _tables.SUFFIXES


@dataclass
class RunInput:
    """One run as flat arrays; ``codes`` index ``qids`` (sorted as strings)."""

    name: str
    runid: str
    y_true: np.ndarray
    y_score: np.ndarray
    codes: np.ndarray
    qids: list[str]
    retrieved: np.ndarray | None = None
    judged: np.ndarray | None = None
    # (file, label column) of a predictions table: the rows it holds are all
    # the judgments there are, and its messages name file and row.
    origin: tuple[str, str] | None = None
    pooled: np.ndarray | None = None  # has a qrels line (TREC input only)
    # (queries, relevant rows) before -D: what trec_eval's -c averages read
    complete_totals: tuple[int, int] | None = None


def file_format(path: str, forced: str | None) -> str:
    """``--input-format`` or the extension (``.gz`` looked through)."""
    if forced:
        return forced
    name = os.fspath(path).lower().removesuffix(".gz")
    return TABLE_SUFFIXES.get(os.path.splitext(name)[1], "trec")


def detect_layout(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """``trec``, ``table`` (one file), ``joined`` (qrels + run tables) or ``ranked``."""
    formats = {file_format(f, args.input_format) for f in args.files}
    n = len(args.files)
    if args.ranked_lists:
        if n != 1 or formats == {"trec"}:
            parser.error("--ranked-lists takes one table (JSON lines or Parquet)")
        return "ranked"
    if formats == {"trec"}:
        if n < 2:
            parser.error("TREC input needs QRELS RUN [RUN ...] (at least two files)")
        return "trec"
    # Tables, or TREC files and tables mixed (a TREC qrels and a table run):
    # each file is read by its own format and joined as trec_eval joins.
    return "table" if n == 1 else "joined"


def _from_arrays(name, runid, y_true, y_score, groups, retrieved=None) -> RunInput:
    ids = np.array([str(g) for g in np.asarray(groups, dtype=object)], dtype=object)
    qids, codes = np.unique(ids, return_inverse=True)
    return RunInput(
        name=name,
        runid=runid,
        y_true=np.asarray(y_true, dtype=np.float64),
        y_score=np.asarray(y_score, dtype=np.float64),
        codes=codes.reshape(-1),
        qids=qids.tolist(),
        retrieved=retrieved,
    )


def check_not_empty(parsed, kind: str) -> None:
    """An empty qrels or run file is said to be empty (trec_eval refuses it)."""
    if parsed.line.size == 0:
        layout = (
            "qid iter docno rel" if kind == "qrels" else "qid Q0 docno rank score runid"
        )
        raise ValueError(
            f"{parsed.source}: the {kind} file is empty (no line of the form "
            f"'{layout}')"
        )


def check_overlap(
    joined, run_source: str, qrels_source: str, complete: bool = False
) -> None:
    """A run that shares no query with the judgments is an error, not 'nothing'
    (with -c every judged query is evaluated, as trec_eval does: all zeros)."""
    if not complete and not joined.retrieved.any():
        raise ValueError(
            f"{run_source}: no query of this run is in {qrels_source}; check that "
            "the files belong together (query ids must match exactly)"
        )


def _names(paths: list[str], tags: list[str]) -> list[str]:
    """Column headers: the run tags when distinct, else the file names."""
    if len(set(tags)) == len(tags) and all(tags):
        return tags
    return [os.path.basename(p) for p in paths]


def stdin_or_path(path: str):
    """``-`` is standard input (trec_eval reads its run from there), read once."""
    import sys

    return sys.stdin.buffer if path == "-" else path


def from_join(name: str, runid: str, joined) -> RunInput:
    """A run joined with the judgments (``_trec_join._Joined``) as flat arrays."""
    # Codes are in string order; renumber the present ones 0..G-1 (linear).
    seen = np.bincount(joined.qcode, minlength=joined.qids.size) > 0
    present = np.flatnonzero(seen)
    return RunInput(
        name=name,
        runid=runid,
        y_true=joined.y_true,
        y_score=joined.y_score,
        codes=(np.cumsum(seen) - 1)[joined.qcode],
        qids=joined.qids[present].tolist(),
        retrieved=joined.retrieved,
        judged=joined.judged,
        pooled=joined.pooled,
    )


def _load_trec(args: argparse.Namespace, progress=None) -> list[RunInput]:
    # The package's own readers, without the per-row strings of the public
    # Qrels / Run objects: rows keep integer codes, text is decoded only for
    # query ids and tied scores. Each run is read, joined and dropped before the
    # next one: only its flat arrays stay (peak memory: one run's text at a time).
    from ..io._trec_join import _join
    from ..io._trec_parse import _parse_qrels, _parse_run

    def reader(path):
        # Standard input has no size to show progress against.
        return None if progress is None or path == "-" else progress.reader(path)

    qrels = _parse_qrels(stdin_or_path(args.files[0]), progress=reader(args.files[0]))
    check_not_empty(qrels, "qrels")
    out, tags = [], []
    for path in args.files[1:]:
        run = _parse_run(stdin_or_path(path), ranks=False, progress=reader(path))
        check_not_empty(run, "run")
        joined = _join(qrels, run, args.complete, args.max_docs)
        check_overlap(joined, run.source, qrels.source, args.complete)
        out.append(from_join(path, run.runid, joined))
        tags.append(run.runid)
        del run, joined
    for item, name in zip(out, _names(args.files[1:], tags), strict=True):
        item.name = name
    return out


def load(
    layout: str, args: argparse.Namespace, measures=None, progress=None
) -> list[RunInput]:
    """Every run of the command line, as flat arrays.

    A number field read as trec_eval reads it but not as it looks
    (:class:`~sklearn_rank.io.TrecFormatWarning`) becomes one note on stderr.
    """
    from ..io import TrecFormatWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrecFormatWarning)
        if layout == "trec":
            runs = _load_trec(args, progress)
        else:
            from . import _tables

            runs = _tables.load(layout, args, progress)
    for w in caught:
        if w.category is not TrecFormatWarning:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif not getattr(args, "quiet", False):
            print(f"sklearn-rank {_command(args)}: note: {w.message}", file=sys.stderr)
    if measures is not None and not getattr(args, "quiet", False):
        _note_partial_judgments(runs, measures, args)
    return runs


def _command(args: argparse.Namespace) -> str:
    return getattr(args, "command", None) or "eval"


# Library metrics whose value depends on every relevant document of a query
# (their number, or the ideal ranking), and trec_eval's count of them: a
# predictions table knows only the relevant rows it holds.
_NEED_ALL_RELEVANT = {
    "map",
    "recall",
    "r_precision",
    "bpref",
    "f1",
    "iprec",
    "iprec_11pt",
    "ndcg",
}


def _note_partial_judgments(runs, measures, args) -> None:
    """Say once that a predictions table's relevant rows are all it knows."""
    if not any(r.origin is not None for r in runs):
        return
    names = [
        m.label
        for m in measures
        if (m.metric or "").split("@")[0] in _NEED_ALL_RELEVANT or m.label == "num_rel"
    ]
    if names:
        path = next(r.origin[0] for r in runs if r.origin is not None)
        print(
            f"sklearn-rank {_command(args)}: note: {path} holds predictions only: "
            f"{', '.join(dict.fromkeys(names))} count the relevant rows of the "
            "table alone (relevant documents it does not contain are unknown). "
            "Give the judgments as a qrels file or table (QRELS RUN) to count them",
            file=sys.stderr,
        )


def negative_label(run: RunInput) -> ValueError:
    """The library's refusal of negative labels, in the command's words."""
    path, column = run.origin
    row = int(np.flatnonzero(run.y_true < 0)[0])
    return ValueError(
        f"{path}, row {row + 1}: column {column!r} holds the negative label "
        f"{run.y_true[row]:g}; graded measures need labels >= 0. Fix the row, name "
        "another column with --label-col, or give judgments with negative grades "
        "(trec_eval's 'unjudged') as a qrels table beside the run (QRELS RUN)"
    )
