"""``sklearn-rank compare``: checked against trec_eval's own per-query values and a
brute-force sign-flip test, and through every input path and error."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from sklearn_rank._cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
QRELS, RUN, TRUNC = (
    str(DATA / f) for f in ("qrels.test", "results.test", "results.trunc")
)


def trec_eval_per_query(path, measure):
    """{query: value} from one of trec_eval's expected outputs (-q)."""
    out = {}
    for line in (DATA / path).read_text().splitlines():
        name, query, value = line.split()
        if name == measure and query != "all":
            out[query] = float(value)
    return out


def exact_sign_flip_p(d):
    """Two-sided p of the paired randomization test by all 2**n sign vectors."""
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


def row(text, label):
    return next(line for line in text.splitlines() if line.startswith(label))


def test_trec_runs_match_trec_eval_and_a_brute_force_test(capsys):
    assert main(["compare", QRELS, RUN, TRUNC, "-m", "map", "-c"]) == 0
    text = capsys.readouterr().out
    # trec_eval's per-query MAP of each run (-q; -c for the truncated run).
    full = trec_eval_per_query("out.test.aq", "map")
    trunc = trec_eval_per_query("out.test.aqc", "map")
    d = [full[q] - trunc[q] for q in sorted(full)]
    cells = row(text, "results.test - results.trunc").split()
    assert float(cells[3]) == pytest.approx(np.mean(d), abs=1e-4)
    assert float(cells[6]) == pytest.approx(exact_sign_flip_p(d), abs=1e-4)
    wins, ties, losses = (int(v) for v in cells[8].split("/"))
    assert (wins, ties, losses) == (
        sum(x > 1e-12 for x in d),
        sum(abs(x) <= 1e-12 for x in d),
        sum(x < -1e-12 for x in d),
    )
    assert float(row(text, "results.test ").split()[1]) == pytest.approx(0.1785)


def test_infap_reads_negative_grades_as_pooled_unjudged(capsys):
    """qrels.rel_level's grade -1 documents (pooled, not judged) enter infAP's
    share of pooled documents above a relevant one, as in trec_eval."""
    graded = str(DATA / "qrels.rel_level")
    argv = ["compare", "-c", graded, RUN, TRUNC, "-m", "infAP", "--format", "json"]
    assert main(argv) == 0
    (pair,) = json.loads(capsys.readouterr().out)
    full = trec_eval_per_query("out.test.aq.rel_level", "infAP")
    # trec_eval 10.0-rc3: -q -c -m infAP qrels.rel_level results.trunc
    trunc = {"301": 0.0324, "302": 0.0, "303": 0.4583}
    d = [full[q] - trunc[q] for q in sorted(full)]
    assert pair["mean_diff"] == pytest.approx(np.mean(d), abs=1e-4)


def test_measures_with_keywords_of_their_own_match_trec_eval(capsys):
    """relative_P (its own recall denominator), trec_eval's rbp (max_grade=1)
    and per-level NDCG gains: each in a call of its own, as eval computes it."""
    argv = ["compare", "-c", QRELS, RUN, TRUNC, "--format", "json"]
    assert main([*argv, "-m", "relative_P.5", "-m", "rbp", "-m", "map"]) == 0
    pairs = {p["metric"]: p for p in json.loads(capsys.readouterr().out)}
    assert sorted(pairs) == ["map", "rbp", "relative_P_5"]
    for measure, pair in pairs.items():
        full = trec_eval_per_query("out.test.aq", measure)
        trunc = trec_eval_per_query("out.test.aqc", measure)
        d = [full[q] - trunc[q] for q in sorted(full)]
        assert pair["mean_diff"] == pytest.approx(np.mean(d), abs=1e-4)
        assert pair["wins"] + pair["ties"] + pair["losses"] == 3
    graded = str(DATA / "qrels.rel_level")
    argv = ["compare", "-c", "-m", "ndcg.0=1,1=4", "--format", "json"]
    assert main([*argv, graded, RUN, TRUNC]) == 0
    (pair,) = json.loads(capsys.readouterr().out)
    full = trec_eval_per_query("out.test.gains", "ndcg_0=1,1=4")
    # trec_eval -q -c -m ndcg.0=1,1=4 qrels.rel_level results.trunc
    trunc = {"301": 0.1838, "302": 0.0, "303": 0.1359}
    d = [full[q] - trunc[q] for q in sorted(full)]
    assert pair["metric"] == "ndcg_0=1,1=4"
    assert pair["mean_diff"] == pytest.approx(np.mean(d), abs=1e-4)


def test_a_table_with_two_score_columns(tmp_path, capsys):
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(20), 6)
    label = rng.integers(0, 3, qid.size)
    good = label + rng.normal(scale=0.5, size=qid.size)
    noise = rng.normal(size=qid.size)
    path = tmp_path / "preds.csv"
    lines = ["qid,label,good,noise"]
    lines += [
        f"{q},{y},{a},{b}" for q, y, a, b in zip(qid, label, good, noise, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    argv = ["compare", str(path), "--score-col", "good", "--score-col", "noise"]
    assert main([*argv, "-m", "ndcg@5", "--format", "json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)
    from sklearn_rank import ndcg_score

    diff = ndcg_score(label, good, groups=qid, k=5) - ndcg_score(
        label, noise, groups=qid, k=5
    )
    assert pair["mean_diff"] == pytest.approx(diff, rel=1e-9)  # rounded d
    assert (pair["model"], pair["baseline"], pair["n_groups"]) == ("good", "noise", 20)


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["compare", QRELS, RUN], 1, "at least two runs"),
        (["compare", QRELS, RUN, TRUNC, "-m", "map"], 1, "pass -c"),
        (["compare", QRELS, RUN, TRUNC, "-q"], 2, "unrecognized arguments: -q"),
        (["compare", QRELS, RUN, TRUNC, "-n"], 2, "unrecognized arguments: -n"),
        (["compare", "--format", "trec", QRELS, RUN, TRUNC], 2, "invalid choice"),
        (
            ["compare", "-c", "--baseline", "nope", QRELS, RUN, TRUNC],
            2,
            "--baseline nope: no run",
        ),
        (
            ["compare", "-c", "--confidence", "1.5", QRELS, RUN, TRUNC],
            2,
            "between 0 and 1",
        ),
        (["compare", QRELS, RUN, TRUNC, "-m", "num_rel"], 2, "at least one metric"),
        (
            [
                "compare",
                "-c",
                QRELS,
                RUN,
                TRUNC,
                "-m",
                "relative_P.5",
                "--plot",
                "x.png",
            ],
            2,
            "set keywords of their own",
        ),
        (
            ["compare", str(DATA / "qrels.rel_level"), RUN, RUN, "-m", "rbp"],
            1,
            "uninitialised",
        ),
        (["compare", QRELS, RUN, TRUNC, "-m", "iprec@1.5"], 2, "in [0, 1]"),
        # A measure that is no per-query library metric is named, not dropped.
        (["compare", QRELS, RUN, RUN, "-m", "yaap"], 2, "left out: yaap"),
    ],
)
def test_errors_are_one_line_with_the_fix(argv, status, message, capsys):
    if status == 2:
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
    else:
        assert main(argv) == status
    err = capsys.readouterr().err
    assert message in err


def test_judged_only_reaches_compare(tmp_path, capsys):
    """-J in compare drops unjudged documents as eval -J does (pytrec_eval's
    judged_docs_only_flag gives map 0.1848, bpref 0.1981 on these files)."""
    copy = tmp_path / "copy.test"
    copy.write_text(Path(RUN).read_text())
    assert main(["eval", "--quiet", "-J", "-m", "bpref,map", QRELS, RUN]) == 0
    evaluated = dict(
        (line.split("\t")[0].strip(), line.split("\t")[2])
        for line in capsys.readouterr().out.splitlines()
    )
    assert evaluated == {"bpref": "0.1981", "map": "0.1848"}
    argv = ["compare", "--quiet", "-J", "-m", "bpref,map", QRELS, RUN, str(copy)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    blocks = out.split("\n\n")
    for name, value in evaluated.items():
        block = next(b for b in blocks if b.startswith(name))
        assert row(block, "results.test").split()[1] == value


def test_measures_compare_cannot_test_are_named(tmp_path, capsys):
    copy = tmp_path / "copy.test"
    copy.write_text(Path(RUN).read_text())
    assert (
        main(["compare", "-m", "yaap,map", "-m", "num_ret", QRELS, RUN, str(copy)]) == 0
    )
    out, err = capsys.readouterr()
    assert "note: left out: num_ret, yaap" in err
    assert out.startswith("map")


def test_t_test_footer_names_no_resamples_and_names_are_unique(tmp_path, capsys):
    copy = tmp_path / "results.test"  # same file name and tag as RUN
    copy.write_text(Path(RUN).read_text())
    argv = ["compare", "--quiet", "-c", "-m", "map", "--test", "t"]
    assert main([*argv, QRELS, RUN, str(copy)]) == 0
    out = capsys.readouterr().out
    footer = out.strip().splitlines()[-1]
    # The t test draws no resamples; the bootstrap intervals do.
    assert footer.startswith("(p: paired t test, two-sided, unweighted; p adj")
    assert "CI: t interval (the shifts the test keeps); seed 0;" in footer
    assert row(out, f"{RUN} - {copy}").split()[-2] == "0/3/0"


def test_progress_line_on_a_terminal(monkeypatch, capsys):
    import io
    import sys

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["compare", "-c", "-m", "map", "--test", "t", QRELS, RUN, TRUNC]) == 0
    shown = stream.getvalue()
    assert "reading" in shown and "evaluating results.trunc" in shown
    assert "comparing: t test" in shown


def test_messages_in_the_command_words(tmp_path, capsys):
    """--undefined raise names the query; a grade above --max-grade names the flag
    (the library says max_grade= and 'y_true in evaluate_per_group')."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 0\nq2 0 d1 1\n")
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\n")
    argv = ["compare", "--quiet", "-m", "map", "--undefined", "raise"]
    assert main([*argv, str(qrels), str(run), str(run)]) == 1
    err = capsys.readouterr().err
    assert "map is undefined for query q1 (no relevant document)" in err
    assert "--undefined skip" in err
    argv = ["compare", "--quiet", "-c", "-m", "err", "--test", "t"]
    assert main([*argv, str(DATA / "qrels.rel_level"), RUN, TRUNC]) == 1
    err = capsys.readouterr().err
    assert "a judgment has a grade of 4 above --max-grade 1" in err
    assert "y_true" not in err and "max_grade=" not in err


def test_comparison_flags_reach_the_library(capsys):
    """--test bootstrap-t, --correction-scope, --zero-method, --alternative and
    --ci-method give the numbers of sklearn_rank.stats.compare with them."""
    from sklearn_rank import evaluate_per_group
    from sklearn_rank.io import load_trec
    from sklearn_rank.stats import compare

    argv = ["compare", "-c", "-m", "map", "-m", "P.5", QRELS, RUN, TRUNC]
    flags = [
        "--test", "wilcoxon", "--zero-method", "zsplit", "--correction-scope",
        "all", "--alternative", "greater", "--ci-method", "percentile",
        "--format", "json", "--resamples", "500",
    ]  # fmt: skip
    assert main([*argv, *flags]) == 0
    out, err = capsys.readouterr()
    got = {p["metric"]: p for p in json.loads(out)}
    # 3 queries: the notes go to stderr (json on stdout stays clean)
    assert "compare: note: percentile intervals on 3 groups" in err
    assert "cannot reject" in err
    assert set(got) == {"map", "precision@5"}
    for p in got.values():
        assert p["p_method"] in ("exact (8 sign flips)", "exact (4 sign flips)")
    # the same test through the library, on trec_eval's per-query values
    full, trunc = (
        trec_eval_per_query(f, "map") for f in ("out.test.aq", "out.test.aqc")
    )
    d = np.round([full[q] - trunc[q] for q in sorted(full)], 10)
    from scipy import stats

    ref = stats.wilcoxon(d, zero_method="zsplit", alternative="greater").pvalue
    assert got["map"]["p_value"] == pytest.approx(ref, abs=1e-4)
    assert main([*argv, "--test", "bootstrap-t", "--format", "json"]) == 0
    (p, _) = json.loads(capsys.readouterr().out)
    assert p["p_method"] == "monte carlo"
    del load_trec, evaluate_per_group, compare


def test_systems_test_tukey_and_anova(capsys):
    from sklearn_rank import GroupScores
    from sklearn_rank.stats import tukey_hsd, two_way_anova

    argv = ["compare", "-c", "-m", "map", QRELS, RUN, TRUNC, RUN]
    assert main([*argv, "--systems-test", "tukey", "--resamples", "999"]) == 0
    out = capsys.readouterr().out
    assert "Randomised Tukey HSD (Carterette 2012): 3 systems x 3 groups" in out
    assert main([*argv, "--systems-test", "tukey", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 3 and all("p_value" in r for r in rows)
    # the library on trec_eval's per-query MAP gives the same numbers
    full, trunc = (
        trec_eval_per_query(f, "map") for f in ("out.test.aq", "out.test.aqc")
    )
    qs = sorted(full)
    runs = {
        name: GroupScores(np.array(qs), {"map": np.array([v[q] for q in qs])},
                          {"map": np.ones(3)})
        for name, v in (("a", full), ("b", trunc), ("c", full))
    }  # fmt: skip
    ref = tukey_hsd(None, runs, metric="map", random_state=0)
    for row_, pair in zip(rows, ref.pairs, strict=True):
        assert row_["mean_diff"] == pytest.approx(pair.mean_diff, abs=1e-4)
    assert main([*argv, "--systems-test", "anova"]) == 0
    out = capsys.readouterr().out
    f = two_way_anova(None, runs, metric="map").statistic
    # trec_eval prints 4 decimals: the F of its values agrees to that
    assert float(row(out, "systems").split()[4]) == pytest.approx(f, rel=1e-3)
    assert main([*argv, "--systems-test", "anova", "--baseline", RUN]) != 0
