"""sklearn_rank.recsys against RecBole and RecTools.

Two kinds of cases:

* ``tests/data/recsys_peers_{recbole,rectools}.json``: one shared fixture and
  the peer's value of each metric at k = 1..4, recorded by
  ``benchmarks/compare_recsys_peers.py`` in the peer's own virtual environment
  (the JSON holds the peer's version and the command). Values are checked to
  1e-12 where the definitions agree, and the stated relation where they do not
  (docs/recsys.md, "Where the libraries disagree").
* The peers' own test fixtures with their expected numbers, copied from
  RUCAIBox/RecBole ``tests/metrics/test_topk_metrics.py`` (MIT licence,
  Copyright (c) 2020 RUCAIBox) and MobileTeleSystems/RecTools
  ``tests/metrics/test_{ranking,catalog,popularity,novelty,diversity}.py``
  (Apache-2.0, Copyright 2022 MTS). Only the inputs and expected numbers are
  copied; the peers' position-based inputs become score matrices here.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rank.recsys import beyond_accuracy, evaluate_recommendations, top_k

DATA = Path(__file__).parent / "data"
TOL = 1e-12


def _matrix(pairs, shape):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return sp.csr_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=shape)


def _load(peer):
    record = json.loads((DATA / f"recsys_peers_{peer}.json").read_text())
    fx = record["fixture"]
    shape = (fx["n_users"], fx["n_items"])
    return (
        record,
        np.array(fx["scores"]),
        _matrix(fx["train"], shape),
        _matrix(fx["test"], shape),
        np.array(fx["item_features"], dtype=float),
        np.array(fx["lists"]),
    )


# peer name -> (our metric, our options); the definitions agree
RECBOLE = {
    "hit": ("hit_rate", {}),
    "mrr": ("mrr", {}),
    "precision": ("precision", {}),
    "ndcg": ("ndcg", {}),
    "map": ("map", {"ap_denominator": "min_k_n_relevant"}),
    "recall": ("recall", {}),
    "averagepopularity": ("arp", {}),
    "itemcoverage": ("catalog_coverage", {}),
    "giniindex": ("gini", {}),
}
RECTOOLS = {
    "Precision": ("precision", {}),
    "Recall": ("recall", {}),
    "HitRate": ("hit_rate", {}),
    "MAP": ("map", {}),
    "NDCG(divide_by_achievable=True)": ("ndcg", {}),
    "MRR": ("mrr", {}),
    "CatalogCoverage(normalize=True)": ("catalog_coverage", {}),
    "AvgRecPopularity": ("arp", {}),
    "MeanInvUserFreq": ("novelty", {}),
    "IntraListDiversity(cosine)": ("intra_list_diversity", {}),
    "IntraListDiversity(hamming)": ("intra_list_diversity", {"distance": "hamming"}),
}


def _ours(peer, name, k):
    _, scores, train, test, feats, _ = _load(peer)
    metric, options = {**RECBOLE, **RECTOOLS}[name]
    return evaluate_recommendations(
        scores,
        test,
        exclude=train,
        k=k,
        metrics=[metric],
        item_features=feats,
        **options,
    )[f"{metric}@{k}"]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "peer, name",
    [("recbole", n) for n in RECBOLE] + [("rectools", n) for n in RECTOOLS],
)
def test_shared_fixture_agrees_with_the_peer(peer, name, k):
    record = _load(peer)[0]
    if name.startswith("IntraListDiversity") and k == 1:
        # RecTools scores a one-item list 0; here it is undefined (refused)
        assert record["values"][name][0] == 0
        return
    assert _ours(peer, name, k) == pytest.approx(record["values"][name][k - 1], abs=TOL)


def test_the_fixture_lists_are_our_top_k():
    for peer in ("recbole", "rectools"):
        _, scores, train, _, _, lists = _load(peer)
        got = top_k(scores, lists.shape[1], exclude=train)
        np.testing.assert_array_equal(got, lists)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_shared_fixture_where_definitions_differ(k):
    """The relations written in docs/recsys.md's table of disagreements."""
    rb, scores, train, test, _, lists = _load("recbole")
    rt = _load("rectools")[0]
    n_items = scores.shape[1]
    top = lists[:, :k]
    ours = beyond_accuracy(top, n_items=n_items, metrics=["entropy"], train=train)
    # RecBole's ShannonEntropy divides the entropy by the number of distinct items
    distinct = np.unique(top).size
    assert rb["values"]["shannonentropy"][k - 1] == pytest.approx(
        ours["entropy"] / distinct, abs=TOL
    )
    # RecTools' normalised ARP divides by the number of training interactions
    arp = beyond_accuracy(top, n_items=n_items, metrics=["arp"], train=train)["arp"]
    assert rt["values"]["AvgRecPopularity(normalize=True)"][k - 1] == pytest.approx(
        arp / train.nnz, abs=TOL
    )
    # RecTools' default NDCG divides the mean DCG by the DCG of k relevant items
    dcg = evaluate_recommendations(scores, test, exclude=train, k=k, metrics=["dcg"])
    ideal = np.sum(1 / np.log2(np.arange(2, k + 2)))
    expected = dcg[f"dcg@{k}"] / ideal
    assert rt["values"]["NDCG"][k - 1] == pytest.approx(expected, abs=TOL)


def _from_positions(rows, n_real, k, relevant):
    """Score matrix and held-out matrix for lists given by position: ``rows``
    maps a user to ``{rank: item}``; a rank without an item (or a user without
    a list) gets a filler item outside the user's held-out set, so every user's
    top-k is exactly the peer's list at those ranks."""
    users = sorted(set(rows) | {u for u, _ in relevant})
    index = {u: j for j, u in enumerate(users)}
    n_items = n_real + k
    scores = np.full((len(users), n_items), -np.inf)
    for u in users:
        for rank in range(1, k + 1):
            scores[index[u], n_real + rank - 1] = -rank  # filler
        for rank, item in rows.get(u, {}).items():
            scores[index[u], item] = -rank
            if rank <= k:
                scores[index[u], n_real + rank - 1] = -np.inf
    pairs = sorted({(index[u], i) for u, i in relevant})
    return scores, _matrix(pairs, (len(users), n_items))


def _rows(users, items, ranks):
    rows = {}
    for u, i, r in zip(users, items, ranks, strict=True):
        rows.setdefault(u, {})[r] = i
    return rows


# RecBole tests/metrics/test_topk_metrics.py: pos_idx, pos_len and the expected
# per-user matrices (columns k = 1, 2, 3)
RB_POS_IDX = [[0, 0, 0], [1, 1, 1], [1, 0, 1], [0, 0, 1]]
RB_POS_LEN = [1, 3, 4, 2]
_L = np.log2
RB_EXPECTED = {
    ("hit_rate", "positive"): [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 1]],
    ("ndcg", "positive"): [
        [0, 0, 0],
        [1, 1, 1],
        [
            1,
            1 / _L(2) / (1 / _L(2) + 1 / _L(3)),
            (1 / _L(2) + 1 / _L(4)) / (1 / _L(2) + 1 / _L(3) + 1 / _L(4)),
        ],
        [0, 0, 1 / _L(4) / (1 / _L(2) + 1 / _L(3))],
    ],
    ("mrr", "positive"): [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 1 / 3]],
    ("map", "min_k_n_relevant"): [
        [0, 0, 0],
        [1, 1, 1],
        [1, 1 / 2, (1 / 3) * (1 + 2 / 3)],
        [0, 0, (1 / 3) * (1 / 2)],
    ],
    ("recall", "positive"): [
        [0, 0, 0],
        [1 / 3, 2 / 3, 1],
        [1 / 4, 1 / 4, 2 / 4],
        [0, 0, 1 / 2],
    ],
    ("precision", "positive"): [[0, 0, 0], [1, 1, 1], [1, 1 / 2, 2 / 3], [0, 0, 1 / 3]],
}


@pytest.mark.parametrize("metric, ap", list(RB_EXPECTED))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_recbole_topk_fixture(metric, ap, k):
    rows, relevant = {}, []
    for u, (hits, n_rel) in enumerate(zip(RB_POS_IDX, RB_POS_LEN, strict=True)):
        rows[u] = {r + 1: 10 * u + r for r in range(3)}
        relevant += [(u, 10 * u + r) for r in range(3) if hits[r]]
        extra = n_rel - sum(hits)
        rows[u].update({9 + j: 10 * u + 3 + j for j in range(extra)})  # below k
        relevant += [(u, 10 * u + 3 + j) for j in range(extra)]
    scores, test = _from_positions(rows, 40, k, relevant)
    options = {} if ap == "positive" else {"ap_denominator": ap}
    got = evaluate_recommendations(scores, test, k=k, metrics=[metric], **options)
    expected = np.mean(np.array(RB_EXPECTED[metric, ap], dtype=float)[:, k - 1])
    assert got[f"{metric}@{k}"] == pytest.approx(expected, abs=TOL)


RB_ITEMS = np.array([[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]])
RB_COUNT = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}


def test_recbole_beyond_accuracy_fixture():
    train = _matrix(
        [(u, i) for i, c in RB_COUNT.items() for u in range(c)], (5, 8)
    )  # item i seen by RB_COUNT[i] users
    got = beyond_accuracy(
        RB_ITEMS,
        n_items=8,
        metrics=["catalog_coverage", "gini", "entropy", "arp"],
        train=train,
    )
    assert got["catalog_coverage"] == pytest.approx(7 / 8, abs=TOL)
    gini = (-5 * 1 - 3 * 1 - 1 * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (8 * 15)
    assert got["gini"] == pytest.approx(gini, abs=TOL)
    counts = [1, 2, 3, 2, 4, 1, 2]
    recbole_entropy = -np.mean([c / 15 * np.log(c / 15) for c in counts])
    assert got["entropy"] / len(counts) == pytest.approx(recbole_entropy, abs=TOL)
    # RecBole's AveragePopularity matrix, column k = 3
    assert got["arp"] == pytest.approx(np.mean([6 / 3, 8 / 3, 7 / 3, 8 / 3, 6 / 3]))
    for k, column in ((1, [4, 3, 1, 0, 4]), (2, [4 / 2, 7 / 2, 3 / 2, 3 / 2, 6 / 2])):
        arp = beyond_accuracy(RB_ITEMS[:, :k], n_items=8, metrics="arp", train=train)
        assert arp["arp"] == pytest.approx(np.mean(column), abs=TOL)


# RecTools tests/metrics/test_ranking.py
RT_MAP_RECO = (
    [1, 1, 2, 3, 3, 3, 3, 3, 4, 5, 5, 5, 7, 8, 9],
    [1, 3, 1, 1, 2, 3, 4, 5, 1, 1, 2, 3, 1, 2, 1],
    [9, 1, 3, 1, 3, 5, 7, 9, 1, 1, 2, 3, 2, 1, 1],
)
RT_MAP_TEST = list(
    zip(
        [1, 1, 2, 3, 3, 3, 3, 3, 3, 4, 5, 5, 5, 6, 7, 8],
        [1, 2, 1, 1, 2, 3, 4, 5, 6, 1, 1, 2, 3, 1, 1, 1],
        strict=True,
    )
)
RT_NDCG_RECO = (
    [1, 2, 3, 3, 3, 4, 5, 5, 5, 5, 6],
    [1, 2, 1, 2, 3, 1, 1, 2, 3, 5, 1],
    [9, 1, 1, 2, 3, 1, 3, 7, 9, 1, 1],
)
RT_NDCG_TEST = list(zip([1, 2, 3, 3, 3, 4, 5], [1, 1, 1, 2, 3, 1, 1], strict=True))
RT_MRR_RECO = (
    [1, 2, 3, 3, 3, 4, 5, 5, 5, 5],
    [1, 2, 1, 2, 3, 1, 1, 2, 3, 5],
    [9, 1, 1, 2, 3, 1, 3, 7, 9, 1],
)
RT_MRR_TEST = list(
    zip([1, 2, 3, 3, 3, 4, 5, 5, 5, 5], [1, 1, 1, 2, 3, 1, 1, 2, 3, 4], strict=True)
)


@pytest.mark.parametrize(
    "metric, k, reco, test, expected",
    [
        ("map", 1, RT_MAP_RECO, RT_MAP_TEST, [0, 0, 1 / 6, 1, 1 / 3, 0, 0, 0]),
        (
            "map",
            3,
            RT_MAP_RECO,
            RT_MAP_TEST,
            [0, 1 / 3, 1 / 6 * (1 + 2 / 3), 1, 1, 0, 1 / 2, 0],
        ),
        ("ndcg", 1, RT_NDCG_RECO, RT_NDCG_TEST, [0, 0, 1, 1, 0]),
        # RecTools NDCG(divide_by_achievable=True); the default divides by k
        ("ndcg", 3, RT_NDCG_RECO, RT_NDCG_TEST, [0, 0, 1, 1, 1 / _L(4)]),
        ("mrr", 1, RT_MRR_RECO, RT_MRR_TEST, [0, 0, 1, 1, 0]),
        ("mrr", 3, RT_MRR_RECO, RT_MRR_TEST, [0, 0, 1, 1, 1 / 3]),
    ],
)
def test_rectools_ranking_fixtures(metric, k, reco, test, expected):
    scores, held = _from_positions(_rows(*reco), 7, k, test)
    got = evaluate_recommendations(scores, held, k=k, metrics=[metric])
    # RecTools averages over the users with held-out items (ours: "skip")
    assert got[f"{metric}@{k}"] == pytest.approx(np.mean(expected), abs=TOL)


def test_rectools_catalog_coverage_fixture():
    # users 1..4, ranks [1, 2, 3], [1, 1], [3], [2]: at k = 2, items {1, 2} of 5
    lists = np.array([[1, 2], [1, 2], [-1, -1], [-1, 1]])
    got = beyond_accuracy(lists, n_items=5, metrics="catalog_coverage@2")
    assert got["catalog_coverage@2"] == pytest.approx(0.4, abs=TOL)


def test_rectools_popularity_fixture():
    train = _matrix([(0, 1), (0, 2), (1, 1), (1, 3), (2, 1), (2, 2)], (3, 5))
    reco = np.array([[1, 2, -1], [3, 1, 2], [3, 2, -1]])
    for k, expected in ((1, [3.0, 1.0, 1.0]), (3, [2.5, 2.0, 1.5])):
        got = beyond_accuracy(reco[:, :k], n_items=5, metrics="arp", train=train)
        assert got["arp"] == pytest.approx(np.mean(expected), abs=TOL)
    new_item = np.array([[1, 2, -1], [3, 1, 4], [3, 2, -1]])  # item 4 never seen
    got = beyond_accuracy(new_item, n_items=5, metrics="arp", train=train)
    assert got["arp"] == pytest.approx(np.mean([2.5, 4 / 3, 1.5]), abs=TOL)


def test_rectools_novelty_fixture():
    # train u1: i1 i2, u2: i1, u3: i1; RecTools' u3 list (i1, i2). Its u1 and u2
    # lists hold the cold item i3, which RecTools scores as one user's and
    # sklearn_rank refuses (an infinite self-information).
    train = _matrix([(0, 1), (0, 2), (1, 1), (2, 1)], (3, 4))
    for k, expected in ((1, 0.0), (2, -np.log2(1 / 3) / 2)):
        lists = np.array([[1, 2]])[:, :k]
        got = beyond_accuracy(lists, n_items=4, metrics="novelty", train=train)
        assert got["novelty"] == pytest.approx(expected, abs=TOL)
    with pytest.raises(ValueError, match="'train'"):
        beyond_accuracy(np.array([[3]]), n_items=4, metrics="novelty", train=train)


def test_rectools_diversity_fixture():
    # Hamming features of i1, i2, i3; RecTools' user u1 lists (i1, i2, i3)
    feats = np.array([[0, 0], [0, 1], [1, 1]])
    for k, expected in ((2, 1.0), (3, 4 / 3)):
        got = beyond_accuracy(
            np.array([[0, 1, 2]])[:, :k],
            n_items=3,
            metrics="intra_list_diversity",
            item_features=feats,
            distance="hamming",
        )
        assert got["intra_list_diversity"] == pytest.approx(expected, abs=TOL)
