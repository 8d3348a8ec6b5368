"""The seven commands where ``sklearn-rank eval`` printed other numbers than
trec_eval (issue 28) now print trec_eval's bytes.

Each expected file in tests/data/trec_eval was printed by trec_eval 10.0-rc3
built from source (command lines in that folder's README); the whole standard
output must be equal, byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _trec_eval_files import DUPLICATE_CASES, DUPLICATES

from sklearn_rank._cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
BOM = b"\xef\xbb\xbf"

_NEGATIVE_LEVEL_MEASURES = (
    "-m official -m set -m relative_P -m success -m binG -m infAP -m utility "
    "-m G -m ndcg -m Rndcg -m ndcg_rel -m 11pt_avg -m Rprec_mult "
    "-m num_nonrel_judged_ret -m relstring"
)

CASES = {
    # 1. -l is read with atol: 2.5 is level 2.
    "out.test.l2_5": "-q -l 2.5 -m official qrels.rel_level results.test",
    # 2. trec_eval's ideal order of gain levels (comp_rel_gain truncates).
    "out.comment.ndcg_gains": "-m ndcg.1=0.5 qrels.comment.test results.comment.test",
    "out.test.ndcg_gains_order": "-q -m ndcg.2=0.5 qrels.rel_level results.test",
    # 3. level -1: the documents without a qrels line gain 2.
    "out.test.ndcg_unjudged_gain": "-q -m ndcg.-1=2 qrels.rel_level results.test",
    "out.test.ndcg_gains_cJ": "-q -J -c -m ndcg.-1=2,2=0.5 qrels.rel_level "
    "results.trunc",
    # 4. -D 0.QID -c: geometric means over every judged query.
    "out.test.D301c": "-D 0.301 -c -m official -m gm_bpref qrels.test results.test",
    # -l below 0: unjudged documents relevant at their ranks (-1: no qrels
    # line, -c's stand-in included; -2: a negative grade), not in num_rel;
    # iprec, 11pt_avg and Rprec_mult count from num_rel_ret at the bottom.
    "out.test.l1aq": "-q -l -1 -m all_trec qrels.test results.test",
    **{
        f"out.negative_level.{name}": f"-q {flags} {_NEGATIVE_LEVEL_MEASURES} "
        "qrels.negative_level results.negative_level"
        for name, flags in [
            ("l1c", "-c -l -1"),
            ("l2c", "-c -l -2"),
            ("l1cM5", "-c -M 5 -l -1"),
            ("l2cJ", "-c -J -l -2"),
        ]
    },
    # -c's num_rel counts qrels lines graded above 0 read with atol (0.7: 0).
    "out.fraction.c": "-c -m official qrels.fraction results.test",
    # 5. -nan where a query ranks nothing under -J.
    "out.test.aqcJ": "-c -J -q -m all_trec qrels.test results.trunc",
    # Refused before, computed as trec_eval now.
    "out.test.refused_before": "-q -m Rprec_mult.0,0.5 -m rbp.p=0 "
    "-m iprec_at_recall.0.5,1.04,1.5 -M 3.7 -N 1e3 -m utility qrels.test "
    "results.test",
    "out.test.refused_before_c": "-q -c -m rbp.p=1 -m ideal_dcg.1=3,-1=2 -m yaap "
    "qrels.test results.trunc",
    "out.rel_level.rbp_resid_p1": "-q -c -m rbp_resid.p=1 qrels.rel_level "
    "results.trunc",
    "out.rel_level.rbp_resid_p0": "-q -J -m rbp_resid.p=0 qrels.rel_level results.test",
    # -M 0: every query ranks nothing (no -c stand-in document either).
    "out.test.M0": "-q -m all_trec -M 0 qrels.test results.test",
    "out.rel_level.M0c": "-q -c -M 0 -m official -m ndcg.-1=2 -m rbp_resid.p=0.5 "
    "-m utility.1,-1,0,0.5 qrels.rel_level results.trunc",
    # Gain parameters on G, ndcg_rel and Rndcg: the library's kernels with the
    # gain keyword and the trec_eval convention's ideal_order.
    "out.rel_level.G_gains_c": "-q -c -m G.-1=1,1=0.5,3=2.5 qrels.rel_level "
    "results.trunc",
    "out.rel_level.ndcg_rel_Rndcg_gains": "-q -m ndcg_rel.2=0.5,0=0.3 "
    "-m Rndcg.1=3.5,2=9.0,4=7.0 qrels.rel_level results.test",
    "out.rel_level.Rndcg_G_gains_J": "-q -J -m Rndcg.1=0.5 -m G.2=0.5 "
    "qrels.rel_level results.test",
    # ndcg_rel: 0 where the sum is <= 0; Rndcg: 0 / 0 (-nan) where the walk
    # down trec_eval's level order stops at once.
    "out.comment.ndcg_rel_gains": "-q -m ndcg_rel.1=0.5 qrels.comment.test "
    "results.comment.test",
    "out.comment.Rndcg_gains": "-q -m Rndcg.1=0.5 qrels.comment.test "
    "results.comment.test",
    # -l 0 (and 0.5, read with atol): every judged document is relevant.
    "out.test.l0c": "-q -c -m all_trec -l 0 qrels.test results.trunc",
    "out.rel_level.l0J": "-q -J -l 0.5 -m official -m Rndcg -m ndcg_rel -m G "
    "-m binG -m infAP -m set -m 11pt_avg qrels.rel_level results.test",
    # Found by a random edge trial: rbp_resid's p^i by repeated products, as
    # m_rbp_resid.c (pow differs in the last bits; the mean sits on a rounding
    # boundary).
    "out.rbp_resid_mean": "-q -c -m rbp_resid qrels.rbp_resid_mean "
    "results.rbp_resid_mean",
    # -R qrels_jg under -c: a group none of whose queries the run has still
    # counts (its queries print zeros); under -M 0 every group counts.
    "out.jg_edge.cq": "-R qrels_jg -q -c -m qrels_jg qrels.jg_edge results.jg_edge",
    "out.jg_edge.cqM0": "-R qrels_jg -q -c -M 0 -m qrels_jg qrels.jg_edge "
    "results.jg_edge",
    "out.test.qrels_jg_M0": "-R qrels_jg -q -M 0 -m qrels_jg qrels.123 results.test",
}


def _argv(expected: str) -> list[str]:
    return [
        str(DATA / a) if (DATA / a).exists() else a for a in CASES[expected].split()
    ]


@pytest.mark.parametrize("expected", sorted(CASES))
def test_prints_trec_eval_bytes(expected, capsys):
    assert main(["eval", "--quiet", *_argv(expected)]) == 0
    assert capsys.readouterr().out == (DATA / expected).read_text()


def test_byte_order_mark_is_part_of_the_first_query_id(tmp_path, capsys):
    # 7. trec_eval reads "\ufeff301" as a query of its own (not judged).
    run = tmp_path / "results.test.bom"
    run.write_bytes(BOM + (DATA / "results.test").read_bytes())
    argv = ["-q", "-m", "num_ret", "-m", "map", str(DATA / "qrels.test"), str(run)]
    assert main(["eval", "--quiet", *argv]) == 0
    assert capsys.readouterr().out == (DATA / "out.test.bom").read_text()


@pytest.mark.parametrize("spec", ["", ",", "map,", "P.5,,10"])
def test_empty_measure_is_an_error(spec, capsys):
    # 6. trec_eval: "illegal measure ''", exit 1, nothing on stdout; here a
    # usage error (exit 2) naming the measure.
    with pytest.raises(SystemExit) as info:
        main(["eval", "-m", spec, *_argv("out.test.l2_5")[-2:]])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and f"illegal measure {spec!r}" in err
    assert err.count("\n") == 1


def test_another_convention_keeps_the_ideal_order(capsys):
    # The library's NDCG sorts the ideal ranking by gain: query 303 of
    # ndcg.2=0.5 is 0.3669 there, 0.0000 under trec_eval's order.
    argv = _argv("out.test.ndcg_gains_order")
    assert main(["eval", "--quiet", "--convention", "sklearn_rank", *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "ndcg_2=0.5            \t303\t0.3669" in lines


def test_a_negative_level_without_judged_relevant_documents_is_refused(
    tmp_path, capsys
):
    # Query q1 has one qrels line, a negative grade: num_rel 0. At -l -2 its
    # ranked document is relevant, so trec_eval divides by 0 (map and binG
    # print inf): refused, naming the query; at -l -1 it is not relevant.
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("q0 0 d0 1\nq0 0 d1 0\nq1 0 d0 -1\n")
    run.write_text("q0 Q0 d1 1 0.5 r\nq0 Q0 d0 2 0.2 r\nq1 Q0 d0 1 1.0 r\n")
    assert main(["eval", "--quiet", "-l", "-2", str(qrels), str(run)]) == 1
    err = capsys.readouterr().err
    assert "query 'q1' has no judged relevant document (num_rel 0)" in err
    assert main(["eval", "--quiet", "-q", "-l", "-1", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # q0: d1 (grade 0) is relevant at -l -1, and so is d0: map 1.
    assert "map                   \tq0\t1.0000" in lines
    assert "P_5                   \tq1\t0.0000" in lines


def test_rndcg_of_a_query_without_judged_relevant_documents_is_0(tmp_path, capsys):
    # q2 is judged only with a negative grade (num_rel 0): trec_eval's Rndcg
    # returns 0 there, though at -l -1 its document without a qrels line is
    # relevant at its rank (-J drops it); q0's -nan is trec_eval's 0 / 0.
    # Expected lines printed by trec_eval 10.0-rc3 (-q -J -l -1 -m Rndcg -m P.5).
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(
        "q0 0 d001 0\nq1 0 d000 0\nq1 0 d001 2\nq1 0 d002 1\nq1 0 d003 3\n"
        "q1 0 d004 1\nq1 0 d005 0\nq2 0 d002 -1\nq3 0 d000 1\nq3 0 d002 2\n"
        "q3 0 d003 2\n"
    )
    run.write_text(
        "q0 Q0 d001 1 0.2500 run\nq1 Q0 d004 1 0.5000 run\n"
        "q1 Q0 d002 2 0.5000 run\nq2 Q0 d001 1 0.5000 run\n"
        "q2 Q0 d002 2 0.2500 run\nq3 Q0 d002 1 0.5000 run\n"
    )
    argv = ["-q", "-J", "-l", "-1", "-m", "Rndcg", "-m", "P.5", str(qrels), str(run)]
    assert main(["eval", "--quiet", *argv]) == 0
    expected = [
        ("P_5", "q0", "0.2000"), ("Rndcg", "q0", "  -nan"),
        ("P_5", "q1", "0.4000"), ("Rndcg", "q1", "0.3434"),
        ("P_5", "q2", "0.0000"), ("Rndcg", "q2", "0.0000"),
        ("P_5", "q3", "0.2000"), ("Rndcg", "q3", "0.5724"),
        ("P_5", "all", "0.2000"), ("Rndcg", "all", "  -nan"),
    ]  # fmt: skip
    lines = [f"{m:<22s}\t{q}\t{v}" for m, q, v in expected]
    assert capsys.readouterr().out.splitlines() == lines


def test_a_negative_level_reads_a_number_for_undefined(capsys):
    with pytest.raises(SystemExit) as info:
        main(["eval", "--undefined", "skip", "-l", "-1", *_argv("out.test.l2_5")[-2:]])
    assert info.value.code == 2
    assert "-l -1 is trec_eval's reading" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("expected", "flags"),
    [("out.latin1.aq", ["-q", "-m", "all_trec"]),
     ("out.latin1.qJ", ["-q", "-J", "-m", "official", "-m", "relstring"])],
)  # fmt: skip
def test_ids_that_are_not_utf8_are_compared_and_printed_as_bytes(expected, flags):
    # qrels.latin1 / results.latin1 hold Latin-1 ids (q\xe9, d\xe9..., a run
    # tag run\xe9) beside UTF-8 ones (q\xc3\xa9, q + CJK): trec_eval orders
    # them by their bytes (strcmp) and prints the bytes back. A process of its
    # own: standard output is bytes here.
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
    files = [str(DATA / "qrels.latin1"), str(DATA / "results.latin1")]
    out = subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "eval", "--quiet", *flags, *files],
        capture_output=True,
        check=True,
        env=env,
    ).stdout
    assert out == (DATA / expected).read_bytes()


def test_ids_that_are_not_utf8_are_refused_under_another_convention(capsys):
    files = [str(DATA / "qrels.latin1"), str(DATA / "results.latin1")]
    argv = ["eval", "--convention", "sklearn_rank", *files]
    assert main(argv) == 1
    assert "line 1: not valid UTF-8 (byte 0xe9" in capsys.readouterr().err


@pytest.mark.parametrize(("expected", "flags"), DUPLICATE_CASES)
def test_a_document_listed_twice_below_the_cutoff_is_computed(
    expected, flags, tmp_path, capsys
):
    # trec_eval checks for a document listed twice among the top -M only.
    run = tmp_path / "results.dup"
    run.write_text((DATA / "results.test").read_text() + DUPLICATES)
    argv = [*flags, str(DATA / "qrels.test"), str(run)]
    assert main(["eval", "--quiet", *argv]) == 0
    assert capsys.readouterr().out == (DATA / expected).read_text()
    # Both copies kept (-M 501, or no -M): an error naming both lines, as
    # trec_eval's (exit 4 there).
    assert main(["eval", "--quiet", "-M", "501", *argv[-2:]]) == 1
    err = capsys.readouterr().err
    assert "line 1501: duplicate document 'FBIS3-20713'" in err
    assert "(first listed on line 119) within the top 501 (-M)" in err


def test_ideal_dcg_of_a_query_judged_only_negative_is_refused(tmp_path, capsys):
    # trec_eval 10.0-rc3 prints q1's ideal_dcg as 1.0000 here (q0's value: its
    # level counts are not reset when no judgment has a level >= 0; seen with
    # -D 1), while its dcg / ndcg of q1 are 0: refused rather than a different number.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q0 0 d1 1\nq1 0 d2 -1\n")
    run.write_text("q0 Q0 d1 1 2.0 r\nq1 Q0 d2 1 1.0 r\n")
    argv = ["eval", "-q", "-m", "ideal_dcg", str(qrels), str(run)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "query 'q1' is judged only with negative grades" in err
    assert main([*argv[:1], "--quiet", "--convention", "sklearn_rank", *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert "ideal_dcg             \tq1\t0.0000" in out
    # Without such a query the measure computes (trec_eval's q0 value).
    qrels.write_text("q0 0 d1 1\nq1 0 d2 2\n")
    assert main(["eval", "--quiet", *argv[1:]]) == 0
    assert "ideal_dcg             \tq0\t1.0000" in capsys.readouterr().out
