"""The engine's cutoff axis: a metric at many cutoffs ``k`` from one ordered view.

The cutoff metrics written as per-row contributions plus a finisher
(``kernels.CUMULATIVE``: DCG, NDCG, precision, recall, hit rate, RR, AP) are read
at every cutoff from one pass: their contributions on the view cut at the deepest
cutoff, summed down the positions (``segments.sums_to_cutoffs``), then their own
finisher with the cutoffs as an (n_cuts, 1) array -- the same two functions the
kernel calls at one cutoff, so there is no second formulation here. The finisher
runs once per *distinct* cutoff: past the longest group (all its rows, ranked or
not) no sum or denominator changes, so a cutoff beyond it reads the last one
(except where the finisher reads the real ``k``, as precision's ``k``
denominator). Every other metric, and the cases a form leaves to one cutoff at a
time (``Cumulative.on_axis``), call the metric's kernel once per cutoff on the
same ordered view. ``tests/test_cutoffs.py`` compares both with the kernel at
every cutoff for every metric of the registry that takes one and every value of
the options it reads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import segments as seg
from .context import RankingContext
from .conventions import Options
from .kernels import CUMULATIVE
from .reduce import weighted_means_at_cutoffs

# The kernels whose cutoffs the axis reads from one pass.
AXIS_KERNELS = frozenset(CUMULATIVE)


def _cuts(ctx: RankingContext, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct cutoffs once each ``k`` is capped at the longest group (all
    its rows, ranked or not), and each ``k``'s index among them. Past that
    length no running sum grows and no denominator but precision's ``k`` changes
    (ranked lengths, relevant counts and ``min(k, n)`` all stop there)."""
    longest = int(ctx.totals.size().max()) if ctx.n_groups else 0
    return np.unique(np.minimum(ks, max(longest, 1)), return_inverse=True)


def _cumulated(ctx: RankingContext, form, ks: np.ndarray, opts: Options):
    """``(values, rows, defined, weight)``: the form's values at its distinct
    cutoffs, the row each ``k`` reads, definedness ((n_groups,) or the values'
    shape), the group weights."""
    if form.past_end(opts):
        cuts, rows = _cuts(ctx, ks)
    else:
        cuts, rows = ks, np.arange(ks.size)
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    depth = int(min(cuts[-1], max(longest, 1)))
    view = ctx.head(depth)
    sums = []
    for parts in form.rows(view, depth, opts):
        total = None
        for part in parts:
            group, rank = view.group, view.rank
            if part.index is not None:
                group, rank = group[part.index], rank[part.index]
            s = seg.sums_to_cutoffs(group, rank, part.values, ctx.n_groups, cuts)
            total = s if total is None else np.add(total, s, out=total)
        sums.append(np.zeros((cuts.size, ctx.n_groups)) if total is None else total)
    values, defined, weight = form.finish(ctx, tuple(sums), cuts[:, None], opts)
    if defined.ndim == 2 and (defined == defined[:1]).all():
        defined = defined[0]  # the same groups at every cutoff (the usual case)
    if defined.ndim == 2:  # defined per cutoff: one row per k
        values, defined, rows = values[rows], defined[rows], np.arange(ks.size)
    return values, rows, defined, weight


def values_at_cutoffs(
    ctx: RankingContext, name: str, kernel: Callable, ks: np.ndarray, opts: Options
) -> tuple:
    """Metric ``name`` at each cutoff of ``ks`` (increasing ints) per group.

    Returns ``(table, rows, divisor, defined, weight, means)``: a table of
    per-group values (NaN where undefined), ``rows`` (n_k,) the table row of each
    ``k`` and ``divisor`` (None here) what that row is divided by;
    definedness of the table's shape; the group weights; the means over groups at
    each ``k`` (None where the undefined rule must raise or warn, which the caller
    then does per cutoff through the reduction module).
    """
    form = CUMULATIVE.get(kernel)
    if form is not None and ctx.xp is np and form.on_axis(ctx, opts):
        values, rows, defined, weight = _cumulated(ctx, form, ks, opts)
        # The reduction reads finite values where defined is per group.
        finite = np.where(defined, values, 0.0)
        means = weighted_means_at_cutoffs(
            finite, rows, None, defined, weight, opts.undefined
        )
        return values, rows, None, np.broadcast_to(defined, values.shape), weight, means
    out, ok = [], []
    weight = None
    for k in ks.tolist():
        v, d, weight = kernel(ctx, int(k), opts)
        out.append(np.where(d, v, np.nan))
        ok.append(d)
    values, defined = np.array(out), np.array(ok)
    means = weighted_means_at_cutoffs(
        values,
        np.arange(ks.size),
        None,
        defined,
        weight,
        opts.undefined,
    )
    return values, np.arange(ks.size), None, defined, weight, means
