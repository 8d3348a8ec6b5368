"""trec_eval's join of a qrels and a run, and trec_eval's order of a run.

Query codes shared by both files come from :func:`._id_columns._merge`; the run's
rows are ranked by one sort of packed integer keys (:func:`_trec_order`) and the
judgments are found in the run's key table by binary search (:func:`_lookup`),
every hash match confirmed byte for byte.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import partial

import numpy as np

from . import _spans, _threads
from ._id_columns import _PACK_ROWS, _key_table, _merge, _RowText, duplicate_error
from ._threads import row_slices, run_pieces, sort_grouped
from ._trec_parse import _ParsedQrels, _ParsedRun

_MIN_SCORE_BITS = 16  # trec_eval's order: fewer score bits in the key, two sorts


def _query_codes(qrels: _ParsedQrels, run: _ParsedRun):
    """Query codes shared by both files, numbered in string order: those of
    the qrels' and the run's rows, the ids of the codes, and the codes that
    each file's rows hold."""
    map_q, map_r, n = _merge(qrels.qid, run.qid)
    names = np.empty(n, dtype=object)
    names[map_q] = qrels.qid.text()
    names[map_r] = run.qid.text()
    # Byte order (trec_eval's strcmp): the code point order of UTF-8, and the
    # order of ids holding bytes that are not UTF-8 too.
    order = np.argsort(_as_bytes(names), kind="stable")
    # 32-bit codes below 2**31 queries: the join's arrays of n stay smaller.
    renumber = np.empty(n, np.int32 if n < 2**31 - 1 else np.int64)
    renumber[order] = np.arange(n)
    in_q, in_r = renumber[map_q], renumber[map_r]
    qq, rq = in_q[qrels.qid.codes], in_r[run.qid.codes]
    return qq, rq, names[order], in_q[qrels.qid.held()], in_r[run.qid.held()]


def _as_bytes(names: np.ndarray) -> np.ndarray:
    """The ids' bytes (an object array of bytes, which sorts as strcmp)."""
    out = np.empty(names.size, dtype=object)
    out[:] = [n.encode("utf-8", "surrogateescape") for n in names.tolist()]
    return out


def _run_code_of(qrels: _ParsedQrels, run: _ParsedRun, qq, rq, qrels_rows, run_rows):
    """The run file's own query code of each kept qrels row (-1: none)."""
    n = int(max(qq.max(initial=-1), rq.max(initial=-1))) + 1
    to_run = np.full(n, -1, np.int64)
    # One row per block of a query (rq comes grouped): no full-size gather.
    first = np.flatnonzero(np.r_[True, rq[1:] != rq[:-1]]) if rq.size else rq
    to_run[rq[first]] = run.qid.codes[run_rows[first]]
    return to_run[qq]


def _descending_key(s: np.ndarray) -> np.ndarray:
    """Unsigned keys whose ascending order is the descending order of the finite
    floats ``s`` (equal floats, 0.0 and -0.0 included, give equal keys)."""
    bits = (s + 0.0).view(np.uint64)  # -0.0 + 0.0 is 0.0
    # Non-negative: flip all bits but the sign; negative: keep them as they are.
    flip = bits >> np.uint64(63)  # in place from here: one temporary
    flip -= np.uint64(1)
    flip >>= np.uint64(1)
    bits ^= flip
    return bits


def _group_pass(by_score: np.ndarray, q: np.ndarray, n_q: int) -> np.ndarray:
    """Stable reorder of ``by_score`` by query code (radix passes on 16 bits)."""
    if n_q <= 1 << 16:
        return by_score[np.argsort(q[by_score].astype(np.uint16), kind="stable")]
    halves = q.astype(np.uint32)[by_score].view(np.uint16).reshape(-1, 2)
    low_half, high_half = (0, 1) if np.little_endian else (1, 0)
    low = np.argsort(halves[:, low_half], kind="stable")
    high = np.argsort(halves[low, high_half], kind="stable")
    return by_score[low[high]]


def _trec_order(
    q: np.ndarray,
    s: np.ndarray,
    rows: np.ndarray,
    docno: _RowText,
    file_q: np.ndarray | None = None,
    n_threads: int = 1,
):
    """trec_eval's ranking: query, score descending, then docno descending.

    One sort of plain integers packing a query code, the top bits of the
    score's order key and the row index. Rows whose query and truncated score
    agree are then ordered by their exact score, and rows whose scores tie by
    their docno text (decoded for those rows only).

    ``file_q``, the run file's own query codes (in order of appearance), leads
    the packed key when given: a file grouped by query gives a key already in
    query order, which the (stable, run-aware) sort takes fast; the query
    blocks are then put in the order of ``q``. ``n_threads``: the keys are
    packed a slice of rows per thread, sorted a block of whole queries per
    thread (a grouped file) and the ties ordered a bounded run of rows per
    thread (:mod:`._threads`: the same order at every count).
    """
    n = q.size
    if n == 0:
        return np.zeros(0, np.intp)
    lead = q if file_q is None else file_q
    row_bits = max(1, (n - 1).bit_length())
    query_bits = max(1, int(lead.max()).bit_length())
    score_bits = 64 - row_bits - query_bits
    if score_bits < _MIN_SCORE_BITS:  # huge inputs: full score key, then query
        order = _group_pass(np.argsort(_descending_key(s)), q, int(q.max()) + 1)
        return _order_ties(order, q, s, rows, docno, None, n_threads)
    # A slice of rows at a time (temporaries of _PACK_ROWS, not of n): the
    # peak stays two arrays of n (the command's peak memory is this sort's).
    packed = np.empty(n, np.uint64)

    def pack(part: slice) -> None:
        p = lead[part].astype(np.uint64)
        p <<= np.uint64(64 - query_bits)
        key = _descending_key(s[part])
        key >>= np.uint64(64 - score_bits)
        key <<= np.uint64(row_bits)
        p |= key
        p |= np.arange(part.start, part.stop, dtype=np.uint64)
        packed[part] = p

    run_pieces(pack, row_slices(n, n_threads, _PACK_ROWS // 4), n_threads)
    grouped = bool((lead[1:] >= lead[:-1]).all())
    sort_grouped(packed, lead if grouped else None, n_threads)
    # Whether each key's high part equals the next's (only row bits differ),
    # a bounded slice at a time (temporaries of _PACK_ROWS, not of n; at
    # this peak packed's memory then holds the order).
    merged = np.empty(n - 1, bool)

    def neighbours(part: slice) -> None:
        a, b = part.start, part.stop
        differ = packed[a + 1 : b + 1] ^ packed[a:b]
        differ >>= np.uint64(row_bits)
        np.equal(differ, 0, out=merged[a:b])

    run_pieces(neighbours, row_slices(n - 1, n_threads, _PACK_ROWS // 4), n_threads)
    packed &= np.uint64((1 << row_bits) - 1)
    order = packed.view(np.int64)  # row indices < 2**row_bits: the same values
    if merged.any():
        # Rows sharing a truncated key: order them by their exact score.
        in_run = np.r_[merged, False] | np.r_[False, merged]
        pos = np.flatnonzero(in_run)
        del in_run
        first = np.r_[True, ~merged][pos]  # where each run of equal keys starts
        del merged

        # Runs are sorted apart, a bounded number of rows at a time (memory
        # and time when most rows tie: heavy ties), on threads.
        def by_score(ab: tuple[int, int]) -> None:
            a, b = ab
            at = pos[a:b]
            sub = order[at]
            score = s[sub]
            if ((score[1:] == score[:-1]) | first[a + 1 : b]).all():
                return  # each run one score (the truncated key was exact)
            order[at] = sub[np.lexsort((-score, np.cumsum(first[a:b])))]

        run_pieces(by_score, _whole_runs(first, n_threads), n_threads)
        del first
        order = _order_ties(order, q, s, rows, docno, pos, n_threads)
    if file_q is not None:
        order = _blocks_in_order(order, q, n_threads)
    return order


def _blocks_in_order(order: np.ndarray, q: np.ndarray, n_threads: int = 1):
    """``order`` with its blocks of equal ``q`` moved into ascending ``q``
    (``n_threads``: the moves a piece of whole blocks per thread)."""
    qo = _threads.take(q, order, n_threads)
    starts = np.flatnonzero(np.r_[True, qo[1:] != qo[:-1]])
    block_q = qo[starts]
    if (block_q[1:] > block_q[:-1]).all():
        return order
    n = qo.size
    del qo
    by_q = np.argsort(block_q)
    sizes = np.diff(np.r_[starts, n])[by_q]
    # Position k of the new order reads old position start + (k - new start);
    # 32-bit positions below 2**31 rows (half the memory of the moves).
    index = np.int32 if n < 2**31 else np.int64
    new_starts = np.cumsum(sizes) - sizes
    shift = (starts[by_q] - new_starts).astype(index)
    out = np.empty_like(order)

    def move(ab: tuple[int, int]) -> None:
        a, b = ab  # new blocks a..b-1
        lo = int(new_starts[a])
        hi = int(new_starts[b]) if b < sizes.size else n
        at = np.repeat(shift[a:b], sizes[a:b])
        at += np.arange(lo, hi, dtype=index)
        np.take(order, at, out=out[lo:hi], mode="wrap")

    # Near even cuts of the rows, each moved to the next block's start.
    cuts = [slice_.start for slice_ in row_slices(n, n_threads)][1:]
    bounds = np.unique(np.r_[0, np.searchsorted(new_starts, cuts), sizes.size])
    run_pieces(move, itertools.pairwise(bounds.tolist()), n_threads)
    return out


def _order_ties(order, q, s, rows, docno, pos=None, n_threads=1):
    """Rows with the same query and score, ordered by docno descending.

    ``pos``: the only positions of ``order`` where ties can be (None: any);
    ``n_threads``: bounded runs of rows ordered on threads.
    """
    # Whether each position ties with the next, a bounded number of positions
    # at a time (no gathers of n: memory under heavy ties).
    n_at = order.size if pos is None else pos.size
    tie = np.zeros(max(n_at - 1, 0), bool)
    run_pieces(
        partial(_find_ties, tie, order, q, s, pos),
        row_slices(tie.size, n_threads, _RUN_ROWS // n_threads),
        n_threads,
    )
    if not tie.any():
        return order
    in_block = np.r_[tie, False] | np.r_[False, tie]
    where = np.flatnonzero(in_block)
    del in_block
    first = ~np.r_[False, tie][where]  # where each block of ties starts
    del tie

    # Blocks are sorted apart, a bounded number of rows at a time: the same
    # order as one sort of them all (memory and time under heavy ties).
    def by_docno(ab: tuple[int, int]) -> None:
        a, b = ab
        place = where[a:b] if pos is None else pos[where[a:b]]
        _order_block_rows(order, place, np.cumsum(first[a:b]), rows, docno)

    run_pieces(by_docno, _whole_runs(first, n_threads), n_threads)
    return order


def _find_ties(tie, order, q, s, pos, part: slice) -> None:
    """``tie[part]``: whether each position ties with the next."""
    a, b = part.start, part.stop  # the pairs a..b-1 read a..b
    at = order[a : b + 1] if pos is None else order[pos[a : b + 1]]
    key = q[at]
    tie[a:b] = key[1:] == key[:-1]
    key = s[at]
    tie[a:b] &= key[1:] == key[:-1]
    if pos is not None:
        key = pos[a : b + 1]
        tie[a:b] &= key[1:] == key[:-1] + 1


def _order_block_rows(order, place, block, rows, docno) -> None:
    """``order[place]`` sorted by ``block``, then by docno descending."""
    tied = rows[order[place]]
    starts, ends = docno.starts[tied], docno.ends[tied]
    words = _spans.byte_order_words(docno.buf, starts, ends)
    if words is not None:  # descending bytes: every key complemented
        keys = [~(ends - starts).astype(np.uint64)] + [~w for w in words[::-1]]
        order[place] = order[place][_lexsort_packed(keys, block)]
        return
    names = np.array(docno.text(tied), dtype=object)  # ids over 32 bytes
    _, text_rank = np.unique(_as_bytes(names), return_inverse=True)
    order[place] = order[place][np.lexsort((-text_rank.reshape(-1), block))]


def _lexsort_packed(keys: list, block: np.ndarray) -> np.ndarray:
    """``np.lexsort((*keys, block))`` for uint64 keys (the last most
    significant after ``block``), by one sort of ``block`` packed with the top
    bits of the most significant key; only rows whose packed keys collide are
    then sorted by every key (heavy ties: one sort instead of several)."""
    block_bits = max(1, int(block.max(initial=0)).bit_length())
    if len(keys) < 2 or block_bits > 40:
        return np.lexsort((*keys, block))
    packed = block.astype(np.uint64) << np.uint64(64 - block_bits)
    packed |= keys[-1] >> np.uint64(block_bits)
    by = np.argsort(packed, kind="stable")
    packed = packed[by]
    same = packed[1:] == packed[:-1]
    del packed
    if same.any():  # truncated keys that collide: those rows by every key
        at = np.flatnonzero(np.r_[same, False] | np.r_[False, same])
        run = np.cumsum(np.r_[True, ~same])[at]
        sub = by[at]
        by[at] = sub[np.lexsort((*(k[sub] for k in keys), run))]
    return by


_RUN_ROWS = 1 << 18  # rows sorted per pass in trec_eval's order (about)


def _whole_runs(first: np.ndarray, n_threads: int = 1):
    """``(a, b)`` ranges covering ``first``'s positions, each a whole number of
    runs (``first``: True where a run starts) of about :data:`_RUN_ROWS`
    (fewer with ``n_threads``: at least one range per thread when there are
    rows enough, :data:`._threads.MIN_PIECE_ROWS`)."""
    n = first.size
    # (Threads' pieces together no bigger than one: the same temporaries.)
    least = _threads.MIN_PIECE_ROWS
    step = min(max(least, _RUN_ROWS // n_threads), max(least, -(-n // n_threads)))
    if n <= step:
        yield 0, n
        return
    heads = np.flatnonzero(first)
    targets = np.arange(0, n, step)
    cuts = np.unique(heads[np.searchsorted(heads, targets, "right") - 1])
    bounds = [*cuts.tolist(), n]
    yield from itertools.pairwise(bounds)


@dataclass
class _Joined:
    """Rows of the join, retrieved ones first (grouped by query, in trec_eval's
    order), then the judged-but-not-retrieved ones."""

    y_true: np.ndarray
    y_score: np.ndarray
    qcode: np.ndarray  # query code per row, codes numbered in string order
    retrieved: np.ndarray
    rank: np.ndarray
    qids: np.ndarray  # the query id of each code
    judged: np.ndarray  # a qrels line with grade >= 0 (trec_eval -J keeps these)
    pooled: np.ndarray  # any qrels line (a negative grade: pooled, not judged)
    run_docs: tuple  # (docno column, codes) of retrieved rows, for text
    qrels_docs: tuple  # (docno column, codes) of the other rows


def _join(
    qrels: _ParsedQrels,
    run: _ParsedRun,
    complete: bool,
    max_docs_per_query: int | None,
    n_threads: int = 1,
) -> _Joined:
    """trec_eval's join of a qrels and a run (see :func:`trec_arrays`);
    ``n_threads``: the ranking's (:func:`_trec_order`)."""
    qq, rq, qids, in_q, in_r = _query_codes(qrels, run)
    n_q = qids.size
    # Run rows of judged queries; qrels rows of the queries the run returns
    # (which codes a file holds: read off its distinct ids, not its rows,
    # where every id has rows).
    judged = np.zeros(n_q, bool)
    judged[in_q] = True
    if judged[in_r].all():  # every query of the run judged: every run row
        run_rows = np.arange(rq.size)
        rs, file_q = run.score, run.qid.codes  # (read only)
    else:
        run_rows = np.flatnonzero(judged[rq])
        rq = _threads.take(rq, run_rows, n_threads)
        rs = _threads.take(run.score, run_rows, n_threads)
        file_q = _threads.take(run.qid.codes, run_rows, n_threads)
    if complete:
        qrels_rows = np.arange(qq.size)
    else:
        returned = np.zeros(n_q, bool)
        returned[in_r] = True
        qrels_rows = np.flatnonzero((returned & judged)[qq])
    qq = qq[qrels_rows]
    raw = qrels.relevance[qrels_rows]
    qr = np.maximum(raw, 0.0)
    cols = [rq, rs, run_rows]
    del rq, rs, run_rows  # the list holds the only references (memory)
    rq, rs, run_rows, rank = _rank_and_cut(
        cols, run.docno, max_docs_per_query, file_q, n_threads
    )
    del file_q
    run.settle()  # a duplicate check that ran beside the ranking
    if run.repeats:  # documents listed twice: an error where both are kept
        _check_kept_repeats(run, run_rows, max_docs_per_query)
    if run_rows.size and int(run_rows.max()) < 2**31 - 1:
        run_rows = run_rows.astype(np.int32)  # kept for the text (memory)
    # One lookup of each judgment's position (1-based, 32-bit below 2**31
    # judgments; 0: no qrels line) gives both the grade and the judged flag of
    # every run row.
    index = np.int32 if qq.size < 2**31 - 1 else np.int64
    position = np.arange(1, qq.size + 1, dtype=index)
    found, missing = _lookup(
        qrels, run, qq, qrels_rows, position, rq, run_rows, n_threads
    )
    # Position 0 reads a leading "no qrels line": grade 0, not judged.
    # Judged: a qrels line with a grade >= 0 (trec_eval: negative = unjudged).
    y_run = np.r_[0.0, qr][found]
    judged_run = np.r_[False, raw >= 0][found]
    pooled_run = found > 0  # any qrels line, a negative grade included
    del found
    floor = float(rs.min()) if rs.size else 0.0
    floor -= max(1.0, abs(floor))
    m = int(missing.sum())
    y_true = np.concatenate([y_run, qr[missing]])
    del y_run
    y_score = np.concatenate([rs, np.full(m, floor)])
    del rs
    n_run = rq.size
    qcode = np.concatenate([rq, qq[missing]], dtype=np.int64)
    del rq
    return _Joined(
        y_true=y_true,
        y_score=y_score,
        qcode=qcode,
        retrieved=np.concatenate([np.ones(n_run, bool), np.zeros(m, bool)]),
        rank=rank,
        qids=qids,
        judged=np.concatenate([judged_run, raw[missing] >= 0]),
        pooled=np.concatenate([pooled_run, np.ones(m, bool)]),
        run_docs=(run.docno, run_rows),
        qrels_docs=(qrels.docno, qrels_rows[missing]),
    )


def _check_kept_repeats(run, run_rows, max_docs_per_query) -> None:
    """trec_eval (form_res_rels.c) checks for a document listed twice among
    the top ``-M`` documents of each query only: raise where both are kept."""
    kept = np.zeros(len(run.docno), bool)
    kept[run_rows] = True
    listings: dict[int, list[int]] = {}  # first row -> every row of that pair
    for first, row in run.repeats:
        listings.setdefault(first, [first]).append(row)
    for rows in listings.values():
        both = [r for r in sorted(rows) if kept[r]]
        if len(both) > 1:
            where = (
                f" within the top {max_docs_per_query} (-M) of its query"
                if max_docs_per_query is not None
                else ""
            )
            raise duplicate_error(
                run.qid, run.docno, run.line, run.source, both[0], both[1], where
            )


def _rank_and_cut(cols, docno, max_docs_per_query, file_q=None, n_threads=1):
    """Run rows in trec_eval's order with their rank, cut at max_docs_per_query.

    ``cols`` is ``[rq, rs, rows]``, reordered one array at a time in place of
    the list's own (sole) references, so the old arrays go as the new come.
    """
    order = _trec_order(*cols, docno, file_q, n_threads)
    del file_q
    for i in range(len(cols)):
        cols[i] = _threads.take(cols[i], order, n_threads)
    del order
    rq, rs, rows = cols
    cols.clear()
    n = rq.size
    starts = np.flatnonzero(np.r_[True, rq[1:] != rq[:-1]]) if n else rq
    # rank = position within the query block: a running sum of ones that
    # drops back to 1 at each block start (one array of n; 32 bits below 2**31
    # rows).
    rank = np.ones(n, np.int32 if n < 2**31 - 1 else np.int64)
    if starts.size > 1:
        rank[starts[1:]] -= np.diff(starts)
    np.cumsum(rank, out=rank)
    if max_docs_per_query is not None:
        cut = rank <= max_docs_per_query
        rq, rs, rows, rank = (a[cut] for a in (rq, rs, rows, rank))
    return rq, rs, rows, rank


def _lookup(qrels, run, qq, qrels_rows, qr, rq, run_rows, n_threads=1):
    """(grade of each run row, mask of qrels rows the run did not retrieve).

    The kept judgments' keys, written in the run's key table layout (the run
    file's query code, docno hash bits), are looked up in that table by binary
    search; every match is confirmed byte for byte. Keys shared by several run
    rows (hash bits that collide) are resolved exactly. ``n_threads``: the
    sorted keys are looked up a slice per thread (each judgment's match is its
    own, written to rows no other slice writes: the same result at every count).
    """
    y_run = np.zeros(rq.size, qr.dtype)
    missing = np.ones(qq.size, bool)
    if qq.size == 0 or rq.size == 0:
        return y_run, missing
    table = run.keys if run.keys is not None else _key_table(run.qid, run.docno)
    if table is None:
        return _lookup_exact(qrels, run, qq, qrels_rows, qr, rq, run_rows)
    code = _run_code_of(qrels, run, qq, rq, qrels_rows, run_rows)
    # Position of each original run row among the kept ones (-1: dropped).
    n_file = len(run.docno)
    index = np.intp if rq.size >= 2**31 else np.int32
    every = run_rows.size == n_file  # (rows unique: a permutation)
    r_pos = np.empty(n_file, index) if every else np.full(n_file, -1, index)

    def invert(part: slice) -> None:
        r_pos[run_rows[part]] = np.arange(part.start, part.stop, dtype=index)

    run_pieces(invert, row_slices(run_rows.size, n_threads), n_threads)
    wanted = np.flatnonzero(code >= 0)  # judgments of queries the run has
    hashes = qrels.docno.hashes[qrels_rows[wanted]]
    lead = code[wanted]
    high = lead.astype(np.uint64) << np.uint64(table.hash_bits)
    high |= hashes >> np.uint64(64 - table.hash_bits)
    del hashes
    if lead.size < 2 or bool((lead[1:] >= lead[:-1]).all()):  # grouped
        by_high = _threads.argsort_grouped(high, lead, n_threads)
    else:
        by_high = np.argsort(high, kind="stable")
    del lead
    wanted, high = wanted[by_high], high[by_high]
    del by_high

    def find(part: slice) -> None:
        """The sorted keys ``high[part]`` looked up."""
        rows_q, high_q = wanted[part], high[part]
        # The table is sorted by (high part, row): the rows of one high part lie
        # between the packed values high << row_bits and (high + 1) << row_bits.
        shift = np.uint64(table.row_bits)
        packed = table.packed
        left = np.searchsorted(packed, high_q << shift, "left")
        # How many entries share each high part: read off the entries at left and
        # left + 1 (ascending positions: one pass), counted by a second search only
        # where two or more do (colliding hash bits: rare).
        last = packed.size - 1
        count = (left <= last) & (packed[np.minimum(left, last)] >> shift == high_q)
        second = packed[np.minimum(left + 1, last)] >> shift == high_q
        more = count & (left < last) & second
        count = count.astype(np.intp)
        if more.any():
            at = np.flatnonzero(more)
            end = np.searchsorted(packed, (high_q[at] + np.uint64(1)) << shift, "left")
            count[at] = end - left[at]
        one = np.flatnonzero(count == 1)
        i, j = rows_q[one], r_pos[table.rows(left[one])]
        kept = j >= 0
        i, j = i[kept], j[kept]
        extra_i, extra_j = [i], [j]
        for k in np.flatnonzero(count > 1).tolist():  # colliding hash bits: rare
            js = r_pos[table.rows(slice(left[k], left[k] + count[k]))]
            js = js[js >= 0]
            extra_i.append(np.full(js.size, rows_q[k]))
            extra_j.append(js)
        i, j = np.concatenate(extra_i), np.concatenate(extra_j)
        d_run, d_qrels = run.docno, qrels.docno
        r_at, q_at = run_rows[j], qrels_rows[i]
        same = (rq[j] == qq[i]) & _spans.same_spans(
            d_run.buf,
            d_run.starts[r_at],
            d_run.ends[r_at],
            d_qrels.buf,
            d_qrels.starts[q_at],
            d_qrels.ends[q_at],
        )
        i, j = i[same], j[same]
        y_run[j] = qr[i]
        missing[i] = False

    run_pieces(find, row_slices(wanted.size, n_threads), n_threads)
    return y_run, missing


def _lookup_exact(qrels, run, qq, qrels_rows, qr, rq, run_rows):
    """:func:`_lookup` through a dict of (query, document bytes): slow, exact."""
    table: dict[tuple[int, bytes], int] = {}
    for i, (q, row) in enumerate(zip(qq.tolist(), qrels_rows.tolist(), strict=True)):
        table.setdefault((q, qrels.docno.raw(row)), i)
    y_run = np.zeros(rq.size, qr.dtype)
    missing = np.ones(qq.size, bool)
    for j, (q, row) in enumerate(zip(rq.tolist(), run_rows.tolist(), strict=True)):
        i = table.get((q, run.docno.raw(row)))
        if i is not None:
            y_run[j] = qr[i]
            missing[i] = False
    return y_run, missing
