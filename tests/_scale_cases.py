"""Random grouped rows and option sweeps shared by the Dask and Spark tests.

The rows have ties (five score values), ragged groups (1 to 10 rows), groups
without a relevant row, zero sample weights, unretrieved and unjudged rows, and
integer group ids in no particular order. Every metric of the registry is asked
for (``@3`` where a cutoff applies); every convention keyword is swept over its
str choices and a number where it takes one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sklearn_rank._engine.conventions import OPTIONS
from sklearn_rank._metrics.registry import METRICS

# Labels 0..3 under every metric (ERR reads grades up to max_grade).
BASE = {"max_grade": 3.0}

# Numbers for the keywords that take one (beside their str choices).
NUMBERS = {
    "discount": [1.5],
    "relevance_threshold": [2.0],
    "undefined": [0.0, 0.25],
    "persistence": [0.5],
    "recall_level": [0.25, 1.0],
    "r_multiple": [0.4, 2.0],
    "max_grade": [4.0],
    # read by the intent-aware metrics only: the others must not change
    "alpha": [0.3],
    "beta": [0.8],
}
EXTRA = {
    "gain": [{0.0: -1.0, 1.0: 4.0, 2.0: 1.0, 3.0: 0.0}],
    "judged_only": [True],
    "integer_grades": [True],
}


def metric_names() -> list[str]:
    """Every metric of the registry with one label per row (the distributed
    front ends take no 2-D y_true), with a cutoff of 3 where one applies."""
    names = []
    for spec in METRICS.values():
        if spec.intents:
            continue
        if "recall_level" in spec.options and not spec.takes_k:
            names.append(f"{spec.name}@0.5")  # interpolated precision at r = 0.5
        else:
            names.append(f"{spec.name}@3" if spec.takes_k else spec.name)
    return names


def option_sweep() -> list[dict]:
    """One options dict per value of each keyword (the others at their default)."""
    combos = [dict(BASE)]
    for name, option in OPTIONS.items():
        values = [*option.choices, *NUMBERS.get(name, []), *EXTRA.get(name, [])]
        for value in values:
            if value == option.default:
                continue
            combos.append({**BASE, name: value})
    return combos


def random_rows(seed: int = 0, n_groups: int = 40, max_rows: int = 10) -> pd.DataFrame:
    """Rows of ``n_groups`` ragged groups, in random order."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_groups)
    ids = rng.choice(10**6, size=n_groups, replace=False)
    qid = np.repeat(ids, sizes)
    n = qid.size
    label = rng.integers(0, 4, size=n).astype(np.float64)
    label[np.isin(qid, ids[: n_groups // 4])] = 0.0  # groups without a relevant row
    judged = rng.random(n) < 0.8
    label[~judged] = 0.0
    rows = pd.DataFrame(
        {
            "qid": qid,
            "label": label,
            "score": rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], size=n),
            "sample_weight": rng.integers(0, 4, size=n).astype(np.float64),
            "retrieved": rng.random(n) < 0.85,
            "judged": judged,
        }
    )
    return rows.iloc[rng.permutation(n)].reset_index(drop=True)


def arrays(rows: pd.DataFrame) -> dict:
    """The in-memory evaluate keywords for ``rows``."""
    return {
        "groups": rows["qid"].to_numpy(),
        "sample_weight": rows["sample_weight"].to_numpy(),
        "retrieved": rows["retrieved"].to_numpy(),
        "judged": rows["judged"].to_numpy(),
    }


COLUMNS = {
    "groups": "qid",
    "sample_weight": "sample_weight",
    "retrieved": "retrieved",
    "judged": "judged",
}


def in_memory(rows: pd.DataFrame, metrics, options) -> tuple[dict, dict]:
    """(results of the metrics that evaluate computes, {metric: exception type}
    of those it refuses), each metric on its own."""
    from sklearn_rank import evaluate

    good, bad = {}, {}
    for name in metrics:
        try:
            good.update(
                evaluate(
                    rows["label"].to_numpy(),
                    rows["score"].to_numpy(),
                    metrics=[name],
                    **arrays(rows),
                    **options,
                )
            )
        except (ValueError, TypeError) as exc:
            bad[name] = type(exc)
    return good, bad


def assert_close(found: dict, expected: dict, tol: float = 1e-12) -> None:
    assert list(found) == list(expected)
    for name, value in expected.items():
        got = found[name]
        if np.isnan(value):
            assert np.isnan(got), name
        else:
            assert abs(got - value) <= tol * max(1.0, abs(value)), (name, got, value)
