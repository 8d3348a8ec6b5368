"""An adapter that lets LightGBM's and XGBoost's rankers take per-row group ids.

``LGBMRanker.fit`` wants ``group=`` sizes of contiguous row blocks and silently
trains on the wrong queries when the rows are not sorted by query; ``XGBRanker.fit``
wants a sorted ``qid=``. Cross-validation splitters and ``HalvingGridSearchCV``
hand a model rows in any order with, at best, one id per row. :class:`GroupedRanker`
sorts the rows stably by id, converts the ids to what the wrapped ranker takes and
fits it. Neither lightgbm nor xgboost is imported here.
"""

import inspect
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._engine.group_codes import encode_groups
from .._utils.params import param_error
from .groups_source import (
    check_group_column,
    drop_group_column,
    missing_groups_message,
    read_group_column,
    take_rows,
)


def _group_argument(estimator):
    """The ``fit`` keyword through which ``estimator`` takes its queries."""
    fit = getattr(estimator, "fit", None)
    params = inspect.signature(fit).parameters if callable(fit) else {}
    # XGBRanker takes both; its documentation prefers qid.
    for name in ("qid", "group"):
        if name in params:
            return name
    raise param_error(
        "estimator",
        "GroupedRanker",
        "a learning-to-rank model whose fit takes qid= (XGBRanker) or group= "
        "(LGBMRanker)",
        estimator,
        "Pointwise models such as HistGradientBoostingRegressor need no wrapper: "
        "use them directly.",
    )


class GroupedRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit ``LGBMRanker`` or ``XGBRanker`` from per-row group ids, in any row order.

    The ids come from ``fit(X, y, groups=...)``, which requests ``groups`` through
    scikit-learn's metadata routing (as ``GroupKFold`` does), or from a column of
    ``X`` (``group_column``), which works without routing. The rows are sorted
    stably by id; the wrapped ranker gets ``group=`` block sizes (LightGBM) or a
    sorted ``qid=`` (XGBoost). Prediction is row by row, so ``predict`` returns
    scores in the caller's row order and needs no ids.

    Parameters
    ----------
    estimator : estimator object
        An unfitted ranker whose ``fit`` takes ``qid=`` (``xgboost.XGBRanker``) or
        ``group=`` (``lightgbm.LGBMRanker``). It is cloned at fit time; tune its
        parameters as ``estimator__<name>`` in a search.

    group_column : str, int or None, default=None
        A column of ``X`` holding the group ids: a name (``X`` a pandas DataFrame)
        or a position. The column is dropped before ``X`` reaches the ranker, in
        ``fit`` and ``predict``. Used when ``fit`` gets no ``groups``.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.

    n_features_in_ : int
        Number of features the ranker saw (the group column excluded).

    n_groups_ : int
        Number of groups in the training data.

    See Also
    --------
    sklearn_rank.make_ranking_scorer : Scorers that get the same groups.

    Notes
    -----
    With metadata routing enabled, ``GridSearchCV(GroupedRanker(...), ...,
    cv=GroupKFold()).fit(X, y, groups=qid)`` hands each training fold's ids to
    ``fit``. ``HalvingGridSearchCV`` subsamples rows (not queries) inside a fold and
    shuffles them; the ranker then trains on the remaining rows of each query,
    which is still correct, only with shorter lists.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupedRanker
    >>> from sklearn_rank.datasets import load_lambdarank
    >>> from lightgbm import LGBMRanker  # pip install sklearn-rank[lightgbm]
    >>> X, y, groups = load_lambdarank(subset="test", return_X_y=True)
    >>> shuffled = np.random.default_rng(0).permutation(len(y))  # queries mixed
    >>> ranker = GroupedRanker(LGBMRanker(n_estimators=5, verbose=-1))
    >>> ranker = ranker.fit(X[shuffled], y[shuffled], groups=groups[shuffled])
    >>> ranker.n_groups_, ranker.predict(X[:3]).shape
    (50, (3,))
    """

    # Ask for the ids by default, as GroupKFold does for split: with metadata
    # routing on, a search passes its groups to fit without set_fit_request.
    __metadata_request__fit: ClassVar[dict] = {"groups": True}

    def __init__(self, estimator, *, group_column=None):
        self.estimator = estimator
        self.group_column = group_column

    def fit(self, X, y, groups=None):
        """Sort the rows by group and fit a clone of the ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features, rows in any order; with ``group_column``, holding the ids.

        y : array-like of shape (n_samples,)
            Relevance labels.

        groups : array-like of shape (n_samples,), default=None
            Group (query) id of each row, any hashable type. When None, read from
            ``group_column``.

        Returns
        -------
        self : GroupedRanker
            The fitted adapter.
        """
        owner = type(self).__name__
        check_group_column(self.group_column, owner)
        argument = _group_argument(self.estimator)
        if groups is None:
            if self.group_column is None:
                raise ValueError(missing_groups_message(owner, "fit"))
            groups = read_group_column(X, self.group_column, owner)
        if self.group_column is not None:
            X = drop_group_column(X, self.group_column)
        codes, ids = encode_groups(groups, X.shape[0], f"{owner}.fit")
        order = np.argsort(codes, kind="stable")
        X_sorted, y_sorted = take_rows(X, order), take_rows(y, order)
        if argument == "qid":
            query = {"qid": codes[order]}
        else:
            query = {"group": np.bincount(codes, minlength=len(ids))}
        self.estimator_ = clone(self.estimator).fit(X_sorted, y_sorted, **query)
        self.n_features_in_ = X.shape[1]
        self.n_groups_ = len(ids)
        # The training queries, so that a scorer can tell when a splitter put
        # rows of one query on both sides (see _scorer._warn_split_queries).
        self.train_groups_ = ids
        self.train_group_sizes_ = np.bincount(codes, minlength=len(ids))
        return self

    def predict(self, X):
        """Score each row with the fitted ranker, in the row order of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Features; with ``group_column``, the column is dropped first.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Higher means ranked higher within its group.
        """
        check_is_fitted(self, "estimator_")
        if self.group_column is not None:
            X = drop_group_column(X, self.group_column)
        return np.asarray(self.estimator_.predict(X))
