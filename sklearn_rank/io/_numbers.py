"""Number fields of whitespace-separated text (scores, grades, ranks).

Spans come from :mod:`._text`; words are read as in :mod:`._spans`.
"""

from __future__ import annotations

import numpy as np

from ._spans import _MASKS, _words
from ._text import Fields, error

_NUMBER_WIDTH = 40  # longer numeric fields are parsed one by one


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
