"""trec_eval's ``ndcg.L=G,...`` and ``dcg.L=G,...`` under the ``trec_eval`` convention.

trec_eval (``gain_init.c``, ``m_ndcg.c``) differs from the mathematically ideal
NDCG with per-level gains in two ways, both reproduced here:

- the relevance value of a retrieved document without a qrels line is -1, of one
  with a negative grade -2, and ``ndcg.-1=2`` gives those documents a gain (they
  never enter the ideal ranking);
- the ideal ranking takes the levels in the order of a ``qsort`` whose
  comparator returns the gain difference truncated to an integer
  (``comp_rel_gain``): gains that differ by less than 1 compare equal and keep
  their list order (the parameters first, then levels 0, 1, ...), so
  ``ndcg.1=0.5`` ranks level 1 (gain 0.5) above level 0 only by accident of
  that order, and the walk down the levels stops at the first non-empty level
  whose gain is <= 0.

The DCG of the run comes from the library's ``dcg`` (the kernels, with a gain
callable over trec_eval's relevance values); only the ideal DCG, whose level
order is the quirk, is computed here from per-query level counts (no loop over
queries). Another convention (``--convention sklearn_rank``) gives the
library's NDCG, whose ideal ranking sorts by gain.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine.reduce import group_counts

# trec_eval's relevance values of documents outside the judgments (trec_format.h).
NONPOOL, UNJUDGED = -1, -2
_SHIFT = 2  # relevance value + 2 >= 0: the label the library sees


def _int_gain_difference(a: float, b: float) -> int:
    """``comp_rel_gain``: a double difference converted to ``int`` (truncation)."""
    d = a - b
    if not math.isfinite(d):
        return 0 if math.isnan(d) else (1 if d > 0 else -1)
    return math.trunc(d)


def _msort(items: list, cmp) -> list:
    """glibc's ``qsort`` for small arrays (``msort_with_tmp``: a top-down merge
    sort taking from the left run while ``cmp(left, right) <= 0``)."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _msort(items[:half], cmp), _msort(items[half:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def level_order(pairs, n_levels: int) -> list[tuple[int, float]]:
    """trec_eval's sorted gain list (``setup_gains``) of a query whose judged
    levels are ``0 .. n_levels - 1``: ``(level, gain)`` by increasing gain.

    Examples
    --------
    >>> from sklearn_rank._cli._trec_gains import level_order
    >>> level_order(((1, 0.5),), 3)  # 0.5 and 0 compare equal: list order kept
    [(1, 0.5), (0, 0.0), (2, 2.0)]
    """
    given = [(int(level), float(gain)) for level, gain in pairs]
    levels = {level for level, _ in given}
    rest = [(i, float(i)) for i in range(n_levels) if i not in levels]
    return _msort(given + rest, lambda a, b: _int_gain_difference(a[1], b[1]))


def relevance_values(run) -> np.ndarray:
    """trec_eval's relevance value of each row: the grade (truncated) when
    judged, -2 for a negative grade (pooled, not judged), -1 without a qrels
    line."""
    y = np.trunc(run.y_true)
    if run.judged is None:
        return y
    pooled = run.judged if run.pooled is None else run.pooled
    return np.where(run.judged, y, np.where(pooled, UNJUDGED, NONPOOL))


class _ShiftedGain:
    """The gain of label ``relevance value + 2``: the given pairs, else the
    level itself for judged levels, else 0 (``get_gain``)."""

    def __init__(self, pairs, top: int) -> None:
        table = np.arange(top + 1 + _SHIFT, dtype=np.float64) - _SHIFT
        table[:_SHIFT] = 0.0  # -2 and -1: gain 0 unless given
        self.table = table
        for level, gain in reversed(pairs):  # the first pair of a level wins
            index = int(level) + _SHIFT
            if float(level) == int(level) and 0 <= index < table.size:
                self.table[index] = gain

    def __call__(self, y):
        return self.table[np.asarray(y).astype(np.intp)]


def ideal_dcg(run, rel: np.ndarray, pairs) -> np.ndarray:
    """Per query, trec_eval's ideal DCG (``m_ndcg.c``) over its judged levels."""
    n = len(run.qids)
    judged = rel >= 0
    levels = rel[judged].astype(np.intp)
    codes = run.codes[judged]
    width = int(levels.max(initial=-1)) + 1
    counts = group_counts(codes * width + levels, n * width).reshape(n, width)
    present = counts > 0
    # Levels 0 .. the highest non-empty one are in each query's gain list.
    n_levels = np.where(present.any(1), width - np.argmax(present[:, ::-1], 1), 0)
    depth = int(counts.sum(1).max(initial=0))
    prefix = np.zeros(depth + 1)
    np.cumsum(1.0 / np.log2(np.arange(2, depth + 2)), out=prefix[1:])
    ideal = np.zeros(n)
    for size in np.unique(n_levels):
        rows = np.flatnonzero(n_levels == size)
        order = level_order(pairs, int(size))
        total, pos = np.zeros(rows.size), np.zeros(rows.size, np.intp)
        stopped = np.full(rows.size, not order or order[-1][1] <= 0)
        for level, gain in reversed(order):
            c = counts[rows, level] if 0 <= level < width else np.zeros_like(pos)
            active = ~stopped & (c > 0)
            if gain <= 0:
                stopped |= active
                continue
            end = pos + np.where(active, c, 0)
            total += gain * (prefix[end] - prefix[pos])
            pos = end
        ideal[rows] = total
    return ideal


def trec_gain_values(run, metric: str, pairs, keywords: dict) -> np.ndarray:
    """Per query, trec_eval's ``ndcg``, ``dcg`` or ``ideal_dcg`` with the gains
    ``pairs`` (``(level, gain)`` as given on the command line)."""
    from .. import evaluate_per_group

    rel = relevance_values(run)
    if metric == "ideal_dcg":
        return ideal_dcg(run, rel, pairs)
    top = int(rel.max(initial=0))
    kw = {k: v for k, v in keywords.items() if k not in ("undefined", "gain")}
    gain = _ShiftedGain(pairs, top)
    judged_only = bool(kw.get("judged_only"))
    labels = rel + _SHIFT
    if judged_only and run.judged is not None:  # -J: the others leave the ranking
        labels = np.where(run.judged, labels, 0.0)
    found = evaluate_per_group(
        labels,
        run.y_score,
        metrics=["dcg"],
        groups=run.codes,
        retrieved=run.retrieved,
        # -J ranks the judged rows only; otherwise every row gains (the gain
        # callable gives 0 where trec_eval's get_gain does).
        judged=run.judged if judged_only else None,
        gain=gain,
        gain_rows="judged",
        **kw,
    )
    # NaN: no row of the query has a positive gain, so trec_eval's ideal DCG is
    # 0 too and its value 0.
    dcg = np.nan_to_num(found.values["dcg"], nan=0.0)
    if run.retrieved is not None and not judged_only and run.max_docs != 0:
        # -c: a query the run lacks ranks one stand-in document of trec_eval's
        # own at rank 1, outside the judgments (trec_eval.c, bogus_ranking).
        in_file = group_counts(run.codes, dcg.size, run.retrieved)
        dcg = dcg + np.where(in_file > 0, 0.0, gain.table[NONPOOL + _SHIFT])
    if metric == "dcg":
        return dcg
    ideal = ideal_dcg(run, rel, pairs)
    return np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
