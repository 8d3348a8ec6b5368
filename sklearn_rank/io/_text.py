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

Fast paths, each with the general path behind it: blocks of regular lines (one
separator between fields) are split from one ``flatnonzero`` of the separators;
plain decimal numbers of up to 8 bytes are parsed a word at a time, exactly as
``float()`` parses them; a file is read straight into a buffer padded with zero
bytes, so word loads never need bounds checks.
"""

from __future__ import annotations

import codecs
import gzip
import os
import stat
from dataclasses import dataclass
from typing import Any

import numpy as np

BOM = b"\xef\xbb\xbf"
_BLOCK_BYTES = 1 << 20  # lines are split a block at a time (bounded temporaries)
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
    return _plain(data, name), name


def _plain(data: bytes, name: str) -> bytes:
    """``data`` gunzipped when it is gzip'd, without a BOM."""
    if data[:2] == b"\x1f\x8b":  # gzip magic, whatever the file is called
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: not a readable gzip file ({exc})") from None
    if data.startswith(BOM):
        data = data[len(BOM) :]
    return data


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


# Zero bytes after the content of a buffer from :func:`read_buffer`: an 8-byte
# word load at any position inside the content stays inside the array.
PAD = 8


def read_buffer(source: Any) -> tuple[np.ndarray, str]:
    """The content of a path or stream (gzip'd or not, BOM stripped) as a uint8
    array followed by :data:`PAD` zero bytes (``buf.size - PAD`` content bytes).

    A regular file that is not gzip'd is read straight into the array: no
    intermediate ``bytes``.
    """
    if hasattr(source, "read"):
        data, name = read_bytes(source)
    else:
        path = os.fspath(source)
        name = os.fsdecode(path)
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):  # a pipe, /dev/stdin: no size
                data = _plain(handle.read(), name)
            else:
                size = info.st_size
                buf = np.empty(size + PAD, np.uint8)
                got = handle.readinto(memoryview(buf)[:size]) if size else 0
                more = handle.read()  # a file that grew while being read
                if got == size and not more and buf[:2].tobytes() != b"\x1f\x8b":
                    buf[size:] = 0
                    if buf[:3].tobytes() == BOM:
                        buf = buf[len(BOM) :]
                    return buf, name
                data = _plain(buf[:got].tobytes() + more, name)
                del buf
    buf = np.zeros(len(data) + PAD, np.uint8)
    buf[: len(data)] = np.frombuffer(data, np.uint8)
    return buf, name


def check_utf8_buffer(buf: np.ndarray, name: str) -> None:
    """:func:`check_utf8` for a buffer from :func:`read_buffer`."""
    body = buf[: buf.size - PAD]
    if body.size == 0 or int(body.max()) < 128:
        return
    try:
        codecs.utf_8_decode(body, "strict", True)
    except UnicodeDecodeError as exc:
        line = int(np.count_nonzero(body[: exc.start] == 10)) + 1
        nl = np.flatnonzero(body[: exc.start] == 10)
        column = exc.start - (int(nl[-1]) + 1 if nl.size else 0) + 1
        raise ValueError(
            f"{name}, line {line}: not valid UTF-8 (byte 0x{int(body[exc.start]):02x} "
            f"at column {column}); save the file as UTF-8"
        ) from None


@dataclass
class Fields:
    """Byte spans ``[start, end)`` of the wanted fields of every data line."""

    buf: np.ndarray  # uint8 view of the file content (then PAD zero bytes)
    starts: list[np.ndarray]
    ends: list[np.ndarray]
    line: np.ndarray  # 1-based line number of each row
    name: str


def _line_text(buf: np.ndarray, start: int) -> str:
    n = buf.size - PAD
    stop = _next_line(buf, start, n)
    return buf[start:stop].tobytes().rstrip(b"\n").decode("utf-8", "replace")


def _next_line(buf: np.ndarray, i: int, n: int) -> int:
    """The position after the first newline at or after ``i`` (or ``n``)."""
    window = 1 << 16
    while i < n:
        hits = np.flatnonzero(buf[i : min(i + window, n)] == 10)
        if hits.size:
            return i + int(hits[0]) + 1
        i += window
        window *= 2
    return n


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


def _simple(block: np.ndarray, n_fields: int, wanted: list[int]):
    """Field spans when every line holds exactly ``n_fields`` fields separated by
    single blanks or tabs and ends with one newline (or the end of the block),
    with no comment: one pass finds every separator. None otherwise (the general
    path then decides, with the same rules)."""
    sep = block <= 32  # every whitespace byte, and control bytes (checked below)
    if sep[0] or (sep[1:] & sep[:-1]).any():
        return None  # a leading blank, an empty line or a run of separators
    pos = np.flatnonzero(sep)
    if block[-1] != 10:  # the last line lacks its newline: the end closes it
        pos = np.append(pos, block.size)
    if pos.size == 0 or pos.size % n_fields:
        return None
    grid = pos.reshape(-1, n_fields)
    ends = grid[:, -1]
    inner = block[grid[:, :-1]]
    if not (((inner == 32) | (inner == 9)).all() and (block[ends[:-1]] == 10).all()):
        return None
    if block[0] == 35 or (block[ends[:-1] + 1] == 35).any():  # '#': a comment
        return None
    spans = []
    for field in wanted:
        end = grid[:, field]
        if field:
            start = grid[:, field - 1] + 1
        else:
            start = np.empty_like(end)
            start[0] = 0
            start[1:] = ends[:-1] + 1
        spans.append((start, end))
    return spans, ends.size


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
    buf,
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
            _line_text(buf, pos + line_start),
        )
    return first[keep], keep


def split_fields(
    buf: np.ndarray,
    name: str,
    n_fields: int,
    exact: bool,
    wanted: list[int],
    layout: str,
) -> Fields:
    """Split lines into whitespace-separated fields; keep the ``wanted`` ones.

    ``buf`` comes from :func:`read_buffer`. Blank lines and lines whose first
    field starts with ``#`` are skipped. ``exact`` requires exactly ``n_fields``
    per line, otherwise at least. Offsets are int32 for content under 2 GiB.

    The content is cut into blocks of whole lines (bounded temporaries, in
    cache); each block's spans go straight into arrays sized for the most lines
    the content could hold, of which only the pages written are ever touched.
    """
    n = buf.size - PAD
    index = np.int32 if n < 2**31 - 1 else np.int64
    # A data line holds n_fields fields and as many separators.
    capacity = n // (2 * n_fields) + 1
    starts = [np.empty(capacity, index) for _ in wanted]
    ends = [np.empty(capacity, index) for _ in wanted]
    line = np.empty(capacity, index)
    rows, first_line, pos = 0, 1, 0
    while pos < n:
        stop = n if pos + _BLOCK_BYTES >= n else _next_line(buf, pos + _BLOCK_BYTES, n)
        block = buf[pos:stop]
        simple = _simple(block, n_fields, wanted)
        if simple is not None:
            spans, n_lines = simple
            end = rows + n_lines
            for j, (s, e) in enumerate(spans):
                np.add(s, pos, out=starts[j][rows:end], casting="unsafe")
                np.add(e, pos, out=ends[j][rows:end], casting="unsafe")
            line[rows:end] = np.arange(first_line, first_line + n_lines)
        else:
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
                    buf,
                    pos,
                )
            idx = np.flatnonzero(keep)
            end = rows + idx.size
            for j, field in enumerate(wanted):
                at = first + field
                np.add(f_start[at], pos, out=starts[j][rows:end], casting="unsafe")
                np.add(f_end[at], pos, out=ends[j][rows:end], casting="unsafe")
            line[rows:end] = idx + first_line
        rows = end
        first_line += n_lines
        pos = stop
    return Fields(
        buf=buf,
        starts=[s[:rows] for s in starts],
        ends=[e[:rows] for e in ends],
        line=line[:rows],
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
    In a buffer from :func:`read_buffer` every load is inside the array.
    """
    n = buf.size
    if n >= 8:
        view = np.ndarray((n - 7,), "<u8", buffer=buf, offset=0, strides=(1,))
        if pos.size == 0 or int(pos.max()) <= n - 8:
            return view[pos]
        out = np.zeros(pos.size, np.uint64)
        inside = pos <= n - 8
        out[inside] = view[pos[inside]]
    else:
        out = np.zeros(pos.size, np.uint64)
        inside = np.zeros(pos.size, bool)
    if not inside.all():
        tail_start = max(n - 8, 0)
        tail = np.zeros(24, np.uint8)
        tail[: n - tail_start] = buf[tail_start:]
        tail_view = np.ndarray((17,), "<u8", buffer=tail, offset=0, strides=(1,))
        out[~inside] = tail_view[pos[~inside] - tail_start]
    return out


def _word_passes(lengths: np.ndarray):
    """(k, rows longer than 8k bytes, mask of their k-th word), k = 0, 1, ...

    The rows are None while every row is still that long (no index arrays).
    """
    live = None
    k = 0
    while True:
        remaining = (lengths if live is None else lengths[live]) - 8 * k
        if remaining.size == 0:
            return
        yield k, live, _MASKS[np.minimum(remaining, 8)]
        more = remaining > 8
        if live is not None:
            live = live[more]
        elif not more.all():
            live = np.flatnonzero(more)
        k += 1


def hash_spans(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each field's bytes (its length mixed in)."""
    if starts.size <= _HASH_ROWS:
        return _hash_chunk(buf, starts, ends)
    out = np.empty(starts.size, np.uint64)
    for begin in range(0, starts.size, _HASH_ROWS):  # temporaries stay in cache
        part = slice(begin, begin + _HASH_ROWS)
        out[part] = _hash_chunk(buf, starts[part], ends[part])
    return out


_HASH_ROWS = 1 << 16


def _hash_chunk(buf, starts, ends):
    lengths = ends - starts
    h = lengths.astype(np.uint64) * _P2
    shift = np.uint64(29)
    with np.errstate(over="ignore"):
        for k, live, mask in _word_passes(lengths):
            if live is None:
                word = _words(buf, starts + 8 * k if k else starts)
                word &= mask
                h ^= word
                h *= _P1
                h ^= h >> shift
            else:
                word = _words(buf, starts[live] + 8 * k) & mask
                mixed = (h[live] ^ word) * _P1
                h[live] = mixed ^ (mixed >> shift)
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
        at_a = a_start if live is None else a_start[live]
        at_b = b_start if live is None else b_start[live]
        wa = _words(buf_a, at_a + 8 * k) & mask
        wb = _words(buf_b, at_b + 8 * k) & mask
        if not np.array_equal(wa, wb):
            return False
    return True


def same_spans(
    buf_a: np.ndarray,
    a_start: np.ndarray,
    a_end: np.ndarray,
    buf_b: np.ndarray,
    b_start: np.ndarray,
    b_end: np.ndarray,
) -> np.ndarray:
    """Per pair, whether field a and field b hold the same bytes."""
    lengths = a_end - a_start
    same = lengths == b_end - b_start
    for k, live, mask in _word_passes(lengths):
        at_a = a_start if live is None else a_start[live]
        at_b = b_start if live is None else b_start[live]
        differ = (_words(buf_a, at_a + 8 * k) ^ _words(buf_b, at_b + 8 * k)) & mask
        if live is None:
            same &= differ == 0
        else:
            same[live] &= differ == 0
    return same


def factorize(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, appearance: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of byte-string fields: (codes, index of each code's first row).

    Codes number the distinct strings in order of first appearance (in hash
    order with ``appearance=False``, which saves a sort). Runs of equal
    consecutive fields (a query id repeated on every line) are found by comparing
    each field's bytes with the previous one's; only the first field of each run
    is hashed, and fields sharing a hash are checked byte for byte.
    """
    n = starts.size
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lengths = ends - starts
    head = np.empty(n, bool)
    head[0] = True
    np.not_equal(lengths[1:], lengths[:-1], out=head[1:])
    for k, live, mask in _word_passes(lengths):
        word = _words(buf, starts + 8 * k if live is None else starts[live] + 8 * k)
        word &= mask
        if live is not None:  # shorter fields: zero words (their length differs)
            full = np.zeros(n, np.uint64)
            full[live] = word
            word = full
        head[1:] |= word[1:] != word[:-1]
    heads = np.flatnonzero(head)
    h = hash_spans(buf, starts[heads], ends[heads])
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rep = heads[first[inverse]]
    if not (
        np.array_equal(lengths[heads], lengths[rep])
        and _same_bytes(buf, starts[heads], buf, starts[rep], lengths[heads])
    ):
        return _factorize_exact(buf, starts, ends)  # a hash collision: exact path
    if not appearance:  # codes in hash order (no sort of the first rows)
        return inverse[np.cumsum(head) - 1], heads[first]
    # Number the codes in order of first appearance: a file grouped by query
    # then has non-decreasing codes (sorts of keys led by them run fast).
    by_appearance = np.argsort(first)
    renumber = np.empty(first.size, np.int64)
    renumber[by_appearance] = np.arange(first.size)
    codes = renumber[inverse][np.cumsum(head) - 1]
    return codes, heads[first[by_appearance]]


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


def byte_order_words(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, max_words: int = 4
) -> list[np.ndarray] | None:
    """Big-endian 8-byte words of each field, zero-padded: sorting by the words
    (first most significant), then by length, is sorting by the bytes. None
    when a field is longer than ``max_words`` words (memory stays bounded)."""
    lengths = ends - starts
    n_words = -(-int(lengths.max()) // 8) if lengths.size else 0
    if n_words > max_words:
        return None
    out = []
    for k in range(n_words):
        inside = lengths > 8 * k
        at = np.where(inside, starts + 8 * k, starts)  # past the end: masked
        word = _words(buf, at) & _MASKS[np.clip(lengths - 8 * k, 0, 8)]
        out.append(word.byteswap())
    return out


def decode(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The given fields as Python strings.

    When they are many (a string per row) and the buffer is ASCII, the buffer is
    decoded once and sliced: byte offsets are then character offsets.
    """
    if starts.size * 64 > buf.size and int(buf.max(initial=0)) < 128:
        text = buf.tobytes().decode("ascii")
        return [text[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
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


# Plain decimals ([+-]digits[.digits]) of at most this many bytes take the fast
# path; rows are converted this many at a time (bounded temporaries).
_PLAIN_WIDTH = 24
_PLAIN_ROWS = 1 << 16
_POW10 = np.array([10**e for e in range(20)], np.uint64)
_POW10_FLOAT = np.array([10.0**e for e in range(23)])


def plain_decimals(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Values of the fields written as plain decimals, and which fields are.

    A field is plain when it is an optional sign, digits with at most one ``.``
    (``5``, ``-0.25``, ``.5``, ``5.``, ``+3``), at most :data:`_PLAIN_WIDTH`
    bytes, and its digits, read as one integer m with d of them after the point,
    give m < 2**53 and d <= 22. Then m and 10**d are exact doubles and m / 10**d,
    one correctly rounded division, is the double nearest the decimal: exactly
    what ``float()`` (strtod) returns (Clinger's fast path, "How to read floating
    point numbers accurately", PLDI 1990). Other fields get ``ok = False``.
    Fields of at most 8 bytes are read a word at a time (:func:`_plain_words`),
    longer ones a byte column at a time (:func:`_plain_columns`).
    """
    n = starts.size
    lengths = ends - starts
    values = np.zeros(n)
    ok = np.zeros(n, bool)
    word = (lengths >= 1) & (lengths <= 8)
    every = bool(word.all())
    rows = None if every else np.flatnonzero(word)
    # A chunk at a time: the many temporaries stay small and in cache.
    for begin in range(0, n if every else rows.size, _PLAIN_ROWS):
        at = (
            slice(begin, begin + _PLAIN_ROWS)
            if every
            else rows[begin : begin + _PLAIN_ROWS]
        )
        values[at], ok[at] = _plain_words(_words(buf, starts[at]), lengths[at])
    if every:
        return values, ok
    rows = np.flatnonzero(~word & (lengths > 8) & (lengths <= _PLAIN_WIDTH))
    for begin in range(0, rows.size, _PLAIN_ROWS):
        at = rows[begin : begin + _PLAIN_ROWS]
        values[at], ok[at] = _plain_columns(buf, starts[at], lengths[at])
    return values, ok


_U = np.uint64
_ONES = _U(0x0101010101010101)
_HIGH = _U(0x8080808080808080)
_ZEROS = _U(0x3030303030303030)  # eight ASCII '0'
_NIBBLE = _U(0xF0F0F0F0F0F0F0F0)


def _plain_words(word: np.ndarray, length: np.ndarray):
    """:func:`plain_decimals` of fields of 1 to 8 bytes, from their first word
    (bytes past the field are ignored), eight bytes per integer operation."""
    with np.errstate(over="ignore"):
        word &= _MASKS[length]  # the field only
        first = word & _U(0xFF)
        negative = first == _U(45)
        signed = negative | (first == _U(43))
        word >>= signed.view(np.uint8).astype(np.uint64) << _U(3)  # drop the sign
        size = length - signed  # bytes left
        # The lowest byte equal to '.' (the classic zero-byte test on word ^ '.'):
        x = word ^ _U(0x2E2E2E2E2E2E2E2E)
        flags = (x - _ONES) & ~x & _HIGH
        flags &= _MASKS[size]
        lowest = (flags & (~flags + _U(1))) >> _U(7)  # 1 in the dot's byte, or 0
        has_dot = lowest != 0
        # Its index: count the bytes below it (8 when there is none).
        dot = ((((lowest - _U(1)) & _ONES) * _ONES) >> _U(56)).astype(np.intp)
        below = _MASKS[dot]
        word = (word & below) | ((word >> _U(8)) & ~below)  # drop the dot
        n_digits = size - has_dot
        fraction = (size - 1 - dot) * has_dot
        # Right-align the digits under leading '0's: eight digits, SWAR-parsed.
        pad = 8 - n_digits
        word <<= pad.astype(np.uint64) << _U(3)
        word |= _ZEROS & _MASKS[pad]
        ok = (word & _NIBBLE) == _ZEROS
        ok &= ((word + _U(0x0606060606060606)) & _NIBBLE) == _ZEROS
        ok &= n_digits >= 1
        word -= _ZEROS
        word = word * _U(10) + (word >> _U(8))
        word = (
            (word & _U(0x000000FF000000FF)) * _U(100 + (1000000 << 32))
            + ((word >> _U(16)) & _U(0x000000FF000000FF)) * _U(1 + (10000 << 32))
        ) >> _U(32)
        values = word.astype(np.float64)
        values /= _POW10_FLOAT[fraction]
        values[negative] *= -1.0
    return values, ok


def _plain_columns(buf: np.ndarray, s: np.ndarray, length: np.ndarray):
    """:func:`plain_decimals` of fields of up to :data:`_PLAIN_WIDTH` bytes, as
    a rows x bytes table."""
    width = -(-int(length.max()) // 8)
    table = np.empty((s.size, width), np.uint64)
    for k in range(width):
        table[:, k] = _words(buf, s + 8 * k if k else s)
        table[:, k] &= _MASKS[np.clip(length - 8 * k, 0, 8)]
    text = table.view(np.uint8).reshape(s.size, 8 * width)
    digit = text - np.uint8(48)
    is_digit = digit <= 9
    is_dot = text == 46
    inside = np.arange(8 * width) < length[:, None]
    other = inside & ~(is_digit | is_dot)
    sign = (text[:, 0] == 45) | (text[:, 0] == 43)
    n_digits = np.count_nonzero(is_digit, axis=1)
    n_dots = np.count_nonzero(is_dot, axis=1)
    good = (
        (np.count_nonzero(other, axis=1) == sign)
        & (n_digits >= 1)
        & (n_digits <= 19)
        & (n_dots <= 1)
    )
    # Each digit's place: the number of digits after it.
    place = n_digits[:, None] - np.cumsum(is_digit, axis=1, dtype=np.int8)
    place[~is_digit] = 0
    np.minimum(place, 19, out=place)  # more than 19 digits: not plain anyway
    digit[~is_digit] = 0
    with np.errstate(over="ignore"):
        mantissa = (digit * _POW10[place]).sum(axis=1, dtype=np.uint64)
    fraction = np.where(n_dots == 1, length - 1 - np.argmax(is_dot, axis=1), 0)
    good &= (mantissa < np.uint64(2**53)) & (fraction <= 22)
    value = mantissa.astype(np.float64) / _POW10_FLOAT[np.minimum(fraction, 22)]
    value[text[:, 0] == 45] *= -1.0
    return value, good


def parse_numbers(
    fields: Fields, column: int, what: str, kind: type, hint: str = ""
) -> np.ndarray:
    """Parse a column as finite float64 (or int64); name the first bad line.

    Floats written as plain decimals take :func:`plain_decimals`; the others
    (exponents, long mantissas, text) go through numpy's conversion and, past
    :data:`_NUMBER_WIDTH` bytes, ``float()`` one by one.
    """
    if kind is float:
        starts, ends = fields.starts[column], fields.ends[column]
        values, ok = plain_decimals(fields.buf, starts, ends)
        if ok.all():
            return values
        rest = np.flatnonzero(~ok)
        sub = Fields(
            fields.buf, [starts[rest]], [ends[rest]], fields.line[rest], fields.name
        )
        values[rest] = _parse_general(sub, 0, what, kind, hint)
        return values
    return _parse_general(fields, column, what, kind, hint)


def _parse_general(
    fields: Fields, column: int, what: str, kind: type, hint: str = ""
) -> np.ndarray:
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
            if ok:  # numpy refused the column, Python takes this one ("1_000")
                out[i] = value
            else:
                shown = text.decode("utf-8", "replace")
                raise error(
                    fields.name,
                    int(fields.line[i]),
                    f"the {what} field must be "
                    f"{'a finite number' if kind is float else 'an integer'}, "
                    f"got {shown!r}{hint}",
                )
    return out
