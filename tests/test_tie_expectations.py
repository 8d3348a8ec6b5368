"""Exact expectations over tie orders that need more than block means.

ERR with ``ties="average"`` on tie blocks that mix grades, and AP with
``ap_denominator="n_relevant_retrieved"`` where a tie block that mixes relevance
straddles the cutoff. The cases are built so that every group holds such a block
(the general property tests draw them too, but only some of the time); every value
is compared with the slow reference of ``_reference.py``, which enumerates the
orders. Large blocks, beyond enumeration, are compared with closed forms written
here in exact rational arithmetic, and the documented block-size limit of ERR is
pinned at its edge.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import reference_per_group
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sklearn_rank as sr
from sklearn_rank._engine.kernels import cascade as _cascade

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12, nan_ok=True)


def _per_group(metric, k, y, s, g, **opts):
    name = metric if k is None else f"{metric}@{k}"
    got = sr.evaluate_per_group(y, s, groups=g, metrics=[name], **opts)
    return np.asarray(got.values[name], dtype=float).tolist()


@st.composite
def mixed_grade_cases(draw):
    """Groups of 2-8 rows with scores from at most 3 values, each group holding
    at least one tie block of two different grades."""
    top = draw(st.sampled_from([1, 2, 4]))
    y, s, g = [], [], []
    for gid in range(draw(st.integers(1, 4))):
        size = draw(st.integers(2, 8))
        labels = draw(st.lists(st.integers(0, top), min_size=size, max_size=size))
        scores = draw(
            st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=size, max_size=size)
        )
        # Rows 0 and 1 tie with different grades.
        scores[1] = scores[0]
        if labels[0] == labels[1]:
            labels[1] = (labels[0] + 1) % (top + 1)
        y += labels
        s += scores
        g += [gid] * size
    perm = draw(st.permutations(range(len(y))))
    take = np.array(perm, dtype=np.intp)
    return (
        np.array(y, dtype=float)[take],
        np.array(s)[take],
        np.array(g)[take],
        float(top),
    )


@SETTINGS
@given(case=mixed_grade_cases(), k=st.sampled_from([None, 1, 2, 3, 5]), data=st.data())
def test_err_mixed_grade_blocks_agree_with_reference(case, k, data):
    y, s, g, top = case
    max_grade = top + data.draw(st.sampled_from([0.0, 0.5]), label="extra")
    want = reference_per_group("err", k, y, s, g, max_grade=max_grade)
    got = _per_group("err", k, y, s, g, max_grade=max_grade)
    assert got == approx([want[i] for i in sorted(want)])


@st.composite
def straddling_cases(draw):
    """Groups with a tie block mixing relevance across the cutoff ``k``: ``above``
    untied rows (fewer than k), then the block of ``m`` rows with
    ``above + m > k``, then a few more rows; scores may tie elsewhere too."""
    k = draw(st.integers(1, 4))
    y, s, g = [], [], []
    for gid in range(draw(st.integers(1, 4))):
        above = draw(st.integers(0, k - 1))
        m = draw(st.integers(max(2, k - above + 1), k - above + 3))
        after = draw(st.integers(0, 2))
        block = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
        block[0], block[1] = 0, draw(st.integers(1, 2))  # relevant and not
        y += draw(st.lists(st.integers(0, 2), min_size=above, max_size=above))
        s += [10.0 - i for i in range(above)]
        y += block + draw(st.lists(st.integers(0, 2), min_size=after, max_size=after))
        s += [5.0] * m + draw(
            st.lists(st.sampled_from([1.0, 2.0]), min_size=after, max_size=after)
        )
        g += [gid] * (above + m + after)
    perm = np.array(draw(st.permutations(range(len(y)))), dtype=np.intp)
    return np.array(y, dtype=float)[perm], np.array(s)[perm], np.array(g)[perm], k


@SETTINGS
@given(case=straddling_cases(), threshold=st.sampled_from(["positive", 2.0]))
def test_ap_n_relevant_retrieved_straddling_blocks_agree_with_reference(
    case, threshold
):
    y, s, g, k = case
    opts = {"ap_denominator": "n_relevant_retrieved", "relevance_threshold": threshold}
    want = reference_per_group("map", k, y, s, g, **opts)
    got = _per_group("map", k, y, s, g, **opts)
    assert got == approx([want[i] for i in sorted(want)])


def test_reference_enumeration_matches_every_permutation():
    # The reference averages over distinct label arrangements; on a small mixed
    # block that equals the literal mean over all m! orders.
    y = np.array([2, 0, 1, 2, 0, 1.0])
    s = np.array([1, 1, 1, 1, 0.5, 1.0])
    for k in (None, 2, 4):
        fast = reference_per_group("err", k, y, s, max_grade=2.0)
        slow = reference_per_group("err", k, y, s, max_grade=2.0, exhaustive=True)
        assert fast[0] == approx(slow[0])
        opts = {"ap_denominator": "n_relevant_retrieved"}
        fast = reference_per_group("map", k, y, s, **opts)
        slow = reference_per_group("map", k, y, s, exhaustive=True, **opts)
        assert fast[0] == approx(slow[0])


# -- ERR's block-size limit ---
def _binary_err_block(n, n_rel, a, k):
    """E[ERR@k contribution] of a block of ``n`` tied rows, ``n_rel`` of them of
    grade 1 (stop 1/2, binary scale), starting at position ``a``, reached with
    probability 1: the i-th relevant row (reached with (1/2)**(i-1)) sits at
    offset j with probability C(j, i-1) C(n-1-j, n_rel-i) / C(n, n_rel)
    (i - 1 relevant rows among the j in front of it). Exact fractions."""
    total = Fraction(0)
    ways = math.comb(n, n_rel)
    for i in range(1, n_rel + 1):
        for j in range(i - 1, n - n_rel + i):
            if k is not None and a + j > k:
                break
            p = Fraction(math.comb(j, i - 1) * math.comb(n - 1 - j, n_rel - i), ways)
            total += p * Fraction(1, 2**i) / (a + j)
    return total


@pytest.mark.parametrize("k", [None, 40, 1025])
def test_err_block_at_the_limit_matches_a_closed_form(k):
    n = _cascade.ERR_TIE_BLOCK_LIMIT
    rng = np.random.default_rng(3)
    y = np.zeros(n + 2)
    y[2 + rng.choice(n, size=25, replace=False)] = 1.0
    y[0], y[1] = 0.0, 1.0  # two untied rows above: reach 1/2, block at position 3
    s = np.r_[3.0, 2.0, np.ones(n)]
    # Row 2 (grade 1) gives (1/2)/2; the block is reached with probability 1/2.
    expected = Fraction(1, 4) + Fraction(1, 2) * _binary_err_block(n, 25, 3, k)
    got = sr.err_score(y, s, groups=np.zeros(n + 2), k=k)
    assert got == pytest.approx(float(expected), rel=1e-12)


def test_err_block_beyond_the_limit_raises():
    n = _cascade.ERR_TIE_BLOCK_LIMIT + 1
    y = np.zeros(n)
    y[::7] = 1.0
    s = np.ones(n)
    with pytest.raises(ValueError, match=r"ERR_TIE_BLOCK_LIMIT=1024 rows"):
        sr.err_score(y, s, groups=np.zeros(n))
    # Beyond the limit but past the cutoff, of one grade, or resolved: no error.
    s_after = np.r_[2.0, s[1:]]
    assert sr.err_score(y, s_after, groups=np.zeros(n), k=1) == 0.5
    assert sr.err_score(np.ones(n), s, groups=np.zeros(n)) > 0
    assert sr.err_score(y, s, groups=np.zeros(n), ties="stable") > 0.5


def test_err_limit_edge_on_a_small_analogue(monkeypatch):
    # The same code with the limit lowered to 7: a 7-row block of four grades is
    # exact (checked against every order), an 8-row block raises.
    monkeypatch.setattr(_cascade, "ERR_TIE_BLOCK_LIMIT", 7)
    y = np.array([3, 0, 1, 2, 3, 0, 1, 2.0])
    s = np.array([9, 1, 1, 1, 1, 1, 1, 1.0])  # untied row, then the 7-row block
    for k in (None, 3):
        want = reference_per_group("err", k, y, s, max_grade=3.0)
        got = sr.err_score(y, s, groups=np.zeros(8), k=k, max_grade=3.0)
        assert got == approx(want[0])
    with pytest.raises(ValueError, match=r"ERR_TIE_BLOCK_LIMIT=7 rows"):
        sr.err_score(y, np.ones(8), groups=np.zeros(8), max_grade=3.0)


# -- AP with n_relevant_retrieved on a large straddling block ---
def _ap_straddling(c, m, r, k):
    """E[AP@k] with the relevant-within-k denominator: ``c`` relevant untied rows
    at positions 1..c, then a block of ``m`` rows (``r`` relevant) at c+1..c+m
    with c < k < c + m. Conditioned on x relevant rows among its t = k - c top
    slots, the i-th of them is at slot j with probability
    C(j, i-1) C(t-1-j, x-i) / C(t, x). Exact fractions."""
    a, t = c + 1, k - c
    total = Fraction(0)
    for x in range(max(0, t - (m - r)), min(r, t) + 1):
        p_x = Fraction(math.comb(r, x) * math.comb(m - r, t - x), math.comb(m, t))
        found = Fraction(c)  # the untied rows: precision 1 each
        for i in range(1, x + 1):
            for j in range(i - 1, t - x + i):
                p = Fraction(math.comb(j, i - 1) * math.comb(t - 1 - j, x - i))
                found += p / math.comb(t, x) * Fraction(c + i, a + j)
        if c + x:
            total += p_x * found / (c + x)
    return total


@pytest.mark.parametrize(("c", "m", "r", "k"), [(0, 300, 40, 30), (3, 400, 150, 40)])
def test_ap_large_straddling_block_matches_a_closed_form(c, m, r, k):
    rng = np.random.default_rng(5)
    block = np.zeros(m)
    block[rng.choice(m, size=r, replace=False)] = 1.0
    y = np.r_[np.ones(c), block, 1.0]
    s = np.r_[np.arange(c, 0, -1) + 10.0, np.full(m, 5.0), 1.0]
    got = sr.map_score(
        y, s, groups=np.zeros(y.size), k=k, ap_denominator="n_relevant_retrieved"
    )
    assert got == pytest.approx(float(_ap_straddling(c, m, r, k)), rel=1e-12)
