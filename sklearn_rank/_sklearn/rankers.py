"""An adapter that lets LightGBM's and XGBoost's rankers take per-row group ids.

``LGBMRanker.fit`` wants ``group=`` sizes of contiguous row blocks and silently
trains on the wrong queries when the rows are not sorted by query; ``XGBRanker.fit``
wants a sorted ``qid=``. Cross-validation splitters and ``HalvingGridSearchCV``
hand a model rows in any order with, at best, one id per row. :class:`GroupedRanker`
sorts the rows stably by id, converts the ids to what the wrapped ranker takes and
fits it. Neither lightgbm nor xgboost is imported here.
"""

import inspect
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._engine.group_codes import encode_groups
from .._utils.params import Interval, IsBool, check_param, param_error
from .early_stopping import fit_with_early_stopping, query_argument
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

    early_stopping : bool, default=False
        Hold out whole queries of the training data as a validation part, score
        the ranker on it after every boosting round with this library's
        ``scoring`` metric and keep the best round. The held-out queries are
        never trained on, so inside a search (``GridSearchCV`` with
        ``GroupKFold``) neither the outer test fold nor the validation part
        leaks into training.

    validation_fraction : float, default=0.1
        Share of the training queries held out for early stopping (at least
        one query on each side).

    n_iter_no_change : int, default=10
        Stop when ``scoring`` has not improved for this many rounds.

    scoring : str, default="ndcg@10"
        The metric early stopping reads (a name of
        :func:`~sklearn_rank.get_metric_names`, this library's default
        conventions).

    random_state : int, RandomState instance or None, default=None
        Seeds the split of queries into training and validation parts.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.

    n_features_in_ : int
        Number of features the ranker saw (the group column excluded).

    n_groups_ : int
        Number of groups in the training data.

    best_iteration_ : int or None
        With ``early_stopping``: the number of boosting rounds kept (the best
        round, 1-based). None otherwise.

    validation_scores_ : ndarray or None
        With ``early_stopping``: the ``scoring`` value on the validation part
        after each round trained. None otherwise.

    validation_groups_ : ndarray or None
        With ``early_stopping``: the ids of the queries held out for
        validation. None otherwise.

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

    def __init__(
        self,
        estimator,
        *,
        group_column=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=10,
        scoring="ndcg@10",
        random_state=None,
    ):
        self.estimator = estimator
        self.group_column = group_column
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.scoring = scoring
        self.random_state = random_state

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
        self._check_early_stopping(owner)
        self.best_iteration_ = self.validation_scores_ = None
        self.validation_groups_ = None
        if self.early_stopping:
            fitted = fit_with_early_stopping(self, X, y, codes, ids, argument, owner)
            self.estimator_, self.best_iteration_, self.validation_scores_ = fitted[:3]
            self.validation_groups_ = fitted[3]
        else:
            order = np.argsort(codes, kind="stable")
            X_sorted, y_sorted = take_rows(X, order), take_rows(y, order)
            query = query_argument(argument, codes[order], len(ids))
            self.estimator_ = clone(self.estimator).fit(X_sorted, y_sorted, **query)
        self.n_features_in_ = X.shape[1]
        self.n_groups_ = len(ids)
        # The training queries, so that a scorer can tell when a splitter put
        # rows of one query on both sides (see _scorer._warn_split_queries).
        self.train_groups_ = ids
        self.train_group_sizes_ = np.bincount(codes, minlength=len(ids))
        return self

    def _check_early_stopping(self, owner):
        check_param(self.early_stopping, "early_stopping", owner, [IsBool()])
        check_param(
            self.validation_fraction,
            "validation_fraction",
            owner,
            [Interval(Real, 0, 1, closed="neither")],
        )
        check_param(
            self.n_iter_no_change,
            "n_iter_no_change",
            owner,
            [Interval(Integral, 1, None, closed="left")],
        )
        if not isinstance(self.scoring, str):
            raise param_error(
                "scoring", owner, "a metric name such as 'ndcg@10'", self.scoring
            )

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
