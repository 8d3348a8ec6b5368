"""The segment primitives the array API standard lacks, on every backend: numpy,
PyTorch (index_add_ / scatter_reduce_) and array-api-strict (the sort-based form
in the standard alone), against plain loops.

array-api-strict arrays live on its ``device1``, which numpy cannot read: a
primitive that converted to numpy behind the caller's back would raise there.
"""

import numpy as np
import pytest

from sklearn_rank import _segments as seg

torch = pytest.importorskip("torch")
xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

DEVICE1 = xps.Device("device1")


def _numpy(a):
    return a


def _torch(a):
    return torch.asarray(a)


def _strict(a):
    return xps.asarray(a, device=DEVICE1)


BACKENDS = {"numpy": _numpy, "torch": _torch, "strict": _strict}


def _back(x):
    """To numpy for the comparison (through DLPack for device1: a test-side copy)."""
    if isinstance(x, np.ndarray):
        return x
    if type(x).__module__.startswith("torch"):
        return x.numpy()
    return np.asarray(x.to_device(xps.Device("CPU_DEVICE")))


def _case(seed, n=300, n_seg=40):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_seg - 3, n)  # the last segments stay empty
    values = rng.integers(-5, 6, n).astype(float) / 4  # ties within segments
    return ids, values, n_seg


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("seed", range(3))
def test_segment_sum_and_min_match_loops(backend, seed):
    ids, values, n = _case(seed)
    to = BACKENDS[backend]
    want_sum, want_min = np.zeros(n), np.full(n, np.inf)
    for i, v in zip(ids, values, strict=True):
        want_sum[i] += v
        want_min[i] = min(want_min[i], v)
    got_sum = seg.segment_sum_any(to(ids), to(values), n)
    got_min = seg.segment_min_any(to(ids), to(values), n)
    sample = to(values)
    for got in (got_sum, got_min):
        assert type(got) is type(sample)
        assert getattr(got, "device", None) == getattr(sample, "device", None)
    np.testing.assert_allclose(_back(got_sum), want_sum, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(_back(got_min), want_min)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_group_order_and_take_match_lexsort(backend):
    ids, values, _ = _case(7)
    to = BACKENDS[backend]
    want = sorted(range(ids.size), key=lambda i: (ids[i], -values[i], i))
    got = seg.group_order(to(ids), to(values))
    np.testing.assert_array_equal(_back(got), want)
    np.testing.assert_array_equal(_back(seg.take(to(values), got)), values[want])


def test_strict_device1_refuses_numpy():
    """The guard the tests above rely on: device1 arrays do not convert."""
    with pytest.raises(RuntimeError):
        np.asarray(_strict(np.zeros(2)))
