"""Adjusting p-values for multiple comparisons."""

from __future__ import annotations

import numpy as np

CORRECTIONS = ("holm", "bonferroni", "bh", "none")


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment (Holm 1979).

    Sorted ascending, ``p_(i)`` becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``.
    Written here because scipy has no Holm adjustment.
    """
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def adjust(p: np.ndarray, correction: str) -> np.ndarray:
    """Adjusted p-values of one family of tests (NaN entries stay NaN)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if not ok.any():
        return out
    q = p[ok]
    if correction == "none":
        out[ok] = q
    elif correction == "bonferroni":
        out[ok] = np.minimum(1.0, q * q.size)
    elif correction == "holm":
        out[ok] = holm(q)
    else:  # bh: scipy's Benjamini-Hochberg (scipy >= 1.11)
        try:
            from scipy.stats import false_discovery_control
        except ImportError:  # pragma: no cover - depends on the scipy version
            raise ImportError(
                "correction='bh' needs scipy >= 1.11 "
                "(scipy.stats.false_discovery_control); upgrade scipy or use "
                "correction='holm'."
            ) from None
        out[ok] = false_discovery_control(q, method="bh")
    return out
