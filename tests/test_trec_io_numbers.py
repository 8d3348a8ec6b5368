"""Number fields of TREC files are read as trec_eval reads them.

trec_eval reads a score with C's ``atof`` and a grade with ``atol``: the longest
prefix that parses, whatever follows. The oracle here is the C library itself,
called through ctypes (the same ``strtod`` / ``strtol`` trec_eval links), so a
field Python reads differently (``1_000``: Python 1000, C 1) fails the test. The
last test checks the command against trec_eval's own printed output for such a
file (tests/data/trec_io/README.md).
"""

from __future__ import annotations

import ctypes
import io
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_rank._cli import main
from sklearn_rank.io import TrecFormatWarning, read_qrels, read_run
from sklearn_rank.io._numbers import c_number

DATA = Path(__file__).parent / "data" / "trec_io"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the oracle is glibc's strtod"
)


def _libc():
    libc = ctypes.CDLL(None)
    libc.strtod.restype = ctypes.c_double
    libc.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    libc.strtol.restype = ctypes.c_long
    libc.strtol.argtypes = [
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.c_int,
    ]
    return libc


LIBC = _libc() if sys.platform.startswith("linux") else None


PLAIN = re.compile(rb"[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)")


def c_strtod(text: bytes) -> tuple[float, int]:
    """(value, bytes used) of C's strtod: atof is strtod without the end."""
    buf = ctypes.create_string_buffer(text)
    end = ctypes.c_char_p()
    value = LIBC.strtod(buf, ctypes.byref(end))
    used = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)
    return value, used


def c_strtol(text: bytes) -> tuple[int, int]:
    buf = ctypes.create_string_buffer(text)
    end = ctypes.c_char_p()
    value = LIBC.strtol(buf, ctypes.byref(end), 10)
    used = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)
    return value, used


# Fields that are not whitespace: what a run's score column may hold.
_field = st.text("0123456789.eE+-_xXpPabfinIN", min_size=1, max_size=12).map(str.encode)


def _read_scores(fields: list[bytes]):
    text = b"".join(b"q Q0 d%d 1 %s r\n" % (i, f) for i, f in enumerate(fields))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = read_run(io.BytesIO(text))
    return run.score, [w for w in caught if w.category is TrecFormatWarning]


@given(st.lists(_field, min_size=1, max_size=30))
def test_scores_are_what_strtod_reads(fields):
    """Each score is C's atof of its field (inf included: trec_eval ranks it);
    a field C reads only in part is named in one warning; one C reads nothing
    of, or reads as nan, is an error naming its line."""
    expected = [c_strtod(f) for f in fields]
    bad = [i for i, (v, used) in enumerate(expected) if used == 0 or np.isnan(v)]
    if bad:
        with pytest.raises(ValueError, match=rf"line {bad[0] + 1}: the score field"):
            _read_scores(fields)
        return
    scores, caught = _read_scores(fields)
    values = [v for v, _ in expected]
    assert scores.tolist() == values
    assert np.signbit(scores).tolist() == np.signbit(values).tolist()
    used = [u for _, u in expected]
    partial = [i for i, f in enumerate(fields) if used[i] < len(f)]
    assert len(caught) == (1 if partial else 0)
    if partial:
        assert f"line {partial[0] + 1}: the score field" in str(caught[0].message)


@pytest.mark.parametrize(
    "field",
    [
        b"1_000",
        b"1e3",
        b"0x1p3",
        b"0x10",
        b"1.5abc",
        b"1e",
        b"-.5e-2",
        b"2.675",
        b"1e-400",
        b"0X1P-1",
        b"1,5",
        b"9007199254740993",
        b"1.e+5x",
    ],
)
def test_odd_scores_equal_strtod(field):
    value, used = c_strtod(field)
    assert c_number(field, "atof") == (value, used)
    scores, caught = _read_scores([field, b"0.5"])
    assert scores[0] == value
    assert len(caught) == (used < len(field))


def test_python_only_syntax_is_not_python_s_number():
    """The item of the issue: 1_000 is 1 to trec_eval, not 1000."""
    scores, caught = _read_scores([b"1_000", b"2"])
    assert scores.tolist() == [1.0, 2.0]
    (warning,) = caught
    assert "'1_000'" in str(warning.message) and "read as 1," in str(warning.message)
    for field in (b"\xd9\xa1", b"\xef\xbc\x91", b"nan", b"-", b"_1"):
        with pytest.raises(ValueError, match="line 1: the score field must be"):
            _read_scores([field])
    # inf and 1e400 are C's infinities; trec_eval ranks them (issue 28).
    scores, _ = _read_scores([b"inf", b"1e400", b"-INF"])
    assert scores.tolist() == [np.inf, np.inf, -np.inf]


@given(st.lists(_field, min_size=1, max_size=20))
def test_grades_truncate_to_what_atol_reads(fields):
    """A grade keeps its value where it is a plain decimal (its truncation is
    atol's); otherwise it is atol's leading integer, with a warning."""
    text = b"".join(b"q 0 d%d %s\n" % (i, f) for i, f in enumerate(fields))
    # A plain decimal (".5", "+1.") is kept whole: its truncation is atol's
    # number (0 where atol finds no digit in front, as in ".5").
    expected = [
        (int(float(f)), len(f)) if PLAIN.fullmatch(f) else c_strtol(f) for f in fields
    ]
    if any(used == 0 for _, used in expected):
        first = next(i for i, (_, used) in enumerate(expected) if used == 0)
        with pytest.raises(ValueError, match=rf"line {first + 1}: the rel field"):
            read_qrels(io.BytesIO(text))
        return
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        grades = read_qrels(io.BytesIO(text)).relevance
    assert np.trunc(grades).astype(np.int64).tolist() == [v for v, _ in expected]


def test_plain_decimal_grades_keep_their_fraction():
    qrels = read_qrels(io.StringIO("q 0 a 1.5\nq 0 b -1\nq 0 c 2.\n"))
    assert qrels.relevance.tolist() == [1.5, -1.0, 2.0]
    with pytest.warns(
        TrecFormatWarning, match=r"line 1: the rel field '1e3'.*read as 1,"
    ):
        assert read_qrels(io.StringIO("q 0 a 1e3\n")).relevance.tolist() == [1.0]


def test_ranks_must_be_whole_integers():
    """trec_eval never reads the rank; the public reader keeps it strict."""
    for rank in ("1_0", "1.0", "1e2"):
        with pytest.raises(ValueError, match=r"line 1: the rank field must be an int"):
            read_run(io.StringIO(f"q Q0 a {rank} 1.0 r\n"))
    assert read_run(io.StringIO("q Q0 a +7 1.0 r\n")).rank.tolist() == [7]


def test_command_prints_trec_eval_s_numbers_and_a_note(capsys):
    """The command on a run with C-only and Python-only scores prints what
    trec_eval 10.0 printed for the same files, and one note on stderr."""
    argv = ["eval", "-q", "-m", "map", "-m", "recip_rank"]
    files = [str(DATA / "odd_numbers.qrels"), str(DATA / "odd_numbers.run")]
    assert main(argv + files) == 0
    captured = capsys.readouterr()
    assert captured.out == (DATA / "odd_numbers.out").read_text()
    assert captured.err.count("note:") == 1
    assert "'1_000'" in captured.err and "read as 1," in captured.err
