"""Grouped ranking metrics on PySpark DataFrames.

Rows are repartitioned by the group column, each partition goes through the
in-memory engine as one pandas DataFrame (Arrow, ``mapInPandas``), and the
per-partition sums are added by Spark: the numbers of
:func:`sklearn_rank.evaluate` on the same rows. The per-partition function is
the one :mod:`sklearn_rank.dask` runs. See ``docs/scale.md``.

Needs the ``spark`` extra: ``pip install "sklearn-rank[spark]"`` (and Java).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._distributed import partitions as parts
from ._metrics.evaluate import DEFAULT_METRICS
from ._utils.params import param_error

try:
    import pandas as pd
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as exc:  # pragma: no cover - the extra is installed in tests
    raise ImportError(
        'sklearn_rank.spark needs PySpark: pip install "sklearn-rank[spark]"'
    ) from exc

__all__ = ["evaluate", "evaluate_per_group"]


def _doubles(names: Sequence[int]) -> T.StructType:
    """A schema of double columns named c0, c1, ... (metric names such as
    "ndcg@10" stay out of Spark's column names)."""
    return T.StructType([T.StructField(f"c{i}", T.DoubleType()) for i in names])


def _whole(batches: Iterator[pd.DataFrame]) -> pd.DataFrame:
    """A partition's Arrow batches as one pandas DataFrame (groups may span
    batches, never partitions)."""
    return pd.concat(list(batches), ignore_index=True)


def _prepare(
    df,
    func,
    y_true,
    y_score,
    groups,
    sample_weight,
    retrieved,
    judged,
    metrics,
    convention,
    options,
    per_group,
    num_partitions,
):
    if not isinstance(df, DataFrame):
        raise param_error("df", func, "a pyspark.sql.DataFrame", df)
    names = {
        "y_true": y_true,
        "y_score": y_score,
        "groups": groups,
        "sample_weight": sample_weight,
        "retrieved": retrieved,
        "judged": judged,
    }
    for arg, name in names.items():
        if name is None and arg in ("sample_weight", "retrieved", "judged"):
            continue
        if not isinstance(name, str) or name not in df.columns:
            raise param_error(
                arg, func, f"the name of a column of df ({df.columns})", name
            )
    plan = parts.make_plan(
        func,
        **names,
        metrics=metrics,
        convention=convention,
        options=options,
        per_group=per_group,
    )
    rows = df.select(*plan.columns)
    grouped = rows
    if plan.needs_order:  # the input order, which the shuffle does not keep
        grouped = grouped.withColumn(
            parts.ROW_KEYS[0], F.spark_partition_id().cast("long")
        ).withColumn(parts.ROW_KEYS[1], F.monotonically_increasing_id())
    if num_partitions is None:
        grouped = grouped.repartition(F.col(groups))
    else:
        grouped = grouped.repartition(int(num_partitions), F.col(groups))
    fill = None
    if plan.needs_fill:

        def fill_parts(batches):
            yield pd.DataFrame([parts.fill_parts(_whole(batches), plan)])

        row = grouped.mapInPandas(fill_parts, _doubles([0, 1])).agg(
            F.sum("c0"), F.sum("c1")
        )
        fill = parts.fill_value([v or 0.0 for v in row.collect()[0]])
    return plan, rows, grouped, fill


def evaluate(
    df: Any,
    *,
    y_true: str = "label",
    y_score: str = "score",
    groups: str = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: str | None = None,
    retrieved: str | None = None,
    judged: str | None = None,
    num_partitions: int | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
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
    convention: str | None = None,
) -> dict[str, float]:
    """:func:`sklearn_rank.evaluate` on a PySpark DataFrame.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per (group, item).
    y_true, y_score, groups : str, default="label", "score", "qid"
        Column names of the labels, the scores and the group ids.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`sklearn_rank.get_metric_names`.
    sample_weight, retrieved, judged : str, default=None
        Columns with the per-row inputs of :func:`sklearn_rank.evaluate`.
    num_partitions : int, default=None
        Partitions of the repartition by group; None is Spark's
        ``spark.sql.shuffle.partitions``.
    ties, gain, discount, relevance_threshold, undefined, precision_denominator, \
ap_denominator, recall_denominator, max_grade, weights, group_weight, \
persistence, recall_level, r_multiple, integer_grades, judged_only, gain_rows, \
convention : see :func:`sklearn_rank.evaluate`
        Conventions; None takes the value of ``convention``.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order.

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
    plan, rows, grouped, fill = _prepare(
        df,
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        judged,
        metrics,
        convention,
        options,
        False,
        num_partitions,
    )
    sums: dict[str, float] = {}
    if plan.requests:
        columns = parts.sum_columns(plan)

        def partial_sums(batches):
            frame = parts.group_frame(_whole(batches), plan, fill)
            out = parts.partial_sums(frame, plan)
            out.columns = [f"c{i}" for i in range(len(columns))]
            yield out

        schema = _doubles(range(len(columns)))
        total = grouped.mapInPandas(partial_sums, schema).agg(
            *(F.sum(f"c{i}") for i in range(len(columns)))
        )
        values = total.collect()[0]
        sums = {c: float(v or 0.0) for c, v in zip(columns, values, strict=True)}
    auc: dict[str, float] = {}
    if plan.pooled:

        def histogram(batches):
            hist = parts.auc_histogram(_whole(batches), plan)
            hist.columns = ["c0", "c1", "c2"]
            yield hist

        merged = (
            rows.mapInPandas(histogram, _doubles([0, 1, 2]))
            .groupBy("c0", "c1")
            .agg(F.sum("c2").alias("c2"))
            .collect()  # one row per (score, class), not per input row
        )
        merged = pd.DataFrame(
            [tuple(r) for r in merged], columns=list(parts.HISTOGRAM), dtype=float
        )
        merged = merged.sort_values(["score", "positive"], kind="stable")
        auc = parts.auc_from_histogram(merged.reset_index(drop=True), plan)
    return parts.finish(sums, auc, plan)


def evaluate_per_group(
    df: Any,
    *,
    y_true: str = "label",
    y_score: str = "score",
    groups: str = "qid",
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: str | None = None,
    retrieved: str | None = None,
    judged: str | None = None,
    num_partitions: int | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
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
    plan, _, grouped, fill = _prepare(
        df,
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        judged,
        metrics,
        convention,
        options,
        True,
        num_partitions,
    )
    columns = plan.output_columns()
    schema = T.StructType(
        [
            T.StructField(groups, df.schema[groups].dataType),
            *(T.StructField(f"c{i}", T.DoubleType()) for i in range(len(columns))),
        ]
    )

    def per_group(batches):
        frame = parts.group_frame(_whole(batches), plan, fill).reset_index()
        frame.columns = [groups, *(f"c{i}" for i in range(len(columns)))]
        yield frame

    out = grouped.mapInPandas(per_group, schema)
    return out.select(groups, *(F.col(f"c{i}").alias(c) for i, c in enumerate(columns)))
