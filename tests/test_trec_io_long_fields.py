"""Very long fields (a 1 MB docno or query id) cost numpy passes that grow with
the bytes, not one Python-level step per 8-byte word, and are compared exactly.

The work is counted, not timed: the number of word gathers (``_spans._words``)
and flat passes stays bounded whatever the field's length.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_rank.io import _spans, load_trec, read_run
from sklearn_rank.io._id_columns import _RowText, _TextColumn

LONG = 1 << 20  # 1 MB


def _counting(monkeypatch):
    calls = {"words": 0}
    real = _spans._words

    def counted(buf, pos):
        calls["words"] += 1
        return real(buf, pos)

    monkeypatch.setattr(_spans, "_words", counted)
    return calls


def test_a_long_docno_and_query_take_a_bounded_number_of_passes(monkeypatch):
    calls = _counting(monkeypatch)
    doc, query = "d" * LONG, "q" * LONG
    qrels = f"{query} 0 {doc} 1\n{query} 0 short 0\nq2 0 {doc}x 1\n"
    run = (
        f"{query} Q0 short 1 2.0 r\n{query} Q0 {doc} 2 1.0 r\n"
        f"q2 Q0 {doc}y 1 1.0 r\nq2 Q0 {doc}x 2 0.5 r\n"
    )
    t = load_trec(io.StringIO(qrels), io.StringIO(run))
    assert t.groups.tolist() == ["q2", "q2", query, query]  # string order
    assert t.docno.tolist() == [doc + "y", doc + "x", "short", doc]
    assert t.y_true.tolist() == [0.0, 1.0, 0.0, 1.0]
    # One numpy pass per word would be over 100,000 calls here.
    assert calls["words"] < 300


def _column(texts: list[bytes]) -> _RowText:
    return _RowText.from_values([t.decode() for t in texts])


@given(
    st.lists(
        st.tuples(st.integers(0, 300), st.sampled_from("ab")).map(
            lambda t: ("x" * t[0] + t[1]).encode()
        ),
        min_size=1,
        max_size=12,
    )
)
def test_long_fields_hash_compare_and_factorize_exactly(texts):
    """Fields of 1 to 301 bytes differing only in their last byte, some past
    the word passes: equal text, equal hash; codes equal a dict's."""
    col = _column(texts)
    hashes = col.hashes.tolist()
    for i, a in enumerate(texts):
        for j, b in enumerate(texts):
            if a == b:
                assert hashes[i] == hashes[j]
    codes = col.factorized().codes
    table: dict[bytes, int] = {}
    expected = [table.setdefault(t, len(table)) for t in texts]
    pairs = set(zip(codes.tolist(), expected, strict=True))
    assert len(pairs) == len(table)  # a one-to-one renaming
    other = _column(texts[::-1])
    same = _spans.same_spans(
        col.buf, col.starts, col.ends, other.buf, other.starts, other.ends
    )
    assert same.tolist() == [a == b for a, b in zip(texts, texts[::-1], strict=True)]


def test_long_fields_colliding_hashes_fall_back_to_exact(monkeypatch):
    monkeypatch.setattr(
        _spans, "hash_spans", lambda buf, s, e: np.zeros(s.size, np.uint64)
    )
    a, b = "x" * 5000 + "a", "x" * 5000 + "b"
    run = read_run(io.StringIO(f"q Q0 {a} 1 1 r\nq Q0 {b} 2 0.5 r\n"))
    assert run.docno.tolist() == [a, b]
    with pytest.raises(ValueError, match="line 3: duplicate document"):
        read_run(io.StringIO(f"q Q0 {a} 1 1 r\nq Q0 {b} 2 .5 r\nq Q0 {a} 3 .2 r\n"))


def test_a_message_quotes_a_long_field_shortened():
    doc = "d" * LONG
    with pytest.raises(ValueError) as caught:
        read_run(io.StringIO(f"q Q0 {doc} 1 1.0\n"))
    message = str(caught.value)
    assert len(message) < 400
    assert "1,048,587 characters" in message and "found 5" in message
    with pytest.raises(ValueError, match=r"duplicate document 'ddd.*characters\)"):
        read_run(io.StringIO(f"q Q0 {doc} 1 1 r\nq Q0 {doc} 2 1 r\n"))


def test_text_column_from_long_values():
    col = _TextColumn.from_values(["a" * 100, "b", "a" * 100])
    assert col.codes.tolist() == [0, 1, 0]
