"""``n_jobs`` refused alike on every library entry point that takes it (issue
48): 0, a float, a string and a bool each raise the one error format, naming
``n_jobs`` and the function called (the command line's ``-j`` is tested in
test_cli_jobs.py, the readers' ``n_jobs`` in test_trec_io_threads.py)."""

import numpy as np
import pytest

from sklearn_rank import (
    GroupScores,
    evaluate,
    evaluate_by_segment,
    evaluate_per_group,
    make_ranking_scorer,
    prepare,
)
from sklearn_rank.stats import bootstrap_ci, compare, compare_by_segment, tukey_hsd

Y = np.array([1, 0, 2, 0, 1, 0])
S = np.array([0.9, 0.1, 0.8, 0.3, 0.2, 0.7])
G = np.array([0, 0, 1, 1, 2, 2])
SEGMENTS = [0, 0, 1, 1, 1, 1]
RUNS = {"a": S, "b": S[::-1].copy()}
SCORES = {
    m: GroupScores(np.arange(5), {"x": np.linspace(0, 1, 5) + d}, {"x": np.ones(5)})
    for m, d in (("a", 0.0), ("b", 0.1))
}
ARRAYS = {"groups": G, "metrics": ["ndcg@10"]}

CALLS = {
    "evaluate": lambda j: evaluate(Y, S, groups=G, n_jobs=j),
    "evaluate_per_group": lambda j: evaluate_per_group(Y, S, groups=G, n_jobs=j),
    "evaluate_by_segment": lambda j: evaluate_by_segment(
        Y, S, groups=G, segments=SEGMENTS, n_jobs=j
    ),
    "make_ranking_scorer": lambda j: make_ranking_scorer("ndcg@10", n_jobs=j),
    "prepare": lambda j: prepare(Y, groups=G, metrics=["ndcg@10"], n_jobs=j),
    "bootstrap_ci": lambda j: bootstrap_ci(None, SCORES["a"], n_jobs=j),
    "compare": lambda j: compare(None, SCORES, n_jobs=j),
    "compare (arrays)": lambda j: compare(Y, RUNS, **ARRAYS, n_jobs=j),
    "tukey_hsd": lambda j: tukey_hsd(None, SCORES, metric="x", n_jobs=j),
    "compare_by_segment": lambda j: compare_by_segment(
        Y, RUNS, segments=SEGMENTS, **ARRAYS, n_jobs=j
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_n_jobs_is_refused_by_name(name):
    func = name.split()[0]
    for bad in (0, 1.5, "2", True):
        with pytest.raises(ValueError) as exc:
            CALLS[name](bad)
        message = str(exc.value)
        assert message.startswith(f"The 'n_jobs' parameter of {func} must be an int")
        assert f"Got {bad!r} instead." in message
        if bad == 0:
            assert "Pass n_jobs=1 for one thread." in message
