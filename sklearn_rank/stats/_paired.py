"""The steps of compare: columns, p-values with their intervals, the report.

Every pair (metric, model, baseline) is one unit: its differences rounded by
the one rule (:func:`._inputs.round_differences`), its test and the interval
that inverts it drawn from the pair's own random stream (:func:`._inputs.stream`,
keyed by the seed, the pair and the procedure), so a pair's p-value depends on
its data and the seed only.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._engine.reduce import weighted_sum
from .._metrics.bootstrap import (
    bootstrap_distribution,
    confidence_interval,
    standard_error,
    studentized,
    weighted_mean,
)
from .._utils.params import param_error
from ._corrections import adjust
from ._inputs import (
    PerGroup,
    canonical_order,
    metric_scale,
    round_differences,
    stream,
)
from ._inversion import (
    pivot_interval,
    randomization_interval,
    reconcile,
    walsh_interval,
)
from ._randomization import EXACT_MAX_GROUPS, sign_flip_exact, sign_flip_monte_carlo
from ._report import ComparisonReport, MetricInterval, PairComparison

_FUNC = "compare"
# The interval that inverts each test (ci_method="matched"), by its name in
# the report.
MATCHED = {
    "randomization": "randomization",
    "bootstrap": "bootstrap-t symmetric",
    "bootstrap-t": "bootstrap-t symmetric",
    "bootstrap-shift": "shifted bootstrap",
    "t": "t",
    "wilcoxon": "wilcoxon",
}


def warn_nan(what: str, func: str) -> None:
    warnings.warn(f"{func}: {what}", RuntimeWarning, stacklevel=5)


def intervals(
    columns, n_resamples, rngs, level, method, *, alternatives=None, n_threads=1
):
    """Estimate, interval and bootstrap standard error of weighted-mean columns.

    ``columns`` is a list of (mask, values, weights) over all groups, ``rngs``
    one random stream per column. ``alternatives`` (one per column, default
    two-sided) makes intervals one-sided; ``n_threads`` draws each column's
    resamples on that many threads (the same draws). Returns arrays (estimate,
    low, high, standard error).
    """
    n_cols = len(columns)
    est, low, high, se = (np.full(n_cols, np.nan) for _ in range(4))
    alts = ["two-sided"] * n_cols if alternatives is None else alternatives
    for j, (mask, v, w) in enumerate(columns):
        if not mask.any():
            continue
        est[j] = weighted_mean(v[mask], w[mask])  # evaluate's float
        if level is None:
            continue
        order = canonical_order(v[mask], w[mask])  # resamples: not the order
        vals, wts = v[mask][order][:, None], w[mask][order][:, None]
        studentize = method == "bootstrap-t"
        star = bootstrap_distribution(
            vals, wts, n_resamples, rngs[j], studentize, n_threads
        )
        star, se_star = star if studentize else (star, None)
        # the estimate summed in the same order, so that ties between it and
        # the resampled means (BCa's bias count) do not depend on the order
        centre = np.array([weighted_mean(vals[:, 0], wts[:, 0])])
        lo, hi = confidence_interval(
            centre, star, vals, wts, level, method, alts[j], se_star
        )
        low[j], high[j] = lo[0], hi[0]
        se[j] = star[:, 0].std(ddof=1) if n_resamples > 1 else np.nan
    return est, low, high, se


# --- A pair's differences ------------------------------------------------------


def pair_column(data: PerGroup, metric: str, a: str, b: str, func: str):
    """(mask, rounded difference, weights) of a pair (the one rounding rule)."""
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
    scale = metric_scale(va[mask], vb[mask])
    d = round_differences(np.where(mask, va - vb, 0.0), scale)
    return mask, d, wa


# --- One pair: test, matched interval, smallest attainable p --------------------


@dataclass
class PairResult:
    p: float = np.nan
    low: float = np.nan
    high: float = np.nan
    method: str = ""
    min_p: float = np.nan
    n_needed: int = 0


def _sign_flip_needed(alternative: str, alpha: float) -> int:
    """Fewest non-tied groups whose exact sign-flip p can reach alpha."""
    sides = 1 if alternative != "two-sided" else 2
    return int(np.ceil(np.log2(sides / alpha) - 1e-12))


def _randomization(d, w, m, opts, rng, alpha, want_ci):
    n = d.size
    big_w = w.sum()
    # the second column (C of each resample) only serves the interval
    cols = [w * d / big_w, w / big_w] if want_ci else [w * d / big_w]
    x = np.stack(cols, axis=1)
    alt = opts["alternative"]
    exact = opts["exact"]
    use_exact = 2**n <= opts["n_resamples"] if exact is None else exact
    if use_exact and n > EXACT_MAX_GROUPS:
        raise param_error(
            "exact",
            _FUNC,
            f"False or None when a pair has more than {EXACT_MAX_GROUPS} groups",
            exact,
            f"A pair has {n} paired groups.",
        )
    n_nz = int(np.count_nonzero(d))
    sides = 1 if alt != "two-sided" else 2
    exact_min = min(1.0, math.ldexp(sides, -n_nz))  # 0.0 past float range
    res = PairResult(n_needed=_sign_flip_needed(alt, alpha))
    if use_exact:
        out = sign_flip_exact(x, alt, return_null=want_ci)
        res.method, res.min_p, extra = f"exact ({2**n} sign flips)", exact_min, 0
    else:
        out = sign_flip_monte_carlo(
            x, opts["n_resamples"], rng, alt, want_ci, opts.get("n_threads", 1)
        )
        floor = 1.0 / (opts["n_resamples"] + 1)
        res.method, res.min_p, extra = "monte carlo", max(exact_min, floor), 1
    p, null = out if want_ci else (out, None)
    res.p = float(p[0])
    if want_ci:
        res.low, res.high = randomization_interval(
            null[:, 0], null[:, 1], m, alt, alpha, extra
        )
    return res


def _bootstrap(test, d, w, m, opts, rng, alpha, want_ci):
    """Studentized (Sakai 2006; Efron & Tibshirani 1993, 16.4) or shifted test."""
    alt, n_res = opts["alternative"], opts["n_resamples"]
    star, se_star = bootstrap_distribution(
        d[:, None], w[:, None], n_res, rng, True, opts.get("n_threads", 1)
    )
    if test == "bootstrap-shift":
        se = 1.0
        t_star = star[:, 0] - m
    else:
        se = float(standard_error(d[:, None], w[:, None])[0])
        t_star = studentized(m, se, star[:, 0], se_star[:, 0], d.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = 0.0 if m == 0 else (m / se if se > 0 else np.copysign(np.inf, m))
    if alt != "two-sided" and test != "bootstrap-shift":
        # Under the paired null the differences are symmetric about 0: the
        # one-sided reference is t* and -t* (a one-sided test on the raw t*
        # reads the sample's skew as signal: 0.07-0.08 at alpha 0.05 on P@10-
        # and RR-like scores; docs/statistics.md, Calibration).
        t_star = np.concatenate([t_star, -t_star])
    if alt == "greater":
        b = np.count_nonzero(t_star >= t)
    elif alt == "less":
        b = np.count_nonzero(t_star <= t)
    else:
        b = np.count_nonzero(np.abs(t_star) >= abs(t))
    res = PairResult(p=(b + 1.0) / (t_star.size + 1.0), method="monte carlo")
    res.min_p = 1.0 / (t_star.size + 1)
    res.n_needed = 2  # any n > 1 can reach it, given the resamples
    if want_ci:
        res.low, res.high = pivot_interval(t_star, m, se, alt, alpha)
    return res


def _t_test(d, m, opts, alpha, want_ci):
    from scipy import stats

    alt = opts["alternative"]
    res = PairResult(method="t distribution", min_p=0.0, n_needed=2)
    if d.size < 2:
        return res
    if np.ptp(d) == 0:  # every difference equal: t is 0 or infinite
        toward = alt == "two-sided" or (m > 0) == (alt == "greater")
        res.p = 1.0 if m == 0 or not toward else 0.0
        res.low = m if alt != "less" else -np.inf
        res.high = m if alt != "greater" else np.inf
        return res
    r = stats.ttest_1samp(d, 0.0, alternative=alt)
    res.p = float(r.pvalue)
    if want_ci:
        ci = r.confidence_interval(1 - alpha)
        res.low, res.high = float(ci.low), float(ci.high)
    return res


def wilcoxon_method(d: np.ndarray, zero_method: str) -> str:
    """What scipy.stats.wilcoxon's method='auto' runs on these differences."""
    if d.size > 50:
        return "normal approximation"
    kept = d[d != 0] if zero_method == "wilcox" else d
    _, counts = np.unique(np.abs(kept), return_counts=True)
    if not (counts > 1).any() and not (d == 0).any():
        return "exact"
    if d.size <= 13:
        return f"exact ({2**d.size} sign flips)"
    return "normal approximation"


def _wilcoxon(d, m, opts, alpha, want_ci):
    from scipy import stats

    alt, zm = opts["alternative"], opts["zero_method"]
    scale = metric_scale(d)

    def p_at(delta):
        x = round_differences(d - delta, scale) if delta != 0 else d
        if not x.any():
            return 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(stats.wilcoxon(x, zero_method=zm, alternative=alt).pvalue)

    res = PairResult(method=wilcoxon_method(d, zm), p=p_at(0.0))
    n = d.size if zm != "wilcox" else int(np.count_nonzero(d))
    extreme = np.r_[np.zeros(d.size - n), np.arange(1.0, n + 1)]
    extreme = -extreme if alt == "less" else extreme
    if n:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = stats.wilcoxon(extreme, zero_method=zm, alternative=alt)
        res.min_p = float(r.pvalue)
    else:
        res.min_p = 1.0
    res.n_needed = _sign_flip_needed(alt, alpha)
    if want_ci:
        res.low, res.high = walsh_interval(p_at, d, alt, alpha)
    return res


def test_pair(test, d, w, opts, rng, alpha, want_ci) -> tuple[float, PairResult]:
    """The mean difference and the test (with its interval) of one pair."""
    m = weighted_mean(d, w)
    if test == "randomization":
        res = _randomization(d, w, m, opts, rng, alpha, want_ci)
    elif test in ("bootstrap", "bootstrap-t", "bootstrap-shift"):
        res = _bootstrap(test, d, w, m, opts, rng, alpha, want_ci)
    else:
        if np.ptp(w) > 0:
            warn_nan(
                f"the {test} test ignores the group weights (they differ between "
                "groups); mean_diff uses them.",
                _FUNC,
            )
        if test == "t":
            res = _t_test(d, m, opts, alpha, want_ci)
        else:
            res = _wilcoxon(d, m, opts, alpha, want_ci)
    if want_ci:
        res.low, res.high = reconcile(res.p, res.low, res.high, alpha, m)
    return m, res


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


def effect_size(d: np.ndarray, w: np.ndarray, mean: float, label: str) -> float:
    """d_z: mean difference over the weighted SD of the differences (ddof=1).

    The variance is ``sum w (d - mean)**2 / (V1 - V2 / V1)`` with ``V1 = sum w``
    and ``V2 = sum w**2``: with equal weights, ``np.var(d, ddof=1)``. Every
    difference equal (after the rounding rule): the SD is 0 and d_z is NaN,
    with a warning that says why (a constant shift).
    """
    if d.size < 2:
        return np.nan
    if np.ptp(d) == 0:
        if mean != 0:
            warn_nan(
                f"every paired difference of {label} equals {mean:+.6g} (a constant "
                "shift): their standard deviation is 0, so the effect size d_z is "
                "undefined (NaN) and a t statistic would be infinite.",
                _FUNC,
            )
        return np.nan
    v1, v2 = w.sum(), weighted_sum(w, w)
    var = weighted_sum((d - mean) ** 2, w) / (v1 - v2 / v1)
    return float(mean / np.sqrt(var)) if var > 0 else np.nan


def _model_columns(data: PerGroup, models, entropy, method, level, opts):
    keys, columns = [], []
    for m in data.metrics:
        for model in models:
            v = data.values[model][m]
            columns.append((~np.isnan(v), v, data.weights[model][m]))
            keys.append((m, model))
    rngs = [stream(entropy, "mean", m, model, method) for m, model in keys]
    est, low, high, se = intervals(
        columns, opts["n_resamples"], rngs, level, method,
        n_threads=opts.get("n_threads", 1),
    )  # fmt: skip
    n_total = data.group_ids.size
    return [
        MetricInterval(
            m, model, est[j], low[j], high[j], se[j], int(columns[j][0].sum()),
            n_total - int(columns[j][0].sum()),
        )
        for j, (m, model) in enumerate(keys)
    ]  # fmt: skip


_ZEROS_AT_0 = {"wilcox": "dropped", "pratt": "ranked, then dropped", "zsplit": "split"}


def _warn_no_wilcoxon_interval(key, d, p, zero_method, alpha):
    """Say why a Wilcoxon row has a p-value and no interval (none inverts it)."""
    warn_nan(
        f"the Wilcoxon test of {key[0]} ({key[1]!r} - {key[2]!r}) rejects every "
        f"shift at the {1 - alpha:.0%} level (p = {p:.4g} at 0): at the shift 0 "
        f"its {int(np.count_nonzero(d == 0))} zero differences are "
        f"{_ZEROS_AT_0[zero_method]} (zero_method={zero_method!r}), at every "
        "other shift they are ranked, so no interval inverts the test and its "
        "interval is NaN. test='randomization' gives a matched interval on tied "
        "scores.",
        _FUNC,
    )


def run_compare(data: PerGroup, models, pairs, opts, entropy) -> ComparisonReport:
    """compare after validation: per pair test and interval, adjustment, report."""
    test, level = opts["test"], opts["level"]
    alpha = 0.05 if level is None else 1 - level
    matched = opts["ci_method"] == "matched"
    model_method = "bootstrap-t" if matched else opts["ci_method"]
    model_items = _model_columns(data, models, entropy, model_method, level, opts)
    n_total = data.group_ids.size
    rows, pvals = [], {}
    for metric in data.metrics:
        for a, b in pairs:
            mask, d_all, w_all = pair_column(data, metric, a, b, _FUNC)
            d, w = d_all[mask], w_all[mask]
            if test not in ("t", "wilcoxon"):  # the resamples do not see the order
                order = canonical_order(d, w)  # (scipy's tests: its own floats)
                d, w = d[order], w[order]
            key = (metric, a, b)
            if not mask.any():
                rows.append((key, np.nan, PairResult(), d, w))
                pvals[key] = np.nan
                continue
            rng = stream(entropy, "test", test, *key)
            want_ci = matched and level is not None
            m, res = test_pair(test, d, w, opts, rng, alpha, want_ci)
            if want_ci and test == "wilcoxon" and np.isnan(res.low) and res.p >= 0:
                _warn_no_wilcoxon_interval(key, d, res.p, opts["zero_method"], alpha)
            if not matched and level is not None:
                ci_rng = stream(entropy, "ci", opts["ci_method"], *key)
                _, lo, hi, _ = intervals(
                    [(np.ones(d.size, bool), d, w)], opts["n_resamples"], [ci_rng],
                    level, opts["ci_method"], alternatives=[opts["alternative"]],
                    n_threads=opts.get("n_threads", 1),
                )  # fmt: skip
                res.low, res.high = float(lo[0]), float(hi[0])
            rows.append((key, m, res, d, w))
            pvals[key] = res.p
    padj, size = adjusted(
        pvals, data.metrics, pairs, opts["correction"], opts["correction_scope"]
    )
    pair_items = []
    for key, m, res, d, w in rows:
        label = f"{key[0]} ({key[1]!r} - {key[2]!r})"
        pair_items.append(
            PairComparison(
                metric=key[0], model=key[1], baseline=key[2], mean_diff=m,
                ci_low=res.low, ci_high=res.high, p_value=res.p,
                p_adjusted=padj[key],
                effect_size=effect_size(d, w, m, label) if d.size else np.nan,
                wins=int(np.count_nonzero(d > 0)),
                ties=int(np.count_nonzero(d == 0)),
                losses=int(np.count_nonzero(d < 0)),
                n_groups=int(d.size), n_dropped=n_total - int(d.size),
                min_p=res.min_p, p_method=res.method, n_needed=res.n_needed,
            )
        )  # fmt: skip
    ci_name = MATCHED[test] if matched else opts["ci_method"]
    report = ComparisonReport(
        tuple(model_items), tuple(pair_items), test, opts["correction"],
        opts["alternative"], np.nan if level is None else level,
        opts["n_resamples"], ci_name,
        correction_scope=opts["correction_scope"], family_size=size,
        zero_method=opts["zero_method"], seed=entropy, ci_matches_test=matched,
        alpha=alpha,
    )  # fmt: skip
    _warn_unattainable(report)
    return report


def _warn_unattainable(report: ComparisonReport) -> None:
    """A RuntimeWarning for the pairs whose test can never reach alpha."""
    lines = report.unattainable_lines()
    if lines:
        warnings.warn("compare: " + " ".join(lines), RuntimeWarning, stacklevel=4)
