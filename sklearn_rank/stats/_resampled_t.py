"""The corrected resampled t-test over the folds that selected the candidates.

Nadeau & Bengio (2003): the scores of two models on k (possibly repeated and
overlapping) train / test splits are correlated through the shared training
data, so the plain t-test over splits is far too liberal. Its variance is
corrected to ``(1 / k + n_test / n_train) * s**2`` (s: the standard deviation of
the k score differences, ddof=1), with k - 1 degrees of freedom, as in
scikit-learn's example "Statistical comparison of models using grid search".
Here n_test / n_train counts groups, the units of the split, averaged over the
splits. Written here because neither scipy nor scikit-learn has the test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils.params import param_error
from ._corrections import CORRECTIONS, adjust
from ._inputs import (
    ALTERNATIVES,
    check_choice,
    check_level,
    metric_scale,
    round_differences,
)
from ._report import ComparisonReport, MetricInterval, PairComparison
from ._search import params_text, top_indices

_ALLOWED = ("alternative", "correction", "confidence_level")


def corrected_t(diff: np.ndarray, ratio: float, alternative: str, level):
    """(p-value, interval low, high) of the mean of ``diff`` over k splits."""
    from scipy import stats

    k = diff.size
    mean = diff.mean()
    var = diff.var(ddof=1) * (1.0 / k + ratio) if k > 1 else np.nan
    se = np.sqrt(var)
    dist = stats.t(df=k - 1)
    if not se > 0:  # all differences equal (or one split): nothing to test
        p = 1.0 if mean == 0 or np.isnan(se) else 0.0
        return (np.nan if np.isnan(se) else p), mean, mean
    t = mean / se
    p = {
        "greater": dist.sf(t),
        "less": dist.cdf(t),
        "two-sided": 2 * dist.sf(abs(t)),
    }[alternative]
    if level is None:
        return float(p), np.nan, np.nan
    if alternative == "two-sided":
        q = dist.ppf(1 - (1 - level) / 2)
        return float(p), mean - q * se, mean + q * se
    q = dist.ppf(level)
    if alternative == "greater":
        return float(p), mean - q * se, np.inf
    return float(p), -np.inf, mean + q * se


def _options(compare_options: dict[str, Any], func: str):
    extra = sorted(set(compare_options) - set(_ALLOWED))
    if extra:
        raise param_error(
            "compare_on",
            func,
            f"'outer_folds' or 'held_out' to pass {extra} to compare",
            "selection_folds",
            f"With 'selection_folds' only {list(_ALLOWED)} apply.",
        )
    alt = check_choice(
        "alternative", func, compare_options.get("alternative", "two-sided"),
        ALTERNATIVES,
    )  # fmt: skip
    corr = check_choice(
        "correction", func, compare_options.get("correction", "holm"), CORRECTIONS
    )
    level = compare_options.get("confidence_level", 0.95)
    level = None if level is None else check_level(level, func)
    return alt, corr, level


def selection_fold_report(search, splits, groups, top, rank_by, func, options):
    """ComparisonReport of a fitted search's top candidates over its own splits."""
    alt, corr, level = _options(options, func)
    order, metric = top_indices(search, top, rank_by, func)
    res = search.cv_results_
    k = len(splits)
    if f"split{k - 1}_test_{metric}" not in res or f"split{k}_test_{metric}" in res:
        raise param_error(
            "estimators",
            func,
            f"a search fitted with the splits of its cv ({k} here)",
            f"{search.n_splits_} splits in cv_results_",
        )
    codes = np.unique(groups, return_inverse=True)[1].ravel()
    n_test = np.array([np.unique(codes[test]).size for _, test in splits])
    n_train = np.array([np.unique(codes[train]).size for train, _ in splits])
    ratio = float(np.mean(n_test / n_train))
    names = [f"#{p} {params_text(res['params'][i])}" for p, i in enumerate(order, 1)]
    scores = {
        name: np.array([res[f"split{s}_test_{metric}"][i] for s in range(k)])
        for name, i in zip(names, order, strict=True)
    }
    models = tuple(
        MetricInterval(metric, name, v.mean(), np.nan, np.nan, np.nan, k, 0)
        for name, v in scores.items()
    )
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = round_differences(
                scores[a] - scores[b], metric_scale(scores[a], scores[b])
            )
            p, lo, hi = corrected_t(d, ratio, alt, level)
            sd = d.std(ddof=1) if k > 1 else np.nan
            rows.append((a, b, d, p, lo, hi, d.mean() / sd if sd > 0 else np.nan))
    padj = adjust(np.array([r[3] for r in rows]), corr)
    pairs = tuple(
        PairComparison(
            metric, a, b, d.mean(), lo, hi, p, q, eff, int((d > 0).sum()),
            int((d == 0).sum()), int((d < 0).sum()), k, 0,
        )
        for (a, b, d, p, lo, hi, eff), q in zip(rows, padj, strict=True)
    )  # fmt: skip
    design = (
        f"Design: compared on the {k} splits that selected the candidates (the "
        f"search's own cv_results_ for {metric}); the selection bias remains: the "
        "winner was picked on these numbers. Nadeau-Bengio corrected resampled "
        f"t-test, variance x (1/{k} + {ratio:.3f} test/train groups), df {k - 1}; "
        "'groups' counts splits."
    )
    return ComparisonReport(
        models, pairs, "corrected t", corr, alt,
        np.nan if level is None else level, 0, "corrected t",
        correction_scope="metric", family_size=len(pairs), design=design,
        ci_matches_test=True,
    )  # fmt: skip
