"""Property tests: the library agrees with the slow reference on random inputs.

Every metric x every tie policy x both gains, through the public ``*_score``
functions, ``evaluate`` and ``evaluate_per_group``, to 1e-12. The reference
(``_reference.py``) is written from the contract only. Where the reference
says the call must raise (``undefined="raise"`` with an undefined group,
interpolated precision with ``ties="average"`` where a mixed tie block makes the
value random) the library must raise ``ValueError``; where every group is
undefined under ``undefined="skip"`` it must return NaN and warn
``UndefinedMetricWarning``.
"""

import math
import os
import warnings

import numpy as np
import pytest
from _reference import (
    ORDER_SENSITIVE,
    TIES,
    reference_group_weights,
    reference_mean,
    reference_per_group,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from strategies import OPTION_STRATEGIES, custom_gains, cutoffs, ranking_cases

import sklearn_rank as sr
from sklearn_rank._engine.conventions import OPTIONS
from sklearn_rank._metrics.registry import METRICS

# Everything below is driven by the registry and the option table: a new metric or
# option is exercised here without editing this file.
DEFAULTS = {name: option.default for name, option in OPTIONS.items()}
# Options drawn per test rather than per metric.
_SHARED = ("ties", "gain", "relevance_threshold", "undefined")
# One label per row: the intent-aware metrics (a 2-D y_true) are checked
# against their brute force in test_intent_metrics.py.
SINGLE = {name: spec for name, spec in METRICS.items() if not spec.intents}
METRIC_VARIANTS = [
    (name, gain)
    for name, spec in SINGLE.items()
    for gain in (OPTIONS["gain"].choices if "gain" in spec.options else (None,))
]
CUTOFF_METRICS = frozenset(name for name, spec in METRICS.items() if spec.takes_k)
# Metrics that raise on some averaged ties (mixed tie blocks are frequent here).
# ERR and map with ap_denominator="n_relevant_retrieved" are exact on every tie
# block of these small cases: never filtered out.
RAISE_ON_TIES = ORDER_SENSITIVE
# The whole file must stay under about 45 s on a shared 2-core machine (CI's
# 10 minutes); the nightly hypothesis profile is no deeper here:
# SKLEARN_RANK_REFERENCE_EXAMPLES=500 makes a deeper local bug hunt.
FAST = settings(
    max_examples=int(os.environ.get("SKLEARN_RANK_REFERENCE_EXAMPLES", "20")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12, nan_ok=True)


def _draw(data, name, case):
    return data.draw(OPTION_STRATEGIES[name](case), label=name)


def _metric_options(data, metric, case):
    """Draw the metric's own options from the registry (library keyword names)."""
    return {
        name: _draw(data, name, case)
        for name in METRICS[metric].options
        if name not in _SHARED
    }


def _drop_some_defaults(data, opts):
    """Leave out some options equal to their documented default."""
    out = {}
    for name, value in opts.items():
        if name in DEFAULTS and value == DEFAULTS[name] and data.draw(st.booleans()):
            continue
        out[name] = value
    return out


def _expected(metric, k, case, opts):
    """("raise", None) or ("value", (value, all_undefined)) from the reference."""
    try:
        return "value", reference_mean(
            metric,
            k,
            case.y_true,
            case.y_score,
            case.groups,
            retrieved=case.retrieved,
            sample_weight=case.sample_weight,
            judged=case.judged,
            in_pool=case.in_pool,
            **opts,
        )
    except ValueError:
        return "raise", None


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize(("metric", "gain"), METRIC_VARIANTS)
@FAST
@given(case=ranking_cases(), data=st.data())
def test_score_function_agrees_with_reference(metric, gain, ties, case, data):
    k = data.draw(cutoffs, label="k") if metric in CUTOFF_METRICS else None
    opts = {
        "ties": ties,
        "relevance_threshold": _draw(data, "relevance_threshold", case),
        "undefined": _draw(data, "undefined", case),
        **_metric_options(data, metric, case),
    }
    if gain is not None:
        opts["gain"] = gain
    kind, expected = _expected(metric, k, case, opts)

    kwargs = _drop_some_defaults(data, opts)
    kwargs["retrieved"] = case.retrieved
    kwargs["sample_weight"] = case.sample_weight
    kwargs["judged"] = case.judged
    if METRICS[metric].reads_pool:
        kwargs["in_pool"] = case.in_pool
    if metric in CUTOFF_METRICS:
        kwargs["k"] = k
    pooled_without_groups = metric == "auc" and data.draw(st.booleans())
    if not pooled_without_groups:
        kwargs["groups"] = case.groups
    func = getattr(sr, METRICS[metric].function)

    if kind == "raise":
        with pytest.raises(ValueError):
            func(case.y_true, case.y_score, **kwargs)
        return
    value, all_undefined = expected
    if all_undefined:
        with pytest.warns(UndefinedMetricWarning):
            got = func(case.y_true, case.y_score, **kwargs)
        assert math.isnan(got)
        return
    if math.isnan(value):
        # Σ w_g = 0 (only when undefined groups are filled in gauc with zero
        # weights) is not specified by the contract: NaN or ValueError.
        try:
            got = func(case.y_true, case.y_score, **kwargs)
        except ValueError:
            return
        assert math.isnan(got)
        return
    got = func(case.y_true, case.y_score, **kwargs)
    assert isinstance(got, float)
    assert got == approx(value)


def _draw_metric_names(data, metrics):
    names = []
    for metric in metrics:
        if metric in CUTOFF_METRICS:
            k = data.draw(cutoffs, label=f"k[{metric}]")
            names.append(metric if k is None else f"{metric}@{k}")
        else:
            names.append(metric)
    return names


def _split(name):
    metric, _, k = name.partition("@")
    return metric, (int(k) if k else None)


def _shared_options(data, ties, gain, case, undefined=True):
    """Every option of the table (one call serves every metric)."""
    opts = {name: _draw(data, name, case) for name in OPTIONS}
    opts["ties"], opts["gain"] = ties, gain
    if not undefined:
        del opts["undefined"]
    return opts


def _reference_options(metric, opts):
    """Only the options ``metric`` reads, plus those every call takes."""
    keep = set(METRICS[metric].options) | {"undefined", "weights", "ties"}
    return {name: value for name, value in opts.items() if name in keep}


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("ties", TIES)
@FAST
@given(case=ranking_cases(), data=st.data())
def test_evaluate_agrees_with_reference(ties, gain, case, data):
    names = _draw_metric_names(data, list(SINGLE))
    opts = _shared_options(data, ties, gain, case)
    expected = {}
    must_raise = False
    for name in list(names):
        metric, k = _split(name)
        kind, result = _expected(metric, k, case, _reference_options(metric, opts))
        if kind == "raise" and metric in RAISE_ON_TIES and data.draw(st.booleans()):
            # Mixed tie blocks are frequent: often test the other metrics.
            names.remove(name)
        elif kind == "raise":
            must_raise = True
        else:
            expected[name] = result

    kwargs = _drop_some_defaults(data, opts)
    call = {
        "groups": case.groups,
        "metrics": names,
        "retrieved": case.retrieved,
        "sample_weight": case.sample_weight,
        "judged": case.judged,
        "in_pool": case.in_pool,
        **kwargs,
    }
    if must_raise:
        # Metrics before the failing one may legitimately warn first.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            with pytest.raises(ValueError):
                sr.evaluate(case.y_true, case.y_score, **call)
        return
    unspecified = any(
        math.isnan(value) and not all_undef for value, all_undef in expected.values()
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = sr.evaluate(case.y_true, case.y_score, **call)
        except ValueError:
            if unspecified:  # Σ w_g = 0 somewhere: NaN or ValueError
                return
            raise
    assert all(issubclass(w.category, UndefinedMetricWarning) for w in caught), [
        str(w.message) for w in caught
    ]
    any_all_undefined = any(all_undef for _, all_undef in expected.values())
    assert bool(caught) == any_all_undefined, [str(w.message) for w in caught]
    assert list(got) == names
    for name in names:
        value, all_undefined = expected[name]
        if math.isnan(value) and not all_undefined:
            continue  # Σ w_g = 0: unspecified
        assert got[name] == approx(value), name


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("ties", TIES)
@FAST
@given(case=ranking_cases(), data=st.data())
def test_evaluate_per_group_agrees_with_reference(ties, gain, case, data):
    # Pooled "auc" has no per-group value in the contract: left out.
    metrics = [name for name, spec in SINGLE.items() if not spec.pooled]
    names = _draw_metric_names(data, metrics)
    opts = _shared_options(data, ties, gain, case, undefined=False)
    expected = {}
    must_raise = False
    for name in list(names):
        metric, k = _split(name)
        ref_opts = _reference_options(metric, opts)
        weights = ref_opts.pop("weights")
        group_weight = ref_opts.pop("group_weight", "mean")
        try:
            values = reference_per_group(
                metric,
                k,
                case.y_true,
                case.y_score,
                case.groups,
                retrieved=case.retrieved,
                judged=case.judged,
                in_pool=case.in_pool,
                **ref_opts,
            )
        except ValueError:
            if metric in RAISE_ON_TIES and data.draw(st.booleans()):
                names.remove(name)  # mixed tie blocks are frequent
            else:
                must_raise = True
            continue
        group_weights = reference_group_weights(
            metric,
            case.y_true,
            case.groups,
            sample_weight=case.sample_weight,
            retrieved=case.retrieved,
            relevance_threshold=opts["relevance_threshold"],
            weights=weights,
            group_weight=group_weight,
            judged=case.judged,
            judged_only=opts["judged_only"],
        )
        expected[name] = (values, group_weights)

    call = {
        "groups": case.groups,
        "metrics": names,
        "retrieved": case.retrieved,
        "sample_weight": case.sample_weight,
        "judged": case.judged,
        "in_pool": case.in_pool,
        **_drop_some_defaults(data, opts),
    }
    if must_raise:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            with pytest.raises(ValueError):
                sr.evaluate_per_group(case.y_true, case.y_score, **call)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = sr.evaluate_per_group(case.y_true, case.y_score, **call)
    # Per-group values need no mean; if anything warns it must be this one.
    assert all(issubclass(w.category, UndefinedMetricWarning) for w in caught)

    ids = sorted(set(case.groups.tolist()))
    assert list(np.asarray(result.group_ids).tolist()) == ids
    for name in names:
        values, group_weights = expected[name]
        got_values = np.asarray(result.values[name], dtype=float)
        got_weights = np.asarray(result.weights[name], dtype=float)
        assert got_values.shape == (len(ids),)
        assert got_weights.shape == (len(ids),)
        want = [values[g] for g in ids]
        assert got_values.tolist() == approx(want), name
        for i, g in enumerate(ids):
            if not math.isnan(values[g]):
                assert got_weights[i] == approx(group_weights[g]), (name, g)


@pytest.mark.parametrize("ties", TIES)
@FAST
@given(case=ranking_cases(graded=True), gain=custom_gains, data=st.data())
def test_custom_gains_agree_with_reference(ties, case, gain, data):
    # A {label: gain} map or a callable: NDCG's ideal order sorts by gain, and a
    # group whose ideal DCG is <= 0 is undefined.
    names = _draw_metric_names(data, ["ndcg", "dcg"])
    k = {name: _split(name)[1] for name in names}
    opts = {"ties": ties, "gain": gain}
    opts["relevance_threshold"] = _draw(data, "relevance_threshold", case)
    # trec_eval's gains: unjudged rows gain 0 even where the map gives label 0 a
    # gain, and stay out of the ideal list.
    opts["gain_rows"] = _draw(data, "gain_rows", case)
    call = {
        "groups": case.groups,
        "metrics": names,
        "retrieved": case.retrieved,
        "sample_weight": case.sample_weight,
        "judged": case.judged,
    }
    got = sr.evaluate_per_group(case.y_true, case.y_score, **call, **opts)
    ids = sorted(set(case.groups.tolist()))
    for name in names:
        metric = _split(name)[0]
        expected = reference_per_group(
            metric,
            k[name],
            case.y_true,
            case.y_score,
            case.groups,
            retrieved=case.retrieved,
            ties=ties,
            gain=gain,
            relevance_threshold=opts["relevance_threshold"],
            judged=case.judged,
            gain_rows=opts["gain_rows"],
        )
        want = [expected[g] for g in ids]
        assert np.asarray(got.values[name]).tolist() == approx(want), name
