"""``sklearn-rank eval`` reproduces trec_eval's own test suite through main([...]).

The expected files in tests/data/trec_eval are trec_eval's printed output for the
command lines in that folder's README. The CLI is run with the same options and
its printed text must equal trec_eval's lines for every measure the library
implements, character for character (layout, order, per query and "all").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sklearn_rank._cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"

# trec_eval's command line (from tests/data/trec_eval/README.md) -> our argv.
CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": [
        "-m",
        "all_trec",
        "-q",
        "-c",
        "-M100",
        "qrels.test",
        "results.trunc",
    ],
    "out.test.aql": [
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-q",
        "-l2",
        "qrels.rel_level",
        "results.test",
    ],
    "out.test.aqZ": [
        "-q",
        "-m",
        "all_trec",
        "-Z",
        "zscores_file",
        "qrels.test",
        "results.test",
    ],
    "out.test.qrels_jg": [
        "-m",
        "qrels_jg",
        "-q",
        "-R",
        "qrels_jg",
        "qrels.123",
        "results.test",
    ],
    "out.test.meas_params": [
        "-q",
        "-miprec_at_recall..10,.20,.25,.75,.50",
        "-m",
        "P.5,7,3",
        "-m",
        "recall.20,2000",
        "-mndcg.1=3,2=9,4=4.5",
        "-mndcg_cut.10,20,23.4",
        "-msuccess.2,5,20",
        "qrels.test",
        "results.test",
    ],
}


def _run(argv, capsys):
    files = [a if not (DATA / a).exists() else str(DATA / a) for a in argv]
    assert main(["eval", "--quiet", *files]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("expected_file", sorted(CASES))
def test_output_equals_trec_eval_lines(expected_file, capsys):
    out = _run(CASES[expected_file], capsys)
    got = out.splitlines()
    printed = {line.split("\t")[0].strip() for line in got}
    expected = [
        line
        for line in (DATA / expected_file).read_text().splitlines()
        if line.split("\t")[0].strip() in printed
    ]
    assert got == expected
    assert len(got) >= 17  # guard: something was compared


def test_every_implemented_trec_measure_is_compared(capsys):
    """all_trec -q prints each implemented measure for each topic and 'all'."""
    got = _run(CASES["out.test.aq"], capsys).splitlines()
    names = {line.split("\t")[0].strip() for line in got}
    for name in ("map", "Rprec", "recip_rank", "ndcg", "num_rel_ret", "11pt_avg"):
        assert name in names
    for prefix in ("P_", "recall_", "ndcg_cut_", "map_cut_"):
        assert sum(n.startswith(prefix) for n in names) == 9
    assert {"success_1", "success_5", "success_10"} <= names
    assert sum(n.startswith("iprec_at_recall_") for n in names) == 11
    topics = {line.split("\t")[1] for line in got}
    assert topics == {"301", "302", "303", "all"}


def test_library_names_give_trec_eval_values(capsys):
    """Our names under the trec_eval convention print trec_eval's numbers."""
    ours = _run(
        ["-m", "ndcg@10,map,mrr,precision@5", "qrels.test", "results.test"], capsys
    )
    values = dict(line.split("\t")[0::2] for line in ours.splitlines())
    values = {k.strip(): v for k, v in values.items()}
    expected = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in (DATA / "out.test.a").read_text().splitlines()
    }
    assert values == {
        "ndcg@10": expected["ndcg_cut_10"],
        "map": expected["map"],
        "mrr": expected["recip_rank"],
        "precision@5": expected["P_5"],
    }


def test_ndcg_gain_map_on_graded_judgments(capsys):
    """``-m ndcg.1=3,2=9`` on graded qrels: named levels take their gain, other
    levels their own value (m_ndcg.c); equal to the library with that gain map."""
    import numpy as np

    from sklearn_rank import evaluate_per_group
    from sklearn_rank.io import load_trec

    # One run each: trec_eval keeps one parameter list per measure (the first).
    out = _run(["-q", "-m", "ndcg.1=3,2=9", "qrels.rel_level", "results.test"], capsys)
    out += _run(["-q", "-m", "ndcg", "qrels.rel_level", "results.test"], capsys)
    rows = [line.split("\t") for line in out.splitlines()]
    got = {(n.strip(), q): float(v) for n, q, v in rows}
    t = load_trec(DATA / "qrels.rel_level", DATA / "results.test")
    levels = np.unique(t.y_true)
    gain = {float(y): {1.0: 3.0, 2.0: 9.0}.get(float(y), float(y)) for y in levels}
    assert set(gain.values()) != set(levels.tolist())  # the map changes gains

    def ndcg(**gain):
        return evaluate_per_group(
            t.y_true,
            t.y_score,
            groups=t.groups,
            retrieved=t.retrieved,
            metrics=["ndcg"],
            convention="trec_eval",
            **gain,
        )

    per, plain = ndcg(gain=gain), ndcg()
    for qid, value, base in zip(
        per.group_ids, per.values["ndcg"], plain.values["ndcg"], strict=True
    ):
        assert got["ndcg_1=3,2=9", str(qid)] == round(value, 4)
        assert got["ndcg", str(qid)] == round(base, 4)
    assert any(
        got["ndcg_1=3,2=9", str(q)] != got["ndcg", str(q)] for q in per.group_ids
    )


def test_library_recall_level_names_equal_trec_eval_lines(capsys):
    out = _run(["-m", "iprec@0.5,iprec@0", "qrels.test", "results.test"], capsys)
    values = {
        line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()
    }
    expected = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in (DATA / "out.test").read_text().splitlines()
    }
    assert values["iprec@0.5"] == expected["iprec_at_recall_0.50"]
    assert values["iprec@0"] == expected["iprec_at_recall_0.00"]
    with pytest.raises(SystemExit):
        _run(["-m", "iprec@x", "qrels.test", "results.test"], capsys)
    assert "must be a number in [0, 1]" in capsys.readouterr().err
