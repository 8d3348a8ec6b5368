"""This library's metrics inside LightGBM's and XGBoost's training loops.

Early stopping picks the number of trees on a validation metric. With
:func:`lightgbm_metric` or :func:`xgboost_metric` that metric is this library's
own definition, the one reported after training; ``convention="lightgbm"`` /
``"xgboost"`` gives the framework's built-in ``ndcg@k`` / ``map@k`` values
instead. Each eval set is prepared once (:func:`sklearn_rank.prepare`); every
round then only orders the new scores. Neither lightgbm nor xgboost is imported
by this module (``pip install sklearn-rank[lightgbm]`` / ``[xgboost]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._sklearn.train_metrics import LightGBMMetric, XGBoostMetric

__all__ = ["LightGBMMetric", "XGBoostMetric", "lightgbm_metric", "xgboost_metric"]


def lightgbm_metric(
    metrics: str | Sequence[str],
    *,
    prefix: str = "",
    convention: str | None = None,
    **options: Any,
) -> LightGBMMetric:
    """A LightGBM evaluation function computing this library's metrics.

    The same callable serves ``lightgbm.train(feval=...)`` (called as
    ``(preds, eval_data)``, the queries read from ``eval_data.get_group()``)
    and ``LGBMRanker.fit(eval_metric=...)`` (called as ``(y_true, y_pred,
    weight, group)``, with ``eval_group=`` given to ``fit``).

    Parameters
    ----------
    metrics : str or sequence of str
        Names from :func:`sklearn_rank.get_metric_names` (``"ndcg@10"``).
    prefix : str, default=""
        Put before each metric's name in LightGBM's results (to tell them from
        a built-in metric of the same name).
    convention : str, default=None
        A preset of conventions; ``"lightgbm"`` gives the values of LightGBM's
        built-in ``ndcg@k`` and ``map@k`` (a query without a relevant row scores
        1). None is this library's default.
    **options
        Convention keywords, as in :func:`sklearn_rank.evaluate`.

    Returns
    -------
    metric : LightGBMMetric
        Returns ``(name, value, is_higher_better)`` for one metric, a list of
        them for several. The first metric is the one LightGBM early-stops on
        with ``first_metric_only=True``.

    Examples
    --------
    >>> import lightgbm as lgb  # pip install sklearn-rank[lightgbm]
    >>> from sklearn_rank.boosting import lightgbm_metric
    >>> from sklearn_rank.datasets import load_lambdarank
    >>> X, y, groups = load_lambdarank(subset="test", return_X_y=True)
    >>> sizes = [int((groups == g).sum()) for g in dict.fromkeys(groups)]
    >>> data = lgb.Dataset(X, y, group=sizes)
    >>> booster = lgb.train(
    ...     {"objective": "lambdarank", "metric": "None", "verbose": -1},
    ...     data, num_boost_round=3, valid_sets=[data],
    ...     feval=lightgbm_metric("ndcg@10"))
    >>> round(booster.best_score["training"]["ndcg@10"], 3) > 0
    True
    """
    return LightGBMMetric(metrics, prefix, convention, options)


def xgboost_metric(
    metrics: str | Sequence[str],
    *,
    prefix: str = "",
    convention: str | None = None,
    **options: Any,
) -> XGBoostMetric:
    """An XGBoost evaluation function computing this library's metrics.

    For ``xgboost.train(custom_metric=...)`` (called as ``(predt, dmatrix)``,
    query boundaries from ``dmatrix.get_uint_info("group_ptr")``; returns
    ``(name, value)``, a list for several metrics) and for ``XGBRanker(
    eval_metric=...)``, which calls it once per query with that query's rows and
    averages the values itself (a query of one row counts 1): there the
    metric's undefined rule must be a number (``undefined=0.0``, or the
    ``"xgboost"`` convention's 1), and weights and ``undefined="skip"`` are
    XGBoost's mean, not this library's.

    Parameters
    ----------
    metrics : str or sequence of str
        Names from :func:`sklearn_rank.get_metric_names`. ``XGBRanker`` takes one.
    prefix : str, default=""
        Put before each metric's name in XGBoost's results.
    convention : str, default=None
        ``"xgboost"`` gives the values of XGBoost's built-in ``ndcg@k`` and
        ``map@k`` (``undefined=0`` those of ``ndcg@k-`` and ``map@k-``). None is
        this library's default.
    **options
        Convention keywords, as in :func:`sklearn_rank.evaluate`.

    Returns
    -------
    metric : XGBoostMetric
        XGBoost infers "higher is better" from names starting with ``ndcg`` or
        ``map``; for other metrics pass ``maximize=True`` to ``xgboost.train``.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost as xgb  # pip install sklearn-rank[xgboost]
    >>> from sklearn_rank.boosting import xgboost_metric
    >>> from sklearn_rank.datasets import load_lambdarank
    >>> X, y, groups = load_lambdarank(subset="test", return_X_y=True)
    >>> data = xgb.DMatrix(X, y, qid=groups)
    >>> result = {}
    >>> booster = xgb.train(
    ...     {"objective": "rank:ndcg", "disable_default_eval_metric": 1},
    ...     data, num_boost_round=3, evals=[(data, "valid")],
    ...     custom_metric=xgboost_metric("ndcg@10"), evals_result=result,
    ...     verbose_eval=False)
    >>> len(result["valid"]["ndcg@10"])
    3
    """
    return XGBoostMetric(metrics, prefix, convention, options)
