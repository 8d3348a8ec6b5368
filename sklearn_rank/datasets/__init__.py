"""Bundled learning-to-rank data."""

from sklearn_rank.datasets._lambdarank import load_lambdarank

__all__ = ["load_lambdarank"]
