"""Smoke test of benchmarks/bench_evaluate.py: it runs, and the values agree.

No assertion on time: the machine is shared and timings are noise here.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_evaluate.py"
HANG_GUARD_S = 30 * 60
SHAPE_NAMES = (
    "continuous",
    "rounded",
    "int_scores",
    "sorted",
    "tiny",
    "huge",
    "str_objects",
    "str_objects_pd",
    "pandas_str",
    "numpy_U",
    "categorical",
    "big_rounded",
    "big_int_scores",
)


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_evaluate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_evaluate", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _load_bench()


@pytest.mark.parametrize(
    "dist", ["typical", "small", "tiny", "huge", "single", "equal"]
)
@pytest.mark.parametrize("layout", ["shuffled", "contiguous", "blocks"])
def test_data_is_deterministic_and_well_formed(bench, dist, layout):
    a = bench.make_data(3000, dist, layout, seed=3)
    b = bench.make_data(3000, dist, layout, seed=3)
    for x, y in zip(
        (a.y_true, a.y_score, a.groups), (b.y_true, b.y_score, b.groups), strict=True
    ):
        np.testing.assert_array_equal(x, y)
    assert a.n == len(a.y_score) == len(a.groups) == 3000
    assert set(np.unique(a.y_true)) <= {0, 1, 2, 3, 4}
    assert len(np.unique(a.groups)) == a.n_groups
    if layout != "shuffled":  # each group's rows are adjacent
        runs = 1 + np.count_nonzero(a.groups[1:] != a.groups[:-1])
        assert runs == a.n_groups
    if layout == "contiguous":
        assert np.all(np.diff(a.groups) >= 0)
    tie_free = a.tie_free()
    assert len(np.unique(tie_free.y_score)) == a.n
    order = np.argsort(a.y_score, kind="stable")
    np.testing.assert_array_equal(np.argsort(tie_free.y_score), order)


def test_quick_mode_runs_and_values_agree(bench, tmp_path):
    out = tmp_path / "bench.json"
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--quick",
        "--silent",
        "--sizes",
        "2000",
        "--dists",
        "typical,small,equal",
        "--repeats",
        "1",
        "--peers",
        "numpy_ref,pytrec_eval,sklearn_dense,gauc_loop",
        "--check-rows",
        "2000",
        "--memory-sizes",
        "20000",
        "--gauc-loop-max-groups",
        "30",
        "--sort-rows",
        "3000",
        "--markdown",
        "--json",
        str(out),
    ]
    # A hang guard only, far beyond any plausible run (seconds when quiet, minutes
    # on a loaded machine): a slow machine is not a defect.
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    res = json.loads(out.read_text())
    works = {r["work"] for r in res["table"]}
    assert {"lexsort((-score, groups))", "sklearn_rank evaluate (5 metrics)"} <= works
    assert all(r["median"] is not None for r in res["table"] if r["kind"] != "peer")
    lex = [r for r in res["table"] if r["work"] == "lexsort((-score, groups))"]
    assert all(r["vs_lexsort"] == 1.0 for r in lex)
    checked = {c["peer"]: c for c in res["check"]}
    assert {"numpy_ref", "sklearn_dense", "gauc_loop"} <= set(checked)
    assert all(c["ok"] for c in checked.values()), checked
    assert all(r.get("bytes_per_row") is not None for r in res["memory"]), res["memory"]
    assert "error" not in res["sorts"], res["sorts"]
    assert res["import"]["with"] > 0
    assert "| scenario | rows |" in proc.stdout  # --markdown prints markdown tables
    shapes = {r["shape"]: r for r in res["shapes"]}
    assert tuple(shapes) == bench.SHAPE_NAMES == SHAPE_NAMES
    assert all(r["vs_lexsort"] > 0 and not r["note"] for r in shapes.values())
    assert all("vs_int_ids" in r for r in shapes.values() if "ids" in r["shape"])
    device = {r["work"]: r for r in res["device"]}
    if importlib.util.find_spec("torch") is None:  # the device section needs it
        assert [r["note"] for r in device.values()] == ["torch not installed"]
        return
    assert device["evaluate, numpy arrays"]["vs_numpy"] == 1.0
    assert all(r["median"] and not r["note"] for r in device.values()), device


@pytest.mark.parametrize("name", SHAPE_NAMES)
def test_shapes_are_what_their_names_say(bench, name):
    d = bench.make_shape(name, 3000, seed=1)
    e = bench.make_shape(name, 3000, seed=1)
    np.testing.assert_array_equal(d.y_score, e.y_score)
    shape = bench.SHAPES[SHAPE_NAMES.index(name)]
    assert d.n == 3000 * shape.scale
    assert len(np.unique(d.int_ids)) == d.n_groups
    # the ids in the shape's representation name the same groups as int_ids
    as_text = np.array([f"query-{i:07d}" for i in d.int_ids])
    ids = np.asarray(d.groups).astype(str) if shape.ids != "int" else d.int_ids
    np.testing.assert_array_equal(ids, as_text if shape.ids != "int" else d.int_ids)
    score = d.y_score
    if shape.scores == "int20":
        assert set(np.unique(score)) <= set(range(21))
    elif shape.scores == "rounded2":
        np.testing.assert_array_equal(score, np.round(score, 2))
    if shape.layout == "contiguous":
        assert np.all(np.diff(d.int_ids) >= 0)
    if shape.sizes == "1-3":
        assert np.bincount(d.int_ids).max() <= 3
    if shape.sizes == "huge":
        assert d.n_groups == 5


def test_group_ids_benchmark_runs_and_every_id_type_agrees():
    # bench_group_ids.py asserts, before timing, that every representation of
    # the ids gives the values of the integer ids.
    script = SCRIPT.parent / "bench_group_ids.py"
    cmd = [sys.executable, str(script), "--rows", "3000", "--groups", "40"]
    proc = subprocess.run(
        [*cmd, "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for item in ("object array of str", "numpy <U strings", "string[pyarrow]"):
        assert item in proc.stdout
