"""Runs as ``sklearn-rank eval`` and ``compare`` see them, after trec_eval's flags.

- :func:`check_trec_flags`: ``-R``, ``-D`` and the preference nicknames (usage
  errors for what is refused);
- :func:`load_runs`: every run with a unique name (:func:`._output.unique_names`),
  restricted to one query by ``-D 0.QID`` (:func:`only_query`);
- :func:`complete_summary`: trec_eval's ``-c`` summary.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .._utils.memory import worker_heap
from . import _flags, _output
from ._judgment_groups import AVGJG


def check_trec_flags(args: argparse.Namespace, parser) -> str | None:
    """-R, -T and -D: usage errors for what is refused; the -D query (or None)."""
    fmt = getattr(args, "rel_info_format", "qrels")
    if fmt in _flags.PREFERENCE_FORMATS:
        parser.error(_flags.PREFERENCE_REFUSAL.format(fmt=fmt))
    for spec in args.measures or ():
        if spec in ("all_prefs", "prefs"):
            parser.error(_flags.PREFERENCE_REFUSAL.format(fmt="prefs"))
        jg = spec == "qrels_jg" or spec.partition(".")[0].partition(",")[0] in AVGJG
        if jg and fmt != "qrels_jg":
            parser.error(
                f"-m {spec}: the judgment-group measures need -R qrels_jg (the "
                "second qrels field names the judgment group)"
            )
    debug = getattr(args, "debug", None)
    if debug is None:
        return None
    level, _, qid = debug.partition(".")
    try:
        level_value = int(level or "0")
    except ValueError:
        parser.error(f"-D {debug}: expected a level, optionally .QID, as in -D 0.301")
    if level_value != 0:
        parser.error(
            f"-D {debug}: trec_eval's debug traces (a level above 0) are not "
            "available; -D 0.QID evaluates query QID only"
        )
    return qid or None


def _check_stdin(args: argparse.Namespace, parser, layout: str) -> None:
    """'-' reads a TREC file from standard input (trec_eval: the run), once."""
    dashes = args.files.count("-")
    if dashes and layout != "trec":
        parser.error("'-' (standard input) reads TREC files only")
    if dashes > 1:
        parser.error("'-' (standard input) can be given once")


def only_query(run, qid: str):
    """The rows of one query (-D 0.QID); ValueError when the run lacks it."""
    import numpy as np

    if qid not in run.qids:
        raise ValueError(
            f"-D 0.{qid}: query {qid!r} is not among the judged queries of run "
            f"{run.name!r}"
        )
    keep = run.codes == run.qids.index(qid)

    def take(a):
        return None if a is None else a[keep]

    one = type(run)(
        name=run.name,
        runid=run.runid,
        y_true=run.y_true[keep],
        y_score=run.y_score[keep],
        codes=np.zeros(int(keep.sum()), dtype=run.codes.dtype),
        qids=[qid],
        retrieved=take(run.retrieved),
        judged=take(run.judged),
        pooled=take(run.pooled),
        max_docs=run.max_docs,
    )
    one.complete_totals = run.complete_totals  # trec_eval's -c reads every query
    return one


def run_sources(layout: str, args: argparse.Namespace, n_runs: int) -> list:
    """Where each run comes from (its path, or its score column), for names."""
    if layout in ("trec", "joined"):
        sources = args.files[1:]
    elif layout == "table":
        sources = args.score_col or []
    else:
        sources = []
    return list(sources) if len(sources) == n_runs else [None] * n_runs


def load_runs(
    layout: str,
    args: argparse.Namespace,
    debug_qid: str | None,
    measures=None,
    progress=None,
):
    """Every run of the command line, with unique names (-D: one query)."""
    if getattr(args, "jobs", 1) != 1:  # -j's workers share one heap (peak memory)
        worker_heap()
    runs = load(layout, args, measures, progress)
    names = _output.unique_names(
        [r.name for r in runs], run_sources(layout, args, len(runs))
    )
    for r, name in zip(runs, names, strict=True):
        r.name = name
    for r in runs:  # before -D: what trec_eval's -c averages read
        # Qrels lines graded above 0, as read as they are and with atol
        # (trec_eval's reading: 0.7 is 0).
        positive = int((r.y_true > 0).sum()), int((r.y_true >= 1).sum())
        r.complete_totals = (len(r.qids), *positive)
    if debug_qid is not None:
        runs = [only_query(r, debug_qid) for r in runs]
    return runs


def complete_summary(
    result,
    labels: list[str],
    totals,
    n_evaluated: int,
    geometric=(),
    integer_grades: bool = False,
) -> None:
    """trec_eval's ``-c`` summary (``meas_avg.c``, ``m_num_q.c``,
    ``m_num_rel.c``): means over every judged query (with ``-D 0.QID`` too, the
    others count 0), ``num_q`` every judged query, and ``num_rel`` every qrels
    line with a grade above 0 (whatever ``-l`` says; the grade read with atol
    under ``integer_grades``, as trec_eval: 0.7 is not above 0). The
    ``geometric`` labels (``gm_map``, ``gm_bpref``) were taken over every
    judged query already."""
    n_queries, n_positive, n_whole = totals
    if integer_grades:
        n_positive = n_whole
    for label in labels:
        value = result.summary[label]
        if label == "num_q":
            result.summary[label] = type(value)(n_queries)
        elif label == "num_rel":
            result.summary[label] = type(value)(n_positive)
        elif label in geometric:
            continue
        elif isinstance(value, float) and n_evaluated != n_queries:
            result.summary[label] = value * n_evaluated / n_queries


def load(layout: str, args: argparse.Namespace, measures=None, progress=None) -> list:
    """Every run of the command line, as flat arrays.

    A number field read as trec_eval reads it but not as it looks
    (:class:`~sklearn_rank.io.TrecFormatWarning`) becomes one note on stderr.
    """
    from ..io import TrecFormatWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrecFormatWarning)
        if layout == "trec":
            from ._inputs import _load_trec

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
