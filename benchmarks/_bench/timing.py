"""Interleaved timing of one scenario, each scenario in a fresh process."""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .common import LEXSORT, SCRIPT, SRANK_EVAL, SRANK_GAUC, _srank
from .data import Data, make_data
from .peers import (
    FLOORS,
    PEERS,
    Peer,
    _gauc_loop_setup,
    gauc_loop,
    srank_evaluate,
    srank_gauc,
)


@dataclass
class Row:
    scenario: str
    rows: int
    groups: int
    work: str
    kind: str  # floor | sklearn_rank | peer
    median: float | None
    runs: int = 0
    note: str = ""
    sys_median: float | None = None  # kernel CPU seconds per call
    vs_lexsort: float | None = None
    vs_srank: float | None = None
    versus: str | None = None  # the sklearn_rank row a peer is compared to


def _quiet(fn: Callable[[], Any]) -> Callable[[], Any]:
    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()

    return call


def _log(args, msg: str) -> None:
    if not args.silent:
        print(msg, file=sys.stderr, flush=True)


@dataclass
class Item:
    """One timed piece of work of a scenario."""

    work: str
    kind: str
    fn: Callable[[], Any]
    note: str = ""
    versus: str | None = None
    factor: float = 1.0  # extrapolation factor of a subsampled peer
    times: list[float] = field(default_factory=list)
    sys_times: list[float] = field(default_factory=list)
    error: str = ""


def _sys_seconds() -> float:
    """Kernel CPU seconds of this process so far."""
    try:
        import resource
    except ImportError:  # not on Windows
        return os.times().system
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def time_items(items: Sequence[Item], repeats: int, budget: float, log) -> None:
    """Warm every item up once, then time them in interleaved rounds.

    Round r runs every item once, in turn, so that the load of a shared machine
    drifts over all of them alike and the ratios between items stay meaningful.
    An item stops once another run would take it past `budget` seconds (it keeps
    at least one run). The garbage collector runs before the rounds, not between
    runs: with torch or ranx imported a full collection costs ~0.4 s.
    """
    for item in items:
        log(item.work)
        try:
            _quiet(item.fn)()
        except Exception as exc:
            item.error = repr(exc)
    gc.collect()
    for _ in range(repeats):
        for item in items:
            t = item.times
            if item.error or (t and sum(t) + t[-1] > budget):
                continue
            call = _quiet(item.fn)
            k0 = _sys_seconds()
            t0 = time.perf_counter()
            out = call()
            t.append(time.perf_counter() - t0)
            item.sys_times.append(_sys_seconds() - k0)
            del out


def bench_scenario(
    d: Data, args, peers: Sequence[Peer], with_gauc_loop: bool
) -> list[Row]:
    scen = f"{d.dist}/{d.layout}"
    base = {"scenario": scen, "rows": d.n, "groups": d.n_groups}
    items: list[Item] = []
    skipped: list[Row] = []
    for work, fn in FLOORS:
        items.append(Item(work, "floor", lambda fn=fn: fn(d)))
    if _srank() is not None:
        items.append(Item(SRANK_EVAL, "sklearn_rank", lambda: srank_evaluate(d)))
        items.append(Item(SRANK_GAUC, "sklearn_rank", lambda: srank_gauc(d)))
    for peer in peers:
        if peer.name == "sklearn_dense" and d.group_len is None:
            continue
        limit = args.peer_max_rows or peer.max_rows
        if d.n > limit:
            note = f"skipped: over {limit:_} rows"
            skipped.append(
                Row(**base, work=peer.label, kind="peer", median=None, note=note)
            )
            continue
        prepared = peer.setup(d)
        fn = lambda p=peer, x=prepared: p.run(x)  # noqa: E731
        items.append(Item(peer.label, "peer", fn, versus=SRANK_EVAL))
    if with_gauc_loop:
        sub, factor = _gauc_loop_setup(d, args.gauc_loop_max_groups)
        note = ""
        if factor > 1:
            note = f"extrapolated x{factor:.4g} from {sub.n_groups:_} groups"
        items.append(
            Item(
                "per-group roc_auc_score loop (GAUC)",
                "peer",
                lambda: gauc_loop(sub),
                note=note,
                versus=SRANK_GAUC,
                factor=factor,
            )
        )

    def log(work):
        _log(args, f"  {scen} n={d.n:_}: {work}")

    # The ratios that matter first, interleaved among themselves; the peers, whose
    # allocations change the process's memory state, after them.
    ours = [it for it in items if it.kind != "peer"]
    time_items(ours, args.repeats, args.budget, log)
    time_items(
        [it for it in items if it.kind == "peer"], args.repeats, args.budget, log
    )
    rows = []
    for it in items:
        med = statistics.median(it.times) * it.factor if it.times else None
        sys_med = statistics.median(it.sys_times) * it.factor if it.times else None
        rows.append(
            Row(
                **base,
                work=it.work,
                kind=it.kind,
                median=med,
                runs=len(it.times),
                note=it.error or it.note,
                sys_median=sys_med,
                versus=it.versus,
            )
        )
    rows += skipped
    lex = next((r.median for r in rows if r.work == LEXSORT), None)
    by_work = {r.work: r.median for r in rows}
    for r in rows:
        if r.median is not None and lex:
            r.vs_lexsort = r.median / lex
        ref = by_work.get(r.versus) if r.versus else None
        if r.median is not None and ref:
            r.vs_srank = r.median / ref
    return rows


def scenarios(args) -> list[tuple[str, str]]:
    if args.layouts:
        return [(d, lay) for d in args.dists for lay in args.layouts]
    out = [(d, "shuffled") for d in args.dists]
    if "typical" in args.dists:
        out.insert(out.index(("typical", "shuffled")) + 1, ("typical", "contiguous"))
    return out


def selected_peers(args) -> list[Peer]:
    return [p for p in PEERS if p.name in args.peers and p.available()]


def peers_for(args, dist: str, layout: str, first_layout: str) -> list[Peer]:
    if layout != first_layout:
        return []
    everywhere = args.peer_dists == ["all"]
    return [
        p
        for p in selected_peers(args)
        if (everywhere and (p.name != "sklearn_dense" or dist == "equal"))
        or dist in (args.peer_dists or p.dists)
    ]


def prefault(megabytes: int) -> None:
    """Touch and free `megabytes` of memory in 16 MB arrays, twice.

    On the machines this was written on, how fast allocation-heavy code runs depends
    on what the process allocated before (glibc raises its mmap threshold after
    large frees; numpy asks for transparent huge pages for large arrays, and a fresh
    process faults them in): ``evaluate`` at 1e6 rows took ~0.4 s in a fresh process
    and ~0.2 s after 1 GB had been touched, while lexsort did not change. Every
    scenario process starts from this same warmed-up state.
    """
    for _ in range(2):
        chunks = [np.ones(2_000_000) for _ in range(max(0, megabytes) // 16)]
        del chunks


def run_scenario(args, n: int, dist: str, layout: str, first_layout: str) -> list[Row]:
    d = make_data(n, dist, layout, seed=args.seed, group_size=args.group_size)
    peers = peers_for(args, dist, layout, first_layout)
    loop_dists = args.peer_dists or ["small"]
    with_loop = (
        "gauc_loop" in args.peers
        and layout == first_layout
        and (loop_dists == ["all"] or dist in loop_dists)
    )
    return bench_scenario(d, args, peers, with_loop)


def run_table(args) -> list[Row]:
    """Every scenario in a fresh process (prefaulted), unless --in-process."""
    rows: list[Row] = []
    scens = scenarios(args)
    first_layout = scens[0][1] if scens else "shuffled"
    for n in args.sizes:
        for dist, layout in scens:
            if args.in_process:
                rows.extend(run_scenario(args, n, dist, layout, first_layout))
                gc.collect()
                continue
            cmd = [
                sys.executable,
                SCRIPT,
                *args.argv,
                "--_child",
                "scenario",
                str(n),
                dist,
                layout,
                first_layout,
            ]
            proc = subprocess.run(
                cmd, stdout=subprocess.PIPE, stderr=None, text=True, check=False
            )
            if proc.returncode != 0:
                raise RuntimeError(f"scenario {dist}/{layout} n={n} failed")
            lines = proc.stdout.strip().splitlines()
            rows.extend(Row(**r) for r in json.loads(lines[-1]))
    return rows
