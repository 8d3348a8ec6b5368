"""n_jobs on the statistics' resampling (issue 48): the blocks of resamples are
drawn from seeds fixed up front, so every thread count gives the n_jobs=1 report
to the last bit, and the threads are really used."""

import threading

import joblib
import numpy as np
import pytest

from sklearn_rank import GroupScores
from sklearn_rank._metrics import bootstrap
from sklearn_rank._metrics.bootstrap import bootstrap_distribution, resample_blocks
from sklearn_rank.stats import bootstrap_ci, compare, compare_by_segment, tukey_hsd
from sklearn_rank.stats._randomization import sign_flip_monte_carlo
from sklearn_rank.stats._segments import _permutation_p
from sklearn_rank.stats._systems import _range_null

JOBS = (2, 3, -1)


def _models(n=300, k=3, seed=0):
    """GroupScores of k models on n groups: two metrics, skewed and tied."""
    rng = np.random.default_rng(seed)
    base = rng.beta(0.5, 2.0, n)
    out = {}
    w = rng.integers(1, 4, n).astype(float)
    for j in range(k):
        a = np.clip(base + 0.02 * j + rng.normal(0, 0.1, n), 0, 1)
        b = np.round(a * 4) / 4  # ties
        out[f"m{j}"] = GroupScores(
            np.arange(n), {"x": a, "y": b}, {"x": w, "y": np.ones(n)}
        )
    return out


def _same(a, b):
    # repr: the floats to the last bit, NaN equal to NaN
    with np.printoptions(threshold=10**9, floatmode="unique"):
        assert repr(a) == repr(b)


@pytest.mark.parametrize(
    "test, ci_method, alternative",
    [
        ("randomization", "matched", "two-sided"),
        ("bootstrap-t", "matched", "greater"),
        ("bootstrap-shift", "matched", "two-sided"),
        ("randomization", "BCa", "less"),
        ("bootstrap", "percentile", "two-sided"),
    ],
)
def test_compare_bit_identical(test, ci_method, alternative):
    runs = _models()
    kw = dict(
        test=test, ci_method=ci_method, alternative=alternative,
        n_resamples=1500, random_state=7,
    )  # fmt: skip
    ref = compare(None, runs, n_jobs=1, **kw)
    for n_jobs in JOBS:
        got = compare(None, runs, n_jobs=n_jobs, **kw)
        _same(got.pairs, ref.pairs)
        _same(got.models, ref.models)


@pytest.mark.parametrize("method", ["bootstrap-t", "BCa", "percentile"])
def test_bootstrap_ci_bit_identical(method):
    gs = _models(k=1)["m0"]
    ref = bootstrap_ci(None, gs, n_resamples=1500, method=method, random_state=3)
    for n_jobs in JOBS:
        got = bootstrap_ci(
            None, gs, n_resamples=1500, method=method, random_state=3, n_jobs=n_jobs
        )
        _same(got.intervals, ref.intervals)


def test_score_arrays_pass_n_jobs_to_the_evaluation():
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(400), 8)
    y = rng.integers(0, 3, g.size)
    s = {"a": y + rng.normal(size=g.size), "b": rng.normal(size=g.size)}
    ref = compare(y, s, groups=g, metrics=["ndcg@5", "mrr"], n_resamples=600,
                  random_state=0)  # fmt: skip
    got = compare(y, s, groups=g, metrics=["ndcg@5", "mrr"], n_resamples=600,
                  random_state=0, n_jobs=2)  # fmt: skip
    _same(got.pairs, ref.pairs)
    ref = bootstrap_ci(y, s["a"], groups=g, n_resamples=600, random_state=0)
    got = bootstrap_ci(y, s["a"], groups=g, n_resamples=600, random_state=0, n_jobs=2)
    _same(got.intervals, ref.intervals)


def test_tukey_hsd_bit_identical():
    runs = _models(k=4)
    ref = tukey_hsd(None, runs, metric="x", n_resamples=1500, random_state=2)
    for n_jobs in JOBS:
        got = tukey_hsd(
            None, runs, metric="x", n_resamples=1500, random_state=2, n_jobs=n_jobs
        )
        _same(got.pairs, ref.pairs)
        _same(got.models, ref.models)


def test_compare_by_segment_bit_identical():
    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(90), 6)
    y = rng.integers(0, 2, g.size)
    s = {"m": y + rng.normal(size=g.size), "r": rng.normal(size=g.size)}
    seg = np.array(["a", "b", "c"])[g % 3]
    kw = dict(groups=g, segments=seg, metrics="ndcg@5", confidence_level=0.9,
              n_resamples=1500, random_state=5)  # fmt: skip
    ref = compare_by_segment(y, s, **kw)
    got = compare_by_segment(y, s, n_jobs=2, **kw)
    _same(str(got), str(ref))
    _same(got.segment_p, ref.segment_p)
    _same({m: (t.ci_low, t.ci_high) for m, t in got.tables.items()},
          {m: (t.ci_low, t.ci_high) for m, t in ref.tables.items()})  # fmt: skip
    assert np.isfinite(np.asarray(ref.segment_p["m"]["ndcg@5"])).all()


def test_kernels_bit_identical_over_many_blocks():
    rng = np.random.default_rng(0)
    n = 3000  # two sign-flip blocks of groups; many blocks of resamples
    v = rng.random((n, 2))
    w = rng.integers(1, 3, (n, 2)).astype(float)
    x = (rng.integers(-2, 3, (n, 2)) / n).astype(float)
    table = rng.random((200, 4))
    inside = np.arange(n) % 3 == 0
    ref = (
        bootstrap_distribution(v, w, 2500, np.random.default_rng(1), True),
        sign_flip_monte_carlo(x, 2500, np.random.default_rng(1), return_null=True),
        _range_null(table, np.ones(200), 2500, np.random.default_rng(1)),
        _permutation_p(v[:, 0], w[:, 0], inside, 0.01, 2500, np.random.default_rng(1)),
    )
    assert len(resample_blocks(np.random.default_rng(1), 2500, 8 * n, 1 << 20)) > 4
    for t in (2, 3, 7):
        got = (
            bootstrap_distribution(v, w, 2500, np.random.default_rng(1), True, t),
            sign_flip_monte_carlo(
                x, 2500, np.random.default_rng(1), return_null=True, n_threads=t
            ),
            _range_null(table, np.ones(200), 2500, np.random.default_rng(1), t),
            _permutation_p(
                v[:, 0], w[:, 0], inside, 0.01, 2500, np.random.default_rng(1), t
            ),
        )
        for a, b in zip(ref, got, strict=True):
            _same(a, b)


def test_threads_are_used_and_none_reads_parallel_config(monkeypatch):
    seen, names = [], set()
    real = bootstrap.map_threads

    def spy(work, items, n_threads=None):
        seen.append(n_threads)

        def tagged(item):
            names.add(threading.current_thread().name)
            return work(item)

        return real(tagged, items, n_threads)

    monkeypatch.setattr(bootstrap, "map_threads", spy)
    gs = _models(k=1)["m0"]
    bootstrap_ci(None, gs, metrics="x", n_resamples=2000, random_state=0)
    assert set(seen) == {1} and names == {threading.main_thread().name}
    seen.clear()
    with joblib.parallel_config(n_jobs=2):
        bootstrap_ci(None, gs, metrics="x", n_resamples=2000, random_state=0)
    assert set(seen) == {2}
    assert any(name.startswith("sklearn_rank") for name in names)


@pytest.mark.parametrize("bad", [0, 1.5, "2"])
def test_bad_n_jobs(bad):
    runs = _models(n=20, k=2)
    for func, call in [
        ("compare", lambda: compare(None, runs, n_jobs=bad)),
        ("bootstrap_ci", lambda: bootstrap_ci(None, runs["m0"], n_jobs=bad)),
        ("tukey_hsd", lambda: tukey_hsd(None, runs, metric="x", n_jobs=bad)),
    ]:
        with pytest.raises(ValueError, match=f"'n_jobs' parameter of {func} must"):
            call()
