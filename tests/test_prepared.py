"""Prepared evaluation: ``prepare(y_true, groups=...)`` then ``.evaluate(y_score)``
gives what ``evaluate`` gives for the same arguments, bit for bit.

Registry-driven: every metric of ``METRICS``, every tie policy and the metric's
own options are drawn from ``OPTION_STRATEGIES``; each prepared object scores
several score arrays in turn (its label-only caches filled by the first), and
every value must equal a cold ``evaluate`` / ``evaluate_per_group`` exactly.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import OPTION_STRATEGIES, SCORE_VALUES, cutoffs, ranking_cases

import sklearn_rank as sr
from sklearn_rank._metrics.registry import METRICS

FAST = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", call()
        except (ValueError, TypeError) as exc:
            return "raise", type(exc)


def _same_values(got, want):
    """Equal bit for bit (NaN where NaN)."""
    assert got.keys() == want.keys()
    for name in want:
        a, b = np.asarray(got[name]), np.asarray(want[name])
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, strict=True, err_msg=name)


def _metric_name(spec, k):
    if spec.takes_k and k is not None:
        return f"{spec.name}@{k}"
    return "iprec@0.5" if spec.name == "iprec" else spec.name


@pytest.mark.parametrize("metric", [n for n, s in METRICS.items() if not s.intents])
@FAST
@given(case=ranking_cases(), data=st.data())
def test_prepared_equals_evaluate_for_every_metric(metric, case, data):
    spec = METRICS[metric]
    opts = {
        name: data.draw(OPTION_STRATEGIES[name](case), label=name)
        for name in spec.options
    }
    k = data.draw(cutoffs, label="k") if spec.takes_k else None
    names = [_metric_name(spec, k)]
    if not spec.pooled:  # one more metric in the same call: shared caches
        names.append("ndcg@3")
        opts.pop("undefined", None)
    rows = {
        "groups": case.groups,
        "sample_weight": case.sample_weight,
        "retrieved": case.retrieved,
        "judged": case.judged,
        "in_pool": case.in_pool,
    }
    extra = {"max_grade": 4.0} if "max_grade" not in opts else {}
    prepared = _outcome(
        lambda: sr.prepare(case.y_true, metrics=names, **rows, **opts, **extra)
    )
    n = case.y_true.size
    scores = [
        case.y_score,
        case.y_score[::-1].copy(),
        np.array(
            data.draw(st.lists(st.sampled_from(SCORE_VALUES), min_size=n, max_size=n))
        ),
    ]
    for score in scores:
        want = _outcome(
            lambda s=score: sr.evaluate(
                case.y_true, s, metrics=names, **rows, **opts, **extra
            )
        )
        if prepared[0] == "raise":
            assert want == prepared
            return
        got = _outcome(lambda s=score: prepared[1].evaluate(s))
        assert got[0] == want[0], (got, want)
        if got[0] == "raise":
            assert got[1] is want[1]
            continue
        _same_values(got[1], want[1])
        if spec.pooled:
            continue
        want = _outcome(
            lambda s=score: sr.evaluate_per_group(
                case.y_true, s, metrics=names, **rows, **opts, **extra
            )
        )
        got = _outcome(lambda s=score: prepared[1].evaluate_per_group(s))
        assert got[0] == want[0], (got, want)
        if got[0] == "value":
            _same_values(got[1].values, want[1].values)
            _same_values(got[1].weights, want[1].weights)
            np.testing.assert_array_equal(got[1].group_ids, want[1].group_ids)


def _large(seed, n=20_000, n_groups=300, skew=False):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    if skew:  # one group of half the rows: no padded layout
        groups[: n // 2] = 0
    y = rng.integers(0, 5, n).astype(float)
    return y, groups, rng


@pytest.mark.parametrize(
    "ties", ["average", "threshold", "stable", "pessimistic", "optimistic"]
)
@pytest.mark.parametrize("skew", [False, True], ids=["padded", "skewed"])
def test_many_rounds_on_a_larger_input(ties, skew):
    y, groups, rng = _large(0, skew=skew)
    metrics = [
        "ndcg@10",
        "map",
        "mrr",
        "precision@1",
        "precision@5",
        "precision@10",
        "auc",
        "err@20",
        "recall@100",
    ]
    prepared = sr.prepare(y, groups=groups, metrics=metrics, ties=ties, max_grade=4)
    for round_ in range(4):
        score = rng.normal(size=y.size) if round_ % 2 else rng.integers(0, 50, y.size)
        want = sr.evaluate(
            y, score, groups=groups, metrics=metrics, ties=ties, max_grade=4
        )
        assert prepared.evaluate(score) == want


def test_judged_only_and_retrieved_take_the_scores_of_the_input_rows():
    y, groups, rng = _large(1, n=3000, n_groups=40)
    judged = rng.random(y.size) < 0.8
    y[~judged] = 0
    retrieved = rng.random(y.size) < 0.9
    args = dict(
        groups=groups,
        judged=judged,
        retrieved=retrieved,
        metrics=["ndcg@10", "bpref", "map"],
        judged_only=True,
    )
    prepared = sr.prepare(y, **args)
    assert prepared.n_samples == y.size
    for _ in range(2):
        score = rng.normal(size=y.size)
        assert prepared.evaluate(score) == sr.evaluate(y, score, **args)


def test_inputs_are_not_modified_and_scores_may_be_lists():
    y = np.array([1.0, 0, 0, 0, 1, 0])
    groups = np.array(["q1", "q1", "q1", "q2", "q2", "q2"])
    score = np.array([0.9, 0.8, 0.1, 0.3, 0.2, 0.7])
    copies = y.copy(), groups.copy(), score.copy()
    prepared = sr.prepare(y, groups=groups, metrics="mrr")
    assert prepared.evaluate(score.tolist()) == {"mrr": 2 / 3}
    for a, b in zip((y, groups, score), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    assert "n_groups=2" in repr(prepared)


def test_bad_scores_name_the_problem():
    prepared = sr.prepare([1, 0, 1], groups=[0, 0, 1], metrics=["ndcg"])
    with pytest.raises(ValueError, match=r"y_score .* has 2 entries .* have 3"):
        prepared.evaluate([0.1, 0.2])
    with pytest.raises(ValueError, match=r"y_score .* NaN or infinite"):
        prepared.evaluate([0.1, np.nan, 0.3])
    with pytest.raises(TypeError, match="unexpected keyword argument 'tie'"):
        sr.prepare([1, 0], groups=[0, 0], tie="average")
    with pytest.raises(ValueError, match="pooled over all rows"):
        sr.prepare([1, 0], groups=[0, 0], metrics="auc").evaluate_per_group([1, 2])
    with pytest.raises(ValueError, match="negative labels"):
        sr.prepare([-1, 0], groups=[0, 0], metrics="ndcg")


def test_training_benchmark_runs_small(capsys):
    """benchmarks/bench_training.py runs (its values are asserted equal inside)."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_training.py"
    spec = importlib.util.spec_from_file_location("bench_training", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--rows", "20000", "--groups", "200", "--repeats", "1"]
    assert module.main([*argv, "--sections", "prepared", "accumulator"]) == 0
    assert "ratio" in capsys.readouterr().out


@pytest.mark.parametrize("ties", ["average", "threshold"])
def test_tied_scores_keep_the_prepared_order(monkeypatch, ties):
    # Tree scores tie within queries: under the block rules the prepared layout
    # orders them itself (input order inside a tie, as order_rows does), to the
    # last bit, instead of handing every tied round back to order_rows.
    import sklearn_rank._engine.context as context

    y, groups, rng = _large(1)
    metrics = ["ndcg@10", "map", "mrr", "err@20", "rbp", "recall@100"]
    prepared = sr.prepare(y, groups=groups, metrics=metrics, ties=ties, max_grade=4)
    scores = [rng.integers(0, 8, y.size) / 8 for _ in range(3)]
    wants = [
        sr.evaluate(y, s, groups=groups, metrics=metrics, ties=ties, max_grade=4)
        for s in scores
    ]

    def cold(*args, **kwargs):
        raise AssertionError("a prepared call fell back to order_rows")

    monkeypatch.setattr(context, "order_rows", cold)
    for score, want in zip(scores, wants, strict=True):
        assert prepared.evaluate(score) == want
