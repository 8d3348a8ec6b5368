"""sklearn_rank.dask on a cluster of separate processes started as commands:
``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1, connected by
address, as docs/scale.md's multi-node recipe runs them on several machines.

Bounded in time (every wait has a deadline) and always cleans up the processes
it started.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from _scale_cases import COLUMNS, assert_close, in_memory, random_rows  # noqa: E402

import sklearn_rank.dask as srd  # noqa: E402

# A hang guard only (issue 31: no test depends on wall time): a loaded machine
# can take minutes to start three processes.
DEADLINE_S = 30 * 60


def _dask_command() -> list[str]:
    exe = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which(
        "dask"
    )
    return [exe] if exe else [sys.executable, "-m", "dask"]


@pytest.fixture(scope="module")
def address(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster")
    scheduler_file = folder / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    dask_cmd = _dask_command()
    started = []
    try:
        started.append(
            subprocess.Popen(
                [
                    *dask_cmd,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(scheduler_file),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        end = time.monotonic() + DEADLINE_S
        while not scheduler_file.exists():
            if time.monotonic() > end or started[0].poll() is not None:
                pytest.fail("dask scheduler did not start")
            time.sleep(0.2)
        time.sleep(0.5)  # the file is written whole before the scheduler listens
        import json

        addr = json.loads(scheduler_file.read_text())["address"]
        for _ in range(2):
            started.append(
                subprocess.Popen(
                    [
                        *dask_cmd,
                        "worker",
                        addr,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--memory-limit",
                        "1GiB",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with distributed.Client(addr, timeout=DEADLINE_S) as client:
            client.wait_for_workers(2, timeout=DEADLINE_S)
            yield client
    finally:
        for proc in reversed(started):
            proc.terminate()
        for proc in reversed(started):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)


ROWS = random_rows(seed=5)


def test_separate_processes_equal_memory(address):
    client = address
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert all("127.0.0.1" in w for w in workers)
    frame = dd.from_pandas(ROWS, npartitions=4, sort=False)
    metrics = ["ndcg@3", "map", "mrr", "gauc", "auc"]
    expected, refused = in_memory(ROWS, metrics, {"max_grade": 3.0})
    assert not refused
    found = srd.evaluate(
        frame, metrics=metrics, **COLUMNS, max_grade=3.0, client=client
    )
    assert_close(found, expected)
    # the tasks ran on the worker processes, not here
    per_group = srd.evaluate_per_group(frame, metrics=["map"], **COLUMNS)
    got = client.compute(per_group).result()
    assert len(got) == ROWS["qid"].nunique()
    assert np.isfinite(got["weight:map"]).all()
