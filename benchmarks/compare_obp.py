#!/usr/bin/env python
"""Compare ``sklearn_rank.online.ips_estimate`` with Open Bandit Pipeline's slate
IPS estimators on the same logged data (run once; obp is not a dependency).

obp 0.5.7 needs Python < 3.11 and old pins (seaborn, matplotlib < 3.9), so it
lives in its own environment::

    python3.10 -m venv /work/venvs/obp
    /work/venvs/obp/bin/pip install obp==0.5.7 "matplotlib<3.9"
    PYTHONPATH=$PWD /work/venvs/obp/bin/python benchmarks/compare_obp.py

Two comparisons:

1. The identity. With ``pscore_item_position`` = ρ(logged position) and
   ``evaluation_policy_pscore_item_position`` = λ(new rank), obp's independent
   IPS (IIPS, the item-position / independence assumption) is
   mean over lists of Σ c λ(r) / ρ(p): sklearn_rank's ``"ips"`` exactly.
2. Randomised logging. The logging policy shows a uniformly random permutation
   of L items (so P_b(item at slot p) = 1/L, the cascade pscore of a slate's top p
   is Π 1/(L - j + 1)); clicks follow the position-based model. The evaluation
   policy is a deterministic ranking. obp's IIPS and reward-interaction IPS (RIPS,
   the cascade assumption) weigh by the logging policy's randomness;
   sklearn_rank weighs by the examination model (``discount="propensity"``). All
   estimate the same number, the expected clicks of the new ranking, whose true
   value the simulator gives.
"""

from __future__ import annotations

import numpy as np
from obp.ope import (
    SelfNormalizedSlateIndependentIPS,
    SelfNormalizedSlateRewardInteractionIPS,
    SlateIndependentIPS,
    SlateRewardInteractionIPS,
)

from sklearn_rank.online import ips_estimate, simulate_clicks

L = 5
EXAM = np.array([1.0, 0.6, 0.4, 0.3, 0.2])


def identity(n_lists=20000, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_lists), L)
    position = np.tile(np.arange(1, L + 1), n_lists)
    grade = rng.integers(0, 4, groups.size)
    clicks = simulate_clicks(
        grade, groups=groups, position=position, examination=EXAM, random_state=1
    )
    new = grade + rng.normal(size=groups.size)
    ours = ips_estimate(
        clicks,
        groups=groups,
        position=position,
        new_score=new,
        propensity=EXAM,
        metric="dcg@3",
    )
    rank = np.empty(groups.size, dtype=int)
    order = np.lexsort((position, -new, groups))
    rank[order] = np.tile(np.arange(1, L + 1), n_lists)
    lam = np.where(rank <= 3, 1 / np.log2(rank + 1), 0.0)
    iips = SlateIndependentIPS(len_list=L).estimate_policy_value(
        slate_id=groups,
        reward=clicks,
        position=position - 1,
        pscore_item_position=EXAM[position - 1],
        evaluation_policy_pscore_item_position=lam,
    )
    print("1. identity (dcg@3, 20,000 lists of 5)")
    print(f"   sklearn_rank ips        {ours.value:.12f}")
    print(f"   obp SlateIndependentIPS {iips:.12f}")
    print(f"   difference              {ours.value - iips:.3e}")


def randomised(n_lists=200000, seed=2):
    rng = np.random.default_rng(seed)
    # Each list: L items with fixed relevance; the logging policy shuffles them.
    groups = np.repeat(np.arange(n_lists), L)
    grade = np.tile([3, 2, 1, 0, 0], n_lists)
    position = np.argsort(rng.random((n_lists, L)), axis=1).argsort(axis=1).ravel() + 1
    clicks = simulate_clicks(
        grade, groups=groups, position=position, examination=EXAM, random_state=3
    )
    new_rank = np.tile([2, 1, 3, 4, 5], n_lists)  # the new ranking of the items
    alpha = (2.0 ** np.array([3, 2, 1, 0, 0]) - 1) / 7
    truth = float(np.sum(EXAM[np.array([2, 1, 3, 4, 5]) - 1] * alpha))
    ours = ips_estimate(
        clicks,
        groups=groups,
        position=position,
        new_score=-new_rank.astype(float),
        propensity=EXAM,
        metric="clicks",
        discount="propensity",
        confidence_level=0.95,
        n_resamples=999,
        random_state=0,
    )
    # obp's view: slot p holds the item the logging policy put there.
    slot = position - 1
    pscore_item = np.full(groups.size, 1 / L)
    eval_item = (new_rank == position).astype(float)
    # Cascade pscores: probability of the slate's top p under each policy.
    by_slot = np.empty((n_lists, L), dtype=int)
    by_slot[np.repeat(np.arange(n_lists), L), slot] = np.arange(groups.size)
    ordered = by_slot.ravel()  # rows in slot order within each list
    reward = clicks[ordered]
    match = (new_rank[ordered] == position[ordered]).reshape(n_lists, L)
    eval_cascade = np.cumprod(match, axis=1).ravel().astype(float)
    pscore_cascade = np.tile(np.cumprod(1 / (L - np.arange(L))), n_lists)
    sid, pos = groups[ordered], slot[ordered]
    kw_item = {
        "slate_id": sid,
        "reward": reward,
        "position": pos,
        "pscore_item_position": pscore_item[ordered],
        "evaluation_policy_pscore_item_position": eval_item[ordered],
    }
    kw_cascade = {
        "slate_id": sid,
        "reward": reward,
        "position": pos,
        "pscore_cascade": pscore_cascade,
        "evaluation_policy_pscore_cascade": eval_cascade,
    }
    estimators = {
        "obp SlateIndependentIPS (IIPS)": (SlateIndependentIPS, kw_item),
        "obp SelfNormalizedSlateIndependentIPS": (
            SelfNormalizedSlateIndependentIPS,
            kw_item,
        ),
        "obp SlateRewardInteractionIPS (RIPS)": (SlateRewardInteractionIPS, kw_cascade),
        "obp SelfNormalizedSlateRewardInteractionIPS": (
            SelfNormalizedSlateRewardInteractionIPS,
            kw_cascade,
        ),
    }
    rows = {
        "truth (simulator)": truth,
        "sklearn_rank ips, discount=propensity": ours.value,
    }
    for name, (cls, kw) in estimators.items():
        rows[name] = cls(len_list=L).estimate_policy_value(**kw)
    print(
        f"2. randomised logging ({n_lists:,} lists of {L}; expected clicks of the "
        "new ranking)"
    )
    for name, v in rows.items():
        print(f"   {name:<45s} {v:.4f}")
    print(f"   sklearn_rank 95% bootstrap CI: [{ours.ci[0]:.4f}, {ours.ci[1]:.4f}]")


if __name__ == "__main__":
    identity()
    randomised()
