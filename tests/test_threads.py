"""n_jobs: threads over group shards give the single-threaded numbers to the
last bit (issue 48), and n_jobs follows scikit-learn's convention."""

import functools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
import sklearn

from sklearn_rank import evaluate, evaluate_per_group, get_metric_names
from sklearn_rank._engine.conventions import resolve_options
from sklearn_rank._metrics import shards
from sklearn_rank._metrics.evaluate import (
    prepare_inputs,
    sharded_group_scores,
    sharded_means,
)
from sklearn_rank._metrics.validation import check_metrics

TIES = ("average", "stable", "pessimistic", "optimistic", "threshold")


def _names():
    out = []
    for name in get_metric_names():
        if name == "auc" or name in shards.ACROSS_GROUPS:
            continue  # pooled, or reading all groups: one thread (tested below)
        base, _, arg = name.partition("@")
        if arg == "k":
            out += [f"{base}@3", f"{base}@10"]
        elif arg == "r":
            out.append(f"{base}@0.5")
        elif arg == "m":
            out.append(f"{base}@2")
        else:
            out.append(name)
    # A family read off the cutoff axis (three cutoffs or more).
    return [*out, "ndcg@1", "ndcg@2", "ndcg@5", "precision@1", "precision@5"]


NAMES = _names()


@functools.lru_cache
def _working(ties):
    """The names a single pass computes under ``ties`` (some refuse tie blocks
    whose exact expectation is not implemented), and the ones it refuses."""
    y, s, g, _ = _rows()
    ok, refused = [], []
    for name in NAMES:
        try:
            evaluate(y, s, groups=g, metrics=[name], ties=ties, max_grade=4)
        except ValueError:
            refused.append(name)
        else:
            ok.append(name)
    return ok, refused


def _rows(seed=0):
    """Tiny groups (1-3 rows), middling ones and a few huge ones, shuffled;
    graded labels, tied scores, row weights."""
    rng = np.random.default_rng(seed)
    sizes = np.concatenate(
        [rng.integers(1, 4, 300), rng.integers(4, 60, 60), [3000, 2000, 1500]]
    )
    # Long groups (> LONG_GROUP rows) spread over the codes: each shard of the
    # tests' cuts holds one.
    sizes[::52] = rng.integers(80, 200, sizes[::52].size)
    groups = np.repeat(np.arange(sizes.size), sizes)
    n = groups.size
    y = rng.integers(0, 5, n) * (rng.random(n) < 0.4)
    score = np.round(rng.normal(size=n), 1)  # many ties
    weight = rng.random(n) + 0.1
    perm = rng.permutation(n)
    return y[perm].astype(float), score[perm], groups[perm], weight[perm]


def _sharded(func, names, n_shards, y, s, g, w, **options):
    requests = check_metrics(names, "evaluate", per_group=func == "per_group")
    opts = resolve_options("evaluate", None, {"max_grade": 4, **options})
    inputs = prepare_inputs("evaluate", y, s, g, w, None, requests, opts)
    run = sharded_means if func == "mean" else sharded_group_scores
    # Balanced by rows (fewer shards where a huge group fills one), and
    # exactly n_shards by number of groups: the same numbers either way.
    balanced = shards.shard_bounds(inputs.codes, inputs.n_groups, n_shards)
    assert 1 <= balanced.size - 1 <= n_shards
    # By groups, with a long group in each shard (shard_rules.LONG_GROUP).
    by_groups = np.linspace(0, 360, n_shards).round().astype(np.intp)
    by_groups = np.r_[by_groups, inputs.n_groups]
    out = run(inputs, requests, opts, n_shards, by_groups)
    again = run(inputs, requests, opts, n_shards, balanced)
    if func == "mean":
        assert again == out
    elif out is not None:
        for name in out.values:
            assert np.array_equal(again.values[name], out.values[name], equal_nan=True)
    return out


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("n_shards", [2, 3, 7])
@pytest.mark.parametrize("weighted", [False, True])
def test_means_bit_identical(ties, n_shards, weighted):
    y, s, g, w = _rows()
    w = w if weighted else None
    names, refused = _working(ties)
    one = evaluate(
        y, s, groups=g, metrics=names, sample_weight=w, ties=ties, max_grade=4
    )
    many = _sharded("mean", names, n_shards, y, s, g, w, ties=ties)
    assert many is not None
    assert list(many) == list(one)
    diff = {k: (one[k], many[k]) for k in one if not one[k] == many[k]}
    assert not diff
    # A number for undefined groups.
    one = evaluate(y, s, groups=g, metrics=names, ties=ties, undefined=0.0, max_grade=4)
    many = _sharded("mean", names, n_shards, y, s, g, None, ties=ties, undefined=0.0)
    assert many == one
    # What one pass refuses, the shards refuse.
    for name in refused[:2]:
        with pytest.raises(ValueError):
            _sharded("mean", [name], n_shards, y, s, g, None, ties=ties)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("n_shards", [1, 2, 3, 7])
def test_per_group_bit_identical(ties, n_shards):
    y, s, g, w = _rows(1)
    names, _ = _working(ties)
    one = evaluate_per_group(
        y, s, groups=g, metrics=names, sample_weight=w, ties=ties, max_grade=4
    )
    many = _sharded("per_group", names, n_shards, y, s, g, w, ties=ties)
    if n_shards == 1:
        assert many is None  # one shard: the single pass runs
        return
    assert np.array_equal(many.group_ids, one.group_ids)
    for name in names:
        assert np.array_equal(many.values[name], one.values[name], equal_nan=True)
        assert np.array_equal(many.weights[name], one.weights[name])


@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("n_shards", [2, 3, 7])
def test_rows_grouped_by_group_are_cut_as_slices(ties, n_shards):
    """Rows already grouped (the command line's): each shard is a slice of the
    rows (no sort), the same values, the caller's arrays left as they were."""
    y, s, g, w = _rows(2)
    order = np.argsort(g, kind="stable")
    y, s, g, w = y[order], s[order], g[order], w[order]
    kept = [a.copy() for a in (y, s, g, w)]
    names, _ = _working(ties)
    one = evaluate_per_group(
        y, s, groups=g, metrics=names, sample_weight=w, ties=ties, max_grade=4
    )
    many = _sharded("per_group", names, n_shards, y, s, g, w, ties=ties)
    requests = check_metrics(names, "evaluate", per_group=True)
    opts = resolve_options("evaluate", None, {"max_grade": 4})
    inputs = prepare_inputs("evaluate", y, s, g, w, None, requests, opts)
    bounds = shards.shard_bounds(inputs.codes, inputs.n_groups, n_shards)
    for cut in shards.split_inputs(inputs, bounds):
        part = cut()  # a view of the rows, codes from 0 (a new array)
        assert np.shares_memory(part.y_score, inputs.y_score)
        assert not np.shares_memory(part.codes, inputs.codes)
        assert part.codes[0] == 0
    for name in names:
        assert np.array_equal(many.values[name], one.values[name], equal_nan=True)
    for a, b in zip((y, s, g, w), kept, strict=True):
        assert np.array_equal(a, b)


def test_n_jobs_end_to_end_large():
    """Through the public functions, shards above the minimum size."""
    rng = np.random.default_rng(3)
    n = 6 * shards.MIN_ROWS_PER_SHARD  # rbp: labels 0..3 under max_grade=3
    g = rng.integers(0, 2000, n)
    y = rng.integers(0, 4, n).astype(float)
    s = np.round(rng.random(n), 2)
    names = ["ndcg@10", "map", "mrr", "precision@5", "recall@20", "rbp"]
    one = evaluate(y, s, groups=g, metrics=names, max_grade=3, n_jobs=1)
    calls = []
    real = shards.ThreadPoolExecutor

    def counting(*a, **k):
        calls.append(k.get("max_workers"))
        return real(*a, **k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shards, "ThreadPoolExecutor", counting)
        assert evaluate(y, s, groups=g, metrics=names, max_grade=3, n_jobs=3) == one
        assert evaluate(y, s, groups=g, metrics=names, max_grade=3, n_jobs=-1) == one
        per = evaluate_per_group(y, s, groups=g, metrics=names, max_grade=3, n_jobs=2)
    assert calls[0] == 3 and calls[-1] == 2
    ref = evaluate_per_group(y, s, groups=g, metrics=names, max_grade=3)
    for name in names:
        assert np.array_equal(per.values[name], ref.values[name], equal_nan=True)


def test_shard_bounds():
    codes = np.array([0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3])
    b = shards.shard_bounds(codes, 4, 2)
    assert b.tolist()[0] == 0 and b.tolist()[-1] == 4 and b.size == 3
    # More shards than groups: clamped, no empty shard.
    for k in (4, 7, 100):
        b = shards.shard_bounds(codes, 4, k)
        assert np.all(np.diff(b) > 0)
        sizes = np.add.reduceat(np.bincount(codes, minlength=4), b[:-1])
        assert np.all(sizes > 0)
    # A group without rows (judged_only keeps its code) never makes a shard.
    codes = np.array([0, 0, 2, 2])
    b = shards.shard_bounds(codes, 3, 3)
    sizes = np.add.reduceat(np.bincount(codes, minlength=3), b[:-1])
    assert np.all(sizes > 0)
    assert shards.shard_bounds(codes, 1, 5).tolist() == [0, 1]


def test_pooled_and_relevant_mean_run_on_one_thread(monkeypatch):
    y, s, g, w = _rows(2)
    for names, kw in (
        (["auc", "ndcg@10"], {}),
        (["rndcg", "ndcg@10"], {"max_grade": 4, "ties": "stable"}),
        (["ndcg@10"], {"group_weight": "relevant_mean", "sample_weight": w}),
    ):
        monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
        ref = evaluate(y, s, groups=g, metrics=names, **kw)
        called = []
        monkeypatch.setattr(shards, "run_bounds", lambda *a, c=called: c.append(1))
        assert evaluate(y, s, groups=g, metrics=names, n_jobs=4, **kw) == ref
        assert not called


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_n_jobs(bad):
    y, s, g, _ = _rows()
    with pytest.raises(ValueError, match="'n_jobs' parameter of evaluate must be"):
        evaluate(y, s, groups=g, n_jobs=bad)
    with pytest.raises(ValueError, match="'n_jobs' parameter of evaluate_per_group"):
        evaluate_per_group(y, s, groups=g, n_jobs=bad)


def test_none_reads_joblib_parallel_config(monkeypatch):
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows()
    seen = []
    real = shards.run_shards

    def spy(inputs, n_threads, work):
        seen.append(n_threads)
        return real(inputs, n_threads, work)

    monkeypatch.setattr(shards, "run_shards", spy)
    import sklearn_rank._metrics.evaluate as ev

    monkeypatch.setattr(ev, "run_shards", spy)
    ref = evaluate(y, s, groups=g)
    assert seen == []  # None: one thread
    with joblib.parallel_config(n_jobs=3):
        assert evaluate(y, s, groups=g) == ref
    assert seen == [3]


def test_interrupt_does_not_hang(monkeypatch):
    """An exception in a shard (as Ctrl-C in the caller) cancels the shards
    not started and returns at once; no worker thread is left waiting."""
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows()
    import sklearn_rank._metrics.evaluate as ev

    real = ev.ranking_context
    started = []

    def boom(inputs, opts):
        started.append(1)
        if len(started) == 1:
            raise KeyboardInterrupt
        return real(inputs, opts)

    monkeypatch.setattr(ev, "ranking_context", boom)
    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        evaluate(y, s, groups=g, n_jobs=7)
    for t in threading.enumerate():
        if t.name.startswith("sklearn_rank"):
            t.join(timeout=10)
            assert not t.is_alive()
    assert threading.active_count() <= before


def test_interrupt_in_a_later_shard_stops_at_once(monkeypatch):
    """n_jobs=2, Ctrl-C (KeyboardInterrupt) raised in the second shard's work
    while the first shard is still running: evaluate raises at once, without
    waiting for the first shard, and its thread ends when its work does."""
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows()
    import sklearn_rank._metrics.evaluate as ev

    real = ev.ranking_context
    release = threading.Event()

    def work(inputs, opts):
        if inputs.group_ids[0] == 0:  # the first shard: long work
            release.wait(timeout=20)
        else:
            raise KeyboardInterrupt
        return real(inputs, opts)

    monkeypatch.setattr(ev, "ranking_context", work)
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            evaluate(y, s, groups=g, n_jobs=2)
        assert time.perf_counter() - start < 5
    finally:
        release.set()
    for t in threading.enumerate():
        if t.name.startswith("sklearn_rank"):
            t.join(timeout=10)
            assert not t.is_alive()


def test_grid_search_workers_single_threaded(monkeypatch):
    """GridSearchCV(n_jobs=2) on threads: each worker evaluates on one thread
    (no oversubscription) unless told otherwise."""
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from sklearn_rank import make_ranking_scorer

    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    pools = []
    real = ThreadPoolExecutor

    def counting(*a, **k):
        pools.append(k.get("max_workers"))
        return real(*a, **k)

    monkeypatch.setattr(shards, "ThreadPoolExecutor", counting)
    rng = np.random.default_rng(0)
    n = 600
    X = rng.normal(size=(n, 3))
    groups = np.repeat(np.arange(60), 10)
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(float)
    scorer = make_ranking_scorer("ndcg@5")
    search = GridSearchCV(
        Ridge(), {"alpha": [0.1, 1.0]}, scoring=scorer, cv=GroupKFold(3), n_jobs=2
    )
    with (
        sklearn.config_context(enable_metadata_routing=True),
        joblib.parallel_config(backend="threading"),
    ):
        search.fit(X, y, groups=groups)
    assert pools == []
    told = make_ranking_scorer("ndcg@5", n_jobs=2)
    search = GridSearchCV(
        Ridge(), {"alpha": [0.1]}, scoring=told, cv=GroupKFold(3), n_jobs=1
    )
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=groups)
    assert pools and set(pools) == {2}


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_prepared_on_shards_bit_identical(ties, n_jobs, weighted, monkeypatch):
    """prepare(n_jobs=): one prepared layout per shard of whole groups, each
    round's shards on threads, reduced as the cold path's shards: the single
    pass's numbers to the last bit, round after round."""
    from sklearn_rank import prepare

    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, w = _rows(4)
    w = w if weighted else None
    names, _ = _working(ties)
    kw = {"groups": g, "metrics": names, "sample_weight": w, "ties": ties}
    prepared = prepare(y, max_grade=4, n_jobs=n_jobs, **kw)
    if n_jobs == 1:
        assert prepared._shards is None
    else:  # balanced by rows: fewer shards where a huge group fills one
        assert 2 <= len(prepared._shards) <= n_jobs
    rng = np.random.default_rng(5)
    for score in (s, np.round(rng.normal(size=s.size), 1)):
        assert prepared.evaluate(score) == evaluate(y, score, max_grade=4, **kw)
        many = prepared.evaluate_per_group(score)
        one = evaluate_per_group(y, score, max_grade=4, **kw)
        assert np.array_equal(many.group_ids, one.group_ids)
        for name in names:
            assert np.array_equal(many.values[name], one.values[name], equal_nan=True)
            assert np.array_equal(many.weights[name], one.weights[name])
    # A number for undefined groups; a mean that raises, raised.
    prepared = prepare(y, max_grade=4, n_jobs=n_jobs, undefined=0.0, **kw)
    assert prepared.evaluate(s) == evaluate(y, s, max_grade=4, undefined=0.0, **kw)
    with pytest.raises(ValueError, match="undefined"):
        prepare(y, max_grade=4, n_jobs=n_jobs, undefined="raise", **kw).evaluate(s)


def test_prepared_judged_only_and_one_thread_metrics(monkeypatch):
    """judged_only's kept rows read the right scores on each shard; what reads
    every group (ndcg_rel, the pooled auc) keeps one layout; bad n_jobs refused."""
    from sklearn_rank import prepare

    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows(6)
    judged = np.random.default_rng(7).random(y.size) < 0.7
    y = np.where(judged, y, 0.0)
    kw = {"groups": g, "metrics": ["ndcg@10", "map", "bpref"], "judged": judged}
    prepared = prepare(y, judged_only=True, n_jobs=3, **kw)
    assert prepared._shards is not None
    assert prepared.evaluate(s) == evaluate(y, s, judged_only=True, **kw)
    for names in (["ndcg_rel", "map"], ["auc", "map"]):
        prepared = prepare(y, groups=g, metrics=names, n_jobs=3, ties="stable")
        assert prepared._shards is None
        want = evaluate(y, s, groups=g, metrics=names, ties="stable")
        assert prepared.evaluate(s) == want
    for bad in (0, 1.5, "2"):
        with pytest.raises((TypeError, ValueError), match="n_jobs"):
            prepare(y, groups=g, n_jobs=bad)


@pytest.mark.parametrize("n_threads", [1, 2, 3, 7])
def test_rows_per_group_counted_on_threads(n_threads, monkeypatch):
    """The shard bounds' row counts, one count per range of rows on each
    thread and added: the counts of one pass, whatever the thread count."""
    monkeypatch.setattr(shards, "_COUNT_ROWS", 5)
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 40, 101)
    codes[codes == 7] = 8  # a code without rows
    got = shards.rows_per_group(codes, 41, n_threads)
    assert np.array_equal(got, np.bincount(codes, minlength=41))
    # One shard per thread (no half-size last round): the bounds of one count.
    assert np.array_equal(
        shards.shard_bounds(codes, 41, n_threads, n_threads),
        shards.shard_bounds(codes, 41, n_threads, 1),
    )


def test_last_round_of_shards_is_half_size():
    """Several shards per thread: the last one of each thread is half the size
    of the others (the threads end nearer together); on one thread, or one
    shard per thread, every shard is the same size."""
    codes = np.repeat(np.arange(1000), 10)
    rows = lambda b: np.diff(b) * 10  # noqa: E731
    even = rows(shards.shard_bounds(codes, 1000, 10, 1))
    assert even.tolist() == [1000] * 10
    assert rows(shards.shard_bounds(codes, 1000, 2, 2)).tolist() == [5000, 5000]
    tail = rows(shards.shard_bounds(codes, 1000, 10, 2))
    assert tail.sum() == 10_000 and tail.size == 10
    assert np.all(np.abs(tail[:8] - 10_000 / 9) <= 10)
    assert np.all(np.abs(tail[8:] - 10_000 / 18) <= 10)


def test_groups_encoded_beside_the_other_checks(monkeypatch):
    """n_jobs > 1 and many numeric group ids: the ids are encoded on a second
    thread while the labels and scores are checked, with the numbers and the
    errors (and their order) of one thread."""
    from sklearn_rank._metrics import validation

    started = []
    real = validation.in_background

    def counting(work):
        started.append(1)
        return real(work)

    monkeypatch.setattr(validation, "in_background", counting)
    rng = np.random.default_rng(5)
    n = validation._APART_ROWS + 10
    g = rng.integers(0, 500, n).astype(float)
    y = rng.integers(0, 3, n).astype(float)
    s = rng.random(n)
    assert evaluate(y, s, groups=g, n_jobs=2) == evaluate(y, s, groups=g)
    assert started

    def message(**kw):
        args = {"y_true": y, "y_score": s, "groups": g} | kw
        with pytest.raises((ValueError, TypeError)) as one:
            evaluate(args["y_true"], args["y_score"], groups=args["groups"])
        with pytest.raises(type(one.value)) as two:
            evaluate(args["y_true"], args["y_score"], groups=args["groups"], n_jobs=2)
        assert str(two.value) == str(one.value)
        return str(one.value)

    bad_y = y.copy()
    bad_y[3] = np.nan
    bad_g = g.copy()
    bad_g[4] = np.nan
    # Labels first, as on one thread, even where the ids are wrong too.
    assert "y_true" in message(y_true=bad_y, groups=bad_g)
    assert "y_true" in message(y_true=bad_y, groups=g[:-1])
    assert "groups=" in message(groups=g[:-1])
    message(groups=bad_g)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_prepared_in_chunks_bit_identical(ties, n_jobs, monkeypatch):
    """A large prepared call is cut into chunks even on one thread, as the cold
    path's (``CHUNK_ROWS``), run one after the other or on the threads: the
    single pass's numbers to the last bit, and the full layout is made only
    if a call needs the single pass."""
    from sklearn_rank import prepare

    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows(4)
    monkeypatch.setattr(shards, "CHUNK_ROWS", y.size // 5)
    names, _ = _working(ties)
    kw = {"groups": g, "metrics": names, "ties": ties}
    prepared = prepare(y, max_grade=4, n_jobs=n_jobs, **kw)
    assert len(prepared._shards) >= 4 and prepared._threads == n_jobs
    assert len(prepared._shards) % n_jobs == 0 or len(prepared._shards) > 5
    assert prepared._built is None
    rng = np.random.default_rng(9)
    for score in (s, np.round(rng.normal(size=s.size), 1)):
        assert prepared.evaluate(score) == evaluate(y, score, max_grade=4, **kw)
        many = prepared.evaluate_per_group(score)
        one = evaluate_per_group(y, score, max_grade=4, **kw)
        for name in names:
            assert np.array_equal(many.values[name], one.values[name], equal_nan=True)
    assert prepared._built is None


@pytest.mark.parametrize("n_threads", [1, 2, 3])
@pytest.mark.parametrize("layout", ["shuffled", "grouped", "blocks_reversed"])
def test_shard_rows_in_ranges(n_threads, layout, monkeypatch):
    """Every shard's rows found in one pass (a range of rows per thread): the
    rows whose code is in the shard, in input order, as one cut per shard
    finds them; slices where the whole input comes by shard."""
    monkeypatch.setattr(shards, "_COUNT_ROWS", 50)
    rng = np.random.default_rng(n_threads)
    codes = np.repeat(np.arange(200), rng.integers(1, 9, 200))
    if layout == "shuffled":
        codes = rng.permutation(codes)
    elif layout == "blocks_reversed":  # by shard in each range (of 2), not overall
        half = codes.size - codes.size // 2
        codes = np.r_[codes[half:], codes[:half]]
    bounds = shards.shard_bounds(codes, 200, 7)
    rows_of = shards.shard_rows(codes, bounds, n_threads)
    assert len(rows_of) == bounds.size - 1
    for s, rows in enumerate(rows_of):
        want = np.flatnonzero((codes >= bounds[s]) & (codes < bounds[s + 1]))
        got = np.arange(codes.size)[shards.joined_rows(rows)]
        np.testing.assert_array_equal(got, want)
        if layout == "grouped":
            assert isinstance(rows, slice)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cold_chunks_bit_identical(ties, n_jobs, monkeypatch):
    """A cold call of several chunks a thread finds every chunk's rows in one
    pass (``shard_rows``) and gives the single pass's numbers to the last bit."""
    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    y, s, g, _ = _rows(5)
    names, _ = _working(ties)
    kw = {"groups": g, "metrics": names, "ties": ties, "max_grade": 4}
    one = evaluate(y, s, **kw)
    one_per = evaluate_per_group(y, s, **kw)
    monkeypatch.setattr(shards, "CHUNK_ROWS", y.size // 6)
    monkeypatch.setattr(shards, "_COUNT_ROWS", y.size // 3)
    found = []
    real = shards.shard_rows

    def spy(codes, bounds, n_threads=1):
        found.append((bounds.size - 1, n_threads))
        return real(codes, bounds, n_threads)

    monkeypatch.setattr(shards, "shard_rows", spy)
    assert evaluate(y, s, n_jobs=n_jobs, **kw) == one
    many = evaluate_per_group(y, s, n_jobs=n_jobs, **kw)
    for name in names:
        assert np.array_equal(many.values[name], one_per.values[name], equal_nan=True)
    assert found and all(n_shards > n_jobs for n_shards, _ in found)
    assert found[0][1] == n_jobs
