"""``sklearn_rank``'s exports: the metric functions come from the metric table.

``_LAZY`` in ``sklearn_rank/__init__.py`` lists only the names that are not metric
functions; every ``*_score`` is added from ``_metrics/registry.METRICS`` (each
spec's ``function`` and ``module``). These tests hold the public names to the
list they had when both were kept by hand.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import sklearn_rank
from sklearn_rank._metrics.registry import METRICS

# ``sklearn_rank.__all__`` before the metric names were derived from the table.
ALL_BEFORE = [
    "GroupScores",
    "GroupedRanker",
    "MultiMetricRankingScorer",
    "PreparedEvaluation",
    "RankingAccumulator",
    "RankingScorer",
    "SegmentTable",
    "arp_score",
    "auc_score",
    "bing_score",
    "bpref_score",
    "dcg_score",
    "eleven_point_precision_score",
    "err_score",
    "evaluate",
    "evaluate_by_segment",
    "evaluate_per_group",
    "evaluate_run",
    "f1_at_k_score",
    "fallout_at_k_score",
    "g_score",
    "gauc_score",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "hit_rate_score",
    "infap_score",
    "interpolated_precision_score",
    "judged_at_k_score",
    "make_ranking_scorer",
    "map_score",
    "mrr_score",
    "ndcg_rel_score",
    "ndcg_score",
    "pairwise_accuracy_score",
    "precision_at_k_score",
    "prepare",
    "r_precision_mult_score",
    "r_precision_score",
    "rbp_residual_score",
    "rbp_score",
    "recall_at_k_score",
    "rndcg_score",
    "unjudged_at_k_score",
]

# The public part of ``dir(sklearn_rank)`` before the change: ``__all__``, the
# sub-packages and the module's own imports.
_OWN_IMPORTS = ["Any", "annotations", "importlib"]
_PACKAGES = ["boosting", "datasets", "io", "online", "plot", "stats"]
DIR_BEFORE = sorted([*ALL_BEFORE, *_OWN_IMPORTS, *_PACKAGES])


def test_every_registry_function_is_exported():
    for spec in METRICS.values():
        assert spec.function in sklearn_rank.__all__, spec.name
        defined = getattr(
            importlib.import_module(f"sklearn_rank.{spec.module}"), spec.function
        )
        assert getattr(sklearn_rank, spec.function) is defined, spec.name


def _fresh(code):
    """What ``code`` prints in a new interpreter (other tests' imports of
    sub-packages such as ``sklearn_rank.dask`` add attributes here)."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1])),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_all_and_dir_unchanged():
    # Equal to the lists above when the table took over (issue 43); since then a
    # name may be added, through the metric table, ``_LAZY`` or ``_SUBPACKAGES``
    # only, and none removed.
    names = sklearn_rank.__all__
    assert names == sorted(names) and set(ALL_BEFORE) <= set(names)
    functions = {spec.function for spec in METRICS.values()}
    assert set(names) == functions | set(sklearn_rank._LAZY)
    # every table function is exported; other *_score names (the 2-D intent
    # metrics of _metrics/intent.py, not in the table yet) come from _LAZY above
    assert functions <= {n for n in names if n.endswith("_score")}
    public = _fresh(
        "import json, sklearn_rank\n"
        "print(json.dumps([n for n in dir(sklearn_rank) if not n.startswith('_')]))"
    )
    assert set(DIR_BEFORE) <= set(public)
    assert set(public) - set(DIR_BEFORE) <= {*names, *sklearn_rank._SUBPACKAGES}


def test_star_import_and_unknown_names():
    namespace: dict = {}
    exec("from sklearn_rank import *", namespace)
    assert set(ALL_BEFORE) <= set(namespace)
    assert not hasattr(sklearn_rank, "no_such_score")


def test_import_stays_light():
    loaded = _fresh(
        "import json, sys, sklearn_rank\n"
        "print(json.dumps([m for m in ('numpy', 'scipy', 'sklearn')"
        " if m in sys.modules]))"
    )
    assert loaded == []
