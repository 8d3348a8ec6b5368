"""Hand-worked metric values, checked against the library and the reference.

Every expected number is derived by hand in the comments next to it (exact
fractions where possible) and is never read off the library. Each example is
checked twice: against the slow reference of ``_reference.py`` (so that the
oracle itself is pinned to hand arithmetic) and against ``sklearn_rank``.
"""

import math

import numpy as np
import pytest
from _reference import (
    TIES,
    reference_mean,
    reference_per_group,
    reference_pooled_auc,
)
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import dcg_score, ndcg_score, roc_auc_score

import sklearn_rank as sr

LOG2_3 = math.log2(3)
LOG2_5 = math.log2(5)
LOG2_7 = math.log2(7)
LOG2_6 = math.log2(6)

FUNCS = {
    "ndcg": "ndcg_score",
    "dcg": "dcg_score",
    "map": "map_score",
    "mrr": "mrr_score",
    "precision": "precision_at_k_score",
    "recall": "recall_at_k_score",
    "hit_rate": "hit_rate_score",
    "r_precision": "r_precision_score",
    "err": "err_score",
    "gauc": "gauc_score",
    "auc": "auc_score",
}


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


def check(metric, expected, y_true, y_score, groups=None, **options):
    """Assert reference and library both give ``expected`` (to 1e-12)."""
    k = options.pop("k", None)
    ref, _ = reference_mean(metric, k, y_true, y_score, groups, **options)
    assert ref == approx(expected), f"reference {metric}: {ref} != {expected}"
    kwargs = dict(options)
    if k is not None:
        kwargs["k"] = k
    if groups is not None:
        kwargs["groups"] = groups
    elif metric != "auc":
        kwargs["groups"] = np.zeros(len(y_true), dtype=int)
    got = getattr(sr, FUNCS[metric])(y_true, y_score, **kwargs)
    assert isinstance(got, float)
    assert got == approx(expected), f"sklearn_rank {metric}: {got} != {expected}"


# ---------------------------------------------------------------------------
# One binary query, 10 ranked rows plus 3 relevant rows that were not retrieved
# ---------------------------------------------------------------------------
# Ranked labels (scores descending along the list):
#   position: 1 2 3 4 5 6 7 8 9 10
#   label:    1 0 1 0 0 1 1 0 0 1      -> relevant at positions 1, 3, 6, 7, 10
# 5 retrieved relevant + 3 unretrieved relevant: R = 8.
BINARY = [1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1]  # last 3: not retrieved
BINARY_SCORE = [10.0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]
BINARY_RETRIEVED = [True] * 10 + [False] * 3


@pytest.mark.parametrize(
    ("metric", "k", "expected"),
    [
        # P@3 = 2 relevant in top 3 / 3 = 2/3 = 0.667
        ("precision", 3, 2 / 3),
        # P@5 = 2 / 5 = 0.400
        ("precision", 5, 2 / 5),
        # P@10 = 5 / 10 = 0.500
        ("precision", 10, 5 / 10),
        # R@10 = 5 / R = 5 / 8 = 0.625
        ("recall", 10, 5 / 8),
        # AP = (1/1 + 2/3 + 3/6 + 4/7 + 5/10) / 8
        #    = (42 + 28 + 21 + 24 + 21) / 42 / 8 = (136/42) / 8 = 17/42 = 0.4048
        ("map", None, 17 / 42),
        # MRR = 1/1; hit rate = 1
        ("mrr", None, 1.0),
        ("hit_rate", 1, 1.0),
        # R-precision: relevant in top R = 8: positions 1, 3, 6, 7 -> 4/8
        ("r_precision", None, 4 / 8),
        # AP@5 = (1/1 + 2/3) / 8 = (5/3) / 8 = 5/24 with the default denominator,
        ("map", 5, 5 / 24),
    ],
)
def test_binary_query_with_unretrieved_relevant(metric, k, expected):
    assert round(17 / 42, 4) == 0.4048  # the 0.405 of the textbook example
    options = {"retrieved": BINARY_RETRIEVED}
    if k is not None:
        options["k"] = k
    check(metric, expected, BINARY, BINARY_SCORE, **options)


def test_binary_query_denominator_options():
    # AP@5 with D = min(k, R) = min(5, 8) = 5: (1 + 2/3) / 5 = 1/3.
    check(
        "map",
        1 / 3,
        BINARY,
        BINARY_SCORE,
        k=5,
        retrieved=BINARY_RETRIEVED,
        ap_denominator="min_k_n_relevant",
    )
    # P@20 with the "k" denominator pads the 10 ranked rows: 5/20 = 0.25;
    # with "min_k_n" it divides by min(20, 10) = 10: 5/10 = 0.5.
    check("precision", 5 / 20, BINARY, BINARY_SCORE, k=20, retrieved=BINARY_RETRIEVED)
    check(
        "precision",
        5 / 10,
        BINARY,
        BINARY_SCORE,
        k=20,
        retrieved=BINARY_RETRIEVED,
        precision_denominator="min_k_n",
    )
    # Not retrieving the 3 extra rows is not the same as dropping them:
    # without them R = 5, so R@10 = 5/5 = 1 and AP = (136/42) / 5 = 68/105.
    check("recall", 1.0, BINARY[:10], BINARY_SCORE[:10], k=10)
    check("map", 68 / 105, BINARY[:10], BINARY_SCORE[:10])


# ---------------------------------------------------------------------------
# Graded NDCG
# ---------------------------------------------------------------------------
def test_graded_ndcg_at_6_exponential():
    y = [3, 0, 2, 0, 0, 5, 4, 0, 0, 1]
    s = [10.0, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    # Exponential gains 2^y - 1 of the top 6: 7, 0, 3, 0, 0, 31.
    # DCG@6 = 7/log2(2) + 3/log2(4) + 31/log2(7) = 7 + 1.5 + 31/2.8074 = 19.5425
    dcg6 = 7 + 3 / 2 + 31 / LOG2_7
    # Ideal labels 5, 4, 3, 2, 1, 0 -> gains 31, 15, 7, 3, 1, 0:
    # IDCG@6 = 31 + 15/log2(3) + 7/2 + 3/log2(5) + 1/log2(6) = 45.6428
    idcg6 = 31 + 15 / LOG2_3 + 7 / 2 + 3 / LOG2_5 + 1 / LOG2_6
    expected = dcg6 / idcg6
    assert round(expected, 3) == 0.428
    check("ndcg", expected, y, s, k=6)
    check("ndcg", expected, y, s, k=6, gain="exponential")
    check("dcg", dcg6, y, s, k=6)
    # Linear gain gives another number: DCG@6 = 3 + 2/2 + 5/log2(7) = 5.7810,
    # IDCG@6 = 5 + 4/log2(3) + 3/2 + 2/log2(5) + 1/log2(6) = 10.2719 -> 0.5628.
    lin = (3 + 2 / 2 + 5 / LOG2_7) / (5 + 4 / LOG2_3 + 3 / 2 + 2 / LOG2_5 + 1 / LOG2_6)
    assert round(lin, 3) == 0.563
    check("ndcg", lin, y, s, k=6, gain="linear")


def test_graded_ndcg_at_5_is_exponential_gain():
    # Labels in ranked order (3, 2, 0, 1, 2); ideal order (3, 2, 2, 1, 0).
    y = [3, 2, 0, 1, 2]
    s = [5.0, 4, 3, 2, 1]
    # The textbook 0.969 is the EXPONENTIAL gain:
    #   gains 7, 3, 0, 1, 3: DCG = 7 + 3/log2(3) + 0 + 1/log2(5) + 3/log2(6)
    #                            = 7 + 1.8928 + 0.4307 + 1.1606 = 10.4840
    #   ideal 7, 3, 3, 1, 0: IDCG = 7 + 3/log2(3) + 3/2 + 1/log2(5) = 10.8235
    #   NDCG = 0.9686
    exp_dcg = 7 + 3 / LOG2_3 + 1 / LOG2_5 + 3 / LOG2_6
    exp_idcg = 7 + 3 / LOG2_3 + 3 / 2 + 1 / LOG2_5
    assert round(exp_dcg / exp_idcg, 3) == 0.969
    check("ndcg", exp_dcg / exp_idcg, y, s, k=5, gain="exponential")
    # Linear gain gives 0.960, not 0.969:
    #   DCG = 3 + 2/log2(3) + 1/log2(5) + 2/log2(6) = 5.4663
    #   IDCG = 3 + 2/log2(3) + 2/2 + 1/log2(5) = 5.6925
    lin_dcg = 3 + 2 / LOG2_3 + 1 / LOG2_5 + 2 / LOG2_6
    lin_idcg = 3 + 2 / LOG2_3 + 2 / 2 + 1 / LOG2_5
    assert round(lin_dcg / lin_idcg, 3) == 0.960
    check("ndcg", lin_dcg / lin_idcg, y, s, k=5, gain="linear")


# ---------------------------------------------------------------------------
# Relevant set {A, C, F}, ranking [B, A, D, C, E, F]
# ---------------------------------------------------------------------------
ABC_TRUE = [0, 1, 0, 1, 0, 1]  # B A D C E F
ABC_SCORE = [6.0, 5, 4, 3, 2, 1]


@pytest.mark.parametrize(
    ("metric", "k", "expected"),
    [
        # Relevant at positions 2, 4, 6.  P@5 = 2/5
        ("precision", 5, 2 / 5),
        # R@5 = 2/3 = 0.667
        ("recall", 5, 2 / 3),
        # first hit at position 2: MRR = 1/2
        ("mrr", None, 1 / 2),
        # DCG@5 = 1/log2(3) + 1/log2(5) = 1.0616; IDCG@5 = 1 + 1/log2(3) + 1/2
        # = 2.1309; NDCG@5 = 0.4982 (binary labels: both gains agree, 2^1-1 = 1)
        ("ndcg", 5, (1 / LOG2_3 + 1 / LOG2_5) / (1 + 1 / LOG2_3 + 1 / 2)),
        # AP = (1/2 + 2/4 + 3/6) / 3 = 1/2
        ("map", None, 1 / 2),
        # R-precision: top R = 3 holds one relevant row (A): 1/3
        ("r_precision", None, 1 / 3),
        # AUC: 3 positives x 3 negatives = 9 pairs; A beats D, E; C beats E;
        # F beats none -> 3/9
        ("gauc", None, 3 / 9),
        ("auc", None, 3 / 9),
    ],
)
def test_relevant_set_example(metric, k, expected):
    options = {} if k is None else {"k": k}
    for gain in ("exponential", "linear") if metric == "ndcg" else (None,):
        if gain is not None:
            options["gain"] = gain
        check(metric, expected, ABC_TRUE, ABC_SCORE, **options)
    assert round((1 / LOG2_3 + 1 / LOG2_5) / (1 + 1 / LOG2_3 + 1 / 2), 3) == 0.498


# ---------------------------------------------------------------------------
# Several queries
# ---------------------------------------------------------------------------
def test_mrr_three_queries():
    # q1: first hit at rank 1; q2: at rank 3; q3: at rank 2.
    # MRR = (1 + 1/3 + 1/2) / 3 = (6 + 2 + 3) / 18 = 11/18 = 0.6111
    y = [1, 0, 0, 0, 0, 1, 0, 1, 1]
    s = [3.0, 2, 1, 3, 2, 1, 3, 2, 1]
    g = ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 3
    assert round(11 / 18, 3) == 0.611
    check("mrr", 11 / 18, y, s, g)
    # Sample weights 1, 2, 3 on the three queries (mean over their rows):
    # (1*1 + 2*(1/3) + 3*(1/2)) / 6 = (6 + 4 + 9) / 36 = 19/36.
    w = [1] * 3 + [2] * 3 + [3] * 3
    check("mrr", 19 / 36, y, s, g, sample_weight=w)
    # MRR@2: q2 has no hit in the top 2 -> (1 + 0 + 1/2) / 3 = 1/2.
    check("mrr", 1 / 2, y, s, g, k=2)


def test_gauc_three_users():
    # Every user has 4 ranked rows, 2 positives and 2 negatives (4 pairs).
    #   u1: labels by rank 1 1 0 0 -> 4/4 pairs ordered  -> AUC 1
    #   u2: labels by rank 1 0 1 0 -> first positive beats 2 negatives, the
    #       second beats 1: 3/4 pairs                -> AUC 3/4
    #   u3: the same as u2                            -> AUC 3/4
    # u4 has only negatives: undefined, skipped.
    # Rows weighting (default): (4*1 + 4*3/4 + 4*3/4) / 12 = 10/12 = 5/6
    # Uniform weighting: (1 + 3/4 + 3/4) / 3 = 5/6 = 0.833 as well.
    y = [1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0]  # u1 | u2 | u3 | u4
    s = [4.0, 3, 2, 1] * 3 + [2.0, 1]
    g = ["u1"] * 4 + ["u2"] * 4 + ["u3"] * 4 + ["u4"] * 2
    assert round(5 / 6, 3) == 0.833
    check("gauc", 5 / 6, y, s, g)
    check("gauc", 5 / 6, y, s, g, weights="uniform")
    check("gauc", 5 / 6, y, s, g, weights="positives")
    # u4 filled with 0 under uniform weights: (1 + 3/4 + 3/4 + 0) / 4 = 5/8.
    check("gauc", 5 / 8, y, s, g, weights="uniform", undefined=0.0)
    # Make u1 longer (2 extra negatives at the bottom: still AUC 1, 6 rows):
    # rows: (6*1 + 4*3/4 + 4*3/4) / 14 = 12/14 = 6/7; uniform stays 5/6.
    y2 = [1, 1, 0, 0, 0, 0, *y[4:]]
    s2 = [6.0, 5, 4, 3, 2, 1, *s[4:]]
    g2 = ["u1"] * 6 + g[4:]
    check("gauc", 6 / 7, y2, s2, g2)
    check("gauc", 5 / 6, y2, s2, g2, weights="uniform")


# ---------------------------------------------------------------------------
# Ties by hand
# ---------------------------------------------------------------------------
# One group, scores [1, 1], labels [1, 0]: two equally likely orders,
# (relevant, not) and (not, relevant).
TIE_Y = [1, 0]
TIE_S = [1.0, 1.0]


@pytest.mark.parametrize(
    ("metric", "k", "by_policy"),
    [
        # MRR: first hit at 1 or 2 -> average (1 + 1/2)/2 = 3/4;
        # pessimistic puts the 0 first -> 1/2; optimistic -> 1;
        # stable keeps input order (the 1 first) -> 1; threshold reads the
        # precision at the block's end, 1/2.
        (
            "mrr",
            None,
            {
                "average": 3 / 4,
                "stable": 1,
                "pessimistic": 1 / 2,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        # P@1: (1 + 0)/2 = 1/2 on average.
        (
            "precision",
            1,
            {
                "average": 1 / 2,
                "stable": 1,
                "pessimistic": 0,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        # Binary NDCG: DCG is 1 or 1/log2(3); IDCG = 1 -> (1 + 1/log2(3))/2.
        (
            "ndcg",
            None,
            {
                "average": (1 + 1 / LOG2_3) / 2,
                "stable": 1,
                "pessimistic": 1 / LOG2_3,
                "optimistic": 1,
                "threshold": (1 + 1 / LOG2_3) / 2,  # linear: as "average"
            },
        ),
        # AUC: the single pair is tied -> 1/2; resolved orders credit 1 or 0.
        (
            "gauc",
            None,
            {
                "average": 1 / 2,
                "stable": 1,
                "pessimistic": 0,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        (
            "auc",
            None,
            {
                "average": 1 / 2,
                "stable": 1,
                "pessimistic": 0,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        # AP = MRR here (one relevant row), under every rule.
        (
            "map",
            None,
            {
                "average": 3 / 4,
                "stable": 1,
                "pessimistic": 1 / 2,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        # Hit@1 averages to 1/2; R@1 too (R = 1).
        (
            "hit_rate",
            1,
            {
                "average": 1 / 2,
                "stable": 1,
                "pessimistic": 0,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
        (
            "recall",
            1,
            {
                "average": 1 / 2,
                "stable": 1,
                "pessimistic": 0,
                "optimistic": 1,
                "threshold": 1 / 2,
            },
        ),
    ],
)
@pytest.mark.parametrize("ties", TIES)
def test_two_tied_rows(metric, k, by_policy, ties):
    options = {"ties": ties}
    if k is not None:
        options["k"] = k
    check(metric, by_policy[ties], TIE_Y, TIE_S, **options)


def test_stable_follows_input_order():
    # Same tie with the rows swapped: stable now puts the 0 first.
    check("mrr", 1 / 2, [0, 1], [1.0, 1.0], ties="stable")
    check("mrr", 3 / 4, [0, 1], [1.0, 1.0], ties="average")


def test_tie_block_after_a_strict_leader():
    # Scores [2, 1, 1, 1], labels [0, 1, 0, 0]: the relevant row is uniformly
    # at position 2, 3 or 4 -> MRR = AP = (1/2 + 1/3 + 1/4)/3 = 13/36.
    y, s = [0, 1, 0, 0], [2.0, 1, 1, 1]
    check("mrr", 13 / 36, y, s)
    check("map", 13 / 36, y, s)
    # P@2: the relevant row is at position 2 in 1 of 3 orders -> (1/3)/2 = 1/6.
    check("precision", 1 / 6, y, s, k=2)
    # MRR@3: positions 2 or 3 count -> (1/2 + 1/3 + 0)/3 = 5/18.
    check("mrr", 5 / 18, y, s, k=3)
    # Pessimistic puts it last: 1/4; optimistic at 2: 1/2.
    check("mrr", 1 / 4, y, s, ties="pessimistic")
    check("mrr", 1 / 2, y, s, ties="optimistic")


def test_graded_tie_block_ndcg():
    # Scores [1, 1, 0], labels [2, 0, 1], exponential gains 3, 0, 1.
    # Orders of the tie: (2, 0, 1) DCG = 3 + 0 + 1/2 = 3.5;
    #                    (0, 2, 1) DCG = 0 + 3/log2(3) + 1/2.
    # Average DCG = (3.5 + 3/log2(3) + 0.5)/2 = 2 + 1.5/log2(3).
    # IDCG = 3 + 1/log2(3).
    y, s = [2, 0, 1], [1.0, 1.0, 0.0]
    avg = 2 + 1.5 / LOG2_3
    check("dcg", avg, y, s)
    check("ndcg", avg / (3 + 1 / LOG2_3), y, s)
    # DCG@1: 3 or 0 -> 3/2.
    check("dcg", 3 / 2, y, s, k=1)
    # Pessimistic ascending labels in the block: (0, 2, 1).
    check("dcg", 3 / LOG2_3 + 1 / 2, y, s, ties="pessimistic")


def test_err_values_and_tie_rule():
    # max_grade 1, binary labels: R(1) = 1/2, R(0) = 0.
    # Ranked labels 0, 1, 1: ERR = (1/2)(1/2) + (1/3)(1/2)(1/2) = 1/4 + 1/12 = 1/3
    y, s = [0, 1, 1], [3.0, 2, 1]
    check("err", 1 / 3, y, s)
    # ERR@2 = 1/4.
    check("err", 1 / 4, y, s, k=2)
    # Graded with max_grade 2: R(2) = 3/4, R(1) = 1/4.
    # Ranked labels 2, 1: ERR = 3/4 + (1/2)(1/4)(1/4) = 3/4 + 1/32 = 25/32.
    check("err", 25 / 32, [2, 1], [2.0, 1.0], max_grade=2.0)


def test_err_average_ties_rule():
    # A tie block of labels {1, 0} at positions 1-2, R(1) = 1/2, R(0) = 0:
    # order (1, 0) gives 1/2, order (0, 1) gives (1/2)(1/2) = 1/4: mean 3/8.
    check("err", 3 / 8, [1, 0], [1.0, 1.0])
    # Grades (2, 1, 0) tied on a 0-2 scale: R = 3/4, 1/4, 0. The six orders:
    #   2,1,0: 3/4 + (1/2)(1/4)(1/4) = 3/4 + 1/32 = 25/32
    #   2,0,1: 3/4 + (1/3)(1/4)(1/4) = 3/4 + 1/48 = 37/48
    #   1,2,0: 1/4 + (1/2)(3/4)(3/4) = 1/4 + 9/32 = 17/32
    #   1,0,2: 1/4 + (1/3)(3/4)(3/4) = 1/4 + 3/16 = 7/16
    #   0,2,1: (1/2)(3/4) + (1/3)(1/4)(1/4) = 3/8 + 1/48 = 19/48
    #   0,1,2: (1/2)(1/4) + (1/3)(3/4)(3/4) = 1/8 + 3/16 = 5/16
    # Sum = (75 + 74 + 51 + 42 + 38 + 30)/96 = 310/96; mean 310/576 = 155/288.
    check("err", 155 / 288, [2, 1, 0], [1.0, 1.0, 1.0], max_grade=2.0)
    # Block of equal labels: any order gives the same value, no error.
    # Ranked 1, (1, 1) tied, 0: ERR@3 = 1/2 + (1/2)(1/2)(1/2) + (1/3)(1/2)(1/4)
    #   = 1/2 + 1/8 + 1/24 = 2/3
    check("err", 2 / 3, [1, 1, 1, 0], [3.0, 2, 2, 1], k=3)
    # A mixed block starting beyond the cutoff does not matter: labels 1, then
    # (0, 1) tied at positions 2-3, k = 1 -> ERR@1 = 1/2.
    check("err", 1 / 2, [1, 0, 1], [2.0, 1, 1], k=1)
    # With k = 2 the block straddles the cutoff: position 2 holds the 0 or the 1
    # with probability 1/2 each, reached with probability 1/2:
    # ERR@2 = 1/2 + (1/2)(1/2)(1/2)(1/2) = 1/2 + 1/16 = 9/16.
    check("err", 9 / 16, [1, 0, 1], [2.0, 1, 1], k=2)
    # Resolved policies are fine: stable keeps (0, 1): ERR@2 = 1/2 + 0 = 1/2.
    check("err", 1 / 2, [1, 0, 1], [2.0, 1, 1], k=2, ties="stable")


def test_err_labels_out_of_range():
    with pytest.raises(ValueError):
        sr.err_score([2, 0], [2.0, 1.0], groups=[0, 0])
    with pytest.raises(ValueError):
        sr.err_score([-1, 1], [2.0, 1.0], groups=[0, 0], max_grade=1.0)


# ---------------------------------------------------------------------------
# Undefined groups
# ---------------------------------------------------------------------------
def test_undefined_groups():
    # g0: labels [1, 0] (defined, MRR 1); g1: labels [0, 0] (undefined).
    y = [1, 0, 0, 0]
    s = [2.0, 1, 2, 1]
    g = [0, 0, 1, 1]
    check("mrr", 1.0, y, s, g)  # skip: mean of g0 only
    check("mrr", 0.5, y, s, g, undefined=0.0)  # (1 + 0)/2
    check("ndcg", 0.5, y, s, g, undefined=0.0)
    with pytest.raises(ValueError):
        sr.mrr_score(y, s, groups=g, undefined="raise")
    with pytest.warns(UndefinedMetricWarning):
        value = sr.mrr_score([0, 0], [1.0, 2.0], groups=[0, 0])
    assert math.isnan(value)
    # A threshold can make graded groups undefined too (same rule for NDCG):
    # g0 labels [1, 0] have no label >= 2.
    with pytest.warns(UndefinedMetricWarning):
        value = sr.ndcg_score(
            [1, 0], [1.0, 2.0], groups=[0, 0], relevance_threshold=2.0
        )
    assert math.isnan(value)


# ---------------------------------------------------------------------------
# The reference's shortcuts agree with literal enumeration
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "metric", ["ndcg", "dcg", "map", "mrr", "precision", "recall", "gauc"]
)
def test_reference_distinct_orders_equal_all_permutations(metric):
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 7))
        y = rng.integers(0, 3, n)
        s = rng.integers(0, 2, n).astype(float)
        fast = reference_per_group(metric, 3, y, s)
        slow = reference_per_group(metric, 3, y, s, exhaustive=True)
        np.testing.assert_allclose(list(fast.values()), list(slow.values()), rtol=1e-12)
    y = np.array([1, 0, 1, 0, 0])
    s = np.array([1.0, 1, 0, 0, 0])
    w = np.array([1.0, 2, 3, 1, 2])
    assert reference_pooled_auc(y, s, sample_weight=w) == approx(
        reference_pooled_auc(y, s, sample_weight=w, exhaustive=True)
    )


# ---------------------------------------------------------------------------
# Agreement with scikit-learn
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 1, 3, 7])
def test_single_group_linear_gain_matches_sklearn(seed, k):
    rng = np.random.default_rng(seed)
    n = 12
    y = rng.integers(0, 4, n)
    y[0] = 3  # at least one relevant row
    s = rng.integers(0, 4, n).astype(float)  # many ties
    groups = np.zeros(n, dtype=int)
    options = {"gain": "linear", "ties": "average"}
    if k is not None:
        options["k"] = k
    expected_ndcg = ndcg_score([y], [s], k=k)
    expected_dcg = dcg_score([y], [s], k=k)
    assert sr.ndcg_score(y, s, groups=groups, **options) == approx(expected_ndcg)
    assert sr.dcg_score(y, s, groups=groups, **options) == approx(expected_dcg)
    assert reference_mean("ndcg", k, y, s, gain="linear")[0] == approx(expected_ndcg)
    assert reference_mean("dcg", k, y, s, gain="linear")[0] == approx(expected_dcg)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_pooled_auc_matches_sklearn(seed, weighted):
    rng = np.random.default_rng(seed)
    n = 40
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, 5, n).astype(float)
    w = rng.integers(1, 5, n).astype(float) if weighted else None
    expected = roc_auc_score(y, s, sample_weight=w)
    assert sr.auc_score(y, s, sample_weight=w) == approx(expected)
    assert reference_pooled_auc(y, s, sample_weight=w) == approx(expected)
    # With groups given, auc_score still pools every row.
    g = rng.integers(0, 4, n)
    assert sr.auc_score(y, s, groups=g, sample_weight=w) == approx(expected)
