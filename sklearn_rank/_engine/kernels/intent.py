"""Intent-aware (diversity) metrics over relevance per (row, intent): alpha-nDCG
and nERR-IA with ndeval's greedy ideal, alpha-DCG and ERR-IA as ndeval prints
them, NRBP and nNRBP, MAP-IA, precision-IA and subtopic (intent) recall.

Judgements are binary per intent (grade > 0, as ndeval reads its qrels). A
group's intents are the columns with a relevant row in the group (ndeval's
"actual subtopics"); a group with none is undefined. numpy only for now.
Rows the context does not rank (its ``retrieved`` mask) still count in a group's
intents, in MAP-IA's per-intent denominators and as candidates of the greedy
ideal, as ndeval reads them from its qrels; only ranked rows are scored.

The rows come in the context's one ordering (``ctx.order``). Only the relevant
(row, intent) pairs are kept: each pair's count of relevant rows for its intent
ranked above it is its position in its (group, intent) cell after one sort of the
pairs, and per-row sums over pairs are ``bincount`` s; no pass runs over all rows x
intents and no Python loop over groups.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .. import segments as seg
from .base import GroupValues
from .intent_ties import tie_correction

if TYPE_CHECKING:
    from ..context import RankingContext


class IntentView(NamedTuple):
    """The relevant (row, intent) pairs of one context, in its ranked order
    (then intent)."""

    row: np.ndarray  # (n_pairs,) the pair's position in the ranked view
    prior: np.ndarray  # (n_pairs,) rows relevant to its intent ranked above it
    n_intents: np.ndarray  # (n_groups,) intents with a relevant row
    rel_input: np.ndarray  # (n_rows, n_intents) bool, in input order
    cell_size: np.ndarray  # (n_pairs,) relevant rows of the pair's (group, intent)
    intent: np.ndarray  # (n_pairs,) the pair's intent (column)
    ideals: dict  # alpha -> the longest greedy ideal computed (``ideal_gains``)
    relevant: np.ndarray  # input rows relevant to some intent, ranked or not


class IntentParams(NamedTuple):
    """The user model's parameters: ``alpha`` the redundancy intolerance (and
    ERR-IA's stop probability), ``beta`` NRBP's patience, ``shares`` each
    relevant pair's intent probability P(i|q) (:func:`intent_shares`; None:
    uniform over the group's intents), ``average`` whether to take the
    expectation over the orders of each tie block (``ties="average"``;
    :mod:`.intent_ties`) instead of reading the context's order."""

    alpha: float = 0.5
    beta: float = 0.5
    shares: np.ndarray | None = None
    average: bool = False


def intent_view(
    ctx: RankingContext, rel_input: np.ndarray, any_row: np.ndarray | None = None
) -> IntentView:
    """The relevant (row, intent) pairs laid out in the context's one ordering,
    with each pair's count of relevant rows for its intent ranked above it in its
    group: its position among the pairs of its (group, intent) cell, ordered by
    cell then rank (no pass over rows x intents but the rows' relevance).

    ``rel_input`` (bool, or 0/1 ints) covers every row, ranked or not (the
    context's ``retrieved`` mask): a group's intents and each cell's size
    (MAP-IA's denominator) count the unranked rows too, as ndeval counts its
    qrels; only ranked rows are pairs of the view. ``any_row``: per input row,
    whether it is relevant to some intent, where the caller knows it."""
    rel = _as_bool(rel_input)
    m, g = rel.shape[1], ctx.n_groups
    if any_row is None:
        any_row = _any_per_row(rel)
    relevant = np.flatnonzero(any_row)
    ranked_rows = ctx.totals.ranked_rows
    size_all = None
    if ranked_rows is not None:  # judged rows the ranking did not retrieve
        in_row, intent = _pairs(rel, relevant)
        cells_all = intent * g + ctx.totals.codes_all[in_row]
        size_all = np.bincount(cells_all, minlength=g * m)
        # The input rows of the ranked ones (an index array or a slice).
        source = np.arange(rel.shape[0])[ranked_rows][ctx.order]
    else:
        source = ctx.order
    # The relevant rows in ranked order, then their pairs: by rank, then intent.
    row, intent = _pairs(rel, source, np.flatnonzero(any_row[source]))
    cell = intent * g + ctx.group[row]  # intent-major: (intent, group)
    # A stable sort of the pairs by intent (a radix sort of small ints) lists
    # them by intent, group, rank: a pair's count of relevant rows ranked above
    # it is its distance from the start of its (intent, group) cell.
    by = np.argsort(_small_uint(intent, m), kind="stable")
    size = np.bincount(cell, minlength=g * m)
    first = np.cumsum(size) - size
    prior = np.empty(row.size, dtype=np.intp)
    prior[by] = np.arange(row.size) - np.repeat(first, size)
    if size_all is not None:
        size = size_all
    n_intents = (size.reshape(m, g) > 0).sum(axis=0).astype(np.float64)
    cell_size = size[cell]
    return IntentView(row, prior, n_intents, rel, cell_size, intent, {}, relevant)


def _pairs(rel: np.ndarray, rows: np.ndarray, at: np.ndarray | None = None):
    """The True (row, column) entries of ``rel`` at the rows ``rows[at]`` (all
    of ``rows`` where ``at`` is None), row after row, as ``(at, column)``
    (``(rows[at], column)`` where ``at`` is None)."""
    picked = rows if at is None else rows[at]
    index, column = _nonzero(np.take(rel, picked, axis=0))
    return (picked if at is None else at)[index], column


def _as_bool(rel: np.ndarray) -> np.ndarray:
    """``rel`` (0/1) as bool: ``flatnonzero`` of bools is several times faster
    than of other integers."""
    return rel if rel.dtype == np.bool_ else np.asarray(rel != 0)


def largest_grade(labels: np.ndarray) -> np.ndarray:
    """Per row, the largest grade over the intents: one ``maximum`` per column,
    several times faster than ``labels.max(axis=1)`` over a few columns."""
    if labels.shape[1] > 64 or not labels.shape[1]:
        return labels.max(axis=1, initial=0)
    out = labels[:, 0].copy()
    for j in range(1, labels.shape[1]):
        np.maximum(out, labels[:, j], out=out)
    return out


def _any_per_row(rel: np.ndarray) -> np.ndarray:
    """Per row, whether any column is True: one ``logical_or`` per column,
    several times faster than ``any(axis=1)`` over a few columns."""
    if rel.shape[1] > 64 or not rel.shape[1]:
        return np.asarray(rel.any(axis=1))
    out = rel[:, 0].copy()
    for j in range(1, rel.shape[1]):
        np.logical_or(out, rel[:, j], out=out)
    return out


def _nonzero(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-D array (row-major order), from the flat indices:
    about half the time of the 2-D form; divided in 32 bits where they fit
    (several times faster than 64-bit division)."""
    flat, m = np.flatnonzero(_as_bool(a)), a.shape[1]
    if a.size >= 2**31:
        return np.divmod(flat, m)
    flat = flat.astype(np.int32)
    row = flat // m
    return row.astype(np.intp), (flat - row * m).astype(np.intp)


def _decay_powers(alpha: float, top: int) -> np.ndarray:
    """``(1 - alpha) ** c`` for the counts ``c = 0 .. top``: a table read by
    index, each power the one before times ``1 - alpha`` (ndeval's repeated
    product, whose last bits ``np.power`` need not give)."""
    return _repeated_products(1.0, 1.0 - alpha, top + 1)


def _repeated_products(first, factor: float, n: int) -> np.ndarray:
    """``first * factor ** i`` for ``i < n`` (along the last axis, ``first`` a
    column of starts), each the one before times ``factor``."""
    first = np.asarray(first, dtype=np.float64)
    steps = np.full((*first.shape, n), factor)
    steps[..., 0] = first
    return np.cumprod(steps, axis=-1)


@functools.lru_cache(maxsize=16)
def _ndeval_discounts(depth: int) -> np.ndarray:
    """ndeval's ``discount``: ``log(2) / log(r + 1)`` at ranks ``1 .. depth``,
    from the C library's ``log`` (numpy's own may differ in the last bit)."""
    out = np.array([math.log(2.0) / math.log(r + 1.0) for r in range(1, depth + 1)])
    out.setflags(write=False)
    return out


def _ideal_ideal(view: IntentView, alpha: float, depth: int, per_rank) -> np.ndarray:
    """``(n_groups, depth)``: ndeval's "ideal ideal" normalisation at each
    depth, a list relevant to every one of the group's intents at every rank:
    the running sum of ``|I_q| (1 - alpha) ** (r - 1)`` at rank ``r`` divided
    by ``r`` (``per_rank`` None, ERR) or times ``per_rank[r - 1]`` (DCG), in
    ndeval's order of operations."""
    counts, at = np.unique(view.n_intents, return_inverse=True)
    return _ideal_ideal_of(counts, alpha, depth, per_rank)[at.reshape(-1)]


def _ideal_ideal_of(counts, alpha: float, depth: int, per_rank) -> np.ndarray:
    """:func:`_ideal_ideal` of lists relevant to ``counts`` intents (one row
    each)."""
    gain = _repeated_products(counts, 1.0 - alpha, max(depth, 1))
    if per_rank is None:
        gain /= np.arange(1, gain.shape[1] + 1, dtype=np.float64)
    else:
        gain *= per_rank[: gain.shape[1]]
    return np.cumsum(gain, axis=1)


def _at_depth(table: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Per group, ``table[g, depth[g] - 1]`` (0 where ``depth`` is 0)."""
    if not table.shape[1]:
        return np.zeros(table.shape[0])
    col = np.clip(depth, 1, table.shape[1]) - 1
    return table[np.arange(table.shape[0]), col]


def _running(ideal: np.ndarray, per_rank=None) -> np.ndarray:
    """The greedy ideal's gains (``(n_groups, depth)``) summed down the ranks,
    each divided by its rank (``per_rank`` None, ERR) or times ``per_rank``
    (DCG), one rank after the other as ndeval sums."""
    if per_rank is None:
        terms = ideal / np.arange(1, ideal.shape[1] + 1, dtype=np.float64)
    else:
        terms = ideal * per_rank[: ideal.shape[1]]
    return np.cumsum(terms, axis=1)


def _per_row(ctx: RankingContext, view: IntentView, weights=None, pairs=None):
    """Per ranked row, the sum of ``weights`` (or the count) over its pairs."""
    row = view.row if pairs is None else view.row[pairs]
    return np.bincount(row, weights=weights, minlength=ctx.n_rows).astype(
        np.float64, copy=False
    )


def novelty_gain(
    ctx: RankingContext, view: IntentView, alpha: float, k: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``sum_i J(d, i) (1 - alpha) ** r_i`` of the ranked rows with a relevant
    pair (ranked ``<= k``): each intent's gain decays with the relevant rows
    for it ranked above (Clarke et al., 2008). Summed over a row's intents in
    column order, as ndeval. Returns those rows (ascending) and their gains;
    the other rows gain 0, and a sum over rows in rank order that skips them
    has the same bits (adding 0 is exact)."""
    row, prior = view.row, view.prior  # by row (ranked order), then intent
    if k is not None:
        inside = np.flatnonzero(ctx.rank[row] <= k)
        row, prior = row[inside], prior[inside]
    if not row.size:
        return row, np.zeros(0)
    new = np.r_[True, row[1:] != row[:-1]]
    top = int(prior.max())
    weight = _decay_powers(alpha, top)[prior]
    return row[new], np.bincount(np.cumsum(new) - 1, weights=weight)


def _with_ties(total, ctx, view, p: IntentParams, k, per_rank, decay, weight=None):
    """``total`` (per group, a sum of pair terms ``w h(c) d(r)``, see
    :func:`.intent_ties.tie_correction`) as its expectation over the orders of
    the tie blocks where ``p.average``; unchanged (same bits) otherwise.
    ``per_rank`` names ``d``: ndeval's log discount ("dcg"), ``1 / r``
    ("reciprocal"), ``beta ** (r - 1)`` ("patience") or 1 ("flat").
    Metrics of one call with the same terms (alpha-nDCG and alpha-DCG, ERR-IA
    and nERR-IA, NRBP and nNRBP) share one correction."""
    if not p.average or not ctx.blocks:
        return total
    rank_weight = {
        "dcg": _ndeval_discounts,
        "reciprocal": _reciprocal_ranks,
        "patience": lambda n: _patience(p.beta, n),
        "flat": np.ones,
    }[per_rank]
    beta = p.beta if per_rank == "patience" else None
    # The weights are fixed per context: P(i|q) (attached or not), 1 / R_i.
    key = (per_rank, beta, k, decay, weight is None, p.shares is None)
    return total + ctx.totals.cached_scored(
        ("intent_tie_correction", key),
        lambda: tie_correction(ctx, view, k, rank_weight, decay, weight, beta),
    )


def _reciprocal_ranks(n: int) -> np.ndarray:
    return 1.0 / np.arange(1, n + 1, dtype=np.float64)


def _in_cutoff(ctx: RankingContext, k: int | None) -> np.ndarray:
    return np.ones(ctx.n_rows, dtype=bool) if k is None else ctx.rank <= k


def _result(ctx: RankingContext, view: IntentView, values: np.ndarray) -> GroupValues:
    defined = view.n_intents > 0
    return GroupValues(np.where(defined, values, np.nan), defined, ctx.group_weight())


def _depth(ctx: RankingContext, k: int | None) -> np.ndarray:
    """Per group, the cutoff of a normalisation that counts empty positions:
    ``k``, or the list length without a cutoff."""
    return ctx.length.astype(np.int64) if k is None else np.full(ctx.n_groups, k)


def greedy_ideal_gains(
    ctx: RankingContext, view: IntentView, alpha: float, depth: int
) -> np.ndarray:
    """``(n_groups, depth)``: the novelty gain at each position of ndeval's greedy
    ideal ranking (its ``idealResult``): at each position the row of largest
    marginal gain, ties to the last row in input order (ndeval: the largest
    docno). Vectorized over groups, one pass per position. Only rows relevant
    to some intent are candidates: an irrelevant row adds 0, and a relevant row
    always adds more than 0 (``alpha < 1``).

    Rows relevant to one intent only (most rows, where few intents are
    relevant) are read by their (group, intent) cell: they all gain the cell's
    weight ``(1 - alpha) ** placed``, and the tie rule places them last row
    first, so each cell offers its last row not yet placed (:class:`_Cells`).
    The gains of the other rows are summed over their intents, one intent
    after the other for all of them, and each group's best of them found by
    a segmented maximum (:class:`_Rows`). Each group then takes the larger of
    the two, ties to the later row. The sums and the tie rule are ndeval's,
    so the gains have its bits."""
    g, m = ctx.n_groups, view.rel_input.shape[1]
    out = np.zeros((g, depth))
    if not depth:
        return out
    codes = ctx.totals.codes_all
    # The candidates (rows relevant to some intent, ranked or not: ndeval's
    # ideal reads the qrels) by group, then input order (a stable sort where
    # the input is not grouped), and their relevant (candidate, intent) pairs,
    # by candidate then intent. A candidate's index is its tie key.
    cand = view.relevant
    if not cand.size:
        return out
    grp = codes[cand]
    if grp.size > 1 and (grp[1:] < grp[:-1]).any():
        by_grp = np.argsort(_small_uint(grp, g), kind="stable")
        cand, grp = cand[by_grp], grp[by_grp]
    pair_row, pair_intent = _nonzero(np.take(view.rel_input, cand, axis=0))
    n_pairs = np.bincount(pair_row, minlength=cand.size)
    pair_first = np.cumsum(n_pairs) - n_pairs
    # The cells' reading of the rows of one intent, unless the cells would
    # outnumber the pairs (many intents): then every row is read by its pairs.
    # Cells are intent-major: ``intent * n_groups + group``.
    one = n_pairs == 1
    if not _by_cells(g * m, pair_row.size):
        one[:] = False
    single = np.flatnonzero(one)
    cells = _Cells(pair_intent[pair_first[single]], grp[single], single, g, m)
    many = np.flatnonzero(~one)  # candidates read by their pairs
    rows = _Rows(many, grp[many], pair_first[many], n_pairs[many], pair_intent, g)
    factor = 1.0 - alpha  # a placed row's intents decay by it (exact powers)
    out = np.zeros((depth, g))  # by position: one contiguous row per pass
    for t in range(depth):
        top_many, local = rows.best(cells.weight)
        key_many = rows.key(local)
        top_one, key_one = cells.best()
        by_one = _beats(top_one, key_one, top_many, key_many)
        best = np.where(by_one, top_one, top_many)
        # A group whose largest gain is 0 (every power left underflows) adds 0
        # at every later position, placed or not.
        live = best > 0
        if not live.any():
            break
        out[t] = best
        cells.take(cells.of_row[key_one[by_one & live]], factor)
        cells.decay(rows.take(local[~by_one & live]), factor)
    return np.ascontiguousarray(out.T)


def _beats(top_a, key_a, top_b, key_b) -> np.ndarray:
    """Per group, whether candidate a is placed before b: a larger gain, or an
    equal gain and a later row (ndeval's tie rule)."""
    return (top_a > top_b) | ((top_a == top_b) & (key_a > key_b))


def _by_cells(n_cells: int, n_pairs: int) -> bool:
    """Whether the greedy ideal reads the rows of one intent by (group,
    intent) cell: unless the cells would far outnumber the relevant pairs (a
    pass over every cell per position)."""
    return n_cells <= 4 * n_pairs + 4096


class _Cells:
    """The greedy ideal's (intent, group) cells (intent-major, ``n_intents x
    n_groups``): each cell's weight ``(1 - alpha) ** seen`` (``seen`` the placed
    rows relevant to its intent), read by every candidate; and its candidates
    relevant to that intent only, read by the cell: its rows not yet placed
    (``left``), their gain (the weight; 0 once none is left) and their key (the
    last of them, the tie rule's pick: candidates are listed by group, then
    input order; stored + 1, 0 for none)."""

    def __init__(self, intent, group, rows: np.ndarray, g: int, m: int) -> None:
        self.shape = (m, g)
        cell = intent * g + group
        # By cell, input order within: a stable (radix) sort of the intents of
        # rows listed by group.
        self.rows = rows[np.argsort(_small_uint(intent, m), kind="stable")]
        self.left = np.bincount(cell, minlength=g * m)
        self.first = np.cumsum(self.left) - self.left
        self.of_row = np.zeros(int(rows[-1]) + 1 if rows.size else 0, dtype=np.intp)
        self.of_row[rows] = cell  # each row's cell
        self.weight = np.ones(g * m)
        self.gain = (self.left > 0).astype(np.float64)
        self.key = np.zeros(g * m, dtype=np.intp)
        self._set_key(np.flatnonzero(self.left))

    def _set_key(self, cells: np.ndarray) -> None:
        left = self.left[cells]
        last = self.rows[self.first[cells] + np.maximum(left, 1) - 1]
        self.key[cells] = np.where(left > 0, last + 1, 0)

    def best(self) -> tuple[np.ndarray, np.ndarray]:
        """Per group, the largest gain of a cell and its row (ties to the later
        row; -1 where no cell has a row left)."""
        gain = self.gain.reshape(self.shape)
        top = gain.max(axis=0)
        key = (self.key.reshape(self.shape) * (gain == top)).max(axis=0) - 1
        return top, key

    def decay(self, cells: np.ndarray, factor: float) -> None:
        """A row relevant to the intents of ``cells`` (distinct) placed: their
        weights times ``factor``, each the next of ndeval's repeated products
        (:func:`_decay_powers`)."""
        self.weight[cells] *= factor
        self.gain[cells] *= factor  # the weight, or 0

    def take(self, cells: np.ndarray, factor: float) -> None:
        """The last row left of each of ``cells`` (distinct) placed."""
        self.left[cells] -= 1
        self._set_key(cells)
        self.gain[cells[self.left[cells] == 0]] = 0.0
        self.decay(cells, factor)


def _small_uint(x: np.ndarray, top: int) -> np.ndarray:
    """``x`` (values below ``top``) as 16-bit ints where they fit: numpy's
    stable sort of them is a linear radix sort."""
    return x.astype(np.uint16) if top <= 1 << 16 else x


class _Rows:
    """The greedy ideal's candidates read by their pairs (``cand`` listed by
    group, then input order; ``grp`` their groups, ``first`` and ``n`` their
    pairs' intents in ``pair_intent``): each one's gain, summed over its
    intents in column order, and per group the largest, ties to the last
    candidate. The candidates placed are dropped from the arrays once they are
    many."""

    def __init__(self, cand, grp, first, n, pair_intent, n_groups: int) -> None:
        self.n_groups, self.pair_intent = n_groups, pair_intent
        self._keep(cand, grp, first, n)

    def _keep(self, cand, grp, first, n) -> None:
        """Lay out the candidates not yet placed."""
        self.cand, self.grp, self.first, self.n = cand, grp, first, n
        sizes = np.bincount(grp, minlength=self.n_groups)
        self.owners = np.flatnonzero(sizes)  # groups with a candidate, ascending
        self.sizes = sizes[self.owners]
        self.start = np.cumsum(self.sizes) - self.sizes  # each one's first
        self.owner = np.repeat(np.arange(self.owners.size), self.sizes)
        # The cells of each candidate's j-th intent, for the candidates with
        # more than j intents (``at``; None: all of them).
        self.levels = []
        for j in range(int(n.max()) if n.size else 0):
            at = None if j == 0 or (n > j).all() else np.flatnonzero(n > j)
            pair = first + j if at is None else first[at] + j
            group = grp if at is None else grp[at]
            self.levels.append((at, self.pair_intent[pair] * self.n_groups + group))
        self.alive = np.ones(n.size)  # 0 once placed
        self.n_alive = n.size

    def best(self, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per group, the largest gain of a candidate not yet placed and the
        candidate's position in the arrays (ties to the last; gain 0 and -1
        where none), valid until the next call."""
        if self.n_alive < 0.6 * self.n.size:
            keep = np.flatnonzero(self.alive)
            self._keep(self.cand[keep], self.grp[keep], self.first[keep], self.n[keep])
        top = np.zeros(self.n_groups)
        local = np.full(self.n_groups, -1, dtype=np.intp)
        if not self.n.size:
            return top, local
        gain = weight[self.levels[0][1]]
        for at, cells in self.levels[1:]:  # summed one intent after the other
            if at is None:
                gain += weight[cells]
            else:
                gain[at] += weight[cells]
        gain *= self.alive
        best = np.maximum.reduceat(gain, self.start)
        # Each group's last candidate of its largest gain: its last hit.
        hit = np.flatnonzero(gain == best[self.owner])
        owner = self.owner[hit]
        top[self.owners] = best
        local[self.owners] = hit[np.r_[owner[1:] != owner[:-1], True]]
        return top, local

    def key(self, local: np.ndarray) -> np.ndarray:
        """The candidates at ``local`` (-1 stays -1)."""
        return np.where(local >= 0, self.cand[local], -1) if self.n.size else local

    def take(self, local: np.ndarray) -> np.ndarray:
        """Place the candidates at ``local`` (one per group at most); returns
        their cells."""
        self.alive[local] = 0.0
        self.n_alive -= local.size
        pairs = seg.ranges(self.first[local], self.n[local])
        return self.pair_intent[pairs] * self.n_groups + np.repeat(
            self.grp[local], self.n[local]
        )


def _ideal_depth(ctx: RankingContext, k: int | None) -> int:
    """Positions of the greedy ideal a metric reads: the longest group (its
    unranked rows too), or ``k``."""
    # Every row of a group is a candidate of its ideal, retrieved or not.
    sizes = ctx.length if ctx.totals.ranked_rows is None else ctx.totals.size()
    longest = int(sizes.max()) if ctx.n_groups else 0
    return longest if k is None else min(k, longest)


def ideal_gains(
    ctx: RankingContext, view: IntentView, alpha: float, depth: int
) -> np.ndarray:
    """:func:`greedy_ideal_gains`, computed once per view and ``alpha`` for the
    longest depth asked: the greedy ideal is built position by position, so a
    shorter one is a prefix of a longer (alpha-nDCG, nERR-IA and nNRBP of one
    call share it)."""
    known = view.ideals.get(alpha)
    if known is None or known.shape[1] < depth:
        known = view.ideals[alpha] = greedy_ideal_gains(ctx, view, alpha, depth)
    return known[:, :depth]


def alpha_ndcg(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """alpha-nDCG@k: alpha-DCG of the ranking over that of ndeval's greedy ideal."""
    alpha = p.alpha
    depth = _ideal_depth(ctx, k)
    dcg = _alpha_dcg_sum(ctx, view, k, alpha)
    dcg = _with_ties(dcg, ctx, view, p, k, "dcg", 1.0 - alpha)
    ideal = ideal_gains(ctx, view, alpha, depth)
    ideal_dcg = _at_depth(_running(ideal, _ndeval_discounts(depth)), depth_of(ctx, k))
    # ndeval divides both by the "ideal ideal" DCG at k before their ratio (the
    # ratio's last bits).
    at, top = _norm_depth(ctx, k)
    norm = _at_depth(_ideal_ideal(view, alpha, top, _ndeval_discounts(top)), at)
    ok = (ideal_dcg > 0) & (norm > 0)
    value = seg.divide(
        seg.divide(dcg, norm, ok, 0.0), seg.divide(ideal_dcg, norm, ok, 1.0), ok, np.nan
    )
    return _result(ctx, view, value)


def depth_of(ctx: RankingContext, k: int | None) -> np.ndarray:
    """Per group, the last rank a cutoff metric reads: ``k``, or every row of
    the group (its unranked rows too, as the greedy ideal's candidates)."""
    sizes = ctx.length if ctx.totals.ranked_rows is None else ctx.totals.size()
    sizes = np.asarray(sizes, dtype=np.int64)
    return sizes if k is None else np.minimum(sizes, k)


def _norm_depth(ctx: RankingContext, k: int | None) -> tuple[np.ndarray, int]:
    """Per group, the depth of the "ideal ideal" normalisation of a ratio to
    the greedy ideal (``k``, as ndeval's, whatever the list's length; without
    a cutoff :func:`depth_of`), and the deepest."""
    at = depth_of(ctx, None) if k is None else np.full(ctx.n_groups, k)
    return at, int(at.max()) if at.size else 0


def _alpha_dcg_sum(ctx: RankingContext, view: IntentView, k: int | None, alpha):
    """Per group, ``sum_{r <= k} gain_r log(2) / log(r + 1)`` (ndeval's terms)."""
    row, gain = novelty_gain(ctx, view, alpha, k)
    at = ctx.rank[row].astype(np.intp) - 1
    discount = _ndeval_discounts(int(at.max()) + 1 if at.size else 1)
    return ctx.group_sum(gain * discount[at], ctx.group[row])


def alpha_dcg(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """alpha-DCG@k as ndeval prints it: alpha-DCG over that of an "ideal ideal"
    list, relevant to every intent at every position down to ``k`` (ndeval's
    collection-independent normalisation; no greedy ideal)."""
    alpha = p.alpha
    depth = _depth(ctx, k)
    top = int(depth.max()) if depth.size else 0
    norm = _at_depth(_ideal_ideal(view, alpha, top, _ndeval_discounts(top)), depth)
    dcg = _alpha_dcg_sum(ctx, view, k, alpha)
    dcg = _with_ties(dcg, ctx, view, p, k, "dcg", 1.0 - alpha)
    return _result(ctx, view, seg.divide(dcg, norm, norm > 0, np.nan))


def _err_ia_sum(ctx: RankingContext, view: IntentView, k: int | None, alpha: float):
    """Per group, ``sum_{p <= k} gain_p / p``: the intent-aware cascade summed
    over the intents (each intent's ERR with stop probability ``alpha``)."""
    row, gain = novelty_gain(ctx, view, alpha, k)
    return ctx.group_sum(gain / ctx.rank[row], ctx.group[row])


def err_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """ERR-IA@k as ndeval computes it: per intent the cascade with stop
    probability ``alpha`` at each relevant row, averaged over the group's intents
    and divided by the ERR of a list relevant at every position down to ``k``
    (ndeval's "ideal ideal" normalisation)."""
    alpha = p.alpha
    depth = _depth(ctx, k)
    top = int(depth.max()) if depth.size else 0
    ok = view.n_intents > 0
    if p.shares is not None:  # sum_i P(i|q) ERR_i over one intent's series
        one = _ideal_ideal_of(np.ones(1), alpha, top, None)  # one intent's
        norm = _at_depth(np.broadcast_to(one, (ctx.n_groups, one.shape[1])), depth)
        top_prior = int(view.prior.max()) if view.prior.size else 0
        decay = _decay_powers(alpha, top_prior)[view.prior]
        gain = _per_row(ctx, view, decay * p.shares)
        err = ctx.group_sum(np.where(_in_cutoff(ctx, k), gain / ctx.rank, 0.0))
    else:
        norm = _at_depth(_ideal_ideal(view, alpha, top, None), depth)
        err = _err_ia_sum(ctx, view, k, alpha)
    err = _with_ties(err, ctx, view, p, k, "reciprocal", 1.0 - alpha, p.shares)
    return _result(ctx, view, seg.divide(err, norm, ok & (norm > 0), np.nan))


def nerr_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """nERR-IA@k as ndeval: the ranking's intent-aware ERR over that of ndeval's
    greedy ideal ranking (the one of alpha-nDCG), both cut at ``k``."""
    depth = _ideal_depth(ctx, k)
    ideal = ideal_gains(ctx, view, p.alpha, depth)
    ideal_err = _at_depth(_running(ideal), depth_of(ctx, k))
    err = _err_ia_sum(ctx, view, k, p.alpha)
    err = _with_ties(err, ctx, view, p, k, "reciprocal", 1.0 - p.alpha)
    # ndeval divides both by the "ideal ideal" ERR at k before their ratio.
    at, top = _norm_depth(ctx, k)
    norm = _at_depth(_ideal_ideal(view, p.alpha, top, None), at)
    ok = (ideal_err > 0) & (norm > 0)
    value = seg.divide(
        seg.divide(err, norm, ok, 0.0), seg.divide(ideal_err, norm, ok, 1.0), ok, np.nan
    )
    return _result(ctx, view, value)


def _rbp_factor(view: IntentView, p: IntentParams) -> np.ndarray:
    """NRBP's normalisation: ``(1 - (1 - alpha) beta) / intents`` (Clarke et
    al., 2009: the largest value a list could reach is 1)."""
    ok = view.n_intents > 0
    top = np.full(view.n_intents.shape, 1.0 - (1.0 - p.alpha) * p.beta)
    return seg.divide(top, view.n_intents, ok, 0.0)


def nrbp(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """NRBP (Clarke et al., 2009) as ndeval: the novelty gain at rank ``r``
    weighted by ``beta ** (r - 1)`` (rank-biased patience), summed over the whole
    list and scaled by ``(1 - (1 - alpha) beta) / intents``."""
    return _result(ctx, view, _nrbp_sum(ctx, view, p) * _rbp_factor(view, p))


def _patience(beta: float, depth: int) -> np.ndarray:
    """``beta ** (r - 1)`` at ranks ``1 .. depth``, by repeated products."""
    return _repeated_products(1.0, beta, max(depth, 1))


def _nrbp_sum(ctx: RankingContext, view: IntentView, p: IntentParams) -> np.ndarray:
    """Per group, ``sum_r gain_r beta ** (r - 1)`` over the whole list."""
    row, gain = novelty_gain(ctx, view, p.alpha)
    at = ctx.rank[row].astype(np.intp) - 1
    decay = _patience(p.beta, int(at.max()) + 1 if at.size else 1)
    total = ctx.group_sum(gain * decay[at], ctx.group[row])
    return _with_ties(total, ctx, view, p, None, "patience", 1.0 - p.alpha)


def nnrbp(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """nNRBP as ndeval: NRBP over that of ndeval's greedy ideal ranking (all of
    its positions)."""
    factor = _rbp_factor(view, p)
    total = _nrbp_sum(ctx, view, p) * factor
    depth = _ideal_depth(ctx, None)
    ideal = ideal_gains(ctx, view, p.alpha, depth)
    terms = ideal * _patience(p.beta, depth)[:depth]
    ideal_total = (np.cumsum(terms, axis=1)[:, -1] if depth else 0.0) * factor
    ok = ideal_total > 0
    return _result(ctx, view, seg.divide(total, ideal_total, ok, np.nan))


def map_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """MAP-IA as ndeval: per intent, average precision over the group's rows
    relevant to it (their count the denominator), averaged over the group's
    intents; with ``k``, precision is summed over the top ``k`` only."""
    rank = ctx.rank[view.row].astype(np.float64)
    precision = (view.prior + 1.0) / rank
    if k is not None:
        precision = np.where(rank <= k, precision, 0.0)
    ok = view.n_intents > 0
    # Each pair's (c + 1) / r weighs P(i|q) / R_i: the expectation's terms.
    per_pair = (1.0 if p.shares is None else p.shares) / view.cell_size
    if p.shares is not None:  # sum_i P(i|q) AP_i
        precision *= p.shares / view.cell_size
        total = ctx.group_sum(_per_row(ctx, view, precision))
        total = _with_ties(total, ctx, view, p, k, "reciprocal", None, per_pair)
        return _result(ctx, view, np.where(ok, total, np.nan))
    # ndeval's sums, in its order (the last bits of a printed mean depend on
    # it): per intent, the precisions in rank order, over the intent's
    # relevant rows; then those over the group's intents in column order.
    m = view.rel_input.shape[1]
    cell = ctx.group[view.row].astype(np.intp) * m + view.intent
    count = np.bincount(cell, minlength=ctx.n_groups * m)
    at = np.cumsum(count) - count
    by_cell = np.empty_like(precision)
    by_cell[at[cell] + view.prior] = precision
    cells = np.repeat(np.arange(count.size), count)
    per_cell = np.bincount(cells, weights=by_cell, minlength=count.size)
    relevant = np.ones(count.size)
    relevant[cell] = view.cell_size
    has = np.flatnonzero(count)
    total = np.bincount(
        has // m, weights=per_cell[has] / relevant[has], minlength=ctx.n_groups
    )
    total = _with_ties(total, ctx, view, p, k, "reciprocal", None, per_pair)
    return _result(ctx, view, seg.divide(total, view.n_intents, ok, np.nan))


def precision_ia(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """Precision-IA@k: relevant (row, intent) pairs in the top ``k`` over ``k``
    times the group's intents (a short list counts as padded, as ndeval)."""
    hits = np.where(_in_cutoff(ctx, k), _per_row(ctx, view, p.shares), 0.0)
    # sum_i P(i|q) P@k_i; uniform: the pairs over k |I_q|
    norm = _depth(ctx, k) * (1.0 if p.shares is not None else view.n_intents)
    # 0 for a group none of whose rows is retrieved (no intent: undefined).
    hits = _with_ties(ctx.group_sum(hits), ctx, view, p, k, "flat", 1.0, p.shares)
    return _result(ctx, view, seg.divide(hits, norm, norm > 0, 0.0))


def subtopic_recall(
    ctx: RankingContext, view: IntentView, k: int | None, p: IntentParams
) -> GroupValues:
    """Subtopic (intent) recall@k (Zhai et al., 2003): the share of the group's
    intents with a relevant row in the top ``k``."""
    # A pair is its intent's first where no relevant row is ranked above it.
    first = _per_row(ctx, view, pairs=view.prior == 0)
    covered = ctx.group_sum(np.where(_in_cutoff(ctx, k), first, 0.0))
    covered = _with_ties(covered, ctx, view, p, k, "flat", 0.0)
    ok = view.n_intents > 0
    return _result(ctx, view, seg.divide(covered, view.n_intents, ok, np.nan))


# name -> kernel(ctx, view, k, params)
INTENT_KERNELS = {
    "alpha_ndcg": alpha_ndcg,
    "alpha_dcg": alpha_dcg,
    "err_ia": err_ia,
    "nerr_ia": nerr_ia,
    "nrbp": nrbp,
    "nnrbp": nnrbp,
    "map_ia": map_ia,
    "precision_ia": precision_ia,
    "subtopic_recall": subtopic_recall,
}
# The metrics of the whole list (ndeval has no cutoff for them).
WHOLE_LIST = frozenset({"nrbp", "nnrbp"})

_VIEW = "intent_view"  # the key of a context's view in its scored cache
_SHARES = "intent_shares"  # and of its pairs' P(i|q), when weights are given
_AVERAGE = "intent_tie_average"  # and whether ties="average" was asked for
# The metrics with a definition over intent weights P(i|q) (Agrawal et al.,
# 2009: sum_i P(i|q) M_i); the others (novelty gains, greedy ideals, intent
# coverage) have none.
WEIGHTED = frozenset({"err_ia", "precision_ia", "map_ia"})


def intent_shares(
    ctx: RankingContext, view: IntentView, weights: np.ndarray
) -> np.ndarray:
    """Per relevant pair (in the view's order), ``P(i|q)``: its intent's weight
    in ``weights`` (``(n_groups, n_intents)``, >= 0) over the sum of the
    weights of its group's intents (those with a relevant row). A group whose
    intents all weigh 0 gets shares of 0 (the caller refuses it). A group's
    intents come from every row, ranked or not (as the view's ``n_intents``);
    the shares from the view's pairs, ranked rows only."""
    m = view.rel_input.shape[1]
    in_row, intent = _nonzero(view.rel_input)  # every relevant pair, any row
    cells = np.zeros(ctx.n_groups * m, dtype=bool)
    cells[ctx.totals.codes_all[in_row].astype(np.intp) * m + intent] = True
    total = (weights * cells.reshape(ctx.n_groups, m)).sum(axis=1)
    ok = total > 0
    group = ctx.group[view.row].astype(np.intp)
    return seg.divide(weights[group, view.intent], total[group], ok[group], 0.0)


def attach_intent_shares(
    ctx: RankingContext, view: IntentView, weights: np.ndarray
) -> np.ndarray:
    """:func:`intent_shares` kept with the context's scores, where the metric
    table's kernels read them."""
    return ctx.totals.cached_scored(_SHARES, lambda: intent_shares(ctx, view, weights))


def attach_intent_view(
    ctx: RankingContext, rel_input: np.ndarray, any_row: np.ndarray | None = None
) -> IntentView:
    """The view of ``rel_input`` (``(n_rows, n_intents)`` 0/1, input order) on
    ``ctx``, made once and kept with the context's scores, where the metric
    table's kernels (:data:`TABLE_KERNELS`) read it (``any_row``: see
    :func:`intent_view`)."""
    return ctx.totals.cached_scored(_VIEW, lambda: intent_view(ctx, rel_input, any_row))


def attach_tie_average(ctx: RankingContext) -> None:
    """Mark ``ctx`` (ordered with ``ties="average"``) for the metric table's
    kernels: take the expectation over the orders of each tie block
    (:mod:`.intent_ties`), not the context's order within a block."""
    ctx.totals.cached_scored(_AVERAGE, lambda: True)


def _no_view() -> IntentView:
    raise ValueError(
        "an intent-aware metric needs a 2-D y_true of shape (n_samples, "
        "n_intents); use evaluate, evaluate_intents or a scorer."
    )


def _from_table(kernel):
    """``kernel(ctx, view, k, params)`` as the metric table calls a kernel:
    ``(ctx, k, opts)``, the view attached to ``ctx``, alpha and beta from
    ``opts``."""

    def run(ctx: RankingContext, k: int | None, opts) -> GroupValues:
        view = ctx.totals.cached_scored(_VIEW, _no_view)
        shares = ctx.totals.cached_scored(_SHARES, lambda: None)
        average = ctx.totals.cached_scored(_AVERAGE, lambda: False)
        params = IntentParams(opts.alpha, opts.beta, shares, average)
        return kernel(ctx, view, k, params)

    run.__name__ = run.__qualname__ = kernel.__name__
    run.__doc__ = kernel.__doc__
    return run


# name -> kernel(ctx, k, opts), the metric table's form of INTENT_KERNELS.
TABLE_KERNELS = {name: _from_table(kernel) for name, kernel in INTENT_KERNELS.items()}
