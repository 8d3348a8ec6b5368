"""``sklearn-rank ndeval QRELS RUN``: the TREC Web track's ``ndeval``, byte for
byte.

It reads ndeval's qrels (``topic subtopic docno judgment``) and a TREC run with
:mod:`sklearn_rank.io` (:func:`~sklearn_rank.io.read_ndeval_qrels`,
:func:`~sklearn_rank.io.ndeval_arrays`), computes every measure through the
intent kernels (:func:`sklearn_rank._metrics.ndeval.ndeval_table`) and prints
ndeval's CSV: its header, one line per run topic, the ``amean`` line, ``%.6f``.
With ``-baseline FILE`` (and ``-riskAlpha A``) every value is ndeval's
risk-sensitive difference from the baseline's table, computed the same way
(:func:`sklearn_rank._metrics.ndeval.ndeval_risk`).
Where ndeval misbehaves, docs/cli.md ("sklearn-rank ndeval") lists what this
command does instead.
"""

from __future__ import annotations

import argparse
import math
import re
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
    "-traditional is given. With -baseline, each value is the risk-sensitive "
    "difference from the baseline run (a loss weighs 1 + riskAlpha times a gain; "
    "TREC Web track 2013 and 2014). ndeval's single-dash options are accepted as "
    "written."
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


_C_DOUBLE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _risk_alpha(text: str) -> str:
    """-riskAlpha: a number >= 0, kept as written (ndeval prints it so)."""
    if not _C_DOUBLE.fullmatch(text) or not float(text) >= 0.0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0; got {text!r}")
    return text


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
        "-baseline",
        "--baseline",
        metavar="BASELINE_RUN_FILE",
        help="risk-sensitive evaluation: print each value's difference from this "
        "run's, a loss weighted 1 + riskAlpha (the run string names both runs)",
    )
    parser.add_argument(
        "-riskAlpha",
        "--risk-alpha",
        dest="risk_alpha",
        type=_risk_alpha,
        metavar="A",
        help="extra weight of losses against -baseline, a number >= 0 (default 0; "
        "needs -baseline)",
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


def _topic_table(qrels, run, args):
    """One run file's ``ndeval_arrays`` (its topics, its tag), the topics it
    shares with the qrels (ascending) and their ndeval columns (rows x 21)."""
    import numpy as np

    from .._metrics.ndeval import NDEVAL_COLUMNS, ndeval_table
    from ..io import ndeval_arrays

    arrays = ndeval_arrays(qrels, run, traditional=args.traditional, depth=args.depth)
    ids = np.zeros(0, dtype=np.int64)
    values = np.zeros((0, len(NDEVAL_COLUMNS)))
    if arrays.groups.size:
        ids, table = ndeval_table(
            arrays.y_true,
            arrays.y_score,
            groups=arrays.groups,
            retrieved=arrays.retrieved,
            alpha=args.alpha,
            beta=args.beta,
        )
        values = np.column_stack([table[c] for c, _, _ in NDEVAL_COLUMNS])
    return arrays, ids, values


def _rows(topics, ids, values):
    """``values`` at ``topics``; 0 where a topic has no row (as ndeval)."""
    import numpy as np

    out = np.zeros((topics.size, values.shape[1]))
    at = np.minimum(np.searchsorted(ids, topics), max(ids.size - 1, 0))
    hit = (ids[at] == topics) if ids.size else np.zeros(topics.size, dtype=bool)
    out[hit] = values[at[hit]]
    return out


def ndeval_lines(args: argparse.Namespace) -> list[str]:
    """The CSV lines ndeval prints for ``args`` (its header first)."""
    import numpy as np

    from .._metrics.ndeval import NDEVAL_COLUMNS, ndeval_risk
    from ..io import read_ndeval_qrels

    qrels = read_ndeval_qrels(args.qrels)
    arrays, ids, values = _topic_table(qrels, args.run, args)
    topics, runid = arrays.run_topics, arrays.runid
    count = arrays.n_qrels_topics if args.complete else ids.size
    baseline = np.zeros((topics.size, values.shape[1]))
    if args.baseline is not None:
        base, base_ids, base_values = _topic_table(qrels, args.baseline, args)
        if args.complete:  # -c: the baseline's topics too (the run's count 0)
            topics = np.union1d(topics, base.run_topics)
        baseline = _rows(topics, base_ids, base_values)
        count = max(count, topics.size)  # ndeval: at least the lines printed
        risk = "0" if args.risk_alpha is None else args.risk_alpha
        runid = f"{runid} (rel to. {base.runid}; rs=1+a; a={risk})"
    risk_alpha = 0.0 if args.risk_alpha is None else float(args.risk_alpha)
    table = ndeval_risk(_rows(topics, ids, values), baseline, risk_alpha)
    # ndeval adds the topics up in order: a cumulative sum, not a pairwise one.
    totals = np.cumsum(table, axis=0)[-1] if topics.size else np.zeros(table.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = totals / count if count else np.full(totals.shape, np.nan)
    lines = ["runid,topic," + ",".join(c for c, _, _ in NDEVAL_COLUMNS)]
    for topic, row in zip(topics.tolist(), table.tolist(), strict=True):
        lines.append(f"{runid},{topic}," + ",".join(map(_number, row)))
    lines.append(f"{runid},amean," + ",".join(map(_number, means.tolist())))
    return lines


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.risk_alpha is not None and args.baseline is None:
        # ndeval ignores it without a word; its usage says a baseline is needed.
        parser.error("-riskAlpha needs -baseline BASELINE_RUN_FILE")
    try:
        lines = ndeval_lines(args)
    except (ValueError, TypeError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"sklearn-rank ndeval: error: {message}", file=sys.stderr)
        return 1
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0
