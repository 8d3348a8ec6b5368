"""The engine's cutoff axis against the kernels, driven from the registry.

Every metric of the registry that takes a cutoff, under every value of every
option it reads (drawn from ``strategies.OPTION_STRATEGIES``) and every tie rule:
its values on the cutoff axis (``cutoff_curve``, ``evaluate`` with many cutoffs)
equal the kernel's at each cutoff (``evaluate_per_group`` / ``evaluate`` with one
metric), so a kernel broken on purpose fails here as well as in the reference
tests, and a new option is drawn here without an edit.
"""

import os
import warnings

import numpy as np
import pytest
from _reference import reference_per_group
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import OPTION_STRATEGIES, ranking_cases

import sklearn_rank as sr
from sklearn_rank._engine.cutoffs import AXIS_KERNELS
from sklearn_rank._metrics.cutoff_curves import cutoff_curve
from sklearn_rank._metrics.registry import METRICS

AXIS_METRICS = sorted(
    n for n, s in METRICS.items() if s.takes_k and not s.pooled and not s.intents
)
# The metrics whose kernel is contributions plus a finisher (summed down the axis).
RUNNING_FORMS = sorted(n for n, s in METRICS.items() if s.kernel in AXIS_KERNELS)
KS = [1, 2, 3, 5, 8, 13]
SETTINGS = settings(
    max_examples=int(os.environ.get("SKLEARN_RANK_REFERENCE_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_running_forms_are_registry_cutoff_metrics():
    assert set(RUNNING_FORMS) <= set(AXIS_METRICS)
    assert len(RUNNING_FORMS) == len(AXIS_KERNELS)  # each such kernel registered


def _options(data, metric, case):
    names = {"ties", "relevance_threshold", "undefined", *METRICS[metric].options}
    opts = {n: data.draw(OPTION_STRATEGIES[n](case), label=n) for n in sorted(names)}
    if opts["undefined"] == "raise":  # raising cases: compared below all the same
        opts["undefined"] = data.draw(st.sampled_from(["raise", "skip", 0.0]))
    return opts


def _call(func, *args, **kw):
    """(result, None) or (None, the ValueError's type) with warnings silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args, **kw), None
    except ValueError as exc:
        return None, type(exc)


@pytest.mark.parametrize("metric", AXIS_METRICS)
@SETTINGS
@given(case=ranking_cases(max_groups=5, max_rows=9), data=st.data())
def test_cutoff_axis_equals_the_kernel_at_every_cutoff(metric, case, data):
    opts = _options(data, metric, case)
    inputs = {
        "groups": case.groups,
        "sample_weight": case.sample_weight,
        "retrieved": case.retrieved,
        "judged": case.judged,
    }
    names = [f"{metric}@{k}" for k in KS]
    # One cutoff per call: the kernel's own values (evaluate_per_group reads a
    # metric asked at several cutoffs off the axis itself).
    per_k, err = {}, None
    for name in names:
        found, err = _call(
            sr.evaluate_per_group,
            case.y_true,
            case.y_score,
            metrics=[name],
            **inputs,
            **{k: v for k, v in opts.items() if k != "undefined"},
        )
        if err is not None:
            break
        per_k[name] = found.values[name]
    curve, curve_err = _call(
        cutoff_curve,
        "test",
        case.y_true,
        case.y_score,
        metric=metric,
        ks=KS,
        **inputs,
        **opts,
    )
    if err is not None:  # invalid inputs for this metric: both refuse
        assert curve_err is err
        return
    singles = {}
    for name in names:
        singles[name], _ = _call(
            sr.evaluate, case.y_true, case.y_score, metrics=[name], **inputs, **opts
        )
    many, many_err = _call(
        sr.evaluate, case.y_true, case.y_score, metrics=names, **inputs, **opts
    )
    many_per_group, _ = _call(
        sr.evaluate_per_group,
        case.y_true,
        case.y_score,
        metrics=names,
        **inputs,
        **{k: v for k, v in opts.items() if k != "undefined"},
    )
    if curve_err is not None or many_err is not None:
        assert curve_err is ValueError
        assert many_err is ValueError
        assert any(v is None for v in singles.values())
        return
    for i, name in enumerate(names):
        np.testing.assert_allclose(
            curve.at(i), per_k[name], rtol=1e-12, atol=1e-12, err_msg=name
        )
        np.testing.assert_allclose(  # many cutoffs in one per-group call
            many_per_group.values[name], per_k[name], rtol=1e-12, atol=1e-12
        )
        expected = singles[name][name]
        # The same per-group bits: the same mean's bits (the same reduction).
        exact = np.array_equal(many_per_group.values[name], per_k[name], equal_nan=True)
        for got in (curve.means[i], many[name]):
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True)
            if exact:
                assert got == expected or (np.isnan(got) and np.isnan(expected))


@pytest.mark.parametrize("undefined", ["skip", 0.0, 1.0])
@pytest.mark.parametrize("metric", RUNNING_FORMS)
def test_a_mean_asked_with_its_family_has_the_bits_of_it_asked_alone(metric, undefined):
    # 400 weighted groups (numpy's pairwise sums branch past 8 and 128 terms),
    # distinct scores: the per-group values of the axis and of the kernel are
    # then the same bits (asserted), so the means must be too: the reduction
    # takes the same groups and sums them in the same order.
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 30, 400)
    groups = np.repeat(np.arange(sizes.size), sizes)
    y_true = rng.integers(0, 3, groups.size) * (rng.random(groups.size) < 0.4)
    y_score = rng.normal(size=groups.size)
    rows = {"groups": groups, "sample_weight": rng.random(sizes.size)[groups]}
    names = [f"{metric}@{k}" for k in (1, 3, 5, 10, 20)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        many = sr.evaluate(y_true, y_score, metrics=names, undefined=undefined, **rows)
        axis = sr.evaluate_per_group(y_true, y_score, metrics=names, **rows).values
        for name in names:
            alone = sr.evaluate_per_group(y_true, y_score, metrics=[name], **rows)
            assert np.array_equal(axis[name], alone.values[name], equal_nan=True)
            mean = sr.evaluate(
                y_true, y_score, metrics=[name], undefined=undefined, **rows
            )
            assert many[name] == mean[name], name


@pytest.mark.parametrize("metric", RUNNING_FORMS)
@SETTINGS
@given(case=ranking_cases(max_groups=5, max_rows=9), data=st.data())
def test_cutoff_curve_agrees_with_the_reference(metric, case, data):
    # The curves against the brute-force reference (not only against the kernel,
    # which shares the contributions and the finisher): a kernel broken on
    # purpose turns this red as well as the reference tests of the kernels.
    names = {"ties", "relevance_threshold", *METRICS[metric].options}
    names -= {"undefined", "group_weight"}
    opts = {n: data.draw(OPTION_STRATEGIES[n](case), label=n) for n in sorted(names)}
    inputs = {"retrieved": case.retrieved, "judged": case.judged}
    expected = []
    for k in KS:
        try:
            expected.append(
                reference_per_group(
                    metric, k, case.y_true, case.y_score, case.groups, **inputs, **opts
                )
            )
        except ValueError:
            expected = None
            break
    curve, err = _call(
        cutoff_curve,
        "test",
        case.y_true,
        case.y_score,
        groups=case.groups,
        metric=metric,
        ks=KS,
        undefined="skip",
        **inputs,
        **opts,
    )
    if expected is None or err is not None:
        assert expected is None and err is ValueError, (expected, err)
        return
    for i, k in enumerate(KS):
        want = [expected[i][g] for g in curve.group_ids.tolist()]
        np.testing.assert_allclose(
            curve.at(i), want, rtol=1e-12, atol=1e-12, err_msg=f"{metric}@{k}"
        )
