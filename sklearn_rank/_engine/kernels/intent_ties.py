"""The intent-aware metrics under ``ties="average"``: the exact expectation of
each metric over uniformly random orders of the rows within every tie block
(rows of one group with equal scores), the definition ``"average"`` has for the
single-label metrics.

Every intent-aware metric is a sum over the relevant (row, intent) pairs of a
term ``w h(c) d(p)``: ``p`` the pair's rank, ``c`` the rows relevant to its
intent ranked above it, ``d`` a weight of the rank (cut at ``k``), ``h(c)``
either ``x ** c`` (alpha-DCG, ERR-IA, NRBP with ``x = 1 - alpha``; precision-IA
with ``x = 1``; subtopic recall with ``x = 0``, "no relevant row above") or
``c + 1`` (MAP-IA's precision at the row), ``w`` a weight constant over the
pairs of one (group, intent) (``P(i|q)``, MAP-IA's ``1 / R_i``), times a
normalisation that does not depend on the ranking (the greedy ideal, the "ideal
ideal", ``|I_q|``, ``k``). So the expectation is the expected sum of terms.

Take a tie block of ``b`` rows at ranks ``p0 + 1 .. p0 + b``, ``K`` of them
relevant to intent ``i`` and ``A`` rows relevant to ``i`` ranked before the
block. In a uniformly random order of the block, its ``t``-th relevant row
(0-based) has ``A + t`` relevant rows above it, and lies at rank ``p0 + j``
with probability ``C(j - 1, t) C(b - j, K - 1 - t) / C(b, K)``. The block's
expected sum is then ``sum_t h(A + t) sum_j d(p0 + j) P(t, j)`` (with ``w``):
a grid of ``min(K, J) x min(b - K + 1, J)`` terms per (block, intent) cell,
``J = min(b, k - p0)`` the block's ranks inside the cutoff. Where ``h`` is
linear in ``c`` (MAP-IA, precision-IA) the sum over ``t`` has a closed form:
the row at ``p0 + j`` is relevant with probability ``K / b`` and then has
``(j - 1)(K - 1)/(b - 1)`` relevant rows of the block above it on average, so
the cell costs ``J`` terms. Rows outside any tie block (and every pair's term
in a group without one) keep their term in the context's order; the kernels add
:func:`tie_correction`, the expected sum over the tied pairs minus their sum in
that order, to their numerators. Binomials come from ``log`` factorials
(``scipy.special.gammaln``), finite for any block size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import segments as seg

if TYPE_CHECKING:
    from ..context import RankingContext

# Grid terms computed at once (a bound on memory: about 200 MB of temporaries).
_CHUNK = 1 << 21
_CELLS = "intent_tie_cells"  # the key of the tied cells in a context's cache
# The share of a block's first term below which geometric_block_sums stops.
_NEGLIGIBLE = 2.0**-60


class TiedCells(NamedTuple):
    """The relevant pairs of rows in tie blocks, by (block, intent) cell, and
    per cell its block's facts."""

    pair: np.ndarray  # (n_tied,) the pair's index in the view, by cell then rank
    first: np.ndarray  # (n_cells,) the cell's first pair in ``pair``
    relevant: np.ndarray  # (n_cells,) K: the block's rows relevant to the intent
    above: np.ndarray  # (n_cells,) A: rows relevant to the intent before the block
    size: np.ndarray  # (n_cells,) b: the block's rows
    start: np.ndarray  # (n_cells,) the block's first rank (1-based)
    group: np.ndarray  # (n_cells,) the block's group


def tied_cells(ctx: RankingContext, view: Any, k: int | None) -> TiedCells | None:
    """The pairs of ``view`` (``intent.IntentView``: its ``row``, ``prior``,
    ``intent``, ``rel_input``) in the context's tie blocks that start at a rank
    ``<= k``, grouped by cell (None: no such block holds a relevant pair). Made
    once per context and ``k``."""
    return ctx.totals.cached_scored((_CELLS, k), lambda: _tied_cells(ctx, view, k))


def _tied_cells(ctx: RankingContext, view: Any, k: int | None) -> TiedCells | None:
    blocks = ctx.blocks
    if not blocks or not view.row.size:
        return None
    starts = np.asarray(blocks.rank)
    if k is None:
        pair = np.arange(view.row.size)
    else:  # only pairs ranked at most k + (the longest block starting <= k) - 1
        kept = starts <= k
        if not kept.any():
            return None
        reach = k + int(np.asarray(blocks.size)[kept].max()) - 1
        pair = np.flatnonzero(ctx.rank[view.row] <= reach)
    block = blocks.block_of(view.row[pair])
    inside = block >= 0
    if k is not None:
        inside &= starts[block] <= k
    pair, block = pair[inside], block[inside]
    if not pair.size:
        return None
    m = view.rel_input.shape[1]
    # The view lists pairs by rank, then intent: a stable sort by cell keeps
    # each cell's pairs in rank order, so its first pair has the fewest
    # relevant rows above it (A) and the others A + 1, A + 2, ...
    key = block.astype(np.int64) * m + view.intent[pair]
    by = np.argsort(key, kind="stable")
    pair, key, block = pair[by], key[by], block[by]
    new = np.r_[True, key[1:] != key[:-1]]
    first = np.flatnonzero(new)
    count = np.diff(np.r_[first, pair.size])
    cell_block = block[first]
    return TiedCells(
        pair,
        first,
        count,
        view.prior[pair[first]],
        np.asarray(blocks.size)[cell_block],
        np.asarray(blocks.rank)[cell_block].astype(np.int64),
        np.asarray(blocks.group)[cell_block],
    )


def tie_correction(
    ctx: RankingContext,
    view: Any,
    k: int | None,
    per_rank: Callable[[int], np.ndarray],
    decay: float | None,
    weight: np.ndarray | None = None,
    ratio: float | None = None,
) -> np.ndarray:
    """Per group, the expected sum over uniformly random orders of the tie
    blocks of the tied pairs' terms ``w h(c) d(p)`` (ranks ``p <= k``) minus
    their sum in the context's order; 0 for a group without a tie block.

    ``per_rank(n)`` gives ``d`` at ranks ``1 .. n``; ``decay`` is ``x`` of
    ``h(c) = x ** c``, None for ``h(c) = c + 1``; ``weight`` is ``w`` per pair of
    the view (None: 1), the same over the pairs of one (group, intent);
    ``ratio``: ``d(p)`` is ``ratio ** (p - 1)`` (a shortcut, same values)."""
    out = np.zeros(ctx.n_groups)
    cells = tied_cells(ctx, view, k)
    if cells is None:
        return out
    inside = np.arange(cells.relevant.size)
    if decay == 0.0:  # only a cell with no relevant row above adds
        inside = inside[cells.above[inside] == 0]
    if not inside.size:
        return out
    count, above = cells.relevant[inside], cells.above[inside]
    size, start = cells.size[inside], cells.start[inside]
    group = cells.group[inside]
    top = int((start + size - 1).max())
    if k is not None:
        top = min(top, k)
    d = np.asarray(per_rank(top), dtype=np.float64)[:top]
    # The cells' pairs in the context's order: their sum there.
    pairs = cells.pair[seg.ranges(cells.first[inside], count)]
    rank = ctx.rank[view.row[pairs]].astype(np.int64)
    kept = rank <= top
    terms = np.where(kept, d[np.minimum(rank, top) - 1], 0.0)
    terms *= _h(view.prior[pairs], decay)
    w = None if weight is None else np.asarray(weight)[cells.pair[cells.first[inside]]]
    if w is not None:
        terms *= np.repeat(w, count)
    ordered = np.bincount(
        np.repeat(group, count), weights=terms, minlength=ctx.n_groups
    )
    # The expectation per cell.
    inside_ranks = size if k is None else np.minimum(size, k - start + 1)
    if decay is None or decay == 1.0:
        expected = _linear(count, above, size, start, inside_ranks, d, decay is None)
    else:
        expected = _grid(count, above, size, start, inside_ranks, d, decay, ratio)
    if w is not None:
        expected *= w
    return np.bincount(group, weights=expected, minlength=ctx.n_groups) - ordered


def geometric_block_sums(
    count: np.ndarray,
    above: np.ndarray,
    size: np.ndarray,
    start: np.ndarray,
    ratio: float,
    decay: float,
    relevant: bool = True,
) -> np.ndarray:
    """Per tie block of ``size`` rows at ranks ``start .. start + size - 1``,
    ``count`` of them relevant and ``above`` relevant rows ranked before it:
    the expected sum, over uniformly random orders of the block, of
    ``ratio ** (p - 1) * decay ** c`` over its relevant rows (``relevant``) or
    over its other rows, ``p`` a row's rank and ``c`` the relevant rows above
    it. Relevant rows: ``x ** A sum_j ratio ** (p0 + j - 1) Q(j)`` as the
    intent-aware kernels' cells (``x = decay``); the other rows: the same with
    ``P(t, j)`` the probability that rank ``p0 + j`` holds a row not relevant
    with ``t`` relevant rows of the block above it. The cascade browsing model
    of expected exposure reads both.

    Where ``ratio < 1`` the sum stops at the block's ``J``-th rank past which
    the rest, at most ``ratio ** J / (1 - ratio)``, is below ``2 ** -60`` of
    the first rank's term (at least ``n / b``, ``n`` the rows of the kind): a
    block costs at most ``J ** 2`` terms however long it is."""
    out = np.zeros(count.shape[0])
    kind = count if relevant else size - count
    cells = np.flatnonzero(kind > 0)
    if cells.size:
        b = size[cells].astype(np.int64)
        reach = b
        if ratio == 0.0:
            reach = np.ones_like(b)
        elif ratio < 1.0:
            share = kind[cells] / b
            rest = np.log(_NEGLIGIBLE * (1.0 - ratio) * share) / np.log(ratio)
            reach = np.minimum(b, np.ceil(rest).astype(np.int64) + 1)
        out[cells] = _grid(
            count[cells].astype(np.int64),
            above[cells],
            b,
            start[cells].astype(np.int64),
            reach,
            None,
            decay,
            ratio,
            0 if relevant else 1,
        )
    return out


def _h(c: np.ndarray, decay: float | None) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    return c + 1.0 if decay is None else np.power(decay, c)


def _log_factorials(n: int) -> np.ndarray:
    """``log(i!)`` for ``i = 0 .. n``."""
    # scipy on first use: the command line's start imports no scipy.
    from scipy.special import gammaln

    return gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)


def _grid(
    count, above, size, start, inside_ranks, d, decay, ratio, other: int = 0
) -> np.ndarray:
    """Per cell, ``x ** A sum_j d(p0 + j) Q(j)`` over the block's ranks inside
    the cutoff, ``Q(j) = sum_t x ** t P(t, j)``. ``Q`` depends only on the
    cell's shape ``(b, K, J)``, so it is computed once per distinct shape (a
    few where blocks are small), then each cell costs ``J`` terms; where ``d``
    is geometric (``d(p) = ratio ** (p - 1)``, NRBP), ``ratio ** p0`` times a
    sum per shape. ``other=1``: the same sum over the block's rows not
    relevant (``Q`` of :func:`_q` with ``other=1``)."""
    shape, at = _shapes(size, count, inside_ranks)
    sizes, counts, ranks = shape
    q = _q(sizes, counts, ranks, decay, other)
    n_j = shape[2]
    q_first = np.cumsum(n_j) - n_j
    x_above = np.power(decay, above.astype(np.float64))
    if ratio is not None:
        j = seg.ranges(np.ones(n_j.size, dtype=np.int64), n_j)
        per_shape = np.bincount(
            np.repeat(np.arange(n_j.size), n_j),
            weights=q * np.power(ratio, (j - 1).astype(np.float64)),
            minlength=n_j.size,
        )
        p0 = (start - 1).astype(np.float64)
        return np.power(ratio, p0) * per_shape[at] * x_above
    cell = np.repeat(np.arange(count.size), inside_ranks)
    j = seg.ranges(np.ones(count.size, dtype=np.int64), inside_ranks)
    value = d[start[cell] + j - 2] * q[q_first[at[cell]] + j - 1]
    out = np.bincount(cell, weights=value, minlength=count.size)
    return out * x_above


def _shapes(size, count, inside_ranks):
    """The distinct ``(b, K, J)`` of the cells (as three arrays) and each
    cell's index among them."""
    radix = int(size.max()) + 1
    if radix**3 >= 2**62:
        rows, at = np.unique(
            np.column_stack([size, count, inside_ranks]), axis=0, return_inverse=True
        )
        return tuple(rows.T), at.reshape(-1)
    key = (size.astype(np.int64) * radix + count) * radix + inside_ranks
    if radix**3 <= max(4 * key.size, 1 << 16):  # a table of every shape: no sort
        seen = np.zeros(radix**3, dtype=bool)
        seen[key] = True
        at = (np.cumsum(seen) - 1)[key]
        key = np.flatnonzero(seen)
    else:
        key, at = np.unique(key, return_inverse=True)
    b, rest = np.divmod(key, radix * radix)
    kk, j = np.divmod(rest, radix)
    return (b, kk, j), at.reshape(-1)


def _q(size, count, inside_ranks, decay, other: int = 0) -> np.ndarray:
    """For each shape ``(b, K, J)``, ``Q(j) = sum_t x ** t P(t, j)`` at
    ``j = 1 .. J``, the shapes one after the other: a grid of ``j = t + 1 + u``
    (``u`` the block's rows not relevant to the intent above its ``t``-th
    relevant row), ``min(K, J) x min(b - K + 1, J)`` terms per shape, in chunks
    of at most ``_CHUNK`` terms. ``other=1``: ``P(t, j)`` is instead the
    probability that rank ``p0 + j`` holds a row not relevant with ``t``
    relevant rows above it, ``C(j - 1, t) C(b - j, K - t) / C(b, K)``
    (``min(K + 1, J) x min(b - K, J)`` terms)."""
    n_t = np.minimum(count + other, inside_ranks)
    if decay == 0.0:  # x ** t is 0 past t = 0
        n_t = np.minimum(n_t, 1)
    n_u = np.minimum(size - count + 1 - other, inside_ranks)
    lf = _log_factorials(int(size.max()))
    log_all = lf[size] - lf[count] - lf[size - count]  # log C(b, K)
    q_first = np.cumsum(inside_ranks) - inside_ranks
    q = np.zeros(int(inside_ranks.sum()))
    ends = np.cumsum(n_t * n_u)  # the grids one after the other
    for lo in range(0, int(ends[-1]) if ends.size else 0, _CHUNK):
        at = np.arange(lo, min(lo + _CHUNK, int(ends[-1])))
        shape = np.searchsorted(ends, at, "right")
        t, u = np.divmod(at - (ends[shape] - n_t[shape] * n_u[shape]), n_u[shape])
        j = t + 1 + u
        ok = j <= inside_ranks[shape]
        shape, t, u, j = shape[ok], t[ok], u[ok], j[ok]
        b, kk = size[shape], count[shape]
        # P(t, j) = C(j - 1, t) C(b - j, K - 1 + other - t) / C(b, K), j - 1 = t + u
        log_p = lf[t + u] - lf[t] - lf[u]
        log_p += lf[b - j] - lf[kk - 1 + other - t] - lf[b - kk - other - u]
        log_p -= log_all[shape]
        value = np.exp(log_p) * np.power(decay, t.astype(np.float64))
        q += np.bincount(q_first[shape] + j - 1, weights=value, minlength=q.size)
    return q


def _linear(count, above, size, start, inside_ranks, d, map_ia) -> np.ndarray:
    """Per cell, the expectation where ``h`` is linear: ``h(c) = c + 1``
    (``map_ia``) or 1. The row at ``p0 + j`` is relevant with probability
    ``K / b``; given that, the block's relevant rows above it number
    ``(j - 1)(K - 1) / (b - 1)`` on average (hypergeometric). The sums over
    ``j`` of ``d(p0 + j)`` and ``(j - 1) d(p0 + j)`` come from running sums of
    ``d(p)`` and ``p d(p)``: a few terms per cell."""
    ranks = np.arange(1, d.size + 1, dtype=np.float64)
    first, last = start - 1, start - 1 + inside_ranks  # p0 and p0 + J
    sum_d = np.r_[0.0, np.cumsum(d)]
    s1 = sum_d[last] - sum_d[first]
    b, kk = size.astype(np.float64), count.astype(np.float64)
    if not map_ia:
        return kk / b * s1
    sum_pd = np.r_[0.0, np.cumsum(ranks * d)]
    s2 = sum_pd[last] - sum_pd[first] - start * s1  # sum_j (j - 1) d(p0 + j)
    return kk / b * ((above + 1.0) * s1 + (kk - 1.0) / (b - 1.0) * s2)
