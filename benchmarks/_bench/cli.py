"""Command line: options, defaults, sections, child processes."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from .common import ALL_SECTIONS, DEFAULT_DISTS, DISTS, LAYOUTS, _srank
from .device import run_device
from .peers import PEER_NAMES
from .report import render
from .sections import (
    _child_memory,
    _child_sorts,
    machine_facts,
    run_checks,
    run_import_time,
    run_memory,
    run_sorts,
)
from .shapes import SHAPE_NAMES, child_shape, run_shapes
from .timing import _log, prefault, run_scenario, run_table


def _sizes(text: str) -> list[int]:
    return [int(float(x)) for x in text.split(",") if x.strip()]


def _names(choices: Sequence[str]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",") if x.strip()]
        if names in (["all"], ["none"]):
            return names
        bad = [x for x in names if x not in choices]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {bad}; choose from {choices}")
        return names

    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Benchmark of sklearn_rank against floors and peers."
    )
    p.add_argument("--quick", action="store_true", help="small sizes, < 1 minute")
    p.add_argument("--sizes", type=_sizes, help="rows, e.g. 1e4,1e5,1e6 (default)")
    p.add_argument("--repeats", type=int, help="timed runs after the warm-up (5)")
    p.add_argument("--budget", type=float, default=30.0, help="max s per timed item")
    p.add_argument("--dists", type=_names(DISTS), help=f"group sizes: {DISTS}")
    p.add_argument("--layouts", type=_names(LAYOUTS), help=f"row order: {LAYOUTS}")
    p.add_argument("--contiguous", action="store_true", help="= --layouts contiguous")
    p.add_argument("--group-size", type=int, default=100, help="mean rows, typical")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--peers", type=_names(PEER_NAMES), default=["all"])
    p.add_argument(
        "--peer-dists",
        type=_names((*DISTS, "all")),
        help="dists the peers run on (default: typical; equal for sklearn_dense;"
        " small for gauc_loop); 'all' for every one",
    )
    p.add_argument("--peer-max-rows", type=int, help="skip peers above (per peer)")
    p.add_argument("--gauc-loop-max-groups", type=int, help="subsample (2000)")
    p.add_argument("--check-rows", type=int, help="rows of the agreement check")
    p.add_argument("--sections", type=_names(ALL_SECTIONS), help=str(ALL_SECTIONS))
    p.add_argument("--memory-sizes", type=_sizes, help="default 1e6,1e7")
    p.add_argument("--import-repeats", type=int)
    p.add_argument("--sort-rows", type=int, default=20_000, help="sorts section")
    p.add_argument(
        "--in-process",
        action="store_true",
        help="time every scenario in this process (default: a fresh process each;"
        " --quick: in-process)",
    )
    p.add_argument(
        "--prefault-mb",
        type=int,
        help="memory touched at the start of each scenario process (1024;"
        " --quick: 256, once)",
    )
    p.add_argument(
        "--shapes",
        type=_names(SHAPE_NAMES),
        help=f"input shapes of the shapes section (all): {SHAPE_NAMES}",
    )
    p.add_argument(
        "--shape-rows",
        type=lambda x: int(float(x)),
        help="rows of a shape (1e6; --quick: 2000); the 10x shapes get ten times",
    )
    p.add_argument(
        "--device",
        default="cpu",
        help="torch device of the device section: cpu (default) or cuda",
    )
    p.add_argument(
        "--device-rows",
        type=_sizes,
        help="rows of the device section (1e6,1e7; --quick: 2000)",
    )
    p.add_argument(
        "--device-host-rows",
        type=float,
        help="largest size of the device section that also times the host rows "
        "(numpy floor and evaluate, dispatch off, the copy); default: every size",
    )
    p.add_argument(
        "--torchmetrics-rows",
        type=float,
        default=1e6,
        help="largest size of the device section that also times torchmetrics' "
        "NDCG@10 (it loops over groups in Python; default 1e6)",
    )
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--silent", action="store_true", help="no progress on stderr")
    p.add_argument("--_child", nargs="+", help=argparse.SUPPRESS)
    return p


def resolve(args) -> argparse.Namespace:
    quick = args.quick
    args.sizes = args.sizes or (
        [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    )
    args.repeats = args.repeats or (3 if quick else 5)
    args.dists = args.dists or list(DEFAULT_DISTS)
    if args.dists == ["all"]:
        args.dists = list(DISTS)
    if args.contiguous:
        args.layouts = ["contiguous"]
    if args.layouts == ["all"]:
        args.layouts = list(LAYOUTS)
    if args.peers == ["all"]:
        args.peers = list(PEER_NAMES)
    elif args.peers == ["none"]:
        args.peers = []
    if quick and args.peer_max_rows is None:
        args.peer_max_rows = 20_000
    args.gauc_loop_max_groups = args.gauc_loop_max_groups or (100 if quick else 2000)
    args.check_rows = args.check_rows or (3_000 if quick else 100_000)
    args.sections = args.sections or list(ALL_SECTIONS)
    if args.sections == ["all"]:
        args.sections = list(ALL_SECTIONS)
    if args.memory_sizes is None:
        args.memory_sizes = [100_000] if quick else [1_000_000, 10_000_000]
    if args.shapes in (None, ["all"]):
        args.shapes = list(SHAPE_NAMES)
    elif args.shapes == ["none"]:
        args.shapes = []
    args.shape_rows = args.shape_rows or (2_000 if quick else 1_000_000)
    args.import_repeats = args.import_repeats or (1 if quick else 7)
    args.device_rows = args.device_rows or (
        [2_000] if quick else [1_000_000, 10_000_000]
    )
    if quick:
        args.in_process = True
    if args.prefault_mb is None:
        args.prefault_mb = 256 if quick else 1024
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = [a for a in argv if a not in ("--markdown",)]
    if args.sections == ["none"]:
        args.sections = []
    if args._child:
        if args._child[0] == "memory":
            _child_memory(args._child[1], args._child[2])
        elif args._child[0] == "sorts":
            _child_sorts(int(args._child[1]))
        elif args._child[0] == "scenario":
            args = resolve(args)
            prefault(args.prefault_mb)
            n, dist, layout, first = args._child[1:5]
            rows = run_scenario(args, int(n), dist, layout, first)
            print(json.dumps([r.__dict__ for r in rows]))
        elif args._child[0] == "shape":
            child_shape(resolve(args), args._child[1])
        return 0
    args = resolve(args)
    results: dict[str, Any] = {
        "machine": machine_facts(),
        "argv": argv,
    }
    if _srank() is None:
        _log(args, "sklearn_rank.evaluate is not importable: floors and peers only")
    if args.in_process and {"table", "shapes"} & set(args.sections):
        prefault(args.prefault_mb)
    t0 = time.perf_counter()
    sections: dict[str, Callable[[], Any]] = {
        "table": lambda: [r.__dict__ for r in run_table(args)],
        "shapes": lambda: run_shapes(args),
        "check": lambda: [{**c.__dict__, "ok": c.ok} for c in run_checks(args)],
        "memory": lambda: run_memory(args),
        "import": lambda: run_import_time(args),
        "sorts": lambda: run_sorts(args),
        "device": lambda: run_device(args),
    }
    spent = {}
    for name, run in sections.items():
        if name not in args.sections:
            continue
        if name in ("shapes", "memory", "import", "sorts", "device") and not _srank():
            continue
        t1 = time.perf_counter()
        results[name] = run()
        spent[name] = time.perf_counter() - t1
    results["seconds"] = time.perf_counter() - t0
    results["section_seconds"] = spent
    print(render(results, args.markdown))
    took = ", ".join(f"{k} {v:.0f} s" for k, v in spent.items())
    print(f"\n(benchmark took {results['seconds']:.0f} s: {took})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=str)
    mismatch = [c for c in results.get("check", []) if not c["ok"]]
    if mismatch:
        names = ", ".join(c["peer"] for c in mismatch)
        print(f"\nVALUES DISAGREE: {names}", file=sys.stderr)
        return 1
    return 0
