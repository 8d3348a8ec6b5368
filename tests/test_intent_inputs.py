"""The intent metrics' inputs through every front end (issue 45): ``retrieved``
and ``intent_weight`` in ``evaluate``, the ``*_score`` functions and the
scorers (routed metadata in a real search). Values against the brute forces of
test_intent_retrieved.py (ndeval's reading of unretrieved judged rows) and
test_intent_api.py (Agrawal et al.'s weighted sum)."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold
from test_intent_api import _query_weights, _weighted_mean
from test_intent_retrieved import _case
from test_intent_retrieved import _oracle as _retrieved_oracle

import sklearn_rank
from sklearn_rank import (
    evaluate,
    evaluate_intents,
    get_scorer,
    make_ranking_scorer,
    map_ia_score,
    ndcg_score,
)
from sklearn_rank._metrics.intent import INTENT_METRICS
from sklearn_rank._utils.params import InvalidParameterError

WEIGHTED = ("err_ia", "precision_ia", "map_ia")


def _weighted_retrieved_mean(metric, y, s, g, ret, weights, alpha, k):
    """Per query ``sum_i P(i|q) M_i``, ``M_i`` the retrieved brute force on
    intent ``i``'s column alone (ERR-IA, precision-IA and MAP-IA average
    one-intent values), ``I_q`` and ``P(i|q)`` over every judged row."""
    values = []
    for q in dict.fromkeys(g):
        rows = [i for i in range(len(g)) if g[i] == q]
        rel = y[rows]
        intents = np.flatnonzero((rel > 0).any(axis=0))
        if not intents.size:
            continue
        w = weights[rows[0]]
        total = w[intents].sum()
        value = 0.0
        for j in intents:
            one = [[int(v > 0)] for v in rel[:, j]]
            m = _retrieved_oracle(metric, one, s[rows], ret[rows], alpha, 0.5, k)
            value += w[j] / total * m
        values.append(value)
    return float(np.mean(values))


def _names():
    return [f"{m}@{k}" if k else m for m in WEIGHTED for k in (None, 1, 3)]


# Cases where the weights change every metric and a relevant row is unretrieved.
@pytest.mark.parametrize("seed", [4500, 4503, 4511, 4515, 4516, 4519])
def test_weights_and_the_mask_through_evaluate_equal_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    y, s, g, ret = _case(rng)
    weights = _query_weights(rng, y, g)
    assert ((y > 0).any(axis=1) & ~ret).any()
    names = _names()
    kw = dict(groups=g, metrics=names, alpha=0.3, retrieved=ret)
    got = evaluate(y, s, intent_weight=weights, **kw)
    uniform = evaluate(y, s, **kw)
    assert all(got[n] != uniform[n] for n in names if "@1" not in n)
    assert got == evaluate_intents(y, s, intent_weight=weights, **kw)  # same bits
    for name in names:
        metric, _, cut = name.partition("@")
        k = int(cut) if cut else None
        want = _weighted_retrieved_mean(metric, y, s, g, ret, weights, 0.3, k)
        assert got[name] == pytest.approx(want, abs=1e-12), name
        # the function of each metric: the same bits
        func = getattr(sklearn_rank, f"{metric}_score")
        one = (
            func(y, s, groups=g, k=k, alpha=0.3, retrieved=ret, intent_weight=weights)
            if metric == "err_ia"
            else func(y, s, groups=g, k=k, retrieved=ret, intent_weight=weights)
        )
        assert one == got[name], name


def test_every_score_function_takes_the_mask():
    rng = np.random.default_rng(4)
    y, s, g, ret = _case(rng)
    names = [m if m in ("nrbp", "nnrbp") else f"{m}@3" for m in INTENT_METRICS]
    got = evaluate(y, s, groups=g, metrics=names, retrieved=ret)
    assert got == evaluate_intents(y, s, groups=g, metrics=names, retrieved=ret)
    for name in names:
        metric, _, cut = name.partition("@")
        k = {"k": int(cut)} if cut else {}
        func = getattr(sklearn_rank, f"{metric}_score")
        assert func(y, s, groups=g, retrieved=ret, **k) == got[name], name
    # the mask matters (the test is not vacuous): unmasked, other numbers
    assert evaluate(y, s, groups=g, metrics=names) != got


def test_a_mixed_call_gives_the_plain_metrics_the_same_ranked_rows():
    # The single-label metrics read each row's largest grade with the library's
    # usual retrieved: unretrieved rows count in the relevant total and the
    # ideal, never in the ranked list.
    rng = np.random.default_rng(45)
    g = np.repeat(np.arange(6), 5)
    y = rng.integers(0, 3, size=(g.size, 3)) * (rng.random((g.size, 3)) < 0.4)
    s, ret = rng.normal(size=g.size), rng.random(g.size) < 0.7
    names = ["alpha_ndcg@3", "ndcg@3", "map", "map_ia", "recall@2"]
    got = evaluate(y, s, groups=g, metrics=names, retrieved=ret, undefined=0.0)
    plain = evaluate(
        y.max(axis=1),
        s,
        groups=g,
        metrics=["ndcg@3", "map", "recall@2"],
        retrieved=ret,
        undefined=0.0,
    )
    for name, value in plain.items():
        assert got[name] == value, name
    assert got["ndcg@3"] == ndcg_score(
        y.max(axis=1), s, groups=g, k=3, retrieved=ret, undefined=0.0
    )
    intents = evaluate_intents(
        y,
        s,
        groups=g,
        metrics=["alpha_ndcg@3", "map_ia"],
        retrieved=ret,
        undefined=0.0,
    )
    assert {n: got[n] for n in intents} == intents


def test_bad_weights_and_masks_name_the_argument():
    y, s, g = [[1, 0], [0, 1], [1, 1]], [3, 2, 1], [0, 0, 1]
    good = [[1, 2], [1, 2], [1, 1]]
    for weights, match in [
        ([[1, 2], [1, 2]], r"'intent_weight' parameter of evaluate must be an array"),
        ([[1, 2], [2, 1], [1, 1]], "the same weights on every row of a query"),
        ([[1, -2], [1, -2], [1, 1]], "finite weights >= 0"),
        ([[1, np.nan], [1, np.nan], [1, 1]], "finite weights >= 0"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            evaluate(y, s, groups=g, metrics=["map_ia"], intent_weight=weights)
    # a metric without a weighted definition is named, intent-aware or not
    for names, bad in [
        (["err_ia@2", "alpha_ndcg@2"], "alpha_ndcg@2"),
        (["map_ia", "ndcg@2"], "ndcg@2"),
        (["ndcg@2"], "ndcg@2"),
    ]:
        with pytest.raises(InvalidParameterError, match=rf"intent_weight.*'{bad}'"):
            evaluate(y, s, groups=g, metrics=names, intent_weight=good)
    with pytest.raises(TypeError, match="intent_weight"):
        sklearn_rank.nrbp_score(y, s, groups=g, intent_weight=good)
    with pytest.raises(InvalidParameterError, match="'judged' parameter of evaluate"):
        evaluate(y, s, groups=g, metrics=["map_ia"], judged=[True, True, False])
    with pytest.raises(ValueError, match=r"map_ia_score: .* retrieved=2"):
        map_ia_score(y, s, groups=g, retrieved=[True, False])


class LargestGradeRidge(RegressorMixin, BaseEstimator):
    """Fits a 2-D y (relevance per intent) on each row's largest grade."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        self.model_ = Ridge(alpha=self.alpha).fit(X, np.asarray(y).max(axis=1))
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _search_data():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(18), 6)
    X = rng.normal(size=(g.size, 3))
    y = ((X[:, [0]] + rng.normal(size=(g.size, 3))) > 0.8).astype(int)
    return X, y, g, _query_weights(rng, y, g)


def _fold_scores(search, n_splits):
    return [search.cv_results_[f"split{i}_test_score"][0] for i in range(n_splits)]


def test_a_search_routes_the_weights_to_each_test_fold():
    X, y, g, weights = _search_data()
    cv = GroupKFold(n_splits=3)
    scorer = get_scorer("err_ia@3")
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            LargestGradeRidge(),
            {"alpha": [1.0]},
            scoring=scorer,
            cv=cv,
            error_score="raise",
        ).fit(X, y, groups=g, intent_weight=weights)
        unweighted = GridSearchCV(
            LargestGradeRidge(), {"alpha": [1.0]}, scoring=scorer, cv=cv
        ).fit(X, y, groups=g)
    got = _fold_scores(search, 3)
    for (train, test), value in zip(cv.split(X, y, g), got, strict=True):
        s = clone(search.estimator).fit(X[train], y[train]).predict(X[test])
        w = weights[test]
        want = evaluate_intents(
            y[test], s, groups=g[test], metrics="err_ia@3", intent_weight=w
        )["err_ia@3"]
        assert value == want
        ones = np.ones(test.size)
        oracle = _weighted_mean("err_ia", y[test], s, g[test], ones, w, 0.5, 3)
        assert value == pytest.approx(oracle, abs=1e-12)
    assert got != _fold_scores(unweighted, 3)  # the weights were read


def test_the_default_request_and_set_score_request():
    X, y, g, weights = _search_data()
    cv = GroupKFold(n_splits=3)

    def search(scorer, **fit):
        return GridSearchCV(
            LargestGradeRidge(),
            {"alpha": [1.0]},
            scoring=scorer,
            cv=cv,
            refit=False,
            error_score="raise",
        ).fit(X, y, groups=g, **fit)

    with sklearn.config_context(enable_metadata_routing=True):
        score = make_ranking_scorer(["map_ia", "P_IA@3"]).get_metadata_routing().score
        assert score.requests["intent_weight"] is True
        score = get_scorer("alpha_ndcg@3").get_metadata_routing().score
        assert score.requests["intent_weight"] is None
        # a scorer of single-label metrics only does not ask for it
        score = get_scorer("ndcg@3").get_metadata_routing().score
        assert "intent_weight" not in score.requests
        # a scorer with a metric that refuses weights: unset, the search raises
        mixed = make_ranking_scorer(["err_ia@3", "alpha_ndcg@3"])
        with pytest.raises(UnsetMetadataPassedError, match="intent_weight"):
            search(mixed, intent_weight=weights)
        # True: the metric without a weighted definition is named
        with pytest.raises(InvalidParameterError, match="'alpha_ndcg@3'"):
            search(mixed.set_score_request(intent_weight=True), intent_weight=weights)
    with pytest.raises(ValueError, match="intent_weight= as a metric option"):
        make_ranking_scorer("err_ia@3", intent_weight=weights)
