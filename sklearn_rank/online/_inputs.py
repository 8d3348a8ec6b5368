"""Checks of impression-log inputs, shared by every function of ``online``.

Rows are impressions: one row per item shown (or, for interleaving, per item of
either ranking) with its group (query or session), its 1-based ``position`` (0 =
not shown, where a function says so) and its 0/1 ``clicks``. The group codes come
from the engine's ``encode_groups``, the group weights from its ``GroupTotals``
and every per-group sum from its segment primitives, so every id kind the metrics
accept works here too and no count is written twice.

Every refusal names the argument, shows the offending value with its row, and
says how to fix it.

No function of ``online`` scores relevance labels with the offline metrics
(``evaluate``): the estimators and replays read clicks, positions and
propensities, and sum them per group once per call (one policy or one pair of
rankings per call), so there is nothing for ``sklearn_rank.prepare`` to share;
their bootstrap resamples those per-group values (``bootstrap_distribution``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine import segments as seg
from .._engine.context import GroupTotals
from .._engine.group_codes import encode_groups
from .._engine.ordering import order_rows
from .._engine.reduce import group_counts
from .._metrics.bootstrap import bootstrap_distribution, confidence_interval
from .._metrics.validation import (
    check_lengths,
    check_numeric,
    check_sample_weight,
    to_1d,
)
from .._utils.params import (
    CI_METHODS,
    check_choice,
    check_level,
    check_random_state,
    check_resamples,
)

__all__ = [
    "CI_METHODS",
    "Log",
    "bootstrap_distribution",
    "check_choice",
    "check_clicks",
    "check_level",
    "check_log",
    "check_no_unshown_clicks",
    "check_position",
    "check_propensity",
    "check_random_state",
    "check_resamples",
    "check_same_length",
    "check_unique_positions",
    "confidence_interval",
    "rank_within_groups",
    "ranks_from_order",
    "show_id",
    "to_1d",
]


@dataclass(frozen=True)
class Log:
    """Checked per-row arrays of one call, with the group codes ``0..G-1``."""

    codes: np.ndarray
    group_ids: np.ndarray
    position: np.ndarray | None
    sample_weight: np.ndarray | None

    @property
    def n_groups(self) -> int:
        return self.group_ids.shape[0]

    def group_sum(self, values: np.ndarray, rows: np.ndarray | None = None) -> Any:
        """Σ ``values`` per group (over ``rows`` only when given)."""
        if rows is None:
            return group_counts(self.codes, self.n_groups, values)
        return group_counts(self.codes[rows], self.n_groups, values[rows])

    def group_count(self, rows: np.ndarray | None = None) -> Any:
        """Rows per group (``rows``: a boolean mask or positions to count)."""
        codes = self.codes if rows is None else self.codes[rows]
        return group_counts(codes, self.n_groups)

    def group_weight(self) -> np.ndarray:
        """Mean sample weight of each group's rows (1 without weights): the
        engine's :meth:`GroupTotals.group_weight`, as in
        :func:`sklearn_rank.evaluate` with ``group_weight="mean"``."""
        zeros = np.zeros(self.codes.size)
        totals = GroupTotals(
            zeros, zeros, self.codes, self.n_groups, "stable", self.sample_weight, None
        )
        return np.asarray(totals.group_weight(), dtype=np.float64)


def _first_bad(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


def check_position(
    x: Any, func: str, name: str = "position", *, unshown: bool = True
) -> np.ndarray:
    """1-based positions as int64; 0 marks a row that was not shown where the
    function allows it (``unshown``), and is refused elsewhere."""
    arr = check_numeric(x, name, func)
    low = 0 if unshown else 1
    bad = (arr < low) | (arr != np.trunc(arr))
    if arr.size and bad.any():
        i = _first_bad(bad)
        v = arr[i]
        meaning = "1 = top of the list, 0 = not shown" if unshown else "1 = top"
        if v == 0:
            fix = (
                "Positions are 1-based: add 1 to 0-based positions, and drop the "
                "rows that were not shown."
            )
        elif v != np.trunc(v):
            fix = "Pass each row's whole-number place in its shown list."
        else:
            fix = "Positions count from 1 at the top of the list."
        raise ValueError(
            f"{name} in {func} must hold whole numbers >= {low} ({meaning}); got "
            f"{_show(v)} at row {i}. {fix}"
        )
    return arr.astype(np.int64)


def check_clicks(x: Any, func: str, name: str = "clicks") -> np.ndarray:
    """Clicks per row: 0 or 1 (a click indicator per impression)."""
    arr = check_numeric(x, name, func)
    bad = (arr != 0) & (arr != 1)
    if arr.size and bad.any():
        i = _first_bad(bad)
        raise ValueError(
            f"{name} in {func} must be 0 or 1 (one click indicator per "
            f"impression); got {_show(arr[i])} at row {i}. Turn click counts into "
            "indicators with np.minimum(clicks, 1); other values are not clicks."
        )
    return arr


def show_id(gid: Any) -> str:
    """A group id as the user wrote it (a numpy scalar shown as a Python one)."""
    return repr(gid.item() if isinstance(gid, np.generic) else gid)


def _show(v: float) -> str:
    return repr(int(v)) if v == np.trunc(v) else repr(float(v))


def check_no_unshown_clicks(c: np.ndarray, pos: np.ndarray, func: str) -> None:
    bad = (pos == 0) & (c > 0)
    if bad.any():
        i = _first_bad(bad)
        raise ValueError(
            f"clicks in {func} has a click on row {i}, whose position is 0 (not "
            "shown). Give clicked rows their 1-based shown position (0-based "
            "positions: add 1)."
        )


def check_unique_positions(log: Log, pos: np.ndarray, func: str) -> None:
    """Refuse two shown rows of one group at the same position, and warn when
    every group looks 0-based (exactly one row at 0, the others at 1..m-1)."""
    shown = np.flatnonzero(pos > 0)
    if shown.size > 1:
        width = int(pos.max()) + 1
        if log.n_groups * width <= 4 * pos.size:  # a linear count of the pairs
            key = log.codes[shown] * width + pos[shown]
            count = group_counts(key, log.n_groups * width)
            dup = np.flatnonzero(count > 1)
            if dup.size:
                rows = shown[key == dup[0]][:2]
                _duplicate(log, pos, int(rows[0]), int(rows[1]), func)
        else:
            order = shown[np.lexsort((pos[shown], log.codes[shown]))]
            key_g, key_p = log.codes[order], pos[order]
            same = (key_g[1:] == key_g[:-1]) & (key_p[1:] == key_p[:-1])
            if same.any():
                j = _first_bad(same)
                _duplicate(log, pos, int(order[j]), int(order[j + 1]), func)
    unshown = pos == 0
    if unshown.any() and shown.size:
        n_zero = log.group_count(unshown)
        size = log.group_count()
        top = seg.segment_max(log.codes, pos.astype(np.float64), log.n_groups, 0.0)
        if np.all(n_zero == 1) and np.all(top == size - 1):
            warnings.warn(
                f"position in {func} looks 0-based: every group has exactly one row "
                "at 0 and the others at 1..m-1. Position 0 means 'not shown' here; "
                "add 1 to 0-based positions.",
                UserWarning,
                stacklevel=3,
            )


def _duplicate(log: Log, pos: np.ndarray, a: int, b: int, func: str) -> None:
    a, b = sorted((a, b))
    gid = show_id(log.group_ids[log.codes[a]])
    raise ValueError(
        f"position in {func} repeats position {int(pos[a])} in group {gid} (rows "
        f"{a} and {b}); each shown row of a list needs its own position. Give each "
        "impression of a query its own group id (e.g. a session or request id), or "
        "drop duplicated rows."
    )


def check_log(
    func: str,
    groups: Any,
    *,
    n: int,
    position: np.ndarray | None = None,
    sample_weight: Any = None,
) -> Log:
    """Encode groups and check the per-row inputs shared by every function."""
    codes, ids = encode_groups(groups, n, func)
    weight = None
    if sample_weight is not None:
        weight = check_sample_weight(sample_weight, n, func)
    return Log(codes, ids, position, weight)


def check_same_length(func: str, **arrays: np.ndarray | None) -> int:
    return check_lengths(func, **arrays)


def check_propensity(x: Any, func: str, max_position: int) -> np.ndarray:
    """Examination probability per position: ``propensity[p - 1]`` in (0, 1].

    ``x`` may be a :class:`~sklearn_rank.online.PropensityEstimate` (its
    ``.propensity``, clipped into (0, 1] by its estimator)."""
    arr = check_numeric(getattr(x, "propensity", x), "propensity", func)
    bad = ~((arr > 0) & (arr <= 1))
    if arr.size == 0 or bad.any():
        got = "an empty array" if arr.size == 0 else None
        if got is None:
            i = _first_bad(bad)
            got = f"{float(arr[i])!r} for position {i + 1}"
        raise ValueError(
            f"propensity in {func} must hold examination probabilities in (0, 1], "
            f"propensity[p - 1] for position p; got {got}. Pass the result of "
            "propensity_from_swaps or propensity_regression_em (their estimates are "
            "clipped into (0, 1]), or clip yours, e.g. np.clip(p, 0.01, 1)."
        )
    if arr.size < max_position:
        raise ValueError(
            f"propensity in {func} has {arr.size} entries but the log has position "
            f"{max_position}; give one propensity per position up to the deepest "
            "one shown (propensities of unseen positions cannot be guessed)."
        )
    return arr


def rank_within_groups(
    codes: np.ndarray,
    score: np.ndarray,
    n_groups: int,
    tiebreak: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """1-based rank of every row in its group by descending ``score``.

    Equal scores are ordered by ascending ``tiebreak`` (e.g. the logged
    position), or by row order when it is None (a stable sort), so the ranking is
    a deterministic function of the inputs. Returns the ranks and the row order
    (group by group, best first).
    """
    zeros = np.zeros(score.size)
    if tiebreak is None:
        order, _ = order_rows(codes, score, zeros, "stable", n_groups)
    elif _small_whole_numbers(score):
        # Rows put in tiebreak order first (a linear radix sort of small ints),
        # then the engine's stable (radix) ordering by group and score keeps
        # that order in ties, which are many with such scores.
        first = np.argsort(tiebreak, kind="stable")
        order, _ = order_rows(codes[first], score[first], zeros, "stable", n_groups)
        order = first[order]
    else:
        order = _order_then_fix_ties(codes, score, n_groups, tiebreak)
    return ranks_from_order(codes, order, n_groups), order


def _small_whole_numbers(score: np.ndarray) -> bool:
    if score.size == 0:
        return True
    span = float(score.max()) - float(score.min())
    return span < 2**16 and bool(np.all(score == np.trunc(score)))


def _order_then_fix_ties(codes, score, n_groups, tiebreak) -> np.ndarray:
    """The engine's fastest order (ties in any order, with the tie mask), then the
    rows of each tie put in (tiebreak, row) order: few rows with real-valued
    scores, so this costs about half of a stable two-key ordering."""
    order, same = order_rows(codes, score, np.zeros(score.size), "average", n_groups)
    if same is None:
        s, c = score[order], codes[order]
        same = (s[1:] == s[:-1]) & (c[1:] == c[:-1])
    if same.any():
        in_tie = np.r_[False, same] | np.r_[same, False]
        at = np.flatnonzero(in_tie)
        run = np.cumsum(np.r_[True, ~same])[at]  # the tie each position is in
        rows = order[at]
        order[at] = rows[np.lexsort((rows, tiebreak[rows], run))]
    return order


def ranks_from_order(codes: np.ndarray, order: np.ndarray, n_groups: int) -> np.ndarray:
    """Per row, its 1-based place in ``order`` counted within its group."""
    sizes = seg.segment_count(codes, n_groups)
    starts = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64) - np.repeat(starts, sizes) + 1
    return rank
