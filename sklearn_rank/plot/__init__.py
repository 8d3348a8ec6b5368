"""Pictures of ranking evaluations, in scikit-learn's Display API.

Each display computes its data with the library's own functions, and draws with
matplotlib (the optional extra ``plot``: ``pip install "sklearn-rank[plot]"``),
imported only when it draws. See docs/plots.md.
"""

from ._group_scores import GroupScoreDisplay
from ._metric_at_k import MetricAtKDisplay
from ._paired import PairedDifferenceDisplay
from ._precision_recall import (
    InterpolatedPrecisionRecallDisplay,
    PrecisionRecallDisplay,
)
from ._segment import SegmentDisplay

__all__ = [
    "GroupScoreDisplay",
    "InterpolatedPrecisionRecallDisplay",
    "MetricAtKDisplay",
    "PairedDifferenceDisplay",
    "PrecisionRecallDisplay",
    "SegmentDisplay",
]
