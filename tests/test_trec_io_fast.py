"""The TREC readers' fast paths against plain Python definitions.

The tokenizer's one-pass path for regular lines, the word-at-a-time parser of
plain decimal scores, the packed-key duplicate check and join, and trec_eval's
order from one packed sort must give what ``str.split``, ``float()``, a dict and
``sorted`` give, whatever the whitespace, the score text or the hash bits.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_rank.io import (
    _id_columns,
    _numbers,
    _spans,
    _text,
    _trec_join,
    read_qrels,
    read_run,
    trec_arrays,
)

# ----------------------------------------------------------------- scores


def _field_spans(texts: list[bytes]):
    data = b" ".join(texts)
    buf = np.zeros(len(data) + _text.PAD, np.uint8)
    buf[: len(data)] = np.frombuffer(data, np.uint8)
    lengths = np.array([len(t) for t in texts], np.int64)
    ends = np.cumsum(lengths + 1) - 1
    return buf, (ends - lengths).astype(np.int32), ends.astype(np.int32)


_PLAIN = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)")


def _check_against_float(texts: list[bytes]) -> None:
    """Every field the fast path takes equals float() bit for bit (the sign of
    zero included); every plain decimal of <= 15 digits is taken."""
    buf, starts, ends = _field_spans(texts)
    values, ok = _numbers.plain_decimals(buf, starts, ends)
    for text, value, taken in zip(texts, values.tolist(), ok.tolist(), strict=True):
        plain = _PLAIN.fullmatch(text) is not None
        if taken:
            assert plain, text
            expected = float(text)
            assert value == expected and np.signbit(value) == np.signbit(expected), (
                text,
                value,
                expected,
            )
        digits = sum(c in b"0123456789" for c in text)
        if plain and digits <= 15 and len(text) <= _numbers._PLAIN_WIDTH:
            assert taken, text


TRICKY = [
    b"0",
    b"-0",
    b"+0",
    b"-0.0",
    b".5",
    b"-.5",
    b"+.5",
    b"5.",
    b"-5.",
    b"+3",
    b"007",
    b"-0.2193",
    b"12345678",
    b"-1234567",
    b"9.999999",
    b"0.1",
    b"0.3",
    b"2.675",
    b"1.0000000000000002",
    b"9007199254740993",
    b"9007199254740992",
    b"123456789012345678",
    b"0.000000000000000000001",
    b"0.0000000000000000000001",
    b"1234.56789012",
    b"-12345678901.5",
    b"1e5",
    b"1E-3",
    b"-2.5e+10",
    b"inf",
    b"-inf",
    b"nan",
    b"NaN",
    b"1_000",
    b"0x10",
    b".",
    b"-",
    b"+",
    b"-.",
    b"1.2.3",
    b"1..2",
    b"--1",
    b"+-1",
    b"1-2",
    b"12-",
    b"1 ",
    b"abc",
    b"\xc3\xa9",
]


def test_plain_decimals_on_tricky_text():
    _check_against_float(TRICKY)


_digits = st.text("0123456789", min_size=0, max_size=20).map(str.encode)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([b"", b"-", b"+"]),
            _digits,
            st.sampled_from([b"", b".", b".."]),
            _digits,
        ).map(b"".join)
        | st.binary(min_size=1, max_size=12),
        min_size=1,
        max_size=40,
    ).map(lambda texts: [t.replace(b" ", b"_") or b"0" for t in texts])
)
def test_plain_decimals_equal_float(texts):
    _check_against_float(texts)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1))
def test_plain_decimals_read_formatted_floats(values):
    """Scores as programs write them (%.4f, %g, repr) parse to float()'s value."""
    texts = [f"{v:.4f}".encode() for v in values if abs(v) < 1e12]
    texts += [f"{v:g}".encode() for v in values] + [repr(v).encode() for v in values]
    _check_against_float(texts)


def test_scores_through_the_reader_match_float():
    """Fast-path and fallback rows mixed in one file: the reader's scores are
    float() of the text where Python's syntax is C's (no "1_000": see
    test_trec_io_numbers.py); nan is rejected, inf read (C's atof, issue 28)."""
    scores = [t for t in TRICKY if _is_finite_float(t) and not set(b" _") & set(t)]
    text = "".join(f"q Q0 d{i} {i} {s.decode()} r\n" for i, s in enumerate(scores))
    run = read_run(io.StringIO(text))
    expected = [float(s) for s in scores]
    assert run.score.tolist() == expected
    assert np.signbit(run.score).tolist() == np.signbit(expected).tolist()
    for bad in ["nan", "-", "x1"]:
        with pytest.raises(ValueError, match=r"line 2: the score field must be"):
            read_run(io.StringIO(f"q Q0 a 1 1.0 r\nq Q0 b 2 {bad} r\n"))


def _is_finite_float(text: bytes) -> bool:
    try:
        return bool(np.isfinite(float(text)))
    except ValueError:
        return False


# ----------------------------------------------------------------- tokenizer


_blank = st.sampled_from([" ", "\t", "  ", " \t"])
_field = st.text("abcxyz019._-", min_size=1, max_size=9)


@st.composite
def run_texts(draw):
    """Run lines with any blanks, comments, blank lines, extra fields, CRLF."""
    lines = []
    for i in range(draw(st.integers(1, 30))):
        kind = draw(st.sampled_from(["data"] * 6 + ["blank", "comment"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
            continue
        if kind == "comment":
            lines.append("#" + draw(_field) + " x")
            continue
        fields = [
            draw(st.sampled_from(["q1", "q2", "q10"])),
            "Q0",
            f"d{i}{draw(_field)}",
            str(i + 1),
            str(draw(st.integers(-999, 999)) / 100),
            "run",
            *draw(st.lists(_field, max_size=2)),
        ]
        seps = [draw(_blank) for _ in fields[1:]]
        line = fields[0] + "".join(s + f for s, f in zip(seps, fields[1:], strict=True))
        lines.append(
            draw(st.sampled_from(["", " "])) + line + draw(st.sampled_from(["", " "]))
        )
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + draw(st.sampled_from(["", end]))


def _split_reference(text: str):
    """(line, qid, docno, score) of the data lines, by str.split."""
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        rows.append((number, fields[0], fields[2], float(fields[4])))
    return rows


@given(run_texts(), st.sampled_from([16, 64, 1 << 20]))
def test_tokenizer_equals_str_split(text, block):
    original = _text._BLOCK_BYTES
    _text._BLOCK_BYTES = block  # blocks of both paths, cut anywhere
    try:
        run = read_run(io.StringIO(text))
    finally:
        _text._BLOCK_BYTES = original
    expected = _split_reference(text)
    got = list(
        zip(
            run.line.tolist(),
            run.qid.tolist(),
            run.docno.tolist(),
            run.score.tolist(),
            strict=True,
        )
    )
    assert got == expected


def test_regular_blocks_and_irregular_blocks_mix(monkeypatch):
    """A file whose blocks alternate between the one-pass path (single blanks)
    and the general one (tabs runs, comments) keeps every line number."""
    monkeypatch.setattr(_text, "_BLOCK_BYTES", 40)
    lines = []
    for i in range(60):
        sep = " " if (i // 5) % 2 else " \t "
        lines.append(sep.join(["q", "Q0", f"d{i}", str(i), f"{i}.25", "r"]))
        if i % 17 == 3:
            lines.append("# a comment line")
    run = read_run(io.StringIO("\n".join(lines) + "\n"))
    assert run.docno.tolist() == [f"d{i}" for i in range(60)]
    assert run.score.tolist() == [i + 0.25 for i in range(60)]
    expected = [n for n, line in enumerate(lines, 1) if not line.startswith("#")]
    assert run.line.tolist() == expected


def test_control_bytes_stay_inside_fields():
    """Bytes below the blank that are not whitespace (\\x01) are field text, as
    in str.split: the one-pass path must hand such lines to the general one."""
    run = read_run(io.StringIO("q Q0 a\x01b 1 1.0 r\nq Q0 c 2 0.5 r\n"))
    assert run.docno.tolist() == ["a\x01b", "c"]


# ----------------------------------------------------------------- join and order


def _reference_arrays(qrels_text: str, run_text: str):
    """trec_eval's join by dicts and sorted(): rows of (qid, docno, grade)."""
    judged = {}
    for line in qrels_text.splitlines():
        q, _, d, rel = line.split()
        judged[(q, d)] = max(float(rel), 0.0)
    ranked: dict[str, list] = {}
    for line in run_text.splitlines():
        q, _, d, _, score, _ = line.split()
        ranked.setdefault(q, []).append((float(score), d))
    queries = sorted({q for q, _ in judged} & set(ranked))
    rows = []
    for q in queries:
        # score descending, then docno descending (string order)
        retrieved = sorted(ranked[q], key=lambda t: (t[0], t[1]), reverse=True)
        seen = {d for _, d in retrieved}
        rows += [(q, d, judged.get((q, d), 0.0)) for _, d in retrieved]
        rest = sorted(d for (qq, d) in judged if qq == q and d not in seen)
        rows += [(q, d, judged[(q, d)]) for d in rest]
    return rows


@st.composite
def join_texts(draw):
    n_docs = draw(st.integers(1, 40))
    docs = [f"d{draw(st.integers(0, 60))}" for _ in range(n_docs)]
    # Close scores: many share the packed key's truncated bits, some tie.
    base = draw(st.sampled_from([0.0, 1.0, -3.0, 1e6, 1e-9]))
    steps = st.sampled_from([0.0, 1e-15, 1e-12, 1e-9, 0.25, -0.25, -1e-12])
    run, seen = [], set()
    for d in docs:
        q = draw(st.sampled_from(["q1", "q2", "q3"]))
        if (q, d) in seen:
            continue
        seen.add((q, d))
        score = base + draw(steps) * draw(st.integers(0, 3))
        run.append(f"{q} Q0 {d} 1 {score!r} r")
    qrels, judged = [], set()
    for _ in range(draw(st.integers(1, 30))):
        q = draw(st.sampled_from(["q1", "q2", "q4"]))
        d = f"d{draw(st.integers(0, 60))}"
        if (q, d) not in judged:
            judged.add((q, d))
            qrels.append(f"{q} 0 {d} {draw(st.integers(-1, 3))}")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _coarse_hashes(bits):
    """hash_spans keeping only its top ``bits`` bits: collisions everywhere."""
    real = _spans.hash_spans
    keep = np.uint64(((1 << bits) - 1) << (64 - bits))

    def coarse(buf, starts, ends):
        return real(buf, starts, ends) & keep

    return coarse


@given(join_texts(), st.sampled_from([64, 3, 1]))
def test_join_and_order_equal_dict_and_sorted(texts, bits):
    """With the hashes cut to 3 or 1 bits (colliding keys everywhere), the join
    and the order still equal the dict-and-sorted definition."""
    qrels_text, run_text = texts
    real = _spans.hash_spans
    _spans.hash_spans = _coarse_hashes(bits)
    try:
        qrels = read_qrels(io.StringIO(qrels_text))
        run = read_run(io.StringIO(run_text))
        expected = _reference_arrays(qrels_text, run_text)
        if not expected:
            return
        t = trec_arrays(qrels, run)
    finally:
        _spans.hash_spans = real
    got = list(zip(t.groups.tolist(), t.docno.tolist(), t.y_true.tolist(), strict=True))
    assert got == expected


@pytest.mark.parametrize("packed", [True, False])
def test_duplicates_found_whatever_the_hash_bits(monkeypatch, packed):
    monkeypatch.setattr(_spans, "hash_spans", _coarse_hashes(1))
    if not packed:  # keys too wide to pack: the unpacked check
        monkeypatch.setattr(_id_columns, "_MIN_HASH_BITS", 64)
    text = "".join(f"q{i % 3} Q0 d{i} 1 1.0 r\n" for i in range(40))
    assert len(read_run(io.StringIO(text))) == 40
    with pytest.raises(ValueError, match=r"line 42: duplicate document 'd7'.*line 8"):
        read_run(io.StringIO(text + "q9 Q0 x 1 1 r\nq1 Q0 d7 1 1.0 r\n"))


def test_cli_join_on_a_file_not_grouped_by_query(tmp_path):
    """Queries interleaved in the run, first seen out of string order: the CLI
    path (file codes leading the sort, blocks reordered) gives the public
    join's numbers."""
    from sklearn_rank._cli._inputs import _load_trec

    rng = np.random.default_rng(0)
    lines = [
        f"q{rng.integers(0, 30)} Q0 d{i} 1 {rng.integers(0, 5) / 4} r"
        for i in range(600)
    ]
    qrels = [
        f"q{q} 0 d{d} {rng.integers(0, 3)}" for q in range(30) for d in range(0, 600, 7)
    ]
    run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
    run_path.write_text("\n".join(lines) + "\n")
    qrels_path.write_text("\n".join(qrels) + "\n")

    import argparse

    args = argparse.Namespace(
        files=[str(qrels_path), str(run_path)], complete=False, max_docs=None
    )
    (got,) = _load_trec(args)
    expected = _reference_arrays(qrels_path.read_text(), run_path.read_text())
    retrieved = {(int(line.split()[0][1:]), line.split()[2]) for line in lines}
    ranked = [(q, y) for q, d, y in expected if (int(q[1:]), d) in retrieved]
    rest = sorted((q, y) for q, d, y in expected if (int(q[1:]), d) not in retrieved)
    pairs = [
        (got.qids[c], y)
        for c, y in zip(got.codes.tolist(), got.y_true.tolist(), strict=True)
    ]
    n = int(got.retrieved.sum())
    assert got.retrieved[:n].all() and not got.retrieved[n:].any()
    assert pairs[:n] == ranked  # retrieved rows: query, then trec_eval's order
    assert sorted(pairs[n:]) == rest


def test_descending_key_orders_like_the_floats():
    values = np.array([3.5, -0.0, 0.0, -1e-300, 1e-300, -7.25, 2.0**60, -(2.0**60)])
    keys = _trec_join._descending_key(values)
    order = np.argsort(keys, kind="stable")
    assert (np.diff(values[order]) <= 0).all()
    assert keys[1] == keys[2]  # -0.0 and 0.0 tie


@pytest.mark.parametrize("width", [1, 9, 31, 40])
def test_ties_ordered_by_docno_bytes(width):
    """Tied rows by docno descending, as sorted() orders the strings: shared
    prefixes, a prefix of another id, a NUL byte, ids past one word, and ids
    over 32 bytes (the text path)."""
    stem = "x" * (width - 1)
    ids = [f"{stem}{t}" for t in ["a", "a\x00", "ab", "b", "a0", "Z", "é", "aa"]]
    rng = np.random.default_rng(width)
    rng.shuffle(ids)
    run = "".join(f"q Q0 {d} 1 {1.0 if i % 3 else 2.0} r\n" for i, d in enumerate(ids))
    t = trec_arrays(
        read_qrels(io.StringIO(f"q 0 {ids[0]} 1\n")), read_run(io.StringIO(run))
    )
    top = [d for i, d in enumerate(ids) if i % 3 == 0]
    rest = [d for i, d in enumerate(ids) if i % 3]
    expected = sorted(top, reverse=True) + sorted(rest, reverse=True)
    assert t.docno.tolist() == expected


@given(join_texts())
def test_fallbacks_for_keys_too_wide_give_the_same_join(texts):
    """Inputs too large to pack (forced here by asking for 64 spare bits): the
    unpacked duplicate check, the dict join and the two-sort order agree with
    the dict-and-sorted definition."""
    qrels_text, run_text = texts
    saved = _id_columns._MIN_HASH_BITS, _trec_join._MIN_SCORE_BITS
    _id_columns._MIN_HASH_BITS = _trec_join._MIN_SCORE_BITS = 64
    try:
        expected = _reference_arrays(qrels_text, run_text)
        if not expected:
            return
        t = trec_arrays(
            read_qrels(io.StringIO(qrels_text)), read_run(io.StringIO(run_text))
        )
    finally:
        _id_columns._MIN_HASH_BITS, _trec_join._MIN_SCORE_BITS = saved
    got = list(zip(t.groups.tolist(), t.docno.tolist(), t.y_true.tolist(), strict=True))
    assert got == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_compact_spans_keep_every_byte(dtype):
    """The id columns' own buffers (issue 28, memory): every span's bytes
    copied, fixed and mixed widths, spans over 4096 bytes, empty spans, a
    span at the very end of the buffer."""
    from sklearn_rank.io import _spans

    rng = np.random.default_rng(1)
    for trial in range(300):
        n = int(rng.integers(0, 40))
        lengths = rng.integers(0, rng.choice([5, 20, 40, 6000]), n)
        if trial % 3 == 0:
            lengths[:] = rng.integers(0, 30)
        if trial % 5 == 0 and n:
            lengths[0] = 5000
        parts = [bytes(rng.integers(33, 127, k).astype(np.uint8)) for k in lengths]
        text, starts, ends = b"", [], []
        for part, gap in zip(parts, rng.integers(0, 3, n), strict=True):
            text += b" " * int(gap)
            starts.append(len(text))
            text += part
            ends.append(len(text))
        buf = np.frombuffer(text + bytes(8), np.uint8)
        out, s, e = _spans.compact(
            buf, np.array(starts, dtype), np.array(ends, dtype), 8
        )
        assert [out[a:b].tobytes() for a, b in zip(s, e, strict=True)] == parts
        assert out.size == sum(map(len, parts)) + 8 and not out[-8:].any()
        assert s.dtype == e.dtype == dtype


@given(join_texts(), st.sampled_from([1, 2, 3, 5]), st.booleans())
def test_ties_sorted_a_few_rows_at_a_time_give_the_same_order(texts, rows, wide):
    """trec_eval's order sorts runs of equal keys and blocks of tied rows a
    bounded number of rows at a time (issue 28, heavy ties): cut into passes of
    1 to 5 rows (every run whole), packed or not, the order is the
    dict-and-sorted definition's."""
    qrels_text, run_text = texts
    saved = _trec_join._RUN_ROWS, _trec_join._MIN_SCORE_BITS
    _trec_join._RUN_ROWS = rows
    if wide:
        _trec_join._MIN_SCORE_BITS = 64
    try:
        expected = _reference_arrays(qrels_text, run_text)
        if not expected:
            return
        t = trec_arrays(
            read_qrels(io.StringIO(qrels_text)), read_run(io.StringIO(run_text))
        )
    finally:
        _trec_join._RUN_ROWS, _trec_join._MIN_SCORE_BITS = saved
    got = list(zip(t.groups.tolist(), t.docno.tolist(), t.y_true.tolist(), strict=True))
    assert got == expected


def test_packed_lexsort_equals_lexsort():
    """The tie sort's packed first pass (issue 28, heavy ties) gives
    np.lexsort's order: colliding truncated keys, all-ones words, one block or
    many, blocks too wide to pack."""
    rng = np.random.default_rng(0)
    special = np.array([0, 1, 2**63, 2**64 - 1, 2**40, 2**40 + 1], np.uint64)
    for trial in range(1000):
        n = int(rng.integers(1, 60))
        keys = []
        for _ in range(int(rng.integers(2, 5))):
            if trial % 2:
                keys.append(rng.choice(special, n))
            else:
                keys.append(rng.integers(0, 2**64 - 1, n, dtype=np.uint64))
        width = int(rng.choice([1, 3, 2**20, 2**45]))
        block = np.sort(rng.integers(0, width, n))
        expected = np.lexsort((*keys, block))
        np.testing.assert_array_equal(_trec_join._lexsort_packed(keys, block), expected)
