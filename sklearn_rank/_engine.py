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

# Integer group ids spanning at most this many values per row are encoded with a
# lookup table (linear time) instead of a sort.
_TABLE_SPAN_PER_ROW = 4
# Up to this many groups, the group pass of the ordering is a radix sort.
_RADIX_GROUPS = 1 << 16


def _is_categorical(groups: Any) -> bool:
    dtype = getattr(groups, "dtype", None)
    return getattr(dtype, "name", None) == "category" or hasattr(groups, "categories")


def encode_groups(groups: Any, n: int, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Map group ids to codes ``0..G-1`` in sorted id order.

    Returns ``(codes, ids)`` where ``ids[codes[i]]`` is the group of row ``i``.
    """
    if groups is None:
        raise ValueError(
            f"{func} needs groups: pass groups=<one query/user/session id per row>. "
            "To score all rows as one list, pass groups=np.zeros(len(y_true))."
        )
    if _is_categorical(groups):
        cat = getattr(groups, "array", groups)  # Series -> Categorical
        codes = np.asarray(cat.codes, dtype=np.intp)
        if codes.ndim != 1:
            raise ValueError(f"groups in {func} must be 1-D.")
        if (codes < 0).any():
            raise ValueError(
                f"groups in {func} contains missing values (NaN); every row needs a "
                "group id."
            )
        used = np.bincount(codes, minlength=len(cat.categories)) > 0
        remap = np.cumsum(used) - 1  # drop unused categories
        ids = np.asarray(cat.categories)[used]
        arr_codes = remap[codes]
    else:
        if hasattr(groups, "to_numpy"):
            groups = groups.to_numpy()
        arr = np.asarray(groups)
        if arr.ndim != 1:
            raise ValueError(
                f"groups in {func} must be 1-D with one id per row; got shape "
                f"{arr.shape}."
            )
        if arr.dtype.kind == "b":
            arr = arr.astype(np.intp)
        if arr.dtype.kind in "iu" and arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo <= _TABLE_SPAN_PER_ROW * arr.size + 1024:
                shifted = (arr - lo).astype(np.intp, copy=False)
                present = np.zeros(hi - lo + 1, dtype=bool)
                present[shifted] = True
                table = np.cumsum(present) - 1
                ids = np.flatnonzero(present) + lo
                ids = ids.astype(arr.dtype, copy=False)
                arr_codes = table[shifted]
            else:
                ids, arr_codes = np.unique(arr, return_inverse=True)
        else:
            if arr.dtype.kind == "f" and np.isnan(arr).any():
                raise ValueError(
                    f"groups in {func} contains NaN; every row needs a group id."
                )
            if arr.dtype.kind == "O":
                missing = [v is None or (isinstance(v, float) and v != v) for v in arr]
                if any(missing):
                    raise ValueError(
                        f"groups in {func} contains missing values (None/NaN); every "
                        "row needs a group id."
                    )
            try:
                ids, arr_codes = np.unique(arr, return_inverse=True)
            except TypeError:
                raise TypeError(
                    f"groups in {func} mixes id types that cannot be ordered (e.g. "
                    "ints and strings); use one type for all ids."
                ) from None
    if arr_codes.shape[0] != n:
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: y_true={n}, "
            f"groups={arr_codes.shape[0]}. Every per-row input must have one entry "
            "per row."
        )
    return np.asarray(arr_codes, dtype=np.intp).reshape(-1), ids


def order_rows(
    codes: np.ndarray,
    score: np.ndarray,
    labels: np.ndarray,
    ties: str,
    n_groups: int,
) -> np.ndarray:
    """Row order by group, then descending score, ties resolved by ``ties``.

    One sort of the scores (with the tie policy as secondary key) gives every row a
    global position; a second, integer pass then groups the rows while keeping that
    order: a stable radix sort of 16-bit group codes when there are few groups,
    otherwise a sort of the unique keys ``code * n + position``.
    """
    n = score.shape[0]
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
    position = np.empty(n, dtype=np.int64)
    position[by_score] = np.arange(n, dtype=np.int64)
    return np.argsort(codes.astype(np.int64) * n + position)


class RankingContext:
    """The ordered view of one set of inputs that every kernel reads.

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
        self.order = order if rows is None else rows[order]  # input row per position
        self.y = y_r[order]
        self.score = s_r[order]
        self.length = np.bincount(c_r, minlength=n_groups)
        self.group = np.repeat(np.arange(n_groups, dtype=np.intp), self.length)
        self.starts = np.zeros(n_groups + 1, dtype=np.intp)
        np.cumsum(self.length, out=self.starts[1:])
        n = self.y.shape[0]
        self.n_rows = n
        self.rank = np.arange(1, n + 1, dtype=np.int64) - self.starts[self.group]
        self._find_blocks()

    # -- tie blocks
    def _find_blocks(self) -> None:
        n = self.n_rows
        new = None
        if self.ties == "average" and n > 1:
            new = np.empty(n, dtype=bool)
            new[0] = True
            np.not_equal(self.score[1:], self.score[:-1], out=new[1:])
            new[1:] |= self.rank[1:] == 1
            if new.all():
                new = None
        if new is None:
            self._set_blocks(None, None)
        else:
            start = np.flatnonzero(new)
            self._set_blocks(start, np.diff(np.append(start, n)))

    def _set_blocks(self, start: np.ndarray | None, size: np.ndarray | None) -> None:
        """Store tie blocks; ``None`` means every row is a block of its own."""
        n = self.n_rows
        self.has_ties = start is not None
        if not self.has_ties:
            self.block_start = np.arange(n)
            self.block_size = np.ones(n, dtype=np.int64)
            self.row_block = None
        else:
            self.block_start, self.block_size = start, size
            self.row_block = np.repeat(np.arange(start.size), size)
            # Most blocks are usually single rows: reduce only the tied ones.
            tied = np.flatnonzero(size > 1)
            self._tied_blocks = tied
            self._tied_rows = np.flatnonzero(size[self.row_block] > 1)
            self._tied_offsets = np.zeros(tied.size, dtype=np.intp)
            np.cumsum(size[tied][:-1], out=self._tied_offsets[1:])
        self.block_rank = self.rank[self.block_start]
        self.block_group = self.group[self.block_start]

    def head(self, k: int | None) -> RankingContext:
        """The view restricted to the blocks that start at a position <= k.

        Every cutoff metric at ``k`` reads only these rows: a block straddling the
        cutoff is kept whole, so its tie expectation stays exact.
        """
        if k is None:
            return self
        key = ("head", k)
        cache = self._cache
        if key not in cache:
            keep_block = self.block_rank <= k
            if keep_block.all():
                cache[key] = self
            else:
                cache[key] = self._subset(keep_block)
        return cache[key]

    def _subset(self, keep_block: np.ndarray) -> RankingContext:
        rows = np.flatnonzero(self.to_rows(keep_block))
        sub = object.__new__(RankingContext)
        for name in ("n_groups", "ties", "y_all", "codes_all", "sample_weight"):
            setattr(sub, name, getattr(self, name))
        sub._root, sub._cache = self._root, {}
        sub._ranked_rows, sub._ranked_input = self._ranked_rows, self._ranked_input
        sub.order, sub.y, sub.score = self.order[rows], self.y[rows], self.score[rows]
        sub.group, sub.rank = self.group[rows], self.rank[rows]
        sub.length = self.length  # full list length, for precision denominators
        sub.starts = np.zeros(self.n_groups + 1, dtype=np.intp)
        np.cumsum(np.bincount(sub.group, minlength=self.n_groups), out=sub.starts[1:])
        sub.n_rows = rows.size
        size = self.block_size[keep_block]
        if self.has_ties and (size > 1).any():
            start = np.zeros(size.size, dtype=np.intp)
            np.cumsum(size[:-1], out=start[1:])
            sub._set_blocks(start, size)
        else:
            sub._set_blocks(None, None)
        return sub

    def block_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row values over each tie block."""
        if not self.has_ties:
            return values
        out = values[self.block_start]
        if self._tied_blocks.size:
            out[self._tied_blocks] = np.add.reduceat(
                values[self._tied_rows], self._tied_offsets
            )
        return out

    def to_rows(self, block_values: np.ndarray) -> np.ndarray:
        """Broadcast per-block values back to the rows of each block."""
        if not self.has_ties:
            return block_values
        return block_values[self.row_block]

    def block_mean(self, values: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``values`` over its tie block: the expected value of
        a positional quantity when the block is ordered uniformly at random."""
        if not self.has_ties:
            return values
        return self.to_rows(self.block_sum(values) / self.block_size)

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

    def group_exclusive_cumsum(
        self, values: np.ndarray, at: np.ndarray | None = None
    ) -> np.ndarray:
        """Sum of ``values`` over the earlier rows of the same group, for every row
        or only at the row positions ``at``."""
        total = np.zeros(values.shape[0] + 1)
        np.cumsum(values, out=total[1:])
        pos = np.arange(self.n_rows) if at is None else at
        group = self.group if at is None else self.group[at]
        return total[pos] - total[self.starts[group]]

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
