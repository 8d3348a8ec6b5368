"""Dask and Spark workers evaluate their partitions on one thread each
(issue 48): the partition path never starts the engine's threads, even when a
``joblib.parallel_config(n_jobs=...)`` context asks for more. Spark runs the
same per-partition function (``partitions.group_frame``) in its Python
workers: checked here in-process, and in Spark's workers with the same
counting device in test_spark.py (its session)."""

import joblib
import numpy as np
import pandas as pd
import pytest

import sklearn_rank
from sklearn_rank._distributed import partitions as parts
from sklearn_rank._metrics import shards

METRICS = ["ndcg@10", "map", "mrr", "precision@5"]


def _rows(n_groups=300, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_groups), rng.integers(5, 30, n_groups))
    label = rng.integers(0, 3, qid.size)
    score = label + rng.normal(size=qid.size)
    return pd.DataFrame({"qid": qid, "label": label, "score": score})


@pytest.fixture
def pools(monkeypatch):
    """Counts the engine's thread pools; shards from one row up, so that any
    call that would shard does."""
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    started = []
    real = shards.ThreadPoolExecutor

    def counting(*args, **kwargs):
        started.append(kwargs.get("max_workers"))
        return real(*args, **kwargs)

    monkeypatch.setattr(shards, "ThreadPoolExecutor", counting)
    return started


def test_the_spy_sees_the_in_memory_threads(pools):
    df = _rows()
    with joblib.parallel_config(n_jobs=4):
        sklearn_rank.evaluate(df.label, df.score, groups=df.qid, metrics=METRICS)
    assert pools == [4]


def test_partition_function_runs_on_one_thread(pools):
    df = _rows()
    plan = parts.make_plan(
        "evaluate_per_group", y_true="label", y_score="score", groups="qid",
        sample_weight=None, retrieved=None, judged=None, metrics=METRICS,
        convention=None, options={}, per_group=True,
    )  # fmt: skip
    with joblib.parallel_config(n_jobs=4):
        frame = parts.group_frame(df, plan)
    assert pools == []
    ref = sklearn_rank.evaluate_per_group(
        df.label, df.score, groups=df.qid, metrics=METRICS
    )
    for m in METRICS:
        np.testing.assert_array_equal(frame[m].to_numpy(), ref.values[m])


def test_dask_partitions_on_one_thread(pools):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import sklearn_rank.dask as srd

    df = _rows()
    ddf = dd.from_pandas(df, npartitions=3)
    # The local threads scheduler with a task shuffle: a distributed client left
    # by another test in this process would otherwise pick the p2p shuffle.
    local = {"scheduler": "threads", "dataframe.shuffle.method": "tasks"}
    with joblib.parallel_config(n_jobs=4), dask.config.set(local):
        got = srd.evaluate(ddf, "score", metrics=METRICS)
    assert pools == []
    assert got == pytest.approx(
        sklearn_rank.evaluate(df.label, df.score, groups=df.qid, metrics=METRICS),
        rel=1e-12,
    )
