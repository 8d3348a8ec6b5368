"""Small ranking data and probe estimators for the scikit-learn integration tests."""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone

from sklearn_rank import evaluate


def make_ranking_data(n_groups=18, seed=0):
    """Queries of 5..9 rows, rows of different queries interleaved.

    Relevance grades 0..3 follow feature 0 within a query (each query has at least
    one relevant row); feature 1 is a per-query
    offset, so one pooled list and per-query lists give different scores. Group ids
    start at 100 and rows are shuffled, so code that assumes sorted or 0-based ids
    gives wrong values.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 10, n_groups)
    groups = np.repeat(np.arange(100, 100 + n_groups), sizes)
    offset = rng.normal(scale=3.0, size=n_groups)[groups - 100]
    n = groups.size
    signal = rng.normal(size=n)
    X = np.column_stack(
        [signal + rng.normal(scale=0.7, size=n), offset, rng.normal(size=(n, 2))]
    )
    y = np.digitize(signal + 0.3 * offset, [-0.8, 0.2, 1.0])  # grades 0..3
    for g in np.unique(groups):  # every query has a relevant row: no NaN scores
        rows = np.flatnonzero(groups == g)
        best = rows[np.argmax(signal[rows])]
        y[best] = max(y[best], 1)
    order = rng.permutation(n)
    return X[order], y[order], groups[order]


def as_frame(X, groups):
    """DataFrame with feature columns f0.. and the ids in column "qid"."""
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["qid"] = groups
    return frame


def manual_cv_scores(model, X, y, groups, splits, metrics):
    """Per-split scores computed by hand: fit on train rows, score the test rows."""
    rows = []
    for train, test in splits:
        Xtr = X.iloc[train] if hasattr(X, "iloc") else X[train]
        Xte = X.iloc[test] if hasattr(X, "iloc") else X[test]
        fitted = clone(model).fit(Xtr, y[train])
        rows.append(
            evaluate(y[test], fitted.predict(Xte), groups=groups[test], metrics=metrics)
        )
    return rows


class RowIndexRegressor(RegressorMixin, BaseEstimator):
    """Predicts the value of its column ``index_column``: the original row number.

    A scorer that gets this model's scores can tell exactly which rows it was given.
    ``dummy`` exists so that searches have a parameter to vary.
    """

    def __init__(self, index_column=0, dummy=0):
        self.index_column = index_column
        self.dummy = dummy

    def fit(self, X, y):
        self.n_rows_ = len(y)
        return self

    def predict(self, X):
        column = (
            X.iloc[:, self.index_column]
            if hasattr(X, "iloc")
            else np.asarray(X)[:, self.index_column]
        )
        return np.asarray(column, dtype=np.float64)


def alignment_metric(
    y_true, y_score, *, groups, all_groups, all_y, test_folds, subsampled=False
):
    """1.0 when the scorer got exactly one test fold's rows with their own ids.

    ``y_score`` holds the original row numbers (from :class:`RowIndexRegressor`),
    so the rows, their labels and their group ids can be checked one by one.
    With ``subsampled`` the rows may be any subset of one test fold.
    """
    index = np.asarray(y_score).astype(np.int64)
    if groups is None or len(groups) != len(index):
        return 0.0
    if not np.array_equal(np.asarray(groups), all_groups[index]):
        return 0.0
    if not np.array_equal(np.asarray(y_true), all_y[index]):
        return 0.0
    rows = set(index.tolist())
    for fold in test_folds:
        fold = set(fold.tolist())
        if rows == fold or (subsampled and rows <= fold):
            return 1.0
    return 0.0
