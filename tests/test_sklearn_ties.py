"""ties="threshold" and the "sklearn" preset against scikit-learn itself.

scikit-learn reads a ranking at one threshold per distinct score:
``average_precision_score`` integrates ``precision_recall_curve`` (whose points
are the ends of the blocks of equal scores,
``_sort_inputs_and_compute_classification_thresholds`` in
sklearn/metrics/_ranking.py) and ``label_ranking_average_precision_score`` reads
``rankdata(..., "max")``; ``ndcg_score`` / ``dcg_score`` average tied rows
(``ignore_ties=False``, ``_tie_averaged_dcg``). ``convention="sklearn"`` must
reproduce all of them on every group of random grouped data with heavy ties.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, dcg_score, ndcg_score
from sklearn.metrics import label_ranking_average_precision_score as sk_lrap
from strategies import ranking_cases

import sklearn_rank as sr

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _groups_of(case):
    ids = sorted(set(case.groups.tolist()))
    return ids, [np.flatnonzero(case.groups == g) for g in ids]


def _sk_ap(y, s):
    """scikit-learn's AP of one group (0 without a positive, with a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return average_precision_score(y > 0, s)


@SETTINGS
@given(case=ranking_cases(allow_retrieved=False, allow_weights=False))
def test_map_is_average_precision_score_on_every_group(case):
    ids, rows = _groups_of(case)
    got = sr.evaluate_per_group(
        case.y_true, case.y_score, groups=case.groups, metrics=["map"], ties="threshold"
    ).values["map"]
    expected = [_sk_ap(case.y_true[r], case.y_score[r]) for r in rows]
    defined = [bool((case.y_true[r] > 0).any()) for r in rows]
    np.testing.assert_allclose(got[defined], np.array(expected)[defined], atol=1e-12)
    assert np.isnan(got[~np.array(defined)]).all()
    # The preset: a group without a positive scores 0, as scikit-learn's.
    mean = sr.map_score(
        case.y_true, case.y_score, groups=case.groups, convention="sklearn"
    )
    assert len(expected) == len(ids)
    assert mean == pytest.approx(np.mean(expected), abs=1e-12)


@SETTINGS
@given(
    case=ranking_cases(allow_retrieved=False, allow_weights=False),
    k=st.sampled_from([None, 1, 2, 3, 5]),
)
def test_ndcg_and_dcg_are_sklearns_on_every_group(case, k):
    _, rows = _groups_of(case)  # in sorted id order, as evaluate_per_group's
    rows = [r for r in rows if r.size > 1]  # scikit-learn needs two labels
    if not rows:
        return
    keep = np.concatenate(rows)
    y, s, g = case.y_true[keep], case.y_score[keep], case.groups[keep]
    per = sr.evaluate_per_group(
        y,
        s,
        groups=g,
        metrics=["ndcg", "dcg"] if k is None else [f"ndcg@{k}"],
        convention="sklearn",
    )
    ndcg_name = "ndcg" if k is None else f"ndcg@{k}"
    expected = [ndcg_score([case.y_true[r]], [case.y_score[r]], k=k) for r in rows]
    defined = [bool((case.y_true[r] > 0).any()) for r in rows]
    got = per.values[ndcg_name]
    np.testing.assert_allclose(got[defined], np.array(expected)[defined], atol=1e-12)
    # Undefined groups score 0 in the preset, as in scikit-learn's mean.
    mean = sr.ndcg_score(y, s, groups=g, k=k, convention="sklearn")
    assert mean == pytest.approx(np.mean(expected), abs=1e-12)
    if k is None:
        want = [dcg_score([case.y_true[r]], [case.y_score[r]]) for r in rows]
        np.testing.assert_allclose(
            per.values["dcg"][defined], np.array(want)[defined], atol=1e-12
        )


@pytest.mark.parametrize("seed", range(6))
def test_map_is_lrap_on_equal_length_groups(seed):
    # label_ranking_average_precision_score: the mean over relevant labels of
    # |relevant ranked at or above it| / |all ranked at or above it|, ranks by
    # rankdata(..., "max"); 1 for a row with no relevant (or only relevant) label.
    rng = np.random.default_rng(seed)
    n_groups, length = 40, 7
    y = (rng.random((n_groups, length)) < 0.35).astype(float)
    y[0] = 0.0  # no relevant label: LRAP 1, so undefined=1.0 below
    y[1] = 1.0  # every label relevant: 1 in both
    s = rng.integers(0, 3, size=(n_groups, length)).astype(float)  # heavy ties
    w = rng.integers(1, 5, size=n_groups).astype(float)
    groups = np.repeat(np.arange(n_groups), length)
    for weights in (None, w):
        expected = sk_lrap(y, s, sample_weight=weights)
        got = sr.map_score(
            y.ravel(),
            s.ravel(),
            groups=groups,
            sample_weight=None if weights is None else np.repeat(weights, length),
            convention="sklearn",
            undefined=1.0,
        )
        assert got == pytest.approx(expected, abs=1e-12)
    per_group = sr.evaluate_per_group(
        y.ravel(), s.ravel(), groups=groups, metrics=["map"], convention="sklearn"
    ).values["map"]
    for i in range(2, n_groups):
        if y[i].any():
            assert per_group[i] == pytest.approx(sk_lrap(y[i : i + 1], s[i : i + 1]))


def test_threshold_worked_example():
    # Ranked blocks: {rel, non} tied at the top, then {rel}. The first block is one
    # threshold: its relevant row reads precision 1/2 at position 2; the second
    # reads 2/3. AP = (1/2 + 2/3) / 2 = 7/12 (scikit-learn: the same); "average"
    # gives ((1 + 1/2)/2 + 2/3) / 2 = 17/24. RR is the precision at the first
    # threshold holding a relevant row, 1/2 (average: 3/4).
    y, s, g = [1, 0, 1], [2.0, 2.0, 1.0], [0, 0, 0]
    assert sr.map_score(y, s, groups=g, ties="threshold") == pytest.approx(7 / 12)
    assert average_precision_score(y, s) == pytest.approx(7 / 12)
    assert sr.map_score(y, s, groups=g) == pytest.approx(17 / 24)
    assert sr.mrr_score(y, s, groups=g, ties="threshold") == pytest.approx(1 / 2)
    assert sr.mrr_score(y, s, groups=g) == pytest.approx(3 / 4)
    # A cutoff inside the first block keeps half of it: AP@1 = (1/2 * 1/2) / 1.
    assert sr.map_score(
        y, s, groups=g, k=1, ties="threshold", ap_denominator="min_k_n_relevant"
    ) == pytest.approx(1 / 4)
    # Linear metrics are the expectation: NDCG and P@1 as under "average".
    for name in ("ndcg", "precision@1", "recall@2", "gauc", "arp"):
        both = [
            sr.evaluate(y, s, groups=g, metrics=[name], ties=t)[name]
            for t in ("threshold", "average")
        ]
        assert both[0] == pytest.approx(both[1]), name
