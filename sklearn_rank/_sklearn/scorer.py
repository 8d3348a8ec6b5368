"""Scikit-learn scorers for grouped ranking metrics.

A scorer is called as ``scorer(estimator, X, y, groups=..., sample_weight=...)``.
It gets ``groups`` in one of two ways:

- metadata routing (``sklearn.set_config(enable_metadata_routing=True)``): every
  scorer here requests ``groups`` by default, as ``GroupKFold`` does for ``split``,
  so searches and ``cross_validate`` hand it each test fold's ids;
- a column of ``X`` (``group_column``), which needs no routing and therefore works
  on every supported scikit-learn version with routing off.

With neither, it raises one error that names both fixes.
"""

import copy
import difflib
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .._engine.conventions import OPTIONS, resolve_options
from .._metrics.evaluate import evaluate
from .._metrics.intent import check_intent_name, takes_intent_weight
from .._metrics.registry import get_metric_names
from .._metrics.validation import asks_for_intents, parse_metric
from .._utils.array_api import dispatch_enabled, is_foreign, to_numpy
from .._utils.jobs import check_n_jobs
from .._utils.params import param_error
from .groups_source import (
    ROUTING_HINT,
    check_group_column,
    missing_groups_message,
    read_group_column,
)

DEFAULT_RESPONSE_METHOD = ("decision_function", "predict_proba", "predict")
_RESPONSE_METHODS = frozenset(DEFAULT_RESPONSE_METHOD)


def _response_methods(response_method, owner):
    methods = (
        (response_method,) if isinstance(response_method, str) else response_method
    )
    try:
        methods = tuple(methods)
    except TypeError:
        methods = ()
    if not methods or not set(methods) <= _RESPONSE_METHODS:
        raise param_error(
            "response_method",
            owner,
            f"one of {sorted(_RESPONSE_METHODS)} or a tuple of them in order of "
            "preference",
            response_method,
        )
    return methods


def ranking_scores(estimator, X, response_method, owner):
    """One real score per row from the first available response method.

    Binary classifiers give the positive class's probability or decision value;
    a classifier with more than two numeric classes (grades) gives its expected
    grade ``predict_proba(X) @ classes_``.
    """
    methods = _response_methods(response_method, owner)
    available = [m for m in methods if hasattr(estimator, m)]
    if not available:
        raise AttributeError(
            f"{owner} needs {type(estimator).__name__} to have one of the methods "
            f"{list(methods)} (its response_method); it has none."
        )
    method = available[0]
    classes = getattr(estimator, "classes_", None)
    multiclass = classes is not None and np.ndim(classes) == 1 and len(classes) > 2
    if multiclass and method != "predict" and "predict_proba" not in available:
        # A multiclass classifier without probabilities (e.g. LinearSVC) has no
        # expected grade; its predicted grade is the next method in the list.
        if "predict" not in available:
            name = type(estimator).__name__
            raise ValueError(
                f"{owner} scores a multiclass classifier by its expected grade, "
                f"predict_proba(X) @ classes_, but {name} has no predict_proba "
                f"(response_method={list(methods)}). Pass response_method='predict' "
                "to rank by the predicted grade, or use a classifier with "
                f"predict_proba (e.g. CalibratedClassifierCV({name}()))."
            )
        method = "predict"
    if multiclass and method != "predict":
        classes = np.asarray(classes)
        if classes.dtype.kind not in "iuf":
            raise ValueError(
                f"{owner} scores a multiclass classifier by its expected grade, "
                "which needs numeric classes (relevance grades); got classes "
                f"{classes.tolist()!r}."
            )
        return estimator.predict_proba(X) @ classes.astype(np.float64)
    scores = getattr(estimator, method)(X)
    if is_foreign(scores) and dispatch_enabled():
        # A model of another array library (a PyTorch module) predicts tensors:
        # under dispatch they are scored in their namespace, on their device.
        return _one_column(scores, method, estimator, owner)
    # Without dispatch they are read on the host, never copied off a device.
    scores = to_numpy(scores, "y_score", owner) if is_foreign(scores) else scores
    return _one_column(np.asarray(scores), method, estimator, owner)


def _one_column(scores: Any, method: str, estimator: Any, owner: str) -> Any:
    """One score per row from a prediction of shape (n,), (n, 1) or (n, 2)."""
    if method == "predict_proba" and scores.ndim == 2 and scores.shape[1] == 2:
        scores = scores[:, 1]  # probability of classes_[1], the positive class
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.ndim != 1:
        raise ValueError(
            f"{owner} needs one score per row, but {type(estimator).__name__}."
            f"{method} returned shape {tuple(scores.shape)}."
        )
    return scores


def _facts(name, owner="make_ranking_scorer"):
    """``(pooled, greater_is_better)`` of a metric name, checked: the registry's,
    or those of an intent-aware name (per group, higher is better; a 2-D
    ``y_true`` of relevance per intent)."""
    if asks_for_intents(name):
        check_intent_name(name, owner)
        return False, True
    spec = parse_metric(name).spec
    return spec.pooled, spec.greater_is_better


def _signed(name, value):
    """Scorers maximise: a loss (``greater_is_better=False``) is negated, as
    scikit-learn's ``make_scorer(..., greater_is_better=False)`` does."""
    return value if _facts(name)[1] else -value


class _BaseRankingScorer(BaseEstimator):
    """What the single- and multi-metric scorers share: inputs, routing, scores."""

    def set_score_request(
        self,
        *,
        groups=UNCHANGED,
        sample_weight=UNCHANGED,
        judged=UNCHANGED,
        intent_weight=UNCHANGED,
    ):
        """Choose which metadata the scorer asks for (metadata routing only).

        By default it requests ``groups`` and leaves ``sample_weight`` unset:
        passing ``sample_weight`` to a search then raises until you decide here.
        ``intent_weight`` is requested by default when every metric of the
        scorer is ERR-IA, precision-IA or MAP-IA, left unset when another
        intent-aware metric is among them, and not asked for by a scorer of
        single-label metrics only.

        Parameters
        ----------
        groups : bool, None, str or UNCHANGED, default=UNCHANGED
            True to request the routed ``groups`` (the default), False to ignore
            them, a str to read them under another name (alias).

        sample_weight : bool, None, str or UNCHANGED, default=UNCHANGED
            True to weight each group by the mean weight of its rows.

        judged : bool, None, str or UNCHANGED, default=UNCHANGED
            True to request the per-row ``judged`` mask (False for rows without
            a judgement), which ``bpref``, ``judged@k``, ``judged_only`` and
            ``precision_denominator="n_judged"`` read. Unset by default.

        intent_weight : bool, None, str or UNCHANGED, default=UNCHANGED
            True to request the per-row ``intent_weight`` of shape
            ``(n_samples, n_intents)``, each row its query's intent weights
            P(i|q), which ``"err_ia"``, ``"precision_ia"`` and ``"map_ia"``
            read (see :func:`~sklearn_rank.evaluate_intents`).

        Returns
        -------
        self : object
            The scorer, changed in place.
        """
        if not get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "set_score_request is only available when metadata routing is "
                f"enabled: {ROUTING_HINT}."
            )
        request = self.get_metadata_routing()
        asked = (("groups", groups), ("sample_weight", sample_weight))
        asked += (("judged", judged), ("intent_weight", intent_weight))
        for param, alias in asked:
            if alias is not UNCHANGED:
                request.score.add_request(param=param, alias=alias)
        self._metadata_request = request
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests when called by scikit-learn.

        Returns
        -------
        routing : MetadataRequest
            ``groups`` requested by default, ``sample_weight`` and ``judged``
            unset; ``intent_weight`` requested when every metric takes intent
            weights (ERR-IA, precision-IA, MAP-IA), unset when another
            intent-aware metric is among them.
        """
        if hasattr(self, "_metadata_request"):
            return copy.deepcopy(self._metadata_request)
        # Request groups by default, as GroupKFold does for split. Written as a
        # method rather than a __metadata_request__score class attribute: the
        # scorer has no `score` method, and scikit-learn versions differ on whether
        # they read class-level requests for methods a class lacks.
        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="groups", alias=True)
        request.score.add_request(param="sample_weight", alias=None)
        request.score.add_request(param="judged", alias=None)
        intents = self._intent_names()
        if intents:  # unset, or requested where every metric is weighted
            weighted = len(intents) == len(self._names()) and all(
                takes_intent_weight(name) for name in intents
            )
            request.score.add_request(param="intent_weight", alias=weighted or None)
        return request

    def _names(self):
        """The scorer's metrics (a name or a function each)."""
        return [self.metric] if hasattr(self, "metric") else list(self.metrics)

    def _intent_names(self):
        """The intent-aware names among the scorer's metrics."""
        return [n for n in self._names() if isinstance(n, str) and asks_for_intents(n)]

    def _groups(self, X, groups):
        """The routed ids, else the group column, else None."""
        if groups is not None:
            return groups
        check_group_column(self.group_column, repr(self))
        if self.group_column is not None:
            return read_group_column(X, self.group_column, repr(self))
        return None

    def _needs_groups(self):  # pragma: no cover - overridden
        return True

    def _call(self, estimator, X, y_true, groups, rows):
        groups = self._groups(X, groups)
        if groups is None and self._needs_groups():
            raise ValueError(missing_groups_message(repr(self), "its call"))
        y_score = ranking_scores(estimator, X, self.response_method, repr(self))
        _warn_split_queries(estimator, groups, repr(self))
        return self._score(y_true, y_score, groups, _given(rows))

    def _accept_sample_weight(self):
        # scikit-learn >= 1.8 asks this, with routing off, before forwarding a
        # search's sample_weight to the scorers of a scoring dict.
        return True


_PER_ROW = ("groups", "sample_weight", "retrieved", "judged", "metrics")
_PER_ROW += ("intent_weight",)


def _given(rows):
    """The routed per-row inputs that were passed (a metric function without
    such a keyword still works when it is not used)."""
    return {key: value for key, value in rows.items() if value is not None}


def _check_metric_kwargs(metric_kwargs, owner, by_name=True):
    """The metric options of a scorer, checked as the metric functions check
    them: names (with a suggestion for a misspelling) and values."""
    kwargs = {} if metric_kwargs is None else dict(metric_kwargs)
    for key in _PER_ROW:
        if key in kwargs:
            raise ValueError(
                f"{owner} got {key}= as a metric option; per-row inputs come from "
                "the call (metadata routing or group_column), not from the scorer's "
                "options."
            )
    if not by_name:  # a metric function checks its own keywords
        return kwargs
    known = [*OPTIONS, "convention", "n_jobs"]
    for key in kwargs:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise TypeError(
                f"{owner} got an unknown metric option {key!r}.{hint} Valid "
                f"options: {', '.join(known)}."
            )
    given = {k: v for k, v in kwargs.items() if k not in ("convention", "n_jobs")}
    resolve_options(owner, kwargs.get("convention"), given)
    check_n_jobs(kwargs.get("n_jobs"), owner)
    return kwargs


def _training_groups(estimator):
    """(ids, row counts) of the queries a fitted GroupedRanker (alone or last in a
    Pipeline) was trained on, or None when the estimator does not record them."""
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    ids = getattr(estimator, "train_groups_", None)
    sizes = getattr(estimator, "train_group_sizes_", None)
    return None if ids is None or sizes is None else (ids, sizes)


def _warn_split_queries(estimator, groups, owner):
    """Warn when a test fold holds some but not all rows of a training query: the
    splitter ignored the groups (e.g. KFold with routing on). Scoring the training
    rows themselves (``return_train_score``) gives the same ids and row counts as
    training and is not warned about."""
    train = _training_groups(estimator)
    if train is None or groups is None:
        return
    train_ids, train_sizes = train
    try:
        test_ids, test_sizes = np.unique(np.asarray(groups), return_counts=True)
        where = np.searchsorted(train_ids, test_ids).clip(0, max(train_ids.size - 1, 0))
        shared = train_ids[where] == test_ids if train_ids.size else np.zeros(0, bool)
    except TypeError:  # ids of incomparable types: nothing to compare
        return
    if not shared.any():
        return
    same_rows = shared.all() and (train_sizes[where] == test_sizes).all()
    if not same_rows:
        warnings.warn(
            f"{owner}: {int(shared.sum())} of {test_ids.size} queries of this test "
            "fold also had rows in the training fold, so the scores leak training "
            "queries. The splitter ignored the groups: use a group-aware splitter "
            "such as GroupKFold(n_splits=...) or GroupShuffleSplit.",
            SplitQueryWarning,
            stacklevel=4,
        )


class SplitQueryWarning(UserWarning):
    """A query's rows were split between the training and the test fold."""


class UndefinedFoldWarning(UndefinedMetricWarning):
    """A scorer returned NaN for a whole test fold."""


def _score_fold(owner, compute):
    """Run ``compute()`` and turn an all-undefined fold into one clear warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        scores = compute()
    for w in caught:  # pass on anything else unchanged
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    undefined = [name for name, value in scores.items() if value != value]
    if undefined:
        warnings.warn(
            f"{owner} scored NaN for {', '.join(undefined)} on this test fold: no "
            "group of the fold has a relevant row (for AUC, both classes). In a "
            "search every candidate then gets a NaN mean_test_score and best_params_ "
            "silently becomes the first candidate. Pass undefined=0.0 to score such "
            "groups, or split with StratifiedGroupKFold so that each fold holds "
            "relevant rows.",
            UndefinedFoldWarning,
            stacklevel=4,
        )
    return scores


class RankingScorer(_BaseRankingScorer):
    """A scorer for one grouped ranking metric; see :func:`make_ranking_scorer`.

    Parameters
    ----------
    metric : str or callable
        A metric name from :func:`get_scorer_names` (``"ndcg@10"``) or a function
        ``f(y_true, y_score, *, groups, **metric_kwargs) -> float``.

    group_column : str, int or None, default=None
        Column of ``X`` with the group ids, used when no ``groups`` are passed.

    response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
        Estimator methods to try, in order, for the scores.

    metric_kwargs : dict or None, default=None
        Options passed to the metric (``ties``, ``gain``, ``undefined``, ...).

    Notes
    -----
    The repr rebuilds the scorer when ``metric`` is a name; a metric function
    appears as its own repr. Either way the scorer pickles (a function by
    reference, so it must be importable, e.g. defined at module level).

    Examples
    --------
    >>> from sklearn_rank import RankingScorer
    >>> RankingScorer("ndcg@10", group_column="qid")
    RankingScorer(group_column='qid', metric='ndcg@10')
    """

    def __init__(
        self,
        metric,
        *,
        group_column=None,
        response_method=DEFAULT_RESPONSE_METHOD,
        metric_kwargs=None,
    ):
        self.metric = metric
        self.group_column = group_column
        self.response_method = response_method
        self.metric_kwargs = metric_kwargs

    def _needs_groups(self):
        if callable(self.metric):
            param = inspect.signature(self.metric).parameters.get("groups")
            return param is None or param.default is inspect.Parameter.empty
        return not _facts(self.metric)[0]

    # No prepare() here: a call gets one fold's labels with one set of scores
    # (one evaluate). The next candidate of a search scores the same fold with
    # a new slice of the labels, often in another worker process with its own
    # pickled copy of this scorer, so a cache would have to recognise the
    # labels by content (a hash of every call's arrays) and would help only a
    # sequential search. MultiMetricRankingScorer scores all its metrics in
    # one evaluate call (one ordering), where prepare has nothing to share.
    def _score(self, y_true, y_score, groups, rows):
        by_name = not callable(self.metric)
        kwargs = _check_metric_kwargs(self.metric_kwargs, repr(self), by_name)
        kwargs.update(rows)
        if not by_name:
            return float(self.metric(y_true, y_score, groups=groups, **kwargs))
        scores = _score_fold(
            repr(self),
            lambda: evaluate(
                y_true, y_score, groups=groups, metrics=[self.metric], **kwargs
            ),
        )
        return _signed(self.metric, scores[self.metric])

    def __call__(
        self,
        estimator,
        X,
        y_true,
        groups=None,
        sample_weight=None,
        judged=None,
        intent_weight=None,
    ):
        """Score ``estimator`` on ``X`` against ``y_true``, per group.

        Parameters
        ----------
        estimator : fitted estimator
            Gives the scores through ``response_method``.

        X : array-like or DataFrame of shape (n_samples, n_features)
            Test features (with the group column when ``group_column`` is set).

        y_true : array-like of shape (n_samples,) or (n_samples, n_intents)
            Relevance labels (per intent for the intent-aware metrics).

        groups : array-like of shape (n_samples,), default=None
            Group id of each row; routed by scikit-learn when routing is on.

        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, when requested with ``set_score_request``.

        judged : array-like of bool of shape (n_samples,), default=None
            False for rows without a judgement, when requested with
            ``set_score_request``.

        intent_weight : array-like of shape (n_samples, n_intents), default=None
            Each row's query's intent weights, for ``"err_ia"``,
            ``"precision_ia"`` and ``"map_ia"`` with a 2-D ``y_true``; routed
            to these metrics' scorers by default.

        Returns
        -------
        score : float
            The metric, higher is better.
        """
        rows = {"sample_weight": sample_weight, "judged": judged}
        rows["intent_weight"] = intent_weight
        return self._call(estimator, X, y_true, groups, rows)


class MultiMetricRankingScorer(_BaseRankingScorer):
    """Several metrics from one prediction and one ordering, as a dict.

    Use it as ``scoring=`` with ``refit="<one of the names>"``; the search reports
    ``mean_test_<name>`` for each. Build it with :func:`make_ranking_scorer` and a
    list of names. Unlike a plain dict of scorers (which scikit-learn also
    accepts), it predicts once and orders each fold's rows once for all metrics.

    Parameters
    ----------
    metrics : sequence of str
        Metric names (``"ndcg@10"``, ``"map"``, ...), the keys of the result.

    group_column : str, int or None, default=None
        Column of ``X`` with the group ids, used when no ``groups`` are passed.

    response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
        Estimator methods to try, in order, for the scores.

    metric_kwargs : dict or None, default=None
        Options passed to :func:`~sklearn_rank.evaluate`, shared by all metrics.

    Examples
    --------
    >>> from sklearn_rank import MultiMetricRankingScorer
    >>> MultiMetricRankingScorer(["ndcg@10", "map"])
    MultiMetricRankingScorer(metrics=['ndcg@10', 'map'])
    """

    def __init__(
        self,
        metrics,
        *,
        group_column=None,
        response_method=DEFAULT_RESPONSE_METHOD,
        metric_kwargs=None,
    ):
        self.metrics = metrics
        self.group_column = group_column
        self.response_method = response_method
        self.metric_kwargs = metric_kwargs

    def _needs_groups(self):
        return not all(_facts(name)[0] for name in self.metrics)

    # One evaluate call for every metric: one set of scores per call, so no
    # prepare() (see RankingScorer._score).
    def _score(self, y_true, y_score, groups, rows):
        kwargs = _check_metric_kwargs(self.metric_kwargs, repr(self))
        kwargs.update(rows)
        scores = _score_fold(
            repr(self),
            lambda: evaluate(
                y_true, y_score, groups=groups, metrics=list(self.metrics), **kwargs
            ),
        )
        return {name: _signed(name, value) for name, value in scores.items()}

    def __call__(
        self,
        estimator,
        X,
        y_true,
        groups=None,
        sample_weight=None,
        judged=None,
        intent_weight=None,
    ):
        """Score ``estimator`` on ``X`` against ``y_true`` with every metric.

        Parameters
        ----------
        estimator : fitted estimator
            Gives the scores through ``response_method``.

        X : array-like or DataFrame of shape (n_samples, n_features)
            Test features (with the group column when ``group_column`` is set).

        y_true : array-like of shape (n_samples,) or (n_samples, n_intents)
            Relevance labels (per intent for the intent-aware metrics).

        groups : array-like of shape (n_samples,), default=None
            Group id of each row; routed by scikit-learn when routing is on.

        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, when requested with ``set_score_request``.

        judged : array-like of bool of shape (n_samples,), default=None
            False for rows without a judgement, when requested with
            ``set_score_request``.

        intent_weight : array-like of shape (n_samples, n_intents), default=None
            Each row's query's intent weights, for ``"err_ia"``,
            ``"precision_ia"`` and ``"map_ia"`` with a 2-D ``y_true``; routed
            to these metrics' scorers by default.

        Returns
        -------
        scores : dict of str to float
            One entry per metric name, higher is better.
        """
        rows = {"sample_weight": sample_weight, "judged": judged}
        rows["intent_weight"] = intent_weight
        return self._call(estimator, X, y_true, groups, rows)


def make_ranking_scorer(
    metric: str | Callable | Sequence[str],
    *,
    group_column: str | int | None = None,
    response_method: str | Sequence[str] = DEFAULT_RESPONSE_METHOD,
    **metric_kwargs,
):
    """Make a scikit-learn scorer from a grouped ranking metric.

    The scorer requests ``groups`` through metadata routing by default, so with
    ``sklearn.set_config(enable_metadata_routing=True)`` a search needs only
    ``.fit(X, y, groups=qid)``. With routing off (scikit-learn's default) it reads
    the ids from the ``group_column`` of a DataFrame ``X``; keep that column out of
    the model with ``ColumnTransformer([("qid", "drop", ["qid"])],
    remainder="passthrough")`` as the pipeline's first step. With neither it raises
    an error that names both fixes; searches turn scorer errors into NaN scores
    and a warning, so pass ``error_score="raise"`` to stop at it.

    Parameters
    ----------
    metric : str, callable or sequence of str
        A name from :func:`get_scorer_names` with a cutoff where one applies
        (``"ndcg@10"``, ``"map"``); a metric function ``f(y_true, y_score, *,
        groups, **metric_kwargs) -> float``; or several names, giving a
        :class:`MultiMetricRankingScorer` that returns a dict from one prediction
        (use ``refit="<name>"`` in a search).

    group_column : str, int or None, default=None
        Column of ``X`` holding the group ids (a DataFrame column name, or a
        position), read when the call gets no ``groups``.

    response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
        Estimator methods tried in order for the scores. Regressors and rankers
        use ``predict``, binary classifiers a continuous score for the positive
        class; a multiclass classifier trained on grades is scored by its expected
        grade ``predict_proba(X) @ classes_``.

    **metric_kwargs
        Options of the metric (``ties``, ``gain``, ``relevance_threshold``,
        ``undefined``, ``convention``, ...), fixed for every call; and
        ``n_jobs``, the threads of each evaluation (:func:`~sklearn_rank.evaluate`:
        None means 1 unless inside ``joblib.parallel_config(n_jobs=...)``, so
        the workers of a parallel search evaluate on one thread each).

    Returns
    -------
    scorer : RankingScorer or MultiMetricRankingScorer
        Callable ``scorer(estimator, X, y, groups=None, sample_weight=None)``;
        picklable, with a repr that rebuilds it.

    Notes
    -----
    ``HalvingGridSearchCV`` subsamples rows, not queries, when its resource is
    ``n_samples``: each fold's queries keep only part of their rows, so scores at
    early iterations are computed on shorter lists (cutoff metrics such as
    ``ndcg@10`` change meaning most). The scorer still gets each kept row's own
    group id. Use a model parameter as the resource (e.g. ``n_estimators``) to
    keep whole queries.

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from sklearn_rank import make_ranking_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = (X[:, 0] + rng.normal(scale=0.5, size=60) > 0).astype(int)
    >>> qid = np.repeat(np.arange(12), 5)  # 12 queries of 5 rows
    >>> scorer = make_ranking_scorer(["ndcg@3", "map"])
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = GridSearchCV(
    ...         Ridge(), {"alpha": [0.1, 100.0]}, scoring=scorer, refit="ndcg@3",
    ...         cv=GroupKFold(n_splits=3),
    ...     ).fit(X, y, groups=qid)
    >>> sorted(k for k in search.cv_results_ if k.startswith("mean_test"))
    ['mean_test_map', 'mean_test_ndcg@3']
    >>> bool(search.best_score_ > 0.5)  # NDCG@3 of the best alpha, per query
    True
    """
    options = dict(
        group_column=group_column,
        response_method=response_method,
        metric_kwargs=metric_kwargs or None,
    )
    # Everything is checked here, when the scorer is made, so that a typo fails
    # at once rather than as a NaN score in every fold of a search.
    owner = "make_ranking_scorer"
    if isinstance(metric, str) or callable(metric):
        scorer = RankingScorer(metric, **options)
        if isinstance(metric, str):
            _facts(metric, owner)  # fail now on an unknown name, not in a search
    else:
        names = list(metric) if isinstance(metric, (list, tuple)) else []
        if not names or not all(isinstance(name, str) for name in names):
            raise param_error(
                "metric",
                owner,
                "a metric name, a metric function or a non-empty list of names",
                metric,
                "Names are listed by get_scorer_names(), e.g. 'ndcg@10'.",
            )
        for name in names:
            _facts(name, owner)
        scorer = MultiMetricRankingScorer(names, **options)
    _check_metric_kwargs(metric_kwargs, owner, by_name=not callable(metric))
    _response_methods(response_method, owner)
    check_group_column(group_column, owner)
    return scorer


def get_scorer(name):
    """Return a new scorer for the metric ``name`` (a fresh object on every call).

    Parameters
    ----------
    name : str
        A name from :func:`get_scorer_names`, with a positive int for ``@k``
        (``"ndcg@10"``, ``"precision@5"``, ``"map"``).

    Returns
    -------
    scorer : RankingScorer
        Requests ``groups`` through metadata routing; set ``group_column`` on it
        (``scorer.set_params(group_column="qid")``) to read them from a column.

    Examples
    --------
    >>> from sklearn_rank import get_scorer
    >>> get_scorer("ndcg@10")
    RankingScorer(metric='ndcg@10')
    >>> get_scorer("ndcg@10") is get_scorer("ndcg@10")
    False
    """
    return make_ranking_scorer(name)


def get_scorer_names():
    """Names accepted by :func:`get_scorer`, read from the metric registry.

    Returns
    -------
    names : list of str
        Sorted. ``"name@k"`` stands for a cutoff: replace ``k`` by a positive int.

    Examples
    --------
    >>> from sklearn_rank import get_scorer_names
    >>> "map" in get_scorer_names(), "ndcg@k" in get_scorer_names()
    (True, True)
    """
    return get_metric_names()
