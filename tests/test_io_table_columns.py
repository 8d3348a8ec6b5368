"""Table columns into the join (``sklearn_rank.io``): query ids kept
dictionary-encoded as a Parquet file stores them, and a run's duplicate check
at reading or at the join (``duplicates=``), each equal to the plain path."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank.io import (
    _columns,
    join_columns,
    read_table_columns,
    table_qrels_columns,
    table_query_codes,
    table_run_columns,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = Path(__file__).parent / "data" / "trec_eval"


def _rows(path: Path, names: list[str], pick: list[int]) -> dict:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return {n: [r[i] for r in rows] for n, i in zip(names, pick, strict=True)}


@pytest.fixture
def files(tmp_path):
    """qrels.test and results.test as Parquet files of several row groups:
    each row group has a dictionary of its own, which share values."""
    q = _rows(DATA / "qrels.test", ["qid", "docno", "label"], [0, 2, 3])
    r = _rows(DATA / "results.test", ["qid", "docno", "score"], [0, 2, 4])
    q["label"] = [int(x) for x in q["label"]]
    r["score"] = [float(x) for x in r["score"]]
    # Rows shuffled (queries interleaved across row groups), and a small row
    # group size: the dictionaries overlap and no query is in one block.
    rng = np.random.default_rng(0)
    out = []
    for name, cols in (("qrels", q), ("run", r)):
        order = rng.permutation(len(cols["qid"]))
        table = pa.table({k: [v[i] for i in order] for k, v in cols.items()})
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path, row_group_size=97)
        assert pq.ParquetFile(path).metadata.num_row_groups > 3
        out.append(path)
    return out


def _join(qrels_path, run_path, dictionary, duplicates="raise", **kwargs):
    cols = dict(text=["qid", "docno"], dictionary=dictionary)
    qt = read_table_columns(qrels_path, ["qid", "docno", "label"], **cols)
    rt = read_table_columns(run_path, ["qid", "docno", "score"], **cols)
    qrels = table_qrels_columns(qt, "qid", "docno", "label", str(qrels_path))
    (run,) = table_run_columns(
        rt, "qid", "docno", ["score"], str(run_path), duplicates=duplicates
    )
    return join_columns(qrels, run, **kwargs), qt, rt


@pytest.mark.parametrize("max_docs", [None, 40])
@pytest.mark.parametrize("duplicates", ["raise", "join"])
def test_dictionary_query_ids_join_as_plain_strings(files, duplicates, max_docs):
    plain, qt, _ = _join(*files, [], max_docs_per_query=max_docs)
    assert pa.types.is_string(qt["qid"].type)
    coded, qt, rt = _join(*files, ["qid"], duplicates, max_docs_per_query=max_docs)
    assert pa.types.is_dictionary(qt["qid"].type)
    assert pa.types.is_dictionary(rt["qid"].type)
    assert coded.query_ids == plain.query_ids
    for name in ("y_true", "y_score", "query_codes", "retrieved", "rank", "judged"):
        np.testing.assert_array_equal(getattr(coded, name), getattr(plain, name))
    arrays = coded.to_arrays()
    np.testing.assert_array_equal(arrays.docno, plain.to_arrays().docno)


def test_dictionary_with_repeated_values_gives_equal_codes():
    # A dictionary may hold a value twice (Arrow does not forbid it): rows
    # with equal ids must share a code, or the duplicate check would miss
    # them.
    qid = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, 2, 0], pa.int32()), pa.array(["q1", "q2", "q1"])
    )
    table = {"qid": qid, "docno": pa.array(["a", "b", "a", "c"])}
    table["score"] = pa.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"line 3: duplicate document 'a'"):
        table_run_columns(table, "qid", "docno", ["score"], "t")
    codes, ids = table_query_codes(table, "qid", "t")
    assert ids == ["q1", "q2"]
    assert codes.tolist() == [0, 1, 0, 0]


def test_missing_dictionary_id_is_named_by_row():
    qid = pa.DictionaryArray.from_arrays(
        pa.array([0, None, 1], pa.int32()), pa.array(["q1", "q2"])
    )
    table = {"qid": qid, "docno": pa.array(["a", "b", "c"])}
    table["label"] = pa.array([1, 0, 1])
    with pytest.raises(ValueError, match=r"t, row 2: column 'qid' has a missing id"):
        table_qrels_columns(table, "qid", "docno", "label", "t")


def test_dictionary_ignored_for_other_formats_and_number_columns(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("qid,docno,label\nq1,a,1\nq2,b,0\n")
    table = read_table_columns(csv, ["qid", "docno", "label"], dictionary=["qid"])
    assert pa.types.is_string(table["qid"].type)
    numbers = tmp_path / "t.parquet"
    pq.write_table(pa.table({"qid": [3, 1], "docno": ["a", "b"]}), numbers)
    table = read_table_columns(numbers, ["qid", "docno"], dictionary=["qid"])
    assert pa.types.is_integer(table["qid"].type)
    codes, ids = table_query_codes(table, "qid", "t")
    assert ids == ["1", "3"] and codes.tolist() == [1, 0]


def test_a_missing_dictionary_column_is_named(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"query": ["q1"], "docno": ["a"]}), path)
    with pytest.raises(ValueError, match=r"no column 'qid'; the columns are 'query'"):
        read_table_columns(path, ["qid", "docno"], dictionary=["qid"])


def _duplicated():
    return {
        "qid": pa.array(["q1"] * 4 + ["q2"] * 2),
        "docno": pa.array(["a", "b", "c", "a", "a", "b"]),
        # q1's "a" twice: ranks 1 and 4 (scores 0.9 and 0.1)
        "score": pa.array([0.9, 0.8, 0.7, 0.1, 0.5, 0.4]),
    }


def _qrels():
    table = {"qid": pa.array(["q1", "q1", "q2"]), "docno": pa.array(["a", "c", "b"])}
    table["label"] = pa.array([1, 1, 1])
    return table_qrels_columns(table, "qid", "docno", "label", "q")


def test_duplicates_raise_at_reading_by_default():
    with pytest.raises(ValueError, match=r"line 4: duplicate document .a. for query"):
        table_run_columns(_duplicated(), "qid", "docno", ["score"], "t")
    with pytest.raises(ValueError, match="duplicates must be 'raise' or 'join'"):
        table_run_columns(_duplicated(), "qid", "docno", ["score"], "t", duplicates="x")


def test_duplicates_at_the_join_raise_only_where_both_are_kept(monkeypatch):
    # The check runs on a second thread; slowed down here, so that a join that
    # did not wait for it would find no repeat yet.
    check = _columns._check_unique

    def slow(*args):
        time.sleep(0.3)
        return check(*args)

    monkeypatch.setattr(_columns, "_check_unique", slow)
    (run,) = table_run_columns(
        _duplicated(), "qid", "docno", ["score"], "t", duplicates="join"
    )
    # The top 3 of q1 hold "a" once: computed, as trec_eval (its -M check).
    qrels = _qrels()
    cut = join_columns(qrels, run, max_docs_per_query=3)
    assert cut.y_true.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
    # The join waited for the check: its repeat is known and its table kept.
    assert run._parsed.repeats == [(0, 3)] and run._parsed.keys is not None
    # Both kept: an error naming both rows, at every join of that run.
    for _ in range(2):
        with pytest.raises(ValueError, match=r"line 4: duplicate document .a..*line 1"):
            join_columns(_qrels(), run)


def test_the_check_at_the_join_equals_the_check_at_reading(files):
    # The same key table either way: the lookups agree row for row.
    eager, _, _ = _join(*files, ["qid"], "raise")
    deferred, _, _ = _join(*files, ["qid"], "join")
    for name in ("y_true", "query_codes", "rank", "judged", "pooled"):
        np.testing.assert_array_equal(getattr(eager, name), getattr(deferred, name))
