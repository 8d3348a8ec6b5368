"""sklearn_rank.spark against the in-memory engine on a local Spark session.

One ``local[2]`` SparkSession serves the module (its start-up costs seconds);
the tests are skipped, with the reason, only where Java or PySpark is missing.
They carry the ``spark`` marker: ``-m "not spark"`` leaves them out locally.
"""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
from _scale_cases import (
    arrays,
    assert_close,
    in_memory,
    metric_names,
    random_rows,
)
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank import evaluate_per_group

pytestmark = pytest.mark.spark

if shutil.which("java") is None:
    pytest.skip("Spark needs Java, and no java is on PATH", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason='pip install "sklearn-rank[spark]"')

import sklearn_rank.spark as srs  # noqa: E402

COLUMNS = {
    "groups": "qid",
    "sample_weight": "sample_weight",
    "retrieved": "retrieved",
    "judged": "judged",
}
ROWS = random_rows(seed=2, n_groups=30)
METRICS = [m for m in metric_names() if not m.startswith("iprec")]


@pytest.fixture(scope="session")
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
    session.stop()


@pytest.fixture(scope="module")
def frame(spark):
    # The rows in their order (ties="stable" reads it), in two partitions of the
    # session's parallelism; the rows are shuffled, so groups span both.
    frame = spark.createDataFrame(ROWS)
    assert frame.rdd.getNumPartitions() >= 2
    return frame


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return call(*args, **kwargs)


@pytest.mark.parametrize(
    "options",
    [
        {},
        # Row order after the shuffle, the global fill weight, partitions left
        # without judged rows and the undefined rule, in one Spark job.
        {
            "ties": "stable",
            "group_weight": "relevant_mean",
            "judged_only": True,
            "undefined": 0.25,
        },
    ],
    ids=["defaults", "layout_options"],
)
def test_every_metric_equals_in_memory(frame, options):
    options = {"max_grade": 3.0, **options}
    metrics = [m for m in METRICS if not (m == "auc" and "ties" in options)]
    expected, refused = _quiet(in_memory, ROWS, metrics, options)
    # trec_eval's G, binG, infAP, ndcg_rel and Rndcg refuse, under ties="average",
    # a tie block whose order changes their value; ties="stable" checks them.
    assert set(refused) <= ({"g", "bing", "infap", "ndcg_rel", "rndcg"}), refused
    assert "ties" not in options or not refused, refused
    metrics = [m for m in metrics if m not in refused]
    found = _quiet(srs.evaluate, frame, metrics=metrics, **COLUMNS, **options)
    assert_close(found, expected)


def test_per_group_equals_in_memory(frame):
    metrics = ["ndcg@3", "map", "gauc", "err@3"]
    result = srs.evaluate_per_group(
        frame, metrics=metrics, **COLUMNS, max_grade=3.0, npartitions=3
    )
    rows = [tuple(r) for r in result.collect()]  # toPandas: pyspark vs pandas 3
    got = pd.DataFrame(rows, columns=result.columns).sort_values("qid")
    want = evaluate_per_group(
        ROWS["label"].to_numpy(),
        ROWS["score"].to_numpy(),
        metrics=metrics,
        **arrays(ROWS),
        max_grade=3.0,
    )
    np.testing.assert_array_equal(got["qid"].to_numpy(), want.group_ids)
    for m in metrics:
        np.testing.assert_allclose(got[m].to_numpy(), want.values[m], rtol=1e-12)
        np.testing.assert_allclose(
            got[f"weight:{m}"].to_numpy(), want.weights[m], rtol=1e-12
        )


def test_bad_column_names_the_argument(frame):
    with pytest.raises(ValueError, match="'y_score' parameter of evaluate"):
        srs.evaluate(frame, y_score="nope")
