"""What :mod:`sklearn_rank.dask` and :mod:`sklearn_rank.spark` share above the
per-partition work (:mod:`.partitions`): the one argument shape,
the column and schema checks that run on the client before any row moves, the
plan, and the errors of a partition put back in the terms of the input (input
row numbers; the library's own exception type).

Nothing here imports Dask or Spark.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._utils.params import param_error
from . import partitions as parts

# The per-row inputs, in the order of the in-memory evaluate; the last four may
# be left out (None).
ROW_ARGS = (
    "y_true",
    "y_score",
    "groups",
    "sample_weight",
    "retrieved",
    "judged",
    "in_pool",
)
OPTIONAL_ROW_ARGS = frozenset(ROW_ARGS[3:])
_NUMERIC = ("y_true", "y_score", "sample_weight")
_MASKS = ("retrieved", "judged", "in_pool")


def row_names(y_true, groups, sample_weight, retrieved, judged, in_pool) -> dict:
    """The per-row arguments but ``y_score`` (one or several, separately), by
    name."""
    return {
        "y_true": y_true,
        "groups": groups,
        "sample_weight": sample_weight,
        "retrieved": retrieved,
        "judged": judged,
        "in_pool": in_pool,
    }


def parquet_path(data: Any, func: str, reader: str) -> str:
    """A Parquet path as text, after a look at a single file's first bytes: a
    CSV or other text file is refused here, naming the argument and the
    reader to use, instead of the Parquet reader's "magic bytes" error."""
    path = os.fspath(data)
    if os.path.isfile(path):
        with open(path, "rb") as file:
            head = file.read(4)
        if head != b"PAR1":
            raise param_error(
                "data",
                func,
                "a DataFrame or a Parquet file, directory or glob",
                path,
                f"This file is not Parquet: read it first (e.g. {reader}) "
                "and pass the frame.",
            )
    return path


def score_columns(y_score: Any, func: str, data_arg: str = "data") -> list[str]:
    """``y_score`` as a list of column names (one name, or several: one result
    per score column, the rows read and shuffled once)."""
    if isinstance(y_score, str):
        return [y_score]
    if isinstance(y_score, (list, tuple)) and y_score:
        if all(isinstance(c, str) for c in y_score):
            if len(set(y_score)) != len(y_score):
                raise param_error(
                    "y_score", func, "distinct column names", list(y_score)
                )
            return list(y_score)
    raise param_error(
        "y_score",
        func,
        f"the name of a score column of {data_arg}, or a list of such names",
        y_score,
    )


def check_columns(
    func: str, names: Mapping[str, Any], present: Sequence[Any], data_arg: str
) -> None:
    """Every per-row argument names a column of the input (the optional ones may
    be None)."""
    shown = [c for c in present if c is not None]
    for arg, name in names.items():
        if name is None and arg in OPTIONAL_ROW_ARGS:
            continue
        if not isinstance(name, str) or name not in present:
            raise param_error(
                arg, func, f"the name of a column of {data_arg} ({shown})", name
            )


def check_schema(func: str, names: Mapping[str, Any], kinds: Mapping[str, str]):
    """The column types, read from the schema before any row is read: labels,
    scores and weights are numbers ("b", "i", "u" or "f"), masks booleans (or
    integers, checked row by row as in memory). ``kinds`` maps a column to its
    numpy kind character ("O" for text and anything else)."""
    for arg in (*_NUMERIC, *_MASKS):
        column = names.get(arg)
        if column is None or column not in kinds:
            continue
        kind = kinds[column]
        wanted = "biuf" if arg in _NUMERIC else "biu"
        if kind not in wanted:
            what = "numbers" if arg in _NUMERIC else "booleans (one per row)"
            raise TypeError(
                f"{arg} in {func} must be {what}; its column {column!r} holds "
                f"{_KIND_NAMES.get(kind, 'values of another type')}. Convert the "
                "column first (e.g. .astype(float))."
            )


_KIND_NAMES = {"O": "text or objects", "M": "dates", "m": "durations"}


def check_count(value: Any, name: str, func: str) -> int | None:
    """A number of partitions (None: the engine's default)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise param_error(name, func, "a positive int or None", value)
    return int(value)


def make_plan(
    func: str, names: Mapping[str, Any], metrics, convention, options, per_group
) -> parts.Plan:
    """The plan every partition runs, validated on the client."""
    return parts.make_plan(
        func,
        **{arg: names.get(arg) for arg in ROW_ARGS},
        metrics=metrics,
        convention=convention,
        options=options,
        per_group=per_group,
    )


# -- errors in the terms of the input --------------------------------------------------
PARTITION_ATTR = "sklearn_rank_partition"
_ROW = re.compile(r"\brow (\d+)")


def run_located(partition: int | None, call, *args, **kwargs):
    """``call(*args)``, whose ValueError or TypeError records the number of the
    input partition whose rows it read (for :func:`relocate`)."""
    try:
        return call(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        if partition is not None and not hasattr(exc, PARTITION_ATTR):
            setattr(exc, PARTITION_ATTR, int(partition))
        raise


def relocate(exc: BaseException, offset: int) -> BaseException:
    """``exc`` with its row numbers (counted in one partition) counted in the
    whole input: ``offset`` is the number of rows of the partitions before."""
    text = _ROW.sub(lambda m: f"row {int(m.group(1)) + offset}", str(exc))
    if text == str(exc):
        return exc
    new = type(exc)(text)
    for key, value in vars(exc).items():
        if key != PARTITION_ATTR:
            setattr(new, key, value)
    return new


# -- one error for the whole input, from each partition's report --------------------
_COUNT = re.compile(r"\bcontains (\d+) ")


def row_report(n_rows: int, call, *args) -> tuple[int, str, str]:
    """A partition's report for :func:`merged_error`: its number of rows and
    the error of ``call(*args)`` (the in-memory row checks) as (kind, message),
    empty when its rows pass."""
    try:
        call(*args)
    except (ValueError, TypeError) as exc:
        return int(n_rows), type(exc).__name__, str(exc)
    return int(n_rows), "", ""


def names_a_row(text: str) -> bool:
    """Whether an error names a row: a check of single rows, which gives the
    same verdict on the input partitions as on shuffled ones (an id type mix
    within a shuffled partition does not)."""
    return _ROW.search(text) is not None


def _template(text: str) -> str:
    return _ROW.sub("row #", _COUNT.sub("contains # ", text))


def merged_error(reports) -> BaseException | None:
    """The error the in-memory check gives on the whole input, from the
    partitions' reports (:func:`row_report`, in input order): the first
    failing partition's error, its row counted in the whole input (the first
    bad row: partitions come in order), its count of bad values the sum over
    every partition that fails the same check. None when every row passes."""
    offset, found = 0, []
    for n_rows, kind, message in reports:
        if message:
            exc = (ValueError if kind == "ValueError" else TypeError)(message)
            found.append(relocate(exc, offset))
        offset += int(n_rows)
    if not found:
        return None
    first = found[0]
    text = str(first)
    same = [str(e) for e in found if _template(str(e)) == _template(text)]
    counts = [_COUNT.search(t) for t in same]
    if all(counts):
        total = sum(int(m.group(1)) for m in counts)
        text = _COUNT.sub(f"contains {total} ", text, count=1)
    return type(first)(text)


# Spark reports a worker's exception as a PythonException holding the traceback;
# its last "ValueError: ..." (or TypeError) block is the library's own error.
_WORKER_ERROR = re.compile(
    r"^(ValueError|TypeError): (.*?)(?=\n\S|\n*\Z)", re.MULTILINE | re.DOTALL
)


def worker_error(text: str) -> BaseException | None:
    """The library's exception raised on a worker, from the text of an
    engine's wrapper exception (None when the text holds none)."""
    found = _WORKER_ERROR.findall(text)
    if not found:
        return None
    name, message = found[-1]
    kind = ValueError if name == "ValueError" else TypeError
    return kind(message.strip())
