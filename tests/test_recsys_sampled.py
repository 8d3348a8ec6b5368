"""evaluate_sampled: the sampled ranks against a brute force, and a seeded
simulation showing the sampled metric's bias against the full-catalogue value
(evaluate_recommendations) and the Krichene & Rendle corrections' smaller one."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import hypergeom

from sklearn_rank.recsys import evaluate_recommendations, evaluate_sampled
from sklearn_rank.recsys._sampled import _transition


def _simulation(seed=0, n_users=2000, n_items=1000, n_train=50):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n_users, n_items))
    held = rng.integers(0, n_items, n_users)
    scores[np.arange(n_users), held] += rng.normal(2.5, 1.0, n_users)
    test = sp.csr_matrix(
        (np.ones(n_users), (np.arange(n_users), held)), shape=(n_users, n_items)
    )
    # n_train training items per user, never the held-out one: one pool size
    keys = rng.random((n_users, n_items))
    keys[np.arange(n_users), held] = 2.0
    train_items = np.argsort(keys, axis=1)[:, :n_train]
    exclude = sp.csr_matrix(
        (
            np.ones(train_items.size),
            (np.repeat(np.arange(n_users), n_train), train_items.ravel()),
        ),
        shape=(n_users, n_items),
    )
    return scores, test, exclude


def test_sampled_metric_is_biased_and_the_corrections_much_less():
    scores, test, exclude = _simulation()
    k, names = 10, ["hit_rate", "ndcg", "recall"]
    full = evaluate_recommendations(scores, test, exclude=exclude, k=k, metrics=names)
    got = {
        c: evaluate_sampled(
            scores,
            test,
            exclude=exclude,
            n_negatives=100,
            k=k,
            metrics=names,
            correction=c,
            random_state=0,
        )
        for c in ("none", "expected_rank", "bias_variance")
    }
    for name in full:
        bias = abs(got["none"][name] - full[name])
        assert bias > 0.15  # sampled Hit/NDCG@10 with 100 negatives overstate
        # measured (seed 0): sampled bias 0.25 (hit) / 0.21 (ndcg); the
        # bias/variance correction 0.05 / 0.06; the expected-rank map 0.003 /
        # 0.09 (a rank map cannot fix NDCG's discount between mapped ranks)
        assert abs(got["bias_variance"][name] - full[name]) < 0.4 * bias, name
        assert abs(got["expected_rank"][name] - full[name]) < 0.5 * bias, name
    # seeded: the same seed gives the same value
    again = evaluate_sampled(
        scores,
        test,
        exclude=exclude,
        n_negatives=100,
        k=k,
        metrics=names,
        correction="none",
        random_state=0,
    )
    assert again == got["none"]


def test_transition_is_the_hypergeometric_law():
    a = _transition(50, 7)
    want = hypergeom.pmf(np.arange(8)[None, :], 50, np.arange(51)[:, None], 7)
    np.testing.assert_allclose(a, want, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_uncorrected_sampled_ranks_match_brute_force(seed):
    """correction="none" with every pool item sampled (each user's pool holds
    exactly n items) is the metric at the rank among the pool, ties counted
    against the held-out item; several held-out items per user, integer scores."""
    rng = np.random.default_rng(seed)
    n_users, n_items, n = 30, 12, 6
    scores = rng.integers(0, 5, size=(n_users, n_items)).astype(float)
    test_d = np.zeros((n_users, n_items))
    ex = np.zeros((n_users, n_items), bool)
    for u in range(n_users):
        perm = rng.permutation(n_items)
        t = rng.integers(1, 4)
        test_d[u, perm[:t]] = 1
        ex[u, perm[t : n_items - n]] = True
    test, exclude = sp.csr_matrix(test_d), sp.csr_matrix(ex.astype(float))
    res = evaluate_sampled(
        scores,
        test,
        exclude=exclude,
        n_negatives=n,
        k=2,
        metrics=["hit_rate", "ndcg"],
        correction="none",
        random_state=seed,
    )
    hits, ndcgs = [], []
    for u in range(n_users):
        items = np.nonzero(test_d[u])[0]
        neg = [j for j in range(n_items) if not test_d[u, j] and not ex[u, j]]
        assert len(neg) == n
        r = [1 + sum(scores[u, j] >= scores[u, i] for j in neg) for i in items]
        hits.append(np.mean([x <= 2 for x in r]))
        ndcgs.append(np.mean([1 / np.log2(x + 1) if x <= 2 else 0.0 for x in r]))
    assert res["hit_rate@2"] == pytest.approx(np.mean(hits), abs=1e-12)
    assert res["ndcg@2"] == pytest.approx(np.mean(ndcgs), abs=1e-12)


def test_full_pool_equals_brute_force_single_pool():
    rng = np.random.default_rng(5)
    n_users, n_items = 40, 15
    scores = rng.normal(size=(n_users, n_items))
    held = rng.integers(0, n_items, n_users)
    test = sp.csr_matrix(
        (np.ones(n_users), (np.arange(n_users), held)), shape=(n_users, n_items)
    )
    res = evaluate_sampled(
        scores,
        test,
        n_negatives=n_items - 1,
        k=3,
        metrics=["hit_rate", "ndcg", "recall"],
        correction="none",
        random_state=0,
    )
    r = 1 + (scores > scores[np.arange(n_users), held][:, None]).sum(axis=1)
    assert res["hit_rate@3"] == pytest.approx(np.mean(r <= 3), abs=1e-12)
    assert res["recall@3"] == pytest.approx(np.mean(r <= 3), abs=1e-12)
    want = np.mean(np.where(r <= 3, 1 / np.log2(r + 1), 0.0))
    assert res["ndcg@3"] == pytest.approx(want, abs=1e-12)
    full = evaluate_recommendations(scores, test, k=3, metrics=["ndcg"])
    assert res["ndcg@3"] == pytest.approx(full["ndcg@3"], abs=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_negatives": 0}, "'n_negatives'"),
        ({"n_negatives": 10}, "'n_negatives'.*smallest pool"),
        ({"correction": "bogus"}, "'correction'"),
        ({"metrics": "map"}, "'metrics'"),
        ({"gamma": 2.0}, "'gamma'"),
    ],
)
def test_bad_input(kwargs, match):
    scores = np.arange(12.0).reshape(2, 6)
    test = sp.csr_matrix(([1, 1], ([0, 1], [0, 1])), shape=(2, 6))
    args = {"n_negatives": 3, "k": 2, "metrics": "hit_rate"} | kwargs
    with pytest.raises(ValueError, match=match):
        evaluate_sampled(scores, test, **args)


def test_users_without_held_out_items_follow_the_undefined_rule():
    # 10 of 50 users hold out nothing: skipped by default, scored 0.0 with
    # undefined=0.0 (the mean over 50 users), refused with undefined="raise"
    import numpy as np
    import pytest
    import scipy.sparse as sp

    from sklearn_rank.recsys import evaluate_sampled

    rng = np.random.default_rng(0)
    scores = rng.random((50, 200))
    test = sp.csr_matrix((np.ones(40), (np.arange(40), np.arange(40))), shape=(50, 200))
    kw = dict(n_negatives=20, k=5, metrics="hit_rate", correction="none")
    skip = evaluate_sampled(scores, test, random_state=0, **kw)["hit_rate@5"]
    zero = evaluate_sampled(scores, test, random_state=0, undefined=0.0, **kw)
    assert zero["hit_rate@5"] == pytest.approx(skip * 40 / 50, abs=1e-12)
    with pytest.raises(ValueError, match="undefined for 10 of 50 groups"):
        evaluate_sampled(scores, test, random_state=0, undefined="raise", **kw)
