"""A cold call of many rows orders them through a layout by group made for that
call (``context._transient_layout``), as a prepared evaluation does: the same
order as ``ordering.order_rows``, so the same bits for every metric, checked
here with the threshold lowered so that small inputs take the layout path."""

import numpy as np
import pytest
from test_threads import _working

from sklearn_rank import evaluate_per_group
from sklearn_rank._engine import context, group_layout


def _rows(seed):
    """Groups of 1-40 rows, shuffled; graded labels, many tied scores, close
    scores that differ in their last bits only (the key sort's check) and
    groups of one score."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 41, 120)
    groups = np.repeat(np.arange(sizes.size) * 7 + 3, sizes)  # not 0..n-1
    n = groups.size
    y = (rng.integers(0, 5, n) * (rng.random(n) < 0.4)).astype(float)
    score = np.round(rng.normal(size=n), 1)
    close = rng.random(n) < 0.1
    score[close] = 0.5 + rng.integers(0, 3, close.sum()) * np.spacing(0.5)
    # Groups of one score side by side: a tie never runs on into the next group.
    score[np.isin(groups, groups[rng.random(n) < 0.05])] = 0.0
    weight = rng.random(n) + 0.1
    perm = rng.permutation(n)
    return y[perm], score[perm], groups[perm], weight[perm]


@pytest.mark.parametrize("ties", ["stable", "average", "threshold"])
@pytest.mark.parametrize("seed", [0, 1])
def test_layout_order_gives_the_same_bits(ties, seed, monkeypatch):
    y, s, g, w = _rows(seed)
    names, _ = _working(ties)
    built = []
    real = context._transient_layout

    def counted(*args):
        layout = real(*args)
        built.append(layout is not None)
        return layout

    monkeypatch.setattr(context, "_transient_layout", counted)
    kw = dict(groups=g, metrics=names, sample_weight=w, ties=ties, max_grade=4)
    monkeypatch.setattr(context, "_TRANSIENT_LAYOUT_ROWS", 1 << 40)
    want = evaluate_per_group(y, s, **kw)
    assert not any(built)
    monkeypatch.setattr(context, "_TRANSIENT_LAYOUT_ROWS", 2)
    monkeypatch.setattr(group_layout, "_KEY_SORT_ROWS", 2)
    got = evaluate_per_group(y, s, **kw)
    assert built and all(built[-1:])  # the layout ordered this call
    for name in names:
        assert np.array_equal(got.values[name], want.values[name], equal_nan=True), name


@pytest.mark.parametrize("ties", ["stable", "average"])
def test_chunks_on_one_thread_give_the_same_bits(ties, monkeypatch):
    """A large call is cut into chunks of whole groups run one after the other
    (``shards.CHUNK_ROWS``): the same bits as one piece, on one thread."""
    from test_threads import _rows as thread_rows

    from sklearn_rank import evaluate
    from sklearn_rank._metrics import shards

    y, s, g, w = thread_rows(1)
    names, _ = _working(ties)
    kw = dict(groups=g, metrics=names, sample_weight=w, ties=ties, max_grade=4)
    want = evaluate(y, s, n_jobs=1, **kw)
    cuts = []
    real = shards.split_inputs
    monkeypatch.setattr(
        shards, "split_inputs", lambda *a: cuts.append(a[1].size - 1) or real(*a)
    )
    monkeypatch.setattr(shards, "CHUNK_ROWS", 2500)
    got = evaluate(y, s, n_jobs=1, **kw)
    assert cuts and cuts[0] >= 3  # cut into chunks
    assert got == want
    per_group = evaluate_per_group(y, s, n_jobs=1, **kw)
    monkeypatch.setattr(shards, "CHUNK_ROWS", 1 << 40)
    one_piece = evaluate_per_group(y, s, n_jobs=1, **kw)
    for name in names:
        assert np.array_equal(
            per_group.values[name], one_piece.values[name], equal_nan=True
        )
