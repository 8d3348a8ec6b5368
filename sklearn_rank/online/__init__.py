"""Online evaluation from clicks: online metrics, counterfactual estimates and
interleaving, on the flat per-row arrays the rest of the library takes.

See docs/online.md for the definitions, assumptions and failure modes.
"""

from ._abtest import ABTestResult, ab_sample_size, ab_test
from ._agreement import Agreement, offline_online_agreement
from ._interleave import Interleaving, interleave
from ._ips import IPSEstimate, ips_estimate
from ._logs import (
    ONLINE_METRICS,
    PositionCTR,
    ctr_by_position,
    online_metrics,
    online_metrics_per_group,
)
from ._multileave import (
    IdInterleaving,
    Multileaving,
    MultileavingOutcome,
    interleave_ids,
    multileave,
    multileaving_outcome,
)
from ._outcome import InterleavingOutcome, interleaving_outcome
from ._propensity import (
    PropensityEstimate,
    propensity_from_swaps,
    propensity_regression_em,
)
from ._ranking_policy import ranking_policy_estimate
from ._simulate import simulate_clicks

__all__ = [
    "ONLINE_METRICS",
    "ABTestResult",
    "Agreement",
    "IPSEstimate",
    "IdInterleaving",
    "Interleaving",
    "InterleavingOutcome",
    "Multileaving",
    "MultileavingOutcome",
    "PositionCTR",
    "PropensityEstimate",
    "ab_sample_size",
    "ab_test",
    "ctr_by_position",
    "interleave",
    "interleave_ids",
    "interleaving_outcome",
    "ips_estimate",
    "multileave",
    "multileaving_outcome",
    "offline_online_agreement",
    "online_metrics",
    "online_metrics_per_group",
    "propensity_from_swaps",
    "propensity_regression_em",
    "ranking_policy_estimate",
    "simulate_clicks",
]
