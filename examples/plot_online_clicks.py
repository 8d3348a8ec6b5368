"""
Online estimators on simulated clicks
=====================================

Click logs are biased by position: users examine the top of a list more than the
bottom. This example simulates clicks with a position-based model
(:func:`sklearn_rank.online.simulate_clicks`), reads the logs with
:func:`~sklearn_rank.online.online_metrics` and
:func:`~sklearn_rank.online.ctr_by_position`, estimates a new ranker's clicks from
the old ranker's logs with inverse propensity scoring
(:func:`~sklearn_rank.online.ips_estimate`), checks the estimate against a fresh
simulation of the new ranker, and runs a team-draft interleaving experiment
(:func:`~sklearn_rank.online.interleave`).
"""

# %%
# Sessions of five results with grades 0-3; examination 1/position.
import matplotlib.pyplot as plt
import numpy as np

from sklearn_rank.online import (
    ctr_by_position,
    interleave,
    interleaving_outcome,
    ips_estimate,
    online_metrics,
    simulate_clicks,
)

rng = np.random.default_rng(0)
n_groups, size = 4000, 5
groups = np.repeat(np.arange(n_groups), size)
y = rng.integers(0, 4, groups.size)
old = y + rng.normal(scale=2.0, size=y.size)  # production ranker
new = y + rng.normal(scale=0.5, size=y.size)  # candidate ranker
exam = 1 / np.arange(1, size + 1)


def positions(score):
    """1-based position of each row in its session's list, by descending score."""
    s = -score.reshape(n_groups, size)
    return np.argsort(np.argsort(s, axis=1), axis=1).ravel() + 1


logged_pos = positions(old)
clicks = simulate_clicks(
    y, groups=groups, position=logged_pos, examination=exam, random_state=1
)
print(online_metrics(clicks, groups=groups, position=logged_pos))

# %%
# Click-through rate by position: it falls with the position, partly because
# of relevance and partly because of examination.
ctr = ctr_by_position(clicks, position=logged_pos)
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.plot(ctr.position, ctr.ctr, "o-", label="observed CTR")
ax.plot(ctr.position, exam * ctr.ctr[0], "--", label="examination 1/p (scaled)")
ax.set(xlabel="position", ylabel="CTR", xticks=ctr.position)
ax.legend()

# %%
# Offline: the candidate's expected clicks per session from the old logs.
est = ips_estimate(
    clicks,
    groups=groups,
    position=logged_pos,
    new_score=new,
    propensity=exam,
    metric="clicks@5",
    discount="propensity",
    confidence_level=0.95,
    n_resamples=999,
    random_state=0,
)
print(f"IPS estimate {est.value:.3f}, 95% CI [{est.ci[0]:.3f}, {est.ci[1]:.3f}]")

# %%
# Online: ship the candidate in the simulator and count its clicks.
new_pos = positions(new)
online = simulate_clicks(
    y, groups=groups, position=new_pos, examination=exam, random_state=2
)
observed = online_metrics(online, groups=groups, position=new_pos)["clicks"]
print(f"observed clicks per session: {observed:.3f}")

# %%
# Interleaving: each session shows one list merged from both rankers; the
# ranker whose results get more clicks wins the session.
mixed = interleave(new, old, groups=groups, random_state=3)
shown = mixed.position > 0
mixed_clicks = np.zeros(groups.size)
mixed_clicks[shown] = simulate_clicks(
    y[shown],
    groups=groups[shown],
    position=mixed.position[shown],
    examination=exam,
    random_state=4,
)
outcome = interleaving_outcome(mixed_clicks, mixed, groups=groups)
print(
    f"new wins {outcome.wins}, ties {outcome.ties}, old wins {outcome.losses}; "
    f"sign test p = {outcome.p_value:.2g}"
)
plt.show()
