"""Each convention keyword reproduces a value from its source project's own test
suite or documentation (cited per test)."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank import (
    dcg_score,
    f1_at_k_score,
    map_score,
    ndcg_score,
    recall_at_k_score,
)


def _lenskit_list(recs, rel):
    """LensKit's (recommended ids in order, relevant ids) as flat rows of one
    group: recommended rows ranked in order, relevant ones not recommended kept
    as judged but unretrieved rows."""
    extra = [i for i in rel if i not in set(recs)]
    items = list(recs) + extra
    y_true = np.array([1.0 if i in set(rel) else 0.0 for i in items])
    y_score = np.array([len(recs) - p for p in range(len(recs))] + [0] * len(extra))
    retrieved = np.array([True] * len(recs) + [False] * len(extra))
    return y_true, y_score.astype(float), retrieved


@pytest.mark.parametrize(
    ("recs", "k", "expected"),
    [
        # lenskit/lkpy tests/eval/test_rank_recall.py, test_recall_long_rel
        ([1, 0, 150, 3, 10], 5, 0.8),
        # ... test_recall_long_items
        ([1, 0, 150, 3, 10, 30, 120, 4, 17], 5, 0.8),
        # ... test_recall_partial_rel
        ([1, 0, 150, 3, 10], 10, 0.4),
    ],
)
def test_recall_denominator_reproduces_lenskit(recs, k, expected):
    y_true, y_score, retrieved = _lenskit_list(recs, list(range(100)))
    kw = dict(groups=np.zeros(y_true.size), k=k, retrieved=retrieved)
    got = recall_at_k_score(
        y_true, y_score, recall_denominator="min_k_n_relevant", **kw
    )
    assert got == pytest.approx(expected, rel=1e-12)
    # The default divides by R = 100 instead.
    hits = expected * min(k, 100)
    assert recall_at_k_score(y_true, y_score, **kw) == pytest.approx(hits / 100)
    # F1's recall part follows: 2 H / (k + min(k, R)).
    f1 = f1_at_k_score(y_true, y_score, recall_denominator="min_k_n_relevant", **kw)
    assert f1 == pytest.approx(2 * hits / (k + min(k, 100)))


@pytest.mark.parametrize(
    ("targets", "expected"),
    [
        # jma127/pyltr pyltr/metrics/tests/test_ap.py, TestAP with AP(k=4)
        ([1], 1.0),
        ([1, 0], 1.0),
        ([0, 1], 0.5),
        ([1, 0, 1, 0], 5.0 / 6),
        ([0, 1, 1, 1], 23.0 / 36),
        ([1, 0, 1, 0, 1], 5.0 / 6),  # the relevant row at 5 is not counted
        ([1, 0, 1, 0, 0], 5.0 / 6),
        # pyltr/metrics/ap.py: 0 when no relevant row is within the cutoff
        ([0, 0, 0, 0, 1], 0.0),
    ],
)
def test_ap_denominator_reproduces_pyltr(targets, expected):
    y_true = np.array(targets, dtype=float)
    y_score = -np.arange(y_true.size, dtype=float)  # ranked in list order
    got = map_score(
        y_true,
        y_score,
        groups=np.zeros(y_true.size),
        k=4,
        relevance_threshold=0.5,  # pyltr's AP(cutoff=0.5)
        ap_denominator="n_relevant_retrieved",
    )
    assert got == pytest.approx(expected, rel=1e-12)


def test_ap_denominator_n_relevant_retrieved_under_averaged_ties():
    kw = dict(groups=[0] * 4, ap_denominator="n_relevant_retrieved")
    y_true = [1, 0, 1, 0]
    # A mixed tie block inside the cutoff: the count is fixed (2), AP averaged:
    # orders [1,0 | 1,0] and [0,1 | 1,0] give (1 + 2/3)/2 and (1/2 + 2/3)/2.
    got = map_score(y_true, [3.0, 3.0, 2.0, 1.0], k=3, **kw)
    assert got == pytest.approx(((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2)
    # Straddling the cutoff, the count depends on the order of the tie: the top
    # 2 are [1, 0] (AP 1/1) or [1, 1] (AP (1 + 2/2)/2 = 1), each with chance 1/2.
    assert map_score(y_true, [3.0, 2.0, 2.0, 1.0], k=2, **kw) == pytest.approx(1.0)
    assert map_score(y_true, [3.0, 2.0, 2.0, 1.0], k=2, ties="stable", **kw) == 1.0
    # [0 | 1, 0 tied | 1] at k = 2: [0, 1] gives (1/2)/1, [0, 0] gives 0: 1/4.
    got = map_score([0, 1, 0, 1], [3.0, 2.0, 2.0, 1.0], k=2, **kw)
    assert got == pytest.approx(1 / 4)


def test_discount_log_base_agrees_with_scikit_learn_dcg_score():
    """scikit-learn's ``dcg_score(log_base=b)`` (sklearn/metrics/_ranking.py),
    tie-averaged as ours: the installed package, compared directly."""
    from sklearn.metrics import dcg_score as sk_dcg

    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 4, size=(3, 7)).astype(float)
    y_score = rng.integers(0, 3, size=(3, 7)).astype(float)  # many ties
    y_true[:, 0] = 3.0  # every query has a relevant row
    groups = np.repeat(np.arange(3), 7)
    for base in (10.0, 1.5, np.e):
        for k in (None, 3):
            expected = sk_dcg(y_true, y_score, k=k, log_base=base)
            got = dcg_score(
                y_true.ravel(),
                y_score.ravel(),
                groups=groups,
                k=k,
                gain="linear",
                discount=base,
            )
            assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        # lenskit/lenskit lenskit-eval/src/test/java/org/grouplens/lenskit/eval/
        # predict/TestNDCG.java, testComputeNDCG: computeDCG of each rating vector
        # in its own (ideal) order, asserted to 4 decimals.
        ([5, 4, 4, 3, 5, 3, 4, 3, 2, 5], 22.0418),
        ([5, 5, 4, 4, 4, 3, 2, 2, 3, 4], 21.0954),
        ([4, 5, 4, 2, 3, 1, 3, 4, 5, 2], 20.0742),
    ],
)
def test_discount_jarvelin_reproduces_lenskit(ratings, expected):
    """LensKit's DCG: linear gain, ranks 1 and 2 undiscounted (1/log2(max(p, 2)))."""
    r = np.asarray(ratings, dtype=float)
    got = dcg_score(r, r, groups=np.zeros(r.size), gain="linear", discount="jarvelin")
    assert got == pytest.approx(expected, abs=1e-4)
    # The default discount gives a different number: the keyword matters.
    assert dcg_score(r, r, groups=np.zeros(r.size), gain="linear") != pytest.approx(
        expected, abs=1e-4
    )


def test_callable_gain_and_discount_reproduce_tf_ranking():
    """tensorflow/ranking tensorflow_ranking/python/metrics_test.py,
    test_normalized_discounted_cumulative_gain: labels [0, 0, 1] scored [1, 3, 2]
    with ``gain_fn=lambda rel: rel`` and ``rank_discount_fn=lambda rank: 1/rank``:
    the relevant row sits at rank 2, so NDCG = (1/2) / (1/1) = 0.5; with the
    default 2**rel - 1 and 1/log2(1 + rank) it is 1/log2(3)."""
    y, s, g = [0.0, 0.0, 1.0], [1.0, 3.0, 2.0], [0, 0, 0]
    got = ndcg_score(y, s, groups=g, gain=lambda rel: rel, discount=lambda r: 1.0 / r)
    assert got == 0.5
    assert ndcg_score(y, s, groups=g) == pytest.approx(1.0 / np.log2(3.0), rel=1e-15)
    # The same test's two-list mean: the second list [0, 1, 2] scored [1, 2, 3]
    # is in ideal order (NDCG 1).
    y2 = [*y, 0.0, 1.0, 2.0]
    s2 = [*s, 1.0, 2.0, 3.0]
    g2 = [*g, 1, 1, 1]
    expected = (1.0 / np.log2(3.0) + 1.0) / 2.0
    assert ndcg_score(y2, s2, groups=g2) == pytest.approx(expected, rel=1e-15)


def test_discount_jarvelin_and_callable():
    y, s, g = [3.0, 2.0, 1.0], [3.0, 2.0, 1.0], [0, 0, 0]
    # LensKit's default / Järvelin & Kekäläinen: ranks 1 and 2 undiscounted.
    got = dcg_score(y, s, groups=g, gain="linear", discount="jarvelin")
    assert got == pytest.approx(3 + 2 + 1 / np.log2(3))
    # TF-Ranking's rank_discount_fn form: any vectorised function of positions.
    got = dcg_score(y, s, groups=g, gain="linear", discount=lambda p: 1.0 / p)
    assert got == pytest.approx(3 + 2 / 2 + 1 / 3)
    # NDCG's ideal DCG uses the same discount: a perfect order scores 1.
    assert ndcg_score(y, s, groups=g, discount="jarvelin") == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"'discount' parameter of dcg_score"):
        dcg_score(y, s, groups=g, discount=1.0)
    with pytest.raises(ValueError, match=r"'discount' callable"):
        dcg_score(y, s, groups=g, discount=lambda p: p[:1])
