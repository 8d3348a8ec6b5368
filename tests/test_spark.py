"""sklearn_rank.spark against the in-memory engine on a local Spark session.

One ``local[2]`` SparkSession serves the module (its start-up costs seconds);
the tests are skipped, with the reason, only where Java or PySpark is missing.
They carry the ``spark`` marker: ``-m "not spark"`` leaves them out locally.
"""

from __future__ import annotations

import json
import os
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
            # C1 only, one GC thread: the tests' jobs are small, and C2's and the
            # parallel collector's threads cost more CPU than they save on 2 cores
            .config(
                "spark.driver.extraJavaOptions",
                "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
            )
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


def test_partitions_are_evaluated_on_one_thread(frame, monkeypatch, tmp_path):
    """Issue 48: a Spark task evaluates its partition on one thread, even when
    ``joblib.parallel_config(n_jobs=4)`` asks for more in the worker. Counted
    in the Python workers as the Dask test counts (tests/
    test_distributed_threads.py): the engine's thread pools, shards from one
    row up; beside it, a control in the same worker (``evaluate`` of the
    partition's rows) shows that the device sees threads there. The API takes
    no per-partition n_jobs: more cores come from Spark (spark.executor.cores,
    one partition per task; docs/scale.md)."""
    out = str(tmp_path)

    def counted(pdf, plan, *args, **kwargs):
        import json
        import os
        import uuid

        import joblib

        from sklearn_rank import evaluate
        from sklearn_rank._distributed import partitions
        from sklearn_rank._metrics import shards

        pool, least = shards.ThreadPoolExecutor, shards.MIN_ROWS_PER_SHARD
        started = []

        def counting(*a, **kw):
            started.append(kw.get("max_workers"))
            return pool(*a, **kw)

        shards.ThreadPoolExecutor, shards.MIN_ROWS_PER_SHARD = counting, 1
        try:
            with joblib.parallel_config(n_jobs=4):
                result = partitions.group_frame(pdf, plan, *args, **kwargs)
                seen = list(started)
                y, s, g = (pdf[c] for c in (plan.y_true, plan.y_score, plan.groups))
                evaluate(y, s, groups=g, metrics=["ndcg@3"])  # the control
        finally:
            shards.ThreadPoolExecutor, shards.MIN_ROWS_PER_SHARD = pool, least
        control = started[len(seen) :]
        with open(os.path.join(out, f"{uuid.uuid4().hex}.json"), "w") as f:
            report = {"partition": seen, "control": control, "pid": os.getpid()}
            json.dump({**report, "groups": g.nunique()}, f)
        return result

    class Parts:
        """The partition module, its per-partition function counted."""

        group_frame = staticmethod(counted)

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            from sklearn_rank._distributed import partitions

            return getattr(partitions, name)

    monkeypatch.setattr(srs, "parts", Parts())
    metrics = ["ndcg@3", "map"]
    found = srs.evaluate(frame, metrics=metrics, groups="qid", npartitions=2)
    want = evaluate_per_group(ROWS["label"], ROWS["score"], groups=ROWS["qid"],
                              metrics=metrics)  # fmt: skip
    assert found == pytest.approx(
        {m: np.nanmean(want.values[m]) for m in metrics}, rel=1e-12
    )
    reports = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert reports  # the counted function ran in the workers
    assert all(r["pid"] != os.getpid() for r in reports)
    assert all(r["partition"] == [] for r in reports), reports
    # the device counts in the workers: evaluate there starts its threads
    assert any(r["control"] and r["groups"] > 1 for r in reports), reports
    assert all(min(r["control"], default=2) > 1 for r in reports), reports


def test_bad_column_names_the_argument(frame):
    with pytest.raises(ValueError, match="'y_score' parameter of evaluate"):
        srs.evaluate(frame, y_score="nope")


# -- the reproductions of issue 34 ----------------------------------------------
def test_pooled_auc_reads_integer_grades(spark):
    rows = pd.DataFrame(
        {
            "label": [0.5, 0.0, 1.0, 0.5, 1.0, 0.0],
            "score": [0.9, 0.1, 0.5, 0.8, 0.3, 0.2],
            "qid": [1, 1, 1, 2, 2, 2],
        }
    )
    found = srs.evaluate(
        spark.createDataFrame(rows), metrics=["auc"], integer_grades=True
    )
    assert found == {"auc": 0.5}  # the in-memory value (1.0 before the fix)


def test_more_partitions_than_groups(frame):
    # Most shuffle partitions are empty: each yields nothing.
    expected, _ = in_memory(ROWS, ["map", "ndcg@3"], {"max_grade": 3.0})
    found = srs.evaluate(
        frame, metrics=["map", "ndcg@3"], **COLUMNS, max_grade=3.0, npartitions=37
    )
    assert_close(found, expected)
    per_group = srs.evaluate_per_group(frame, metrics=["map"], npartitions=37)
    assert per_group.count() == ROWS["qid"].nunique()


def test_worker_errors_are_the_library_errors(spark):
    from sklearn_rank import evaluate

    rows = ROWS[["qid", "label", "score"]].copy()
    rows.loc[5, "label"] = -1.0
    with pytest.raises(ValueError) as memory:
        evaluate(rows["label"], rows["score"], groups=rows["qid"], metrics=["ndcg@3"])
    with pytest.raises(ValueError) as found:
        srs.evaluate(spark.createDataFrame(rows), metrics=["ndcg@3"])
    assert str(found.value) == str(memory.value)
    assert type(found.value) is ValueError  # not Spark's PythonException


def test_nulls_and_types_are_found_before_the_shuffle(spark):
    rows = ROWS[["qid", "label", "score"]].astype({"qid": object})
    rows.loc[3, "qid"] = None
    with pytest.raises(ValueError, match="groups in evaluate has 1 null"):
        srs.evaluate(spark.createDataFrame(rows), metrics=["mrr"])
    text = ROWS[["qid", "label", "score"]].astype({"label": str})
    with pytest.raises(TypeError, match="y_true in evaluate must be numbers"):
        srs.evaluate(spark.createDataFrame(text), metrics=["mrr"])


def test_several_score_columns_in_pool_and_a_path(spark, tmp_path):
    from sklearn_rank import evaluate

    rows = ROWS.assign(other=-ROWS["score"], in_pool=True)
    found = srs.evaluate(
        spark.createDataFrame(rows),
        ["score", "other"],
        metrics=["map", "infap"],
        judged="judged",
        in_pool="in_pool",
        ties="stable",
    )
    for col in ("score", "other"):
        want = evaluate(
            rows["label"].to_numpy(),
            rows[col].to_numpy(),
            groups=rows["qid"].to_numpy(),
            judged=rows["judged"].to_numpy(),
            in_pool=rows["in_pool"].to_numpy(),
            metrics=["map", "infap"],
            ties="stable",
        )
        assert_close(found[col], want)
    path = tmp_path / "rows.parquet"
    ROWS.to_parquet(path)
    assert srs.evaluate(str(path), metrics=["map"]) == srs.evaluate(
        spark.createDataFrame(ROWS), metrics=["map"]
    )


def test_workers_run_this_interpreter():
    import os
    import subprocess
    import sys

    code = "import os, sklearn_rank.spark; print(os.environ['PYSPARK_PYTHON'])"
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert out.stdout.strip() == sys.executable, out.stderr


# -- Spark ML ---------------------------------------------------------------------
# pyspark's CrossValidator leaves its thread pool open (its own leak).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:unclosed running multiprocessing pool")
def test_ranking_evaluator_in_cross_validator(spark):
    from pyspark.ml import Pipeline
    from pyspark.ml.feature import VectorAssembler
    from pyspark.ml.regression import LinearRegression
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    from sklearn_rank import evaluate

    rng = np.random.default_rng(0)
    rows = ROWS[["qid", "label"]].assign(
        f1=ROWS["label"] + rng.normal(size=len(ROWS)), f2=rng.normal(size=len(ROWS))
    )
    df = spark.createDataFrame(rows)
    assembler = VectorAssembler(inputCols=["f1", "f2"], outputCol="features")
    lr = LinearRegression(featuresCol="features", labelCol="label")
    pipeline = Pipeline(stages=[assembler, lr])
    evaluator = srs.RankingEvaluator(metricName="ndcg", k=3, groupCol="qid")
    assert evaluator.isLargerBetter() and evaluator.metric() == "ndcg@3"
    grid = ParamGridBuilder().addGrid(lr.regParam, [0.0, 100.0]).build()
    cv = CrossValidator(
        estimator=pipeline,
        estimatorParamMaps=grid,
        evaluator=evaluator,
        numFolds=2,
        parallelism=2,
    )
    model = cv.fit(df)
    assert len(model.avgMetrics) == 2 and np.isfinite(model.avgMetrics).all()
    predictions = model.transform(df).select("qid", "label", "prediction")
    got = evaluator.evaluate(predictions)
    local = pd.DataFrame(
        [tuple(r) for r in predictions.collect()], columns=predictions.columns
    )
    want = evaluate(
        local["label"], local["prediction"], groups=local["qid"], metrics=["ndcg@3"]
    )
    assert got == pytest.approx(want["ndcg@3"], rel=1e-12)
    # a param map overrides the metric, as Spark ML's evaluators do
    mrr = evaluator.evaluate(predictions, {evaluator.metricName: "mrr"})
    want = evaluate(
        local["label"], local["prediction"], groups=local["qid"], metrics=["mrr"]
    )
    assert mrr == pytest.approx(want["mrr"], rel=1e-12)


def test_ranked_lists_equal_mllib(spark):
    from pyspark.ml.evaluation import RankingEvaluator as MLlibEvaluator

    rng = np.random.default_rng(1)
    data = []
    for _ in range(25):
        items = rng.permutation(30)
        pred = [float(x) for x in items[: rng.integers(1, 12)]]
        rel = [float(x) for x in rng.choice(30, size=rng.integers(1, 6), replace=False)]
        data.append((pred, rel))
    df = spark.createDataFrame(data, ["prediction", "label"])
    for name, k in [
        ("ndcgAtK", 5),
        ("precisionAtK", 3),
        ("recallAtK", 4),
        ("meanAveragePrecision", 10),
    ]:
        want = MLlibEvaluator(metricName=name, k=k).evaluate(df)
        got = srs.RankingEvaluator(metricName=name, k=k).evaluate(df)
        assert got == pytest.approx(want, rel=1e-12), name


def test_errors_name_input_rows(spark):
    from sklearn_rank import evaluate

    rows = ROWS[["qid", "label", "score"]].copy()
    rows.loc[150, "score"] = np.inf  # (a NaN becomes a null in Spark: refused early)
    with pytest.raises(ValueError, match="row 150") as memory:
        evaluate(rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"])
    df = spark.createDataFrame(rows).repartition(3)  # rows in another order
    local = pd.DataFrame([tuple(r) for r in df.collect()], columns=df.columns)
    row = int(np.flatnonzero(np.isinf(local["score"]))[0])
    with pytest.raises(ValueError, match=f"first at row {row}\\b") as found:
        srs.evaluate(df, metrics=["mrr"])
    assert str(found.value).replace(str(row), "150") == str(memory.value)


def test_num_partitions_is_the_former_name(frame):
    with pytest.warns(FutureWarning, match="renamed npartitions"):
        old = srs.evaluate(frame, metrics=["map"], num_partitions=3)
    assert old == srs.evaluate(frame, metrics=["map"], npartitions=3)
