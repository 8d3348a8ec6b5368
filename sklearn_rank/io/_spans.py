"""String fields as byte spans: 64-bit hashes, byte-for-byte comparisons,
integer codes (factorization), sort keys and decoding.

Spans ``buf[start:end]`` come from :mod:`._text` (a file's buffer, padded with
zero bytes so that an 8-byte word load at any position stays inside it) or from
the string buffers of a table. Every operation is a numpy pass over 8-byte words.
"""

from __future__ import annotations

import numpy as np

from ._threads import run_pieces

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


# Fields of up to this many words take one numpy pass per word (a few passes,
# tuned for ids of a few words); longer ones are read as one flat array of their
# words, so the number of numpy calls never grows with the longest field.
_SHORT_WORDS = 8
_FLAT_WORDS = 1 << 20  # words per flat pass (bounded temporaries)


def _word_passes(lengths: np.ndarray, limit: int = _SHORT_WORDS):
    """(k, rows longer than 8k bytes, mask of their k-th word), k = 0 .. limit-1.

    The rows are None while every row is still that long (no index arrays).
    Words from ``limit`` on are :func:`_flat_words`'s.
    """
    live = None
    for k in range(limit):
        remaining = (lengths if live is None else lengths[live]) - 8 * k
        if remaining.size == 0:
            return
        yield k, live, _MASKS[np.minimum(remaining, 8)]
        more = remaining > 8
        if live is not None:
            live = live[more]
        elif not more.all():
            live = np.flatnonzero(more)


def _flat_words(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: int):
    """(row, k, word) of every word k >= ``first`` of every field, as flat arrays
    of at most :data:`_FLAT_WORDS` words (rows ascending; bytes past a field's
    end are zero): a 10 MB field is a dozen numpy passes, not a million."""
    n_words = np.maximum(-(-lengths.astype(np.int64) // 8) - first, 0)
    word_end = np.cumsum(n_words)
    total = int(word_end[-1]) if word_end.size else 0
    for begin in range(0, total, _FLAT_WORDS):
        stop = min(begin + _FLAT_WORDS, total)
        r = int(np.searchsorted(word_end, begin, side="right"))
        if stop <= word_end[r]:  # inside one field: a strided slice of words
            k0 = begin - int(word_end[r] - n_words[r]) + first
            k = np.arange(k0, k0 + stop - begin)
            at = int(starts[r]) + 8 * k0
            word = np.ndarray(
                (stop - begin,), "<u8", buffer=buf, offset=at, strides=(8,)
            ).copy()
            word[-1] &= _MASKS[min(int(lengths[r]) - 8 * int(k[-1]), 8)]
            yield np.broadcast_to(np.intp(r), k.shape), k, word
            continue
        flat = np.arange(begin, stop)
        row = np.searchsorted(word_end, flat, side="right")
        k = flat - (word_end[row] - n_words[row]) + first
        left = np.minimum(lengths[row] - 8 * k, 8)
        yield row, k, _words(buf, starts[row] + 8 * k) & _MASKS[left]


def _long(lengths: np.ndarray) -> np.ndarray | None:
    """The rows longer than :data:`_SHORT_WORDS` words (None: there are none)."""
    long = lengths > 8 * _SHORT_WORDS
    return np.flatnonzero(long) if long.any() else None


def hash_spans(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each field's bytes (its length mixed in).

    Fields of up to :data:`_SHORT_WORDS` words are hashed a word pass at a
    time, longer ones by :func:`_hash_long`: equal fields (equal lengths) always
    take the same path.
    """
    lengths = ends - starts
    long = _long(lengths)
    if long is None:
        return _hash_short(buf, starts, ends)
    out = np.empty(starts.size, np.uint64)
    short = np.flatnonzero(lengths <= 8 * _SHORT_WORDS)
    out[short] = _hash_short(buf, starts[short], ends[short])
    out[long] = _hash_long(buf, starts[long], lengths[long])
    return out


_HASH_ROWS = 1 << 16


def _hash_short(buf, starts, ends):
    if starts.size <= _HASH_ROWS:
        return _hash_chunk(buf, starts, ends)
    out = np.empty(starts.size, np.uint64)
    for begin in range(0, starts.size, _HASH_ROWS):  # temporaries stay in cache
        part = slice(begin, begin + _HASH_ROWS)
        out[part] = _hash_chunk(buf, starts[part], ends[part])
    return out


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


def _hash_long(buf, starts, lengths):
    """Hashes of long fields: each word mixed with its position, the mixes
    summed per field (a sum, so a field's words may span several flat passes),
    then the sum mixed with the length."""
    total = np.zeros(starts.size, np.uint64)
    with np.errstate(over="ignore"):
        for row, k, word in _flat_words(buf, starts, lengths, 0):
            word ^= k.astype(np.uint64) * _P2
            word *= _P1
            word ^= word >> np.uint64(29)
            word *= _P2
            word ^= word >> np.uint64(32)
            heads = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
            total[row[heads]] += np.add.reduceat(word, heads)
        h = (total ^ (lengths.astype(np.uint64) * _P2)) * _P1
        h ^= h >> np.uint64(31)
    return h


def _long_differ(buf_a, a_start, buf_b, b_start, lengths, rows) -> np.ndarray:
    """Which of ``rows`` (fields of equal ``lengths``) differ past their first
    :data:`_SHORT_WORDS` words."""
    differ = np.zeros(rows.size, bool)
    a_start, b_start, lengths = a_start[rows], b_start[rows], lengths[rows]
    words_a = _flat_words(buf_a, a_start, lengths, _SHORT_WORDS)
    words_b = _flat_words(buf_b, b_start, lengths, _SHORT_WORDS)
    for (row, _, wa), (_, _, wb) in zip(words_a, words_b, strict=True):
        differ[row[wa != wb]] = True
    return differ


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
    long = _long(lengths)
    return (
        long is None
        or not _long_differ(buf_a, a_start, buf_b, b_start, lengths, long).any()
    )


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
    if not same.all():  # only equal lengths are read (no load past a field)
        lengths = np.where(same, lengths, 0)
    for k, live, mask in _word_passes(lengths):
        at_a = a_start if live is None else a_start[live]
        at_b = b_start if live is None else b_start[live]
        differ = (_words(buf_a, at_a + 8 * k) ^ _words(buf_b, at_b + 8 * k)) & mask
        if live is None:
            same &= differ == 0
        else:
            same[live] &= differ == 0
    long = _long(lengths)
    if long is not None:
        long = long[same[long]]  # equal lengths only
        same[long] &= ~_long_differ(buf_a, a_start, buf_b, b_start, lengths, long)
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
    # A chunk of rows at a time (and the row before it): the word temporaries
    # stay small whatever the number of rows.
    for begin in range(0, n, _HASH_ROWS):
        lo, hi = max(begin - 1, 0), min(begin + _HASH_ROWS, n)
        _differ_from_previous(buf, starts[lo:hi], lengths[lo:hi], head[lo + 1 : hi])
    long = _long(lengths)
    if long is not None:  # past the word passes: each long field starts a run
        head[long] = True
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
    # Each row's run: the number of run heads up to it, less one (32-bit below
    # 2**31 rows: the largest temporary of a million-row factorization).
    run = np.cumsum(head, dtype=np.int32 if n < 2**31 else np.int64)
    run -= 1
    if not appearance:  # codes in hash order (no sort of the first rows)
        return inverse[run], heads[first]
    # Number the codes in order of first appearance: a file grouped by query
    # then has non-decreasing codes (sorts of keys led by them run fast).
    by_appearance = np.argsort(first)
    # 32-bit codes below 2**31 distinct values (a run's query codes: memory).
    renumber = np.empty(first.size, np.int32 if first.size < 2**31 else np.int64)
    renumber[by_appearance] = np.arange(first.size)
    codes = renumber[inverse][run]
    return codes, heads[first[by_appearance]]


def _differ_from_previous(buf, starts, lengths, out) -> None:
    """``out[i - 1] |= field i differs from field i - 1`` in its first
    :data:`_SHORT_WORDS` words (lengths are compared by the caller)."""
    n = starts.size
    for k, live, mask in _word_passes(lengths):
        word = _words(buf, starts + 8 * k if live is None else starts[live] + 8 * k)
        word &= mask
        if live is not None:  # shorter fields: zero words (their length differs)
            full = np.zeros(n, np.uint64)
            full[live] = word
            word = full
        out |= word[1:] != word[:-1]


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
        # (bytes that are not UTF-8 reach here only where the reader was told
        # to keep them, trec_eval's reading: each becomes a lone surrogate,
        # written back as the same byte with errors="surrogateescape")
        bytes(view[s:e]).decode("utf-8", "surrogateescape")
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
    ]


_COMPACT_BYTES = 1 << 20  # bytes gathered per pass (bounded temporaries)
_COMPACT_LONG = 4096  # longer spans are copied as slices, one at a time


def compact(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, pad: int, n_threads=1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The spans' bytes one after the other in a new buffer (then ``pad`` zero
    bytes), and their spans there (same dtypes): a column that keeps these no
    longer holds the whole file's buffer (memory). The rows are copied a
    bounded slice at a time, on ``n_threads`` threads (disjoint writes)."""
    lengths = ends - starts
    new_ends = np.cumsum(lengths, dtype=np.int64)
    total = int(new_ends[-1]) if new_ends.size else 0
    out = np.zeros(total + pad, np.uint8)
    new_starts = new_ends - lengths
    long = np.flatnonzero(lengths > _COMPACT_LONG)
    for i in long.tolist():
        out[new_starts[i] : new_ends[i]] = buf[starts[i] : ends[i]]
    if long.size:
        lengths = lengths.copy()
        lengths[long] = 0
    n = lengths.size
    widest = int(lengths.max()) if n else 0
    if widest <= 32 and not long.size:  # short ids: words, then the bytes inside
        n_words = max(1, -(-widest // 8))
        step = max(1, _COMPACT_BYTES // (8 * n_words))
        inside = np.arange(8 * n_words)
        same = n and int(lengths.min()) == widest  # fixed-width ids: no mask
        last = max(buf.size - 8, 0)  # a word past a short span's end: unused

        def short_ids(a: int) -> None:
            first = starts[a : a + step]
            words = np.empty((first.size, n_words), np.uint64)
            for k in range(n_words):
                words[:, k] = _words(
                    buf, np.minimum(first + 8 * k, last) if k else first
                )
            # Little-endian words: their bytes in memory are the file's bytes.
            chunk = words.view(np.uint8).reshape(first.size, -1)
            if same:
                chunk = chunk[:, :widest]
            else:
                chunk = chunk[inside < lengths[a : a + step, None]]
            lo = int(new_starts[a])
            out[lo : lo + chunk.size] = chunk.reshape(-1)

        run_pieces(short_ids, range(0, n, step), n_threads)
        return out, new_starts.astype(starts.dtype), new_ends.astype(ends.dtype)
    step = max(1, _COMPACT_BYTES // max(1, total // max(n, 1)))  # rows per pass

    def any_ids(a: int) -> None:
        count = lengths[a : a + step]
        # Each byte's offset within its span, then its place in both buffers.
        inner = np.arange(int(count.sum()), dtype=np.int64)
        inner -= np.repeat(np.cumsum(count, dtype=np.int64) - count, count)
        src = np.repeat(starts[a : a + step], count) + inner
        inner += np.repeat(new_starts[a : a + step], count)
        out[inner] = buf[src]

    run_pieces(any_ids, range(0, n, step), n_threads)
    return out, new_starts.astype(starts.dtype), new_ends.astype(ends.dtype)
