"""Usage errors of ``sklearn-rank eval`` (issue 28): one line naming the flag as
typed, "did you mean" for measure names, exit status 2; ``-h -m MEASURE``; and
trec_eval's abbreviated long options."""

from __future__ import annotations

from pathlib import Path

import pytest

from sklearn_rank._cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
FILES = [str(DATA / "qrels.test"), str(DATA / "results.test")]


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        main(["eval", *argv, *FILES])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1  # one line, no usage block
    assert err.startswith("sklearn-rank eval: error: ")
    return err


@pytest.mark.parametrize(
    ("measure", "suggestion"),
    [
        ("MAP", "'map'"),
        ("P5", "'P.5'"),
        ("ndgc_cut", "'ndcg_cut'"),
        ("mapp", "'map'"),
        ("map_cut@10", "'map_cut.10'"),
        ("ndcg_cut@20", "'ndcg_cut.20'"),
    ],
)
def test_unknown_measure_names_the_closest(measure, suggestion, capsys):
    err = _usage_error(["-m", measure], capsys)
    assert f"unknown measure {measure!r}; did you mean {suggestion}" in err
    assert "--list-measures" in err and len(err) < 200  # no list of 90 names


@pytest.mark.parametrize(
    ("command", "flag", "suggestion"),
    [("eval", "--quiett", "'--quiet'"), ("compare", "--tst", "'--test'")],
)
def test_unknown_flag_names_the_closest(command, flag, suggestion, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, flag, *FILES])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"unrecognized arguments: {flag}; did you mean {suggestion}" in err


@pytest.mark.parametrize(
    ("argv", "typed", "not_typed"),
    [
        (["--undefined", "skip", "-l-1"], "-l -1 is", "--relevance-threshold"),
        (
            ["--undefined", "skip", "--level_for_rel=-1"],
            "--level_for_rel -1 is",
            "--relevance-threshold",
        ),
        (["--convention", "sklearn_rank", "-l0"], "-l must be", "--relevance-"),
        (["-M", "-1"], "argument -M:", "--max-docs"),
        (["-R", "qrel_jg"], "did you mean 'qrels_jg'", "--Rel_info_format"),
    ],
)
def test_messages_name_the_flag_as_typed(argv, typed, not_typed, capsys):
    err = _usage_error(argv, capsys)
    assert typed in err and not_typed not in err


@pytest.mark.parametrize("measure", ["map@", "Rprec_mult.x"])
def test_bad_measure_parameters_exit_2(measure, capsys):
    _usage_error(["-m", measure], capsys)


def test_help_for_one_measure(capsys):
    assert main(["eval", "-h", "-m", "ndcg", "-m", "P"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ndcg (trec_eval measure)")
    assert "gains per relevance level" in out and "P (trec_eval measure)" in out
    assert "usage:" not in out


def test_measure_help_of_an_unknown_name_exits_2(capsys):
    # The suggestion on stderr, exit 2 (a usage error), the known names' help
    # still printed.
    assert main(["eval", "-h", "-m", "ndgc_cut", "-m", "map"]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("map (trec_eval measure)")
    assert "unknown measure 'ndgc_cut'; did you mean 'ndcg_cut'" in err


def test_trec_eval_abbreviated_long_options(capsys):
    assert main(["eval", "--quiet", "--q", "--comp", "-m", "map", *FILES]) == 0
    short = capsys.readouterr().out
    assert main(["eval", "--quiet", "-q", "-c", "-m", "map", *FILES]) == 0
    assert capsys.readouterr().out == short
    assert main(["eval", "--quiet", "--query", "-m", "map", *FILES]) == 0
    assert capsys.readouterr().out == short  # results.test: every query judged


@pytest.mark.parametrize(
    ("level", "reading"),
    [("0", "every judged document relevant"), ("-1", "unjudged documents relevant")],
)
def test_compare_sends_levels_at_or_below_0_to_eval(level, reading, capsys):
    with pytest.raises(SystemExit) as info:
        main(["compare", "-l", level, *FILES, FILES[1]])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"-l {level} ({reading}" in err and "sklearn-rank eval" in err
