"""Table columns for the command line as Arrow arrays: no Python object per row.

Ids stay Arrow strings whose bytes become spans (:func:`arrow_spans`), so a table
run joins a TREC qrels file (and the reverse) through the same hashes as two TREC
files; numbers stay typed arrays (:func:`arrow_numbers`). Parsing is pyarrow's
(its CSV, JSON and Parquet readers), an optional extra imported only here.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _text
from ._tables import FORMATS, _arrow_table, _check_columns, _first_line, table_format


class _Counted(io.RawIOBase):
    """A binary file that reports the bytes read so far (``progress(done,
    total)``) as a reader pulls them."""

    def __init__(self, raw, total: int, progress):
        self.raw, self.total, self.progress, self.done = raw, total, progress, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self.raw.seekable()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def readinto(self, buffer) -> int:
        got = self.raw.readinto(buffer)
        self.done = max(self.done, self.raw.tell())
        self.progress(self.done, self.total, "read")
        return got


def read_columns(
    source: str | os.PathLike[str],
    columns: list[str],
    *,
    input_format: str | None = None,
    text: Sequence[str] = (),
    dictionary: Sequence[str] = (),
    progress: Any = None,
) -> dict[str, Any]:
    """The given columns of a table as pyarrow arrays, without Python objects
    per row: ids stay Arrow strings (their bytes become spans with
    :func:`arrow_spans`), numbers typed arrays (:func:`arrow_numbers`).

    ``text`` columns are read as strings whatever they look like; of those,
    the ``dictionary`` ones stay dictionary-encoded where the file stores them
    so (Parquet; :func:`arrow_codes` reads either). A ``.json`` file may hold
    JSON lines or one JSON array of objects. ``progress(done, total, "read")``
    is called with the bytes of the file read so far.
    """
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError(
            "reading tables in sklearn-rank eval needs pyarrow: pip install "
            "'sklearn-rank[tables]'"
        ) from None

    fmt = input_format or table_format(source)
    name = os.fsdecode(os.fspath(source))
    if fmt not in FORMATS:
        raise ValueError(
            f"{name}: unknown table format; use a .csv, .tsv, .parquet, .json or "
            ".jsonl name (optionally .gz) or --input-format"
        )
    with open(source, "rb") as raw:
        total = os.fstat(raw.fileno()).st_size
        handle = raw if progress is None else _Counted(raw, total, progress)
        head = handle.read(3)
        if not head.strip() and not handle.read(1 << 16).strip():
            raise ValueError(f"{name}: the file is empty; expected a header and rows")
        handle.seek(0)
        stream = handle
        if head[:2] == b"\x1f\x8b":
            stream = gzip.GzipFile(fileobj=handle, mode="rb")
        elif head == _text.BOM:
            handle.seek(len(_text.BOM))
        try:
            if fmt == "jsonl" and _starts_array(stream):
                table = _json_array(stream, columns, name)
            else:
                table = _arrow_table(
                    stream, fmt, columns, list(text), name, list(dictionary)
                )
        except (pa.ArrowInvalid, OSError, EOFError) as exc:
            if "UTF8" in str(exc):  # name the line
                _text.check_utf8(_text.read_bytes(source)[0], name)
            raise ValueError(
                f"{name}: cannot read as {fmt}: {_first_line(exc)}"
            ) from None
    if not len(next(iter(table.values()))):
        raise ValueError(f"{name}: the table has no rows")
    # Arrow's allocator keeps the memory the decoding freed; handed back now,
    # the join's arrays reuse those pages instead of fresh ones, which the
    # kernel must zero first (5M-row Parquet run: peak 922 -> 822 MB, and no
    # cold pages for the join's first arrays; docs/benchmarks.md).
    pa.default_memory_pool().release_unused()
    return table


def _starts_array(stream) -> bool:
    """Whether a JSON file's first non-blank byte opens an array (the stream
    is left where it was)."""
    at = stream.tell()
    head = stream.read(1 << 12).lstrip()
    stream.seek(at)
    return head[:1] == b"["


def _json_array(stream, columns: list[str], name: str):
    """A JSON file holding one array of objects, one per row."""
    import json

    import pyarrow as pa

    layouts = (
        "a .json file may hold JSON lines (one object per line) or one JSON "
        'array of objects ([{"qid": ...}, ...])'
    )
    try:
        rows = json.load(stream)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not valid JSON ({exc}); {layouts}") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(
            f"{name}: the JSON array holds something else than objects; {layouts}"
        )
    if not rows:
        raise ValueError(f"{name}: the table has no rows")
    present = list(dict.fromkeys(k for r in rows[:1000] for k in r))
    _check_columns(present, columns, name)
    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ValueError(
            f"{name}: cannot read the JSON array: {_first_line(exc)}"
        ) from None
    return {c: table.column(c).combine_chunks() for c in dict.fromkeys(columns)}


def _first_row(mask: Any) -> int:
    """The 1-based row of the first True of a numpy or Arrow boolean mask."""
    return int(np.flatnonzero(np.asarray(mask))[0]) + 1


def arrow_numbers(array: Any, column: str, name: str) -> np.ndarray:
    """A numeric (or numeric text) Arrow column as finite float64; the first
    empty, non-numeric or non-finite row is named (1-based)."""
    import pyarrow as pa

    def bad(row: int, what: str):
        value = array[row - 1].as_py()
        return ValueError(
            f"{name}, row {row}: column {column!r} must hold finite numbers, got "
            f"{value!r}{what}; fix the value or name another column"
        )

    if array.null_count:
        raise bad(_first_row(array.is_null()), " (empty)")
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        import pyarrow.compute as pc  # numbers written as text: rare

        try:
            array = pc.cast(array, pa.float64())
        except pa.ArrowInvalid:
            for row, value in enumerate(array.to_pylist(), start=1):
                try:
                    pc.cast(pa.array([value]), pa.float64())
                except pa.ArrowInvalid:
                    raise bad(row, "") from None
            raise
    elif not (
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
    ):
        raise ValueError(
            f"{name}: column {column!r} holds {kind} values, not numbers; name "
            "another column"
        )
    values = _primitive(array).astype(np.float64, copy=False)
    finite = np.isfinite(values)
    if not finite.all():
        raise bad(_first_row(~finite), "")
    return values


def _primitive(array: Any) -> np.ndarray:
    """A numeric Arrow array without nulls as numpy, straight from its data
    buffer (``Array.to_numpy`` imports pandas, about 0.3 s, when installed)."""
    import pyarrow as pa

    n, at = len(array), array.offset
    data = array.buffers()[1]
    if pa.types.is_boolean(array.type):
        bits = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")
        return bits[at : at + n].astype(bool)
    width = array.type.bit_width // 8
    if pa.types.is_floating(array.type):
        dtype = np.dtype(f"<f{width}")
    else:
        dtype = np.dtype(
            f"<{'i' if pa.types.is_signed_integer(array.type) else 'u'}{width}"
        )
    return np.frombuffer(data, dtype)[at : at + n]


def arrow_spans(array: Any, column: str, name: str):
    """An Arrow id column as (buffer padded with zero bytes, starts, ends): the
    column's own string bytes, one span per row (numbers written as text)."""
    import pyarrow as pa

    if array.null_count:
        row = _first_row(array.is_null())
        raise ValueError(
            f"{name}, row {row}: column {column!r} has a missing id; every row "
            "needs one"
        )
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        if not (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)):
            raise ValueError(
                f"{name}: column {column!r} holds {array.type} values; ids must be "
                "text or numbers"
            )
        array = array.cast(pa.string())
    large = pa.types.is_large_string(array.type)
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, np.int64 if large else np.int32)
    offsets = offsets[array.offset : array.offset + len(array) + 1]
    base, stop = int(offsets[0]), int(offsets[-1])
    buf = np.zeros(stop - base + _text.PAD, np.uint8)
    if data is not None and stop > base:
        buf[: stop - base] = np.frombuffer(data, np.uint8)[base:stop]
    starts = offsets[:-1] - base
    ends = offsets[1:] - base
    index = np.int32 if buf.size < 2**31 - 1 else np.int64
    return buf, starts.astype(index, copy=False), ends.astype(index, copy=False)


def arrow_codes(array: Any, column: str, name: str):
    """An Arrow id column as ``(codes, (buf, starts, ends))``: an integer code per
    row and the span of each code's value, or None for the codes of a column
    that is not dictionary-encoded (then :func:`arrow_spans` of every row).

    A dictionary's values are factorized again (a dictionary may repeat a
    value): equal ids, equal codes.
    """
    import pyarrow as pa

    from ._spans import factorize

    if not pa.types.is_dictionary(array.type) or array.dictionary.null_count:
        if pa.types.is_dictionary(array.type):
            array = array.dictionary_decode()
        return None, arrow_spans(array, column, name)
    if array.null_count:
        raise ValueError(
            f"{name}, row {_first_row(array.is_null())}: column {column!r} has a "
            "missing id; every row needs one"
        )
    buf, starts, ends = arrow_spans(array.dictionary, column, name)
    value_codes, first = factorize(buf, starts, ends)
    codes = value_codes[_primitive(array.indices)]
    return codes, (buf, starts[first], ends[first])
