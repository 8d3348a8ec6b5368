"""A search's best candidates and group-aware splits, for cross_val_compare."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._metrics.validation import param_error


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
    return np.argsort(np.asarray(results[key]), kind="stable")[:top], rank_by


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
