"""The recommender gallery example runs (small simulated data, seconds)."""

import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_recsys_catalogue_example_runs():
    pytest.importorskip("matplotlib", reason="needs matplotlib (the test extra)")
    import matplotlib.pyplot as plt

    # the example asserts that no list holds a training item
    namespace = runpy.run_path(str(EXAMPLES / "plot_recsys_catalogue.py"))
    results = namespace["results"]
    assert list(results) == ["popularity", "SVD 4", "SVD 16", "SVD 48", "NMF 8"]
    for values in results.values():
        assert list(values) == namespace["metrics"]
        assert all(np.isfinite(v) for v in values.values())
        assert 0 < values["catalog_coverage@10"] <= 1
    # the popularity baseline recommends the narrowest, most popular lists
    pop = results["popularity"]
    assert all(
        pop["catalog_coverage@10"] < v["catalog_coverage@10"]
        and pop["arp@10"] > v["arp@10"]
        for name, v in results.items()
        if name != "popularity"
    )
    assert namespace["search"].best_params_ == {"model__n_components": 4}
    plt.close("all")
