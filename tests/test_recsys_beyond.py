"""aplt, intra_list_diversity, personalization and serendipity of
beyond_accuracy against brute-force loops of their written definitions."""

from itertools import combinations
from math import sqrt

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rank.recsys import beyond_accuracy, evaluate_recommendations, top_k


def _brute(lists, n_items, train, test, feats, head_share):
    dense = train.toarray() > 0
    pop = [int(dense[:, i].sum()) for i in range(n_items)]
    total = sum(pop)
    by_pop = sorted(range(n_items), key=lambda i: (-pop[i], i))
    head, cum = set(), 0
    for i in by_pop:  # most popular until their share reaches head_share
        head.add(i)
        cum += pop[i]
        if cum / total >= head_share - 1e-12:
            break
    rows = [[i for i in row if i >= 0] for row in lists]
    k = len(lists[0])
    aplt = np.mean([sum(i not in head for i in r) / len(r) for r in rows])

    def cos_dist(a, b):
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        return 1 - dot / (sqrt(sum(x * x for x in a)) * sqrt(sum(y * y for y in b)))

    ild = np.mean(
        [
            np.mean([cos_dist(feats[a], feats[b]) for a, b in combinations(r, 2)])
            for r in rows
            if len(r) > 1
        ]
    )
    pers = 1 - np.mean([len(set(a) & set(b)) / k for a, b in combinations(rows, 2)])
    baseline = set(by_pop[:k])
    test_d = test.toarray() > 0
    ser = np.mean(
        [
            sum(test_d[u, i] and i not in baseline for i in r) / k
            for u, r in enumerate(rows)
        ]
    )
    return {
        "aplt": aplt,
        "intra_list_diversity": ild,
        "personalization": pers,
        "serendipity": ser,
    }


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("head_share", [0.2, 0.5])
def test_new_beyond_metrics_match_brute_force(seed, head_share):
    rng = np.random.default_rng(seed)
    n_users, n_items = 14, 25
    train = sp.csr_matrix((rng.random((n_users, n_items)) < 0.4).astype(float))
    test = sp.csr_matrix((rng.random((n_users, n_items)) < 0.3).astype(float))
    feats = rng.normal(size=(n_items, 4))
    lists = top_k(rng.random((n_users, n_items)), 6)
    lists[3, 4:] = -1  # padding ignored
    lists[5, 1:] = -1  # a one-item list has no pair: left out of the ILD mean
    want = _brute(lists, n_items, train, test, feats, head_share)
    got = beyond_accuracy(
        lists,
        n_items=n_items,
        metrics=list(want),
        train=train,
        test=test,
        item_features=feats,
        head_share=head_share,
    )
    for name, value in want.items():
        assert abs(got[name] - value) <= 1e-12, name


def test_known_values():
    lists = np.array([[0, 1], [0, 2]])
    feats = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    got = beyond_accuracy(
        lists,
        n_items=3,
        metrics=["personalization", "intra_list_diversity"],
        item_features=feats,
    )
    assert got["personalization"] == pytest.approx(0.5)  # overlap 1 of k=2
    assert got["intra_list_diversity"] == pytest.approx((1 + (1 - sqrt(0.5))) / 2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metrics": "intra_list_diversity"}, "'item_features'"),
        (
            {"metrics": "intra_list_diversity", "item_features": np.ones((4, 2))},
            "'item_features'.*3 rows",
        ),
        (
            {"metrics": "intra_list_diversity", "item_features": np.zeros((3, 2))},
            "'item_features'.*zero",
        ),
        ({"metrics": "serendipity", "train": sp.csr_matrix(np.ones((2, 3)))}, "'test'"),
        ({"metrics": "aplt"}, "'train'"),
        ({"metrics": "gini", "n_items": 0}, "'n_items'.*>= 1"),
        ({"metrics": "gini", "n_items": 3.0}, "'n_items'"),
        ({"metrics": "aplt", "head_share": 0.0}, "'head_share'"),
        ({"metrics": "aplt", "head_share": 1.5}, "'head_share'"),
        (
            {"metrics": "serendipity", "test": sp.csr_matrix((2, 4))},
            r"'test'.*shape \(2, 3\)",
        ),
        ({"metrics": "serendipity", "test": np.ones((2, 3))}, "'test'.*sparse"),
        (
            {
                "metrics": "intra_list_diversity",
                "item_features": np.ones((3, 2)),
                "distance": "euclid",
            },
            "'distance'",
        ),
        (
            {
                "metrics": "intra_list_diversity",
                "item_features": np.ones((3, 2)),
                "distance": lambda a, b: np.zeros(7),
            },
            "'distance'.*one distance per row pair",
        ),
        (
            {
                "metrics": "intra_list_diversity",
                "item_features": np.full((3, 2), np.nan),
            },
            "'item_features'.*non-finite",
        ),
    ],
)
def test_bad_input(kwargs, match):
    kwargs = {"n_items": 3, **kwargs}
    with pytest.raises(ValueError, match=match):
        beyond_accuracy(np.array([[0, 1], [0, 2]]), **kwargs)


@pytest.mark.parametrize("metric", ["novelty", "arp", "aplt"])
def test_an_empty_list_is_refused_by_per_list_means(metric):
    train = sp.csr_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"'lists'.*empty list .* user 1"):
        beyond_accuracy(
            np.array([[0, 1], [-1, -1]]), n_items=3, metrics=metric, train=train
        )
    # coverage-like metrics count items, an empty list adds none
    got = beyond_accuracy(
        np.array([[0, 1], [-1, -1]]), n_items=3, metrics="catalog_coverage"
    )
    assert got["catalog_coverage"] == pytest.approx(2 / 3)


def test_a_repeated_item_in_a_list_is_refused():
    with pytest.raises(ValueError, match=r"'lists'.*repeated item .* user 1"):
        beyond_accuracy(np.array([[0, 1, -1], [2, 0, 2]]), n_items=3, metrics="gini")
    # the -1 padding may repeat
    beyond_accuracy(np.array([[0, -1, -1], [2, 0, 1]]), n_items=3, metrics="gini")


@pytest.mark.parametrize("pairs_per_block", [None, 7])
def test_intra_list_diversity_distances_match_brute_force(pairs_per_block, monkeypatch):
    if pairs_per_block:  # several blocks of users
        monkeypatch.setattr(
            "sklearn_rank.recsys._beyond._PAIRS_PER_BLOCK", pairs_per_block
        )
    rng = np.random.default_rng(3)
    feats = rng.integers(0, 2, size=(12, 5)) + 0.0
    feats[feats.sum(axis=1) == 0, 0] = 1
    feats[:, 3] = rng.choice([-1.5, 0.25, 2.0, 7.0], 12)  # not only 0 / 1
    lists = top_k(rng.random((9, 12)), 4)
    lists[2, 2:] = -1
    lists[4, 1:] = -1  # no pair: left out

    def mean_pairs(dist):
        return np.mean(
            [
                np.mean([dist(feats[a], feats[b]) for a, b in combinations(r, 2)])
                for r in ([i for i in row if i >= 0] for row in lists)
                if len(r) > 1
            ]
        )

    euclid = lambda a, b: np.sqrt(((a - b) ** 2).sum(axis=-1))  # noqa: E731
    cases = {
        "hamming": lambda a, b: float(np.sum(a != b)),
        euclid: euclid,
        "cosine": lambda a, b: 1 - a @ b / np.sqrt((a @ a) * (b @ b)),
    }
    for distance, brute in cases.items():
        got = beyond_accuracy(
            lists,
            n_items=12,
            metrics="intra_list_diversity",
            item_features=feats,
            distance=distance,
        )["intra_list_diversity"]
        assert abs(got - mean_pairs(brute)) <= 1e-12, distance


def test_intra_list_diversity_of_one_item_lists_is_refused():
    with pytest.raises(ValueError, match=r"'lists'.*at least 2 items"):
        beyond_accuracy(
            np.array([[0], [1]]),
            n_items=3,
            metrics="intra_list_diversity",
            item_features=np.eye(3),
        )


def test_evaluate_recommendations_takes_the_beyond_accuracy_names():
    rng = np.random.default_rng(7)
    n_users, n_items, k = 11, 30, 5
    scores = rng.random((n_users, n_items))
    seen = rng.random((n_users, n_items)) < 0.2
    seen[np.arange(n_items) % n_users, np.arange(n_items)] = True  # no cold item
    train = sp.csr_matrix(seen.astype(float))
    test = sp.csr_matrix((rng.random((n_users, n_items)) < 0.2).astype(float))
    feats = rng.normal(size=(n_items, 3))
    beyond = ["catalog_coverage", "gini", "entropy", "novelty", "arp", "aplt"]
    beyond += ["intra_list_diversity", "personalization", "serendipity"]
    names = ["ndcg", *beyond, "gini@3", "recall@k"]
    got = evaluate_recommendations(
        scores, test, exclude=train, k=k, metrics=names, item_features=feats
    )
    assert list(got) == ["ndcg@5", *(f"{n}@5" for n in beyond), "gini@3", "recall@5"]
    lists = top_k(scores, k, exclude=train)
    want = beyond_accuracy(
        lists,
        n_items=n_items,
        metrics=beyond,
        train=train,
        test=test,
        item_features=feats,
    )
    for name in beyond:
        assert got[f"{name}@5"] == want[name]
    gini3 = beyond_accuracy(lists[:, :3], n_items=n_items, metrics="gini")["gini"]
    assert got["gini@3"] == gini3
    ranking = evaluate_recommendations(
        scores, test, exclude=train, k=k, metrics=["ndcg", "recall"]
    )
    assert got["ndcg@5"] == ranking["ndcg@5"]
    # popularity from train= when given, else from exclude
    other = sp.csr_matrix(np.ones((n_users, n_items)))
    flat = evaluate_recommendations(
        scores, test, exclude=train, train=other, k=k, metrics=["arp"]
    )
    assert flat["arp@5"] == n_users
    with pytest.raises(ValueError, match=r"'metrics'.*cutoff in \[1, k=5\]"):
        evaluate_recommendations(scores, test, k=k, metrics=["gini@6"])


@pytest.mark.parametrize("pairs_per_block", [None, 50])
def test_hamming_with_many_values_per_feature(pairs_per_block, monkeypatch):
    # many distinct values per feature: the counts go through np.unique
    if pairs_per_block:
        monkeypatch.setattr(
            "sklearn_rank.recsys._beyond._PAIRS_PER_BLOCK", pairs_per_block
        )
    rng = np.random.default_rng(5)
    feats = rng.normal(size=(300, 3)).round(1)
    lists = top_k(rng.random((20, 300)), 5)
    lists[0, 3:] = -1
    brute = np.mean(
        [
            np.mean([np.sum(feats[a] != feats[b]) for a, b in combinations(r, 2)])
            for r in ([i for i in row if i >= 0] for row in lists)
        ]
    )
    got = beyond_accuracy(
        lists,
        n_items=300,
        metrics="intra_list_diversity",
        item_features=feats,
        distance="hamming",
    )["intra_list_diversity"]
    assert abs(got - brute) <= 1e-12
