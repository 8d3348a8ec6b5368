"""trec_eval's command-line flags: the one table the parser, the docs and a test read.

Each row is one flag of trec_eval 10.0 (``trec_eval.c``: its getopt string and
long options): the letter, trec_eval's long name, the names this command adds,
where ``--help`` shows it, and what it does here. :func:`add_flags` turns the
rows into ``argparse`` arguments, :func:`docs_table` into the table of
docs/cli.md (a test checks that the page holds it verbatim).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

# Where --help shows a flag: the argument groups of ``sklearn-rank eval``.
GROUPS = {
    "inputs": "inputs",
    "measures": "measures",
    "conventions": "conventions (the library's keywords; default: the "
    "convention's value)",
    "output": "output",
}

# trec_eval's rel_info (-R) and results (-T) formats, and what happens to each.
REL_INFO_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
RESULTS_FORMATS = ("trec_results",)
PREFERENCE_FORMATS = ("prefs", "qrels_prefs")
PREFERENCE_REFUSAL = (
    "trec_eval's preference measures (-R {fmt}, -m all_prefs / prefs) count "
    "ordered document pairs per judgment group, a family of measures that the "
    "grouped metric engine does not compute; they are not available (use "
    "trec_eval for them, or pairwise_accuracy for a pairwise measure on qrels)"
)


def _number_or_text(text: str) -> float | str:
    """Option values such as ``--undefined 0`` are numbers, others stay text."""
    try:
        return float(text)
    except ValueError:
        return text


class TrecLevel(float):
    """A number given to ``-l``, with trec_eval's reading of its text beside it:
    ``atol`` (``-l 2.5`` is level 2, ``-l 1e3`` level 1), which the ``trec_eval``
    convention uses; other conventions read the number as written."""

    atol: int

    def __new__(cls, value: float, text: str):
        self = super().__new__(cls, value)
        self.atol = c_atol(text)
        return self


def c_atol(text: str) -> int:
    """C's ``atol``: leading blanks, a sign, the digits that follow (else 0).

    Examples
    --------
    >>> from sklearn_rank._cli._flags import c_atol
    >>> c_atol("2.5"), c_atol("-1"), c_atol(" 1e3"), c_atol("x")
    (2, -1, 1, 0)
    """
    match = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


def level(text: str) -> float | str:
    """``-l``'s value: a :class:`TrecLevel` for a number, else the text."""
    value = _number_or_text(text)
    return TrecLevel(value, text) if isinstance(value, float) else value


def trec_count(text: str) -> int:
    """``-N``: trec_eval reads it with ``atol`` (``1e3`` is 1, ``12.5`` 12)."""
    if not re.match(r"\s*[+-]?[0-9]", text):
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}")
    return c_atol(text)


def trec_max_docs(text: str) -> int:
    """``-M``: ``atol`` as trec_eval (``3.7`` is 3); 0 ranks no document (every
    query evaluated on an empty ranking, as trec_eval); below 0 refused:
    trec_eval crashes on a negative value (a segmentation fault)."""
    value = trec_count(text)
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= 0, got {text!r} (trec_eval crashes on a "
            "negative -M: a segmentation fault)"
        )
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def jobs(text: str) -> int:
    """``-j``: threads, scikit-learn's ``n_jobs`` (-1 all cores, -2 all but
    one); 0 and non-integers refused."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"must be an integer other than 0 (1 for one thread, -1 for all "
            f"cores), got {text!r}"
        )
    return value


@dataclass(frozen=True)
class Flag:
    """One trec_eval flag and its form in ``sklearn-rank eval``."""

    letter: str  # "-q"
    trec_long: str  # trec_eval's long name, "--query_eval_wanted"
    group: str  # a key of GROUPS
    notes: str  # the docs table's last column
    names: tuple[str, ...] = ()  # further long names of this command
    kwargs: dict = field(default_factory=dict)  # argparse's keywords
    compare: bool = False  # `sklearn-rank compare` takes it too
    builtin: bool = False  # argparse's own (-h)


FLAGS: tuple[Flag, ...] = (
    Flag(
        "-h",
        "--help",
        "output",
        "this help; `--list-measures` lists the measures",
        builtin=True,
    ),
    Flag(
        "-v",
        "--version",
        "output",
        "prints the version (on stdout) and exits",
        kwargs={"action": "version"},
    ),
    Flag(
        "-q",
        "--query_eval_wanted",
        "output",
        "each query's values before the summary, trec_eval's layout",
        names=("--per-query",),
        kwargs={
            "action": "store_true",
            "dest": "per_query",
            "help": "print each query's values too",
        },
    ),
    Flag(
        "-m",
        "--measure",
        "measures",
        "repeatable; trec_eval's names and nicknames, the library's names, "
        "comma lists of either (`-m recip_rank,map`)",
        kwargs={
            "action": "append",
            "dest": "measures",
            "metavar": "MEASURE",
            "help": "measure(s) to print, repeatable: 'ndcg@10,map', "
            "'recip_rank,map', 'P.5,10', 'ndcg_cut.10', 'official', 'all_trec' "
            "(default: official for TREC files, ndcg@10,map,mrr for tables)",
        },
        compare=True,
    ),
    Flag(
        "-c",
        "--complete_rel_info_wanted",
        "conventions",
        "queries a run misses score 0 and count in the mean; as trec_eval, `num_q` "
        "counts every judged query and `num_rel` every qrels line graded above 0 "
        "(whatever `-l` says)",
        names=("--complete",),
        kwargs={
            "action": "store_true",
            "dest": "complete",
            "help": "average over every judged query; queries a run misses score 0",
        },
        compare=True,
    ),
    Flag(
        "-l",
        "--level_for_rel",
        "conventions",
        "`relevance_threshold=N`; the `trec_eval` convention reads N with `atol`, as "
        "trec_eval (`-l 2.5` is 2); `-l 0` makes every judged document relevant "
        "(trec_eval's `rel >= 0`; the gain measures read the grades, as "
        "trec_eval's); below 0, as trec_eval, documents it did not judge are "
        "relevant at their ranks but not in `num_rel` (see below)",
        names=("--relevance-level", "--relevance-threshold"),
        kwargs={
            "dest": "relevance_threshold",
            "type": level,
            "metavar": "T",
            "help": "grade from which a document is relevant: a number (y >= T) "
            "or 'positive' (y > 0); default from the convention (trec_eval: 1)",
        },
        compare=True,
    ),
    Flag(
        "-n",
        "--nosummary",
        "output",
        "no `all` lines",
        names=("--no-summary",),
        kwargs={
            "action": "store_true",
            "dest": "no_summary",
            "help": "do not print the summary over queries ('all')",
        },
    ),
    Flag(
        "-D",
        "--Debug_level",
        "inputs",
        "`-D 0.QID` evaluates query QID only, as trec_eval; a level above 0 "
        "(trec_eval's debug traces) is refused",
        kwargs={
            "dest": "debug",
            "metavar": "N[.QID]",
            "help": "0.QID: evaluate query QID only (debug traces, N > 0, are "
            "not available)",
        },
    ),
    Flag(
        "-J",
        "--Judged_docs_only",
        "conventions",
        "`judged_only=True` with `judged` from the qrels; `num_ret` and "
        "`num_rel_ret` count judged documents only, as trec_eval's",
        names=("--judged-only",),
        kwargs={
            "dest": "judged_only",
            "action": "store_const",
            "const": True,
            "help": "remove the documents without a judgement (no qrels line, "
            "or a negative grade) from every ranking before every measure",
        },
        compare=True,
    ),
    Flag(
        "-N",
        "--Number_docs_in_coll",
        "conventions",
        "number of documents in the collection; `utility`'s fourth term (the "
        "non-relevant documents not retrieved) reads it, as trec_eval's; read "
        "with `atol` (`1e3` is 1)",
        names=("--num-docs",),
        kwargs={
            "dest": "num_docs_in_coll",
            "type": trec_count,
            "default": 0,
            "metavar": "N",
            "help": "number of documents in the collection (utility's fourth "
            "term reads it; default 0, as trec_eval)",
        },
        compare=True,
    ),
    Flag(
        "-M",
        "--Max_retrieved_per_topic",
        "inputs",
        "keeps the top N documents of each query; read with `atol` (`3.7` is 3); "
        "0 ranks no document, as trec_eval; below 0 refused (trec_eval crashes)",
        names=("--max-docs",),
        kwargs={
            "dest": "max_docs",
            "type": trec_max_docs,
            "metavar": "N",
            "help": "keep only the top N documents of each query",
        },
        compare=True,
    ),
    Flag(
        "-R",
        "--Rel_info_format",
        "inputs",
        "`qrels` (default); `qrels_jg`: the second field is a judgment group "
        "and the `*_avgjg` measures average over groups; `prefs` and "
        "`qrels_prefs` are refused (preference measures are not computed)",
        kwargs={
            "dest": "rel_info_format",
            "choices": REL_INFO_FORMATS,
            "default": "qrels",
            "metavar": "FORMAT",
            "help": "format of the judgments: qrels, qrels_jg (prefs and "
            "qrels_prefs are not available)",
        },
    ),
    Flag(
        "-T",
        "--Results_format",
        "inputs",
        "`trec_results`, trec_eval's only format",
        kwargs={
            "dest": "results_format",
            "choices": RESULTS_FORMATS,
            "default": "trec_results",
            "metavar": "FORMAT",
            "help": "format of the runs: trec_results",
        },
    ),
    Flag(
        "-o",
        "--Output_old_results_format",
        "output",
        "accepted and without effect, as in trec_eval (obsolete there)",
        kwargs={"action": "store_true", "dest": "old_format", "help": "no effect"},
    ),
    Flag(
        "-Z",
        "--Zscore",
        "output",
        "z-scores `(value - mean) / sd` from a `qid measure mean sd` file, "
        "printed as `Z<measure>`; -1000000 where the file has no entry",
        kwargs={
            "dest": "zscores",
            "metavar": "FILE",
            "help": "print z-scores against the per-query means and standard "
            "deviations in FILE (lines: qid measure mean sd)",
        },
    ),
)


def add_flags(
    groups: dict[str, argparse._ArgumentGroup], command: str, version: str
) -> None:
    """Add every row of :data:`FLAGS` that ``command`` takes to its group."""
    for flag in FLAGS:
        if flag.builtin or (command != "eval" and not flag.compare):
            continue
        kwargs = dict(flag.kwargs)
        if kwargs.get("action") == "version":
            kwargs["version"] = version
            kwargs["help"] = "print the version and exit"
        groups[flag.group].add_argument(
            flag.letter, flag.trec_long, *flag.names, **kwargs
        )


def docs_table() -> str:
    """The table of docs/cli.md: trec_eval's flag, this command's, and notes."""
    rows = [
        "| trec_eval | sklearn-rank eval | notes |",
        "|---|---|---|",
    ]
    for flag in FLAGS:
        ours = ", ".join(f"`{n}`" for n in (flag.letter, flag.trec_long, *flag.names))
        rows.append(f"| `{flag.letter}`, `{flag.trec_long}` | {ours} | {flag.notes} |")
    return "\n".join(rows) + "\n"


# Every spelling of each trec_eval flag (messages name the one typed).
FLAG_NAMES = {f.letter: (f.letter, f.trec_long, *f.names) for f in FLAGS}
