"""Bad rows in several partitions (issue 51, item 5): one error for the whole
input, as the in-memory check words it (every bad row counted, the first one
numbered in the whole input), not the error of whichever partition failed first."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sklearn_rank

dd = pytest.importorskip("dask.dataframe", reason='pip install "sklearn-rank[dask]"')

import sklearn_rank.dask as srd  # noqa: E402

N = 4000
ROWS = pd.DataFrame(
    {
        "qid": np.repeat(np.arange(N // 10), 10),
        "label": np.tile([1.0] + [0.0] * 9, N // 10),
        "score": np.random.default_rng(0).random(N),
    }
)
ROWS.loc[[30, 2000, 3500], "label"] = np.nan


def _memory(func):
    with pytest.raises(ValueError, match=r"3 NaN .* first at row 30") as found:
        getattr(sklearn_rank, func)(
            ROWS["label"], ROWS["score"], groups=ROWS["qid"], metrics=["mrr"]
        )
    return str(found.value)


@pytest.mark.parametrize("promise", [False, True], ids=["shuffled", "promised"])
def test_evaluate_counts_every_partition(promise):
    frame = dd.from_pandas(ROWS, npartitions=4)
    with pytest.raises(ValueError) as found:
        srd.evaluate(frame, metrics=["mrr"], partitioned_by_group=promise)
    assert str(found.value) == _memory("evaluate")


@pytest.mark.parametrize("promise", [False, True], ids=["shuffled", "promised"])
@pytest.mark.parametrize("metric", ["mrr", "ndcg"])
def test_evaluate_per_group_counts_every_partition(promise, metric):
    frame = dd.from_pandas(ROWS, npartitions=4)
    per_group = srd.evaluate_per_group(
        frame,
        metrics=[metric],
        partitioned_by_group=promise,
        group_weight="relevant_mean",
    )
    with pytest.raises(ValueError) as found:
        per_group.compute()
    assert str(found.value) == _memory("evaluate_per_group")


def test_evaluate_on_a_client_counts_every_partition():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2) as c:
        frame = dd.from_pandas(ROWS, npartitions=4)
        with pytest.raises(ValueError) as found:
            srd.evaluate(frame, metrics=["mrr"], client=c)
    assert str(found.value) == _memory("evaluate")
