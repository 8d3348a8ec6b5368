"""Confidence intervals and paired significance tests over groups.

``bootstrap_ci`` gives bootstrap intervals of ranking metrics; ``compare`` runs a
paired test between models scored on the same groups; ``cross_val_compare`` does
it on out-of-fold predictions of several estimators or of the top candidates of
a fitted search. See docs/statistics.md.
"""

from ._api import bootstrap_ci, compare
from ._report import BootstrapReport, ComparisonReport, MetricInterval, PairComparison
from ._segments import SegmentComparison, compare_by_segment
from ._selection import cross_val_compare

__all__ = [
    "BootstrapReport",
    "ComparisonReport",
    "MetricInterval",
    "PairComparison",
    "SegmentComparison",
    "bootstrap_ci",
    "compare",
    "compare_by_segment",
    "cross_val_compare",
]
