"""Slow reference implementations of every metric, written from the contract.

This module is test code. It follows the written definitions in
``docs/architecture.md`` and the metric definitions of the test brief, one group
at a time, with plain Python loops, and it never imports ``sklearn_rank``. It is
meant to be obviously right rather than fast: use it on small groups only.

``ties="average"`` is computed by enumeration: every order of the items inside
each tie block (a run of equal scores) is built, the metric is evaluated on the
resolved list, and the values are averaged. Two orders that only swap items the
metric cannot tell apart (same label for graded metrics, same relevance for
binary ones) give the same value, and every distinct arrangement of a block's
labels is produced by exactly ``prod(count!)`` of the block's ``m!`` orders, so
averaging over the distinct arrangements equals averaging over all ``m!``
orders. ``exhaustive=True`` switches to the literal ``itertools.permutations``
enumeration (used by the tests to check that claim on small groups).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

TIES = ("average", "stable", "pessimistic", "optimistic", "threshold")
GAINS = ("exponential", "linear")


class ReferenceTieError(ValueError):
    """An order-sensitive metric (interpolated precision) with ``ties="average"``
    meets a tie block whose order changes its value."""


# --------------------------------------------------------------------------
# Metric values on one resolved ranked list
# --------------------------------------------------------------------------
def _cut(n, k):
    """Number of ranked positions that count for cutoff ``k`` (None = all)."""
    return n if k is None else min(k, n)


def _gain(y, gain):
    if callable(gain):  # a vectorised gain function, called on one label
        return float(gain(np.array([float(y)]))[0])
    if isinstance(gain, dict):  # a {label: gain} map: every label needs an entry
        return float(gain[float(y)])
    if gain == "exponential":
        return 2.0**y - 1.0
    if gain == "linear":
        return float(y)
    raise ValueError(f"unknown gain {gain!r}")


def _position_discount(p, discount):
    """Discount of the 1-based position p, one position at a time."""
    if discount == "log2":
        return 1.0 / math.log2(p + 1)
    if discount == "jarvelin":  # ranks 1 and 2 undiscounted
        return 1.0 / math.log2(max(p, 2))
    if callable(discount):
        return float(discount(np.array([float(p)]))[0])
    return 1.0 / math.log(p + 1, discount)  # log base b


def _dcg(labels, k, gain, discount="log2"):
    """DCG@k = sum over p <= min(k, n) of gain(y_p) * discount(p)."""
    total = 0.0
    for p, y in enumerate(labels[: _cut(len(labels), k)], start=1):
        total += _gain(y, gain) * _position_discount(p, discount)
    return total


def _err(labels, k, max_grade):
    """ERR@k = sum_p (1/p) R(y_p) prod_{q<p} (1 - R(y_q))."""
    total = 0.0
    not_stopped = 1.0
    for p, y in enumerate(labels[: _cut(len(labels), k)], start=1):
        r = (2.0**y - 1.0) / 2.0**max_grade
        total += not_stopped * r / p
        not_stopped *= 1.0 - r
    return total


def _precision(rel, k, n_relevant, denominator, judged=None):
    n = len(rel)
    hits = sum(rel[: _cut(n, k)])
    if denominator == "n_judged":  # Elasticsearch ignore_unlabeled: judged in top k
        flags = [True] * n if judged is None else judged
        denom = sum(flags[: _cut(n, k)])
    elif k is None:
        denom = n
    elif denominator == "k":
        denom = k
    elif denominator == "min_k_n":
        denom = min(k, n)
    else:
        raise ValueError(f"unknown precision_denominator {denominator!r}")
    return 0.0 if denom == 0 else hits / denom


def _recall(rel, k, n_relevant, denominator="n_relevant"):
    if denominator == "n_relevant" or k is None:
        denom = n_relevant
    elif denominator == "min_k_n_relevant":
        denom = min(k, n_relevant)  # LensKit: k rows can reach recall 1
    else:
        raise ValueError(f"unknown recall_denominator {denominator!r}")
    return sum(rel[: _cut(len(rel), k)]) / denom


def _hit_rate(rel, k):
    return 1.0 if any(rel[: _cut(len(rel), k)]) else 0.0


def _mrr(rel, k):
    for p, r in enumerate(rel[: _cut(len(rel), k)], start=1):
        if r:
            return 1.0 / p
    return 0.0


def _average_precision(rel, k, n_relevant, denominator):
    total = 0.0
    seen = 0
    for p, r in enumerate(rel[: _cut(len(rel), k)], start=1):
        if r:
            seen += 1
            total += seen / p
    if denominator == "n_relevant_retrieved":  # pyltr, torchmetrics top_k
        if seen == 0:  # nothing relevant within the cutoff
            return 0.0
        denom = seen
    elif denominator == "n_relevant" or k is None:
        denom = n_relevant
    elif denominator == "min_k_n_relevant":
        denom = min(k, n_relevant)
    else:
        raise ValueError(f"unknown ap_denominator {denominator!r}")
    return total / denom


def _r_precision(rel, n_relevant):
    return sum(rel[:n_relevant]) / n_relevant


def _auc_of_order(rel, weights=None):
    """Weighted share of (positive, negative) pairs with the positive first."""
    if weights is None:
        weights = [1.0] * len(rel)
    good = 0.0
    pos_before = 0.0
    for r, w in zip(rel, weights, strict=True):
        if r:
            pos_before += w
        else:
            good += w * pos_before
    total_pos = sum(w for r, w in zip(rel, weights, strict=True) if r)
    total_neg = sum(w for r, w in zip(rel, weights, strict=True) if not r)
    return good / (total_pos * total_neg)


def _auc_with_half_ties(rel, scores, weights=None):
    """AUC with tied (positive, negative) pairs credited 1/2 (ties="average")."""
    if weights is None:
        weights = [1.0] * len(rel)
    num = 0.0
    total_pos = 0.0
    total_neg = 0.0
    for r_i, s_i, w_i in zip(rel, scores, weights, strict=True):
        if r_i:
            total_pos += w_i
        else:
            total_neg += w_i
        if not r_i:
            continue
        for r_j, s_j, w_j in zip(rel, scores, weights, strict=True):
            if r_j:
                continue
            if s_i > s_j:
                num += w_i * w_j
            elif s_i == s_j:
                num += 0.5 * w_i * w_j
    return num / (total_pos * total_neg)


# --------------------------------------------------------------------------
# ties="threshold": a tie block is one score threshold
# --------------------------------------------------------------------------
# As scikit-learn's precision_recall_curve: the list is read only at the end of
# each block of equal scores (one threshold per distinct score). A relevant row's
# precision is the precision at its block's threshold: relevant rows up to and
# including its block over the rows up to and including its block. A cutoff k
# inside a block keeps the share of the block's positions that are <= k of each
# of its rows (the linear interpolation between the thresholds around it).
def _threshold_steps(blocks, k):
    """Per block of relevance booleans: (relevant rows in it, relevant rows up to
    its end, rows up to its end, share of it within the cutoff)."""
    steps, seen, end = [], 0, 0
    for block in blocks:
        first = end + 1
        end += len(block)
        r = sum(block)
        seen += r
        inside = len(block) if k is None else min(max(k - first + 1, 0), len(block))
        steps.append((r, seen, end, inside / len(block)))
    return steps


def _threshold_ap(blocks, g):
    steps = _threshold_steps(blocks, g.k)
    total = sum(share * r * seen / end for r, seen, end, share in steps)
    denominator = g.options["ap_denominator"]
    if denominator == "n_relevant_retrieved":
        denom = sum(share * r for r, _, _, share in steps)
        return 0.0 if denom == 0 else total / denom
    if denominator == "n_relevant" or g.k is None:
        return total / g.n_relevant
    return total / min(g.k, g.n_relevant)


def _threshold_rr(blocks, g):
    for r, seen, end, share in _threshold_steps(blocks, g.k):
        if r:  # the first threshold that retrieves a relevant row
            return share * seen / end
    return 0.0


def _threshold_iprec(blocks, n_relevant, level):
    """Largest precision at a threshold where at least round(level * R) relevant
    rows (at least 1) have been retrieved, as trec_eval's rule on thresholds."""
    need = max(1, math.floor(level * n_relevant + 0.5))
    best = 0.0
    for r, seen, end, _ in _threshold_steps(blocks, None):
        if r and seen >= need:
            best = max(best, seen / end)
    return best


THRESHOLD_ORACLES = {
    "map": _threshold_ap,
    "mrr": _threshold_rr,
    "iprec": lambda blocks, g: _threshold_iprec(
        blocks, g.n_relevant, g.options["recall_level"]
    ),
    "iprec_11pt": lambda blocks, g: (
        math.fsum(_threshold_iprec(blocks, g.n_relevant, i / 10) for i in range(11))
        / 11
    ),
}
"""Metrics whose value under ties="threshold" differs from the expectation; every
other metric is read under "threshold" as under "average" (its value is linear in
the positions or in the top-k set, or, for Hit@k and ERR, a function of an order
that the threshold view does not define)."""


# --------------------------------------------------------------------------
# Orders
# --------------------------------------------------------------------------
def _relevant(y, threshold):
    if isinstance(threshold, str):
        if threshold != "positive":
            raise ValueError(f"unknown relevance_threshold {threshold!r}")
        return y > 0
    return y >= threshold


def _tie_blocks(rows, y_score):
    """Split ``rows`` into runs of equal score, highest score first.

    Inside a block the rows keep their input order.
    """
    ordered = sorted(rows, key=lambda i: (-y_score[i], i))
    blocks = []
    for i in ordered:
        if blocks and y_score[blocks[-1][-1]] == y_score[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return blocks


def _resolve(blocks, y_true, ties):
    """The single order of a deterministic tie policy (row indices)."""
    order = []
    for block in blocks:
        if ties == "stable":
            order.extend(sorted(block))
        elif ties == "pessimistic":
            order.extend(sorted(block, key=lambda i: (y_true[i], i)))
        elif ties == "optimistic":
            order.extend(sorted(block, key=lambda i: (-y_true[i], i)))
        else:
            raise ValueError(f"unknown ties {ties!r}")
    return order


def _distinct_permutations(items):
    """Every distinct arrangement of the multiset ``items``, once each."""
    counts = Counter(items)
    keys = sorted(counts)
    n = len(items)
    prefix = []

    def rec():
        if len(prefix) == n:
            yield tuple(prefix)
            return
        for key in keys:
            if counts[key]:
                counts[key] -= 1
                prefix.append(key)
                yield from rec()
                prefix.pop()
                counts[key] += 1

    yield from rec()


def _label_orders(block_keys, exhaustive):
    """All label sequences of the ranked list, one per order of the tie blocks.

    ``block_keys`` is a list of per-block label lists. With
    ``exhaustive=True`` every one of the ``prod(m!)`` orders is produced (with
    repeats); otherwise each distinct arrangement once. Either way a plain
    mean over the result is the uniform expectation over all orders.
    """
    if exhaustive:
        per_block = [list(itertools.permutations(keys)) for keys in block_keys]
    else:
        per_block = [list(_distinct_permutations(keys)) for keys in block_keys]
    for combo in itertools.product(*per_block):
        yield [x for part in combo for x in part]


# --------------------------------------------------------------------------
# Per-group reference
# --------------------------------------------------------------------------
def _as_arrays(y_true, y_score, groups, retrieved, sample_weight):
    y_true = np.asarray(y_true, dtype=float)
    y_score = np.asarray(y_score, dtype=float)
    n = len(y_true)
    groups = np.zeros(n, dtype=int) if groups is None else np.asarray(groups)
    retrieved = (
        np.ones(n, dtype=bool) if retrieved is None else np.asarray(retrieved, bool)
    )
    sample_weight = (
        np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    )
    return y_true, y_score, groups, retrieved, sample_weight


def _group_rows(groups, keep=None):
    """{group id: row indices in input order}, ids in sorted order; rows outside
    ``keep`` (trec_eval -J: unjudged rows) are left out, their groups kept."""
    out = {}
    for gid in sorted(set(groups.tolist())):
        out[gid] = [
            i
            for i in range(len(groups))
            if groups[i] == gid and (keep is None or keep[i])
        ]
    return out


def _judged_rows(judged, n, judged_only):
    """(judged flag per row, rows kept). With ``judged_only`` every unjudged row
    leaves the input, as trec_eval -J; nothing left is an error."""
    flags = np.ones(n, dtype=bool) if judged is None else np.asarray(judged, bool)
    if judged_only and not flags.any():
        raise ValueError("judged_only=True removes every row")
    return flags, (flags if judged_only else None)


def group_is_defined(metric, rows, y_true, retrieved, relevance_threshold):
    """The undefined rule of the contract for one group."""
    rel = [bool(_relevant(y_true[i], relevance_threshold)) for i in rows]
    if metric in ("judged", "unjudged", "rbp_residual"):  # a ranked row; no labels
        return any(retrieved[i] for i in rows)
    if metric in ("gauc", "auc"):
        ranked_rel = [r for r, i in zip(rel, rows, strict=True) if retrieved[i]]
        return any(ranked_rel) and not all(ranked_rel)
    if metric == "fallout":  # the recall of the non-relevant rows
        return not all(rel)
    if metric == "pairwise_accuracy":  # needs two different ranked labels
        return len({float(y_true[i]) for i in rows if retrieved[i]}) > 1
    if metric == "arp":  # needs a relevant row at some position
        return any(r for r, i in zip(rel, rows, strict=True) if retrieved[i])
    return sum(rel) > 0


@dataclass(frozen=True)
class GroupFacts:
    """What an oracle may read about one group besides its ranked list."""

    k: int | None
    n_relevant: int
    all_labels: list  # every label of the group, retrieved or not
    options: dict = field(default_factory=dict)
    n_judged_non_relevant: int = 0  # judged non-relevant rows, retrieved or not
    all_judged: list = field(default_factory=list)  # judged flag of all_labels


@dataclass(frozen=True)
class Oracle:
    """The independent definition of one metric on one resolved ranked list.

    ``value(seq, facts)`` gets ``seq``, the ranked rows in order as labels
    (``graded``) or as relevance booleans, and returns the group's value.
    ``cutoff`` says whether the metric reads ``k``; ``pairwise`` marks the AUC
    family, whose averaged ties count half a pair instead of enumerating orders.
    """

    value: Callable
    graded: bool = False
    cutoff: bool = True
    pairwise: bool = False
    reads_judged: bool = False  # seq items are (relevant, judged) pairs
    reads_pool: bool = False  # seq items are (relevant, judged, in_pool) triples


def _split_judged(seq):
    return [r for r, _ in seq], [j for _, j in seq]


def _precision_oracle(seq, g):
    rel, judged = _split_judged(seq)
    return _precision(
        rel, g.k, g.n_relevant, g.options["precision_denominator"], judged
    )


def _f1(seq, g):
    """Harmonic mean of P@k and R@k from their own definitions; 0 when both are."""
    rel, judged = _split_judged(seq)
    p = _precision(rel, g.k, g.n_relevant, g.options["precision_denominator"], judged)
    r = _recall(rel, g.k, g.n_relevant, g.options["recall_denominator"])
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _bpref(seq, g):
    """trec_eval m_bpref.c, row by row: unjudged rows skipped; each relevant row
    adds 1 - min(non-relevant so far, R) / min(N, R) (1 when none so far)."""
    total, non_rel_so_far = 0.0, 0
    for rel, judged in seq:
        if not judged:
            continue
        if not rel:
            non_rel_so_far += 1
        elif non_rel_so_far == 0:
            total += 1.0
        else:
            total += 1.0 - min(non_rel_so_far, g.n_relevant) / min(
                g.n_judged_non_relevant, g.n_relevant
            )
    return total / g.n_relevant


def _judged_at(seq, g):
    """ir_measures' Judged@k: judged rows in the top k over min(k, n)."""
    judged = [j for _, j in seq]
    top = judged[: _cut(len(judged), g.k)]
    return sum(top) / len(top)


def _fallout(seq, g):
    """Non-relevant rows among the first k over all non-relevant rows of the group."""
    threshold = g.options["relevance_threshold"]
    n_non = sum(not _relevant(y, threshold) for y in g.all_labels)
    return sum(not r for r in seq[: _cut(len(seq), g.k)]) / n_non


def _arp(seq, g):
    """Label-weighted mean 1-based position of the relevant rows of the list."""
    threshold = g.options["relevance_threshold"]
    weights = [y if _relevant(y, threshold) else 0.0 for y in seq]
    return sum(w * p for p, w in enumerate(weights, start=1)) / sum(weights)


def _rbp(seq, g):
    """(1 - p) Σ_{i<=k} (y_i / max_grade) p^(i-1), term by term; with
    gain_rows="judged" an unjudged row gains 0 and the group is defined where
    a judged row has a positive label."""
    p = g.options["persistence"]
    if g.options.get("gain_rows") == "judged":
        if not any(
            j and y > 0 for y, j in zip(g.all_labels, g.all_judged, strict=True)
        ):
            return math.nan
        seq = [y if j else 0.0 for y, j in seq]
    total = 0.0
    for i, y in enumerate(seq[: _cut(len(seq), g.k)], start=1):
        total += y / g.options["max_grade"] * p ** (i - 1)
    return (1 - p) * total


def _pairwise_accuracy(seq, g):
    """Correctly ordered pairs among all pairs with different labels, pair by
    pair (averaged ties come from enumerating the orders of each tie block)."""
    right = total = 0
    for i, j in itertools.combinations(range(len(seq)), 2):  # i ranked above j
        if seq[i] != seq[j]:
            total += 1
            right += seq[i] > seq[j]
    return right / total


def _iprec_at(seq, n_relevant, level):
    """trec_eval's interpolated precision: max precision at or after the rank of
    the c-th relevant row, c = round-half-up(level * R) (at least 1); 0 when
    fewer than c relevant rows are ranked."""
    need = max(1, math.floor(level * n_relevant + 0.5))
    best, seen = 0.0, 0
    for p, r in enumerate(seq, start=1):
        if r:
            seen += 1
            if seen >= need:
                best = max(best, seen / p)
    return best


def _judged_gains(seq, g):
    """gain_rows="judged" (trec_eval's get_gain): the ranked list's gains, 0 for
    an unjudged row (or the gain named for level -1), and the ideal list: the
    judged rows of gain > 0 only, in the ideal_order."""
    gain = g.options["gain"]
    ranked = [_trec_gain(y, j, gain) for y, j in seq]
    return ranked, _walk(_trec_levels(g, gain))


def _ndcg(seq, g):
    gain, discount = g.options["gain"], g.options["discount"]
    if g.options.get("gain_rows") == "judged":
        ranked, ideal_gains = _judged_gains(seq, g)
        ideal = _dcg(ideal_gains, g.k, "linear", discount)
        if ideal <= 0:  # no judged row with a gain: undefined
            return math.nan
        return _dcg(ranked, g.k, "linear", discount) / ideal
    levels = _trec_levels(g, gain, rows="all")
    if g.options.get("ideal_order") == "trec_eval" and not isinstance(gain, str):
        ideal = _dcg(_walk(levels), g.k, "linear", discount)  # trec_eval's walk
    else:  # the ideal list orders the group's labels by gain, highest first
        best = sorted(g.all_labels, key=lambda y: _gain(y, gain), reverse=True)
        ideal = _dcg(best, g.k, gain, discount)
    if ideal <= 0:  # possible with custom gains: no ideal gain, undefined
        return math.nan
    return _dcg(seq, g.k, gain, discount) / ideal


def _dcg_oracle(seq, g):
    gain, discount = g.options["gain"], g.options["discount"]
    if g.options.get("gain_rows") == "judged":
        ranked, ideal_gains = _judged_gains(seq, g)
        # defined where the ideal DCG is > 0, or (trec_eval's plain sum, with
        # a custom gain) a row of nonzero gain is ranked
        nonzero = not isinstance(gain, str) and any(x != 0 for x in ranked)
        if _dcg(ideal_gains, g.k, "linear", discount) <= 0 and not nonzero:
            return math.nan  # defined where the ideal DCG is > 0
        return _dcg(ranked, g.k, "linear", discount)
    return _dcg(seq, g.k, gain, discount)


def _g(seq, g):
    """trec_eval m_G.c, row by row: gain g_i (0 unjudged); S running gain; C
    running ideal cost, each position costing max(ideal_i, 1); terms
    g_i / log2(2 + C - S) for g_i != 0, over the sum of the ideal gains."""
    ideal = _walk(_trec_levels(g, _g_gain(g)))
    if not ideal:
        return math.nan
    total = seen = cost = 0.0
    for i, (y, judged) in enumerate(seq):
        gain = _trec_gain(y, judged, _g_gain(g))
        seen += gain
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if gain != 0:
            if 2 + cost - seen <= 0:  # trec_eval's nan
                raise ValueError("G: log2(2 + C - S) of a number <= 0")
            if 2 + cost - seen == 1:  # gain / 0: infinite, as trec_eval's
                total += math.copysign(math.inf, gain)
                continue
            total += gain / math.log2(2 + cost - seen)
    return total / math.fsum(ideal)


def _bing(seq, g):
    """m_binG.c: each relevant row adds 1 / log2(2 + non-relevant rows above)."""
    total, non_rel = 0.0, 0
    for rel in seq:
        if rel:
            total += 1.0 / math.log2(2 + non_rel)
        else:
            non_rel += 1
    return total / g.n_relevant


def _infap(seq, g):
    """m_infap.c: rows outside the pool skipped (position kept), rows pooled but
    unjudged counted apart (they enter the share of pooled rows above)."""
    eps = 0.00001
    total, rel_so_far, non_rel_so_far, pool_unjudged_so_far = 0.0, 0, 0, 0
    for j, (rel, judged, in_pool) in enumerate(seq):
        if not in_pool:
            continue
        if not judged:
            pool_unjudged_so_far += 1
            continue
        if not rel:
            non_rel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            total += 1.0
        else:
            before = rel_so_far - 1 + non_rel_so_far
            pooled = before + pool_unjudged_so_far
            total += 1.0 / (j + 1) + (j / (j + 1)) * (pooled / j) * (
                (rel_so_far - 1 + eps) / (before + 2 * eps)
            )
    return total / g.n_relevant


def _rprec_mult(seq, g):
    """m_Rprec_mult.c: precision at floor(m R + 0.9), padded; 0 at cutoff 0."""
    cut = math.floor(g.options["r_multiple"] * g.n_relevant + 0.9)
    return sum(seq[:cut]) / cut if cut else 0.0


def _unjudged(seq, g):
    """m_unjudged.c: unjudged rows in the top k over k (the length for k=None)."""
    top = seq if g.k is None else seq[: g.k]
    return sum(not j for _, j in top) / (len(seq) if g.k is None else g.k)


def _rbp_residual(seq, g):
    """m_rbp_resid.c: p^n + (1 - p) Σ p^(i-1) over unjudged rows; 0 if none."""
    p = g.options["persistence"]
    open_terms = [p**i for i, (_, j) in enumerate(seq) if not j]
    if not open_terms:
        return 0.0
    return p ** len(seq) + (1 - p) * math.fsum(open_terms)


def _trec_levels(g, gain="linear", rows="judged"):
    """The gain levels that trec_eval walks (gain_init.c): ``(gain, count)``
    from the bottom of the list up. ``ideal_order="gain"``: the distinct gains
    of the judged rows (all rows with rows="all"), ascending. "trec_eval" (with
    a mapping or callable gain and integer labels >= 0): the levels a mapping
    names, in its order, then levels 0 .. top, sorted by glibc's merge sort
    with trec_eval's truncating comparator; a level's rows count at its first
    listed item."""
    labels = [
        y
        for y, j in zip(g.all_labels, g.all_judged, strict=True)
        if j or rows != "judged"
    ]
    integer = all(y >= 0 and y == int(y) for y in labels)
    if (
        g.options.get("ideal_order") != "trec_eval"
        or isinstance(gain, str)
        or not integer
    ):
        counts = Counter(_gain(y, gain) for y in labels)
        return sorted(counts.items())
    counts = Counter(int(y) for y in labels)
    n_levels = max(counts, default=-1) + 1
    named = getattr(gain, "pairs", None)
    if named is None:
        named = list(gain.items()) if isinstance(gain, dict) else []
    items, seen = [], set()
    for level, value in named:
        if level == int(level):
            items.append(
                (float(value), counts[int(level)] if int(level) not in seen else 0)
            )
            seen.add(int(level))
    items += [(_gain(i, gain), counts[i]) for i in range(n_levels) if i not in seen]
    return _glibc_merge_sort(items, lambda a, b: int(a[0] - b[0]))


def _glibc_merge_sort(items, cmp):
    """glibc's qsort of a small array: msort_with_tmp, split at n // 2, the
    merge takes the left item while cmp(left, right) <= 0."""
    if len(items) < 2:
        return items
    mid = len(items) // 2
    a, b = _glibc_merge_sort(items[:mid], cmp), _glibc_merge_sort(items[mid:], cmp)
    merged = []
    while a and b:
        merged.append(a.pop(0) if cmp(a[0], b[0]) <= 0 else b.pop(0))
    return merged + a + b


def _walk(levels):
    """The ideal list's gains, highest first: trec_eval's walk down the levels
    (empty ones skipped), stopped at the first non-empty level of gain <= 0."""
    ideal = _Ideal(None, levels)
    out = []
    while ideal.gain > 0:
        if ideal.step() > 0:
            out.append(ideal.gain)
    return out


def _trec_gain(y, judged, gain):
    """trec_eval's get_gain of a ranked row: its level's gain, or for an
    unjudged row the gain named for level -1 (0 when none is)."""
    if judged:
        return _gain(y, gain)
    named = getattr(gain, "pairs", None)
    if named is None:
        named = list(gain.items()) if isinstance(gain, dict) else []
    return next((float(v) for lv, v in named if lv == -1), 0.0)


def _g_gain(g):
    """G, ndcg_rel and Rndcg take a mapping or callable gain; a named gain
    leaves their gains at the labels."""
    gain = g.options.get("gain", "linear")
    return "linear" if isinstance(gain, str) else gain


class _Ideal:
    """trec_eval's walk down the ideal list (cur_level, num_at_level): each
    ``step()`` gives the ideal gain of the next position."""

    def __init__(self, g, levels=None):
        self.levels = _trec_levels(g, _g_gain(g)) if levels is None else levels
        self.cur = len(self.levels) - 1
        self.num_at_level = 0
        self.gain = self.levels[self.cur][0] if self.cur >= 0 else 0.0

    def step(self):
        self.num_at_level += 1
        while self.cur >= 0 and self.num_at_level > self.levels[self.cur][1]:
            self.num_at_level = 1
            self.cur -= 1
            self.gain = self.levels[self.cur][0] if self.cur >= 0 else 0.0
        return self.gain


def _ndcg_rel(seq, g):
    """m_ndcg_rel.c, its three loops (gain: the label of a judged row)."""
    gains = [_trec_gain(y, j, _g_gain(g)) for y, j in seq]
    ideal = _Ideal(g)
    if not _walk(ideal.levels):  # no ideal list: undefined (trec_eval: inf - inf)
        return math.nan
    results_dcg = ideal_dcg = total = 0.0
    num_rel = num_rel_ret = 0
    i = 0
    while i < len(gains) and ideal.gain > 0:
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        if ideal.step() > 0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        if gains[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < len(gains):
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        if gains[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0:
        if ideal.step() > 0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if num_rel == 0:
        return math.nan  # no judged row of positive gain: undefined
    total += (num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0 else 0.0


def _rndcg(seq, g):
    """m_Rndcg.c, its three loops."""
    gains = [_trec_gain(y, j, _g_gain(g)) for y, j in seq]
    ideal = _Ideal(g)
    old = ideal.gain
    results_dcg = ideal_dcg = total = 0.0
    changes = 0
    i = 0
    while i < len(gains) and ideal.gain > 0:
        ideal.step()
        if old != ideal.gain:
            if ideal_dcg > 0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        if ideal.gain > 0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if i < len(gains):
        while i < len(gains):
            if gains[i] != 0:
                results_dcg += gains[i] / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0:
        ideal.step()
        if old != ideal.gain:
            if ideal_dcg > 0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal.gain
        if ideal.gain > 0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if changes == 0:  # no R level: m_Rndcg.c divides 0 by 0 (undefined)
        return math.nan
    return total / changes


# One entry per metric of the library's registry; a guard test fails when a
# registry metric has no oracle here, or when the two disagree on the cutoff.
ORACLES = {
    "ndcg": Oracle(_ndcg, graded=True),
    "dcg": Oracle(_dcg_oracle, graded=True),
    "err": Oracle(lambda seq, g: _err(seq, g.k, g.options["max_grade"]), graded=True),
    "precision": Oracle(_precision_oracle, reads_judged=True),
    "recall": Oracle(
        lambda seq, g: _recall(seq, g.k, g.n_relevant, g.options["recall_denominator"])
    ),
    "hit_rate": Oracle(lambda seq, g: _hit_rate(seq, g.k)),
    "mrr": Oracle(lambda seq, g: _mrr(seq, g.k)),
    "map": Oracle(
        lambda seq, g: _average_precision(
            seq, g.k, g.n_relevant, g.options["ap_denominator"]
        )
    ),
    "r_precision": Oracle(lambda seq, g: _r_precision(seq, g.n_relevant), cutoff=False),
    "gauc": Oracle(lambda seq, g: _auc_of_order(seq), cutoff=False, pairwise=True),
    "auc": Oracle(lambda seq, g: _auc_of_order(seq), cutoff=False, pairwise=True),
    "f1": Oracle(_f1, reads_judged=True),
    "bpref": Oracle(_bpref, cutoff=False, reads_judged=True),
    "judged": Oracle(_judged_at, reads_judged=True),
    "fallout": Oracle(_fallout),
    "arp": Oracle(_arp, graded=True, cutoff=False),
    "rbp": Oracle(_rbp, graded=True),
    "pairwise_accuracy": Oracle(_pairwise_accuracy, graded=True, cutoff=False),
    "iprec": Oracle(
        lambda seq, g: _iprec_at(seq, g.n_relevant, g.options["recall_level"]),
        cutoff=False,
    ),
    "g": Oracle(_g, graded=True, cutoff=False, reads_judged=True),
    "bing": Oracle(_bing, cutoff=False),
    "ndcg_rel": Oracle(_ndcg_rel, graded=True, cutoff=False, reads_judged=True),
    "rndcg": Oracle(_rndcg, graded=True, cutoff=False, reads_judged=True),
    "infap": Oracle(_infap, cutoff=False, reads_pool=True),
    "rprec_mult": Oracle(_rprec_mult, cutoff=False),
    "unjudged": Oracle(_unjudged, reads_judged=True),
    "rbp_residual": Oracle(_rbp_residual, cutoff=False, reads_judged=True),
    "iprec_11pt": Oracle(
        lambda seq, g: (
            math.fsum(_iprec_at(seq, g.n_relevant, i / 10) for i in range(11)) / 11
        ),
        cutoff=False,
    ),
}
# Metrics whose averaged-tie expectation is not computed: the library raises
# where the value depends on the order of a tie block, and so does the reference.
ORDER_SENSITIVE = frozenset(
    {"iprec", "iprec_11pt", "g", "bing", "infap", "ndcg_rel", "rndcg"}
)
GRADED_METRICS = frozenset(name for name, o in ORACLES.items() if o.graded)
# Metrics whose gains follow gain_rows (their oracle then reads (label, judged)).
JUDGED_GAIN_METRICS = frozenset({"ndcg", "dcg", "rbp"})
# Metrics whose oracle says itself (NaN) where a group is undefined: G (no
# judged positive gain), whatever the relevance threshold.
SELF_DEFINED = frozenset({"g", "ndcg_rel"})


def _group_value(
    metric, k, rows, y_true, y_score, retrieved, judged, in_pool, *, exhaustive, **opts
):
    """Metric value of one (defined) group, averaged over tie orders if asked."""
    oracle = ORACLES[metric]
    ties, threshold = opts["ties"], opts["relevance_threshold"]
    ranked = [i for i in rows if retrieved[i]]
    facts = GroupFacts(
        k=k if oracle.cutoff else None,
        n_relevant=sum(bool(_relevant(y_true[i], threshold)) for i in rows),
        all_labels=[float(y_true[i]) for i in rows],
        options=opts,
        n_judged_non_relevant=sum(
            bool(judged[i]) and not _relevant(y_true[i], threshold) for i in rows
        ),
        all_judged=[bool(judged[i]) for i in rows],
    )
    judged_gains = metric in JUDGED_GAIN_METRICS and opts["gain_rows"] == "judged"

    def key(i):
        if oracle.reads_pool:
            rel = bool(_relevant(y_true[i], threshold))
            return (rel, bool(judged[i]), bool(in_pool[i]))
        if judged_gains or (oracle.graded and oracle.reads_judged):
            return (float(y_true[i]), bool(judged[i]))
        if oracle.graded:
            return float(y_true[i])
        if oracle.reads_judged:
            return (bool(_relevant(y_true[i], threshold)), bool(judged[i]))
        return bool(_relevant(y_true[i], threshold))

    if ties == "threshold" and metric in THRESHOLD_ORACLES:
        blocks = _tie_blocks(ranked, y_score)
        return THRESHOLD_ORACLES[metric]([[key(i) for i in b] for b in blocks], facts)
    if ties == "threshold":  # the same value as the expectation over tie orders
        ties = "average"
    if oracle.pairwise and ties == "average" and not exhaustive:
        # The contract's formula: tied (pos, neg) pairs count 1/2.
        return _auc_with_half_ties(
            [key(i) for i in ranked], [float(y_score[i]) for i in ranked]
        )
    blocks = _tie_blocks(ranked, y_score)
    if ties != "average":
        return oracle.value([key(i) for i in _resolve(blocks, y_true, ties)], facts)
    orders = list(_label_orders([[key(i) for i in b] for b in blocks], exhaustive))
    if (
        metric in ("precision", "f1")
        and opts.get("precision_denominator") == "n_judged"
    ):
        found = {sum(j for _, j in seq[: _cut(len(seq), facts.k)]) for seq in orders}
        if len(found) > 1:
            raise ReferenceTieError(f"{metric}: the judged count depends on a tie")
    values = [oracle.value(seq, facts) for seq in orders]
    if metric in ORDER_SENSITIVE and len(set(values)) > 1:
        raise ReferenceTieError(f"{metric}: the value depends on a tie's order")
    return math.fsum(values) / len(values)


def _check_err_labels(y_true, max_grade):
    if np.any(y_true > max_grade) or np.any(y_true < 0):
        raise ValueError("ERR labels must lie in [0, max_grade]")


def reference_per_group(
    metric,
    k,
    y_true,
    y_score,
    groups=None,
    *,
    ties="average",
    gain="exponential",
    discount="log2",
    relevance_threshold="positive",
    retrieved=None,
    precision_denominator="k",
    ap_denominator="n_relevant",
    recall_denominator="n_relevant",
    max_grade=1.0,
    persistence=0.8,
    recall_level=None,
    judged=None,
    judged_only=False,
    in_pool=None,
    exhaustive=False,
    gain_rows="all",
    integer_grades=False,
    r_multiple=1.0,
    ideal_order="gain",
):
    """{group id: metric value, or NaN where the group is undefined}.

    For ``metric="auc"`` the ``groups`` are ignored except as a row set: the
    whole input is one pooled list (see :func:`reference_pooled_auc`).
    With ``ties="average"`` every metric, ERR and AP with
    ``ap_denominator="n_relevant_retrieved"`` included, is the plain mean over the
    orders of the tie blocks; :class:`ReferenceTieError` is raised only for the
    order-sensitive interpolated precisions (``ORDER_SENSITIVE``).
    """
    y_true, y_score, groups, retrieved, _ = _as_arrays(
        y_true, y_score, groups, retrieved, None
    )
    if integer_grades:  # C's atol: toward zero
        y_true = np.array([float(math.trunc(y)) for y in y_true])
    judged, keep = _judged_rows(judged, len(y_true), judged_only)
    # In the judgment pool: every judged row; None puts every other row outside.
    in_pool = judged if in_pool is None else np.asarray(in_pool, bool) | judged
    if metric in ("err", "rbp"):
        _check_err_labels(y_true if keep is None else y_true[keep], max_grade)
    out = {}
    for gid, rows in _group_rows(groups, keep).items():
        by_ideal = metric in SELF_DEFINED or (
            metric in JUDGED_GAIN_METRICS and gain_rows == "judged"
        )
        if not by_ideal and not group_is_defined(
            metric, rows, y_true, retrieved, relevance_threshold
        ):
            out[gid] = math.nan
            continue
        out[gid] = _group_value(
            metric,
            k,
            rows,
            y_true,
            y_score,
            retrieved,
            judged,
            in_pool,
            ties=ties,
            gain=gain,
            discount=discount,
            relevance_threshold=relevance_threshold,
            precision_denominator=precision_denominator,
            ap_denominator=ap_denominator,
            recall_denominator=recall_denominator,
            max_grade=max_grade,
            persistence=persistence,
            recall_level=recall_level,
            exhaustive=exhaustive,
            gain_rows=gain_rows,
            r_multiple=r_multiple,
            ideal_order=ideal_order,
        )
    return out


def reference_group_weights(
    metric,
    y_true,
    groups=None,
    *,
    sample_weight=None,
    retrieved=None,
    relevance_threshold="positive",
    weights="rows",
    group_weight="mean",
    judged=None,
    judged_only=False,
    integer_grades=False,
):
    """{group id: weight of the group in the mean over groups}.

    Group weight = mean of ``sample_weight`` over all rows of the group (1 if
    None), or with ``group_weight="relevant_mean"`` TF-Ranking's per-list
    weight (:func:`_relevant_mean_weights`); for gauc it is multiplied by n_g
    ranked rows ("rows"), 1 ("uniform") or the number of ranked positives
    ("positives").
    """
    y_true, _, groups, retrieved, sample_weight = _as_arrays(
        y_true, y_true, groups, retrieved, sample_weight
    )
    if integer_grades:
        y_true = np.array([float(math.trunc(y)) for y in y_true])
    _, keep = _judged_rows(judged, len(y_true), judged_only)
    kept = _group_rows(groups, keep)
    if group_weight == "relevant_mean":
        base = _relevant_mean_weights(kept, y_true, sample_weight, relevance_threshold)
    elif group_weight == "mean":
        # A group left without rows (judged_only) weighs 0.
        base = {
            gid: math.fsum(sample_weight[i] for i in rows) / max(len(rows), 1)
            for gid, rows in kept.items()
        }
    else:
        raise ValueError(f"unknown group_weight {group_weight!r}")
    out = {}
    for gid, rows in kept.items():
        w = base[gid]
        if metric == "gauc":
            ranked = [i for i in rows if retrieved[i]]
            if weights == "rows":
                w *= len(ranked)
            elif weights == "positives":
                w *= sum(
                    bool(_relevant(y_true[i], relevance_threshold)) for i in ranked
                )
            elif weights != "uniform":
                raise ValueError(f"unknown weights {weights!r}")
        if metric == "pairwise_accuracy":  # weighs its pairs of different labels
            labels = [float(y_true[i]) for i in rows if retrieved[i]]
            w *= sum(a != b for a, b in itertools.combinations(labels, 2))
        out[gid] = w
    return out


def _relevant_mean_weights(group_rows, y_true, sample_weight, threshold):
    """TF-Ranking's per-list weights (metrics_impl.py,
    ``_per_example_weights_to_per_list_weights``), one group at a time:
    sum(w * rel) / sum(rel); a list without a relevant row gets the sum of those
    weights over the number of lists with a relevant row and a nonzero weight
    sum (1.0 when that number is 0); a list whose weights sum to 0 gets 0."""
    per_list, has_rel, nonzero = {}, {}, {}
    for gid, rows in group_rows.items():
        rel = [i for i in rows if _relevant(y_true[i], threshold)]
        has_rel[gid] = bool(rel)
        nonzero[gid] = math.fsum(sample_weight[i] for i in rows) > 0
        per_list[gid] = (
            math.fsum(sample_weight[i] for i in rel) / len(rel) if rel else 0.0
        )
    count = sum(has_rel[g] and nonzero[g] for g in group_rows)
    default = math.fsum(per_list.values()) / count if count else 1.0
    return {
        gid: 0.0 if not nonzero[gid] else per_list[gid] if has_rel[gid] else default
        for gid in group_rows
    }


def reduce_groups(values, group_weights, undefined="skip"):
    """Apply the undefined rule and the weighted mean.

    Returns ``(value, all_undefined)``; ``all_undefined`` is True when the
    result is NaN because every group is undefined under ``undefined="skip"``
    (the engine must then warn with ``UndefinedMetricWarning``).
    """
    terms = []
    weights = []
    for gid, v in values.items():
        if math.isnan(v):
            if undefined == "skip":
                continue
            if undefined == "raise":
                raise ValueError(f"group {gid!r} is undefined")
            v = float(undefined)
        terms.append(group_weights[gid] * v)
        weights.append(group_weights[gid])
    if not weights:
        return math.nan, True
    num = math.fsum(terms)
    den = math.fsum(weights)
    if den == 0:
        return math.nan, False
    return num / den, False


def reference_pooled_auc(
    y_true,
    y_score,
    *,
    ties="average",
    relevance_threshold="positive",
    retrieved=None,
    sample_weight=None,
    exhaustive=False,
):
    """Pooled AUC over all ranked rows; NaN if they are all one class.

    Pairs are weighted by ``w_i * w_j``. Tied pairs count 1/2 under
    "average" and follow the resolved order (input order across the whole
    array for "stable") otherwise.
    """
    y_true, y_score, _, retrieved, sample_weight = _as_arrays(
        y_true, y_score, None, retrieved, sample_weight
    )
    ranked = [i for i in range(len(y_true)) if retrieved[i]]
    rel = {i: bool(_relevant(y_true[i], relevance_threshold)) for i in ranked}
    if not ranked or all(rel.values()) or not any(rel.values()):
        return math.nan
    if ties == "threshold":  # sklearn's roc_auc_score: tied pairs count 1/2
        ties = "average"
    if ties == "average" and not exhaustive:
        return _auc_with_half_ties(
            [rel[i] for i in ranked],
            [float(y_score[i]) for i in ranked],
            [float(sample_weight[i]) for i in ranked],
        )
    blocks = _tie_blocks(ranked, y_score)
    if ties != "average":
        order = _resolve(blocks, y_true, ties)
        return _auc_of_order([rel[i] for i in order], [sample_weight[i] for i in order])
    # Exhaustive: every order of every tie block (rows carry their weights).
    values = []
    for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [i for part in combo for i in part]
        values.append(
            _auc_of_order([rel[i] for i in order], [sample_weight[i] for i in order])
        )
    return math.fsum(values) / len(values)


def reference_mean(
    metric,
    k,
    y_true,
    y_score,
    groups=None,
    *,
    ties="average",
    gain="exponential",
    discount="log2",
    relevance_threshold="positive",
    retrieved=None,
    precision_denominator="k",
    ap_denominator="n_relevant",
    recall_denominator="n_relevant",
    max_grade=1.0,
    weights="rows",
    sample_weight=None,
    undefined="skip",
    persistence=0.8,
    recall_level=None,
    group_weight="mean",
    judged=None,
    judged_only=False,
    gain_rows="all",
    integer_grades=False,
    r_multiple=1.0,
    in_pool=None,
    ideal_order="gain",
    alpha=0.5,
    beta=0.5,
):
    """The public metric value: ``(value, all_undefined)``.

    ``alpha`` and ``beta`` are read by the intent-aware metrics only, whose
    oracles (a 2-D ``y_true``) are in ``test_intent_metrics.py``.

    See :func:`reduce_groups` for ``all_undefined``. Raises ``ValueError``
    where the engine must raise (``undefined="raise"`` with an undefined group,
    order-sensitive tie conflicts, ERR labels out of range).
    """
    if integer_grades:  # C's atol: toward zero, before every metric
        y_true = np.array([float(math.trunc(float(y))) for y in y_true])
    if metric == "auc":
        _, keep = _judged_rows(judged, len(y_true), judged_only)
        if keep is not None:  # -J: the unjudged rows leave the pooled list
            y_true, y_score = np.asarray(y_true)[keep], np.asarray(y_score)[keep]
            retrieved = None if retrieved is None else np.asarray(retrieved)[keep]
            if sample_weight is not None:
                sample_weight = np.asarray(sample_weight)[keep]
        value = reference_pooled_auc(
            y_true,
            y_score,
            ties=ties,
            relevance_threshold=relevance_threshold,
            retrieved=retrieved,
            sample_weight=sample_weight,
        )
        return reduce_groups({0: value}, {0: 1.0}, undefined)
    values = reference_per_group(
        metric,
        k,
        y_true,
        y_score,
        groups,
        ties=ties,
        gain=gain,
        discount=discount,
        relevance_threshold=relevance_threshold,
        retrieved=retrieved,
        precision_denominator=precision_denominator,
        ap_denominator=ap_denominator,
        recall_denominator=recall_denominator,
        max_grade=max_grade,
        persistence=persistence,
        recall_level=recall_level,
        judged=judged,
        judged_only=judged_only,
        in_pool=in_pool,
        gain_rows=gain_rows,
        r_multiple=r_multiple,
        ideal_order=ideal_order,
    )
    group_weights = reference_group_weights(
        metric,
        y_true,
        groups,
        sample_weight=sample_weight,
        retrieved=retrieved,
        relevance_threshold=relevance_threshold,
        weights=weights,
        group_weight=group_weight,
        judged=judged,
        judged_only=judged_only,
    )
    return reduce_groups(values, group_weights, undefined)
