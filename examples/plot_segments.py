"""
Metrics per segment of the queries
==================================

A mean over queries can hide a model that wins on easy queries and loses on hard
ones. :func:`sklearn_rank.evaluate_by_segment` scores any metric set per segment
(a label per row, constant within each group, or a mapping from group id to
label), and :class:`sklearn_rank.plot.SegmentDisplay` draws one metric per segment
with intervals and adjusted p-values against a baseline.
"""

# %%
# Simulated queries of three kinds, where the new model helps only on the
# "head" queries.
import matplotlib.pyplot as plt
import numpy as np

from sklearn_rank import evaluate, evaluate_by_segment
from sklearn_rank.plot import SegmentDisplay

rng = np.random.default_rng(0)
n_groups, size = 300, 10
groups = np.repeat(np.arange(n_groups), size)
kind = rng.choice(["head", "torso", "tail"], n_groups)
y = rng.binomial(1, 0.3, groups.size)
old = y + rng.normal(0, 1.2, groups.size)
boost = np.where(kind[groups] == "head", 0.6, 1.2)
new = y + rng.normal(0, 1.0, groups.size) * boost

# %%
# One row per segment; each value equals ``evaluate`` on that segment's rows.
segments = dict(zip(range(n_groups), kind.tolist(), strict=True))
table = evaluate_by_segment(
    y, new, groups=groups, segments=segments, metrics=["ndcg@10", "mrr"]
)
print(table)
head = kind[groups] == "head"
print(evaluate(y[head], new[head], groups=groups[head], metrics=["ndcg@10"]))

# %%
# The new model against the old one in every segment.
disp = SegmentDisplay.from_predictions(
    y,
    {"new": new, "old": old},
    groups=groups,
    segments=segments,
    metric="ndcg@10",
    n_resamples=999,
    random_state=0,
)
print(disp.segments.tolist(), disp.n_groups.tolist())
plt.show()
