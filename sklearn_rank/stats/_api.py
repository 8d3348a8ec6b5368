"""bootstrap_ci and compare: intervals and paired tests over groups."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._metrics.evaluate import GroupScores
from .._utils.jobs import effective_n_jobs
from .._utils.params import param_error
from ._corrections import CORRECTIONS
from ._inputs import (
    ALTERNATIVES,
    CI_METHODS,
    SCOPES,
    TESTS,
    ZERO_METHODS,
    check_choice,
    check_level,
    check_resamples,
    collect,
    metric_scale,
    round_differences,
    seed_entropy,
    stream,
    with_n_jobs,
)
from ._paired import intervals, run_compare
from ._report import BootstrapReport, ComparisonReport, MetricInterval


def bootstrap_ci(
    y_true: ArrayLike | None,
    y_score: ArrayLike | GroupScores,
    *,
    groups: ArrayLike | None = None,
    metrics: str | Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    method: str = "bootstrap-t",
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
    n_jobs: int | None = None,
    **metric_options: Any,
) -> BootstrapReport:
    """Bootstrap confidence intervals of ranking metrics, resampling groups.

    Each resample draws groups (not rows) with replacement and recomputes the
    weighted mean over its defined groups, the number :func:`sklearn_rank.evaluate`
    returns; the interval is taken from the resampled means as in
    :func:`scipy.stats.bootstrap`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Relevance labels; None when ``y_score`` is a
        :class:`~sklearn_rank.GroupScores`.
    y_score : array-like of shape (n_samples,) or GroupScores
        Scores, or the per-group results of :func:`sklearn_rank.evaluate_per_group`.
    groups : array-like of shape (n_samples,), default=None
        Query, user or session id of each row (required with score arrays).
    metrics : str or sequence of str, default=None
        Metric names; None is ``("ndcg@10", "map", "mrr")`` for arrays and every
        metric of a GroupScores.
    confidence_level : float, default=0.95
        Confidence level of the intervals.
    n_resamples : int, default=9999
        Bootstrap resamples.
    method : {"bootstrap-t", "BCa", "percentile"}, default="bootstrap-t"
        Interval method: "bootstrap-t" the studentized bootstrap (the mean's
        standard error recomputed in every resample, floored at ``se /
        sqrt(n)``), the best calibrated of the three on few skewed groups;
        "BCa" and "percentile" as in :func:`scipy.stats.bootstrap`, which
        under-cover below about 50 groups (a warning says so there;
        docs/statistics.md, Calibration).
    random_state : None, int, RandomState or Generator, default=None
        Seed of the resampling; an int makes the result reproducible.
    n_jobs : int, default=None
        Threads of the resampling (and of the evaluation, given score
        arrays): blocks of resamples, each drawn from a seed fixed up front,
        so the result is the same bit for bit whatever the count. None means
        1 unless inside ``joblib.parallel_config(n_jobs=...)``; -1 means all
        cores.
    **metric_options
        Passed to :func:`sklearn_rank.evaluate_per_group` (``sample_weight``,
        ``ties``, ``gain``, ``convention``, ...), plus ``undefined`` with the
        meaning it has in :func:`sklearn_rank.evaluate`.

    Returns
    -------
    report : BootstrapReport
        ``report[metric].mean``, ``.ci_low``, ``.ci_high``, ``.standard_error``,
        ``.n_groups``; ``print(report)`` shows a table.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import bootstrap_ci
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(50), 10)
    >>> y_true = rng.integers(0, 2, 500)
    >>> y_score = y_true + rng.normal(size=500)
    >>> ci = bootstrap_ci(y_true, y_score, groups=groups, metrics="ndcg@10",
    ...                   n_resamples=999, random_state=0)
    >>> r = ci["ndcg@10"]
    >>> bool(r.ci_low < r.mean < r.ci_high), r.n_groups
    (True, 50)
    """
    func = "bootstrap_ci"
    level = check_level(confidence_level, func)
    n_resamples = check_resamples(n_resamples, func)
    method = check_choice("method", func, method, CI_METHODS[1:])
    entropy = seed_entropy(random_state, func)
    n_threads = effective_n_jobs(n_jobs, func)
    metric_options = with_n_jobs(metric_options, n_jobs)
    data = collect(func, y_true, {"": y_score}, groups, metrics, metric_options)
    columns = []
    for m in data.metrics:
        v = data.values[""][m]
        columns.append((~np.isnan(v), v, data.weights[""][m]))
    rngs = [stream(entropy, "mean", m, "", method) for m in data.metrics]
    est, low, high, se = intervals(
        columns, n_resamples, rngs, level, method, n_threads=n_threads
    )
    items = []
    for j, m in enumerate(data.metrics):
        n_def = int(columns[j][0].sum())
        if n_def == 0 or np.isnan(low[j]):
            warnings.warn(
                f"{func}: no interval for {m} ({n_def} defined groups); it is NaN.",
                RuntimeWarning,
                stacklevel=2,
            )
        items.append(
            MetricInterval(
                m, "", est[j], low[j], high[j], se[j], n_def, columns[j][0].size - n_def
            )
        )
    shapes = [(m, data.values[""][m]) for m in data.metrics]
    _warn_small(method, shapes, func, "mean")
    return BootstrapReport(tuple(items), level, n_resamples, method, entropy)


# Below this many groups the bootstrap intervals under-cover (docs/statistics.md,
# Calibration: 0.87 to 0.93 at 10 and 20 groups on continuous scores).
SMALL_N = 50
# Values with fewer distinct values than this share of the groups are "tied"
# (per-query RR, P@k): the recommended interval differs (Calibration, tied).
TIED_SHARE = 0.8


def few_distinct(values: np.ndarray) -> bool:
    """Whether the defined values take few distinct values (tied scores)."""
    v = values[~np.isnan(values)]
    return v.size > 1 and np.unique(v).size < TIED_SHARE * v.size


def _warn_small(method: str, columns, func: str, what: str) -> None:
    """Warn where a bootstrap interval under-covers, naming the interval that
    covered its level on that shape of data in the Calibration simulations.

    ``columns``: (label, values) per interval, the values over groups of a
    model's metric (``what="mean"``) or of a pair's differences
    (``what="difference"``).
    """
    small = []
    for label, v in columns:
        n = int(np.count_nonzero(~np.isnan(v)))
        if 1 < n < SMALL_N:
            small.append((f"{n} groups ({label})", few_distinct(v)))
    tied = [label for label, is_tied in small if is_tied]
    spread = [label for label, is_tied in small if not is_tied]
    where = "(docs/statistics.md, Calibration)"
    message = None
    if tied and what == "difference":
        message = (
            f"on tied per-group differences (few distinct values; {tied[0]}) below "
            f"about {SMALL_N} groups no bootstrap interval covers its level: 95% "
            "intervals covered 0.875-0.940 (percentile), 0.830-0.930 (BCa) and "
            "0.880-0.960 (bootstrap-t) on simulated RR and P@10 scores of 10 and 20 "
            f"groups {where}. ci_method='matched' (the default: the interval of "
            "the test) covered 0.930-1.000 there."
        )
    elif tied and method == "percentile":
        message = (
            f"percentile intervals of means of tied scores (few distinct values; "
            f"{tied[0]}) covered 0.875-0.935 at 10 and 20 groups {where}; "
            "method='BCa' covered 0.925-0.965 and 'bootstrap-t' 0.955-0.985 "
            "(conservative) there."
        )
    elif spread and method in ("BCa", "percentile"):
        message = (
            f"{method} intervals on {spread[0]} cover less than their level below "
            f"about {SMALL_N} groups on continuous scores {where}; "
            "method='bootstrap-t' holds it there."
        )
    if message:
        warnings.warn(f"{func}: {message}", RuntimeWarning, stacklevel=3)


def _pairs(models: list[str], baseline: str | None, func: str):
    if baseline is None:
        return [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    if baseline not in models:
        raise param_error("baseline", func, f"None or one of {models}", baseline)
    return [(m, baseline) for m in models if m != baseline]


def _check_exact(exact: Any, func: str) -> bool | None:
    if exact is None or isinstance(exact, bool):
        return exact
    raise param_error("exact", func, "None, True or False", exact)


def compare(
    y_true: ArrayLike | None,
    y_scores: Mapping[str, ArrayLike | GroupScores],
    *,
    groups: ArrayLike | None = None,
    metrics: str | Sequence[str] | None = None,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str = "holm",
    correction_scope: str = "metric",
    alternative: str = "two-sided",
    confidence_level: float | None = 0.95,
    n_resamples: int = 9999,
    ci_method: str = "matched",
    exact: bool | None = None,
    zero_method: str = "wilcox",
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
    n_jobs: int | None = None,
    **metric_options: Any,
) -> ComparisonReport:
    """Paired comparison of several models on the same groups.

    Every model is scored on the same groups (one shared ordering per model);
    differences are taken group by group, so the test is paired. Groups where a
    metric is undefined for either model are dropped from that pair
    (``n_dropped`` counts them). Differences are rounded to 10 decimals of the
    metric's scale (1e-10 for metrics in [0, 1]) before every test, interval,
    rank, effect size and count of wins / ties / losses, so equal differences
    of a discrete metric are equal and float noise is a tie.

    The interval of each difference inverts the test by default
    (``ci_method="matched"``): "the interval excludes 0" and "p <= alpha"
    (``alpha = 1 - confidence_level``) agree in every row. Every pair and
    every procedure draws from its own random stream, derived from the seed
    and the pair: its p-value does not depend on the other pairs, metrics or
    intervals of the call; the report stores the seed.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Relevance labels; None when the values of ``y_scores`` are GroupScores.
    y_scores : mapping of str to array-like or GroupScores
        Model name -> scores of shape (n_samples,) (a DataFrame with one column
        per model works too), or model name -> per-group results of
        :func:`sklearn_rank.evaluate_per_group`, all on the same groups.
    groups : array-like of shape (n_samples,), default=None
        Query, user or session id of each row (required with score arrays).
    metrics : str or sequence of str, default=None
        Metric names; None is ``("ndcg@10", "map", "mrr")`` for arrays and every
        metric of the GroupScores.
    baseline : str, default=None
        Compare every other model with this one; None compares all pairs (the
        earlier model in ``y_scores`` minus the later).
    test : {"randomization", "bootstrap", "bootstrap-t", "bootstrap-shift", "t", \
"wilcoxon"}, default="randomization"
        Paired sign-flip randomization test; paired bootstrap test, studentized
        as in Sakai (2006) ("bootstrap" and "bootstrap-t" are the same test: the
        t statistic ``mean / se`` against the resampled ``(mean* - mean) /
        se*``); "bootstrap-shift", the resampled mean shifted to the null
        (liberal on few groups, docs/statistics.md); paired t-test (as
        :func:`scipy.stats.ttest_rel`) or Wilcoxon signed-rank test
        (:func:`scipy.stats.wilcoxon`). The last two do not weight groups.
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
        Adjustment of the p-values over a family of tests
        (Benjamini-Hochberg through :func:`scipy.stats.false_discovery_control`).
    correction_scope : {"metric", "all"}, default="metric"
        The family: "metric" adjusts over the pairs of each metric separately;
        "all" over every pair of every metric at once. The report names it.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        "greater": the model's mean is above the baseline's. One-sided
        alternatives make the intervals of the differences one-sided too
        (``[low, inf)`` for "greater", ``(-inf, high]`` for "less").
    confidence_level : float or None, default=0.95
        Level of the intervals (``alpha = 1 - confidence_level``); None skips
        them (NaN in the report).
    n_resamples : int, default=9999
        Resamples of the randomization and bootstrap tests and of the intervals.
        Monte Carlo p-values are ``(b + 1) / (n_resamples + 1)``, never 0.
    ci_method : {"matched", "BCa", "percentile", "bootstrap-t"}, default="matched"
        Interval of the differences. "matched": the interval that inverts the
        test (the shifts it does not reject: for the randomization test the
        sign-flip interval, for the t-test the t interval, for the bootstrap
        tests the symmetric bootstrap interval of their pivot, for the
        Wilcoxon test the shifts scipy does not reject); the means of the
        models then get bootstrap-t intervals. The others are bootstrap
        intervals over groups, as ``method`` in :func:`bootstrap_ci`; they do
        not invert the test and the report counts the rows where the two
        disagree.
    exact : bool or None, default=None
        Randomization test only: True enumerates all 2**n sign flips (n <= 16
        paired groups), False samples ``n_resamples`` of them, None enumerates
        when 2**n <= n_resamples (as :func:`scipy.stats.permutation_test`).
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Wilcoxon test only, as in :func:`scipy.stats.wilcoxon`: "wilcox" drops
        the zero differences (ties) before ranking, "pratt" ranks them and then
        drops them, "zsplit" splits their ranks between both signs.
    random_state : None, int, RandomState or Generator, default=None
        Seed of the resampling; an int makes the result reproducible (None, a
        RandomState or a Generator give one int, stored as ``report.seed``).
    n_jobs : int, default=None
        Threads of the resampling (and of the evaluation, given score
        arrays): blocks of resamples, each drawn from a seed fixed up front,
        so the result is the same bit for bit whatever the count. None means
        1 unless inside ``joblib.parallel_config(n_jobs=...)``; -1 means all
        cores.
    **metric_options
        Passed to :func:`sklearn_rank.evaluate_per_group` (``sample_weight``,
        ``ties``, ``convention``, ...), plus ``undefined`` as in
        :func:`sklearn_rank.evaluate`.

    Returns
    -------
    report : ComparisonReport
        ``report.pairs`` (mean difference, interval, p-value, adjusted p-value,
        effect size, wins / ties / losses, groups), ``report.models`` (means and
        intervals); ``print(report)`` shows tables, ``report.to_frame()`` a
        DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(200), 10)
    >>> y_true = rng.integers(0, 2, 2000)
    >>> good = y_true + rng.normal(size=2000)
    >>> noise = rng.normal(size=2000)
    >>> report = compare(y_true, {"good": good, "noise": noise}, groups=groups,
    ...                  metrics=["ndcg@10", "mrr"], random_state=0)
    >>> p = report.pair("ndcg@10", "good", "noise")
    >>> bool(p.mean_diff > 0), p.p_value, p.wins + p.ties + p.losses == p.n_groups
    (True, 0.0001, True)
    """
    func = "compare"
    if hasattr(y_scores, "items") and not isinstance(y_scores, GroupScores):
        y_scores = dict(y_scores.items())
    else:
        raise param_error(
            "y_scores",
            func,
            "a mapping of model name to scores (or to GroupScores)",
            type(y_scores).__name__,
            "Pass e.g. {'model_a': score_a, 'model_b': score_b}.",
        )
    if len(y_scores) < 2:
        raise param_error(
            "y_scores", func, "a mapping with at least two models", list(y_scores)
        )
    models = [str(m) for m in y_scores]
    y_scores = dict(zip(models, y_scores.values(), strict=True))
    level = None if confidence_level is None else check_level(confidence_level, func)
    opts = {
        "test": check_choice("test", func, test, TESTS),
        "correction": check_choice("correction", func, correction, CORRECTIONS),
        "correction_scope": check_choice(
            "correction_scope", func, correction_scope, SCOPES
        ),
        "alternative": check_choice("alternative", func, alternative, ALTERNATIVES),
        "level": level,
        "n_resamples": check_resamples(n_resamples, func),
        "ci_method": check_choice("ci_method", func, ci_method, CI_METHODS),
        "exact": _check_exact(exact, func),
        "zero_method": check_choice("zero_method", func, zero_method, ZERO_METHODS),
        "n_threads": effective_n_jobs(n_jobs, func),
    }
    metric_options = with_n_jobs(metric_options, n_jobs)
    entropy = seed_entropy(random_state, func)
    pairs = _pairs(models, baseline, func)
    data = collect(func, y_true, y_scores, groups, metrics, metric_options)
    report = run_compare(data, models, pairs, opts, entropy)
    if opts["ci_method"] != "matched" and level is not None:
        columns = []
        for p in report.pairs:
            va, vb = data.values[p.model][p.metric], data.values[p.baseline][p.metric]
            d = round_differences(va - vb, metric_scale(va, vb))  # NaN: undefined
            columns.append((f"{p.metric}, {p.model!r} - {p.baseline!r}", d))
        _warn_small(opts["ci_method"], columns, func, "difference")
    return report
