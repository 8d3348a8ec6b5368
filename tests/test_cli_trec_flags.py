"""``sklearn-rank eval`` takes every flag of trec_eval 10.0 (trec_eval.c), under its
letter and its long name, or refuses it with a documented reason.

The expected values come from trec_eval's own outputs in tests/data/trec_eval
(out.test.aq: ``-q -m all_trec``; out.test.aqZ: ``-Z zscores_file``) and from
trec_eval.c (its getopt string and long options, copied below by hand).
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from sklearn_rank._cli import _flags, get_parser, main

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN = str(DATA / "qrels.test"), str(DATA / "results.test")
DOCS = Path(__file__).parents[1] / "docs" / "cli.md"

# trec_eval.c: getopt_long(argc, argv, "hvqm:cl:nD:JN:M:R:T:oZ:", long_options)
TREC_EVAL_LETTERS = set("hvqmclnDJNMRToZ")
TREC_EVAL_LONG = {
    "help",
    "version",
    "query_eval_wanted",
    "measure",
    "complete_rel_info_wanted",
    "level_for_rel",
    "nosummary",
    "Debug_level",
    "Judged_docs_only",
    "Number_docs_in_coll",
    "Max_retrieved_per_topic",
    "Rel_info_format",
    "Results_format",
    "Output_old_results_format",
    "Zscore",
}


def _eval(argv, capsys):
    status = main(["eval", "--quiet", *argv])
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        main(["eval", *argv])
    assert info.value.code == 2
    return capsys.readouterr().err


def _trec_lines(name: str, measures: set[str], qids: set[str]) -> list[str]:
    return [
        line
        for line in (DATA / name).read_text().splitlines()
        if line.split("\t")[0].strip() in measures and line.split("\t")[1] in qids
    ]


# ------------------------------------------------------------------ the one table


def test_the_table_holds_every_trec_eval_flag():
    assert {f.letter[1] for f in _flags.FLAGS} == TREC_EVAL_LETTERS
    assert {f.trec_long[2:] for f in _flags.FLAGS} == TREC_EVAL_LONG


def test_the_parser_reads_the_table():
    """Each flag's letter, trec_eval long name and own names reach the parser."""
    parser = get_parser()
    sub = parser._subparsers._group_actions[0].choices["eval"]
    options = {s for a in sub._actions for s in a.option_strings}
    for flag in _flags.FLAGS:
        assert {flag.letter, flag.trec_long, *flag.names} <= options


def test_the_docs_hold_the_table():
    assert _flags.docs_table() in DOCS.read_text()


def test_help_shows_the_sections(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = capsys.readouterr().out
    positions = [out.index(f"\n{title}:\n") for title in _flags.GROUPS.values()]
    assert positions == sorted(positions)  # inputs, measures, conventions, output
    assert list(_flags.GROUPS) == ["inputs", "measures", "conventions", "output"]
    for letter in sorted(TREC_EVAL_LETTERS):
        assert f"-{letter}" in out


# ------------------------------------------------------------------ each flag


@pytest.mark.parametrize(
    ("short", "long"),
    [
        (["-q"], ["--query_eval_wanted"]),
        (["-c"], ["--complete_rel_info_wanted"]),
        (["-l", "2"], ["--level_for_rel", "2"]),
        (["-n"], ["--nosummary"]),
        (["-J"], ["--Judged_docs_only"]),
        (["-M", "10"], ["--Max_retrieved_per_topic", "10"]),
        (["-m", "P.5"], ["--measure", "P.5"]),
        (["-D", "0.302"], ["--Debug_level", "0.302"]),
    ],
)
def test_long_names_equal_letters(short, long, capsys):
    base = ["-m", "map", "-q"]
    assert _eval([*base, *short, QRELS, RUN], capsys) == _eval(
        [*base, *long, QRELS, RUN], capsys
    )


def test_version(capsys):
    for flag in ("-v", "--version"):
        with pytest.raises(SystemExit) as info:
            main(["eval", flag])
        assert info.value.code == 0
        out = capsys.readouterr().out
        assert re.match(r"sklearn-rank \S+ \(trec_eval 10\.0 options and output\)", out)


def test_debug_query_evaluates_one_query(capsys):
    """-D 0.302: trec_eval evaluates query 302 only (its 'all' is 302's value)."""
    out = _eval(["-D", "0.302", "-q", "-m", "map", "-m", "P.5", QRELS, RUN], capsys)
    expected = _trec_lines("out.test.aq", {"map", "P_5"}, {"302"})
    assert out.splitlines() == [
        *expected,
        *(line.replace("\t302\t", "\tall\t") for line in expected),
    ]
    assert "-D 0.999: query '999'" in _error(["-D", "0.999", QRELS, RUN], capsys)
    assert "debug traces" in _usage_error(["-D", "1", QRELS, RUN], capsys)


def _error(argv, capsys) -> str:
    assert main(["eval", "--quiet", *argv]) == 1
    return capsys.readouterr().err


def test_rel_info_and_results_formats(capsys):
    default = _eval(["-m", "map", QRELS, RUN], capsys)
    assert (
        _eval(["-R", "qrels", "-T", "trec_results", "-m", "map", QRELS, RUN], capsys)
        == default
    )
    for fmt in ("prefs", "qrels_prefs"):
        err = _usage_error(["-R", fmt, QRELS, RUN], capsys)
        assert "preference measures" in err and "not available" in err
    assert "preference measures" in _usage_error(
        ["-m", "all_prefs", QRELS, RUN], capsys
    )
    assert "need -R qrels_jg" in _usage_error(["-m", "map_avgjg", QRELS, RUN], capsys)
    err = _usage_error(["-R", "qrels_jg", "-m", "map", QRELS, RUN], capsys)
    assert "not computed from judgment groups" in err
    assert "invalid choice" in _usage_error(["-T", "foo", QRELS, RUN], capsys)


def test_obsolete_o_and_collection_size_are_accepted(capsys):
    default = _eval(["-m", "map,P.5", QRELS, RUN], capsys)
    assert _eval(["-o", "-N", "1000", "-m", "map,P.5", QRELS, RUN], capsys) == default
    assert "must be an integer" in _usage_error(["-N", "x", QRELS, RUN], capsys)
    # trec_eval reads -N and -M with atol: 1e3 is 1, 3.7 is 3.
    assert _eval(["-N", "1e3", "-m", "utility", QRELS, RUN], capsys) == _eval(
        ["-N", "1", "-m", "utility", QRELS, RUN], capsys
    )
    assert _eval(["-M", "3.7", "-m", "map", QRELS, RUN], capsys) == _eval(
        ["-M", "3", "-m", "map", QRELS, RUN], capsys
    )


def test_dash_reads_the_run_from_standard_input(monkeypatch, capsys):
    stdin = io.TextIOWrapper(io.BytesIO(Path(RUN).read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert _eval(["-m", "map", QRELS, "-"], capsys) == _eval(
        ["-m", "map", QRELS, RUN], capsys
    )
    assert "once" in _usage_error([QRELS, "-", "-"], capsys)


def test_zscores_equal_trec_eval(tmp_path, capsys):
    """-Z: every line we print equals out.test.aqZ (trec_eval -q -m all_trec -Z),
    and the summary without -q equals its 'all' lines."""
    z = str(DATA / "zscores_file")
    got = _eval(["-q", "-m", "all_trec", "-Z", z, QRELS, RUN], capsys).splitlines()
    names = {line.split("\t")[0].strip() for line in got}
    expected = [
        line
        for line in (DATA / "out.test.aqZ").read_text().splitlines()
        if line.split("\t")[0].strip() in names
    ]
    assert got == expected and len(got) > 200
    assert {"Zmap", "ZP_5", "Znum_ret", "Znum_q", "runid"} <= names
    summary = _eval(["-m", "all_trec", "--Zscore", z, QRELS, RUN], capsys)
    assert summary.splitlines() == [line for line in expected if "\tall\t" in line]
    # Queries and measures without a line: trec_eval's -1000000, in the means too.
    # The expected text is trec_eval 10.0-rc3's output for this file and
    # `-q -m map -m P.5 -m num_ret -m recip_rank -m ndcg -Z FILE`.
    partial = tmp_path / "z"
    partial.write_text(
        "".join(
            line + "\n"
            for line in Path(z).read_text().splitlines()
            if line.split()[1] in ("map", "num_ret", "P_5", "ndcg", "recip_rank")
            and line.split()[0] in ("301", "302", "303")
            and line.split()[:2] not in (["302", "P_5"], ["303", "map"])
        )
    )
    argv = ["-q", "-m", "map,P.5,num_ret,recip_rank,ndcg", "-Z", str(partial)]
    assert _eval([*argv, QRELS, RUN], capsys) == PARTIAL_Z_TREC_EVAL
    partial.write_text("301 map 0.1\n")
    assert "z, line 1: expected 'qid measure mean sd'" in _error(
        ["-Z", str(partial), QRELS, RUN], capsys
    )


PARTIAL_Z_TREC_EVAL = (
    "Znum_ret               \t301\t-2.7605\n"
    "Zmap                   \t301\t-0.5746\n"
    "Zrecip_rank            \t301\t-1.1526\n"
    "ZP_5                   \t301\t-1.3211\n"
    "Zndcg                  \t301\t-0.5685\n"
    "Znum_ret               \t302\t-1.8868\n"
    "Zmap                   \t302\t0.1469\n"
    "Zrecip_rank            \t302\t0.4214\n"
    "ZP_5                   \t302\t-1000000.0000\n"
    "Zndcg                  \t302\t-0.0308\n"
    "Znum_ret               \t303\t-1.6860\n"
    "Zmap                   \t303\t-1000000.0000\n"
    "Zrecip_rank            \t303\t-0.7400\n"
    "ZP_5                   \t303\t-0.7223\n"
    "Zndcg                  \t303\t-0.2828\n"
    "Znum_ret               \tall\t-6.3332\n"
    "Zmap                   \tall\t-333333.4759\n"
    "Zrecip_rank            \tall\t-0.4904\n"
    "ZP_5                   \tall\t-333334.0145\n"
    "Zndcg                  \tall\t-0.2940\n"
)


def test_list_measures_reads_the_measure_table(capsys):
    from sklearn_rank._cli._measures import TREC_MEASURES
    from sklearn_rank._metrics.registry import METRICS

    with pytest.raises(SystemExit) as info:
        main(["eval", "--list-measures"])
    assert info.value.code == 0
    rows = [line.split(None, 2) for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["trec_eval", "library", "meaning"]
    listed = {row[0].partition(".")[0]: row for row in rows[1:] if row[0] != "-"}
    assert list(listed) == list(TREC_MEASURES)
    assert all(len(row) == 3 and row[2] for row in rows[1:])  # a meaning each
    assert listed["recip_rank"][1:] == ["mrr", METRICS["mrr"].summary]
    assert listed["P"][:2] == ["P.k,...", "precision@k"]
    libraries = {row[1].partition("@")[0] for row in rows[1:]}
    assert set(METRICS) <= libraries


def test_judgment_groups_average_the_groups(tmp_path, capsys):
    """-R qrels_jg: map_avgjg of a query is the mean over the groups that judged
    it of map against that group's judgments alone (each group written to a
    qrels file of its own and evaluated with -R qrels)."""
    groups: dict[str, list[str]] = {}
    for line in (DATA / "qrels.123").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            groups.setdefault(line.split()[1], []).append(line)
    assert len(groups) == 3
    per_group = []
    for name, lines in groups.items():
        path = tmp_path / f"qrels.{name}"
        path.write_text("\n".join(lines) + "\n")
        out = _eval(["-q", "-m", "map,P.10", str(path), RUN], capsys)
        per_group.append(
            {
                tuple(r.split("\t")[:2]): float(r.split("\t")[2])
                for r in out.splitlines()
            }
        )
    jg = ["-R", "qrels_jg", "-q", "-m", "map_avgjg,P_avgjg.10"]
    out = _eval(["--format", "json", *jg, str(DATA / "qrels.123"), RUN], capsys)
    import json

    (values,) = json.loads(out)["runs"].values()
    for qid, row in values["per_query"].items():
        judged = [g for g in per_group if (f"map{' ' * 19}", qid) in g]
        assert len(judged) == 3
        expected = sum(g[f"map{' ' * 19}", qid] for g in judged) / 3
        assert row["map_avgjg"] == pytest.approx(expected, abs=5e-5)
        expected = sum(g[f"P_10{' ' * 18}", qid] for g in judged) / 3
        assert row["P_avgjg_10"] == pytest.approx(expected, abs=5e-5)
    one = _eval(["-D", "0.302", *jg, str(DATA / "qrels.123"), RUN], capsys)
    assert one.splitlines()[0] == "map_avgjg             \t302\t0.2571"  # trec_eval


def _positive_lines(name: str) -> int:
    rows = [line.split() for line in (DATA / name).read_text().splitlines()]
    return sum(float(r[3]) > 0 for r in rows if r)


def test_complete_summary_is_trec_eval_s(capsys):
    """-c: num_rel 'all' counts every qrels line graded above 0 whatever -l says
    (m_num_rel.c), num_q every judged query, and with -D 0.QID the means are
    over every judged query (meas_avg.c); trec_eval prints 559, 3, 0.0108."""
    out = _eval(
        [
            "-c",
            "-l2",
            "-m",
            "num_rel,num_q",
            str(DATA / "qrels.rel_level"),
            str(DATA / "results.trunc"),
        ],
        capsys,
    )
    assert out.splitlines() == [
        "num_q                 \tall\t3",
        f"num_rel               \tall\t{_positive_lines('qrels.rel_level')}",
    ]
    assert _positive_lines("qrels.rel_level") == 559
    out = _eval(["-c", "-D", "0.301", "-m", "map,num_q", QRELS, RUN], capsys)
    (map_301,) = _trec_lines("out.test.aq", {"map"}, {"301"})
    assert out.splitlines() == [
        "num_q                 \tall\t3",
        f"map                   \tall\t{float(map_301.split()[-1]) / 3:.4f}",
    ]
    assert out.splitlines()[1].endswith("0.0108")
    z = str(DATA / "zscores_file")
    out = _eval(
        ["-c", "-Z", z, "-m", "num_rel,map", QRELS, str(DATA / "results.trunc")], capsys
    )
    assert (
        out.splitlines()[0]
        == f"Znum_rel               \tall\t{_positive_lines('qrels.test')}.0000"
    )
    # -c -D -Z: trec_eval 10.0-rc3 prints these two lines (query 302 is missing
    # from results.trunc: its z-score over 3 judged queries).
    argv = ["-q", "-c", "-D", "0.302", "-Z", z, "-m", "map"]
    assert _eval([*argv, QRELS, str(DATA / "results.trunc")], capsys) == (
        "Zmap                   \t302\t-2.1109\nZmap                   \tall\t-0.7036\n"
    )
