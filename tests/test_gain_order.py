"""The ideal ranking's order (the ``ideal_order`` convention keyword).

``"gain"`` sorts the judged rows of positive gain by gain; ``"trec_eval"`` is
trec_eval's level order (gain_init.c: glibc's merge sort with a comparator that
truncates gain differences). The engine is compared with hand-worked values and
with the brute-force walk of tests/_reference.py; the command line's numbers
with the trec_eval binary's (tests/test_trec_eval_silent_differences.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import reference_per_group

from sklearn_rank import dcg_score, evaluate_per_group, ndcg_score
from sklearn_rank._engine.conventions import LevelGains
from sklearn_rank._engine.gain_order import trec_level_order

TREC = {"convention": "trec_eval"}


def test_trec_level_order_keeps_the_list_order_of_gains_less_than_1_apart():
    # The pairs first, then the other levels: 0.5 and 0 compare equal (0.5
    # truncates to 0), so level 1 stays below level 0.
    order = trec_level_order(((1, 0.5),), 3, float)
    assert [(level, gain) for level, gain, _ in order] == [(1, 0.5), (0, 0.0), (2, 2.0)]
    # Integer differences: the plain sort by gain.
    order = trec_level_order(((1, 3.0),), 3, float)
    assert [level for level, _, _ in order] == [0, 2, 1]


@pytest.mark.parametrize(
    ("gain", "expected"),
    [
        # [(1, 0.5), (0, 0)] sorted: the top item (level 0) has gain 0, the walk
        # never starts, the ideal list is empty: undefined.
        (LevelGains([(1, 0.5)]), math.nan),
        ({1: 0.5, 0: 0.0}, math.nan),
        # [(0, 0), (1, 0.5)]: level 1 on top, the ideal list is [0.5].
        ({0: 0.0, 1: 0.5}, 1.0),
    ],
)
def test_trec_eval_order_depends_on_the_list_order(gain, expected):
    y, score, groups = [1, 0], [2.0, 1.0], [0, 0]
    by_gain = ndcg_score(y, score, groups=groups, gain=gain, **TREC, ideal_order="gain")
    assert by_gain == 1.0  # the mathematically ideal ranking
    found = evaluate_per_group(
        y, score, groups=groups, metrics=["ndcg"], gain=gain, **TREC
    ).values["ndcg"][0]
    assert found == pytest.approx(expected, nan_ok=True)


def test_unjudged_rows_gain_levels_minus_1_and_minus_2():
    # Outside the pool: level -1 (gain 2); in the pool, unjudged: -2 (gain 1).
    found = evaluate_per_group(
        [0, 0, 1],
        [3.0, 2.0, 1.0],
        groups=[0, 0, 0],
        metrics=["dcg"],
        judged=[False, False, True],
        in_pool=[False, True, True],
        gain=LevelGains([(-1, 2.0), (-2, 1.0)]),
        **TREC,
    ).values["dcg"][0]
    assert found == pytest.approx(2.0 + 1.0 / math.log2(3) + 1.0 / math.log2(4))
    # Without the levels, unjudged rows gain 0 (as before).
    plain = dcg_score(
        [0, 0, 1], [3.0, 2.0, 1.0], groups=[0] * 3, judged=[False, False, True], **TREC
    )
    assert plain == pytest.approx(0.5)


GAINS = [
    {2: 0.5, 0: 0.2, 4: 1.2, 1: 0.9, 3: 0.0},
    {1: 0.5, 0: 0.0, 2: 2.0, 3: 2.7, 4: 2.1},
    LevelGains([(3, 0.4), (1, 1.3), (0, 1.0)]),
    LevelGains([(2, -0.5), (1, 0.6)]),
]


@pytest.mark.parametrize("order", ["gain", "trec_eval"])
@pytest.mark.parametrize("gain", GAINS, ids=range(len(GAINS)))
@pytest.mark.parametrize("metric", ["ndcg", "dcg", "g", "ndcg_rel", "rndcg"])
def test_ideal_order_agrees_with_the_brute_force_walk(metric, gain, order):
    # Random integer grades 0..4 (some unjudged), distinct scores (no ties).
    rng = np.random.default_rng(len(str(gain)) + len(metric))
    n = 240
    y = rng.integers(0, 5, n).astype(float)
    score = rng.permutation(n).astype(float)
    groups = np.repeat(np.arange(24), 10)
    judged = rng.random(n) < 0.8
    y[~judged] = 0.0  # an unjudged row carries no grade
    options = {
        "gain": gain,
        "ideal_order": order,
        "gain_rows": "judged",
        "ties": "stable",
        "judged": judged,
    }
    if metric not in ("ndcg", "dcg"):
        del options["gain_rows"]
    if metric == "dcg":  # a plain sum: its groups are defined by gain order
        del options["ideal_order"]
    found = evaluate_per_group(y, score, groups=groups, metrics=[metric], **options)
    oracle_options = dict(options, gain=dict(gain) if isinstance(gain, dict) else gain)
    expected = reference_per_group(metric, None, y, score, groups, **oracle_options)
    assert found.values[metric] == pytest.approx(
        [expected[g] for g in range(24)], rel=1e-12, nan_ok=True
    )


def test_g_refuses_unjudged_gains_that_pass_the_ideal_cost():
    # Unjudged rows gaining 2 each run ahead of the ideal cost (one judged row
    # of gain 1): log2(2 + C - S) <= 0, trec_eval's nan; an error here.
    with pytest.raises(ValueError, match="passes its ideal cost"):
        evaluate_per_group(
            [0, 0, 0, 1],
            [4.0, 3.0, 2.0, 1.0],
            groups=[0] * 4,
            metrics=["g"],
            judged=[False, False, False, True],
            gain=LevelGains([(-1, 2.0)]),
            **TREC,
        )
