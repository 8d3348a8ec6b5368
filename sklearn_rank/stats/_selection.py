"""From model selection to a comparison without selection bias.

The candidates of a search are compared on groups that played no part in
choosing them: nested cross-validation (the search runs inside each outer
training part) or groups held out by the user. Comparing on the folds that chose
them uses the corrected resampled t-test (:mod:`._resampled_t`).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils.params import param_error
from ._api import compare
from ._inputs import check_choice
from ._report import ComparisonReport
from ._resampled_t import selection_fold_report
from ._search import check_group_splits, params_text, top_indices

COMPARE_ON = ("outer_folds", "held_out", "selection_folds")


def _candidates(search, top: int, rank_by: str | None, func: str) -> list[tuple]:
    """(parameters in words, unfitted clone) of a fitted search's best candidates."""
    from sklearn.base import clone

    order, _ = top_indices(search, top, rank_by, func)
    out = []
    for i in order:
        params = search.cv_results_["params"][i]
        out.append((params_text(params), clone(search.estimator).set_params(**params)))
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
    return splits


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _zero_score(estimator, X, y):  # the fits below are scored elsewhere
    return 0.0


def _fit_params(estimator, groups, params, is_search: bool) -> dict[str, Any]:
    """Fit parameters over all rows (cross_validate slices them per split).

    With metadata routing on, ``groups`` is routed to whatever requests it (the
    search's splitter, a GroupedRanker's fit); off, a search takes it directly.
    """
    import sklearn

    out = dict(params or {})
    if "groups" in out:
        return out
    if sklearn.get_config().get("enable_metadata_routing", False):
        if estimator.get_metadata_routing().consumes("fit", ["groups"]):
            out["groups"] = groups
    elif is_search:
        out["groups"] = groups
    return out


def _fit(estimator, X, y, groups, splits, params, n_jobs, is_search=False):
    """Clones of ``estimator`` fitted on the training part of every split."""
    from sklearn.model_selection import cross_validate

    fitted = cross_validate(
        estimator, X, y, cv=splits, scoring=_zero_score, return_estimator=True,
        params=_fit_params(estimator, groups, params, is_search), n_jobs=n_jobs,
        error_score="raise",
    )  # fmt: skip
    return fitted["estimator"]


def _predict_splits(estimators, X, y, groups, splits, top, rank_by, params, n_jobs,
                    func):  # fmt: skip
    """Test-part predictions of each model, and what was chosen in each split.

    A mapping: every estimator fitted on each training part. A search: the
    search fitted on each training part, then its ``top`` best candidates
    (ranked by its own inner cross-validation there) refitted on that part;
    model "#k" is the k-th best candidate of each split's search.
    """
    from sklearn.base import clone

    n = len(y)
    if isinstance(estimators, Mapping):
        preds = {}
        for name, est in estimators.items():
            fits = _fit(est, X, y, groups, splits, params, n_jobs)
            preds[str(name)] = np.full(n, np.nan)
            for model, (_, test) in zip(fits, splits, strict=True):
                preds[str(name)][test] = model.predict(_rows(X, test))
        return preds, []
    if rank_by is None:  # the inner searches need not refit: ranks suffice
        refit = estimators.refit
        rank_by = refit if isinstance(refit, str) else "score"
    inner = clone(estimators).set_params(refit=False)
    searches = _fit(inner, X, y, groups, splits, params, n_jobs, is_search=True)
    preds = {f"#{k + 1}": np.full(n, np.nan) for k in range(top)}
    chosen = []
    for search, split in zip(searches, splits, strict=True):
        cands = _candidates(search, top, rank_by, func)
        if len(cands) < top:
            raise param_error(
                "top", func, f"at most the search's {len(cands)} candidates", top
            )
        chosen.append([text for text, _ in cands])
        for k, (_, est) in enumerate(cands):
            model = _fit(est, X, y, groups, [split], params, None)[0]
            preds[f"#{k + 1}"][split[1]] = model.predict(_rows(X, split[1]))
    return preds, chosen


def _design(compare_on, splits, chosen, n_groups, cv) -> str:
    if compare_on == "held_out":
        what = f"compared on {n_groups} held-out groups, fitted on the others"
    else:
        what = (
            f"compared on out-of-fold predictions of {len(splits)} outer group "
            f"folds ({type(cv).__name__}), every group predicted once"
        )
    if not chosen:
        return f"Design: {what}."
    lines = [
        f"Design: nested selection; the search ran inside each training part and "
        f"#k is its k-th best candidate there; {what}."
    ]
    for k in range(len(chosen[0])):
        counts: dict[str, int] = {}
        for fold in chosen:
            counts[fold[k]] = counts.get(fold[k], 0) + 1
        text = "; ".join(f"{p} ({c} of {len(chosen)})" for p, c in counts.items())
        lines.append(f"  #{k + 1}: {text}")
    return "\n".join(lines)


def cross_val_compare(
    estimators: Mapping[str, Any] | Any,
    X: Any,
    y: ArrayLike,
    *,
    groups: ArrayLike,
    cv: Any = None,
    compare_on: str | None = None,
    held_out_groups: ArrayLike | None = None,
    top: int = 2,
    rank_by: str | None = None,
    params: dict[str, Any] | None = None,
    n_jobs: int | None = None,
    **compare_options: Any,
) -> ComparisonReport:
    """Compare estimators or a search's best candidates on groups they never saw.

    No group that helped choose a candidate is used to compare it (no selection
    bias), in one of three designs (``compare_on``):

    - ``"outer_folds"`` (default): nested cross-validation. ``cv`` splits the
      groups into outer folds; for a search, the search (with its own inner
      ``cv``) runs on each outer training part, and its ``top`` best candidates
      there are refitted on that part and predict the outer test groups. Model
      ``"#1"`` is whatever the search picks, so the comparison asks "does the
      search's first choice beat its second choice on new groups?"; the report's
      ``design`` lists the parameters chosen in each fold. Named estimators are
      simply fitted on each outer training part.
    - ``"held_out"``: the same with one split, the groups ``held_out_groups``
      against all others.
    - ``"selection_folds"``: a fitted search's top candidates compared on the
      very folds that ranked them (``cv_results_``), with the corrected
      resampled t-test of Nadeau & Bengio (2003) over its splits; the selection
      bias remains (the winner was picked on these numbers) and the report says
      so. Use a search with repeated group splits, e.g.
      ``GroupShuffleSplit(n_splits=20)``.

    Then :func:`compare` tests the per-group differences on the compared groups.
    Works with scikit-learn's metadata routing on and off.

    Parameters
    ----------
    estimators : mapping of str to estimator, or a search
        Named unfitted estimators, or a ``GridSearchCV`` / ``RandomizedSearchCV``
        (or any ``BaseSearchCV``; fitted only for ``"selection_folds"``: it is
        cloned otherwise).
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Relevance labels.
    groups : array-like of shape (n_samples,)
        Query id of each row: used by the splitters and by the metrics.
    cv : cross-validation splitter, default=None
        The outer group-aware splitter (each group in one test fold; checked);
        None is ``GroupKFold(n_splits=5)``. Not used by the other designs.
    compare_on : {"outer_folds", "held_out", "selection_folds"}, default=None
        The design; None is "held_out" when ``held_out_groups`` is given and
        "outer_folds" otherwise.
    held_out_groups : array-like, default=None
        Group ids compared on in the "held_out" design; every other group
        trains (and, for a search, selects).
    top : int, default=2
        Number of candidates taken from a search.
    rank_by : str, default=None
        Which ``rank_test_<name>`` of ``cv_results_`` orders a search's
        candidates; None uses the metric the search refits on.
    params : dict, default=None
        Fit parameters over all rows, sliced per split (e.g. ``sample_weight``);
        under metadata routing they are routed to what requests them, and
        ``groups`` is added for whatever requests it.
    n_jobs : int, default=None
        Outer splits fitted in parallel (``cross_validate``).
    **compare_options
        Passed to :func:`compare` (``metrics``, ``baseline``, ``test``,
        ``random_state``, metric options...). For "selection_folds" only
        ``alternative``, ``correction`` and ``confidence_level``.

    Returns
    -------
    report : ComparisonReport
        Its ``design`` says what was compared on which groups.

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
    >>> report = cross_val_compare(search, X, y, groups=groups, cv=GroupKFold(3),
    ...                            metrics=["ndcg@10"], random_state=0)
    >>> [(p.model, p.baseline) for p in report.pairs]
    [('#1', '#2')]
    >>> print(report.design.splitlines()[1])
      #1: alpha=0.1 (3 of 3)
    """
    from sklearn.model_selection import GroupKFold

    func = "cross_val_compare"
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 2:
        raise param_error("top", func, "an int in the range [2, inf)", top)
    is_search = hasattr(estimators, "cv_results_") or hasattr(estimators, "_run_search")
    if not is_search and not isinstance(estimators, Mapping):
        raise param_error(
            "estimators",
            func,
            "a mapping of name to estimator or a search (GridSearchCV, ...)",
            type(estimators).__name__,
        )
    if groups is None:
        raise param_error("groups", func, "the query id of each row", None)
    groups = np.asarray(groups)
    y = np.asarray(y)
    if compare_on is None:
        compare_on = "outer_folds" if held_out_groups is None else "held_out"
    compare_on = check_choice("compare_on", func, compare_on, COMPARE_ON)
    if compare_on == "selection_folds":
        if not is_search or not hasattr(estimators, "cv_results_"):
            raise param_error(
                "estimators",
                func,
                "a fitted search when compare_on='selection_folds'",
                type(estimators).__name__,
            )
        splits = check_group_splits(estimators.cv, X, y, groups, func)
        return selection_fold_report(
            estimators, splits, groups, int(top), rank_by, func, compare_options
        )
    if compare_on == "held_out":
        if held_out_groups is None:
            raise param_error(
                "held_out_groups", func, "group ids with compare_on='held_out'", None
            )
        test_mask = np.isin(groups, np.asarray(held_out_groups))
        if test_mask.all() or not test_mask.any():
            raise param_error(
                "held_out_groups",
                func,
                "ids of some (not all) of the groups",
                f"{int(test_mask.sum())} of {groups.size} rows",
            )
        splits = [(np.flatnonzero(~test_mask), np.flatnonzero(test_mask))]
    else:
        cv = GroupKFold(5) if cv is None else cv
        splits = _check_grouped_folds(cv, X, y, groups, func)
    preds, chosen = _predict_splits(
        estimators, X, y, groups, splits, int(top), rank_by, params, n_jobs, func
    )
    rows = np.sort(np.concatenate([test for _, test in splits]))
    # Every model is scored on the same labels: compare() prepares them once
    # (stats._inputs._per_model, prepare) and scores each model's predictions.
    report = compare(
        y[rows],
        {name: p[rows] for name, p in preds.items()},
        groups=groups[rows],
        **compare_options,
    )
    n_groups = np.unique(groups[rows]).size
    design = _design(compare_on, splits, chosen, n_groups, cv)
    return replace(report, design=design)
