"""Checks of impression-log inputs, shared by every function of ``online``.

Rows are impressions: one row per item shown (or, for interleaving, per item of
either ranking) with its group (query or session), its 1-based ``position`` (0 =
not shown) and its ``clicks``. The group codes come from the engine's
``encode_groups``, so every id kind the metrics accept works here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine.context import order_rows
from .._engine.group_codes import encode_groups
from .._metrics.validation import check_lengths, check_numeric, check_sample_weight
from .._utils.params import param_error


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

    def group_weight(self) -> np.ndarray:
        """Mean sample weight of each group's rows (1 without weights), as in
        :func:`sklearn_rank.evaluate` with ``group_weight="mean"``."""
        if self.sample_weight is None:
            return np.ones(self.n_groups)
        total = np.bincount(self.codes, self.sample_weight, self.n_groups)
        count = np.bincount(self.codes, minlength=self.n_groups)
        return total / count


def check_position(x: Any, func: str, name: str = "position") -> np.ndarray:
    """1-based positions as int64; 0 marks a row that was not shown."""
    arr = check_numeric(x, name, func)
    if arr.size and (arr.min() < 0 or not np.array_equal(arr, np.trunc(arr))):
        bad = np.flatnonzero((arr < 0) | (arr != np.trunc(arr)))[0]
        raise ValueError(
            f"{name} in {func} must hold whole numbers >= 0 (1 = top of the list, "
            f"0 = not shown); got {float(arr[bad])!r} at row {bad}."
        )
    return arr.astype(np.int64)


def check_clicks(x: Any, func: str, name: str = "clicks") -> np.ndarray:
    """Clicks per row: numbers >= 0 (0/1 or counts)."""
    arr = check_numeric(x, name, func)
    if arr.size and arr.min() < 0:
        bad = np.flatnonzero(arr < 0)[0]
        raise ValueError(
            f"{name} in {func} must be >= 0 (0/1 or click counts); got "
            f"{float(arr[bad])!r} at row {bad}."
        )
    return arr


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
    """Examination probability per position: ``propensity[p - 1]`` in (0, 1]."""
    arr = check_numeric(x, "propensity", func)
    if arr.size == 0 or arr.min() <= 0 or arr.max() > 1:
        raise param_error(
            "propensity",
            func,
            "an array of examination probabilities in (0, 1], propensity[p - 1] "
            "for position p",
            x if np.size(x) < 8 else f"an array with min {arr.min():g}",
            "Estimate them with propensity_from_swaps or propensity_regression_em.",
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
    else:
        # Rows put in tiebreak order first (a linear radix sort of small ints),
        # then a stable ordering by group and score keeps that order in ties.
        first = np.argsort(tiebreak, kind="stable")
        order, _ = order_rows(codes[first], score[first], zeros, "stable", n_groups)
        order = first[order]
    return ranks_from_order(codes, order, n_groups), order


def ranks_from_order(codes: np.ndarray, order: np.ndarray, n_groups: int) -> np.ndarray:
    """Per row, its 1-based place in ``order`` counted within its group."""
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64) - np.repeat(starts, sizes) + 1
    return rank
