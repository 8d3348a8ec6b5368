"""``sklearn-rank ndeval`` against ndeval's own output, byte for byte, and the
ndeval qrels reader / run join of :mod:`sklearn_rank.io` (issue 45).

The cases in tests/data/ndeval are random (make_cases.py there regenerates
them with the ndeval binary): ties, subtopics without a relevant document,
topics without relevant documents, judged documents the run did not retrieve,
runs shorter and longer than 20, run topics with a task prefix, topics in one
file only, and ndeval's -traditional, -c, -M, -alpha and -beta; the risk_*
cases add a baseline run (-baseline, -riskAlpha: topics in both runs, in one
only, with and without qrels).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import evaluate_intents
from sklearn_rank._cli import main
from sklearn_rank.io import ndeval_arrays, read_ndeval_qrels

DATA = Path(__file__).parent / "data" / "ndeval"
CASES = sorted(p.stem for p in DATA.glob("case_*.expected"))
RISK_CASES = sorted(p.stem for p in DATA.glob("risk_*.expected"))


def _cli(capsysbinary, *argv):
    status = main(["ndeval", *argv])
    out = capsysbinary.readouterr()
    return status, out.out, out.err


def test_the_cases_are_there():
    assert len(CASES) >= 16


def test_the_risk_cases_cover_ndevals_branches():
    # Baseline-only topics with and without -c, run-only topics, riskAlpha 0,
    # 1, 5 and absent (ndeval prints "a=0"), as make_cases.py --risk drew them.
    args = [(DATA / f"{c}.args").read_text().split() for c in RISK_CASES]
    alphas = {a[a.index("-riskAlpha") + 1] if "-riskAlpha" in a else None for a in args}
    assert {None, "0", "1", "5"} <= alphas
    assert {"-c" in a for a in args} == {True, False}


@pytest.mark.parametrize("case", CASES + RISK_CASES)
def test_output_equals_ndeval_byte_for_byte(case, capsysbinary):
    stem = DATA / case
    options = stem.with_suffix(".args").read_text().split()
    base = str(stem.with_suffix(".base"))
    options = [base if o == "BASE" else o for o in options]
    status, out, err = _cli(
        capsysbinary,
        *options,
        str(stem.with_suffix(".qrels")),
        str(stem.with_suffix(".run")),
    )
    assert status == 0, err
    assert out == stem.with_suffix(".expected").read_bytes()


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


QRELS = "1 0 d1 1\n1 1 d2 2\n1 1 d3 1\n2 0 d1 0\n"


def test_hand_worked_topic(tmp_path, capsysbinary):
    # Topic 1: subtopics 0 (d1) and 1 (d2, d3); the run ranks d3 then d4 and
    # leaves d1, d2 judged but unretrieved. Topic 2 has no relevant document.
    qrels = _write(tmp_path, "q", QRELS)
    run = _write(tmp_path, "r", "1 Q0 d3 1 0 r\n1 Q0 d4 2 0 r\n2 Q0 d1 1 0 r\n")
    status, out, _ = _cli(capsysbinary, qrels, run)
    lines = out.decode().splitlines()
    assert status == 0 and len(lines) == 4
    topic1 = dict(zip(lines[0].split(","), lines[1].split(","), strict=True))
    assert topic1["strec@5"] == "0.500000"  # subtopic 1 of 2
    assert topic1["P-IA@5"] == "0.100000"  # 1 pair / (5 x 2)
    assert topic1["MAP-IA"] == "0.250000"  # (0 + 1/2) / 2: d2 counts, unretrieved
    # Greedy ideal over the qrels: d3 (ties d1, d2 on gain 1: the largest
    # docno), d1 (1), d2 (0.5): 1 / (1 + 1 / log2(3) + 0.5 / 2).
    assert topic1["alpha-nDCG@5"] == "0.531652"
    topic2 = lines[2].split(",")
    assert topic2[15] == "-nan" and set(topic2[2:15] + topic2[16:]) == {"0.000000"}


def test_traditional_ranks_by_score_then_docno(tmp_path, capsysbinary):
    qrels = _write(tmp_path, "q", "1 0 a 1\n1 1 b 1\n")
    # Equal scores: ndeval's -traditional puts the larger docno first (b).
    run = _write(tmp_path, "r", "1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n1 Q0 c 3 0.5 r\n")
    arrays = ndeval_arrays(read_ndeval_qrels(qrels), run, traditional=True)
    assert arrays.docno.tolist() == ["a", "b", "c"]
    assert arrays.y_score.tolist() == [-2.0, -1.0, -3.0]
    by_rank = ndeval_arrays(read_ndeval_qrels(qrels), run)
    assert by_rank.y_score.tolist() == [-1.0, -2.0, -3.0]
    kept = ndeval_arrays(read_ndeval_qrels(qrels), run, traditional=True, depth=1)
    assert kept.retrieved.tolist() == [False, True]


def test_arrays_feed_evaluate_intents():
    qrels = read_ndeval_qrels(io.StringIO(QRELS))
    run = io.StringIO("wt09-1 Q0 d3 1 0 r\nwt09-1 Q0 d4 2 0 r\n")
    a = ndeval_arrays(qrels, run)
    assert a.groups.tolist() == [1, 1, 1, 1]  # the prefix is dropped; topic 2 left
    assert a.y_true.tolist() == [[1, 0], [0, 1], [0, 1], [0, 0]]
    assert a.run_topics.tolist() == [1] and a.n_qrels_topics == 2
    got = evaluate_intents(
        a.y_true,
        a.y_score,
        groups=a.groups,
        retrieved=a.retrieved,
        metrics=["map_ia", "subtopic_recall@5"],
    )
    assert got == {"map_ia": 0.25, "subtopic_recall@5": 0.5}


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 0 d1 1\n1 x d2 1\n", r"line 2: .*subtopic"),
        ("1 0 d1 1\n1 0 d2 -1\n", r"line 2: the judgment field must be a natural"),
        ("1 0 d1 1\n1 0 d1 0\n", r"line 2: topic 1 subtopic 0 document 'd1' is judged"),
        ("1 0 d1\n", r"line 1: .*\(topic subtopic docno judgment\)"),
        ("", r"empty"),
    ],
)
def test_bad_qrels_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        read_ndeval_qrels(io.StringIO(text))


def test_bad_runs(tmp_path, capsysbinary):
    qrels = read_ndeval_qrels(io.StringIO(QRELS))
    with pytest.raises(ValueError, match=r"line 2: duplicate rank \(1\) for topic 1"):
        ndeval_arrays(qrels, io.StringIO("1 Q0 d1 1 0 r\n1 Q0 d2 1 0 r\n"))
    with pytest.raises(ValueError, match=r"line 2: the rank field must be a natural"):
        ndeval_arrays(qrels, io.StringIO("1 Q0 d1 1 0 r\n1 Q0 d2 -2 0 r\n"))
    with pytest.raises(ValueError, match=r"line 1: the topic field"):
        ndeval_arrays(qrels, io.StringIO("wt09 Q0 d1 1 0 r\n"))
    # Through the command: status 1, one line on stderr naming the file.
    q = _write(tmp_path, "q", QRELS)
    r = _write(tmp_path, "r", "1 Q0 d1 1 0 r\n1 Q0 d2 1 0 r\n")
    status, out, err = _cli(capsysbinary, q, r)
    assert status == 1 and out == b""
    assert err.decode().startswith("sklearn-rank ndeval: error: ")
    assert err.decode().count("\n") == 1 and "line 2" in err.decode()


def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ndeval", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("-traditional", "-alpha", "-beta", "-M DEPTH", "-c", "-baseline"):
        assert option in text


def test_no_common_topic_prints_ndevals_nan(tmp_path, capsysbinary):
    q = _write(tmp_path, "q", QRELS)
    r = _write(tmp_path, "r", "5 Q0 x 1 1 r\n")
    _, out, _ = _cli(capsysbinary, q, r)
    last = out.decode().splitlines()[-1].split(",")
    assert last[:2] == ["r", "amean"] and set(last[2:]) == {"-nan"}
    _, out, _ = _cli(capsysbinary, "-c", q, r)
    assert set(out.decode().splitlines()[-1].split(",")[2:]) == {"0.000000"}


def test_row_order_is_docno_bytes():
    # The greedy ideal takes the last tied row: rows sort by docno bytes.
    qrels = read_ndeval_qrels(io.StringIO("1 0 b 1\n1 0 B 1\n1 0 a10 1\n1 0 a9 1\n"))
    a = ndeval_arrays(qrels, io.StringIO("1 Q0 a9 1 0 r\n"))
    assert a.docno.tolist() == sorted(["b", "B", "a10", "a9"])
    assert np.all(a.groups == 1)


BASE_QRELS = "1 0 d1 1\n1 1 d2 1\n2 0 d1 1\n3 0 d5 1\n"


def test_risk_hand_worked(tmp_path, capsysbinary):
    # Topic 1: the run finds d1 (strec@5 1/2), the baseline d1 and d2 (1):
    # a loss of 1/2, weighted 1 + 3. Topic 2: the run wins (1 - 0). Topic 3:
    # the baseline only; it counts under -c alone. Topic 9: the run only, no
    # qrels: 0 - 0.
    q = _write(tmp_path, "q", BASE_QRELS)
    r = _write(tmp_path, "r", "1 Q0 d1 1 0 r\n2 Q0 d1 1 0 r\n9 Q0 d1 1 0 r\n")
    b = _write(tmp_path, "b", "1 Q0 d1 1 0 b\n1 Q0 d2 2 0 b\n3 Q0 d5 1 0 b\n")
    col = 20  # strec@5
    status, out, _ = _cli(capsysbinary, "-baseline", b, "-riskAlpha", "3", q, r)
    lines = [line.split(",") for line in out.decode().splitlines()[1:]]
    assert status == 0
    assert [x[:2] for x in lines] == [
        ["r (rel to. b; rs=1+a; a=3)", t] for t in ("1", "2", "9", "amean")
    ]
    assert [x[col] for x in lines] == ["-2.000000", "1.000000", "0.000000", "-0.333333"]
    _, out, _ = _cli(capsysbinary, "-c", "-baseline", b, "-riskAlpha", "3", q, r)
    lines = [line.split(",") for line in out.decode().splitlines()[1:]]
    assert [x[1] for x in lines] == ["1", "2", "3", "9", "amean"]
    # Topic 3: 0 - 1 weighted 4; the mean over the 4 lines (> 3 qrels topics).
    assert [x[col] for x in lines] == [
        "-2.000000",
        "1.000000",
        "-4.000000",
        "0.000000",
        "-1.250000",
    ]
    # Without -riskAlpha the run string says a=0 and losses count once.
    _, out, _ = _cli(capsysbinary, "-baseline", b, q, r)
    first = out.decode().splitlines()[1].split(",")
    assert first[0] == "r (rel to. b; rs=1+a; a=0)" and first[col] == "-0.500000"


def test_ndeval_risk_is_ndevals_macro():
    from sklearn_rank._metrics.ndeval import ndeval_risk

    run = np.array([[0.5, 0.25, 0.0, np.nan], [1.0, 0.0, 0.3, 0.0]])
    base = np.array([[0.25, 0.5, 0.0, 0.0], [1.0, 0.75, 0.1, np.nan]])
    got = ndeval_risk(run, base, risk_alpha=5)
    want = [[0.25, -1.5, 0.0, np.nan], [0.0, -4.5, 0.3 - 0.1, np.nan]]
    np.testing.assert_array_equal(got, want)
    assert np.shares_memory(got, run) is False and run[0, 0] == 0.5
    for bad in (-0.5, np.nan, np.inf):
        with pytest.raises(ValueError, match="'risk_alpha' parameter of ndeval_risk"):
            ndeval_risk(run, base, risk_alpha=bad)
    with pytest.raises(ValueError, match="same shape"):
        ndeval_risk(run, base[:1], risk_alpha=1)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-riskAlpha", "1"], "-riskAlpha needs -baseline"),
        (["-baseline", "B", "-riskAlpha", "-1"], "must be a number >= 0"),
        (["-baseline", "B", "-riskAlpha", "nan"], "must be a number >= 0"),
        (["-baseline", "B", "-riskAlpha", "1x"], "must be a number >= 0"),
    ],
)
def test_risk_usage_errors(tmp_path, capsys, argv, message):
    q = _write(tmp_path, "q", BASE_QRELS)
    r = _write(tmp_path, "r", "1 Q0 d1 1 0 r\n")
    b = _write(tmp_path, "b", "1 Q0 d2 1 0 b\n")
    argv = [b if a == "B" else a for a in argv]
    with pytest.raises(SystemExit) as exc:
        main(["ndeval", *argv, q, r])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_missing_or_bad_baseline_file(tmp_path, capsysbinary):
    q = _write(tmp_path, "q", BASE_QRELS)
    r = _write(tmp_path, "r", "1 Q0 d1 1 0 r\n")
    missing = str(tmp_path / "nope")
    status, out, err = _cli(capsysbinary, "-baseline", missing, q, r)
    assert status == 1 and out == b""
    assert (
        err.decode().startswith("sklearn-rank ndeval: error: ")
        and "nope" in err.decode()
    )
    dup = _write(tmp_path, "b", "1 Q0 d1 1 0 b\n1 Q0 d2 1 0 b\n")
    status, out, err = _cli(capsysbinary, "-baseline", dup, q, r)
    assert status == 1 and out == b"" and "duplicate rank (1)" in err.decode()


def test_ndeval_table_shares_the_intent_path_and_needs_groups():
    # ndeval's table starts from intent_context, as evaluate_intents does: the
    # same ordering and view, the same values, and groups required.
    from sklearn_rank._metrics.ndeval import ndeval_table

    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]])
    s, g = np.array([5.0, 4, 3, 2, 1]), np.array([0, 0, 0, 1, 1])
    ids, table = ndeval_table(y, s, groups=g)
    assert ids.tolist() == [0, 1]
    want = evaluate_intents(
        y, s, groups=g, metrics=["alpha_dcg@5", "map_ia"], convention="ndeval"
    )
    assert table["alpha-DCG@5"].mean() == pytest.approx(want["alpha_dcg@5"], abs=1e-15)
    assert table["MAP-IA"].mean() == pytest.approx(want["map_ia"], abs=1e-15)
    with pytest.raises(ValueError, match="ndeval_table needs groups"):
        ndeval_table(y, s, groups=None)
