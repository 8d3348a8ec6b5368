"""The engine's gain and discount as plain public functions, for sub-packages
(``online``) that weigh ranks or grades outside a metric: one formula, here."""

from __future__ import annotations

import numpy as np

from .kernels.gain_discount import gains, position_discount

__all__ = ["dcg_discount", "exponential_gain"]


def dcg_discount(rank: np.ndarray) -> np.ndarray:
    """DCG's discount 1 / log2(r + 1) of each 1-based rank ``r``."""
    return position_discount(np.asarray(rank), "log2")


def exponential_gain(labels: np.ndarray) -> np.ndarray:
    """The exponential gain 2**y - 1 of each grade ``y``."""
    return gains(np.asarray(labels, dtype=np.float64), "exponential")
