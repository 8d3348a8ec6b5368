"""TREC readers: byte-order mark, encodings, gzip, hash collisions, memory."""

from __future__ import annotations

import gzip
import io
import tracemalloc

import numpy as np
import pytest

from sklearn_rank.io import _spans, load_trec, read_qrels, read_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d7 2\n"
RUN = "q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d7 1 5.0 r\n"


def test_byte_order_mark_is_stripped(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    assert read_qrels(path).qid.tolist() == ["q1", "q1", "q2"]
    run = tmp_path / "run.txt"
    run.write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    arrays = load_trec(path, run)
    assert arrays.groups.tolist()[0] == "q1"  # the first query still matches
    assert arrays.y_true.tolist() == [0.0, 1.0, 2.0]


def test_non_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(RUN.encode() + b"q3 Q0 caf\xe9 1 1.0 r\n")
    with pytest.raises(ValueError, match=r"run\.txt, line 4: not valid UTF-8"):
        read_run(path)


def test_gzip_is_read_directly(tmp_path):
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    assert read_run(path).docno.tolist() == ["d2", "d1", "d7"]


def test_hash_collisions_fall_back_to_exact_codes(monkeypatch):
    """Every field hashing alike must not merge distinct ids."""
    monkeypatch.setattr(
        _spans, "hash_spans", lambda buf, s, e: np.zeros(s.size, np.uint64)
    )
    qrels = read_qrels(io.StringIO(QRELS))
    run = read_run(io.StringIO(RUN))
    assert qrels.docno.tolist() == ["d1", "d2", "d7"]
    assert run.qid.tolist() == ["q1", "q1", "q2"]
    from sklearn_rank.io import trec_arrays

    arrays = trec_arrays(qrels, run)
    assert arrays.docno.tolist() == ["d2", "d1", "d7"]
    assert arrays.y_true.tolist() == [0.0, 1.0, 2.0]


def test_long_fields_are_hashed_exactly():
    """Ids longer than one 8-byte word, equal prefixes, differing late."""
    a, b = "x" * 40 + "a", "x" * 40 + "b"
    run = read_run(io.StringIO(f"q Q0 {a} 1 2 r\nq Q0 {b} 2 1 r\nq2 Q0 {a} 1 1 r\n"))
    assert run.docno.tolist() == [a, b, a]
    assert run._parsed.docno.n_unique == 2


def _peak_ratio(text: str, reader) -> float:
    data = text.encode()
    tracemalloc.start()
    try:
        reader(io.BytesIO(data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / len(data)


def test_one_long_field_does_not_explode_memory():
    """Peak memory stays proportional to the file size (issue 10: 40k short lines
    plus one 4,000-character docno used to build a lines x 4,000 matrix)."""
    short = "".join(f"q{i % 50} Q0 d{i} 1 {i}.5 r\n" for i in range(40_000))
    long_line = f"q1 Q0 {'z' * 4000} 1 0.5 r\n"
    base = _peak_ratio(short, read_run)
    with_long = _peak_ratio(short + long_line, read_run)
    # The old reader: ~1.2 GB for ~1 MB of text (ratio ~1000).
    assert with_long < 2 * base + 5
    assert with_long < 60


@pytest.mark.parametrize("tail", range(0, 12))
@pytest.mark.parametrize("bom", [False, True])
def test_a_mapped_file_reads_as_a_read_one(tail, bom, tmp_path, monkeypatch):
    # Large files are mapped (sklearn_rank.io._text._mapped): the buffer must be
    # the read one's, PAD zero bytes after the content included, whether the
    # file ends too close to a page boundary (then read, not mapped) or not,
    # with or without a byte-order mark; gzip'd files are still unpacked.
    import mmap

    from sklearn_rank.io import _text

    size = 2 * mmap.PAGESIZE - tail  # 0..11 bytes short of a page boundary
    lines = b"".join(b"q%d Q0 d%d 1 1.0 r\n" % (i % 3, i) for i in range(400))
    data = (b"\xef\xbb\xbf" if bom else b"") + lines
    data = data[: data.rindex(b"\n", 0, size - 20) + 1]
    data += b"q9 Q0 dx 1 1.0 r" + b" " * (size - len(data) - 17) + b"\n"
    assert len(data) == size
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    read, _ = _text.read_buffer(path)
    monkeypatch.setattr(_text, "_MAP_BYTES", 0)
    mapped, _ = _text.read_buffer(path)
    assert mapped.tobytes() == read.tobytes()
    assert mapped[-_text.PAD :].tolist() == [0] * _text.PAD
    assert _is_mapped(mapped) == (tail >= _text.PAD)  # else read
    assert not _is_mapped(read)
    got = read_run(path)
    assert got.qid.tolist()[-1] == "q9" and len(got.qid) == data.count(b"\n")
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(data))
    assert _text.read_buffer(gz)[0].tobytes() == read.tobytes()


def _is_mapped(buf) -> bool:
    while buf is not None:
        if type(buf).__module__ == "ctypes" or "c_ubyte_Array" in type(buf).__name__:
            return True
        buf = getattr(buf, "base", None)
    return False
