"""GroupedRanker(early_stopping=True): the validation part is whole queries,
the wrapped ranker stops on this library's metric, and inside GridSearchCV with
GroupKFold no query of an outer test fold or of the inner validation part is
ever trained on (the ids each fit sees are recorded)."""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold

import sklearn_rank as sr
from sklearn_rank import GroupedRanker, make_ranking_scorer
from sklearn_rank.datasets import load_lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

# Every fit of a recording ranker: (ids of its training rows, ids of its eval rows).
FITS = []


class RecordingLGBMRanker(lgb.LGBMRanker):
    def fit(self, X, y, group=None, **kwargs):
        evals = kwargs.get("eval_X") or [e[0] for e in kwargs.get("eval_set") or []]
        FITS.append((X[:, 0].copy(), [e[:, 0].copy() for e in evals]))
        if "eval_X" in kwargs:
            kwargs["eval_X"] = tuple(e[:, 1:] for e in kwargs["eval_X"])
        if "eval_set" in kwargs:
            kwargs["eval_set"] = [(e[:, 1:], t) for e, t in kwargs["eval_set"]]
        return super().fit(X[:, 1:], y, group=group, **kwargs)

    def predict(self, X, **kwargs):
        return super().predict(X[:, 1:], **kwargs)


@pytest.fixture(scope="module")
def data():
    X, y, groups = load_lambdarank(subset="train", return_X_y=True)
    X = X[:, :40]
    rows = np.arange(len(y), dtype=float)[:, None]
    shuffled = np.random.default_rng(0).permutation(len(y))
    return np.hstack([rows, X])[shuffled], y[shuffled], groups[shuffled]


def _lgbm(**params):
    return RecordingLGBMRanker(
        n_estimators=60, num_leaves=7, learning_rate=0.3, verbose=-1, **params
    )


def test_grid_search_never_trains_on_test_or_validation_queries(data):
    X, y, groups = data
    FITS.clear()
    model = GroupedRanker(
        _lgbm(), early_stopping=True, n_iter_no_change=3, random_state=0
    )
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            model,
            {"estimator__num_leaves": [3, 7]},
            cv=cv,
            scoring=make_ranking_scorer("ndcg@10"),
        ).fit(X, y, groups=groups)
    splits = list(cv.split(X, y, groups))
    query_of = dict(zip(X[:, 0], groups, strict=True))
    assert len(FITS) == 2 * 3 + 1  # the refit on every row is the last
    for trained, evals in FITS[:-1]:
        (valid,) = evals
        seen = np.concatenate([trained, valid])
        # The fold this fit belongs to: its rows are that fold's training rows.
        fold = [s for s in splits if set(X[s[0], 0]) == set(seen)]
        assert len(fold) == 1
        test_queries = {query_of[r] for r in X[fold[0][1], 0]}
        train_queries = {query_of[r] for r in trained}
        valid_queries = {query_of[r] for r in valid}
        assert not train_queries & test_queries
        assert not train_queries & valid_queries
        assert valid_queries  # whole queries held out
    best = search.best_estimator_
    assert 1 <= best.best_iteration_ <= 60
    assert best.validation_scores_.size >= best.best_iteration_
    assert best.estimator_.best_iteration_ == best.best_iteration_


def test_validation_curve_is_the_library_metric(data):
    X, y, groups = data
    model = GroupedRanker(
        _lgbm(),
        early_stopping=True,
        n_iter_no_change=5,
        random_state=3,
        validation_fraction=0.25,
        scoring="map@10",
    ).fit(X, y, groups=groups)
    valid = np.isin(groups, model.validation_groups_)
    assert np.unique(groups[valid]).size == model.validation_groups_.size
    # The curve's value at the best round: the library's map@10 of the
    # predictions of the model cut at that round.
    booster = model.estimator_.booster_
    pred = booster.predict(X[valid][:, 1:], num_iteration=model.best_iteration_)
    want = sr.evaluate(y[valid], pred, groups=groups[valid], metrics="map@10")
    assert model.validation_scores_[model.best_iteration_ - 1] == pytest.approx(
        want["map@10"], abs=1e-12
    )
    assert (
        model.validation_scores_.max()
        == model.validation_scores_[model.best_iteration_ - 1]
    )


def test_xgboost_ranker_stops_on_the_library_metric(data):
    X, y, groups = data
    model = GroupedRanker(
        xgb.XGBRanker(n_estimators=40, max_depth=3, learning_rate=0.5),
        early_stopping=True,
        n_iter_no_change=3,
        random_state=1,
    ).fit(X[:, 1:], y, groups=groups)
    curve = model.validation_scores_
    best = model.best_iteration_
    assert curve.size <= 40
    assert curve[best - 1] == curve.max()
    assert curve.size == 40 or curve.size == best + 3
    valid = np.isin(groups, model.validation_groups_)
    pred = model.predict(X[valid][:, 1:])  # the best round's model
    want = sr.evaluate(y[valid], pred, groups=groups[valid], metrics="ndcg@10")
    assert want["ndcg@10"] == pytest.approx(curve[best - 1], abs=1e-6)


def test_without_early_stopping_nothing_is_held_out(data):
    X, y, groups = data
    model = GroupedRanker(lgb.LGBMRanker(n_estimators=3, verbose=-1)).fit(
        X[:, 1:], y, groups=groups
    )
    assert model.best_iteration_ is None and model.validation_scores_ is None


def test_bad_parameters():
    X, y = np.zeros((4, 2)), np.array([1, 0, 1, 0])
    ranker = lgb.LGBMRanker(n_estimators=2, verbose=-1)
    with pytest.raises(ValueError, match="'validation_fraction' parameter"):
        GroupedRanker(ranker, early_stopping=True, validation_fraction=1.5).fit(
            X, y, groups=[0, 0, 1, 1]
        )
    with pytest.raises(ValueError, match="'n_iter_no_change' parameter"):
        GroupedRanker(ranker, early_stopping=True, n_iter_no_change=0).fit(
            X, y, groups=[0, 0, 1, 1]
        )
    with pytest.raises(ValueError, match="has 1 query"):
        GroupedRanker(ranker, early_stopping=True).fit(X, y, groups=[0, 0, 0, 0])
    with pytest.raises(ValueError, match="Unknown metric"):
        GroupedRanker(ranker, early_stopping=True, scoring="ndgc").fit(
            X, y, groups=[0, 0, 1, 1]
        )
