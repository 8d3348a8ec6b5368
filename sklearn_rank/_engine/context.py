"""The grouped engine: order rows once, find tie blocks once.

Group ids arrive encoded (``_group_codes``); every metric kernel reads a
:class:`RankingContext` and reduces through the primitives of ``_segments``.
Within each group the ranked rows are ordered by descending score; rows with
equal scores in one group form a *tie block*. With ``ties="average"`` kernels take
the exact expectation over the orders of each block, and with ``ties="threshold"``
they read each block as one score threshold (:data:`BLOCK_TIES`); with the other
policies the order is fully resolved by the sort and every row is a block of its
own.

The row order itself (``order_rows`` and its fast paths) is computed in
``ordering.py``; this module holds what is read off it: the tie blocks, the
label-only totals of each group and the context the kernels take.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import segments as seg
from .group_layout import GroupLayout
from .ordering import BLOCK_TIES, kept_in_place, order_rows, radix_scores
from .reduce import fill_weight

# A cutoff view is cut out only when it keeps less than this share of the rows.
_HEAD_SHARE = 0.5


def _device(x: Any) -> Any:
    """The device of an array (None for numpy, whose creation functions take it)."""
    return None if isinstance(x, np.ndarray) else x.device


# Index dtype: numpy's intp on the numpy path, int64 in other namespaces.
_INDEX = {True: lambda xp: np.intp, False: lambda xp: xp.int64}


class TieBlocks:
    """Runs of equal scores inside a group (:data:`BLOCK_TIES` only), stored for the
    tied rows alone; every other row is a block of its own, so kernels compute on
    plain rows and correct the tied ones.

    Attributes
    ----------
    start, size : ndarray
        First ranked row and number of rows of each block.
    rank, group : ndarray
        First 1-based position in the group, and group code, of each block.
    rows, offsets : ndarray
        The ranked rows of every block, block after block, and where each block
        starts in ``rows``.
    """

    def __init__(
        self,
        start: Any,
        size: Any,
        rank: Any,
        group: Any,
        cont: Any | None = None,
    ) -> None:
        self.xp = seg.array_namespace(rank)
        self.start, self.size = start, size
        self.rank, self.group = rank[start], group[start]
        # The tie continuation the blocks came from (from_continuation), for
        # the row mask.
        self._cont = cont
        # The row mask, rows and offsets on first use: a view whose kernels
        # read only a cutoff view's blocks (ndcg@10 on long lists) never needs
        # them.
        self._mask: Any = None
        self._rows: Any = None
        self._offsets: Any = None

    @property
    def rows(self) -> Any:
        if self._rows is None:
            # Blocks are disjoint runs in ranked order, so their rows, block
            # after block, are the tied rows in order.
            self._rows = seg.ranges(self.start, self.size)
        return self._rows

    @property
    def offsets(self) -> Any:
        if self._offsets is None:
            size = self.size
            if self.xp is np:
                self._offsets = np.zeros(size.size, dtype=np.intp)
                np.cumsum(size[:-1], out=self._offsets[1:])
            else:
                self._offsets = self.xp.cumulative_sum(size, include_initial=True)[:-1]
        return self._offsets

    @classmethod
    def find(cls, score: Any | None, rank: Any, group: Any) -> TieBlocks:
        """Blocks of the ordered ``score`` (None: no blocks)."""
        cont = None
        if score is not None and score.shape[0] > 1:
            # A tie continues where the score repeats inside the same group.
            cont = score[1:] == score[:-1]
            cont &= rank[1:] > 1
        return cls.from_continuation(cont, rank, group)

    @classmethod
    def from_continuation(cls, cont: Any | None, rank: Any, group: Any) -> TieBlocks:
        """Blocks from ``cont[i]``: ranked row i is tied with row i + 1."""
        xp = seg.array_namespace(rank)
        dev = _device(rank)
        empty = xp.zeros(0, dtype=_INDEX[xp is np](xp), device=dev)
        if cont is None:
            return cls(empty, empty, rank, group)
        # +1 where a run of tied pairs starts, -1 just after it ends: the block
        # spans the run's first row to the row after its last pair.
        if xp is np:
            if not cont.any():
                return cls(empty, empty, rank, group)
            edge = np.diff(cont.view(np.int8), prepend=np.int8(0), append=np.int8(0))
            edges = np.flatnonzero(edge)  # starts and ends alternate: one pass
            start = edges[0::2]
            size = edges[1::2] - start + 1
        else:  # starts and ends alternate: one search, one wait for the device
            zero = xp.zeros(1, dtype=xp.int8, device=rank.device)
            edge = xp.diff(xp.astype(cont, xp.int8), prepend=zero, append=zero)
            edges = seg.flatnonzero(edge != 0)
            if not edges.shape[0]:
                return cls(empty, empty, rank, group)
            pair = xp.arange(0, edges.shape[0], 2, device=dev)  # contiguous picks
            start = xp.take(edges, pair)
            size = xp.take(edges, pair + 1) - start + 1
        return cls(start, size, rank, group, cont)

    def __bool__(self) -> bool:
        return self.size.shape[0] > 0

    def row_mask(self, n_rows: int) -> Any:
        """Per ranked row of the view, whether it belongs to a tie block (cached)."""
        if self._mask is None:
            xp, cont = self.xp, self._cont
            if cont is not None and cont.shape[0] + 1 == n_rows:
                mask = xp.zeros(n_rows, dtype=xp.bool, device=_device(cont))
                mask[:-1] = cont  # tied with the next row
                mask[1:] |= cont  # or with the previous one
                self._mask = mask
            else:
                mask = xp.zeros(n_rows, dtype=xp.bool, device=_device(self.rows))
                self._mask = seg.put(mask, self.rows, True)
        return self._mask

    def sum(self, values: Any) -> Any:
        """Sum of per-row values over each block."""
        return seg.block_sum(values, self.rows, self.offsets)

    def min(self, values: Any) -> Any:
        return seg.block_min(values, self.rows, self.offsets)

    def max(self, values: Any) -> Any:
        return seg.block_max(values, self.rows, self.offsets)

    def spread(self, block_values: Any) -> Any:
        """Per-block values repeated for each row of the block."""
        return seg.repeat(block_values, self.size, self.rows.shape[0])

    def block_of(self, positions: Any) -> Any:
        """Index of the block holding each position, -1 for untied rows."""
        xp = self.xp
        block = xp.searchsorted(self.start, positions, side="right") - 1
        at = xp.where(block >= 0, block, xp.zeros_like(block))
        end = xp.take(self.start, at) + xp.take(self.size, at)
        inside = (block >= 0) & (positions < end)
        return xp.where(inside, block, -1)


class GroupTotals:
    """What every view of one input shares: per-group facts over all rows (ranked
    or not) and the caches of values that do not depend on the view."""

    def __init__(
        self,
        y_true: np.ndarray,
        y_score: np.ndarray,
        codes: np.ndarray,
        n_groups: int,
        ties: str,
        sample_weight: np.ndarray | None,
        ranked_rows: np.ndarray | slice | None,
        judged: np.ndarray | None = None,
        in_pool: np.ndarray | None = None,
    ) -> None:
        self.y_all, self.y_score, self.codes_all = y_true, y_score, codes
        self.n_groups, self.ties, self.sample_weight = n_groups, ties, sample_weight
        self.ranked_rows = ranked_rows  # None: every row is ranked
        self.judged_all = judged  # None: every row is judged
        # In the judgment pool (judged, or pooled without a judgement: trec_eval's
        # negative grades, which infAP reads); None: no row is pooled unjudged.
        self.in_pool_all = in_pool
        # How row weights become group weights (the group_weight keyword) and
        # the relevance threshold "relevant_mean" reads.
        self.weight_rule: tuple[str, float | None] = ("mean", None)
        # Values of the labels, groups and masks alone (ideal DCG, R, counts):
        # shared by every set of scores of a prepared evaluation (with_scores).
        self._cache: dict[Any, Any] = {}
        self._scored: dict[Any, Any] = {}  # values that depend on the scores too

    @classmethod
    def from_inputs(
        cls,
        y_true: Any,
        codes: Any,
        n_groups: int,
        *,
        ties: str,
        retrieved: Any | None = None,
        sample_weight: Any | None = None,
        judged: Any | None = None,
        in_pool: Any | None = None,
        group_weight: str = "mean",
        relevance_threshold: float | None = None,
    ) -> GroupTotals:
        """The per-group facts of one input without scores (``y_score`` None):
        give scores with :meth:`with_scores`. ``group_weight`` and
        ``relevance_threshold`` say how row weights become group weights
        (:meth:`group_weight`)."""
        rows = None
        if retrieved is not None and not bool(
            seg.array_namespace(retrieved).all(retrieved)
        ):
            rows = seg.flatnonzero(retrieved)
            if isinstance(rows, np.ndarray) and rows.size and rows[-1] == rows.size - 1:
                # The ranked rows come first (a TREC join): a slice, whose
                # gathers are views (read-only uses), not copies of n.
                rows = slice(0, rows.size)
        totals = cls(
            y_true, None, codes, n_groups, ties, sample_weight, rows, judged, in_pool
        )
        totals.weight_rule = (group_weight, relevance_threshold)
        return totals

    def with_scores(self, y_score: Any) -> GroupTotals:
        """These facts with the scores ``y_score``: the cache of label-only
        values is shared (computed once for every set of scores), the values
        that depend on the scores start empty."""
        scored = copy.copy(self)
        scored.y_score, scored._scored = y_score, {}
        return scored

    def cached_scored(self, key: Any, compute: Callable[[], Any]) -> Any:
        """:meth:`cached` for a value that depends on the scores as well."""
        if key not in self._scored:
            self._scored[key] = compute()
        return self._scored[key]

    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per key for this input."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def n_relevant(self, threshold: float | None) -> np.ndarray:
        """R per group: relevant rows, retrieved or not, among the judged ones
        (an unjudged row's label, which only the command line's ``-l`` below 0
        gives, counts at its rank alone, as trec_eval's num_rel)."""

        def count() -> np.ndarray:
            # The ideal DCG's (label, group) count table, when it made one for
            # this input (small whole labels): the counts of levels >= threshold.
            table = self._cache.get("label_counts")
            if self.judged_all is not None:
                table = None  # a table of every row's label
            if table is not None and (threshold is None or math.isfinite(threshold)):
                low = 1 if threshold is None else max(math.ceil(threshold), 0)
                low = min(low, table.shape[0])  # past the top label: no row
                return seg.array_namespace(table).sum(table[low:, ...], axis=0)
            return seg.segment_count(
                self.codes_all[self.relevant_all(threshold)], self.n_groups
            )

        return self.cached(("R", threshold), count)

    def relevant_all(self, threshold: float | None) -> np.ndarray:
        """Whether each row, ranked or not, counts in R: relevant and judged."""
        y = self.y_all
        rel = y > 0 if threshold is None else y >= threshold
        return rel if self.judged_all is None else rel & self.judged_all

    def n_judged_non_relevant(self, threshold: float | None) -> np.ndarray:
        """Judged non-relevant rows per group, retrieved or not (bpref's N)."""

        def count() -> np.ndarray:
            size = self.size()
            if self.judged_all is not None:
                unjudged = self.codes_all[~self.judged_all]
                size = size - seg.segment_count(unjudged, self.n_groups)
            return size - self.n_relevant(threshold)

        return self.cached(("N_judged", threshold), count)

    def size(self) -> Any:
        """Rows per group, ranked or not (int64)."""
        return self.cached(
            "size", lambda: seg.segment_count(self.codes_all, self.n_groups)
        )

    def group_weight(self) -> np.ndarray:
        """Each group's weight from its rows' sample weights (ones without weights):
        their mean, or under ``weight_rule`` "relevant_mean" their mean over the
        relevant rows (TF-Ranking's ``_per_example_weights_to_per_list_weights``)."""

        def mean_weight() -> np.ndarray:
            xp, y = seg.array_namespace(self.y_all), self.y_all
            if self.sample_weight is None:
                return xp.ones(self.n_groups, dtype=y.dtype, device=_device(y))
            size = xp.astype(self.size(), y.dtype)
            total = seg.segment_sum(self.codes_all, self.sample_weight, self.n_groups)
            if self.weight_rule[0] == "mean":
                return total / xp.clip(size, 1, None)
            return self._relevant_mean_weight(total)

        return self.cached("weight", mean_weight)

    def relevant_mean_parts(self) -> tuple[Any, Any, Any]:
        """The parts of the "relevant_mean" weights: Σ_relevant w / R per group
        (0 where R = 0), the groups with a relevant row, and the groups of
        positive total weight (the ones a fill weight applies to or enters)."""
        threshold = self.weight_rule[1]
        y = self.y_all
        xp = seg.array_namespace(y)
        rel = y > 0 if threshold is None else y >= threshold
        n_rel = xp.astype(self.n_relevant(threshold), y.dtype)
        w_rel = seg.segment_sum(
            self.codes_all[rel], self.sample_weight[rel], self.n_groups
        )
        total = seg.segment_sum(self.codes_all, self.sample_weight, self.n_groups)
        has_rel = n_rel > 0
        return seg.divide(w_rel, n_rel, has_rel, 0.0), has_rel, total > 0

    def _relevant_mean_weight(self, total: np.ndarray) -> np.ndarray:
        """Σ_relevant w / R per group; a group with R = 0 takes the fill weight
        (:func:`~sklearn_rank._engine.reduce.fill_weight`) and a group of total
        weight 0 weighs 0, as TF-Ranking's per-list weights."""
        y = self.y_all
        xp = seg.array_namespace(y)
        weight, has_rel, positive = self.relevant_mean_parts()
        counted = has_rel & positive
        # The fill from on-device sums (no host round trip).
        n_counted = xp.sum(xp.astype(counted, y.dtype))
        fill = fill_weight(xp.sum(xp.where(counted, weight, 0.0)), n_counted, xp)
        weight = xp.where(has_rel, weight, fill)
        return xp.where(total <= 0, 0.0, weight)

    def ranked(self, values: Any) -> Any:
        """Per-row ``values`` of the ranked rows, in input order."""
        return values if self.ranked_rows is None else values[self.ranked_rows]


class RankingContext:
    """The ordered view of one set of inputs that every kernel reads.

    Per ranked position it holds the label ``y``, the group code ``group`` and the
    1-based position within the group ``rank``; ``blocks`` holds the tie blocks
    (:class:`TieBlocks`) and ``totals`` the per-group facts shared by every view
    (:class:`GroupTotals`). Build one with :meth:`from_inputs`; :meth:`head` and
    :meth:`pooled` build derived views through the same constructor.

    Why one class over the size line: it is the one object every kernel reads;
    its methods are small views and caches of the same arrays (head views, tie
    block means, per-group sums, relevance masks) that share one cache and one
    array namespace, and splitting them apart would hand kernels several objects
    that must be kept in step.

    Parameters
    ----------
    totals : GroupTotals
    y, group, rank : ndarray of shape (n_view,)
        Label, group code and 1-based position of each ranked row, in ranked order.
    length : ndarray of shape (n_groups,)
        Full ranked-list length of each group (kept by head views, for precision
        denominators).
    blocks : TieBlocks
    row_weight : ndarray or None
        Sample weight of each ranked row, for the pooled AUC's pair weights.
    sizes : ndarray of shape (n_groups,), default=None
        Rows of each group in this view, when the caller already has them.
    judged : ndarray of bool or None, default=None
        Whether each ranked row is judged; None when every row is.
    in_pool : ndarray of bool or None, default=None
        Whether each ranked row is in the judgment pool (judged, or pooled
        without a judgement); None when no row is pooled without a judgement.
    """

    # The array namespace, device and float dtype kernels compute in (numpy, the
    # host and float64 unless the inputs are array API arrays under dispatch).
    xp: Any = np
    device: Any = None
    float: Any = np.float64
    # The ranked rows in ranked order, as positions among the ranked input rows
    # (set by :meth:`from_scores`; None on derived views): kernels of per-row
    # data the view does not carry (intent labels) take it in this order.
    _order: Any = None
    _order_in_place = False  # the ranked rows already in order: ``order`` is 0..n-1

    @property
    def order(self) -> Any:
        if self._order is None and self._order_in_place:
            return np.arange(self.n_rows)
        return self._order

    @order.setter
    def order(self, value: Any) -> None:
        self._order = value

    def __init__(
        self,
        totals: GroupTotals,
        y: np.ndarray,
        group: np.ndarray,
        rank: np.ndarray,
        length: np.ndarray,
        blocks: TieBlocks,
        row_weight: np.ndarray | None,
        sizes: np.ndarray | None = None,
        judged: np.ndarray | None = None,
        in_pool: np.ndarray | None = None,
    ) -> None:
        self.totals, self.n_groups = totals, totals.n_groups
        self.judged, self.in_pool = judged, in_pool
        self.group, self.rank, self.length = group, rank, length
        self.blocks, self.row_weight = blocks, row_weight
        # y_lazy: the labels as (source, index), gathered on first read of y; a
        # head view reads only its rows through the index (ndcg@10 on long
        # lists never gathers every label).
        self._y, self._y_lazy = (None, y) if isinstance(y, tuple) else (y, None)
        self.n_rows = group.shape[0]
        if sizes is None:  # rows per group in this view
            sizes = seg.segment_count(group, self.n_groups)
        if isinstance(group, np.ndarray):
            self.starts = np.zeros(self.n_groups + 1, dtype=np.intp)
            np.cumsum(sizes, out=self.starts[1:])
        else:  # another namespace: its device, and float64 unless it has none
            xp = self.xp = seg.array_namespace(self.y)
            self.device, self.float = self.y.device, self.y.dtype
            self.starts = xp.cumulative_sum(sizes, include_initial=True)
        self._views: dict[Any, Any] = {}

    @property
    def y(self) -> Any:
        """Label of each ranked row, in ranked order."""
        if self._y is None:
            source, index = self._y_lazy
            self._y, self._y_lazy = source[index], None
        return self._y

    def _y_of(self, rows: Any) -> Any:
        """``self.y[rows]``, without gathering every label first."""
        if self._y is None:
            source, index = self._y_lazy
            return source[index[rows]]
        return self._y[rows]

    @classmethod
    def from_inputs(
        cls,
        y_true: np.ndarray,
        y_score: np.ndarray,
        codes: np.ndarray,
        n_groups: int,
        *,
        ties: str,
        retrieved: np.ndarray | None = None,
        sample_weight: np.ndarray | None = None,
        judged: np.ndarray | None = None,
        in_pool: np.ndarray | None = None,
        group_weight: str = "mean",
        relevance_threshold: float | None = None,
    ) -> RankingContext:
        """Order the ranked rows by group, then descending score, once.
        ``group_weight`` and ``relevance_threshold`` say how row weights become
        group weights (:meth:`GroupTotals.group_weight`)."""
        totals = GroupTotals.from_inputs(
            y_true,
            codes,
            n_groups,
            ties=ties,
            retrieved=retrieved,
            sample_weight=sample_weight,
            judged=judged,
            in_pool=in_pool,
            group_weight=group_weight,
            relevance_threshold=relevance_threshold,
        )
        return cls.from_scores(totals, y_score)

    @classmethod
    def from_scores(
        cls, totals: GroupTotals, y_score: Any, layout: Any | None = None
    ) -> RankingContext:
        """The ordered view of ``totals`` (made once per labels) under the scores
        ``y_score`` (one per row of the input). ``layout``: an ordering of the
        ranked rows prepared from the group codes (``GroupLayout``, the same
        order as :func:`order_rows`), else :func:`order_rows`."""
        return cls._ordered(totals.with_scores(y_score), totals.ties, layout)

    @classmethod
    def _ordered(
        cls, totals: GroupTotals, ties: str, layout: Any | None = None
    ) -> RankingContext:
        y_r, s_r = totals.ranked(totals.y_all), totals.ranked(totals.y_score)
        c_r = totals.ranked(totals.codes_all)
        n_groups = totals.n_groups
        local = None
        transient = layout is None
        if transient:
            layout = _transient_layout(c_r, s_r, y_r, ties, n_groups)
        if layout is not None:
            length = layout.length
            order, tied_next, local = layout.order_local(s_r)
        else:
            length = seg.segment_count(c_r, n_groups)
            order, tied_next = None, None  # None: every row in place
            if not kept_in_place(c_r, s_r, ties):
                order, tied_next = order_rows(c_r, s_r, y_r, ties, n_groups, length)
        if totals.ranked_rows is None:  # every row ranked: the same counts
            totals.cached("size", lambda: length)
        if layout is not None:
            group, rank = layout.group, layout.rank
        else:
            group, rank = seg.positions(length, y_r.shape[0])

        def in_order(values):  # no copy where every row stays in place
            return values if order is None else values[order]

        if ties not in BLOCK_TIES:
            blocks = TieBlocks.find(None, rank, group)
        elif tied_next is not None:  # the ordering compared the keys already
            blocks = TieBlocks.from_continuation(tied_next, rank, group)
        else:
            blocks = TieBlocks.find(in_order(s_r), rank, group)
        row_weight = None
        if totals.sample_weight is not None:
            row_weight = in_order(totals.ranked(totals.sample_weight))
        judged = None
        if totals.judged_all is not None:
            judged = in_order(totals.ranked(totals.judged_all))
        in_pool = None
        if totals.in_pool_all is not None:
            in_pool = in_order(totals.ranked(totals.in_pool_all))
        if local is not None and layout.by_group is not None and not transient:
            # The labels laid out by group once per layout (they do not change
            # with the scores): a gather within groups, not across the input.
            # A layout made for this call alone is not kept in the cache.
            def by_group():
                return layout, layout.in_groups(y_r)

            kept, y_grouped = totals.cached(("labels by group", id(layout)), by_group)
            y_ordered = (y_grouped, local) if kept is layout else in_order(y_r)
        else:
            y_ordered = y_r if order is None else (y_r, order)
        ctx = cls(
            totals,
            y_ordered,
            group,
            rank,
            length,
            blocks,
            row_weight,
            sizes=length,
            judged=judged,
            in_pool=in_pool,
        )
        if order is not None:
            ctx.order = order
        else:  # made when a kernel asks (memory: an array of n kept otherwise)
            ctx._order_in_place = True
        return ctx

    @property
    def thresholds(self) -> bool:
        """Whether a tie block is one score threshold (``ties="threshold"``): the
        kernels that read a precision at a relevant row (AP, RR, interpolated
        precision) read it at the block's last position. Every other kernel
        treats the blocks of both :data:`BLOCK_TIES` alike (block expectations)."""
        return self.totals.ties == "threshold"

    # -- per-group facts shared by every view
    def n_relevant(self, threshold: float | None) -> np.ndarray:
        return self.totals.n_relevant(threshold)

    def n_judged_non_relevant(self, threshold: float | None) -> np.ndarray:
        return self.totals.n_judged_non_relevant(threshold)

    def group_weight(self) -> np.ndarray:
        return self.totals.group_weight()

    def relevant(self, threshold: float | None) -> np.ndarray:
        """Relevance of each ranked row (``y > 0`` or ``y >= threshold``)."""
        key = ("rel", threshold)
        if key not in self._views:
            y = self.y
            self._views[key] = y > 0 if threshold is None else y >= threshold
        return self._views[key]

    def judged_relevant(self, threshold: float | None) -> np.ndarray:
        """:meth:`relevant` among the judged rows (bpref's and infAP's relevant
        rows; the same rows unless the command line's ``-l`` is below 0)."""
        rel = self.relevant(threshold)
        return rel if self.judged is None else rel & self.judged

    # -- derived views
    def head(self, k: int | None) -> RankingContext:
        """The view restricted to rows whose tie block starts at a position <= k.

        Every cutoff metric at ``k`` reads only these rows: a block straddling the
        cutoff is kept whole, so its tie expectation stays exact.
        """
        if k is None:
            return self
        key = ("head", k)
        if key not in self._views and self.xp is np and self.n_rows:
            # Every row at a position <= k is kept: when those alone reach the
            # share below which a subset pays, no row mask is needed (a per-group
            # count against three passes over the rows).
            at_least = int(np.minimum(self.length, k).sum())
            if at_least >= _HEAD_SHARE * self.n_rows:
                self._views[key] = None
        if key not in self._views:
            # Every view's rows of a group are its positions 1..m in order, so
            # the kept rows are a prefix of each group: its first min(m, k)
            # rows and the tail of the one tie block that may straddle k (a
            # block starting past k has no row at or before it). Built from
            # per-group counts, without a pass over the rows.
            xp = self.xp
            first = self.starts[:-1]
            count = xp.clip(self.starts[1:] - first, None, k)
            if self.blocks:
                b = self.blocks
                past = b.rank + b.size - (k + 1)  # rows of each block past k
                cross = (b.rank <= k) & (past > 0)
                at = b.group[cross]
                count = seg.put(count, at, seg.take(count, at) + past[cross])
            n_keep = int(xp.sum(count))
            # Kernels mask positions beyond k themselves; the subset only pays
            # when it drops many rows.
            small = n_keep < _HEAD_SHARE * self.n_rows
            # None stands for this view itself: a view holding itself would be a
            # reference cycle, and its arrays (hundreds of MB on large inputs)
            # would stay alive after the call until the garbage collector runs.
            view = None
            if small:
                # A cut at a deeper cutoff made already holds these rows as the
                # first count[g] of each of its groups (prefixes, and whole
                # blocks that start by k): gathered from its shorter arrays
                # (precision@5 after ndcg@10), the same rows in the same order.
                base = self._deeper_head(k) or self
                view = base._subset(seg.ranges(base.starts[:-1], count, n_keep), k)
            self._views[key] = view
        view = self._views[key]
        return self if view is None else view

    def _deeper_head(self, k: int) -> RankingContext | None:
        """The cut of this view at the smallest cutoff above ``k`` made so far
        (one that dropped rows), or None."""
        best, best_k = None, None
        for key, view in self._views.items():
            if not (isinstance(key, tuple) and len(key) == 2 and key[0] == "head"):
                continue
            if view is not None and key[1] > k and (best_k is None or key[1] < best_k):
                best, best_k = view, key[1]
        return best

    def _subset(self, rows: np.ndarray, k: int) -> RankingContext:
        kept = self.blocks.rank <= k
        group, rank = self.group[rows], self.rank[rows]
        start = self.xp.searchsorted(rows, self.blocks.start[kept])
        blocks = TieBlocks(start, self.blocks.size[kept], rank, group)
        weight = None if self.row_weight is None else self.row_weight[rows]
        judged = None if self.judged is None else self.judged[rows]
        in_pool = None if self.in_pool is None else self.in_pool[rows]
        return RankingContext(
            self.totals,
            self._y_of(rows),
            group,
            rank,
            self.length,
            blocks,
            weight,
            judged=judged,
            in_pool=in_pool,
        )

    def pooled(self) -> RankingContext:
        """All ranked rows as a single list (for the pooled AUC), cached."""
        totals = self.totals
        if totals.n_groups == 1 and totals.ranked_rows is None:
            return self

        def build() -> RankingContext:
            one = GroupTotals(
                totals.ranked(totals.y_all),
                totals.ranked(totals.y_score),
                self.xp.zeros(self.n_rows, dtype=self.group.dtype, device=self.device),
                1,
                totals.ties,
                None
                if totals.sample_weight is None
                else totals.ranked(totals.sample_weight),
                None,
            )
            return RankingContext._ordered(one, totals.ties)

        return totals.cached_scored("pooled", build)

    # -- positional expectations under averaged ties
    def block_mean(self, values: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``values`` over its tie block: the expected value of
        a positional quantity when the block is ordered uniformly at random. May
        overwrite and return ``values``."""
        if self.blocks:
            b = self.blocks
            size = self.xp.astype(b.size, values.dtype)
            values = seg.put(values, b.rows, b.spread(b.sum(values) / size))
        return values

    def in_top(self, k: int | np.ndarray | None) -> np.ndarray:
        """Per row, the probability of landing at a position <= k (``k`` an int or
        one cutoff per group): the share of its tie block inside the cutoff."""
        xp, f = self.xp, self.float
        if k is None:
            return xp.ones(self.n_rows, dtype=f, device=self.device)
        scalar = isinstance(k, (int, np.integer))
        k_rows = k if scalar else k[self.group]
        inside = xp.astype(self.rank <= k_rows, f)
        if self.blocks:
            b = self.blocks
            k_ties = k if scalar else k[b.group]
            share = xp.astype(xp.clip(k_ties - b.rank + 1, 0, b.size), f)
            inside = seg.put(inside, b.rows, b.spread(share / xp.astype(b.size, f)))
        return inside

    def hits_in_top(self, k: Any, threshold: float | None) -> Any:
        """Per group, E[relevant rows at positions <= k] for one cutoff per group
        (``k`` of shape (n_groups,)): the running sum of each position's expected
        relevance (its tie block's mean), read at position ``min(k, rows of the
        group in this view)``.
        The running sum is made once per view and threshold, so many cutoffs
        (trec_eval's Rprec_mult family) cost one gather each, not a pass."""
        xp = self.xp
        if not self.n_rows:
            return xp.zeros(self.n_groups, dtype=self.float, device=self.device)
        key = ("hits_prefix", threshold)
        if key not in self._views:
            rel = self.block_mean(xp.astype(self.relevant(threshold), self.float))
            self._views[key] = self.group_exclusive_cumsum(rel) + rel
        prefix = self._views[key]
        first = self.starts[:-1]
        # The view's own rows per group (a cutoff view keeps fewer than length).
        reach = xp.minimum(xp.astype(k, self.starts.dtype), self.starts[1:] - first)
        inside = reach > 0
        last = xp.where(inside, first + reach - 1, 0)
        return xp.where(inside, seg.take(prefix, last), 0.0)

    # -- segment reductions over groups (see _segments)
    def group_sum(
        self, values: np.ndarray, index: np.ndarray | None = None
    ) -> np.ndarray:
        """Sum per group of per-row (``index=None``) or indexed values."""
        idx = self.group if index is None else index
        return seg.segment_sum(idx, values, self.n_groups)

    def group_exclusive_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``values`` over the earlier rows of its group."""
        return seg.exclusive_cumsum(values, self.group, self.starts, self.n_groups)

    def group_exclusive_cumsum_at(self, values: Any, rows: Any) -> Any:
        """:meth:`group_exclusive_cumsum` of a per-row vector that is 0 outside
        the rows of index ``rows`` (ascending), read at those rows: the sums of
        the listed rows alone, each group's from 0 in row order as the full
        vector's (adding 0 is exact), without a pass over every row."""
        group = seg.take(self.group, rows)
        count = seg.segment_count(group, self.n_groups)
        if isinstance(count, np.ndarray):
            starts = np.zeros(self.n_groups + 1, dtype=np.intp)
            np.cumsum(count, out=starts[1:])
        else:
            starts = self.xp.cumulative_sum(count, include_initial=True)
        return seg.exclusive_cumsum(values, group, starts, self.n_groups)

    def group_count_before(self, mask: Any, at: Any) -> Any:
        """At each row where ``at`` holds (in row order), the rows of ``mask``
        earlier in its group, as floats: :meth:`group_exclusive_cumsum` of
        ``mask`` read at those rows, counted over the rows of either mask
        alone (the same whole numbers)."""
        rows = seg.flatnonzero(mask | at)
        ones = self.xp.astype(seg.take(mask, rows), self.float)
        before = self.group_exclusive_cumsum_at(ones, rows)
        return seg.take(before, seg.flatnonzero(seg.take(at, rows)))

    def first_in_group(self, mask: np.ndarray) -> np.ndarray:
        """Position of the first row with ``mask`` in each group, -1 if none."""
        return seg.first_in_segment(mask, self.group, self.n_groups)

    def segmented_cumprod(self, values: np.ndarray) -> np.ndarray:
        """Inclusive running product within each group."""
        return seg.segment_cumprod(values, self.rank)


# From this many rows, a cold call lays its rows out by group for one call (as a
# prepared evaluation does once): a radix pass over the group codes and a sort
# along each group's matrix row beat one sort of all n rows (1.5x at 1M rows).
_TRANSIENT_LAYOUT_ROWS = 1 << 15


def _transient_layout(
    codes: Any, score: Any, labels: Any, ties: str, n_groups: int
) -> Any | None:
    """A :class:`~.group_layout.GroupLayout` to order one call's rows, or None
    where :func:`~.ordering.order_rows` is the cheaper: few rows, one group,
    rows already in order, the label tie rules (a lexsort either way), scores
    other than float64, small whole-number scores (its radix pass is the
    faster), or groups too uneven to pad or too long to key."""
    if (
        not isinstance(score, np.ndarray)
        or score.dtype != np.float64
        or score.shape[0] < _TRANSIENT_LAYOUT_ROWS
        or n_groups < 2
        or ties not in ("stable", *BLOCK_TIES)
        or kept_in_place(codes, score, ties)
        or radix_scores(score)
    ):
        return None
    layout = GroupLayout.build(codes, labels, n_groups, ties)
    return layout if layout is not None and layout.keyed else None
