"""The steps of compare: columns, p-values, adjusted p-values, report items."""

from __future__ import annotations

import warnings

import numpy as np

from .._metrics.validation import param_error
from ._bootstrap import (
    bootstrap_distribution,
    confidence_interval,
    standard_error,
    studentized,
    weighted_mean,
)
from ._corrections import adjust
from ._inputs import ZERO_TOL, PerGroup
from ._randomization import EXACT_MAX_GROUPS, sign_flip_exact, sign_flip_monte_carlo
from ._report import ComparisonReport, MetricInterval, PairComparison

_FUNC = "compare"


def warn_nan(what: str, func: str) -> None:
    warnings.warn(f"{func}: {what}", RuntimeWarning, stacklevel=4)


def intervals(columns, n_resamples, rng, level, method, *, alternatives=None,
              keep_dist=False, studentize=False):  # fmt: skip
    """Estimate, interval and standard error of weighted-mean columns.

    ``columns`` is a list of (mask, values, weights) over all groups; columns
    with the same mask share their bootstrap draws (so differences are paired).
    ``alternatives`` (one per column, default two-sided) makes intervals
    one-sided. Returns arrays (estimate, low, high, standard error) and, by
    column index, the bootstrap distribution: (means, standard errors or None),
    drawn when ``level`` is set or ``keep_dist`` asks for it.
    """
    n_cols = len(columns)
    est, low, high, se = (np.full(n_cols, np.nan) for _ in range(4))
    alts = np.array(["two-sided"] * n_cols if alternatives is None else alternatives)
    studentize = studentize or method == "bootstrap-t"
    dists: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}
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
        est[cols] = theta
        if level is None and not keep_dist:
            continue
        star = bootstrap_distribution(vals, wts, n_resamples, rng, studentize)
        star, se_star = star if studentize else (star, None)
        if level is not None:
            lo, hi = confidence_interval(
                theta, star, vals, wts, level, method, alts[cols], se_star
            )
            low[cols], high[cols] = lo, hi
            se[cols] = star.std(axis=0, ddof=1) if n_resamples > 1 else np.nan
        for i, j in enumerate(cols):
            dists[j] = (star[:, i], None if se_star is None else se_star[:, i])
    return est, low, high, se, dists


# --- Columns: model means, then pair differences -----------------------------


def pair_column(data: PerGroup, metric: str, a: str, b: str, func: str):
    """(mask, difference, weights) of a pair; |differences| <= ZERO_TOL are 0."""
    va, vb = data.values[a][metric], data.values[b][metric]
    mask = ~np.isnan(va) & ~np.isnan(vb)
    if not mask.any():  # no silent NaN: say why the row is empty
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{func}: {metric} is undefined for {a!r} or {b!r} on every group "
            f"({va.size} groups); their difference, interval and p-value are NaN.",
            UndefinedMetricWarning,
            stacklevel=5,
        )
    wa, wb = data.weights[a][metric], data.weights[b][metric]
    if not np.array_equal(wa[mask], wb[mask]):
        raise ValueError(
            f"The group weights of {metric} differ between {a!r} and {b!r} in "
            f"{func}; a paired comparison needs the same sample_weight for every "
            "model."
        )
    d = np.where(mask, va - vb, 0.0)
    d[np.abs(d) <= ZERO_TOL] = 0.0
    return mask, d, wa


def columns_of(data: PerGroup, models, pairs):
    """One list of columns, so that columns on the same groups share draws."""
    columns, keys = [], []
    for m in data.metrics:
        for model in models:
            v = data.values[model][m]
            columns.append((~np.isnan(v), v, data.weights[model][m]))
            keys.append(("model", m, model))
    for m in data.metrics:
        for a, b in pairs:
            columns.append(pair_column(data, m, a, b, _FUNC))
            keys.append(("pair", m, a, b))
    return columns, keys


# --- p-values ----------------------------------------------------------------


def _randomization_p(pair_cols, n_resamples, exact, alternative, rng):
    """Sign-flip p-values: exact enumeration or one shared Monte Carlo run."""
    pvals, mc_keys, mc_x = {}, [], []
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
                _FUNC,
                f"False or None when a pair has more than {EXACT_MAX_GROUPS} groups",
                exact,
                f"{key[0]} of {key[1]!r} vs {key[2]!r} has {n} paired groups.",
            )
        if use_exact:
            pvals[key] = float(sign_flip_exact(x[mask][:, None], alternative)[0])
        else:
            mc_keys.append(key)
            mc_x.append(x)
    if mc_keys:
        p = sign_flip_monte_carlo(np.stack(mc_x, axis=1), n_resamples, rng, alternative)
        pvals.update(zip(mc_keys, p.tolist(), strict=True))
    return pvals


def _count_p(stat_star: np.ndarray, stat: float, alternative: str) -> float:
    """``(b + 1) / (n + 1)``, b the resamples at least as extreme as ``stat``."""
    if alternative == "greater":
        b = np.count_nonzero(stat_star >= stat)
    elif alternative == "less":
        b = np.count_nonzero(stat_star <= stat)
    else:
        b = np.count_nonzero(np.abs(stat_star) >= abs(stat))
    return (b + 1.0) / (stat_star.size + 1.0)


def bootstrap_p(dist: np.ndarray, diff: float, alternative: str) -> float:
    """Paired bootstrap test: the resampled mean shifted to the null (mean 0).

    ``(b + 1) / (n + 1)`` with b the shifted resamples at least as extreme as the
    observed mean difference (Efron & Tibshirani 1993, 16.4; Sakai 2006).
    """
    return _count_p(dist - diff, diff, alternative)


def bootstrap_t_p(dist, se_dist, diff, d, w, alternative) -> float:
    """Studentized paired bootstrap test (Efron & Tibshirani 1993, 16.4).

    The observed ``t = diff / se`` against the resampled
    ``t* = (diff* - diff) / se*``, ``(b + 1) / (n + 1)`` as above.
    """
    se = standard_error(d[:, None], w[:, None])[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = 0.0 if diff == 0 else diff / se  # se = 0: all differences equal
    return _count_p(studentized(diff, se, dist, se_dist), t, alternative)


def _scipy_p(test, d, alternative, zero_method):
    """Paired t or Wilcoxon signed-rank p-value from scipy.stats (unweighted)."""
    from scipy import stats

    if not d.any():
        return 1.0  # no difference anywhere: nothing to reject
    if test == "t":  # ttest_rel(a, b) is ttest_1samp(a - b, 0)
        return float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    return float(
        stats.wilcoxon(d, zero_method=zero_method, alternative=alternative).pvalue
    )


def p_values(test, pair_cols, keys, est, dists, opts, rng):
    """Raw p-value of every pair column, by (metric, model, baseline)."""
    if test == "randomization":
        return _randomization_p(
            pair_cols, opts["n_resamples"], opts["exact"], opts["alternative"], rng
        )
    pvals = {}
    for key, (mask, d, w) in pair_cols.items():
        if not mask.any():
            pvals[key] = np.nan
        elif test in ("bootstrap", "bootstrap-t"):
            j = keys.index(("pair", *key))
            dist, se_dist = dists[j]
            pvals[key] = (
                bootstrap_p(dist, est[j], opts["alternative"])
                if test == "bootstrap"
                else bootstrap_t_p(
                    dist, se_dist, est[j], d[mask], w[mask], opts["alternative"]
                )
            )
        else:
            if np.ptp(w[mask]) > 0:
                warn_nan(
                    f"the {test} test of {key[0]} ignores the group weights (they "
                    "differ between groups); mean_diff and the interval use them.",
                    _FUNC,
                )
            pvals[key] = _scipy_p(
                test, d[mask], opts["alternative"], opts["zero_method"]
            )
    return pvals


# --- Adjusted p-values over the family ----------------------------------------


def adjusted(pvals, metrics, pairs, correction, scope):
    """Adjusted p-values and the family size (the most tests in one family)."""
    if scope == "all":
        families = [[(m, a, b) for m in metrics for a, b in pairs]]
    else:
        families = [[(m, a, b) for a, b in pairs] for m in metrics]
    padj, size = {}, 0
    for ks in families:
        p = np.array([pvals[k] for k in ks])
        padj.update(zip(ks, adjust(p, correction), strict=True))
        size = max(size, int(np.count_nonzero(~np.isnan(p))))
    return padj, size


# --- Report items --------------------------------------------------------------


def effect_size(d: np.ndarray, w: np.ndarray, mean: float) -> float:
    """d_z: mean difference over the weighted SD of the differences (ddof=1).

    The variance is ``sum w (d - mean)**2 / (V1 - V2 / V1)`` with ``V1 = sum w``
    and ``V2 = sum w**2``: with equal weights, ``np.var(d, ddof=1)``.
    """
    if d.size < 2:
        return np.nan
    v1, v2 = w.sum(), np.dot(w, w)
    var = np.dot(w, (d - mean) ** 2) / (v1 - v2 / v1)
    return float(mean / np.sqrt(var)) if var > 0 else np.nan


def report_items(columns, keys, est, low, high, se, pvals, padj, n_total):
    """MetricInterval of every model column, PairComparison of every pair."""
    model_items, pair_items = [], []
    for j, key in enumerate(keys):
        mask, values, w = columns[j]
        n_def = int(mask.sum())
        if key[0] == "model":
            model_items.append(
                MetricInterval(
                    key[1], key[2], est[j], low[j], high[j], se[j], n_def,
                    n_total - n_def,
                )
            )  # fmt: skip
            continue
        d = values[mask]
        pkey = key[1:]
        pair_items.append(
            PairComparison(
                metric=key[1], model=key[2], baseline=key[3], mean_diff=est[j],
                ci_low=low[j], ci_high=high[j], p_value=pvals[pkey],
                p_adjusted=padj[pkey], effect_size=effect_size(d, w[mask], est[j]),
                wins=int(np.count_nonzero(d > 0)),
                ties=int(np.count_nonzero(d == 0)),
                losses=int(np.count_nonzero(d < 0)),
                n_groups=n_def, n_dropped=n_total - n_def,
            )
        )  # fmt: skip
    return model_items, pair_items


def run_compare(data: PerGroup, models, pairs, opts, rng) -> ComparisonReport:
    """compare after validation: columns, p-values, adjustment, report."""
    test, level = opts["test"], opts["level"]
    columns, keys = columns_of(data, models, pairs)
    n_models = len(data.metrics) * len(models)
    alts = ["two-sided"] * n_models + [opts["alternative"]] * (len(keys) - n_models)
    est, low, high, se, dists = intervals(
        columns, opts["n_resamples"], rng, level, opts["ci_method"],
        alternatives=alts, keep_dist=test in ("bootstrap", "bootstrap-t"),
        studentize=test == "bootstrap-t",
    )  # fmt: skip
    pair_cols = {k[1:]: columns[j] for j, k in enumerate(keys) if k[0] == "pair"}
    pvals = p_values(test, pair_cols, keys, est, dists, opts, rng)
    padj, size = adjusted(
        pvals, data.metrics, pairs, opts["correction"], opts["correction_scope"]
    )
    model_items, pair_items = report_items(
        columns, keys, est, low, high, se, pvals, padj, data.group_ids.size
    )
    return ComparisonReport(
        tuple(model_items), tuple(pair_items), test, opts["correction"],
        opts["alternative"], np.nan if level is None else level,
        opts["n_resamples"], opts["ci_method"],
        correction_scope=opts["correction_scope"], family_size=size,
        zero_method=opts["zero_method"],
    )  # fmt: skip
