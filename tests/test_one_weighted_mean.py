"""The statistics reduce through the engine's one weighted mean (issue 43).

``_engine/reduce.py`` holds the weighted mean over groups (``weighted_average``
and, for many columns at once, ``weighted_averages``); the statistics and the
bootstrap call it rather than writing ``sum(w * v) / sum(w)`` again, so that a
mean computed by ``evaluate``, ``bootstrap_ci``, ``compare`` and ``tukey_hsd``
is the same float.
"""

import re
from pathlib import Path

import numpy as np

from sklearn_rank import evaluate
from sklearn_rank._engine.reduce import weighted_average, weighted_averages

ROOT = Path(__file__).resolve().parents[1] / "sklearn_rank"
# np.average, (w * v).sum() / w.sum(), w / w.sum() (then a product), a weighted
# einsum over the groups: the formula written again.
RESTATED = re.compile(
    r"np\.average\(|\.sum\((axis=-?\d+)?\)\s*/\s*\(?\w+\.sum\(|\b(\w+) / \2\.sum\(\)"
    r'|einsum\("\w+,\w->'
)


def test_no_weighted_mean_is_written_outside_the_reduction_module():
    found = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for sub in ("stats", "_metrics")
        for path in sorted((ROOT / sub).rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if RESTATED.search(line)
    ]
    assert not found, "use _engine/reduce.py:\n" + "\n".join(found)


def test_weighted_averages_is_weighted_average_per_column():
    rng = np.random.default_rng(0)
    v, w = rng.random((7, 3)), rng.random(7)
    got = weighted_averages(v, w)
    for j in range(3):
        assert got[j] == weighted_average(v[:, j], w)
    w2 = rng.random((7, 3))
    ref = [np.dot(w2[:, j], v[:, j]) / w2[:, j].sum() for j in range(3)]
    np.testing.assert_allclose(weighted_averages(v, w2), ref, rtol=1e-15)
    cube = rng.random((4, 7, 3))  # trials x groups x systems
    np.testing.assert_allclose(
        weighted_averages(cube, w, axis=1),
        np.einsum("bnk,n->bk", cube, w) / w.sum(),
        rtol=1e-14,
    )


def test_segment_differences_are_the_engine_means():
    from sklearn_rank.stats._segments import segment_test_values

    rng = np.random.default_rng(1)
    a, b = rng.random(9), rng.random(12)
    wa, wb = rng.random(9) + 0.5, rng.random(12) + 0.5
    diff, _ = segment_test_values([a, b], [wa, wb], "t", 9, rng)
    order_a, order_b = np.lexsort((wa, a)), np.lexsort((wb, b))
    expect = weighted_average(a[order_a], wa[order_a]) - weighted_average(
        b[order_b], wb[order_b]
    )
    assert diff[0] == expect


def test_tukey_means_are_evaluates():
    from sklearn_rank.stats import tukey_hsd

    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 400)
    groups = np.repeat(np.arange(40), 10)
    runs = {f"r{i}": y + rng.normal(0, 1 + i, 400) for i in range(3)}
    r = tukey_hsd(y, runs, groups=groups, metric="ndcg@5", n_resamples=99)
    for m in r.models:
        ref = evaluate(y, runs[m.model], groups=groups, metrics="ndcg@5")
        assert m.mean == ref["ndcg@5"]


def test_the_weighted_mean_has_the_same_bits_alone_in_a_batch_and_on_any_blas_threads():
    # 100,000 groups: long enough for a BLAS dot to be split over threads (its
    # last bit then depends on the thread count) and for a BLAS matrix-vector
    # product to sum in another order than the dot.
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(3)
    n = 100_000
    w = rng.random(n) + 0.5
    cols = rng.random((n, 3))
    cube = rng.random((2, n, 3))  # trials x groups x systems
    batch, in_cube = weighted_averages(cols, w), weighted_averages(cube, w, axis=1)
    per_value = weighted_averages(cols, np.repeat(w[:, None], 3, axis=1))
    for j in range(3):
        alone = weighted_average(np.ascontiguousarray(cols[:, j]), w)
        misaligned = np.empty(n + 1)[1:]
        misaligned[:] = cols[:, j]
        with threadpool_limits(1):
            one_thread = weighted_average(cols[:, j].copy(), w)
        assert alone == batch[j] == per_value[j] == one_thread
        assert weighted_average(misaligned, w) == alone
        for b in range(2):
            assert weighted_average(cube[b, :, j].copy(), w) == in_cube[b, j]
    assert abs(alone - np.dot(w, cols[:, 2]) / w.sum()) < 1e-14


def test_evaluate_means_do_not_depend_on_blas_threads():
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(30_000), 3)
    y, score = rng.integers(0, 3, groups.size), rng.random(groups.size)
    metrics = ["ndcg@2", "map", "precision@1"]
    default = evaluate(y, score, groups=groups, metrics=metrics)
    with threadpool_limits(1):
        assert evaluate(y, score, groups=groups, metrics=metrics) == default
