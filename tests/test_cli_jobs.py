"""``sklearn-rank eval -j N``: the library's ``n_jobs`` on every call the
command makes; the printed text is the same at every N, byte for byte.

trec_eval's test files are small, so the threshold below which a shard is not
worth a thread is lowered to one row: the shard path really runs (counted).
"""

from __future__ import annotations

import numpy as np
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

    def spy(inputs, bounds, rows_of=None):
        calls.append(len(bounds) - 1)
        return split(inputs, bounds, rows_of)

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


COMPARE = {
    # the paired test and its intervals; relative_P: a call of its own
    "pairs": ["-c", "-m", "map,ndcg@10", "-m", "relative_P.5", *TWO_RUNS],
    "bootstrap": ["-c", "-m", "P.10", "--test", "bootstrap", "--ci-method", "BCa"],
    "tukey": ["-c", "-m", "map", "--systems-test", "tukey", *TWO_RUNS],
}
COMPARE["bootstrap"] += [*TWO_RUNS]


@pytest.fixture
def counted_blocks(monkeypatch):
    """The thread count of every resampling's blocks."""
    from sklearn_rank._metrics import bootstrap

    seen = []
    real = bootstrap.map_threads

    def spy(work, items, n_threads=None):
        seen.append(n_threads)
        return real(work, items, n_threads)

    monkeypatch.setattr(bootstrap, "map_threads", spy)
    return seen


@pytest.mark.parametrize("case", sorted(COMPARE))
def test_compare_output_is_the_same_at_every_jobs(
    case, capsys, counted_shards, counted_blocks
):
    argv = [a if not (DATA / a).exists() else str(DATA / a) for a in COMPARE[case]]
    outputs = []
    for jobs in ("1", "2", "3"):
        counted_shards.clear()
        counted_blocks.clear()
        argv_j = ["compare", "--quiet", "--resamples", "600", "-j", jobs, *argv]
        assert main(argv_j) == 0
        outputs.append(capsys.readouterr().out)
        # every run's evaluation and the resampling take -j
        assert set(counted_shards) == ({int(jobs)} if jobs != "1" else set())
        assert counted_blocks and set(counted_blocks) == {int(jobs)}
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


@pytest.mark.parametrize("value", ["0", "x", "1.5"])
def test_compare_bad_jobs_refused(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "-c", "-j", value, *(str(DATA / f) for f in TWO_RUNS)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sklearn-rank compare: error: argument -j")
    assert REFUSAL + f"got {value!r}" in err


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_segment_tables_take_jobs(
    command, tmp_path, capsys, counted_shards, counted_blocks
):
    """--segment-col: the segment tables' evaluation and their resampling run
    on -j threads; the same report at -j 1 and 2."""
    rng = np.random.default_rng(0)
    q = rng.integers(0, 30, 300)
    y = rng.integers(0, 3, q.size)
    lines = ["qid,label,a,b,cohort"]
    a, b = y + rng.normal(size=q.size), rng.normal(size=q.size)
    lines += [
        f"{i},{g},{x:.3f},{z:.3f},{'new' if i % 3 else 'old'}"
        for i, g, x, z in zip(q, y, a, b, strict=True)
    ]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    argv = [command, "--quiet", str(path), "--score-col", "a", "--score-col", "b"]
    argv += ["-m", "ndcg@10", "--segment-col", "cohort"]
    argv += ["--resamples", "300"] if command == "compare" else []
    outputs = []
    for jobs in ("1", "2"):
        counted_shards.clear()
        counted_blocks.clear()
        assert main([*argv, "-j", jobs]) == 0
        outputs.append(capsys.readouterr().out)
        assert set(counted_blocks) == {int(jobs)}
    assert counted_shards and set(counted_shards) == {2}
    assert "per segment of cohort" in outputs[0]
    assert outputs[1] == outputs[0]
