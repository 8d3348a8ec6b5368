"""sklearn_rank.stats against brute force, hand definitions and scipy.stats."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from sklearn_rank import GroupScores, evaluate, evaluate_per_group
from sklearn_rank._metrics.bootstrap import _COUNT_BUDGET, resample_blocks
from sklearn_rank.stats import bootstrap_ci, compare
from sklearn_rank.stats._corrections import adjust
from sklearn_rank.stats._randomization import (
    _SIGN_BUDGET,
    sign_flip_exact,
    sign_flip_monte_carlo,
)


def _gs(values, weights=None, name="m"):
    """GroupScores of one metric over groups 0..n-1."""
    values = np.asarray(values, dtype=float)
    w = np.ones(values.size) if weights is None else np.asarray(weights, float)
    return GroupScores(np.arange(values.size), {name: values}, {name: w})


def _brute_force_p(d, w, alternative="two-sided"):
    """Sign-flip p-value over all 2**n sign vectors, one at a time."""
    d, w = np.asarray(d, float), np.asarray(w, float)
    obs = np.dot(w, d) / w.sum()
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=d.size):
        t = np.dot(w, np.array(signs) * d) / w.sum()
        tol = 1e-9
        if alternative == "greater":
            hits += t >= obs - tol
        elif alternative == "less":
            hits += t <= obs + tol
        else:
            hits += abs(t) >= abs(obs) - tol
    return hits / 2**d.size


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_mode_equals_full_enumeration(alternative, seed):
    rng = np.random.default_rng(seed)
    n = 12
    a = rng.integers(0, 4, n).astype(float)  # integer values: many exact ties
    b = rng.integers(0, 4, n).astype(float)
    w = rng.integers(1, 4, n).astype(float)
    report = compare(
        None,
        {"a": _gs(a, w), "b": _gs(b, w)},
        exact=True,
        alternative=alternative,
        confidence_level=None,
    )
    p = report.pairs[0].p_value
    assert p == _brute_force_p(a - b, w, alternative)
    assert p > 0


def test_exact_mode_agrees_with_scipy_permutation_test():
    rng = np.random.default_rng(5)
    a, b = rng.random(10), rng.random(10)
    ours = sign_flip_exact(((a - b) / 10)[:, None])[0]
    ref = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
    )
    assert ours == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_within_binomial_error_of_exact():
    rng = np.random.default_rng(6)
    d = rng.normal(0.4, 1.0, 14)
    x = (d / d.size)[:, None]
    exact = sign_flip_exact(x)[0]
    n_res = 20000
    mc = sign_flip_monte_carlo(x, n_res, np.random.default_rng(0))[0]
    assert 0.01 < exact < 0.5  # a p-value where the check has power
    assert abs(mc - exact) < 4 * np.sqrt(exact * (1 - exact) / n_res) + 1 / n_res


def _as_drawn(rng, n_res, bytes_per_resample, budget, draw):
    """The resamples in the library's blocks: one seed per block drawn from
    ``rng`` up front, ``draw(generator, block_size)`` per block."""
    blocks = resample_blocks(rng, n_res, bytes_per_resample, budget)
    return np.concatenate([draw(g, stop - start) for start, stop, g in blocks])


def test_monte_carlo_decisions_are_the_float64_ones_on_tied_data():
    # 3000 groups (two float32 blocks) of integer differences with equal weights:
    # many resamples tie the observed statistic exactly. Regenerate the same
    # signs and count in float64 by hand.
    rng = np.random.default_rng(11)
    d = rng.integers(-2, 3, 3000).astype(float)
    d[:40] += 1  # a small shift, so the observed value sits inside the null
    x = np.stack([d / d.size, np.roll(d, 7) / d.size], axis=1)
    n_res = 2000
    got = sign_flip_monte_carlo(x, n_res, np.random.default_rng(42))
    bits = _as_drawn(
        np.random.default_rng(42), n_res, 4 * 4096, _SIGN_BUDGET,
        lambda g, b: g.integers(0, 256, size=(b, 512), dtype=np.uint8),
    )  # fmt: skip
    signs = 1.0 - 2.0 * np.unpackbits(bits, axis=1)[:, :3000]
    t_star = signs @ (d[:, None] * np.array([1, 1]))  # exact: integer sums
    t_star = np.stack([signs @ d, signs @ np.roll(d, 7)], axis=1)
    t_obs = np.array([d.sum(), np.roll(d, 7).sum()])
    b = (np.abs(t_star) >= np.abs(t_obs)).sum(axis=0)
    ties = (np.abs(t_star) == np.abs(t_obs)).sum(axis=0)
    assert ties.sum() > 0  # the check exercises exact ties
    np.testing.assert_array_equal(got, (b + 1) / (n_res + 1))


def test_monte_carlo_agrees_with_scipy_permutation_test():
    rng = np.random.default_rng(8)
    a = rng.random(300)
    b = a - 0.02 + rng.normal(0, 0.2, 300)
    report = compare(
        None,
        {"a": _gs(a), "b": _gs(b)},
        n_resamples=4000,
        random_state=0,
        confidence_level=None,
    )
    ref = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=4000,
        random_state=1,
    )
    p, q = report.pairs[0].p_value, ref.pvalue
    assert 0.01 < q < 0.5
    assert abs(p - q) < 5 * np.sqrt(q * (1 - q) / 4000)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_and_wilcoxon_are_scipys(alternative):
    rng = np.random.default_rng(2)
    a, b = rng.random(40), rng.random(40)
    ys = {"a": _gs(a), "b": _gs(b)}
    d = np.round(a - b, 10)  # the one rounding rule
    for test, ref in (("t", stats.ttest_1samp), ("wilcoxon", stats.wilcoxon)):
        r = compare(None, ys, test=test, alternative=alternative, confidence_level=None)
        args = (d, 0.0) if test == "t" else (d,)
        assert r.pairs[0].p_value == ref(*args, alternative=alternative).pvalue
        # and within rounding of scipy on the raw scores
        raw = (stats.ttest_rel if test == "t" else stats.wilcoxon)(
            a, b, alternative=alternative
        ).pvalue
        assert r.pairs[0].p_value == pytest.approx(raw, rel=1e-8)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_bootstrap_ci_agrees_with_scipy_bootstrap(method):
    rng = np.random.default_rng(4)
    v = rng.beta(0.5, 2.0, 60)  # skewed, like per-query scores
    ours = bootstrap_ci(None, _gs(v), n_resamples=8000, method=method, random_state=0)[
        "m"
    ]
    ref = stats.bootstrap(
        (v,), np.mean, n_resamples=8000, method=method, random_state=1
    )
    se = ref.standard_error
    assert ours.mean == pytest.approx(np.mean(v), rel=1e-14)
    assert abs(ours.ci_low - ref.confidence_interval.low) < 0.15 * se
    assert abs(ours.ci_high - ref.confidence_interval.high) < 0.15 * se
    assert ours.standard_error == pytest.approx(se, rel=0.1)


def test_paired_difference_interval_agrees_with_scipy_bootstrap():
    rng = np.random.default_rng(6)
    a = rng.random(80)
    b = a - 0.05 + rng.normal(0, 0.1, 80)
    r = compare(
        None, {"a": _gs(a), "b": _gs(b)}, n_resamples=8000, random_state=0,
        ci_method="BCa",
    )  # fmt: skip
    ref = stats.bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        paired=True,
        n_resamples=8000,
        random_state=1,
    )
    p = r.pairs[0]
    se = ref.standard_error
    assert p.mean_diff == pytest.approx(np.mean(a - b), rel=1e-9)  # rounded d
    assert abs(p.ci_low - ref.confidence_interval.low) < 0.15 * se
    assert abs(p.ci_high - ref.confidence_interval.high) < 0.15 * se


def test_paired_bootstrap_test_matches_its_definition():
    # The shifted bootstrap p-value, recomputed by a plain loop of resamples.
    rng = np.random.default_rng(9)
    a = rng.random(50)
    b = a - 0.04 + rng.normal(0, 0.15, 50)
    d = a - b
    r = compare(
        None, {"a": _gs(a), "b": _gs(b)}, test="bootstrap", n_resamples=4000,
        random_state=0,
    )  # fmt: skip
    loop_rng = np.random.default_rng(123)
    means = np.array([d[loop_rng.integers(0, 50, 50)].mean() for _ in range(4000)])
    ref = (np.sum(np.abs(means - d.mean()) >= abs(d.mean())) + 1) / 4001
    assert 0.01 < ref < 0.5
    assert abs(r.pairs[0].p_value - ref) < 5 * np.sqrt(2 * ref * (1 - ref) / 4000)


def _holm_brute_force(p):
    """Smallest alpha at which Holm's step-down procedure rejects each test."""
    m = p.size
    candidates = np.unique(
        np.minimum(1.0, np.concatenate([p * k for k in range(1, m + 1)]))
    )
    out = np.ones(m)
    for alpha in candidates[::-1]:
        order = np.argsort(p, kind="stable")
        rejected = np.zeros(m, bool)
        for i, j in enumerate(order):
            if p[j] <= alpha / (m - i):
                rejected[j] = True
            else:
                break
        out[rejected] = alpha
    return out


@pytest.mark.parametrize("seed", range(5))
def test_holm_and_bonferroni_match_their_definitions(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, 7)
    p[2] = p[4]  # a tie
    np.testing.assert_allclose(adjust(p, "holm"), _holm_brute_force(p), rtol=1e-12)
    np.testing.assert_allclose(
        adjust(p, "bonferroni"), [min(1.0, 7 * q) for q in p], rtol=1e-12
    )
    np.testing.assert_array_equal(adjust(p, "none"), p)
    np.testing.assert_allclose(
        adjust(p, "bh"), stats.false_discovery_control(p, method="bh")
    )


def test_corrections_apply_over_the_pairs_of_each_metric():
    rng = np.random.default_rng(1)
    gs = {
        name: GroupScores(
            np.arange(30),
            {"x": rng.random(30) + shift, "y": rng.random(30)},
            {"x": np.ones(30), "y": np.ones(30)},
        )
        for name, shift in (("a", 0.0), ("b", 0.1), ("c", 0.2))
    }
    for correction in ("holm", "bonferroni", "bh"):
        r = compare(None, gs, test="t", correction=correction, confidence_level=None)
        for metric in ("x", "y"):
            rows = [p for p in r.pairs if p.metric == metric]
            raw = np.array([p.p_value for p in rows])
            assert len(rows) == 3  # all pairs of three models
            np.testing.assert_allclose(
                [p.p_adjusted for p in rows], adjust(raw, correction)
            )


def _ranking_data(seed=0, n_groups=80):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 12, n_groups)
    groups = np.repeat(np.arange(n_groups) * 7 + 3, sizes)
    y = rng.binomial(1, 0.25, groups.size) * rng.integers(1, 4, groups.size)
    s1 = y + rng.normal(0, 1.5, groups.size)
    s2 = y + rng.normal(0, 2.0, groups.size)
    sw = rng.uniform(0.5, 2.0, groups.size)
    return y, s1, s2, groups, sw


METRICS = ["ndcg@10", "map", "mrr", "precision@5", "gauc"]


@pytest.mark.parametrize(
    "options",
    [{}, {"sample_weight": True}, {"convention": "trec_eval"}, {"undefined": 0.0}],
)
def test_means_equal_evaluate_exactly(options):
    y, s1, s2, groups, sw = _ranking_data()
    if options.get("sample_weight"):
        options = {"sample_weight": sw}
    r = compare(
        y, {"m1": s1, "m2": s2}, groups=groups, metrics=METRICS, n_resamples=99,
        random_state=0, **options,
    )  # fmt: skip
    ci = bootstrap_ci(
        y, s1, groups=groups, metrics=METRICS, n_resamples=99, random_state=0,
        **options,
    )  # fmt: skip
    for name, score in (("m1", s1), ("m2", s2)):
        ref = evaluate(y, score, groups=groups, metrics=METRICS, **options)
        for m in METRICS:
            assert r.mean(m, name).mean == ref[m]
            if name == "m1":
                assert ci[m].mean == ref[m]
    for m in METRICS:  # same defined groups for both models here
        p = r.pair(m, "m1", "m2")
        assert p.mean_diff == pytest.approx(r.mean(m, "m1").mean - r.mean(m, "m2").mean)
        assert p.wins + p.ties + p.losses == p.n_groups


def test_per_group_input_equals_array_input():
    y, s1, s2, groups, _ = _ranking_data(1)
    kw = dict(metrics=["ndcg@10", "mrr"], n_resamples=500, random_state=3)
    r1 = compare(y, {"a": s1, "b": s2}, groups=groups, **kw)
    per = {
        k: evaluate_per_group(y, s, groups=groups, metrics=kw["metrics"])
        for k, s in (("a", s1), ("b", s2))
    }
    r2 = compare(None, per, **kw)
    assert r1 == r2


def test_pandas_inputs():
    pd = pytest.importorskip("pandas")
    y, s1, s2, groups, _ = _ranking_data(2)
    frame = pd.DataFrame({"a": s1, "b": s2})
    kw = dict(metrics="ndcg@10", n_resamples=200, random_state=0)
    r1 = compare(pd.Series(y), frame, groups=pd.Series(groups), **kw)
    r2 = compare(y, {"a": s1, "b": s2}, groups=groups, **kw)
    assert r1 == r2
    out = r1.to_frame()
    for col in (
        "metric", "model", "baseline", "mean_diff", "ci_low", "ci_high", "p_value",
        "p_adjusted", "wins", "ties", "losses", "n_groups",
    ):  # fmt: skip
        assert col in out.columns
    assert out.loc[0, "p_value"] == r1.pairs[0].p_value
    assert len(r1.models_frame()) == 2


def test_groups_undefined_for_either_model_are_dropped_and_counted():
    a = np.array([0.5, np.nan, 0.9, 0.2, np.nan, 0.7, 0.1, 0.3])
    b = np.array([0.4, 0.6, np.nan, 0.3, np.nan, 0.2, 0.1, 0.9])
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0, 1.0])
    with pytest.warns(RuntimeWarning, match="4 non-tied groups is 0.125 > alpha"):
        r = compare(
            None, {"a": _gs(a, w), "b": _gs(b, w)}, n_resamples=999, random_state=0
        )
    p = r.pairs[0]
    keep = ~np.isnan(a) & ~np.isnan(b)
    d = (a - b)[keep]
    assert (p.n_groups, p.n_dropped) == (5, 3)
    assert p.mean_diff == pytest.approx(np.dot(w[keep], d) / w[keep].sum())
    assert (p.wins, p.ties, p.losses) == (2, 1, 2)
    assert p.p_value == _brute_force_p(d, w[keep])  # 2**5 <= 999: exact
    assert r.mean("m", "a").n_undefined == 2


def test_same_random_state_same_result_and_seed_types():
    y, s1, s2, groups, _ = _ranking_data(3)
    kw = dict(groups=groups, metrics=["map"], n_resamples=300)
    r1 = compare(y, {"a": s1, "b": s2}, random_state=7, **kw)
    r2 = compare(y, {"a": s1, "b": s2}, random_state=7, **kw)
    assert r1 == r2 and r1.seed == 7 and "seed 7" in str(r1)
    for seed in (np.random.default_rng(7), np.random.RandomState(7), None):
        r = compare(y, {"a": s1, "b": s2}, random_state=seed, **kw)
        # the int drawn from a Generator / RandomState / None is stored: a rerun
        # with it repeats the report
        assert isinstance(r.seed, int)
        assert compare(y, {"a": s1, "b": s2}, random_state=r.seed, **kw) == r
    assert all(p.p_value > 0 for p in r1.pairs)


def test_a_pairs_p_value_depends_on_its_data_and_the_seed_only():
    # Same seed and data, with intervals on or off, another metric or another
    # model added: the pair's p-value and interval are the same floats.
    y, s1, s2, groups, _ = _ranking_data(3)
    s3 = s2 + np.random.default_rng(1).normal(0, 0.5, s2.size)
    kw = dict(groups=groups, n_resamples=999, random_state=3)
    for test in ("randomization", "bootstrap", "bootstrap-shift"):
        base = compare(y, {"a": s1, "b": s2}, metrics="mrr", test=test, **kw)
        p0 = base.pair("mrr", "a", "b")
        variants = [
            compare(y, {"a": s1, "b": s2}, metrics="mrr", test=test,
                    confidence_level=None, **kw),
            compare(y, {"a": s1, "b": s2}, metrics=["map", "mrr"], test=test, **kw),
            compare(y, {"a": s1, "b": s2, "c": s3}, metrics=["mrr", "ndcg@5"],
                    test=test, **kw),
            compare(y, {"a": s1, "b": s2}, metrics="mrr", test=test,
                    ci_method="BCa", **kw),
        ]  # fmt: skip
        for r in variants:
            assert r.pair("mrr", "a", "b").p_value == p0.p_value, test
        assert variants[1].pair("mrr", "a", "b").ci_low == p0.ci_low
        assert variants[2].pair("mrr", "a", "b").ci_high == p0.ci_high
        # p_method says how it was computed
        assert p0.p_method == "monte carlo"
    small = compare(None, {"a": _gs([.9, .8, .7, .6, .5, .4, .3]),
                           "b": _gs([.5, .6, .1, .4, .4, .1, .0])})  # fmt: skip
    assert small.pairs[0].p_method == "exact (128 sign flips)"


def test_rejection_rate_under_the_null_is_nominal():
    # Two models equal in distribution: about 5% of the tests reject at 0.05.
    rng = np.random.default_rng(0)
    reps, n = 300, 25
    for test in ("randomization", "bootstrap"):
        rejections = 0
        for _ in range(reps):
            a, b = rng.beta(0.7, 1.5, n), rng.beta(0.7, 1.5, n)
            r = compare(
                None, {"a": _gs(a), "b": _gs(b)}, test=test, n_resamples=199,
                confidence_level=None if test == "randomization" else 0.95,
                random_state=rng,
            )  # fmt: skip
            rejections += r.pairs[0].p_value <= 0.05
        rate = rejections / reps
        err = 3 * np.sqrt(0.05 * 0.95 / reps)
        assert 0.05 - err < rate < 0.05 + err


def test_interval_coverage_of_a_known_mean_is_nominal():
    rng = np.random.default_rng(1)
    reps, n = 300, 60
    mean = 0.7 / (0.7 + 1.5)  # Beta(0.7, 1.5): skewed like per-query scores
    covered = 0
    for _ in range(reps):
        v = rng.beta(0.7, 1.5, n)
        r = bootstrap_ci(None, _gs(v), n_resamples=499, random_state=rng)["m"]
        covered += r.ci_low <= mean <= r.ci_high
    err = 3 * np.sqrt(0.95 * 0.05 / reps)
    assert 0.95 - err < covered / reps < 0.95 + err


def test_report_prints_a_table():
    y, s1, s2, groups, _ = _ranking_data(4)
    r = compare(
        y, {"tuned": s1, "random": s2}, groups=groups, metrics=["ndcg@10", "mrr"],
        baseline="random", n_resamples=99, random_state=0,
    )  # fmt: skip
    text = str(r)
    assert "tuned - random" in text and "W/T/L" in text and "holm" in text
    p = r.pair("mrr", "tuned", "random")
    assert f"{p.wins}/{p.ties}/{p.losses}" in text
    assert "ndcg@10" in str(bootstrap_ci(y, s1, groups=groups, n_resamples=99))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"test": "anova"}, "The 'test' parameter of compare must be a str among"),
        ({"correction": "fdr"}, "The 'correction' parameter of compare"),
        ({"confidence_level": 95}, "The 'confidence_level' parameter of compare"),
        ({"n_resamples": 0}, "The 'n_resamples' parameter of compare"),
        ({"random_state": "x"}, "The 'random_state' parameter of compare"),
        ({"baseline": "zzz"}, "The 'baseline' parameter of compare"),
        ({"exact": True}, "The 'exact' parameter of compare"),
    ],
)
def test_errors_name_the_argument(kwargs, match):
    rng = np.random.default_rng(0)
    ys = {"a": _gs(rng.random(30)), "b": _gs(rng.random(30))}
    with pytest.raises(ValueError, match=match):
        compare(None, ys, **kwargs)


def test_inputs_are_not_modified_and_weights_must_agree():
    y, s1, s2, groups, _ = _ranking_data(5)
    copies = [x.copy() for x in (y, s1, s2, groups)]
    compare(y, {"a": s1, "b": s2}, groups=groups, n_resamples=50, random_state=0)
    for x, c in zip((y, s1, s2, groups), copies, strict=True):
        np.testing.assert_array_equal(x, c)
    with pytest.raises(ValueError, match="weights of m differ"):
        compare(None, {"a": _gs([1.0, 2.0], [1, 2]), "b": _gs([1.0, 2.0], [1, 1])})


def test_to_frame_without_pandas_names_the_extra(monkeypatch):
    import sys

    with pytest.warns(RuntimeWarning, match="cannot reject"):
        r = compare(None, {"a": _gs([0.1, 0.5, 0.3]), "b": _gs([0.2, 0.1, 0.4])})
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="optional dependency: pip install pandas"):
        r.to_frame()


# --- Studentized bootstrap (bootstrap-t) --------------------------------------


def _loop_bootstrap_t(d, n_res, rng):
    """t* = (mean* - mean) / se* by a plain loop over the same resamples
    (groups drawn as compare draws them: one (resamples, n) matrix of indices
    per block of resamples, each block from its own seed)."""
    idx = _as_drawn(
        rng, n_res, 8 * d.size, _COUNT_BUDGET,
        lambda g, b: g.integers(0, d.size, size=(b, d.size)),
    )  # fmt: skip
    t = np.empty(n_res)
    for i in range(n_res):
        s = d[idx[i]]
        t[i] = (s.mean() - d.mean()) / (s.std(ddof=1) / np.sqrt(d.size))
    return t


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_bootstrap_t_test_and_interval_match_their_definitions(alternative):
    from sklearn_rank.stats._inputs import stream

    rng = np.random.default_rng(3)
    a = rng.beta(0.5, 2.0, 30)
    b = a - 0.03 + rng.normal(0, 0.1, 30)
    d = np.round(a - b, 10)
    n_res, level = 2000, 0.9
    r = compare(
        None, {"a": _gs(a), "b": _gs(b)}, test="bootstrap-t", n_resamples=n_res,
        random_state=5, alternative=alternative, confidence_level=level,
    ).pairs[0]  # fmt: skip
    # the pair's own stream: seed 5, the test, the pair
    pair_stream = stream(5, "test", "bootstrap-t", "m", "a", "b")
    # resampled in the canonical order (by value): not the order of the groups
    t_star = _loop_bootstrap_t(np.sort(d), n_res, pair_stream)
    se = d.std(ddof=1) / np.sqrt(d.size)
    t_obs = d.mean() / se
    if alternative == "two-sided":
        ref_p = (np.sum(np.abs(t_star) >= abs(t_obs)) + 1) / (n_res + 1)
    else:  # one-sided: the reference is t* and -t* (the paired null is symmetric)
        ref = np.r_[t_star, -t_star]
        hits = ref >= t_obs if alternative == "greater" else ref <= t_obs
        ref_p = (hits.sum() + 1) / (2 * n_res + 1)
    assert 0.01 < ref_p < 0.99
    assert r.p_value == pytest.approx(ref_p, abs=1e-12)
    # the interval inverts the test: the shifts delta whose p-value, recomputed
    # by hand on d - delta with the same resamples, exceeds alpha
    alpha = 1 - level

    def p_at(delta):
        t = (d.mean() - delta) / se
        if alternative == "two-sided":
            return (np.sum(np.abs(t_star) >= abs(t)) + 1) / (n_res + 1)
        ref = np.r_[t_star, -t_star]
        hits = ref >= t if alternative == "greater" else ref <= t
        return (hits.sum() + 1) / (2 * n_res + 1)

    eps = 1e-9
    if alternative != "less":
        assert p_at(r.ci_low + eps) > alpha >= p_at(r.ci_low - eps)
    else:
        assert r.ci_low == -np.inf
    if alternative != "greater":
        assert p_at(r.ci_high - eps) > alpha >= p_at(r.ci_high + eps)
    else:
        assert r.ci_high == np.inf
    ci = bootstrap_ci(None, _gs(a), method="bootstrap-t", n_resamples=4000)["m"]
    se_a = a.std(ddof=1) / np.sqrt(a.size)
    assert ci.ci_low < a.mean() < ci.ci_high
    # skewed scores: the interval is not symmetric about the mean
    assert ci.ci_high - a.mean() > (a.mean() - ci.ci_low) + 0.05 * se_a


@pytest.mark.parametrize("test", ["bootstrap", "bootstrap-t"])
def test_bootstrap_tests_need_no_interval(test):
    rng = np.random.default_rng(4)
    ys = {"a": _gs(rng.random(40)), "b": _gs(rng.random(40))}
    kw = dict(test=test, n_resamples=500, random_state=0)
    without = compare(None, ys, confidence_level=None, **kw).pairs[0]
    with_ci = compare(None, ys, **kw).pairs[0]
    assert 0 < without.p_value <= 1
    assert np.isnan(without.ci_low)
    assert without.p_value == with_ci.p_value  # same draws either way


def test_bootstrap_t_rejection_at_ten_groups_is_nominal():
    # The shifted-mean bootstrap test rejects about 9% at 10 groups under a true
    # null; the studentized one holds the level (docs/statistics.md table).
    rng = np.random.default_rng(0)
    reps, n = 400, 10
    rejections = 0
    for _ in range(reps):
        a, b = rng.beta(0.5, 2.0, n), rng.beta(0.5, 2.0, n)
        r = compare(
            None, {"a": _gs(a), "b": _gs(b)}, test="bootstrap-t", n_resamples=199,
            confidence_level=None, random_state=rng,
        )  # fmt: skip
        rejections += r.pairs[0].p_value <= 0.05
    assert rejections / reps <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / reps)


# --- The family of the correction ---------------------------------------------


def test_correction_scope_all_adjusts_over_every_pair_of_every_metric():
    rng = np.random.default_rng(1)
    gs = {
        name: GroupScores(
            np.arange(30),
            {"x": rng.random(30) + shift, "y": rng.random(30)},
            {"x": np.ones(30), "y": np.ones(30)},
        )
        for name, shift in (("a", 0.0), ("b", 0.1), ("c", 0.2))
    }
    r = compare(None, gs, test="t", correction_scope="all", confidence_level=None)
    raw = np.array([p.p_value for p in r.pairs])
    assert raw.size == 6
    np.testing.assert_allclose([p.p_adjusted for p in r.pairs], adjust(raw, "holm"))
    assert (r.correction_scope, r.family_size) == ("all", 6)
    assert "holm over one family of 6 tests: every pair of every metric" in str(r)
    per_metric = compare(None, gs, test="t", confidence_level=None)
    assert per_metric.family_size == 3
    assert "one family per metric of 3 tests" in str(per_metric)
    with pytest.raises(ValueError, match="The 'correction_scope' parameter"):
        compare(None, gs, correction_scope="pairs")


# --- One-sided intervals ------------------------------------------------------


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_one_sided_alternative_gives_a_one_sided_interval(alternative, method):
    rng = np.random.default_rng(6)
    a = rng.random(80)
    b = a - 0.05 + rng.normal(0, 0.1, 80)
    r = compare(
        None, {"a": _gs(a), "b": _gs(b)}, alternative=alternative, ci_method=method,
        n_resamples=8000, random_state=0,
    )  # fmt: skip
    ref = stats.bootstrap(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), paired=True,
        n_resamples=8000, method=method, alternative=alternative, random_state=1,
    )  # fmt: skip
    p, ci, se = r.pairs[0], ref.confidence_interval, ref.standard_error
    if alternative == "greater":
        assert p.ci_high == np.inf
        assert abs(p.ci_low - ci.low) < 0.15 * se
    else:
        assert p.ci_low == -np.inf
        assert abs(p.ci_high - ci.high) < 0.15 * se
    assert "one-sided 95%" in str(r)
    assert r.models[0].ci_high < np.inf  # the means keep two-sided intervals


# --- One rule for zeros, printed p-values, effect size ------------------------


def test_float_noise_differences_are_ties_in_every_test():
    rng = np.random.default_rng(2)
    a = rng.random(30)
    b = a + rng.choice([-1.0, 1.0], 30) * 1e-15  # equal up to float noise
    b[:3] = a[:3] - 0.2
    ys = {"a": _gs(a), "b": _gs(b)}
    for test in ("randomization", "bootstrap", "bootstrap-t", "t", "wilcoxon"):
        with warnings.catch_warnings():  # 3 non-tied groups: cannot reject
            warnings.simplefilter("ignore", RuntimeWarning)
            p = compare(None, ys, test=test, n_resamples=999, random_state=0).pairs[0]
        assert (p.wins, p.ties, p.losses) == (3, 27, 0), test
        d = np.r_[np.full(3, 0.2), np.zeros(27)]
        assert p.mean_diff == pytest.approx(d.mean())
    with pytest.warns(RuntimeWarning, match="3 non-tied groups is 0.25"):
        r = compare(None, ys, exact=False, n_resamples=999, random_state=0).pairs[0]
    # only the 3 real differences count: all of them positive is 1 sign pattern
    # in 2**3, two-sided 2 in 8
    assert abs(r.p_value - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 1000)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_zero_method_is_scipys(zero_method):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 40) / 4
    b = rng.integers(0, 4, 40) / 4  # many zero differences
    r = compare(
        None, {"a": _gs(a), "b": _gs(b)}, test="wilcoxon", zero_method=zero_method,
        confidence_level=None,
    )  # fmt: skip
    ref = stats.wilcoxon(a, b, zero_method=zero_method).pvalue
    assert r.pairs[0].p_value == pytest.approx(ref, rel=1e-12)
    assert f"zero_method={zero_method}" in str(r)
    with pytest.raises(ValueError, match="The 'zero_method' parameter"):
        compare(None, {"a": _gs(a), "b": _gs(b)}, zero_method="drop")


def test_p_values_never_print_as_zero():
    a = np.linspace(0.5, 0.9, 400)
    b = a - 0.3 - 1e-3 * np.cos(np.arange(400))  # t-test p underflows to 0.0
    r = compare(None, {"a": _gs(a), "b": _gs(b)}, test="t", confidence_level=None)
    assert r.pairs[0].p_value == 0.0
    text = str(r)
    assert "< 1e-16" in text and " 0.0000 " not in text
    r = compare(None, {"a": _gs(a), "b": _gs(b)}, n_resamples=9999, random_state=0)
    assert r.pairs[0].p_value == 1 / 10000
    assert "<= 0.0001" in str(r)


def test_effect_size_is_d_z_with_ddof_one():
    rng = np.random.default_rng(8)
    a, b = rng.random(12), rng.random(12)
    p = compare(None, {"a": _gs(a), "b": _gs(b)}, confidence_level=None).pairs[0]
    d = a - b
    assert p.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-8)
    # unequal weights: the reliability-weight variance, ddof=1 for equal weights
    w = rng.integers(1, 4, 12).astype(float)
    p = compare(None, {"a": _gs(a, w), "b": _gs(b, w)}, confidence_level=None).pairs[0]
    m = np.dot(w, d) / w.sum()
    var = np.dot(w, (d - m) ** 2) / (w.sum() - np.dot(w, w) / w.sum())
    assert p.effect_size == pytest.approx(m / np.sqrt(var), rel=1e-8)


def test_calibration_benchmark_prints_the_docs_tables(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "benchmarks" / "bench_stats.py"
    spec = importlib.util.spec_from_file_location("bench_stats", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.calibration(sims=2, resamples=19, sizes=(5, 10))
    out = capsys.readouterr().out
    docs = (path.parents[1] / "docs" / "statistics.md").read_text(encoding="utf-8")
    # every row of the printed tables is a row of the docs' tables (the labels;
    # the numbers are the docs' run, --sims 400)
    labels = [line.split(" | ")[0] for line in out.splitlines() if line[:2] == "| "]
    assert len(labels) > 20
    for label in labels:
        assert f"\n{label} | " in docs, label
    for name in ("randomization", "bootstrap-shift", "wilcoxon", "BCa", "matched"):
        assert f"| {name}:" in out and f"| {name}:" in docs
    assert "disagreements in" in out


def test_a_pair_without_a_defined_group_warns_instead_of_a_silent_nan():
    from sklearn.exceptions import UndefinedMetricWarning

    from sklearn_rank.stats import compare

    y = np.zeros(6)  # no relevant row: MAP is undefined on every group
    groups = np.repeat([1, 2, 3], 2)
    scores = {"a": np.arange(6.0), "b": np.arange(6.0)[::-1]}
    with pytest.warns(UndefinedMetricWarning, match="undefined for 'a' or 'b'"):
        report = compare(y, scores, groups=groups, metrics="map", n_resamples=99)
    row = report.to_frame().query("model == 'a' and baseline == 'b'")
    assert len(row) == 1 and np.isnan(row["mean_diff"].iloc[0])


# --- One story per row: the interval inverts the test --------------------------


def _flip_p(d, w, alternative):
    """Exact sign-flip p by enumeration (brute force, no shared code)."""
    return _brute_force_p(d, w, alternative)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_randomization_interval_is_the_set_of_shifts_not_rejected(alternative):
    rng = np.random.default_rng(12)
    a, b = rng.random(9), rng.random(9)
    w = rng.integers(1, 3, 9).astype(float)
    level = 0.9
    r = compare(
        None, {"a": _gs(a, w), "b": _gs(b, w)}, alternative=alternative,
        confidence_level=level, exact=True,
    ).pairs[0]  # fmt: skip
    d = np.round(a - b, 10)
    eps = 1e-7
    alpha = 1 - level
    if alternative != "less":
        assert _flip_p(d - (r.ci_low + eps), w, alternative) > alpha
        assert _flip_p(d - (r.ci_low - eps), w, alternative) <= alpha
    if alternative != "greater":
        assert _flip_p(d - (r.ci_high - eps), w, alternative) > alpha
        assert _flip_p(d - (r.ci_high + eps), w, alternative) <= alpha


def test_t_and_wilcoxon_intervals_invert_scipys_tests():
    rng = np.random.default_rng(13)
    a, b = rng.random(25), rng.random(25) - 0.1
    d = np.round(a - b, 10)
    ys = {"a": _gs(a), "b": _gs(b)}
    r = compare(None, ys, test="t").pairs[0]
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    r = compare(None, ys, test="wilcoxon").pairs[0]
    eps = 1e-6
    for end, inside in ((r.ci_low, 1), (r.ci_high, -1)):
        assert stats.wilcoxon(d - (end + inside * eps)).pvalue > 0.05
        assert stats.wilcoxon(d - (end - inside * eps)).pvalue <= 0.05


@pytest.mark.parametrize(
    "test", ["randomization", "bootstrap", "bootstrap-shift", "t", "wilcoxon"]
)
def test_default_interval_and_p_value_agree_in_every_row(test):
    # Tied, discrete and continuous scores, 5 to 40 groups, both sides: the
    # interval excludes 0 exactly when p <= alpha.
    rng = np.random.default_rng(14)
    rows, n_rows = 0, 12 if test == "wilcoxon" else 40  # scipy's wilcoxon is slow
    for i in range(n_rows):
        n = int(rng.integers(5, 40))
        kind = i % 3
        if kind == 0:  # P@10-like
            a, b = rng.binomial(10, 0.3, n) / 10, rng.binomial(10, 0.3, n) / 10
        elif kind == 1:  # RR-like
            a = 1 / rng.integers(1, 6, n) * rng.integers(0, 2, n)
            b = 1 / rng.integers(1, 6, n) * rng.integers(0, 2, n)
        else:
            a, b = rng.random(n), rng.random(n) - 0.1
        alt = ("two-sided", "greater", "less")[i % 3]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            r = compare(
                None, {"a": _gs(a), "b": _gs(b)}, test=test, alternative=alt,
                n_resamples=199, random_state=i,
            )  # fmt: skip
        p = r.pairs[0]
        assert r.ci_matches_test and r.disagreements() == 0
        assert (p.p_value <= 0.05) == (p.ci_low > 0 or p.ci_high < 0), (i, p)
        rows += 1
    assert rows == n_rows


def test_a_mismatched_interval_says_so():
    rng = np.random.default_rng(15)
    a, b = rng.random(60), rng.random(60)
    r = compare(None, {"a": _gs(a), "b": _gs(b)}, ci_method="BCa", random_state=0)
    assert not r.ci_matches_test
    assert "the BCa interval does not invert the randomization test" in str(r)
    assert f"disagree in {r.disagreements()} of 1 rows" in str(r)
    with pytest.warns(RuntimeWarning, match="percentile intervals on 20 groups"):
        compare(None, {"a": _gs(a[:20]), "b": _gs(b[:20])}, ci_method="percentile")


# --- One rounding rule, constant shifts, unattainable p-values -----------------


def test_equal_differences_of_a_discrete_metric_are_equal():
    # 0.3 - 0.2 and 0.4 - 0.3 are different floats; on the metric's grid they
    # are the same difference, and the Wilcoxon test ranks them as tied.
    rng = np.random.default_rng(16)
    ka, kb = rng.integers(0, 11, 40), rng.integers(0, 11, 40)
    a, b = ka / 10, kb / 10
    assert len(set((a - b).tolist())) > len(set((ka - kb).tolist()))  # raw floats
    exact = (ka - kb) / 10  # the differences on the grid, one float per value
    for zm in ("wilcox", "pratt", "zsplit"):
        r = compare(
            None, {"a": _gs(a), "b": _gs(b)}, test="wilcoxon", zero_method=zm,
            confidence_level=None,
        ).pairs[0]  # fmt: skip
        assert r.p_value == stats.wilcoxon(exact, zero_method=zm).pvalue
    r = compare(None, {"a": _gs(a), "b": _gs(b)}, confidence_level=None).pairs[0]
    assert (r.wins, r.ties, r.losses) == (
        int((ka > kb).sum()),
        int((ka == kb).sum()),
        int((ka < kb).sum()),
    )


def test_a_constant_shift_gives_defined_answers():
    rng = np.random.default_rng(17)
    b = rng.integers(0, 10, 12) / 10
    a = b + 0.1  # "+0.1 on every query"
    ys = {"a": _gs(a), "b": _gs(b)}
    with pytest.warns(RuntimeWarning, match=r"every paired difference .* \+0\.1"):
        t = compare(None, ys, test="t").pairs[0]
    assert t.mean_diff == pytest.approx(0.1, abs=1e-12)
    assert np.isnan(t.effect_size)  # not 5.7e15
    assert t.p_value == 0.0 and t.ci_low == t.ci_high == t.mean_diff
    with pytest.warns(RuntimeWarning, match="constant shift"):
        r = compare(None, ys, exact=True).pairs[0]
    assert r.p_value == 2 / 2**12  # all + or all -: 2 of 4096 sign flips
    assert r.ci_low > 0
    for method in ("BCa", "percentile", "bootstrap-t"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p = compare(None, ys, ci_method=method, random_state=0).pairs[0]
        # the constant shift and (BCa, percentile) the small-n warning; no
        # numpy "invalid value" warning leaks
        assert not any("invalid value" in str(w.message) for w in caught)
        assert p.ci_low == pytest.approx(0.1) and p.ci_high == pytest.approx(0.1)


@pytest.mark.parametrize("test", ["randomization", "wilcoxon"])
def test_output_says_when_the_test_cannot_reject(test):
    a = np.array([0.9, 0.8, 0.7, 0.9, 0.6])
    b = np.array([0.5, 0.6, 0.6, 0.4, 0.5])
    with pytest.warns(RuntimeWarning, match="5 non-tied groups is 0.0625 > alpha"):
        r = compare(None, {"a": _gs(a), "b": _gs(b)}, test=test)
    p = r.pairs[0]
    assert p.min_p == 2 / 32 and p.p_value == 2 / 32 and p.n_needed == 6
    assert "it needs at least 6 non-tied groups" in str(r)
    six = compare(None, {"a": _gs(np.r_[a, 0.9]), "b": _gs(np.r_[b, 0.1])}, test=test)
    assert six.pairs[0].p_value == 2 / 64 <= 0.05


def test_many_groups_smallest_p_does_not_overflow():
    # 2.0 ** 1100 overflows a float; the smallest attainable p is then the
    # Monte Carlo floor
    rng = np.random.default_rng(18)
    a, b = rng.random(1100), rng.random(1100)
    p = compare(None, {"a": _gs(a), "b": _gs(b)}, n_resamples=99, random_state=0).pairs[
        0
    ]
    assert p.min_p == 1 / 100 and p.p_method == "monte carlo"
    assert (p.p_value <= 0.05) == (p.ci_low > 0 or p.ci_high < 0)


def test_the_bootstrap_test_says_it_is_conservative_on_few_groups():
    rng = np.random.default_rng(19)
    ys = {"a": _gs(rng.random(12)), "b": _gs(rng.random(12))}
    r = compare(None, ys, test="bootstrap", n_resamples=199, random_state=0)
    assert "studentized bootstrap test is conservative" in str(r)
    r = compare(None, ys, n_resamples=199, random_state=0)
    assert "conservative" not in str(r)
