"""A search's best candidates and group-aware splits, for cross_val_compare."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._utils.params import param_error


def top_indices(search, top: int, rank_by: str | None, func: str):
    """Indices into ``cv_results_`` of the ``top`` best candidates, and the key."""
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
    check_inner_scores(search, rank_by, func)
    return np.argsort(np.asarray(results[key]), kind="stable")[:top], rank_by


def check_inner_scores(search, rank_by: str, func: str) -> None:
    """Refuse to select on NaN inner scores (a scorer that failed in every fold).

    scikit-learn ranks NaN mean scores last, in grid order, and only warns: the
    "best" candidate would then be the first of the grid, and a test on it would
    be a test of grid order.
    """
    mean = np.asarray(search.cv_results_[f"mean_test_{rank_by}"], dtype=float)
    if not np.isnan(mean).any():
        return
    scoring = search.scoring
    if isinstance(scoring, Mapping):
        scoring = scoring.get(rank_by, scoring)
    bad = int(np.isnan(mean).sum())
    raise ValueError(
        f"{func} cannot rank the candidates of the search by {rank_by!r}: its inner "
        f"cross-validation score is NaN for {bad} of {mean.size} candidates (the "
        f"scorer {scoring!r} failed on the inner folds; scikit-learn then ranks "
        "them in grid order). A ranking scorer needs the query ids: build it with "
        "group_column= (a column of X holding them), or turn on metadata routing "
        "(sklearn.set_config(enable_metadata_routing=True)) and request them with "
        "scorer.set_score_request(groups=True). Its error is in the search's "
        "warnings (error_score='raise' shows it)."
    )


def params_text(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def check_group_splits(cv, X, y, groups, func: str) -> list:
    """The splits of ``cv``; no group may be on both sides of one split."""
    from sklearn.model_selection import check_cv

    with warnings.catch_warnings():  # the error below says more than this warning
        warnings.filterwarnings("ignore", "The groups parameter is ignored")
        splits = list(check_cv(cv).split(X, y, groups))
    codes = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    for train, test in splits:
        if np.intersect1d(codes[train], codes[test]).size:
            raise param_error(
                "cv",
                func,
                "a group-aware splitter (no group on both sides of a split)",
                cv,
                "Use e.g. GroupKFold(n_splits=5) or GroupShuffleSplit.",
            )
    return splits
