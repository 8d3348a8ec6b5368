"""sklearn_rank.spark.RankingEvaluator in Spark ML (issue 51, items 1 and 2):
its direction read from the metric table, a CrossValidator that keeps the best
model of a loss, and save / load with every option as a Param; and the
error of bad rows in several partitions (item 5)."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest

import sklearn_rank
from sklearn_rank._metrics.registry import METRICS

pytestmark = pytest.mark.spark

if shutil.which("java") is None:
    pytest.skip("Spark needs Java, and no java is on PATH", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason='pip install "sklearn-rank[spark]"')

import pandas as pd  # noqa: E402

import sklearn_rank.spark as srs  # noqa: E402


@pytest.mark.parametrize("name", sorted(METRICS))
def test_is_larger_better_from_the_metric_table(name):
    evaluator = srs.RankingEvaluator(metricName=name)
    assert evaluator.isLargerBetter() is METRICS[name].greater_is_better


def test_losses_are_smaller_is_better():
    assert not srs.RankingEvaluator(metricName="arp").isLargerBetter()
    assert not srs.RankingEvaluator(metricName="fallout", k=5).isLargerBetter()
    assert srs.RankingEvaluator(metricName="ndcgAtK").isLargerBetter()


def test_options_are_params():
    evaluator = srs.RankingEvaluator(
        metricName="ndcg", options={"ties": "stable", "gain": "linear"}
    )
    assert evaluator.options == {"ties": "stable", "gain": "linear"}
    text = evaluator.explainParams()
    for word in ("ties", "gain", "discount", "convention", "judged_only"):
        assert f"{word}:" in text
    evaluator.setParams(metricName="map", options={"ties": "optimistic"})
    assert evaluator.getMetricName() == "map"
    assert evaluator.options == {"ties": "optimistic", "gain": "linear"}
    evaluator.setLabelCol("y").setPredictionCol("s")
    assert (evaluator.getLabelCol(), evaluator.getPredictionCol()) == ("y", "s")
    with pytest.raises(ValueError, match="'options' parameter"):
        srs.RankingEvaluator(options={"tie": "stable"})
    copied = evaluator.copy({evaluator.ties: "pessimistic"})
    assert copied.options["ties"] == "pessimistic"
    assert evaluator.options["ties"] == "optimistic"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("sklearn_rank evaluator tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate()
        )
    yield session


def _rows(n_groups=24, per=8, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_groups), per)
    label = rng.integers(0, 3, size=qid.size).astype(float)
    return pd.DataFrame(
        {
            "qid": qid,
            "fold": qid % 2,
            "label": label,
            "f1": label + rng.normal(scale=0.5, size=qid.size),
            "f2": rng.normal(size=qid.size),  # no signal
        }
    )


# pyspark's CrossValidator leaves its thread pool open (its own leak).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:unclosed running multiprocessing pool")
def test_cross_validator_keeps_the_best_model_of_a_loss_and_saves(spark, tmp_path):
    from pyspark.ml import Pipeline
    from pyspark.ml.feature import VectorAssembler
    from pyspark.ml.regression import LinearRegression
    from pyspark.ml.tuning import CrossValidator, CrossValidatorModel, ParamGridBuilder

    df = spark.createDataFrame(_rows())
    assembler = VectorAssembler(inputCols=["f1"], outputCol="features")
    lr = LinearRegression(featuresCol="features", labelCol="label")
    pipeline = Pipeline(stages=[assembler, lr])
    evaluator = srs.RankingEvaluator(
        metricName="arp", groupCol="qid", options={"ties": "pessimistic"}
    )
    # the first map (f2, noise) ranks worse than the second (f1): a larger arp
    grid = ParamGridBuilder().addGrid(assembler.inputCols, [["f2"], ["f1"]]).build()
    cv = CrossValidator(
        estimator=pipeline,
        estimatorParamMaps=grid,
        evaluator=evaluator,
        foldCol="fold",
        numFolds=2,
        parallelism=1,
    )
    model = cv.fit(df)
    worst, best = model.avgMetrics
    assert best < worst  # f1 ranks relevant rows first
    assert model.bestModel.stages[0].getInputCols() == ["f1"]
    path = str(tmp_path / "cv")
    model.save(path)
    loaded = CrossValidatorModel.load(path)
    ev = loaded.getEvaluator()
    assert isinstance(ev, srs.RankingEvaluator)
    assert (ev.getMetricName(), ev.getGroupCol()) == ("arp", "qid")
    assert ev.options == {"ties": "pessimistic"} and not ev.isLargerBetter()
    predictions = model.transform(df)
    assert ev.evaluate(predictions) == evaluator.evaluate(predictions)
    assert list(loaded.avgMetrics) == list(model.avgMetrics)
    # the evaluator alone, too
    evaluator.save(str(tmp_path / "ev"))
    again = srs.RankingEvaluator.load(str(tmp_path / "ev"))
    assert again.options == evaluator.options
    assert again.explainParams() == evaluator.explainParams()


def test_a_csv_path_is_refused_by_name(spark, tmp_path):
    path = tmp_path / "rows.csv"
    _rows().to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"'data' parameter .* not Parquet.*read\.csv"):
        srs.evaluate(str(path), metrics=["mrr"])


# -- bad rows in several partitions (issue 51, item 5): one error for the whole
# input, as the in-memory check words it, not one partition's count
N = 4000
BAD_ROWS = pd.DataFrame(
    {
        "qid": np.repeat(np.arange(N // 10), 10),
        "label": np.tile([1.0] + [0.0] * 9, N // 10),
        "score": np.random.default_rng(0).random(N),
    }
)


def _memory_error(rows):
    with pytest.raises(ValueError, match=r"contains 3 NaN") as found:
        sklearn_rank.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"]
        )
    return str(found.value)


@pytest.mark.parametrize("bad", [np.inf, np.nan], ids=["inf", "nan-is-null"])
def test_bad_labels_in_several_partitions(spark, bad):
    rows = BAD_ROWS.copy()
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
    assert str(found.value) == _memory_error(rows)
