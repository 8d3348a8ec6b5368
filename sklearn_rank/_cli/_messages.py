"""The library's messages in the command's wording.

The library names its keywords (``max_grade=4``, ``undefined='skip'``, "the
'ties' parameter of evaluate"); the command names its flags (``--max-grade 4``,
``--undefined skip``, ``--ties``). :func:`command_wording` rewrites the one into
the other for every keyword of the option table and the comparison's keywords.
"""

from __future__ import annotations

import re

from .._engine.conventions import OPTIONS

# Keywords of sklearn_rank.stats.compare -> the flags of `sklearn-rank compare`.
COMPARE_FLAGS = {
    "confidence_level": "--confidence",
    "n_resamples": "--resamples",
    "random_state": "--seed",
    "baseline": "--baseline",
    "test": "--test",
    "correction": "--correction",
    "convention": "--convention",
}


def _flag(keyword: str) -> str:
    return COMPARE_FLAGS.get(keyword, f"--{keyword.replace('_', '-')}")


_KEYWORDS = "|".join(sorted([*OPTIONS, *COMPARE_FLAGS], key=len, reverse=True))
# max_grade=4, undefined='skip', max_grade=<the top ...>
_ASSIGNMENT = re.compile(rf"\b({_KEYWORDS})=('([^']*)'|<[^>]*>|[^\s,;)]+)")
# The 'ties' parameter of evaluate
_PARAMETER = re.compile(rf"[Tt]he '({_KEYWORDS})' parameter of \w+")


# The library's subject "y_true in evaluate" is the judgments here.
_SUBJECT = r"y_true in evaluate(?:_per_group)?"
_SUBJECTS = (
    (re.compile(rf"\b{_SUBJECT} has\b"), "a judgment has"),
    (re.compile(rf"\b{_SUBJECT} contains\b"), "the judgments contain"),
    (re.compile(rf"\b{_SUBJECT}\b"), "the judgments"),
)


def command_wording(text: str) -> str:
    """``text`` with the library's keyword syntax replaced by the command's flags.

    Examples
    --------
    >>> from sklearn_rank._cli._messages import command_wording
    >>> command_wording("Pass max_grade=4 or undefined='skip'.")
    'Pass --max-grade 4 or --undefined skip.'
    >>> command_wording("The 'confidence_level' parameter of compare must be ...")
    '--confidence must be ...'
    >>> command_wording("y_true in evaluate_per_group has a grade of 4")
    'a judgment has a grade of 4'
    """

    def assignment(match: re.Match) -> str:
        value = match.group(3) if match.group(3) is not None else match.group(2)
        return f"{_flag(match.group(1))} {value}"

    text = _PARAMETER.sub(lambda m: _flag(m.group(1)), text)
    text = _ASSIGNMENT.sub(assignment, text)
    for library, command in _SUBJECTS:
        text = library.sub(command, text)
    return text


def undefined_queries(metric: str, codes, n_groups: int, run) -> str:
    """``--undefined raise`` met queries where a measure is undefined: name them
    by their query ids (the library sees the run's integer codes)."""
    ids = [run.qids[int(code)] for code in codes]
    shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
    return (
        f"run {run.name!r}: {metric} is undefined for {len(ids)} of "
        f"{n_groups} queries (query {shown}): no relevant document. Pass "
        "--undefined skip to leave them out of the mean, or --undefined 0 to "
        "score them 0"
    )


def undefined_in_compare(metric: str, run_name: str, qids) -> str:
    """``compare --undefined raise``: the queries where a run's measure is
    undefined, by their ids."""
    ids = [str(q) for q in qids]
    shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
    return (
        f"run {run_name!r}: {metric} is undefined for "
        f"{'query' if len(ids) == 1 else f'{len(ids)} queries:'} {shown} (no "
        "relevant document). Pass --undefined skip to leave them out "
        "of the comparison, or --undefined 0 to score them 0"
    )
