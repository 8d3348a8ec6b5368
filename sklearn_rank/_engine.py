"""The grouped engine: encode groups once, order rows once, find tie blocks once.

Every metric kernel reads a :class:`RankingContext`. Within each group the ranked
rows are ordered by descending score; rows with equal scores in one group form a
*tie block*. With ``ties="average"`` kernels take the exact expectation over the
orders of each block; with the other policies the order is fully resolved by the
sort and every row is a block of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# Up to this many groups, the group pass of the ordering is a radix sort.
_RADIX_GROUPS = 1 << 16
# A cutoff view is cut out only when it keeps less than this share of the rows.
_HEAD_SHARE = 0.5


def _one_key_order(
    codes: np.ndarray, score: np.ndarray, n_groups: int
) -> np.ndarray | None:
    """Group-then-score order from one sort of a float key, or None.

    In exact arithmetic ``code * step - score``, with ``step`` a power of two above
    the score range, puts each group in its own band, ordered by descending score.
    Floating-point rounding is monotone, so the computed keys keep that order but
    may merge distinct keys; the order is kept only if every run of equal keys holds
    rows of one group and one score, whose order ``ties="average"`` never uses.
    """
    span = float(np.ptp(score))
    step = 2.0 ** (np.frexp(span)[1] + 1) if span > 0 else 1.0
    if not np.isfinite(span) or n_groups * step > 1e300:
        return None
    key = codes.astype(np.float64)
    key *= step
    key -= score
    order = np.argsort(key)
    ranked = key[order]
    merged = np.flatnonzero(ranked[1:] == ranked[:-1])
    if merged.size:
        first, second = order[merged], order[merged + 1]
        if (codes[first] != codes[second]).any() or (
            score[first] != score[second]
        ).any():
            return None
    return order


def order_rows(
    codes: np.ndarray,
    score: np.ndarray,
    labels: np.ndarray,
    ties: str,
    n_groups: int,
) -> np.ndarray:
    """Row order by group, then descending score, ties resolved by ``ties``.

    With ``ties="average"`` one sort of a combined float key usually suffices
    (:func:`_one_key_order`). Otherwise, one sort of the scores (with the tie
    policy as secondary key) gives every row a global position, and an integer pass
    groups the rows while keeping that order: one stable radix pass over 16-bit
    group codes when there are few groups, two passes (low and high half of the
    code) otherwise.
    """
    if score.size < 2:
        return np.arange(score.size)
    if ties == "average" and n_groups > 1:
        order = _one_key_order(codes, score, n_groups)
        if order is not None:
            return order
    neg = -score
    if ties == "pessimistic":  # least relevant first within a tie
        by_score = np.lexsort((labels, neg))
    elif ties == "optimistic":
        by_score = np.lexsort((-labels, neg))
    elif ties == "stable":  # input order within a tie
        by_score = np.argsort(neg, kind="stable")
    else:  # "average" never depends on the order inside a tie: fastest sort
        by_score = np.argsort(neg)
    if n_groups == 1:
        return by_score
    if n_groups <= _RADIX_GROUPS:
        # NumPy's stable sort of 16-bit ints is a linear-time radix sort.
        by_group = np.argsort(codes[by_score].astype(np.uint16), kind="stable")
        return by_score[by_group]
    # Two stable 16-bit radix passes (low half, then high half of the code) keep
    # the score order within each group and stay linear in the number of rows.
    halves = codes.astype(np.uint32)[by_score].view(np.uint16).reshape(-1, 2)
    low_half, high_half = (0, 1) if np.little_endian else (1, 0)
    low = np.argsort(halves[:, low_half], kind="stable")
    high = np.argsort(halves[low, high_half], kind="stable")
    return by_score[low[high]]


def ranges(start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start[i], start[i] + size[i])`` for every i."""
    total = int(size.sum())
    offsets = np.zeros(size.size, dtype=np.intp)
    np.cumsum(size[:-1], out=offsets[1:])
    return np.repeat(start - offsets, size) + np.arange(total)


class RankingContext:
    """The ordered view of one set of inputs that every kernel reads.

    Per ranked position it holds the label ``y``, the group code ``group`` and the
    1-based position within the group ``rank``. Tie blocks (runs of equal scores in
    a group, kept only for ``ties="average"``) are stored for the tied rows alone:
    ``tie_start``, ``tie_size``, ``tie_rank`` (first position), ``tie_group``, and
    ``tie_rows`` with ``tie_offsets`` (the positions of their rows, block after
    block). Every other row is a block of its own, so kernels compute on plain rows
    and correct the tied ones.

    Parameters
    ----------
    y_true, y_score : ndarray of shape (n,)
        Validated float64 labels and scores (never modified).
    codes : ndarray of shape (n,)
        Group code per row, ``0..n_groups-1``.
    n_groups : int
    ties : str
        Tie policy; only ``"average"`` keeps tie blocks.
    retrieved : ndarray of bool or None
        Rows with False count in group totals (R, ideal DCG) but are not ranked.
    sample_weight : ndarray or None
        Per-row weights; a group's weight is the mean over all its rows.
    """

    def __init__(
        self,
        y_true: np.ndarray,
        y_score: np.ndarray,
        codes: np.ndarray,
        n_groups: int,
        *,
        ties: str,
        retrieved: np.ndarray | None = None,
        sample_weight: np.ndarray | None = None,
    ) -> None:
        self.n_groups = n_groups
        self.ties = ties
        self.y_all = y_true
        self.codes_all = codes
        self.sample_weight = sample_weight
        self._root = self
        self._cache: dict[Any, Any] = {}
        if retrieved is None or retrieved.all():
            rows = None
            y_r, s_r, c_r = y_true, y_score, codes
        else:
            rows = np.flatnonzero(retrieved)
            y_r, s_r, c_r = y_true[rows], y_score[rows], codes[rows]
        self._ranked_rows = rows
        self._ranked_input = (y_r, s_r, c_r)

        order = order_rows(c_r, s_r, y_r, ties, n_groups)
        self.y = y_r[order]
        # Row weights in ranked order, for the pooled AUC's pair weights only.
        self.row_weight = None
        if sample_weight is not None:
            w = sample_weight if rows is None else sample_weight[rows]
            self.row_weight = w[order]
        self.length = np.bincount(c_r, minlength=n_groups)
        self.group = np.repeat(np.arange(n_groups, dtype=np.intp), self.length)
        self.starts = np.zeros(n_groups + 1, dtype=np.intp)
        np.cumsum(self.length, out=self.starts[1:])
        n = self.y.shape[0]
        self.n_rows = n
        # Positions fit in 32 bits for any input that fits in memory twice over.
        rank_type = np.int32 if n < 2**31 else np.int64
        self.rank = np.arange(1, n + 1, dtype=rank_type)
        self.rank -= self.starts[:-1].astype(rank_type).repeat(self.length)
        self._find_ties(s_r[order] if ties == "average" else None)

    # -- tie blocks
    def _find_ties(self, score: np.ndarray | None) -> None:
        start = size = None
        if score is not None and self.n_rows > 1:
            # A tie continues where the score repeats inside the same group.
            cont = score[1:] == score[:-1]
            cont &= self.rank[1:] > 1
            pair = np.flatnonzero(cont)  # rows i tied with row i + 1; usually few
            if pair.size:
                new = np.ones(pair.size + 1, dtype=bool)
                np.not_equal(pair[1:], pair[:-1] + 1, out=new[1:-1])
                start = pair[new[:-1]]  # each block's first row
                size = pair[new[1:]] - start + 2
        self._set_ties(start, size)

    def _set_ties(self, start: np.ndarray | None, size: np.ndarray | None) -> None:
        self.has_ties = start is not None and start.size > 0
        if not self.has_ties:
            start = size = np.zeros(0, dtype=np.intp)
        self.tie_start, self.tie_size = start, size
        self.tie_rank = self.rank[start]
        self.tie_group = self.group[start]
        self.tie_rows = ranges(start, size)
        self.tie_offsets = np.zeros(size.size, dtype=np.intp)
        np.cumsum(size[:-1], out=self.tie_offsets[1:])

    def tie_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row values over each tied block."""
        return np.add.reduceat(values[self.tie_rows], self.tie_offsets)

    def spread(self, tie_values: np.ndarray) -> np.ndarray:
        """Per-tied-block values repeated for each row of the block."""
        return np.repeat(tie_values, self.tie_size)

    def tie_block_of(self, positions: np.ndarray) -> np.ndarray:
        """Index of the tied block holding each position, -1 for untied rows."""
        block = np.searchsorted(self.tie_start, positions, side="right") - 1
        inside = block >= 0
        end = self.tie_start[block[inside]] + self.tie_size[block[inside]]
        inside[inside] = positions[inside] < end
        return np.where(inside, block, -1)

    def block_mean(self, values: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``values`` over its tie block: the expected value of
        a positional quantity when the block is ordered uniformly at random. May
        overwrite and return ``values``."""
        if self.has_ties:
            values[self.tie_rows] = self.spread(self.tie_sum(values) / self.tie_size)
        return values

    def in_top(self, k: int | np.ndarray | None) -> np.ndarray:
        """Per row, the probability of landing at a position <= k (``k`` an int or
        one cutoff per group): the share of its tie block inside the cutoff."""
        if k is None:
            return np.ones(self.n_rows)
        k_rows = k if np.isscalar(k) else k[self.group]
        inside = (self.rank <= k_rows).astype(np.float64)
        if self.has_ties:
            k_ties = k if np.isscalar(k) else k[self.tie_group]
            share = np.clip(k_ties - self.tie_rank + 1, 0, self.tie_size)
            inside[self.tie_rows] = self.spread(share / self.tie_size)
        return inside

    def head(self, k: int | None) -> RankingContext:
        """The view restricted to rows whose tie block starts at a position <= k.

        Every cutoff metric at ``k`` reads only these rows: a block straddling the
        cutoff is kept whole, so its tie expectation stays exact.
        """
        if k is None:
            return self
        key = ("head", k)
        if key not in self._cache:
            keep = self.rank <= k
            if self.has_ties:
                keep[self.tie_rows] = self.spread(self.tie_rank <= k)
            # Kernels mask positions beyond k themselves; the subset only pays
            # when it drops many rows.
            small = np.count_nonzero(keep) < _HEAD_SHARE * self.n_rows
            self._cache[key] = self._subset(keep, k) if small else self
        return self._cache[key]

    def _subset(self, keep: np.ndarray, k: int) -> RankingContext:
        rows = np.flatnonzero(keep)
        sub = object.__new__(RankingContext)
        for name in ("n_groups", "ties", "y_all", "codes_all", "sample_weight"):
            setattr(sub, name, getattr(self, name))
        sub._root, sub._cache = self._root, {}
        sub._ranked_rows, sub._ranked_input = self._ranked_rows, self._ranked_input
        sub.y = self.y[rows]
        sub.row_weight = None if self.row_weight is None else self.row_weight[rows]
        sub.group, sub.rank = self.group[rows], self.rank[rows]
        sub.length = self.length  # full list length, for precision denominators
        sub.starts = np.zeros(self.n_groups + 1, dtype=np.intp)
        np.cumsum(np.bincount(sub.group, minlength=self.n_groups), out=sub.starts[1:])
        sub.n_rows = rows.size
        kept = self.tie_rank <= k
        sub._set_ties(np.searchsorted(rows, self.tie_start[kept]), self.tie_size[kept])
        return sub

    # -- group reductions
    def group_sum(
        self, values: np.ndarray, index: np.ndarray | None = None
    ) -> np.ndarray:
        """Sum per group of per-row (``index=None``) or per-block values."""
        idx = self.group if index is None else index
        # bincount returns ints for empty input; keep float64 throughout.
        return np.bincount(idx, weights=values, minlength=self.n_groups).astype(
            np.float64, copy=False
        )

    def group_exclusive_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``values`` over the earlier rows of its group.

        Each group's first row first takes away the previous group's total, so one
        running sum restarts at every group: exact for the integer counts it serves
        (relevant or negative rows), with a single row-length array.
        """
        out = np.array(values, dtype=np.float64)
        if self.n_groups > 1 and self.n_rows:
            totals = np.bincount(self.group, weights=values, minlength=self.n_groups)
            nonempty = np.flatnonzero(self.starts[1:] > self.starts[:-1])
            # The running sum restarted at the previous group, so it carries only
            # that group's total into the next one.
            out[self.starts[nonempty[1:]]] -= totals[nonempty[:-1]]
        np.cumsum(out, out=out)
        out -= values
        return out

    def first_in_group(self, mask: np.ndarray) -> np.ndarray:
        """Position of the first row with ``mask`` in each group, -1 if none."""
        pos = np.flatnonzero(mask)
        first = np.full(self.n_groups, -1, dtype=np.intp)
        if pos.size:
            grp = self.group[pos]
            keep = np.empty(pos.size, dtype=bool)
            keep[0] = True
            np.not_equal(grp[1:], grp[:-1], out=keep[1:])
            first[grp[keep]] = pos[keep]
        return first

    def segmented_cumprod(self, values: np.ndarray) -> np.ndarray:
        """Inclusive running product within each group (Hillis-Steele doubling, so
        products stay products: no logs, no cancellation across groups)."""
        out = values.copy()
        step = 1
        longest = int(self.rank.max()) if self.n_rows else 0
        while step < longest:
            same = self.rank[step:] > step
            out[step:] = np.where(same, out[step:] * out[:-step], out[step:])
            step *= 2
        return out

    # -- cached per-group totals
    def relevant(self, threshold: float | None) -> np.ndarray:
        """Relevance of each ranked row (``y > 0`` or ``y >= threshold``)."""
        key = ("rel", threshold)
        if key not in self._cache:
            self._cache[key] = self.y > 0 if threshold is None else self.y >= threshold
        return self._cache[key]

    def n_relevant(self, threshold: float | None) -> np.ndarray:
        """R per group: relevant rows, retrieved or not."""
        key = ("R", threshold)
        if self._root is not self:
            return self._root.n_relevant(threshold)
        if key not in self._cache:
            rel = self.y_all > 0 if threshold is None else self.y_all >= threshold
            self._cache[key] = np.bincount(
                self.codes_all[rel], minlength=self.n_groups
            ).astype(np.int64)
        return self._cache[key]

    def group_weight(self) -> np.ndarray:
        """Mean sample weight of each group's rows (ones without weights)."""
        if self._root is not self:
            return self._root.group_weight()
        if "weight" not in self._cache:
            if self.sample_weight is None:
                w = np.ones(self.n_groups)
            else:
                size = np.bincount(self.codes_all, minlength=self.n_groups)
                total = np.bincount(
                    self.codes_all, weights=self.sample_weight, minlength=self.n_groups
                )
                w = total / np.maximum(size, 1)
            self._cache["weight"] = w
        return self._cache["weight"]

    def pooled(self) -> RankingContext:
        """All ranked rows as a single list (for pooled AUC), cached."""
        if self.n_groups == 1 and self._ranked_rows is None:
            return self
        if "pooled" not in self._cache:
            y_r, s_r, c_r = self._ranked_input
            w = self.sample_weight
            if w is not None and self._ranked_rows is not None:
                w = w[self._ranked_rows]
            self._cache["pooled"] = RankingContext(
                y_r, s_r, np.zeros_like(c_r), 1, ties=self.ties, sample_weight=w
            )
        return self._cache["pooled"]
