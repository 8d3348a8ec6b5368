"""The engine's cutoff axis: a metric at many cutoffs ``k`` from one ordered view.

For the metrics whose value at ``k`` is a running sum down the ranked list, every
cutoff is read from one table of per-position running sums (one pass for all
cutoffs), and the metric is computed once per *distinct* cutoff: past the longest
group (all its rows, ranked or not) no running sum or denominator changes, so a
cutoff beyond it reads the last one.

- DCG, NDCG, precision and recall under every tie rule: with tied blocks ordered
  uniformly at random, the expected gain (or relevance) at position ``p`` is the
  mean over ``p``'s tie block (:meth:`RankingContext.block_mean`), and the
  expected DCG@k (hits@k) is the running sum of those expectations times the
  discount (the same expectation the kernels take block by block);
- AP, RR and hit rate when no tie block exists (their tie expectations are not
  running sums).

The running forms read the same gains, discounts, relevance and tie blocks as the
kernels (``kernels.gains``, ``kernels.discount``, ``RankingContext``); every other
case (tied AP / RR / hit rate, custom gains or discounts, exponential gains of
labels above 512, ``precision_denominator="n_judged"``, the other cutoff metrics)
calls the metric's kernel once per cutoff on the same ordered view.
``tests/test_cutoffs.py`` compares both with the kernel at every cutoff for every
metric of the registry that takes one and every value of the options it reads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .context import RankingContext
from .conventions import Options
from .kernels import COUNTING_LEVELS, gain_shift, gains, position_discount
from .reduce import weighted_means_at_cutoffs


def _running_applies(ctx: RankingContext, name: str, opts: Options) -> bool:
    if name in ("map", "mrr", "hit_rate"):
        return not ctx.blocks
    if name == "precision":
        return opts.precision_denominator != "n_judged"
    if name in ("dcg", "ndcg"):
        plain_gain = isinstance(opts.gain, str)
        plain_discount = not callable(opts.discount)
        return plain_gain and plain_discount and gain_shift(ctx, opts.gain) is None
    return True  # recall


# -- running sums down each list -------------------------------------------------
# Each fast metric returns ``(table, rows, defined, divisor)``: ``table`` (n_cuts,
# n_groups) the values at its distinct cutoffs (finite everywhere), ``rows``
# (n_k,) the row of ``table`` each ``k`` reads, ``defined`` (n_groups,) the groups
# where the metric is defined (at every cutoff alike), ``divisor`` None or (n_k,)
# what each ``k``'s row is divided by (precision's ``k``).
def _cuts(ctx: RankingContext, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct cutoffs once each ``k`` is capped at the longest group (all
    its rows, ranked or not), and each ``k``'s index among them. Past that
    length no running sum grows and every denominator but precision's ``k`` is
    fixed (ranked lengths, relevant counts and ``min(k, n)`` all stop there)."""
    longest = int(_sizes(ctx).max()) if ctx.n_groups else 0
    return np.unique(np.minimum(ks, max(longest, 1)), return_inverse=True)


def _sizes(ctx: RankingContext) -> np.ndarray:
    """Rows per group, ranked or not."""
    return ctx.totals.cached(
        "cutoff_curve_sizes",
        lambda: np.bincount(ctx.totals.codes_all, minlength=ctx.n_groups),
    )


def _position_table(ctx: RankingContext, per_row: np.ndarray, width: int):
    """``table[p, g]``: ``per_row`` at position ``p + 1`` of group ``g`` (0 past
    the end of the list), for positions up to ``width``; positions are rows, so
    running sums down the lists are one :func:`_running_sum` down the rows."""
    table = np.zeros((width, ctx.n_groups))
    rank, group = ctx.rank, ctx.group
    if ctx.n_rows and width < int(ctx.length.max()):
        keep = rank <= width
        rank, group, per_row = rank[keep], group[keep], per_row[keep]
    # One flat index: a pair of index arrays costs twice as much.
    flat = rank.astype(np.intp)
    flat -= 1
    flat *= ctx.n_groups
    flat += group
    table.reshape(-1)[flat] = per_row
    return table


def _running_sum(table: np.ndarray) -> np.ndarray:
    """``np.cumsum(table, axis=0)`` in place, the same additions in the same order,
    one vectorised add per position: numpy's cumsum along axis 0 of a C-ordered
    table runs an unvectorised strided loop, an order of magnitude slower."""
    for p in range(1, table.shape[0]):
        np.add(table[p - 1], table[p], out=table[p])
    return table


def _at_cutoffs(running: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Rows of ``running`` (width, n_groups) read at the (increasing) cutoffs:
    (n_cuts, n_groups); a cutoff past the width reads the last row (the list has
    ended). The table itself when the cutoffs are 1..width."""
    width = running.shape[0]
    if width == 0:
        return np.zeros((cuts.size, running.shape[1]))
    if cuts.size == width and cuts[-1] == width:
        return running
    return running[np.minimum(cuts, width) - 1]


def _running_at(ctx: RankingContext, per_row: np.ndarray, cuts: np.ndarray):
    """Per cutoff and group, the sum of ``per_row`` over positions <= cutoff."""
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    table = _position_table(ctx, per_row, int(min(cuts[-1], longest)))
    return _at_cutoffs(_running_sum(table), cuts)


def _expected_hits(ctx: RankingContext, cuts: np.ndarray, opts: Options):
    """E[relevant rows at positions <= k], (n_cuts, n_groups)."""
    rel = ctx.relevant(opts.relevance_threshold).astype(np.float64)
    return _running_at(ctx, ctx.block_mean(rel), cuts)


def _binary_defined(ctx: RankingContext, opts: Options) -> np.ndarray:
    return ctx.n_relevant(opts.relevance_threshold) > 0


def _gain_defined(ctx: RankingContext, opts: Options) -> np.ndarray:
    """Where DCG and NDCG are defined: under ``gain_rows="judged"`` (trec_eval)
    where the ideal DCG is > 0, a judged row of gain > 0, that is a label > 0
    (unjudged rows carry label 0), whatever the relevance threshold; else where
    a relevant row is."""
    if opts.gain_rows == "judged":
        return ctx.n_relevant(None) > 0
    return _binary_defined(ctx, opts)


def _capped(ctx: RankingContext, ks: np.ndarray) -> np.ndarray:
    """The kernels' cutoff as a position: k capped at the number of rows."""
    return np.minimum(ks, max(ctx.totals.y_all.shape[0], 1))


def _precision(ctx, ks, opts):
    cuts, rows = _cuts(ctx, ks)
    hits = _expected_hits(ctx, cuts, opts)
    if opts.precision_denominator == "k":  # hits stop at the cap, k does not
        return hits, rows, _binary_defined(ctx, opts), ks.astype(np.float64)
    if opts.precision_denominator != "min_k_n":
        raise _unrouted("precision_denominator", opts.precision_denominator)
    # min_k_n; an empty ranked list has no hits: 0
    denom = np.minimum(ctx.length[None, :], _capped(ctx, cuts)[:, None])
    np.divide(hits, denom, out=hits, where=denom > 0)
    return hits, rows, _binary_defined(ctx, opts), None


def _recall(ctx, ks, opts):
    cuts, rows = _cuts(ctx, ks)
    hits = _expected_hits(ctx, cuts, opts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if opts.recall_denominator == "n_relevant":
        denom = n_rel[None, :]
    elif opts.recall_denominator == "min_k_n_relevant":
        denom = np.minimum(n_rel[None, :], _capped(ctx, cuts)[:, None])
    else:
        raise _unrouted("recall_denominator", opts.recall_denominator)
    hits /= np.maximum(denom, 1)
    return hits, rows, _binary_defined(ctx, opts), None


def _dcg_running(ctx, width: int, opts) -> np.ndarray:
    """E[DCG@p] for every position p <= width, (width, n_groups)."""
    gain = ctx.block_mean(np.array(gains(ctx.y, opts.gain), dtype=np.float64))
    table = _position_table(ctx, gain, width)
    table *= position_discount(np.arange(1, width + 1), opts.discount)[:, None]
    return _running_sum(table)


def _dcg(ctx, ks, opts):
    cuts, rows = _cuts(ctx, ks)
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    running = _dcg_running(ctx, int(min(cuts[-1], longest)), opts)
    return _at_cutoffs(running, cuts), rows, _gain_defined(ctx, opts), None


def _ideal_gain_table(ctx: RankingContext, width: int, gain: str) -> np.ndarray:
    """``table[p, g]``: the gain at position ``p + 1`` of group ``g``'s labels
    (ranked or not) sorted descending."""
    y, codes, n_groups = ctx.totals.y_all, ctx.totals.codes_all, ctx.n_groups
    top = int(y.max()) if y.size else 0
    if top < COUNTING_LEVELS and np.array_equal(y, np.floor(y)):
        # Rows of label l fill the positions right after every higher label: one
        # pass per level marks where its run starts and ends (a level-major count
        # table, flat indices: one gather-scatter of n_groups cells per mark).
        key = y.astype(np.intp)
        key *= n_groups
        key += codes
        counts = np.bincount(key, minlength=n_groups * (top + 1))
        counts = counts.reshape(top + 1, n_groups)
        step = np.zeros((width + 1) * n_groups)
        higher = np.zeros(n_groups, dtype=np.intp)
        cols = np.arange(n_groups)
        for level in range(top, 0, -1):
            g = float(gains(np.float64(level), gain))
            at = np.minimum(higher, width)
            at *= n_groups
            at += cols
            step[at] += g
            higher += counts[level]
            at = np.minimum(higher, width)
            at *= n_groups
            at += cols
            step[at] -= g
        return _running_sum(step.reshape(width + 1, n_groups)[:width])
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
    # The ideal list holds every row of the group (ranked or not): the capped
    # cutoffs cover it; DCG past a ranked list's end adds nothing.
    cuts, rows = _cuts(ctx, ks)
    width = int(cuts[-1]) if ctx.n_groups else 0
    ratio = _dcg_running(ctx, width, opts)
    ideal = _ideal_gain_table(ctx, width, opts.gain)
    ideal *= position_discount(np.arange(1, width + 1), opts.discount)[:, None]
    _running_sum(ideal)
    defined = _gain_defined(ctx, opts)
    # Defined groups hold a label >= threshold > 0: their ideal DCG is > 0 from
    # the first position on (the kernel checks the same).
    np.divide(ratio, ideal, out=ratio, where=defined[None, :])
    return _at_cutoffs(ratio, cuts), rows, defined, None


# -- first-hit and AP curves (no tie blocks) --------------------------------------
def _first_relevant(ctx, opts):
    rel = ctx.relevant(opts.relevance_threshold)
    first = ctx.first_in_group(rel)
    found = first >= 0
    a = np.zeros(ctx.n_groups, dtype=np.int64)
    a[found] = ctx.rank[first[found]]
    return found, a


def _hit_rate(ctx, ks, opts):
    cuts, rows = _cuts(ctx, ks)
    found, a = _first_relevant(ctx, opts)
    values = (found[None, :] & (a[None, :] <= cuts[:, None])).astype(np.float64)
    return values, rows, _binary_defined(ctx, opts), None


def _mrr(ctx, ks, opts):
    cuts, rows = _cuts(ctx, ks)
    found, a = _first_relevant(ctx, opts)
    inside = found[None, :] & (a[None, :] <= cuts[:, None])
    rr = np.divide(1.0, a, out=np.zeros(a.shape), where=found)
    values = np.where(inside, rr[None, :], 0.0)
    return values, rows, _binary_defined(ctx, opts), None


def _map(ctx, ks, opts):
    # AP@k sums, over the relevant positions p <= k, (relevant rows at positions
    # <= p) / p: both running sums come from one table of relevant positions.
    cuts, rows = _cuts(ctx, ks)
    rel = ctx.relevant(opts.relevance_threshold).astype(np.float64)
    longest = int(ctx.length.max()) if ctx.n_groups else 0
    hits = _position_table(ctx, rel, int(min(cuts[-1], longest)))
    seen = _running_sum(hits.copy())
    hits *= seen
    hits /= np.arange(1, hits.shape[0] + 1, dtype=np.float64)[:, None]
    total = _at_cutoffs(_running_sum(hits), cuts)
    n_rel = ctx.n_relevant(opts.relevance_threshold)
    if opts.ap_denominator == "n_relevant":
        denom = n_rel[None, :]
    elif opts.ap_denominator == "min_k_n_relevant":
        denom = np.minimum(n_rel[None, :], _capped(ctx, cuts)[:, None])
    elif opts.ap_denominator == "n_relevant_retrieved":  # relevant rows within k
        denom = _at_cutoffs(seen, cuts)
    else:
        raise _unrouted("ap_denominator", opts.ap_denominator)
    total /= np.maximum(denom, 1)
    return total, rows, _binary_defined(ctx, opts), None


# The metrics with a running form, by registry name.
RUNNING_FORMS: dict[str, Callable] = {
    "dcg": _dcg,
    "ndcg": _ndcg,
    "precision": _precision,
    "recall": _recall,
    "hit_rate": _hit_rate,
    "mrr": _mrr,
    "map": _map,
}


def _unrouted(option: str, value: object) -> ValueError:
    # A value the running form does not know must never fall into another's branch.
    return ValueError(
        f"The cutoff axis has no running form for {option}={value!r}; route it "
        "through the kernel (_running_applies) or add the branch."
    )


def values_at_cutoffs(
    ctx: RankingContext, name: str, kernel: Callable, ks: np.ndarray, opts: Options
) -> tuple:
    """Metric ``name`` at each cutoff of ``ks`` (increasing ints) per group.

    Returns ``(table, rows, divisor, defined, weight, means)``: a table of
    per-group values (NaN where undefined), ``rows`` (n_k,) the table row of each
    ``k`` and ``divisor`` (None or (n_k,)) what that row is divided by;
    definedness of the table's shape; the group weights; the means over groups at
    each ``k`` (None where the undefined rule must raise or warn, which the caller
    then does per cutoff through the reduction module).
    """
    running = RUNNING_FORMS.get(name)
    if running is not None and ctx.xp is np and _running_applies(ctx, name, opts):
        table, rows, defined, divisor = running(ctx, ks, opts)
        weight = ctx.group_weight()
        means = weighted_means_at_cutoffs(
            table, rows, divisor, defined, weight, opts.undefined
        )
        table[:, ~defined] = np.nan
        return (
            table,
            rows,
            divisor,
            np.broadcast_to(defined, table.shape),
            weight,
            means,
        )
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
