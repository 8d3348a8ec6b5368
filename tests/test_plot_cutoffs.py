"""Metric values at every cutoff from one ordering (the data of MetricAtKDisplay)
against ``evaluate`` at each cutoff, for every cutoff metric, under ties, the
presets, retrieved masks, sample weights and the undefined rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sklearn_rank import evaluate, evaluate_per_group
from sklearn_rank._engine.cutoffs import AXIS_KERNELS
from sklearn_rank._metrics.cutoff_curves import cutoff_curve
from sklearn_rank._metrics.registry import METRICS

CUTOFF_METRICS = [
    m for m, s in METRICS.items() if s.takes_k and not s.pooled and not s.intents
]
_FAST = [m for m, s in METRICS.items() if s.kernel in AXIS_KERNELS]
CONVENTIONS = [None, "trec_eval", "lightgbm", "sklearn", "xgboost", "tf_ranking"]


def _case(seed, ties):
    rng = np.random.default_rng(seed)
    n = 260
    groups = rng.integers(0, 18, n)
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    score = rng.integers(0, 5, n).astype(float) if ties else rng.random(n)
    return y, score, groups, rng


def _reference(y, s, groups, name, ks, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without relevant rows
        return np.array(
            [
                evaluate(y, s, groups=groups, metrics=[f"{name}@{k}"], **kw)[
                    f"{name}@{k}"
                ]
                for k in ks
            ]
        )


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("name", CUTOFF_METRICS)
def test_every_cutoff_equals_evaluate(name, ties, convention):
    y, s, groups, _ = _case(len(name) + 7 * ties, ties)
    ks = np.array([1, 2, 3, 5, 8, 13, 21, 40])
    kw = {"convention": convention}
    if METRICS[name].labels == "grades":
        kw["max_grade"] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = cutoff_curve("test", y, s, groups=groups, metric=name, ks=ks, **kw)
    np.testing.assert_allclose(
        curve.means, _reference(y, s, groups, name, ks, **kw), rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("name", sorted(_FAST))
@pytest.mark.parametrize(
    "extra",
    [
        {"ties": "average"},
        {"ties": "threshold"},
        {"ties": "pessimistic"},
        {"undefined": 0.0},
        {"precision_denominator": "min_k_n", "recall_denominator": "min_k_n_relevant"},
        {"ap_denominator": "min_k_n_relevant"},
        {"ap_denominator": "n_relevant_retrieved"},
        {"gain": "linear", "discount": "jarvelin"},
        {"relevance_threshold": 2},
    ],
    ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()),
)
def test_running_sums_under_conventions(name, extra):
    y, s, groups, rng = _case(3, ties=True)
    extra = {k: v for k, v in extra.items() if k in _options(name) or k == "undefined"}
    kw = {
        **extra,
        "sample_weight": rng.random(y.size) + 0.1,
        "retrieved": rng.random(y.size) < 0.85,
    }
    ks = np.arange(1, 31)
    curve = cutoff_curve("test", y, s, groups=groups, metric=name, ks=ks, **kw)
    np.testing.assert_allclose(
        curve.means, _reference(y, s, groups, name, ks, **kw), rtol=1e-12, atol=1e-14
    )


def _options(name):
    return set(METRICS[name].options)


def test_per_group_values_equal_evaluate_per_group():
    y, s, groups, _ = _case(5, ties=True)
    ks = np.array([1, 4, 9, 100])
    curve = cutoff_curve("test", y, s, groups=groups, metric="ndcg", ks=ks)
    res = evaluate_per_group(y, s, groups=groups, metrics=[f"ndcg@{k}" for k in ks])
    np.testing.assert_array_equal(curve.group_ids, res.group_ids)
    for i, k in enumerate(ks):
        np.testing.assert_allclose(
            curve.values[i], res.values[f"ndcg@{k}"], rtol=1e-12, equal_nan=True
        )
        np.testing.assert_array_equal(curve.weights, res.weights[f"ndcg@{k}"])


def test_labels_above_the_counting_range_and_one_row_groups():
    # Non-integer labels take the sort path of the ideal list; one-row groups
    # and cutoffs past every list read the last position.
    y = np.array([0.5, 2.25, 0.0, 1.0, 3.5, 0.0, 2.0])
    s = np.array([0.3, 0.1, 0.2, 0.9, 0.4, 0.5, 0.0])
    groups = np.array([0, 0, 0, 1, 1, 2, 3])
    ks = np.array([1, 2, 3, 10])
    for name in ("ndcg", "dcg", "precision"):
        curve = cutoff_curve(
            "test",
            y,
            s,
            groups=groups,
            metric=name,
            ks=ks,
            gain="linear",
            undefined=0.0,
        )
        ref = _reference(y, s, groups, name, ks, gain="linear", undefined=0.0)
        np.testing.assert_allclose(curve.means, ref, rtol=1e-12)


def test_benchmark_script_runs(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "benchmarks" / "bench_plots.py"
    spec = importlib.util.spec_from_file_location("bench_plots", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--rows", "3000", "--groups", "60", "--k", "12", "--repeats", "1"]
    assert module.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == [
        "ndcg", "precision", "recall", "map", "mrr"
    ]  # fmt: skip


_DENOMINATORS = {
    "precision_denominator": "min_k_n",
    "recall_denominator": "min_k_n_relevant",
    "ap_denominator": "n_relevant_retrieved",
}


@pytest.mark.parametrize("name", sorted(_FAST))
@pytest.mark.parametrize("convention", [*CONVENTIONS, "denominators", "judged"])
def test_fast_per_group_values_at_every_cutoff(name, convention):
    # Every group's value at every cutoff, not only the means: cutoffs 1..3
    # (distinct), a gap, and cutoffs past the longest group (ranked or not: the
    # retrieved mask leaves relevant rows out of some lists), which read the
    # value at the longest group's length.
    y, s, groups, rng = _case(11, ties=False)
    retrieved = rng.random(y.size) < 0.5
    # The largest group: every row relevant, more than any ranked list holds.
    size = np.bincount(groups)
    longest = int(size.max())
    y[groups == size.argmax()] = rng.integers(1, 4, longest)
    assert longest > np.bincount(groups[retrieved]).max()
    ks = np.array([1, 2, 3, 7, longest - 1, longest, longest + 1, 3 * longest])
    kw = {"convention": convention, "retrieved": retrieved}
    if convention == "denominators":
        kw = {"retrieved": retrieved}
        kw.update({k: v for k, v in _DENOMINATORS.items() if k in _options(name)})
    elif convention == "judged":
        # trec_eval's (N)DCG is defined where a judged row has a gain > 0, not
        # where a row reaches the relevance threshold.
        judged = rng.random(y.size) < 0.6
        y = np.where(judged, y, 0)
        kw = {"convention": "trec_eval", "retrieved": retrieved, "judged": judged}
        kw["relevance_threshold"] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # conventions that warn on undefined groups
        curve = cutoff_curve("test", y, s, groups=groups, metric=name, ks=ks, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_per_group(
            y, s, groups=groups, metrics=[f"{name}@{k}" for k in ks], **kw
        )
    assert curve.values.shape == (ks.size, res.group_ids.size)
    for i, k in enumerate(ks):
        np.testing.assert_allclose(
            curve.values[i],
            res.values[f"{name}@{k}"],
            rtol=1e-12,
            atol=1e-15,
            equal_nan=True,
            err_msg=f"{name}@{k}",
        )
    np.testing.assert_allclose(
        curve.means, _reference(y, s, groups, name, ks, **kw), rtol=1e-12
    )
