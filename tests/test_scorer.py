"""The scorer objects themselves: inputs, response methods, routing requests, repr."""

import pickle

import numpy as np
import pytest
import sklearn
from _ranking_fixtures import as_frame, make_ranking_data
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

import sklearn_rank
from sklearn_rank import (
    MultiMetricRankingScorer,
    RankingScorer,
    evaluate,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    ndcg_score,
)

X, Y, GROUPS = make_ranking_data()
BINARY = (Y >= 2).astype(int)


def routing(on=True):
    return sklearn.config_context(enable_metadata_routing=on)


def test_get_scorer_returns_a_fresh_scorer_each_call():
    first, second = get_scorer("ndcg@10"), get_scorer("ndcg@10")
    assert first is not second
    first.set_params(group_column="qid")
    assert second.group_column is None
    assert get_scorer("ndcg@10").group_column is None


def test_scorer_names_come_from_the_registry():
    names = get_scorer_names()
    assert names == sklearn_rank.get_metric_names()
    for name in names:  # every listed name builds a scorer ("@k": any cutoff)
        # "@k": a cutoff; "@r", "@m": the number a name option reads
        concrete = name.replace("@k", "@5").replace("@r", "@0.5").replace("@m", "@0.5")
        assert get_scorer(concrete).metric.startswith(name[:3])


def test_unknown_names_fail_when_the_scorer_is_made():
    with pytest.raises(ValueError, match=r"Valid names: .*ndcg"):
        get_scorer("ndgc@10")
    with pytest.raises(ValueError, match="cutoff"):
        get_scorer("ndcg@k")
    with pytest.raises(ValueError, match="Unknown metric"):
        make_ranking_scorer(["ndcg@3", "nope"])
    with pytest.raises(ValueError, match="non-empty list"):
        make_ranking_scorer([])


def test_single_and_multi_metric_values():
    model = Ridge().fit(X, Y)
    expected = evaluate(
        Y, model.predict(X), groups=GROUPS, metrics=["ndcg@3", "map", "gauc"]
    )
    assert get_scorer("ndcg@3")(model, X, Y, groups=GROUPS) == expected["ndcg@3"]
    multi = make_ranking_scorer(["ndcg@3", "map", "gauc"])
    assert isinstance(multi, MultiMetricRankingScorer)
    assert multi(model, X, Y, groups=GROUPS) == expected


def test_metric_options_are_passed_to_the_metric():
    model = Ridge().fit(X, Y)
    scorer = make_ranking_scorer("ndcg@3", gain="linear", ties="pessimistic")
    assert scorer.metric_kwargs == {"gain": "linear", "ties": "pessimistic"}
    expected = evaluate(
        Y,
        model.predict(X),
        groups=GROUPS,
        metrics=["ndcg@3"],
        gain="linear",
        ties="pessimistic",
    )["ndcg@3"]
    assert scorer(model, X, Y, groups=GROUPS) == expected
    with pytest.raises(ValueError, match="per-row inputs come from the call"):
        make_ranking_scorer("map", groups=GROUPS)(model, X, Y, groups=GROUPS)


def test_metric_function():
    model = Ridge().fit(X, Y)
    scorer = make_ranking_scorer(ndcg_score, k=3)
    assert scorer(model, X, Y, groups=GROUPS) == pytest.approx(
        get_scorer("ndcg@3")(model, X, Y, groups=GROUPS), rel=1e-12
    )
    with pytest.raises(ValueError, match="got no groups"):
        scorer(model, X, Y)


def test_pooled_auc_needs_no_groups():
    model = Ridge().fit(X, BINARY)
    assert (
        get_scorer("auc")(model, X, BINARY)
        == evaluate(BINARY, model.predict(X), groups=None, metrics=["auc"])["auc"]
    )


def test_binary_classifier_scored_by_a_continuous_score():
    clf = LogisticRegression().fit(X, BINARY)
    by_decision = evaluate(
        BINARY, clf.decision_function(X), groups=GROUPS, metrics=["map"]
    )["map"]
    assert get_scorer("map")(clf, X, BINARY, groups=GROUPS) == by_decision
    proba = make_ranking_scorer("map", response_method="predict_proba")
    expected = evaluate(
        BINARY, clf.predict_proba(X)[:, 1], groups=GROUPS, metrics=["map"]
    )["map"]
    assert proba(clf, X, BINARY, groups=GROUPS) == expected
    hard = make_ranking_scorer("map", response_method="predict")
    expected = evaluate(BINARY, clf.predict(X), groups=GROUPS, metrics=["map"])
    assert hard(clf, X, BINARY, groups=GROUPS) == expected["map"]


def test_multiclass_classifier_scored_by_expected_grade():
    clf = LogisticRegression(max_iter=500).fit(X, Y)  # classes 0..3
    assert len(clf.classes_) == 4 and hasattr(clf, "decision_function")
    grade = clf.predict_proba(X) @ clf.classes_
    expected = evaluate(Y, grade, groups=GROUPS, metrics=["ndcg@3"])["ndcg@3"]
    assert get_scorer("ndcg@3")(clf, X, Y, groups=GROUPS) == expected
    only_decision = make_ranking_scorer("ndcg@3", response_method="decision_function")
    with pytest.raises(ValueError, match="expected grade"):
        only_decision(clf, X, Y, groups=GROUPS)
    labels = np.array(["a", "b", "c"])[np.minimum(Y, 2)]
    text_clf = LogisticRegression(max_iter=500).fit(X, labels)
    with pytest.raises(ValueError, match="numeric classes"):
        get_scorer("ndcg@3")(text_clf, X, Y, groups=GROUPS)


def test_response_method_checks():
    with pytest.raises(ValueError, match="'response_method' parameter"):
        make_ranking_scorer("map", response_method="predict_log_proba")

    class NoPredict:
        pass

    with pytest.raises(AttributeError, match="has none"):
        get_scorer("map")(NoPredict(), X, Y, groups=GROUPS)


def test_group_column_fallback_and_precedence():
    model = Ridge().fit(X, Y)
    expected = get_scorer("map")(model, X, Y, groups=GROUPS)
    frame = as_frame(X, GROUPS)
    by_name = make_ranking_scorer("map", group_column="qid")
    column_model = Ridge().fit(frame, Y)  # the model sees the qid column here
    assert by_name(column_model, frame, Y) == get_scorer("map")(
        column_model, frame, Y, groups=GROUPS
    )
    # An int column works on plain arrays.
    with_ids = np.column_stack([X, GROUPS])
    by_position = make_ranking_scorer("map", group_column=-1)
    wide = Ridge().fit(with_ids, Y)
    assert by_position(wide, with_ids, Y) == get_scorer("map")(
        wide, with_ids, Y, groups=GROUPS
    )
    # Routed groups win over the column.
    other = np.zeros_like(GROUPS)
    routed_first = by_name(column_model, frame, Y, groups=other)
    assert routed_first == get_scorer("map")(column_model, frame, Y, groups=other)
    assert expected != routed_first


def test_group_column_errors():
    model = Ridge().fit(X, Y)
    with pytest.raises(ValueError, match="must be a pandas DataFrame"):
        make_ranking_scorer("map", group_column="qid")(model, X, Y)
    frame = as_frame(X, GROUPS).rename(columns={"qid": "query"})
    with pytest.raises(ValueError, match="has no such column"):
        make_ranking_scorer("map", group_column="qid")(model, frame, Y)
    with pytest.raises(ValueError, match="column position"):
        make_ranking_scorer("map", group_column=9)(model, X, Y)
    with pytest.raises(TypeError, match="'group_column' parameter"):
        make_ranking_scorer("map", group_column=1.5)


def test_missing_groups_error_names_both_fixes():
    model = Ridge().fit(X, Y)
    with pytest.raises(ValueError) as info:
        make_ranking_scorer(["ndcg@3", "map"])(model, X, Y)
    message = str(info.value)
    assert message.startswith("MultiMetricRankingScorer(metrics=['ndcg@3', 'map'])")
    assert "enable_metadata_routing=True" in message
    assert "group_column=" in message


def test_repr_round_trips_and_pickles():
    scorers = [
        get_scorer("ndcg@10"),
        make_ranking_scorer(
            "precision@5",
            group_column="qid",
            response_method="predict",
            relevance_threshold=2,
        ),
        make_ranking_scorer(["ndcg@3", "map"], ties="stable"),
        make_ranking_scorer(ndcg_score, k=3),
    ]
    namespace = {
        "RankingScorer": RankingScorer,
        "MultiMetricRankingScorer": MultiMetricRankingScorer,
    }
    model = Ridge().fit(X, Y)
    for scorer in scorers[:3]:
        rebuilt = eval(repr(scorer), namespace)
        assert type(rebuilt) is type(scorer)
        assert rebuilt.get_params() == scorer.get_params()
    for scorer in scorers:
        copy = pickle.loads(pickle.dumps(scorer))
        assert repr(copy) == repr(scorer)
        frame = as_frame(X, GROUPS)
        args = (Ridge().fit(frame, Y), frame) if scorer.group_column else (model, X)
        assert copy(*args, Y, groups=GROUPS) == scorer(*args, Y, groups=GROUPS)


def test_requests_groups_by_default_and_leaves_sample_weight_unset():
    with routing():
        scorer = get_scorer("map")
        requests = scorer.get_metadata_routing().score.requests
        assert requests == {"groups": True, "sample_weight": None, "judged": None}
        scorer.set_score_request(sample_weight=True)
        requests = scorer.get_metadata_routing().score.requests
        assert requests == {"groups": True, "sample_weight": True, "judged": None}
        # A fresh scorer is not affected.
        fresh = get_scorer("map").get_metadata_routing().score.requests
        assert fresh["sample_weight"] is None


def test_set_score_request_needs_routing():
    with routing(False), pytest.raises(RuntimeError, match="enable_metadata_routing"):
        get_scorer("map").set_score_request(sample_weight=True)


def test_routed_sample_weight():
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=len(Y))
    cv = GroupKFold(n_splits=3)
    with routing():
        scorer = get_scorer("ndcg@3").set_score_request(sample_weight=True)
        search = GridSearchCV(
            Ridge().set_fit_request(sample_weight=False),
            {"alpha": [1.0]},
            scoring=scorer,
            cv=cv,
            error_score="raise",
        ).fit(X, Y, groups=GROUPS, sample_weight=weights)
    for split, (train, test) in enumerate(cv.split(X, Y, GROUPS)):
        pred = Ridge().fit(X[train], Y[train]).predict(X[test])
        expected = evaluate(
            Y[test],
            pred,
            groups=GROUPS[test],
            sample_weight=weights[test],
            metrics=["ndcg@3"],
        )["ndcg@3"]
        unweighted = evaluate(Y[test], pred, groups=GROUPS[test], metrics=["ndcg@3"])
        got = search.cv_results_[f"split{split}_test_score"][0]
        assert got == pytest.approx(expected, rel=1e-12)
        assert got != pytest.approx(unweighted["ndcg@3"], rel=1e-12)


def test_unrequested_sample_weight_is_an_error_not_silently_dropped():
    with routing(), pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
        GridSearchCV(
            Ridge().set_fit_request(sample_weight=True),
            {"alpha": [1.0]},
            scoring=get_scorer("map"),
            cv=GroupKFold(n_splits=3),
        ).fit(X, Y, groups=GROUPS, sample_weight=np.ones(len(Y)))


def test_groups_alias():
    cv = GroupKFold(n_splits=3)
    with routing():
        scorer = get_scorer("map").set_score_request(groups="query_id")
        search = GridSearchCV(
            Ridge(), {"alpha": [1.0]}, scoring=scorer, cv=cv, error_score="raise"
        ).fit(X, Y, groups=GROUPS, query_id=GROUPS)
        plain = GridSearchCV(
            Ridge(), {"alpha": [1.0]}, scoring=get_scorer("map"), cv=cv
        ).fit(X, Y, groups=GROUPS)
    assert search.best_score_ == plain.best_score_
