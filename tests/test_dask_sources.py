"""sklearn_rank.dask on frames not made by ``dd.from_pandas`` (issue 51, item 4):
a filter with ``.isin(...)`` and ``dd.from_delayed`` equal the in-memory values
instead of an empty NotImplementedError from the id-type check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sklearn_rank import evaluate

dd = pytest.importorskip("dask.dataframe", reason='pip install "sklearn-rank[dask]"')

import dask  # noqa: E402

import sklearn_rank.dask as srd  # noqa: E402

ROWS = pd.DataFrame(
    {
        "qid": np.repeat([1, 2, 3], 4),
        "label": [1.0, 0.0, 0.0, 1.0] * 3,
        "score": np.arange(12.0) % 5,
    }
)


def _memory(rows):
    return evaluate(
        rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr", "ndcg"]
    )


def test_isin_filter():
    frame = dd.from_pandas(ROWS, npartitions=2)
    got = srd.evaluate(frame[frame["qid"].isin([1, 3])], metrics=["mrr", "ndcg"])
    assert got == pytest.approx(_memory(ROWS[ROWS["qid"].isin([1, 3])]), rel=1e-12)


def test_from_delayed():
    parts = [dask.delayed(lambda p: p)(p) for p in (ROWS.iloc[:6], ROWS.iloc[6:])]
    frame = dd.from_delayed(parts, meta=ROWS.iloc[:0])
    got = srd.evaluate(frame, metrics=["mrr", "ndcg"])
    assert got == pytest.approx(_memory(ROWS), rel=1e-12)


def test_a_csv_path_is_refused_by_name(tmp_path):
    path = tmp_path / "rows.csv"
    ROWS.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"'data' parameter .* not Parquet.*read_csv"):
        srd.evaluate(path, metrics=["mrr"])
    ROWS.to_parquet(tmp_path / "rows.parquet")
    got = srd.evaluate(tmp_path / "rows.parquet", metrics=["mrr", "ndcg"])
    assert got == pytest.approx(_memory(ROWS), rel=1e-12)


def test_text_ids_as_a_numpy_object_array():
    import dask.array as da

    ids = ROWS["qid"].map({1: "a", 2: "b", 3: "c"}).to_numpy(dtype=object)
    want = _memory(ROWS.assign(qid=ids))
    y, s = ROWS["label"].to_numpy(), ROWS["score"].to_numpy()
    for labels in (y, da.from_array(y, chunks=5)):
        got = srd.evaluate(labels, s, groups=ids, metrics=["mrr", "ndcg"])
        assert got == pytest.approx(want, rel=1e-12)


def _mixed_ids(i):
    return pd.DataFrame(
        {
            "qid": pd.Series([1, 1] if i == 0 else ["1", "1"], dtype=object),
            "label": [1.0, 0.0],
            "score": [0.9, 0.1] if i == 0 else [0.1, 0.9],
        }
    )


def test_from_map_mixed_ids_are_refused_as_in_memory():
    # Dask turns the object ids into text inside each partition (1 and "1"
    # would be one group): the ids are read before that conversion.
    rows = pd.concat([_mixed_ids(0), _mixed_ids(1)], ignore_index=True)
    with pytest.raises(TypeError, match="mixes id types") as memory:
        evaluate(rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"])
    # (a task shuffle: distributed's P2P shuffle fails on mixed object ids
    # with pyarrow's own error before the check sees them)
    local = {"scheduler": "threads", "dataframe.shuffle.method": "tasks"}
    for convert in (True, False):
        with dask.config.set({"dataframe.convert-string": convert}):
            frame = dd.from_map(_mixed_ids, [0, 1])
        with dask.config.set(local), pytest.raises(TypeError) as found:
            srd.evaluate(frame, metrics=["mrr"])
        assert str(found.value) == str(memory.value)
        per_group = srd.evaluate_per_group(frame[frame["label"] >= 0], metrics=["mrr"])
        with dask.config.set(local), pytest.raises(TypeError, match="mixes id types"):
            per_group.compute()


def test_from_map_text_ids_equal_memory():
    def load(i):
        return ROWS.iloc[6 * i : 6 * i + 6].assign(qid=lambda r: r["qid"].map(str))

    frame = dd.from_map(load, [0, 1])
    got = srd.evaluate(frame, metrics=["mrr", "ndcg"])
    assert got == pytest.approx(_memory(ROWS), rel=1e-12)
    per_group = srd.evaluate_per_group(frame, metrics=["mrr"]).compute()
    assert per_group.index.dtype == frame["qid"].dtype
