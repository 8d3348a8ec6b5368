"""Many metrics from one ordering, as one number each or one value per group."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.context import GroupTotals, RankingContext
from .._engine.conventions import Options, given_options, resolve_options
from .._engine.cutoffs import AXIS_KERNELS, values_at_cutoffs
from .._engine.kernels import GroupValues
from .._engine.kernels.intent import (
    IntentView,
    attach_intent_shares,
    attach_intent_view,
    attach_tie_average,
    largest_grade,
)
from .._engine.reduce import (
    mean_over_groups,
    weighted_mean,
    weighted_means_at_cutoffs,
)
from .._engine.segments import array_namespace
from .._utils.array_api import is_foreign, to_numpy
from .._utils.jobs import effective_n_jobs
from .._utils.params import check_k, param_error
from .registry import METRICS
from .shards import (
    concat,
    run_bounds,
    run_shards,
    shard_count,
    shardable,
    sharded,
)
from .validation import (
    ONE_ORDER,
    MetricRequest,
    ValidatedInputs,
    asks_for_intents,
    check_inputs,
    check_intent_labels,
    check_intent_ties,
    check_intent_weight,
    check_labels,
    check_metrics,
    drop_unjudged,
    names_judged_only,
    options_of_requests,
    parse_intent_names,
)

DEFAULT_METRICS = ("ndcg@10", "map", "mrr")

# The one path from inputs to numbers, shared by every public entry point:
#   resolve_options -> check_metrics / check_k -> rank_inputs (check_inputs,
#   check_labels, RankingContext.from_inputs) -> group_values (the kernel) ->
#   mean_value (undefined rule and weighted mean).


def prepare_inputs(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    groups: Any,
    sample_weight: ArrayLike | None,
    retrieved: ArrayLike | None,
    requests: Sequence[MetricRequest],
    opts: Options,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
    *,
    host: bool = False,
    unjudged_labels: bool = False,
    n_threads: int = 1,
) -> ValidatedInputs:
    """Every check of the per-row inputs, with the labels as the metrics read
    them (``integer_grades``, ``judged_only``): the first half of
    :func:`rank_inputs`, for front ends that validate rows without ranking
    them (the distributed ones, before a shuffle). ``n_threads``: the call's
    (:func:`check_inputs` uses a second one)."""
    inputs = check_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        judged,
        in_pool=in_pool,
        # groups may be left out only for pooled metrics; no request (ndeval's
        # table, through intent_context) needs them too
        groups_required=not requests or not all(r.spec.pooled for r in requests),
        host=host,
        unjudged_labels=unjudged_labels,
        n_threads=n_threads,
    )
    if opts.integer_grades:  # trec_eval reads grades with atol: 1.5 is 1
        xp = array_namespace(inputs.y_true)
        whole = xp.trunc(inputs.y_true)
        # Whole grades already (the common case): no second array of n kept.
        if xp is not np or not np.array_equal(whole, inputs.y_true):
            inputs = dataclasses.replace(inputs, y_true=whole)
        del whole
    if opts.judged_only or names_judged_only(requests):
        inputs = drop_unjudged(inputs, func)
    for options, specs in options_of_requests(requests).items():
        named = dataclasses.replace(opts, **dict(options)) if options else opts
        check_labels(inputs.y_true, specs, named, func)
    return inputs


def rank_inputs(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    groups: Any,
    sample_weight: ArrayLike | None,
    retrieved: ArrayLike | None,
    requests: Sequence[MetricRequest],
    opts: Options,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
    *,
    host: bool = False,
    unjudged_labels: bool = False,
) -> tuple[RankingContext, np.ndarray]:
    """Validate the per-row inputs and order them once; returns the ordered view
    and the group ids (aligned with group codes). ``host``: numpy arrays whatever
    the dispatch switch (front ends that draw or tabulate on the host)."""
    inputs = prepare_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        requests,
        opts,
        judged,
        in_pool,
        host=host,
        unjudged_labels=unjudged_labels,
    )
    return ranking_context(inputs, opts), inputs.group_ids


def ranking_context(inputs: ValidatedInputs, opts: Options) -> RankingContext:
    """Checked inputs ordered once: the second half of :func:`rank_inputs`."""
    return RankingContext.from_inputs(
        inputs.y_true,
        inputs.y_score,
        inputs.codes,
        inputs.n_groups,
        ties=opts.ties,
        retrieved=inputs.retrieved,
        sample_weight=inputs.sample_weight,
        judged=inputs.judged,
        in_pool=inputs.in_pool,
        group_weight=opts.group_weight,
        relevance_threshold=opts.relevance_threshold,
    )


def input_totals(inputs: ValidatedInputs, opts: Options) -> GroupTotals:
    """The per-group facts of checked inputs before any scores, as
    :func:`rank_inputs` builds them (a prepared evaluation's)."""
    return GroupTotals.from_inputs(
        inputs.y_true,
        inputs.codes,
        inputs.n_groups,
        ties=opts.ties,
        retrieved=inputs.retrieved,
        sample_weight=inputs.sample_weight,
        judged=inputs.judged,
        in_pool=inputs.in_pool,
        group_weight=opts.group_weight,
        relevance_threshold=opts.relevance_threshold,
    )


def group_values(
    ctx: RankingContext, request: MetricRequest, opts: Options
) -> GroupValues:
    """One metric's value, definedness and weight per group."""
    if request.options:  # set by the name, e.g. "iprec@0.5"
        opts = dataclasses.replace(opts, **dict(request.options))
    return request.spec.kernel(ctx, request.k, opts)


def mean_value(
    ctx: RankingContext, ids: np.ndarray, request: MetricRequest, opts: Options
) -> float:
    """One metric reduced to a float: the undefined rule, then the weighted mean."""
    values, defined, weight = group_values(ctx, request, opts)
    group_ids = np.array(["<all rows>"], dtype=object) if request.spec.pooled else ids
    undefined = dict(request.options).get("undefined", opts.undefined)
    return mean_over_groups(
        values, defined, weight, undefined, request.label, group_ids
    )


def score_metric(
    metric: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: Any,
    k: int | None,
    options: dict[str, Any],
    sample_weight: ArrayLike | None,
    retrieved: ArrayLike | None,
    convention: str | None,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
) -> float:
    """The body of every public ``*_score`` function (``in_pool``: infAP's)."""
    spec = METRICS[metric]
    func = spec.function
    opts = resolve_options(func, convention, options)
    k = check_k(k, func)
    request = MetricRequest(metric if k is None else f"{metric}@{k}", spec, k)
    ctx, ids = rank_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        [request],
        opts,
        judged,
        in_pool,
    )
    return mean_value(ctx, ids, request, opts)


def evaluate(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike | None,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
    intent_weight: ArrayLike | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    convention: str | None = None,
    n_jobs: int | None = None,
) -> dict[str, float]:
    """Compute several ranking metrics from one shared ordering.

    Groups are encoded once and rows ordered once (by group, then descending
    score); every requested metric is computed from that view.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance labels, binary or graded.
    y_score : array-like of shape (n_samples,)
        Scores; higher ranks first.
    groups : array-like of shape (n_samples,)
        Query, user or session id of each row (any hashable type, any order).
        May be None when only ``"auc"`` is requested.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`get_metric_names`, with ``"@k"`` for a cutoff. The
        intent-aware names of :func:`evaluate_intents` (``"alpha_ndcg@20"``,
        ``"err_ia@10"``, ``"nrbp"``, ``"map_ia"``, ...) take a 2-D ``y_true`` of
        shape ``(n_samples, n_intents)``; in such a call the other metrics read
        each row's largest grade.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights. A group's weight is the mean of its rows' weights (of its
        relevant rows with ``group_weight="relevant_mean"``); the result is the
        weighted mean over groups (pooled ``"auc"`` weights pairs instead).
    retrieved : array-like of bool of shape (n_samples,), default=None
        False marks rows that are judged but not ranked: they count in the number
        of relevant items and the ideal DCG, never in the ranked list. With
        intent-aware names they count in a group's intents, MAP-IA's per-intent
        denominators and the greedy ideal (as in :func:`evaluate_intents`), and
        the other metrics of the call read them as here.
    judged : array-like of bool of shape (n_samples,), default=None
        False marks rows that carry no judgement (label 0): non-relevant for
        every metric, removed with ``judged_only=True``, told apart from judged
        non-relevant rows by ``"bpref"``, ``"judged@k"`` and
        ``precision_denominator="n_judged"``. None: every row is judged.
    in_pool : array-like of bool of shape (n_samples,), default=None
        True marks rows in the judgment pool: the judged rows, and rows pooled
        but left unjudged (trec_eval's negative qrels grades), which only
        ``"infap"`` tells apart from rows outside the pool. A judged row must be
        in the pool. None: every unjudged row is outside the pool.
        ``judged`` and ``in_pool`` are refused with intent-aware names.
    intent_weight : array-like of shape (n_samples, n_intents), default=None
        Each row's query's intent weights (Agrawal et al. (2009)'s ``P(i|q)``,
        the same on every row of a query), for the intent-aware ``"err_ia"``,
        ``"precision_ia"`` and ``"map_ia"``; see :func:`evaluate_intents`. A
        call with any other metric (intent-aware or not) refuses it.
    ties, gain, discount, gain_rows, ideal_order, relevance_threshold, undefined, \
precision_denominator, ap_denominator, recall_denominator, max_grade, weights, \
group_weight, persistence, recall_level, r_multiple, integer_grades, judged_only, \
alpha, beta : \
see the metric functions
        Conventions; None takes the value of ``convention``.
    convention : str, default=None
        Name of a preset of conventions; None is ``"sklearn_rank"``.
    n_jobs : int, default=None
        Threads over shards of whole groups (each shard ordered and scored on
        its own thread; the results are the single-threaded ones to the last
        bit). None means 1 unless inside ``joblib.parallel_config(n_jobs=...)``;
        -1 means all cores. Array API inputs, pooled metrics (``"auc"``) and
        ``group_weight="relevant_mean"`` with ``sample_weight`` use one thread.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> y_true = [1, 0, 0, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.2, 0.7]
    >>> groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> evaluate(y_true, y_score, groups=groups, metrics=["mrr", "precision@2"])
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    """
    func = "evaluate"
    if asks_for_intents(metrics):  # a 2-D y_true: relevance per (row, intent)
        return evaluate_with_intents(dict(locals()))
    if intent_weight is not None:
        raise param_error(
            "intent_weight",
            func,
            "None without intent-aware metrics",
            f"weights with {[metrics] if isinstance(metrics, str) else list(metrics)}",
            "They weigh 'err_ia', 'precision_ia' and 'map_ia' with a 2-D y_true.",
        )
    opts = resolve_options(
        func,
        convention,
        given_options(locals()),
    )
    requests = check_metrics(metrics, func)
    n_threads = effective_n_jobs(n_jobs, func)
    inputs = prepare_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        requests,
        opts,
        judged,
        in_pool,
        n_threads=n_threads,
    )
    if sharded(inputs, n_threads) and shardable(inputs, requests, opts):
        out = sharded_means(inputs, requests, opts, n_threads)
        if out is not None:
            return out
    return mean_values(ranking_context(inputs, opts), inputs.group_ids, requests, opts)


# A metric asked for at this many cutoffs or more is read off the cutoff axis.
_AXIS_FROM = 3


def mean_values(
    ctx: RankingContext, ids: np.ndarray, requests: list[MetricRequest], opts: Options
) -> dict[str, float]:
    """Every request reduced to a float, in order. A metric requested at several
    cutoffs (``ndcg@1`` ... ``ndcg@100``) is computed once on the engine's cutoff
    axis (running sums over the head); the rest one kernel call each."""
    out: dict[str, float] = {}
    for name, group in _axis_families(requests).items():
        ks = np.unique(np.array([r.k for r in group], dtype=np.int64))
        *_, means = values_at_cutoffs(ctx, name, group[0].spec.kernel, ks, opts)
        if means is None:  # the rule raises or warns: per cutoff, as below
            continue
        for r in group:
            out[r.label] = float(means[np.searchsorted(ks, r.k)])
    return {
        r.label: out[r.label] if r.label in out else mean_value(ctx, ids, r, opts)
        for r in requests
    }


@dataclass(frozen=True)
class GroupScores:
    """Per-group metric values from :func:`evaluate_per_group`.

    Attributes
    ----------
    group_ids : ndarray of shape (n_groups,)
        The distinct group ids, sorted; every other array is aligned with it.
    values : dict of str to ndarray of shape (n_groups,)
        Metric value per group; NaN where the metric is undefined for the group.
    weights : dict of str to ndarray of shape (n_groups,)
        The weight of each group in that metric's mean: the mean sample weight of
        its rows (times the GAUC size weight for ``"gauc"``).

    With scikit-learn's ``array_api_dispatch`` enabled and array API inputs (PyTorch
    tensors, ...), ``values`` and ``weights`` are arrays of the inputs' namespace on
    their device, and so are ``group_ids`` when ``groups`` was such an array.
    """

    group_ids: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)

    def mean(self, name: str) -> float:
        """Weighted mean over the defined groups (``undefined="skip"``)."""
        values, weights = self.values[name], self.weights[name]
        xp = array_namespace(values)
        return weighted_mean(values, ~xp.isnan(values), weights, name)

    def to_frame(self):
        """A pandas DataFrame indexed by group id, one column per metric."""
        import pandas as pd  # optional dependency, only needed here

        values = {name: _host(v) for name, v in self.values.items()}
        index = pd.Index(_host(self.group_ids), name="group")
        return pd.DataFrame(values, index=index)


def _host(values: Any) -> np.ndarray:
    return to_numpy(values, "values", "GroupScores") if is_foreign(values) else values


def evaluate_per_group(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
    ties: str | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
    relevance_threshold: float | str | None = None,
    precision_denominator: str | None = None,
    ap_denominator: str | None = None,
    recall_denominator: str | None = None,
    max_grade: float | None = None,
    weights: str | None = None,
    group_weight: str | None = None,
    persistence: float | None = None,
    recall_level: float | None = None,
    r_multiple: float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    convention: str | None = None,
    n_jobs: int | None = None,
) -> GroupScores:
    """One value per group for each metric, aligned with the sorted group ids.

    Takes the same arguments as :func:`evaluate` except ``undefined``: undefined
    groups are NaN here. The pooled ``"auc"`` has no per-group value (use
    ``"gauc"``).

    Returns
    -------
    scores : GroupScores
        ``scores.group_ids``, ``scores.values[name]`` and ``scores.weights[name]``;
        ``scores.mean(name)`` equals ``evaluate(...)[name]`` with
        ``undefined="skip"``.

    Examples
    --------
    >>> from sklearn_rank import evaluate_per_group
    >>> res = evaluate_per_group(
    ...     [1, 0, 0, 0, 1, 0], [0.9, 0.8, 0.1, 0.3, 0.2, 0.7],
    ...     groups=["q1", "q1", "q1", "q2", "q2", "q2"], metrics=["mrr"])
    >>> res.group_ids.tolist(), res.values["mrr"].tolist()
    (['q1', 'q2'], [1.0, 0.3333333333333333])
    """
    func = "evaluate_per_group"
    opts = resolve_options(
        func,
        convention,
        given_options(locals()),
    )
    requests = check_metrics(metrics, func, per_group=True)
    n_threads = effective_n_jobs(n_jobs, func)
    inputs = prepare_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        requests,
        opts,
        judged,
        in_pool,
        n_threads=n_threads,
    )
    if sharded(inputs, n_threads) and shardable(inputs, requests, opts):
        out = sharded_group_scores(inputs, requests, opts, n_threads)
        if out is not None:
            return out
    # Under array_api_dispatch the kernels computed in the inputs' namespace and
    # device, where the per-group results stay (numpy otherwise).
    ctx = ranking_context(inputs, opts)
    return _group_scores(ctx, inputs.group_ids, requests, opts)


def sharded_means(
    inputs: ValidatedInputs,
    requests: list[MetricRequest],
    opts: Options,
    n_threads: int,
    bounds: np.ndarray | None = None,
) -> dict[str, float] | None:
    """:func:`mean_values` over shards of whole groups, one thread each: the
    per-group values put back in group order and reduced once, as one pass
    reduces them. None where one shard is all there is, or a reduction must
    raise or warn (the caller then runs the single pass, which does)."""
    plan = MeansPlan.of(requests, opts)
    parts = _run(
        inputs, n_threads, lambda s: plan.shard(ranking_context(s, opts)), bounds
    )
    return None if parts is None else plan.merge(parts, inputs.group_ids)


@dataclasses.dataclass(frozen=True)
class MeansPlan:
    """How the means of ``requests`` are taken over shards: what each shard
    computes from its ordered rows (:meth:`shard`, on its thread) and how the
    shards' per-group values are reduced once (:meth:`merge`); the cold path's
    shards and a prepared evaluation's share it."""

    requests: list[MetricRequest]
    opts: Options
    families: dict
    cutoffs: dict

    @classmethod
    def of(cls, requests: list[MetricRequest], opts: Options) -> MeansPlan:
        families = _axis_families(requests) if opts.undefined != "raise" else {}
        cutoffs = {
            name: np.unique(np.array([r.k for r in group], dtype=np.int64))
            for name, group in families.items()
        }
        return cls(list(requests), opts, families, cutoffs)

    def shard(self, ctx: RankingContext) -> tuple[dict, dict]:
        """One shard's per-group tables and values."""
        opts, tables = self.opts, {}
        for name, group in self.families.items():
            table, rows, _, defined, weight, _ = values_at_cutoffs(
                ctx, name, group[0].spec.kernel, self.cutoffs[name], opts
            )
            # A definedness the same at every cutoff comes broadcast (stride 0).
            one_d = defined.ndim == 2 and defined.strides[0] == 0
            tables[name] = (table[rows], defined[rows], one_d, weight)
        in_family = {r.label for group in self.families.values() for r in group}
        rest = {
            r.label: group_values(ctx, r, opts)
            for r in self.requests
            if r.label not in in_family
        }
        return tables, rest

    def merge(self, parts: list, ids: np.ndarray) -> dict[str, float] | None:
        """The means from the shards' values in group order (None: a
        reduction must raise or warn; the caller runs the single pass)."""
        out: dict[str, float] = {}
        for name, group in self.families.items():
            table, defined, weight = (
                concat([p[0][name][i] for p in parts]) for i in (0, 1, 3)
            )
            one_d = all(p[0][name][2] for p in parts)
            ks, rows = self.cutoffs[name], np.arange(self.cutoffs[name].size)
            if one_d:  # as values_at_cutoffs reduces a per-group definedness
                defined = defined[0]
                table = np.where(defined, table, 0.0)
            means = weighted_means_at_cutoffs(
                table, rows, None, defined, weight, self.opts.undefined
            )
            if means is None:
                return None
            for r in group:
                out[r.label] = float(means[np.searchsorted(ks, r.k)])
        for r in self.requests:
            if r.label in out:
                continue
            values, defined, weight = (
                concat(
                    [
                        np.broadcast_to(p[1][r.label][i], p[1][r.label][0].shape)
                        for p in parts
                    ]
                )
                for i in (0, 1, 2)
            )
            undefined = dict(r.options).get("undefined", self.opts.undefined)
            out[r.label] = mean_over_groups(
                values, defined, weight, undefined, r.label, ids
            )
        return {r.label: out[r.label] for r in self.requests}


def sharded_group_scores(
    inputs: ValidatedInputs,
    requests: list[MetricRequest],
    opts: Options,
    n_threads: int,
    bounds: np.ndarray | None = None,
) -> GroupScores | None:
    """:func:`_group_scores` over shards of whole groups, one thread each."""

    def work(shard: ValidatedInputs) -> GroupScores:
        ctx = ranking_context(shard, opts)
        return _group_scores(ctx, shard.group_ids, requests, opts)

    parts = _run(inputs, n_threads, work, bounds)
    if parts is None:
        return None
    return _merge_scores(inputs.group_ids, requests, parts)


def _merge_scores(ids, requests, parts: list[GroupScores]) -> GroupScores:
    values, weights = {}, {}
    for r in requests:
        values[r.label] = concat([p.values[r.label] for p in parts])
        weights[r.label] = concat(
            [
                np.broadcast_to(p.weights[r.label], p.values[r.label].shape)
                for p in parts
            ]
        )
    return GroupScores(group_ids=ids, values=values, weights=weights)


def _run(inputs, n_threads, work, bounds):
    if bounds is None:
        return run_shards(inputs, n_threads, work)
    return run_bounds(inputs, bounds, work)


# Options that only a kernel reads: sets of keywords that differ in these alone
# share one ordering of the rows in :func:`evaluate_per_group_sets`.
KERNEL_ONLY_OPTIONS = frozenset(
    {"precision_denominator", "ap_denominator", "recall_denominator"}
)


def evaluate_per_group_sets(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    metric_sets: dict[tuple, Sequence[str]],
    unjudged_labels: bool = False,
    **keywords: Any,
) -> dict[tuple, GroupScores]:
    """:func:`evaluate_per_group` for several sets of keywords over the same rows.

    ``metric_sets`` maps extra keywords (a tuple of ``(keyword, value)`` pairs,
    added to ``keywords``) to the metric names computed under them. The rows are
    validated and ordered once for all the sets whose options differ only in
    :data:`KERNEL_ONLY_OPTIONS` (the command line's ``relative_P`` beside
    ``recall``): each value is the one :func:`evaluate_per_group` gives.

    ``unjudged_labels`` is the command line's seam for trec_eval's ``-l`` below
    0: rows with ``judged=False`` may carry labels, which count at their ranks
    only (R, and the relevant and non-relevant rows of bpref and infAP, count
    judged rows). The public functions keep refusing such labels.

    ``n_jobs``: as :func:`evaluate_per_group`'s (shards of whole groups on
    threads, one ordering per shard for every set it serves).
    """
    func = "evaluate_per_group"
    data = {k: keywords.pop(k, None) for k in _ROW_ARGUMENTS}
    convention = keywords.pop("convention", None)
    n_threads = effective_n_jobs(keywords.pop("n_jobs", None), func)
    plans = []  # (extra, opts, requests) per set
    for extra, names in metric_sets.items():
        given = {**keywords, **dict(extra)}
        opts = resolve_options(func, convention, given_options(given))
        plans.append((extra, opts, check_metrics(names, func, per_group=True)))
    out: dict[tuple, GroupScores] = {}
    while plans:
        _, first, _ = plans[0]
        key = _ordering_key(first)
        shared = [p for p in plans if _ordering_key(p[1]) == key]
        plans = [p for p in plans if _ordering_key(p[1]) != key]
        requests = [r for _, _, found in shared for r in found]
        inputs = prepare_inputs(
            func,
            y_true,
            y_score,
            data["groups"],
            data["sample_weight"],
            data["retrieved"],
            requests,
            first,
            data["judged"],
            data["in_pool"],
            unjudged_labels=unjudged_labels,
        )
        out.update(_scores_of_sets(inputs, shared, first, requests, n_threads))
        del inputs
    return out


def _scores_of_sets(inputs, shared, first, requests, n_threads) -> dict:
    """The per-group values of the sets that share one ordering (``first``'s):
    one pass, or one pass per shard of whole groups merged in group order; the
    requests that read every group (:func:`.shards.shardable`) in one pass
    beside the shards."""

    def work(part: ValidatedInputs, sets) -> dict[tuple, GroupScores]:
        ctx = ranking_context(part, first)
        return {
            extra: _group_scores(ctx, part.group_ids, found, opts)
            for extra, opts, found in sets
            if found
        }

    if not sharded(inputs, n_threads) or not shardable(inputs, [], first):
        return work(inputs, shared)
    apart = [
        (extra, opts, [r for r in found if shardable(inputs, [r], first)])
        for extra, opts, found in shared
    ]
    if not any(found for _, _, found in apart):
        return work(inputs, shared)
    alone = [
        (extra, opts, [r for r in found if not shardable(inputs, [r], first)])
        for extra, opts, found in shared
    ]
    # On threads, the requests that read every group run beside the shards
    # (not after them: the same values; errors in the same order, the shards'
    # first).
    beside = None
    n_rows = inputs.codes.shape[0]
    if shard_count(n_rows, n_threads) > 1 and any(f for _, _, f in alone):
        beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sklearn_rank")
    try:
        pending = beside.submit(work, inputs, alone) if beside else None
        parts = _run(inputs, n_threads, lambda part: work(part, apart), None)
        rest = pending.result() if pending else None
    finally:
        if beside is not None:
            beside.shutdown(wait=False, cancel_futures=True)
    if parts is None:
        return work(inputs, shared)
    ids = inputs.group_ids
    done = {
        extra: _merge_scores(ids, found, [p[extra] for p in parts])
        for extra, _, found in apart
        if found
    }
    if rest is None:
        rest = work(inputs, alone)
    out = {}
    for extra, _, found in shared:  # each set's values in its requests' order
        got = [g for g in (done.get(extra), rest.get(extra)) if g is not None]
        values = {k: v for g in got for k, v in g.values.items()}
        weights = {k: v for g in got for k, v in g.weights.items()}
        out[extra] = GroupScores(
            group_ids=ids,
            values={r.label: values[r.label] for r in found},
            weights={r.label: weights[r.label] for r in found},
        )
    return out


_ROW_ARGUMENTS = ("groups", "sample_weight", "retrieved", "judged", "in_pool")


def _ordering_key(opts: Options) -> tuple:
    return tuple(
        (f.name, repr(getattr(opts, f.name)))
        for f in dataclasses.fields(opts)
        if f.name not in KERNEL_ONLY_OPTIONS
    )


def _group_scores(ctx, ids, requests, opts) -> GroupScores:
    xp = ctx.xp
    values, weights_out = _axis_group_values(ctx, requests, opts)
    for request in requests:
        if request.label in values:
            continue
        v, defined, w = group_values(ctx, request, opts)
        values[request.label] = xp.where(defined, v, float("nan"))
        weights_out[request.label] = w
    # In the requests' order, as computed one at a time.
    values = {r.label: values[r.label] for r in requests}
    weights_out = {r.label: weights_out[r.label] for r in requests}
    return GroupScores(group_ids=ids, values=values, weights=weights_out)


def _axis_group_values(ctx, requests, opts) -> tuple[dict, dict]:
    """Per-group values of the metrics asked for at several cutoffs (the command
    line's ``P.5,10,...,1000`` families), each family from one pass of the
    cutoff axis, as :func:`mean_values` does for the means."""
    values: dict[str, Any] = {}
    weights: dict[str, Any] = {}
    if ctx.xp is not np:
        return values, weights
    for name, group in _axis_families(requests).items():
        ks = np.unique(np.array([r.k for r in group], dtype=np.int64))
        table, rows, _, defined, weight, _ = values_at_cutoffs(
            ctx, name, group[0].spec.kernel, ks, opts
        )
        for r in group:
            row = rows[np.searchsorted(ks, r.k)]
            values[r.label] = np.where(defined[row], table[row], np.nan)
            weights[r.label] = weight
    return values, weights


def _axis_families(requests) -> dict[str, list]:
    """The requests of each metric read off the cutoff axis: a cutoff, no
    options set by the name, a kernel of the axis, at least ``_AXIS_FROM``
    cutoffs."""
    by_metric: dict[str, list] = {}
    for r in requests:
        if r.k is not None and not r.options and r.spec.kernel in AXIS_KERNELS:
            by_metric.setdefault(r.spec.name, []).append(r)
    return {n: g for n, g in by_metric.items() if len(g) >= _AXIS_FROM}


# -- the intent-aware metrics (a 2-D y_true) ----------------------------------


def intent_means(
    func: str,
    labels: np.ndarray,
    y_score: Any,
    groups: Any,
    requests: list[MetricRequest],
    opts: Options,
    *,
    sample_weight: Any = None,
    masks: dict[str, Any] | None = None,
    intent_weight: Any = None,
    average: bool = False,
) -> dict[str, float]:
    """Every request from one ordering of the rows (by group, then descending
    score, ties by ``opts.ties``); the intent-aware kernels read the
    (row, intent) view attached to it, the others each row's largest grade.
    ``average`` (``ties="average"`` given, ``opts.ties`` "average"): the
    intent-aware kernels take the expectation over the orders of each tie
    block instead of reading the ordering."""
    ctx, view, inputs = intent_context(
        func, labels, y_score, groups, requests, opts, sample_weight, masks
    )
    if average:
        attach_tie_average(ctx)
    if intent_weight is not None:
        rel = view.rel_input
        weights = check_intent_weight(intent_weight, rel, inputs, requests, func)
        attach_intent_shares(ctx, view, weights)
    return mean_values(ctx, inputs.group_ids, requests, opts)


def intent_context(
    func: str,
    labels: np.ndarray,
    y_score: Any,
    groups: Any,
    requests: Sequence[MetricRequest],
    opts: Options,
    sample_weight: Any = None,
    masks: dict[str, Any] | None = None,
) -> tuple[RankingContext, IntentView, ValidatedInputs]:
    """Checked relevance per (row, intent) (``labels``, 2-D) ordered once: the
    context of each row's largest grade (by group, then descending score, ties
    by ``opts.ties``; ``masks`` the row masks ``retrieved``, ``judged``,
    ``in_pool``), the (row, intent) view attached to it, and the checked
    inputs. :func:`intent_means` and ndeval's table both start here."""
    masks = masks or {}
    best = largest_grade(labels)
    inputs = prepare_inputs(
        func,
        best,
        y_score,
        groups,
        sample_weight,
        masks.get("retrieved"),
        requests,
        opts,
        masks.get("judged"),
        masks.get("in_pool"),
        host=True,
    )
    ctx = ranking_context(inputs, opts)
    view = attach_intent_view(ctx, labels > 0, best > 0)
    return ctx, view, inputs


# evaluate's arguments besides the convention keywords that a call with only
# intent-aware metrics reads; the others must stay None.
_INTENT_INPUTS = {"y_true", "y_score", "groups", "metrics", "sample_weight"}
_INTENT_INPUTS |= {"convention", "n_jobs", "func", "retrieved", "intent_weight"}
# The row masks the intent view has no reading of (every row is judged).
_MASKS = ("judged", "in_pool", "judged_only")


def evaluate_with_intents(given: dict[str, Any]) -> dict[str, float]:
    """:func:`~sklearn_rank.evaluate` with intent-aware names: every metric from
    one ordering of the rows (the other metrics read each row's largest grade);
    options no requested metric reads are refused in a call of intent-aware
    metrics only; results in the order of ``metrics``."""
    func = "evaluate"
    names = (
        [given["metrics"]]
        if isinstance(given["metrics"], str)
        else list(given["metrics"])
    )
    is_intent = [asks_for_intents([n]) for n in names]
    plain = [n for n, flag in zip(names, is_intent, strict=True) if not flag]
    single = iter(check_metrics(plain, func) if plain else [])
    requests = [
        parse_intent_names([n], func)[0] if flag else next(single)
        for n, flag in zip(names, is_intent, strict=True)
    ]
    masks = [k for k in _MASKS if given[k] is not None]
    if masks:
        raise param_error(
            masks[0],
            func,
            "None with intent-aware metrics",
            given[masks[0]],
            "The intent-aware metrics judge every row of a 2-D y_true; give the "
            "judged rows only (retrieved=False marks those not ranked).",
        )
    options = given_options(given)
    if not plain:
        reads = set(_INTENT_INPUTS).union(*(r.spec.options for r in requests))
        unread = sorted(k for k, v in given.items() if k not in reads and v is not None)
        if unread:
            raise param_error(
                unread[0],
                func,
                "None: none of the intent-aware metrics asked for reads it",
                given[unread[0]],
                "They read y_true, y_score, groups, sample_weight, retrieved, "
                "intent_weight, convention and their options (alpha, beta for "
                "nrbp / nnrbp, ties, undefined).",
            )
    average = given["ties"] == "average"  # given: the expectation
    opts = check_intent_ties(
        given["ties"], resolve_options(func, given["convention"], options), func
    )
    if not plain and opts.ties not in ONE_ORDER and not average:
        opts = dataclasses.replace(opts, ties="stable")
    labels = check_intent_labels(given["y_true"], func)
    return intent_means(
        func,
        labels,
        given["y_score"],
        given["groups"],
        requests,
        opts,
        sample_weight=given["sample_weight"],
        intent_weight=given["intent_weight"],
        masks={"retrieved": given["retrieved"]},
        average=average,
    )
