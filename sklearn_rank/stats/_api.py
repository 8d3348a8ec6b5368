"""bootstrap_ci and compare: intervals and paired tests over groups."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._evaluate import GroupScores
from .._validation import param_error
from ._bootstrap import bootstrap_distribution, confidence_interval, weighted_mean
from ._corrections import CORRECTIONS, adjust
from ._inputs import (
    ALTERNATIVES,
    CI_METHODS,
    TESTS,
    PerGroup,
    check_choice,
    check_level,
    check_random_state,
    check_resamples,
    collect,
)
from ._randomization import (
    EXACT_MAX_GROUPS,
    sign_flip_exact,
    sign_flip_monte_carlo,
)
from ._report import BootstrapReport, ComparisonReport, MetricInterval, PairComparison

_TIE = 1e-12  # |difference| at or below this counts as a tie


def _intervals(columns, n_resamples, rng, level, method):
    """Estimate, interval and standard error of weighted-mean columns.

    ``columns`` is a list of (mask, values, weights) over all groups; columns
    with the same mask share their bootstrap draws (so differences are paired).
    Returns arrays (estimate, low, high, standard error) and the bootstrap
    distributions by column index.
    """
    n_cols = len(columns)
    est, low, high, se = (np.full(n_cols, np.nan) for _ in range(4))
    dists: dict[int, np.ndarray] = {}
    by_mask: dict[bytes, list[int]] = {}
    for j, (mask, _, _) in enumerate(columns):
        by_mask.setdefault(np.packbits(mask).tobytes(), []).append(j)
    for cols in by_mask.values():
        mask = columns[cols[0]][0]
        if not mask.any():
            continue
        vals = np.stack([columns[j][1][mask] for j in cols], axis=1)
        wts = np.stack([columns[j][2][mask] for j in cols], axis=1)
        # From contiguous 1-D arrays, as evaluate does, so the float is the same.
        theta = np.array(
            [weighted_mean(columns[j][1][mask], columns[j][2][mask]) for j in cols]
        )
        if level is None:
            est[cols] = theta
            continue
        star = bootstrap_distribution(vals, wts, n_resamples, rng)
        lo, hi = confidence_interval(theta, star, vals, wts, level, method)
        est[cols], low[cols], high[cols] = theta, lo, hi
        se[cols] = star.std(axis=0, ddof=1) if n_resamples > 1 else np.nan
        for i, j in enumerate(cols):
            dists[j] = star[:, i]
    return est, low, high, se, dists


def _warn_nan(what: str, func: str) -> None:
    warnings.warn(f"{func}: {what}", RuntimeWarning, stacklevel=3)


def bootstrap_ci(
    y_true: ArrayLike | None,
    y_score: ArrayLike | GroupScores,
    *,
    groups: ArrayLike | None = None,
    metrics: str | Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    method: str = "BCa",
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
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
    method : {"BCa", "percentile"}, default="BCa"
        Interval method, as in :func:`scipy.stats.bootstrap`.
    random_state : None, int, RandomState or Generator, default=None
        Seed of the resampling; an int makes the result reproducible.
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
    method = check_choice("method", func, method, CI_METHODS)
    rng = check_random_state(random_state, func)
    data = collect(func, y_true, {"": y_score}, groups, metrics, metric_options)
    columns = []
    for m in data.metrics:
        v = data.values[""][m]
        columns.append((~np.isnan(v), v, data.weights[""][m]))
    est, low, high, se, _ = _intervals(columns, n_resamples, rng, level, method)
    items = []
    for j, m in enumerate(data.metrics):
        n_def = int(columns[j][0].sum())
        if n_def == 0 or np.isnan(low[j]):
            _warn_nan(f"no interval for {m} ({n_def} defined groups); it is NaN.", func)
        items.append(
            MetricInterval(
                m, "", est[j], low[j], high[j], se[j], n_def, columns[j][0].size - n_def
            )
        )
    return BootstrapReport(tuple(items), level, n_resamples, method)


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


def _scipy_test(test, a, b, alternative):
    """Paired t or Wilcoxon signed-rank p-value from scipy.stats (unweighted)."""
    from scipy import stats

    if np.all(np.abs(a - b) <= _TIE):
        return 1.0  # no difference anywhere: nothing to reject
    if test == "t":
        return float(stats.ttest_rel(a, b, alternative=alternative).pvalue)
    return float(stats.wilcoxon(a, b, alternative=alternative).pvalue)


def _bootstrap_p(dist: np.ndarray, diff: float, alternative: str) -> float:
    """Paired bootstrap test: the resampled mean shifted to the null (mean 0).

    ``(b + 1) / (n + 1)`` with b the shifted resamples at least as extreme as the
    observed mean difference (Efron & Tibshirani 1993, 16.4; Sakai 2006).
    """
    shifted = dist - diff
    if alternative == "greater":
        b = np.count_nonzero(shifted >= diff)
    elif alternative == "less":
        b = np.count_nonzero(shifted <= diff)
    else:
        b = np.count_nonzero(np.abs(shifted) >= abs(diff))
    return (b + 1.0) / (dist.size + 1.0)


def compare(
    y_true: ArrayLike | None,
    y_scores: Mapping[str, ArrayLike | GroupScores],
    *,
    groups: ArrayLike | None = None,
    metrics: str | Sequence[str] | None = None,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str = "holm",
    alternative: str = "two-sided",
    confidence_level: float | None = 0.95,
    n_resamples: int = 9999,
    ci_method: str = "BCa",
    exact: bool | None = None,
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
    **metric_options: Any,
) -> ComparisonReport:
    """Paired comparison of several models on the same groups.

    Every model is scored on the same groups (one shared ordering per model);
    differences are taken group by group, so the test is paired. Groups where a
    metric is undefined for either model are dropped from that pair
    (``n_dropped`` counts them).

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
    test : {"randomization", "bootstrap", "t", "wilcoxon"}, default="randomization"
        Paired sign-flip randomization test, paired bootstrap test (shifted to
        the null), paired t-test (:func:`scipy.stats.ttest_rel`) or Wilcoxon
        signed-rank test (:func:`scipy.stats.wilcoxon`). The last two do not
        weight groups.
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
        Adjustment of the p-values over the pairs of each metric
        (Benjamini-Hochberg through :func:`scipy.stats.false_discovery_control`).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        "greater": the model's mean is above the baseline's.
    confidence_level : float or None, default=0.95
        Level of the bootstrap intervals; None skips them (NaN in the report).
    n_resamples : int, default=9999
        Resamples of the randomization and bootstrap tests and of the intervals.
        Monte Carlo p-values are ``(b + 1) / (n_resamples + 1)``, never 0.
    ci_method : {"BCa", "percentile"}, default="BCa"
        Bootstrap interval method, as ``method`` in :func:`scipy.stats.bootstrap`.
    exact : bool or None, default=None
        Randomization test only: True enumerates all 2**n sign flips (n <= 16
        paired groups), False samples ``n_resamples`` of them, None enumerates
        when 2**n <= n_resamples (as :func:`scipy.stats.permutation_test`).
    random_state : None, int, RandomState or Generator, default=None
        Seed of the resampling; an int makes the result reproducible.
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
    test = check_choice("test", func, test, TESTS)
    correction = check_choice("correction", func, correction, CORRECTIONS)
    alternative = check_choice("alternative", func, alternative, ALTERNATIVES)
    level = None if confidence_level is None else check_level(confidence_level, func)
    n_resamples = check_resamples(n_resamples, func)
    ci_method = check_choice("ci_method", func, ci_method, CI_METHODS)
    exact = _check_exact(exact, func)
    rng = check_random_state(random_state, func)
    pairs = _pairs(models, baseline, func)
    data = collect(func, y_true, y_scores, groups, metrics, metric_options)
    return _compare(
        data, models, pairs, test, correction, alternative, level, n_resamples,
        ci_method, exact, rng,
    )  # fmt: skip


def _pair_column(data: PerGroup, metric: str, a: str, b: str, func: str):
    va, vb = data.values[a][metric], data.values[b][metric]
    mask = ~np.isnan(va) & ~np.isnan(vb)
    wa, wb = data.weights[a][metric], data.weights[b][metric]
    if not np.array_equal(wa[mask], wb[mask]):
        raise ValueError(
            f"The group weights of {metric} differ between {a!r} and {b!r} in "
            f"{func}; a paired comparison needs the same sample_weight for every "
            "model."
        )
    return mask, np.where(mask, va - vb, 0.0), wa


def _compare(data, models, pairs, test, correction, alternative, level, n_resamples,
             ci_method, exact, rng) -> ComparisonReport:  # fmt: skip
    func = "compare"
    n_total = data.group_ids.size
    # Model means and intervals, then pair differences: one list of columns so
    # that columns on the same groups share their bootstrap draws.
    columns, keys = [], []
    for m in data.metrics:
        for model in models:
            v = data.values[model][m]
            columns.append((~np.isnan(v), v, data.weights[model][m]))
            keys.append(("model", m, model))
    pair_cols = {}
    for m in data.metrics:
        for a, b in pairs:
            mask, d, w = _pair_column(data, m, a, b, func)
            pair_cols[(m, a, b)] = (mask, d, w)
            columns.append((mask, d, w))
            keys.append(("pair", m, a, b))
    need_dist = level is not None or test == "bootstrap"
    est, low, high, _se, dists = _intervals(
        columns, n_resamples, rng, level if need_dist else None,
        ci_method,
    )  # fmt: skip
    if level is None:
        low[:] = np.nan
        high[:] = np.nan
    # p-values
    pvals = {}
    if test == "randomization":
        mc_keys, mc_x = [], []
        for key, (mask, d, w) in pair_cols.items():
            n = int(mask.sum())
            if n == 0:
                pvals[key] = np.nan
                continue
            x = np.where(mask, w * d, 0.0) / w[mask].sum()
            use_exact = 2**n <= n_resamples if exact is None else exact
            if use_exact and n > EXACT_MAX_GROUPS:
                raise param_error(
                    "exact",
                    func,
                    f"False or None when a pair has more than {EXACT_MAX_GROUPS} "
                    "groups",
                    exact,
                    f"{key[0]} of {key[1]!r} vs {key[2]!r} has {n} paired groups.",
                )
            if use_exact:
                pvals[key] = float(sign_flip_exact(x[mask][:, None], alternative)[0])
            else:
                mc_keys.append(key)
                mc_x.append(x)
        if mc_keys:
            p = sign_flip_monte_carlo(
                np.stack(mc_x, axis=1), n_resamples, rng, alternative
            )
            pvals.update(zip(mc_keys, p.tolist(), strict=True))
    for key, (mask, _d, w) in pair_cols.items():
        if key in pvals:
            continue
        if not mask.any():
            pvals[key] = np.nan
        elif test == "bootstrap":
            j = keys.index(("pair", *key))
            dist = dists.get(j)
            pvals[key] = (
                np.nan if dist is None else _bootstrap_p(dist, est[j], alternative)
            )
        else:
            if np.ptp(w[mask]) > 0:
                _warn_nan(
                    f"the {test} test of {key[0]} ignores the group weights (they "
                    "differ between groups); mean_diff and the interval use them.",
                    func,
                )
            m, a, b = key
            pvals[key] = _scipy_test(
                test,
                data.values[a][m][mask],
                data.values[b][m][mask],
                alternative,
            )
    padj = {}
    for m in data.metrics:
        ks = [(m, a, b) for a, b in pairs]
        padj.update(
            zip(ks, adjust(np.array([pvals[k] for k in ks]), correction), strict=True)
        )
    model_items, pair_items = [], []
    for j, key in enumerate(keys):
        mask, values, w = columns[j]
        n_def = int(mask.sum())
        if key[0] == "model":
            model_items.append(
                MetricInterval(
                    key[1],
                    key[2],
                    est[j],
                    low[j],
                    high[j],
                    _se[j],
                    n_def,
                    n_total - n_def,
                )
            )
            continue
        d = values[mask]
        wm = w[mask]
        if n_def:
            var = np.dot(wm, (d - est[j]) ** 2) / wm.sum()
            effect = est[j] / np.sqrt(var) if var > 0 else np.nan
        else:
            effect = np.nan
        pkey = key[1:]
        pair_items.append(
            PairComparison(
                metric=key[1], model=key[2], baseline=key[3], mean_diff=est[j],
                ci_low=low[j], ci_high=high[j], p_value=pvals[pkey],
                p_adjusted=padj[pkey], effect_size=float(effect),
                wins=int(np.count_nonzero(d > _TIE)),
                ties=int(np.count_nonzero(np.abs(d) <= _TIE)),
                losses=int(np.count_nonzero(d < -_TIE)),
                n_groups=n_def, n_dropped=n_total - n_def,
            )
        )  # fmt: skip
    return ComparisonReport(
        tuple(model_items), tuple(pair_items), test, correction, alternative,
        np.nan if level is None else level, n_resamples, ci_method,
    )  # fmt: skip
