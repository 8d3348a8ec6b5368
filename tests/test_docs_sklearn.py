"""The Python blocks of docs/scikit-learn.md run, in order, and print what they say."""

import contextlib
import io
import re
from pathlib import Path

import pytest
import sklearn
from threadpoolctl import threadpool_limits

DOC = Path(__file__).resolve().parents[1] / "docs" / "scikit-learn.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_doc_has_examples():
    assert len(python_blocks()) >= 5


def test_doc_examples_run():
    namespace = {}
    printed = []
    for block in python_blocks():
        if "lightgbm" in block:
            pytest.importorskip("lightgbm")
        out = io.StringIO()
        # One thread per fit: OpenMP threads competing for two shared cores make
        # HistGradientBoostingRegressor crawl.
        with contextlib.redirect_stdout(out), threadpool_limits(limits=1):
            exec(compile(block, str(DOC), "exec"), namespace)
        printed.append(out.getvalue().strip())
    assert sklearn.get_config()["enable_metadata_routing"] is False
    assert 0.5 < float(printed[0]) <= 1.0  # NDCG@10 with routing
    assert 0.5 < float(printed[1]) <= 1.0  # NDCG@10 from the group column
    assert printed[2].startswith("RankingScorer(metric='map') got no groups")
    assert "'mean_test_ndcg@10'" in printed[3] and "'mean_test_gauc'" in printed[3]
    assert printed[4] == "3"
    assert printed[5] == "True"
