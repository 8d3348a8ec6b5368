"""From model selection to a comparison: out-of-fold scores of several models."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import param_error
from ._api import compare
from ._report import ComparisonReport


def _candidates(search, top: int, rank_by: str | None, func: str) -> dict[str, Any]:
    """The ``top`` best candidates of a fitted search, as unfitted clones."""
    from sklearn.base import clone

    results = search.cv_results_
    if rank_by is None:
        refit = search.refit
        rank_by = refit if isinstance(refit, str) else "score"
    key = f"rank_test_{rank_by}"
    if key not in results:
        ranks = sorted(
            k[len("rank_test_") :] for k in results if k.startswith("rank_test_")
        )
        raise param_error("rank_by", func, f"None or one of {ranks}", rank_by)
    order = np.argsort(np.asarray(results[key]), kind="stable")[:top]
    out = {}
    for place, i in enumerate(order, start=1):
        params = results["params"][i]
        text = ", ".join(f"{k}={v!r}" for k, v in params.items())
        out[f"#{place} {text}".strip()] = clone(search.estimator).set_params(**params)
    return out


def _check_grouped_folds(cv, X, y, groups, func: str):
    """Every group's rows must be predicted by the same fold's model."""
    from sklearn.model_selection import check_cv

    cv = check_cv(cv)
    fold = np.full(len(groups), -1)
    with warnings.catch_warnings():  # the error below says more than this warning
        warnings.filterwarnings("ignore", "The groups parameter is ignored")
        splits = list(cv.split(X, y, groups))
    for i, (_, test) in enumerate(splits):
        fold[test] = i
    codes = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    lo = np.full(codes.max() + 1, np.iinfo(np.int64).max)
    hi = np.full(codes.max() + 1, -1)
    np.minimum.at(lo, codes, fold)
    np.maximum.at(hi, codes, fold)
    if (lo != hi).any():
        raise param_error(
            "cv",
            func,
            "a group-aware splitter that keeps each group in one test fold",
            cv,
            "Use e.g. GroupKFold(n_splits=5), the splitter of your search.",
        )
    return cv


def cross_val_compare(
    estimators: Mapping[str, Any] | Any,
    X: Any,
    y: ArrayLike,
    *,
    groups: ArrayLike,
    cv: Any = None,
    top: int = 2,
    rank_by: str | None = None,
    params: dict[str, Any] | None = None,
    n_jobs: int | None = None,
    **compare_options: Any,
) -> ComparisonReport:
    """Compare estimators on the same out-of-fold predictions, group by group.

    Each estimator is fitted and predicts with
    :func:`sklearn.model_selection.cross_val_predict` on the same group-aware
    folds, so every group is scored by every model exactly once, by a model that
    did not see it; then :func:`compare` tests the per-group differences.

    Parameters
    ----------
    estimators : mapping of str to estimator, or a fitted search
        Named unfitted estimators, or a fitted ``GridSearchCV`` /
        ``RandomizedSearchCV`` (or any ``BaseSearchCV``) whose ``top`` best
        candidates are compared, named ``"#1 <params>"``, ``"#2 <params>"``...
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Relevance labels.
    groups : array-like of shape (n_samples,)
        Query id of each row: used by the splitter and by the metrics.
    cv : cross-validation splitter, default=None
        A group-aware splitter (each group in one test fold; checked); None is
        ``GroupKFold(n_splits=5)``. Pass the splitter of your search.
    top : int, default=2
        Number of candidates taken from a search.
    rank_by : str, default=None
        Which ``rank_test_<name>`` of ``cv_results_`` orders a search's
        candidates; None uses the metric the search refits on.
    params : dict, default=None
        Passed to ``cross_val_predict`` (e.g. fit parameters under metadata
        routing).
    n_jobs : int, default=None
        Passed to ``cross_val_predict``.
    **compare_options
        Passed to :func:`compare` (``metrics``, ``baseline``, ``test``,
        ``random_state``, metric options...). By default all pairs are compared,
        the better-ranked candidate minus the other.

    Returns
    -------
    report : ComparisonReport

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from sklearn_rank.stats import cross_val_compare
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(60), 10)
    >>> X = rng.normal(size=(600, 4))
    >>> y = (X[:, 0] + rng.normal(size=600) > 1).astype(int)
    >>> search = GridSearchCV(Ridge(), {"alpha": [0.1, 1e4]}, cv=GroupKFold(3))
    >>> search = search.fit(X, y, groups=groups)
    >>> report = cross_val_compare(search, X, y, groups=groups, cv=GroupKFold(3),
    ...                            metrics=["ndcg@10"], random_state=0)
    >>> [(p.model, p.baseline) for p in report.pairs]
    [('#1 alpha=0.1', '#2 alpha=10000.0')]
    """
    from sklearn.model_selection import GroupKFold, cross_val_predict

    func = "cross_val_compare"
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 2:
        raise param_error("top", func, "an int in the range [2, inf)", top)
    if hasattr(estimators, "cv_results_"):
        models = _candidates(estimators, int(top), rank_by, func)
    elif isinstance(estimators, Mapping):
        models = dict(estimators)
    else:
        raise param_error(
            "estimators",
            func,
            "a mapping of name to estimator or a fitted search (with cv_results_)",
            type(estimators).__name__,
        )
    if groups is None:
        raise param_error("groups", func, "the query id of each row", None)
    groups = np.asarray(groups)
    cv = _check_grouped_folds(GroupKFold(5) if cv is None else cv, X, y, groups, func)
    scores = {
        name: cross_val_predict(
            est, X, y, groups=groups, cv=cv, n_jobs=n_jobs, params=params
        )
        for name, est in models.items()
    }
    return compare(y, scores, groups=groups, **compare_options)
