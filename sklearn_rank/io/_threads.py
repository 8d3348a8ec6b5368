"""Threads for reading and joining TREC files (``n_jobs``).

Each step that runs here is split into pieces whose results do not depend on
the cut: rows hashed a slice at a time, keys packed a slice at a time, blocks
of tied rows ordered apart, and sorts of keys that lead with a non-decreasing
query code cut between queries. With one thread the pieces run in order on the
caller's thread (one code path); with more, on a pool (numpy releases the GIL
in its sorts, gathers and arithmetic), so the output is the same at every
thread count.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .._utils import memory

# Pieces smaller than this run on the caller's thread (a thread costs more).
MIN_PIECE_ROWS = 1 << 16


def run_pieces(
    work: Callable[[Any], Any],
    pieces: Iterable[Any],
    n_threads: int,
    trim: bool = True,
):
    """``work`` on each piece, results in the pieces' order; on ``n_threads``
    threads when more than one piece and thread (``trim``: the heap trimmed
    after, see below)."""
    pieces = list(pieces)
    if n_threads <= 1 or len(pieces) <= 1:
        return [work(p) for p in pieces]
    pool = ThreadPoolExecutor(
        max_workers=min(n_threads, len(pieces)), thread_name_prefix="sklearn_rank"
    )
    try:
        futures = [pool.submit(work, p) for p in pieces]
        return [f.result() for f in futures]
    finally:
        # An error or Ctrl-C: the pieces not started are dropped.
        pool.shutdown(wait=True, cancel_futures=True)
        # What the workers freed stays in their own heaps, where this thread
        # never reuses it: given back now, or the next step's peak carries it.
        if trim:
            memory.trim_heap()


def row_slices(n: int, n_threads: int, most: int | None = None) -> list[slice]:
    """``[0, n)`` cut into ``n_threads`` slices (one below
    :data:`MIN_PIECE_ROWS` rows per thread), each at most ``most`` rows."""
    pieces = max(1, min(n_threads, n // MIN_PIECE_ROWS))
    size = -(-n // pieces) if n else 1
    if most is not None:
        size = min(size, most)
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def sort_grouped(packed: np.ndarray, lead: np.ndarray | None, n_threads: int):
    """Sort ``packed`` in place; ``lead`` (None: unknown) non-decreasing in
    row order and the most significant part of each key: the keys of rows
    with different ``lead`` are then already in order, and the rows are
    sorted a block of whole ``lead`` values per thread (the same result as
    one stable sort)."""
    n = packed.size
    if lead is None:
        packed.sort()
        return
    run_pieces(
        lambda ab: packed[ab[0] : ab[1]].sort(kind="stable"),
        itertools.pairwise(_lead_cuts(lead, n, n_threads)),
        n_threads,
    )


def _lead_cuts(lead: np.ndarray, n: int, n_threads: int) -> list[int]:
    """``[0, ..., n]``: near even cuts of ``n`` rows moved to the first row
    of a new ``lead`` value (non-decreasing), one piece per thread."""
    cuts = [0]
    if n_threads > 1 and n >= 2 * MIN_PIECE_ROWS:
        # The first row of each new lead value at or after an even cut.
        for target in np.linspace(0, n, n_threads + 1)[1:-1].astype(np.int64):
            at = int(np.searchsorted(lead, lead[target], "left"))
            if at > cuts[-1]:
                cuts.append(at)
    cuts.append(n)
    return cuts


def take(a: np.ndarray, index: np.ndarray, n_threads: int) -> np.ndarray:
    """``a[index]`` (every index in range), a slice of ``index`` per thread
    (numpy's take releases the GIL; each value is its own: the same array at
    every count)."""
    out = np.empty(index.shape, a.dtype)
    run_pieces(
        lambda part: np.take(a, index[part], out=out[part], mode="wrap"),
        row_slices(index.size, n_threads),
        n_threads,
    )
    return out


def argsort_grouped(keys: np.ndarray, lead: np.ndarray, n_threads: int):
    """``np.argsort(keys, kind="stable")`` when ``lead`` (non-decreasing in
    row order) is the most significant part of each key: a block of whole
    ``lead`` values per thread, as :func:`sort_grouped` cuts."""
    n = keys.size
    out = np.empty(n, np.intp)

    def piece(ab: tuple[int, int]) -> None:
        a, b = ab
        out[a:b] = np.argsort(keys[a:b], kind="stable")
        out[a:b] += a

    run_pieces(piece, itertools.pairwise(_lead_cuts(lead, n, n_threads)), n_threads)
    return out
