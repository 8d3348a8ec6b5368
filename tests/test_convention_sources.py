"""Each convention keyword reproduces a value from its source project's own test
suite or documentation (cited per test)."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank import f1_at_k_score, map_score, recall_at_k_score


def _lenskit_list(recs, rel):
    """LensKit's (recommended ids in order, relevant ids) as flat rows of one
    group: recommended rows ranked in order, relevant ones not recommended kept
    as judged but unretrieved rows."""
    extra = [i for i in rel if i not in set(recs)]
    items = list(recs) + extra
    y_true = np.array([1.0 if i in set(rel) else 0.0 for i in items])
    y_score = np.array([len(recs) - p for p in range(len(recs))] + [0] * len(extra))
    retrieved = np.array([True] * len(recs) + [False] * len(extra))
    return y_true, y_score.astype(float), retrieved


@pytest.mark.parametrize(
    ("recs", "k", "expected"),
    [
        # lenskit/lkpy tests/eval/test_rank_recall.py, test_recall_long_rel
        ([1, 0, 150, 3, 10], 5, 0.8),
        # ... test_recall_long_items
        ([1, 0, 150, 3, 10, 30, 120, 4, 17], 5, 0.8),
        # ... test_recall_partial_rel
        ([1, 0, 150, 3, 10], 10, 0.4),
    ],
)
def test_recall_denominator_reproduces_lenskit(recs, k, expected):
    y_true, y_score, retrieved = _lenskit_list(recs, list(range(100)))
    kw = dict(groups=np.zeros(y_true.size), k=k, retrieved=retrieved)
    got = recall_at_k_score(
        y_true, y_score, recall_denominator="min_k_n_relevant", **kw
    )
    assert got == pytest.approx(expected, rel=1e-12)
    # The default divides by R = 100 instead.
    hits = expected * min(k, 100)
    assert recall_at_k_score(y_true, y_score, **kw) == pytest.approx(hits / 100)
    # F1's recall part follows: 2 H / (k + min(k, R)).
    f1 = f1_at_k_score(y_true, y_score, recall_denominator="min_k_n_relevant", **kw)
    assert f1 == pytest.approx(2 * hits / (k + min(k, 100)))


@pytest.mark.parametrize(
    ("targets", "expected"),
    [
        # jma127/pyltr pyltr/metrics/tests/test_ap.py, TestAP with AP(k=4)
        ([1], 1.0),
        ([1, 0], 1.0),
        ([0, 1], 0.5),
        ([1, 0, 1, 0], 5.0 / 6),
        ([0, 1, 1, 1], 23.0 / 36),
        ([1, 0, 1, 0, 1], 5.0 / 6),  # the relevant row at 5 is not counted
        ([1, 0, 1, 0, 0], 5.0 / 6),
        # pyltr/metrics/ap.py: 0 when no relevant row is within the cutoff
        ([0, 0, 0, 0, 1], 0.0),
    ],
)
def test_ap_denominator_reproduces_pyltr(targets, expected):
    y_true = np.array(targets, dtype=float)
    y_score = -np.arange(y_true.size, dtype=float)  # ranked in list order
    got = map_score(
        y_true,
        y_score,
        groups=np.zeros(y_true.size),
        k=4,
        relevance_threshold=0.5,  # pyltr's AP(cutoff=0.5)
        ap_denominator="n_relevant_retrieved",
    )
    assert got == pytest.approx(expected, rel=1e-12)


def test_ap_denominator_n_relevant_retrieved_under_averaged_ties():
    kw = dict(groups=[0] * 4, ap_denominator="n_relevant_retrieved")
    y_true = [1, 0, 1, 0]
    # A mixed tie block inside the cutoff: the count is fixed (2), AP averaged:
    # orders [1,0 | 1,0] and [0,1 | 1,0] give (1 + 2/3)/2 and (1/2 + 2/3)/2.
    got = map_score(y_true, [3.0, 3.0, 2.0, 1.0], k=3, **kw)
    assert got == pytest.approx(((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2)
    # Straddling the cutoff, the count depends on the order of the tie.
    with pytest.raises(ValueError, match=r"straddle the cutoff k"):
        map_score(y_true, [3.0, 2.0, 2.0, 1.0], k=2, **kw)
    assert map_score(y_true, [3.0, 2.0, 2.0, 1.0], k=2, ties="stable", **kw) == 1.0
