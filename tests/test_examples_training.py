"""The training examples of the gallery run (the PyTorch one is shown, not run)."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_pytorch_loop_example_runs():
    pytest.importorskip("torch", reason="needs PyTorch (the test extra)")
    # the example asserts that the accumulated value equals one evaluate call
    namespace = runpy.run_path(str(EXAMPLES / "training_pytorch_loop.py"))
    assert len(namespace["history"]) == 8


def test_early_stopping_example_runs():
    pytest.importorskip("lightgbm", reason="needs LightGBM (the test extra)")
    pytest.importorskip("matplotlib", reason="needs matplotlib (the test extra)")
    import matplotlib.pyplot as plt

    namespace = runpy.run_path(str(EXAMPLES / "plot_training_early_stopping.py"))
    best = namespace["best"]
    assert 1 <= best.best_iteration_ <= 300
    # the stopping queries are training queries, none of them of the test set
    assert set(best.validation_groups_) <= set(namespace["qid"])
    plt.close("all")
