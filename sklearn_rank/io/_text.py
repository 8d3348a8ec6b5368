"""Whitespace-separated text files as byte spans, vectorized with numpy.

Why not a library parser: TREC files separate fields by any run of blanks and
tabs and allow extra trailing fields (results.trunc in trec_eval's own tests), which
pyarrow's CSV reader (one delimiter character) cannot express; pandas' C parser can
(``sep=r"\\s+"``) but costs about 0.4 s of import and a Python object per field,
more than the whole evaluation of a million-line run. So the bytes are split here:
every step is a numpy pass over the buffer, peak memory stays a small multiple of
the file size whatever the longest field (no ``lines x longest-field`` matrix), and
string fields become integer codes through a 64-bit hash whose collisions are
checked byte for byte (a collision falls back to exact factorization).
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

BOM = b"\xef\xbb\xbf"
_BLOCK_BYTES = 1 << 23  # lines are split a block at a time (bounded temporaries)
_NUMBER_WIDTH = 40  # longer numeric fields are parsed one by one


def read_bytes(source: Any) -> tuple[bytes, str]:
    """The whole content of a path or stream (gzip'd or not), without a BOM."""
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        path = os.fspath(source)
        name = os.fsdecode(path)
        with open(path, "rb") as handle:
            data = handle.read()
    if data[:2] == b"\x1f\x8b":  # gzip magic, whatever the file is called
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: not a readable gzip file ({exc})") from None
    if data.startswith(BOM):
        data = data[len(BOM) :]
    return data, name


def check_utf8(data: bytes, name: str) -> None:
    """Raise with the file name and line when ``data`` is not UTF-8."""
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(
            f"{name}, line {line}: not valid UTF-8 (byte 0x{data[exc.start]:02x} "
            f"at column {column}); save the file as UTF-8"
        ) from None


def error(name: str, line: int, what: str, text: str | None = None) -> ValueError:
    msg = f"{name}, line {line}: {what}"
    if text is not None:
        msg += f": {text.rstrip()!r}"
    return ValueError(msg)


@dataclass
class Fields:
    """Byte spans ``[start, end)`` of the wanted fields of every data line."""

    buf: np.ndarray  # uint8 view of the file content
    starts: list[np.ndarray]
    ends: list[np.ndarray]
    line: np.ndarray  # 1-based line number of each row
    name: str


def _line_text(data: bytes, start: int) -> str:
    end = data.find(b"\n", start)
    return data[start : None if end < 0 else end].decode("utf-8", "replace")


def _edges(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end of every field, and the positions of the newlines."""
    # isspace: blank and \t \n \v \f \r (comparisons beat a table look-up)
    word = (block != 32) & ((block < 9) | (block > 13))
    edges = np.flatnonzero(word[1:] != word[:-1]) + 1
    if word[0]:
        edges = np.concatenate([[0], edges])
    if word[-1]:
        edges = np.concatenate([edges, [word.size]])
    return edges[::2], edges[1::2], np.flatnonzero(block == 10)


def _regular(f_start, f_end, newlines, n_lines, n_fields, block):
    """First-field index of each line when every line has exactly ``n_fields``
    fields and none is a comment (the common case: no per-field line search);
    None otherwise."""
    if f_start.size != n_fields * n_lines:
        return None
    first = np.arange(0, f_start.size, n_fields)
    last_end = f_end[n_fields - 1 :: n_fields]
    ends_ok = (last_end[: newlines.size] <= newlines).all()
    starts_ok = (f_start[first[1:]] > newlines[: n_lines - 1]).all()
    if not (ends_ok and starts_ok) or (block[f_start[first]] == ord("#")).any():
        return None
    return first


def _general(
    f_start,
    newlines,
    n_lines,
    n_fields,
    exact,
    block,
    name,
    layout,
    first_line,
    data,
    pos,
):
    """Fields per line for blank lines, comments and extra fields; raises on a
    line with the wrong number of fields."""
    line_of = np.searchsorted(newlines, f_start)
    counts = np.bincount(line_of, minlength=n_lines)
    first = np.cumsum(counts) - counts
    keep = counts > 0
    keep[keep] = block[f_start[first[keep]]] != ord("#")
    bad = keep & ((counts != n_fields) if exact else (counts < n_fields))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        line_start = 0 if i == 0 else int(newlines[i - 1]) + 1
        raise error(
            name,
            first_line + i,
            f"expected {'' if exact else 'at least '}{n_fields} "
            f"whitespace-separated fields ({layout}), found {counts[i]}",
            _line_text(data, pos + line_start),
        )
    return first[keep], keep


def split_fields(
    data: bytes, name: str, n_fields: int, exact: bool, wanted: list[int], layout: str
) -> Fields:
    """Split lines into whitespace-separated fields; keep the ``wanted`` ones.

    Blank lines and lines whose first field starts with ``#`` are skipped.
    ``exact`` requires exactly ``n_fields`` per line, otherwise at least.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    starts: list[list[np.ndarray]] = [[] for _ in wanted]
    ends: list[list[np.ndarray]] = [[] for _ in wanted]
    lines: list[np.ndarray] = []
    first_line, pos = 1, 0
    while pos < len(data):
        stop = min(pos + _BLOCK_BYTES, len(data))
        if stop < len(data):
            cut = data.rfind(b"\n", pos, stop)
            stop = data.find(b"\n", stop) + 1 if cut < 0 else cut + 1
            stop = len(data) if stop == 0 else stop
        block = buf[pos:stop]
        f_start, f_end, newlines = _edges(block)
        n_lines = newlines.size + (0 if block[-1] == 10 else 1)
        first = _regular(f_start, f_end, newlines, n_lines, n_fields, block)
        if first is not None:  # every line holds exactly n_fields fields
            keep = np.ones(n_lines, bool)
        else:
            first, keep = _general(
                f_start,
                newlines,
                n_lines,
                n_fields,
                exact,
                block,
                name,
                layout,
                first_line,
                data,
                pos,
            )
        idx = np.flatnonzero(keep)
        for j, field in enumerate(wanted):
            at = first + field
            starts[j].append(f_start[at] + pos)
            ends[j].append(f_end[at] + pos)
        lines.append(idx + first_line)
        first_line += n_lines
        pos = stop

    def cat(parts):
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    return Fields(
        buf=buf,
        starts=[cat(s) for s in starts],
        ends=[cat(e) for e in ends],
        line=cat(lines).astype(np.int64),
        name=name,
    )


# ---------------------------------------------------------------- string fields


_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(8)] + [2**64 - 1], np.uint64)
_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _words(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The 8 bytes at each position, as little-endian uint64 (zeros past the end).

    An unaligned strided view reads a word per field: a field of L bytes costs
    ceil(L / 8) loads, so work and memory grow with the bytes, not the longest.
    """
    n = buf.size
    out = np.zeros(pos.size, np.uint64)
    if n >= 8:
        view = np.ndarray((n - 7,), "<u8", buffer=buf, offset=0, strides=(1,))
        inside = pos <= n - 8
        out[inside] = view[pos[inside]]
    else:
        inside = np.zeros(pos.size, bool)
    if not inside.all():
        tail_start = max(n - 8, 0)
        tail = np.zeros(24, np.uint8)
        tail[: n - tail_start] = buf[tail_start:]
        tail_view = np.ndarray((17,), "<u8", buffer=tail, offset=0, strides=(1,))
        out[~inside] = tail_view[pos[~inside] - tail_start]
    return out


def _word_passes(lengths: np.ndarray):
    """(k, rows longer than 8k bytes, mask of their k-th word), k = 0, 1, ..."""
    live = np.arange(lengths.size)
    k = 0
    while live.size:
        remaining = lengths[live] - 8 * k
        yield k, live, _MASKS[np.minimum(remaining, 8)]
        live = live[remaining > 8]
        k += 1


def hash_spans(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each field's bytes (its length mixed in)."""
    lengths = (ends - starts).astype(np.int64)
    h = lengths.astype(np.uint64) * _P2
    with np.errstate(over="ignore"):
        for k, live, mask in _word_passes(lengths):
            word = _words(buf, starts[live] + 8 * k) & mask
            mixed = (h[live] ^ word) * _P1
            h[live] = mixed ^ (mixed >> np.uint64(29))
    return h


def _same_bytes(
    buf_a: np.ndarray,
    a_start: np.ndarray,
    buf_b: np.ndarray,
    b_start: np.ndarray,
    lengths: np.ndarray,
) -> bool:
    """Whether every field a equals field b (lengths already equal)."""
    for k, live, mask in _word_passes(lengths):
        wa = _words(buf_a, a_start[live] + 8 * k) & mask
        wb = _words(buf_b, b_start[live] + 8 * k) & mask
        if not np.array_equal(wa, wb):
            return False
    return True


def factorize(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of byte-string fields: (codes, index of each code's first row).

    Codes number the distinct strings in an arbitrary order. Runs of equal
    consecutive fields (a query id repeated on every line) are collapsed first.
    """
    n = starts.size
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    h = hash_spans(buf, starts, ends)
    head = np.r_[True, h[1:] != h[:-1]]
    heads = np.flatnonzero(head)
    _, first, inverse = np.unique(h[heads], return_index=True, return_inverse=True)
    codes = inverse.reshape(-1)[np.cumsum(head) - 1]
    first = heads[first]
    rep = first[codes]
    lengths = ends - starts
    if np.array_equal(lengths, lengths[rep]) and _same_bytes(
        buf, starts, buf, starts[rep], lengths
    ):
        return codes.astype(np.int64), first
    return _factorize_exact(buf, starts, ends)  # a hash collision: exact path


def _factorize_exact(buf, starts, ends):
    """Codes through a dict of the field bytes: slow, exact, never used unless
    two different fields share a 64-bit hash."""
    view = memoryview(buf)
    table: dict[bytes, int] = {}
    codes = np.fromiter(
        (
            table.setdefault(bytes(view[s:e]), len(table))
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
        ),
        np.int64,
        starts.size,
    )
    _, first = np.unique(codes, return_index=True)
    return codes, first


def decode(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The given fields as Python strings (for the few that need text)."""
    view = memoryview(buf)
    return [
        bytes(view[s:e]).decode("utf-8")
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
    ]


# ---------------------------------------------------------------- number fields


def _fixed(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int):
    """Fields of at most ``width`` bytes as a fixed-width bytes array."""
    lengths = (ends - starts).astype(np.int64)
    n_words = max(1, -(-width // 8))
    table = np.zeros((starts.size, n_words), np.uint64)
    for k in range(n_words):
        mask = _MASKS[np.clip(lengths - 8 * k, 0, 8)]
        table[:, k] = _words(buf, starts + 8 * k) & mask
    return table.view(f"S{8 * n_words}").reshape(-1)


def parse_numbers(
    fields: Fields, column: int, what: str, kind: type, hint: str = ""
) -> np.ndarray:
    """Parse a column as finite float64 (or int64); name the first bad line."""
    starts, ends = fields.starts[column], fields.ends[column]
    lengths = ends - starts
    dtype = np.float64 if kind is float else np.int64
    out = np.empty(starts.size, dtype)
    short = lengths <= _NUMBER_WIDTH
    width = int(lengths[short].max()) if short.any() else 1
    bad_at = None
    try:
        with np.errstate(all="ignore"):
            out[short] = _fixed(fields.buf, starts[short], ends[short], width).astype(
                dtype
            )
    except (ValueError, OverflowError):
        bad_at = np.flatnonzero(short)
    for i in np.flatnonzero(~short).tolist() if bad_at is None else []:
        try:
            out[i] = kind(bytes(fields.buf[starts[i] : ends[i]]))
        except (ValueError, OverflowError):
            bad_at = np.array([i])
            break
    if bad_at is None and kind is float:
        finite = np.isfinite(out)
        if not finite.all():
            bad_at = np.flatnonzero(~finite)[:1]
    if bad_at is not None:
        for i in bad_at.tolist():
            text = bytes(fields.buf[starts[i] : ends[i]])
            try:
                value = kind(text)
                ok = kind is int or bool(np.isfinite(value))
            except (ValueError, OverflowError):
                ok = False
            if not ok:
                shown = text.decode("utf-8", "replace")
                raise error(
                    fields.name,
                    int(fields.line[i]),
                    f"the {what} field must be "
                    f"{'a finite number' if kind is float else 'an integer'}, "
                    f"got {shown!r}{hint}",
                )
    return out
