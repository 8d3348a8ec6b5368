"""Array API inputs: PyTorch tensors and array-api-strict arrays give the numpy
path's numbers, under scikit-learn's ``array_api_dispatch`` switch on and off.

Registry-driven: every metric, every tie policy and the metric's own options are
drawn from ``METRICS`` / ``OPTION_STRATEGIES``, and each call is compared with the
same call on numpy arrays to 1e-12 (or must raise the same error). Inputs are
never modified, per-group values come back in the inputs' namespace and device
under dispatch (numpy without it), and an array on a device numpy cannot read
(array-api-strict's ``device1``, a CUDA tensor) raises an error that says how to
copy it instead of being moved behind the caller's back.
"""

import math
import warnings

import numpy as np
import pytest
import sklearn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import OPTION_STRATEGIES, cutoffs, ranking_cases

import sklearn_rank as sr
from sklearn_rank._metrics.registry import METRICS

torch = pytest.importorskip(
    "torch", reason="needs PyTorch: the test extra installs it (CPU wheel: README)"
)
xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

from _array_backends import DEVICE1, back  # noqa: E402

FAST = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# One label per row (the intent-aware metrics are numpy only: their 2-D y_true
# is read on the host).
SINGLE = {name: spec for name, spec in METRICS.items() if not spec.intents}
PER_GROUP = [name for name, spec in SINGLE.items() if not spec.pooled]


@pytest.fixture(scope="module", autouse=True)
def _scipy_array_api():
    """scikit-learn's switch asks for SCIPY_ARRAY_API=1, which it reads when the
    switch is set (scipy itself is imported already and keeps its mode)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCIPY_ARRAY_API", "1")
        yield


@pytest.fixture(params=[False, True], ids=["dispatch_off", "dispatch_on"])
def dispatch(request):
    """scikit-learn's public switch, off and on."""
    with sklearn.config_context(array_api_dispatch=request.param):
        yield request.param


def _torch(a, dtype=None):
    return None if a is None else torch.asarray(np.array(a), dtype=dtype)


def _strict(a):
    """array-api-strict arrays: under dispatch on its ``device1``, which numpy
    cannot read (so any host round trip inside the engine raises); without
    dispatch on its CPU device, which the host reads."""
    if a is None:
        return None
    on = sklearn.get_config()["array_api_dispatch"]
    return xps.asarray(np.array(a), device=DEVICE1 if on else xps.Device("CPU_DEVICE"))


BACKENDS = {
    # float32 scores exercise the conversion to float64 (the numpy call gets
    # the same float32 values).
    "torch_f32": (lambda a: _torch(a), lambda s: s.astype(np.float32)),
    "torch": (lambda a: _torch(a), lambda s: s),
    "strict": (_strict, lambda s: s),
}


def _int_groups(groups):
    return np.unique(groups, return_inverse=True)[1].astype(np.int64) * 7 - 3


def _numpy(a):
    return None if a is None else np.asarray(a)


def _call(func, case, convert, opts, **extra):
    args = {
        "groups": convert(_int_groups(case.groups)),
        "sample_weight": convert(case.sample_weight),
        "retrieved": convert(case.retrieved),
        "judged": convert(case.judged),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", func(
                convert(case.y_true), convert(case.y_score), **args, **opts, **extra
            )
        except (ValueError, TypeError) as exc:
            return "raise", type(exc)


def _same(got, want):
    assert got[0] == want[0], (got, want)
    if got[0] == "raise":
        assert got[1] is want[1]
        return
    assert type(got[1]) is float
    assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("metric", list(SINGLE))
@FAST
@given(case=ranking_cases(), data=st.data())
def test_every_metric_option_and_tie_policy_agrees(metric, case, data):
    spec = METRICS[metric]
    opts = {
        name: data.draw(OPTION_STRATEGIES[name](case), label=name)
        for name in spec.options
    }
    if spec.takes_k:
        opts["k"] = data.draw(cutoffs, label="k")
    backend = data.draw(st.sampled_from(sorted(BACKENDS)), label="backend")
    convert, cast = BACKENDS[backend]
    case.y_score = cast(case.y_score)
    func = getattr(sr, spec.function)
    want = _call(func, case, _numpy, opts)
    for on in (False, True):
        with sklearn.config_context(array_api_dispatch=on):
            _same(_call(func, case, convert, opts), want)


@pytest.mark.parametrize("dispatch", [False, True], ids=["off", "on"])
@pytest.mark.parametrize("backend", sorted(BACKENDS))
@FAST
@given(case=ranking_cases(), data=st.data())
def test_evaluate_and_per_group_agree(backend, dispatch, case, data):
    with sklearn.config_context(array_api_dispatch=dispatch):
        _evaluate_and_per_group_agree(backend, dispatch, case, data)


def _evaluate_and_per_group_agree(backend, dispatch, case, data):
    convert, cast = BACKENDS[backend]
    case.y_score = cast(case.y_score)
    ties = data.draw(OPTION_STRATEGIES["ties"](case), label="ties")
    names = data.draw(
        st.lists(st.sampled_from(PER_GROUP), min_size=1, max_size=4, unique=True)
    )
    metrics = [f"{m}@3" if METRICS[m].takes_k else m for m in names]
    metrics = ["iprec@0.5" if m == "iprec" else m for m in metrics]
    opts = {"ties": ties, "metrics": metrics}
    want = _call(sr.evaluate, case, _numpy, opts)
    got = _call(sr.evaluate, case, convert, opts)
    assert got[0] == want[0]
    if got[0] == "value":
        for name in metrics:
            _same(("value", got[1][name]), ("value", want[1][name]))
    want = _call(sr.evaluate_per_group, case, _numpy, opts)
    got = _call(sr.evaluate_per_group, case, convert, opts)
    assert got[0] == want[0]
    if got[0] == "raise":
        return
    sample = convert(np.zeros(1))
    for name in metrics:
        for field in ("values", "weights"):
            value = getattr(got[1], field)[name]
            if dispatch:  # the inputs' namespace, on their device
                assert type(value) is type(sample)
                assert value.device == sample.device
                assert value.dtype == convert(np.zeros(1)).dtype
            else:
                assert isinstance(value, np.ndarray)
            np.testing.assert_allclose(
                back(value), getattr(want[1], field)[name], rtol=1e-12
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # every group undefined: NaN
            mean, want_mean = got[1].mean(name), want[1].mean(name)
        assert type(mean) is float
        assert mean == pytest.approx(want_mean, rel=1e-12, nan_ok=True)
    ids = got[1].group_ids
    assert isinstance(ids, np.ndarray) != dispatch
    np.testing.assert_array_equal(back(ids), want[1].group_ids)


@pytest.mark.parametrize("name", list(BACKENDS))
def test_threshold_above_every_label_after_ndcg(name, dispatch):
    """NDCG keeps its (label, group) count table; the relevant counts of a
    threshold above the top label then read no level of it (array-api-strict
    refuses the empty slice past the end that numpy allows)."""
    convert, _ = BACKENDS[name]
    y, s, g = [0, 1, 0, 1], [0.3, 0.2, 0.9, 0.1], [0, 0, 1, 1]
    metrics = ["ndcg", "precision@1", "r_precision"]
    want = sr.evaluate(
        y, s, groups=g, metrics=metrics, relevance_threshold=2.0, undefined=0.0
    )
    got = sr.evaluate(
        convert(y),
        convert(s),
        groups=convert(g),
        metrics=metrics,
        relevance_threshold=2.0,
        undefined=0.0,
    )
    assert got == pytest.approx(want)


@pytest.mark.parametrize("name", list(BACKENDS))
def test_running_sums_start_from_zero_in_every_group(name, dispatch):
    """A group's expected hits are its own rows' running sum from 0, as on
    numpy: a group with none among its top R rows reads exactly 0, not the
    rounding of the group before it (Hypothesis found 2.2e-16 here, when each
    group's sum restarted by taking away the previous one's total)."""
    convert, _ = BACKENDS[name]
    y = [0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 1, 0] + [0] * 7 + [1]
    s = [-1.5, -1.5, -1.5, 0.0] + [-1.5] * 16
    g = [2] * 5 + [1] * 7 + [0] * 8
    j = [False] * 4 + [True] + [False] * 5 + [True] + [False] * 8 + [True]
    kw = {"metrics": ["r_precision", "precision@1"], "ties": "average"}
    want = sr.evaluate_per_group(y, s, groups=g, judged=j, **kw)
    got = sr.evaluate_per_group(
        convert(y), convert(s), groups=convert(g), judged=convert(j), **kw
    )
    for metric in kw["metrics"]:
        assert back(got.values[metric]).tolist() == want.values[metric].tolist()
    assert want.values["r_precision"][2] == 0.0


def test_inputs_are_not_modified(dispatch):
    rng = np.random.default_rng(0)
    y = torch.asarray(rng.integers(0, 3, 200))
    s = torch.asarray(rng.normal(size=200).round(1))
    g = torch.asarray(rng.integers(0, 20, 200))
    w = torch.asarray(rng.random(200))
    before = [t.clone() for t in (y, s, g, w)]
    sr.evaluate(y, s, groups=g, sample_weight=w, metrics=["ndcg@5", "map", "auc"])
    sr.evaluate_per_group(y, s, groups=g, sample_weight=w, metrics=["mrr"])
    for t, old in zip((y, s, g, w), before, strict=True):
        assert torch.equal(t, old)


def test_autograd_tensors_are_read_without_their_graph():
    s = torch.tensor([0.3, 0.9, 0.1], requires_grad=True)
    y = torch.tensor([1, 0, 0])
    g = torch.tensor([0, 0, 0])
    assert sr.mrr_score(y, s * 2, groups=g) == 0.5


@pytest.mark.parametrize("func", ["evaluate", "evaluate_per_group", "ndcg_score"])
def test_device_arrays_without_dispatch_are_refused_not_copied(func):
    """array-api-strict's device1 is a device numpy cannot read, as CUDA: without
    dispatch the error says how to compute there, or how to copy."""
    y = xps.asarray([1, 0, 0], device=DEVICE1)
    s = xps.asarray([0.2, 0.9, 0.1], device=DEVICE1)
    g = xps.asarray([0, 0, 0], device=DEVICE1)
    with sklearn.config_context(array_api_dispatch=False):
        with pytest.raises(
            TypeError,
            match=r"y_true in .*device1.*array_api_dispatch=True.*SCIPY_ARRAY_API=1",
        ):
            getattr(sr, func)(y, s, groups=g)


DEVICE_BACKENDS = {
    "strict_device1": lambda a: xps.asarray(a, device=DEVICE1),
    "torch": lambda a: torch.asarray(a),
}


@pytest.mark.parametrize("backend", sorted(DEVICE_BACKENDS))
@pytest.mark.parametrize(
    "ties", ["average", "threshold", "stable", "pessimistic", "optimistic"]
)
def test_every_metric_and_tie_policy_on_the_device(backend, ties):
    """With dispatch every metric of the registry computes in the inputs'
    namespace (on array-api-strict's device1 no host round trip can happen),
    on tie-heavy data where every tie correction runs, equal to numpy to 1e-12;
    per-group values and ids stay on the device."""
    rng = np.random.default_rng(4)
    n = 400
    y, s = rng.integers(0, 3, n).astype(float), rng.integers(0, 6, n) / 2
    g = rng.integers(0, 25, n)
    w = rng.uniform(0.2, 2.0, n)
    judged = (rng.random(n) < 0.8) | (y > 0)
    metrics = [f"{m}@4" if METRICS[m].takes_k else m for m in SINGLE]
    metrics = ["iprec@0.5" if m == "iprec" else m for m in metrics]
    opts = {"ties": ties, "max_grade": 2}
    to = DEVICE_BACKENDS[backend]
    dev = [to(a) for a in (y, s, g, w, judged)]
    for name in metrics:  # one at a time: some refuse mixed tie blocks
        try:
            want = sr.evaluate(
                y, s, groups=g, sample_weight=w, judged=judged, metrics=[name], **opts
            )[name]
        except ValueError as exc:
            want = type(exc)
        with sklearn.config_context(array_api_dispatch=True):
            try:
                got = sr.evaluate(
                    dev[0],
                    dev[1],
                    groups=dev[2],
                    sample_weight=dev[3],
                    judged=dev[4],
                    metrics=[name],
                    **opts,
                )[name]
            except ValueError as exc:
                got = type(exc)
        if want is ValueError:
            assert got is ValueError, name
            continue
        assert type(got) is float, name
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), name
    with sklearn.config_context(array_api_dispatch=True):
        per = sr.evaluate_per_group(
            dev[0], dev[1], groups=dev[2], metrics=["ndcg@4", "map", "mrr"], **opts
        )
    sample = to(np.zeros(1))
    assert all(v.device == sample.device for v in per.values.values())
    assert per.group_ids.device == sample.device


def test_mixed_namespaces_are_refused():
    with sklearn.config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match="different array libraries"):
            sr.evaluate_per_group(
                torch.tensor([1, 0]), xps.asarray([0.5, 0.1]), groups=[0, 0]
            )


def test_numpy_inputs_never_import_the_array_api_layer_of_sklearn():
    """With numpy inputs the dispatch switch is not even read."""
    import subprocess
    import sys

    code = (
        "import sys, sklearn_rank as sr;"
        "sr.evaluate([1, 0], [0.2, 0.1], groups=[0, 0]);"
        "print('sklearn' in sys.modules, 'array_api_compat' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


class _TorchModel(sklearn.base.BaseEstimator, sklearn.base.RegressorMixin):
    """A linear model whose predict returns a PyTorch tensor, as a torch module
    wrapped for scikit-learn (skorch) does."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        X, y = np.asarray(X), np.asarray(y, dtype=float)
        self.coef_ = np.linalg.solve(X.T @ X + self.alpha * np.eye(X.shape[1]), X.T @ y)
        return self

    def predict(self, X):
        return torch.asarray(np.asarray(X) @ self.coef_)


def test_scorer_in_grid_search_with_a_model_returning_tensors(dispatch):
    from sklearn.model_selection import GridSearchCV, GroupKFold

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0.5).astype(int)
    qid = np.repeat(np.arange(12), 10)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            _TorchModel(),
            {"alpha": [0.1, 10.0]},
            scoring=sr.make_ranking_scorer("ndcg@5"),
            cv=GroupKFold(3),
        )
        search.fit(X, y, groups=qid)
        scorer = sr.make_ranking_scorer("ndcg@5")
        model = _TorchModel().fit(X, y)
        got = scorer(model, X, y, groups=qid)
    want = sr.ndcg_score(y, np.asarray(X) @ model.coef_, groups=qid, k=5)
    assert type(got) is float
    assert got == pytest.approx(want, rel=1e-12)
    assert all(math.isfinite(v) for v in search.cv_results_["mean_test_score"])


@pytest.mark.cuda
@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_cuda_arrays(lib):
    """On a CUDA machine (``pytest -m cuda``): without dispatch CUDA arrays are
    refused with the error that says what to do; with it every metric of the
    registry, every tie policy, computes on the GPU and equals the host's
    numbers to 1e-12, per-group values staying on the GPU."""
    if lib == "torch" and not torch.cuda.is_available():
        pytest.skip("no CUDA device: run pytest -m cuda on a machine with one")
    mod = pytest.importorskip(lib) if lib == "cupy" else torch
    if lib == "cupy" and mod.cuda.runtime.getDeviceCount() == 0:  # pragma: no cover
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(2)
    n = 5000
    y, s = rng.integers(0, 3, n).astype(float), rng.integers(0, 40, n) / 4
    g = rng.integers(0, 300, n)
    dev = (lambda a: torch.asarray(a, device="cuda")) if lib == "torch" else mod.asarray
    with sklearn.config_context(array_api_dispatch=False):
        with pytest.raises(TypeError, match="array_api_dispatch=True"):
            sr.evaluate(dev(y), dev(s), groups=dev(g))
    metrics = [f"{m}@5" if METRICS[m].takes_k else m for m in SINGLE]
    metrics = ["iprec@0.5" if m == "iprec" else m for m in metrics]
    for ties in ("average", "threshold", "stable", "pessimistic", "optimistic"):
        opts = {"ties": ties, "max_grade": 2}
        # A metric the host refuses under this policy (mixed tie blocks:
        # interpolated precision under "average", the trec_eval-style g, bing,
        # infap, ndcg_rel and rndcg under "average" and "threshold") must be
        # refused on the device with the same message; the others are compared.
        refused = {}
        for m in metrics:
            try:
                sr.evaluate(y, s, groups=g, metrics=[m], **opts)
            except ValueError as exc:
                refused[m] = str(exc)
        kept = [m for m in metrics if m not in refused]
        assert len(kept) > len(metrics) // 2, refused
        want = sr.evaluate(y, s, groups=g, metrics=kept, **opts)
        with sklearn.config_context(array_api_dispatch=True):
            got = sr.evaluate(dev(y), dev(s), groups=dev(g), metrics=kept, **opts)
            per = sr.evaluate_per_group(dev(y), dev(s), groups=dev(g), metrics=["mrr"])
            for m, message in refused.items():
                with pytest.raises(ValueError) as err:
                    sr.evaluate(dev(y), dev(s), groups=dev(g), metrics=[m], **opts)
                assert str(err.value) == message
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
        values = per.values["mrr"]  # stays on the GPU, in the inputs' library
        assert type(values) is type(dev(y))
        assert "cuda" in str(values.device).lower()
