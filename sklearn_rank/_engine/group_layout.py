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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import _positions
from .ordering import BLOCK_TIES, _group_ends

# The padded matrix may hold at most this many cells per row of the input; a
# more skewed layout (one long group among many short ones) is not prepared.
_PAD_CELLS_PER_ROW = 3


class GroupLayout:
    """The ranked rows of one input arranged by group, for any scores.

    Build it with :meth:`build` from the group code and label of each ranked row;
    :meth:`order` then gives what ``ordering.order_rows`` gives for those rows
    (the order, and for the block rules the tie continuation).
    """

    def __init__(
        self, by_group: np.ndarray | None, length: np.ndarray, ties: str, width: int
    ) -> None:
        n_groups, n = length.shape[0], int(length.sum())
        # by_group None: the rows are in group order already (no gathers).
        self.by_group, self.length, self.ties = by_group, length, ties
        self.group, self.rank = _positions(length, n)
        self.width = width
        # The matrix cell of each row of by_group, and where its group starts.
        self.cell = self.group * width + (self.rank - 1)
        starts = np.zeros(n_groups, dtype=np.intp)
        np.cumsum(length[:-1], out=starts[1:])
        self.first = starts[self.group]
        self.ends = _group_ends(length, n)
        # Padding cells are never written: +inf once, after every (finite) score.
        self._matrix = np.full(n_groups * width, np.inf)

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
        if n_groups * width > _PAD_CELLS_PER_ROW * codes.size:
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
            by_group = np.argsort(codes, kind="stable")
        return cls(by_group, length, ties, width)

    def order(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The rows ordered by group, then descending score (ties by the rule),
        and for the block rules whether each ranked row but the last is tied
        with the next one in its group."""
        matrix = self._matrix
        by_group = self.by_group
        matrix[self.cell] = -(score if by_group is None else score[by_group])
        within = np.argsort(matrix.reshape(-1, self.width), axis=1, kind="stable")
        order = self.first + within.ravel()[self.cell]
        if by_group is not None:
            order = by_group[order]
        if self.ties not in BLOCK_TIES:
            return order, None
        ranked = score[order]
        same = np.equal(ranked[1:], ranked[:-1])
        same &= ~self.ends
        return order, same
