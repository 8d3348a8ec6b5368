"""Reading and joining TREC files on threads (``n_jobs`` of
:func:`read_run_columns`, :func:`read_qrels_columns`, :func:`join_columns`;
``sklearn-rank eval -j``): the same arrays and the same printed bytes at every
thread count.

The files here are small, so the sizes below which a piece is not worth a
thread (and the bounded runs of the join) are lowered to a few rows: every
threaded step cuts its rows in awkward places (inside a query, inside a block
of tied scores, at the last line), and a counter proves the pools ran.
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank._cli import main
from sklearn_rank.io import (
    _id_columns,
    _spans,
    _text,
    _threads,
    _trec_join,
    join_columns,
    read_qrels_columns,
    read_run_columns,
)

FIELDS = ("y_true", "y_score", "query_codes", "retrieved", "rank", "judged")


@pytest.fixture
def tiny_pieces(monkeypatch):
    """``shrink()``: pieces of a row or two everywhere from then on; the
    pools started, counted."""
    pools = []

    class Counted(_threads.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    class Pools(list):
        def shrink(self):
            monkeypatch.setattr(_threads, "ThreadPoolExecutor", Counted)
            monkeypatch.setattr(_threads, "MIN_PIECE_ROWS", 1)
            monkeypatch.setattr(_trec_join, "_RUN_ROWS", 3)
            monkeypatch.setattr(_trec_join, "_PACK_ROWS", 8)
            monkeypatch.setattr(_id_columns, "_PACK_ROWS", 8)
            monkeypatch.setattr(_spans, "_COMPACT_BYTES", 16)
            monkeypatch.setattr(_text, "_BLOCK_BYTES", 64)  # a line or two

    pools = Pools()
    return pools


def _files(tmp_path, seed=0, grouped=True, newline="\n", last_newline=True):
    """A qrels and a run with many ties (scores of one decimal), ids of
    several lengths, comments and blank lines."""
    rng = np.random.default_rng(seed)
    qids = [f"q{k}" for k in (3, 10, 1, 200, 7)]
    qrels, run = ["# judgments", ""], ["# a run", ""]
    for q in qids:
        docs = [f"d{'x' * int(rng.integers(0, 12))}{i}" for i in range(40)]
        for d in docs[::2]:
            qrels.append(f"{q} 0 {d} {int(rng.integers(-1, 3))}")
        for i in rng.permutation(30):
            run.append(f"{q} Q0 {docs[i]} {i + 1} {rng.integers(0, 5) / 10} tag")
    qrels.append("q999 0 dz 1")  # a judged query the run lacks (-c)
    head, body = run[:2], run[2:]
    if not grouped:
        body = [body[i] for i in rng.permutation(len(body))]
    paths = []
    for name, lines in (("qrels", qrels), ("run", head + body)):
        text = newline.join(lines) + (newline if last_newline else "")
        path = tmp_path / f"{name}.txt"
        path.write_bytes(text.encode())
        paths.append(path)
    return paths


def _trec_order(run_path):
    """Brute force: the retrieved (query, docno) pairs in trec_eval's order
    (query bytes ascending, score descending, docno bytes descending)."""
    rows = []
    for line in run_path.read_bytes().splitlines():
        f = line.split()
        if f and not f[0].startswith(b"#"):
            rows.append((f[0], float(f[4]), f[2]))
    rows.sort(key=lambda r: r[2], reverse=True)
    rows.sort(key=lambda r: -r[1])
    rows.sort(key=lambda r: r[0])
    return [(q.decode(), d.decode()) for q, _, d in rows]


def _arrays(qrels_path, run_path, n_jobs, **join):
    qrels = read_qrels_columns(qrels_path, n_jobs=n_jobs)
    run = read_run_columns(run_path, n_jobs=n_jobs)
    t = join_columns(qrels, run, n_jobs=n_jobs, **join)
    return {f: getattr(t, f) for f in FIELDS} | {"docno": t.to_arrays().docno}


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("last_newline", [True, False])
@pytest.mark.parametrize(
    "join", [{}, {"complete": True}, {"max_docs_per_query": 7}], ids=str
)
def test_threads_give_the_same_arrays(
    tmp_path, tiny_pieces, grouped, newline, last_newline, join
):
    qrels, run = _files(tmp_path, 1, grouped, newline, last_newline)
    whole = _arrays(qrels, run, 1, **join)  # one piece per step
    tiny_pieces.shrink()
    one = _arrays(qrels, run, 1, **join)
    assert tiny_pieces == []  # one thread: no pool at all
    for field, value in whole.items():
        np.testing.assert_array_equal(one[field], value, err_msg=field)
    if not join:  # every run row of a judged query, in trec_eval's order
        t = join_columns(read_qrels_columns(qrels), read_run_columns(run))
        a = t.to_arrays()
        got = list(zip(a.groups[a.retrieved], a.docno[a.retrieved], strict=True))
        np.testing.assert_array_equal(a.docno, one["docno"])
        judged = set(a.groups)
        assert got == [p for p in _trec_order(run) if p[0] in judged]
    assert np.unique(one["y_score"][one["retrieved"]]).size < 10  # heavy ties
    for n_jobs in (2, 3, -1):
        many = _arrays(qrels, run, n_jobs, **join)
        for field, value in one.items():
            np.testing.assert_array_equal(many[field], value, err_msg=field)
            assert many[field].dtype == value.dtype
    assert len(tiny_pieces) > 20  # hashing, packing, sorting, ties, copies


def test_sort_cut_between_queries(tiny_pieces):
    """A grouped sort cut where a query starts, never inside one."""
    tiny_pieces.shrink()
    rng = np.random.default_rng(0)
    lead = np.repeat(np.arange(6), [1, 9, 2, 30, 1, 7])
    keys = (lead.astype(np.uint64) << np.uint64(40)) | rng.integers(
        0, 1 << 30, lead.size
    ).astype(np.uint64)
    for n_threads in (1, 2, 3, 7, 50):
        packed = keys.copy()
        _threads.sort_grouped(packed, lead, n_threads)
        np.testing.assert_array_equal(packed, np.sort(keys))


def test_row_slices_cover_the_rows(tiny_pieces):
    tiny_pieces.shrink()
    for n in (0, 1, 2, 7, 100):
        for n_threads, most in ((1, None), (2, None), (3, 4), (8, 2)):
            parts = _threads.row_slices(n, n_threads, most)
            covered = np.concatenate([np.arange(n)[p] for p in parts] or [[]])
            np.testing.assert_array_equal(covered, np.arange(n))
            assert all(p.stop > p.start for p in parts)


def test_duplicate_error_is_the_same(tmp_path, tiny_pieces):
    run = tmp_path / "run.txt"
    lines = [f"q1 Q0 d{i} {i} {i / 10} t" for i in range(20)] + ["q1 Q0 d4 9 0 t"]
    run.write_text("\n".join(lines) + "\n")
    tiny_pieces.shrink()
    errors = []
    for n_jobs in (1, 2):
        with pytest.raises(ValueError, match="duplicate document") as exc:
            read_run_columns(run, n_jobs=n_jobs)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]
    assert "line 21" in errors[0] and "line 5" in errors[0]


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_n_jobs(tmp_path, bad):
    qrels, run = _files(tmp_path)
    with pytest.raises((ValueError, TypeError), match="n_jobs"):
        read_run_columns(run, n_jobs=bad)
    with pytest.raises((ValueError, TypeError), match="n_jobs"):
        read_qrels_columns(qrels, n_jobs=bad)
    q, r = read_qrels_columns(qrels), read_run_columns(run)
    with pytest.raises((ValueError, TypeError), match="n_jobs"):
        join_columns(q, r, n_jobs=bad)


@pytest.mark.parametrize(
    "flags",
    [["-q", "-m", "all_trec"], ["-c", "-q", "-M", "5", "-m", "all_trec"]],
    ids=" ".join,
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_command_prints_the_same_bytes(tmp_path, capsys, tiny_pieces, flags, newline):
    qrels, run = _files(tmp_path, 2, newline=newline, last_newline=False)
    argv = ["eval", "--quiet", *flags, str(qrels), str(run)]
    assert main(argv) == 0
    whole = capsys.readouterr().out  # one piece per step
    tiny_pieces.shrink()
    printed = [whole]
    for jobs in ("1", "2", "3"):
        argv = ["eval", "--quiet", "-j", jobs, *flags, str(qrels), str(run)]
        assert main(argv) == 0
        printed.append(capsys.readouterr().out)
        if jobs == "1":
            assert tiny_pieces == []
    assert printed[0] and all(p == printed[0] for p in printed)
    assert len(tiny_pieces) > 10 and {2, 3} <= set(tiny_pieces)


def test_first_bad_line_is_named(tmp_path, tiny_pieces):
    """Blocks split on threads: the error names the file's first bad line."""
    lines = [f"q1 Q0 d{i} {i} {i / 10} t" for i in range(60)]
    lines[29] = "q1 Q0 d29 29 0.5"  # 5 fields
    lines[49] = "q1 Q0 d49 49 x t"  # a bad score, later
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines))
    tiny_pieces.shrink()
    errors = []
    for n_jobs in (1, 2, 3):
        with pytest.raises(ValueError, match="line 30") as exc:
            read_run_columns(run, n_jobs=n_jobs)
        errors.append(str(exc.value))
    assert len(set(errors)) == 1


def test_argsort_cut_between_queries(tiny_pieces):
    """The judgments' keys argsorted a block of whole queries per thread:
    equal to one stable argsort (equal keys inside a query keep their order)."""
    tiny_pieces.shrink()
    rng = np.random.default_rng(1)
    lead = np.repeat(np.arange(7), [3, 1, 12, 2, 25, 1, 6])
    keys = (lead.astype(np.uint64) << np.uint64(40)) | rng.integers(
        0, 4, lead.size
    ).astype(np.uint64)
    for n_threads in (1, 2, 3, 7, 50):
        got = _threads.argsort_grouped(keys, lead, n_threads)
        np.testing.assert_array_equal(got, np.argsort(keys, kind="stable"))
        index = rng.integers(0, keys.size, 17)
        got = _threads.take(keys, index, n_threads)
        np.testing.assert_array_equal(got, keys[index])


@pytest.mark.parametrize("blank_every", [3, 1])
def test_line_ranges_with_skipped_lines(tmp_path, tiny_pieces, blank_every):
    """A range per thread, lines counted first: comments and blank lines in
    every range (rows closed up after), and a file of more lines than rows
    fit (blank lines: one range) give the spans and line numbers of one
    thread."""
    lines = []
    for i in range(40):
        lines.append(f"q{i % 3} Q0 d{'x' * (i % 5)}{i} {i} {i / 10} t")
        if i % blank_every == 0:
            lines.extend(["", "# a comment", "   "] + [""] * 30 * (blank_every == 1))
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    buf, name = _text.read_buffer(path)
    n = buf.size - _text.PAD  # more lines than rows fit: one range
    assert (np.count_nonzero(buf == 10) > n // 12 + 1) == (blank_every == 1)
    tiny_pieces.shrink()
    want = _text.split_fields(buf, name, 6, False, [0, 2, 4], "run", None, 1)
    assert want.line.size == 40 and want.line[-1] > 40
    for n_threads in (2, 3, 7):
        got = _text.split_fields(buf, name, 6, False, [0, 2, 4], "run", None, n_threads)
        np.testing.assert_array_equal(got.line, want.line)
        for a, b in zip(got.starts + got.ends, want.starts + want.ends, strict=True):
            np.testing.assert_array_equal(a, b)
    ranges = _text._line_ranges(buf, n, 3)
    assert len(ranges) == 3 and all(buf[a - 1] == 10 for a, _ in ranges[1:])


def test_across_groups_beside_the_shards(tmp_path, capsys, tiny_pieces, monkeypatch):
    """At -j 2 and more, the measures that read every query (ndcg_rel, Rndcg)
    run beside the engine's shards: the same bytes as at -j 1."""
    from sklearn_rank._metrics import evaluate as ev
    from sklearn_rank._metrics import shards

    qrels, run = _files(tmp_path, 3)
    beside = []

    class Counted(ev.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            beside.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    tiny_pieces.shrink()
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    monkeypatch.setattr(ev, "ThreadPoolExecutor", Counted)
    printed = []
    for jobs in ("1", "2", "3"):
        flags = ["-q", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "P.5"]
        argv = ["eval", "--quiet", "-j", jobs, *flags, str(qrels), str(run)]
        assert main(argv) == 0
        printed.append(capsys.readouterr().out)
        assert (beside != []) == (jobs != "1")
    assert "ndcg_rel" in printed[0] and "Rndcg" in printed[0]
    assert all(p == printed[0] for p in printed)


@pytest.mark.parametrize("complete", [False, True])
def test_dictionary_values_no_row_holds(complete):
    """Arrow dictionaries may hold ids that no row uses (a filtered table):
    which queries a file holds comes from its rows, not from its ids."""
    pa = pytest.importorskip("pyarrow")
    from sklearn_rank.io import table_qrels_columns, table_run_columns

    def table(rows, unused):
        ids = pa.array(rows["qid"]).dictionary_encode()
        values = pa.array(ids.dictionary.to_pylist() + unused)
        ids = pa.DictionaryArray.from_arrays(ids.indices, values)
        return {k: ids if k == "qid" else pa.array(v) for k, v in rows.items()}

    qrels = {"qid": ["q1", "q1", "q2", "q3"], "docno": ["a", "b", "a", "c"]}
    qrels["label"] = [1, 0, 2, 1]
    run = {"qid": ["q1", "q1", "q4"], "docno": ["a", "z", "a"], "s": [0.5, 0.2, 0.9]}
    got = []
    for unused_q, unused_r in (([], []), (["q4"], ["q2", "q3"])):
        q = table_qrels_columns(table(qrels, unused_q), "qid", "docno", "label", "q")
        (r,) = table_run_columns(table(run, unused_r), "qid", "docno", ["s"], "r")
        t = join_columns(q, r, complete=complete).to_arrays()
        got.append((t.groups.tolist(), t.docno.tolist(), t.y_true.tolist()))
    assert got[0][0] == (["q1"] * 3 + ["q2", "q3"] if complete else ["q1"] * 3)
    assert got[1] == got[0]
