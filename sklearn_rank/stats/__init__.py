"""Confidence intervals and paired significance tests over groups.

``bootstrap_ci`` gives bootstrap intervals of ranking metrics; ``compare`` runs a
paired test between models scored on the same groups; ``cross_val_compare`` does
it on out-of-fold predictions of several estimators or of the top candidates of
a fitted search. ``tukey_hsd`` (randomised Tukey HSD) and ``two_way_anova`` test
many systems at once; ``topic_set_size`` says how many queries an evaluation
needs (Sakai's topic set size design). See docs/statistics.md.
"""

from ._api import bootstrap_ci, compare
from ._report import BootstrapReport, ComparisonReport, MetricInterval, PairComparison
from ._segments import SegmentComparison, compare_by_segment
from ._selection import cross_val_compare
from ._systems import AnovaResult, tukey_hsd, two_way_anova
from ._topic_set_size import TopicSetSize, topic_set_size

__all__ = [
    "AnovaResult",
    "BootstrapReport",
    "ComparisonReport",
    "MetricInterval",
    "PairComparison",
    "SegmentComparison",
    "TopicSetSize",
    "bootstrap_ci",
    "compare",
    "compare_by_segment",
    "cross_val_compare",
    "topic_set_size",
    "tukey_hsd",
    "two_way_anova",
]
