"""sklearn_rank.stats on tied per-query scores (RR, P@10): seeded simulations.

Per-query RR and P@10 take few distinct values and two close systems tie on
most queries, so most paired differences are 0. These tests check the promises
of :func:`sklearn_rank.stats.compare` on such data: the interval printed next
to a p-value exists (or a warning says why not), and a result depends on the
groups as a set, not on their order.
"""

import warnings

import numpy as np
import pytest
from scipy import stats

from sklearn_rank import GroupScores
from sklearn_rank.stats import compare


def _gs(values, ids=None, name="rr"):
    values = np.asarray(values, dtype=float)
    ids = np.arange(values.size) if ids is None else ids
    return GroupScores(ids, {name: values}, {name: np.ones(values.size)})


def tied_null_pair(rng, shape, n):
    """Two systems from one distribution that agree on ~70% of the queries."""
    if shape == "rr":
        q = rng.uniform(0.1, 0.9, n)
        base = rng.geometric(q)

        def system():
            r = np.where(rng.random(n) < 0.3, rng.geometric(q), base)
            return np.where(r <= 10, 1 / r, 0.0)

    else:  # P@10
        q = rng.uniform(0.0, 0.6, n)
        base = rng.binomial(10, q)

        def system():
            return np.where(rng.random(n) < 0.3, rng.binomial(10, q), base) / 10

    return system(), system()


@pytest.mark.parametrize("shape", ["rr", "p10"])
@pytest.mark.parametrize("n", [20, 50])
def test_wilcoxon_interval_exists_where_it_accepts_zero(shape, n):
    # Before the fix 27 of 100 RR data sets at 20 groups and 67 at 50 had
    # p > 0.05 and the interval (nan, nan): the test accepted the shift 0
    # only, which the search (midpoints between Walsh averages) never tried.
    rng = np.random.default_rng(7)
    rows = 0
    for _ in range(30):
        a, b = tied_null_pair(rng, shape, n)
        if not (a - b).any():
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = compare(None, {"a": _gs(a), "b": _gs(b)}, test="wilcoxon").pairs[0]
        said = any("rejects every shift" in str(w.message) for w in caught)
        if r.p_value > 0.05:
            assert r.ci_low <= 0 <= r.ci_high
            rows += 1
        elif np.isnan(r.ci_low):
            assert said
        else:
            assert not r.ci_low <= 0 <= r.ci_high
    assert rows >= 20


def test_wilcoxon_accepting_only_zero_gives_the_point_interval():
    d = np.r_[-1.0, -0.8, -0.75, -0.5, np.zeros(34), 0.25, 0.5, 0.8, 0.857]
    b = np.full(d.size, 0.5)
    r = compare(None, {"a": _gs(b + d), "b": _gs(b)}, test="wilcoxon").pairs[0]
    dd = np.round((b + d) - b, 10)
    assert r.p_value == pytest.approx(stats.wilcoxon(dd).pvalue)
    assert r.p_value > 0.05
    assert stats.wilcoxon(dd - 1e-6).pvalue <= 0.05  # both sides of 0 rejected
    assert stats.wilcoxon(dd + 1e-6).pvalue <= 0.05
    assert (r.ci_low, r.ci_high) == (0.0, 0.0)


def test_wilcoxon_rejecting_every_shift_says_so():
    # The reproduction: p = 0.046 and no shift accepted (zeros dropped
    # at 0, ranked elsewhere); before the fix the NaN interval came silently.
    d = np.r_[
        [0.3333, 0.1111, -0.5, -0.8, -0.9375, -0.1333, -0.0556, -0.1333, -0.5],
        [0.1667, -0.2, -0.5, -0.1071],
        np.zeros(37),
    ]
    b = np.full(50, 0.95)
    with pytest.warns(RuntimeWarning, match="rejects every shift.*37 zero diff"):
        r = compare(None, {"A": _gs(b + d), "B": _gs(b)}, test="wilcoxon").pairs[0]
    assert r.p_value == pytest.approx(0.0461, abs=1e-4)
    assert np.isnan(r.ci_low) and np.isnan(r.ci_high)
    r = compare(
        None, {"A": _gs(b + d), "B": _gs(b)}, test="wilcoxon", zero_method="zsplit"
    ).pairs[0]
    assert r.p_value > 0.05 and r.ci_low <= 0 <= r.ci_high
