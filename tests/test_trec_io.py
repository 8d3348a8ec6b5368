"""TREC qrels/run readers: formats, trec_eval's joining rules and error messages."""

from __future__ import annotations

import io

import numpy as np
import pytest

from sklearn_rank.io import load_trec, read_qrels, read_run, trec_arrays

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 z 2\nq2 0 x 1\nq9 0 x 1\n"
RUN = (
    "q1 Q0 a 1 0.5 r\n"
    "q1 Q0 c 2 0.5 r\n"
    "q1 Q0 b 3 0.9 r\n"
    "q2 Q0 y 1 1.0 r\n"
    "q5 Q0 a 1 1.0 r\n"
)


def _arrays(qrels=QRELS, run=RUN, **kw):
    return trec_arrays(read_qrels(io.StringIO(qrels)), read_run(io.StringIO(run)), **kw)


def test_read_qrels_fields_and_lines():
    q = read_qrels(io.StringIO("# judged by A\n\nq1 0 a 1\n  q1\t0\tb   0\r\n"))
    assert q.qid.tolist() == ["q1", "q1"]
    assert q.docno.tolist() == ["a", "b"]
    assert q.relevance.tolist() == [1.0, 0.0]
    assert q.line.tolist() == [3, 4]
    assert len(q) == 2


def test_read_run_ignores_trailing_fields_keeps_last_runid():
    r = read_run(io.StringIO("q Q0 a 1 2.5 first junk\nq Q0 b 2 -1e3 second\n"))
    assert r.docno.tolist() == ["a", "b"]
    assert r.score.tolist() == [2.5, -1000.0]
    assert r.rank.tolist() == [1, 2]
    assert r.runid == "second"


def test_paths_and_binary_streams(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(RUN.encode())
    from_path = read_run(path)
    from_str = read_run(str(path))
    with open(path, "rb") as fh:
        from_binary = read_run(fh)
        assert not fh.closed  # the caller's stream is left open
    for r in (from_str, from_binary):
        assert r.docno.tolist() == from_path.docno.tolist()
    assert from_path.source == str(path)


def test_utf8_docnos():
    r = read_run(io.BytesIO("q Q0 café 1 1 r\nq Q0 naïve 2 0 r\n".encode()))
    assert r.docno.tolist() == ["café", "naïve"]


def test_no_trailing_newline_and_empty_file():
    assert read_qrels(io.StringIO("q 0 a 1")).docno.tolist() == ["a"]
    empty = read_run(io.StringIO(""))
    assert len(empty) == 0 and empty.runid == ""


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (read_qrels, "q 0 a 1\nq 0 b\n", r"<stream>, line 2: expected 4 .*found 3"),
        (read_qrels, "q 0 a 1\nq 0 b 1 extra\n", r"line 2: expected 4 .*found 5"),
        (read_qrels, "q 0 a 1\n\nq 0 b high\n", r"line 3: the rel field .*'high'"),
        (read_qrels, "q 0 a 1\nq 0 a 0\n", r"line 2: duplicate document 'a' .*line 1"),
        (read_run, "q Q0 a 1 1.0 r\nq Q0 b 2 r\n", r"line 2: expected at least 6"),
        (read_run, "q Q0 a 1 x r\n", r"line 1: the score field .*'x'"),
        (
            read_run,
            "q Q0 a 1 nan r\n",
            r"line 1: the score field must be a number \(inf allowed, not NaN\)",
        ),
        (read_run, "q Q0 a 1.0 2.0 r\n", r"line 1: the rank field .*columns"),
        (read_run, "q Q0 a 1 1 r\np Q0 a 1 1 r\nq Q0 a 2 0 r\n", r"line 3: dup"),
    ],
)
def test_errors_name_file_and_line(reader, text, message):
    with pytest.raises(ValueError, match=message):
        reader(io.StringIO(text))


def test_error_names_the_file(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text("q 0 a 1\nq 0 b\n")
    with pytest.raises(ValueError, match=r"bad\.qrels, line 2"):
        read_qrels(path)


def test_line_numbers_across_blocks(monkeypatch):
    from sklearn_rank.io import _text

    monkeypatch.setattr(_text, "_BLOCK_BYTES", 16)  # many small blocks
    text = "".join(f"q Q0 d{i} {i} {i}.5 r\n" for i in range(50)) + "q Q0 bad 1 x r\n"
    with pytest.raises(ValueError, match="line 51: the score"):
        read_run(io.StringIO(text))
    good = read_run(io.StringIO(text.rsplit("q Q0 bad", 1)[0]))
    assert good.line.tolist() == list(range(1, 51))
    assert good.score.tolist() == [i + 0.5 for i in range(50)]
    assert good.docno.tolist() == [f"d{i}" for i in range(50)]


def test_trec_order_ties_by_docno_descending():
    t = _arrays()
    assert t.groups.tolist() == ["q1", "q1", "q1", "q1", "q2", "q2"]
    # q1: b (0.9) first; a and c tie at 0.5 -> docno descending: c, a; z unranked.
    assert t.docno.tolist() == ["b", "c", "a", "z", "y", "x"]
    assert t.rank.tolist() == [1, 2, 3, 0, 1, 0]
    assert t.retrieved.tolist() == [True, True, True, False, True, False]
    assert t.y_true.tolist() == [0.0, 0.0, 1.0, 2.0, 0.0, 1.0]
    # Unretrieved rows sort below every retrieved score.
    assert t.y_score[~t.retrieved].max() < t.y_score[t.retrieved].min()


def test_docno_order_is_string_order():
    run = "q Q0 d9 1 1.0 r\nq Q0 d10 2 1.0 r\nq Q0 d100 3 1.0 r\n"
    t = _arrays("q 0 d9 1\n", run)
    assert t.docno.tolist() == ["d9", "d100", "d10"]


def test_topics_only_in_one_file():
    t = _arrays()
    assert "q5" not in t.groups  # not judged: ignored
    assert "q9" not in t.groups  # not retrieved: ignored without complete
    c = _arrays(complete=True)
    assert c.groups.tolist().count("q9") == 1
    assert not c.retrieved[c.groups == "q9"].any()


def test_negative_grades_become_zero():
    t = _arrays("q 0 a -1\nq 0 b 2\n", "q Q0 a 1 2 r\nq Q0 b 2 1 r\n")
    assert t.y_true.tolist() == [0.0, 2.0]


def test_max_docs_per_query():
    t = _arrays(max_docs_per_query=1)
    q1 = t.groups == "q1"
    assert t.docno[q1 & t.retrieved].tolist() == ["b"]
    # a was cut off but is judged: kept as not retrieved; c is unjudged: dropped.
    assert sorted(t.docno[q1 & ~t.retrieved].tolist()) == ["a", "z"]
    # 0 (trec_eval's -M 0): nothing retrieved, the judged rows stay.
    t = _arrays(max_docs_per_query=0)
    assert not t.retrieved.any() and t.docno[q1 := t.groups == "q1"].size
    assert sorted(t.docno[q1].tolist()) == ["a", "b", "z"]
    with pytest.raises(ValueError, match="max_docs_per_query"):
        _arrays(max_docs_per_query=-1)


def test_file_order_does_not_matter():
    lines = RUN.splitlines(keepends=True)
    shuffled = "".join(lines[i] for i in np.random.default_rng(0).permutation(5))
    a, b = _arrays(), _arrays(run=shuffled)
    for field in ("y_true", "y_score", "groups", "retrieved", "docno", "rank"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_load_trec_matches_two_step(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    a = load_trec(tmp_path / "q", tmp_path / "r", complete=True)
    b = _arrays(complete=True)
    np.testing.assert_array_equal(a.docno, b.docno)
    np.testing.assert_array_equal(a.y_true, b.y_true)
