#!/usr/bin/env python
"""What the type of the group ids costs ``evaluate`` (issue 28, item 5).

``evaluate`` (the 5 metrics of ``bench_evaluate.py``) on the same rows with integer
group ids and with string ids in every representation a user hands over: a numpy
object array of ``str`` (pandas not imported, then imported), numpy ``<U`` strings,
pandas Series of ``object``, of pandas' default ``str`` dtype, of ``string[pyarrow]``
and of ``category``. Each row of the table is ``evaluate`` with those ids divided by
``evaluate`` with the integer ids, timed side by side in one process: the items of a
process run in interleaved rounds after a warm-up and the table gives medians, both
the ratio of the medians and the median of each round's own ratio ("paired": the
two calls of a round ran a moment apart, under about the same load). The
floors time what no string encoding can avoid or what numpy alone offers on the same
ids (``np.unique``, one comparison of neighbours, ``pandas.factorize``).

Every group is a new ``str`` object per row (``"query-0001234"``), as a file reader
that does not intern strings makes them; rows are either shuffled or sorted by group
(``--layouts``). Each pandas state runs in its own process, so that the numpy-only
rows never see pandas in ``sys.modules``.

``--trees A,B`` times the sklearn_rank of each checkout (e.g. an export of the commit
before a change, then this one), alternating them ``--alternations`` times: the
before and after ratios of one run, under the same load.

    nice python benchmarks/bench_group_ids.py --rounds 7 --markdown
    nice python benchmarks/bench_group_ids.py --trees /tmp/base,. --alternations 2
    nice python benchmarks/bench_group_ids.py --ab /tmp/base

``--ab TREE`` instead imports TREE's sklearn_rank beside this one in each process and
interleaves the two in every round (the ``evaluate`` rows only): before and after
under the same load and the same memory state.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")
STATES = ("numpy", "pandas")  # pandas not imported / imported before the timing


def make_rows(n: int, n_groups: int, layout: str, seed: int = 0):
    """Labels, scores, integer ids and the same ids as one new str per row."""
    rng = np.random.default_rng([seed, n, n_groups])
    codes = rng.integers(0, n_groups, size=n)
    if layout == "contiguous":
        codes = np.sort(codes)
    rate = rng.beta(0.6, 2.4, size=n_groups)[codes]
    grade = rng.choice(np.arange(1, 5), size=n, p=[0.4, 0.3, 0.2, 0.1])
    y_true = np.where(rng.random(n) < rate, grade, 0).astype(np.int64)
    y_score = 0.5 * y_true + rng.standard_normal(n)
    int_ids = rng.permutation(n_groups).astype(np.int64)[codes]
    text = np.array([f"query-{i:07d}" for i in int_ids.tolist()], dtype=object)
    return y_true, y_score, int_ids, text


def _items(state: str, d, srank) -> list[tuple[str, str, object]]:
    """(name, kind, callable) of one process: kind is evaluate or floor."""
    y_true, y_score, int_ids, text = d

    def ev(groups):
        return lambda: srank.evaluate(y_true, y_score, groups=groups, metrics=METRICS)

    items = [("int ids (int64)", "evaluate", ev(int_ids))]
    if state == "numpy":
        u = text.astype(str)
        items += [
            ("object array of str", "evaluate", ev(text)),
            ("numpy <U strings", "evaluate", ev(u)),
            ("np.unique(int ids, return_inverse)", "floor", _unique(int_ids)),
            ("np.unique(<U, return_inverse)", "floor", _unique(u)),
            ("object neighbours: ids[1:] != ids[:-1]", "floor", _neighbours(text)),
        ]
        return items
    import pandas as pd

    items.append(("object array of str, pandas imported", "evaluate", ev(text)))
    series = {
        "pandas Series, object": pd.Series(text, dtype=object),
        "pandas Series, default str": pd.Series(text.tolist()),
        "pandas Series, string[pyarrow]": None,
        "pandas Series, category": pd.Series(text, dtype="category"),
    }
    try:
        series["pandas Series, string[pyarrow]"] = pd.Series(
            text, dtype="string[pyarrow]"
        )
    except ImportError:
        del series["pandas Series, string[pyarrow]"]
    for name, s in series.items():
        items.append((f"{name} ({s.dtype})", "evaluate", ev(s)))
    factorize = ("pandas.factorize(object array)", "floor", lambda: pd.factorize(text))
    items.append(factorize)
    return items


def _unique(a):
    return lambda: np.unique(a, return_inverse=True)


def _neighbours(a):
    return lambda: a[1:] != a[:-1]


def _load_as(tree: str, alias: str):
    """The sklearn_rank of ``tree`` imported under the name ``alias``, beside the
    one imported as ``sklearn_rank`` (its relative imports follow the alias)."""
    import importlib.util

    root = os.path.join(os.path.abspath(tree), "sklearn_rank")
    spec = importlib.util.spec_from_file_location(
        alias, os.path.join(root, "__init__.py"), submodule_search_locations=[root]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


def _tagged(tree: str, srank, state: str, d) -> list[tuple[str, str, object, str]]:
    return [(name, kind, fn, tree) for name, kind, fn in _items(state, d, srank)]


def child(args) -> None:
    sys.path.insert(0, os.path.abspath(args.tree))
    import sklearn_rank as srank

    assert os.path.abspath(srank.__file__).startswith(os.path.abspath(args.tree))
    before = _load_as(args.ab, "sklearn_rank_before") if args.ab else None
    if args.state == "pandas":
        import pandas  # noqa: F401
    else:
        assert "pandas" not in sys.modules
    out = []
    for layout in args.layouts:
        d = make_rows(args.rows, args.groups, layout, args.seed)
        items = _tagged(args.tree, srank, args.state, d)
        if before is not None:  # both checkouts in one process, interleaved
            olds = _tagged(args.ab, before, args.state, d)
            items = [it for pair in zip(olds, items, strict=True) for it in pair]
            items = [it for it in items if it[1] == "evaluate"]
        ref = items[0][2]()
        for name, kind, fn, _ in items:  # warm-up, and every id type agrees
            got = fn()
            if kind == "evaluate":
                assert all(np.allclose(got[m], ref[m]) for m in METRICS), name
        times: dict[tuple, list[float]] = {(it[3], it[0]): [] for it in items}
        for r in range(args.rounds):
            order = items[r % len(items) :] + items[: r % len(items)]
            for name, _, fn, tree in order:
                start = time.perf_counter()
                fn()
                times[tree, name].append(time.perf_counter() - start)
        for name, kind, _, tree in items:
            ints = times[tree, items[0][0]]
            med = statistics.median(times[tree, name])
            # Each round's own ratio: the two calls ran a moment apart, under
            # about the same load, so its median is steadier on a shared machine.
            paired = [t / i for t, i in zip(times[tree, name], ints, strict=True)]
            out.append(
                {
                    "tree": tree,
                    "state": args.state,
                    "layout": layout,
                    "item": name,
                    "kind": kind,
                    "seconds": med,
                    "vs_int": med / statistics.median(ints),
                    "paired": statistics.median(paired),
                }
            )
    print(json.dumps(out))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=float, default=1e6)
    p.add_argument("--groups", type=float, default=1e4)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--layouts", default="shuffled,contiguous")
    p.add_argument("--trees", default=os.path.dirname(HERE))
    p.add_argument("--alternations", type=int, default=1)
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--_child", dest="state", choices=STATES)
    p.add_argument("--tree", help=argparse.SUPPRESS)
    p.add_argument(
        "--ab",
        metavar="TREE",
        help="also time TREE's sklearn_rank in the same processes, interleaved "
        "with this one's (evaluate rows only)",
    )
    args = p.parse_args(argv)
    args.rows, args.groups = int(args.rows), int(args.groups)
    args.layouts = args.layouts.split(",")
    if args.state:
        child(args)
        return 0
    rows = []
    trees = [os.path.abspath(t) for t in args.trees.split(",")]
    if args.ab:
        trees = trees[-1:]
    for _ in range(args.alternations):
        for tree in trees:
            for state in STATES:
                cmd = [sys.executable, os.path.abspath(__file__), "--_child", state]
                cmd += ["--tree", tree, "--rows", str(args.rows)]
                cmd += ["--groups", str(args.groups), "--rounds", str(args.rounds)]
                cmd += ["--seed", str(args.seed), "--layouts", ",".join(args.layouts)]
                cmd += ["--ab", os.path.abspath(args.ab)] if args.ab else []
                env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
                proc = subprocess.run(
                    cmd, stdout=subprocess.PIPE, text=True, check=True, env=env
                )
                rows += json.loads(proc.stdout.strip().splitlines()[-1])
                print(f"done: {tree} {state}", file=sys.stderr, flush=True)
    _report(rows, [os.path.abspath(args.ab), *trees] if args.ab else trees, args)
    return 0


def _report(rows: list[dict], trees: list[str], args) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{args.rows:_} rows, {args.groups:_} groups, {args.rounds} rounds, "
        f"{args.alternations} alternation(s); load average now {load:.2f}"
    )
    keys = []
    for r in rows:
        key = (r["layout"], r["state"], r["item"], r["kind"])
        if key not in keys:
            keys.append(key)
    names = [os.path.basename(t.rstrip("/")) or t for t in trees]
    head = ["layout", "ids", *(f"{n}: s" for n in names)]
    head += [f"{n}: ÷ int" for n in names]
    head += [f"{n}: ÷ int, paired" for n in names]
    sep = " | " if args.markdown else "  "
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    else:
        print(sep.join(head))
    for layout, state, item, kind in keys:
        secs, ratios, paired = [], [], []
        for tree in trees:
            got = [
                r
                for r in rows
                if (r["tree"], r["layout"], r["state"], r["item"])
                == (tree, layout, state, item)
            ]
            secs.append(_range([g["seconds"] for g in got], "{:.3f}"))
            ratios.append(_range([g["vs_int"] for g in got], "{:.2f}"))
            paired.append(_range([g["paired"] for g in got], "{:.2f}"))
        label = item if kind == "evaluate" else f"floor: {item}"
        cells = [layout, label, *secs, *ratios, *paired]
        print(("| " + sep.join(cells) + " |") if args.markdown else sep.join(cells))


def _range(values: list[float], fmt: str) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)} to {fmt.format(hi)}"


if __name__ == "__main__":
    sys.exit(main())
