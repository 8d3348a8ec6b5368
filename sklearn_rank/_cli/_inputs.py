"""Reading ``sklearn-rank eval``'s inputs into flat arrays, and scoring them."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._utils.memory import trim_heap
from ..io import table_format
from ._progress import showing


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
    complete_totals: tuple[int, int, int] | None = None
    # -M N: trec_eval's cut, which -c's stand-in document passes only if N >= 1
    max_docs: int | None = None
    # -l at or below 0 under the trec_eval convention (None: above 0): every
    # judged document is relevant, and below 0 some unjudged ones at their ranks
    low_level: int | None = None


def file_format(path: str, forced: str | None) -> str:
    """``--input-format`` or the extension (``.gz`` looked through)."""
    if forced:
        return forced
    return table_format(path) or "trec"


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


def check_not_empty(columns, kind: str) -> None:
    """An empty qrels or run file is said to be empty (trec_eval refuses it)."""
    if len(columns) == 0:
        layout = (
            "qid iter docno rel" if kind == "qrels" else "qid Q0 docno rank score runid"
        )
        raise ValueError(
            f"{columns.source}: the {kind} file is empty (no line of the form "
            f"'{layout}')"
        )


def check_overlap(
    joined, run_source: str, qrels_source: str, complete: bool = False
) -> None:
    """A run that shares no query with the judgments is an error, not 'nothing'
    (with -c every judged query is evaluated, as trec_eval does: all zeros)."""
    # (The judged rows of the run's queries stay when -M 0 cuts every
    # retrieved one: those queries are evaluated on an empty ranking.)
    if not complete and not joined.query_ids:
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

    return sys.stdin.buffer if path == "-" else path


def from_join(name: str, runid: str, joined, max_docs: int | None) -> RunInput:
    """A run joined with the judgments (:class:`sklearn_rank.io.TrecColumns`)
    as flat arrays; ``max_docs``: the ``-M`` it was cut at (``-M 0`` changes
    what trec_eval prints for queries that rank nothing)."""
    score = joined.y_score
    if not np.isfinite(score).all():
        # inf, -inf (trec_eval reads 1e400 as inf): the same order and ties in
        # finite numbers, which the metrics take.
        score = np.unique(score, return_inverse=True)[1].astype(np.float64)
    return RunInput(
        name=name,
        runid=runid,
        y_true=joined.y_true,
        y_score=score,
        codes=joined.query_codes,
        qids=joined.query_ids,
        retrieved=joined.retrieved,
        judged=joined.judged,
        pooled=joined.pooled,
        max_docs=max_docs,
    )


def byte_order_mark(args: argparse.Namespace) -> str:
    """trec_eval reads a byte-order mark as part of the first query id: so
    does the ``trec_eval`` convention (the default for TREC files), with a
    note."""
    if getattr(args, "convention", None) not in (None, "trec_eval"):
        return "skip"
    for path in args.files:
        forced = getattr(args, "input_format", None)
        if path == "-" or file_format(path, forced) != "trec":
            continue
        try:
            with open(path, "rb") as handle:
                head = handle.read(3)
        except OSError:
            continue  # the reader names the file
        if head == b"\xef\xbb\xbf":
            from ..io import TrecFormatWarning

            warnings.warn(
                f"{path} starts with a UTF-8 byte-order mark: read as part of "
                "its first query id, as trec_eval reads it (--convention "
                "sklearn_rank skips it)",
                TrecFormatWarning,
                stacklevel=2,
            )
    return "keep"


def _load_trec(args: argparse.Namespace, progress=None) -> list[RunInput]:
    # io's columnar path: rows keep integer codes, text is decoded only for
    # query ids and tied scores. Each run is read, joined and dropped before the
    # next one: only its flat arrays stay (peak memory: one run's text at a time).
    from ..io import join_columns, read_qrels_columns, read_run_columns

    def reader(path):
        # Standard input has no size to show progress against.
        return None if progress is None or path == "-" else progress.reader(path)

    bom = byte_order_mark(args)
    # trec_eval compares ids as bytes: under its convention a file that is not
    # UTF-8 is read as it reads it (the bytes come back out on stdout).
    errors = "surrogateescape" if bom == "keep" else "strict"
    qrels_path = args.files[0]
    jobs = getattr(args, "jobs", 1)  # -j: threads in the reading and the join
    # The qrels are read on a second thread while the first run is (numpy
    # releases the GIL in most of both): on two cores the shorter costs no wall
    # time. With a progress bar, or reading standard input, one at a time.
    parallel = not showing(progress) and "-" not in args.files
    pool = ThreadPoolExecutor(max_workers=1) if parallel else None
    read_qrels = partial(
        read_qrels_columns,
        stdin_or_path(qrels_path),
        byte_order_mark=bom,
        encoding_errors=errors,
        progress=reader(qrels_path),
        # Read beside the run already: its threads would contend for the cores.
        n_jobs=1 if parallel else jobs,
    )
    pending = pool.submit(read_qrels) if pool is not None else None
    if pending is None:
        qrels = read_qrels()
        check_not_empty(qrels, "qrels")
    out, tags = [], []
    for path in args.files[1:]:
        try:
            run = read_run_columns(
                stdin_or_path(path),
                byte_order_mark=bom,
                encoding_errors=errors,
                # trec_eval checks for a document listed twice in the top -M only
                duplicates="join" if bom == "keep" else "raise",
                progress=reader(path),
                n_jobs=jobs,
            )
        finally:  # the qrels and their checks first, as when read first
            if pending is not None:
                qrels, pending = finish_background(pool, pending), None
                check_not_empty(qrels, "qrels")
        check_not_empty(run, "run")
        joined = join_columns(
            qrels,
            run,
            complete=args.complete,
            max_docs_per_query=args.max_docs,
            n_jobs=jobs,
        )
        check_overlap(joined, run.source, qrels.source, args.complete)
        out.append(from_join(path, run.run_tag, joined, args.max_docs))
        tags.append(run.run_tag)
        del run, joined
    if pending is not None:  # no run given
        check_not_empty(finish_background(pool, pending), "qrels")
    for item, name in zip(out, _names(args.files[1:], tags), strict=True):
        item.name = name
    return out


def finish_background(pool: ThreadPoolExecutor, pending):
    """The background read's result (its error raised here), the thread
    joined and the memory it freed given back."""
    try:
        return pending.result()
    finally:
        pool.shutdown(wait=True)
        trim_heap()


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
