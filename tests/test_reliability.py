"""No silent wrong number, no crash from deep inside: extreme and unusual inputs.

Each test here failed before the fix it guards (see CHANGELOG, "Fixed").
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold
from sklearn.svm import LinearSVC

import sklearn_rank as sr
from sklearn_rank._sklearn.scorer import SplitQueryWarning, UndefinedFoldWarning


# --- averaged ties in huge blocks, against exact rational arithmetic ----------------
def exact_hit(m, r, t):
    """1 - C(m - r, t) / C(m, t) as a Fraction, by the product of t ratios."""
    miss = Fraction(1)
    for i in range(min(t, m - r + 1)):
        miss *= Fraction(m - r - i, m - i)
    return 1 - miss


def exact_mrr(m, r, a=1, k=None):
    """E[1 / position of the first relevant row] of one shuffled block."""
    total, none_yet = Fraction(0), Fraction(1)
    for j in range(m - r + 1):
        if k is not None and a + j > k:
            break
        total += none_yet * Fraction(r, m - j) / (a + j)
        none_yet *= Fraction(m - r - j, m - j)
    return total


@pytest.mark.parametrize(
    ("m", "r", "k"),
    [(2_000_000, 3, 5), (10_000_000, 10, 10), (1_000, 999, 1), (50, 3, 4), (9, 9, 3)],
)
def test_hit_rate_in_a_huge_tie_block_is_exact(m, r, k):
    y = np.zeros(m)
    y[:r] = 1
    got = sr.hit_rate_score(y, np.zeros(m), groups=np.zeros(m, dtype=int), k=k)
    assert got == pytest.approx(float(exact_hit(m, r, k)), rel=1e-13)


@pytest.mark.parametrize(
    ("m", "r", "k"), [(3_000, 4, None), (3_000, 2, 50), (40, 39, 2)]
)
def test_mrr_in_a_large_tie_block_is_exact(m, r, k):
    y = np.zeros(m)
    y[-r:] = 1  # relevant rows last in input order: "average" must not care
    got = sr.mrr_score(y, np.zeros(m), groups=np.zeros(m, dtype=int), k=k)
    assert got == pytest.approx(float(exact_mrr(m, r, k=k)), rel=1e-12)


def test_mrr_tie_block_behind_untied_rows_is_exact():
    # Two untied non-relevant rows, then a block of 500 rows with 3 relevant.
    y = np.r_[0, 0, np.zeros(497), np.ones(3)]
    s = np.r_[5.0, 4.0, np.zeros(500)]
    got = sr.mrr_score(y, s, groups=np.zeros(y.size, dtype=int), k=100)
    assert got == pytest.approx(float(exact_mrr(500, 3, a=3, k=100)), rel=1e-12)


# --- exponential gains of the largest accepted labels ------------------------------
def test_ndcg_of_the_largest_labels_is_finite_and_exact():
    assert sr.ndcg_score([1023.0] * 3, [3, 2, 1], groups=[0] * 3) == 1.0
    assert sr.ndcg_score([1020.0] * 200, np.arange(200), groups=[0] * 200) == 1.0
    # Group 0 ranks labels (0, 1022, 1023); scaled by 2**-1023 its NDCG is
    # (2**-1 / log2(3) + 1/2) / (1 + 2**-1 / log2(3)); group 1 is ordinary.
    log3 = math.log2(3)
    g0 = (0.5 / log3 + 0.5) / (1 + 0.5 / log3)
    g1 = (1 + 3 / log3) / (3 + 1 / log3)
    y, s = [1023.0, 1022.0, 0, 1, 2, 0], [1, 2, 3, 3, 2, 1]
    got = sr.ndcg_score(y, s, groups=[0, 0, 0, 1, 1, 1])
    assert got == pytest.approx((g0 + g1) / 2, rel=1e-14)


def test_dcg_that_cannot_be_represented_raises_naming_y_true():
    assert sr.dcg_score([600.0, 0], [1, 2], groups=[0, 0]) == pytest.approx(
        (2.0**600 - 1) / math.log2(3), rel=1e-15
    )
    with pytest.raises(ValueError, match=r"y_true labels up to 1023.*gain='linear'"):
        sr.dcg_score([1023.0] * 3, [3, 2, 1], groups=[0] * 3)


# --- weights near the float limits --------------------------------------------------
@pytest.mark.parametrize("w", [5e-324, 1e308])
def test_uniform_extreme_weights_equal_no_weights(w):
    args = ([1, 0, 1, 0], [1, 2, 3, 4])
    got = sr.map_score(*args, groups=[0, 0, 1, 1], sample_weight=[w] * 4)
    assert got == 0.5
    assert sr.auc_score(*args, sample_weight=[w] * 4) == sr.auc_score(*args)


@pytest.mark.parametrize("w", [1e200, 1e-200])
def test_auc_pair_weights_do_not_overflow(w):
    y, s = [1, 0, 1, 0, 1], [0.3, 0.1, 0.35, 0.8, 0.9]
    weights = np.array([1.0, 2.0, 3.0, 1.0, 2.0])
    assert sr.auc_score(y, s, sample_weight=weights * w) == pytest.approx(
        sr.auc_score(y, s, sample_weight=weights), rel=1e-14
    )


def test_input_weights_are_not_modified_by_the_scaling():
    w = np.array([1e308, 1e308, 2.0, 3.0])
    before = w.copy()
    sr.map_score([1, 0, 1, 0], [1, 2, 3, 4], groups=[0, 0, 1, 1], sample_weight=w)
    np.testing.assert_array_equal(w, before)


# --- scores near the float limits ---------------------------------------------------
def test_extreme_scores_give_the_right_value_without_warnings():
    top = np.finfo(float).max
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sr.evaluate(
            [1, 0, 1, 0],
            [1e308, -1e308, top, -top],
            groups=[0, 0, 1, 1],
            metrics=["ndcg", "map", "gauc", "auc"],
        )
    assert got == {"ndcg": 1.0, "map": 1.0, "gauc": 1.0, "auc": 1.0}


# --- messages that name the argument and the fix ------------------------------------
@pytest.mark.parametrize("metrics", [None, 5, {"ndcg": 1}])
def test_bad_metrics_argument_says_what_it_must_be(metrics):
    with pytest.raises(ValueError, match=r"'metrics' parameter of evaluate must be"):
        sr.evaluate([1, 0], [1, 2], groups=[0, 0], metrics=metrics)


@pytest.mark.parametrize("metric", [None, 5])
def test_bad_scorer_name_says_what_it_must_be(metric):
    with pytest.raises(ValueError, match=r"'metric' parameter of make_ranking_scorer"):
        sr.get_scorer(metric)


def test_nan_threshold_message_has_no_misleading_fix():
    with pytest.raises(ValueError, match="relevance_threshold") as info:
        sr.ndcg_score([1, 0], [1, 2], groups=[0, 0], relevance_threshold=float("nan"))
    assert "<= 0" not in str(info.value)


@pytest.mark.parametrize(
    ("y_true", "message"),
    [
        (
            (v for v in [1, 0]),
            r"y_true in ndcg_score must be an array-like .*generator",
        ),
        ([[1], [1, 0]], r"y_true in ndcg_score .* ragged"),
    ],
)
def test_generators_and_ragged_lists_are_named(y_true, message):
    with pytest.raises((TypeError, ValueError), match=message):
        sr.ndcg_score(y_true, [1, 2], groups=[0, 0])


@pytest.mark.parametrize(
    ("argument", "hint"),
    [("y_score", "numeric scores"), ("sample_weight", "non-negative number")],
)
def test_each_argument_has_its_own_hint(argument, hint):
    kwargs = {"y_score": [1, 2], "sample_weight": None, argument: ["a", "b"]}
    with pytest.raises(TypeError, match=rf"^{argument} .*{hint}"):
        sr.ndcg_score([1, 0], groups=[0, 0], **kwargs)


# --- scorers: options checked when the scorer is made -------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"gian": "linear"}, TypeError, r"unknown metric option 'gian'.*'gain'"),
        ({"ties": "foo"}, ValueError, r"'ties' parameter of make_ranking_scorer"),
        ({"groups": [0, 1]}, ValueError, r"per-row inputs come from the call"),
        ({"convention": "trec"}, ValueError, r"'convention' parameter"),
    ],
)
def test_scorer_options_are_checked_when_made(kwargs, error, message):
    with pytest.raises(error, match=message):
        sr.make_ranking_scorer("ndcg@3", **kwargs)
    with pytest.raises(error, match=message):
        sr.make_ranking_scorer(["ndcg@3", "map"], **kwargs)


def test_multiclass_classifier_without_probabilities_ranks_by_predicted_grade():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])  # grades 0, 1, 2
    qid = np.repeat(np.arange(9), 10)
    model = LinearSVC().fit(X, y)
    got = sr.make_ranking_scorer("ndcg@5")(model, X, y, groups=qid)
    assert got == sr.ndcg_score(y, model.predict(X), groups=qid, k=5)
    scorer = sr.make_ranking_scorer("ndcg@5", response_method="decision_function")
    with pytest.raises(ValueError, match=r"LinearSVC has no predict_proba.*'predict'"):
        scorer(model, X, y, groups=qid)


# --- model-selection traps made loud ------------------------------------------------
class ScoreFirstColumn(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def test_a_fold_without_relevant_rows_warns_with_the_fix():
    scorer = sr.make_ranking_scorer("ndcg@3")
    X, y, qid = np.arange(6.0)[:, None], np.zeros(6), np.repeat([0, 1], 3)
    with pytest.warns(
        UndefinedFoldWarning, match=r"undefined=0\.0.*StratifiedGroupKFold"
    ):
        assert math.isnan(scorer(ScoreFirstColumn().fit(X, y), X, y, groups=qid))
    fixed = sr.make_ranking_scorer("ndcg@3", undefined=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fixed(ScoreFirstColumn().fit(X, y), X, y, groups=qid) == 0.0


def test_the_fold_warning_reaches_a_search():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.zeros(40)
    y[:10] = 1  # only the first fold's queries have relevant rows
    qid = np.repeat(np.arange(8), 5)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            ScoreFirstColumn(),
            {},
            scoring=sr.get_scorer("ndcg@3"),
            cv=GroupKFold(n_splits=4),
        )
        # scikit-learn adds its own "non-finite" warning for the NaN mean.
        with (
            pytest.warns(UserWarning, match="non-finite"),
            pytest.warns(UndefinedMetricWarning, match="on this test fold"),
        ):
            search.fit(X, y, groups=qid)


@pytest.fixture
def ranker():
    lightgbm = pytest.importorskip("lightgbm")
    model = lightgbm.LGBMRanker(n_estimators=5, min_child_samples=1, verbose=-1)
    return sr.GroupedRanker(model)


def test_queries_split_across_folds_are_reported(ranker):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, size=120)
    qid = np.repeat(np.arange(12), 10)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            ranker, {}, scoring=sr.get_scorer("ndcg@5"), cv=KFold(3, shuffle=True)
        )
        with pytest.warns(SplitQueryWarning, match="GroupKFold"):
            search.fit(X, y, groups=qid)
        grouped = GridSearchCV(
            ranker,
            {},
            scoring=sr.get_scorer("ndcg@5"),
            cv=GroupKFold(3),
            return_train_score=True,  # training rows scored: not a leak
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", SplitQueryWarning)
            grouped.fit(X, y, groups=qid)
