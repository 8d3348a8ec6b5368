"""Result objects of bootstrap_ci and compare: plain attributes, a table, a frame."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields

import numpy as np


def _pandas(func: str):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            f"{func} needs pandas, an optional dependency: pip install pandas "
            "(or the 'test' extra: pip install 'sklearn-rank[test]')."
        ) from None
    return pd


def _fmt(x: float, digits: int = 4) -> str:
    return "nan" if x != x else f"{x:.{digits}f}"


def _fmt_p(p: float, floor: float = 0.0) -> str:
    """A p-value as printed: never "0"; "<= x" at the Monte Carlo floor ``x``."""
    if p != p:
        return "nan"
    if p < 1e-16:
        return "< 1e-16"
    text = f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"
    if floor > 0 and p <= floor * (1 + 1e-9):
        return f"<= {text}"
    return text


def _table(header: list[str], rows: list[list[str]]) -> str:
    """Fixed-width text table: first column left-aligned, the others right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


class _Plain:
    """Store numpy scalars as Python floats and ints (plain attributes)."""

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.floating):
                object.__setattr__(self, f.name, float(value))
            elif isinstance(value, np.integer):
                object.__setattr__(self, f.name, int(value))


@dataclass(frozen=True)
class MetricInterval(_Plain):
    """Mean over groups of one metric (one model) and its bootstrap interval.

    Attributes
    ----------
    metric, model : str
        The metric name and the model name (``""`` for :func:`bootstrap_ci`).
    mean : float
        The weighted mean over the defined groups: the value ``evaluate`` returns.
    ci_low, ci_high : float
        Ends of the bootstrap confidence interval of the mean.
    standard_error : float
        Standard deviation of the bootstrap distribution.
    n_groups : int
        Groups that enter the mean (defined for the metric).
    n_undefined : int
        Groups left out because the metric is undefined for them.
    """

    metric: str
    model: str
    mean: float
    ci_low: float
    ci_high: float
    standard_error: float
    n_groups: int
    n_undefined: int


@dataclass(frozen=True)
class PairComparison(_Plain):
    """Paired comparison of ``model`` against ``baseline`` on one metric.

    Attributes
    ----------
    metric, model, baseline : str
        The metric and the two model names; differences are model - baseline.
    mean_diff : float
        Weighted mean of the per-group differences over the paired groups.
    ci_low, ci_high : float
        Paired bootstrap confidence interval of ``mean_diff``; one-sided (one
        end infinite) for a one-sided ``alternative``.
    p_value : float
        p-value of the paired test (``test`` of the report).
    p_adjusted : float
        ``p_value`` adjusted over its family (``correction`` over
        ``correction_scope`` of the report).
    effect_size : float
        ``mean_diff`` divided by the weighted standard deviation of the
        differences with ddof=1 (Cohen's d for paired data, d_z); NaN if they
        are all equal or there is one group.
    wins, ties, losses : int
        Paired groups where the model scores above, equal to or below the
        baseline (differences rounded to 10 decimals of the metric's scale).
    n_groups : int
        Paired groups: defined for both models.
    n_dropped : int
        Groups dropped from the pair because the metric is undefined for either
        model (or both, e.g. a group without a relevant item).
    min_p : float
        The smallest p-value the test can give on this pair (its number of
        non-tied groups, its resamples); above alpha, the test cannot reject.
    p_method : str
        How ``p_value`` was computed: ``"exact (N sign flips)"``, ``"monte
        carlo"``, ``"t distribution"``, or for the Wilcoxon test scipy's
        ``"exact"``, ``"exact (N sign flips)"`` or ``"normal approximation"``.
    n_needed : int
        Fewest non-tied groups with which this test can reach alpha.
    """

    metric: str
    model: str
    baseline: str
    mean_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    effect_size: float
    wins: int
    ties: int
    losses: int
    n_groups: int
    n_dropped: int
    min_p: float = float("nan")
    p_method: str = ""
    n_needed: int = 0


@dataclass(frozen=True)
class BootstrapReport:
    """Bootstrap confidence intervals of several metrics, from :func:`bootstrap_ci`.

    Index it by metric name for a :class:`MetricInterval`; ``str(report)`` is a
    table and ``to_frame()`` a pandas DataFrame.

    Attributes
    ----------
    intervals : tuple of MetricInterval
        One per metric, in the order requested.
    confidence_level, n_resamples, method
        The settings used.
    """

    intervals: tuple[MetricInterval, ...]
    confidence_level: float
    n_resamples: int
    method: str
    seed: int | None = None

    def __getitem__(self, metric: str) -> MetricInterval:
        for item in self.intervals:
            if item.metric == metric:
                return item
        names = [i.metric for i in self.intervals]
        raise KeyError(f"no metric {metric!r} in this report; it has {names}")

    def __iter__(self) -> Iterator[MetricInterval]:
        return iter(self.intervals)

    def __len__(self) -> int:
        return len(self.intervals)

    def __str__(self) -> str:
        level = f"{100 * self.confidence_level:g}%"
        header = ["metric", "mean", f"{level} CI", "groups", "undefined"]
        rows = [
            [
                i.metric,
                _fmt(i.mean),
                f"[{_fmt(i.ci_low)}, {_fmt(i.ci_high)}]",
                str(i.n_groups),
                str(i.n_undefined),
            ]
            for i in self.intervals
        ]
        kind = self.method + ("" if self.method == "bootstrap-t" else " bootstrap")
        note = f"{kind} over groups, {self.n_resamples} resamples, seed {self.seed}"
        return f"{_table(header, rows)}\n({note})"

    def to_frame(self):
        """A pandas DataFrame, one row per metric (needs pandas)."""
        pd = _pandas("BootstrapReport.to_frame")
        cols = [f.name for f in fields(MetricInterval) if f.name != "model"]
        rows = [{c: getattr(i, c) for c in cols} for i in self.intervals]
        return pd.DataFrame(rows, columns=cols)


@dataclass(frozen=True)
class ComparisonReport:
    """Paired comparison of models on the same groups, from :func:`compare`.

    ``str(report)`` prints one table per metric: each model's mean with its
    interval, then each pair's difference, interval, p-values and wins / ties /
    losses. ``to_frame()`` returns the pairs as a pandas DataFrame.

    Attributes
    ----------
    models : tuple of MetricInterval
        Mean and interval per (metric, model).
    pairs : tuple of PairComparison
        One per (metric, model, baseline).
    test, correction, alternative : str
        The paired test, the multiple-comparison adjustment and the alternative
        hypothesis.
    confidence_level : float
    n_resamples : int
    ci_method : str
    correction_scope : {"metric", "all"}
        The family of the adjustment: the pairs of each metric, or every pair
        of every metric.
    family_size : int
        Number of tests in the (largest) family.
    zero_method : str
        Wilcoxon's treatment of zero differences.
    design : str
        What was compared, for reports of :func:`cross_val_compare` (empty for
        :func:`compare`).
    seed : int or None
        The int every random stream of the call was derived from: passing it
        as ``random_state`` repeats the report.
    ci_matches_test : bool
        True when the intervals of the differences invert the test (the
        default), so that "the interval excludes 0" and "p <= alpha" agree.
    alpha : float
        ``1 - confidence_level`` (0.05 without intervals): the level at which
        the report checks that the test can reject.
    """

    models: tuple[MetricInterval, ...]
    pairs: tuple[PairComparison, ...]
    test: str
    correction: str
    alternative: str
    confidence_level: float
    n_resamples: int
    ci_method: str
    correction_scope: str = "metric"
    family_size: int = 0
    zero_method: str = "wilcox"
    design: str = ""
    seed: int | None = None
    ci_matches_test: bool = False
    alpha: float = 0.05

    @property
    def p_floor(self) -> float:
        """Smallest Monte Carlo p-value, ``1 / (n_resamples + 1)`` (0 if none)."""
        if self.test in ("randomization", "bootstrap", "bootstrap-t",
                         "bootstrap-shift"):  # fmt: skip
            return 1.0 / (self.n_resamples + 1)
        return 0.0

    def disagreements(self) -> int:
        """Rows whose interval and p-value tell different stories at alpha.

        0 whenever the intervals invert the test (``ci_matches_test``); with
        another ``ci_method`` the report counts and prints them.
        """
        out = 0
        for p in self.pairs:
            if p.p_value != p.p_value or p.ci_low != p.ci_low:
                continue
            out += (p.p_value <= self.alpha) != (p.ci_low > 0 or p.ci_high < 0)
        return out

    def unattainable_lines(self) -> list[str]:
        """One sentence per pair whose test can never reach alpha."""
        lines = []
        for p in self.pairs:
            if not p.min_p > self.alpha or p.n_groups == p.ties:
                continue  # all tied: nothing to test, p = 1 says it
            lines.append(
                f"{p.metric} {p.model} - {p.baseline}: the smallest p-value the "
                f"{self.test} test can give on {p.n_groups - p.ties} non-tied groups "
                f"is {p.min_p:.4g} > alpha {self.alpha:g}, so it cannot reject"
                + (
                    f" (it needs at least {p.n_needed} non-tied groups)."
                    if p.n_needed > p.n_groups - p.ties
                    else " (more resamples would lower it)."
                )
            )
        return lines

    @property
    def family(self) -> str:
        """The family of the adjusted p-values, in words."""
        tests = f"{self.family_size} test{'s' if self.family_size != 1 else ''}"
        if self.correction_scope == "all":
            return f"one family of {tests}: every pair of every metric"
        return f"one family per metric of {tests}: the pairs of that metric"

    def pair(self, metric: str, model: str, baseline: str) -> PairComparison:
        """The comparison of ``model`` against ``baseline`` on ``metric``."""
        for p in self.pairs:
            if (p.metric, p.model, p.baseline) == (metric, model, baseline):
                return p
        raise KeyError(f"no pair ({metric!r}, {model!r}, {baseline!r}) in this report")

    def mean(self, metric: str, model: str) -> MetricInterval:
        """Mean and interval of ``model`` on ``metric``."""
        for m in self.models:
            if (m.metric, m.model) == (metric, model):
                return m
        raise KeyError(f"no ({metric!r}, {model!r}) in this report")

    def _pair_row(self, p: PairComparison) -> list[str]:
        ci = f"[{_fmt(p.ci_low)}, {_fmt(p.ci_high)}]"
        # the pair's own Monte Carlo floor (one-sided bootstrap tests reach
        # 1 / (2 n + 1)); adjusted from it: a bound as well
        pf = self.p_floor
        if p.p_method == "monte carlo" and p.min_p == p.min_p:
            pf = p.min_p
        elif p.p_method.startswith("exact"):
            pf = 0.0
        at_floor = pf > 0 and p.p_value <= pf * (1 + 1e-9)
        return [
            f"{p.model} - {p.baseline}",
            f"{p.mean_diff:+.4f}",
            ci,
            _fmt_p(p.p_value, pf),
            _fmt_p(p.p_adjusted, p.p_adjusted if at_floor else 0),
            f"{p.wins}/{p.ties}/{p.losses}",
            str(p.n_groups),
        ]

    def _block(self, metric: str, level: str) -> str:
        """One metric's table: the models' means, then the pairs."""
        rows = [
            [m.model, _fmt(m.mean), f"[{_fmt(m.ci_low)}, {_fmt(m.ci_high)}]",
             "", "", "", str(m.n_groups)]
            for m in self.models
            if m.metric == metric
        ]  # fmt: skip
        rows += [self._pair_row(p) for p in self.pairs if p.metric == metric]
        header = [metric, "mean", f"{level} CI", "p", "p adj", "W/T/L", "groups"]
        return _table(header, rows)

    def _footer(self, level: str) -> str:
        """The line under the tables: test, adjustment, interval, seed."""
        unit = "groups"
        if self.test == "corrected t":
            resamples = f"over {self.pairs[0].n_groups if self.pairs else 0} splits"
            unit = "splits"
        elif self.test in ("t", "wilcoxon"):
            resamples = "unweighted"
            if self.test == "wilcoxon":
                resamples += f", zero_method={self.zero_method}"
        else:
            resamples = f"{self.n_resamples} resamples"
        sided = "" if self.alternative == "two-sided" else f"one-sided {level} "
        kind = self.ci_method + (
            "" if self.ci_method == "bootstrap-t" else " bootstrap"
        )
        drawn = f", {self.n_resamples} resamples" if unit == "groups" else ""
        ci = f"CI: {sided}{kind} over {unit}{drawn}"
        if self.ci_matches_test:
            ci = f"CI: {sided}{self.ci_method} interval (the shifts the test keeps)"
        if self.confidence_level != self.confidence_level:
            ci = "no CI"
        methods = sorted({p.p_method for p in self.pairs if p.p_method})
        shown = self.test in ("randomization", "wilcoxon") and methods
        how = f" ({', '.join(methods)})" if shown else ""
        seed = "" if self.seed is None else f"; seed {self.seed}"
        return (
            f"(p: paired {self.test} test{how}, {self.alternative}, {resamples}; "
            f"p adj: {self.correction} over {self.family}; {ci}{seed}; differences "
            "rounded to 10 decimals of the metric's scale)"
        )

    def notes(self) -> list[str]:
        """The notes printed under the tables: a mismatched interval, tests that
        cannot reach alpha, a conservative test on few groups."""
        out = []
        if self.confidence_level == self.confidence_level and not (
            self.ci_matches_test or self.test == "corrected t"
        ):
            k = self.disagreements()
            out.append(
                f"Note: the {self.ci_method} interval does not invert the "
                f'{self.test} test; "CI excludes 0" and "p <= {self.alpha:g}" '
                f"disagree in {k} of {len(self.pairs)} rows. ci_method='matched' "
                "(the default) gives the interval of the test."
            )
        out.extend(f"Note: {line}" for line in self.unattainable_lines())
        small = [p.n_groups - p.ties for p in self.pairs if p.n_groups > p.ties]
        if self.test in ("bootstrap", "bootstrap-t") and small and min(small) < 20:
            out.append(
                f"Note: on {min(small)} non-tied groups the studentized bootstrap test "
                "is conservative: under a true null at alpha 0.05 it rejected 0.005 "
                "to 0.04 of simulated RR and P@10 data sets of 10 and 20 groups, the "
                "fewer the non-tied groups the fewer (0.005 to 0.022 with 3 to 8; "
                "docs/statistics.md, Calibration); on continuous scores the "
                "randomization test holds its level there."
            )
        return out

    def __str__(self) -> str:
        level = f"{100 * self.confidence_level:g}%"
        metrics = list(dict.fromkeys(m.metric for m in self.models))
        parts = [self._block(metric, level) for metric in metrics]
        parts += [self._footer(level), *self.notes()]
        if self.design:
            parts.insert(0, self.design)
        return "\n\n".join(parts)

    def to_frame(self):
        """The pairs as a pandas DataFrame, one row per (metric, model, baseline)."""
        pd = _pandas("ComparisonReport.to_frame")
        cols = [f.name for f in fields(PairComparison)]
        return pd.DataFrame([asdict(p) for p in self.pairs], columns=cols)

    def to_latex(self, *, digits: int = 4, caption: str | None = None) -> str:
        """The means as a paper's LaTeX table (booktabs): one row per model,
        the best per metric in bold, superscript letters for the models each is
        significantly better than (adjusted p <= alpha; against the baseline
        only when there is one), the test and correction in the caption.

        Examples
        --------
        >>> from sklearn_rank.stats import compare
        >>> y = [1, 0, 0, 1, 0, 0, 1, 0, 0]
        >>> scores = {"bm25": [1, 2, 3] * 3, "dense": [3, 2, 1] * 3}
        >>> report = compare(y, scores, groups=[0, 0, 0, 1, 1, 1, 2, 2, 2],
        ...                  metrics=["mrr"], n_resamples=99)  # doctest: +SKIP
        >>> print(report.to_latex())  # doctest: +SKIP
        """
        from ._paper_table import to_latex

        return to_latex(self, digits=digits, caption=caption)

    def to_markdown(self, *, digits: int = 4, caption: str | None = None) -> str:
        """The means as a Markdown table, marked as :meth:`to_latex` marks
        them (bold, ``<sup>`` letters), with the caption under it."""
        from ._paper_table import to_markdown

        return to_markdown(self, digits=digits, caption=caption)

    def models_frame(self):
        """Means and intervals as a pandas DataFrame, one row per (metric, model)."""
        pd = _pandas("ComparisonReport.models_frame")
        cols = [f.name for f in fields(MetricInterval)]
        return pd.DataFrame([asdict(m) for m in self.models], columns=cols)
