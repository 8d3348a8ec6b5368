"""``sklearn-rank eval``: tables, ranked lists, formats, errors, start-up."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import evaluate
from sklearn_rank._cli import main
from sklearn_rank.io import read_qrels, read_run

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN = str(DATA / "qrels.test"), str(DATA / "results.test")
MEASURES = "map,ndcg@10,precision@5,recall@100,mrr"


def _eval(argv, capsys):
    status = main(["eval", "--quiet", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _values(csv_text: str) -> dict[str, float]:
    lines = csv_text.strip().splitlines()[1:]
    return {
        line.split(",")[0]: float(line.split(",")[1]) for line in lines if line.strip()
    }


def _tables(tmp_path: Path) -> tuple[dict, dict]:
    """qrels.test and results.test as column dicts (ids as strings)."""
    qrels, run = read_qrels(QRELS), read_run(RUN)
    q = {"qid": qrels.qid, "docno": qrels.docno, "label": qrels.relevance}
    r = {"qid": run.qid, "docno": run.docno, "score": run.score}
    return q, r


def _write(tmp_path: Path, name: str, columns: dict, fmt: str) -> str:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({k: list(v) for k, v in columns.items()})
    path = tmp_path / f"{name}.{fmt}"
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif fmt == "parquet":
        pytest.importorskip("pyarrow")
        frame.to_parquet(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return str(path)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_tables_give_the_trec_numbers(fmt, tmp_path, capsys):
    """A qrels table + run table joined like TREC files: the same numbers."""
    q, r = _tables(tmp_path)
    qpath = _write(tmp_path, "qrels", q, fmt)
    rpath = _write(tmp_path, "run", r, fmt)
    opts = ["-m", MEASURES, "--format", "csv", "--convention", "trec_eval"]
    status, trec_out, _ = _eval([*opts, QRELS, RUN], capsys)
    assert status == 0
    status, table_out, _ = _eval([*opts, qpath, rpath], capsys)
    assert status == 0
    assert _values(table_out) == _values(trec_out)
    assert len(_values(trec_out)) == 5
    # -J (unjudged documents removed) and bpref read the judged flag of the join.
    judged = [*opts[:1], "map,bpref,precision@5", *opts[2:], "-J"]
    status, trec_out, _ = _eval([*judged, QRELS, RUN], capsys)
    assert status == 0
    status, table_out, _ = _eval([*judged, qpath, rpath], capsys)
    assert status == 0
    assert _values(table_out) == _values(trec_out)
    assert _values(trec_out)["map"] == pytest.approx(0.1848, abs=5e-5)  # pytrec_eval -J


def test_single_table_matches_evaluate(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    cols = {
        "qid": [f"u{i}" for i in rng.integers(0, 20, n)],
        "label": rng.integers(0, 3, n).tolist(),
        "score": rng.normal(size=n).round(2).tolist(),
        "other": rng.normal(size=n).tolist(),
    }
    path = _write(tmp_path, "preds", cols, "csv")
    gz = tmp_path / "preds.csv.gz"
    gz.write_bytes(gzip.compress(Path(path).read_bytes()))
    expected = evaluate(
        cols["label"], cols["score"], groups=cols["qid"], metrics=MEASURES.split(",")
    )
    expected_other = evaluate(
        cols["label"], cols["other"], groups=cols["qid"], metrics=MEASURES.split(",")
    )
    for source in (path, str(gz)):
        status, out, _ = _eval(
            [
                "-m",
                MEASURES,
                "--format",
                "json",
                "--score-col",
                "score",
                "--score-col",
                "other",
                source,
            ],
            capsys,
        )
        assert status == 0
        runs = json.loads(out)["runs"]
        assert runs["score"]["all"] == pytest.approx(expected, rel=1e-12)
        assert runs["other"]["all"] == pytest.approx(expected_other, rel=1e-12)


def test_per_query_values_match_evaluate_per_group(tmp_path, capsys):
    from sklearn_rank import evaluate_per_group

    cols = {
        "qid": ["a", "a", "b", "b", "b"],
        "label": [1, 0, 0, 2, 1],
        "score": [0.1, 0.9, 0.3, 0.2, 0.8],
    }
    path = _write(tmp_path, "p", cols, "csv")
    status, out, _ = _eval(["-q", "-m", "ndcg@2", "--format", "json", path], capsys)
    assert status == 0
    got = json.loads(out)["runs"]["score"]["per_query"]
    ref = evaluate_per_group(
        cols["label"], cols["score"], groups=cols["qid"], metrics=["ndcg@2"]
    )
    assert [got[q]["ndcg@2"] for q in ("a", "b")] == ref.values["ndcg@2"].tolist()


def test_ranked_lists_from_json_lines(tmp_path, capsys):
    path = tmp_path / "lists.jsonl"
    rows = [
        {"qid": "u1", "items": ["a", "b", "c"], "relevant": ["c", "z"]},
        {"qid": "u2", "items": ["7", "8"], "relevant": ["7"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    status, out, _ = _eval(
        [
            "--ranked-lists",
            "-m",
            "recall@3,mrr,precision@2",
            "--format",
            "json",
            str(path),
        ],
        capsys,
    )
    assert status == 0, out
    values = json.loads(out)["runs"]["lists.jsonl"]["all"]
    # By hand: u1 recall 1/2, RR 1/3, P@2 0; u2 recall 1, RR 1, P@2 1/2.
    assert values == pytest.approx(
        {"recall@3": 0.75, "mrr": (1 / 3 + 1) / 2, "precision@2": 0.25}
    )


def test_several_runs_print_one_table(capsys):
    status, out, _ = _eval(
        ["-m", "P.5", "-m", "map", QRELS, RUN, str(DATA / "results.trunc")], capsys
    )
    assert status == 0
    header, _, *rows = out.splitlines()
    # Both runs are tagged STANDARD, so the columns are named by file.
    assert header.split() == ["measure", "results.test", "results.trunc"]
    assert [r.split()[0] for r in rows] == ["map", "P_5"]
    assert rows[0].split()[1] == "0.1785"  # out.test.a: map of results.test


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json", "trec"])
def test_every_format_prints_the_values(fmt, capsys):
    status, out, _ = _eval(["-m", "map", "--format", fmt, QRELS, RUN], capsys)
    assert status == 0
    assert "0.1785" in out or "0.1785" in f"{_first_float(out):.4f}"


def _first_float(text: str) -> float:
    import re

    return float(re.search(r"0\.\d{5,}", text).group(0))


# ------------------------------------------------------------------------- errors


def _error(argv, capsys, status=1):
    code = main(["eval", "--quiet", *argv])
    err = capsys.readouterr().err
    assert code == status
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("q1 Q0 d1 1 2.0\n", "line 1: expected at least 6 whitespace-separated"),
        ("q1 Q0 d1 1 high r\n", "line 1: the score field must be a number"),
        ("q1 Q0 d1 1 nan r\n", "line 1: the score field must be a number (inf"),
        ("301 Q0 d1 1 2 r\n301 Q0 d1 2 1 r\n", "line 2: duplicate document 'd1'"),
    ],
)
def test_malformed_run_is_one_line_exit_1(text, expected, tmp_path, capsys):
    run = tmp_path / "bad_run.txt"
    run.write_text(text)
    line = _error([QRELS, str(run)], capsys)
    assert "bad_run.txt" in line and expected in line


def test_non_utf8_and_bom(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_bytes(b"301 Q0 caf\xe9 1 2.0 r\n")
    # trec_eval compares the bytes: under its convention the file is read so
    # (tests/test_trec_eval_silent_differences.py); another one refuses it.
    line = _error(["--convention", "sklearn_rank", QRELS, str(run)], capsys)
    assert "run.txt, line 1: not valid UTF-8" in line
    assert main(["eval", "--quiet", "-m", "num_ret", QRELS, str(run)]) == 0
    assert capsys.readouterr().out == "num_ret               \tall\t1\n"
    run.write_bytes(b"\xef\xbb\xbf" + Path(RUN).read_bytes())
    # trec_eval 10.0 reads the mark as part of the first query id ("\ufeff301",
    # not judged): its line leaves query 301, map 0.1786 (the binary's value).
    assert main(["eval", "-m", "map", QRELS, str(run)]) == 0
    out, err = capsys.readouterr()
    assert out == "map                   \tall\t0.1786\n"
    assert "byte-order mark" in err  # said on stderr, not silent
    # Another convention skips the mark: the first line is query 301's.
    status, out, _ = _eval(
        ["-m", "map", "--convention", "sklearn_rank", QRELS, str(run)], capsys
    )
    assert status == 0 and "0.1785" in out


def test_empty_file_and_missing_column(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert "empty.csv: the file is empty" in _error([str(empty)], capsys)
    table = tmp_path / "t.csv"
    table.write_text("qid,label,prediction\nq,1,0.5\n")
    line = _error([str(table)], capsys)
    assert "t.csv: no column 'score'" in line and "--*-col" in line


def test_non_numeric_score_in_table(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,score\nq,1,0.5\nq,0,oops\n")
    line = _error([str(table)], capsys)
    assert "t.csv, row 2: column 'score' must hold finite numbers" in line


def test_query_in_one_file_only_is_reported(tmp_path, capsys):
    """No query in common: an error, not an empty table."""
    run = tmp_path / "run.txt"
    run.write_text("999 Q0 d1 1 2.0 r\n")
    line = _error([QRELS, str(run)], capsys)
    assert "no query" in line and "run.txt" in line


def test_missing_file(capsys):
    line = _error([QRELS, "no/such/run.txt"], capsys)
    assert "no/such/run.txt" in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ties", "foo", QRELS, RUN], "--ties must be a str among"),
        (["--gain", "cubic", QRELS, RUN], "--gain must be"),
        (["-m", "map@", QRELS, RUN], "a cutoff must follow '@'"),
        (["-m", "MAP", QRELS, RUN], "did you mean 'map'?"),
        (["-m", "ndcg@x", QRELS, RUN], "must be a positive integer"),
        (["-m", "nope", QRELS, RUN], "unknown measure"),
        (["-M", "-1", QRELS, RUN], "segmentation fault"),
        ([QRELS], "at least two files"),
    ],
)
def test_usage_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(["eval", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ------------------------------------------------------------------------- start-up


def test_eval_imports_neither_sklearn_nor_scipy_nor_pandas():
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['sklearn_rank', 'eval', '--quiet', {QRELS!r}, {RUN!r}]\n"
        "try:\n"
        "    runpy.run_module('sklearn_rank', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('sklearn', 'scipy', 'pandas', 'pyarrow')"
        " if m in sys.modules))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1]))
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "map                   \tall\t0.1785" in out.stdout


def test_progress_only_on_a_terminal():
    import io

    from sklearn_rank._cli._progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    for stream, quiet, shown in [
        (io.StringIO(), False, False),
        (Tty(), True, False),
        (Tty(), False, True),
    ]:
        progress = Progress(quiet, stream)
        progress.step("reading run.txt")
        progress.done()
        assert ("reading run.txt" in stream.getvalue()) is shown


# ------------------------------------------------------------ runs and names


def _same_tag_runs(tmp_path: Path) -> list[str]:
    """Two copies of results.test (both tagged STANDARD, both named run.txt),
    the second with query 301 reversed so that the runs differ."""
    lines = Path(RUN).read_text().splitlines()
    first = [line for line in lines if line.startswith("301")]
    rest = [line for line in lines if not line.startswith("301")]
    scores = [line.split()[4] for line in first][::-1]
    flipped = [
        " ".join([*line.split()[:4], s, line.split()[5]])
        for line, s in zip(first, scores, strict=True)
    ]
    paths = []
    for folder, body in (("a", lines), ("b", flipped + rest)):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "run.txt"
        path.write_text("\n".join(body) + "\n")
        paths.append(str(path))
    return paths


def test_runs_with_one_name_keep_their_own_values(tmp_path, capsys):
    """Same tag and same file name: each run is named by its path, in every
    format, and no run's values are dropped."""
    a, b = _same_tag_runs(tmp_path)
    per = {}
    for path in (a, b):
        _, out, _ = _eval(["-m", "map", "--format", "json", QRELS, path], capsys)
        per[path] = json.loads(out)["runs"]["STANDARD"]["all"]["map"]
    assert per[a] != per[b]
    status, out, _ = _eval(["-m", "map", "--format", "json", QRELS, a, b], capsys)
    assert status == 0
    runs = json.loads(out)["runs"]
    assert {name: v["all"]["map"] for name, v in runs.items()} == per
    status, out, _ = _eval(["-m", "map", "--format", "table", QRELS, a, b], capsys)
    assert out.splitlines()[0].split() == ["measure", a, b]
    status, out, _ = _eval(["-m", "map", "--format", "csv", QRELS, a, b, a], capsys)
    assert out.splitlines()[0] == f"measure,{a},{b},{a} #2"


def test_trec_format_labels_each_run(capsys):
    """Several runs: a '# run: NAME' line before each block; one run: trec_eval's
    lines only."""
    trunc = str(DATA / "results.trunc")
    status, out, _ = _eval(["-m", "map", "--format", "trec", QRELS, RUN, trunc], capsys)
    assert status == 0
    assert out.splitlines() == [
        "# run: results.test",
        "map                   \tall\t0.1785",
        "# run: results.trunc",
        "map                   \tall\t0.1523",
    ]
    status, out, _ = _eval(["-m", "map", "--format", "trec", QRELS, RUN], capsys)
    assert out == "map                   \tall\t0.1785\n"


# ------------------------------------------------------------ measure names


def test_library_dcg_and_rbp_names_are_accepted(capsys):
    """dcg, dcg@10, rbp, rbp@10 are the library's names: same numbers as the
    library under the trec_eval convention."""
    t = read_qrels(QRELS), read_run(RUN)
    from sklearn_rank.io import load_trec

    arrays = load_trec(QRELS, RUN)
    names = ["dcg", "dcg@10", "rbp", "rbp@10"]
    expected = evaluate(
        arrays.y_true,
        arrays.y_score,
        groups=arrays.groups,
        retrieved=arrays.retrieved,
        metrics=names,
        convention="trec_eval",
    )
    status, out, _ = _eval(
        ["-m", ",".join(names), "--format", "csv", QRELS, RUN], capsys
    )
    assert status == 0 and t
    assert _values(out) == pytest.approx(expected, rel=1e-12)


def test_comma_lists_of_trec_eval_names(capsys):
    status, listed, _ = _eval(["-m", "recip_rank,map,P.5,10", QRELS, RUN], capsys)
    assert status == 0
    status, separate, _ = _eval(
        ["-m", "recip_rank", "-m", "map", "-m", "P.5,10", QRELS, RUN], capsys
    )
    assert listed == separate
    assert [line.split()[0] for line in listed.splitlines()] == [
        "map",
        "recip_rank",
        "P_5",
        "P_10",
    ]


# ------------------------------------------------------------ the command's words


def test_messages_name_flags_and_query_ids(tmp_path, capsys):
    line = _error(["-m", "err", str(DATA / "qrels.rel_level"), RUN], capsys)
    assert "--max-grade 1" in line and "--max-grade 4" in line
    assert "max_grade=" not in line and "y_true" not in line
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 0\nq2 0 d1 1\n")
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\n")
    line = _error(["-m", "map", "--undefined", "raise", str(qrels), str(run)], capsys)
    assert "map is undefined for 1 of 2 queries (query q1)" in line
    assert "--undefined skip" in line and "ids 0" not in line
