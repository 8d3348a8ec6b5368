"""ndeval's table: every measure it prints, per topic, from one ordering.

The rows, their intents and the retrieved mask come from
:func:`sklearn_rank.io.ndeval_arrays`; the formulas are the intent kernels'
(``_engine/kernels/intent.py``). The command line's ``sklearn-rank ndeval``
formats this table as ndeval's CSV; with a baseline run it combines the two
tables per topic with :func:`ndeval_risk` (ndeval's risk-sensitive evaluation,
TREC Web track 2013 and 2014).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._engine.conventions import resolve_options
from .._engine.kernels.intent import INTENT_KERNELS, IntentParams
from .._utils.params import param_error
from .evaluate import intent_context
from .validation import check_intent_labels

__all__ = ["NDEVAL_COLUMNS", "ndeval_risk", "ndeval_table"]

_CUTOFFS = (5, 10, 20)  # ndeval's, below its DEPTH of 20
# (column, kernel, cutoff), in ndeval's order.
NDEVAL_COLUMNS = tuple(
    [(f"ERR-IA@{k}", "err_ia", k) for k in _CUTOFFS]
    + [(f"nERR-IA@{k}", "nerr_ia", k) for k in _CUTOFFS]
    + [(f"alpha-DCG@{k}", "alpha_dcg", k) for k in _CUTOFFS]
    + [(f"alpha-nDCG@{k}", "alpha_ndcg", k) for k in _CUTOFFS]
    + [("NRBP", "nrbp", None), ("nNRBP", "nnrbp", None), ("MAP-IA", "map_ia", None)]
    + [(f"P-IA@{k}", "precision_ia", k) for k in _CUTOFFS]
    + [(f"strec@{k}", "subtopic_recall", k) for k in _CUTOFFS]
)


def ndeval_table(
    y_true: Any,
    y_score: Any,
    *,
    groups: Any,
    retrieved: Any = None,
    alpha: float = 0.5,
    beta: float = 0.5,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per group (ascending ids), each of ndeval's columns as ndeval computes it.

    A group without a relevant (row, intent) (ndeval's topic with no "actual
    subtopic") scores 0 on every column but nNRBP, which is NaN (ndeval's 0 / 0).
    ``alpha`` and ``beta`` may be anywhere in [0, 1], as ndeval's ``-alpha`` and
    ``-beta``. Returns the sorted group ids and a dict of column -> values.
    """
    func = "ndeval_table"
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 <= float(value) <= 1.0:
            raise param_error(name, func, "a float in [0, 1] (as ndeval)", value)
    labels = check_intent_labels(y_true, func)
    opts = resolve_options(func, "ndeval", {})  # "stable" ties: the run's order
    ctx, view, inputs = intent_context(
        func, labels, y_score, groups, (), opts, masks={"retrieved": retrieved}
    )
    params = IntentParams(float(alpha), float(beta))
    out = {}
    for column, base, k in NDEVAL_COLUMNS:
        values, defined, _ = INTENT_KERNELS[base](ctx, view, k, params)
        out[column] = values if base == "nnrbp" else np.where(defined, values, 0.0)
    if 1.0 - (1.0 - params.alpha) * params.beta == 0.0:
        # ndeval scales both NRBPs by this factor before dividing: 0 / 0.
        out["nNRBP"] = np.full_like(out["nNRBP"], np.nan)
    return inputs.group_ids, out


def ndeval_risk(run: Any, baseline: Any, risk_alpha: float = 0.0) -> np.ndarray:
    """ndeval's risk-sensitive difference of a run and a baseline, elementwise.

    ``run - baseline`` where the run scores at least the baseline, and
    ``(1 + risk_alpha) * (run - baseline)`` where it loses (ndeval's
    ``RiskBased``, the TREC Web track 2013 and 2014 risk-sensitive measures):
    a loss weighs ``1 + risk_alpha`` times a gain. Applied to ndeval's tables
    (topics x columns) it gives each topic's risk-sensitive value; a NaN on
    either side stays NaN, as in ndeval.

    Parameters
    ----------
    run, baseline : array-like of float, same shape
        The run's and the baseline's values (a topic one of them lacks is 0).
    risk_alpha : float, default=0.0
        The extra weight of losses, a finite number >= 0 (ndeval's
        ``-riskAlpha``).

    Returns
    -------
    ndarray of float64, the shape of ``run``

    Examples
    --------
    >>> from sklearn_rank._metrics.ndeval import ndeval_risk
    >>> ndeval_risk([0.5, 0.25], [0.25, 0.5], risk_alpha=1.0).tolist()
    [0.25, -0.5]
    """
    alpha = float(risk_alpha)
    if not (np.isfinite(alpha) and alpha >= 0.0):
        raise param_error(
            "risk_alpha", "ndeval_risk", "a finite float >= 0 (as ndeval)", risk_alpha
        )
    run = np.asarray(run, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    if run.shape != baseline.shape:
        raise ValueError(
            "ndeval_risk: run and baseline must have the same shape; got "
            f"{run.shape} and {baseline.shape}"
        )
    difference = run - baseline
    # As ndeval's macro: (r) >= (b) ? (r) - (b) : ((a) + 1) * ((r) - (b)).
    with np.errstate(invalid="ignore"):
        return np.where(run >= baseline, difference, (alpha + 1.0) * difference)
