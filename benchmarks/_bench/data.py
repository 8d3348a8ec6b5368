"""Deterministic synthetic ranking data (``make_data``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import DISTS, LAYOUTS


@dataclass
class Data:
    """One synthetic data set: flat per-row arrays plus what made them."""

    y_true: np.ndarray  # int64 grades 0..4
    y_score: np.ndarray  # float64, rounded to 3 decimals: some ties
    groups: np.ndarray  # int64 group ids
    dist: str
    layout: str
    n_groups: int
    group_len: int | None = None  # every group has this length ("equal" only)

    @property
    def n(self) -> int:
        return len(self.y_true)

    def tie_free(self) -> Data:
        """Same rows, scores replaced by their stable rank: same order, no ties."""
        score = np.empty(self.n)
        score[np.argsort(self.y_score, kind="stable")] = np.arange(self.n)
        return Data(
            self.y_true,
            score,
            self.groups,
            self.dist,
            self.layout,
            self.n_groups,
            self.group_len,
        )

    def subset(self, rows: np.ndarray) -> Data:
        n_groups = len(np.unique(self.groups[rows]))
        return Data(
            self.y_true[rows],
            self.y_score[rows],
            self.groups[rows],
            self.dist,
            self.layout,
            n_groups,
            self.group_len,
        )


def _group_sizes(rng: np.random.Generator, n: int, dist: str, mean: int) -> np.ndarray:
    if dist == "single":
        return np.array([n])
    if dist == "huge":  # a few huge groups
        shares = np.array([0.4, 0.3, 0.15, 0.1, 0.05])
        sizes = np.maximum(1, np.floor(shares * n)).astype(np.int64)
        sizes[0] += n - sizes.sum()
        return sizes[sizes > 0]
    if dist == "equal":  # every group exactly `mean` rows (scikit-learn's dense input)
        return np.full(max(1, n // mean), min(mean, n), dtype=np.int64)
    if dist == "tiny":  # many groups of 1 or 2 rows
        sizes = rng.integers(1, 3, size=n)
    else:  # "typical" (mean rows per group) or "small" (10 rows per group)
        mean = 10 if dist == "small" else mean
        count = int(2 * n / mean) + 16
        sizes = np.maximum(1, np.rint(rng.gamma(4.0, mean / 4.0, size=count)))
        sizes = sizes.astype(np.int64)
    ends = np.cumsum(sizes)
    last = int(np.searchsorted(ends, n))  # first group reaching n rows
    sizes = sizes[: last + 1].copy()
    sizes[-1] -= int(ends[last]) - n
    return sizes


def make_data(
    n: int,
    dist: str = "typical",
    layout: str = "shuffled",
    *,
    seed: int = 0,
    group_size: int = 100,
) -> Data:
    """Deterministic synthetic ranking data (same arguments, same arrays).

    Groups get a relevance rate drawn from Beta(0.6, 2.4), so some have no relevant
    row (undefined groups); relevant rows get grades 1..4. Scores are
    ``0.5 * grade + N(0, 1)`` rounded to 3 decimals (ties within groups).
    Layouts: "shuffled" (rows in random order), "contiguous" (each group's rows
    adjacent, group ids increasing: a sorted file), "blocks" (adjacent, ids in random
    order: GroupKFold folds of a grouped file).
    """
    rng = np.random.default_rng([seed, n, DISTS.index(dist), LAYOUTS.index(layout)])
    sizes = _group_sizes(rng, n, dist, group_size)
    n_groups = len(sizes)
    n = int(sizes.sum())
    codes = np.repeat(np.arange(n_groups), sizes)
    rate = rng.beta(0.6, 2.4, size=n_groups)[codes]
    relevant = rng.random(n) < rate
    grade = rng.choice(np.arange(1, 5), size=n, p=[0.4, 0.3, 0.2, 0.1])
    y_true = np.where(relevant, grade, 0).astype(np.int64)
    y_score = np.round(0.5 * y_true + rng.standard_normal(n), 3)
    if layout == "contiguous":
        ids = 1000 + 3 * np.arange(n_groups, dtype=np.int64)
    else:
        ids = 1000 + 3 * rng.permutation(n_groups).astype(np.int64)
    groups = ids[codes]
    if layout == "shuffled":
        perm = rng.permutation(n)
        y_true, y_score, groups = y_true[perm], y_score[perm], groups[perm]
    group_len = int(sizes[0]) if dist == "equal" else None
    return Data(y_true, y_score, groups, dist, layout, n_groups, group_len)
