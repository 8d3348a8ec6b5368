"""The engine in every namespace: the ordered view a kernel reads (rows, group
codes, positions, tie blocks, head views, block expectations) built from PyTorch
tensors and array-api-strict arrays on its ``device1`` (which numpy cannot read,
so a host round trip raises) equals the numpy engine's, for every tie policy.
"""

import numpy as np
import pytest

from sklearn_rank._engine.context import RankingContext

torch = pytest.importorskip(
    "torch", reason="needs PyTorch: the test extra installs it (CPU wheel: README)"
)
xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

from _array_backends import DEVICE1, back  # noqa: E402

BACKENDS = {
    "torch": lambda a: torch.asarray(a),
    "strict": lambda a: xps.asarray(a, device=DEVICE1),
}
TIES = ("average", "threshold", "stable", "pessimistic", "optimistic")


def _case(seed, n=120, n_groups=9):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n).astype(float)
    s = rng.integers(0, 4, n).astype(float)  # many ties
    s[::7] += 0.5
    codes = rng.integers(0, n_groups - 1, n)  # the last group stays empty
    w = rng.uniform(0.1, 2.0, n)
    ret = rng.random(n) < 0.85
    return y, s, codes, n_groups, w, ret


def _build(to, y, s, codes, n_groups, w, ret, ties):
    return RankingContext.from_inputs(
        to(y),
        to(s),
        to(codes.astype(np.int64)),
        n_groups,
        ties=ties,
        retrieved=to(ret),
        sample_weight=to(w),
    )


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(3))
def test_ordered_view_equals_numpys(backend, ties, seed):
    case = _case(seed)
    want = _build(lambda a: a, *case, ties)
    got = _build(BACKENDS[backend], *case, ties)
    assert got.xp is not np
    for name in ("group", "rank", "length", "starts"):
        np.testing.assert_array_equal(back(getattr(got, name)), getattr(want, name))
    if ties in ("average", "threshold"):  # the order inside a tie is free
        key = np.lexsort((want.row_weight, want.y, want.group))
        got_y, got_w = back(got.y), back(got.row_weight)
        got_key = np.lexsort((got_w, got_y, back(got.group)))
        np.testing.assert_array_equal(got_y[got_key], want.y[key])
        np.testing.assert_array_equal(got_w[got_key], want.row_weight[key])
    else:
        np.testing.assert_array_equal(back(got.y), want.y)
        np.testing.assert_array_equal(back(got.row_weight), want.row_weight)
    for name in ("start", "size", "rank", "group", "rows", "offsets"):
        np.testing.assert_array_equal(
            back(getattr(got.blocks, name)), getattr(want.blocks, name)
        )
    np.testing.assert_allclose(
        back(got.group_weight()), want.group_weight(), rtol=1e-12
    )
    np.testing.assert_array_equal(back(got.n_relevant(None)), want.n_relevant(None))
    for k in (1, 3, 50):
        hg, hw = got.head(k), want.head(k)
        np.testing.assert_array_equal(back(hg.rank), hw.rank)
        np.testing.assert_array_equal(back(hg.blocks.start), hw.blocks.start)
        np.testing.assert_allclose(back(hg.in_top(k)), hw.in_top(k), rtol=1e-12)
        rank_f = hw.rank.astype(float)
        np.testing.assert_allclose(
            back(hg.block_mean(hg.xp.astype(hg.rank, hg.float))),
            hw.block_mean(rank_f),
            rtol=1e-12,
        )
    rel = want.relevant(None)
    if ties not in ("average", "threshold"):  # else any row of the block may lead
        np.testing.assert_array_equal(
            back(got.first_in_group(got.relevant(None))), want.first_in_group(rel)
        )
    pooled_g, pooled_w = got.pooled(), want.pooled()
    np.testing.assert_array_equal(back(pooled_g.rank), pooled_w.rank)
