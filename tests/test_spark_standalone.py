"""sklearn_rank.spark on a Spark standalone cluster of separate processes: a
master and one worker started as commands (``spark-class ...Master`` and
``...Worker``, what ``start-master.sh`` / ``start-worker.sh`` run) on
127.0.0.1, and a driver connected to ``spark://127.0.0.1:PORT``, as
docs/scale.md's multi-machine recipe runs them on several machines.

The driver runs in its own process (tests/_spark_standalone_job.py): one
Python process holds one SparkContext, and tests/test_spark.py keeps a local
one for the run. Every wait has a deadline; the master, the worker (with its
executor) and the driver are started in process groups of their own and those
groups are always killed. Skipped, with the reason, where Java or PySpark is
missing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _scale_cases import arrays, assert_close, in_memory, random_rows

import sklearn_rank
from sklearn_rank import evaluate_per_group

pytestmark = pytest.mark.spark

if shutil.which("java") is None:
    pytest.skip("Spark needs Java, and no java is on PATH", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason='pip install "sklearn-rank[spark]"')

from pyspark.find_spark_home import _find_spark_home  # noqa: E402

# Hang guards only, far beyond any plausible run (a loaded machine is not a defect):
DEADLINE_S = 1800  # the master's start, the worker's registration
JOB_DEADLINE_S = 1800  # the driver: its JVM, the executor's, the jobs
HERE = Path(__file__).resolve().parent
JOB = "_spark_standalone_job.py"
# Every JVM of the test (master, worker, driver, executor) compiles with C1 only
# and collects on one thread: the suite's jobs are seconds long, and C2's and the
# parallel collector's threads cost more CPU than they save (CI has 2 cores).
JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
ROWS_SPEC = {"seed": 7, "n_groups": 60}  # about 330 rows
METRICS = ["ndcg@10", "map", "mrr", "auc", "gauc", "err@3"]
PER_GROUP_METRICS = [m for m in METRICS if m != "auc"]  # pooled: no group value
OPTIONS = {"max_grade": 3.0}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _master_state(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.loads(response.read())
    except (OSError, ValueError):
        return None  # not listening yet


def _tail(path: Path, chars: int = 3000) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no log)"
    return f"--- {path.name} ---\n{text[-chars:]}"


def _stop(proc: subprocess.Popen) -> None:
    """End the process group ``proc`` leads (a worker's executor included)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    try:  # whatever is left of the group, the leader gone or not
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=20)


class Cluster:
    """A standalone master and one worker on 127.0.0.1, started as commands."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = _free_port()
        self.ui_port = _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.json_url = f"http://127.0.0.1:{self.ui_port}/json/"
        home = _find_spark_home()
        self.spark_class = os.path.join(home, "bin", "spark-class")
        self.env = {
            **os.environ,
            "SPARK_HOME": home,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_DAEMON_MEMORY": "256m",  # the master and worker JVMs
            "SPARK_DAEMON_JAVA_OPTS": JVM_OPTS,
            # no REST submission server (it would listen on port 6066)
            "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
            "SPARK_LOCAL_DIRS": str(folder / "local"),
            "PYSPARK_PYTHON": sys.executable,  # the executor's Python workers
            "PYTHONPATH": os.pathsep.join(sys.path),  # this tree's sklearn_rank
        }
        self.started: dict[str, subprocess.Popen] = {}
        self.logs: list[Path] = []

    def launch(self, name: str, args: list[str]) -> subprocess.Popen:
        log = self.folder / f"{name}.log"
        self.logs.append(log)
        with open(log, "wb") as handle:
            proc = subprocess.Popen(
                args,
                env=self.env,
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a process group to kill as a whole
            )
        self.started[name] = proc
        return proc

    def fail(self, message: str) -> None:
        pytest.fail("\n".join([message, *map(_tail, self.logs)]))

    def wait_for(self, what: str, ready, deadline_s: float = DEADLINE_S) -> None:
        end = time.monotonic() + deadline_s
        while not ready(_master_state(self.json_url)):
            for name, proc in self.started.items():
                if proc.poll() is not None:
                    self.fail(f"{what}: the {name} exited with {proc.returncode}")
            if time.monotonic() > end:
                self.fail(f"{what}: not within {deadline_s} s")
            time.sleep(0.5)

    def start(self) -> None:
        deploy = "org.apache.spark.deploy"
        self.launch(
            "master",
            [
                self.spark_class,
                f"{deploy}.master.Master",
                *("--host", "127.0.0.1", "--port", str(self.port)),
                *("--webui-port", str(self.ui_port)),
            ],
        )
        self.wait_for("the master's start", lambda s: s is not None)
        self.launch(
            "worker",
            [
                self.spark_class,
                f"{deploy}.worker.Worker",
                self.url,
                *("--host", "127.0.0.1", "--cores", "1", "--memory", "1g"),
                *("--webui-port", str(_free_port())),
                *("--work-dir", str(self.folder / "work")),
            ],
        )

    def stop(self) -> None:
        for proc in reversed(self.started.values()):  # driver, worker, master
            _stop(proc)


def _run_job(cluster: Cluster) -> dict:
    """The driver process against the cluster, started while the worker
    registers (its JVM's start-up overlaps the worker's); its output JSON."""
    spec = {
        "master": cluster.url,
        "master_json": cluster.json_url,
        "app_name": "sklearn_rank standalone test",
        "jvm_opts": JVM_OPTS,
        "rows": ROWS_SPEC,
        "metrics": METRICS,
        "per_group_metrics": PER_GROUP_METRICS,
        "options": OPTIONS,
    }
    spec_path = cluster.folder / "spec.json"
    out_path = cluster.folder / "out.json"
    spec_path.write_text(json.dumps(spec))
    driver = cluster.launch(
        "driver",
        [sys.executable, str(HERE / JOB), str(spec_path), str(out_path)],
    )
    cluster.wait_for(
        "the worker's registration",
        lambda s: s is not None and s.get("aliveworkers", 0) >= 1,
    )
    try:
        driver.wait(timeout=JOB_DEADLINE_S)
    except subprocess.TimeoutExpired:
        cluster.fail(f"the driver: not done within {JOB_DEADLINE_S} s")
    if driver.returncode != 0 or not out_path.exists():
        cluster.fail(f"the driver exited with {driver.returncode}")
    return json.loads(out_path.read_text())


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    cluster = Cluster(tmp_path_factory.mktemp("spark_standalone"))
    try:
        cluster.start()
        yield _run_job(cluster), cluster
    finally:
        cluster.stop()


ROWS = random_rows(**ROWS_SPEC)


def test_ran_on_the_standalone_worker(job):
    out, cluster = job
    assert out["master"] == cluster.url
    assert out["partitions"] >= 2  # groups spread over partitions before the shuffle
    # the application held the worker's core while it ran
    assert {"id": out["app_id"], "cores": 1} in out["active_apps"]
    pid, package = out["executor"]
    assert pid != out["driver_pid"]  # a Python worker of the executor
    assert Path(package).resolve() == Path(sklearn_rank.__file__).resolve()


def test_evaluate_equals_memory(job):
    out, _ = job
    expected, refused = in_memory(ROWS, METRICS, OPTIONS)
    assert not refused
    assert_close(out["evaluate"], expected)


def test_per_group_equals_memory(job):
    out, _ = job
    table = out["per_group"]
    got = pd.DataFrame(table["rows"], columns=table["columns"]).sort_values("qid")
    want = evaluate_per_group(
        ROWS["label"].to_numpy(),
        ROWS["score"].to_numpy(),
        metrics=PER_GROUP_METRICS,
        **arrays(ROWS),
        **OPTIONS,
    )
    np.testing.assert_array_equal(got["qid"].to_numpy(), want.group_ids)
    for m in PER_GROUP_METRICS:
        np.testing.assert_allclose(got[m].to_numpy(), want.values[m], rtol=1e-12)
        np.testing.assert_allclose(
            got[f"weight:{m}"].to_numpy(), want.weights[m], rtol=1e-12
        )
