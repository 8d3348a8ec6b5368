"""Names shared by every part of the benchmark, and the sklearn_rank under test."""

from __future__ import annotations

import os
from typing import Any

METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")
K = 10
DISTS = ("typical", "small", "tiny", "huge", "single", "equal")
LAYOUTS = ("shuffled", "contiguous", "blocks")
DEFAULT_DISTS = ("typical", "small", "tiny", "huge", "equal")
ALL_SECTIONS = ("table", "shapes", "check", "memory", "import", "sorts", "device")
LEXSORT = "lexsort((-score, groups))"
SRANK_EVAL = "sklearn_rank evaluate (5 metrics)"
SRANK_GAUC = "sklearn_rank gauc_score"
# trec_eval conventions, as understood by pytrec_eval, ranx, ir_measures and
# torchmetrics: gain = label (linear), a query with no relevant row scores 0.
TREC_OPTIONS: dict[str, Any] = {"gain": "linear", "undefined": 0.0}
# The entry script: child processes (one per scenario, memory, sorts) run it.
SCRIPT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench_evaluate.py"
)
TREC_OPTIONS_TEXT = 'gain="linear", undefined=0.0'


def _srank():
    """sklearn_rank if its engine can be imported, else None."""
    try:
        import sklearn_rank
    except Exception:
        return None
    if not hasattr(sklearn_rank, "evaluate"):
        return None
    return sklearn_rank
