"""The ordering of a prepared evaluation: rows laid out by group once, each new
set of scores sorted within the groups only.

A cold call sorts all n rows by (group, score): n log n comparisons on the whole
array. When the group codes (and the labels, which the tie rules
``"pessimistic"`` and ``"optimistic"`` read) are known before the scores, as
during training, the rows can be laid out once as a matrix with one row per
group, padded to the longest group; each set of scores is then sorted along the
matrix rows (n log L comparisons on short, cache-sized rows, L the longest
group). The order is the cold one: descending score, and inside a tie the rule
of ``ties`` (input order for ``"stable"``, least relevant first for
``"pessimistic"``, most relevant first for ``"optimistic"``, and input order
for the block rules ``"average"`` and ``"threshold"``, whose kernels sum a tie
block's rows in the order the sort left them: :func:`.ordering.order_rows` keeps
input order there too, so both give the same bits).

The groups are padded in width classes, not all to the longest group: the
groups sorted by length are split into at most :data:`_WIDTH_CLASSES` classes
of equal rows, each a matrix as wide as its longest group, sorted along its
rows in one call. Padding cells cost the sort as much as real ones, and the
order does not depend on the width. 1M rows in groups of 50-150 rows: 1.5
cells per row in one matrix, 1.04 in 16 classes (the key sort of one call 12.1
-> 9.4 ms); in groups of 1 to 1,530 rows (log-normal, as search logs have
them): 15 cells per row, not prepared at all before (3 at most), 1.25 now.

The sort along the rows is of integer keys, not an argsort of the scores: each
cell holds the score's bits mapped to an order-preserving int64 with its low
bits replaced by the cell's column, so ``np.sort`` of the keys (numpy's
vectorised sort, several times faster than a stable argsort) gives both the
order and, in the low bits, where each row came from; equal scores keep their
columns' order, the stable one. Only close scores whose bits differ in those
low bits alone can come out swapped: the scores read in the new order are
checked to never increase within a group, and a layout that fails the check is
ordered by the stable argsort instead, so the order is always the cold one.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import segments as seg
from .ordering import BLOCK_TIES, _group_ends, code_order

# The padded matrices may hold at most this many cells per row of the input; a
# layout whose width classes still pad more (lengths spread over orders of
# magnitude within one class) is not prepared.
_PAD_CELLS_PER_ROW = 3
# The most low bits of a key the column may take (rows up to 2**20 long); a
# wider layout sorts by the stable argsort.
_COLUMN_BITS = 20
# The low 63 bits: flipped in the keys of negative floats, so the int64 order of
# the keys is the order of the floats.
_MAGNITUDE = np.int64(0x7FFFFFFFFFFFFFFF)
# Fewer rows than this are sorted by the argsort: its few calls cost less than
# the key sort's dozen on a small eval set.
_KEY_SORT_ROWS = 1 << 14
# The most width classes of a layout (one matrix sort each).
_WIDTH_CLASSES = 16


def width_classes(length: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """Each group's first cell, and the classes as (first cell, groups, width):
    the groups by length, cut into at most :data:`_WIDTH_CLASSES` runs of about
    equal rows, each run a matrix as wide as its longest group. One class where
    padding every group to the longest adds under an eighth of the rows."""
    n_groups = length.shape[0]
    n, width = int(length.sum()), int(length.max()) if n_groups else 0
    if n_groups * width <= n + n // 8 or n_groups < _WIDTH_CLASSES:
        base = np.arange(n_groups, dtype=np.intp) * width
        return base, [(0, n_groups, width)]
    # Any order of equal lengths will do: a radix sort where lengths fit 16 bits.
    key = length.astype(np.uint16) if width < 1 << 16 else length
    by_length = np.argsort(key, kind="stable")
    ranked = length[by_length]
    rows = np.cumsum(ranked)
    targets = n * np.arange(1, _WIDTH_CLASSES) / _WIDTH_CLASSES
    cuts = np.searchsorted(rows, targets, side="left") + 1
    edges = np.unique(np.concatenate([[0], cuts[cuts < n_groups], [n_groups]]))
    counts = np.diff(edges)
    widths = ranked[edges[1:] - 1]
    offsets = np.zeros(counts.shape[0], dtype=np.intp)
    np.cumsum((counts * widths)[:-1], out=offsets[1:])
    # Slot of each group in its class, in length order: cell base = class
    # offset + slot * class width.
    slot = np.arange(n_groups, dtype=np.intp)
    slot -= np.repeat(edges[:-1], counts)
    base = np.empty(n_groups, dtype=np.intp)
    base[by_length] = np.repeat(offsets, counts) + slot * np.repeat(widths, counts)
    classes = list(zip(offsets.tolist(), counts.tolist(), widths.tolist(), strict=True))
    return base, classes


class GroupLayout:
    """The ranked rows of one input arranged by group, for any scores.

    Build it with :meth:`build` from the group code and label of each ranked row;
    :meth:`order` then gives what ``ordering.order_rows`` gives for those rows
    (the order, and for the block rules the tie continuation).
    """

    def __init__(
        self,
        by_group: np.ndarray | None,
        length: np.ndarray,
        ties: str,
        width: int,
        classes: tuple[np.ndarray, list[tuple[int, int, int]]] | None = None,
    ) -> None:
        n_groups, n = length.shape[0], int(length.sum())
        # by_group None: the rows are in group order already (no gathers).
        self.by_group, self.length, self.ties = by_group, length, ties
        self.group, self.rank = seg.positions(length, n)
        self.width = width
        # Where each row's group starts, and the row's matrix cell: its group's
        # row of its class's matrix, at column (row - first). Repeats and one
        # arange, no gather over the rows.
        starts = np.zeros(n_groups, dtype=np.intp)
        np.cumsum(length[:-1], out=starts[1:])
        self.first = np.repeat(starts, length)
        column = np.arange(n, dtype=np.intp)
        column -= self.first
        # (classes: width_classes(length), when the caller made them)
        base, self.classes = width_classes(length) if classes is None else classes
        self.cells = sum(count * w for _, count, w in self.classes)
        self.cell = np.repeat(base, length)
        self.cell += column
        self.ends = _group_ends(length, n)
        bits = max(width - 1, 1).bit_length()
        self._keys: np.ndarray | None = None
        self._low = np.int64((1 << min(bits, _COLUMN_BITS)) - 1)
        self._matrix: np.ndarray | None = None  # the argsort's, made on first use
        self._scratch: np.ndarray | None = None
        # The key matrix and work arrays are shared by every call: one at a time
        # (a prepared evaluation scored from several threads).
        self._lock = threading.Lock()
        if bits <= _COLUMN_BITS and n >= _KEY_SORT_ROWS:
            # The column of each row of by_group, and the key matrix. Padding
            # cells hold the largest key prefix (above every finite score's) and
            # their column: sorted, each row's padding stays where it was (its
            # columns are that row's last ones), so it is written once.
            self._column = column.astype(np.int64, copy=False)
            keys = np.empty(self.cells, dtype=np.int64)
            for first, count, w in self.classes:  # each cell's column
                keys[first : first + count * w].reshape(count, w)[...] = np.arange(w)
            keys |= _MAGNITUDE & ~self._low
            self._keys = keys

    @property
    def keyed(self) -> bool:
        """Whether scores are ordered by the sort of integer keys (else by
        the stable argsort of the score matrix)."""
        return self._keys is not None

    def __getstate__(self) -> dict[str, Any]:
        # Copies and pickles (clone, joblib workers) get their own lock and
        # work arrays.
        state = dict(self.__dict__)
        del state["_lock"]
        state["_scratch"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @classmethod
    def build(
        cls, codes: Any, labels: Any, n_groups: int, ties: str
    ) -> GroupLayout | None:
        """The layout of the ranked rows (``codes``, ``labels``: per ranked row,
        in input order), or None where it does not pay: arrays of another
        namespace, fewer than two rows, or groups too uneven to pad."""
        if not isinstance(codes, np.ndarray) or codes.size < 2:
            return None
        length = np.bincount(codes, minlength=n_groups)
        width = int(length.max())
        classes = None
        if n_groups * width > _PAD_CELLS_PER_ROW * codes.size:
            # Uneven groups: padded by width classes, most are prepared too.
            classes = width_classes(length)
            if sum(c * w for _, c, w in classes[1]) > _PAD_CELLS_PER_ROW * codes.size:
                return None
        # Inside each group, the order the tie rule keeps among equal scores:
        # input order, or by label (then input order) for the label rules.
        if ties == "pessimistic":
            by_group = np.lexsort((labels, codes))
        elif ties == "optimistic":
            by_group = np.lexsort((-labels, codes))
        elif (codes[1:] >= codes[:-1]).all():
            by_group = None  # rows come by query already (a boosting eval set)
        else:
            by_group = code_order(codes, n_groups)
        return cls(by_group, length, ties, width, classes)

    def order(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The rows ordered by group, then descending score (ties by the rule),
        and for the block rules whether each ranked row but the last is tied
        with the next one in its group."""
        order, same, _ = self.order_local(score)
        return order, same

    def in_groups(self, values: np.ndarray) -> np.ndarray:
        """Per-row ``values`` (input order) laid out by group: read with the
        local order of :meth:`order_local`, a gather within each group (cache
        friendly) instead of one across the whole input."""
        return values if self.by_group is None else values[self.by_group]

    def order_local(
        self, score: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """:meth:`order`, and the same order as positions in the rows laid out
        by group (:meth:`in_groups`)."""
        by_group = self.by_group
        in_groups = score if by_group is None else score[by_group]
        ranked = None
        with self._lock:
            if self._keys is not None and in_groups.dtype == np.float64:
                keyed = self._key_order(in_groups)
                if keyed is not None:
                    order, ranked = keyed
            if ranked is None:
                order = self._argsort_order(in_groups)
        local = order
        if by_group is not None:
            order = by_group[local]
        if self.ties not in BLOCK_TIES:
            return order, None, local
        if ranked is None:
            ranked = in_groups[local]
        same = np.equal(ranked[1:], ranked[:-1])
        same &= ~self.ends
        return order, same, local

    def _key_order(self, in_groups: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The order (positions in ``in_groups``, the scores in group order) by
        one sort of integer keys, and the scores read in it; None where close
        scores came out of order (see the module docstring)."""
        keys, low, n = self._keys, self._low, in_groups.shape[0]
        if self._scratch is None:  # two work arrays of n, kept for every call:
            # fresh ones cost their page faults again each round
            self._scratch = np.empty((2, n), dtype=np.int64)
        key, work = self._scratch
        # 0 - score: descending scores ascend, and -0.0 becomes 0.0 (equal
        # floats, one key).
        np.subtract(0.0, in_groups, out=key.view(np.float64))
        np.right_shift(key, 63, out=work)
        work &= _MAGNITUDE
        key ^= work
        key &= ~low
        key |= self._column
        keys[self.cell] = key
        for first, count, w in self.classes:
            if w > 1:  # groups of one row are in order
                keys[first : first + count * w].reshape(count, w).sort(axis=1)
        # mode="wrap": every cell is in range, and the default "raise" with out=
        # gathers into a buffer first (twice the time)
        column = np.take(keys, self.cell, out=work, mode="wrap")
        column &= low
        order = np.add(self.first, column)
        ranked = np.take(in_groups, order)
        # Descending within each group, else two close scores were swapped.
        rises = np.greater(ranked[1:], ranked[:-1])
        rises &= ~self.ends
        if rises.any():
            return None
        return order, ranked

    def _argsort_order(self, in_groups: np.ndarray) -> np.ndarray:
        """The order by a stable argsort along the rows of a float matrix."""
        matrix = self._matrix
        if matrix is None:
            # Padding cells are never written: +inf once, after every score.
            matrix = self._matrix = np.full(self.cells, np.inf)
        matrix[self.cell] = -in_groups
        within = np.zeros(self.cells, dtype=np.intp)
        for first, count, w in self.classes:
            if w > 1:  # groups of one row: column 0
                part = slice(first, first + count * w)
                within[part] = np.argsort(
                    matrix[part].reshape(count, w), axis=1, kind="stable"
                ).ravel()
        return self.first + within[self.cell]
