"""Expected reciprocal rank (ERR, the cascade model of Chapelle et al., 2009),
with the exact expectation of a tie block that mixes grades under
``ties="average"`` (a recurrence over the block's distinct grades, up to
``ERR_TIE_BLOCK_LIMIT`` rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import segments as seg
from ..segments import ranges
from .arrays import (
    as_operand,
    count_true,
    exp2,
    order_by,
    row_dot,
    run_owner,
    run_starts,
)
from .base import GroupValues, cutoff_position, defined_if_relevant

if TYPE_CHECKING:
    from ..context import RankingContext
    from ..conventions import Options


# The largest tie block that mixes grades (inside the cutoff) whose exact ERR
# expectation under ties="average" is computed; a larger one raises. The work is
# about d * m * t multiply-adds per block (d distinct grades, m rows, t positions
# inside the cutoff): up to m**3 / 2 = 5e8 for a block of 1024 distinct grades,
# seconds of numpy, beyond which the cost, not the precision (the recurrence is a
# convex combination, rounding grows like m * eps), is what goes bad.
ERR_TIE_BLOCK_LIMIT = 1024
# Cells of the recurrence's table held at once (the table is cut into chunks).
_ERR_CELLS = 1 << 22


def err(ctx: RankingContext, k: int | None, opts: Options) -> GroupValues:
    """Expected reciprocal rank (Chapelle et al., 2009) with stop probability
    ``R(g) = (2^g - 1) / 2^max_grade``.

    Under ``ties="average"`` a tie block whose rows share one grade gives the same
    value in every order; a block that mixes grades gets its exact expectation from
    :func:`_err_mixed_blocks`, in place of its rows' terms in the resolved order.
    The product of ``1 - R`` over a whole block does not depend on its order, so
    every later row is reached with the same probability either way.
    """
    k = cutoff_position(ctx, k)
    ctx = ctx.head(k)
    xp, f = ctx.xp, ctx.float
    mixed = None
    if ctx.blocks:
        is_mixed = ctx.blocks.min(ctx.y) != ctx.blocks.max(ctx.y)
        if k is not None:
            is_mixed &= ctx.blocks.rank <= k
        mixed = seg.flatnonzero(is_mixed)
        _check_err_block_sizes(ctx.blocks.size[mixed])
    # 2**max_grade as a Python float on the host: one scalar, whatever the namespace.
    stop = (exp2(xp, ctx.y) - 1.0) / float(np.exp2(opts.max_grade))
    through = ctx.segmented_cumprod(1.0 - stop)  # P(user passes row p)
    reach = xp.ones(ctx.n_rows, dtype=f, device=ctx.device)
    if ctx.n_rows > 1:
        reach[1:] = xp.where(ctx.rank[1:] > 1, through[:-1], 1.0)
    term = stop * reach / as_operand(xp, ctx.rank, f)
    if k is not None:
        term[ctx.rank > k] = 0.0
    if mixed is None or not mixed.shape[0]:
        return defined_if_relevant(ctx, ctx.group_sum(term), opts)
    b = ctx.blocks
    start, size = b.start[mixed], b.size[mixed]
    term = seg.put(term, ranges(start, size), 0.0)
    inside = _err_mixed_blocks(stop, start, size, b.rank[mixed], k)
    inside *= reach[start]  # P(the user reaches the block): order-free
    values = ctx.group_sum(term) + ctx.group_sum(inside, b.group[mixed])
    return defined_if_relevant(ctx, values, opts)


def _check_err_block_sizes(size: np.ndarray) -> None:
    xp = seg.array_namespace(size)
    too_big = size > ERR_TIE_BLOCK_LIMIT
    if bool(xp.any(too_big)):
        raise ValueError(
            f"err_score with ties='average': {count_true(too_big)} tie block(s) "
            "(equal scores within a group) mix grades inside the cutoff and hold "
            f"more than ERR_TIE_BLOCK_LIMIT={ERR_TIE_BLOCK_LIMIT} rows (the largest "
            f"has {int(xp.max(size))}); their exact expectation costs too much. Pass "
            "ties='stable', 'pessimistic' or 'optimistic', or break the ties."
        )


def _err_mixed_blocks(
    stop: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    first: np.ndarray,
    k: int | None,
) -> np.ndarray:
    """Per tie block (ranked rows ``start .. start + size - 1``, first position
    ``first``), ``E[Σ_i R_i / p_i Π_{q before i in the block} (1 - R_q)]`` over the
    uniformly random orders of the block, for the positions ``p_i <= k``.

    Row ``i`` sits at offset ``j`` with probability ``1/m``, and the ``j`` rows in
    front of it are a uniform ``j``-subset of the other ``m - 1`` rows, so
    ``E[Π (1 - R_q)] = E_j = e_j / C(m - 1, j)``, ``e_j`` the elementary symmetric
    polynomial of the others' ``1 - R``. Adding the others one at a time,
    ``E_j <- ((n - j) E_j + j x E_{j-1}) / n`` after the n-th one (value ``x``): a
    convex combination, so no overflow and no cancellation. Rows of one grade share
    their others: one recurrence per distinct grade of a block ("item"), with every
    item of every block advanced together, one step per within-block index; only
    ``E_j`` for offsets inside the cutoff are kept.
    """
    xp = seg.array_namespace(stop)
    n_blocks = start.shape[0]
    owner = run_owner(xp, size)
    rows = ranges(start, size)
    # Rows sorted by grade within each block: a grade's rows are a run, and its
    # "others" are the block less that run's first row.
    order = order_by(xp, owner, stop[rows])
    stops = stop[rows[order]]
    offsets = run_starts(xp, size)
    n = stops.shape[0]
    new = xp.ones(n, dtype=xp.bool, device=stop.device)
    new[1:] = (owner[1:] != owner[:-1]) | (stops[1:] != stops[:-1])
    item_at = seg.flatnonzero(new)
    end_at = xp.asarray([n], dtype=item_at.dtype, device=stop.device)
    count = xp.diff(xp.concat((item_at, end_at)))  # rows of the grade
    # Rows that never stop (grade 0) add no term of their own.
    keep = stops[item_at] > 0
    item_at, count = item_at[keep], count[keep]
    block = owner[item_at]
    skip = item_at - offsets[block]  # the left-out row's index in its block
    n_others = size[block] - 1
    # The largest offset inside the cutoff (a block starts at a position <= k).
    last = n_others if k is None else xp.minimum(n_others, k - first[block])
    x = 1.0 - stops
    value = xp.zeros(item_at.shape[0], dtype=stop.dtype, device=stop.device)
    by_size = xp.argsort(-n_others, stable=True)  # active items: a prefix
    # Table widths are shapes: read on the host (one sync per chunk).
    widest = int(xp.max(last)) if last.shape[0] else 0
    begin = 0
    while begin < by_size.shape[0]:
        width = min(int(n_others[by_size[begin]]), widest) + 1
        end = min(by_size.shape[0], begin + max(1, _ERR_CELLS // width))
        items = by_size[begin:end]
        value = seg.put(
            value,
            items,
            _err_items(
                x,
                offsets[block[items]],
                skip[items],
                n_others[items],
                last[items],
                first[block[items]],
                width,
            ),
        )
        begin = end
    value *= (
        as_operand(xp, count, value.dtype)
        * stops[item_at]
        / as_operand(xp, size[block], value.dtype)
    )
    return seg.segment_sum(block, value, n_blocks)


def _err_items(x, base, skip, n_others, last, first, width):
    """``Σ_{j <= last} E_j / (first + j)`` per item (items by descending
    ``n_others``), the recurrence of :func:`_err_mixed_blocks` run over the
    item's block (rows ``base ..``, sorted by grade) less its row ``skip``."""
    xp = seg.array_namespace(x)
    f, dev = x.dtype, x.device
    table = xp.zeros((base.shape[0], width), dtype=f, device=dev)
    table[:, 0] = 1.0
    # Items still adding others at step s: those with n_others > s, a prefix.
    # Its steps and prefix lengths are loop bounds and shapes: read on the host.
    steps = int(n_others[0]) if n_others.shape[0] else 0
    active = base.shape[0] - xp.searchsorted(
        xp.flip(n_others),
        xp.arange(steps, dtype=n_others.dtype, device=dev),
        side="right",
    )
    for s in range(steps):
        c = int(active[s])
        n = s + 1
        top = min(n, width - 1)
        j = xp.arange(1, top + 1, dtype=f, device=dev)
        xs = x[base[:c] + s + as_operand(xp, s >= skip[:c], base.dtype)]
        # E_j <- ((n - j) E_j + j x E_{j-1}) / n for j = 1..top, from the old E,
        # updated in place through slices of the table.
        carried = table[:c, :top] * xs[:, None]
        carried *= j / n
        table[:c, 1 : top + 1] *= (n - j) / n
        table[:c, 1 : top + 1] += carried
    j = xp.arange(width, dtype=xp.int64, device=dev)
    weight = xp.where(
        j <= last[:, None], 1.0 / as_operand(xp, first[:, None] + j, f), 0.0
    )
    return row_dot(table, weight)
