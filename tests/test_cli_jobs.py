"""``sklearn-rank eval -j N``: the library's ``n_jobs`` on every call the
command makes; the printed text is the same at every N, byte for byte.

trec_eval's test files are small, so the threshold below which a shard is not
worth a thread is lowered to one row: the shard path really runs (counted).
"""

from __future__ import annotations

import pytest
from test_cli_eval_trec_eval import CASES, DATA

from sklearn_rank._cli import main
from sklearn_rank._metrics import shards

NEGATIVE = ["-m", "official", "-m", "set", "-m", "relative_P", "-m", "success"]
NEGATIVE += ["-m", "binG", "-m", "infAP", "-m", "ndcg", "-m", "Rndcg", "-m"]
NEGATIVE += ["ndcg_rel", "-m", "11pt_avg", "-m", "Rprec_mult", "-m", "relstring"]
NEGATIVE += ["qrels.negative_level", "results.negative_level"]

FILES = ("qrels.test", "results.test")
REFUSAL = "must be an integer other than 0 (1 for one thread, -1 for all cores), "

GRADED = ("qrels.rel_level", "results.trunc")
TWO_RUNS = ("qrels.test", "results.test", "results.trunc")

ARGV = {
    **CASES,
    "aqcJ": ["-c", "-J", "-q", "-m", "all_trec", "qrels.test", "results.trunc"],
    "l0c": ["-q", "-c", "-m", "all_trec", "-l", "0", "qrels.test", "results.trunc"],
    "l1aq": ["-q", "-l", "-1", "-m", "all_trec", "qrels.test", "results.test"],
    "negative_l1c": ["-q", "-c", "-l", "-1", *NEGATIVE],
    "negative_l2cJ": ["-q", "-c", "-J", "-l", "-2", *NEGATIVE],
    "negative_l1cM5": ["-q", "-c", "-M", "5", "-l", "-1", *NEGATIVE],
    "gains_cJ": ["-q", "-J", "-c", "-m", "ndcg.-1=2,2=0.5", *GRADED],
    "library": ["-q", "-m", "ndcg@10,map,mrr,precision@5,recall@100", *TWO_RUNS],
}


def _run(argv, capsys, *jobs):
    files = [a if not (DATA / a).exists() else str(DATA / a) for a in argv]
    assert main(["eval", "--quiet", *jobs, *files]) == 0
    return capsys.readouterr().out


@pytest.fixture
def counted_shards(monkeypatch):
    """Shards from one row up; the number of sharded calls, counted."""
    calls = []
    split = shards.split_inputs

    def spy(inputs, bounds):
        calls.append(len(bounds) - 1)
        return split(inputs, bounds)

    monkeypatch.setattr(shards, "MIN_ROWS_PER_SHARD", 1)
    monkeypatch.setattr(shards, "split_inputs", spy)
    return calls


@pytest.mark.parametrize("case", sorted(ARGV))
@pytest.mark.parametrize("jobs", [["-j", "2"], ["--jobs", "3"], ["-j", "-1"]])
def test_output_is_the_same_at_every_jobs(case, jobs, capsys, counted_shards):
    one = _run(ARGV[case], capsys, "-j", "1")
    assert counted_shards == []
    many = _run(ARGV[case], capsys, *jobs)
    assert many == one
    if jobs[1] != "-1":  # (-1: the machine's cores, perhaps one)
        assert counted_shards and max(counted_shards) > 1


def test_default_is_one_thread(capsys, counted_shards):
    _run(CASES["out.test"], capsys)
    assert counted_shards == []


@pytest.mark.parametrize("value", ["0", "x", "1.5", ""])
def test_bad_jobs_refused(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "-j", value, *(str(DATA / f) for f in FILES)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sklearn-rank eval: error: argument -j")
    assert REFUSAL + f"got {value!r}" in err
