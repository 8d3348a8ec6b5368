"""The public columnar reading path of ``sklearn_rank.io`` (issue 27.3): the
same join as :func:`trec_arrays`, without a Python string per row, and the one
path under both :func:`load_trec` and ``sklearn-rank eval``."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank.io as srio
from sklearn_rank.io import (
    TrecColumns,
    join_columns,
    load_trec,
    read_qrels,
    read_qrels_columns,
    read_run,
    read_run_columns,
    trec_arrays,
)

DATA = Path(__file__).parent / "data" / "trec_eval"


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("max_docs", [None, 7])
def test_columns_equal_the_per_row_path(complete, max_docs):
    qrels, run = DATA / "qrels.rel_level", DATA / "results.trunc"
    cols = join_columns(
        read_qrels_columns(qrels),
        read_run_columns(run),
        complete=complete,
        max_docs_per_query=max_docs,
    )
    assert isinstance(cols, TrecColumns)
    ref = trec_arrays(
        read_qrels(qrels),
        read_run(run),
        complete=complete,
        max_docs_per_query=max_docs,
    )
    arrays = cols.to_arrays()
    for name in ("y_true", "y_score", "groups", "retrieved", "docno", "rank", "judged"):
        np.testing.assert_array_equal(getattr(arrays, name), getattr(ref, name))
    # Columns: integer query codes into the evaluated query ids, no strings.
    assert cols.query_codes.dtype.kind == "i" and cols.y_true.dtype == np.float64
    assert set(cols.query_ids) == set(ref.groups.tolist())
    by_code = np.array(cols.query_ids, dtype=object)[cols.query_codes]
    assert sorted(by_code.tolist()) == sorted(ref.groups.tolist())
    assert cols.run_tag == "STANDARD"


def test_load_trec_reads_through_the_columns(monkeypatch):
    calls = []
    real = srio._columns.join_columns

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(srio._columns, "join_columns", spy)
    monkeypatch.setattr(srio._trec, "join_columns", spy)
    t = load_trec(DATA / "qrels.test", DATA / "results.test")
    assert calls and len(t) > 0


def test_byte_order_mark_is_skipped_or_kept():
    data = b"\xef\xbb\xbf301 Q0 a 1 2 r\n301 Q0 b 2 1 r\n"
    qrels = read_qrels_columns(io.BytesIO(b"301 0 a 1\n301 0 b 0\n"))
    skip = join_columns(qrels, read_run_columns(io.BytesIO(data)))
    assert skip.query_ids == ["301"] and skip.retrieved.sum() == 2
    keep = read_run_columns(io.BytesIO(data), byte_order_mark="keep")
    joined = join_columns(qrels, keep, complete=True)
    # trec_eval's reading: "\ufeff301" is a query of its own, not judged.
    assert joined.retrieved.sum() == 1
    with pytest.raises(ValueError, match="byte_order_mark"):
        read_run_columns(io.BytesIO(data), byte_order_mark="strip")


def test_the_command_imports_no_private_io_name():
    import ast

    for path in (Path(srio.__file__).parents[1] / "_cli").glob("*.py"):
        if path.name in ("_plotting.py", "compare.py", "_dask_engine.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "io"
            ):
                assert not (node.module or "").startswith("io._"), path
                assert all(not a.name.startswith("_") for a in node.names), path
