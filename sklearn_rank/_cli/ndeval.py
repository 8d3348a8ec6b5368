"""``sklearn-rank ndeval QRELS RUN``: the TREC Web track's ``ndeval``, byte for
byte.

It reads ndeval's qrels (``topic subtopic docno judgment``) and a TREC run with
:mod:`sklearn_rank.io` (:func:`~sklearn_rank.io.read_ndeval_qrels`,
:func:`~sklearn_rank.io.ndeval_arrays`), computes every measure through the
intent kernels (:func:`sklearn_rank._metrics.ndeval.ndeval_table`) and prints
ndeval's CSV: its header, one line per run topic, the ``amean`` line, ``%.6f``.
Where ndeval misbehaves, docs/cli.md ("sklearn-rank ndeval") lists what this
command does instead.
"""

from __future__ import annotations

import argparse
import math
import sys

NAME = "ndeval"
HELP = "diversity measures (alpha-nDCG, ERR-IA, ...) as ndeval prints them"
DESCRIPTION = (
    "Computes the novelty and diversity measures of the TREC Web track's ndeval "
    "(version 4.5) and prints its CSV byte for byte: ERR-IA, nERR-IA, alpha-DCG and "
    "alpha-nDCG at 5, 10 and 20, NRBP, nNRBP, MAP-IA, P-IA and strec (subtopic "
    "recall) at 5, 10 and 20, one line per topic of the run, then their mean "
    "('amean'). QRELS has lines 'topic subtopic docno judgment' (judgments above "
    "1 count as 1); RUN is a TREC run, ranked by its rank column unless "
    "-traditional is given. ndeval's single-dash options are accepted as written."
)
FORMATTER = argparse.RawDescriptionHelpFormatter


def _unit(text: str) -> float:
    """-alpha, -beta: a number in [0, 1], as ndeval."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1]; got {text!r}")
    return value


def _depth(text: str) -> int:
    """-M: a whole number >= 1, as ndeval."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1; got {text!r}")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="ndeval qrels file")
    parser.add_argument("run", metavar="RUN", help="TREC run file")
    parser.add_argument(
        "-alpha",
        "--alpha",
        type=_unit,
        default=0.5,
        help="redundancy intolerance of alpha-nDCG, ERR-IA and NRBP (default 0.5)",
    )
    parser.add_argument(
        "-beta",
        "--beta",
        type=_unit,
        default=0.5,
        help="patience of NRBP (default 0.5)",
    )
    parser.add_argument(
        "-traditional",
        "--traditional",
        action="store_true",
        help="rank the run by score, then docno (descending), as trec_eval; by "
        "default by its rank column, as ndeval",
    )
    parser.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over every topic of the qrels (a topic the run lacks counts "
        "0) instead of the topics both files have",
    )
    parser.add_argument(
        "-M",
        dest="depth",
        type=_depth,
        metavar="DEPTH",
        help="keep each topic's first DEPTH ranked documents",
    )
    parser.add_argument(
        "-a",
        dest="all_measures",
        action="store_true",
        help="accepted for ndeval's command lines; no effect (as in ndeval 4.5)",
    )


def _number(value: float) -> str:
    """ndeval's ``%.6f``; its 0 / 0 prints as glibc's ``-nan``."""
    return "-nan" if math.isnan(value) else f"{value:.6f}"


def ndeval_lines(args: argparse.Namespace) -> list[str]:
    """The CSV lines ndeval prints for ``args`` (its header first)."""
    import numpy as np

    from .._metrics.ndeval import NDEVAL_COLUMNS, ndeval_table
    from ..io import ndeval_arrays, read_ndeval_qrels

    qrels = read_ndeval_qrels(args.qrels)
    arrays = ndeval_arrays(
        qrels, args.run, traditional=args.traditional, depth=args.depth
    )
    columns = [c for c, _, _ in NDEVAL_COLUMNS]
    per_topic = {}
    if arrays.groups.size:
        ids, table = ndeval_table(
            arrays.y_true,
            arrays.y_score,
            groups=arrays.groups,
            retrieved=arrays.retrieved,
            alpha=args.alpha,
            beta=args.beta,
        )
        values = np.column_stack([table[c] for c in columns])
        per_topic = dict(zip(ids.tolist(), values.tolist(), strict=True))
    lines = ["runid,topic," + ",".join(columns)]
    totals = [0.0] * len(columns)
    zeros = [0.0] * len(columns)
    for topic in arrays.run_topics.tolist():
        row = per_topic.get(topic, zeros)  # a run topic without qrels: zeros
        totals = [
            t + v for t, v in zip(totals, row, strict=True)
        ]  # in order, as ndeval
        lines.append(f"{arrays.runid},{topic}," + ",".join(map(_number, row)))
    count = arrays.n_qrels_topics if args.complete else len(per_topic)
    means = [t / count if count else math.nan for t in totals]
    lines.append(f"{arrays.runid},amean," + ",".join(map(_number, means)))
    return lines


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        lines = ndeval_lines(args)
    except (ValueError, TypeError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"sklearn-rank ndeval: error: {message}", file=sys.stderr)
        return 1
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0
