"""The segment primitives the array API standard lacks, on every backend: numpy,
PyTorch (index_add_ / scatter_reduce_) and array-api-strict (the sort-based form
in the standard alone), against plain loops.

array-api-strict arrays live on its ``device1``, which numpy cannot read: a
primitive that converted to numpy behind the caller's back would raise there.
"""

import itertools

import numpy as np
import pytest

from sklearn_rank._engine import segments as seg

torch = pytest.importorskip(
    "torch", reason="needs PyTorch: the test extra installs it (CPU wheel: README)"
)
xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

from _array_backends import DEVICE1, back  # noqa: E402


def _numpy(a):
    return a


def _torch(a):
    return torch.asarray(a)


def _strict(a):
    return xps.asarray(a, device=DEVICE1)


BACKENDS = {"numpy": _numpy, "torch": _torch, "strict": _strict}


def _case(seed, n=300, n_seg=40):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_seg - 3, n)  # the last segments stay empty
    values = rng.integers(-5, 6, n).astype(float) / 4  # ties within segments
    return ids, values, n_seg


def _same_space(got, sample):
    assert type(got) is type(sample)
    assert getattr(got, "device", None) == getattr(sample, "device", None)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("seed", range(3))
def test_segment_reductions_match_loops(backend, seed):
    ids, values, n = _case(seed)
    to = BACKENDS[backend]
    want_sum, want_min = np.zeros(n), np.full(n, np.inf)
    want_max, want_count = np.full(n, -1.0), np.zeros(n, dtype=np.int64)
    for i, v in zip(ids, values, strict=True):
        want_sum[i] += v
        want_min[i] = min(want_min[i], v)
        want_max[i] = max(want_max[i], v)
        want_count[i] += 1
    sample = to(values)
    got_sum = seg.segment_sum(to(ids), sample, n)
    got_min = seg.segment_min(to(ids), sample, n, np.inf)
    got_max = seg.segment_max(to(ids), sample, n, -1.0)
    got_count = seg.segment_count(to(ids), n)
    for got in (got_sum, got_min, got_max, got_count):
        _same_space(got, sample)
    np.testing.assert_allclose(back(got_sum), want_sum, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(back(got_min), want_min)
    np.testing.assert_array_equal(back(got_max), want_max)
    np.testing.assert_array_equal(back(got_count), want_count)


def _sorted_case(seed, n=200, n_seg=30):
    """Rows ordered by segment (a ranked view): group, rank, starts."""
    rng = np.random.default_rng(seed)
    group = np.sort(rng.integers(0, n_seg - 2, n))
    length = np.bincount(group, minlength=n_seg)
    starts = np.concatenate([[0], np.cumsum(length)])
    rank = np.arange(n) - starts[group] + 1
    values = rng.integers(0, 4, n).astype(float) / 2
    return group, rank, starts, values, n_seg


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("seed", range(3))
def test_running_primitives_match_loops(backend, seed):
    group, rank, starts, values, n = _sorted_case(seed)
    to = BACKENDS[backend]
    excl, prod = np.zeros(values.size), np.zeros(values.size)
    first = np.full(n, -1)
    mask = values > 1
    for g in range(n):
        rows = np.arange(starts[g], starts[g + 1])
        excl[rows] = np.cumsum(values[rows]) - values[rows]
        prod[rows] = np.cumprod(values[rows] + 0.5)
        hit = rows[mask[rows]]
        first[g] = hit[0] if hit.size else -1
    sample = to(values)
    got_excl = seg.exclusive_cumsum(sample, to(group), to(starts), n)
    got_prod = seg.segment_cumprod(to(values + 0.5), to(rank))
    got_first = seg.first_in_segment(to(mask), to(group), n)
    for got in (got_excl, got_prod, got_first):
        _same_space(got, sample)
    np.testing.assert_allclose(back(got_excl), excl, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(back(got_prod), prod, rtol=1e-14)
    np.testing.assert_array_equal(back(got_first), first)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_blocks_ranges_put_divide_match_numpy(backend):
    to = BACKENDS[backend]
    values = np.arange(12, dtype=float) ** 1.5
    start, size = np.array([1, 5, 9]), np.array([3, 2, 3])
    pairs = zip(start, size, strict=True)
    rows = np.concatenate([np.arange(a, a + m) for a, m in pairs])
    offsets = np.array([0, 3, 5])
    np.testing.assert_array_equal(back(seg.ranges(to(start), to(size))), rows)
    parts = np.split(values[rows], offsets[1:])
    for func, want in (
        (seg.block_sum, [p.sum() for p in parts]),
        (seg.block_min, [p.min() for p in parts]),
        (seg.block_max, [p.max() for p in parts]),
    ):
        got = func(to(values), to(rows), to(offsets))
        _same_space(got, to(values))
        np.testing.assert_allclose(back(got), want, rtol=1e-15)
    got = seg.flatnonzero(to(values > 20))
    np.testing.assert_array_equal(back(got), [8, 9, 10, 11])
    target = values.copy()
    got = seg.put(to(target), to(np.array([7, 2])), to(np.array([-1.0, -2.0])))
    want = values.copy()
    want[[7, 2]] = [-1.0, -2.0]
    np.testing.assert_array_equal(back(got), want)
    got = seg.put(to(values.copy()), to(np.array([3])), 0.0)
    want = values.copy()
    want[3] = 0.0
    np.testing.assert_array_equal(back(got), want)
    b = values - 4.0
    ok = b > 0
    got = seg.divide(to(values), to(b), to(ok), -7.0)
    want = np.where(ok, values / np.where(ok, b, 1), -7.0)
    np.testing.assert_array_equal(back(got), want)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_group_order_and_take_match_lexsort(backend):
    ids, values, _ = _case(7)
    to = BACKENDS[backend]
    want = sorted(range(ids.size), key=lambda i: (ids[i], -values[i], i))
    got = seg.group_order(to(ids), to(values))
    np.testing.assert_array_equal(back(got), want)
    np.testing.assert_array_equal(back(seg.take(to(values), got)), values[want])


def test_strict_device1_refuses_numpy():
    """The guard the tests above rely on: device1 arrays do not convert."""
    with pytest.raises(RuntimeError):
        np.asarray(_strict(np.zeros(2)))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_end", [True, False])
def test_exclusive_cumsum_is_each_segments_own_running_sum(seed, with_end):
    """numpy: each segment's running sum from 0 in row order, to the last bit
    (the sums trec_eval makes per query); the restarting global sum it replaces
    left residues such as -1e-17 where a sum is 0."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    sizes = rng.integers(0, 30, n)
    if seed % 2:
        sizes[:] = sizes.max()  # equal segments (a TREC run's 1,000 per query)
    starts = np.zeros(n + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    group = np.repeat(np.arange(n), sizes)
    values = rng.normal(size=int(sizes.sum())) * 10.0 ** rng.integers(-3, 4)
    want = []
    for a, b in itertools.pairwise(starts.tolist()):
        total = 0.0
        for v in values[a:b].tolist():
            want.append(total)
            total += v
    got = seg.exclusive_cumsum(values, group, starts if with_end else starts[:-1], n)
    assert np.array_equal(got, np.array(want, dtype=np.float64))
