"""The intent-aware metrics with ``ties="average"`` (issue 45): the exact
expectation over uniformly random orders of the rows within each tie block,
checked against an oracle that enumerates every order of every tie block and
averages a brute force written from the definitions of docs/diversity.md."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_intent_metrics import _greedy_ideal  # ndeval's, over every judged row

import sklearn_rank
from sklearn_rank import evaluate, evaluate_intents, make_ranking_scorer
from sklearn_rank._engine.kernels.intent import INTENT_KERNELS, WEIGHTED, WHOLE_LIST
from sklearn_rank._utils.params import InvalidParameterError

# -- the brute force: one query, one order of its ranked rows -----------------


def _gains(ranked, intents, alpha):
    """The novelty gain at each position: sum_i J(d, i) (1 - alpha)^{seen_i}."""
    seen = dict.fromkeys(intents, 0)
    out = []
    for row in ranked:
        out.append(sum((1 - alpha) ** seen[j] for j in intents if row[j]))
        for j in intents:
            seen[j] += bool(row[j])
    return out


def _sum(gains, weight, cut):
    return sum(g * weight(p) for p, g in enumerate(gains[:cut], 1))


def _log_disc(p):
    return 1 / math.log2(1 + p)


def _values(rel, order, share, alpha, beta, cutoffs):
    """Every metric of the table at every cutoff for the ranked rows ``order``
    (indices into ``rel``, every judged row of the query); ``share`` maps each
    of the query's intents to P(i|q). Keys ``(metric, k)``."""
    intents = list(share)
    ranked = [rel[i] for i in order]
    n, n_all = len(ranked), len(rel)
    gains = _gains(ranked, intents, alpha)
    ideal = _gains(_greedy_ideal(rel, intents, alpha), intents, alpha)
    out = {}
    for k in cutoffs:
        depth = n if k is None else k  # the list's length, or k (padded)
        cut = n_all if k is None else k  # the greedy ideal's candidates: all rows
        x = 1 - alpha
        every = sum(x ** (p - 1) * _log_disc(p) for p in range(1, depth + 1))
        out["alpha_dcg", k] = _sum(gains, _log_disc, depth) / (len(intents) * every)
        out["alpha_ndcg", k] = _sum(gains, _log_disc, cut) / _sum(ideal, _log_disc, cut)
        out["nerr_ia", k] = _sum(gains, lambda p: 1 / p, cut) / _sum(
            ideal, lambda p: 1 / p, cut
        )
        one_err = sum(x ** (p - 1) / p for p in range(1, depth + 1))
        err = map_ = prec = 0.0
        covered = 0
        for i, weight in share.items():
            hits = [bool(row[i]) for row in ranked]
            seen, err_i, ap = 0, 0.0, 0.0
            for p, h in enumerate(hits, 1):
                if h and p <= depth:
                    err_i += x**seen / p
                    ap += (seen + 1) / p
                seen += h
            err += weight * err_i / one_err
            map_ += weight * ap / sum(bool(row[i]) for row in rel)
            prec += weight * sum(hits[:depth]) / depth if depth else 0.0
            covered += any(hits[:depth])
        out["err_ia", k] = err
        out["map_ia", k] = map_
        out["precision_ia", k] = prec
        out["subtopic_recall", k] = covered / len(intents)
    rbp = _sum(gains, lambda p: beta ** (p - 1), n)
    out["nrbp", None] = (1 - x * beta) / len(intents) * rbp
    out["nnrbp", None] = rbp / _sum(ideal, lambda p: beta ** (p - 1), n_all)
    return out


def _expected(rel, score, ret, weight, alpha, beta, cutoffs):
    """Per (metric, k), the mean over every order of every tie block of the
    query's ranked rows (None: no relevant pair, undefined)."""
    intents = [j for j in range(len(rel[0])) if any(row[j] for row in rel)]
    if not intents:
        return None
    w = [1.0 if weight is None else weight[j] for j in intents]
    share = {j: wj / sum(w) for j, wj in zip(intents, w, strict=True)}
    ranked = sorted((i for i in range(len(rel)) if ret[i]), key=lambda i: -score[i])
    blocks = [list(b) for _, b in itertools.groupby(ranked, key=lambda i: score[i])]
    total, n = {}, 0
    for orders in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [i for block in orders for i in block]
        for key, v in _values(rel, order, share, alpha, beta, cutoffs).items():
            total[key] = total.get(key, 0.0) + v
        n += 1
    return {key: v / n for key, v in total.items()}


def _oracle_means(y, s, g, ret, sw, iw, alpha, beta, cutoffs):
    per_key, weights = {}, []
    for q in dict.fromkeys(g.tolist()):
        rows = np.flatnonzero(g == q)
        got = _expected(
            [list(y[i]) for i in rows],
            [s[i] for i in rows],
            [ret[i] for i in rows],
            None if iw is None else iw[rows[0]],
            alpha,
            beta,
            cutoffs,
        )
        if got is None:
            continue
        weights.append(np.mean(sw[rows]))
        for key, v in got.items():
            per_key.setdefault(key, []).append(v)
    return {key: float(np.average(v, weights=weights)) for key, v in per_key.items()}


def _case(rng):
    """A few queries of up to 7 rows, tie blocks of at most 4 ranked rows
    (at most 48 orders per query), 1-4 intents, some rows not retrieved."""
    n_groups = int(rng.integers(1, 4))
    g = np.repeat(np.arange(n_groups), rng.integers(1, 8, size=n_groups))
    rng.shuffle(g)
    n, m = g.size, int(rng.integers(1, 5))
    y = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < rng.choice([0.3, 0.6]))
    y[0, int(rng.integers(m))] = 1
    ret = rng.random(n) < rng.choice([0.7, 1.0])
    for q in range(n_groups):  # a retrieved row in every query
        ret[np.flatnonzero(g == q)[0]] = True
    while True:  # every query's blocks of at most 4 rows, 48 orders at most
        s = rng.integers(0, 3, size=n).astype(float)
        orders = []
        for q in range(n_groups):
            _, sizes = np.unique(s[(g == q) & ret], return_counts=True)
            orders.append(math.prod(math.factorial(b) for b in sizes))
        if max(orders) <= 48:
            break
    sw = rng.uniform(0.5, 2.0, size=n)
    iw = rng.choice([0.0, 0.5, 1.0, 3.0], size=(n_groups, m))
    for q in range(n_groups):  # some weight on an intent of the query
        relevant = np.flatnonzero((y[g == q] > 0).any(axis=0))
        if relevant.size:
            iw[q, rng.choice(relevant)] = 1.0
    iw = iw[g]
    return y, s, g, ret, sw, iw


CUTOFFS = (None, 1, 3, 20)


def _names(metrics):
    return [
        m if m in WHOLE_LIST or k is None else f"{m}@{k}"
        for m in metrics
        for k in ((None,) if m in WHOLE_LIST else CUTOFFS)
    ]


def _key(name):
    metric, _, cut = name.partition("@")
    return metric, int(cut) if cut else None


@pytest.mark.parametrize("seed", range(40))
def test_average_equals_the_mean_over_every_order_of_the_ties(seed):
    rng = np.random.default_rng(4500 + seed)
    y, s, g, ret, sw, iw = _case(rng)
    alpha = float(rng.choice([0.0, 0.3, 0.5, 0.9]))
    beta = float(rng.choice([0.2, 0.5, 0.95]))
    # Driven by the table: a new intent metric without an oracle fails here.
    names = _names(INTENT_KERNELS)
    common = dict(groups=g, alpha=alpha, beta=beta, ties="average", retrieved=ret)
    got = evaluate_intents(y, s, metrics=names, sample_weight=sw, **common)
    want = _oracle_means(y, s, g, ret, sw, None, alpha, beta, CUTOFFS)
    for name in names:
        assert got[name] == pytest.approx(want[_key(name)], abs=1e-12), name
    # Intent weights P(i|q), for the metrics defined over them.
    names = _names(sorted(WEIGHTED))
    got = evaluate_intents(y, s, metrics=names, intent_weight=iw, **common)
    want = _oracle_means(y, s, g, ret, np.ones(len(g)), iw, alpha, beta, CUTOFFS)
    for name in names:
        assert got[name] == pytest.approx(want[_key(name)], abs=1e-12), name


def test_every_metric_of_the_table_has_an_oracle():
    from sklearn_rank._metrics.registry import METRICS

    in_table = {name for name, spec in METRICS.items() if spec.intents}
    assert in_table == set(INTENT_KERNELS)
    rel = [[1, 0], [0, 1]]
    keys = {m for m, _ in _values(rel, [0, 1], {0: 0.5, 1: 0.5}, 0.5, 0.5, [None])}
    assert keys == set(INTENT_KERNELS)


def test_a_hand_worked_block():
    # One query: d1 (A) alone first, then d2 (A), d3 (B), d4 (none) tied.
    y = [[1, 0], [1, 0], [0, 1], [0, 0]]
    s = [2.0, 1.0, 1.0, 1.0]
    g = [0] * 4
    got = evaluate_intents(
        y,
        s,
        groups=g,
        ties="average",
        metrics=["subtopic_recall@2", "precision_ia@2", "map_ia", "alpha_dcg@2"],
    )
    # Rank 2 is d2, d3 or d4 with probability 1/3 each: B covered at 2 in 1/3.
    assert got["subtopic_recall@2"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-15)
    # Pairs in the top 2: 1 + 2/3 (d2 or d3 at rank 2), over 2 x 2.
    assert got["precision_ia@2"] == pytest.approx((1 + 2 / 3) / 4, abs=1e-15)
    # AP of A: (1 + E[2 / rank(d2)]) / 2, E[1/rank] = (1/2 + 1/3 + 1/4) / 3;
    # AP of B: E[1 / rank(d3)]; MAP-IA the mean of the two.
    inv = (1 / 2 + 1 / 3 + 1 / 4) / 3
    assert got["map_ia"] == pytest.approx(((1 + 2 * inv) / 2 + inv) / 2, abs=1e-15)
    # alpha-DCG@2: 1 at rank 1, then d2 (0.5) or d3 (1) at rank 2 in 1/3 each,
    # over 2 intents x (1 + 0.5 / log2 3).
    dcg = 1 + (0.5 + 1) / 3 / math.log2(3)
    assert got["alpha_dcg@2"] == pytest.approx(dcg / (2 * (1 + 0.5 / math.log2(3))))


def test_no_ties_equal_stable_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 400
    g = np.repeat(np.arange(40), 10)
    y = (rng.random((n, 5)) < 0.3).astype(int)
    s = rng.permutation(n).astype(float)  # distinct scores
    names = _names(INTENT_KERNELS)
    ret = rng.random(n) < 0.8
    for kw in ({}, {"retrieved": ret}):
        avg = evaluate_intents(y, s, groups=g, metrics=names, ties="average", **kw)
        assert avg == evaluate_intents(
            y, s, groups=g, metrics=names, ties="stable", **kw
        )


def test_the_default_still_reads_stable_and_threshold_raises():
    y, s, g = [[1, 1], [1, 0], [0, 0]], [0.2, 0.2, 0.1], [0, 0, 0]
    names = ["alpha_ndcg@1", "subtopic_recall@1"]
    stable = evaluate_intents(y, s, groups=g, metrics=names, ties="stable")
    assert evaluate_intents(y, s, groups=g, metrics=names) == stable
    assert (
        evaluate(y, s, groups=g, metrics=[*names, "ndcg@1"])["alpha_ndcg@1"]
        == (stable["alpha_ndcg@1"])
    )
    avg = evaluate_intents(y, s, groups=g, metrics=names, ties="average")
    assert stable["subtopic_recall@1"] == 1.0
    assert avg["subtopic_recall@1"] == 0.75  # (1 + 1/2) / 2: either row first
    for call in (
        lambda: sklearn_rank.alpha_ndcg_score(y, s, groups=g, ties="threshold"),
        lambda: evaluate(
            y, s, groups=g, metrics=["alpha_ndcg", "ndcg"], ties="threshold"
        ),
    ):
        with pytest.raises(InvalidParameterError, match="'ties' parameter of"):
            call()


def test_evaluate_mixes_ndcg_and_alpha_ndcg_with_average_ties():
    rng = np.random.default_rng(11)
    g = np.repeat(np.arange(6), 5)
    y = rng.integers(0, 3, size=(30, 3)) * (rng.random((30, 3)) < 0.5)
    s = rng.integers(0, 3, size=30).astype(float)
    got = evaluate(y, s, groups=g, metrics=["ndcg@3", "alpha_ndcg@3"], ties="average")
    assert got["alpha_ndcg@3"] == pytest.approx(
        evaluate_intents(y, s, groups=g, metrics="alpha_ndcg@3", ties="average")[
            "alpha_ndcg@3"
        ],
        abs=1e-15,
    )
    single = sklearn_rank.ndcg_score(y.max(axis=1), s, groups=g, k=3, ties="average")
    assert got["ndcg@3"] == pytest.approx(single, abs=1e-15)
    want = _oracle_means(y, s, g, np.ones(30, bool), np.ones(30), None, 0.5, 0.5, [3])
    assert got["alpha_ndcg@3"] == pytest.approx(want["alpha_ndcg", 3], abs=1e-12)


def test_scorers_take_average_ties():
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(5), 4)
    y = (rng.random((20, 2)) < 0.5).astype(int)
    s = rng.integers(0, 2, size=20).astype(float)

    class Fixed:
        def predict(self, X):
            return np.asarray(X)[:, 0]

    X = s.reshape(-1, 1)
    want = evaluate_intents(y, s, groups=g, metrics=["err_ia@3"], ties="average")
    scorer = make_ranking_scorer("err_ia@3", ties="average")
    assert scorer(Fixed(), X, y, groups=g) == pytest.approx(want["err_ia@3"], abs=1e-15)
    multi = make_ranking_scorer(["err_ia@3", "ndcg@3"], ties="average")
    assert multi(Fixed(), X, y, groups=g)["err_ia@3"] == pytest.approx(
        want["err_ia@3"], abs=1e-15
    )
    named = sklearn_rank.get_scorer("err_ia@3")
    named.set_params(metric_kwargs={"ties": "average"})
    assert named(Fixed(), X, y, groups=g) == scorer(Fixed(), X, y, groups=g)
    stable = evaluate_intents(y, s, groups=g, metrics=["err_ia@3"], ties="stable")
    assert want != stable  # the ties matter here


def test_large_blocks_stay_finite():
    # Blocks of 200 rows, half of them relevant to an intent: binomials far past
    # what a float holds, read through log factorials.
    rng = np.random.default_rng(8)
    g = np.repeat(np.arange(3), 200)
    y = (rng.random((600, 3)) < 0.5).astype(int)
    s = np.zeros(600)
    names = _names(INTENT_KERNELS)
    got = evaluate_intents(y, s, groups=g, metrics=names, ties="average")
    assert all(np.isfinite(v) for v in got.values())
    # Exact values of a block of every row: the mean over rows of each share.
    per_query = y.reshape(3, 200, 3).mean(axis=1)
    want = per_query.sum(axis=1) / (per_query > 0).sum(axis=1)
    assert got["precision_ia"] == pytest.approx(want.mean(), abs=1e-12)
    # Subtopic recall@1: P(the row at rank 1 is relevant to i) = K_i / b.
    assert got["subtopic_recall@1"] == pytest.approx(want.mean(), abs=1e-12)
    assert 0 < got["alpha_ndcg@20"] <= 1 and 0 < got["nnrbp"] <= 1


def test_large_blocks_equal_their_closed_forms_at_rank_two():
    # ERR-IA@2 of one block of b rows: rank 1 gains K_i / b per intent; rank 2
    # gains 1 where it is relevant and rank 1 is not, x = 1 - alpha where both.
    rng = np.random.default_rng(9)
    b, x = 200, 0.7
    y = (rng.random((b, 3)) < [0.5, 0.05, 0.95]).astype(int)
    got = evaluate_intents(
        y,
        np.zeros(b),
        groups=np.zeros(b),
        metrics="err_ia@2",
        ties="average",
        alpha=1 - x,
    )["err_ia@2"]
    kk = y.sum(axis=0)
    gain = kk / b + (kk * (kk - 1) * x + kk * (b - kk)) / (2 * b * (b - 1))
    assert got == pytest.approx(gain.sum() / (3 * (1 + x / 2)), abs=1e-12)


@pytest.mark.parametrize("x", [0.0, 0.5, 0.99])
def test_each_relevant_row_of_a_block_lies_somewhere(x, monkeypatch):
    # sum_j Q(j) = sum_{t < K} x ** t: the t-th relevant row is at some rank,
    # for blocks of up to 400 rows, through every reading of the shapes and in
    # chunks of a few terms.
    from sklearn_rank._engine.kernels import intent_ties

    size = np.array([400, 400, 400, 200, 7, 7, 2])
    count = np.array([1, 200, 400, 37, 3, 7, 1])
    shapes, at = intent_ties._shapes(size, count, size)
    assert np.array_equal(shapes[0][at], size) and np.array_equal(shapes[1][at], count)
    q = intent_ties._q(size, count, size, x)
    first = np.r_[0, np.cumsum(size)[:-1]]
    want = [sum(x**t for t in range(c)) for c in count]
    assert np.add.reduceat(q, first) == pytest.approx(want, rel=1e-12, abs=1e-12)
    monkeypatch.setattr(intent_ties, "_CHUNK", 1000)
    chunked = intent_ties._q(size, count, size, x)
    assert chunked == pytest.approx(q, rel=1e-14, abs=0)
    # The shapes above by a sort of their codes; by rows where the codes
    # would not fit in 62 bits.
    big = np.array([2**21, 5, 5])
    shapes, at = intent_ties._shapes(big, np.array([3, 2, 2]), np.array([9, 4, 4]))
    assert shapes[0][at].tolist() == big.tolist() and at[1] == at[2] != at[0]
