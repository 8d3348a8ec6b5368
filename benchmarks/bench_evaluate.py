#!/usr/bin/env python
"""Benchmark of sklearn_rank's grouped evaluation against floors and peer libraries.

Standard library and numpy only; every peer (pytrec_eval, ranx, torchmetrics,
ir_measures, scikit-learn) is optional and used when installed (``pip install -e
".[bench]"``). Every claim is a ratio measured side by side in one run:

* floors: reading the three arrays once, ``np.argsort(score)``,
  ``np.lexsort((-score, groups))`` (the reference of every "ratio to lexsort"), and a
  two-pass stable sort;
* sklearn_rank: ``evaluate`` with NDCG@10, MAP, MRR, P@10 and R@10 (ties averaged,
  the default) and ``gauc_score``;
* peers, counting their input conversion, and a check that their values agree with
  sklearn_rank once the conventions are aligned;
* optional sections: peak memory in a fresh process, import time, and the number of
  sorts done by ``evaluate`` and by the multi-metric scorer inside GridSearchCV;
* a summary of issue 5's targets as measured in the run.

Times are medians of several runs after a warm-up run, taken in interleaved rounds
(every item of a scenario once per round) so that the ratios survive a shared,
noisy machine.

Run ``python benchmarks/bench_evaluate.py --help``; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")
K = 10
DISTS = ("typical", "small", "tiny", "huge", "single", "equal")
LAYOUTS = ("shuffled", "contiguous", "blocks")
DEFAULT_DISTS = ("typical", "small", "tiny", "huge", "equal")
ALL_SECTIONS = ("table", "check", "memory", "import", "sorts")
LEXSORT = "lexsort((-score, groups))"
SRANK_EVAL = "sklearn_rank evaluate (5 metrics)"
SRANK_GAUC = "sklearn_rank gauc_score"
# trec_eval conventions, as understood by pytrec_eval, ranx, ir_measures and
# torchmetrics: gain = label (linear), a query with no relevant row scores 0.
TREC_OPTIONS: dict[str, Any] = {"gain": "linear", "undefined": 0.0}
TREC_OPTIONS_TEXT = 'gain="linear", undefined=0.0'


# --------------------------------------------------------------------------- data
@dataclass
class Data:
    """One synthetic data set: flat per-row arrays plus what made them."""

    y_true: np.ndarray  # int64 grades 0..4
    y_score: np.ndarray  # float64, rounded to 3 decimals: some ties
    groups: np.ndarray  # int64 group ids
    dist: str
    layout: str
    n_groups: int
    group_len: int | None = None  # every group has this length ("equal" only)

    @property
    def n(self) -> int:
        return len(self.y_true)

    def tie_free(self) -> Data:
        """Same rows, scores replaced by their stable rank: same order, no ties."""
        score = np.empty(self.n)
        score[np.argsort(self.y_score, kind="stable")] = np.arange(self.n)
        return Data(
            self.y_true,
            score,
            self.groups,
            self.dist,
            self.layout,
            self.n_groups,
            self.group_len,
        )

    def subset(self, rows: np.ndarray) -> Data:
        n_groups = len(np.unique(self.groups[rows]))
        return Data(
            self.y_true[rows],
            self.y_score[rows],
            self.groups[rows],
            self.dist,
            self.layout,
            n_groups,
            self.group_len,
        )


def _group_sizes(rng: np.random.Generator, n: int, dist: str, mean: int) -> np.ndarray:
    if dist == "single":
        return np.array([n])
    if dist == "huge":  # a few huge groups
        shares = np.array([0.4, 0.3, 0.15, 0.1, 0.05])
        sizes = np.maximum(1, np.floor(shares * n)).astype(np.int64)
        sizes[0] += n - sizes.sum()
        return sizes[sizes > 0]
    if dist == "equal":  # every group exactly `mean` rows (scikit-learn's dense input)
        return np.full(max(1, n // mean), min(mean, n), dtype=np.int64)
    if dist == "tiny":  # many groups of 1 or 2 rows
        sizes = rng.integers(1, 3, size=n)
    else:  # "typical" (mean rows per group) or "small" (10 rows per group)
        mean = 10 if dist == "small" else mean
        count = int(2 * n / mean) + 16
        sizes = np.maximum(1, np.rint(rng.gamma(4.0, mean / 4.0, size=count)))
        sizes = sizes.astype(np.int64)
    ends = np.cumsum(sizes)
    last = int(np.searchsorted(ends, n))  # first group reaching n rows
    sizes = sizes[: last + 1].copy()
    sizes[-1] -= int(ends[last]) - n
    return sizes


def make_data(
    n: int,
    dist: str = "typical",
    layout: str = "shuffled",
    *,
    seed: int = 0,
    group_size: int = 100,
) -> Data:
    """Deterministic synthetic ranking data (same arguments, same arrays).

    Groups get a relevance rate drawn from Beta(0.6, 2.4), so some have no relevant
    row (undefined groups); relevant rows get grades 1..4. Scores are
    ``0.5 * grade + N(0, 1)`` rounded to 3 decimals (ties within groups).
    Layouts: "shuffled" (rows in random order), "contiguous" (each group's rows
    adjacent, group ids increasing: a sorted file), "blocks" (adjacent, ids in random
    order: GroupKFold folds of a grouped file).
    """
    rng = np.random.default_rng([seed, n, DISTS.index(dist), LAYOUTS.index(layout)])
    sizes = _group_sizes(rng, n, dist, group_size)
    n_groups = len(sizes)
    n = int(sizes.sum())
    codes = np.repeat(np.arange(n_groups), sizes)
    rate = rng.beta(0.6, 2.4, size=n_groups)[codes]
    relevant = rng.random(n) < rate
    grade = rng.choice(np.arange(1, 5), size=n, p=[0.4, 0.3, 0.2, 0.1])
    y_true = np.where(relevant, grade, 0).astype(np.int64)
    y_score = np.round(0.5 * y_true + rng.standard_normal(n), 3)
    if layout == "contiguous":
        ids = 1000 + 3 * np.arange(n_groups, dtype=np.int64)
    else:
        ids = 1000 + 3 * rng.permutation(n_groups).astype(np.int64)
    groups = ids[codes]
    if layout == "shuffled":
        perm = rng.permutation(n)
        y_true, y_score, groups = y_true[perm], y_score[perm], groups[perm]
    group_len = int(sizes[0]) if dist == "equal" else None
    return Data(y_true, y_score, groups, dist, layout, n_groups, group_len)


# ------------------------------------------------------------------- sklearn_rank
def _srank():
    """sklearn_rank if its engine can be imported, else None."""
    try:
        import sklearn_rank
    except Exception:
        return None
    if not hasattr(sklearn_rank, "evaluate"):
        return None
    return sklearn_rank


def srank_evaluate(d: Data, metrics: Sequence[str] = METRICS, **opts) -> dict:
    return _srank().evaluate(
        d.y_true, d.y_score, groups=d.groups, metrics=tuple(metrics), **opts
    )


def srank_gauc(d: Data, **opts) -> float:
    return _srank().gauc_score(d.y_true, d.y_score, groups=d.groups, **opts)


# ------------------------------------------------------------------------- floors
def floor_read(d: Data):
    return d.y_true.sum() + d.y_score.sum() + d.groups.sum()


def floor_argsort(d: Data):
    return np.argsort(d.y_score)


def floor_lexsort(d: Data):
    return np.lexsort((-d.y_score, d.groups))


def floor_two_pass(d: Data):
    order = np.argsort(-d.y_score, kind="stable")
    return order[np.argsort(d.groups[order], kind="stable")]


FLOORS: tuple[tuple[str, Callable[[Data], Any]], ...] = (
    ("read the 3 arrays once", floor_read),
    ("argsort(score)", floor_argsort),
    (LEXSORT, floor_lexsort),
    ("two-pass stable sort", floor_two_pass),
)


# ------------------------------------------------------------ numpy reference
def numpy_reference(
    d: Data, gain: str = "exponential", undefined: str | float = "skip"
) -> dict:
    """A straightforward numpy version of the 5 metrics (ties in row order).

    One lexsort by (group, -score), one more for the ideal order, then bincounts.
    Agrees with any tie rule on tie-free scores; used as the reference when no peer
    is installed.
    """
    y, n = d.y_true, d.n
    order = np.lexsort((-d.y_score, d.groups))
    ys, gs = y[order], d.groups[order]
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(gs[1:], gs[:-1], out=start[1:])
    starts = np.flatnonzero(start)
    n_groups = len(starts)
    gid = np.cumsum(start) - 1
    pos = np.arange(n) - starts[gid]
    rel = ys > 0
    gains = np.exp2(ys) - 1.0 if gain == "exponential" else ys.astype(np.float64)
    disc = 1.0 / np.log2(pos + 2.0)
    top = pos < K

    def per_group(w):
        return np.bincount(gid, weights=w, minlength=n_groups)

    n_rel = per_group(rel)
    dcg = per_group(np.where(top, gains * disc, 0.0))
    ideal = gains[np.lexsort((-ys, gid))]
    idcg = per_group(np.where(top, ideal * disc, 0.0))
    hits_k = per_group(rel & top)
    cum = np.cumsum(rel)
    hits = cum - (cum[starts] - rel[starts])[gid]  # relevant rows up to this one
    ap_sum = per_group(np.where(rel, hits / (pos + 1.0), 0.0))
    rel_rows = np.flatnonzero(rel)
    first = np.r_[True, gid[rel_rows][1:] != gid[rel_rows][:-1]]
    rr = np.zeros(n_groups)
    rr[gid[rel_rows[first]]] = 1.0 / (pos[rel_rows[first]] + 1.0)
    defined = n_rel > 0
    safe = np.where(defined, n_rel, 1.0)
    values = {
        "ndcg@10": dcg / np.where(idcg > 0, idcg, 1.0),
        "map": ap_sum / safe,
        "mrr": rr,
        "precision@10": hits_k / K,
        "recall@10": hits_k / safe,
    }
    out = {}
    for name, v in values.items():
        if undefined == "skip":
            out[name] = float(v[defined].mean()) if defined.any() else float("nan")
        else:
            out[name] = float(np.where(defined, v, float(undefined)).mean())
    return out


# -------------------------------------------------------------------------- peers
def arrays_to_dicts(d: Data) -> tuple[dict, dict]:
    """TREC-style ``{qid: {docid: relevance}}`` and ``{qid: {docid: score}}``."""
    order = np.argsort(d.groups, kind="stable")
    gs = d.groups[order]
    cut = np.flatnonzero(gs[1:] != gs[:-1]) + 1
    starts = np.r_[0, cut].tolist()
    ends = np.r_[cut, d.n].tolist()
    qids = gs[np.r_[0, cut]].astype(str).tolist()
    docs = order.astype(str).tolist()
    rels = d.y_true[order].tolist()
    scores = d.y_score[order].tolist()
    qrels: dict = {}
    run: dict = {}
    for q, a, b in zip(qids, starts, ends, strict=True):
        ids = docs[a:b]
        qrels[q] = dict(zip(ids, rels[a:b], strict=True))
        run[q] = dict(zip(ids, scores[a:b], strict=True))
    return qrels, run


def _pytrec(d: Data) -> dict:
    import pytrec_eval

    qrels, run = arrays_to_dicts(d)
    names = {
        "ndcg@10": "ndcg_cut_10",
        "map": "map",
        "mrr": "recip_rank",
        "precision@10": "P_10",
        "recall@10": "recall_10",
    }
    measures = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.10"}
    res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    per_query = list(res.values())
    return {m: float(np.mean([q[t] for q in per_query])) for m, t in names.items()}


def _ranx_setup(d: Data):
    return arrays_to_dicts(d)


def _ranx(prepared) -> dict:
    import ranx

    qrels, run = prepared
    out = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(METRICS))
    return {m: float(out[m]) for m in METRICS}


def _torchmetrics(d: Data) -> dict:
    import torch
    from torchmetrics import retrieval as tr

    preds = torch.from_numpy(d.y_score)
    target = torch.from_numpy(d.y_true)
    binary = target > 0
    idx = torch.from_numpy(d.groups)
    objects = (
        ("ndcg@10", tr.RetrievalNormalizedDCG(top_k=K), target),
        ("map", tr.RetrievalMAP(), binary),
        ("mrr", tr.RetrievalMRR(), binary),
        ("precision@10", tr.RetrievalPrecision(top_k=K), binary),
        ("recall@10", tr.RetrievalRecall(top_k=K), binary),
    )
    out = {}
    for name, metric, tgt in objects:
        metric.update(preds, tgt, indexes=idx)
        out[name] = float(metric.compute())
    return out


def _ir_measures(d: Data) -> dict:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    qrels, run = arrays_to_dicts(d)
    measures = {
        "ndcg@10": nDCG @ K,
        "map": AP,
        "mrr": RR,
        "precision@10": P @ K,
        "recall@10": R @ K,
    }
    agg = ir_measures.calc_aggregate(list(measures.values()), qrels, run)
    return {m: float(agg[ms]) for m, ms in measures.items()}


def _sklearn_dense(d: Data) -> dict:
    from sklearn.metrics import ndcg_score

    order = np.argsort(d.groups, kind="stable")
    y = d.y_true[order].reshape(-1, d.group_len)
    s = d.y_score[order].reshape(-1, d.group_len)
    return {"ndcg@10": float(ndcg_score(y, s, k=K))}


def gauc_loop(d: Data, weights: str = "rows") -> float:
    """GAUC the usual way: one ``roc_auc_score`` per group with both classes."""
    from sklearn.metrics import roc_auc_score

    order = np.argsort(d.groups, kind="stable")
    gs = d.groups[order]
    cut = np.flatnonzero(gs[1:] != gs[:-1]) + 1
    pos = np.split(d.y_true[order] > 0, cut)
    score = np.split(d.y_score[order], cut)
    total = weight = 0.0
    for yb, sb in zip(pos, score, strict=True):
        n_pos = int(yb.sum())
        if n_pos == 0 or n_pos == len(yb):
            continue
        w = len(yb) if weights == "rows" else 1.0
        total += w * roc_auc_score(yb, sb)
        weight += w
    return total / weight if weight else float("nan")


def _gauc_loop_setup(d: Data, max_groups: int):
    """A random subsample of at most max_groups groups, and the extrapolation factor."""
    if d.n_groups <= max_groups:
        return d, 1.0
    rng = np.random.default_rng([1, d.n])
    ids = np.unique(d.groups)
    keep = np.isin(d.groups, rng.choice(ids, size=max_groups, replace=False))
    return d.subset(np.flatnonzero(keep)), d.n_groups / max_groups


@dataclass
class Peer:
    """A peer implementation: what it needs, how it is timed and how it is compared."""

    name: str
    label: str
    modules: tuple[str, ...]
    run: Callable[[Any], dict]
    setup: Callable[[Data], Any] = lambda d: d  # untimed preparation
    dists: tuple[str, ...] = ("typical",)  # where it runs unless --peer-dists all
    max_rows: int = 2_000_000
    metrics: tuple[str, ...] = METRICS
    options: dict = field(default_factory=lambda: dict(TREC_OPTIONS))
    options_text: str = TREC_OPTIONS_TEXT
    tol: float = 1e-9
    check_ties: bool = False  # its tie rule matches sklearn_rank's "average"

    def available(self) -> bool:
        import importlib.util

        return all(importlib.util.find_spec(m) is not None for m in self.modules)


PEERS: tuple[Peer, ...] = (
    Peer(
        "numpy_ref",
        "numpy reference (2 lexsorts + bincount)",
        (),
        lambda d: numpy_reference(d),
        options={},
        options_text="defaults (tie-free data)",
    ),
    Peer(
        "pytrec_eval",
        "pytrec_eval (from arrays, dicts built)",
        ("pytrec_eval",),
        _pytrec,
        max_rows=10_000_000,
    ),
    Peer(
        "dicts",
        "arrays -> TREC dicts (ranx's input; not in its row)",
        (),
        arrays_to_dicts,
        metrics=(),
    ),
    Peer(
        "ranx",
        "ranx (warm, from dicts)",
        ("ranx",),
        _ranx,
        setup=_ranx_setup,
    ),
    Peer(
        "torchmetrics",
        "torchmetrics (5 Retrieval* objects)",
        ("torch", "torchmetrics"),
        _torchmetrics,
        tol=1e-6,  # computes in float32
    ),
    Peer(
        "ir_measures",
        "ir_measures (from arrays, dicts built)",
        ("ir_measures",),
        _ir_measures,
    ),
    Peer(
        "sklearn_dense",
        "scikit-learn ndcg_score (dense, equal groups)",
        ("sklearn",),
        _sklearn_dense,
        dists=("equal",),
        max_rows=10_000_000,
        metrics=("ndcg@10",),
        check_ties=True,
    ),
)
PEER_NAMES = (*(p.name for p in PEERS), "gauc_loop")


# ------------------------------------------------------------------------- timing
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
                __file__,
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


# ---------------------------------------------------------------------- agreement
@dataclass
class Check:
    peer: str
    data: str
    options: str
    diffs: dict
    max_diff: float | None
    tol: float
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.max_diff is not None and self.max_diff <= self.tol


def _reference(d: Data, metrics, options: dict) -> dict:
    if _srank() is not None:
        return srank_evaluate(d, metrics, **options)
    return numpy_reference(d, **options)  # development fallback


def run_checks(args) -> list[Check]:
    """Compare each peer with sklearn_rank where the conventions can be aligned."""
    n = args.check_rows
    base = make_data(n, "typical", "shuffled", seed=args.seed + 1)
    tie_free = base.tie_free()
    equal = make_data(n, "equal", "shuffled", seed=args.seed + 1, group_size=20)
    small = make_data(n, "small", "shuffled", seed=args.seed + 1)
    who = "sklearn_rank" if _srank() is not None else "numpy_ref (no sklearn_rank)"
    checks = []
    for peer in selected_peers(args):
        if not peer.metrics or (peer.name == "numpy_ref" and _srank() is None):
            continue
        d = equal if peer.name == "sklearn_dense" else tie_free
        if peer.check_ties:
            data = f"{d.dist}, {d.n:_} rows, ties"
        else:
            data = f"{d.dist}, {d.n:_} rows, tie-free"
        _log(args, f"  check {peer.name} vs {who}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = peer.run(peer.setup(d))
            ref = _reference(d, peer.metrics, peer.options)
        except Exception as exc:
            checks.append(
                Check(peer.name, data, peer.options_text, {}, None, peer.tol, repr(exc))
            )
            continue
        diffs = {m: abs(got[m] - ref[m]) for m in peer.metrics}
        checks.append(
            Check(
                peer.name,
                data,
                peer.options_text,
                diffs,
                max(diffs.values()),
                peer.tol,
                f"vs {who}",
            )
        )
    if "gauc_loop" in args.peers and _srank() is not None:
        sub, _ = _gauc_loop_setup(small, args.gauc_loop_max_groups)
        diffs = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for w in ("rows", "uniform"):
                diffs[f"gauc[{w}]"] = abs(
                    gauc_loop(sub, w) - srank_gauc(sub, weights=w)
                )
        checks.append(
            Check(
                "gauc_loop",
                f"small, {sub.n:_} rows, ties",
                "weights=rows / uniform",
                diffs,
                max(diffs.values()),
                1e-9,
                "vs sklearn_rank",
            )
        )
    return checks


# ------------------------------------------------------------ fresh-process parts
def _proc_status(key: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _child_memory(path: str, work: str) -> None:
    """In a fresh process: peak RSS of one call above the loaded inputs."""
    import resource

    import sklearn_rank  # noqa: F401 - imported before the baseline

    arrays = {k: np.load(os.path.join(path, k + ".npy")) for k in ("y", "s", "g")}
    d = Data(arrays["y"], arrays["s"], arrays["g"], "", "", 0)
    call = {
        "lexsort": lambda x: floor_lexsort(x),
        "evaluate": lambda x: srank_evaluate(x),
        "gauc": lambda x: srank_gauc(x),
    }[work]
    call(d.subset(np.arange(min(d.n, 1000))))  # lazy imports out of the measure
    gc.collect()
    base = _proc_status("VmRSS")
    reset = False
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset the peak (VmHWM) to the current RSS
        reset = True
    except OSError:
        pass
    before_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    call(d)
    peak = _proc_status("VmHWM") if reset else None
    if peak is None or base is None:  # no /proc: getrusage, a lower bound
        base = before_peak
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    inputs = sum(a.nbytes for a in arrays.values())
    print(json.dumps({"base": base, "peak": peak, "inputs": inputs, "reset": reset}))


def run_memory(args) -> list[dict]:
    works = ("evaluate",) if args.quick else ("lexsort", "evaluate", "gauc")
    cases = [(n, "typical", w) for n in args.memory_sizes for w in works]
    if args.memory_sizes:
        big = max(args.memory_sizes)
        cases += [(big, "single", w) for w in works if w != "lexsort"]
    out = []
    with tempfile.TemporaryDirectory(prefix="bench_mem_") as tmp:
        made = None
        for n, dist, work in cases:
            if made != (n, dist):
                d = make_data(n, dist, "shuffled", seed=args.seed)
                for key, arr in (("y", d.y_true), ("s", d.y_score), ("g", d.groups)):
                    np.save(os.path.join(tmp, key + ".npy"), arr)
                made, n_groups = (n, dist), d.n_groups
                del d
                gc.collect()
            _log(args, f"  memory {dist} n={n:_}: {work}")
            cmd = [sys.executable, __file__, "--_child", "memory", tmp, work]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            rec = {"rows": n, "groups": n_groups, "dist": dist, "work": work}
            if proc.returncode != 0:
                rec["error"] = proc.stderr.strip().splitlines()[-1:]
            else:
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                rec.update(res)
                rec["bytes_per_row"] = (res["peak"] - res["base"]) / n
            out.append(rec)
    return out


def run_import_time(args) -> dict:
    """Wall time of fresh interpreters, and -X importtime's sklearn_rank entry."""
    plain = [sys.executable, "-c", "import sklearn.metrics"]
    both = [sys.executable, "-c", "import sklearn.metrics, sklearn_rank"]
    t_plain, t_both, cumul = [], [], []
    for _ in range(args.import_repeats):
        for cmd, acc in ((plain, t_plain), (both, t_both)):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            acc.append(time.perf_counter() - t0)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", *both[1:]],
            check=True,
            capture_output=True,
            text=True,
        )
        heavy = []
        after_sklearn = False
        for line in proc.stderr.splitlines():
            parts = line.split("|")
            if len(parts) != 3 or not line.startswith("import time:"):
                continue
            try:
                self_us = int(parts[0].split(":")[1])
                cum_us = int(parts[1])
            except ValueError:
                continue
            name = parts[2].rstrip()
            if name.strip() == "sklearn.metrics" and name == " sklearn.metrics":
                after_sklearn = True
                continue
            if after_sklearn:
                heavy.append((self_us, name.strip()))
            if name == " sklearn_rank":
                cumul.append(cum_us / 1e6)
    heavy.sort(reverse=True)
    return {
        "plain": statistics.median(t_plain),
        "with": statistics.median(t_both),
        "added": statistics.median(t_both) - statistics.median(t_plain),
        "importtime_cumulative": statistics.median(cumul) if cumul else None,
        "heaviest": [(name, us / 1e6) for us, name in heavy[:5]],
        "repeats": args.import_repeats,
    }


SORT_NAMES = frozenset({"sort", "argsort", "lexsort", "partition", "argpartition"})


def _child_sorts(n: int) -> None:
    """Count the row-length sorts done by sklearn_rank code (fresh process).

    Every ndarray sort method call (np.argsort, np.sort, np.unique, scipy's rankdata
    all end in one) is seen through sys.setprofile; np.lexsort, a C dispatcher that
    the profiler does not see, is wrapped before sklearn_rank is imported. Only
    sorts called with sklearn_rank code on the stack are counted.
    """
    marker = os.sep + "sklearn_rank" + os.sep
    log: list[tuple[str, int | None]] = []
    enabled = [False]

    def from_package(frame) -> bool:
        while frame is not None:
            if marker in frame.f_code.co_filename:
                return True
            frame = frame.f_back
        return False

    def profiler(frame, event, arg):
        if enabled[0] and event == "c_call":
            name = getattr(arg, "__name__", None)
            if name in SORT_NAMES:
                owner = getattr(arg, "__self__", None)
                if isinstance(owner, np.ndarray) and from_package(frame):
                    log.append((name, owner.size))

    real_lexsort = np.lexsort

    def lexsort(keys, axis=-1):
        if enabled[0] and from_package(sys._getframe(1)):
            log.append(("lexsort", int(np.shape(keys[0])[-1]) if len(keys) else 0))
        return real_lexsort(keys, axis)

    np.lexsort = lexsort
    import sklearn_rank

    def count(fn) -> tuple[int, list]:
        log.clear()
        enabled[0] = True
        sys.setprofile(profiler)
        try:
            fn()
        finally:
            sys.setprofile(None)
            enabled[0] = False
        return list(log)

    d = make_data(n, "typical", "shuffled", seed=0)
    out: dict[str, Any] = {"rows": d.n}
    cases = {
        "evaluate ndcg@10": lambda: srank_evaluate(d, ("ndcg@10",)),
        "evaluate 5 metrics": lambda: srank_evaluate(d),
        "gauc_score": lambda: srank_gauc(d),
    }
    for name, fn in cases.items():
        out[name] = count(fn)
    out["scorer"] = _scorer_sorts(sklearn_rank, d, count)
    print(json.dumps(out))


def _scorer_sorts(sklearn_rank, d: Data, count) -> dict:
    """Sorts per scoring call of a 1-metric and a 5-metric scorer in GridSearchCV."""
    make = getattr(sklearn_rank, "make_ranking_scorer", None)
    if make is None:
        return {"skipped": "sklearn_rank has no make_ranking_scorer yet"}
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    rng = np.random.default_rng(0)
    X = np.c_[d.y_true + rng.standard_normal(d.n), rng.standard_normal(d.n)]
    splits, grid = 3, {"alpha": [0.1, 1.0]}
    out: dict[str, Any] = {"scoring_calls": splits * len(grid["alpha"])}
    with sklearn.config_context(enable_metadata_routing=True):
        for label, scoring in (
            ("1 metric", make("ndcg@10")),
            ("5 metrics", make(list(METRICS))),  # the multi-metric scorer
        ):
            search = GridSearchCV(
                Ridge(), grid, scoring=scoring, cv=GroupKFold(splits), refit=False
            )
            out[label] = count(lambda s=search: s.fit(X, d.y_true, groups=d.groups))
            scored = sorted(k for k in search.cv_results_ if k.startswith("mean_test"))
            out[label + " columns"] = scored
            out[label + " scorer"] = type(scoring).__name__
    return out


def run_sorts(args) -> dict:
    cmd = [sys.executable, __file__, "--_child", "sorts", str(args.sort_rows)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-3:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _summarise_sorts(records: list, min_size: int) -> str:
    big = [r for r in records if r[1] is not None and r[1] >= min_size]
    kinds: dict[str, int] = {}
    for name, _ in big:
        kinds[name] = kinds.get(name, 0) + 1
    detail = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())) or "-"
    return f"{len(big)} ({detail}); {len(records)} sorts of any size"


# ------------------------------------------------------------------------ output
def machine_facts() -> dict:
    cpu = platform.processor() or "?"
    mem = None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as fh:
            mem = int(fh.readline().split()[1]) * 1024
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for dist in (
        "scikit-learn",
        "scipy",
        "sklearn-rank",
        "pytrec-eval-terrier",
        "ranx",
        "ir-measures",
        "torch",
        "torchmetrics",
    ):
        try:  # metadata, not an import: importing torch takes seconds
            versions[dist] = version(dist)
        except PackageNotFoundError:
            continue
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem / 2**30, 1) if mem else None,
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "versions": versions,
    }


def _find(rows, scenario, work, rows_n=None):
    for r in rows:
        if r["scenario"] == scenario and r["work"] == work and r["median"]:
            if rows_n is None or r["rows"] == rows_n:
                return r
    return None


def targets(results: dict) -> list[list[str]]:
    """Issue 5's targets, read off this run's rows: [target, measured, limit, met]."""
    rows = results.get("table") or []
    out: list[list[str]] = []

    def add(name, value, limit, ok, fmt=".2f"):
        name = name.replace(", 0 rows", "")
        shown = "not measured" if value is None else format(value, fmt)
        met = "" if value is None else ("yes" if ok(value) else "NO")
        out.append([name, shown, limit, met])

    sizes = sorted({r["rows"] for r in rows if r["scenario"] == "typical/shuffled"})
    big = [n for n in sizes if n >= 1_000_000] or sizes[-1:]
    for n in big:
        r = _find(rows, "typical/shuffled", SRANK_EVAL, n)
        add(
            f"1. evaluate ÷ lexsort, typical shuffled, {n:_} rows",
            r and r["vs_lexsort"],
            "<= 1.0",
            lambda v: v <= 1.0,
        )
        r = _find(rows, "typical/contiguous", SRANK_EVAL, n)
        add(
            f"2. evaluate ÷ lexsort, contiguous groups, {n:_} rows",
            r and r["vs_lexsort"],
            "<= 0.6",
            lambda v: v <= 0.6,
        )
    n3 = 1_000_000 if 1_000_000 in sizes else (sizes[-1] if sizes else None)
    for label, limit in (("pytrec_eval", 5), ("ranx", 20), ("torchmetrics", 20)):
        r = next(
            (
                x
                for x in rows
                if x["scenario"] == "typical/shuffled"
                and x["rows"] == n3
                and x["work"].startswith(label)
                and x["vs_srank"]
            ),
            None,
        )
        add(
            f"3. {label} ÷ evaluate, {n3 or 0:_} rows",
            r and r["vs_srank"],
            f">= {limit}",
            lambda v, m=limit: v >= m,
            ".1f",
        )
    checks = results.get("check")
    if checks is not None:
        bad = [c["peer"] for c in checks if not c["ok"]]
        out.append(
            [
                "3. same values as every peer checked",
                ", ".join(bad) or "all agree",
                "agree",
                "NO" if bad else "yes",
            ]
        )
    small = sorted({r["rows"] for r in rows if r["scenario"] == "small/shuffled"})
    n4 = 1_000_000 if 1_000_000 in small else (small[-1] if small else None)
    r = _find(rows, "small/shuffled", SRANK_GAUC, n4)
    add(
        f"4. gauc_score ÷ lexsort, small groups, {n4 or 0:_} rows",
        r and r["vs_lexsort"],
        "<= 1.0",
        lambda v: v <= 1.0,
    )
    r = _find(rows, "small/shuffled", "per-group roc_auc_score loop (GAUC)", n4)
    add(
        f"4. roc_auc_score loop ÷ gauc_score, {n4 or 0:_} rows",
        r and r["vs_srank"],
        ">= 300",
        lambda v: v >= 300,
        ".0f",
    )
    for m in results.get("memory") or []:
        if m["work"] in ("evaluate", "gauc") and m.get("bytes_per_row") is not None:
            add(
                f"5. {m['work']} peak bytes/row above inputs, {m['dist']}, "
                f"{m['rows']:_} rows",
                m["bytes_per_row"],
                "<= 100",
                lambda v: v <= 100,
                ".1f",
            )
    for dist in ("typical", "tiny", "huge"):
        per_row = [
            r["median"] / r["rows"]
            for r in rows
            if r["scenario"] == f"{dist}/shuffled"
            and r["work"] == SRANK_EVAL
            and r["median"]
        ]
        if len(per_row) > 1:
            add(
                f"6. evaluate time/row, largest ÷ smallest over sizes, {dist}",
                max(per_row) / min(per_row),
                "<= 2",
                lambda v: v <= 2,
            )
    for dist in ("tiny", "huge"):
        for n in [x for x in sizes if x >= 1_000_000] or sizes[-1:]:
            r = _find(rows, f"{dist}/shuffled", SRANK_EVAL, n)
            if r:
                add(
                    f"6. evaluate ÷ lexsort, {dist} groups, {n:_} rows",
                    r["vs_lexsort"],
                    "<= 1.0",
                    lambda v: v <= 1.0,
                )
    sorts = results.get("sorts") or {}
    sc = sorts.get("scorer") or {}
    if "1 metric" in sc and "5 metrics" in sc:
        cut = sorts["rows"] // 10
        one, five = (
            sum(1 for x in sc[k] if x[1] is not None and x[1] >= cut)
            for k in ("1 metric", "5 metrics")
        )
        add(
            "7. extra sorts of the 5-metric scorer over the 1-metric one, per call",
            (five - one) / sc["scoring_calls"],
            "0",
            lambda v: v <= 0,
        )
    imp = results.get("import")
    if imp:
        add(
            "7. ms added to import sklearn.metrics (-X importtime cumulative)",
            imp["importtime_cumulative"] and imp["importtime_cumulative"] * 1e3,
            "<= 100",
            lambda v: v <= 100,
            ".0f",
        )
        add(
            "7. ms added to import sklearn.metrics (wall, difference of medians)",
            imp["added"] * 1e3,
            "<= 100",
            lambda v: v <= 100,
            ".0f",
        )
    return out


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def _table(headers: list[str], body: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |"]
        lines.append("|" + "|".join("---" for _ in headers) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*r) for r in body]
    return "\n".join(line.rstrip() for line in out)


def render(results: dict, markdown: bool) -> str:
    parts = []
    h = "### " if markdown else "== "
    m = results["machine"]
    parts.append(
        f"{h}machine: {m['nproc']} CPUs, {m['cpu']}, {m['memory_gib']} GiB; "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items())
        + f"; load average at start {m['load_average']}"
    )
    rows = results.get("table")
    if rows:
        headers = [
            "scenario",
            "rows",
            "groups",
            "work",
            "median s",
            "sys s",
            "runs",
            "ns/row",
            "÷ lexsort",
            "÷ sklearn_rank",
            "note",
        ]
        body = []
        for r in rows:
            per_row = r["median"] * 1e9 / r["rows"] if r["median"] else None
            body.append(
                [
                    r["scenario"],
                    f"{r['rows']:_}",
                    f"{r['groups']:_}",
                    r["work"],
                    _fmt(r["median"], ".4g"),
                    _fmt(r.get("sys_median"), ".2g"),
                    str(r["runs"]),
                    _fmt(per_row, ".1f"),
                    _fmt(r["vs_lexsort"], ".3f"),
                    _fmt(r["vs_srank"], ".1f"),
                    r["note"],
                ]
            )
        parts += [
            f"{h}timings (median of runs after a warm-up)",
            _table(headers, body, markdown),
        ]
    checks = results.get("check")
    if checks is not None:
        body = [
            [
                c["peer"],
                c["data"],
                c["options"],
                ", ".join(f"{k} {v:.1e}" for k, v in c["diffs"].items()),
                _fmt(c["max_diff"], ".2e"),
                "ok" if c["ok"] else "MISMATCH",
                c["note"],
            ]
            for c in checks
        ]
        headers = [
            "peer",
            "data",
            "sklearn_rank options",
            "abs diff",
            "max",
            "",
            "note",
        ]
        parts += [f"{h}value agreement", _table(headers, body, markdown)]
    mem = results.get("memory")
    if mem:
        body = []
        for r in mem:
            if "error" in r:
                body.append(
                    [r["dist"], f"{r['rows']:_}", r["work"], "", "", str(r["error"])]
                )
                continue
            body.append(
                [
                    r["dist"],
                    f"{r['rows']:_}",
                    r["work"],
                    f"{r['inputs'] / r['rows']:.0f}",
                    f"{r['bytes_per_row']:.1f}",
                    f"{r['peak'] / 2**20:.0f}",
                ]
            )
        headers = [
            "dist",
            "rows",
            "work",
            "input B/row",
            "peak B/row above inputs",
            "peak RSS MiB",
        ]
        parts += [
            f"{h}memory (fresh process per line)",
            _table(headers, body, markdown),
        ]
    imp = results.get("import")
    if imp:
        body = [
            ["import sklearn.metrics", f"{imp['plain'] * 1e3:.0f}", ""],
            ["import sklearn.metrics, sklearn_rank", f"{imp['with'] * 1e3:.0f}", ""],
            [
                "added by sklearn_rank (difference of medians)",
                f"{imp['added'] * 1e3:.0f}",
                "",
            ],
            [
                "sklearn_rank cumulative (-X importtime)",
                _fmt(
                    imp["importtime_cumulative"] and imp["importtime_cumulative"] * 1e3,
                    ".0f",
                ),
                ", ".join(f"{n} {s * 1e3:.0f} ms" for n, s in imp["heaviest"]),
            ],
        ]
        parts += [
            f"{h}import time (median of {imp['repeats']} fresh interpreters)",
            _table(["what", "ms", "heaviest new imports (self time)"], body, markdown),
        ]
    sorts = results.get("sorts")
    if sorts:
        body = []
        if "error" in sorts:
            body.append(["error", str(sorts["error"])])
        else:
            n = sorts["rows"]
            for key in ("evaluate ndcg@10", "evaluate 5 metrics", "gauc_score"):
                body.append(
                    [f"{key} ({n:_} rows)", _summarise_sorts(sorts[key], n // 2)]
                )
            sc = sorts["scorer"]
            if "skipped" in sc:
                body.append(["GridSearchCV scorer", "skipped: " + sc["skipped"]])
            else:
                calls = sc["scoring_calls"]
                for key in ("1 metric", "5 metrics"):
                    big = [r for r in sc[key] if r[1] is not None and r[1] >= n // 10]
                    body.append(
                        [
                            f"GridSearchCV + {sc[key + ' scorer']}, {key} "
                            f"({calls} scoring calls, "
                            f"{len(sc[key + ' columns'])} mean_test_* columns)",
                            f"{len(big) / calls:.2f} fold-length sorts per call "
                            f"({len(big)} in all)",
                        ]
                    )
        parts += [
            f"{h}sorts done by sklearn_rank code (arrays of >= half the rows;"
            " in GridSearchCV, of >= a tenth of the rows, a fold has a third)",
            _table(["call", "sorts"], body, markdown),
        ]
    goals = targets(results)
    if goals:
        parts += [
            f"{h}issue 5 targets, as measured in this run",
            _table(["target", "measured", "limit", "met"], goals, markdown),
        ]
    return "\n\n".join(parts)


# -------------------------------------------------------------------------- main
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
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    args.import_repeats = args.import_repeats or (1 if quick else 7)
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
        return 0
    args = resolve(args)
    results: dict[str, Any] = {
        "machine": machine_facts(),
        "argv": argv,
    }
    if _srank() is None:
        _log(args, "sklearn_rank.evaluate is not importable: floors and peers only")
    if args.in_process and "table" in args.sections:
        prefault(args.prefault_mb)
    t0 = time.perf_counter()
    sections: dict[str, Callable[[], Any]] = {
        "table": lambda: [r.__dict__ for r in run_table(args)],
        "check": lambda: [{**c.__dict__, "ok": c.ok} for c in run_checks(args)],
        "memory": lambda: run_memory(args),
        "import": lambda: run_import_time(args),
        "sorts": lambda: run_sorts(args),
    }
    spent = {}
    for name, run in sections.items():
        if name not in args.sections:
            continue
        if name in ("memory", "import", "sorts") and _srank() is None:
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


if __name__ == "__main__":
    sys.exit(main())
