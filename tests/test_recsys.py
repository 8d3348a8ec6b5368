"""sklearn_rank.recsys.top_k against a brute force: exclusion exact, order by
descending score with ties by ascending item index, blocks and inputs agree."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rank.recsys import top_k


def _brute(scores, k, exclude=None):
    out = []
    for u, row in enumerate(scores):
        seen = set() if exclude is None else set(exclude[u].indices)
        cand = [(-row[i], i) for i in range(len(row)) if i not in seen]
        items = [i for _, i in sorted(cand)[:k]]
        out.append(items + [-1] * (k - len(items)))
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block_size", [1, 3, None])
def test_top_k_matches_brute_force_with_ties_and_exclusion(seed, block_size):
    rng = np.random.default_rng(seed)
    n_users, n_items = 11, 17
    scores = rng.integers(0, 4, size=(n_users, n_items)).astype(np.float32)
    dense_ex = rng.random((n_users, n_items)) < 0.3
    exclude = sp.csr_matrix(dense_ex.astype(float))
    for k in (1, 5, 12, n_items):
        want = _brute(scores, k, exclude)
        got = top_k(scores, k, exclude=exclude, block_size=block_size)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(top_k(scores, k), _brute(scores, k))
        sparse = top_k(sp.csr_matrix(scores), k, exclude=exclude)
        np.testing.assert_array_equal(sparse, want)
        calls = []

        def score(users, calls=calls):
            calls.append(len(users))
            return scores[users]

        got = top_k(score, k, exclude=exclude, block_size=4)
        np.testing.assert_array_equal(got, want)
        assert max(calls) <= 4


def test_inputs_are_not_modified_and_duplicates_count_once():
    scores = np.array([[3.0, 2.0, 1.0]])
    before = scores.copy()
    dup = sp.coo_matrix(([1, 1], ([0, 0], [0, 0])), shape=(1, 3))
    np.testing.assert_array_equal(top_k(scores, 2, exclude=dup), [[1, 2]])
    np.testing.assert_array_equal(scores, before)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scores": np.array([[np.nan, 1.0]]), "k": 1}, "'scores'.*NaN"),
        ({"scores": np.ones((2, 3)), "k": 4}, "'k'.*n_items=3"),
        ({"scores": np.ones((2, 3)), "k": 0}, "'k'"),
        (
            {"scores": np.ones((2, 3)), "k": 1, "exclude": sp.csr_matrix((2, 4))},
            "'exclude'.*outside the catalogue",
        ),
        (
            {
                "scores": np.ones((1, 2)),
                "k": 1,
                "exclude": sp.csr_matrix(np.ones((1, 2))),
            },
            "'exclude'.*every item excluded for user 0",
        ),
        ({"scores": np.ones((2, 3)), "k": 1, "exclude": np.ones((2, 3))}, "'exclude'"),
        ({"scores": lambda u: np.ones((len(u), 3)), "k": 1}, "'n_users'"),
    ],
)
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        top_k(**kwargs)


def test_minus_inf_scores_stay_candidates_and_excluded_items_pad_with_minus_one():
    scores = np.array([[-np.inf, 1.0, -np.inf, 2.0]])
    seen = sp.csr_matrix(([1, 1], ([0, 0], [1, 2])), shape=(1, 4))
    got = top_k(scores, 4, exclude=seen)
    np.testing.assert_array_equal(got, [[3, 0, -1, -1]])
    np.testing.assert_array_equal(got, _brute(scores, 4, seen))


@pytest.mark.parametrize("seed", range(4))
def test_many_exclusions_and_boundary_ties(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(9, 40))
    exclude = sp.csr_matrix((rng.random((9, 40)) < 0.6).astype(float))
    for k in (1, 3, 20, 40):
        got = top_k(scores, k, exclude=exclude, block_size=2)
        np.testing.assert_array_equal(got, _brute(scores, k, exclude))


def _brute_accuracy(scores, test, exclude, k):
    """Per-user binary hit_rate / recall / ndcg of the top-k over the catalogue,
    users without held-out items left out (the default undefined rule)."""
    lists = _brute(scores, k, exclude)
    hits, recalls, ndcgs = [], [], []
    for u, items in enumerate(lists):
        rel = set(test[u].indices)
        if not rel:
            continue
        gains = [1.0 if i in rel else 0.0 for i in items if i >= 0]
        dcg = sum(g / np.log2(r + 2) for r, g in enumerate(gains))
        idcg = sum(1 / np.log2(r + 2) for r in range(min(len(rel), k)))
        hits.append(float(any(gains)))
        recalls.append(sum(gains) / len(rel))
        ndcgs.append(dcg / idcg)
    return np.mean(hits), np.mean(recalls), np.mean(ndcgs)


@pytest.mark.parametrize("seed", range(5))
def test_evaluate_recommendations_matches_brute_force(seed):
    from sklearn_rank.recsys import evaluate_recommendations

    rng = np.random.default_rng(seed)
    n_users, n_items = 13, 30
    scores = rng.random((n_users, n_items))  # no ties: the tie rule not in play
    exclude = sp.csr_matrix((rng.random((n_users, n_items)) < 0.3).astype(float))
    held = (rng.random((n_users, n_items)) < 0.15) & (exclude.toarray() == 0)
    held[0] = False  # a user without held-out items: undefined, left out
    test = sp.csr_matrix(held.astype(float))
    for k in (1, 5, 10):
        got = evaluate_recommendations(
            scores, test, exclude=exclude, k=k, metrics=["hit_rate", "recall", "ndcg"]
        )
        want = _brute_accuracy(scores, test, exclude, k)
        np.testing.assert_allclose(
            [got[f"hit_rate@{k}"], got[f"recall@{k}"], got[f"ndcg@{k}"]],
            want,
            rtol=0,
            atol=1e-12,
        )


def test_evaluate_recommendations_refuses_duplicates_and_wrong_shapes():
    from sklearn_rank.recsys import evaluate_recommendations

    scores = np.ones((2, 3))
    dup = sp.coo_matrix(([1, 1], ([0, 0], [1, 1])), shape=(2, 3))
    with pytest.raises(ValueError, match=r"'test'.*duplicate"):
        evaluate_recommendations(scores, dup, k=1, metrics="hit_rate")
    with pytest.raises(ValueError, match=r"'test'.*shape"):
        evaluate_recommendations(scores, sp.csr_matrix((2, 5)), k=1, metrics="ndcg")
    nan = sp.csr_matrix(([np.nan], ([0], [1])), shape=(2, 3))
    with pytest.raises(ValueError, match=r"'test'.*finite"):
        evaluate_recommendations(scores, nan, k=1, metrics="ndcg")
    one = sp.csr_matrix(([1.0], ([0], [1])), shape=(2, 3))
    with pytest.raises(ValueError, match=r"'item_features'.*3 rows"):
        evaluate_recommendations(
            scores,
            one,
            k=2,
            metrics="intra_list_diversity",
            item_features=np.ones((4, 2)),
        )


def _brute_beyond(lists, n_items, train):
    from math import log, log2

    n_users = train.shape[0]
    dense = train.toarray() > 0
    pop = [int(dense[:, i].sum()) for i in range(n_items)]
    recs = [i for row in lists for i in row if i >= 0]
    counts = [recs.count(i) for i in range(n_items)]
    coverage = sum(c > 0 for c in counts) / n_items
    # Gini (RecBole GiniIndex): sorted exposure counts, zeros included
    srt = sorted(counts)
    gini = sum((2 * (j + 1) - n_items - 1) * c for j, c in enumerate(srt))
    gini /= n_items * len(recs)
    entropy = -sum(c / len(recs) * log(c / len(recs)) for c in counts if c)
    nov, arp = [], []
    for row in lists:
        row = [i for i in row if i >= 0]
        nov.append(sum(-log2(pop[i] / n_users) for i in row) / len(row))
        arp.append(sum(pop[i] for i in row) / len(row))
    return {
        "catalog_coverage": coverage,
        "gini": gini,
        "entropy": entropy,
        "novelty": sum(nov) / len(nov),
        "arp": sum(arp) / len(arp),
    }


@pytest.mark.parametrize("seed", range(5))
def test_beyond_accuracy_matches_brute_force(seed):
    from sklearn_rank.recsys import beyond_accuracy

    rng = np.random.default_rng(seed)
    n_users, n_items = 12, 25
    seen = rng.random((n_users, n_items)) < 0.5
    seen[0] = True  # every item seen in training once at least
    train = sp.csr_matrix(seen.astype(float))
    scores = rng.random((n_users, n_items))
    lists = top_k(scores, 6, exclude=None)
    lists[3, 4:] = -1  # padding ignored
    want = _brute_beyond(lists, n_items, train)
    got = beyond_accuracy(lists, n_items=n_items, metrics=list(want), train=train)
    for name, value in want.items():
        assert abs(got[name] - value) <= 1e-12, name


def test_beyond_accuracy_bad_input():
    from sklearn_rank.recsys import beyond_accuracy

    with pytest.raises(ValueError, match=r"'lists'.*catalogue"):
        beyond_accuracy(np.array([[0, 9]]), n_items=4, metrics="gini")
    with pytest.raises(ValueError, match=r"'train'"):
        beyond_accuracy(np.array([[0, 1]]), n_items=4, metrics="novelty")
    with pytest.raises(ValueError, match=r"'train'"):
        beyond_accuracy(
            np.array([[0, 1]]),
            n_items=4,
            metrics="novelty",
            train=sp.csr_matrix((1, 3)),
        )
