"""Prepared evaluation: the labels and groups checked and encoded once, many
sets of scores evaluated against them (validation sets during training, the
resamples and folds of a search)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.context import GroupTotals, RankingContext
from .._engine.conventions import Options, resolve_options
from .._engine.group_layout import GroupLayout
from .._utils.jobs import effective_n_jobs
from .evaluate import (
    DEFAULT_METRICS,
    GroupScores,
    MeansPlan,
    _group_scores,
    _merge_scores,
    evaluate,
    evaluate_per_group,
    input_totals,
    mean_values,
    prepare_inputs,
)
from .shards import (
    joined_rows,
    map_threads,
    shard_bounds,
    shard_plan,
    shard_rows,
    shardable,
    sharded,
    split_inputs,
)
from .validation import (
    MetricRequest,
    check_metrics,
    check_numeric_in,
    check_option_keywords,
)


class PreparedEvaluation:
    """Metrics of many score arrays against the same labels and groups.

    Made by :func:`prepare`. Everything that depends on the labels, groups,
    weights and masks alone is computed once: the checks of those inputs, the
    group codes, the layout of the rows by group, and (on first use) the
    per-group facts the metrics read (ideal DCG, relevant counts, group
    weights). Each call checks the new scores, orders the rows by them within
    their groups and runs the metric kernels.

    :meth:`evaluate` returns what :func:`~sklearn_rank.evaluate` returns for the
    same arguments and :meth:`evaluate_per_group` what
    :func:`~sklearn_rank.evaluate_per_group` returns, value for value.

    Attributes
    ----------
    metrics : tuple of str
        The metric names, in the order of the results.
    n_samples : int
        The number of rows each score array must have.
    group_ids : ndarray of shape (n_groups,)
        The distinct group ids, sorted (``GroupScores.group_ids``).
    options : Options
        The resolved conventions.
    """

    def __init__(
        self,
        requests: list[MetricRequest],
        opts: Options,
        totals: GroupTotals,
        group_ids: Any,
        n_samples: int,
        rows: Any,
        space: Any,
        shards: list[tuple[Any, PreparedEvaluation]] | None = None,
        n_threads: int = 1,
    ) -> None:
        self.metrics = tuple(r.label for r in requests)
        # n_jobs > 1 or a large call: (rows, prepared) of each shard of whole
        # groups, the rows (of the kept rows, in input order) that shard's
        # scores are read from, run on n_threads threads.
        self._shards, self._threads = shards, n_threads
        self.n_samples, self.group_ids, self.options = n_samples, group_ids, opts
        self._requests, self._totals, self._rows, self._space = (
            requests,
            totals,
            rows,
            space,
        )
        # (the layout,) once made: with shards, only if a call needs the
        # single pass (a reduction that raises or warns).
        self._built: tuple[GroupLayout | None] | None = None
        if shards is None:
            self._built = (self._layout,)

    @property
    def _layout(self) -> GroupLayout | None:
        """The ordering of every ranked row prepared from the group codes
        (None: :func:`~sklearn_rank._engine.ordering.order_rows` orders them)."""
        if self._built is None:
            totals = self._totals
            self._built = (
                GroupLayout.build(
                    totals.ranked(totals.codes_all),
                    totals.ranked(totals.y_all),
                    totals.n_groups,
                    totals.ties,
                ),
            )
        return self._built[0]

    def __repr__(self) -> str:
        return (
            f"PreparedEvaluation(metrics={list(self.metrics)!r}, "
            f"n_samples={self.n_samples}, n_groups={len(self.group_ids)})"
        )

    def _scores(self, y_score: ArrayLike, func: str) -> np.ndarray:
        """The new scores checked, of the kept rows."""
        score = check_numeric_in(y_score, "y_score", func, self._space)
        if score.shape[0] != self.n_samples:
            raise ValueError(
                f"y_score in {func} has {score.shape[0]} entries but the prepared "
                f"labels have {self.n_samples}; pass one score per row of the "
                "y_true given to prepare(), in the same order."
            )
        if self._rows is not None:  # judged_only dropped the unjudged rows
            score = score[self._rows]
        return score

    def _context(self, y_score: ArrayLike, func: str) -> RankingContext:
        """The new scores checked and the rows ordered by them."""
        score = self._scores(y_score, func)
        return RankingContext.from_scores(self._totals, score, self._layout)

    def _on_shards(self, score: np.ndarray, work) -> list:
        """``work(ctx, prepared)`` of each shard's scores, on the call's threads."""
        return map_threads(
            lambda shard: work(
                RankingContext.from_scores(
                    shard[1]._totals, score[shard[0]], shard[1]._layout
                ),
                shard[1],
            ),
            self._shards,
            self._threads,
        )

    def evaluate(self, y_score: ArrayLike) -> dict[str, float]:
        """Every metric of ``y_score``, as :func:`~sklearn_rank.evaluate`.

        Parameters
        ----------
        y_score : array-like of shape (n_samples,)
            Scores of the prepared rows, in their order; higher ranks first.

        Returns
        -------
        scores : dict of str to float
            One entry per metric, in the order given to :func:`prepare`.
        """
        func = "PreparedEvaluation.evaluate"
        if self._shards is not None:
            score = self._scores(y_score, func)
            plan = MeansPlan.of(self._requests, self.options)
            out = plan.merge(
                self._on_shards(score, lambda ctx, _: plan.shard(ctx)),
                self.group_ids,
            )
            if out is not None:
                return out
            # A reduction that raises or warns: the single pass, which does.
            ctx = RankingContext.from_scores(self._totals, score, self._layout)
        else:
            ctx = self._context(y_score, func)
        return mean_values(ctx, self.group_ids, self._requests, self.options)

    def evaluate_per_group(self, y_score: ArrayLike) -> GroupScores:
        """One value per group for each metric, as
        :func:`~sklearn_rank.evaluate_per_group`.

        Parameters
        ----------
        y_score : array-like of shape (n_samples,)
            Scores of the prepared rows, in their order; higher ranks first.

        Returns
        -------
        scores : GroupScores
        """
        func = "PreparedEvaluation.evaluate_per_group"
        check_metrics(list(self.metrics), func, per_group=True)  # pooled "auc"
        if self._shards is not None:
            parts = self._on_shards(
                self._scores(y_score, func),
                lambda ctx, p: _group_scores(ctx, p.group_ids, p._requests, p.options),
            )
            return _merge_scores(self.group_ids, self._requests, parts)
        ctx = self._context(y_score, func)
        return _group_scores(ctx, self.group_ids, self._requests, self.options)


def prepare(
    y_true: ArrayLike,
    *,
    groups: ArrayLike | None,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    in_pool: ArrayLike | None = None,
    convention: str | None = None,
    n_jobs: int | None = None,
    **options: Any,
) -> PreparedEvaluation:
    """Check and encode labels and groups once, to evaluate many score arrays.

    For the scores of a model on a fixed validation set, evaluated again after
    every boosting round or epoch: the groups are encoded, the labels checked
    and every label-only quantity (ideal DCG, relevant counts, group weights)
    computed once; each :meth:`~PreparedEvaluation.evaluate` call orders the
    rows by the new scores and runs the metrics. The numbers are those of
    :func:`evaluate` / :func:`evaluate_per_group` with the same arguments.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance labels, binary or graded.
    groups : array-like of shape (n_samples,)
        Query, user or session id of each row (any hashable type, any order).
        May be None when only ``"auc"`` is requested.
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`get_metric_names`, with ``"@k"`` for a cutoff.
    sample_weight, retrieved, judged, in_pool : array-like of shape \
(n_samples,), default=None
        As in :func:`evaluate`.
    convention : str, default=None
        Name of a preset of conventions; None is ``"sklearn_rank"``.
    n_jobs : int, default=None
        Threads of each call, as in :func:`evaluate`: the groups are cut here
        into shards of whole groups, each with its own prepared layout, and
        each call orders and scores the shards on their own threads and
        reduces their per-group values once (the single-threaded results to
        the last bit). A large call (over 2**20 rows or 2**16 groups) is cut
        into such chunks on one thread too, as :func:`evaluate` cuts it:
        smaller pieces are ordered faster. None means 1 unless inside
        ``joblib.parallel_config(n_jobs=...)``; -1 means all cores.
    **options
        The convention keywords of :func:`evaluate` (``ties``, ``gain``,
        ``undefined``, ...); None takes the value of ``convention``.

    Returns
    -------
    prepared : PreparedEvaluation
        Call ``prepared.evaluate(y_score)`` or
        ``prepared.evaluate_per_group(y_score)`` for each set of scores.

    Examples
    --------
    >>> from sklearn_rank import prepare
    >>> y_true = [1, 0, 0, 0, 1, 0]
    >>> groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> prepared = prepare(y_true, groups=groups, metrics=["mrr", "precision@2"])
    >>> prepared.evaluate([0.9, 0.8, 0.1, 0.3, 0.2, 0.7])
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    >>> prepared.evaluate([0.9, 0.1, 0.2, 0.3, 0.9, 0.7])  # the next round
    {'mrr': 1.0, 'precision@2': 0.5}
    """
    func = "prepare"
    check_option_keywords(options, "prepare()")
    opts = resolve_options(func, convention, options)
    requests = check_metrics(metrics, func)
    inputs = prepare_inputs(
        func,
        y_true,
        None,
        groups,
        sample_weight,
        retrieved,
        requests,
        opts,
        judged,
        in_pool,
    )
    n_threads = effective_n_jobs(n_jobs, func)
    totals = input_totals(inputs, opts)
    # Rows of the input as given (judged_only may have dropped some).
    n_samples = inputs.y_true.shape[0] if inputs.rows is None else len(y_true)
    return PreparedEvaluation(
        requests,
        opts,
        totals,
        inputs.group_ids,
        n_samples,
        inputs.rows,
        inputs.space,
        *_prepared_shards(inputs, requests, opts, n_threads),
    )


def _prepared_shards(inputs, requests, opts, n_threads):
    """(rows, prepared evaluation) of each shard of whole groups, cut as the
    cold path cuts them (several threads, or the chunks of a large call, which
    one thread orders faster one after the other), and the threads; None where
    one shard is all there is."""
    if not sharded(inputs, n_threads) or not shardable(inputs, requests, opts):
        return None, 1
    n_threads, n_shards = shard_plan(inputs.codes.shape[0], inputs.n_groups, n_threads)
    bounds = shard_bounds(inputs.codes, inputs.n_groups, n_shards, n_threads)
    if bounds.shape[0] <= 2:
        return None, 1
    rows_of = shard_rows(inputs.codes, bounds, n_threads)

    def build(shard):  # each shard's layout on the call's threads
        rows, cut = shard
        part = cut()
        rows = joined_rows(rows)
        prepared = PreparedEvaluation(
            requests,
            opts,
            input_totals(part, opts),
            part.group_ids,
            part.y_true.shape[0],
            None,
            part.space,
        )
        return rows, prepared

    shards = list(zip(rows_of, split_inputs(inputs, bounds, rows_of), strict=True))
    return map_threads(build, shards, n_threads), n_threads


def evaluate_models(
    y_true: ArrayLike,
    y_scores: Mapping[str, ArrayLike],
    *,
    groups: ArrayLike | None,
    metrics: str | Sequence[str],
    per_group: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """:func:`evaluate` (``per_group``: :func:`evaluate_per_group`) of each
    model's scores against the same labels: model name -> its result.

    With several models the labels, groups and label-only values are checked
    and computed once (:func:`prepare`), then each model's scores are ordered
    and scored: the same numbers as one call per model. One model is one plain
    call (its errors name that function). ``options``: the keywords of
    :func:`prepare` (``sample_weight``, conventions, ...).
    """
    if len(y_scores) == 1:
        one = evaluate_per_group if per_group else evaluate
        return {
            model: one(y_true, score, groups=groups, metrics=metrics, **options)
            for model, score in y_scores.items()
        }
    prepared = prepare(y_true, groups=groups, metrics=metrics, **options)
    score_one = prepared.evaluate_per_group if per_group else prepared.evaluate
    return {model: score_one(score) for model, score in y_scores.items()}
