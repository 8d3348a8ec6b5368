"""The input shapes of issue 14: how scores, group sizes, row order and id types
move ``evaluate`` against the sort floor.

Each shape is one row of the table: ``evaluate`` (5 metrics, ties averaged) on the
shape's data, ``np.lexsort((-score, int ids))`` of the same rows (the floor), and,
where the ids are not integers, ``evaluate`` on the same rows with integer ids.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .common import SCRIPT, _srank
from .data import _group_sizes
from .timing import Item, _log, prefault, time_items


@dataclass(frozen=True)
class Shape:
    name: str
    label: str
    scores: str = "continuous"  # continuous | rounded2 | int20
    sizes: str = "100"  # mean rows per group, "1-3" or "huge"
    layout: str = "shuffled"  # shuffled | contiguous (rows sorted by group)
    ids: str = "int"  # int | str_objects | pandas_str | numpy_U | categorical
    scale: int = 1  # rows = scale * --shape-rows
    pandas: bool = False  # pandas imported before the timing


SHAPES: tuple[Shape, ...] = (
    Shape("continuous", "continuous scores, integer group ids"),
    Shape("rounded", "scores rounded to 2 decimals", scores="rounded2"),
    Shape("int_scores", "integer scores 0..20", scores="int20"),
    Shape("sorted", "rows sorted by group", layout="contiguous"),
    Shape("tiny", "~500k groups of 1-3 rows (at 1M rows)", sizes="1-3"),
    Shape(
        "huge",
        "5 groups of 40/30/15/10/5 % of the rows, rounded scores",
        "rounded2",
        "huge",
    ),
    Shape("str_objects", "ids as Python str objects", ids="str_objects"),
    Shape(
        "str_objects_pd",
        "ids as Python str objects, pandas imported",
        ids="str_objects",
        pandas=True,
    ),
    Shape("pandas_str", "ids as a pandas Series of str", ids="pandas_str"),
    Shape("numpy_U", "ids as numpy <U strings", ids="numpy_U"),
    Shape("categorical", "ids as a pandas Categorical", ids="categorical"),
    Shape(
        "big_rounded",
        "10x rows, 10 rows per group, rounded scores",
        scores="rounded2",
        sizes="10",
        scale=10,
    ),
    Shape(
        "big_int_scores",
        "10x rows, 100 rows per group, integer scores 0..20",
        scores="int20",
        scale=10,
    ),
)
SHAPE_NAMES = tuple(s.name for s in SHAPES)
BY_NAME = {s.name: s for s in SHAPES}


@dataclass
class ShapeData:
    y_true: np.ndarray
    y_score: np.ndarray
    int_ids: np.ndarray  # int64 ids: the floor's key and the comparison
    groups: Any  # the ids in the shape's representation
    n_groups: int

    @property
    def n(self) -> int:
        return len(self.y_true)


def make_shape(shape: Shape | str, base_rows: int, seed: int = 0) -> ShapeData:
    """Deterministic data of one shape: ``scale * base_rows`` rows."""
    shape = BY_NAME[shape] if isinstance(shape, str) else shape
    n = shape.scale * base_rows
    rng = np.random.default_rng([seed, n, SHAPE_NAMES.index(shape.name)])
    if shape.sizes == "1-3":
        sizes = rng.integers(1, 4, size=n)
        sizes = sizes[: int(np.searchsorted(np.cumsum(sizes), n)) + 1]
        sizes[-1] -= int(sizes.sum()) - n
    elif shape.sizes == "huge":
        sizes = _group_sizes(rng, n, "huge", 0)
    else:
        sizes = _group_sizes(rng, n, "typical", int(shape.sizes))
    n_groups = len(sizes)
    codes = np.repeat(np.arange(n_groups), sizes)
    rate = rng.beta(0.6, 2.4, size=n_groups)[codes]
    grade = rng.choice(np.arange(1, 5), size=n, p=[0.4, 0.3, 0.2, 0.1])
    y_true = np.where(rng.random(n) < rate, grade, 0).astype(np.int64)
    score = 0.5 * y_true + rng.standard_normal(n)
    if shape.scores == "rounded2":
        score = np.round(score, 2)
    elif shape.scores == "int20":  # most rows of a group share a score
        score = np.clip(np.rint(2.5 * score + 8), 0, 20)
    int_ids = rng.permutation(n_groups).astype(np.int64)[codes]
    if shape.layout == "contiguous":
        int_ids = codes.astype(np.int64)
    else:
        perm = rng.permutation(n)
        y_true, score, int_ids = y_true[perm], score[perm], int_ids[perm]
    return ShapeData(y_true, score, int_ids, _represent(int_ids, shape.ids), n_groups)


def _represent(int_ids: np.ndarray, kind: str) -> Any:
    if kind == "int":
        return int_ids
    # A new str object per row, as a file reader without interning gives.
    text = [f"query-{i:07d}" for i in int_ids.tolist()]
    if kind == "str_objects":
        return np.array(text, dtype=object)
    if kind == "numpy_U":
        return np.array(text, dtype=str)
    pd = importlib.import_module("pandas")
    if kind == "pandas_str":
        return pd.Series(text)
    return pd.Categorical(text)


def shape_available(shape: Shape) -> bool:
    needs_pandas = shape.pandas or shape.ids in ("pandas_str", "categorical")
    return not needs_pandas or importlib.util.find_spec("pandas") is not None


def bench_shape(shape: Shape, args) -> dict:
    """Time one shape in this process; the row of the shapes table."""
    from .common import METRICS

    if shape.pandas:
        importlib.import_module("pandas")
    d = make_shape(shape, args.shape_rows, seed=args.seed)
    srank = _srank()
    metrics = tuple(METRICS)
    items = [
        Item("lexsort", "floor", lambda: np.lexsort((-d.y_score, d.int_ids))),
        Item(
            "evaluate",
            "sklearn_rank",
            lambda: srank.evaluate(
                d.y_true, d.y_score, groups=d.groups, metrics=metrics
            ),
        ),
    ]
    if shape.ids != "int":
        items.append(
            Item(
                "evaluate, int ids",
                "sklearn_rank",
                lambda: srank.evaluate(
                    d.y_true, d.y_score, groups=d.int_ids, metrics=metrics
                ),
            )
        )
    time_items(
        items, args.repeats, args.budget, lambda w: _log(args, f"  {shape.name}: {w}")
    )
    med = {it.work: statistics.median(it.times) if it.times else None for it in items}
    row = {
        "shape": shape.name,
        "label": shape.label,
        "rows": d.n,
        "groups": d.n_groups,
        "evaluate": med["evaluate"],
        "lexsort": med["lexsort"],
        "evaluate_int_ids": med.get("evaluate, int ids"),
        "runs": min(len(it.times) for it in items),
        "note": "; ".join(it.error for it in items if it.error),
    }
    if row["evaluate"] and row["lexsort"]:
        row["vs_lexsort"] = row["evaluate"] / row["lexsort"]
    if row["evaluate"] and row["evaluate_int_ids"]:
        row["vs_int_ids"] = row["evaluate"] / row["evaluate_int_ids"]
    return row


def run_shapes(args) -> list[dict]:
    """Every selected shape in a fresh process (prefaulted), unless --in-process.

    In one process, the shapes that import pandas come last, so that the ones
    before them run as a numpy-only user's code would.
    """
    chosen = [BY_NAME[name] for name in args.shapes]
    chosen.sort(key=lambda s: s.pandas or s.ids in ("pandas_str", "categorical"))
    rows = []
    for shape in chosen:
        if not shape_available(shape):
            rows.append(
                {"shape": shape.name, "label": shape.label, "note": "no pandas"}
            )
            continue
        if args.in_process:
            rows.append(bench_shape(shape, args))
            continue
        cmd = [sys.executable, SCRIPT, *args.argv, "--_child", "shape", shape.name]
        proc = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=None, text=True, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"shape {shape.name} failed")
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    order = {name: i for i, name in enumerate(SHAPE_NAMES)}
    return sorted(rows, key=lambda r: order[r["shape"]])


def child_shape(args, name: str) -> None:
    prefault(args.prefault_mb)
    print(json.dumps(bench_shape(BY_NAME[name], args)))
