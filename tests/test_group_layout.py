"""The prepared layout's integer-key sort (``GroupLayout._key_order``).

Each round sorts int64 keys (the score's order-preserving bits with the column
in the low bits) instead of a stable argsort of the scores. These tests check
that the keys give the cold order to the last bit under every tie rule, that
the fast path is the one taken for ordinary and heavily tied scores, and that
scores whose bits differ only in the low bits (where the column goes) are
caught and ordered by the stable argsort instead.
"""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank._engine import group_layout

TIES = ["average", "threshold", "stable", "pessimistic", "optimistic"]
METRICS = ["ndcg@10", "map", "mrr", "err@20", "rbp", "recall@100", "precision@5"]


def _inputs(seed, n=20_000, n_groups=300, in_order=False):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    if in_order:  # a boosting eval set: rows by query
        groups = np.sort(groups)
    y = rng.integers(0, 5, n).astype(float)
    return y, groups, rng


def _round_scores(rng, n):
    """Scores as boosting rounds give them: few distinct values (many ties),
    signed zeros, negative and positive values, and continuous ones."""
    few = rng.integers(-3, 4, n) / 4.0  # 0.0 and, below, -0.0 tie
    signed = few.copy()
    signed[rng.random(n) < 0.3] *= -1.0  # -0.0 where few is 0.0
    return [few, signed, rng.normal(size=n), np.round(rng.normal(size=n), 1)]


def _forbid_argsort(monkeypatch):
    def argsort(self, in_groups):
        raise AssertionError("the key sort fell back to the stable argsort")

    monkeypatch.setattr(group_layout.GroupLayout, "_argsort_order", argsort)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("in_order", [False, True], ids=["shuffled", "by_query"])
def test_key_sort_equals_evaluate(monkeypatch, ties, in_order):
    y, groups, rng = _inputs(0, in_order=in_order)
    prepared = sr.prepare(y, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
    scores = _round_scores(rng, y.size)
    wants = [
        sr.evaluate(y, s, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
        for s in scores
    ]
    per_group = sr.evaluate_per_group(
        y, scores[1], groups=groups, metrics=METRICS, ties=ties, max_grade=4
    )
    _forbid_argsort(monkeypatch)
    for score, want in zip(scores, wants, strict=True):
        assert prepared.evaluate(score) == want
    got = prepared.evaluate_per_group(scores[1])
    for name in METRICS:
        np.testing.assert_array_equal(
            got.values[name], per_group.values[name], strict=True
        )


@pytest.mark.parametrize("ties", TIES)
def test_scores_apart_in_the_low_bits_fall_back(monkeypatch, ties):
    # Neighbouring floats differ in the last bit of the mantissa, where the key
    # holds the column: the key order may swap them, the check sees it and the
    # stable argsort orders the round. The values are the cold ones.
    y, groups, rng = _inputs(1)
    base = rng.integers(0, 3, y.size) / 3.0 + 1.0
    score = base.copy()
    up = rng.random(y.size) < 0.5
    score[up] = np.nextafter(base[up], np.inf)  # 1 ulp above its neighbours
    want = sr.evaluate(y, score, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
    prepared = sr.prepare(y, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
    calls = []
    argsort = group_layout.GroupLayout._argsort_order

    def spy(self, in_groups):
        calls.append(in_groups.size)
        return argsort(self, in_groups)

    monkeypatch.setattr(group_layout.GroupLayout, "_argsort_order", spy)
    assert prepared.evaluate(score) == want
    assert calls, "1-ulp apart scores never reached the fallback: the check is gone"
    # The next round, with scores the keys order, takes the key sort again.
    calls.clear()
    plain = rng.normal(size=y.size)
    assert prepared.evaluate(plain) == sr.evaluate(
        y, plain, groups=groups, metrics=METRICS, ties=ties, max_grade=4
    )
    assert not calls


def test_long_rows_and_small_inputs_sort_by_argsort():
    # Rows longer than 2**20 cells leave no room for the column in the keys:
    # the layout keeps the stable argsort (checked on the constructor's choice,
    # a million-row group would make the test slow).
    length = np.array([1 << 20, 1 << 20])
    layout = group_layout.GroupLayout(None, length, "stable", 1 << 21)
    assert layout._keys is None
    keyed = group_layout.GroupLayout(None, np.array([9000, 8000]), "stable", 9000)
    assert keyed._keys is not None
    # A small eval set keeps the argsort (fewer calls).
    tiny = group_layout.GroupLayout(None, np.array([3, 2]), "stable", 3)
    assert tiny._keys is None


def test_a_used_prepared_evaluation_copies_and_pickles():
    # The layout holds a lock and work arrays: deepcopy (scikit-learn's clone
    # of an eval_metric), pickle (joblib workers) still work after a round, and
    # the copy scores as the original.
    import copy
    import pickle

    y, groups, rng = _inputs(2)
    prepared = sr.prepare(y, groups=groups, metrics=METRICS, max_grade=4)
    score = rng.normal(size=y.size)
    want = prepared.evaluate(score)
    for other in (copy.deepcopy(prepared), pickle.loads(pickle.dumps(prepared))):
        assert other.evaluate(score) == want
    assert prepared.evaluate(score) == want


def _skewed_groups(rng, n_rows=40_000, tiny=False):
    """Query sizes of a search log: log-normal, 1 row to over a thousand; or
    (``tiny``) groups of 1 to 3 rows, whose classes include one of width 1."""
    if tiny:
        sizes = rng.integers(1, 4, n_rows)
    else:
        sizes = np.maximum(1, rng.lognormal(3.5, 1.2, n_rows)).astype(int)
    sizes = sizes[np.cumsum(sizes) <= n_rows]
    if not tiny:
        sizes[0] = 1500  # one long query among many short ones
    return rng.permutation(np.repeat(np.arange(sizes.size), sizes))


@pytest.mark.parametrize("seed", range(4))
def test_width_classes_give_each_row_its_own_cell(seed):
    # Every group's cells lie in one row of its class's matrix (column <
    # width), and no two rows of the input share a cell.
    rng = np.random.default_rng(seed)
    length = [
        rng.integers(50, 151, 500),
        np.maximum(1, rng.lognormal(3, 1.3, 2000)).astype(np.int64),
        np.r_[np.zeros(40, dtype=np.int64), rng.integers(1, 9, 300)],
        np.full(30, 7),
    ][seed]
    base, classes = group_layout.width_classes(length)
    cells = sum(count * w for _, count, w in classes)
    assert sum(count for _, count, _ in classes) == length.size
    owner = np.full(cells, -1)
    for first, count, w in classes:
        rows = (base >= first) & (base < first + count * w)
        assert rows.sum() == count
        assert ((base[rows] - first) % w == 0).all() if w else True
        assert (length[rows] <= w).all()
    for g in range(length.size):
        span = owner[base[g] : base[g] + length[g]]
        assert (span == -1).all()
        span[:] = g
    assert (owner >= 0).sum() == length.sum()
    if seed == 1:  # skewed: classes keep the padding small
        assert len(classes) > 1 and cells < 1.5 * length.sum()


@pytest.mark.parametrize("tiny", [False, True], ids=["skewed", "tiny"])
@pytest.mark.parametrize("ties", TIES)
def test_skewed_groups_are_prepared_with_the_cold_values(monkeypatch, ties, tiny):
    # Groups of 1 to 1,500 rows: one padded matrix would be over 3 cells per
    # row (not prepared); width classes lay them out, and both the key sort
    # and the stable argsort give the cold values to the last bit. Groups of
    # 1-3 rows: a class of width 1, which neither sort visits.
    rng = np.random.default_rng(7)
    groups = _skewed_groups(rng, tiny=tiny)
    y = rng.integers(0, 5, groups.size).astype(float)
    n_groups = groups.max() + 1
    layout = group_layout.GroupLayout.build(groups, y, n_groups, ties)
    assert layout is not None and len(layout.classes) > 1
    if tiny:
        assert min(w for _, _, w in layout.classes) == 1
    else:
        assert n_groups * np.bincount(groups).max() > 3 * groups.size
    prepared = sr.prepare(y, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
    scores = _round_scores(rng, y.size)
    base = rng.integers(0, 3, y.size) / 3.0 + 1.0
    up = rng.random(y.size) < 0.5
    base[up] = np.nextafter(base[up], np.inf)  # the argsort's round
    scores.append(base)
    # The reference: the cold call ordered by ordering.order_rows, not by a
    # layout made for the call.
    from sklearn_rank._engine import context

    with monkeypatch.context() as patch:
        patch.setattr(context, "_TRANSIENT_LAYOUT_ROWS", groups.size + 1)
        wants = [
            sr.evaluate(y, s, groups=groups, metrics=METRICS, ties=ties, max_grade=4)
            for s in scores
        ]
        want = sr.evaluate_per_group(
            y, scores[0], groups=groups, metrics=METRICS, ties=ties, max_grade=4
        )
    for score, value in zip(scores, wants, strict=True):
        assert prepared.evaluate(score) == value
    got = prepared.evaluate_per_group(scores[0])
    for name in METRICS:
        np.testing.assert_array_equal(got.values[name], want.values[name], strict=True)
