"""Many systems at once: the randomised Tukey HSD test and a two-way ANOVA.

``tukey_hsd`` follows Carterette (2012): under the null hypothesis that the
systems are exchangeable on every topic, the scores of one topic can be
permuted among the systems. Each trial permutes every topic's row
independently, recomputes every system's mean and keeps the range ``max - min``
of the means; the p-value of a pair is the share of trials whose range reaches
the pair's observed |difference of means|. Comparing every pair with the
maximum over all pairs makes the p-values family-wise: no further correction.

``two_way_anova`` is the F test for systems in a systems x topics design
without replication (topics a blocking factor), as ``statsmodels``'
``anova_lm(ols("score ~ C(system) + C(topic)"))``; its residual variance is the
variance estimate of :func:`topic_set_size`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.reduce import weighted_averages
from .._metrics.bootstrap import resample_blocks, run_blocks
from .._metrics.evaluate import GroupScores
from .._utils.jobs import effective_n_jobs
from .._utils.params import param_error
from ._inputs import (
    canonical_order,
    check_level,
    check_resamples,
    collect,
    metric_scale,
    round_differences,
    seed_entropy,
    stream,
    with_n_jobs,
)
from ._inversion import pivot_interval
from ._paired import intervals
from ._report import ComparisonReport, MetricInterval, PairComparison, _pandas, _table

# Bytes of float64 permuted scores per block of trials.
_BUDGET = 1 << 22


def _matrix(func, y_true, y_scores, groups, metric, options):
    """(topics x systems) scores of ``metric`` on the groups defined for all."""
    if not hasattr(y_scores, "items") or isinstance(y_scores, GroupScores):
        raise param_error(
            "y_scores",
            func,
            "a mapping of system name to scores (or to GroupScores)",
            type(y_scores).__name__,
        )
    y_scores = {str(k): v for k, v in y_scores.items()}
    if len(y_scores) < 2:
        raise param_error(
            "y_scores", func, "a mapping with at least two systems", list(y_scores)
        )
    if not isinstance(metric, str):
        raise param_error("metric", func, "one metric name, e.g. 'ndcg@10'", metric)
    data = collect(func, y_true, y_scores, groups, [metric], options)
    names = list(y_scores)
    x = np.stack([data.values[s][metric] for s in names], axis=1)
    w = data.weights[names[0]][metric]
    keep = ~np.isnan(x).any(axis=1)
    if keep.sum() < 2:
        raise ValueError(
            f"{func} needs at least 2 groups where {metric} is defined for every "
            f"system; it has {int(keep.sum())}."
        )
    return names, x[keep], w[keep], int((~keep).sum())


def _range_null(x, w, n_resamples, rng, n_threads=1):
    """Range (max - min) of the systems' weighted means, per trial."""
    n, k = x.shape
    out = np.empty(n_resamples)

    def draw(block):
        start, stop, block_rng = block
        b = stop - start
        # one random permutation of the k systems per topic and trial
        perm = np.argsort(block_rng.random((b, n, k)), axis=2)
        # Laid out trials x systems x topics (the topics last and contiguous,
        # where the weighted sum reads them without a transposing copy).
        shuffled = np.take_along_axis(
            np.broadcast_to(x.T, (b, k, n)), perm.transpose(0, 2, 1), axis=1
        )
        means = weighted_averages(shuffled, w, axis=2)
        out[start:stop] = means.max(axis=1) - means.min(axis=1)

    run_blocks(draw, resample_blocks(rng, n_resamples, 8 * n * k, _BUDGET), n_threads)
    return out


def tukey_hsd(
    y_true: ArrayLike | None,
    y_scores: Mapping[str, ArrayLike | GroupScores],
    *,
    groups: ArrayLike | None = None,
    metric: str = "ndcg@10",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
    n_jobs: int | None = None,
    **metric_options: Any,
) -> ComparisonReport:
    """Randomised Tukey HSD test over systems x groups (Carterette 2012).

    Every pair of systems is tested at once, with family-wise error control:
    each trial permutes the scores of every group (topic) among the systems
    (the null hypothesis: on every topic, the systems are exchangeable),
    recomputes the systems' means and keeps their range ``max - min``. The
    p-value of a pair is ``(b + 1) / (n_resamples + 1)``, b the trials whose
    range is at least the pair's absolute difference of means. Groups where the
    metric is undefined for any system are left out (``n_dropped``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Relevance labels; None when the values of ``y_scores`` are GroupScores.
    y_scores : mapping of str to array-like or GroupScores
        System name -> scores of shape (n_samples,), or -> per-group results of
        :func:`sklearn_rank.evaluate_per_group`, all on the same groups.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row (required with score arrays).
    metric : str, default="ndcg@10"
        The metric compared.
    n_resamples : int, default=9999
        Trials (random permutations of every group's row).
    confidence_level : float, default=0.95
        Level of the simultaneous intervals ``diff -+ q``, q the quantile of the
        range over trials that the test uses: an interval excludes 0 exactly
        when ``p <= 1 - confidence_level``.
    random_state : None, int, RandomState or Generator, default=None
        Seed; the report stores the int used (``report.seed``).
    n_jobs : int, default=None
        Threads of the resampling (and of the evaluation, given score
        arrays): blocks of resamples, each drawn from a seed fixed up front,
        so the result is the same bit for bit whatever the count. None means
        1 unless inside ``joblib.parallel_config(n_jobs=...)``; -1 means all
        cores.
    **metric_options
        Passed to :func:`sklearn_rank.evaluate_per_group`, plus ``undefined``.

    Returns
    -------
    report : ComparisonReport
        One pair per pair of systems (the earlier system minus the later),
        ``p_value`` family-wise (``p_adjusted`` is the same number);
        ``to_frame()`` has one row per pair.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupScores
    >>> from sklearn_rank.stats import tukey_hsd
    >>> rng = np.random.default_rng(0)
    >>> topic = rng.random(30)
    >>> runs = {f"run{i}": GroupScores(np.arange(30), {"ap": topic + 0.1 * i
    ...         + rng.normal(0, 0.05, 30)}, {"ap": np.ones(30)}) for i in range(3)}
    >>> r = tukey_hsd(None, runs, metric="ap", n_resamples=999, random_state=0)
    >>> len(r.pairs), r.pair("ap", "run0", "run2").p_value
    (3, 0.001)
    """
    func = "tukey_hsd"
    n_resamples = check_resamples(n_resamples, func)
    level = check_level(confidence_level, func)
    entropy = seed_entropy(random_state, func)
    n_threads = effective_n_jobs(n_jobs, func)
    names, x, w, n_dropped = _matrix(
        func, y_true, y_scores, groups, metric, with_n_jobs(metric_options, n_jobs)
    )
    n, k = x.shape
    # the systems' means (the one weighted mean) with bootstrap-t intervals
    # over groups, as compare gives the models' means
    columns = [(np.ones(n, bool), x[:, i], w) for i in range(k)]
    rngs = [stream(entropy, "mean", metric, s, "bootstrap-t") for s in names]
    means, m_low, m_high, m_se = intervals(
        columns, n_resamples, rngs, level, "bootstrap-t", n_threads=n_threads
    )
    scale = metric_scale(x)
    order = canonical_order(x, w)  # the trials do not see the groups' order
    trials = _range_null(
        x[order], w[order], n_resamples, stream(entropy, "tukey", metric), n_threads
    )
    q_star = round_differences(trials, scale)
    alpha = 1 - level
    models = tuple(
        MetricInterval(metric, s, means[i], m_low[i], m_high[i], m_se[i], n, n_dropped)
        for i, s in enumerate(names)
    )
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            d = round_differences(x[:, i] - x[:, j], scale)
            diff = float(round_differences(np.array([means[i] - means[j]]), scale)[0])
            b = np.count_nonzero(q_star >= abs(diff))
            p = (b + 1.0) / (n_resamples + 1.0)
            low, high = pivot_interval(q_star, diff, 1.0, "two-sided", alpha)
            pairs.append(
                PairComparison(
                    metric, names[i], names[j], diff, low, high, p, p, np.nan,
                    int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()),
                    n, n_dropped, 1.0 / (n_resamples + 1), "monte carlo", 2,
                )
            )  # fmt: skip
    design = (
        f"Randomised Tukey HSD (Carterette 2012): {k} systems x {n} groups, "
        f"{n_resamples} trials permuting every group's scores among the systems; "
        "p is family-wise over all pairs (the range of the means), so 'p adj' "
        "repeats it; CI: simultaneous, diff -+ the range quantile (the means: "
        "bootstrap-t over groups)."
    )
    return ComparisonReport(
        models, tuple(pairs), "randomised Tukey HSD", "none (family-wise)",
        "two-sided", level, n_resamples, "Tukey range",
        correction_scope="metric", family_size=len(pairs), design=design,
        seed=entropy, ci_matches_test=True, alpha=alpha,
    )  # fmt: skip


@dataclass(frozen=True)
class AnovaResult:
    """Two-way ANOVA without replication (systems x groups), from
    :func:`two_way_anova`.

    Attributes
    ----------
    metric : str
    statistic : float
        F statistic of the systems: ``MS_systems / MS_residual``.
    p_value : float
        ``P(F(df_systems, df_residual) >= statistic)``.
    df_systems, df_groups, df_residual : int
        ``k - 1``, ``n - 1`` and ``(k - 1)(n - 1)``.
    sum_sq : dict
        Sums of squares of "systems", "groups" and "residual".
    residual_variance : float
        ``MS_residual`` (V_E): the variance :func:`topic_set_size` takes.
    n_systems, n_groups, n_dropped : int
    """

    metric: str
    statistic: float
    p_value: float
    df_systems: int
    df_groups: int
    df_residual: int
    sum_sq: dict
    residual_variance: float
    n_systems: int
    n_groups: int
    n_dropped: int

    def __str__(self) -> str:
        rows = []
        for name, df in (
            ("systems", self.df_systems),
            ("groups", self.df_groups),
            ("residual", self.df_residual),
        ):
            ss = self.sum_sq[name]
            f = f"{self.statistic:.4f}" if name == "systems" else ""
            p = f"{self.p_value:.4g}" if name == "systems" else ""
            rows.append([name, str(df), f"{ss:.6g}", f"{ss / df:.6g}", f, p])
        head = [self.metric, "df", "sum_sq", "mean_sq", "F", "p"]
        return (
            f"{_table(head, rows)}\n(two-way ANOVA without replication, "
            f"{self.n_systems} systems x {self.n_groups} groups; "
            f"{self.n_dropped} groups dropped: undefined for a system)"
        )

    def to_frame(self):
        """The ANOVA table as a pandas DataFrame (needs pandas)."""
        pd = _pandas("AnovaResult.to_frame")
        dfs = {
            "systems": self.df_systems,
            "groups": self.df_groups,
            "residual": self.df_residual,
        }
        return pd.DataFrame(
            {
                "df": dfs,
                "sum_sq": self.sum_sq,
                "F": {"systems": self.statistic},
                "p_value": {"systems": self.p_value},
            }
        )


def anova_table(x: np.ndarray) -> tuple[float, float, int, int, dict, float]:
    """F, p, df_systems, df_residual, sums of squares, V_E of a (n, k) table."""
    from scipy import stats

    n, k = x.shape
    grand = x.mean()
    ss_sys = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_grp = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_tot = ((x - grand) ** 2).sum()
    ss_res = max(ss_tot - ss_sys - ss_grp, 0.0)
    df_sys, df_res = k - 1, (k - 1) * (n - 1)
    v_e = ss_res / df_res
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (ss_sys / df_sys) / v_e
    p = float(stats.f.sf(f, df_sys, df_res)) if v_e > 0 else np.nan
    sums = {"systems": ss_sys, "groups": ss_grp, "residual": ss_res}
    return float(f), p, df_sys, df_res, sums, float(v_e)


def two_way_anova(
    y_true: ArrayLike | None,
    y_scores: Mapping[str, ArrayLike | GroupScores],
    *,
    groups: ArrayLike | None = None,
    metric: str = "ndcg@10",
    **metric_options: Any,
) -> AnovaResult:
    """Two-way ANOVA over systems and groups (topics), without replication.

    The F test of "all systems have the same mean", with groups as a blocking
    factor: ``score[t, s] = mu + system_s + group_t + error``. Unweighted, on
    the groups where the metric is defined for every system. Its residual
    variance (V_E) is the variance estimate of a pilot for
    :func:`topic_set_size`.

    Parameters
    ----------
    y_true, y_scores, groups, metric, **metric_options
        As in :func:`tukey_hsd`.

    Returns
    -------
    result : AnovaResult
        ``statistic`` (F), ``p_value``, degrees of freedom, sums of squares and
        ``residual_variance``; ``print(result)`` shows the ANOVA table.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupScores
    >>> from sklearn_rank.stats import two_way_anova
    >>> rng = np.random.default_rng(0)
    >>> topic = rng.random(30)
    >>> runs = {f"run{i}": GroupScores(np.arange(30), {"ap": topic + 0.1 * i
    ...         + rng.normal(0, 0.05, 30)}, {"ap": np.ones(30)}) for i in range(3)}
    >>> r = two_way_anova(None, runs, metric="ap")
    >>> r.df_systems, r.df_residual, bool(r.p_value < 1e-6)
    (2, 58, True)
    """
    func = "two_way_anova"
    _, x, _, n_dropped = _matrix(func, y_true, y_scores, groups, metric, metric_options)
    f, p, df_sys, df_res, sums, v_e = anova_table(x)
    n, k = x.shape
    return AnovaResult(metric, f, p, df_sys, n - 1, df_res, sums, v_e, k, n, n_dropped)
