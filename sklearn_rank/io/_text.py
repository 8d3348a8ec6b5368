"""Whitespace-separated text files as byte spans, vectorized with numpy.

Why not a library parser: TREC files separate fields by any run of blanks and
tabs and allow extra trailing fields (results.trunc in trec_eval's own tests), which
pyarrow's CSV reader (one delimiter character) cannot express; pandas' C parser can
(``sep=r"\\s+"``) but costs about 0.4 s of import and a Python object per field,
more than the whole evaluation of a million-line run. So the bytes are split here:
every step is a numpy pass over the buffer, and peak memory stays a small multiple
of the file size whatever the longest field (no ``lines x longest-field`` matrix).
String fields are hashed, compared and factorized in :mod:`._spans`, number fields
parsed in :mod:`._numbers`.

Fast paths, each with the general path behind it: blocks of regular lines (one
separator between fields) are split from one ``flatnonzero`` of the separators; a
file is read straight into a buffer padded with zero bytes, so word loads never
need bounds checks.
"""

from __future__ import annotations

import codecs
import gzip
import itertools
import os
import stat
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ._threads import run_pieces

BOM = b"\xef\xbb\xbf"
_BLOCK_BYTES = 1 << 20  # lines are split a block at a time (bounded temporaries)


def read_bytes(source: Any, keep_bom: bool = False) -> tuple[bytes, str]:
    """The whole content of a path or stream (gzip'd or not), without a BOM
    (unless ``keep_bom``)."""
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
    return _plain(data, name, keep_bom), name


def _plain(data: bytes, name: str, keep_bom: bool = False) -> bytes:
    """``data`` gunzipped when it is gzip'd, without a BOM (unless kept)."""
    if data[:2] == b"\x1f\x8b":  # gzip magic, whatever the file is called
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: not a readable gzip file ({exc})") from None
    if data.startswith(BOM) and not keep_bom:
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
        msg += f": {shown(text.rstrip())}"
    return ValueError(msg)


_SHOWN = 80  # characters of a field or line quoted in a message


def shown(text: str) -> str:
    """``repr(text)``, cut to its first characters when it is long (a message
    quoting a 10 MB field stays one readable line)."""
    if len(text) <= _SHOWN:
        return repr(text)
    return f"{text[:_SHOWN]!r}... ({len(text):,} characters)"


# Zero bytes after the content of a buffer from :func:`read_buffer`: an 8-byte
# word load at any position inside the content stays inside the array.
PAD = 8


_READ_BYTES = 8 << 20  # a regular file is read this much at a time


def read_buffer(
    source: Any, progress: Any = None, keep_bom: bool = False
) -> tuple[np.ndarray, str]:
    """The content of a path or stream (gzip'd or not, BOM stripped unless
    ``keep_bom``: trec_eval reads it as part of the first field) as a uint8
    array followed by :data:`PAD` zero bytes (``buf.size - PAD`` content bytes).

    A regular file that is not gzip'd is mapped when large (:func:`_mapped`),
    else read straight into the array: no intermediate ``bytes``.
    ``progress(done, total, "read")`` is called after each :data:`_READ_BYTES`
    read (once for a mapped file).
    """
    if hasattr(source, "read"):
        data, name = read_bytes(source, keep_bom)
    else:
        path = os.fspath(source)
        name = os.fsdecode(path)
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):  # a pipe, /dev/stdin: no size
                data = _plain(handle.read(), name, keep_bom)
            elif (mapped := _mapped(handle, info.st_size, progress)) is not None:
                buf = mapped
                if buf[:3].tobytes() == BOM and not keep_bom:
                    buf = buf[len(BOM) :]
                return buf, name
            else:
                size = info.st_size
                buf = np.empty(size + PAD, np.uint8)
                got = _read_into(handle, memoryview(buf)[:size], progress)
                more = handle.read()  # a file that grew while being read
                if got == size and not more and buf[:2].tobytes() != b"\x1f\x8b":
                    buf[size:] = 0
                    if buf[:3].tobytes() == BOM and not keep_bom:
                        buf = buf[len(BOM) :]
                    return buf, name
                data = _plain(buf[:got].tobytes() + more, name, keep_bom)
                del buf
    buf = np.zeros(len(data) + PAD, np.uint8)
    buf[: len(data)] = np.frombuffer(data, np.uint8)
    return buf, name


_MAP_BYTES = 16 << 20  # regular files at least this large are mapped


def _mapped(handle, size: int, progress: Any) -> np.ndarray | None:
    """A large regular file, not gzip'd, mapped copy-on-write, with the
    :data:`PAD` zero bytes after it, which the zero-filled end of its last page
    holds; None where that end is too short, or the file is small, gzip'd or
    cannot be mapped.

    Why: the mapped pages are the page cache's own, where a read copies the
    file into as much fresh memory, which the kernel must first zero (on the
    project's virtual machines most of the system time of ``eval`` on a 5M-line
    run: 0.76 -> 0.32 s, docs/benchmarks.md). A file truncated by another
    process while it is mapped ends this one (SIGBUS), as with any mapping.
    """
    if size < _MAP_BYTES:
        return None
    import ctypes
    import mmap

    if -size % mmap.PAGESIZE < PAD:
        return None
    try:
        mapped = mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):
        return None
    if mapped[:2] == b"\x1f\x8b":
        mapped.close()
        return None
    # The array runs PAD bytes past the file, inside its last page (mmap
    # refuses a length past the end of the file); it keeps the mapping alive.
    start = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
    view = (ctypes.c_uint8 * (size + PAD)).from_address(start)
    view._mapping = mapped  # type: ignore[attr-defined]
    if progress is not None:
        progress(size, size, "read")
    return np.frombuffer(view, np.uint8)


def _read_into(handle, view: memoryview, progress: Any) -> int:
    """``handle.readinto(view)``, a block at a time when ``progress`` is given."""
    if progress is None:
        return handle.readinto(view) if len(view) else 0
    got = 0
    while got < len(view):
        n = handle.readinto(view[got : got + _READ_BYTES])
        if not n:
            break
        got += n
        progress(got, len(view), "read")
    return got


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


def _simple_blocks(buf, a: int, b: int, n_fields: int, wanted: list[int]):
    """``(start, stop, simple)`` of each block of whole lines of ``[a, b)``
    (``b``: a line's end), in order, with :func:`_simple`'s spans."""
    pos = a
    while pos < b:
        far = pos + _BLOCK_BYTES
        stop = b if far >= b else _next_line(buf, far, b)
        yield pos, stop, _simple(buf[pos:stop], n_fields, wanted)
        pos = stop


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
    progress: Any = None,
    n_threads: int = 1,
) -> Fields:
    """Split lines into whitespace-separated fields; keep the ``wanted`` ones.

    ``buf`` comes from :func:`read_buffer`. Blank lines and lines whose first
    field starts with ``#`` are skipped. ``exact`` requires exactly ``n_fields``
    per line, otherwise at least. Offsets are int32 for content under 2 GiB.

    The content is cut into blocks of whole lines (bounded temporaries, in
    cache); each block's spans go straight into arrays sized for the most lines
    the content could hold, of which only the pages written are ever touched.
    With ``n_threads`` (and no ``progress``), the content is first cut into
    one range of whole lines per thread, whose lines are counted: each thread
    then splits its range, block after block, into the rows from the count of
    the lines before it (rows of skipped lines closed up after), so the spans
    and the first bad line named are those of one thread.
    """
    n = buf.size - PAD
    index = np.int32 if n < 2**31 - 1 else np.int64
    # A data line holds n_fields fields and as many separators.
    capacity = n // (2 * n_fields) + 1
    out = (
        [np.empty(capacity, index) for _ in wanted],
        [np.empty(capacity, index) for _ in wanted],
        np.empty(capacity, index),  # line numbers
    )
    ranges = _line_ranges(buf, n, n_threads) if progress is None else [(0, n)]
    rows = 0
    if len(ranges) > 1:
        lines = run_pieces(partial(_count_lines, buf), ranges, n_threads, trim=False)
        first_line = np.cumsum([1, *lines[:-1]]).tolist()
        if buf[n - 1] != 10:  # the last line lacks its newline
            lines[-1] += 1
        first_row = np.cumsum([0, *lines[:-1]]).tolist()
        if first_row[-1] + lines[-1] <= capacity:
            split = partial(
                _split_range, buf, name, n_fields, exact, wanted, layout, out, None
            )
            pieces = zip(ranges, first_row, first_line, strict=True)
            ends = run_pieces(lambda r: split(*r), pieces, n_threads)
            for k, end in enumerate(ends):  # skipped lines: rows closed up
                if first_row[k] != rows:
                    for column in (*out[0], *out[1], out[2]):
                        column[rows : rows + end - first_row[k]] = column[
                            first_row[k] : end
                        ]
                rows += end - first_row[k]
            ranges = []
        else:  # mostly blank lines: more lines than rows fit
            ranges = [(0, n)]
    if ranges:
        rows = _split_range(
            buf, name, n_fields, exact, wanted, layout, out, progress, (0, n), 0, 1
        )
    starts, ends_, line = out
    return Fields(
        buf=buf,
        starts=[s[:rows] for s in starts],
        ends=[e[:rows] for e in ends_],
        line=line[:rows],
        name=name,
    )


def _line_ranges(buf, n: int, n_threads: int) -> list[tuple[int, int]]:
    """``[0, n)`` cut into one range of whole lines per thread (one range
    below two blocks per thread)."""
    cuts = [0]
    if n_threads > 1 and n >= 2 * _BLOCK_BYTES:
        for k in range(1, n_threads):
            at = _next_line(buf, n * k // n_threads, n)
            if cuts[-1] < at < n:
                cuts.append(at)
    cuts.append(n)
    return list(itertools.pairwise(cuts))


def _count_lines(buf, ab: tuple[int, int]) -> int:
    """The newlines of ``buf[a:b]``, a block at a time (bounded temporaries)."""
    a, b = ab
    return sum(
        int(np.count_nonzero(buf[i : min(i + _BLOCK_BYTES, b)] == 10))
        for i in range(a, b, _BLOCK_BYTES)
    )


def _split_range(
    buf, name, n_fields, exact, wanted, layout, out, progress, ab, rows, first_line
) -> int:
    """:func:`split_fields` of the lines of ``buf[a:b]`` into ``out``'s rows
    from ``rows`` (``first_line``: the number of the range's first line);
    the row after the last written."""
    starts, ends, line = out
    n = buf.size - PAD
    a, b = ab
    for pos, stop, simple in _simple_blocks(buf, a, b, n_fields, wanted):
        block = buf[pos:stop]
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
        if progress is not None:
            progress(stop, n, "split")
    return rows
