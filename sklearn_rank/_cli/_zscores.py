"""``sklearn-rank eval -Z FILE``: trec_eval's z-scores.

FILE holds lines ``qid measure mean sd`` (trec_eval's ``get_zscores.c``). Each
query's value of each measure becomes ``(value - mean) / sd`` (``0`` where ``sd``
is 0 and the value equals the mean), and :data:`MISSING` where the file has no
line for that query and measure, or ``sd`` is 0 and the value differs from the
mean (``convert_zscores.c``). The summary is then formed from the z-scores as
trec_eval forms it from values: the mean over queries, the sum for counts, and
``num_q`` and the run tag unchanged.
"""

from __future__ import annotations

import math

from ._output import RunResult

MISSING = -1000000.0  # trec_eval's MISSING_ZSCORE_VALUE


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(qid, measure): (mean, sd)}`` from a z-score file.

    Raises ValueError naming the file and line for a line that is not four
    whitespace-separated fields with numbers for the last two.
    """
    from ..io import read_bytes

    data, name = read_bytes(path)
    table = {}
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        fields = line.split()
        try:
            if len(fields) != 4:
                raise ValueError
            mean, sd = float(fields[2]), float(fields[3])
        except ValueError:
            raise ValueError(
                f"{name}, line {number}: expected 'qid measure mean sd' (four "
                f"fields, the last two numbers): {line.rstrip()!r}"
            ) from None
        table[fields[0], fields[1]] = (mean, sd)
    if not table:
        raise ValueError(f"{name}: the z-score file is empty")
    return table


def _z(value: float, entry: tuple[float, float] | None) -> float:
    if entry is None:
        return MISSING
    mean, sd = entry
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING


def apply_zscores(
    result: RunResult,
    labels: list[str],
    table: dict[tuple[str, str], tuple],
    n_queries: int | None = None,
) -> RunResult:
    """``result`` with every number replaced by its z-score (needs per-query
    values); the summary re-formed from the per-query z-scores, means over
    ``n_queries`` (``-c``: every judged query; default: the queries evaluated)."""
    per_query = {
        qid: {
            label: value
            if isinstance(value, str)
            else _z(value, table.get((qid, label)))
            for label, value in row.items()
        }
        for qid, row in result.per_query.items()
    }
    n = len(per_query)
    summary: dict[str, object] = {}
    for label in labels:
        value = result.summary[label]
        if value is None:  # per query only (relstring): no summary line
            summary[label] = None
        elif isinstance(value, str):
            summary[label] = value  # runid
        elif label == "num_q":
            summary[label] = float(value)  # num_q: printed as a number
        elif not any(label in row for row in per_query.values()):
            # A summary-only statistic (the geometric means): trec_eval averages
            # the logs of z-scores that are MISSING unless the file names it.
            if any(key[1] == label for key in table):
                raise ValueError(
                    f"-Z with z-scores for {label}: the z-scores of a summary-only "
                    "measure are not available; remove its lines from the file"
                )
            summary[label] = math.exp(MISSING) if n else 0.0
        else:
            total = 0.0
            for row in per_query.values():  # trec_eval's order of additions
                total += row[label]
            divisor = n if n_queries is None else n_queries
            summary[label] = (
                total if isinstance(value, int) else total / max(divisor, 1)
            )
    return RunResult(name=result.name, summary=summary, per_query=per_query)
