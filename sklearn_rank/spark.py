"""Grouped ranking metrics on PySpark DataFrames.

Rows are repartitioned by the group column, each partition goes through the
in-memory engine as one pandas DataFrame (Arrow, ``mapInPandas``), and the
per-partition sums are added by Spark: the numbers of
:func:`sklearn_rank.evaluate` on the same rows. The per-partition function is
the one :mod:`sklearn_rank.dask` runs. See ``docs/scale.md``.

Needs the ``spark`` extra: ``pip install "sklearn-rank[spark]"`` (and Java).
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from ._distributed import frontend as front
from ._distributed import partitions as parts
from ._engine.conventions import OPTIONS
from ._metrics.evaluate import DEFAULT_METRICS
from ._metrics.validation import parse_metric
from ._utils.params import param_error

try:
    import pandas as pd
    from pyspark import keyword_only
    from pyspark.ml.evaluation import Evaluator
    from pyspark.ml.param import Param, Params, TypeConverters
    from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol
    from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as exc:  # pragma: no cover - the extra is installed in tests
    raise ImportError(
        'sklearn_rank.spark needs PySpark: pip install "sklearn-rank[spark]"'
    ) from exc

__all__ = ["RankingEvaluator", "evaluate", "evaluate_per_group", "ranked_lists_to_rows"]

# Spark's Python workers run PYSPARK_PYTHON, else "python3" from PATH: another
# interpreter than this one (an unactivated virtual environment lacks this
# package). A session started after this import uses this interpreter unless
# the variable says otherwise.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def _doubles(names: Sequence[Any]) -> T.StructType:
    """A schema of double columns named c0, c1, ... (metric names such as
    "ndcg@10" stay out of Spark's column names)."""
    return T.StructType([T.StructField(f"c{i}", T.DoubleType()) for i in names])


_BLOB = T.StructType([T.StructField("p", T.BinaryType())])


def _whole(batches: Iterator[pd.DataFrame]) -> pd.DataFrame | None:
    """A partition's Arrow batches as one pandas DataFrame (groups may span
    batches, never partitions); None for an empty partition (a shuffle leaves
    some when there are fewer groups than partitions)."""
    frames = list(batches)
    return pd.concat(frames, ignore_index=True) if frames else None


def _kind(dtype: T.DataType) -> str:
    if isinstance(dtype, T.BooleanType):
        return "b"
    if isinstance(dtype, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return "i"
    if isinstance(dtype, (T.FloatType, T.DoubleType, T.DecimalType)):
        return "f"
    return "O"


def _frame(data: Any, func: str) -> DataFrame:
    """A Spark DataFrame, or a Parquet path read by the active session."""
    if isinstance(data, (str, os.PathLike)):
        session = SparkSession.getActiveSession()
        if session is None:
            raise ValueError(
                f"data in {func} is a path, and no Spark session is active: start "
                "one (SparkSession.builder.getOrCreate()) or pass a DataFrame."
            )
        return session.read.parquet(front.parquet_path(data, func, "spark.read.csv"))
    if not isinstance(data, DataFrame):
        raise param_error(
            "data", func, "a pyspark.sql.DataFrame or a Parquet path", data
        )
    return data


def _collect(call, rows: DataFrame | None = None, plans=()):
    """``call()`` (a Spark action), with an error of the library raised on a
    worker re-raised here as itself (not Spark's PythonException); an error
    that names a row of a shuffled partition names the input row instead (found
    again on ``rows``, the input partitions, only when the call fails)."""
    try:
        return call()
    except Exception as exc:
        if type(exc).__name__ != "PythonException":
            raise
        mine = front.worker_error(str(exc))
        if mine is None:
            raise
        if rows is not None and " row " in str(mine):
            mine = _first_bad_row(rows, plans) or mine
        raise mine from None


_ERRORS = T.StructType(
    [
        T.StructField("part", T.LongType()),
        T.StructField("rows", T.LongType()),
        T.StructField("kind", T.StringType()),
        T.StructField("message", T.StringType()),
    ]
)


def _first_bad_row(rows: DataFrame, plans) -> BaseException | None:
    """The in-memory error of the bad rows of the input partitions: each
    partition reports its rows and its error, merged here (every bad row
    counted, the first one counted from the first input row, as
    ``rows.collect()`` lists them)."""

    def check(batches):
        from pyspark import TaskContext

        pdf = _whole(batches)
        if pdf is None:
            return
        n, kind, message = front.row_report(len(pdf), _check_all, pdf, plans)
        number = TaskContext.get().partitionId()
        yield pd.DataFrame(
            {"part": [number], "rows": [n], "kind": [kind], "message": [message]}
        )

    found = sorted(rows.mapInPandas(check, _ERRORS).collect(), key=lambda r: r["part"])
    return front.merged_error((r["rows"], r["kind"], r["message"]) for r in found)


def _check_all(pdf: pd.DataFrame, plans) -> None:
    for plan in plans:
        parts.check_rows(pdf, plan)


def _renamed(npartitions, num_partitions, func: str):
    """``num_partitions``, the former name of ``npartitions``, with a warning."""
    if num_partitions is None:
        return npartitions
    import warnings

    warnings.warn(
        f"num_partitions in sklearn_rank.spark.{func} is renamed npartitions (as "
        "in sklearn_rank.dask); the old name goes in a later release.",
        FutureWarning,
        stacklevel=3,
    )
    if npartitions is not None:
        raise ValueError(
            f"{func} got npartitions and num_partitions; pass npartitions only."
        )
    return num_partitions


def _check_nulls(rows: DataFrame, plans) -> None:
    """Null group ids, labels or scores, found by one cheap reduction before the
    shuffle (Spark SQL, no Python worker)."""
    plan = plans[0]
    names = {"groups": plan.groups, "y_true": plan.y_true}
    names.update({f"y_score:{p.y_score}": p.y_score for p in plans})
    counts = rows.agg(
        F.count(F.lit(1)).alias("n"),
        *(
            F.sum(F.col(c).isNull().cast("long")).alias(f"c{i}")
            for i, c in enumerate(names.values())
        ),
    ).collect()[0]
    for i, (arg, column) in enumerate(names.items()):
        bad = counts[f"c{i}"] or 0
        if bad:
            # A null label or score is a NaN in pandas: the in-memory error,
            # with its count and first row (a null id keeps this message).
            found = _first_bad_row(rows, plans)
            if found is not None and front.names_a_row(str(found)):
                raise found
            raise ValueError(
                f"{arg.partition(':')[0]} in {plan.func} has {bad} null value(s) in "
                f"column {column!r} (of {counts['n']} rows); every row needs one. "
                "Drop or fill them first (df.dropna(subset=[...]))."
            )


def _prepare(
    data, func, y_score, names, metrics, convention, options, per_group, npartitions
):
    df = _frame(data, func)
    columns = front.score_columns(y_score, func, "data")
    for column in columns:
        front.check_columns(func, {**names, "y_score": column}, df.columns, "data")
    npartitions = front.check_count(npartitions, "npartitions", func)
    plans = [
        front.make_plan(
            func, {**names, "y_score": c}, metrics, convention, options, per_group
        )
        for c in columns
    ]
    kinds = {f.name: _kind(f.dataType) for f in df.schema.fields}
    for plan in plans:
        front.check_schema(func, {**names, "y_score": plan.y_score}, kinds)
    plan = plans[0]
    keep = list(dict.fromkeys(c for p in plans for c in p.columns))
    rows = df.select(*keep)
    _check_nulls(rows, plans)
    grouped = rows
    if plan.needs_order:  # the input order, which the shuffle does not keep
        grouped = grouped.withColumn(
            parts.ROW_KEYS[0], F.spark_partition_id().cast("long")
        ).withColumn(parts.ROW_KEYS[1], F.monotonically_increasing_id())
    if npartitions is None:
        grouped = grouped.repartition(F.col(plan.groups))
    else:
        grouped = grouped.repartition(npartitions, F.col(plan.groups))
    fills = {}
    for p in plans:
        fills[p.y_score] = _fill(grouped, p) if p.needs_fill else None
    return df, plans, rows, grouped, fills


def _fill(grouped: DataFrame, plan: parts.Plan) -> float:
    def fill_parts(batches):
        pdf = _whole(batches)
        if pdf is not None:
            yield pd.DataFrame([parts.fill_parts(pdf, plan)])

    total = grouped.mapInPandas(fill_parts, _doubles([0, 1])).agg(
        F.sum("c0"), F.sum("c1")
    )
    row = _collect(total.collect)[0]
    return parts.fill_value([v or 0.0 for v in row])


def _partials(rows: DataFrame, grouped: DataFrame, plans, fills) -> list[parts.Partial]:
    """The merged partial of every plan: one pass over the shuffled rows, one
    small pickled partial per partition and plan, merged on the driver."""
    wanted = [p for p in plans if p.requests]

    def partials(batches):
        pdf = _whole(batches)
        if pdf is None:
            return
        found = [
            parts.partial(parts.group_frame(pdf, p, fills[p.y_score]), p)
            for p in wanted
        ]
        yield pd.DataFrame({"p": [pickle.dumps(found)]})

    if not wanted:
        return [parts.Partial() for _ in plans]
    blobs = _collect(grouped.mapInPandas(partials, _BLOB).collect, rows, plans)
    merged = [
        parts.merge_partials([pickle.loads(b["p"])[i] for b in blobs])
        for i in range(len(wanted))
    ]
    out = dict(zip((p.y_score for p in wanted), merged, strict=True))
    return [out.get(p.y_score, parts.Partial()) for p in plans]


def _auc(rows: DataFrame, plan: parts.Plan) -> dict[str, float]:
    """The pooled AUC: per-partition histograms of the input partitions (no
    shuffle), summed by Spark per (score, class)."""
    if not plan.pooled:
        return {}

    def histogram(batches):
        pdf = _whole(batches)
        if pdf is not None:
            hist = parts.auc_histogram(pdf, plan)
            hist.columns = ["c0", "c1", "c2"]
            yield hist

    merged = (
        rows.mapInPandas(histogram, _doubles([0, 1, 2]))
        .groupBy("c0", "c1")
        .agg(F.sum("c2").alias("c2"))
    )
    found = _collect(merged.collect)  # one row per (score, class)
    frame = pd.DataFrame(
        [tuple(r) for r in found], columns=list(parts.HISTOGRAM), dtype=float
    )
    return parts.auc_from_histogram(parts.merge_histograms([frame]), plan)


def evaluate(
    data: Any,
    y_score: str | Sequence[str] = "score",
    *,
    y_true: str = "label",
    groups: str = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: str | None = None,
    retrieved: str | None = None,
    judged: str | None = None,
    in_pool: str | None = None,
    npartitions: int | None = None,
    num_partitions: int | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    convention: str | None = None,
) -> dict[str, float] | dict[str, dict[str, float]]:
    """:func:`sklearn_rank.evaluate` on a PySpark DataFrame.

    Parameters
    ----------
    data : pyspark.sql.DataFrame or str
        One row per (group, item), or the path of a Parquet file or directory
        (read by the active session).
    y_score : str or list of str, default="score"
        The score column, or several (one result per column, each keyed by
        its name; the rows are shuffled once for all).
    y_true, groups : str, default="label", "qid"
        Column names of the labels and the group ids.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`sklearn_rank.get_metric_names`.
    sample_weight, retrieved, judged, in_pool : str, default=None
        Columns with the per-row inputs of :func:`sklearn_rank.evaluate`.
    npartitions : int, default=None
        Partitions of the repartition by group; None is Spark's
        ``spark.sql.shuffle.partitions``.
    num_partitions : int, default=None
        Deprecated: the former name of ``npartitions`` (the name
        :mod:`sklearn_rank.dask` uses too).
    ties, gain, discount, relevance_threshold, undefined, precision_denominator, \
ap_denominator, recall_denominator, max_grade, weights, group_weight, \
persistence, recall_level, r_multiple, integer_grades, judged_only, alpha, beta, \
gain_rows, ideal_order, convention : see :func:`sklearn_rank.evaluate`
        Conventions; None takes the value of ``convention``.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order (with several score
        columns: a dict of such dicts, keyed by column).

    Raises
    ------
    ValueError, TypeError
        The in-memory errors: a bad row raised on a worker reaches the caller as
        the library's own exception and message. Null ids, labels or scores are
        found before the shuffle.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from sklearn_rank.spark import evaluate  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame(  # doctest: +SKIP
    ...     [("q1", 1, 0.9), ("q1", 0, 0.8), ("q1", 0, 0.1),
    ...      ("q2", 0, 0.3), ("q2", 1, 0.2), ("q2", 0, 0.7)],
    ...     ["qid", "label", "score"])
    >>> evaluate(df, metrics=["mrr", "precision@2"])  # doctest: +SKIP
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    """
    func = "evaluate"
    options = parts.option_values(locals())
    npartitions = _renamed(npartitions, num_partitions, func)
    names = front.row_names(y_true, groups, sample_weight, retrieved, judged, in_pool)
    _, plans, rows, grouped, fills = _prepare(
        data, func, y_score, names, metrics, convention, options, False, npartitions
    )
    merged = _partials(rows, grouped, plans, fills)
    out = {
        p.y_score: parts.finish(m, _auc(rows, p), p)
        for p, m in zip(plans, merged, strict=True)
    }
    return out if isinstance(y_score, (list, tuple)) else out[plans[0].y_score]


def evaluate_per_group(
    data: Any,
    y_score: str | Sequence[str] = "score",
    *,
    y_true: str = "label",
    groups: str = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: str | None = None,
    retrieved: str | None = None,
    judged: str | None = None,
    in_pool: str | None = None,
    npartitions: int | None = None,
    num_partitions: int | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
    relevance_threshold: float | str | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    convention: str | None = None,
) -> Any:
    """:func:`sklearn_rank.evaluate_per_group` as a (lazy) Spark DataFrame.

    Takes the arguments of :func:`evaluate` except ``undefined``.

    Returns
    -------
    per_group : pyspark.sql.DataFrame
        One row per group: the group column, then for each metric its value
        (NaN where undefined) and its weight, in columns named ``"<metric>"``
        and ``"weight:<metric>"``.
    """
    func = "evaluate_per_group"
    options = parts.option_values(locals())
    npartitions = _renamed(npartitions, num_partitions, func)
    names = front.row_names(y_true, groups, sample_weight, retrieved, judged, in_pool)
    df, plans, _, grouped, fills = _prepare(
        data, func, y_score, names, metrics, convention, options, True, npartitions
    )
    out = {p.y_score: _per_group(df, grouped, p, fills[p.y_score]) for p in plans}
    return out if isinstance(y_score, (list, tuple)) else out[plans[0].y_score]


def _per_group(df: DataFrame, grouped: DataFrame, plan: parts.Plan, fill):
    columns = plan.output_columns()
    groups = plan.groups
    schema = T.StructType(
        [
            T.StructField(groups, df.schema[groups].dataType),
            *(T.StructField(f"c{i}", T.DoubleType()) for i in range(len(columns))),
        ]
    )

    def per_group(batches):
        pdf = _whole(batches)
        if pdf is None:
            return
        frame = parts.group_frame(pdf, plan, fill).reset_index()
        frame.columns = [groups, *(f"c{i}" for i in range(len(columns)))]
        yield frame

    out = grouped.mapInPandas(per_group, schema)
    return out.select(groups, *(F.col(f"c{i}").alias(c) for i, c in enumerate(columns)))


# -- Spark ML -------------------------------------------------------------------------
# MLlib's RankingEvaluator metric names, as the library's.
_MLLIB_NAMES = {
    "meanAveragePrecision": ("map", False),
    "meanAveragePrecisionAtK": ("map", True),
    "precisionAtK": ("precision", True),
    "ndcgAtK": ("ndcg", True),
    "recallAtK": ("recall", True),
}


def _metric_name(name: str, k: int | None) -> str:
    """The library's metric name of an evaluator's ``metricName`` and ``k``."""
    from ._metrics.registry import METRICS

    if name in _MLLIB_NAMES:
        base, at_k = _MLLIB_NAMES[name]
        return f"{base}@{k}" if at_k and k is not None else base
    if "@" in name or k is None:
        return name
    spec = METRICS.get(name)
    return f"{name}@{k}" if spec is not None and spec.takes_k else name


def ranked_lists_to_rows(
    data: DataFrame,
    prediction_col: str = "prediction",
    label_col: str = "label",
    group_col: str = "qid",
) -> DataFrame:
    """Ranked-list input, as MLlib's ``RankingMetrics`` takes it, as rows.

    Each row of ``data`` holds a ranked list of predicted items (an array
    column) and the set of relevant items (an array column). The result has
    one row per (list, item): ``group_col`` (the list's number), ``label``
    (1.0 for a relevant item), ``score`` (minus the position: the first item
    ranks first) and ``retrieved`` (False for a relevant item that the list
    leaves out: it counts for recall and the ideal DCG, as in MLlib).
    """
    lists = data.select(
        F.col(prediction_col).alias("__pred"), F.col(label_col).alias("__rel")
    ).withColumn(group_col, F.monotonically_increasing_id())
    shown = lists.select(
        group_col,
        F.posexplode("__pred").alias("__pos", "__item"),
        "__rel",
    ).select(
        group_col,
        F.array_contains("__rel", F.col("__item")).cast("double").alias("label"),
        (-F.col("__pos")).cast("double").alias("score"),
        F.lit(True).alias("retrieved"),
    )
    missed = lists.select(
        group_col, F.explode(F.array_except("__rel", "__pred")).alias("__item")
    ).select(
        group_col,
        F.lit(1.0).alias("label"),
        F.lit(0.0).alias("score"),
        F.lit(False).alias("retrieved"),
    )
    return shown.unionByName(missed)


class RankingEvaluator(
    Evaluator,
    HasLabelCol,
    HasPredictionCol,
    DefaultParamsReadable,
    DefaultParamsWritable,
):
    """A ``pyspark.ml.evaluation.Evaluator`` of grouped ranking metrics, for
    ``CrossValidator`` and ``TrainValidationSplit``.

    Parameters
    ----------
    metricName : str, default="ndcg"
        A name from :func:`sklearn_rank.get_metric_names` (``"@k"`` allowed), or
        one of MLlib's ``RankingEvaluator`` names (``"meanAveragePrecision"``,
        ``"meanAveragePrecisionAtK"``, ``"precisionAtK"``, ``"ndcgAtK"``,
        ``"recallAtK"``).
    k : int, default=10
        The cutoff of a metric that takes one and has none in its name; 0 for
        none.
    labelCol, predictionCol : str, default="label", "prediction"
        Labels and scores, one row per item; or, as MLlib's
        ``RankingEvaluator`` takes them, array columns: the relevant items and
        the ranked list of predicted items (:func:`ranked_lists_to_rows`).
    groupCol : str, default="qid"
        The group (query) column of row input.
    convention : str, default=None
        The convention preset of :func:`sklearn_rank.evaluate`.
    options : dict, default=None
        Convention keywords of :func:`sklearn_rank.evaluate`; each is also a
        Param of its own name (``ties``, ``gain``, ...), shown by
        ``explainParams()`` and saved with the evaluator.

    ``isLargerBetter()`` reads the metric's direction from the metric table:
    False for a loss (``arp``, ``fallout``), so ``CrossValidator`` keeps the
    model with the smallest value. The evaluator is ``MLWritable`` and
    ``MLReadable`` (``save`` / ``load``, and inside a saved
    ``CrossValidatorModel``).

    Examples
    --------
    >>> from pyspark.ml.tuning import CrossValidator  # doctest: +SKIP
    >>> evaluator = RankingEvaluator(metricName="ndcg", k=5)  # doctest: +SKIP
    >>> cv = CrossValidator(estimator=pipeline, estimatorParamMaps=grid,
    ...                     evaluator=evaluator)  # doctest: +SKIP
    """

    metricName = Param(
        Params._dummy(),
        "metricName",
        "metric name (sklearn_rank or MLlib RankingEvaluator)",
        typeConverter=TypeConverters.toString,
    )
    k = Param(
        Params._dummy(), "k", "cutoff (0: none)", typeConverter=TypeConverters.toInt
    )
    groupCol = Param(
        Params._dummy(),
        "groupCol",
        "group column",
        typeConverter=TypeConverters.toString,
    )
    convention: Any = Param(
        Params._dummy(),
        "convention",
        "convention preset of sklearn_rank.evaluate (unset: the default)",
    )

    @keyword_only
    def __init__(
        self,
        *,
        metricName: str = "ndcg",
        k: int = 10,
        labelCol: str = "label",
        predictionCol: str = "prediction",
        groupCol: str = "qid",
        convention: str | None = None,
        options: dict | None = None,
    ):
        super().__init__()
        self._setDefault(
            metricName="ndcg",
            k=10,
            labelCol="label",
            predictionCol="prediction",
            groupCol="qid",
        )
        # set by pyspark's @keyword_only, as in Spark ML's own classes
        self.setParams(**self._input_kwargs)  # type: ignore[attr-defined]

    @keyword_only
    def setParams(
        self,
        *,
        metricName: str = "ndcg",
        k: int = 10,
        labelCol: str = "label",
        predictionCol: str = "prediction",
        groupCol: str = "qid",
        convention: str | None = None,
        options: dict | None = None,
    ) -> RankingEvaluator:
        """Set the evaluator's Params by keyword, as MLlib's evaluators do."""
        kwargs = dict(self._input_kwargs)  # type: ignore[attr-defined]
        options = dict(kwargs.pop("options", None) or {})
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise param_error(
                "options",
                "RankingEvaluator",
                f"convention keywords of sklearn_rank.evaluate ({sorted(OPTIONS)})",
                options,
                f"Remove {unknown}.",
            )
        kwargs.update(options)
        return self._set(**{k: v for k, v in kwargs.items() if v is not None})

    @property
    def options(self) -> dict[str, Any]:
        """The convention keywords set (each a Param of its own name)."""
        return {name: self.getOrDefault(name) for name in OPTIONS if self.isSet(name)}

    def setLabelCol(self, value: str) -> RankingEvaluator:
        return self._set(labelCol=value)

    def setPredictionCol(self, value: str) -> RankingEvaluator:
        return self._set(predictionCol=value)

    def getMetricName(self) -> str:
        return self.getOrDefault(self.metricName)

    def getK(self) -> int:
        return self.getOrDefault(self.k)

    def getGroupCol(self) -> str:
        return self.getOrDefault(self.groupCol)

    def setMetricName(self, value: str) -> RankingEvaluator:
        return self._set(metricName=value)

    def setK(self, value: int) -> RankingEvaluator:
        return self._set(k=value)

    def setGroupCol(self, value: str) -> RankingEvaluator:
        return self._set(groupCol=value)

    def metric(self) -> str:
        """The library's name of the metric computed."""
        return _metric_name(self.getMetricName(), self.getK() or None)

    def _evaluate(self, dataset: DataFrame) -> float:
        name = self.metric()
        convention = (
            self.getOrDefault(self.convention) if self.isSet(self.convention) else None
        )
        label, pred = self.getLabelCol(), self.getPredictionCol()
        if isinstance(dataset.schema[pred].dataType, T.ArrayType):
            rows = ranked_lists_to_rows(dataset, pred, label, "qid")
            found = evaluate(
                rows,
                metrics=[name],
                retrieved="retrieved",
                convention=convention,
                **self.options,
            )
        else:
            found = evaluate(
                dataset,
                pred,
                y_true=label,
                groups=self.getGroupCol(),
                metrics=[name],
                convention=convention,
                **self.options,
            )
        # one score column: a flat mapping of metric -> value
        return float(cast("dict[str, float]", found)[name])

    def isLargerBetter(self) -> bool:
        """False for a loss of the metric table (``arp``, ``fallout``)."""
        return parse_metric(self.metric()).spec.greater_is_better


# Every convention keyword of sklearn_rank.evaluate is a Param of the evaluator
# (explainParams, save / load), read from the one table of options.
for _name, _option in OPTIONS.items():
    setattr(
        RankingEvaluator,
        _name,
        Param(
            Params._dummy(),
            _name,
            f"convention keyword of sklearn_rank.evaluate "
            f"(unset: the convention's value, {_option.default!r} by default)",
        ),
    )
del _name, _option
