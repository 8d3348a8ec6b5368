"""Usage errors in one line, naming each flag as the user typed it.

:class:`OneLineParser` is the parser class of every ``sklearn-rank`` command:
``error()`` prints ``PROG: error: MESSAGE`` (no usage block; ``-h`` shows it)
and exits with status 2. The command line as typed (:func:`remember`) lets a
message name ``-l`` where the user typed ``-l0``, not ``--relevance-threshold``.
:func:`expand_trec_abbreviations` reads trec_eval's abbreviated long options
(``--q``, ``--comp``) as its ``getopt_long`` does.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

_TYPED: list[str] = []  # the command line being parsed, as typed


def remember(argv: Sequence[str]) -> None:
    """Keep the command line as typed, for the messages."""
    _TYPED[:] = list(argv)


def typed_spelling(options: Sequence[str]) -> str | None:
    """How the user wrote one of ``options`` (``-l0`` -> ``-l``; a long option
    possibly abbreviated or with ``=value``), or None if not typed."""
    for token in _TYPED:
        if token == "--":
            break
        if token.startswith("--"):
            name = token.partition("=")[0]
            if any(o.startswith("--") and o.startswith(name) for o in options):
                if len(name) > 2:
                    return name
        elif token.startswith("-") and len(token) > 1:
            if token[:2] in options:
                return token[:2]
    return None


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line with the flag as typed."""

    def error(self, message: str):
        sys.stderr.write(f"{self.prog}: error: {self.as_typed(message)}\n")
        sys.exit(2)

    def as_typed(self, message: str) -> str:
        """``message`` with each flag the user typed spelled as typed, and the
        closest choices for an invalid one."""
        message = " ".join(message.split())
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            import difflib

            options = re.findall(r"'([^']*)'", choice.group(2))
            close = difflib.get_close_matches(choice.group(1), options, n=2)
            if close:
                message += "; did you mean " + " or ".join(map(repr, close)) + "?"
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        if unknown:
            message += self.closest_flags(unknown.group(1).split())
        for action in self._actions:
            options = action.option_strings
            if not options:
                continue
            typed = typed_spelling(options)
            if typed is None:
                continue
            # argparse's "argument -l/--level_for_rel/...:" names every alias.
            message = message.replace("/".join(options), typed)
            for option in sorted(options, key=len, reverse=True):
                if option != typed and option.startswith("--"):
                    message = re.sub(
                        rf"(?<![\w-]){re.escape(option)}(?![\w-])", typed, message
                    )
        return message

    def closest_flags(self, tokens: list[str]) -> str:
        """The "did you mean" of unknown flags: the closest options (difflib)
        of the subcommand typed (the top-level parser reports its arguments)."""
        import difflib

        parser = self
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and _TYPED:
                parser = action.choices.get(_TYPED[0], self)
        options = [o for a in parser._actions for o in a.option_strings]
        close = []
        for token in tokens:
            if token.startswith("-"):
                name = token.partition("=")[0]
                close += difflib.get_close_matches(name, options, n=2, cutoff=0.6)
        close = list(dict.fromkeys(close))[:3]
        return "; did you mean " + " or ".join(map(repr, close)) + "?" if close else ""


def expand_trec_abbreviations(argv: list[str], flags, exact: set[str]) -> list[str]:
    """trec_eval's long options abbreviated to a unique prefix (``--q``,
    ``--comp``) spelled out, as its ``getopt_long`` reads them; an exact
    option of this command is kept.

    Examples
    --------
    >>> from sklearn_rank._cli._flags import FLAGS
    >>> from sklearn_rank._cli._usage import expand_trec_abbreviations
    >>> expand_trec_abbreviations(["--q", "--comp", "--quiet"], FLAGS, {"--quiet"})
    ['--query_eval_wanted', '--complete_rel_info_wanted', '--quiet']
    """
    longs = [f.trec_long for f in flags]
    out: list[str] = []
    for i, token in enumerate(argv):
        if token == "--":
            return out + argv[i:]
        name, eq, value = token.partition("=")
        if token.startswith("--") and len(name) > 2 and name not in exact:
            found = [long for long in longs if long.startswith(name)]
            if len(found) == 1:
                token = found[0] + eq + value
        out.append(token)
    return out
