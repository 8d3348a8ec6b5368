"""Values of the metrics added for issue 12, reproduced from other projects' own
documentation and test suites (cited next to each case), and the losses' sign in a
real scikit-learn search.

Each cited case is rewritten as flat ``y_true`` / ``y_score`` / ``groups`` rows; the
comment gives the source's input as written there.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rank import (
    arp_score,
    evaluate,
    f1_at_k_score,
    fallout_at_k_score,
    make_ranking_scorer,
    pairwise_accuracy_score,
)


def _recommended(ground_truth, rec_list):
    """Cornac's (ground_truth, rec_list) as rows: every item of ``ground_truth`` is
    a row; ``rec_list`` gives the ranked item ids, best first (others unranked)."""
    n = len(ground_truth)
    score = np.zeros(n)
    score[list(rec_list)] = np.arange(len(rec_list), 0, -1)
    retrieved = np.zeros(n, dtype=bool)
    retrieved[list(rec_list)] = True
    return np.asarray(ground_truth), score, [0] * n, retrieved


# PreferredAI/cornac, tests/cornac/metrics/test_ranking.py, test_f_measure
# (commit 1124f7b0): FMeasure().compute(ground_truth, rec_list) and FMeasure(k=2).
@pytest.mark.parametrize(
    ("ground_truth", "rec_list", "k", "expected"),
    [
        ([1, 0, 1], [0, 2, 1], None, 4 / 5),
        ([0, 0, 1], [1, 2, 0], None, 1 / 2),
        ([0, 0, 1], [1, 2, 0], 2, 2 / 3),
        ([1, 0, 0], [1, 2], 2, 0.0),
    ],
)
def test_f1_reproduces_cornac(ground_truth, rec_list, k, expected):
    y, s, g, retrieved = _recommended(ground_truth, rec_list)
    got = f1_at_k_score(y, s, groups=g, k=k, retrieved=retrieved)
    assert got == pytest.approx(expected, rel=1e-15)


def test_f1_is_not_the_harmonic_mean_of_mean_precision_and_recall():
    # Over groups, F1 is averaged per group: two groups with P, R = (1/2, 1) and
    # (1/2, 1/3) give F1 = 2/3 and 2/5, mean 8/15, not F1(1/2, 2/3) = 4/7.
    y = [1, 0, 1, 0, 1, 1]
    s = [2, 1, 2, 1, 0, 0]
    g = [0, 0, 1, 1, 1, 1]
    assert f1_at_k_score(y, s, groups=g, k=2) == pytest.approx(8 / 15, rel=1e-15)


def test_f1_tie_expectation_by_hand():
    # Four tied rows, two relevant, k=2: E[H_2] = 2 * 2/4 = 1, so E[F1] = 2 / (2 + 2).
    # The six orders give F1 = 1 (once), 1/2 (four times) and 0 (once): mean 1/2.
    got = f1_at_k_score([1, 1, 0, 0], [1.0] * 4, groups=[0] * 4, k=2)
    assert got == pytest.approx(0.5, rel=1e-15)


# Lightning-AI/torchmetrics, src/torchmetrics/functional/retrieval/fall_out.py,
# docstring example of retrieval_fall_out (commit 783845c0):
# preds [0.2, 0.3, 0.5], target [True, False, True], top_k=2 -> tensor(1.).
def test_fallout_reproduces_torchmetrics_docstring():
    got = fallout_at_k_score([1, 0, 1], [0.2, 0.3, 0.5], groups=[0] * 3, k=2)
    assert got == 1.0


def test_fallout_by_hand_with_unretrieved_and_ties():
    # N = 3 non-relevant rows, one never retrieved. The top 2 are a tie block of a
    # relevant and a non-relevant row, then a non-relevant one: at k=1 the
    # non-relevant row of the block is first with probability 1/2: 0.5 / 3.
    y = [1, 0, 0, 0]
    s = [5.0, 5.0, 1.0, 0.0]
    retrieved = [True, True, True, False]
    got = fallout_at_k_score(y, s, groups=[0] * 4, k=1, retrieved=retrieved)
    assert got == pytest.approx(1 / 6, rel=1e-15)
    got = fallout_at_k_score(y, s, groups=[0] * 4, retrieved=retrieved)
    assert got == pytest.approx(2 / 3, rel=1e-15)


# tensorflow/ranking, tensorflow_ranking/python/keras/metrics.py, ARPMetric
# docstring (commit b080797b): y_true [[0., 1., 1.]], y_pred [[3., 1., 2.]] -> 2.5;
# ragged y_true [[0., 1.], [1., 2., 0.]], y_pred [[2., 1.], [2., 5., 4.]] -> 1.75.
# TF-Ranking weights each list by the sum of its labels (1 and 3 here): a constant
# sample weight per group reproduces that weighting.
def test_arp_reproduces_tf_ranking_docstring():
    assert arp_score([0, 1, 1], [3, 1, 2], groups=[0] * 3) == 2.5
    y = [0, 1, 1, 2, 0]
    s = [2, 1, 2, 5, 4]
    g = [0, 0, 1, 1, 1]
    weight = [1, 1, 3, 3, 3]
    got = arp_score(y, s, groups=g, sample_weight=weight)
    assert got == pytest.approx(1.75, rel=1e-15)
    # Unweighted, each list counts once: (2 + 5/3) / 2.
    assert arp_score(y, s, groups=g) == pytest.approx(11 / 6, rel=1e-15)


class _Signed(RegressorMixin, BaseEstimator):
    """Predicts ``sign * X[:, 0]``: the sign decides whether the order is right."""

    def __init__(self, sign=1.0):
        self.sign = sign

    def fit(self, X, y):
        return self

    def predict(self, X):
        return self.sign * np.asarray(X, dtype=float)[:, 0]


@pytest.mark.parametrize("metric", ["arp", "fallout@2"])
def test_grid_search_prefers_the_lower_loss(metric):
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(12), 6)
    y = rng.integers(0, 3, size=groups.size)
    y[::6] = 2  # every group has a relevant and a non-relevant row
    y[1::6] = 0
    X = (y + rng.normal(0, 0.3, size=y.size)).reshape(-1, 1)  # mostly right order
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            _Signed(),
            {"sign": [-1.0, 1.0]},
            scoring=make_ranking_scorer(metric),
            cv=cv,
            error_score="raise",
        ).fit(X, y, groups=groups)
    assert search.best_params_ == {"sign": 1.0}
    # The reported scores are the negated losses of each fold.
    for i, params in enumerate(search.cv_results_["params"]):
        for fold, (_, test) in enumerate(cv.split(X, y, groups)):
            loss = evaluate(
                y[test],
                params["sign"] * X[test, 0],
                groups=groups[test],
                metrics=[metric],
            )[metric]
            got = search.cv_results_[f"split{fold}_test_score"][i]
            assert got == pytest.approx(-loss, rel=1e-12)
    scores = search.cv_results_["mean_test_score"]
    assert scores[1] > scores[0]  # the right order has the lower loss


# tensorflow/ranking, tensorflow_ranking/python/keras/metrics.py, OPAMetric
# docstring (commit b080797b): y_true [[0., 1., 2.]], y_pred [[3., 1., 2.]] ->
# 0.33333334; ragged y_true [[0., 1.], [1., 2., 0.]], y_pred [[2., 1.], [2., 5.,
# 4.]] -> 0.5 (lists weighted by their pairs: (0 + 2) / (1 + 3)).
def test_pairwise_accuracy_reproduces_tf_ranking_opa():
    got = pairwise_accuracy_score([0, 1, 2], [3, 1, 2], groups=[0] * 3)
    assert got == pytest.approx(1 / 3, rel=1e-15)
    y = [0, 1, 1, 2, 0]
    s = [2, 1, 2, 5, 4]
    got = pairwise_accuracy_score(y, s, groups=[0, 0, 1, 1, 1])
    assert got == pytest.approx(0.5, rel=1e-15)


def test_pairwise_accuracy_on_binary_labels_is_row_pair_weighted_gauc():
    # Binary labels: per group the AUC; the weights are |P| * |N| pairs.
    y = np.array([1, 0, 0, 1, 1, 0, 0])
    s = np.array([0.3, 0.3, 0.1, 0.9, 0.2, 0.5, 0.5])
    g = np.array([0, 0, 0, 1, 1, 1, 1])
    # group 0: pairs (1 vs two 0s): tie ½ + win 1 -> 1.5 of 2;
    # group 1: 0.9 beats both 0.5s (2), 0.2 beats none -> 2 of 4.
    got = pairwise_accuracy_score(y, s, groups=g)
    assert got == pytest.approx((1.5 + 2) / (2 + 4), rel=1e-15)
    # Labels 0..4 with real gaps and negative values are only compared.
    assert pairwise_accuracy_score(y * 7.5 - 3, s, groups=g) == pytest.approx(
        got, rel=1e-15
    )
