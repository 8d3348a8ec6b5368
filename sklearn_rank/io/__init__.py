"""Readers for TREC qrels and run files, joined into flat per-row arrays."""

from ._trec import Qrels, Run, TrecArrays, load_trec, read_qrels, read_run, trec_arrays

__all__ = [
    "Qrels",
    "Run",
    "TrecArrays",
    "load_trec",
    "read_qrels",
    "read_run",
    "trec_arrays",
]
