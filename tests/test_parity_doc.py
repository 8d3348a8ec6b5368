"""docs/parity.md is generated from live runs of trec_eval (pytrec_eval),
scikit-learn, LightGBM and XGBoost next to the presets: a preset or option that
changes without regenerating it fails here, and so does a preset that stops
matching its library where the page says it matches."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytrec_eval")
pytest.importorskip("lightgbm")
pytest.importorskip("xgboost")

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "make_parity_matrix.py"


def _without_versions(text: str) -> list[str]:
    # The versions line names whatever is installed; CI may resolve newer ones.
    return [line for line in text.splitlines() if not line.startswith("Versions used")]


def test_parity_page_is_current():
    spec = importlib.util.spec_from_file_location("make_parity_matrix", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    built = _without_versions(module.build())
    assert built == _without_versions(module.OUT.read_text()), (
        "docs/parity.md is stale: run python docs/make_parity_matrix.py"
    )
