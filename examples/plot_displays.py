"""
Displays: metric@k curves, distributions, differences, precision-recall
=======================================================================

Every display of :mod:`sklearn_rank.plot` on the held-out queries of the bundled
LambdaRank sample, for two linear rankers and random scores. These are the
pictures of the user guide's :doc:`/plots` page, made by this script at every
build of the site. Each display follows scikit-learn's Display API:
``from_predictions`` computes with the library's metrics and draws, ``plot``
redraws, and the artists are attributes with a trailing underscore.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge

from sklearn_rank.datasets import load_lambdarank

train = load_lambdarank(subset="train")
test = load_lambdarank(subset="test")
full = Ridge(alpha=100).fit(train.data, train.target)
few = Ridge(alpha=100).fit(train.data[:, :20], train.target)
scores = {
    "ridge, 300 features": full.predict(test.data),
    "ridge, 20 features": few.predict(test.data[:, :20]),
    "random": np.random.default_rng(0).random(len(test.target)),
}
y, groups = test.target, test.groups
SIZE = (7.0, 4.4)  # inches

# %%
# Metric at every cutoff
# ----------------------
# NDCG@k for k = 1..20 with 95% bootstrap bands over queries.
from sklearn_rank.plot import MetricAtKDisplay

disp = MetricAtKDisplay.from_predictions(
    y,
    scores,
    groups=groups,
    metric="ndcg",
    k_max=20,
    confidence_level=0.95,
    random_state=0,
)
disp.figure_.set_size_inches(*SIZE)
disp.figure_.set_layout_engine("constrained")
print("NDCG@10:", {m: round(float(v[9]), 3) for m, v in disp.values.items()})

# %%
# Per-query distribution
# ----------------------
# The spread behind a mean: the empirical CDF of NDCG@10 over queries.
from sklearn_rank.plot import GroupScoreDisplay

disp = GroupScoreDisplay.from_predictions(
    y, scores, groups=groups, metric="ndcg@10", kind="ecdf"
)
disp.figure_.set_size_inches(*SIZE)
disp.figure_.set_layout_engine("constrained")

# %%
# Wins and losses per query
# -------------------------
# ``model - baseline`` per query, sorted; the title counts wins, ties and losses.
from sklearn_rank.plot import PairedDifferenceDisplay

pair = {k: scores[k] for k in ("ridge, 300 features", "ridge, 20 features")}
disp = PairedDifferenceDisplay.from_predictions(
    y, pair, groups=groups, metric="ndcg@10"
)
disp.figure_.set_size_inches(*SIZE)
disp.figure_.set_layout_engine("constrained")

# %%
# Precision against recall
# ------------------------
# Interpolated precision at the 11 recall levels, averaged over queries, with
# trec_eval's convention (tied rows in input order).
from sklearn_rank.plot import InterpolatedPrecisionRecallDisplay

disp = InterpolatedPrecisionRecallDisplay.from_predictions(
    y, scores, groups=groups, convention="trec_eval"
)
disp.figure_.set_size_inches(*SIZE)
disp.figure_.set_layout_engine("constrained")

# %%
# Segments
# --------
# NDCG@10 for short and long result lists, with bootstrap intervals and the
# paired test of each model against the baseline in every segment.
from sklearn_rank.plot import SegmentDisplay

size = np.bincount(np.unique(groups, return_inverse=True)[1])
per_query = dict(
    zip(
        np.unique(groups).tolist(),
        np.where(size <= 15, "<= 15 docs", "> 15 docs").tolist(),
        strict=True,
    )
)
disp = SegmentDisplay.from_predictions(
    y,
    pair,
    groups=groups,
    segments=per_query,
    metric="ndcg@10",
    n_resamples=999,
    random_state=0,
)
disp.figure_.set_size_inches(*SIZE)
disp.figure_.set_layout_engine("constrained")

# %%
# Several displays on one figure
# ------------------------------
# ``ax=`` draws into any axes.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
MetricAtKDisplay.from_predictions(
    y, scores, groups=groups, metric="precision", k_max=10, ax=left
)
GroupScoreDisplay.from_predictions(
    y, scores, groups=groups, metric="precision@10", ax=right, bins=10
)
plt.show()
