"""``iprec@r``: a metric name that sets an option (trec_eval's
``iprec_at_recall_r``), checked against the independent reference, and several
levels from one ordering."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import reference_mean
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rank import evaluate, interpolated_precision_score

LEVELS = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["stable", "pessimistic", "optimistic", "threshold"]),
)
def test_iprec_at_r_equals_the_reference_at_that_level(seed, ties):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 25))
    y = rng.integers(0, 2, n).astype(float)
    s = rng.integers(0, 4, n).astype(float)  # ties
    g = rng.integers(0, 3, n)
    names = [f"iprec@{r}" for r in LEVELS]
    got = evaluate(y, s, groups=g, metrics=names, ties=ties, undefined=0.0)
    for r, name in zip(LEVELS, names, strict=True):
        expected, _ = reference_mean(
            "iprec", None, y, s, g, ties=ties, undefined=0.0, recall_level=r
        )
        assert got[name] == pytest.approx(expected, abs=1e-12), name
        direct = interpolated_precision_score(
            y, s, groups=g, ties=ties, undefined=0.0, recall_level=r
        )
        assert got[name] == direct


def test_the_name_wins_over_the_keyword_and_the_levels_differ():
    y = np.array([1, 0, 0, 1, 0, 1.0])
    s = np.arange(6, 0, -1.0)
    g = np.zeros(6)
    # Precision 1/1, 2/4, 3/6: interpolated 1 at r <= 1/3, 0.5 above.
    got = evaluate(y, s, groups=g, metrics=["iprec@0.2", "iprec@0.9"], recall_level=0.5)
    assert got == {"iprec@0.2": 1.0, "iprec@0.9": 0.5}


@pytest.mark.parametrize("name", ["iprec@x", "iprec@1.5", "iprec@-0.1"])
def test_bad_levels_name_the_metric(name):
    with pytest.raises(ValueError, match="iprec@"):
        evaluate([1, 0], [1, 0], groups=[0, 0], metrics=[name])
