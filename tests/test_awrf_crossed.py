"""AWRF over crossed fairness categories (issue 45): the TREC Fair Ranking 2022
track's intersectional groups. The oracle is written from the track's evaluation
code (fair-trec/trec2022-fair-public, commit 227e284: ``wptrec/dimension.py``
crosses a page's per-dimension alignments by an outer product,
``wptrec/metrics/awrf.py`` takes the attention-weighted mean of the crossed
alignments with ``1 / log2(max(r, 2))``, ``1 - jensenshannon(p, q) ** 2``;
``Task1Alignment.py``'s target starts from the mean crossed alignment of the
relevant pages): Python loops over rows and level tuples, scipy only for the
divergence; plus hand-worked values."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from sklearn_rank import (
    attention_weighted_rank_fairness,
    cross_item_groups,
    relevant_item_group_shares,
)
from sklearn_rank._utils.params import InvalidParameterError


def _category_rows(category):
    """Per row, {level: membership}: a label is membership 1 in its level."""
    if np.ndim(category) == 1:
        levels = sorted(set(category))
        return levels, [{level: 1.0} for level in category]
    levels = list(range(len(category[0])))
    return levels, [dict(enumerate(row)) for row in category]


def _crossed_rows(categories):
    """The crossed levels (first category slowest) and each row's membership in
    each: the product of its per-category memberships."""
    parts = [_category_rows(c) for c in categories]
    crossed = list(itertools.product(*(levels for levels, _ in parts)))
    n = len(parts[0][1])
    rows = [
        [
            math.prod(parts[c][1][i].get(t[c], 0.0) for c in range(len(parts)))
            for t in crossed
        ]
        for i in range(n)
    ]
    return crossed, rows


def _track_awrf(score, groups, rows, targets):
    """Per query (sorted ids): rows by descending score (distinct scores), the
    attention-weighted mean of their crossed alignments, 1 - JSD in nats."""
    values = []
    for q, gid in enumerate(sorted(set(groups))):
        mine = sorted(
            (i for i in range(len(score)) if groups[i] == gid), key=lambda i: -score[i]
        )
        weights = [1.0 / math.log2(max(r, 2)) for r in range(1, len(mine) + 1)]
        p = [
            sum(w * rows[i][j] for w, i in zip(weights, mine, strict=True))
            / sum(weights)
            for j in range(len(rows[0]))
        ]
        values.append(1.0 - jensenshannon(p, targets[q]) ** 2)
    return sum(values) / len(values)


def _track_target(relevance, groups, rows):
    """Per query, the mean crossed alignment of its relevant rows."""
    out = []
    for gid in sorted(set(groups)):
        rel = [i for i in range(len(groups)) if groups[i] == gid and relevance[i] > 0]
        out.append(
            [sum(rows[i][j] for i in rel) / len(rel) for j in range(len(rows[0]))]
        )
    return out


def _case(seed):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 4))
    groups = rng.permutation(
        np.repeat(np.arange(n_queries), rng.integers(2, 7, n_queries))
    )
    n = groups.size
    categories = []
    for _ in range(int(rng.integers(2, 4))):
        m = int(rng.integers(2, 4))
        if rng.random() < 0.5:  # one label per row
            categories.append(rng.choice(["x", "y", "z"][:m], n).tolist())
        else:  # an alignment per row (a distribution, some rows one level only)
            a = rng.random((n, m)) * (rng.random((n, m)) < 0.7)
            a[a.sum(axis=1) == 0, 0] = 1.0
            categories.append((a / a.sum(axis=1, keepdims=True)).tolist())
    relevance = rng.integers(0, 3, n)
    for q in range(n_queries):  # a relevant row in every query
        relevance[np.flatnonzero(groups == q)[0]] = 1
    score = rng.permutation(n).astype(float)
    return score, groups, categories, relevance


@pytest.mark.parametrize("seed", range(20))
def test_random_cases_equal_the_track_definition(seed):
    score, groups, categories, relevance = _case(seed)
    labels, rows = _crossed_rows(categories)
    target = _track_target(relevance.tolist(), groups.tolist(), rows)
    crossed = cross_item_groups(categories)
    assert crossed.labels == labels
    np.testing.assert_allclose(crossed.memberships, rows, rtol=0, atol=1e-15)
    shares = relevant_item_group_shares(
        relevance, groups=groups, item_groups=crossed.memberships
    )
    np.testing.assert_allclose(shares, target, rtol=0, atol=1e-15)
    # the oracle's own target and columns: a column order of ours that
    # disagreed with the labels would fail here
    got = attention_weighted_rank_fairness(
        score, groups=groups, item_groups=crossed.memberships, target=target
    )
    want = _track_awrf(score.tolist(), groups.tolist(), rows, target)
    assert got == pytest.approx(want, abs=1e-12)


def test_hand_worked_example():
    # Gender {f, m} x region {n, s}; ranked (f, n), (m, n), (f, s): attention
    # 1, 1, 1/log2(3) = 0.63093 over the crossed groups (f,n) (f,s) (m,n) (m,s).
    crossed = cross_item_groups([["f", "m", "f"], ["n", "n", "s"]])
    assert crossed.labels == [("f", "n"), ("f", "s"), ("m", "n"), ("m", "s")]
    a = 1 / math.log2(3)
    total = 2 + a
    p = [
        1 / total,
        a / total,
        1 / total,
        0.0,
    ]  # 0.38010, 0.23981, 0.38010, 0: JSD 0.10022
    q = [0.25] * 4  # uniform
    m = [(x + y) / 2 for x, y in zip(p, q, strict=True)]
    jsd = 0.5 * sum(
        x * math.log(x / z) for x, z in zip(p, m, strict=True) if x
    ) + 0.5 * sum(y * math.log(y / z) for y, z in zip(q, m, strict=True))
    assert jsd == pytest.approx(0.1002235, abs=1e-7)
    got = attention_weighted_rank_fairness(
        [3, 2, 1], groups=[0, 0, 0], item_groups=crossed.memberships
    )
    assert got == pytest.approx(1 - jsd, abs=1e-15)
    # The target of the relevant rows (1 and 3): (f, n) and (f, s) half each;
    # p against it: only (m, n) off target.
    target = relevant_item_group_shares(
        [1, 0, 2], groups=[0, 0, 0], item_groups=crossed.memberships
    )
    assert target.tolist() == [[0.5, 0.5, 0.0, 0.0]]


def test_alignments_cross_as_products():
    # A row half f, half m (the track's alignment) in region s: (f,s), (m,s) 1/2.
    crossed = cross_item_groups([[[0.5, 0.5], [1.0, 0.0]], ["s", "n"]])
    assert crossed.labels == [(0, "n"), (0, "s"), (1, "n"), (1, "s")]
    assert crossed.memberships.tolist() == [[0, 0.5, 0, 0.5], [1, 0, 0, 0]]


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'categories' parameter"):
        cross_item_groups([["a", "b"], ["a"]])
    with pytest.raises(InvalidParameterError, match="non-empty sequence"):
        cross_item_groups([])
    with pytest.raises(InvalidParameterError, match="none in query 1"):
        relevant_item_group_shares([1, 0], groups=[0, 1], item_groups=["a", "b"])
