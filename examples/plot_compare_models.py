"""
Comparing models with statistics
================================

Is model A really better than model B, or is the difference of the means noise
from the particular queries? :func:`sklearn_rank.stats.bootstrap_ci` gives an
interval of each metric over groups, and :func:`sklearn_rank.stats.compare` pairs
the models query by query: mean difference with its interval, a paired test,
p-values adjusted over the pairs, and wins / ties / losses.
"""

# %%
# Three rankers on the held-out queries of the bundled sample.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge

from sklearn_rank.datasets import load_lambdarank
from sklearn_rank.plot import PairedDifferenceDisplay
from sklearn_rank.stats import bootstrap_ci, compare

train = load_lambdarank(subset="train")
test = load_lambdarank(subset="test")
y, groups = test.target, test.groups
scores = {
    "ridge, 300 features": Ridge(alpha=100)
    .fit(train.data, train.target)
    .predict(test.data),
    "ridge, 20 features": Ridge(alpha=100)
    .fit(train.data[:, :20], train.target)
    .predict(test.data[:, :20]),
    "random": np.random.default_rng(0).random(len(y)),
}

# %%
# A 95% bootstrap interval of each metric over the 50 queries.
ci = bootstrap_ci(
    y,
    scores["ridge, 300 features"],
    groups=groups,
    metrics=["ndcg@10", "map"],
    n_resamples=999,
    random_state=0,
)
print(ci)
print(ci["ndcg@10"].ci_low, ci["ndcg@10"].ci_high)

# %%
# Every model against the random baseline: paired randomization test over
# queries, Holm-adjusted over the pairs of each metric.
report = compare(
    y,
    scores,
    groups=groups,
    metrics=["ndcg@10", "map"],
    baseline="random",
    n_resamples=999,
    random_state=0,
)
print(report)

# %%
# The values are attributes: here one pair.
pair = report.pair("ndcg@10", "ridge, 300 features", "random")
print(pair.mean_diff, pair.p_value, pair.wins, pair.ties, pair.losses)

# %%
# The per-query differences behind the test, sorted from the largest win.
pair_scores = {k: scores[k] for k in ("ridge, 300 features", "ridge, 20 features")}
disp = PairedDifferenceDisplay.from_predictions(
    y, pair_scores, groups=groups, metric="ndcg@10"
)
plt.show()
