"""Fairness of exposure (issue 45, item 4): expected exposure (Diaz et al., 2020)
and exposure per item group, against a brute force that enumerates every order of
a tie and every ideal ranking, a hand-worked example and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sklearn_rank import expected_exposure, exposure_by_item_group
from sklearn_rank._utils.params import InvalidParameterError

# -- brute force -----------------------------------------------------------------


def _orders(keys):
    """Every ranking of the rows by descending key, each order of a tie once."""
    levels = sorted(set(keys), reverse=True)
    blocks = [[i for i, v in enumerate(keys) if v == lv] for lv in levels]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [i for part in parts for i in part]


def _exposure(keys, patience):
    """Per row, patience ** (rank - 1) averaged over every order of the ties."""
    total, count = np.zeros(len(keys)), 0
    for order in _orders(keys):
        for rank, i in enumerate(order, start=1):
            total[i] += patience ** (rank - 1)
        count += 1
    return total / count


def _oracle(y, s, g, w, patience, exposure=None):
    """Means over queries, weighted by the mean row weight. ``exposure(keys,
    grades)``: per row of a query ranked by ``keys`` (None: rank-biased
    precision's, :func:`_exposure`)."""
    if exposure is None:

        def exposure(keys, grades):
            return _exposure(keys, patience)

    per = {"ee_l": [], "ee_d": [], "ee_r": []}
    weights = []
    s = np.asarray(s, dtype=float).reshape(len(y), -1)
    for q in dict.fromkeys(g):
        rows = [i for i in range(len(g)) if g[i] == q]
        grades = [y[i] for i in rows]
        target = exposure(grades, grades)  # every ideal ranking
        draws = [exposure([s[i, j] for i in rows], grades) for j in range(s.shape[1])]
        e = np.mean(draws, axis=0)
        per["ee_l"].append(float(np.sum((e - target) ** 2)))
        per["ee_d"].append(float(np.sum(e**2)))
        per["ee_r"].append(float(np.sum(e * target)))
        weights.append(np.mean([w[i] for i in rows]))
    return {k: float(np.average(v, weights=weights)) for k, v in per.items()}


def _case(rng):
    n_groups = int(rng.integers(1, 5))
    sizes = rng.integers(1, 7, size=n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    rng.shuffle(g)
    y = rng.integers(0, 3, size=g.size)
    draws = int(rng.choice([1, 1, 3]))
    s = rng.integers(0, 4, size=(g.size, draws)).astype(float)  # ties
    w = rng.uniform(0.5, 2.0, size=g.size)
    return y, (s[:, 0] if draws == 1 else s), g, w


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_equal_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    y, s, g, w = _case(rng)
    patience = float(rng.choice([0.0, 0.3, 0.5, 0.9, 1.0]))
    got = expected_exposure(y, s, groups=g, patience=patience, sample_weight=w)
    want = _oracle(y, s, g, w, patience)
    assert got.keys() == want.keys()
    for name in want:
        assert got[name] == pytest.approx(want[name], abs=1e-12, rel=1e-12), name


def test_hand_worked_example_and_the_identity():
    # Grades 2, 1, 0, 0. Exposures (patience 0.5) 1, 0.5, 0.25, 0.125. Target: the
    # ideal ranks the 2 first, the 1 second, the two 0s share (0.25 + 0.125) / 2.
    y, g = [2, 1, 0, 0], [7] * 4
    got = expected_exposure(y, [1, 4, 3, 2], groups=g)  # ranks 4, 1, 2, 3
    e = np.array([0.125, 1.0, 0.5, 0.25])
    t = np.array([1.0, 0.5, 0.1875, 0.1875])
    assert got["ee_l"] == pytest.approx(np.sum((e - t) ** 2), abs=1e-15)
    assert got["ee_d"] == pytest.approx(np.sum(e**2), abs=1e-15)
    assert got["ee_r"] == pytest.approx(np.sum(e * t), abs=1e-15)
    assert got["ee_l"] == pytest.approx(
        got["ee_d"] - 2 * got["ee_r"] + np.sum(t**2), abs=1e-15
    )
    # The ideal ranker that shuffles the tied 0s is exactly fair.
    fair = expected_exposure(y, [[4, 4], [3, 3], [2, 1], [1, 2]], groups=g)
    assert fair["ee_l"] == 0.0


def test_a_stochastic_ranker_sampled_approaches_its_expectation():
    # Plackett-Luce over 4 rows: many sampled rankings against the exact expected
    # exposure (every permutation weighted by its probability).
    rng = np.random.default_rng(0)
    logits = np.array([1.0, 0.5, 0.0, -0.5])
    p = np.exp(logits) / np.exp(logits).sum()
    exact = np.zeros(4)
    for perm in itertools.permutations(range(4)):
        left, prob = list(range(4)), 1.0
        for i in perm:
            prob *= p[i] / p[left].sum()
            left.remove(i)
        for rank, i in enumerate(perm, start=1):
            exact[i] += prob * 0.5 ** (rank - 1)
    gumbel = logits[:, None] + rng.gumbel(size=(4, 20000))  # Plackett-Luce draws
    y = [1, 1, 0, 0]
    got = expected_exposure(y, gumbel, groups=[0] * 4)
    assert got["ee_d"] == pytest.approx(np.sum(exact**2), abs=2e-3)


def test_exposure_by_item_group_equals_the_brute_force():
    rng = np.random.default_rng(3)
    g = np.repeat([0, 1, 2], [4, 3, 5])
    s = rng.integers(0, 3, size=(g.size, 2)).astype(float)
    kinds = rng.choice(["big", "small", "new"], size=g.size)
    got = exposure_by_item_group(s, groups=g, item_groups=kinds, patience=0.7)
    e = np.zeros(g.size)
    for q in np.unique(g):
        rows = np.flatnonzero(g == q)
        e[rows] = np.mean([_exposure(list(s[rows, j]), 0.7) for j in range(2)], 0)
    assert list(got) == sorted(set(kinds))
    for kind, value in got.items():
        assert value == pytest.approx(e[kinds == kind].mean(), abs=1e-15)


def test_inputs_not_modified():
    y, s = np.array([1, 0, 2]), np.array([[0.3, 0.1], [0.2, 0.2], [0.1, 0.3]])
    y0, s0 = y.copy(), s.copy()
    expected_exposure(y, s, groups=[1, 1, 1])
    assert np.array_equal(y, y0) and np.array_equal(s, s0)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"patience": 1.5}, r"'patience' parameter of expected_exposure"),
        ({"patience": -0.1}, r"'patience' parameter"),
        ({"y_score": np.zeros((3, 1, 1))}, "n_rankings"),
        ({"y_score": [0.1, np.nan, 0.2]}, "finite scores"),
    ],
)
def test_bad_input(kw, match):
    args = {"y_score": [0.3, 0.2, 0.1], "groups": [0, 0, 0]} | kw
    with pytest.raises(InvalidParameterError, match=match):
        expected_exposure([1, 0, 0], **args)


def test_scores_of_another_length():
    with pytest.raises(ValueError, match="y_true=3, y_score=2"):
        expected_exposure([1, 0, 0], [[0.1], [0.2]], groups=[0, 0, 0])


def test_bad_item_groups():
    with pytest.raises(InvalidParameterError, match="'item_groups' parameter"):
        exposure_by_item_group([1, 2, 3], groups=[0, 0, 0], item_groups=["a", "b"])
