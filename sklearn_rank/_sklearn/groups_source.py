"""Where the scorers and the ranker adapter get per-row group ids from.

Two sources: the ``groups`` argument (filled by scikit-learn's metadata routing or
by a direct call) and, as a fallback that works without routing, a column of ``X``
named by ``group_column``. Both the scorers and :class:`GroupedRanker` read this
module so they take the same inputs and fail with the same message.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._utils.params import param_error

ROUTING_HINT = "sklearn.set_config(enable_metadata_routing=True)"


def missing_groups_message(owner, where):
    """The one error for "no groups": it names both fixes.

    ``owner`` names the object (its repr), ``where`` the call that lacked them.
    """
    return (
        f"{owner} got no groups in {where}: ranking metrics are computed per query, "
        "so every row needs its query/group id. Fix it in one of two ways: "
        f"(1) enable metadata routing with {ROUTING_HINT} and pass the ids as "
        "groups=... to fit (GridSearchCV/RandomizedSearchCV/validation_curve) or as "
        "params={'groups': ...} (cross_validate/cross_val_score); or "
        "(2) set group_column='<column name>' and pass X as a pandas DataFrame "
        "holding that column (drop it before the model with a ColumnTransformer). "
        "In a search, set error_score='raise' to stop at this error instead of "
        "getting NaN scores."
    )


def check_group_column(group_column, owner):
    """Validate the ``group_column`` parameter (None, a str or an int)."""
    if group_column is None or isinstance(group_column, str):
        return
    if isinstance(group_column, Integral) and not isinstance(group_column, bool):
        return
    raise param_error(
        "group_column",
        owner,
        "a str (a DataFrame column name), an int (a column position) or None",
        group_column,
    )


def _n_columns(X):
    shape = getattr(X, "shape", None)
    return None if shape is None or len(shape) != 2 else shape[1]


def read_group_column(X, group_column, owner):
    """Return the ids held in ``X``'s ``group_column`` as a 1-D ndarray."""
    if isinstance(group_column, str):
        columns = getattr(X, "columns", None)
        if columns is None:
            raise ValueError(
                f"{owner} has group_column={group_column!r}, a column name, so X "
                f"must be a pandas DataFrame; got {type(X).__name__}. Pass a "
                "DataFrame, give the column's position as an int, or enable "
                f"metadata routing ({ROUTING_HINT}) and pass groups=..."
            )
        if group_column not in columns:
            raise ValueError(
                f"{owner} has group_column={group_column!r} but X has no such "
                f"column; its columns start with {list(columns[:5])!r}. Keep the "
                "group column in X up to this step (drop it after, with a "
                "ColumnTransformer) or enable metadata routing."
            )
        return np.asarray(X[group_column])
    n_columns = _n_columns(X)
    if n_columns is None or not -n_columns <= group_column < n_columns:
        raise ValueError(
            f"{owner} has group_column={group_column}, a column position, but X has "
            f"{n_columns} columns."
        )
    if hasattr(X, "iloc"):
        return np.asarray(X.iloc[:, group_column])
    column = X[:, group_column]
    if sp.issparse(column):
        column = column.toarray()
    return np.asarray(column).reshape(-1)


def drop_group_column(X, group_column):
    """Return ``X`` without its group column (a new object; X is not changed)."""
    if isinstance(group_column, str):
        return X.drop(columns=[group_column])
    n_columns = _n_columns(X)
    keep = np.ones(n_columns, dtype=bool)
    keep[group_column] = False
    if hasattr(X, "iloc"):
        return X.iloc[:, keep]
    if sp.issparse(X):
        return sp.csr_matrix(X)[:, np.flatnonzero(keep)]
    return np.asarray(X)[:, keep]


def take_rows(a, index):
    """Rows ``index`` of an array, sparse matrix, DataFrame or Series."""
    if hasattr(a, "iloc"):
        return a.iloc[index]
    if sp.issparse(a):
        return sp.csr_matrix(a)[index]
    return np.asarray(a)[index]
