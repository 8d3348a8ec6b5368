"""Threads over group shards: the rows cut at group boundaries, each shard
ordered and run through the kernels on its own thread.

Every per-group value depends on its group's rows alone, so a shard of whole
groups (codes ``g0..g1-1``) gives the values of those groups; the per-group
values are put back in group order and reduced once through
``_engine/reduce.py``, as the single-threaded path does. numpy releases the GIL
in its sorts and most array operations, which is where the engine spends its
time. What reads all groups at once runs on one thread instead
(:func:`shardable`): the pooled metrics (``MetricSpec.pooled``),
:data:`ACROSS_GROUPS` and the ``group_weight="relevant_mean"`` fill weight.
A large call runs over shards on one thread too, one after the other
(:func:`chunk_count`): smaller pieces are faster to order and score.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any, TypeVar

import numpy as np

from .._engine.conventions import Options
from .._engine.segments import segment_count
from .._engine.shard_rules import LONG_GROUP
from .validation import MetricRequest, ValidatedInputs

R = TypeVar("R")

# Metrics whose per-group values read a running sum over every group's rows
# (the ideal DCG prefix of ndcg_rel and rndcg in kernels/trec.py: each group's
# IDCG is a difference of one prefix over all groups, so its last bit depends
# on the groups before it). They run on one thread.
ACROSS_GROUPS = frozenset({"ndcg_rel", "rndcg"})

# Below this many rows per extra thread, a thread costs more than it saves.
MIN_ROWS_PER_SHARD = 1 << 14

# A call of more rows, or of more groups than one radix pass over 16-bit group
# codes orders, is cut into shards of whole groups even on one thread, run one
# after the other: each shard's arrays stay nearer the caches and its group
# pass is one radix sort (10M rows of 100,000 groups, 5 metrics: 3.7-3.9 s in
# one piece, 1.4 s in chunks of 2**20 rows; 2**21 to 2**23 rows no faster).
CHUNK_ROWS = 1 << 20
CHUNK_GROUPS = 1 << 16


def shardable(
    inputs: ValidatedInputs, requests: Sequence[MetricRequest], opts: Options
) -> bool:
    """Whether every requested value is a function of one group's rows."""
    score = inputs.y_score  # (None: prepare()'s, the scores come later)
    if inputs.space.xp is not None or not isinstance(score, np.ndarray | None):
        return False  # array API inputs: the device keeps its own parallelism
    if any(r.spec.pooled or r.spec.name in ACROSS_GROUPS for r in requests):
        return False
    if opts.group_weight == "relevant_mean" and inputs.sample_weight is not None:
        return False  # the fill weight is a mean over all groups
    return True


def shard_bounds(
    codes: np.ndarray, n_groups: int, n_shards: int, n_threads: int = 1
) -> np.ndarray:
    """Group-code boundaries ``[0, ..., n_groups]`` of at most ``n_shards``
    shards of contiguous groups, balanced by rows; no shard is empty (of groups
    or of rows), so there are never more shards than groups. The rows are
    counted on ``n_threads`` threads (:func:`rows_per_group`). Where the
    threads take several shards each, the last ``n_threads`` shards are half
    the size of the others: the threads then finish nearer together (a thread
    that ends while another starts a full shard waits for all of it)."""
    n = codes.shape[0]
    if n_shards <= 1 or n_groups <= 1 or n == 0:
        return np.array([0, n_groups], dtype=np.intp)
    rows_before = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(rows_per_group(codes, n_groups, n_threads), out=rows_before[1:])
    size = np.ones(n_shards)
    if n_threads > 1 and n_shards >= 2 * n_threads:
        size[-n_threads:] = 0.5
    targets = np.cumsum(size)[:-1] * (n / size.sum())
    cut = np.searchsorted(rows_before, targets, side="left")
    cut = cut[(cut > 0) & (cut < n_groups)]
    before = rows_before[cut]
    cut = cut[(before > 0) & (before < n)]
    # One boundary per row position: no shard without rows.
    _, first = np.unique(rows_before[cut], return_index=True)
    cut = cut[first]
    sizes = np.diff(rows_before)
    if cut.size and sizes.max() > LONG_GROUP:
        # Every shard holds a long group when the call has one (shard_rules).
        long_before = np.zeros(n_groups + 1, dtype=np.int64)
        np.cumsum(sizes > LONG_GROUP, out=long_before[1:])
        kept, start = [], 0
        for c in cut.tolist():  # at most n_shards - 1 candidates
            if long_before[c] > long_before[start] and long_before[-1] > long_before[c]:
                kept.append(c)
                start = c
        cut = np.array(kept, dtype=np.intp)
    return np.concatenate([[0], cut, [n_groups]]).astype(np.intp)


# Rows per thread below which one count is faster than the threads' start and
# the adding of their counts (1M rows: 1.9 ms on one thread, 2.4 ms on two).
_COUNT_ROWS = 1 << 21


def _row_ranges(n: int, n_threads: int) -> list[int]:
    """Bounds of the ranges of rows one pass over ``n`` rows is cut into:
    one a thread, none under :data:`_COUNT_ROWS` rows (at least one range)."""
    parts = min(n_threads, max(n // _COUNT_ROWS, 1))
    return [n * i // parts for i in range(parts + 1)]


def rows_per_group(codes: np.ndarray, n_groups: int, n_threads: int = 1) -> np.ndarray:
    """Rows of each group code: one count per range of rows on each of
    ``n_threads`` threads, added (integers: the same counts in any order). It
    runs before the shards exist, so on one thread it would hold the others
    idle (10M rows: 28 ms)."""
    cuts = _row_ranges(codes.shape[0], n_threads)
    parts = len(cuts) - 1
    if parts <= 1:
        return segment_count(codes, n_groups)
    counts = map_threads(
        lambda i: segment_count(codes[cuts[i] : cuts[i + 1]], n_groups),
        range(parts),
        parts,
    )
    total = counts[0]
    for c in counts[1:]:
        total += c
    return total


def shard_rows(codes: np.ndarray, bounds: np.ndarray, n_threads: int = 1) -> list[Any]:
    """The rows of each shard (group codes ``bounds[s]..bounds[s + 1]-1``), in
    input order: slices where the rows come grouped by shard (the command
    line's, by query), else index arrays, or tuples of index arrays that
    :func:`joined_rows` puts end to end. One pass over the rows whatever the
    number of shards (a cut per shard reads every row once per shard: the 10
    chunks of a 10M-row call, 0.4 s on one thread). ``n_threads``: from 2**21
    rows a thread, each thread sorts the shard keys of one range of rows, and
    a shard's rows are its pieces of every range, in range order."""
    n, n_shards = codes.shape[0], bounds.shape[0] - 1
    # 16-bit keys: numpy's stable sort of them is a radix sort, linear.
    key_type = np.uint16 if n_shards <= 1 << 16 else np.uint32
    shard_of_code = np.repeat(
        np.arange(n_shards, dtype=key_type), np.diff(bounds).astype(np.intp)
    )
    cuts = _row_ranges(n, n_threads)
    parts = len(cuts) - 1

    def sort_range(i: int) -> tuple[list[int], np.ndarray | None, int, int]:
        key = shard_of_code[codes[cuts[i] : cuts[i + 1]]]
        ends = np.cumsum(np.bincount(key, minlength=n_shards)).tolist()
        first, last = (int(key[0]), int(key[-1])) if key.size else (0, 0)
        if key.size > 1 and bool((key[1:] < key[:-1]).any()):
            order = np.argsort(key, kind="stable")
            if cuts[i]:
                order += cuts[i]
            return ends, order, first, last
        return ends, None, first, last

    ranges = map_threads(sort_range, range(parts), parts)
    grouped = all(order is None for _, order, _, _ in ranges) and all(
        a[3] <= b[2] for a, b in itertools.pairwise(ranges)
    )
    if grouped:  # every shard's rows are one run of the input
        total = np.zeros(n_shards + 1, dtype=np.intp)
        for ends, *_ in ranges:
            total[1:] += ends
        lo, hi = total[:-1].tolist(), total[1:].tolist()
        return [slice(a, b) for a, b in zip(lo, hi, strict=True)]
    pieces: list[list[Any]] = [[] for _ in range(n_shards)]
    for (ends, order, _, _), offset in zip(ranges, cuts, strict=False):
        for shard, (a, b) in enumerate(zip([0, *ends[:-1]], ends, strict=True)):
            if a < b:
                part = slice(offset + a, offset + b) if order is None else order[a:b]
                pieces[shard].append(part)
    return [p[0] if len(p) == 1 else tuple(p) for p in pieces]


def joined_rows(rows: Any) -> slice | np.ndarray:
    """One entry of :func:`shard_rows` as a slice or an index array (its
    pieces put end to end, on the thread that cuts the shard)."""
    if not isinstance(rows, tuple):
        return rows
    if not rows:
        return np.zeros(0, dtype=np.intp)
    return np.concatenate(
        [np.arange(r.start, r.stop) if isinstance(r, slice) else r for r in rows]
    )


def split_inputs(
    inputs: ValidatedInputs, bounds: np.ndarray, rows_of: list | None = None
) -> list[Callable]:
    """One callable per shard that cuts that shard's rows out of ``inputs``
    (run on the shard's own thread): codes start again at 0, rows keep their
    input order (so ``ties="stable"`` orders them as one pass does).
    ``rows_of``: :func:`shard_rows`, when the caller has them."""

    def cut(s: int) -> ValidatedInputs:
        g0, g1 = int(bounds[s]), int(bounds[s + 1])
        # Without rows_of (one shard a thread), found on the shard's own
        # thread: one pass over the codes each, in parallel.
        if rows_of is None:
            rows = _rows_of_codes(inputs.codes, g0, g1)
        else:
            rows = joined_rows(rows_of[s])

        def take(a):
            return None if a is None else a[rows]

        codes = inputs.codes[rows] - inputs.codes.dtype.type(g0)
        return dataclasses.replace(
            inputs,
            y_true=inputs.y_true[rows],
            y_score=take(inputs.y_score),
            codes=codes,
            group_ids=inputs.group_ids[g0:g1],
            sample_weight=take(inputs.sample_weight),
            retrieved=take(inputs.retrieved),
            judged=take(inputs.judged),
            in_pool=take(inputs.in_pool),
            rows=None,
        )

    return [lambda s=s: cut(s) for s in range(bounds.shape[0] - 1)]


def _rows_of_codes(codes: np.ndarray, g0: int, g1: int) -> slice | np.ndarray:
    """The rows whose code is in ``[g0, g1)``, in input order: a slice where
    they are contiguous."""
    inside = codes >= g0
    inside &= codes < g1
    rows = np.flatnonzero(inside)
    if rows.size and int(rows[-1]) - int(rows[0]) + 1 == rows.size:
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def shard_count(n_rows: int, n_threads: int) -> int:
    """At most ``n_threads`` shards, none under :data:`MIN_ROWS_PER_SHARD` rows."""
    return min(n_threads, max(n_rows // MIN_ROWS_PER_SHARD, 1))


def chunk_count(n_rows: int, n_groups: int) -> int:
    """Shards a call of ``n_rows`` rows in ``n_groups`` groups is cut into on any
    number of threads (:data:`CHUNK_ROWS`, :data:`CHUNK_GROUPS`)."""
    return max(-(-n_rows // CHUNK_ROWS), -(-n_groups // CHUNK_GROUPS), 1)


def sharded(inputs: ValidatedInputs, n_threads: int) -> bool:
    """Whether a call runs over shards: several threads, or chunks."""
    return n_threads > 1 or chunk_count(inputs.codes.shape[0], inputs.n_groups) > 1


def map_threads(
    work: Callable[[Any], R], items: Sequence[Any], n_threads: int | None = None
) -> list[R]:
    """``work`` on each item, results in the items' order: one thread each, or
    ``n_threads`` threads taking the items in turn (one: no thread at all)."""
    if n_threads is not None and (n_threads <= 1 or len(items) <= 1):
        return [work(item) for item in items]
    workers = len(items) if n_threads is None else min(n_threads, len(items))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sklearn_rank")
    try:
        futures = [pool.submit(work, item) for item in items]
        # Ctrl-C (KeyboardInterrupt, SystemExit) in an item's work is raised
        # at once, not after the items before it; an error is raised once the
        # items before it are done (the first in item order: the same message
        # at every thread count).
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for f in futures:
            if f in done and not isinstance(f.exception(), (Exception, type(None))):
                f.result()
        return [f.result() for f in futures]
    finally:
        # An error or Ctrl-C in the caller: drop the shards not started, and
        # return without waiting for the running ones (they end on their own).
        pool.shutdown(wait=False, cancel_futures=True)


def run_shards(
    inputs: ValidatedInputs,
    n_threads: int,
    work: Callable[[ValidatedInputs], R],
) -> list[R] | None:
    """``work`` on each shard of ``inputs`` on ``n_threads`` threads, in group
    order: as many shards as threads, or the chunks of a large call rounded up
    to a multiple of the threads (balanced); None when one shard is all there
    is (the caller then runs unsharded)."""
    n_threads, n_shards = shard_plan(inputs.codes.shape[0], inputs.n_groups, n_threads)
    bounds = shard_bounds(inputs.codes, inputs.n_groups, n_shards, n_threads)
    return run_bounds(inputs, bounds, work, n_threads)


def shard_plan(n_rows: int, n_groups: int, n_threads: int) -> tuple[int, int]:
    """(threads, shards) of a call: at most ``n_threads`` threads
    (:func:`shard_count`) and as many shards, or the chunks of a large call
    (:func:`chunk_count`) rounded up to a multiple of the threads."""
    n_threads = shard_count(n_rows, n_threads)
    chunks = chunk_count(n_rows, n_groups)
    return n_threads, -(-max(chunks, n_threads) // n_threads) * n_threads


def run_bounds(
    inputs: ValidatedInputs,
    bounds: np.ndarray,
    work: Callable[[ValidatedInputs], R],
    n_threads: int | None = None,
) -> list[R] | None:
    """:func:`run_shards` at given boundaries (the tests' fixed shard counts);
    ``n_threads`` None: one thread per shard."""
    if bounds.shape[0] <= 2:
        return None
    rows_of = None
    if bounds.shape[0] - 1 > (n_threads or bounds.shape[0] - 1):
        # Several shards a thread: one pass finds every shard's rows, where a
        # cut of its own per shard would read all rows each time.
        rows_of = shard_rows(inputs.codes, bounds, n_threads or 1)
    cuts = split_inputs(inputs, bounds, rows_of)
    return map_threads(lambda cut: work(cut()), cuts, n_threads)


def concat(parts: Sequence[Any]) -> np.ndarray:
    """Per-group arrays of consecutive shards, in group order."""
    return np.concatenate([np.asarray(p) for p in parts], axis=-1)
