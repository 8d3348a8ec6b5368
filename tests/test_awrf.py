"""Attention-weighted rank fairness (issue 45, item 4) against an oracle written
from the TREC Fair Ranking 2021 evaluation script's definition (Python loops per
query, scipy's ``jensenshannon``; every order of a tie enumerated), a
hand-worked example and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from sklearn_rank import attention_weighted_rank_fairness as awrf
from sklearn_rank._utils.params import InvalidParameterError


def _discount(rank, kind):
    if kind == "jarvelin":  # the track's: 1 / log2(max(r, 2))
        return 1.0 / math.log2(max(rank, 2))
    return 1.0 / math.log2(rank + 1)


def _one_query(score, align, target, k, kind):
    """The track's qr_awrf for one query, the attention of a tie averaged over
    every order of the tied rows."""
    n = len(score)
    levels = sorted(set(score), reverse=True)
    blocks = [[i for i in range(n) if score[i] == v] for v in levels]
    attention, count = [0.0] * n, 0
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [i for part in parts for i in part]
        for rank, i in enumerate(order, start=1):
            if k is None or rank <= k:
                attention[i] += _discount(rank, kind)
        count += 1
    exposure = [
        sum(attention[i] / count * align[i][j] for i in range(n))
        for j in range(len(align[0]))
    ]
    if sum(exposure) == 0:
        exposure = [1.0] * len(exposure)
    return 1.0 - jensenshannon(exposure, target) ** 2


def _oracle(score, groups, align, targets, k, kind):
    ids = sorted(set(groups))
    values = []
    for q, gid in enumerate(ids):
        rows = [i for i in range(len(score)) if groups[i] == gid]
        values.append(
            _one_query(
                [score[i] for i in rows], [align[i] for i in rows], targets[q], k, kind
            )
        )
    return sum(values) / len(values)


@pytest.mark.parametrize("seed", range(30))
def test_random_cases_equal_the_track_definition(seed):
    rng = np.random.default_rng(seed)
    n_queries, c = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    groups = rng.permutation(
        np.repeat(np.arange(n_queries), rng.integers(1, 7, n_queries))
    )
    n = groups.size
    score = rng.integers(0, 4, n).astype(float)  # ties
    # several item groups per row, fractional memberships, some rows in none
    align = rng.random((n, c)) * (rng.random((n, c)) < 0.5)
    per_query = seed % 3 == 0
    target = rng.random((n_queries, c)) + 0.01 if per_query else rng.random(c) + 0.01
    targets = target if per_query else np.tile(target, (n_queries, 1))
    k = [None, 1, 3][seed % 3]
    kind = ["jarvelin", "log2"][seed % 2]
    got = awrf(
        score, groups=groups, item_groups=align, target=target, k=k, discount=kind
    )
    want = _oracle(score.tolist(), groups.tolist(), align.tolist(), targets, k, kind)
    assert got == pytest.approx(want, abs=1e-12)


def test_labels_are_one_hot_columns_in_sorted_order_and_default_target_uniform():
    score, groups = [5.0, 4, 3, 2, 1], [0, 0, 0, 1, 1]
    labels = ["b", "a", "b", "c", "a"]
    onehot = [[0, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    got = awrf(score, groups=groups, item_groups=labels)
    want = _oracle(score, groups, onehot, [[1 / 3] * 3] * 2, None, "jarvelin")
    assert got == pytest.approx(want, abs=1e-12)
    assert got == awrf(score, groups=groups, item_groups=onehot, target=[1, 1, 1])


def test_hand_worked_example():
    # Ranks 1, 2, 3 get attention 1, 1, 1/log2(3) (the track's discount). Rows
    # a, a, b: p = (2, 1/log2 3) / (2 + 1/log2 3); target (1/2, 1/2).
    d3 = 1 / math.log2(3)
    p = np.array([2.0, d3]) / (2 + d3)
    q = np.array([0.5, 0.5])
    m = (p + q) / 2
    jsd = 0.5 * sum(p * np.log(p / m)) + 0.5 * sum(q * np.log(q / m))
    got = awrf([3, 2, 1], groups=[7, 7, 7], item_groups=["a", "a", "b"])
    assert got == pytest.approx(1 - jsd, abs=1e-15)
    # By hand: p = (0.760189, 0.239811), m = (0.630095, 0.369905), JSD = 0.036903.
    assert got == pytest.approx(0.9631, abs=1e-5)
    # Only a in the list: p = (1, 0), JSD = 3/4 ln(4/3).
    only_a = awrf([2, 1], groups=[0, 0], item_groups=[[1, 0], [1, 0]])
    assert only_a == pytest.approx(1 - 0.75 * math.log(4 / 3), abs=1e-15)
    # A target equal to the exposure: 1. No attention on any item group (every
    # membership 0): uniform, as the track's script.
    assert awrf([3, 2, 1], groups=[0] * 3, item_groups=["a", "a", "b"], target=p) == (
        pytest.approx(1.0, abs=1e-15)
    )
    zero = awrf([2, 1], groups=[0, 0], item_groups=[[0, 0], [0, 0]], target=[1, 3])
    u, t = np.array([0.5, 0.5]), np.array([0.25, 0.75])
    mid = (u + t) / 2
    want = 1 - 0.5 * (sum(u * np.log(u / mid)) + sum(t * np.log(t / mid)))
    assert zero == pytest.approx(want, abs=1e-15)


def test_inputs_not_modified():
    score, align, target = np.array([3.0, 2, 1]), np.eye(3), np.array([1.0, 2, 3])
    copies = score.copy(), align.copy(), target.copy()
    awrf(score, groups=[0, 0, 0], item_groups=align, target=target)
    for a, b in zip((score, align, target), copies, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"item_groups": [[1, 0], [0, -1]]}, "item_groups"),
        ({"item_groups": ["a"]}, "item_groups"),
        ({"item_groups": ["a", "b"], "target": [1, 1, 1]}, "target"),
        ({"item_groups": ["a", "b"], "target": [0, 0]}, "target"),
        ({"item_groups": ["a", "b"], "target": [np.nan, 1]}, "target"),
        ({"item_groups": ["a", "b"], "target": {"a": 1}}, "target"),
        ({"item_groups": [["x", 1], [1, 0]]}, "item_groups"),
        ({"item_groups": ["a", "b"], "k": 0}, "k"),
        ({"item_groups": ["a", "b"], "discount": "cubic"}, "discount"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises((InvalidParameterError, ValueError), match=match):
        awrf([2.0, 1.0], groups=[0, 0], **kwargs)
