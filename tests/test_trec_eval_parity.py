"""trec_eval parity on trec_eval's own test suite (tests/data/trec_eval).

Every value below is compared with the number trec_eval printed, per topic and
averaged ("all"), at its 4 printed decimals. The inputs are read with
``sklearn_rank.io`` (which emits rows in trec_eval's order: score descending, then
docno descending), and scored with ``ties="stable"``, linear gain, P@k over k,
AP over R, and groups without a relevant document scored 0 and counted.

The first tests compare the library functions with trec_eval's numbers for the
measures that map onto one library metric under one set of keywords; trec_eval's
other measures (the counts, gm_*, the set measures, utility, relstring, per-level
gains, Rprec_mult, relative_P, ...) are compared further down, where
``sklearn-rank eval``'s whole output must equal trec_eval's output files byte for
byte. ``iprec_at_recall_*`` and ``11pt_avg`` have their own test (one recall level
per call).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sklearn_rank import evaluate, evaluate_per_group
from sklearn_rank.io import load_trec

DATA = Path(__file__).parent / "data" / "trec_eval"

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# trec_eval's conventions, spelled out as keywords.
TREC_KEYWORDS = {
    "ties": "stable",
    "gain": "linear",
    "undefined": 0.0,
    "precision_denominator": "k",
    "ap_denominator": "n_relevant",
    "persistence": 0.9,  # m_rbp.c's default p
}


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """Parse trec_eval's ``measure \\t qid \\t value`` lines into a dict."""
    table = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path.name}, line {number}: expected 3 tab fields")
        measure, qid, value = (p.strip() for p in parts)
        table[measure, qid] = value
    return table


def trec_to_library(
    cutoffs_p=CUTOFFS,
    cutoffs_recall=CUTOFFS,
    cutoffs_ndcg=CUTOFFS,
    cutoffs_map=CUTOFFS,
    cutoffs_success=(1, 5, 10),
    plain=True,
):
    """trec_eval measure name -> library metric name."""
    names = {}
    if plain:
        names.update(
            {"map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "Rprec": "r_precision"}
        )
    names.update({f"P_{k}": f"precision@{k}" for k in cutoffs_p})
    names.update({f"recall_{k}": f"recall@{k}" for k in cutoffs_recall})
    names.update({f"ndcg_cut_{k}": f"ndcg@{k}" for k in cutoffs_ndcg})
    names.update({f"map_cut_{k}": f"map@{k}" for k in cutoffs_map})
    names.update({f"success_{k}": f"hit_rate@{k}" for k in cutoffs_success})
    return names


ALL_TREC = trec_to_library()
# Measures on binary qrels only: trec_eval's rbp rescales graded gains with
# uninitialised min/max variables (m_rbp.c), so out.test.aql (graded) is left out.
BINARY_TREC = {**ALL_TREC, "rbp": "rbp"}
# out.test.meas_params: -m P.5,7,3 -m recall.20,2000 -mndcg_cut.10,20,23.4
# -msuccess.2,5,20 (trec_eval reads the cutoff 23.4 as 23).
MEAS_PARAMS = trec_to_library(
    cutoffs_p=(3, 5, 7),
    cutoffs_recall=(20, 2000),
    cutoffs_ndcg=(10, 20, 23),
    cutoffs_map=(),
    cutoffs_success=(2, 5, 20),
    plain=False,
)

# name -> (expected output, qrels, run, reader options, metric options, measures)
CASES = {
    "aq": ("out.test.aq", "qrels.test", "results.test", {}, {}, BINARY_TREC),
    "aqc": (
        "out.test.aqc",
        "qrels.test",
        "results.trunc",
        {"complete": True},  # -c: topics missing from the run score 0
        {},
        BINARY_TREC,
    ),
    "aql": (
        "out.test.aql",
        "qrels.rel_level",
        "results.test",
        {},
        {"relevance_threshold": 2},  # -l2
        ALL_TREC,
    ),
    "meas_params": (
        "out.test.meas_params",
        "qrels.test",
        "results.test",
        {},
        {},
        MEAS_PARAMS,
    ),
}


def _counts(arrays, threshold: float) -> dict[str, dict[str, float]]:
    """num_ret, num_rel, num_rel_ret per topic, straight from the arrays."""
    relevant = arrays.y_true >= threshold
    out = {}
    for qid in np.unique(arrays.groups):
        rows = arrays.groups == qid
        out[str(qid)] = {
            "num_ret": int(arrays.retrieved[rows].sum()),
            "num_rel": int(relevant[rows].sum()),
            "num_rel_ret": int((relevant & arrays.retrieved)[rows].sum()),
        }
    return out


def _library_values(case: str, convention: str | None):
    """Per topic and 'all' values of every compared measure, formatted like
    trec_eval, together with the expected table."""
    out_file, qrels, run, reader, options, measures = CASES[case]
    arrays = load_trec(DATA / qrels, DATA / run, **reader)
    keywords = dict(options)
    if convention is None:
        keywords.update(TREC_KEYWORDS)
    else:
        keywords["convention"] = convention
    names = list(dict.fromkeys(measures.values()))
    args = (arrays.y_true, arrays.y_score)
    common = {"groups": arrays.groups, "retrieved": arrays.retrieved, **keywords}
    # Per-group values carry NaN where undefined; ``undefined`` only acts on means.
    per_group_kw = {k: v for k, v in common.items() if k != "undefined"}
    per_group = evaluate_per_group(*args, metrics=names, **per_group_kw)
    means = evaluate(*args, metrics=names, **common)
    got = {}
    for measure, name in measures.items():
        values = np.nan_to_num(per_group.values[name], nan=0.0)  # undefined -> 0
        for qid, value in zip(per_group.group_ids, values, strict=True):
            got[measure, str(qid)] = f"{value:.4f}"
        got[measure, "all"] = f"{means[name]:.4f}"
    if case != "meas_params":
        counts = _counts(arrays, options.get("relevance_threshold", 1))
        for qid, row in counts.items():
            for measure, value in row.items():
                got[measure, qid] = str(value)
        for measure in ("num_ret", "num_rel", "num_rel_ret"):
            got[measure, "all"] = str(sum(row[measure] for row in counts.values()))
    return got, read_trec_eval_output(DATA / out_file)


@pytest.mark.parametrize("convention", [None, "trec_eval"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reproduces_trec_eval_output(case, convention):
    got, expected = _library_values(case, convention)
    assert got, "nothing compared"
    missing = sorted(key for key in got if key not in expected)
    assert not missing, f"measures not in {case} output: {missing[:5]}"
    wrong = {key: (got[key], expected[key]) for key in got if got[key] != expected[key]}
    assert not wrong, f"{len(wrong)} of {len(got)} values differ: {wrong}"


def test_every_compared_topic_and_measure_is_covered():
    """Guard: the comparison covers each topic and 'all' for every listed measure
    (so a reader that dropped a topic could not pass by comparing less)."""
    for case, (out_file, *_, measures) in CASES.items():
        expected = read_trec_eval_output(DATA / out_file)
        got, _ = _library_values(case, None)
        for measure in measures:
            topics = {q for (m, q) in expected if m == measure}
            assert topics, (case, measure)
            assert topics <= {q for (m, q) in got if m == measure}, (case, measure)


def test_complete_flag_keeps_missing_topic():
    """-c: topic 302 is absent from results.trunc but still averaged (as 0)."""
    plain = load_trec(DATA / "qrels.test", DATA / "results.trunc")
    complete = load_trec(DATA / "qrels.test", DATA / "results.trunc", complete=True)
    assert sorted(set(plain.groups.tolist())) == ["301", "303"]
    assert sorted(set(complete.groups.tolist())) == ["301", "302", "303"]
    assert not complete.retrieved[complete.groups == "302"].any()


def _iprec_measures(expected) -> dict[str, float]:
    """trec_eval's iprec_at_recall_<r> measures in an output -> recall level."""
    prefix = "iprec_at_recall_"
    names = {m for m, _ in expected if m.startswith(prefix)}
    return {m: float(m[len(prefix) :]) for m in sorted(names)}


@pytest.mark.parametrize("convention", [None, "trec_eval"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reproduces_trec_eval_interpolated_precision(case, convention):
    """iprec_at_recall_<r> and 11pt_avg (11pt_avg_.25,.5,.75 in meas_params: the
    mean of those three levels), per topic and averaged."""
    out_file, qrels, run, reader, options, _ = CASES[case]
    expected = read_trec_eval_output(DATA / out_file)
    arrays = load_trec(DATA / qrels, DATA / run, **reader)
    keywords = dict(options)
    if convention is None:
        keywords.update(TREC_KEYWORDS)
    else:
        keywords["convention"] = convention
    args = (arrays.y_true, arrays.y_score)
    common = {"groups": arrays.groups, "retrieved": arrays.retrieved, **keywords}
    per_group_kw = {k: v for k, v in common.items() if k != "undefined"}

    def values(metric, **extra):
        pg = evaluate_per_group(*args, metrics=[metric], **per_group_kw, **extra)
        mean = evaluate(*args, metrics=[metric], **common, **extra)[metric]
        return pg.group_ids, pg.values[metric], mean

    measures = _iprec_measures(expected)
    assert measures, "no iprec_at_recall in the expected output"
    compared = 0
    by_level = {}
    for measure, level in measures.items():
        ids, v, mean = values("iprec", recall_level=level)
        by_level[level] = v
        for qid, value in zip(ids, v, strict=True):
            got = f"{0.0 if np.isnan(value) else value:.4f}"
            assert got == expected[measure, str(qid)], (measure, qid)
            compared += 1
        assert f"{mean:.4f}" == expected[measure, "all"], measure
    if ("11pt_avg", "all") in expected:
        ids, v, mean = values("iprec_11pt")
        for qid, value in zip(ids, v, strict=True):
            got = f"{0.0 if np.isnan(value) else value:.4f}"
            assert got == expected["11pt_avg", str(qid)], qid
        assert f"{mean:.4f}" == expected["11pt_avg", "all"]
    if ("11pt_avg_.25,.5,.75", "all") in expected:
        three = np.nan_to_num(np.mean([by_level[r] for r in (0.25, 0.5, 0.75)], 0))
        for qid, value in zip(ids, three, strict=True):
            assert f"{value:.4f}" == expected["11pt_avg_.25,.5,.75", str(qid)]
    assert compared >= 2 * len(measures)


def test_reproduces_trec_eval_ndcg_with_a_gain_map():
    # trec_eval -m ndcg.1=3,2=9,4=4.5 (out.test.meas_params): levels not named gain
    # their own value (m_ndcg.c), so the map for these qrels' levels 0 and 1 is
    # {0: 0, 1: 3}; the ideal list sorts by gain.
    expected = read_trec_eval_output(DATA / "out.test.meas_params")
    arrays = load_trec(DATA / "qrels.test", DATA / "results.test")
    gain = {0: 0.0, 1: 3.0, 2: 9.0, 3: 3.0, 4: 4.5}
    per_group = evaluate_per_group(
        arrays.y_true,
        arrays.y_score,
        groups=arrays.groups,
        retrieved=arrays.retrieved,
        metrics=["ndcg"],
        convention="trec_eval",
        gain=gain,
    )
    measure = "ndcg_1=3,2=9,4=4.5"
    for qid, value in zip(per_group.group_ids, per_group.values["ndcg"], strict=True):
        assert f"{value:.4f}" == expected[measure, str(qid)], qid
    mean = evaluate(
        arrays.y_true,
        arrays.y_score,
        groups=arrays.groups,
        retrieved=arrays.retrieved,
        metrics=["ndcg"],
        convention="trec_eval",
        gain=gain,
    )["ndcg"]
    assert f"{mean:.4f}" == expected[measure, "all"]


# ---------------------------------------------------------------------------
# ``sklearn-rank eval`` against trec_eval's whole output files, byte for byte.
# Each expected file is trec_eval's output for the command line in the README
# of tests/data/trec_eval; the arguments below are the same command line.
# ---------------------------------------------------------------------------
_EVAL_CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aql": [
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-q",
        "-l2",
        "qrels.rel_level",
        "results.test",
    ],
    "out.test.meas_params": [
        "-q",
        "-miprec_at_recall..10,.20,.25,.75,.50",
        "-m",
        "P.5,7,3",
        "-m",
        "recall.20,2000",
        "-m",
        "Rprec_mult.5.0,0.2,0.35",
        "-mutility.2,-1,0,0",
        "-m",
        "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5",
        "-mndcg_cut.10,20,23.4",
        "-msuccess.2,5,20",
        "qrels.test",
        "results.test",
    ],
    "out.test.aq.rel_level": [
        "-m",
        "all_trec",
        "-q",
        "qrels.rel_level",
        "results.test",
    ],
    "out.test.aq.302": ["-m", "all_trec", "-q", "qrels-302.test", "results-302.test"],
    "out.test.aq.l2": ["-m", "all_trec", "-q", "-l2", "qrels.test", "results.test"],
    "out.test.aq.fraction": ["-m", "all_trec", "-q", "qrels.fraction", "results.test"],
    "out.test.gains": [
        "-q",
        "-m",
        "ndcg.0=1,1=4",
        "-m",
        "ndcg_cut.5",
        "-m",
        "G",
        "-m",
        "ndcg_rel",
        "-m",
        "Rndcg",
        "-m",
        "relstring",
        "qrels.rel_level",
        "results.test",
    ],
    "out.test.set_params": [
        "-q",
        "-m",
        "set",
        "-m",
        "rbp.p=0.5",
        "-m",
        "rbp_resid.p=0.8",
        "-m",
        "set_F.0.5",
        "-m",
        "unj.3,50",
        "-m",
        "relative_P.7",
        "-m",
        "Rprec_mult.0.5,3",
        "-m",
        "11pt_avg.0.1,0.9",
        "-m",
        "utility.1,-0.5,-1,0",
        "qrels.test",
        "results.test",
    ],
    # -N reaches utility's fourth term (N + rel_ret - ret - rel).
    "out.test.utility_N": [
        "-q",
        "-N",
        "1000",
        "-m",
        "utility.1,-1,0,0.5",
        "-m",
        "set",
        "qrels.test",
        "results.test",
    ],
    # -c: for the query the run lacks, trec_eval's utility counts its one
    # stand-in document as retrieved (not zeroed: the label has parameters).
    "out.test.utility_cN": [
        "-q",
        "-c",
        "-N",
        "500",
        "-m",
        "utility.1,-1,0.5,0.25",
        "-m",
        "set",
        "qrels.test",
        "results.trunc",
    ],
    # -c with a run that shares no query with the judgments: every judged query
    # is evaluated with nothing retrieved (zeros), not an error.
    "out.test.aqc.302_trunc": [
        "-q",
        "-c",
        "-m",
        "all_trec",
        "qrels-302.test",
        "results.trunc",
    ],
}
# Lines trec_eval prints that ``sklearn-rank eval`` refuses, with a note on
# stderr: rbp on graded judgments (trec_eval reads uninitialised variables in
# m_rbp.c). infAP is printed: qrels.rel_level's negative grades reach it as
# ``in_pool`` rows (pooled, not judged).
_REFUSED = {
    "out.test.aql": ("rbp",),
    "out.test.aq.rel_level": ("rbp",),
}


def _eval_output(argv, capsys) -> tuple[str, str]:
    from sklearn_rank._cli import main

    files = [str(DATA / a) if (DATA / a).is_file() else a for a in argv]
    assert main(["eval", *files]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


@pytest.mark.parametrize("expected_file", sorted(_EVAL_CASES))
def test_eval_prints_trec_eval_output_byte_for_byte(expected_file, capsys):
    out, err = _eval_output(_EVAL_CASES[expected_file], capsys)
    expected = (DATA / expected_file).read_text()
    refused = _REFUSED.get(expected_file, ())
    if refused:
        expected = "".join(
            line
            for line in expected.splitlines(keepends=True)
            if line.split("\t")[0].strip() not in refused
        )
        for name in refused:
            assert f"{name} left out" in err
    assert out == expected
    assert len(out.splitlines()) >= 17


def test_official_prints_every_trec_eval_line(capsys):
    """``official`` (the default) ends with gm_map where trec_eval prints it."""
    out, _ = _eval_output(["qrels.test", "results.test"], capsys)
    assert "gm_map                \tall\t" in out
    assert out == (DATA / "out.test").read_text()


def test_graded_rbp_is_refused_by_name(capsys):
    from sklearn_rank._cli import main

    argv = [
        "eval",
        "-m",
        "rbp",
        str(DATA / "qrels.rel_level"),
        str(DATA / "results.test"),
    ]
    assert main(argv) == 1
    assert "uninitialised" in capsys.readouterr().err


def test_eleven_point_average_is_summed_in_trec_eval_order(tmp_path, capsys):
    """m_11pt_avg.c adds the 11 interpolated precisions from recall 1.0 down,
    then divides by 11. Relevant rows at 21, 28, 32 and 50 of 50 (R = 4): the
    exact mean is 0.09125, the sum from 1.0 down gives 0.09125000000000001
    (printed 0.0913, as trec_eval 10 prints it) and the sum from 0.0 up gives
    0.09125 (printed 0.0912)."""
    from sklearn_rank import eleven_point_precision_score, interpolated_precision_score
    from sklearn_rank._cli import main

    relevant = {21, 28, 32, 50}
    y = np.array([float(i in relevant) for i in range(1, 51)])
    s = np.arange(50, 0, -1, dtype=float)
    levels = [
        interpolated_precision_score(y, s, groups=[0] * 50, recall_level=r / 10)
        for r in range(11)
    ]
    down = 0.0
    for value in reversed(levels):
        down += value
    up = 0.0
    for value in levels:
        up += value
    assert f"{down / 11:6.4f}" != f"{up / 11:6.4f}"  # the case is order-sensitive
    got = eleven_point_precision_score(y, s, groups=[0] * 50)
    assert got == down / 11
    (tmp_path / "q").write_text(
        "".join(f"q1 0 d{i:02d} {int(i in relevant)}\n" for i in range(1, 51))
    )
    (tmp_path / "r").write_text(
        "".join(f"q1 Q0 d{i:02d} {i} {100 - i} r\n" for i in range(1, 51))
    )
    assert (
        main(["eval", "-m", "11pt_avg", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    )
    assert capsys.readouterr().out == "11pt_avg              \tall\t0.0913\n"
