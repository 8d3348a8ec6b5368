"""GroupedRanker: LGBMRanker / XGBRanker from per-row ids, in any row order."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, HalvingGridSearchCV

from sklearn_rank import GroupedRanker, evaluate, get_scorer, make_ranking_scorer
from sklearn_rank.datasets import load_lambdarank

X, Y, GROUPS = load_lambdarank(subset="test", return_X_y=True)  # 50 queries
SHUFFLE = np.random.default_rng(0).permutation(len(Y))


def lightgbm_ranker():
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMRanker(n_estimators=8, num_leaves=7, n_jobs=1, verbose=-1)


def xgboost_ranker():
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBRanker(n_estimators=8, max_depth=3, n_jobs=1)


RANKERS = {"lightgbm": lightgbm_ranker, "xgboost": xgboost_ranker}


def fit_sorted_by_hand(ranker, X, y, groups):
    """What the adapter should do: stable sort by id, then group sizes or qid."""
    _, codes = np.unique(groups, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    if "qid" in ranker.fit.__code__.co_varnames:
        return ranker.fit(X[order], y[order], qid=codes[order])
    return ranker.fit(X[order], y[order], group=np.bincount(codes))


def test_importing_sklearn_rank_imports_no_ranker_library():
    code = (
        "import sys, sklearn_rank, sklearn_rank.datasets\n"
        "print(sorted(m for m in ('lightgbm', 'xgboost') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("library", list(RANKERS))
def test_shuffled_rows_give_the_model_of_sorted_rows(library):
    ranker = RANKERS[library]()
    Xs, ys, gs = X[SHUFFLE], Y[SHUFFLE], GROUPS[SHUFFLE]
    # String ids, unsorted and not 0-based, are fine.
    text_ids = np.char.add("q", gs.astype(str))
    adapter = GroupedRanker(ranker).fit(Xs, ys, groups=text_ids)
    by_hand = fit_sorted_by_hand(clone(ranker), Xs, ys, gs)
    np.testing.assert_array_equal(adapter.predict(X), by_hand.predict(X))
    assert adapter.n_groups_ == 50
    assert adapter.n_features_in_ == 300


def test_unsorted_rows_mislead_lightgbm_without_the_adapter():
    # The trap the adapter exists for: right sizes, rows not contiguous.
    ranker = lightgbm_ranker()
    Xs, ys, gs = X[SHUFFLE], Y[SHUFFLE], GROUPS[SHUFFLE]
    naive = clone(ranker).fit(Xs, ys, group=np.bincount(gs - gs.min()))
    adapter = GroupedRanker(ranker).fit(Xs, ys, groups=gs)
    assert not np.array_equal(naive.predict(X), adapter.predict(X))


@pytest.mark.parametrize("library", list(RANKERS))
def test_predict_keeps_the_callers_row_order(library):
    adapter = GroupedRanker(RANKERS[library]()).fit(X, Y, groups=GROUPS)
    np.testing.assert_array_equal(
        adapter.predict(X[SHUFFLE]), adapter.predict(X)[SHUFFLE]
    )


def test_clone_params_and_pickle():
    adapter = GroupedRanker(lightgbm_ranker(), group_column=None)
    params = adapter.get_params()
    assert params["estimator__n_estimators"] == 8
    copy = clone(adapter).set_params(estimator__n_estimators=3)
    assert copy.estimator.n_estimators == 3 and adapter.estimator.n_estimators == 8
    fitted = adapter.fit(X, Y, groups=GROUPS)
    assert fitted.estimator_ is not adapter.estimator  # the estimator is cloned
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict(X), fitted.predict(X))
    assert repr(adapter).startswith("GroupedRanker(estimator=LGBMRanker(")


def test_requests_groups_for_fit_by_default():
    with sklearn.config_context(enable_metadata_routing=True):
        requests = GroupedRanker(Ridge()).get_metadata_routing().fit.requests
    assert requests == {"groups": True}


def test_group_column_by_name_and_position():
    pd = pytest.importorskip("pandas")
    ranker = lightgbm_ranker()
    expected = GroupedRanker(ranker).fit(X, Y, groups=GROUPS).predict(X)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(300)])
    frame.insert(3, "qid", GROUPS)
    by_name = GroupedRanker(ranker, group_column="qid").fit(frame, Y)
    np.testing.assert_array_equal(by_name.predict(frame), expected)
    with_ids = np.column_stack([GROUPS, X])
    by_position = GroupedRanker(ranker, group_column=0).fit(with_ids, Y)
    np.testing.assert_array_equal(by_position.predict(with_ids), expected)


def test_errors():
    with pytest.raises(ValueError, match="got no groups") as info:
        GroupedRanker(lightgbm_ranker()).fit(X, Y)
    assert "enable_metadata_routing=True" in str(info.value)
    assert "group_column=" in str(info.value)
    with pytest.raises(TypeError, match=r"qid= .* or group="):
        GroupedRanker(Ridge()).fit(X, Y, groups=GROUPS)
    with pytest.raises(ValueError, match="Inconsistent numbers of rows"):
        GroupedRanker(lightgbm_ranker()).fit(X, Y, groups=GROUPS[:-1])


def hand_cv(ranker, cv, metric):
    scores = []
    for train, test in cv.split(X, Y, GROUPS):
        model = GroupedRanker(ranker).fit(X[train], Y[train], groups=GROUPS[train])
        scores.append(
            evaluate(
                Y[test], model.predict(X[test]), groups=GROUPS[test], metrics=[metric]
            )[metric]
        )
    return scores


@pytest.mark.parametrize("library", list(RANKERS))
def test_grid_search_with_routing_matches_hand_computed_scores(library):
    ranker = RANKERS[library]()
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            GroupedRanker(ranker),
            {"estimator__n_estimators": [4, 8]},
            scoring=get_scorer("ndcg@10"),
            cv=cv,
            error_score="raise",
        ).fit(X, Y, groups=GROUPS)
    for i, params in enumerate(search.cv_results_["params"]):
        expected = hand_cv(
            clone(ranker).set_params(n_estimators=params["estimator__n_estimators"]),
            cv,
            "ndcg@10",
        )
        got = [search.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        assert got == pytest.approx(expected, rel=1e-12)
    assert search.best_estimator_.n_groups_ == 50


def test_grid_search_without_routing_reads_the_group_column():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X[:, :20], columns=[f"f{j}" for j in range(20)])
    frame["qid"] = GROUPS
    search = GridSearchCV(
        GroupedRanker(lightgbm_ranker(), group_column="qid"),
        {"estimator__n_estimators": [4]},
        scoring=make_ranking_scorer(["ndcg@10", "map"], group_column="qid"),
        refit="ndcg@10",
        cv=GroupKFold(n_splits=3),
        error_score="raise",
    ).fit(frame, Y, groups=GROUPS)
    assert 0.0 < search.best_score_ <= 1.0
    assert search.best_estimator_.n_features_in_ == 20


def test_halving_search_subsamples_rows_and_still_fits_by_query():
    with sklearn.config_context(enable_metadata_routing=True):
        search = HalvingGridSearchCV(
            GroupedRanker(lightgbm_ranker()),
            {"estimator__num_leaves": [3, 5, 7, 9]},
            factor=2,
            scoring=get_scorer("ndcg@10"),
            cv=GroupKFold(n_splits=3),
            random_state=0,
            error_score="raise",
        ).fit(X, Y, groups=GROUPS)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.n_resources_[0] < len(Y)
