"""Bad rows in several Spark partitions (issue 51, item 5): one error for the
whole input, as the in-memory check words it (every bad row counted, the first
one numbered from the first input row), not one partition's count."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import sklearn_rank

pytestmark = pytest.mark.spark

if shutil.which("java") is None:
    pytest.skip("Spark needs Java, and no java is on PATH", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason='pip install "sklearn-rank[spark]"')

import sklearn_rank.spark as srs  # noqa: E402

N = 4000
ROWS = pd.DataFrame(
    {
        "qid": np.repeat(np.arange(N // 10), 10),
        "label": np.tile([1.0] + [0.0] * 9, N // 10),
        "score": np.random.default_rng(0).random(N),
    }
)


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("sklearn_rank tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
    yield session


def _memory(rows):
    with pytest.raises(ValueError, match=r"contains 3 NaN") as found:
        sklearn_rank.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"]
        )
    return str(found.value)


@pytest.mark.parametrize("bad", [np.inf, np.nan], ids=["inf", "nan-is-null"])
def test_bad_labels_in_several_partitions(spark, bad):
    rows = ROWS.copy()
    rows.loc[[30, 2000, 3500], "label"] = bad
    # Four partitions of 1000 rows in input order: bad rows in three of them.
    records = [
        (int(q), None if np.isnan(y) else float(y), float(s))
        for q, y, s in rows.itertuples(index=False)
    ]
    schema = "qid long, label double, score double"
    df = spark.createDataFrame(spark.sparkContext.parallelize(records, 4), schema)
    with pytest.raises(ValueError) as found:
        srs.evaluate(df, metrics=["mrr"])
    assert str(found.value) == _memory(rows)
