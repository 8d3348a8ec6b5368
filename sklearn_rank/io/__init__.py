"""Readers: TREC qrels and run files, tables, and ranked lists, as flat arrays."""

import importlib
from typing import Any

from ._columns import (
    QrelsColumns,
    RunColumns,
    TrecArrays,
    TrecColumns,
    join_columns,
    read_bytes,
    read_qrels_columns,
    read_run_columns,
    read_table_columns,
    table_format,
    table_numbers,
    table_qrels_columns,
    table_query_codes,
    table_run_columns,
)
from ._numbers import TrecFormatWarning

# Names whose modules load on first use: ``sklearn-rank eval`` on TREC files
# reads through ``_columns`` only (start-up time, issue 28).
_LAZY = {
    "RankedListArrays": "_tables",
    "id_column": "_tables",
    "ir_measures_provider": "_ir_provider",
    "ranked_list_arrays": "_tables",
    "read_table": "_tables",
    "Qrels": "_trec",
    "Run": "_trec",
    "load_trec": "_trec",
    "NdevalArrays": "_ndeval",
    "NdevalQrels": "_ndeval",
    "ndeval_arrays": "_ndeval",
    "read_ndeval_qrels": "_ndeval",
    "read_qrels": "_trec",
    "read_run": "_trec",
    "trec_arrays": "_trec",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "NdevalArrays",
    "NdevalQrels",
    "Qrels",
    "QrelsColumns",
    "RankedListArrays",
    "Run",
    "RunColumns",
    "TrecArrays",
    "TrecColumns",
    "TrecFormatWarning",
    "id_column",
    "ir_measures_provider",
    "join_columns",
    "load_trec",
    "ndeval_arrays",
    "ranked_list_arrays",
    "read_bytes",
    "read_ndeval_qrels",
    "read_qrels",
    "read_qrels_columns",
    "read_run",
    "read_run_columns",
    "read_table",
    "read_table_columns",
    "table_format",
    "table_numbers",
    "table_qrels_columns",
    "table_query_codes",
    "table_run_columns",
    "trec_arrays",
]
