"""The main job, run through main([...]) with its fast option."""

import importlib.util
import re
import subprocess
import sys

import pytest
import sklearn

from sklearn_rank._cli import get_parser, main

NUMBER = r"[01]\.\d{4}"


def test_fast_run_prints_progress_and_both_tables(capsys):
    assert main(["--fast"]) == 0
    out = capsys.readouterr().out
    assert "201 training queries (3005 rows), 50 test queries (768 rows)" in out
    assert "[1/" in out and "done in" in out  # progress lines
    assert "Cross-validation on the training queries (mean over 2 folds)" in out
    assert "Held-out test queries (50 queries, 768 rows)" in out
    header = re.search(r"^model +NDCG@10 +MAP +MRR +P@10 +GAUC$", out, re.M)
    assert header is not None
    for label in ("random scores (baseline)", "HistGradientBoostingRegressor"):
        row = re.search(rf"^{re.escape(label)} +(.*)$", out[header.end() :], re.M)
        values = row.group(1).split()
        assert len(values) == 5 and all(re.fullmatch(NUMBER, v) for v in values)
    # The job turns routing on only inside itself.
    assert sklearn.get_config()["enable_metadata_routing"] is False


def test_lightgbm_row_when_installed(capsys):
    pytest.importorskip("lightgbm")
    assert main(["--fast"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"^LGBMRanker \(GroupedRanker\) +{NUMBER}", out, re.M)
    assert main(["--fast", "--no-lightgbm"]) == 0
    assert "LGBMRanker" not in capsys.readouterr().out


def test_missing_lightgbm_is_a_note_not_an_error(capsys, monkeypatch):
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args):
        return None if name == "lightgbm" else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert main(["--fast"]) == 0
    out = capsys.readouterr().out
    assert "lightgbm is not installed" in out
    assert "[1/2] HistGradientBoostingRegressor" in out
    assert "[2/2] Ridge (linear)" in out


@pytest.mark.parametrize("argv", [["--folds", "1"], ["--n-jobs", "0"], ["--bogus"]])
def test_bad_options_exit_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    # One line naming the flag as typed; no usage block (-h shows it).
    assert err.count("\n") == 1 and err.startswith("sklearn-rank: error: ")
    assert argv[0] in err


def test_parser_defaults():
    args = get_parser().parse_args([])
    assert (args.folds, args.fast, args.no_lightgbm, args.n_jobs) == (
        None,
        False,
        False,
        1,
    )


def test_python_dash_m_runs_the_same_main():
    out = subprocess.run(
        [sys.executable, "-m", "sklearn_rank", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.startswith("usage: sklearn-rank")


def test_demo_subcommand_is_the_bare_command(capsys):
    assert main(["demo", "--fast", "--no-lightgbm"]) == 0
    out = capsys.readouterr().out
    assert "Held-out test queries (50 queries, 768 rows)" in out
    args = get_parser().parse_args(["demo", "--folds", "4"])
    assert (args.command, args.folds) == ("demo", 4)


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "demo" in out and "eval" in out


def test_version(capsys):
    from sklearn_rank import __version__

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"sklearn-rank {__version__}\n"
