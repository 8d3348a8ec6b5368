#!/usr/bin/env python
"""Simulation tables of docs/online.md: bias, coverage, rejection rate and power of
``sklearn_rank.online``'s estimators and tests, against analytic truths.

Clicks come from a position-based simulator written here (not
``simulate_clicks``): a row at position p is examined with probability rho(p) and
clicked with its attraction alpha, independently. Truths are computed from the
known alphas and the known rankings, never estimated. Tables:

A. ``ips_estimate``: IPS, clipped IPS, SNIPS, direct, doubly robust (bias in
   units of the standard error of the mean over replications, SD), with right
   and wrong propensities and predictions, on logs where the new ranker promotes
   rows that were never shown.
B. Interval coverage with propensities from a swap experiment: conditional
   (array) against joint (the ``PropensityEstimate`` passed).
C. SNIPS interval coverage at small samples (known propensities).
D. ``propensity_regression_em``: error of the propensities by impressions per
   item, and the one-fixed-ranking case.
E. ``ab_test``: rejection rate under a true null with skewed group sizes (CTR,
   CUPED, the naive binomial test over rows), power, CUPED's variance reduction.
F. ``offline_online_agreement``: coverage of the correlation intervals.

``python benchmarks/online_simulation.py --scale 1`` regenerates the tables of
docs/online.md (a few minutes on one core); ``--scale 0.05`` is a smoke run.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sklearn_rank.online import (
    ab_test,
    ips_estimate,
    offline_online_agreement,
    propensity_from_swaps,
    propensity_regression_em,
)

RHO = np.array([1.0, 0.6, 0.45, 0.35, 0.3])


def pbm(rng, position, alpha, rho=RHO):
    """0/1 clicks of the position-based model; position 0 is never clicked."""
    exam = np.where(position > 0, rho[np.maximum(position, 1) - 1], 0.0)
    hit = (rng.random(position.size) < exam) & (rng.random(position.size) < alpha)
    return hit.astype(np.int64)


def z_bias(values, truth):
    v = np.asarray(values)
    sd = v.std(ddof=1)
    if sd <= 1e-12 * max(1.0, abs(v.mean())):
        return float("nan")  # a deterministic estimate: the bias column says it
    return (v.mean() - truth) / (sd / math.sqrt(v.size))


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    print()


# -- A. estimators ----------------------------------------------------------------
# Three group types of 6 items: 4 shown at 1..4, 2 never shown (position 0).
A_ALPHA = np.array(
    [
        [0.6, 0.4, 0.3, 0.2, 0.5, 0.1],
        [0.2, 0.5, 0.1, 0.4, 0.3, 0.6],
        [0.3, 0.3, 0.6, 0.1, 0.2, 0.4],
    ]
)
A_SHOWN = np.array([1, 2, 3, 4, 0, 0])
A_NEW = np.array(
    [[2.0, 6, 1, 3, 5, 4], [1.0, 5, 2, 6, 3, 4], [6.0, 1, 5, 2, 4, 3]]
)  # new scores: the top 3 mixes shown and unshown rows


def a_truths(k=3):
    top = [np.argsort(-A_NEW[t], kind="stable")[:k] for t in range(3)]
    total = np.mean([A_ALPHA[t][top[t]].sum() for t in range(3)])
    shown = A_SHOWN > 0
    num = sum(A_ALPHA[t][[i for i in top[t] if shown[i]]].sum() for t in range(3))
    den = sum(A_ALPHA[t][shown].sum() for t in range(3))
    return total, num / den


def section_a(rng, reps, n_groups):
    truth, truth_snips = a_truths()
    rho_wrong = RHO[:4] ** 0.5  # a flatter curve than the truth
    cases = {
        "rho right, predictions right": (RHO[:4], "right"),
        "rho right, predictions wrong": (RHO[:4], "wrong"),
        "rho wrong, predictions right": (rho_wrong, "right"),
    }
    out = {}
    for case, (rho, pred_kind) in cases.items():
        est = {
            e: [] for e in ("ips", "clipped_ips", "snips", "direct", "doubly_robust")
        }
        for _ in range(reps):
            t = rng.integers(0, 3, n_groups)
            alpha = A_ALPHA[t].ravel()
            position = np.tile(A_SHOWN, n_groups)
            clicks = pbm(rng, position, alpha)
            pred = alpha if pred_kind == "right" else np.full(alpha.size, 0.2)
            kw = dict(
                groups=np.repeat(np.arange(n_groups), 6),
                position=position,
                new_score=A_NEW[t].ravel(),
                propensity=rho,
                metric="clicks@3",
            )
            est["ips"].append(ips_estimate(clicks, **kw).value)
            est["clipped_ips"].append(
                ips_estimate(clicks, estimator="clipped_ips", clip=0.5, **kw).value
            )
            est["snips"].append(ips_estimate(clicks, estimator="snips", **kw).value)
            for e in ("direct", "doubly_robust"):
                r = ips_estimate(clicks, estimator=e, predicted_attraction=pred, **kw)
                est[e].append(r.value)
        out[case] = est
    print(
        f"### A. Estimators of clicks@3 ({n_groups} groups of 6 rows, 2 never "
        f"shown; {reps} replications)\n"
    )
    print(
        f"Truth V = {truth:.4f} (SNIPS estimand, shown rows per unit of "
        f"attraction: {truth_snips:.4f}). Bias in SE units of the mean over "
        "replications (|z| > 3: biased), and the SD of one estimate.\n"
    )
    rows = []
    for case, est in out.items():
        for e, v in est.items():
            t = truth_snips if e == "snips" else truth
            rows.append([case, e, f"{np.mean(v) - t:+.4f}", f"{z_bias(v, t):+.1f}",
                         f"{np.std(v, ddof=1):.4f}"])  # fmt: skip
    table(["case", "estimator", "bias", "bias / SE", "SD"], rows)


# -- B. coverage with swap propensities -------------------------------------------
B_ALPHA = np.array(
    [[0.6, 0.5, 0.3, 0.2, 0.1], [0.3, 0.6, 0.2, 0.5, 0.1], [0.2, 0.2, 0.7, 0.1, 0.4]]
)
B_NEW = np.array([[5.0, 4, 3, 2, 1], [1.0, 2, 3, 4, 5], [2.0, 5, 1, 4, 3]])


def section_b(rng, reps, n_groups, n_resamples):
    top2 = [np.argsort(-B_NEW[j], kind="stable")[:2] for j in range(3)]
    truth = np.mean([B_ALPHA[j][top2[j]].sum() for j in range(3)])
    rows = []
    for n_lists in (1000, 4000, 16000):
        res = {"joint": [], "conditional": []}
        values = []
        for _ in range(reps):
            k = rng.integers(1, 6, n_lists)
            c_swap = pbm(rng, k, 0.5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = propensity_from_swaps(
                    c_swap, position=k, logged_position=np.ones(n_lists)
                )
            t = rng.integers(0, 3, n_groups)
            position = np.tile(np.arange(1, 6), n_groups)
            clicks = pbm(rng, position, B_ALPHA[t].ravel())
            kw = dict(
                groups=np.repeat(np.arange(n_groups), 5),
                position=position,
                new_score=B_NEW[t].ravel(),
                metric="clicks@2",
                confidence_level=0.95,
                n_resamples=n_resamples,
                method="percentile",
                random_state=rng,
            )
            for name, prop in (("joint", est), ("conditional", est.propensity)):
                r = ips_estimate(clicks, propensity=prop, **kw)
                res[name].append((r.ci[0] <= truth <= r.ci[1], r.standard_error))
            values.append(r.value)
        sd = np.std(values, ddof=1)
        for name, v in res.items():
            cover = np.mean([x[0] for x in v])
            se = math.sqrt(cover * (1 - cover) / reps)
            rows.append([n_lists, name, f"{cover:.3f} ± {se:.3f}",
                         f"{np.mean([x[1] for x in v]):.4f}", f"{sd:.4f}",
                         f"{z_bias(values, truth):+.1f}"])  # fmt: skip
    print(
        f"### B. 95% intervals of IPS clicks@2 with propensities from a swap "
        f"experiment ({n_groups} groups; {reps} replications, {n_resamples} "
        "resamples)\n"
    )
    table(
        ["swap lists", "interval", "coverage", "mean SE", "true SD", "bias / SE"], rows
    )


# -- C. SNIPS coverage at small samples -------------------------------------------
def section_c(rng, reps, n_resamples):
    top2 = [np.argsort(-B_NEW[j], kind="stable")[:2] for j in range(3)]
    num = sum(B_ALPHA[j][top2[j]].sum() for j in range(3))
    truth = num / B_ALPHA.sum()
    rows = []
    for n_groups in (200, 1000):
        hits = {"BCa": 0, "percentile": 0}
        for _ in range(reps):
            t = rng.integers(0, 3, n_groups)
            position = np.tile(np.arange(1, 6), n_groups)
            clicks = pbm(rng, position, B_ALPHA[t].ravel())
            for method in hits:
                r = ips_estimate(
                    clicks, groups=np.repeat(np.arange(n_groups), 5),
                    position=position, new_score=B_NEW[t].ravel(), propensity=RHO,
                    metric="clicks@2", estimator="snips", confidence_level=0.95,
                    n_resamples=n_resamples, method=method, random_state=rng,
                )  # fmt: skip
                hits[method] += r.ci[0] <= truth <= r.ci[1]
        for method, h in hits.items():
            cover = h / reps
            se = math.sqrt(cover * (1 - cover) / reps)
            rows.append([n_groups, method, f"{cover:.3f} ± {se:.3f}"])
    print(
        f"### C. SNIPS 95% intervals at small samples (known propensities; {reps} "
        "replications)\n"
    )
    table(["groups", "method", "coverage"], rows)


# -- D. EM ------------------------------------------------------------------------
def section_d(rng, reps):
    rows = []
    n_items = 200
    alpha = rng.uniform(0.05, 0.8, n_items)
    for per_item in (3, 10, 30, 100):
        ratio_err = []
        for _ in range(reps):
            item = np.repeat(np.arange(n_items), per_item)
            position = rng.integers(1, 6, item.size)
            clicks = pbm(rng, position, alpha[item])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = propensity_regression_em(
                    clicks, position=position, item=item, tol=1e-6
                )
            ratio_err.append(r.propensity / RHO)
        ratio_err = np.array(ratio_err)
        rows.append(
            [per_item, n_items * per_item]
            + [f"{m:.2f}" for m in ratio_err.mean(axis=0)[1:]]
        )
    print(
        f"### D. EM propensities, items shown at random positions ({n_items} items; "
        f"mean of estimate / truth over {reps} logs; 1.00 = unbiased)\n"
    )
    table(
        ["impressions per item", "rows", "rho(2)", "rho(3)", "rho(4)", "rho(5)"], rows
    )
    item = np.tile(np.arange(5), 2000) + 5 * (np.arange(10000) // 5 % 40)
    position = np.tile(np.arange(1, 6), 2000)
    clicks = pbm(rng, position, alpha[item % n_items])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = propensity_regression_em(clicks, position=position, item=item)
    said = [str(w.message)[:60] for w in rec if "identify" in str(w.message)]
    print(
        f"One fixed ranking (each item always at one position): propensity "
        f"{np.round(r.propensity, 3).tolist()}, warning: {said[0] if said else None}"
        "...\n"
    )


# -- E. A/B tests -----------------------------------------------------------------
def ab_arm(rng, n_groups, lift=0.0, ctr=0.1, spread=18.0):
    size = 1 + rng.geometric(0.25, n_groups) + (rng.random(n_groups) < 0.05) * 30
    a = ctr * (spread + 2)
    base = rng.beta(a, spread + 2 - a, n_groups)
    rate = np.minimum(base + lift, 1.0)
    groups = np.repeat(np.arange(n_groups), size)
    clicks = (rng.random(groups.size) < rate[groups]).astype(np.int64)
    pre = rng.binomial(20, base) / 20
    return clicks, groups, pre[groups]


def section_e(rng, reps):
    from scipy import stats

    rows = []
    for n_groups in (100, 300, 1000):
        for lift in (0.0, 0.02):
            rej = {"ctr": 0, "ctr + CUPED": 0, "naive binomial": 0}
            red = []
            for _ in range(reps):
                ca, ga, xa = ab_arm(rng, n_groups)
                cb, gb, xb = ab_arm(rng, n_groups, lift)
                rej["ctr"] += ab_test(ca, cb, groups_a=ga, groups_b=gb).p_value < 0.05
                cup = ab_test(
                    ca, cb, groups_a=ga, groups_b=gb, covariate_a=xa, covariate_b=xb
                )
                rej["ctr + CUPED"] += cup.p_value < 0.05
                red.append(cup.variance_reduction)
                pa, pb = ca.mean(), cb.mean()
                se = math.sqrt(pa * (1 - pa) / ca.size + pb * (1 - pb) / cb.size)
                rej["naive binomial"] += 2 * stats.norm.sf(abs(pb - pa) / se) < 0.05
            for name, r in rej.items():
                p = r / reps
                cut = f"{np.mean(red):.0%}" if "CUPED" in name else ""
                se = math.sqrt(p * (1 - p) / reps)
                rows.append(
                    [n_groups, f"{lift:+.2f}", name, f"{p:.3f} ± {se:.3f}", cut]
                )
    print(
        f"### E. ab_test, CTR 0.1, group sizes 1 + Geometric(0.25) (5% of groups "
        f"+30 rows), clicks correlated within groups; {reps} replications\n"
    )
    print(
        "Lift +0.00: the rejection rate at alpha = 0.05 (should be 0.05); +0.02: "
        "the power.\n"
    )
    table(["groups per arm", "lift", "test", "rejection rate", "variance cut"], rows)


# -- F. agreement -----------------------------------------------------------------
def section_f(rng, reps):
    rows = []
    for rho in (0.5, 0.9, 0.97):
        truth = [rho, 6 / math.pi * math.asin(rho / 2), 2 / math.pi * math.asin(rho)]
        for n in (5, 8, 15, 40):
            hits, perfect = np.zeros(3), 0
            for _ in range(reps):
                xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], n)
                a = offline_online_agreement(xy[:, 0], xy[:, 1])
                cis = (a.pearson_ci, a.spearman_ci, a.kendall_ci)
                for j, (low, high) in enumerate(cis):
                    hits[j] += low <= truth[j] <= high
                perfect += a.spearman >= 1 - 1e-12
            rows.append([rho, n, *[f"{h / reps:.3f}" for h in hits],
                         f"{perfect / reps:.2f}"])  # fmt: skip
    print(
        f"### F. offline_online_agreement 95% intervals, bivariate normal deltas "
        f"({reps} replications)\n"
    )
    table(["rho", "experiments", "Pearson", "Spearman", "Kendall",
           "share with Spearman = 1"], rows)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sections", default="ABCDEF")
    args = parser.parse_args(argv)

    def n(x):
        return max(int(x * args.scale), 3)

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(f"seed {args.seed}, scale {args.scale}\n")
    if "A" in args.sections:
        section_a(rng, n(400), 500)
    if "B" in args.sections:
        section_b(rng, n(400), 300, n(400))
    if "C" in args.sections:
        section_c(rng, n(400), n(1000))
    if "D" in args.sections:
        section_d(rng, n(20))
    if "E" in args.sections:
        section_e(rng, n(1000))
    if "F" in args.sections:
        section_f(rng, n(1000))
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
