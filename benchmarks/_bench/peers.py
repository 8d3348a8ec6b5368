"""The floors, the numpy reference and the peer libraries, each a timed callable."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .common import LEXSORT, METRICS, TREC_OPTIONS, TREC_OPTIONS_TEXT, K, _srank
from .data import Data


def srank_evaluate(d: Data, metrics: Sequence[str] = METRICS, **opts) -> dict:
    return _srank().evaluate(
        d.y_true, d.y_score, groups=d.groups, metrics=tuple(metrics), **opts
    )


def srank_gauc(d: Data, **opts) -> float:
    return _srank().gauc_score(d.y_true, d.y_score, groups=d.groups, **opts)


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
