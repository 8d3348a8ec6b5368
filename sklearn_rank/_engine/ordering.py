"""The row order every kernel reads: by group, then by descending score.

:func:`order_rows` sorts the rows once per evaluation and returns, with the
order, which ranked rows continue a tie block (same group, same score). Its fast
paths are here with it: one sort of a float key (``_one_key_order``), input that
is already in order, a radix pass over the groups, and small whole-number scores.
:class:`~sklearn_rank._engine.context.RankingContext` turns the result into
positions, tie blocks and the cutoff views.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import segments as seg

# Tie rules that keep the tie blocks (the order inside a block is never used): the
# kernels read blocks as expectations, except where ``RankingContext.thresholds``
# says a block is one score threshold.
BLOCK_TIES = frozenset({"average", "threshold"})

# Up to this many groups, the group pass of the ordering is a radix sort.
_RADIX_GROUPS = 1 << 16


def _one_key_order(
    codes: np.ndarray,
    score: np.ndarray,
    n_groups: int,
    length: np.ndarray,
    tied: bool = True,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Group-then-score order from one sort of a float key, or None.

    In exact arithmetic ``code * step - score``, with ``step`` a power of two above
    twice the score range, puts each group in its own band, ordered by descending
    score. Floating-point rounding is monotone and, while the rounding of the
    largest key stays far below the gap between bands (``step / 2``), keeps every
    group's band apart: the sort groups the rows exactly, with ``length[g]`` rows
    of group g. Within a band rounding may merge the keys of close scores, whose
    order the sort then leaves arbitrary: the order is kept only if the scores,
    read in it, never increase within a group (one pass; the order inside runs of
    equal scores is never used by ``ties="average"``).

    Returns the order and, per ranked row but the last, whether the next row has
    the same group and score: exactly the tie-block continuation. The rows of
    a tie come in input order (a stable sort, or :func:`_input_order_in_ties`):
    the order of ``ties="stable"`` too.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        # Scores near the float limits overflow the range: no key then, and no
        # RuntimeWarning escapes (the fallback orders them exactly).
        lo, hi = float(score.min()), float(score.max())
        span = hi - lo
    step = 2.0 ** (np.frexp(span)[1] + 1) if span > 0 else 1.0
    if not np.isfinite(span) or n_groups * step > 1e300:
        return None
    largest = n_groups * step + max(abs(lo), abs(hi))
    if largest * _EPS >= step / 4:  # the rounding could mix two groups' bands
        return None
    key = codes.astype(np.float64)
    key *= step
    key -= score
    if not tied and _repeats(key):
        # ``tied=False``: the caller has a cheaper order of tied rows (a stable
        # sort of the scores, then of the groups) than the repairs below.
        return None
    # Mostly tied rows (rounded scores in large groups): one stable sort puts
    # the rows of each tie in input order at once, cheaper than a quicksort
    # followed by a second sort of nearly every row (_input_order_in_ties).
    stable = _mostly_tied(key)
    order = np.argsort(key, kind="stable" if stable else None)
    ranked = score[order]
    # A score above the previous row's in the same group: merged keys were
    # sorted the wrong way round; the exact fallback orders them.
    ends = _group_ends(length, score.size)
    if (np.greater(ranked[1:], ranked[:-1]) & ~ends).any():
        return None
    same = np.equal(ranked[1:], ranked[:-1])
    same &= ~ends
    if not stable:
        _input_order_in_ties(order, same)
    return order, same


# Rows of the key read to judge how many rows are tied (_mostly_tied).
_TIE_SAMPLE = 8192


def _repeats(key: np.ndarray) -> int:
    """Repeated values among the first rows of the key."""
    sample = key[:_TIE_SAMPLE]
    return sample.size - np.unique(sample).size


def _mostly_tied(key: np.ndarray) -> bool:
    """Whether most rows likely share their key (group and score) with another
    row, judged from the first rows: ``c`` repeated keys among ``s`` rows put
    the number of distinct keys near ``D = s**2 / (2 c)`` (the birthday
    estimate), and ``n`` rows spread over ``D`` keys leave a share of about
    ``1 - exp(-n / D)`` of them tied; ``n > D`` means over 63 %. Only the cost
    of the ordering depends on the answer, never the order."""
    repeats = _repeats(key)
    if repeats == 0:
        return False
    size = min(key.size, _TIE_SAMPLE)
    distinct = size * size / (2.0 * repeats)
    return key.size > distinct


def _input_order_in_ties(order: np.ndarray, same: np.ndarray) -> None:
    """Put the rows of each run of ties (``same``: the next row is tied) in
    input order, in place: what a stable sort gives, at the cost of sorting the
    tied rows alone. The sums over a block's rows (read in rank order) then do
    not depend on the other groups of the call, so threads over shards of
    groups give the bits of one pass."""
    if not same.any():
        return
    starts = np.flatnonzero(same & ~np.r_[False, same[:-1]])
    stops = np.flatnonzero(same & ~np.r_[same[1:], False]) + 2
    lengths = stops - starts
    # Ties of two rows (most of them where ties are few): ordered in place.
    pairs = lengths == 2
    if pairs.any():
        first = starts[pairs]
        a, b = order[first], order[first + 1]
        order[first] = np.minimum(a, b)
        order[first + 1] = np.maximum(a, b)
        starts, lengths = starts[~pairs], lengths[~pairs]
        if not starts.size:
            return
    before = lengths.cumsum() - lengths  # tied rows of the earlier runs
    rows = np.arange(int(lengths.sum()), dtype=np.intp)
    rows += np.repeat(starts - before, lengths)
    # One sort of int64 keys (run, row): runs stay in place, rows ascend.
    run = np.repeat(np.arange(starts.size, dtype=np.int64) * order.size, lengths)
    key = order[rows] + run
    key.sort()
    key -= run
    order[rows] = key


# The relative rounding of a float64 operation (2**-52, with a margin).
_EPS = 2.0**-51


def _in_order(codes: np.ndarray, score: np.ndarray, head: int = 4096) -> bool:
    """Whether rows already come by group code, then descending score (a few
    linear passes, against a sort's n log n). The first ``head`` rows are tried
    first, so that unordered input (the common case) costs next to nothing."""
    if codes.size > head and not _in_order(codes[:head], score[:head], head):
        return False
    step = codes[1:] - codes[:-1]
    if (step < 0).any():
        return False
    return bool(((step != 0) | (score[1:] <= score[:-1])).all())


def kept_in_place(codes: Any, score: Any, ties: str) -> bool:
    """Whether :func:`order_rows` keeps every row in place: fewer than two
    rows, or rows already grouped and by descending score (a TREC join's
    output), where the stable sort moves nothing and the block rules ignore
    the order inside ties."""
    if not isinstance(score, np.ndarray):
        return False
    if score.size < 2:
        return True
    return ties in ("stable", *BLOCK_TIES) and _in_order(codes, score)


def order_rows(
    codes: np.ndarray,
    score: np.ndarray,
    labels: np.ndarray,
    ties: str,
    n_groups: int,
    length: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Row order by group, then descending score, ties resolved by ``ties``, and
    the tie-block continuation mask when the ordering found it (else None).

    Whole-number scores spanning fewer than 2**16 values (grades, counts, votes)
    are ordered by stable radix passes alone (:func:`_small_int_scores`). With
    ``ties="average"`` one sort of a combined float key usually suffices
    (:func:`_one_key_order`), and with ``ties="stable"`` where the first rows
    show no tie. Otherwise, one sort of the scores (with the tie
    policy as secondary key) gives every row a global position, and an integer pass
    groups the rows while keeping that order (:func:`_group_pass`).
    ``length``: rows per group code, when the caller has it.
    """
    if not isinstance(score, np.ndarray):
        return _order_rows_any(codes, score, labels, ties, n_groups), None
    if kept_in_place(codes, score, ties):
        return np.arange(score.size), None
    if ties in ("stable", *BLOCK_TIES):
        by_score = _small_int_scores(score)
        if by_score is not None:
            order = _group_pass(codes, by_score, n_groups)
            if ties == "stable":
                return order, None
            if length is None:
                length = np.bincount(codes, minlength=n_groups)
            return order, _tied_next(score[order], length)
    if ties in ("stable", *BLOCK_TIES) and n_groups > 1:
        if length is None:
            length = np.bincount(codes, minlength=n_groups)
        found = _one_key_order(codes, score, n_groups, length, ties in BLOCK_TIES)
        if found is not None:
            # Input order inside every tie: the stable order itself.
            return found if ties in BLOCK_TIES else (found[0], None)
    neg = -score
    if ties == "pessimistic":  # least relevant first within a tie
        by_score = np.lexsort((labels, neg))
    elif ties == "optimistic":
        by_score = np.lexsort((-labels, neg))
    elif ties == "stable":  # input order within a tie
        by_score = np.argsort(neg, kind="stable")
    else:  # BLOCK_TIES: input order inside a tie, as _one_key_order
        by_score = np.argsort(neg, kind="stable")
    return _group_pass(codes, by_score, n_groups), None


def _order_rows_any(
    codes: Any, score: Any, labels: Any, ties: str, n_groups: int
) -> Any:
    """:func:`order_rows` in any array API namespace: stable sorts alone (the
    standard has no lexsort), the last key sorted first. Scores by descending
    value, the tie policy's label order inside ties, then a stable pass by group."""
    xp = seg.array_namespace(score)
    if ties == "pessimistic":  # least relevant first within a tie
        by_label = xp.argsort(labels, stable=True)
    elif ties == "optimistic":
        by_label = xp.argsort(-labels, stable=True)
    else:  # input order (stable); the block rules never read the order in a tie
        by_label = None
    key = -score if by_label is None else xp.take(-score, by_label)
    by_score = xp.argsort(key, stable=True)
    if by_label is not None:
        by_score = xp.take(by_label, by_score)
    if n_groups == 1:
        return by_score
    by_group = xp.argsort(xp.take(codes, by_score), stable=True)
    return xp.take(by_score, by_group)


def _group_pass(codes: np.ndarray, by_score: np.ndarray, n_groups: int) -> np.ndarray:
    """``by_score`` regrouped by group code, keeping its order within each group:
    one stable radix pass over 16-bit group codes when there are few groups, two
    (low and high half of the code) otherwise; linear in the rows."""
    if n_groups == 1:
        return by_score
    return by_score[code_order(codes[by_score], n_groups)]


def code_order(codes: np.ndarray, n_groups: int) -> np.ndarray:
    """The stable order of ``codes`` (group codes in ``[0, n_groups)``): one
    radix pass over 16-bit codes when there are few groups, two (the low and
    the high half of each code) otherwise; linear in the rows, where numpy's
    stable sort of wider integers is a merge sort (6x slower at 1M rows)."""
    if n_groups <= _RADIX_GROUPS:
        # NumPy's stable sort of 16-bit ints is a linear-time radix sort.
        return np.argsort(codes.astype(np.uint16), kind="stable")
    halves = codes.astype(np.uint32).view(np.uint16).reshape(-1, 2)
    low_half, high_half = (0, 1) if np.little_endian else (1, 0)
    low = np.argsort(halves[:, low_half], kind="stable")
    high = np.argsort(halves[low, high_half], kind="stable")
    return low[high]


def _small_int_scores(score: np.ndarray) -> np.ndarray | None:
    """Rows by descending score, input order within ties, when every score is a
    whole number and they span fewer than 2**16 values: one stable radix pass
    over ``max - score`` as 16-bit ints (linear, against a comparison sort's
    n log n). None otherwise."""
    if not radix_scores(score):
        return None
    return np.argsort((score.max() - score).astype(np.uint16), kind="stable")


def radix_scores(score: np.ndarray) -> bool:
    """Whether :func:`order_rows` orders ``score`` by its radix pass over small
    whole numbers (:func:`_small_int_scores`). Fractional scores answer from
    their first rows."""
    if not _integral(score[:_CHUNK]):
        return False
    return bool(float(score.max()) - float(score.min()) < _RADIX_SPAN) and _integral(
        score
    )


def _tied_next(ranked: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Per ranked row but the last, whether the next row is in the same group
    with the same score (``ranked``: the scores in group order)."""
    same = np.equal(ranked[1:], ranked[:-1])
    same &= ~_group_ends(length, ranked.size)
    return same


def _group_ends(length: np.ndarray, n: int) -> np.ndarray:
    """Per ranked row but the last, whether it is the last row of its group."""
    first = np.cumsum(length[:-1])  # first ranked row of each group but group 0
    ends = np.zeros(max(n - 1, 0), dtype=bool)
    ends[first[(first > 0) & (first < n)] - 1] = True
    return ends


# Whole-number scores spanning fewer values than this are radix-sorted.
_RADIX_SPAN = 2.0**16
_CHUNK = 1 << 16


def _integral(score: np.ndarray) -> bool:
    """Whether every score is a whole number (in cache-sized chunks: no temporary
    as large as the scores, and an early exit at the first fraction)."""
    whole = np.empty(min(score.size, _CHUNK))
    for begin in range(0, score.size, _CHUNK):
        part = score[begin : begin + _CHUNK]
        np.trunc(part, out=whole[: part.size])
        if not np.array_equal(whole[: part.size], part):
            return False
    return True
