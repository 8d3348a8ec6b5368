"""The driver of tests/test_spark_standalone.py, run as its own process.

A second SparkContext cannot live in the pytest process beside the session
that tests/test_spark.py keeps, so the job against the standalone cluster runs
here: ``python _spark_standalone_job.py SPEC_JSON OUT_JSON``. SPEC_JSON names
the master, the rows (``_scale_cases.random_rows`` arguments), the metrics and
the options; OUT_JSON receives the results and where they were computed.

Only the standard library is imported at module level (``--doctest-modules``
imports this file without running it).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
import urllib.request


def _where(_) -> list:
    """Run on an executor: the Python worker's process and package."""
    import sklearn_rank

    return [[os.getpid(), sklearn_rank.__file__]]


def main(spec_path: str, out_path: str) -> None:
    import warnings

    from _scale_cases import COLUMNS, random_rows
    from pyspark.sql import SparkSession

    import sklearn_rank.spark as srs

    clock = [time.monotonic()]
    spec = json.loads(open(spec_path).read())
    rows = random_rows(**spec["rows"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyspark 4 on pandas 3
        spark = (
            SparkSession.builder.master(spec["master"])
            .appName(spec["app_name"])
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.driver.memory", "512m")
            .config("spark.driver.extraJavaOptions", spec["jvm_opts"])
            .config("spark.executor.extraJavaOptions", spec["jvm_opts"])
            .config("spark.executor.memory", "512m")
            .config("spark.executor.cores", "1")
            .config("spark.cores.max", "1")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.executorEnv.PYTHONPATH", os.environ.get("PYTHONPATH", ""))
            .getOrCreate()
        )
    clock.append(time.monotonic())
    try:
        spark.sparkContext.setLogLevel("WARN")
        # random_rows are in random order: groups span the partitions
        frame = spark.createDataFrame(rows)
        options = spec["options"]
        metrics = spec["metrics"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = srs.evaluate(frame, metrics=metrics, **COLUMNS, **options)
            clock.append(time.monotonic())
            per_group = srs.evaluate_per_group(
                frame, metrics=spec["per_group_metrics"], **COLUMNS, **options
            )
            collected = [list(r) for r in per_group.collect()]
            clock.append(time.monotonic())
        where = spark.sparkContext.parallelize([0], 1).mapPartitions(_where).collect()
        with urllib.request.urlopen(spec["master_json"], timeout=10) as response:
            master = json.loads(response.read())
        out = {
            "evaluate": found,
            "per_group": {"columns": per_group.columns, "rows": collected},
            "driver_pid": os.getpid(),
            "executor": where[0],
            "app_id": spark.sparkContext.applicationId,
            "master": spark.sparkContext.master,
            "partitions": frame.rdd.getNumPartitions(),
            # seconds: the session's start, evaluate (the executor's start
            # included), evaluate_per_group
            "seconds": [round(b - a, 1) for a, b in itertools.pairwise(clock)],
            "active_apps": [
                {"id": a["id"], "cores": a["cores"]} for a in master["activeapps"]
            ],
        }
    finally:
        spark.stop()
    with open(out_path, "w") as handle:
        json.dump(out, handle)


if __name__ == "__main__":
    main(*sys.argv[1:3])
