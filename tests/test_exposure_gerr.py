"""Expected exposure under the cascade browsing model (expeval's ``-u gerr``):
against a brute force that enumerates every order of every tie and every ideal
ranking and computes expeval's formula literally, expeval's closed-form target,
rank-biased precision at ``stop=0``, hand-worked examples and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import hypergeom
from test_exposure import _case, _oracle, _orders

from sklearn_rank import expected_exposure
from sklearn_rank._engine.context import GroupTotals, RankingContext
from sklearn_rank._engine.kernels.exposure import row_cascade_exposure, row_exposure
from sklearn_rank._utils.params import InvalidParameterError

# -- brute force: expeval's exposure.expected, every order of every tie ------------


def _cascade(keys, grades, p, u):
    """Per row, expeval's ``p**i * (1-u)**relret`` (``i`` the 0-based rank,
    ``relret`` the rows of grade > 0 above), averaged over every order of the
    ties of ``keys``."""
    total, count = np.zeros(len(keys)), 0
    for order in _orders(keys):
        relret = 0
        for i, did in enumerate(order):
            total[did] += p**i * (1.0 - u) ** relret
            if grades[did] > 0:
                relret += 1
        count += 1
    return total / count


@pytest.mark.parametrize("seed", range(30))
def test_random_cases_equal_expeval_literally(seed):
    rng = np.random.default_rng(100 + seed)
    y, s, g, w = _case(rng)
    p = float(rng.choice([0.0, 0.3, 0.5, 0.9, 1.0]))
    u = float(rng.choice([0.0, 0.2, 0.5, 0.8, 1.0]))
    got = expected_exposure(
        y, s, groups=g, patience=p, browsing="gerr", stop=u, sample_weight=w
    )
    want = _oracle(y, s, g, w, p, lambda keys, grades: _cascade(keys, grades, p, u))
    for name in want:
        assert got[name] == pytest.approx(want[name], abs=1e-12, rel=1e-12), name


@pytest.mark.parametrize("seed", range(6))
def test_row_exposure_of_big_ties_equals_the_brute_force(seed):
    # One query of 7 rows in one or two tie blocks, relevant rows mixed: the
    # exposure of every row, not only the sums.
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=7)
    s = rng.integers(0, 2 if seed % 2 else 1, size=7).astype(float)
    p, u = float(rng.uniform(0.2, 1.0)), float(rng.uniform(0.0, 1.0))
    totals = GroupTotals.from_inputs(y, np.zeros(7, np.intp), 1, ties="average")
    got = row_cascade_exposure(RankingContext.from_scores(totals, s), p, u)
    want = _cascade(list(s), list(y), p, u)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("p", [0.5, 0.97, 1.0])
def test_a_long_tie_equals_the_hypergeometric_expectation(p):
    # 5 untied rows (2 relevant) then a block of 300 rows, 120 relevant. A row
    # of the block at its j-th rank has H of the other 299 rows above it, K'
    # of them relevant (119 for a relevant row, 120 for another):
    # E = (1 / b) sum_j p ** (5 + j - 1) (1 - u) ** (2 + H).
    u, b, k = 0.3, 300, 120
    y = np.r_[1, 0, 1, 0, 0, np.ones(k), np.zeros(b - k)].astype(int)
    s = np.r_[10.0, 9, 8, 7, 6, np.zeros(b)]
    totals = GroupTotals.from_inputs(y, np.zeros(y.size, np.intp), 1, ties="average")
    got = row_cascade_exposure(RankingContext.from_scores(totals, s), p, u)
    j = np.arange(1, b + 1)
    h = np.arange(b)
    want = {}
    for others in (k - 1, k):
        pmf = hypergeom.pmf(h[None, :], b - 1, others, (j - 1)[:, None])
        e_x = pmf @ (1.0 - u) ** h
        want[others] = np.sum(p ** (5 + j - 1.0) * (1 - u) ** 2 * e_x) / b
    np.testing.assert_allclose(got[5 : 5 + k], want[k - 1], rtol=1e-12)
    np.testing.assert_allclose(got[5 + k :], want[k], rtol=1e-12)
    head = [1, p * (1 - u), p**2 * (1 - u), p**3 * (1 - u) ** 2, p**4 * (1 - u) ** 2]
    np.testing.assert_allclose(got[:5], head, rtol=1e-15)


def _expeval_target(grades, p, u):
    """expeval's exposure.target for gerr, its closed form per grade (p < 1)."""
    levels = sorted(set(grades), reverse=True)
    b, per = 0, {}
    for g in levels:
        m = grades.count(g)
        pp = p * (1.0 - u)
        if g > 0:
            per[g] = (pp**b - pp ** (b + m)) / (m * (1.0 - pp))
        else:
            per[g] = (1.0 - u) ** b * (p**b - p ** (b + m)) / (m * (1.0 - p))
        b += m
    return np.array([per[g] for g in grades])


def test_target_equals_expevals_closed_form():
    # With the run equal to the target's ideal ranking ee_r is |target|^2.
    y = [2, 0, 1, 2, 0, 1, 1]
    for p, u in [(0.5, 0.5), (0.8, 0.3), (0.3, 1.0)]:
        t = _expeval_target(y, p, u)
        got = expected_exposure(
            y, y, groups=[0] * 7, patience=p, browsing="gerr", stop=u
        )
        assert got["ee_r"] == pytest.approx(np.sum(t**2), rel=1e-13)
        assert got["ee_l"] == pytest.approx(0.0, abs=1e-15)


def test_stop_zero_is_rank_biased_precision_exactly():
    rng = np.random.default_rng(7)
    y, s, g, w = _case(rng)
    rbp = expected_exposure(y, s, groups=g, patience=0.7, sample_weight=w)
    gerr = expected_exposure(
        y, s, groups=g, patience=0.7, browsing="gerr", stop=0.0, sample_weight=w
    )
    assert gerr == rbp
    # The cascade kernel itself, at stop 0, to rounding.
    totals = GroupTotals.from_inputs(y, g, int(g.max()) + 1, ties="average")
    first = np.asarray(s, float).reshape(y.size, -1)[:, 0]
    ctx = RankingContext.from_scores(totals, first)
    np.testing.assert_allclose(
        row_cascade_exposure(ctx, 0.7, 0.0), row_exposure(ctx, 0.7), rtol=1e-14
    )


def test_hand_worked_examples():
    # Grades 1, 1, 0 at ranks 1, 2, 3 (p = u = 1/2): exposures 1, 1/2 * 1/2,
    # 1/4 * 1/4. Target: the two relevant rows share (1 + 1/4) / 2, the third
    # gets 1/4 * 1/4.
    y = [1, 1, 0]
    got = expected_exposure(y, [3, 2, 1], groups=[0] * 3, browsing="gerr")
    e, t = np.array([1, 0.25, 0.0625]), np.array([0.625, 0.625, 0.0625])
    assert got == {
        "ee_l": pytest.approx(np.sum((e - t) ** 2), abs=1e-15),
        "ee_d": pytest.approx(np.sum(e**2), abs=1e-15),
        "ee_r": pytest.approx(np.sum(e * t), abs=1e-15),
    }
    # All three tied: the 6 orders give relevant row a 1, 1, 1/4, 1/8, 1/2, 1/8
    # (mean 1/2) and the other row 1/16, 1/4, 1/16, 1/4, 1, 1 (mean 7/16).
    tied = expected_exposure(y, [1, 1, 1], groups=[0] * 3, browsing="gerr")
    e = np.array([0.5, 0.5, 7 / 16])
    assert tied["ee_d"] == pytest.approx(np.sum(e**2), abs=1e-15)
    assert tied["ee_l"] == pytest.approx(11 / 64, abs=1e-15)
    # stop = 1: nothing below the first relevant row is seen.
    first = expected_exposure(
        [0, 1, 1], [3, 2, 1], groups=[0] * 3, browsing="gerr", stop=1.0
    )
    assert first["ee_d"] == pytest.approx(1 + 0.25, abs=1e-15)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"browsing": "err"}, r"'browsing' parameter of expected_exposure"),
        ({"browsing": "gerr", "stop": 1.5}, r"'stop' parameter of expected_exposure"),
        ({"browsing": "gerr", "stop": "half"}, r"'stop' parameter"),
        ({"stop": 0.5}, r"'stop' parameter.*None with browsing=\"rbp\""),
    ],
)
def test_bad_input(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        expected_exposure([1, 0, 0], [0.3, 0.2, 0.1], groups=[0, 0, 0], **kw)
