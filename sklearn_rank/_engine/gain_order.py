"""The ideal ranking of graded metrics: which judged rows enter it, in which order.

Two orders, the ``ideal_order`` convention keyword (docs/metrics.md):

- ``"gain"`` (the default convention): the mathematically ideal ranking, the
  judged rows of gain > 0 sorted by gain, highest first;
- ``"trec_eval"``: trec_eval's (``setup_gains`` and ``comp_rel_gain`` in
  ``gain_init.c``, the walk of ``m_ndcg.c``, ``m_G.c``, ``m_ndcg_rel.c``,
  ``m_Rndcg.c``). Each group lists its gain levels: the levels a gain names
  (:class:`~sklearn_rank._engine.conventions.LevelGains`' pairs, or a mapping's
  entries, in their given order), then the group's judged levels ``0 .. top``
  that it does not name. glibc's ``qsort`` (a top-down merge sort) sorts that
  list by a comparator that returns the gain difference *truncated to an
  integer*: gains less than 1 apart compare equal and keep their list order,
  so ``{1: 0.5}`` ranks level 1 (gain 0.5) below level 0 (gain 0) when 0 comes
  later in the list. The ideal ranking walks the sorted list from its end: an
  empty level is skipped, and the walk stops at the first non-empty level of
  gain <= 0 (or at once when the last item's gain is <= 0).

With gains whose differences are integers (the labels, ``2**y - 1``, any
integer mapping) the two orders are the same ranking. Labels that are not
non-negative integers have no levels: the ``"trec_eval"`` order is then the
``"gain"`` order.

The sort runs once per distinct number of levels (a handful), never per group.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import segments as seg

# trec_eval's relevance values of unjudged documents (trec_format.h): no qrels
# line (RELVALUE_NONPOOL), and in the pool with a negative grade (UNJUDGED).
NONPOOL, POOLED = -1, -2


def given_pairs(gain: Any) -> tuple[tuple[float, float], ...]:
    """The ``(level, gain)`` pairs a gain names, in its given order: a
    :class:`LevelGains`' pairs, a mapping's entries (``GainMap.given``), none
    for a named gain or another callable."""
    pairs = getattr(gain, "pairs", None)
    if pairs is None:
        pairs = getattr(gain, "given", ())
    return tuple(pairs)


def unjudged_gains(gain: Any) -> tuple[float, float]:
    """The gains of an unjudged row outside the pool (level -1) and of one in
    the pool (-2, a negative grade): the first pair naming them, else 0."""
    found: dict[float, float] = {}
    for level, value in given_pairs(gain):
        found.setdefault(float(level), float(value))
    return found.get(float(NONPOOL), 0.0), found.get(float(POOLED), 0.0)


def _truncated_difference(a: float, b: float) -> int:
    """``comp_rel_gain``: ``(int) (a - b)``, C's conversion (toward zero)."""
    d = a - b
    if math.isnan(d):
        return 0
    if math.isinf(d):
        return 1 if d > 0 else -1
    return math.trunc(d)


def _merge_sort(items: list, cmp: Callable[[Any, Any], int]) -> list:
    """glibc's ``qsort`` on a small array (``msort_with_tmp``): split at
    ``n // 2``, sort both halves, merge taking from the left while
    ``cmp(left, right) <= 0``."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _merge_sort(items[:half], cmp), _merge_sort(items[half:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def trec_level_order(
    pairs: tuple[tuple[float, float], ...], n_levels: int, level_gain: Callable
) -> list[tuple[int, float, bool]]:
    """trec_eval's sorted gain list of a group whose judged levels are
    ``0 .. n_levels - 1``: ``(level, gain, counted)`` by trec_eval's
    increasing gain; ``counted`` marks the item that holds the level's rows
    (the first one listed for it).

    Examples
    --------
    >>> from sklearn_rank._engine.gain_order import trec_level_order
    >>> [(lv, g) for lv, g, _ in trec_level_order(((1, 0.5),), 3, float)]
    [(1, 0.5), (0, 0.0), (2, 2.0)]
    """
    items, seen = [], set()
    for level, value in pairs:
        if float(level) != int(level):  # trec_eval: valid_int(name)
            continue
        items.append((int(level), float(value), int(level) not in seen))
        seen.add(int(level))
    items += [(i, float(level_gain(i)), True) for i in range(n_levels) if i not in seen]
    return _merge_sort(items, lambda a, b: _truncated_difference(a[1], b[1]))


def ideal_rows(
    y: Any,
    codes: Any,
    judged: Any,
    n_groups: int,
    gain: Any,
    row_gains: Any,
    order: str,
    level_gain: Callable,
) -> tuple[Any, Any]:
    """The rows of each group's ideal ranking and their sort key: ``(keep,
    key)``; sorting the kept rows by group, then key descending, gives the
    ideal ranking. ``row_gains``: each row's gain; ``judged`` None: every row
    is judged; ``level_gain(level)``: the gain of a level no pair names."""
    xp = seg.array_namespace(y)
    keep = row_gains > 0
    if judged is not None:
        keep = keep & judged
    # A named gain of integer labels has integer differences: the same order.
    if order != "trec_eval" or isinstance(gain, str) or not y.shape[0]:
        return keep, row_gains
    levels = y if judged is None else xp.where(judged, y, 0.0)
    if bool(xp.any(levels < 0)) or not bool(xp.all(levels == xp.floor(levels))):
        return keep, row_gains  # no integer levels: the gain order
    return _trec_rows(xp, levels, codes, judged, n_groups, gain, level_gain)


def _trec_rows(xp, levels, codes, judged, n_groups, gain, level_gain):
    """:func:`ideal_rows` under trec_eval's order, in the arrays' namespace: the
    level order is made on the host once per distinct number of levels (small
    tables, scalar syncs only), every per-row step on the arrays' device."""
    dev = getattr(levels, "device", None)
    index = xp.int64
    level = xp.astype(levels, index)
    mask = xp.ones(level.shape, dtype=xp.bool, device=dev) if judged is None else judged
    top = seg.segment_max(codes[mask], level[mask], n_groups, -1)
    n_levels = xp.astype(top, index) + 1
    present = n_levels[n_levels > 0]
    if not present.shape[0]:  # no judged row: no ideal list
        keep = xp.zeros(level.shape, dtype=xp.bool, device=dev)
        return keep, xp.astype(level, xp.float64)
    distinct = xp.unique_values(present)
    sizes = sorted(int(distinct[i]) for i in range(distinct.shape[0]))
    pairs = given_pairs(gain)
    width = max(sizes)
    # Per number of levels: each level's position in the sorted list, its gain,
    # and whether the walk starts at all (the last item's gain > 0).
    position = np.zeros((len(sizes), width), np.int64)
    item_gain = np.zeros((len(sizes), width))
    starts = np.zeros(len(sizes), bool)
    for s, size in enumerate(sizes):
        sorted_items = trec_level_order(pairs, size, level_gain)
        starts[s] = sorted_items[-1][1] > 0
        for at, (lv, value, counted) in enumerate(sorted_items):
            if counted and 0 <= lv < size:
                position[s, lv], item_gain[s, lv] = at, value

    def on(a):
        return a if xp is np else xp.asarray(a, device=dev)

    row_size = xp.searchsorted(on(np.asarray(sizes, np.int64)), n_levels)
    row_size = seg.take(xp.minimum(row_size, len(sizes) - 1), codes)
    cell = row_size * width + xp.clip(level, 0, width - 1)
    pos = seg.take(on(position.ravel()), cell)
    value = seg.take(on(item_gain.ravel()), cell)
    # The walk stops at the highest non-empty level of gain <= 0.
    low = mask & (value <= 0)
    stop = seg.segment_max(codes[low], pos[low], n_groups, -1)
    keep = mask & seg.take(on(starts), row_size) & (value > 0)
    keep = keep & (pos > seg.take(xp.astype(stop, index), codes))
    return keep, xp.astype(pos, xp.float64)
