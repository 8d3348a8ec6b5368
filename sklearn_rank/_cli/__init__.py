"""The ``sklearn-rank`` command line: one module per subcommand.

Each subcommand module defines ``NAME``, ``HELP``, ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args, parser) -> int``, and imports nothing
heavy at module level (the parser imports every subcommand module, and
``sklearn-rank eval`` must start without scikit-learn or scipy). Adding a
subcommand is adding its module name to ``SUBCOMMANDS``.

With no subcommand the command runs the main job (``demo``), so that
``python -m sklearn_rank`` does what the README shows.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["get_parser", "main"]

PROG = "sklearn-rank"
SUBCOMMANDS = ("demo", "evaluate", "compare", "ndeval")
DEFAULT = "demo"


def _modules() -> dict[str, ModuleType]:
    mods = [importlib.import_module(f".{name}", __name__) for name in SUBCOMMANDS]
    return {mod.NAME: mod for mod in mods}


def get_parser() -> argparse.ArgumentParser:
    """The parser of the ``sklearn-rank`` command and its subcommands.

    Returns
    -------
    parser : argparse.ArgumentParser
        ``args.command`` names the subcommand (None: the demo, whose options the
        top-level parser takes too).

    Examples
    --------
    >>> from sklearn_rank._cli import get_parser
    >>> args = get_parser().parse_args(["--fast", "--n-jobs", "2"])
    >>> args.command, args.fast, args.n_jobs, args.folds  # folds: None means 3
    (None, True, 2, None)
    >>> args = get_parser().parse_args(["eval", "qrels.txt", "run.txt", "-m", "P.5"])
    >>> args.command, args.files, args.measures
    ('eval', ['qrels.txt', 'run.txt'], ['P.5'])
    """
    from ._usage import OneLineParser

    modules = _modules()
    parser = OneLineParser(
        prog=PROG,
        description=(
            "Grouped ranking metrics from the command line. Without a subcommand, "
            "runs the main job (the same as 'sklearn-rank demo'). "
            + modules[DEFAULT].DESCRIPTION
        ),
    )
    modules[DEFAULT].add_arguments(parser)
    from .. import __version__

    parser.add_argument(
        "--version",
        action="version",
        version=f"{PROG} {__version__}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in modules.values():
        child = sub.add_parser(
            mod.NAME,
            help=mod.HELP,
            description=mod.DESCRIPTION,
            formatter_class=getattr(
                mod, "FORMATTER", argparse.ArgumentDefaultsHelpFormatter
            ),
        )
        mod.add_arguments(child)
        child.set_defaults(_module=mod, _parser=child)
    parser.set_defaults(_module=modules[DEFAULT], _parser=parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sklearn-rank`` with the given arguments.

    Parameters
    ----------
    argv : sequence of str, default=None
        Command-line arguments without the program name; None reads
        ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success, 1 when an input file is malformed (one line on stderr
        names the file, the line and the fix). Usage errors exit with status 2
        (``SystemExit``), as argparse does.
    """
    from . import _usage

    if argv is None:  # a command-line process of its own
        _keep_freed_memory()
    argv = list(sys.argv[1:] if argv is None else argv)
    _usage.remember(argv)
    parser = get_parser()
    command = _subparsers(parser).get(argv[0]) if argv else None
    if command is not None and argv[0] in ("eval", "compare"):
        from ._flags import FLAGS

        exact = {o for a in command._actions for o in a.option_strings}
        argv = argv[:1] + _usage.expand_trec_abbreviations(argv[1:], FLAGS, exact)
        status = _measure_help(argv[1:]) if argv[0] == "eval" else None
        if status is not None:
            return status
    args = parser.parse_args(argv)
    return int(args._module.run(args, args._parser))


def _subparsers(parser: argparse.ArgumentParser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _measure_help(argv: list[str]) -> int | None:
    """``eval -h -m MEASURE``: that measure's help instead of the command's;
    the exit status (2 when a name is unknown: its line goes to stderr), or
    None when the command's own help (or no help) is asked for."""
    argv = argv[: argv.index("--")] if "--" in argv else argv
    if not ({"-h", "--help"} & set(argv)):
        return None
    names = []
    for i, token in enumerate(argv):
        if token in ("-m", "--measure") and i + 1 < len(argv):
            names.append(argv[i + 1])
        elif token.startswith("--measure="):
            names.append(token.partition("=")[2])
        elif token.startswith("-m") and len(token) > 2 and not token.startswith("--"):
            names.append(token[2:])
    if not names:
        return None
    from ._measures import measure_help

    lines = measure_help(names).splitlines(keepends=True)
    unknown = [line for line in lines if line.startswith("unknown measure")]
    sys.stdout.write("".join(line for line in lines if line not in unknown))
    for line in unknown:
        sys.stderr.write(f"sklearn-rank eval: error: {line}")
    return 2 if unknown else 0


def _keep_freed_memory() -> None:
    """Let this short process reuse the memory of freed arrays.

    glibc gives every freed block above 128 KB back to the system (or trims the
    heap top), so the next array of that size faults its pages in afresh: a
    few ms per 8 MB array, about a fifth of ``sklearn-rank eval``'s time on a
    million-line run. Up to 32 MB per block, freed memory is kept for reuse
    instead (peak memory moves by a few MB). Only for ``main()`` run as the
    command (argv None), never for a process that calls ``main([...])``; a
    no-op where the C library has no ``mallopt``.
    """
    if not sys.platform.startswith("linux"):
        return
    # pyarrow (tables) keeps its own pool (mimalloc), whose freed memory numpy
    # cannot reuse: glibc's pool saves about 110 MB at the peak of the 5M-row
    # Parquet pair but costs 0.25 s of its 1.4 s (fresh pages for every
    # decoded column; docs/benchmarks.md), so the command leaves it alone.
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's malloc.h
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 256 << 20)
