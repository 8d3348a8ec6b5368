"""sklearn_rank.online: the rules a researcher must be able to trust.

Refusals, tie rules, named estimands, clipped propensities, EM identifiability,
the direct and doubly robust estimators, and intervals that carry the
propensities' own uncertainty. The simulations use a click simulator written
here (not ``simulate_clicks``), with truths computed analytically.
"""

import math
import warnings

import numpy as np
import pytest

from sklearn_rank.online import (
    ctr_by_position,
    ips_estimate,
    online_metrics_per_group,
    propensity_from_swaps,
    propensity_regression_em,
)

RHO = np.array([1.0, 0.6, 0.45, 0.35, 0.3])


def pbm_clicks(rng, position, alpha, rho=RHO):
    """Position-based model: examined with rho(p), then clicked with alpha."""
    exam = np.where(position > 0, rho[np.maximum(position, 1) - 1], 0.0)
    return (
        (rng.random(position.size) < exam) & (rng.random(position.size) < alpha)
    ).astype(int)


# -- no silent rule ---------------------------------------------------------------
def test_unshown_rows_never_win_ties_in_new_score():
    kw = {"groups": [0] * 5, "new_score": [0.0] * 5, "metric": "clicks@3"}
    got = ips_estimate(
        [1, 1, 1, 0, 0], position=[1, 2, 3, 0, 0], propensity=[1, 0.5, 0.25], **kw
    )
    assert got.value == 7.0  # the shown rows keep their order: 1 + 2 + 4
    # unshown rows first in the input change nothing
    got = ips_estimate(
        [0, 0, 1, 1, 1], position=[0, 0, 1, 2, 3], propensity=[1, 0.5, 0.25], **kw
    )
    assert got.value == 7.0


@pytest.mark.parametrize(
    ("func", "kwargs"),
    [
        (ctr_by_position, {"position": [0, 1, 2, 0, 1, 2]}),
        (
            propensity_from_swaps,
            {"position": [0, 1, 2, 0, 1, 2], "logged_position": [1] * 6},
        ),
        (
            propensity_from_swaps,
            {"position": [1, 1, 2, 1, 1, 2], "logged_position": [0, 1, 1, 1, 1, 1]},
        ),
        (propensity_regression_em, {"position": [0, 1, 2, 0, 1, 2], "item": [0] * 6}),
    ],
)
def test_functions_without_unshown_rows_refuse_position_0(func, kwargs):
    with pytest.raises(ValueError, match=r"got 0 at row 0\. .*add 1 to 0-based"):
        func([1, 0, 0, 1, 1, 0], **kwargs)


@pytest.mark.parametrize(
    "func",
    [
        lambda c: ctr_by_position(c, position=[1, 2, 3]),
        lambda c: propensity_from_swaps(c, position=[1, 2, 3], logged_position=[1] * 3),
        lambda c: propensity_regression_em(c, position=[1, 2, 3], item=[0, 1, 2]),
    ],
)
def test_every_function_refuses_non_binary_clicks(func):
    with pytest.raises(ValueError, match=r"must be 0 or 1 .*got 0.5 at row 1"):
        func([1, 0.5, 0])
    with pytest.raises(ValueError, match="got 3 at row 2"):
        func([1, 0, 3])


def test_zero_based_positions_with_unshown_meaning_warn():
    with pytest.warns(UserWarning, match="looks 0-based"):
        ips_estimate(
            [0, 1, 0, 0, 1, 0],
            groups=[0, 0, 0, 1, 1, 1],
            position=[0, 1, 2, 0, 1, 2],
            new_score=[1.0, 2, 3, 1, 2, 3],
            propensity=[1.0, 0.5],
        )


def swap_rows(rng, n_lists, rho, alpha_top=0.5):
    """The top results of a swap experiment: shown at k uniform in 1..len(rho)."""
    k = rng.integers(1, rho.size + 1, n_lists)
    clicks = pbm_clicks(rng, k, rng.random(n_lists) < 2 * alpha_top * 0.5 + 0, rho)
    return clicks, k


def test_swap_estimates_are_clipped_flagged_and_accepted_downstream():
    # Flat examination, few lists: ratios above 1 and a position without a click.
    clicks = np.r_[[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]]
    position = np.repeat([1, 2, 3], 4)
    with pytest.warns(
        UserWarning, match=r"clipped 2 .*position 2: 1\.5.*position 3: 0"
    ):
        est = propensity_from_swaps(
            clicks, position=position, logged_position=np.ones(12)
        )
    np.testing.assert_allclose(est.raw, [1.0, 1.5, 0.0])
    # half a click at position 3: (0.5 / 4) / (2 / 4)
    np.testing.assert_allclose(est.propensity, [1.0, 1.0, 0.25])
    np.testing.assert_array_equal(est.clipped, [False, True, True])
    got = ips_estimate(
        [1, 1, 1], groups=[0] * 3, position=[1, 2, 3], new_score=[3.0, 2, 1],
        propensity=est, metric="clicks@3",
    )  # fmt: skip
    assert got.value == 1 + 1 + 4


def test_em_warns_and_gives_nan_where_it_cannot_know():
    rng = np.random.default_rng(0)
    n = 3000
    position = np.tile([1, 2, 3], n)  # one fixed ranking: item i always at one place
    item = np.arange(3 * n) % 30
    clicks = pbm_clicks(rng, position, 0.5)
    with pytest.warns(UserWarning, match=r"cannot identify .*position\(s\) 2, 3"):
        got = propensity_regression_em(clicks, position=position, item=item)
    assert got.propensity[0] == 1.0 and np.isnan(got.propensity[1:]).all()
    np.testing.assert_array_equal(got.identified, [True, False, False])
    # a swap linking position 3 to position 1 identifies 3 but not 2
    position[0], item[0] = 3, 0  # item 0, else always at 1, once at 3
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = propensity_regression_em(clicks, position=position, item=item)
    text = [str(w.message) for w in rec if "cannot identify" in str(w.message)]
    assert len(text) == 1 and "position(s) 2:" in text[0]
    np.testing.assert_array_equal(got.identified, [True, False, True])
    with pytest.warns(UserWarning, match="median of 3 impressions"):
        propensity_regression_em(
            [1, 0, 1, 0, 0, 1], position=[1, 2, 1, 2, 1, 2], item=[0, 0, 1, 1, 0, 1]
        )


def test_em_bootstrap_standard_error_matches_the_spread_over_logs():
    # Items shown at random positions: identified. The mean bootstrap SE over a
    # few logs should match the standard deviation of the estimate over many
    # independent logs (on a 4000-row version: 0.0279 / 0.0242 against
    # 0.0269 / 0.0256 over 200 logs).
    rho = RHO[:3]
    alpha = np.linspace(0.1, 0.9, 20)

    def fit(seed, **kw):
        rng = np.random.default_rng(seed)
        item = rng.integers(0, 20, 2000)
        position = rng.integers(1, 4, 2000)
        clicks = pbm_clicks(rng, position, alpha[item], rho)
        return propensity_regression_em(
            clicks, position=position, item=item, tol=1e-5, **kw
        )

    spread = np.std([fit(s).propensity for s in range(60)], axis=0, ddof=1)
    boot = [fit(s, n_bootstrap=25, random_state=s).standard_error for s in range(4)]
    assert all(b[0] == 0 for b in boot)
    np.testing.assert_allclose(np.mean(boot, axis=0)[1:], spread[1:], rtol=0.3)


# -- named estimands ----------------------------------------------------------------
def test_snips_names_its_estimand_in_the_result_and_repr():
    kw = {"groups": [0] * 3, "position": [1, 2, 3], "new_score": [1.0, 2, 3]}
    ips = ips_estimate([0, 1, 1], **kw, propensity=[1, 0.5, 0.25], metric="clicks@1")
    sn = ips_estimate(
        [0, 1, 1], **kw, propensity=[1, 0.5, 0.25], metric="clicks@1", estimator="snips"
    )
    assert "per unit of attraction" in sn.estimand and "per unit" in repr(sn)
    assert "per unit" not in ips.estimand and "full examination" in repr(ips)


# -- direct and doubly robust ----------------------------------------------------------
def test_direct_and_doubly_robust_match_a_loop():
    rng = np.random.default_rng(3)
    n = 200
    groups = rng.integers(0, 30, n)
    position = np.zeros(n, dtype=int)
    for g in range(30):
        rows = np.flatnonzero(groups == g)
        position[rows] = rng.permutation(rows.size) + 1
    position[rng.random(n) < 0.2] = 0
    rho = np.linspace(1, 0.3, position.max())
    clicks = pbm_clicks(rng, position, rng.random(n), np.r_[rho, 1])
    pred, score = rng.random(n), rng.normal(size=n)
    kw = dict(groups=groups, position=position, new_score=score, propensity=rho)
    kw.update(metric="dcg@4", predicted_attraction=pred)
    dm = ips_estimate(clicks, estimator="direct", **kw)
    dr = ips_estimate(clicks, estimator="doubly_robust", **kw)
    for j, g in enumerate(range(30)):
        rows = np.flatnonzero(groups == g)
        order = sorted(rows, key=lambda i: (-score[i], position[i] or math.inf, i))
        rank = {i: r for r, i in enumerate(order, start=1)}
        lam = {i: (1 / math.log2(rank[i] + 1) if rank[i] <= 4 else 0.0) for i in rows}
        want_dm = sum(lam[i] * pred[i] for i in rows)
        want_dr = 0.0
        for i in rows:
            if position[i] == 0:
                want_dr += lam[i] * pred[i]
            else:
                r = rho[position[i] - 1]
                want_dr += lam[i] * (pred[i] + (clicks[i] - r * pred[i]) / r)
        assert dm.per_group[j] == pytest.approx(want_dm, rel=1e-12)
        assert dr.per_group[j] == pytest.approx(want_dr, rel=1e-12)


def test_doubly_robust_covers_unshown_rows_that_ips_misses():
    # Each group: 4 shown items and 2 never shown that the new ranker puts on top.
    # Truth of clicks@3: mean over groups of the attraction of the new top 3.
    rng = np.random.default_rng(4)
    alpha = np.array([0.2, 0.3, 0.5, 0.6, 0.7, 0.4])  # rows 4, 5 never shown
    shown_at = np.array([1, 2, 3, 4, 0, 0])
    new = np.array([1.0, 2, 3, 0, 5, 4])  # new top 3: rows 4, 5, 2
    truth = alpha[[4, 5, 2]].sum()
    n_groups, reps = 400, 60
    est = {"ips": [], "dr_right": [], "dr_wrong": [], "dm_wrong": []}
    for _ in range(reps):
        groups = np.repeat(np.arange(n_groups), 6)
        position = np.tile(shown_at, n_groups)
        a = np.tile(alpha, n_groups)
        clicks = pbm_clicks(rng, position, a, RHO)
        kw = dict(groups=groups, position=position, new_score=np.tile(new, n_groups))
        kw.update(propensity=RHO[:4], metric="clicks@3")
        est["ips"].append(ips_estimate(clicks, **kw).value)
        est["dr_right"].append(
            ips_estimate(
                clicks, estimator="doubly_robust", predicted_attraction=a, **kw
            ).value
        )
        wrong = np.full(a.size, 0.5)  # right on row 2, wrong on the unshown rows
        est["dr_wrong"].append(
            ips_estimate(
                clicks, estimator="doubly_robust", predicted_attraction=wrong, **kw
            ).value
        )
        est["dm_wrong"].append(
            ips_estimate(
                clicks, estimator="direct", predicted_attraction=wrong, **kw
            ).value
        )
    z = {
        k: (np.mean(v) - truth) / (np.std(v, ddof=1) / math.sqrt(reps))
        for k, v in est.items()
        if k != "dm_wrong"
    }
    assert abs(z["dr_right"]) < 3.5, z
    assert z["ips"] < -20  # counts the unshown top rows as unclicked
    assert abs(np.mean(est["ips"]) - (truth - alpha[4] - alpha[5])) < 0.02
    assert abs(np.mean(est["dm_wrong"]) - 1.5) < 1e-12


# -- intervals with the propensities' uncertainty ---------------------------------
TYPES_ALPHA = np.array(
    [[0.6, 0.5, 0.3, 0.2, 0.1], [0.3, 0.6, 0.2, 0.5, 0.1], [0.2, 0.2, 0.7, 0.1, 0.4]]
)
TYPES_NEW = np.array([[5.0, 4, 3, 2, 1], [1.0, 2, 3, 4, 5], [2.0, 5, 1, 4, 3]])


def coverage_trial(rng, n_lists, n_groups, n_resamples, swaps=True):
    """One swap experiment + one evaluation log; whether each interval covers."""
    k = rng.integers(1, 6, n_lists)
    c_swap = pbm_clicks(rng, k, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = propensity_from_swaps(
            c_swap, position=k, logged_position=np.ones(n_lists)
        )
    t = rng.integers(0, 3, n_groups)
    position = np.tile(np.arange(1, 6), n_groups)
    alpha, new = TYPES_ALPHA[t].ravel(), TYPES_NEW[t].ravel()
    clicks = pbm_clicks(rng, position, alpha)
    out = {}
    kw = dict(groups=np.repeat(np.arange(n_groups), 5), position=position)
    kw.update(new_score=new, metric="clicks@2", confidence_level=0.95)
    kw.update(n_resamples=n_resamples, method="percentile", random_state=rng)
    for name, prop in (("joint", est), ("conditional", est.propensity)):
        r = ips_estimate(clicks, propensity=prop, **kw)
        out[name] = r
    return out


def clicks2_truth():
    # the new ranking's top 2 per type, attraction summed, mean over the 3 types
    top2 = [np.argsort(-TYPES_NEW[j], kind="stable")[:2] for j in range(3)]
    return np.mean([TYPES_ALPHA[j][top2[j]].sum() for j in range(3)])


def test_interval_with_swap_propensities_covers_at_its_level():
    rng = np.random.default_rng(2026)
    truth = clicks2_truth()
    reps, hits, hits_cond, width = 200, 0, 0, []
    for _ in range(reps):
        r = coverage_trial(rng, n_lists=4000, n_groups=300, n_resamples=200)
        joint, cond = r["joint"], r["conditional"]
        assert joint.propensity_uncertainty and not cond.propensity_uncertainty
        hits += joint.ci[0] <= truth <= joint.ci[1]
        hits_cond += cond.ci[0] <= truth <= cond.ci[1]
        width.append((joint.ci[1] - joint.ci[0]) / (cond.ci[1] - cond.ci[0]))
    se = math.sqrt(0.95 * 0.05 / reps)
    print(f"coverage {hits / reps:.3f}, conditional {hits_cond / reps:.3f}")
    assert abs(hits / reps - 0.95) <= 2 * se, (hits / reps, hits_cond / reps)
    assert hits_cond < hits and np.mean(width) > 1.05


@pytest.mark.parametrize("deep", [False, True])  # counting path, sorting path
def test_duplicate_positions_are_found_on_both_paths(deep):
    rng = np.random.default_rng(8)
    for _ in range(30):
        groups = rng.integers(0, 12, 20)
        position = rng.integers(0, 5, 20) * (1000 if deep else 1)
        shown = position > 0
        pairs = list(zip(groups[shown].tolist(), position[shown].tolist(), strict=True))
        has_dup = len(pairs) != len(set(pairs))
        kw = {"groups": groups, "position": position, "metrics": "ctr"}
        if has_dup:
            with pytest.raises(ValueError, match="repeats position"):
                online_metrics_per_group(np.zeros(20), **kw)
        else:
            online_metrics_per_group(np.zeros(20), **kw)


@pytest.mark.filterwarnings("ignore:propensity_regression_em did not converge")
def test_regression_em_bootstrap_resamples_groups():
    rng = np.random.default_rng(9)
    n = 2000
    item = rng.integers(0, 4, n)
    position = rng.integers(1, 4, n)
    clicks = pbm_clicks(rng, position, np.array([0.1, 0.3, 0.6, 0.8])[item], RHO[:3])
    kw = dict(position=position, features=np.eye(4)[item], tol=1e-3, max_iter=10)
    got = propensity_regression_em(
        clicks, **kw, groups=np.arange(n) // 3, n_bootstrap=4, random_state=0
    )
    assert got.standard_error[0] == 0
    assert np.all((got.standard_error[1:] > 0.005) & (got.standard_error[1:] < 0.1))
    assert got.identified is None  # no check on features
    np.testing.assert_allclose(got.propensity, RHO[:3], atol=0.1)
