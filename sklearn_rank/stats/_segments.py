"""Statistics per segment of the groups: bootstrap intervals of each segment's
value, an unpaired test between segments for each model ("is it worse for new
users than for returning ones?") and the paired test between models within each
segment ("for whom is the new model worse?")."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.reduce import weighted_average
from .._metrics.bootstrap import resample_blocks, run_blocks
from .._utils.jobs import effective_n_jobs
from .._utils.params import param_error
from ._corrections import CORRECTIONS, adjust
from ._inputs import (
    _apply_undefined,
    _undefined_rule,
    canonical_order,
    check_choice,
    check_level,
    check_random_state,
    check_resamples,
)

SEGMENT_TESTS = ("permutation", "t", "mannwhitneyu")
PAIRED_TESTS = ("randomization", "bootstrap", "bootstrap-t", "t", "wilcoxon")
# Bytes of float64 draws per block of the permutation test's resamples.
_BUDGET = 1 << 22


@dataclass(frozen=True)
class SegmentComparison:
    """Per segment: each model's value with its interval, the test between
    segments, and the paired test against the baseline. From
    :func:`compare_by_segment`.

    Attributes
    ----------
    segments : ndarray of shape (n_segments,)
        The segment labels, in the tables' order.
    metrics : list of str
    models : list of str
    baseline : str or None
        The model the paired tests compare with (None: no paired test).
    tables : dict of str to SegmentTable
        Per model: values, ``n_used`` / ``n_undefined`` and the bootstrap
        interval (``ci_low`` / ``ci_high``) of every metric in every segment.
    segment_difference, segment_p, segment_p_adjusted : dict
        ``[model][metric]`` -> ndarray of shape (n_segments,): the segment's
        mean minus the mean of the groups of every other segment (with two
        segments: minus the other one), the unpaired test's p-value, and that
        p-value adjusted over ``segment_family``.
    difference, p_value, p_adjusted, n_pairs : dict
        ``[model][metric]`` -> ndarray of shape (n_segments,) for every model
        but the baseline: the mean paired difference model - baseline in the
        segment, the paired test's p-value, that p-value adjusted over
        ``model_family``, and the paired groups (defined for both).
    segment_test, test, correction : str or None
    confidence_level : float or None
    n_resamples : int
    """

    segments: np.ndarray
    metrics: list[str]
    models: list[str]
    baseline: str | None
    tables: dict[str, Any]
    segment_difference: dict[str, dict[str, np.ndarray]]
    segment_p: dict[str, dict[str, np.ndarray]]
    segment_p_adjusted: dict[str, dict[str, np.ndarray]]
    difference: dict[str, dict[str, np.ndarray]]
    p_value: dict[str, dict[str, np.ndarray]]
    p_adjusted: dict[str, dict[str, np.ndarray]]
    n_pairs: dict[str, dict[str, np.ndarray]]
    segment_test: str | None
    test: str | None
    correction: str
    confidence_level: float | None
    n_resamples: int
    segment_family_size: int = 0
    model_family_size: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def segment_family(self) -> str:
        """The family of ``segment_p_adjusted``, in words."""
        n = self.segment_family_size
        each = (
            "each segment against the rest"
            if self.segments.size > 2
            else ("the two segments")
        )
        return (
            f"one family per metric of {n} test{'s' if n != 1 else ''}: {each}, "
            "for every model"
        )

    @property
    def model_family(self) -> str:
        """The family of ``p_adjusted``, in words."""
        n = self.model_family_size
        return (
            f"one family per metric of {n} test{'s' if n != 1 else ''}: every "
            f"segment x every model against {self.baseline}"
        )

    def to_frame(self):
        """A long pandas DataFrame: one row per (metric, segment, model)."""
        import pandas as pd  # optional dependency, only needed here

        rows = []
        for metric in self.metrics:
            for s, label in enumerate(self.segments.tolist()):
                for model in self.models:
                    t = self.tables[model]
                    row = {
                        "metric": metric,
                        "segment": label,
                        "model": model,
                        "value": t.values[metric][s],
                        "ci_low": np.nan if t.ci_low is None else t.ci_low[metric][s],
                        "ci_high": np.nan
                        if t.ci_high is None
                        else t.ci_high[metric][s],
                        "n_groups": int(t.n_groups[s]),
                        "n_used": int(t.used(metric)[s]),
                        "segment_difference": np.nan,
                        "segment_p": np.nan,
                        "segment_p_adjusted": np.nan,
                        "baseline": self.baseline,
                        "difference": np.nan,
                        "p_value": np.nan,
                        "p_adjusted": np.nan,
                    }
                    if self.segment_test is not None:
                        row["segment_difference"] = self.segment_difference[model][
                            metric
                        ][s]
                        row["segment_p"] = self.segment_p[model][metric][s]
                        row["segment_p_adjusted"] = self.segment_p_adjusted[model][
                            metric
                        ][s]
                    if model in self.p_adjusted:
                        row["difference"] = self.difference[model][metric][s]
                        row["p_value"] = self.p_value[model][metric][s]
                        row["p_adjusted"] = self.p_adjusted[model][metric][s]
                    rows.append(row)
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        blocks = []
        for metric in self.metrics:
            header = ["segment", "model", "groups", metric]
            if self.segment_test is not None:
                header += ["vs rest", "p adj"]
            if self.p_adjusted:
                header += [f"- {self.baseline}", "p adj "]
            rows = []
            for s, label in enumerate(self.segments.tolist()):
                for model in self.models:
                    t = self.tables[model]
                    v = f"{t.values[metric][s]:.4f}"
                    if t.ci_low is not None:
                        v += f" [{t.ci_low[metric][s]:.4f}, {t.ci_high[metric][s]:.4f}]"
                    row = [str(label), model, str(int(t.used(metric)[s])), v]
                    if self.segment_test is not None:
                        row += [
                            f"{self.segment_difference[model][metric][s]:+.4f}",
                            format_p(self.segment_p_adjusted[model][metric][s]),
                        ]
                    if self.p_adjusted:
                        if model in self.p_adjusted:
                            row += [
                                f"{self.difference[model][metric][s]:+.4f}",
                                format_p(self.p_adjusted[model][metric][s]),
                            ]
                        else:
                            row += ["", ""]
                    rows.append(row)
            blocks.append(_table(header, rows))
        lines = ["\n\n".join(blocks), ""]
        lines.append(
            "groups: groups in the value (undefined ones left out under "
            "undefined='skip')"
        )
        if self.confidence_level is not None:
            lines.append(
                f"[low, high]: {self.confidence_level:.0%} bootstrap interval over "
                "the segment's groups"
            )
        if self.segment_test is not None:
            lines.append(
                f"vs rest: unpaired {self.segment_test} test of the segment against "
                f"the other segments' groups; p adj: {self.correction} over "
                f"{self.segment_family}"
            )
        if self.p_adjusted:
            lines.append(
                f"- {self.baseline}: paired {self.test} test within the segment; "
                f"p adj: {self.correction} over {self.model_family}"
            )
        lines += self.notes
        return "\n".join(lines)


def format_p(p: float, n_resamples: int | None = None) -> str:
    """A p-value as printed: ``n/a``, ``<0.001`` or two significant digits."""
    if p != p:
        return "n/a"
    return f"{p:.2g}" if p >= 0.001 else "<0.001"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if j < 2 else c.rjust(w)
            for j, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in [header, *rows]
    )


def _is_table(x: Any) -> bool:
    return hasattr(x, "group_segment") and hasattr(x, "per_group")


def compare_by_segment(
    y_true: ArrayLike | None,
    y_score: ArrayLike | Mapping[str, Any],
    *,
    groups: ArrayLike | None = None,
    segments: ArrayLike | Mapping[Any, Any] | None = None,
    metrics: str | Sequence[str] | None = None,
    baseline: str | None = None,
    test: str | None = "randomization",
    segment_test: str | None = "permutation",
    correction: str = "holm",
    confidence_level: float | None = 0.95,
    n_resamples: int = 9999,
    random_state: Any = None,
    order: Sequence[Any] | None = None,
    n_jobs: int | None = None,
    **metric_options: Any,
) -> SegmentComparison:
    """Intervals and tests of ranking metrics per segment of the groups.

    Each model is scored per segment (:func:`sklearn_rank.evaluate_by_segment`);
    then, per metric:

    - a bootstrap interval of every segment's value (groups of the segment
      resampled, :func:`sklearn_rank.stats.bootstrap_ci`);
    - for each model, an **unpaired** test of each segment against the groups
      of the other segments (the groups differ between segments): the
      difference of the weighted means, by permutation of the segment labels
      over groups, Welch's t-test (:func:`scipy.stats.ttest_ind` with
      ``equal_var=False``) or the Mann-Whitney U test
      (:func:`scipy.stats.mannwhitneyu`); with two segments, one test;
    - for each model but the baseline, the **paired** test of
      :func:`sklearn_rank.stats.compare` against the baseline on each segment's
      groups.

    The p-values of each kind are adjusted over one family per metric (every
    segment x every model), named by the report.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        Relevance labels; None when ``y_score`` holds SegmentTables.
    y_score : array-like, mapping of str to array-like, or of str to SegmentTable
        Scores of one model, model name -> scores (a DataFrame: one model per
        column), or model name -> :class:`~sklearn_rank.SegmentTable` already
        computed (the same segments in the same order).
    groups : array-like of shape (n_samples,), default=None
        Query, user or session id of each row (required with score arrays).
    segments : array-like of shape (n_samples,) or mapping, default=None
        As in :func:`sklearn_rank.evaluate_by_segment` (required with score
        arrays).
    metrics : str or sequence of str, default=None
        Metric names with a per-group value; None is ``("ndcg@10", "map",
        "mrr")`` for scores and every metric of the tables.
    baseline : str, default=None
        The model the paired tests compare with; None is the last model.
    test : {"randomization", "bootstrap", "bootstrap-t", "t", "wilcoxon"} or \
None, default="randomization"
        The paired test of :func:`sklearn_rank.stats.compare`; None runs no
        paired test (as with one model).
    segment_test : {"permutation", "t", "mannwhitneyu"} or None, \
default="permutation"
        The unpaired test between segments; None runs none. "t" and
        "mannwhitneyu" do not weight groups.
    correction : {"holm", "bonferroni", "bh", "none"}, default="holm"
        Adjustment of each kind's p-values over its family.
    confidence_level : float or None, default=0.95
        Level of the bootstrap intervals; None computes none.
    n_resamples : int, default=9999
        Resamples of the intervals and of the resampling tests.
    random_state : None, int or Generator, default=None
        Seed of the resampling.
    order : sequence, default=None
        The segment labels in the order wanted (as in ``evaluate_by_segment``).
    n_jobs : int, default=None
        Threads of the resampling (intervals and tests): blocks of resamples,
        each drawn from a seed fixed up front, so the result is the same bit
        for bit whatever the count. None means 1 unless inside
        ``joblib.parallel_config(n_jobs=...)``; -1 means all cores.
    **metric_options
        Other keywords of :func:`sklearn_rank.evaluate_by_segment`
        (``sample_weight``, ``undefined``, ``convention``, ``ties``, ...);
        only ``undefined`` with SegmentTables.

    Returns
    -------
    report : SegmentComparison
        ``print(report)`` shows a table per metric; ``report.to_frame()``.

    Notes
    -----
    A segment with fewer than two groups in a value gets no interval and no
    test (NaN), with a warning: one group has no spread to estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.stats import compare_by_segment
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(60), 10)
    >>> y_true = rng.integers(0, 2, 600)
    >>> cohort = np.where(groups < 30, "new", "returning")
    >>> noise = np.where(cohort == "new", 3.0, 0.5)  # worse for new users
    >>> scores = {"model": y_true + noise * rng.normal(size=600),
    ...           "random": rng.normal(size=600)}
    >>> report = compare_by_segment(y_true, scores, groups=groups, segments=cohort,
    ...     metrics="ndcg@10", n_resamples=999, random_state=0)
    >>> report.segments.tolist()
    ['new', 'returning']
    >>> d = report.segment_difference["model"]["ndcg@10"]
    >>> bool(d[0] < 0), bool(report.segment_p_adjusted["model"]["ndcg@10"][0] < 0.05)
    (True, True)
    """
    func = "compare_by_segment"
    level, n_resamples, rng = _check_options(
        func,
        test,
        segment_test,
        correction,
        confidence_level,
        n_resamples,
        random_state,
    )
    n_threads = effective_n_jobs(n_jobs, func)
    options = dict(metric_options)
    tables = _tables(func, y_true, y_score, groups, segments, metrics, order, options)
    rule = _undefined_rule(func, options)
    models = list(tables)
    first = tables[models[0]]
    names, baseline = _names_and_baseline(
        func, y_score, tables, metrics, baseline, test
    )
    few: list[str] = []
    if level is not None:
        tables = {
            m: _with_intervals(t, names, level, n_resamples, rng, rule, few, n_threads)
            for m, t in tables.items()
        }
    seg_d, seg_p, seg_adj, size_s = _segment_tests(
        tables, names, segment_test, n_resamples, rng, rule, few, n_threads
    )
    diff, pval, padj, npairs, size_m = _paired_tests(
        tables, names, baseline, test, n_resamples, rng, rule, correction, few,
        n_threads,
    )  # fmt: skip
    if segment_test is not None:
        for metric in names:
            once = _family(tables, seg_p, models, metric, correction)
            for m in models:
                seg_adj[m][metric] = once[m]
    notes = _warn_few(func, few)
    return SegmentComparison(
        segments=first.segments,
        metrics=names,
        models=models,
        baseline=baseline,
        tables=tables,
        segment_difference=seg_d,
        segment_p=seg_p,
        segment_p_adjusted=seg_adj,
        difference=diff,
        p_value=pval,
        p_adjusted=padj,
        n_pairs=npairs,
        segment_test=segment_test,
        test=test if baseline is not None else None,
        correction=correction,
        confidence_level=level,
        n_resamples=n_resamples,
        segment_family_size=size_s,
        model_family_size=size_m,
        notes=notes,
    )


def _names_and_baseline(func, y_score, tables, metrics, baseline, test):
    """The metrics of the report and the baseline of the paired tests."""
    models = list(tables)
    first = tables[models[0]]
    names = list(first.metrics)
    given = y_score.get(models[0]) if isinstance(y_score, Mapping) else None
    if metrics is not None and _is_table(given):
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        missing = [k for k in names if k not in first.metrics]
        if missing:
            raise param_error(
                "metrics", func, f"names in the tables ({first.metrics})", missing
            )
    if len(models) < 2 or test is None:
        return names, None
    if baseline is None:
        return names, models[-1]
    if baseline not in tables:
        raise param_error("baseline", func, f"None or one of {models}", baseline)
    return names, baseline


def _warn_few(func: str, few: list[str]) -> list[str]:
    """Warn once about the segments with fewer than two groups; the note."""
    if not few:
        return []
    shown = ", ".join(dict.fromkeys(few))
    text = f"{func}: fewer than two groups in {shown}: no interval or test there (NaN)."
    warnings.warn(text, RuntimeWarning, stacklevel=3)
    return ["n/a: fewer than two groups in the value (no spread to test)"]


def _check_options(
    func, test, segment_test, correction, confidence_level, n_resamples, seed
):
    """The tests' names checked; (level, resamples, Generator)."""
    if test is not None:
        check_choice("test", func, test, PAIRED_TESTS)
    if segment_test is not None:
        check_choice("segment_test", func, segment_test, SEGMENT_TESTS)
    check_choice("correction", func, correction, CORRECTIONS)
    level = None if confidence_level is None else check_level(confidence_level, func)
    return level, check_resamples(n_resamples, func), check_random_state(seed, func)


def _tables(func, y_true, y_score, groups, segments, metrics, order, options):
    """Model name -> SegmentTable, computed or given."""
    from .._metrics.by_segment import evaluate_by_segment

    if (
        isinstance(y_score, Mapping)
        and y_score
        and all(_is_table(t) for t in y_score.values())
    ):
        if y_true is not None:
            raise param_error(
                "y_true", func, "None when y_score holds SegmentTables", "an array"
            )
        extra = set(options) - {"undefined", "convention"}
        if extra:
            raise param_error(
                "metric_options",
                func,
                "only 'undefined' with SegmentTables (the rest went into them)",
                sorted(extra),
            )
        tables = {str(k): v for k, v in y_score.items()}
        first = next(iter(tables.values()))
        for name, t in tables.items():
            if t.segments.tolist() != first.segments.tolist():
                raise ValueError(
                    f"The SegmentTable of {name!r} in {func} has other segments "
                    f"({t.segments.tolist()}) than the first one "
                    f"({first.segments.tolist()}); compute every table on the same "
                    "segments."
                )
        return tables
    if segments is None:
        raise param_error("segments", func, "the segment of each row or group", None)
    if isinstance(y_score, Mapping) or (
        hasattr(y_score, "items") and hasattr(y_score, "columns")
    ):
        scores = {str(k): v for k, v in y_score.items()}
        if not scores:
            raise param_error("y_score", func, "a non-empty mapping of scores", {})
    else:
        scores = {"model": y_score}
    kw = {k: v for k, v in options.items() if k != "undefined"}
    if "undefined" in options:
        kw["undefined"] = options["undefined"]
    extra = {} if metrics is None else {"metrics": metrics}
    return {
        m: evaluate_by_segment(
            y_true, s, groups=groups, segments=segments, order=order, **extra, **kw
        )
        for m, s in scores.items()
    }


def _used(table, metric, s, rule, model, func="compare_by_segment"):
    """(values, weights, group ids) of segment ``s`` that enter its value."""
    keep = table.group_segment == s
    ids = table.per_group.group_ids[keep]
    values = table.per_group.values[metric][keep]
    v = _apply_undefined(values, rule, metric, model, ids, func)
    ok = ~np.isnan(v)
    return (
        v[ok],
        table.per_group.weights[metric][keep][ok],
        table.per_group.group_ids[keep][ok],
    )


def _with_intervals(table, names, level, n_resamples, rng, rule, few, n_jobs=1):
    from .._metrics.evaluate import GroupScores
    from ._api import bootstrap_ci

    n_seg = table.segments.size
    low = {m: np.full(n_seg, np.nan) for m in names}
    high = {m: np.full(n_seg, np.nan) for m in names}
    for s in range(n_seg):
        keep = table.group_segment == s
        pg = table.per_group
        sub = GroupScores(
            group_ids=pg.group_ids[keep],
            values={m: pg.values[m][keep] for m in names},
            weights={m: pg.weights[m][keep] for m in names},
        )
        ok = [m for m in names if table.used(m)[s] >= 2]
        few += [f"{table.segments[s]!s} ({m})" for m in names if m not in ok]
        if not ok:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # counted in ``few``
            report = bootstrap_ci(
                None,
                sub,
                metrics=ok,
                confidence_level=level,
                n_resamples=n_resamples,
                random_state=rng,
                n_jobs=n_jobs,
                undefined=rule,
            )
        for m in ok:
            low[m][s], high[m][s] = report[m].ci_low, report[m].ci_high
    return replace(table, ci_low=low, ci_high=high, confidence_level=level)


def _segment_tests(tables, names, test, n_resamples, rng, rule, few, n_threads=1):
    """Per model and metric: each segment against the others' groups."""
    d = {m: {} for m in tables}
    p = {m: {} for m in tables}
    adj = {m: {} for m in tables}
    if test is None:
        return d, p, adj, 0
    size = 0
    for model, t in tables.items():
        n_seg = t.segments.size
        for metric in names:
            parts = [_used(t, metric, s, rule, model) for s in range(n_seg)]
            d[model][metric], p[model][metric] = segment_test_values(
                [v for v, _, _ in parts],
                [w for _, w, _ in parts],
                test,
                n_resamples,
                rng,
                n_threads,
            )
            for s, (v, _, _) in enumerate(parts):
                if v.size < 2 and n_seg > 1:
                    few.append(f"{t.segments[s]!s} ({metric})")
        size = max(size, n_tests(n_seg) * len(tables))
    return d, p, adj, size


def n_tests(n_seg: int) -> int:
    """Tests between segments: one with two segments, one per segment above."""
    return 1 if n_seg == 2 else (0 if n_seg < 2 else n_seg)


def _family(tables, seg_p, models, metric, correction):
    """Adjust the segment tests of one metric over every model (two segments:
    one test per model, not two mirror images)."""
    n_seg = next(iter(tables.values())).segments.size
    take = 1 if n_seg == 2 else n_seg
    flat = np.concatenate([seg_p[m][metric][:take] for m in models])
    out = adjust(flat, correction)
    res = {}
    for i, m in enumerate(models):
        a = out[i * take : (i + 1) * take]
        res[m] = np.repeat(a, 2) if n_seg == 2 else a
    return res


def segment_test_values(values, weights, test, n_resamples, rng, n_threads=1):
    """Difference (segment - the others) and p-value of each segment.

    ``values`` / ``weights``: per segment, the groups in its value. With two
    segments the second row mirrors the first (one test).
    """
    n_seg = len(values)
    diff = np.full(n_seg, np.nan)
    p = np.full(n_seg, np.nan)
    if n_seg < 2:
        return diff, p
    sizes = np.array([v.size for v in values])
    # each segment's groups in an order of their values: the shuffles do not
    # see the order the groups came in
    orders = [canonical_order(v, w) for v, w in zip(values, weights, strict=True)]
    v_all = np.concatenate([v[o] for v, o in zip(values, orders, strict=True)])
    w_all = np.concatenate([w[o] for w, o in zip(weights, orders, strict=True)])
    label = np.repeat(np.arange(n_seg), sizes)
    rows = range(1) if n_seg == 2 else range(n_seg)
    for s in rows:
        inside = label == s
        if inside.sum() < 2 or (~inside).sum() < 2:
            continue
        a, wa = v_all[inside], w_all[inside]
        b, wb = v_all[~inside], w_all[~inside]
        diff[s] = weighted_average(a, wa) - weighted_average(b, wb)
        if test == "t":
            from scipy.stats import ttest_ind

            p[s] = _scipy_p(ttest_ind, a, b, equal_var=False)
        elif test == "mannwhitneyu":
            from scipy.stats import mannwhitneyu

            p[s] = _scipy_p(mannwhitneyu, a, b, alternative="two-sided")
        else:
            p[s] = _permutation_p(
                v_all, w_all, inside, diff[s], n_resamples, rng, n_threads
            )
    if n_seg == 2:
        diff[1], p[1] = -diff[0], p[0]
    return diff, p


def _scipy_p(test, a, b, **kw) -> float:
    if np.ptp(np.concatenate([a, b])) == 0:
        return 1.0  # every value equal: nothing to reject
    return float(test(a, b, **kw).pvalue)


def _permutation_p(v, w, inside, observed, n_resamples, rng, n_threads=1) -> float:
    """Two-sided Monte Carlo permutation p-value ``(b + 1) / (n + 1)`` of the
    difference of weighted means, the segment labels shuffled over groups."""
    n = v.size
    n_in = int(inside.sum())
    wv = w * v
    w_tot, s_tot = w.sum(), wv.sum()
    tol = (n + 100) * np.finfo(np.float64).eps * max(np.abs(v).max(), 1e-300)

    def draw(block) -> int:
        start, stop, block_rng = block
        # The first n_in positions of a random permutation form the segment.
        pick = np.argsort(block_rng.random((stop - start, n)), axis=1)[:, :n_in]
        w_in = w[pick].sum(axis=1)
        s_in = wv[pick].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = s_in / w_in - (s_tot - s_in) / (w_tot - w_in)
        return int(np.count_nonzero(np.abs(stat) >= abs(observed) - tol))

    blocks = resample_blocks(rng, n_resamples, 8 * max(n, 1), _BUDGET)
    hits = sum(run_blocks(draw, blocks, n_threads))
    return (hits + 1.0) / (n_resamples + 1.0)


def _paired_tests(
    tables, names, baseline, test, n_resamples, rng, rule, corr, few, n_jobs=1
):
    """Per model but the baseline: the paired test in every segment."""
    from sklearn.exceptions import UndefinedMetricWarning

    from .._metrics.evaluate import GroupScores
    from ._api import compare

    diff, pval, padj, npairs = {}, {}, {}, {}
    if baseline is None:
        return diff, pval, padj, npairs, 0
    others = [m for m in tables if m != baseline]
    n_seg = tables[baseline].segments.size
    for m in others:
        diff[m] = {k: np.full(n_seg, np.nan) for k in names}
        pval[m] = {k: np.full(n_seg, np.nan) for k in names}
        npairs[m] = {k: np.zeros(n_seg, dtype=np.intp) for k in names}
    for s in range(n_seg):
        subs = {}
        for m, t in tables.items():
            keep = t.group_segment == s
            pg = t.per_group
            subs[m] = GroupScores(
                group_ids=pg.group_ids[keep],
                values={k: pg.values[k][keep] for k in names},
                weights={k: pg.weights[k][keep] for k in names},
            )
        with warnings.catch_warnings():
            # a segment without two paired groups is counted in ``few``
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            report = compare(
                None,
                subs,
                metrics=names,
                baseline=baseline,
                test=test,
                correction="none",
                confidence_level=None,
                n_resamples=n_resamples,
                random_state=rng,
                n_jobs=n_jobs,
                undefined=rule,
            )
        for m in others:
            for k in names:
                pair = report.pair(k, m, baseline)
                npairs[m][k][s] = pair.n_groups
                diff[m][k][s] = pair.mean_diff
                if pair.n_groups >= 2:
                    pval[m][k][s] = pair.p_value
                else:
                    few.append(f"{tables[m].segments[s]!s} ({k}, {m} - {baseline})")
    for k in names:
        flat = adjust(np.concatenate([pval[m][k] for m in others]), corr)
        for i, m in enumerate(others):
            padj.setdefault(m, {})[k] = flat[i * n_seg : (i + 1) * n_seg]
    return diff, pval, padj, npairs, n_seg * len(others)
