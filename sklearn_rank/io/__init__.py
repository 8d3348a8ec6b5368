"""Readers: TREC qrels and run files, tables, and ranked lists, as flat arrays."""

from ._numbers import TrecFormatWarning
from ._tables import RankedListArrays, ranked_list_arrays, read_table
from ._trec import Qrels, Run, TrecArrays, load_trec, read_qrels, read_run, trec_arrays

__all__ = [
    "Qrels",
    "RankedListArrays",
    "Run",
    "TrecArrays",
    "TrecFormatWarning",
    "load_trec",
    "ranked_list_arrays",
    "read_qrels",
    "read_run",
    "read_table",
    "trec_arrays",
]
