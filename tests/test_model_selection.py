"""Every scikit-learn search and CV entry point hands the scorers the right groups.

Two kinds of checks:

- a probe model that predicts its row number, scored by a metric that verifies it
  got exactly one test fold's rows, each with its own label and group id; it
  fails if groups are missing, misaligned or taken from the wrong rows;
- real models whose reported fold scores must equal scores computed by hand with
  each test fold's groups; a guard test shows those values differ from pooled and
  from shuffled groups, so ignoring or misaligning groups would be caught.

Each entry point runs with metadata routing on (groups routed) and off (groups
read from a DataFrame column), inside ``sklearn.config_context`` only.
"""

import inspect
import warnings

import numpy as np
import pytest
import sklearn
from _ranking_fixtures import (
    RowIndexRegressor,
    alignment_metric,
    as_frame,
    make_ranking_data,
    manual_cv_scores,
)
from sklearn.compose import ColumnTransformer
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    HalvingGridSearchCV,
    KFold,
    LeaveOneGroupOut,
    RandomizedSearchCV,
    StratifiedGroupKFold,
    cross_val_score,
    cross_validate,
    validation_curve,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import evaluate, get_scorer, make_ranking_scorer

pd = pytest.importorskip("pandas")

X_NUM, Y, GROUPS = make_ranking_data()
N = len(Y)
SPLITTERS = {
    "GroupKFold": GroupKFold(n_splits=3),
    "GroupShuffleSplit": GroupShuffleSplit(n_splits=3, test_size=0.3, random_state=0),
    "StratifiedGroupKFold": StratifiedGroupKFold(n_splits=3),
    "LeaveOneGroupOut": LeaveOneGroupOut(),
}
VALIDATION_CURVE_ROUTES = "params" in inspect.signature(validation_curve).parameters


def routing(on):
    return sklearn.config_context(enable_metadata_routing=on)


def probe_inputs(routed):
    """X for the probe model: row numbers in column 0 (and the ids in "qid")."""
    rows = np.arange(N, dtype=np.float64)
    if routed:
        return rows.reshape(-1, 1), None
    frame = pd.DataFrame({"row": rows, "qid": GROUPS})
    return frame, "qid"


def probe_scorer(cv, group_column, subsampled=False):
    folds = [np.sort(test) for _, test in cv.split(X_NUM, Y, GROUPS)]
    return make_ranking_scorer(
        alignment_metric,
        group_column=group_column,
        all_groups=GROUPS,
        all_y=Y,
        test_folds=folds,
        subsampled=subsampled,
    )


def make_search(name, model, grid, cv):
    if name == "GridSearchCV":
        return GridSearchCV(model, grid, cv=cv)
    if name == "RandomizedSearchCV":
        return RandomizedSearchCV(model, grid, n_iter=2, cv=cv, random_state=0)
    # Halving subsamples (and shuffles) rows inside each fold, test rows too.
    return HalvingGridSearchCV(model, grid, factor=2, cv=cv, random_state=0)


# --- the probe: exact rows, exact groups -------------------------------------------


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
@pytest.mark.parametrize("splitter", list(SPLITTERS))
def test_cross_validate_scorer_gets_the_test_fold_groups(splitter, routed):
    cv = SPLITTERS[splitter]
    X, column = probe_inputs(routed)
    scorer = probe_scorer(cv, column)
    with routing(routed):
        if routed:
            result = cross_validate(
                RowIndexRegressor(),
                X,
                Y,
                scoring=scorer,
                cv=cv,
                params={"groups": GROUPS},
                error_score="raise",
            )
        else:
            result = cross_validate(
                RowIndexRegressor(),
                X,
                Y,
                groups=GROUPS,
                scoring=scorer,
                cv=cv,
                error_score="raise",
            )
    assert result["test_score"].tolist() == [1.0] * cv.get_n_splits(X, Y, GROUPS)


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
@pytest.mark.parametrize(
    "search", ["GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV"]
)
def test_searches_hand_the_scorer_the_test_fold_groups(search, routed):
    cv = GroupKFold(n_splits=3)
    X, column = probe_inputs(routed)
    scorer = probe_scorer(cv, column, subsampled=search == "HalvingGridSearchCV")
    search_cv = make_search(search, RowIndexRegressor(), {"dummy": [0, 1, 2, 3]}, cv)
    search_cv.set_params(scoring=scorer, error_score="raise", refit=False)
    with routing(routed):
        search_cv.fit(X, Y, groups=GROUPS)
    scores = search_cv.cv_results_["mean_test_score"]
    assert scores.tolist() == [1.0] * len(scores)


def test_routing_with_pandas_inputs_and_series_groups():
    # DataFrame X, Series y and Series groups with a non-default index: routing
    # slices them by position, and the scorer must still line rows up.
    cv = GroupKFold(n_splits=3)
    index = np.arange(N) * 7 + 3
    X = pd.DataFrame({"row": np.arange(N, dtype=np.float64)}, index=index)
    y = pd.Series(Y, index=index)
    groups = pd.Series(GROUPS, index=index, name="qid")
    with routing(True):
        search = GridSearchCV(
            RowIndexRegressor(),
            {"dummy": [0, 1]},
            scoring=probe_scorer(cv, None),
            cv=cv,
            error_score="raise",
        ).fit(X, y, groups=groups)
    assert search.cv_results_["mean_test_score"].tolist() == [1.0, 1.0]


def test_probe_detects_wrong_groups():
    # The probe itself has teeth: shifted ids, missing ids or a wrong fold give 0.
    cv = GroupKFold(n_splits=3)
    folds = [np.sort(test) for _, test in cv.split(X_NUM, Y, GROUPS)]
    test = folds[0]
    kwargs = dict(all_groups=GROUPS, all_y=Y, test_folds=folds)
    score = test.astype(float)
    assert alignment_metric(Y[test], score, groups=GROUPS[test], **kwargs) == 1.0
    assert alignment_metric(Y[test], score, groups=None, **kwargs) == 0.0
    rolled = np.roll(GROUPS[test], 1)
    assert alignment_metric(Y[test], score, groups=rolled, **kwargs) == 0.0
    half = test[: len(test) // 2]
    assert (
        alignment_metric(Y[half], half.astype(float), groups=GROUPS[half], **kwargs)
        == 0.0
    )


def test_validation_curve_scorer_gets_the_test_fold_groups():
    cv = GroupKFold(n_splits=3)
    X, column = probe_inputs(routed=False)
    _, test_scores = validation_curve(
        RowIndexRegressor(),
        X,
        Y,
        param_name="dummy",
        param_range=[0, 1],
        groups=GROUPS,
        cv=cv,
        scoring=probe_scorer(cv, column),
        error_score="raise",
    )
    assert test_scores.tolist() == [[1.0] * 3] * 2
    if VALIDATION_CURVE_ROUTES:  # scikit-learn >= 1.6 routes here too
        X, column = probe_inputs(routed=True)
        with routing(True):
            _, test_scores = validation_curve(
                RowIndexRegressor(),
                X,
                Y,
                param_name="dummy",
                param_range=[0, 1],
                cv=cv,
                scoring=probe_scorer(cv, column),
                params={"groups": GROUPS},
                error_score="raise",
            )
        assert test_scores.tolist() == [[1.0] * 3] * 2


# --- real models: reported scores equal hand-computed per-query scores -------------


def model_inputs(routed):
    """(model, X, scorer kwargs): numpy with routing, DataFrame + column without."""
    if routed:
        return make_pipeline(StandardScaler(), Ridge()), X_NUM, {}
    drop_qid = ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough")
    model = Pipeline(
        [("drop_qid", drop_qid), ("scale", StandardScaler()), ("ridge", Ridge())]
    )
    return model, as_frame(X_NUM, GROUPS), {"group_column": "qid"}


def test_hand_computed_scores_depend_on_the_groups():
    # Guard for the tests below: with these data, pooled rows or shuffled ids give
    # other values, so a scorer that ignored or misaligned groups would not match.
    splits = list(GroupKFold(n_splits=3).split(X_NUM, Y, GROUPS))
    model = make_pipeline(StandardScaler(), Ridge())
    right = manual_cv_scores(model, X_NUM, Y, GROUPS, splits, ["ndcg@3", "map"])
    pooled = manual_cv_scores(model, X_NUM, Y, np.zeros(N), splits, ["ndcg@3", "map"])
    shuffled_ids = np.random.default_rng(0).permutation(GROUPS)
    shuffled = manual_cv_scores(
        model, X_NUM, Y, shuffled_ids, splits, ["ndcg@3", "map"]
    )
    for metric in ("ndcg@3", "map"):
        values = [s[metric] for s in right]
        assert values != pytest.approx([s[metric] for s in pooled])
        assert values != pytest.approx([s[metric] for s in shuffled])


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
def test_grid_search_multi_metric_matches_hand_computed_scores(routed):
    model, X, scorer_kwargs = model_inputs(routed)
    cv = GroupKFold(n_splits=3)
    scorer = make_ranking_scorer(["ndcg@3", "map", "mrr"], **scorer_kwargs)
    grid = {model.steps[-1][0] + "__alpha": [0.1, 1000.0]}
    with routing(routed):
        search = GridSearchCV(
            model, grid, scoring=scorer, refit="ndcg@3", cv=cv, error_score="raise"
        ).fit(X, Y, groups=GROUPS)
    splits = list(cv.split(X_NUM, Y, GROUPS))
    for i, params in enumerate(search.cv_results_["params"]):
        expected = manual_cv_scores(
            model.set_params(**params), X, Y, GROUPS, splits, ["ndcg@3", "map", "mrr"]
        )
        for metric in ("ndcg@3", "map", "mrr"):
            got = [search.cv_results_[f"split{s}_test_{metric}"][i] for s in range(3)]
            assert got == pytest.approx([e[metric] for e in expected], rel=1e-12)
    best = int(np.argmax(search.cv_results_["mean_test_ndcg@3"]))
    assert search.best_index_ == best
    # The refit model is scored with the scorer too: one dict, same keys.
    with routing(routed):
        kwargs = {"groups": GROUPS} if routed else {}
        final = scorer(search.best_estimator_, X, Y, **kwargs)
    assert set(final) == {"ndcg@3", "map", "mrr"}


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
def test_dict_of_scorers_matches_hand_computed_scores(routed):
    model, X, scorer_kwargs = model_inputs(routed)
    cv = GroupKFold(n_splits=3)
    scoring = {
        "ndcg": make_ranking_scorer("ndcg@3", **scorer_kwargs),
        "map": make_ranking_scorer("map", **scorer_kwargs),
    }
    with routing(routed):
        search = GridSearchCV(
            model,
            {model.steps[-1][0] + "__alpha": [1.0]},
            scoring=scoring,
            refit="ndcg",
            cv=cv,
            error_score="raise",
        ).fit(X, Y, groups=GROUPS)
    splits = list(cv.split(X_NUM, Y, GROUPS))
    expected = manual_cv_scores(model, X, Y, GROUPS, splits, ["ndcg@3", "map"])
    got = [search.cv_results_[f"split{s}_test_ndcg"][0] for s in range(3)]
    assert got == pytest.approx([e["ndcg@3"] for e in expected], rel=1e-12)
    got = [search.cv_results_[f"split{s}_test_map"][0] for s in range(3)]
    assert got == pytest.approx([e["map"] for e in expected], rel=1e-12)


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
def test_cross_val_score_matches_hand_computed_scores(routed):
    model, X, scorer_kwargs = model_inputs(routed)
    cv = StratifiedGroupKFold(n_splits=3)
    scorer = get_scorer("ndcg@5").set_params(**scorer_kwargs)
    with routing(routed):
        if routed:
            scores = cross_val_score(
                model, X, Y, scoring=scorer, cv=cv, params={"groups": GROUPS}
            )
        else:
            scores = cross_val_score(model, X, Y, groups=GROUPS, scoring=scorer, cv=cv)
    splits = list(cv.split(X_NUM, Y, GROUPS))
    expected = manual_cv_scores(model, X, Y, GROUPS, splits, ["ndcg@5"])
    assert scores.tolist() == pytest.approx([e["ndcg@5"] for e in expected], rel=1e-12)


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
def test_cross_validate_multi_metric_with_two_jobs(routed):
    model, X, scorer_kwargs = model_inputs(routed)
    cv = GroupShuffleSplit(n_splits=2, test_size=0.3, random_state=0)
    scorer = make_ranking_scorer(["ndcg@3", "gauc"], **scorer_kwargs)
    with routing(routed):
        kwargs = {"params": {"groups": GROUPS}} if routed else {"groups": GROUPS}
        result = cross_validate(
            model, X, Y, scoring=scorer, cv=cv, n_jobs=2, error_score="raise", **kwargs
        )
    splits = list(cv.split(X_NUM, Y, GROUPS))
    expected = manual_cv_scores(model, X, Y, GROUPS, splits, ["ndcg@3", "gauc"])
    for metric in ("ndcg@3", "gauc"):
        got = result[f"test_{metric}"].tolist()
        assert got == pytest.approx([e[metric] for e in expected], rel=1e-12)


def test_grid_search_two_jobs_routing_single_metric():
    cv = LeaveOneGroupOut()
    with routing(True):
        search = GridSearchCV(
            Ridge(),
            {"alpha": [0.1, 10.0]},
            scoring=get_scorer("ndcg@3"),
            cv=cv,
            n_jobs=2,
            error_score="raise",
        ).fit(X_NUM, Y, groups=GROUPS)
    splits = list(cv.split(X_NUM, Y, GROUPS))
    for i, params in enumerate(search.cv_results_["params"]):
        expected = manual_cv_scores(
            Ridge(**params), X_NUM, Y, GROUPS, splits, ["ndcg@3"]
        )
        got = [
            search.cv_results_[f"split{s}_test_score"][i] for s in range(len(splits))
        ]
        assert got == pytest.approx([e["ndcg@3"] for e in expected], rel=1e-12)


def test_validation_curve_matches_hand_computed_scores():
    model, X, scorer_kwargs = model_inputs(routed=False)
    cv = GroupKFold(n_splits=3)
    _, test_scores = validation_curve(
        model,
        X,
        Y,
        param_name="ridge__alpha",
        param_range=[0.1, 1000.0],
        groups=GROUPS,
        cv=cv,
        scoring=make_ranking_scorer("map", **scorer_kwargs),
    )
    splits = list(cv.split(X_NUM, Y, GROUPS))
    for row, alpha in zip(test_scores, [0.1, 1000.0], strict=True):
        expected = manual_cv_scores(
            model.set_params(ridge__alpha=alpha), X, Y, GROUPS, splits, ["map"]
        )
        assert row.tolist() == pytest.approx([e["map"] for e in expected], rel=1e-12)


def test_halving_search_with_a_real_model_scores_each_row_with_its_group():
    # Subsampled rows of each query are scored with their own query's id: the
    # scorer's value on the refit model equals evaluate with the full ids.
    with routing(True):
        search = HalvingGridSearchCV(
            Ridge(),
            {"alpha": [0.01, 0.1, 1.0, 10.0]},
            factor=2,
            scoring=get_scorer("ndcg@3"),
            cv=GroupKFold(n_splits=3),
            random_state=0,
            error_score="raise",
        ).fit(X_NUM, Y, groups=GROUPS)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.n_resources_[-1] > search.n_resources_[0]
    scores = search.best_estimator_.predict(X_NUM)
    with routing(True):
        got = get_scorer("ndcg@3")(search.best_estimator_, X_NUM, Y, groups=GROUPS)
    assert got == evaluate(Y, scores, groups=GROUPS, metrics=["ndcg@3"])["ndcg@3"]


# --- missing groups: one clear error, visible even when a search turns it into NaN --


def test_missing_groups_raise_with_both_fixes_when_error_score_raise():
    with pytest.raises(ValueError, match="got no groups") as info:
        GridSearchCV(
            Ridge(),
            {"alpha": [1.0]},
            scoring=get_scorer("ndcg@3"),
            cv=GroupKFold(n_splits=3),
            error_score="raise",
        ).fit(X_NUM, Y, groups=GROUPS)
    message = str(info.value)
    assert "sklearn.set_config(enable_metadata_routing=True)" in message
    assert "group_column=" in message
    assert "error_score='raise'" in message


def test_missing_groups_with_routing_but_no_groups_passed():
    with routing(True), pytest.raises(ValueError, match="got no groups"):
        cross_validate(
            Ridge(),
            X_NUM,
            Y,
            scoring=get_scorer("map"),
            cv=KFold(3),
            error_score="raise",
        )


def test_missing_groups_message_is_in_the_search_warning():
    search = GridSearchCV(
        Ridge(),
        {"alpha": [1.0]},
        scoring=get_scorer("ndcg@3"),
        cv=GroupKFold(n_splits=3),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X_NUM, Y, groups=GROUPS)
    text = "\n".join(str(w.message) for w in caught)
    assert "got no groups" in text
    assert "enable_metadata_routing=True" in text and "group_column=" in text
    assert np.isnan(search.cv_results_["mean_test_score"]).all()


def test_routed_judged_mask_reaches_the_scorer_per_fold():
    """With routing on, ``judged`` requested by the scorer is sliced per test fold
    like ``groups``: bpref, judged@5 and -J NDCG equal the hand-computed folds."""
    rng = np.random.default_rng(3)
    judged = rng.random(N) < 0.7
    judged[Y > 0] = True  # a row with a label is judged
    names = ["bpref", "judged@5", "ndcg@5"]
    model = make_pipeline(StandardScaler(), Ridge())
    cv = GroupKFold(n_splits=3)
    with routing(True):
        scorer = make_ranking_scorer(names, judged_only=True)
        scorer.set_score_request(judged=True)
        got = cross_validate(
            model,
            X_NUM,
            Y,
            scoring=scorer,
            cv=cv,
            params={"groups": GROUPS, "judged": judged},
        )
    for fold, (train, test) in enumerate(cv.split(X_NUM, Y, GROUPS)):
        fitted = make_pipeline(StandardScaler(), Ridge()).fit(X_NUM[train], Y[train])
        expected = evaluate(
            Y[test],
            fitted.predict(X_NUM[test]),
            groups=GROUPS[test],
            judged=judged[test],
            metrics=names,
            judged_only=True,
        )
        for name in names:
            assert got[f"test_{name}"][fold] == pytest.approx(expected[name], rel=1e-12)
    # The mask changes the numbers, so a scorer that dropped it would fail above.
    plain = evaluate(
        Y, Ridge().fit(X_NUM, Y).predict(X_NUM), groups=GROUPS, metrics=["judged@5"]
    )
    assert plain["judged@5"] == 1.0


def test_judged_is_unrequested_by_default():
    scorer = make_ranking_scorer("bpref")
    with routing(True):
        request = scorer.get_metadata_routing()
        assert request.score.requests["judged"] is None
        with pytest.raises(Exception, match="judged"):
            cross_validate(
                make_pipeline(StandardScaler(), Ridge()),
                X_NUM,
                Y,
                scoring=scorer,
                cv=GroupKFold(n_splits=3),
                params={"groups": GROUPS, "judged": np.ones(N, bool)},
            )
