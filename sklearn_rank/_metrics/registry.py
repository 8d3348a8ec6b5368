"""The one table of metrics.

``METRICS`` drives ``evaluate``'s names, the error that lists valid names,
``get_metric_names``, the scorers (and their sign), the public ``*_score``
signatures and docstrings (pinned by tests) and every registry-driven test: the
independent oracle of each metric in ``tests/_reference.py``, the property tests
and the invariance suite. Adding a metric means a kernel, one entry here, an oracle
and a docs section; tests fail until each exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._engine import kernels as _kernels
from .._engine.conventions import OPTIONS
from .._engine.kernels import trec as _kernels_trec
from .._engine.kernels.intent import TABLE_KERNELS as _INTENT

# Options every ranked metric reads (in this order in signatures and docs).
_BINARY = ("ties", "relevance_threshold", "undefined")
# Every per-group metric reads how row weights become group weights.
_GROUP = ("group_weight",)
# The input rules every metric takes, last among its options: integer grades
# and the judged-only filter.
_J = ("integer_grades", "judged_only")
# The intent-aware metrics' options: alpha (and beta for NRBP), the tie rule
# (one ordering: "stable", "pessimistic", "optimistic") and the undefined rule.
_IA = ("alpha", "ties", "undefined")
_IA_PLAIN = ("ties", "undefined")


@dataclass(frozen=True)
class MetricSpec:
    """Everything one metric is.

    Attributes
    ----------
    name : str
        Registry name; ``name@k`` adds a cutoff when ``takes_k``.
    kernel : callable
        ``kernel(ctx, k, opts) -> GroupValues``, one value per group.
    function : str
        Name of the public ``*_score`` function.
    summary : str
        One line for listings and the docs.
    options : tuple of str
        The convention keywords (entries of ``OPTIONS``) the metric reads, in
        signature order.
    takes_k : bool
        Whether the metric has a cutoff ``k``.
    labels : {"binary", "gain", "grades", "raw"}
        How labels enter: through the relevance threshold only, as graded gains
        (labels >= 0), as grades within ``[0, max_grade]``, or as given with no
        range check ("raw": compared with each other, or weights of relevant rows,
        which are > 0 by definition).
    greater_is_better : bool
        False for losses; scorers negate them, as scikit-learn's do.
    pooled : bool
        One value over all rows (no per-group values); ``groups`` optional.
    name_option : tuple of (str, str) or None
        For a metric without a cutoff: the option that ``name@x`` sets, and the
        placeholder listed by :func:`get_metric_names` (``("recall_level", "r")``
        makes ``"iprec@0.5"`` mean ``recall_level=0.5``).
    reads_pool : bool
        Whether the metric tells rows pooled but unjudged from rows outside the
        judgment pool: its function takes the ``in_pool`` mask (infAP).
    module : str
        The module, relative to ``sklearn_rank``, that defines ``function``:
        ``sklearn_rank/__init__.py`` exports it from there (``_LAZY``, ``__all__``).
    intents : bool
        Whether the metric is intent-aware: ``y_true`` is 2-D, of shape
        ``(n_samples, n_intents)``, relevance per (row, intent), and the kernel
        reads the context's intent view (``_engine/kernels/intent``). Only
        :func:`evaluate`, :func:`evaluate_intents`, the scorers and the
        metric's own function take it; the front ends of one label per row
        (``prepare``, the accumulator, dask, Spark, the cutoff curves) refuse it.
    """

    name: str
    kernel: Callable
    function: str
    summary: str
    options: tuple[str, ...] = _BINARY
    takes_k: bool = True
    labels: str = "binary"
    greater_is_better: bool = True
    pooled: bool = False
    name_option: tuple[str, str] | None = None
    reads_pool: bool = False
    module: str = "_metrics.functions"
    intents: bool = False

    def __post_init__(self) -> None:
        if self.name_option and (
            self.takes_k or self.name_option[0] not in self.options
        ):
            raise ValueError(f"{self.name}: name_option needs no cutoff and an option")
        unknown = set(self.options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"{self.name}: unknown options {sorted(unknown)}")


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "ndcg",
            _kernels.ndcg,
            "ndcg_score",
            "normalised discounted cumulative gain",
            options=(
                "gain",
                "discount",
                "gain_rows",
                "ideal_order",
                *_BINARY,
                *_GROUP,
                *_J,
            ),
            labels="gain",
        ),
        MetricSpec(
            "dcg",
            _kernels.dcg,
            "dcg_score",
            "discounted cumulative gain",
            options=(
                "gain",
                "discount",
                "gain_rows",
                *_BINARY,
                *_GROUP,
                *_J,
            ),
            labels="gain",
        ),
        MetricSpec(
            "map",
            _kernels.average_precision,
            "map_score",
            "mean average precision",
            options=(*_BINARY, "ap_denominator", *_GROUP, *_J),
        ),
        MetricSpec(
            "mrr",
            _kernels.mrr,
            "mrr_score",
            "mean reciprocal rank",
            options=(*_BINARY, *_GROUP, *_J),
        ),
        MetricSpec(
            "precision",
            _kernels.precision,
            "precision_at_k_score",
            "precision at k",
            options=(*_BINARY, "precision_denominator", *_GROUP, *_J),
        ),
        MetricSpec(
            "recall",
            _kernels.recall,
            "recall_at_k_score",
            "recall at k",
            options=(*_BINARY, "recall_denominator", *_GROUP, *_J),
        ),
        MetricSpec(
            "hit_rate",
            _kernels.hit_rate,
            "hit_rate_score",
            "share of groups with a relevant item in the top k",
            options=(*_BINARY, *_GROUP, *_J),
        ),
        MetricSpec(
            "r_precision",
            _kernels.r_precision,
            "r_precision_score",
            "precision at R, the group's number of relevant items",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
        ),
        MetricSpec(
            "err",
            _kernels.err,
            "err_score",
            "expected reciprocal rank",
            options=("max_grade", *_BINARY, *_GROUP, *_J),
            labels="grades",
        ),
        MetricSpec(
            "gauc",
            _kernels.gauc,
            "gauc_score",
            "per-group AUC averaged over groups",
            options=("weights", *_BINARY, *_GROUP, *_J),
            takes_k=False,
        ),
        MetricSpec(
            "auc",
            _kernels.auc,
            "auc_score",
            "AUC pooled over all rows (roc_auc_score)",
            options=(*_BINARY, *_J),  # one pooled list: no group weights
            takes_k=False,
            pooled=True,
        ),
        MetricSpec(
            "f1",
            _kernels.f1_at_k,
            "f1_at_k_score",
            "harmonic mean of precision at k and recall at k",
            options=(
                *_BINARY,
                "precision_denominator",
                "recall_denominator",
                *_GROUP,
                *_J,
            ),
        ),
        MetricSpec(
            "fallout",
            _kernels.fallout,
            "fallout_at_k_score",
            "share of the non-relevant items ranked in the top k (a loss)",
            options=(*_BINARY, *_GROUP, *_J),
            greater_is_better=False,
        ),
        MetricSpec(
            "arp",
            _kernels.arp,
            "arp_score",
            "average position of the ranked relevant items (a loss)",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
            labels="raw",
            greater_is_better=False,
        ),
        MetricSpec(
            "rbp",
            _kernels.rbp,
            "rbp_score",
            "rank-biased precision",
            options=("persistence", "max_grade", "gain_rows", *_BINARY, *_GROUP, *_J),
            labels="grades",
        ),
        MetricSpec(
            "pairwise_accuracy",
            _kernels.pairwise_accuracy,
            "pairwise_accuracy_score",
            "share of pairs with different labels ordered correctly",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
            labels="raw",
        ),
        MetricSpec(
            "iprec",
            _kernels.interpolated_precision,
            "interpolated_precision_score",
            "interpolated precision at a recall level (trec_eval iprec_at_recall)",
            options=("recall_level", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            name_option=("recall_level", "r"),
        ),
        MetricSpec(
            "iprec_11pt",
            _kernels.eleven_point_precision,
            "eleven_point_precision_score",
            "mean interpolated precision at recall 0, 0.1, ..., 1 (11pt_avg)",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
        ),
        MetricSpec(
            "bpref",
            _kernels.bpref,
            "bpref_score",
            "binary preference over the judged rows (trec_eval bpref)",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
        ),
        MetricSpec(
            "judged",
            _kernels.judged_at_k,
            "judged_at_k_score",
            "share of the top k that is judged (Judged@k)",
            options=(*_BINARY, *_GROUP, *_J),
        ),
        MetricSpec(
            "g",
            _kernels_trec.g_gain,
            "g_score",
            "trec_eval's G: gains over a log of the ideal cost not yet reached",
            options=("gain", "ideal_order", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            labels="gain",
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "ndcg_rel",
            _kernels_trec.ndcg_rel,
            "ndcg_rel_score",
            "NDCG averaged over the relevant rows (trec_eval ndcg_rel)",
            options=("gain", "ideal_order", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            labels="gain",
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "rndcg",
            _kernels_trec.rndcg,
            "rndcg_score",
            "NDCG averaged at the R levels of the ideal list (trec_eval Rndcg)",
            options=("gain", "ideal_order", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            labels="gain",
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "bing",
            _kernels_trec.bing,
            "bing_score",
            "trec_eval's binG: G with binary gains",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "infap",
            _kernels_trec.infap,
            "infap_score",
            "inferred average precision (trec_eval infAP)",
            options=(*_BINARY, *_GROUP, *_J),
            takes_k=False,
            reads_pool=True,
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "rprec_mult",
            _kernels_trec.r_precision_mult,
            "r_precision_mult_score",
            "precision at a multiple of R (trec_eval Rprec_mult)",
            options=("r_multiple", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            name_option=("r_multiple", "m"),
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "unjudged",
            _kernels_trec.unjudged_at_k,
            "unjudged_at_k_score",
            "share of the top k that is unjudged, over k (trec_eval unj)",
            options=(*_BINARY, *_GROUP, *_J),
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "rbp_residual",
            _kernels_trec.rbp_residual,
            "rbp_residual_score",
            "the RBP mass left open by unjudged rows (trec_eval rbp_resid)",
            options=("persistence", *_BINARY, *_GROUP, *_J),
            takes_k=False,
            module="_metrics.functions_trec",
        ),
        MetricSpec(
            "alpha_ndcg",
            _INTENT["alpha_ndcg"],
            "alpha_ndcg_score",
            "alpha-nDCG: novelty-discounted DCG over intents (2-D y_true)",
            options=_IA,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "alpha_dcg",
            _INTENT["alpha_dcg"],
            "alpha_dcg_score",
            "alpha-DCG over that of a list relevant to every intent at every "
            "rank, as ndeval prints it (2-D y_true)",
            options=_IA,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "err_ia",
            _INTENT["err_ia"],
            "err_ia_score",
            "intent-aware expected reciprocal rank, ndeval's form (2-D y_true)",
            options=_IA,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "nerr_ia",
            _INTENT["nerr_ia"],
            "nerr_ia_score",
            "ERR-IA over that of ndeval's greedy ideal ranking (2-D y_true)",
            options=_IA,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "nrbp",
            _INTENT["nrbp"],
            "nrbp_score",
            "novelty- and rank-biased precision (2-D y_true)",
            options=("alpha", "beta", *_IA_PLAIN),
            takes_k=False,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "nnrbp",
            _INTENT["nnrbp"],
            "nnrbp_score",
            "NRBP over that of ndeval's greedy ideal ranking (2-D y_true)",
            options=("alpha", "beta", *_IA_PLAIN),
            takes_k=False,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "map_ia",
            _INTENT["map_ia"],
            "map_ia_score",
            "intent-aware mean average precision (2-D y_true)",
            options=_IA_PLAIN,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "precision_ia",
            _INTENT["precision_ia"],
            "precision_ia_score",
            "intent-aware precision at k (2-D y_true)",
            options=_IA_PLAIN,
            module="_metrics.intent",
            intents=True,
        ),
        MetricSpec(
            "subtopic_recall",
            _INTENT["subtopic_recall"],
            "subtopic_recall_score",
            "share of the intents covered in the top k (2-D y_true)",
            options=_IA_PLAIN,
            module="_metrics.intent",
            intents=True,
        ),
    )
}


def get_metric_names() -> list[str]:
    """Names accepted by :func:`evaluate` and the scorers.

    Metrics with a cutoff also take ``"name@k"`` with a positive int ``k``;
    interpolated precision takes ``"iprec@r"``, ``r`` its recall level. The
    intent-aware metrics (``"alpha_ndcg"``, ``"err_ia"``, ``"nrbp"``, ...; their
    ``MetricSpec.intents``) take a 2-D ``y_true`` of shape ``(n_samples,
    n_intents)``: relevance per (row, intent).

    Returns
    -------
    names : list of str
        Sorted base names; those taking ``@k`` are listed as ``"name@k"`` too,
        and ``"iprec@r"``.

    Examples
    --------
    >>> from sklearn_rank import get_metric_names
    >>> "ndcg@k" in get_metric_names()
    True
    """
    names = []
    for spec in METRICS.values():
        names.append(spec.name)
        if spec.takes_k:
            names.append(f"{spec.name}@k")
        if spec.name_option:
            names.append(f"{spec.name}@{spec.name_option[1]}")
    return sorted(names)
