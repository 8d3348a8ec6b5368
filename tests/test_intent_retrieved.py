"""The intent-aware metrics with judged rows the ranking did not retrieve
(``evaluate_intents(..., retrieved=)``, issue 45): a brute force written from
ndeval's reading of its qrels (a group's intents, MAP-IA's denominators and the
greedy ideal over every judged row; only retrieved rows ranked)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_intent_metrics import _greedy_ideal  # ndeval's, over every judged row

from sklearn_rank import evaluate_intents

METRICS = ("alpha_ndcg", "err_ia", "nerr_ia", "map_ia", "precision_ia")
METRICS += ("subtopic_recall",)
WHOLE_LIST = ("nrbp", "nnrbp")


def _gains(lists, intents, alpha):
    """The novelty gain at each position of a list of relevance rows."""
    seen = dict.fromkeys(intents, 0)
    out = []
    for row in lists:
        gain = 0.0
        for j in intents:
            if row[j]:
                gain += (1 - alpha) ** seen[j]
                seen[j] += 1
        out.append(gain)
    return out


def _weighted(gains, weight):
    """``sum_p gains[p - 1] * weight(p)``."""
    return sum(g * weight(p) for p, g in enumerate(gains, 1))


def _oracle(metric, rel, score, ret, alpha, beta, k):
    intents = [j for j in range(len(rel[0])) if any(row[j] for row in rel)]
    if not intents:
        return None
    order = sorted((i for i in range(len(rel)) if ret[i]), key=lambda i: -score[i])
    ranked = [rel[i] for i in order]
    ideal = _greedy_ideal(rel, intents, alpha)
    n_int = len(intents)
    depth = len(ranked) if k is None else k  # a short list counts as padded
    if metric in ("alpha_ndcg", "nerr_ia"):
        weight = (
            (lambda p: 1 / math.log2(1 + p))
            if metric == "alpha_ndcg"
            else (lambda p: 1 / p)
        )
        cut = len(rel) if k is None else k
        got = _weighted(_gains(ranked, intents, alpha)[:cut], weight)
        return got / _weighted(_gains(ideal, intents, alpha)[:cut], weight)
    if metric == "err_ia":
        got = _weighted(_gains(ranked, intents, alpha)[:depth], lambda p: 1 / p)
        norm = sum((1 - alpha) ** (p - 1) / p for p in range(1, max(depth, 1) + 1))
        return got / (n_int * norm)
    if metric in ("nrbp", "nnrbp"):
        patience = lambda p: beta ** (p - 1)  # noqa: E731
        got = _weighted(_gains(ranked, intents, alpha), patience)
        if metric == "nrbp":
            return got * (1 - (1 - alpha) * beta) / n_int
        return got / _weighted(_gains(ideal, intents, alpha), patience)
    if metric == "map_ia":
        total = 0.0
        for j in intents:
            hits, ap = 0, 0.0
            for p, row in enumerate(ranked, 1):
                if row[j]:
                    hits += 1
                    if k is None or p <= k:
                        ap += hits / p
            total += ap / sum(bool(row[j]) for row in rel)  # judged, retrieved or not
        return total / n_int
    if not depth:  # nothing retrieved, no cutoff: 0
        return 0.0
    top = ranked[:depth]
    if metric == "precision_ia":
        return sum(bool(row[j]) for row in top for j in intents) / (depth * n_int)
    return len({j for row in top for j in intents if row[j]}) / n_int


def _mean_oracle(metric, y, s, g, ret, alpha, beta, k):
    values = []
    for q in dict.fromkeys(g):
        rows = [i for i in range(len(g)) if g[i] == q]
        v = _oracle(
            metric,
            [list(y[i]) for i in rows],
            [s[i] for i in rows],
            [ret[i] for i in rows],
            alpha,
            beta,
            k,
        )
        if v is not None:
            values.append(v)
    return float(np.mean(values))


def _case(rng):
    n_groups = int(rng.integers(1, 5))
    g = np.repeat(np.arange(n_groups), rng.integers(1, 9, size=n_groups))
    rng.shuffle(g)
    n, m = g.size, int(rng.integers(1, 6))
    y = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < rng.choice([0.3, 0.6]))
    y[0, int(rng.integers(m))] = 1
    s = rng.integers(0, 4, size=n).astype(float)
    ret = rng.random(n) < 0.6
    ret[0] = True
    return y, s, g, ret


@pytest.mark.parametrize("seed", range(40))
def test_unretrieved_rows_equal_the_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    y, s, g, ret = _case(rng)
    alpha = float(rng.choice([0.3, 0.5, 0.9]))
    beta = float(rng.choice([0.2, 0.5, 0.8]))
    names = [f"{m}@{k}" if k else m for m in METRICS for k in (None, 1, 3, 20)]
    names += list(WHOLE_LIST)
    got = evaluate_intents(
        y, s, groups=g, metrics=names, alpha=alpha, beta=beta, retrieved=ret
    )
    for name in names:
        metric, _, cut = name.partition("@")
        k = int(cut) if cut else None
        want = _mean_oracle(metric, y, s, g, ret, alpha, beta, k)
        assert got[name] == pytest.approx(want, abs=1e-12, rel=1e-12), name


def test_all_retrieved_is_bit_identical_to_no_mask():
    rng = np.random.default_rng(5)
    y, s, g, _ = _case(rng)
    names = [f"{m}@5" for m in METRICS] + list(WHOLE_LIST)
    plain = evaluate_intents(y, s, groups=g, metrics=names)
    masked = evaluate_intents(
        y, s, groups=g, metrics=names, retrieved=np.ones(len(g), bool)
    )
    assert plain == masked


def test_unretrieved_rows_count_in_the_denominators():
    # One query, intents A and B; d3 (B) judged, not retrieved.
    y = [[1, 0], [0, 0], [0, 1]]
    s, g, ret = [2.0, 1.0, 0.0], [0, 0, 0], [True, True, False]
    got = evaluate_intents(
        y,
        s,
        groups=g,
        retrieved=ret,
        metrics=["subtopic_recall@2", "map_ia", "alpha_ndcg@2"],
    )
    assert got["subtopic_recall@2"] == 0.5  # B is an intent of the query
    assert got["map_ia"] == 0.5  # A: AP 1, B: AP 0 over 1 judged row
    assert got["alpha_ndcg@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_ranked_rows_first_or_last():
    # Retrieved rows first: the context keeps them as a slice; last: an index.
    rng = np.random.default_rng(11)
    y, s, g, ret = _case(rng)
    names = [f"{m}@3" for m in METRICS] + list(WHOLE_LIST)
    for rows in (np.argsort(~ret, kind="stable"), np.argsort(ret, kind="stable")):
        y_, s_, g_, r_ = y[rows], s[rows], g[rows], ret[rows]
        got = evaluate_intents(y_, s_, groups=g_, retrieved=r_, metrics=names)
        for name in names:
            metric, _, cut = name.partition("@")
            k = int(cut) if cut else None
            want = _mean_oracle(metric, y_, s_, g_, r_, 0.5, 0.5, k)
            assert got[name] == pytest.approx(want, abs=1e-12), name
