"""Number fields of whitespace-separated text (scores, grades, ranks).

Spans come from :mod:`._text`; words are read as in :mod:`._spans`.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from ._spans import _MASKS, _words
from ._text import Fields, error, shown

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


# How trec_eval reads its number fields (C, locale "C"): scores with atof
# (strtod), grades with atol (strtol), each the longest prefix that parses,
# whatever follows. Python's float() and int() accept more ("1_000", blanks,
# non-ASCII digits) and refuse prefixes; numpy's conversion follows Python.
_C_FLOAT = re.compile(
    rb"""[+-]?(?:
        0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?
      | (?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?
      | inf(?:inity)?
      | nan(?:\([0-9a-z_]*\))?
    )""",
    re.X | re.I,
)
_C_INT = re.compile(rb"[+-]?[0-9]+")
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
# Bytes of a C decimal with an exponent ("-1.5e-07"): on these, numpy's
# conversion (Python's grammar) and strtod agree on every whole field.
_DECIMAL_BYTES = np.zeros(256, bool)
_DECIMAL_BYTES[list(b"0123456789.eE+-")] = True
_DECIMAL_BYTES[0] = True  # the padding of _fixed
_INT_BYTES = np.zeros(256, bool)
_INT_BYTES[list(b"0123456789+-")] = True
_INT_BYTES[0] = True

# What each reader calls a number, and how it reads one that is not whole.
READERS = {
    "atof": "C's atof (strtod), as trec_eval reads scores",
    "atol": "C's atol (strtol), as trec_eval reads grades",
    "integer": "an integer in C's syntax, whole (trec_eval ignores the rank field)",
}


class TrecFormatWarning(UserWarning):
    """A number field of a TREC file read as trec_eval reads it, which is not
    the number it looks like (``1_000`` is 1 to C's ``atof``)."""


def c_number(text: bytes, reader: str) -> tuple[float | int | None, int]:
    """(value, bytes used) of the longest prefix C's ``atof`` (``reader="atof"``)
    or ``atol`` (``"atol"``) reads; (None, 0) when there is none (C gives 0).

    Examples
    --------
    >>> from sklearn_rank.io._numbers import c_number
    >>> c_number(b"1_000", "atof"), c_number(b"0x1p3", "atof")
    ((1.0, 1), (8.0, 5))
    >>> c_number(b"2.7e1x", "atof"), c_number(b"2.7e1", "atol")
    ((27.0, 5), (2, 1))
    >>> c_number(b"yes", "atof")
    (None, 0)
    """
    if reader == "atol":
        match = _C_INT.match(text)
        return (int(match.group()), match.end()) if match else (None, 0)
    match = _C_FLOAT.match(text)
    if match is None:
        return None, 0
    number = match.group()
    body = number.lstrip(b"+-")
    if body[:2].lower() == b"0x":
        try:
            value = float.fromhex(number.decode("ascii"))
        except OverflowError:
            value = -np.inf if number.startswith(b"-") else np.inf
    else:
        value = float(number)  # correctly rounded, as glibc's strtod
    return value, match.end()


def parse_numbers(
    fields: Fields,
    column: int,
    what: str,
    kind: type,
    hint: str = "",
    *,
    reader: str | None = None,
    infinite: bool = False,
) -> np.ndarray:
    """Parse a column as finite float64 (or int64) as trec_eval reads it
    (``infinite``: ``inf``, ``-inf`` and numbers past float64, ``1e400``, are
    read as infinities, as C's ``atof`` reads them; NaN is still refused).

    ``reader`` is how trec_eval reads the field: ``"atof"`` (scores; the
    default for floats) or ``"atol"`` (grades); ``"integer"`` (the default for
    ints: ranks, which trec_eval never reads) takes whole integers only. A
    field C reads whole is that number; a field of which C reads only a prefix
    (``1_000``, ``1.5abc``, an exponent or a fraction under ``atol``) is read as
    that prefix, with one :class:`TrecFormatWarning` per column naming the first
    line and the count. A plain decimal grade keeps its fraction (``1.5``: the
    ``trec_eval`` convention truncates grades as ``atol`` does). A field with no
    number in front (C would read 0), or a non-finite one, is an error naming
    the line.

    Plain decimals take :func:`plain_decimals`; other whole C decimals numpy's
    conversion (Python's grammar, which agrees with C's on them); the rest are
    read one by one (:func:`c_number`).
    """
    reader = reader or ("atof" if kind is float else "integer")
    starts, ends = fields.starts[column], fields.ends[column]
    if kind is float:
        out, ok = plain_decimals(fields.buf, starts, ends)
        rest = np.flatnonzero(~ok)
        del ok
    else:
        out = np.zeros(starts.size, np.int64)
        rest = np.arange(starts.size)
    if rest.size == 0:
        return out
    allowed = _DECIMAL_BYTES if reader == "atof" else _INT_BYTES
    lengths = ends[rest] - starts[rest]
    short = rest[lengths <= _NUMBER_WIDTH]
    if short.size:
        width = int((ends[short] - starts[short]).max())
        table = _fixed(fields.buf, starts[short], ends[short], width)
        chars = table.view(np.uint8).reshape(short.size, -1)
        whole = allowed[chars].all(axis=1) & (chars[:, 0] != 0)
        try:
            with np.errstate(all="ignore"):
                out[short[whole]] = table[whole].astype(out.dtype)
            done = short[whole]
        except (ValueError, OverflowError):  # "1e", "+-1": one by one below
            done = short[:0]
        rest = np.setdiff1d(rest, done, assume_unique=True)
    partial = _parse_one_by_one(
        fields, starts, ends, rest, out, what, kind, hint, reader
    )
    if kind is float:
        finite = ~np.isnan(out) if infinite else np.isfinite(out)
        if not finite.all():
            i = int(np.flatnonzero(~finite)[0])
            _refuse(fields, starts, ends, i, what, kind, hint)
    if partial:
        _warn_partial(fields, starts, ends, partial, what, reader)
    return out


def _warn_partial(fields, starts, ends, partial, what, reader):
    i, prefix = partial[0]
    text = bytes(fields.buf[starts[i] : ends[i]]).decode("utf-8", "replace")
    more = f"; {len(partial) - 1} more such fields" if len(partial) > 1 else ""
    warnings.warn(
        f"{fields.name}, line {int(fields.line[i])}: the {what} field "
        f"{shown(text)} is not a whole number to {READERS[reader]}; read as "
        f"{prefix.decode('ascii')}, its leading number, as trec_eval does{more}",
        TrecFormatWarning,
        stacklevel=5,
    )


def _parse_one_by_one(fields, starts, ends, rows, out, what, kind, hint, reader):
    """Fields that are not whole C decimals, read as C reads them."""
    partial = []
    for i in rows.tolist():
        text = bytes(fields.buf[starts[i] : ends[i]])
        if kind is float and reader == "atol" and _DECIMAL.fullmatch(text):
            out[i] = float(text)  # a plain decimal grade keeps its fraction
            continue
        value, used = c_number(text, "atol" if reader == "integer" else reader)
        if used == 0 and kind is float:
            out[i] = np.nan  # refused below, with the first non-finite field
            continue
        if used == 0 or (reader == "integer" and used < len(text)):
            _refuse(fields, starts, ends, i, what, kind, hint)
        try:
            out[i] = value
        except OverflowError:  # an integer past int64 (a rank)
            _refuse(fields, starts, ends, i, what, kind, hint)
        if used < len(text):
            partial.append((i, text[:used]))
    return partial


# Scores may be infinite (trec_eval's atof); NaN has no place in its order.
_WANTED = {"score": "a number (inf allowed, not NaN)"}


def _refuse(fields, starts, ends, i, what, kind, hint):
    text = bytes(fields.buf[starts[i] : ends[i]]).decode("utf-8", "replace")
    raise error(
        fields.name,
        int(fields.line[i]),
        f"the {what} field must be "
        f"{_WANTED.get(what, 'a finite number') if kind is float else 'an integer'}, "
        f"got {shown(text)}{hint}",
    )
