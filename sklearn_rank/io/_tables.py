"""Tables (CSV, TSV, Parquet, JSON lines; gzip'd or not) and ranked lists.

Parsing is left to pyarrow (its CSV, JSON and Parquet readers) or, without it, to
pandas' C parser for CSV / TSV / JSON lines: both are optional extras, imported
only here.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import _text

__all__ = ["RankedListArrays", "ranked_list_arrays", "read_table"]

FORMATS = ("csv", "tsv", "parquet", "jsonl")
SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}


def table_format(path: Any) -> str | None:
    """The table format of a file name (``.gz`` looked through), or None."""
    name = os.fspath(path).lower().removesuffix(".gz")
    return SUFFIXES.get(os.path.splitext(name)[1])


def _missing_extra(fmt: str) -> ImportError:
    extra = "parquet" if fmt == "parquet" else "tables"
    need = "pyarrow" if fmt == "parquet" else "pyarrow or pandas"
    return ImportError(
        f"reading {fmt} files needs {need}: pip install 'sklearn-rank[{extra}]'"
    )


def _read_arrow(data: bytes, fmt: str, columns: list[str], name: str):
    import pyarrow as pa

    table = _arrow_table(pa.BufferReader(data), fmt, columns, [], name)
    return {c: table[c].to_numpy(zero_copy_only=False) for c in columns}


def _arrow_table(
    source,
    fmt: str,
    columns: list[str],
    text: list[str],
    name: str,
    dictionary: Sequence[str] = (),
):
    """The wanted columns of a table as pyarrow arrays (one chunk each).

    ``text``: columns read as strings whatever they look like (ids: ``007``
    stays ``007`` in a CSV file). ``dictionary``: string columns of a Parquet
    file kept dictionary-encoded, as the file stores them (one index per row
    and each distinct value once: no string per row).
    """
    import pyarrow as pa

    if fmt == "parquet":
        import pyarrow.parquet as pq

        # ParquetFile, not read_table: read_table loads pyarrow.dataset and
        # pyarrow.compute (about 0.3 s of imports) for features not used here.
        # A plain file is mapped: its column chunks are read from the page
        # cache's own pages, not copied into fresh memory first.
        plain = isinstance(source, io.BufferedReader) and isinstance(
            source.name, str | bytes
        )
        where = source.name if plain else source
        try:
            parquet = pq.ParquetFile(
                where, memory_map=plain, read_dictionary=list(dictionary) or None
            )
        except KeyError:  # a dictionary column the file lacks: named below
            if not plain:
                source.seek(0)
            parquet = pq.ParquetFile(where, memory_map=plain)
        _check_columns(parquet.schema_arrow.names, columns, name)
        table = parquet.read(columns=list(dict.fromkeys(columns)))
    elif fmt in ("csv", "tsv"):
        import pyarrow.csv as pc

        try:
            table = pc.read_csv(
                source,
                parse_options=pc.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
                convert_options=pc.ConvertOptions(
                    include_columns=list(dict.fromkeys(columns)),
                    column_types={c: pa.string() for c in text},
                ),
            )
        except (pa.ArrowInvalid, KeyError) as exc:
            if "include_columns" not in str(exc):
                raise
            if hasattr(source, "seek"):
                source.seek(0)
            present = pc.open_csv(
                source,
                parse_options=pc.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
            ).schema.names
            _check_columns(present, columns, name)
            raise
    else:
        import pyarrow.json as pj

        table = pj.read_json(source)
        _check_columns(table.column_names, columns, name)
    return {c: table.column(c).combine_chunks() for c in dict.fromkeys(columns)}


def _read_pandas(data: bytes, fmt: str, columns: list[str], name: str):

    import pandas as pd

    if fmt == "jsonl":
        frame = pd.read_json(io.BytesIO(data), lines=True)
    else:
        frame = pd.read_csv(io.BytesIO(data), sep="\t" if fmt == "tsv" else ",")
    _check_columns(list(frame.columns), columns, name)
    return {c: frame[c].to_numpy() for c in columns}


def _check_columns(present: list[str], wanted: list[str], name: str) -> None:
    for column in wanted:
        if column not in present:
            raise ValueError(
                f"{name}: no column {column!r}; the columns are "
                f"{', '.join(map(repr, present))}. Name the right one with the "
                "matching --*-col option"
            )


def read_table(
    source: str | os.PathLike[str],
    columns: list[str],
    *,
    input_format: str | None = None,
) -> dict[str, np.ndarray]:
    """Read the given columns of a CSV, TSV, Parquet or JSON-lines file.

    Parameters
    ----------
    source : str or path-like
        The file; ``.gz`` files are decompressed, a UTF-8 byte-order mark is
        skipped.
    columns : list of str
        The columns to return.
    input_format : {"csv", "tsv", "parquet", "jsonl"}, default=None
        None: from the extension.

    Returns
    -------
    dict of str to ndarray
        One array per column, in row order.

    Raises
    ------
    ValueError
        For an unknown format, an empty table, a missing column, text that is
        not UTF-8 (with its line) or a file the parser rejects.
    ImportError
        When neither pyarrow nor pandas (or, for Parquet, pyarrow) is installed.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.io import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "preds.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("qid,label,score\\nq1,1,0.9\\nq1,0,0.2\\n")
    >>> table = read_table(path, ["qid", "score"])
    >>> table["qid"].tolist(), table["score"].tolist()
    (['q1', 'q1'], [0.9, 0.2])
    """
    fmt = input_format or table_format(source)
    if fmt not in FORMATS:
        raise ValueError(
            f"{os.fspath(source)}: unknown table format; use a .csv, .tsv, "
            ".parquet or .jsonl name (optionally .gz) or --input-format"
        )
    data, name = _text.read_bytes(source)
    if fmt != "parquet":
        _text.check_utf8(data, name)
    if not data.strip():
        raise ValueError(f"{name}: the file is empty; expected a header and rows")
    try:
        import pyarrow  # noqa: F401

        reader = _read_arrow
    except ImportError:
        if fmt == "parquet":
            raise _missing_extra(fmt) from None
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise _missing_extra(fmt) from None
        reader = _read_pandas
    try:
        out = reader(data, fmt, columns, name)
    except ValueError as exc:
        if str(exc).startswith(name):
            raise
        raise ValueError(f"{name}: cannot read as {fmt}: {_first_line(exc)}") from None
    if not next(iter(out.values())).size:
        raise ValueError(f"{name}: the table has no rows")
    return out


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def id_column(values: ArrayLike, column: str, name: str) -> np.ndarray:
    """Ids of a table column as Python strings, refusing a missing id.

    Parameters
    ----------
    values : array-like of shape (n_rows,)
        The column's values (any type; ``None`` and NaN are missing).
    column : str
        The column's name, for the error.
    name : str
        The table's name or path, for the error.

    Returns
    -------
    ids : ndarray of object of shape (n_rows,)
        ``str`` of every value.

    Examples
    --------
    >>> from sklearn_rank.io import id_column
    >>> id_column([301, "q2"], "qid", "runs.csv").tolist()
    ['301', 'q2']
    """
    values = np.asarray(values, dtype=object)
    for row, value in enumerate(values.tolist(), start=1):
        if value is None or (isinstance(value, float) and value != value):
            raise ValueError(
                f"{name}, row {row}: column {column!r} has a missing id; every "
                "row needs one"
            )
    return np.array([str(v) for v in values.tolist()], dtype=object)


# --------------------------------------------------------------------------- lists


@dataclass(frozen=True)
class RankedListArrays:
    """Flat per-row arrays built from ranked lists (:func:`ranked_list_arrays`).

    Attributes
    ----------
    y_true, y_score, groups, retrieved, item : ndarray
        One row per ranked item, then one per relevant item missing from its
        list (``retrieved`` False).
    """

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray
    retrieved: np.ndarray
    item: np.ndarray

    def __len__(self) -> int:
        return int(self.y_true.shape[0])


def ranked_list_arrays(
    ranked: Any,
    relevant: Any,
    *,
    grades: Any = None,
    groups: Any = None,
) -> RankedListArrays:
    """Turn ranked lists of item ids plus the relevant ids into flat arrays.

    The form that retrieval and recommendation code produces (an approximate
    nearest neighbour search, Spark's ``RankingMetrics``): per query, the items in
    rank order and the relevant items. Rank order becomes the score (first item
    highest); relevant items missing from a list become judged-but-not-retrieved
    rows, so recall and NDCG count them.

    Parameters
    ----------
    ranked : sequence of sequences
        The ranked item ids of each query, best first.
    relevant : sequence of sequences
        The relevant item ids of each query.
    grades : sequence of sequences of float, default=None
        The grade of each relevant item (aligned with ``relevant``); None gives 1.
    groups : sequence, default=None
        The id of each query; None numbers them 0, 1, ...

    Returns
    -------
    RankedListArrays
        ``y_true``, ``y_score``, ``groups``, ``retrieved``, ``item``: pass the first
        four to :func:`sklearn_rank.evaluate`.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> from sklearn_rank.io import ranked_list_arrays
    >>> lists = ranked_list_arrays([["a", "b", "c"], ["x", "y"]], [["c", "z"], ["x"]])
    >>> lists.item.tolist(), lists.y_true.tolist(), lists.retrieved.tolist()
    (['a', 'b', 'c', 'z', 'x', 'y'], [0.0, 0.0, 1.0, 1.0, 1.0, 0.0], \
[True, True, True, False, True, True])
    >>> evaluate(lists.y_true, lists.y_score, groups=lists.groups,
    ...          retrieved=lists.retrieved, metrics=["recall@3", "mrr"])
    {'recall@3': 0.75, 'mrr': 0.6666666666666666}
    """
    ranked, relevant = list(ranked), list(relevant)
    if len(ranked) != len(relevant):
        raise ValueError(
            f"ranked_list_arrays got {len(ranked)} ranked lists but "
            f"{len(relevant)} relevant lists; give one of each per query"
        )
    group_ids = list(range(len(ranked))) if groups is None else list(groups)
    if len(group_ids) != len(ranked):
        raise ValueError(
            f"ranked_list_arrays got {len(group_ids)} groups for {len(ranked)} lists"
        )
    if grades is not None:
        grades = list(grades)
        if len(grades) != len(relevant):
            raise ValueError(
                f"ranked_list_arrays got {len(grades)} grade lists for "
                f"{len(relevant)} relevant lists"
            )
    rows: list[tuple] = []
    for i, (items, rel) in enumerate(zip(ranked, relevant, strict=True)):
        items = [] if items is None else list(items)
        rel = [] if rel is None else list(rel)
        grade = [1.0] * len(rel) if grades is None else list(grades[i])
        if len(grade) != len(rel):
            raise ValueError(
                f"query {group_ids[i]!r}: {len(grade)} grades for {len(rel)} relevant "
                "items; give one grade per relevant item"
            )
        judged = dict(zip(rel, map(float, grade), strict=True))
        if len(judged) != len(rel):
            raise ValueError(f"query {group_ids[i]!r}: a relevant item is repeated")
        if len(set(items)) != len(items):
            dup = next(x for x in items if items.count(x) > 1)
            raise ValueError(
                f"query {group_ids[i]!r}: item {dup!r} appears twice in its ranked "
                "list; each item may appear once"
            )
        n = len(items)
        rows += [
            (group_ids[i], x, judged.get(x, 0.0), n - r, True)
            for r, x in enumerate(items)
        ]
        ranked_set = set(items)
        rows += [
            (group_ids[i], x, g, -1.0, False)
            for x, g in judged.items()
            if x not in ranked_set
        ]
    q, item, y, score, ret = zip(*rows, strict=True) if rows else ([],) * 5
    return RankedListArrays(
        y_true=np.array(y, dtype=np.float64),
        y_score=np.array(score, dtype=np.float64),
        groups=np.array(q, dtype=object),
        retrieved=np.array(ret, dtype=bool),
        item=np.array(item, dtype=object),
    )
