"""``sklearn-rank eval`` on tables as on TREC files: the same numbers from a
TREC qrels file with a table run (and the reverse), the table read without a
Python object per row, messages in the command's words, and progress in bytes.
"""

from __future__ import annotations

import io
import json
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from _trec_eval_files import DUPLICATE_CASES, DUPLICATES

from sklearn_rank._cli import _progress, main
from sklearn_rank.io import _id_columns, _text

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN = DATA / "qrels.test", DATA / "results.test"
TREC = ["--convention", "trec_eval", "--format", "trec", "-q"]
TREC += ["-m", "map", "-m", "P.5", "-m", "ndcg_cut.10", "-m", "recall.100"]


def _eval(argv, capsys):
    status = main(["eval", "--quiet", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def _columns(path: Path, names: list[str], pick: list[int]):
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return {n: [r[i] for r in rows] for n, i in zip(names, pick, strict=True)}


def _write(columns: dict, path: Path) -> Path:
    if path.suffix == ".parquet":
        pq.write_table(pa.table(columns), path)
    elif path.suffix == ".csv":
        head = ",".join(columns)
        rows = zip(*columns.values(), strict=True)
        path.write_text(head + "\n" + "".join(",".join(r) + "\n" for r in rows))
    else:
        values = zip(*columns.values(), strict=True)
        rows = [dict(zip(columns, r, strict=True)) for r in values]
        path.write_text(json.dumps(rows))
    return path


@pytest.fixture
def tables(tmp_path):
    """qrels.test and results.test as tables: ids as text, numbers typed."""
    q = _columns(QRELS, ["qid", "docno", "label"], [0, 2, 3])
    r = _columns(RUN, ["qid", "docno", "score"], [0, 2, 4])
    q["label"] = [int(x) for x in q["label"]]
    r["score"] = [float(x) for x in r["score"]]
    out = {}
    for suffix in (".parquet", ".csv"):
        qc, rc = dict(q), dict(r)
        if suffix == ".csv":
            qc["label"] = [str(x) for x in q["label"]]
            rc["score"] = [repr(x) for x in r["score"]]
        out[suffix] = (
            _write(qc, tmp_path / f"qrels{suffix}"),
            _write(rc, tmp_path / f"run{suffix}"),
        )
    return out


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_trec_file_and_table_mixed_give_trec_numbers(tables, suffix, capsys):
    """Every pairing of TREC file and table prints the TREC pair's lines."""
    _, expected, _ = _eval([*TREC, QRELS, RUN], capsys)
    assert expected.count("\n") == 16  # 3 queries and all, 4 measures
    qrels_table, run_table = tables[suffix]
    for pair in ([QRELS, run_table], [qrels_table, RUN], [qrels_table, run_table]):
        status, out, err = _eval([*TREC, *pair], capsys)
        assert status == 0, err
        assert out == expected, pair


def test_tables_are_read_without_a_python_object_per_row(tables, monkeypatch, capsys):
    """The per-row Python paths (one str per id) are not taken."""

    def refuse(*args, **kwargs):
        raise AssertionError("ids converted one Python object at a time")

    monkeypatch.setattr(_id_columns._TextColumn, "from_values", refuse)
    monkeypatch.setattr(_id_columns._RowText, "from_values", refuse)
    status, _, err = _eval([*TREC, *tables[".parquet"]], capsys)
    assert status == 0, err


def test_csv_ids_stay_text(tmp_path, capsys):
    """An id written 007 in a CSV file is 007, as in the TREC qrels file."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("007 0 d1 1\n007 0 d2 0\n")
    run = tmp_path / "r.csv"
    run.write_text("qid,docno,score\n007,d1,0.5\n007,d2,0.9\n")
    status, out, err = _eval(["-m", "map", "--format", "trec", qrels, run], capsys)
    assert status == 0, err
    assert out.split() == ["map", "all", "0.5000"]


def test_python_number_syntax_in_a_table_is_refused(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("qid,label,score\nq,1,0.5\nq,0,1_000\n")
    status, _, err = _eval(["-m", "mrr", table], capsys)
    assert status == 1
    assert "t.csv, row 2: column 'score' must hold finite numbers" in err


def test_negative_label_named_with_file_row_and_column(tmp_path, capsys):
    table = tmp_path / "preds.csv"
    table.write_text("qid,label,score\nq,1,0.5\nq,2,0.4\nq,-1,0.3\n")
    status, _, err = _eval(["-m", "ndcg@10", table], capsys)
    assert status == 1
    assert "preds.csv, row 3: column 'label' holds the negative label -1" in err
    assert "--label-col" in err and "y_true" not in err


def test_empty_run_file_says_so(tmp_path, capsys):
    empty = tmp_path / "run.txt"
    empty.write_text("# nothing yet\n\n")
    status, _, err = _eval([QRELS, empty], capsys)
    assert status == 1
    assert "run.txt: the run file is empty" in err and "no query" not in err
    status, _, err = _eval([empty, RUN], capsys)
    assert "run.txt: the qrels file is empty" in err


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("tabular", [False, True])
def test_qrels_read_beside_the_run_unless_progress_is_shown(
    tables, tabular, terminal, monkeypatch, capsys
):
    """No progress line (a pipe, --quiet): the qrels are read on a second
    thread while the run is; on a terminal, one file at a time."""
    import sklearn_rank.io as srio

    name = "table_qrels_columns" if tabular else "read_qrels_columns"
    read, threads = getattr(srio, name), []

    def record(*args, **kwargs):
        threads.append(threading.current_thread())
        return read(*args, **kwargs)

    monkeypatch.setattr(srio, name, record)
    if terminal:
        monkeypatch.setattr("sys.stderr", _Terminal())
    files = tables[".parquet"] if tabular else (QRELS, RUN)
    assert main(["eval", "-m", "map", *map(str, files)]) == 0
    assert len(threads) == 1
    assert (threads[0] is threading.main_thread()) == terminal


@pytest.mark.parametrize("quiet", [[], ["--quiet"], "terminal"])
def test_qrels_errors_come_before_the_runs(tmp_path, capsys, monkeypatch, quiet):
    """The qrels are read beside the first run (on a second thread when no
    progress is shown); their errors are still the ones reported first."""
    if quiet == "terminal":  # a progress line: one file at a time
        monkeypatch.setattr("sys.stderr", _Terminal())
        quiet = []
    empty, bad_qrels = tmp_path / "empty.txt", tmp_path / "bad_qrels.txt"
    bad_run = tmp_path / "bad_run.txt"
    empty.write_text("")
    bad_qrels.write_text("q1 0 d1 x\n")
    bad_run.write_text("q1 Q0 d1 1 zz r\n")

    def error(*files):
        status = main(["eval", *quiet, *map(str, files)])
        err = capsys.readouterr().err
        if isinstance(sys.stderr, _Terminal):  # this call's output only
            err += sys.stderr.getvalue()
            sys.stderr.seek(0)
            sys.stderr.truncate()
        assert status == 1, err
        return err

    assert "empty.txt: the qrels file is empty" in error(empty, bad_run)
    assert "bad_qrels.txt, line 1: the rel field" in error(bad_qrels, bad_run)
    assert "bad_qrels.txt, line 1" in error(bad_qrels, tmp_path / "missing.txt")
    # Tables: the same order.
    qrels_csv, run_csv = tmp_path / "q.csv", tmp_path / "r.csv"
    qrels_csv.write_text("qid,docno,label\nq1,d1,x\n")
    run_csv.write_text("qid,docno,score\nq1,d1,zz\n")
    assert "q.csv, row 1: column 'label'" in error(qrels_csv, run_csv)
    assert "q.csv, row 1: column 'label'" in error(qrels_csv, tmp_path / "none.csv")


def test_json_array_is_read_like_json_lines(tmp_path, capsys):
    rows = [
        {"qid": "a", "label": 1, "score": 0.2},
        {"qid": "a", "label": 0, "score": 0.9},
        {"qid": "b", "label": 1, "score": 0.5},
    ]
    array = tmp_path / "preds.json"
    array.write_text(json.dumps(rows, indent=1))
    lines = tmp_path / "preds.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, expected, _ = _eval(["-m", "mrr,map", "--format", "csv", lines], capsys)
    status, out, err = _eval(["-m", "mrr,map", "--format", "csv", array], capsys)
    assert status == 0, err
    assert out == expected and "0.75" in out
    array.write_text(json.dumps([[1, 2], [3, 4]]))
    status, _, err = _eval([array], capsys)
    assert status == 1 and "JSON lines" in err and "array of objects" in err


def test_predictions_table_notes_unknown_relevant_rows_once(tmp_path, capsys):
    table = tmp_path / "preds.csv"
    table.write_text("qid,label,s1,s2\nq,1,0.5,0.1\nq,0,0.4,0.9\n")
    argv = ["eval", "-m", "map,recall@5,mrr", "--score-col", "s1"]
    argv += ["--score-col", "s2", str(table)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("note:") == 1
    assert "preds.csv holds predictions only: map, recall@5" in err
    assert main(["eval", "-m", "mrr", str(table), "--score-col", "s1"]) == 0
    assert "note:" not in capsys.readouterr().err
    qrels = tmp_path / "q.txt"
    qrels.write_text("q 0 d 1\n")  # judgments given: nothing to say
    run = tmp_path / "r.txt"
    run.write_text("q Q0 d 1 1.0 r\n")
    assert main(["eval", "-m", "map", str(qrels), str(run)]) == 0
    assert "predictions only" not in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("tabular", [False, True])
def test_progress_shows_bytes_read_of_the_total(tables, tabular, monkeypatch, capsys):
    """On a terminal, a read that lasts shows its bytes done of the total."""
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(_progress, "_AFTER_S", 0.0)
    monkeypatch.setattr(_progress, "_EVERY_S", 0.0)
    monkeypatch.setattr(_text, "_READ_BYTES", 1024)
    files = tables[".csv"] if tabular else (QRELS, RUN)
    assert main(["eval", "-m", "map", *map(str, files)]) == 0
    shown = terminal.getvalue()
    size = Path(files[1]).stat().st_size / 1e6
    assert f"reading {Path(files[1]).name}: " in shown
    assert f" of {size:.1f} MB" in shown
    if not tabular:
        assert f"parsing {Path(files[1]).name}: {size:.1f} of {size:.1f} MB" in shown
    assert np.isfinite(size)


@pytest.mark.parametrize(("expected", "flags"), DUPLICATE_CASES)
def test_table_run_listing_a_document_twice_reads_as_the_trec_file(
    expected, flags, tmp_path, capsys
):
    """Under trec_eval's convention a table run is checked as the same rows
    in a TREC file: a document listed twice below the -M cut is computed
    (trec_eval's bytes), both copies kept is an error naming both rows; under
    the library's convention any repeat is refused when the table is read."""
    text = tmp_path / "results.dup"
    text.write_text(RUN.read_text() + DUPLICATES)
    table = _columns(text, ["qid", "docno", "score"], [0, 2, 4])
    table["score"] = [float(x) for x in table["score"]]
    table = _write(table, tmp_path / "run_dup.parquet")
    trec = ["--convention", "trec_eval", "--format", "trec"]
    status, out, err = _eval([*trec, *flags, QRELS, table], capsys)
    assert status == 0, err
    # The run is named by its file (a table has no run tag).
    tagged = "\tall\tSTANDARD\n", "\tall\trun_dup.parquet\n"
    assert out == (DATA / expected).read_text().replace(*tagged)
    status, _, err = _eval([*trec, "-M", "501", QRELS, table], capsys)
    assert status == 1
    assert "line 1501: duplicate document 'FBIS3-20713'" in err
    assert "(first listed on line 119) within the top 501 (-M)" in err
    status, _, err = _eval(["--convention", "sklearn_rank", QRELS, table], capsys)
    assert status == 1
    assert "line 1501: duplicate document 'FBIS3-20713'" in err
    assert "within the top" not in err


def test_tables_cut_at_m0_print_trec_eval_bytes(tables, capsys):
    """-M 0 on tables as on the TREC pair: every query ranks nothing, and
    trec_eval's -nan where it divides 0 by 0 (the table path did not pass the
    cut on to the measures)."""
    trec = ["--convention", "trec_eval", "--format", "trec"]
    status, out, err = _eval([*trec, "-q", "-m", "all_trec", "-M", "0",
                              *tables[".parquet"]], capsys)  # fmt: skip
    assert status == 0, err
    tagged = "\tall\tSTANDARD\n", "\tall\trun.parquet\n"
    assert out == (DATA / "out.test.M0").read_text().replace(*tagged)
