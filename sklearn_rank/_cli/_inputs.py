"""Reading ``sklearn-rank eval``'s inputs into flat arrays, and scoring them."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

import numpy as np

from ..io import _tables
from ._measures import Measure
from ._output import RunResult

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
    pooled: np.ndarray | None = None  # has a qrels line (TREC input only)


def file_format(path: str, forced: str | None) -> str:
    """``--input-format`` or the extension (``.gz`` looked through)."""
    if forced:
        return forced
    name = os.fspath(path).lower().removesuffix(".gz")
    return TABLE_SUFFIXES.get(os.path.splitext(name)[1], "trec")


def detect_layout(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """``trec``, ``table`` (one file), ``joined`` (qrels + run tables) or ``ranked``."""
    formats = {file_format(f, args.input_format) for f in args.files}
    if "trec" in formats and len(formats) > 1:
        parser.error(
            "mixing TREC files and tables; give TREC files or tables "
            "(or --input-format for all)"
        )
    n = len(args.files)
    if args.ranked_lists:
        if n != 1 or formats == {"trec"}:
            parser.error("--ranked-lists takes one table (JSON lines or Parquet)")
        return "ranked"
    if formats == {"trec"}:
        if n < 2:
            parser.error("TREC input needs QRELS RUN [RUN ...] (at least two files)")
        return "trec"
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


def check_overlap(joined, run_source: str, qrels_source: str) -> None:
    """A run that shares no query with the judgments is an error, not 'nothing'."""
    if not joined.retrieved.any():
        raise ValueError(
            f"{run_source}: no query of this run is in {qrels_source}; check that "
            "the files belong together (query ids must match exactly)"
        )


def _names(paths: list[str], tags: list[str]) -> list[str]:
    """Column headers: the run tags when distinct, else the file names."""
    if len(set(tags)) == len(tags) and all(tags):
        return tags
    return [os.path.basename(p) for p in paths]


def _load_trec(args: argparse.Namespace) -> list[RunInput]:
    # The package's own readers, without the per-row strings of the public
    # Qrels / Run objects: rows keep integer codes, text is decoded only for
    # query ids and tied scores. Each run is read, joined and dropped before the
    # next one: only its flat arrays stay (peak memory: one run's text at a time).
    from ..io._trec_join import _join
    from ..io._trec_parse import _parse_qrels, _parse_run

    qrels = _parse_qrels(args.files[0])
    out, tags = [], []
    for path in args.files[1:]:
        run = _parse_run(path, ranks=False)
        joined = _join(qrels, run, args.complete, args.max_docs)
        check_overlap(joined, run.source, qrels.source)
        # Codes are in string order; renumber the present ones 0..G-1 (linear).
        seen = np.bincount(joined.qcode, minlength=joined.qids.size) > 0
        present = np.flatnonzero(seen)
        codes = (np.cumsum(seen) - 1)[joined.qcode]
        out.append(
            RunInput(
                name=path,
                runid=run.runid,
                y_true=joined.y_true,
                y_score=joined.y_score,
                codes=codes,
                qids=joined.qids[present].tolist(),
                retrieved=joined.retrieved,
                judged=joined.judged,
                pooled=joined.pooled,
            )
        )
        tags.append(run.runid)
        del run, joined
    for item, name in zip(out, _names(args.files[1:], tags), strict=True):
        item.name = name
    return out


def load(layout: str, args: argparse.Namespace) -> list[RunInput]:
    """Every run of the command line, as flat arrays."""
    if layout == "trec":
        return _load_trec(args)
    from . import _tables

    return _tables.load(layout, args)


def score(
    run: RunInput,
    measures: list[Measure],
    keywords: dict,
    options,
    per_query: bool,
    notes: list[str] | None = None,
) -> RunResult:
    """The summary (and per-query) value of every measure for one run (see
    :mod:`._scores`)."""
    from ._scores import score as score_run

    return score_run(run, measures, keywords, options, per_query, notes)
