"""Properties every metric of the registry must have.

Each test runs over every registry name, so a new metric is covered by adding it to
the registry; ``test_every_metric_is_classified`` fails if a metric is missing from
the data sets below.
"""

import numpy as np
import pandas as pd
import pytest

import sklearn_rank
from sklearn_rank._metrics.registry import METRICS

# Interpolated precision with averaged ties raises where a mixed tie block makes
# its value random (documented), so its invariance data has distinct scores; every
# other metric (ERR included: mixed-grade blocks are exact) is tested with ties.
# So do trec_eval's G, binG, infAP, ndcg_rel and Rndcg (docs/metrics.md 2.21-2.28).
TIE_FREE = {"iprec", "iprec_11pt", "g", "bing", "infap", "ndcg_rel", "rndcg"}
# Fall-out is the recall of the non-relevant rows: defined without relevant rows;
# Judged@k, Unjudged@k and the RBP residual read no labels.
DEFINED_WITHOUT_RELEVANT = {"fallout", "judged", "unjudged", "rbp_residual"}
# Not normalised to [0, 1]: DCG, and ARP (a mean position, >= 1).
UNBOUNDED = ("dcg", "arp")
# One label per row; the intent-aware metrics (a 2-D y_true) are checked
# against their brute force in test_intent_metrics.py.
SINGLE = {name: spec for name, spec in METRICS.items() if not spec.intents}
NAMES = [f"{name}@3" if spec.takes_k else name for name, spec in SINGLE.items()]
OPTIONS = {"max_grade": 4, "recall_level": 0.5}


def make_data(seed, n_groups=12, ties=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_groups)
    groups = np.repeat(np.arange(n_groups) * 7 + 3, sizes)
    y = rng.integers(0, 5, size=groups.size).astype(float)
    y[groups == groups[0]] = 0  # one group without relevant rows
    if ties:
        s = rng.integers(0, 4, size=groups.size).astype(float)
    else:
        s = rng.permutation(groups.size).astype(float)
    perm = rng.permutation(groups.size)  # non-contiguous groups
    return y[perm], s[perm], groups[perm]


def run(name, y, s, g, **kw):
    return sklearn_rank.evaluate(y, s, groups=g, metrics=[name], **OPTIONS, **kw)[name]


@pytest.fixture(params=NAMES)
def name(request):
    return request.param


@pytest.fixture(params=[0, 1, 2])
def data(request, name):
    return make_data(request.param, ties=name.split("@")[0] not in TIE_FREE)


def test_every_metric_is_classified():
    assert {n.split("@")[0] for n in NAMES} == set(SINGLE)
    assert TIE_FREE <= set(SINGLE)
    public = {spec.function for spec in METRICS.values()}
    assert public <= set(sklearn_rank.__all__)


def test_row_permutation(name, data):
    y, s, g = data
    perm = np.random.default_rng(7).permutation(y.size)
    assert run(name, y, s, g) == pytest.approx(run(name, y[perm], s[perm], g[perm]))


@pytest.mark.parametrize(
    "relabel",
    [
        lambda g: g.astype(str),
        lambda g: np.array([f"query-{v}" for v in g], dtype=object),
        lambda g: -g,
        lambda g: g * 10**12,  # spread too wide for the lookup-table encoding
        lambda g: np.uint64(2**64 - 1) - g.astype(np.uint64),  # near 2**64
        lambda g: g.astype(float) / 3,
        lambda g: pd.Categorical(g.astype(str)),
        lambda g: pd.Series(g).astype("category"),
    ],
    ids=[
        "str",
        "object",
        "negative",
        "wide",
        "uint64-top",
        "float",
        "categorical",
        "series-cat",
    ],
)
def test_group_relabelling(name, data, relabel):
    y, s, g = data
    assert run(name, y, s, g) == pytest.approx(run(name, y, s, relabel(g)))


def test_input_types_agree(name, data):
    y, s, g = data
    expected = run(name, y, s, g)
    assert run(name, list(y), list(s), list(g)) == pytest.approx(expected)
    assert run(name, pd.Series(y), pd.Series(s), pd.Series(g)) == pytest.approx(
        expected
    )
    assert run(name, y.astype(int), s.astype(np.float32), g) == pytest.approx(expected)


@pytest.mark.parametrize(
    "transform",
    [lambda s: 3 * s + 1, np.exp, lambda s: np.arctan(s - 1.5)],
    ids=["affine", "exp", "arctan"],
)
def test_monotone_score_transform(name, data, transform):
    y, s, g = data
    assert run(name, y, s, g) == pytest.approx(run(name, y, transform(s), g))


def test_unit_weights_equal_none(name, data):
    y, s, g = data
    assert run(name, y, s, g, sample_weight=np.ones(y.size)) == pytest.approx(
        run(name, y, s, g)
    )


def test_integer_weight_equals_duplicating_the_group(name, data):
    y, s, g = data
    heavy = np.unique(g)[1:4]
    weight = np.where(np.isin(g, heavy), 3.0, 1.0)
    extra = np.isin(g, heavy)
    # Two more copies of each heavy group, under new ids.
    y2 = np.concatenate([y, y[extra], y[extra]])
    s2 = np.concatenate([s, s[extra], s[extra]])
    g2 = np.concatenate([g, g[extra] + 10_000, g[extra] + 20_000])
    assert run(name, y, s, g, sample_weight=weight) == pytest.approx(
        run(name, y2, s2, g2)
    )


def test_inputs_are_not_modified(name, data):
    y, s, g = data
    w = np.linspace(0.5, 2, y.size)
    retrieved = np.arange(y.size) % 5 != 0
    copies = [a.copy() for a in (y, s, g, w, retrieved)]
    run(name, y, s, g, sample_weight=w, retrieved=retrieved)
    for before, after in zip(copies, (y, s, g, w, retrieved), strict=True):
        np.testing.assert_array_equal(before, after)


def test_per_group_mean_matches_evaluate(name, data):
    y, s, g = data
    if METRICS[name.split("@")[0]].pooled:
        with pytest.raises(ValueError, match="pooled"):
            sklearn_rank.evaluate_per_group(y, s, groups=g, metrics=[name])
        return
    res = sklearn_rank.evaluate_per_group(y, s, groups=g, metrics=[name], **OPTIONS)
    np.testing.assert_array_equal(res.group_ids, np.unique(g))
    assert res.mean(name) == pytest.approx(run(name, y, s, g))
    # Group 3 has only zero labels: undefined (NaN) for every per-group metric.
    if name.split("@")[0] not in DEFINED_WITHOUT_RELEVANT:
        assert np.isnan(res.values[name][res.group_ids == 3]).all()
    assert not np.isnan(res.values[name]).all()


def test_values_in_unit_interval(name, data):
    y, s, g = data
    value = run(name, y, s, g)
    upper = np.inf if name.startswith(UNBOUNDED) else 1.0
    assert 0.0 <= value <= upper


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_weights_scaled_by_a_constant_change_nothing(name, data, scale):
    y, s, g = data
    w = np.linspace(0.5, 2, y.size) / 2
    expected = run(name, y, s, g, sample_weight=w)
    got = run(name, y, s, g, sample_weight=w * scale)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("weight", [5e-324, 1e308, np.finfo(float).max])
def test_extreme_uniform_weights_equal_none(name, data, weight):
    y, s, g = data
    got = run(name, y, s, g, sample_weight=np.full(y.size, weight))
    assert got == pytest.approx(run(name, y, s, g), rel=1e-12)


def test_a_cutoff_beyond_every_list_is_the_whole_list(name, data):
    y, s, g = data
    base = name.split("@")[0]
    if not METRICS[base].takes_k:
        return
    # precision's default denominator is the real k, checked below.
    reads_k = "precision_denominator" in METRICS[base].options
    whole = {"precision_denominator": "min_k_n"} if reads_k else {}
    for k in (2**31, 2**63, 2**64 + 5, 10**30):
        assert run(f"{base}@{k}", y, s, g, **whole) == pytest.approx(
            run(base, y, s, g, **whole)
        )
    if base == "precision":  # every list has <= 8 rows: the same hits as k=8
        assert run(f"{base}@{2**64}", y, s, g) == pytest.approx(
            run(f"{base}@8", y, s, g) * 8 / 2**64
        )


@pytest.mark.parametrize(
    "bad",
    [
        lambda a: a.astype(complex),
        lambda a: a.astype(str),
        lambda a: a.astype(str).astype(object),
        lambda a: np.array([str(v).encode() for v in a]),
    ],
    ids=["complex", "numeric-text", "object-text", "bytes"],
)
@pytest.mark.parametrize("argument", ["y_true", "y_score", "sample_weight"])
def test_non_numeric_inputs_are_rejected_naming_the_argument(name, bad, argument):
    y, s, g = make_data(0)
    arrays = {"y_true": y, "y_score": s, "sample_weight": np.ones(y.size)}
    arrays[argument] = bad(arrays[argument])
    with pytest.raises(TypeError, match=rf"^{argument} in evaluate must be numeric"):
        sklearn_rank.evaluate(
            arrays["y_true"],
            arrays["y_score"],
            groups=g,
            metrics=[name],
            sample_weight=arrays["sample_weight"],
            **OPTIONS,
        )
