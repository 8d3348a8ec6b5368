"""The click simulator: position-based and cascade click models."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.gains_public import exponential_gain
from .._metrics.validation import check_numeric
from .._utils.params import StrOptions, validate_params
from ._inputs import (
    check_log,
    check_position,
    check_random_state,
    check_same_length,
)

MODELS = ("position_based", "cascade")


def default_examination(model: str, max_position: int) -> np.ndarray:
    """``1 / p`` for the position-based model, 1 everywhere for the cascade."""
    p = np.arange(1, max_position + 1, dtype=np.float64)
    return 1.0 / p if model == "position_based" else np.ones_like(p)


def attraction_probability(y: np.ndarray, max_grade: float) -> np.ndarray:
    """``(2**y - 1) / (2**max_grade - 1)``: the click probability of an examined row."""
    if max_grade <= 0:
        return np.zeros_like(y)
    return exponential_gain(y) / exponential_gain(np.float64(max_grade))


@validate_params(
    {
        "model": [StrOptions(*MODELS)],
    }
)
def simulate_clicks(
    y_true: ArrayLike,
    *,
    groups: ArrayLike,
    position: ArrayLike,
    model: str = "position_based",
    examination: ArrayLike | None = None,
    max_grade: float | None = None,
    random_state: Any = None,
) -> np.ndarray:
    """Simulate clicks on ranked lists from relevance labels.

    A row at 1-based ``position`` p is *examined* with probability
    ``examination[p - 1]`` and *attracts* a click with probability
    ``(2**y - 1) / (2**max_grade - 1)``; it is clicked when both happen (the two
    draws are independent). Under ``model="cascade"`` the user reads each list
    from the top and stops at the first click: a row is clicked only when no row
    above it in its group was. Rows with position 0 are not shown and never
    clicked.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance grades (>= 0).
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    position : array-like of shape (n_samples,)
        1-based position of each row in its shown list; 0 = not shown.
    model : {"position_based", "cascade"}, default="position_based"
        The click model.
    examination : array-like of shape (n_positions,), default=None
        ``examination[p - 1]`` is the probability that position p is examined
        (in the cascade: examined when reached). None is ``1 / p`` for the
        position-based model and 1 (the classic cascade) for the cascade.
    max_grade : float, default=None
        The grade whose attraction is 1; None is the largest grade in ``y_true``.
    random_state : None, int, RandomState or Generator, default=None
        Seed of the draws; an int makes the clicks reproducible.

    Returns
    -------
    clicks : ndarray of shape (n_samples,)
        0/1 clicks (int64), one per row.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.online import simulate_clicks
    >>> y = np.array([1, 0, 1, 0])
    >>> groups = np.array([0, 0, 1, 1])
    >>> position = np.array([1, 2, 2, 1])
    >>> # Every position examined: exactly the relevant rows are clicked.
    >>> simulate_clicks(y, groups=groups, position=position,
    ...                 examination=[1.0, 1.0], random_state=0)
    array([1, 0, 1, 0])
    """
    func = "simulate_clicks"
    y = check_numeric(y_true, "y_true", func)
    pos = check_position(position, func)
    n = check_same_length(func, y_true=y, position=pos)
    if y.min() < 0:
        i = int(np.flatnonzero(y < 0)[0])
        raise ValueError(
            f"y_true in {func} must hold grades >= 0; got {float(y[i])!r} at row {i}."
        )
    log = check_log(func, groups, n=n, position=pos)
    rng = check_random_state(random_state, func)
    deepest = int(pos.max())
    if examination is None:
        exam = default_examination(model, max(deepest, 1))
    else:
        exam = check_numeric(examination, "examination", func)
        bad = (exam < 0) | (exam > 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"examination in {func} must hold probabilities in [0, 1]; got "
                f"{float(exam[i])!r} for position {i + 1}."
            )
        if exam.size < deepest:
            raise ValueError(
                f"examination in {func} has {exam.size} entries but the deepest "
                f"position shown is {deepest}; give one per position."
            )
    top = float(y.max()) if max_grade is None else float(max_grade)
    if top < y.max():
        raise ValueError(
            f"max_grade in {func} ({top:g}) is below the largest grade in y_true "
            f"({y.max():g}); attraction probabilities would exceed 1."
        )
    shown = pos > 0
    p_exam = np.where(shown, np.concatenate([[0.0], exam])[pos], 0.0)
    hit = rng.random(n) < p_exam * attraction_probability(y, top)
    if model == "position_based":
        return hit.astype(np.int64)
    # Cascade: keep each group's first hit in position order (row order on ties).
    order = np.lexsort((np.arange(n), pos, log.codes))
    first = seg.first_in_segment(hit[order], log.codes[order], log.n_groups)
    clicks = np.zeros(n, dtype=np.int64)
    clicks[order[first[first >= 0]]] = 1
    return clicks
