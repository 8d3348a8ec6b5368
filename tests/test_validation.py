"""Every bad input raises an error that names the argument and the fix."""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank
from sklearn_rank import (
    err_score,
    evaluate,
    evaluate_per_group,
    gauc_score,
    map_score,
    ndcg_score,
    precision_at_k_score,
)
from sklearn_rank._metrics.registry import METRICS

Y = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
GRADED = np.array([1.0, 0.0, 2.0, 0.0, 1.0, 0.0])
S = np.array([0.9, 0.8, 0.1, 0.3, 0.2, 0.7])
G = np.array([1, 1, 1, 2, 2, 2])
# One label per row (the intent-aware functions' bad input: test_intent_metrics).
SINGLE = [spec for spec in METRICS.values() if not spec.intents]
FUNCTIONS = [getattr(sklearn_rank, spec.function) for spec in SINGLE]
# Keywords without a default, which a call must give.
REQUIRED = {"interpolated_precision_score": {"recall_level": 0.5}}


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
class TestEveryFunction:
    def test_length_mismatch(self, func):
        with pytest.raises(ValueError, match=r"Inconsistent numbers of rows"):
            func(Y, S[:-1], groups=G)
        with pytest.raises(ValueError, match=r"Inconsistent numbers of rows"):
            func(Y, S, groups=G[:-1])

    def test_empty(self, func):
        with pytest.raises(ValueError, match=r"empty inputs"):
            func([], [], groups=[])

    def test_two_dimensional(self, func):
        with pytest.raises(ValueError, match=r"y_score .* must be 1-D"):
            func(Y, S.reshape(-1, 1), groups=G)
        with pytest.raises(ValueError, match=r"y_true .* must be 1-D"):
            func(np.c_[Y, Y], S, groups=G)

    @pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
    def test_non_finite(self, func, bad):
        with pytest.raises(ValueError, match=r"y_score .* NaN or infinite"):
            func(Y, np.r_[S[:-1], bad], groups=G)
        with pytest.raises(ValueError, match=r"y_true .* NaN or infinite"):
            func(np.r_[Y[:-1], bad], S, groups=G)

    def test_non_numeric_labels(self, func):
        with pytest.raises(TypeError, match=r"y_true .* must be numeric"):
            func(np.array(["a", "b", "c", "d", "e", "f"], dtype=object), S, groups=G)

    def test_unknown_option(self, func):
        with pytest.raises(ValueError, match=r"'ties' parameter of .* must be"):
            func(Y, S, groups=G, ties="random")
        with pytest.raises(ValueError, match=r"'convention' parameter"):
            func(Y, S, groups=G, convention="nope")
        with pytest.raises(ValueError, match=r"'undefined' parameter"):
            func(Y, S, groups=G, undefined="zero")
        with pytest.raises(ValueError, match=r"'relevance_threshold' parameter"):
            func(Y, S, groups=G, relevance_threshold=0)

    def test_groups_with_missing_values(self, func):
        with pytest.raises(ValueError, match=r"groups .* NaN"):
            func(Y, S, groups=np.r_[G[:-1], np.nan])
        with pytest.raises(ValueError, match=r"groups .* missing"):
            func(Y, S, groups=np.array([1, 1, 1, 2, 2, None], dtype=object))

    def test_inputs_not_modified(self, func):
        y, s, g = Y.copy(), S.copy(), G.copy()
        func(y, s, groups=g, **REQUIRED.get(func.__name__, {}))
        np.testing.assert_array_equal(y, Y)
        np.testing.assert_array_equal(s, S)
        np.testing.assert_array_equal(g, G)


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
def test_bad_k(k):
    with pytest.raises(ValueError, match=r"'k' parameter of ndcg_score must be an int"):
        ndcg_score(Y, S, groups=G, k=k)


def test_negative_labels_with_gain():
    with pytest.raises(ValueError, match=r"negative labels"):
        ndcg_score(GRADED - 1, S, groups=G)
    # Binary metrics only threshold the labels, so negatives are just not relevant.
    expected = map_score(np.where(GRADED > 1, 1, 0), S, groups=G)
    assert map_score(GRADED - 1, S, groups=G) == expected


def test_exponential_gain_overflow():
    with pytest.raises(ValueError, match=r"overflows float64 above 1023"):
        ndcg_score(GRADED * 1000, S, groups=G)
    # Linear gain has no such limit.
    assert 0 < ndcg_score(GRADED * 1000, S, groups=G, gain="linear") <= 1


def test_err_needs_the_grade_scale():
    with pytest.raises(ValueError, match=r"above max_grade=1\. .*max_grade=4"):
        err_score(GRADED, S, groups=G)
    with pytest.raises(ValueError, match=r"'max_grade' parameter"):
        err_score(Y, S, groups=G, max_grade=0)


def test_err_average_ties_mixing_grades_is_exact():
    # Orders (1, 0) and (0, 1) give 1/2 and 1/4: the expectation is 3/8.
    assert err_score([1, 0], [0.5, 0.5], groups=[0, 0]) == pytest.approx(3 / 8)
    # Equal grades in a tie, or a mixed tie beyond the cutoff, are exact.
    assert err_score([1, 1], [0.5, 0.5], groups=[0, 0]) == pytest.approx(0.5 + 0.25 / 2)
    assert err_score([1, 0, 1], [0.9, 0.5, 0.5], groups=[0] * 3, k=1) == 0.5
    assert err_score([1, 0], [0.5, 0.5], groups=[0, 0], ties="pessimistic") == 0.25


def test_unknown_metric_lists_valid_names():
    with pytest.raises(ValueError, match=r"Unknown metric 'ndgc@10'.*ndcg@k"):
        evaluate(Y, S, groups=G, metrics=["ndgc@10"])
    with pytest.raises(ValueError, match=r"takes no cutoff"):
        evaluate(Y, S, groups=G, metrics=["gauc@5"])
    with pytest.raises(ValueError, match=r"positive integer"):
        evaluate(Y, S, groups=G, metrics=["ndcg@0"])
    with pytest.raises(ValueError, match=r"at least one metric"):
        evaluate(Y, S, groups=G, metrics=[])


def test_missing_groups_says_how():
    with pytest.raises(ValueError, match=r"needs groups"):
        ndcg_score(Y, S, groups=None)


def test_mixed_group_id_types():
    with pytest.raises(TypeError, match=r"cannot be ordered"):
        ndcg_score(Y, S, groups=np.array([1, 1, 1, "b", "b", "b"], dtype=object))


def test_undefined_policies():
    y = np.array([1, 0, 0, 0, 0, 0])
    assert map_score(y, S, groups=G) == 1.0  # group 2 skipped
    assert map_score(y, S, groups=G, undefined=0.0) == 0.5
    assert map_score(y, S, groups=G, undefined=1.0) == 1.0
    with pytest.raises(ValueError, match=r"undefined for 1 of 2 groups \(ids 2\)"):
        map_score(y, S, groups=G, undefined="raise")
    with pytest.warns(UndefinedMetricWarning, match=r"every group"):
        assert np.isnan(map_score(np.zeros(6), S, groups=G))


def test_gauc_single_class_groups_are_undefined():
    y = np.array([1, 0, 0, 1, 1, 1])  # group 2 is all positive
    assert gauc_score(y, S, groups=G) == 1.0
    assert gauc_score(y, S, groups=G, undefined=0.0) == 0.5


def test_sample_weight_checks():
    with pytest.raises(ValueError, match=r"negative"):
        map_score(Y, S, groups=G, sample_weight=-np.ones(6))
    with pytest.raises(ValueError, match=r"sample_weight in map_score has 5 entries"):
        map_score(Y, S, groups=G, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match=r"sums to zero"):
        map_score(Y, S, groups=G, sample_weight=np.zeros(6))


def test_retrieved_mask_checks():
    with pytest.raises(TypeError, match=r"retrieved .* boolean"):
        map_score(Y, S, groups=G, retrieved=np.full(6, 0.5))
    with pytest.raises(ValueError, match=r"Inconsistent numbers of rows"):
        map_score(Y, S, groups=G, retrieved=np.ones(5, dtype=bool))


def test_precision_denominators():
    y, s, g = [1, 0], [2.0, 1.0], [0, 0]
    assert precision_at_k_score(y, s, groups=g, k=5) == 0.2
    assert (
        precision_at_k_score(y, s, groups=g, k=5, precision_denominator="min_k_n")
        == 0.5
    )


def test_ap_denominators():
    # 4 relevant, one hit at rank 1 within k=2.
    y, s = [1, 0, 1, 1, 1], [5.0, 4, 3, 2, 1]
    assert map_score(y, s, groups=[0] * 5, k=2) == 0.25
    assert (
        map_score(y, s, groups=[0] * 5, k=2, ap_denominator="min_k_n_relevant") == 0.5
    )


def test_per_group_rejects_pooled_auc_and_aligns_ids():
    with pytest.raises(ValueError, match=r"pooled"):
        evaluate_per_group(Y, S, groups=G, metrics=["auc"])
    res = evaluate_per_group(
        Y, S, groups=pd.Series(["b"] * 3 + ["a"] * 3), metrics="mrr"
    )
    assert res.group_ids.tolist() == ["a", "b"]
    assert res.values["mrr"].tolist() == [1 / 3, 1.0]
    assert res.to_frame().loc["b", "mrr"] == 1.0


def test_interpolated_precision_needs_a_recall_level():
    with pytest.raises(ValueError, match=r"needs recall_level=<a float in \[0, 1\]>"):
        sklearn_rank.interpolated_precision_score(Y, S, groups=G)
    with pytest.raises(ValueError, match=r"'recall_level' parameter"):
        sklearn_rank.interpolated_precision_score(Y, S, groups=G, recall_level=1.5)
    with pytest.raises(ValueError, match=r"needs recall_level"):
        sklearn_rank.evaluate(Y, S, groups=G, metrics=["iprec"])


def test_validate_params_declares_constraints_once():
    import inspect
    import numbers

    from sklearn_rank._utils.params import (
        Interval,
        InvalidParameterError,
        IsNone,
        StrOptions,
        validate_params,
    )

    @validate_params({"k": [Interval(numbers.Integral, 1, None), IsNone()]})
    def top(y, *, k=None, how="a"):
        return k

    assert top([1], k=3) == 3
    assert list(inspect.signature(top).parameters) == ["y", "k", "how"]
    with pytest.raises(InvalidParameterError) as err:
        top([1], k=0)
    assert str(err.value) == (
        "The 'k' parameter of test_validate_params_declares_constraints_once."
        "<locals>.top must be an int in the range [1, inf) or None. Got 0 instead."
    )
    with pytest.raises(TypeError, match="has no parameter"):
        validate_params({"kk": [IsNone()]})(top)

    from sklearn_rank.datasets import load_lambdarank

    with pytest.raises(ValueError, match="'subset' parameter of load_lambdarank"):
        load_lambdarank(subset="validation")
    with pytest.raises(TypeError, match="'as_frame' parameter of load_lambdarank"):
        load_lambdarank(as_frame="yes")
    assert StrOptions("a")("a")


def test_a_discount_callable_that_zeroes_the_ideal_dcg_is_refused():
    """The one discount that can make a relevant group's ideal DCG <= 0 is a
    callable: NDCG would divide by it, so the call is refused (the named
    discounts are > 0 and skip the check)."""
    args = ([1, 0, 1], [0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match="ideal DCG of a group with a relevant row"):
        sklearn_rank.ndcg_score(*args, groups=[0, 0, 0], discount=lambda r: r * 0.0)
    assert sklearn_rank.ndcg_score(*args, groups=[0, 0, 0], discount=2) > 0
