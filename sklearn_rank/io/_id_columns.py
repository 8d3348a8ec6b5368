"""Id columns as byte spans, and the packed key tables built on them.

Query ids become integer codes (:class:`_TextColumn`); document ids stay spans with
a 64-bit hash each (:class:`_RowText`), and duplicates come from sorts of packed
integer keys (:func:`_key_table`, :func:`_check_unique`); every hash match is
confirmed byte for byte. The spans come from :mod:`._text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _spans, _text
from ._threads import row_slices, run_pieces, sort_grouped


def _padded(encoded: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A buffer holding the strings one after the other (then ``PAD`` zero
    bytes), and each string's span."""
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    ends = np.cumsum(lengths)
    buf = np.zeros(int(ends[-1]) + _text.PAD if ends.size else _text.PAD, np.uint8)
    buf[: buf.size - _text.PAD] = np.frombuffer(b"".join(encoded), np.uint8)
    return buf, ends - lengths, ends


class _Spans:
    """Byte spans ``buf[starts[i]:ends[i]]`` and their 64-bit hashes."""

    buf: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    _hashes: np.ndarray | None = None

    @property
    def hashes(self) -> np.ndarray:
        """The 64-bit hash of each span (computed once)."""
        return self.hash_rows()

    def hash_rows(self, n_threads: int = 1) -> np.ndarray:
        """:attr:`hashes`, computed a slice of rows per thread (each row's
        hash is its own: the same values at every thread count)."""
        if self._hashes is None:
            # Bounded slices (their temporaries are copied into the output).
            parts = row_slices(self.starts.size, n_threads, _PACK_ROWS // 4)
            if len(parts) == 1:
                self._hashes = _spans.hash_spans(self.buf, self.starts, self.ends)
                return self._hashes
            out = np.empty(self.starts.size, np.uint64)

            def work(part: slice) -> None:
                out[part] = _spans.hash_spans(
                    self.buf, self.starts[part], self.ends[part]
                )

            run_pieces(work, parts, n_threads)
            self._hashes = out
        return self._hashes

    def compacted(self, n_threads: int = 1):
        """The same column over a buffer of its own spans only (the file's
        buffer can then be freed); hashes are kept. ``n_threads``: slices of
        rows copied on threads (:mod:`._threads`)."""
        buf, starts, ends = _spans.compact(
            self.buf, self.starts, self.ends, _text.PAD, n_threads
        )
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.buf, out.starts, out.ends = buf, starts, ends
        return out


class _TextColumn(_Spans):
    """A column of strings as integer codes plus the bytes of each distinct value.

    ``codes[i]`` numbers row i's string; ``buf[starts[c]:ends[c]]`` is the UTF-8 of
    code ``c``. Text is decoded only where it is needed.
    """

    def __init__(self, codes, buf, starts, ends, every_code_held=True):
        self.codes, self.buf, self.starts, self.ends = codes, buf, starts, ends
        self._hashes = None
        # False: some codes may have no row (an Arrow dictionary's unused ids)
        self.every_code_held = every_code_held

    @classmethod
    def from_fields(cls, fields: _text.Fields, column: int) -> _TextColumn:
        return cls.from_spans(fields.buf, fields.starts[column], fields.ends[column])

    @classmethod
    def from_spans(cls, buf, starts, ends) -> _TextColumn:
        """From one span per row (codes in order of first appearance)."""
        codes, first = _spans.factorize(buf, starts, ends)
        return cls(codes, buf, starts[first], ends[first])

    @classmethod
    def from_values(cls, values: Any) -> _TextColumn:
        """From any array of ids (their ``str``), e.g. a table column."""
        table: dict[str, int] = {}
        codes = np.fromiter(
            (table.setdefault(str(v), len(table)) for v in np.asarray(values).tolist()),
            np.int64,
            len(values),
        )
        return cls.from_codes(codes, list(table))

    @classmethod
    def from_codes(cls, codes: np.ndarray, uniques: list[str]) -> _TextColumn:
        buf, starts, ends = _padded([u.encode("utf-8") for u in uniques])
        return cls(np.asarray(codes, np.int64), buf, starts, ends)

    @property
    def n_unique(self) -> int:
        return int(self.starts.size)

    def held(self) -> np.ndarray:
        """The codes that some row holds."""
        if self.every_code_held:
            return np.arange(self.n_unique)
        held = np.zeros(self.n_unique, bool)
        held[self.codes] = True
        return np.flatnonzero(held)

    def text(self, codes: np.ndarray | None = None) -> list[str]:
        """The distinct strings (or those of ``codes``)."""
        if codes is None:
            return _spans.decode(self.buf, self.starts, self.ends)
        return _spans.decode(self.buf, self.starts[codes], self.ends[codes])

    def strings(self) -> np.ndarray:
        """One Python str per row (an object array: memory grows with the data,
        not with the longest string)."""
        return np.array(self.text(), dtype=object)[self.codes]


class _RowText(_Spans):
    """A column of strings kept as the byte span of every row, not factorized:
    document ids are joined and checked through 64-bit hashes of the spans
    (every hash match is confirmed byte for byte), and decoded only for ties."""

    def __init__(self, buf, starts, ends):
        self.buf, self.starts, self.ends = buf, starts, ends
        self._hashes = None

    @classmethod
    def from_fields(cls, fields: _text.Fields, column: int) -> _RowText:
        return cls(fields.buf, fields.starts[column], fields.ends[column])

    @classmethod
    def from_values(cls, values: Any) -> _RowText:
        """From any array of ids (their ``str``); equal ids share their bytes."""
        column = _TextColumn.from_values(values)
        codes = column.codes
        return cls(column.buf, column.starts[codes], column.ends[codes])

    def __len__(self) -> int:
        return int(self.starts.size)

    def factorized(self) -> _TextColumn:
        codes, first = _spans.factorize(self.buf, self.starts, self.ends, False)
        return _TextColumn(codes, self.buf, self.starts[first], self.ends[first])

    @property
    def n_unique(self) -> int:
        return self.factorized().n_unique

    def text(self, rows: np.ndarray | None = None) -> list[str]:
        """The strings of ``rows`` (all rows by default)."""
        if rows is None:
            return _spans.decode(self.buf, self.starts, self.ends)
        return _spans.decode(self.buf, self.starts[rows], self.ends[rows])

    def raw(self, row: int) -> bytes:
        return self.buf[int(self.starts[row]) : int(self.ends[row])].tobytes()

    def strings(self) -> np.ndarray:
        """One Python str per row (an object array), decoded row by row: no
        factorization, which costs more than it saves for ids that rarely repeat."""
        out = np.empty(len(self), dtype=object)
        out[:] = self.text()
        return out


_MIX = np.uint64(0xD6E8FEB86659FD93)


def _row_keys(qcodes: np.ndarray, qhash: np.ndarray, docno: _RowText) -> np.ndarray:
    """A 64-bit key of each row's (query, document): equal pairs, equal keys."""
    with np.errstate(over="ignore"):
        keys = qhash[qcodes] * _MIX
        keys ^= docno.hashes
        keys *= _spans._P1
        keys ^= keys >> np.uint64(31)
    return keys


def _merge(a: _TextColumn, b: _TextColumn) -> tuple[np.ndarray, np.ndarray, int]:
    """Map the distinct values of two columns onto one numbering."""
    ha, hb = a.hashes, b.hashes
    _, first, inverse = np.unique(
        np.concatenate([ha, hb]), return_index=True, return_inverse=True
    )
    inverse = inverse.reshape(-1)
    map_a, map_b = inverse[: ha.size], inverse[ha.size :]
    # Counting, not sorting: a code seen twice within one column is a collision.
    distinct_a = map_a.size == 0 or np.bincount(map_a).max() <= 1
    distinct_b = map_b.size == 0 or np.bincount(map_b).max() <= 1
    # Only a value of b may share a code with a value of a (each column's values
    # are distinct): check those pairs byte for byte.
    shared = first[map_b] < ha.size
    same = distinct_a and distinct_b
    if same and shared.any():
        rep = first[map_b[shared]]
        la, lb = a.ends[rep] - a.starts[rep], b.ends[shared] - b.starts[shared]
        same = np.array_equal(la, lb) and _spans._same_bytes(
            a.buf, a.starts[rep], b.buf, b.starts[shared], lb
        )
    if not same:  # a 64-bit hash collision: merge through the text
        table: dict[str, int] = {}
        map_a = np.array([table.setdefault(t, len(table)) for t in a.text()], int)
        map_b = np.array([table.setdefault(t, len(table)) for t in b.text()], int)
        return map_a.astype(np.int64), map_b.astype(np.int64), len(table)
    return map_a.astype(np.int64), map_b.astype(np.int64), int(first.size)


# A key table packs, for each row, its query code (the file's own numbering), the
# top bits of its docno hash and its row index into one integer, and sorts those:
# one sort of plain integers (no argsort; fast on a file grouped by query, whose
# codes then come in order) finds repeated (query, document) pairs and serves the
# join's binary search.
_MIN_HASH_BITS = 16
_PACK_ROWS = 1 << 20


@dataclass
class _KeyTable:
    packed: np.ndarray  # sorted uint64: query code | docno hash bits | row
    row_bits: int
    hash_bits: int

    def rows(self, at: Any) -> np.ndarray:
        """The row index of the entries ``at``."""
        mask = np.uint64((1 << self.row_bits) - 1)
        return (self.packed[at] & mask).astype(np.intp)


def _key_table(
    qid: _TextColumn, docno: _RowText, n_threads: int = 1
) -> _KeyTable | None:
    """The rows' sorted key table; None when the bits do not fit
    (``n_threads``: :mod:`._threads`)."""
    n = qid.codes.size
    row_bits = max(1, (n - 1).bit_length())
    query_bits = max(1, (qid.n_unique - 1).bit_length())
    hash_bits = 64 - row_bits - query_bits
    if hash_bits < _MIN_HASH_BITS:
        return None
    packed = qid.codes.astype(np.uint64)
    packed <<= np.uint64(64 - query_bits)
    hashes = docno.hash_rows(n_threads)

    # A slice of rows at a time: one temporary of _PACK_ROWS, not of n (the
    # key table is made at the reading's memory peak).
    def pack(part: slice) -> None:
        bits = hashes[part] >> np.uint64(64 - hash_bits)
        bits <<= np.uint64(row_bits)
        bits |= np.arange(part.start, part.stop, dtype=np.uint64)
        packed[part] |= bits

    run_pieces(pack, row_slices(n, n_threads, _PACK_ROWS), n_threads)
    grouped = n < 2 or bool((qid.codes[1:] >= qid.codes[:-1]).all())
    sort_grouped(packed, qid.codes if grouped else None, n_threads)
    return _KeyTable(packed, row_bits, hash_bits)


def _repeated_keys(table: _KeyTable) -> np.ndarray:
    """Positions ``i`` whose entry's high part (query, hash bits) equals entry
    ``i + 1``'s, a slice of entries at a time (no temporary of n at the
    reading's memory peak)."""
    packed, shift = table.packed, np.uint64(table.row_bits)
    found = [np.zeros(0, np.intp)]
    for a in range(0, packed.size - 1, _PACK_ROWS):
        b = min(a + _PACK_ROWS, packed.size - 1)
        differ = packed[a + 1 : b + 1] ^ packed[a:b]  # same high part: row bits
        differ >>= shift
        found.append(np.flatnonzero(differ == 0) + a)
    return np.concatenate(found)


def _check_unique(
    qid: _TextColumn,
    docno: _RowText,
    lines: np.ndarray,
    name: str,
    repeats: list | None = None,
    n_threads: int = 1,
) -> _KeyTable | None:
    """Raise on a document listed twice for one query, naming both lines.

    One sort of the rows' packed keys (:func:`_key_table`, returned for the
    join); rows whose key's high bits repeat are compared exactly, in file order
    (the message names the first repeat). With a ``repeats`` list, each
    repeat's ``(first row, row)`` is appended to it instead (trec_eval checks
    the top ``-M`` documents only: the join raises). ``n_threads``: the key
    table's (:mod:`._threads`).
    """
    table = _key_table(qid, docno, n_threads)
    if table is None:  # too many bits for one integer: unpacked keys
        keys = _row_keys(qid.codes, qid.hashes, docno)
        ranked = np.sort(keys)
        repeated = ranked[1:][ranked[1:] == ranked[:-1]]
        candidates = np.flatnonzero(np.isin(keys, repeated))
    else:
        repeat = _repeated_keys(table)
        if repeat.size == 0:
            return table
        candidates = np.sort(
            np.concatenate([table.rows(repeat), table.rows(repeat + 1)])
        )
        candidates = candidates[np.r_[True, candidates[1:] != candidates[:-1]]]
    seen: dict[tuple[int, bytes], int] = {}
    for row in candidates.tolist():
        pair = (int(qid.codes[row]), docno.raw(row))
        if pair not in seen:
            seen[pair] = row
            continue
        if repeats is not None:
            repeats.append((seen[pair], row))
            continue
        raise duplicate_error(qid, docno, lines, name, seen[pair], row)
    return table


def duplicate_error(qid, docno, lines, name, first: int, row: int, where: str = ""):
    """The error naming a document listed twice for one query (both lines)."""
    d = docno.text(np.array([row]))[0]
    q = qid.text(qid.codes[row : row + 1])[0]
    return _text.error(
        name,
        int(lines[row]),
        f"duplicate document {_text.shown(d)} for query {_text.shown(q)} "
        f"(first listed on line {int(lines[first])}){where}; each document may "
        "appear once per query",
    )
