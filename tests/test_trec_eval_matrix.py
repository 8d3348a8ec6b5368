"""Differential test: every qrels/run pair of trec_eval's ``test/`` folder x a
matrix of flag combinations, against trec_eval's own output.

``tests/data/trec_eval/matrix/<pair>.out.gz`` holds, for each combination of
:data:`FLAGS`, a line ``### FLAGS`` and what ``trec_eval FLAGS QRELS RUN``
printed (trec_eval 10.0-rc3 built from source; see that folder's README). The
command's standard output must be the same bytes. :data:`DIFFERENT` lists the
few combinations where the command refuses on purpose (trec_eval's value is
undefined behaviour there), each with its reason; the test checks that they
still differ, so the list cannot go stale.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sklearn_rank._cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"

PAIRS = {
    "test": ("qrels.test", "results.test"),
    "trunc": ("qrels.test", "results.trunc"),
    "rel_level": ("qrels.rel_level", "results.test"),
    "302": ("qrels-302.test", "results-302.test"),
    "comment": ("qrels.comment.test", "results.comment.test"),
}

MEASURES = [
    "",  # trec_eval's default: official
    "-m all_trec",
    "-m set",
    "-m P.3,7 -m recall.4 -m map_cut.8 -m ndcg_cut.3",
    "-m ndcg.1=3,2=9 -m Rprec_mult.0.5,3",
    "-m 11pt_avg.0.1,0.9 -m iprec_at_recall.0.3",
    "-m utility.1,-0.5,-1,0 -m set_F.0.5",
    "-m rbp_resid.p=0.8 -m unj.3,50",
    "-m relstring.15 -m success.2",
    "-m bpref -m infAP -m gm_bpref -m gm_map",
    "-m ndcg_rel -m Rndcg -m binG -m G",
    "-m relative_P.7 -m num_nonrel_judged_ret -m recip_rank",
    # (with -m dcg beside it trec_eval crashes: two measures share the gains)
    "-m ndcg.0=1,1=0.5 -m ndcg_cut.5",
    "-m ideal_dcg -m yaap -m dcg",
]
OPTIONS = [
    "",
    "-q",
    "-c",
    "-q -c",
    "-J",
    "-q -J",
    "-M 50",
    "-q -M 7",
    "-l 2",
    "-c -J -M 20",
    "-n -q",
    "-N 1000 -c",
    "-q -l 2 -J",
    # At or below 0 (docs/cli.md): unjudged documents relevant at their ranks.
    "-q -l -1",
    "-c -l -2",
    "-q -l 0 -J",
]
# Each measure set with 5 of the option sets, in rotation so that every option
# set meets several measure sets: 14 x 5 = 70 combinations per pair.
FLAGS = [
    " ".join(filter(None, (OPTIONS[(5 * i + j) % len(OPTIONS)], m)))
    for i, m in enumerate(MEASURES)
    for j in range(5)
]

# (pair, flags) -> why the command refuses where trec_eval prints a number.
_GRADED = ("rel_level", "comment")
_RBP = "trec_eval's graded rbp reads uninitialised memory (m_rbp.c)"
_MISSING = (
    "trec_eval 10.0 stops (exit 4, 'result qid 302 not found in qrels') when a "
    "judged query is missing from the run without -c; the command evaluates the "
    "run's queries, as trec_eval 9 did"
)
DIFFERENT = {
    (pair, flags): _RBP for pair in _GRADED for flags in FLAGS if "all_trec" in flags
}
DIFFERENT.update(
    {("trunc", flags): _MISSING for flags in FLAGS if "-c" not in flags.split()}
)


def _sections(pair: str) -> dict[str, str]:
    text = gzip.decompress((DATA / "matrix" / f"{pair}.out.gz").read_bytes())
    out: dict[str, str] = {}
    for block in text.decode("utf-8").split("### ")[1:]:
        flags, _, body = block.partition("\n")
        out[flags] = body
    return out


def _run(flags: str, pair: str, capsys) -> tuple[int, str]:
    qrels, run = PAIRS[pair]
    argv = ["eval", "--quiet", *flags.split(), str(DATA / qrels), str(DATA / run)]
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    return status, capsys.readouterr().out


def test_matrix_is_large_enough():
    assert len(set(FLAGS)) >= 60
    assert len(PAIRS) * len(FLAGS) - len(DIFFERENT) >= 60 * len(PAIRS) - 60


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_every_flag_combination_prints_trec_eval_bytes(pair, capsys):
    expected = _sections(pair)
    assert sorted(expected) == sorted(FLAGS)  # the file holds the whole matrix
    wrong, still_refused = [], []
    for flags in FLAGS:
        status, out = _run(flags, pair, capsys)
        if (pair, flags) in DIFFERENT:
            if status == 0 and out == expected[flags]:
                still_refused.append(flags)  # fixed: take it off the list
            continue
        if status != 0 or out != expected[flags]:
            wrong.append(flags)
    assert not wrong, f"{len(wrong)} of {len(FLAGS)} differ from trec_eval: {wrong}"
    assert not still_refused, f"now equal, remove from DIFFERENT: {still_refused}"
