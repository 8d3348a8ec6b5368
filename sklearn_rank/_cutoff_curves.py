"""A cutoff metric at many cutoffs ``k`` from one ordering: ``metric@k`` for every
``k`` of a list, the data of :class:`sklearn_rank.plot.MetricAtKDisplay`.

The rows are validated, encoded and ordered once (:func:`rank_inputs`). For the
metrics whose value at ``k`` is a running sum down the ranked list, every cutoff is
read from one table of per-position running sums (one pass for all cutoffs):

- DCG, NDCG, precision and recall under every tie rule: with tied blocks ordered
  uniformly at random, the expected gain (or relevance) at position ``p`` is the
  mean over ``p``'s tie block (:meth:`RankingContext.block_mean`), and the
  expected DCG@k (hits@k) is the running sum of those expectations times the
  discount (the same expectation the kernels take block by block);
- AP, RR and hit rate when no tie block exists (their tie expectations are not
  running sums).

Every other case (tied AP / RR / hit rate, custom gains or discounts, exponential
gains of labels above 512, ``precision_denominator="n_judged"``, the other cutoff
metrics) calls the metric's kernel once per cutoff on the same ordered view. The
tests compare both paths with :func:`sklearn_rank.evaluate` at every cutoff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._conventions import Options, resolve_options
from ._engine import RankingContext
from ._evaluate import group_values, rank_inputs
from ._kernels import _discount, _gain_shift, gains
from ._params import param_error
from ._reduce import apply_undefined, weighted_mean
from ._registry import METRICS
from ._validation import MetricRequest, parse_metric

# Integer labels with fewer levels than this build the ideal list by counting.
_MAX_LEVELS = 64


@dataclass(frozen=True)
class CutoffCurve:
    """One metric at several cutoffs, per group and as the mean over groups.

    Attributes
    ----------
    metric : str
        The metric name without a cutoff (``"ndcg"``).
    ks : ndarray of int of shape (n_k,)
        The cutoffs, increasing.
    group_ids : ndarray of shape (n_groups,)
        Sorted distinct group ids.
    values : ndarray of shape (n_k, n_groups)
        ``metric@k`` per group; NaN where undefined.
    weights : ndarray of shape (n_groups,)
        Each group's weight in the mean.
    means : ndarray of shape (n_k,)
        ``evaluate(..., metrics=[f"{metric}@{k}"])`` for each ``k``.
    """

    metric: str
    ks: np.ndarray
    group_ids: np.ndarray
    values: np.ndarray
    weights: np.ndarray
    means: np.ndarray

    def group_scores(self):
        """The per-group values as a :class:`~sklearn_rank.GroupScores` with one
        entry ``"metric@k"`` per cutoff (for
        :func:`sklearn_rank.stats.bootstrap_ci`)."""
        from ._evaluate import GroupScores

        names = [f"{self.metric}@{k}" for k in self.ks.tolist()]
        return GroupScores(
            group_ids=self.group_ids,
            values={n: self.values[i] for i, n in enumerate(names)},
            weights={n: self.weights for n in names},
        )


def check_cutoff_metric(metric: Any, func: str) -> MetricRequest:
    """A registry metric that takes a cutoff, given without one (``"ndcg"``)."""
    if not isinstance(metric, str) or "@" in metric:
        raise param_error(
            "metric",
            func,
            "the name of a metric with a cutoff, without '@k'",
            metric,
            "Pass e.g. metric='ndcg'; the cutoffs come from 'k_max' or 'ks'.",
        )
    request = parse_metric(metric)  # unknown names: the usual ValueError
    if not request.spec.takes_k or request.spec.pooled:
        takes = [m.name for m in METRICS.values() if m.takes_k and not m.pooled]
        raise param_error(
            "metric",
            func,
            f"a metric with a cutoff, one of {takes}",
            metric,
        )
    return request


def check_ks(ks: Any, func: str) -> np.ndarray:
    """Positive integer cutoffs, strictly increasing."""
    arr = np.asarray(ks)
    ok = (
        arr.ndim == 1
        and arr.size > 0
        and arr.dtype.kind in "iu"
        and bool((arr >= 1).all())
        and bool((np.diff(arr) > 0).all())
    )
    if not ok:
        raise param_error(
            "ks", func, "a non-empty increasing sequence of positive ints", ks
        )
    return arr.astype(np.int64)


def cutoff_curve(
    func: str,
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    metric: str,
    ks: Sequence[int] | np.ndarray,
    sample_weight: ArrayLike | None = None,
    convention: str | None = None,
    **options: Any,
) -> CutoffCurve:
    """``metric@k`` for every ``k`` in ``ks`` from one ordering of the rows.

    ``options`` are the convention keywords of :func:`sklearn_rank.evaluate`
    (``undefined`` included); ``retrieved`` and ``judged`` are taken too.
    """
    request = check_cutoff_metric(metric, func)
    ks = check_ks(ks, func)
    retrieved = options.pop("retrieved", None)
    judged = options.pop("judged", None)
    opts = resolve_options(func, convention, options)
    requests = [MetricRequest(f"{metric}@{k}", request.spec, int(k)) for k in ks]
    ctx, ids = rank_inputs(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        requests[:1],
        opts,
        judged,
    )
    values, defined, weight = values_at_cutoffs(ctx, request, ks, opts)
    means = _means(values, defined, weight, opts.undefined)
    if means is None:  # an edge case: the per-cutoff path warns or raises
        means = np.empty(ks.size)
        for i, r in enumerate(requests):
            vals, include = apply_undefined(
                values[i], defined[i], opts.undefined, r.label, ids
            )
            means[i] = weighted_mean(vals, include, weight, r.label)
    return CutoffCurve(metric, ks, ids, values, weight, means)


def _means(values, defined, weight, undefined) -> np.ndarray | None:
    """The weighted mean over groups at every cutoff at once, as
    :func:`weighted_mean` takes it; None when a cutoff has no included group or
    no positive weight, or when ``undefined="raise"`` (the per-cutoff path then
    warns or raises as ``evaluate`` does). ``values`` is NaN where undefined."""
    if undefined == "raise":
        return None
    skip = undefined == "skip"
    if defined.strides[0] == 0:  # the same groups are defined at every cutoff
        cols = defined[0]
        total = weight[cols].sum() if skip else weight.sum()
        if not total > 0:
            return None
        part = values[:, cols] @ weight[cols]
        if not skip:
            part += float(undefined) * weight[~cols].sum()
        return part / total
    include = defined if skip else np.ones_like(defined)
    total = include.astype(np.float64) @ weight
    if not (total > 0).all():
        return None
    filled = np.where(defined, values, 0.0 if skip else float(undefined))
    return (filled @ weight) / total


def values_at_cutoffs(
    ctx: RankingContext, request: MetricRequest, ks: np.ndarray, opts: Options
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cutoff and group: values (NaN where undefined), definedness (both
    (n_k, n_groups)) and the group weights, as the kernel of ``request.spec``
    gives them at each ``k``."""
    name = request.spec.name
    fast = _FAST.get(name)
    if fast is not None and _fast_applies(ctx, name, opts):
        values, defined = fast(ctx, ks, opts)
        if name not in ("dcg", "ndcg"):  # those two are NaN there already
            values += np.where(defined, 0.0, np.nan)  # one broadcast pass
        return values, np.broadcast_to(defined, values.shape), ctx.group_weight()
    out, ok = [], []
    weight = None
    for k in ks.tolist():
        r = dataclasses.replace(request, label=f"{name}@{k}", k=k)
        v, d, weight = group_values(ctx, r, opts)
        out.append(np.where(d, v, np.nan))
        ok.append(d)
    return np.array(out), np.array(ok), weight


def _fast_applies(ctx: RankingContext, name: str, opts: Options) -> bool:
    if name in ("map", "mrr", "hit_rate"):
        return not ctx.blocks
    if name == "precision":
        return opts.precision_denominator != "n_judged"
    if name in ("dcg", "ndcg"):
        plain_gain = isinstance(opts.gain, str)
        plain_discount = not callable(opts.discount)
        return plain_gain and plain_discount and _gain_shift(ctx, opts.gain) is None
    return True  # recall


# -- running sums down each list -------------------------------------------------
def _position_table(ctx: RankingContext, per_row: np.ndarray, width: int):
    """``table[p, g]``: ``per_row`` at position ``p + 1`` of group ``g`` (0 past
    the end of the list), for positions up to ``width``; positions are rows, so
    running sums down the lists are one ``cumsum`` along axis 0."""
    table = np.zeros((width, ctx.n_groups))
    keep = ctx.rank <= width
    table[ctx.rank[keep] - 1, ctx.group[keep]] = per_row[keep]
    return table


def _at_cutoffs(running: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Rows of ``running`` (width, n_groups) read at the cutoffs: (n_k, n_groups);
    a cutoff past the width reads the last row (the list has ended)."""
    if running.shape[0] == 0:
        return np.zeros((ks.size, running.shape[1]))
    return running[np.minimum(ks, running.shape[0]) - 1]


def _width(ctx: RankingContext, ks: np.ndarray) -> int:
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    return int(min(ks[-1], longest))


def _expected_hits(ctx: RankingContext, ks: np.ndarray, opts: Options) -> np.ndarray:
    """E[relevant rows at positions <= k], (n_k, n_groups)."""
    rel = ctx.relevant(opts.relevance_threshold).astype(np.float64)
    rel = ctx.block_mean(rel)
    table = _position_table(ctx, rel, _width(ctx, ks))
    return _at_cutoffs(np.cumsum(table, axis=0), ks)


def _binary_defined(ctx: RankingContext, opts: Options) -> np.ndarray:
    return ctx.n_relevant(opts.relevance_threshold) > 0


def _capped(ctx: RankingContext, ks: np.ndarray) -> np.ndarray:
    """The kernels' cutoff as a position: k capped at the number of rows."""
    return np.minimum(ks, max(ctx.totals.y_all.shape[0], 1))


def _precision(ctx, ks, opts):
    hits = _expected_hits(ctx, ks, opts)
    if opts.precision_denominator == "k":
        denom = np.broadcast_to(ks.astype(np.float64)[:, None], hits.shape)
    else:  # min_k_n
        denom = np.minimum(ctx.length[None, :], _capped(ctx, ks)[:, None])
        denom = denom.astype(np.float64)
    values = np.divide(hits, denom, out=np.zeros_like(hits), where=denom > 0)
    return values, _binary_defined(ctx, opts)


def _recall(ctx, ks, opts):
    hits = _expected_hits(ctx, ks, opts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if opts.recall_denominator == "n_relevant":
        denom = np.broadcast_to(n_rel, hits.shape)
    else:
        denom = np.minimum(n_rel[None, :], _capped(ctx, ks)[:, None])
    return hits / np.maximum(denom, 1), _binary_defined(ctx, opts)


def _dcg_running(ctx, width: int, opts) -> np.ndarray:
    """E[DCG@p] for every position p <= width, (width, n_groups)."""
    gain = ctx.block_mean(np.array(gains(ctx.y, opts.gain), dtype=np.float64))
    table = _position_table(ctx, gain, width)
    table *= _discount(np.arange(1, width + 1), opts.discount)[:, None]
    return np.cumsum(table, axis=0, out=table)


def _dcg(ctx, ks, opts):
    # Arithmetic on the (width, n_groups) table, one gather to the cutoffs.
    running = _dcg_running(ctx, _width(ctx, ks), opts)
    defined = _binary_defined(ctx, opts)
    running[:, ~defined] = np.nan
    return _at_cutoffs(running, ks), defined


def _ideal_gain_table(ctx: RankingContext, width: int, gain: str) -> np.ndarray:
    """``table[p, g]``: the gain at position ``p + 1`` of group ``g``'s labels
    (ranked or not) sorted descending."""
    y, codes, n_groups = ctx.totals.y_all, ctx.totals.codes_all, ctx.n_groups
    top = int(y.max()) if y.size else 0
    if top < _MAX_LEVELS and np.array_equal(y, np.floor(y)):
        # Rows of label l fill the positions right after every higher label: one
        # pass per level marks where its run starts and ends.
        n_levels = top + 1
        counts = np.bincount(
            codes * n_levels + y.astype(np.intp), minlength=n_groups * n_levels
        ).reshape(n_groups, n_levels)
        step = np.zeros((width + 1, n_groups))
        higher = np.zeros(n_groups, dtype=np.intp)
        cols = np.arange(n_groups)
        for level in range(top, 0, -1):
            g = float(gains(np.float64(level), gain))
            end = np.minimum(higher + counts[:, level], width)
            step[np.minimum(higher, width), cols] += g
            step[end, cols] -= g
            higher += counts[:, level]
        return np.cumsum(step[:width], axis=0)
    order = np.lexsort((-y, codes))
    sorted_codes = codes[order]
    size = np.bincount(codes, minlength=n_groups)
    first = np.zeros(n_groups, dtype=np.intp)
    np.cumsum(size[:-1], out=first[1:])
    rank = np.arange(y.shape[0]) - first[sorted_codes]
    keep = rank < width
    table = np.zeros((width, n_groups))
    table[rank[keep], sorted_codes[keep]] = gains(y[order][keep], gain)
    return table


def _ndcg(ctx, ks, opts):
    # The ideal list holds every row of the group (ranked or not): the width
    # covers it; DCG past a ranked list's end adds nothing.
    size = np.bincount(ctx.totals.codes_all, minlength=ctx.n_groups)
    width = int(min(ks[-1], size.max())) if size.size else 0
    ratio = _dcg_running(ctx, width, opts)
    ideal = _ideal_gain_table(ctx, width, opts.gain)
    ideal *= _discount(np.arange(1, width + 1), opts.discount)[:, None]
    np.cumsum(ideal, axis=0, out=ideal)
    defined = _binary_defined(ctx, opts)
    # Defined groups hold a label >= threshold > 0: their ideal DCG is > 0 from
    # the first position on (the kernel checks the same).
    np.divide(ratio, ideal, out=ratio, where=defined[None, :])
    ratio[:, ~defined] = np.nan
    return _at_cutoffs(ratio, ks), defined


# -- first-hit and AP curves (no tie blocks) --------------------------------------
def _first_relevant(ctx, opts):
    rel = ctx.relevant(opts.relevance_threshold)
    first = ctx.first_in_group(rel)
    found = first >= 0
    a = np.zeros(ctx.n_groups, dtype=np.int64)
    a[found] = ctx.rank[first[found]]
    return found, a


def _hit_rate(ctx, ks, opts):
    found, a = _first_relevant(ctx, opts)
    values = (found[None, :] & (a[None, :] <= ks[:, None])).astype(np.float64)
    return values, _binary_defined(ctx, opts)


def _mrr(ctx, ks, opts):
    found, a = _first_relevant(ctx, opts)
    inside = found[None, :] & (a[None, :] <= ks[:, None])
    rr = np.divide(1.0, a, out=np.zeros(a.shape), where=found)
    return np.where(inside, rr[None, :], 0.0), _binary_defined(ctx, opts)


def _map(ctx, ks, opts):
    rel = ctx.relevant(opts.relevance_threshold)
    seen = ctx.group_exclusive_cumsum(rel.astype(np.float64)) + rel
    term = np.where(rel, seen / ctx.rank, 0.0)
    width = _width(ctx, ks)
    total = _at_cutoffs(np.cumsum(_position_table(ctx, term, width), axis=0), ks)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if opts.ap_denominator == "n_relevant":
        denom = np.broadcast_to(n_rel, total.shape)
    elif opts.ap_denominator == "min_k_n_relevant":
        denom = np.minimum(n_rel[None, :], _capped(ctx, ks)[:, None])
    else:  # n_relevant_retrieved: the relevant rows within the cutoff
        hits = _position_table(ctx, rel.astype(np.float64), width)
        denom = _at_cutoffs(np.cumsum(hits, axis=0), ks)
    return total / np.maximum(denom, 1), _binary_defined(ctx, opts)


_FAST = {
    "dcg": _dcg,
    "ndcg": _ndcg,
    "precision": _precision,
    "recall": _recall,
    "hit_rate": _hit_rate,
    "mrr": _mrr,
    "map": _map,
}
