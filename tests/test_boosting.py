"""sklearn_rank.boosting: this library's metrics inside LightGBM's and XGBoost's
training loops. Under convention="lightgbm" / "xgboost" they equal the
frameworks' built-in ndcg@k / map@k at every iteration of real training runs
(to 1e-12); each eval set is prepared once; bad input raises an error that
names the fix."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.boosting import lightgbm_metric, xgboost_metric
from sklearn_rank.datasets import load_lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

TOL = 1e-12


@pytest.fixture(scope="module")
def data():
    train, test = load_lambdarank(subset="train"), load_lambdarank(subset="test")
    return train.data, train.target, train.groups, test.data, test.target, test.groups


def _sizes(groups):
    _, first, counts = np.unique(groups, return_index=True, return_counts=True)
    return counts[np.argsort(first)]


class _Recorder:
    """Keeps every value the metric returns at full precision (XGBoost formats
    custom metric values with 6 decimals)."""

    def __init__(self, metric):
        self.metric, self.values = metric, {}
        self.__name__ = metric.__name__

    def __call__(self, *args):
        out = self.metric(*args)
        for name, value, *_ in out if isinstance(out, list) else [out]:
            self.values.setdefault(name, []).append(value)
        return out


def test_lightgbm_train_equals_the_built_in_metrics_every_iteration(data):
    X, y, g, Xv, yv, gv = data
    train = lgb.Dataset(X, y, group=_sizes(g))
    valid = lgb.Dataset(Xv, yv, group=_sizes(gv), reference=train)
    names = ["ndcg@1", "ndcg@3", "ndcg@10", "map@3", "map@10"]
    metric = lightgbm_metric(names, prefix="sr_", convention="lightgbm")
    result = {}
    params = {
        "objective": "lambdarank",
        "metric": ["ndcg", "map"],
        "eval_at": [1, 3, 10],
        "verbose": -1,
        "num_leaves": 7,
    }
    lgb.train(
        params,
        train,
        15,
        valid_sets=[train, valid],
        valid_names=["train", "valid"],
        feval=metric,
        callbacks=[lgb.record_evaluation(result)],
    )
    for part in ("train", "valid"):
        for name in names:
            np.testing.assert_allclose(
                result[part]["sr_" + name], result[part][name], rtol=0, atol=TOL
            )
    assert len(metric._cache) == 2  # one prepared evaluation per eval set
    assert [entry[2] for entry in metric._cache.values()] == [15, 15]


def test_lgbmranker_eval_metric_and_early_stopping(data):
    X, y, g, Xv, yv, gv = data
    metric = lightgbm_metric("ndcg@10", convention="lightgbm", prefix="sr_")
    ranker = lgb.LGBMRanker(
        n_estimators=30, num_leaves=7, verbose=-1, learning_rate=0.3
    )
    ranker.fit(
        X,
        y,
        group=_sizes(g),
        eval_X=(Xv,),
        eval_y=(yv,),
        eval_group=[_sizes(gv)],
        eval_metric=metric,
        eval_at=[10],
        callbacks=[lgb.early_stopping(3, verbose=False)],
    )
    result = ranker.evals_result_["valid_0"]
    np.testing.assert_allclose(
        result["sr_ndcg@10"], result["ndcg@10"], atol=TOL, rtol=0
    )
    # The default convention: the value evaluate gives for the same scores.
    default = lightgbm_metric(["ndcg@10", "mrr"])
    pred = ranker.predict(Xv)
    got = default(yv.astype(float), pred, None, _sizes(gv))
    want = sr.evaluate(yv, pred, groups=gv, metrics=["ndcg@10", "mrr"])
    assert got == [("ndcg@10", want["ndcg@10"], True), ("mrr", want["mrr"], True)]


def _xgb_run(X, y, g, Xv, yv, gv, names, undefined_names):
    train = xgb.DMatrix(X, y, qid=g)
    valid = xgb.DMatrix(Xv, yv, qid=gv)
    plain = _Recorder(xgboost_metric(names, prefix="sr_", convention="xgboost"))
    minus = _Recorder(
        xgboost_metric(
            undefined_names, prefix="sr_minus_", convention="xgboost", undefined=0.0
        )
    )
    result = {}

    def both(predt, dmatrix):
        out = [plain(predt, dmatrix), minus(predt, dmatrix)]
        return [pair for o in out for pair in (o if isinstance(o, list) else [o])]

    builtin = names + [f"{n}-" for n in undefined_names]
    xgb.train(
        {"objective": "rank:ndcg", "eval_metric": builtin, "max_depth": 3},
        train,
        12,
        evals=[(train, "train"), (valid, "valid")],
        custom_metric=both,
        evals_result=result,
        verbose_eval=False,
    )
    for i, part in enumerate(("train", "valid")):
        for rec, prefix, suffix, group in (
            (plain, "sr_", "", names),
            (minus, "sr_minus_", "-", undefined_names),
        ):
            for name in group:
                ours = rec.values[prefix + name][i::2]  # the sets alternate
                np.testing.assert_allclose(
                    ours, result[part][name + suffix], rtol=0, atol=TOL
                )
    assert len(plain.metric._cache) == 2


def test_xgboost_train_equals_ndcg_on_graded_labels(data):
    X, y, g, Xv, yv, gv = data
    _xgb_run(X, y, g, Xv, yv, gv, ["ndcg@1", "ndcg@3", "ndcg@10", "ndcg"], ["ndcg@10"])


def test_xgboost_train_equals_map_on_binary_labels(data):
    X, y, g, Xv, yv, gv = data
    _xgb_run(
        X,
        (y > 0) * 1.0,
        g,
        Xv,
        (yv > 0) * 1.0,
        gv,
        ["map@3", "map@10", "map", "ndcg@10"],
        ["map@10", "ndcg@5"],
    )


def test_xgbranker_eval_metric_one_query_per_call(data):
    """XGBRanker calls the callable once per query and averages the values
    weighted by each query's number of rows (xgboost's ltr_metric_decorator
    passes dmatrix.get_group(), the sizes, as weights): the per-query values
    are this library's, the mean is XGBoost's."""
    X, y, g, Xv, yv, gv = data
    metric = xgboost_metric("ndcg@10", convention="xgboost")
    ranker = xgb.XGBRanker(n_estimators=3, max_depth=3, eval_metric=metric)
    ranker.fit(X, y, qid=g, eval_set=[(Xv, yv)], eval_qid=[gv], verbose=False)
    got = ranker.evals_result()["validation_0"]["ndcg@10"][-1]
    per_group = sr.evaluate_per_group(
        yv, ranker.predict(Xv), groups=gv, metrics="ndcg@10", convention="xgboost"
    )
    values = np.where(
        np.isnan(per_group.values["ndcg@10"]), 1.0, per_group.values["ndcg@10"]
    )
    sizes = np.unique(gv, return_counts=True)[1]
    assert got == pytest.approx(np.average(values, weights=sizes), abs=5e-7)


def test_bad_input_names_the_fix(data):
    *_, Xv, yv, gv = data
    metric = lightgbm_metric("ndcg@10")
    no_query = lgb.Dataset(Xv, yv).construct()
    with pytest.raises(ValueError, match="no query information"):
        metric(np.zeros(len(yv)), no_query)
    with_query = lgb.Dataset(Xv, yv, group=_sizes(gv)).construct()
    with pytest.raises(ValueError, match="got 5 predictions for an eval set of"):
        metric(np.zeros(5), with_query)
    nan = np.zeros(len(yv))
    nan[3] = np.nan
    metric(np.zeros(len(yv)), with_query)
    with pytest.raises(ValueError, match=r"iteration 3 .* NaN or infinite values"):
        metric(nan, with_query)
    with pytest.raises(ValueError, match="no query sizes"):
        metric(yv, np.zeros(len(yv)), None, None)
    with pytest.raises(ValueError, match="eval_group add up to"):
        lightgbm_metric("map")(yv, np.zeros(len(yv)), None, [3, 4])
    with pytest.raises(ValueError, match="no query information"):
        xgboost_metric("ndcg@10")(np.zeros(len(yv)), xgb.DMatrix(Xv, yv))
    with pytest.raises(ValueError, match="one value per metric"):
        xgboost_metric(["ndcg@10", "map"])(yv, np.zeros(len(yv)))
    with pytest.raises(ValueError, match="undefined on a query"):
        xgboost_metric("ndcg@10")(np.zeros(3), np.arange(3.0))
    assert xgboost_metric("ndcg@10", undefined=0.0)(np.zeros(3), np.arange(3.0)) == 0
    with pytest.raises(ValueError, match="Unknown metric"):
        lightgbm_metric("ndgc@10")
    with pytest.raises(ValueError, match="'ties' parameter"):
        xgboost_metric("ndcg@10", ties="random")
