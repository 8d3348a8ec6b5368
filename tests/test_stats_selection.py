"""cross_val_compare: candidates compared on groups that did not choose them."""

from dataclasses import replace

import numpy as np
import pytest
import sklearn
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    cross_val_predict,
)

from sklearn_rank import make_ranking_scorer
from sklearn_rank.stats import compare, cross_val_compare


def _data(n_groups=40, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 8)
    X = rng.normal(size=(groups.size, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=groups.size) > 0.8).astype(int)
    return X, y, groups


class NoisyRidge(RegressorMixin, BaseEstimator):
    """Least squares plus coefficient noise seeded by random_state and the
    training data (as a random forest's randomness meets its data): candidates
    that differ only in random_state are equally good."""

    def __init__(self, random_state=0):
        self.random_state = random_state

    def fit(self, X, y):
        coef = np.linalg.lstsq(X, y, rcond=None)[0]
        data = int(np.abs(X).sum() * 1e6) % 2**32
        rng = np.random.default_rng([self.random_state, data])
        noise = rng.normal(0, 0.05, coef.size)
        self.coef_ = coef + noise
        return self

    def predict(self, X):
        return X @ self.coef_


def test_named_estimators_equal_compare_on_hand_made_out_of_fold_scores():
    X, y, groups = _data()
    cv = GroupKFold(n_splits=4)
    models = {"strong": Ridge(alpha=1.0), "weak": Ridge(alpha=1e5)}
    kw = dict(metrics=["ndcg@5", "mrr"], n_resamples=300, random_state=0)
    got = cross_val_compare(models, X, y, groups=groups, cv=cv, **kw)
    oof = {
        name: cross_val_predict(est, X, y, groups=groups, cv=cv)
        for name, est in models.items()
    }
    assert replace(got, design="") == compare(y, oof, groups=groups, **kw)
    assert "4 outer group folds" in got.design and got.design in str(got)


def _nested_by_hand(search, X, y, groups, splits, top=2):
    """Out-of-fold predictions of the k-th best candidate of each split's search."""
    preds = np.full((top, y.size), np.nan)
    for train, test in splits:
        s = clone(search).fit(X[train], y[train], groups=groups[train])
        order = np.argsort(s.cv_results_["rank_test_score"], kind="stable")[:top]
        for k, i in enumerate(order):
            est = clone(search.estimator).set_params(**s.cv_results_["params"][i])
            preds[k, test] = est.fit(X[train], y[train]).predict(X[test])
    return preds


@pytest.mark.parametrize("routing", [False, True])
def test_nested_search_equals_the_hand_made_nested_loop(routing):
    X, y, groups = _data()
    search = GridSearchCV(Ridge(), {"alpha": [1e5, 0.1, 1e3]}, cv=GroupKFold(3))
    outer = GroupKFold(n_splits=4)
    kw = dict(metrics="ndcg@5", n_resamples=99, random_state=0)
    with sklearn.config_context(enable_metadata_routing=routing):
        report = cross_val_compare(search, X, y, groups=groups, cv=outer, **kw)
    preds = _nested_by_hand(search, X, y, groups, list(outer.split(X, y, groups)))
    ref = compare(y, {"#1": preds[0], "#2": preds[1]}, groups=groups, **kw)
    assert replace(report, design="") == ref
    assert [p.model for p in report.pairs] == ["#1"]
    assert "#1: alpha=0.1 (4 of 4)" in report.design


def test_held_out_groups_are_the_only_ones_compared():
    X, y, groups = _data()
    search = GridSearchCV(Ridge(), {"alpha": [1e5, 0.1]}, cv=GroupKFold(3))
    held = np.arange(30, 40)
    kw = dict(metrics="ndcg@5", n_resamples=99, random_state=0)
    report = cross_val_compare(search, X, y, groups=groups, held_out_groups=held, **kw)
    test = np.isin(groups, held)
    split = [(np.flatnonzero(~test), np.flatnonzero(test))]
    preds = _nested_by_hand(search, X, y, groups, split)
    ref = compare(
        y[test], {"#1": preds[0][test], "#2": preds[1][test]}, groups=groups[test],
        **kw,
    )  # fmt: skip
    assert replace(report, design="") == ref
    assert report.pairs[0].n_groups + report.pairs[0].n_dropped == 10
    assert "10 held-out groups" in report.design


def test_selection_folds_use_the_nadeau_bengio_corrected_t_test():
    X, y, groups = _data()
    cv = GroupShuffleSplit(n_splits=12, test_size=0.25, random_state=0)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 30.0, 1e4]}, cv=cv)
    search.fit(X, y, groups=groups)
    report = cross_val_compare(
        search, X, y, groups=groups, compare_on="selection_folds", top=2
    )
    res = search.cv_results_
    order = np.argsort(res["rank_test_score"], kind="stable")[:2]
    d = np.array(
        [res[f"split{s}_test_score"][order[0]] - res[f"split{s}_test_score"][order[1]]
         for s in range(12)]
    )  # fmt: skip
    n_test, n_train = 10, 30  # groups: 25% of 40 in each test part
    se = np.sqrt((1 / 12 + n_test / n_train) * d.var(ddof=1))
    p_ref = 2 * stats.t.sf(abs(d.mean() / se), df=11)
    q = stats.t.ppf(0.975, df=11)
    p = report.pairs[0]
    assert p.mean_diff == pytest.approx(d.mean(), abs=1e-10)  # rounded d
    assert p.p_value == pytest.approx(p_ref, rel=1e-9)
    assert (p.ci_low, p.ci_high) == pytest.approx(
        (d.mean() - q * se, d.mean() + q * se)
    )
    # the uncorrected t-test over the splits is the liberal one
    assert p.p_value > stats.ttest_1samp(d, 0).pvalue
    assert "selection bias remains" in str(report)
    assert "Nadeau-Bengio" in report.design


def test_identical_candidates_winner_advantage_centred_and_calibrated():
    # Six candidates that differ only in random_state: none is better. The old
    # design (refit the top two on the folds that ranked them) put #1 ahead of
    # #2 in nearly every run; compared on outer folds, #1 is ahead about half the
    # time and the test rejects at about its level.
    search = GridSearchCV(
        NoisyRidge(), {"random_state": list(range(6))}, cv=GroupKFold(3),
        scoring=make_ranking_scorer("ndcg@5"),
    )  # fmt: skip
    reps, alpha = 20, 0.05
    diffs, rejections = [], 0
    for seed in range(reps):
        X, y, groups = _data(n_groups=24, seed=seed)
        with sklearn.config_context(enable_metadata_routing=True):
            r = cross_val_compare(
                search, X, y, groups=groups, cv=GroupKFold(3), metrics="ndcg@5",
                test="t", confidence_level=None,
            )  # fmt: skip
        diffs.append(r.pairs[0].mean_diff)
        rejections += r.pairs[0].p_value <= alpha
    diffs = np.array(diffs)
    se = diffs.std(ddof=1) / np.sqrt(reps)
    assert abs(diffs.mean()) < 3 * se
    assert 0.2 < np.mean(diffs > 0) < 0.8
    assert rejections / reps <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / reps)


def test_rejects_a_splitter_that_splits_groups():
    X, y, groups = _data()
    with pytest.raises(ValueError, match="The 'cv' parameter of cross_val_compare"):
        cross_val_compare(
            {"a": Ridge(), "b": Ridge(alpha=10)}, X, y, groups=groups,
            cv=KFold(3, shuffle=True, random_state=0),
        )  # fmt: skip


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"compare_on": "train"}, "The 'compare_on' parameter"),
        ({"compare_on": "held_out"}, "The 'held_out_groups' parameter"),
        ({"held_out_groups": np.arange(40)}, "The 'held_out_groups' parameter"),
        ({"compare_on": "selection_folds"}, "The 'estimators' parameter"),
    ],
)
def test_design_errors_name_the_argument(kwargs, match):
    X, y, groups = _data()
    with pytest.raises(ValueError, match=match):
        cross_val_compare(
            {"a": Ridge(), "b": Ridge(alpha=10)}, X, y, groups=groups, **kwargs
        )


def test_top_beyond_the_search_candidates_is_an_error():
    X, y, groups = _data()
    search = GridSearchCV(Ridge(), {"alpha": [1.0, 2.0]}, cv=GroupKFold(3))
    with pytest.raises(ValueError, match="The 'top' parameter of cross_val_compare"):
        cross_val_compare(search, X, y, groups=groups, cv=GroupKFold(3), top=3)


@pytest.mark.parametrize("routing", [False, True])
def test_refuses_to_select_on_nan_inner_scores(routing):
    # A ranking scorer without the query ids fails in every inner fold; the
    # search then ranks its candidates in grid order. Off: no routing reaches
    # it; on: the request is withdrawn. Either way: an error, not a choice.
    X, y, groups = _data()
    scorer = make_ranking_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=routing):
        if routing:
            scorer = scorer.set_score_request(groups=False)
        search = GridSearchCV(
            Ridge(), {"alpha": [1.0, 1e4]}, cv=GroupKFold(3), scoring=scorer
        )
        with (
            pytest.warns(UserWarning),
            pytest.raises(
                ValueError, match=r"score is NaN for 2 of 2 candidates.*group_column="
            ),
        ):
            cross_val_compare(
                search, X, y, groups=groups, cv=GroupKFold(3), metrics="ndcg@5",
                n_resamples=99,
            )  # fmt: skip
        if not routing:  # the selection-fold design reads the same ranks
            with pytest.warns(UserWarning):
                fitted = clone(search).fit(X, y, groups=groups)
    if not routing:
        with pytest.raises(ValueError, match="set_score_request"):
            cross_val_compare(fitted, X, y, groups=groups, compare_on="selection_folds")
