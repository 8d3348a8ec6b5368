"""Each convention keyword reproduces a value from its source project's own test
suite or documentation (cited per test)."""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank import f1_at_k_score, recall_at_k_score


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
