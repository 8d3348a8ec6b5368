"""group_weight="relevant_mean" and the "tf_ranking" preset: TF-Ranking's list weights.

TF-Ranking turns per-example weights into one weight per list with
``_per_example_weights_to_per_list_weights`` (tensorflow_ranking/python/
metrics_impl.py): ``sum(weights * relevance) / sum(relevance)``; a list without a
relevant item gets the sum of those weights over the number of lists that have
one and a nonzero weight sum (1.0 when there is none), and a list whose weights
sum to 0 gets 0. The values below are TF-Ranking's own expected values, from the
tests named on each.
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference import reference_group_weights
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import ranking_cases, relevance_thresholds

import sklearn_rank as sr


def _flat(labels, scores, weights=None):
    """TF-Ranking's [batch_size, list_size] arrays as flat rows with group ids."""
    y = np.ravel(labels).astype(float)
    s = np.ravel(scores).astype(float)
    g = np.repeat(np.arange(len(labels)), len(labels[0]))
    w = None if weights is None else np.ravel(weights).astype(float)
    return y, s, g, w


def test_weighted_mrr_from_tf_ranking_metrics_test():
    # tensorflow_ranking/python/metrics_test.py,
    # MetricsTest.test_make_mean_reciprocal_rank_fn (the m_w case).
    y, s, g, w = _flat(
        [[0.0, 0.0, 1.0], [0.0, 1.0, 2.0]],
        [[1.0, 3.0, 2.0], [1.0, 2.0, 3.0]],
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    )
    expected = (3.0 * 0.5 + (6.0 + 5.0) / 2.0 * 1.0) / (3.0 + (6.0 + 5.0) / 2.0)
    got = sr.mrr_score(y, s, groups=g, sample_weight=w, convention="tf_ranking")
    assert got == pytest.approx(expected, abs=1e-12)
    # The default convention weighs each list by the mean of all its rows.
    mean_rule = (2.0 * 0.5 + 5.0 * 1.0) / (2.0 + 5.0)
    assert sr.mrr_score(y, s, groups=g, sample_weight=w) == pytest.approx(mean_rule)


def _weights(metric, labels, scores, weights, **kw):
    y, s, g, w = _flat(labels, scores, weights)
    res = sr.evaluate_per_group(
        y, s, groups=g, metrics=[metric], sample_weight=w, convention="tf_ranking", **kw
    )
    return res.weights[metric].tolist()


def test_list_weights_from_tf_ranking_metrics_impl_test():
    # tensorflow_ranking/python/metrics_impl_test.py
    # MRRMetricTest.test_mrr_weights_should_be_average_weight_of_rel_items
    assert _weights(
        "mrr",
        [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]],
        [[1.0, 3.0, 2.0], [1.0, 2.0, 3.0]],
        [[2.0, 5.0, 1.0], [1.0, 2.0, 3.0]],
    ) == pytest.approx([2.0, (2.0 + 3.0) / 2.0])
    # MRRMetricTest.test_mrr_weights_should_be_1_without_rel_items
    assert _weights(
        "mrr",
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        [[1.0, 3.0, 2.0], [1.0, 3.0, 2.0]],
        [[2.0, 5.0, 1.0], [1.0, 1.0, 0.0]],
    ) == pytest.approx([1.0, 1.0])
    # MRRMetricTest.test_mrr_weights_should_be_regardless_of_topn
    assert _weights(
        "mrr@2",
        [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]],
        [[3.0, 2.0, 1.0], [1.0, 3.0, 2.0]],
        [[2.0, 0.0, 5.0], [1.0, 4.0, 2.0]],
    ) == pytest.approx([(5.0 + 2.0) / 2.0, (2.0 + 4.0) / 2.0])
    # RecallMetricTest.test_recall_weights_should_ignore_graded_relevance
    assert _weights(
        "recall", [[4.0, 0.0, 2.0]], [[1.0, 3.0, 2.0]], [[3.0, 9.0, 2.0]]
    ) == pytest.approx([(3.0 + 2.0) / 2.0])
    # MeanAveragePrecisionMetricTest
    # .test_map_weights_should_be_avg_of_weights_of_rel_items
    assert _weights(
        "map", [[1.0, 0.0, 2.0]], [[1.0, 3.0, 2.0]], [[13.0, 7.0, 29.0]]
    ) == pytest.approx([(13.0 + 29.0) / 2.0])


def test_list_without_relevant_rows_weighs_the_mean_of_the_others():
    # Three lists: relevant-row weights 2 and (4 + 6)/2 = 5, one list without a
    # relevant row (weighs (2 + 5)/2 = 3.5), one list of weight 0 (weighs 0).
    y = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 0], dtype=float)
    s = np.array([3, 2, 1, 3, 2, 1, 1, 0, 1, 0], dtype=float)
    g = np.array([0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    w = np.array([2, 9, 4, 6, 1, 7, 7, 7, 0, 0], dtype=float)
    res = sr.evaluate_per_group(
        y, s, groups=g, metrics=["mrr"], sample_weight=w, group_weight="relevant_mean"
    )
    assert res.weights["mrr"].tolist() == pytest.approx([2.0, 5.0, 3.5, 0.0])
    # RR is 1 in groups 0, 1 and 3; the group without a relevant row enters with
    # undefined=0.0 at weight 3.5, and group 3 weighs 0.
    got = sr.mrr_score(
        y,
        s,
        groups=g,
        sample_weight=w,
        group_weight="relevant_mean",
        undefined=0.0,
    )
    assert got == pytest.approx((2.0 * 1.0 + 5.0 * 1.0 + 3.5 * 0.0) / 10.5)


def test_without_sample_weight_both_rules_weigh_groups_alike():
    y = np.array([1, 0, 0, 0, 1, 1, 0])
    s = np.array([0.3, 0.2, 0.1, 0.5, 0.4, 0.1, 0.2])
    g = np.array([0, 0, 0, 1, 1, 2, 2])
    for metric in ("ndcg@2", "map", "precision@2", "gauc", "pairwise_accuracy"):
        a = sr.evaluate(y, s, groups=g, metrics=[metric])[metric]
        b = sr.evaluate(y, s, groups=g, metrics=[metric], group_weight="relevant_mean")
        assert a == pytest.approx(b[metric]), metric


def test_group_weight_is_validated():
    with pytest.raises(ValueError, match="group_weight"):
        sr.map_score([1, 0], [1, 0], groups=[0, 0], group_weight="relevant")


def test_scorer_takes_group_weight():
    from sklearn_rank import make_ranking_scorer

    class Fixed:
        def predict(self, X):
            return np.asarray(X)[:, 0]

    X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0]])
    y = np.array([0, 1, 0, 0, 1])
    qid = np.array([0, 0, 0, 1, 1])
    w = np.array([1.0, 3.0, 1.0, 1.0, 1.0])
    scorer = make_ranking_scorer("mrr", group_weight="relevant_mean")
    got = scorer(Fixed(), X, y, groups=qid, sample_weight=w)
    # Group 0: RR 1/2, weight 3 (its relevant row); group 1: RR 1, weight 1.
    assert got == pytest.approx((3 * 0.5 + 1 * 1.0) / 4)
    expected = sr.mrr_score(
        y, X[:, 0], groups=qid, sample_weight=w, group_weight="relevant_mean"
    )
    assert got == pytest.approx(expected)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=ranking_cases(allow_weights=False),
    data=st.data(),
    rule=st.sampled_from(["mean", "relevant_mean"]),
)
def test_group_weights_agree_with_reference(case, data, rule):
    # Weights 0..4: groups (or only their relevant rows) may weigh 0.
    n = case.y_true.size
    w = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    threshold = data.draw(relevance_thresholds)
    metrics = ["mrr", "gauc", "fallout@2"]
    got = sr.evaluate_per_group(
        case.y_true,
        case.y_score,
        groups=case.groups,
        metrics=metrics,
        sample_weight=w,
        retrieved=case.retrieved,
        relevance_threshold=threshold,
        group_weight=rule,
    )
    ids = sorted(set(case.groups.tolist()))
    for name in metrics:
        want = reference_group_weights(
            name.split("@")[0],
            case.y_true,
            case.groups,
            sample_weight=w,
            retrieved=case.retrieved,
            relevance_threshold=threshold,
            group_weight=rule,
        )
        expected = [want[g] for g in ids]
        assert got.weights[name].tolist() == pytest.approx(expected, abs=1e-12), name
