"""Each convention preset reproduces its library's own numbers.

- ``convention="sklearn"``: ``sklearn.metrics.ndcg_score`` / ``dcg_score`` on groups
  of equal length (one row of the 2-D input per group), ties included.
- ``convention="lightgbm"``: LightGBM's ``ndcg@k`` and ``map@k`` evaluation of a
  small LambdaRank model trained on random data, on that model's scores (trees give
  many tied scores, so the tie rule matters).
- ``convention="xgboost"``: XGBoost's ``ndcg@k``, ``ndcg``, ``map@k``, ``map`` and
  ``pre@k`` in the same way.
- ``convention="trec_eval"``: see test_trec_eval_parity.py and
  test_pytrec_eval_differential.py.

Where a library differs on purpose from one consistent rule, the quirk is pinned
by a test below and listed in docs/parity.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import dcg_score as sk_dcg_score
from sklearn.metrics import ndcg_score as sk_ndcg_score

from sklearn_rank import dcg_score, evaluate, evaluate_per_group, ndcg_score

CUTOFFS = (1, 3, 5, 10)


def _random_ranking(seed: int, n_groups: int = 40, binary: bool = False):
    """Random features, graded (or binary) labels, varied group sizes, one group
    with no relevant row."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_groups)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 4)).round(1)
    y = (rng.integers(0, 4, size=n) * (rng.random(n) < 0.5)).astype(np.float64)
    if binary:
        y = (y > 0).astype(np.float64)
    groups = np.repeat(np.arange(n_groups), sizes)
    y[groups == 3] = 0.0
    return X, y, groups, sizes


# -- scikit-learn ---------------------------------------------------------------------
@pytest.mark.parametrize("k", [None, 1, 3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_sklearn_ndcg_and_dcg(seed, k):
    rng = np.random.default_rng(seed)
    n_groups, length = 30, 8
    y = rng.integers(0, 4, size=(n_groups, length)).astype(np.float64)
    y[0] = 0.0  # no relevant item: scikit-learn scores 0 and averages it
    s = rng.integers(0, 4, size=(n_groups, length)) / 2.0  # many ties
    w = rng.random(n_groups) + 0.1
    groups = np.repeat(np.arange(n_groups), length)
    rows_w = np.repeat(w, length)  # a group's weight is the mean of its rows'
    for weights, per_row in ((None, None), (w, rows_w)):
        args = (y.ravel(), s.ravel())
        kw = {"groups": groups, "k": k, "sample_weight": per_row}
        expected = sk_ndcg_score(y, s, k=k, sample_weight=weights)
        assert ndcg_score(*args, **kw, convention="sklearn") == pytest.approx(
            expected, abs=1e-12
        )
        expected = sk_dcg_score(y, s, k=k, sample_weight=weights)
        assert dcg_score(*args, **kw, convention="sklearn") == pytest.approx(
            expected, abs=1e-12
        )


# -- LightGBM -------------------------------------------------------------------------
lgb = pytest.importorskip("lightgbm")

LGB_PARAMS = {
    "objective": "lambdarank",
    "metric": ["ndcg", "map"],
    "eval_at": list(CUTOFFS),
    "num_leaves": 4,
    "learning_rate": 0.3,
    "min_data_in_leaf": 5,
    "verbose": -1,
    "num_threads": 1,
    "deterministic": True,
}


def _lightgbm_eval(X, y, sizes, weight=None):
    data = lgb.Dataset(X, y, group=sizes, weight=weight)
    record: dict = {}
    booster = lgb.train(
        LGB_PARAMS,
        data,
        num_boost_round=4,
        valid_sets=[data],
        valid_names=["train"],
        callbacks=[lgb.record_evaluation(record)],
    )
    scores = booster.predict(X, raw_score=True)
    return scores, {name: values[-1] for name, values in record["train"].items()}


@pytest.mark.parametrize("seed", range(3))
def test_lightgbm_ndcg_and_map(seed):
    X, y, groups, sizes = _random_ranking(seed)
    scores, theirs = _lightgbm_eval(X, y, sizes)
    assert len(np.unique(scores)) < len(scores)  # ties present
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in CUTOFFS]
    ours = evaluate(y, scores, groups=groups, metrics=names, convention="lightgbm")
    for name in names:
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12), name


def test_lightgbm_weighted_ndcg_quirk():
    """LightGBM adds an unweighted 1.0 for a group without a relevant item
    (rank_metric.hpp, weighted branch) but still counts its weight in the sum of
    weights. This library weights that group's 1.0 like any other value."""
    X, y, groups, sizes = _random_ranking(7)
    # Multiples of 1/8: exact in the float32 both libraries store weights in.
    group_w = np.random.default_rng(7).integers(4, 24, size=sizes.size) / 8.0
    row_w = np.repeat(group_w, sizes)
    scores, theirs = _lightgbm_eval(X, y, sizes, weight=row_w)
    per_group = evaluate_per_group(
        y, scores, groups=groups, metrics=["ndcg@5"], convention="lightgbm"
    ).values["ndcg@5"]
    undefined = np.isnan(per_group)
    assert undefined.any()
    quirk = (
        np.dot(group_w[~undefined], per_group[~undefined]) + undefined.sum()
    ) / group_w.sum()
    assert theirs["ndcg@5"] == pytest.approx(quirk, abs=1e-12)
    ours = ndcg_score(
        y, scores, groups=groups, k=5, sample_weight=row_w, convention="lightgbm"
    )
    consistent = np.dot(group_w, np.where(undefined, 1.0, per_group)) / group_w.sum()
    assert ours == pytest.approx(consistent, abs=1e-12)
    assert abs(ours - theirs["ndcg@5"]) > 1e-6


# -- XGBoost --------------------------------------------------------------------------
xgb = pytest.importorskip("xgboost")


def _xgboost_eval(X, y, groups, metrics, group_weight=None):
    data = xgb.DMatrix(X, label=y, qid=groups)
    if group_weight is not None:
        data.set_weight(group_weight)
    record: dict = {}
    booster = xgb.train(
        {
            "objective": "rank:ndcg",
            "eval_metric": metrics,
            "max_depth": 2,
            "eta": 0.3,
            "nthread": 1,
        },
        data,
        num_boost_round=4,
        evals=[(data, "train")],
        evals_result=record,
        verbose_eval=False,
    )
    scores = booster.predict(data, output_margin=True).astype(np.float64)
    return scores, {name: values[-1] for name, values in record["train"].items()}


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_ndcg(seed):
    X, y, groups, _ = _random_ranking(seed)
    names = [f"ndcg@{k}" for k in CUTOFFS] + ["ndcg"]
    scores, theirs = _xgboost_eval(X, y, groups, names)
    assert len(np.unique(scores)) < len(scores)  # ties present
    ours = evaluate(y, scores, groups=groups, metrics=names, convention="xgboost")
    for name in names:
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12), name


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_map_and_precision(seed):
    """map and pre@k take binary labels in XGBoost."""
    X, y, groups, _ = _random_ranking(seed, binary=True)
    maps = [f"map@{k}" for k in CUTOFFS] + ["map"]
    pres = [f"pre@{k}" for k in CUTOFFS]
    scores, theirs = _xgboost_eval(X, y, groups, maps + pres)
    ours = evaluate(y, scores, groups=groups, metrics=maps, convention="xgboost")
    for name in maps:
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12), name
    # Quirk: pre@k scores 0, not 1, for a group without a relevant item.
    ours = evaluate(
        y,
        scores,
        groups=groups,
        metrics=[f"precision@{k}" for k in CUTOFFS],
        convention="xgboost",
        undefined=0.0,
    )
    for k in CUTOFFS:
        assert ours[f"precision@{k}"] == pytest.approx(theirs[f"pre@{k}"], abs=1e-12)


def test_xgboost_weighted_ndcg_quirk():
    """Like LightGBM, XGBoost (NDCGScoreCpu) returns an unweighted 1.0 for a group
    without a relevant item while adding its weight to the denominator."""
    X, y, groups, sizes = _random_ranking(7)
    # Multiples of 1/8: exact in the float32 both libraries store weights in.
    group_w = np.random.default_rng(7).integers(4, 24, size=sizes.size) / 8.0
    scores, theirs = _xgboost_eval(X, y, groups, ["ndcg@5"], group_weight=group_w)
    per_group = evaluate_per_group(
        y, scores, groups=groups, metrics=["ndcg@5"], convention="xgboost"
    ).values["ndcg@5"]
    undefined = np.isnan(per_group)
    quirk = (
        np.dot(group_w[~undefined], per_group[~undefined]) + undefined.sum()
    ) / group_w.sum()
    assert theirs["ndcg@5"] == pytest.approx(quirk, abs=1e-12)
    ours = ndcg_score(
        y,
        scores,
        groups=groups,
        k=5,
        sample_weight=np.repeat(group_w, sizes),
        convention="xgboost",
    )
    assert abs(ours - theirs["ndcg@5"]) > 1e-6
