"""Readers: TREC qrels and run files, tables, and ranked lists, as flat arrays."""

from ._columns import (
    QrelsColumns,
    RunColumns,
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
from ._tables import RankedListArrays, id_column, ranked_list_arrays, read_table
from ._trec import Qrels, Run, TrecArrays, load_trec, read_qrels, read_run, trec_arrays

__all__ = [
    "Qrels",
    "QrelsColumns",
    "RankedListArrays",
    "Run",
    "RunColumns",
    "TrecArrays",
    "TrecColumns",
    "TrecFormatWarning",
    "id_column",
    "join_columns",
    "load_trec",
    "ranked_list_arrays",
    "read_bytes",
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
