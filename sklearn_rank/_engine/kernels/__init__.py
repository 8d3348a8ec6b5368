"""Per-group metric kernels on the ordered view, one module per family.

Each kernel has the signature ``kernel(ctx, k, opts) -> GroupValues(values,
defined, weight)`` with one entry per group: the metric value (NaN where
undefined), whether the group is defined, and the weight of the group in the
mean. ``k=None`` is the whole list.

Where to look (lowest layer first; a module imports only the ones above it):

=================  ===============================================================
``arrays``         array operations in any array API namespace (numpy's own fast
                   operation in the numpy branch); no metric formula
``base``           ``GroupValues``, the cutoff as a position, the "defined where
                   the group has a relevant row" result
``gain_discount``  gains, position discounts, the ideal DCG
``cumulative``     the ``Cumulative`` form (contributions plus a finisher, shared
                   with the cutoff axis) and the cutoff family written in it: DCG,
                   NDCG, precision, recall, R-precision, hit rate, RR, AP
``cascade``        ERR (the cascade model), with exact tie expectations
``pairwise``       AUC, GAUC, pairwise accuracy (pairs of rows)
``judged``         judged@k and bpref (rows with a judgement)
``set_based``      F1@k and fall-out (the retrieved set)
``positional``     ARP and RBP (weights of the positions)
``interpolated``   interpolated precision, 11-point precision
``trec``           trec_eval's other measures (G, binG, infAP, Rprec_mult, ...)
=================  ===============================================================

Tie expectations (``ties="average"``) are exact. For a tie block holding positions
``a..b`` (``m = b - a + 1`` rows, ``r`` of them relevant) every order of the block is
equally likely, so each row sits at each of those positions with probability
``1/m``; positional sums therefore become block means (:meth:`block_mean`), and the
few non-linear metrics (Hit, MRR, AP, ERR) use the exact forms derived next to
them.

Kernels compute in the namespace and on the device of the context (``ctx.xp``,
``ctx.device``, ``ctx.float``): numpy on the numpy path, any array API namespace
under scikit-learn's ``array_api_dispatch``. Only the helpers of ``arrays`` branch
on ``xp is np``; every formula exists once.
"""

from .base import GroupValues
from .cascade import err
from .cumulative import (
    CUMULATIVE,
    Cumulative,
    average_precision,
    cumulate,
    dcg,
    hit_rate,
    mrr,
    ndcg,
    precision,
    r_precision,
    recall,
)
from .gain_discount import ideal_dcg
from .interpolated import eleven_point_precision, interpolated_precision
from .judged import bpref, judged_at_k
from .pairwise import auc, gauc, pairwise_accuracy
from .positional import arp, rbp
from .set_based import f1_at_k, fallout

__all__ = [
    "CUMULATIVE",
    "Cumulative",
    "GroupValues",
    "arp",
    "auc",
    "average_precision",
    "bpref",
    "cumulate",
    "dcg",
    "eleven_point_precision",
    "err",
    "f1_at_k",
    "fallout",
    "gauc",
    "hit_rate",
    "ideal_dcg",
    "interpolated_precision",
    "judged_at_k",
    "mrr",
    "ndcg",
    "pairwise_accuracy",
    "precision",
    "r_precision",
    "rbp",
    "recall",
]
