"""The ``judged`` mask: trec_eval's -J (``judged_only``), bpref, Judged@k and
Elasticsearch's ``ignore_unlabeled`` (``precision_denominator="n_judged"``).

pytrec_eval (trec_eval's C code) is the reference for bpref and for -J on random
qrels and runs; Elasticsearch's and ir_measures' own test values are reproduced.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from test_pytrec_eval_differential import (
    MEASURES,
    PYTREC_MEASURES,
    TREC_KEYWORDS,
    _has_only_low_grades,
    random_trec,
)

import sklearn_rank as sr
from sklearn_rank._cli import main
from sklearn_rank.io import read_qrels, read_run, trec_arrays

pytrec_eval = pytest.importorskip("pytrec_eval")
DATA = Path(__file__).parent / "data" / "trec_eval"


def _dicts(qrels_text, run_text):
    qrels, run = {}, {}
    for line in qrels_text.splitlines():
        qid, _, doc, rel = line.split()
        qrels.setdefault(qid, {})[doc] = int(rel)
    for line in run_text.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return qrels, run


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(20))
def test_bpref_and_judged_only_agree_with_pytrec_eval(seed, level, judged_only):
    # Random qrels with negative grades (in the pool, unjudged), unjudged
    # retrieved documents and many ties; pytrec_eval's judged_docs_only_flag is
    # trec_eval's -J.
    qrels_text, run_text = random_trec(seed)
    qrels, run = _dicts(qrels_text, run_text)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels,
        PYTREC_MEASURES | {"bpref"},
        relevance_level=level,
        judged_docs_only_flag=judged_only,
    ).evaluate(run)
    arrays = trec_arrays(
        read_qrels(io.StringIO(qrels_text)), read_run(io.StringIO(run_text))
    )
    measures = {**MEASURES, "bpref": "bpref"}
    got = sr.evaluate_per_group(
        arrays.y_true,
        arrays.y_score,
        groups=arrays.groups,
        retrieved=arrays.retrieved,
        judged=arrays.judged,
        metrics=sorted(set(measures.values())),
        relevance_threshold=level,
        judged_only=judged_only,
        **TREC_KEYWORDS,
    )
    assert sorted(map(str, got.group_ids)) == sorted(expected)
    for i, qid in enumerate(got.group_ids):
        for measure, name in measures.items():
            value = got.values[name][i]
            if np.isnan(value):  # no relevant document: trec_eval scores 0
                if measure.startswith("ndcg") and _has_only_low_grades(
                    arrays, qid, level
                ):
                    continue  # the relevance-level quirk of trec_eval's ndcg
                value = 0.0
            assert value == pytest.approx(expected[qid][measure], abs=1e-12, rel=0), (
                qid,
                measure,
            )


def test_judged_only_on_trec_eval_data_matches_pytrec_eval(capsys):
    # trec_eval's own test files: the CLI's -J against pytrec_eval's -J.
    qrels_text = (DATA / "qrels.test").read_text()
    run_lines = (DATA / "results.test").read_text().splitlines()
    qrels, run = _dicts(
        qrels_text, "\n".join(" ".join(line.split()[:6]) for line in run_lines)
    )
    want = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "bpref", "P", "num_ret"}, judged_docs_only_flag=True
    ).evaluate(run)
    argv = ["eval", "--quiet", "-J", "-m", "map,bpref", "-m", "P.10", "-m", "num_ret"]
    assert main([*argv, str(DATA / "qrels.test"), str(DATA / "results.test")]) == 0
    out = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in capsys.readouterr().out.splitlines()
    }
    assert int(out["num_ret"]) == sum(v["num_ret"] for v in want.values()) == 738
    for ours, theirs in (("map", "map"), ("bpref", "bpref"), ("P_10", "P_10")):
        mean = np.mean([v[theirs] for v in want.values()])
        assert out[ours] == f"{mean:.4f}"


def test_trec_arrays_judged_follows_trec_eval():
    # A qrels line with grade >= 0 is judged; no line, or a negative grade, is not.
    qrels = read_qrels(io.StringIO("q1 0 a 1\nq1 0 b 0\nq1 0 c -1\nq1 0 z 2\n"))
    run = read_run(
        io.StringIO("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq1 Q0 d 4 0 r\n")
    )
    t = trec_arrays(qrels, run)
    assert t.docno.tolist() == ["a", "b", "c", "d", "z"]
    assert t.judged.tolist() == [True, True, False, False, True]


def test_elasticsearch_ignore_unlabeled():
    # Elasticsearch PrecisionAtKTests.testIgnoreUnlabeled: two relevant hits and
    # one unlabeled hit give 2/3, and 2/2 with ignore_unlabeled; testNoRatedDocs:
    # five unlabeled hits give 0 either way (undefined=0.0: no relevant rating).
    y, s, g = [1, 1, 0], [3, 2, 1], [0, 0, 0]
    judged = [True, True, False]
    kw = dict(groups=g, k=10, judged=judged)
    assert sr.precision_at_k_score(y, s, precision_denominator="min_k_n", **kw) == 2 / 3
    assert sr.precision_at_k_score(y, s, precision_denominator="n_judged", **kw) == 1.0
    none = dict(groups=[0] * 5, k=10, judged=[False] * 5, undefined=0.0)
    assert (
        sr.precision_at_k_score(
            [0] * 5, range(5), precision_denominator="n_judged", **none
        )
        == 0.0
    )


def test_n_judged_is_not_judged_only():
    # ES counts the judged rows inside the top k; trec_eval -J refills the top k.
    y, s = [1, 0, 0, 1], [4, 3, 2, 1]
    kw = dict(groups=[0] * 4, k=2, judged=[True, False, False, True])
    assert sr.precision_at_k_score(y, s, precision_denominator="n_judged", **kw) == 1.0
    assert sr.precision_at_k_score(y, s, judged_only=True, **kw) == 1.0
    assert sr.precision_at_k_score(y, s, **kw) == 0.5
    kw["k"] = 3
    assert sr.precision_at_k_score(y, s, precision_denominator="n_judged", **kw) == 1.0
    assert sr.precision_at_k_score(y, s, judged_only=True, **kw) == pytest.approx(2 / 3)


def test_judged_at_k_matches_ir_measures():
    # ir_measures' Judged@k (JudgedProvider): judged in the top k over min(k, n).
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"q": {"a": 1, "b": 0, "d": 2}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    for k in (1, 2, 3, 10):
        want = ir_measures.calc_aggregate([ir_measures.Judged @ k], qrels, run)
        got = sr.judged_at_k_score(
            [1, 0, 0, 2, 0],
            [5, 4, 3, 2, 1],
            groups=[0] * 5,
            k=k,
            judged=[True, True, False, True, False],
        )
        assert got == pytest.approx(want[ir_measures.Judged @ k], abs=1e-12)


def test_judged_validation_names_the_argument():
    with pytest.raises(TypeError, match="judged in bpref_score must be a boolean"):
        sr.bpref_score([1, 0], [1, 0], groups=[0, 0], judged=[0.5, 1.0])
    with pytest.raises(ValueError, match=r"Inconsistent numbers of rows.*judged=1"):
        sr.bpref_score([1, 0], [1, 0], groups=[0, 0], judged=[True])
    with pytest.raises(ValueError, match="judged is False; an unjudged row"):
        sr.bpref_score([1, 0], [1, 0], groups=[0, 0], judged=[False, True])
    with pytest.raises(ValueError, match="leaves nothing to rank"):
        sr.map_score(
            [0, 0], [1, 0], groups=[0, 0], judged=[False, False], judged_only=True
        )
    with pytest.raises(ValueError, match="'judged_only' parameter"):
        sr.map_score([1, 0], [1, 0], groups=[0, 0], judged_only="yes")


def test_inputs_are_not_modified():
    y, s = np.array([1.0, 0, 0, 1]), np.array([4.0, 3, 2, 1])
    judged = np.array([True, False, True, True])
    before = (y.copy(), s.copy(), judged.copy())
    sr.evaluate(
        y,
        s,
        groups=[0] * 4,
        judged=judged,
        judged_only=True,
        metrics=["bpref", "judged@2", "map"],
    )
    for a, b in zip((y, s, judged), before, strict=True):
        assert np.array_equal(a, b)


def test_in_pool_is_infaps_third_class():
    """m_infap.c by hand: relevant at 1, 4 and 6 of 6 (R = 3); row 2 judged
    non-relevant, row 3 pooled but unjudged, row 5 outside the pool.
    Row 1 adds 1. Row 4 (j = 3): a = 1, b = 1, u = 1:
    1/4 + (3/4)(3/3)((1 + e)/(2 + 2e)). Row 6 (j = 5): a = 2, b = 1, u = 1:
    1/6 + (5/6)(4/5)((2 + e)/(3 + 2e))."""
    e = 0.00001
    y = [1, 0, 0, 1, 0, 1]
    s = [6, 5, 4, 3, 2, 1]
    judged = [True, True, False, True, False, True]
    in_pool = [True, True, True, True, False, True]
    want = (
        1.0
        + 1 / 4 + (3 / 4) * (3 / 3) * ((1 + e) / (2 + 2 * e))
        + 1 / 6 + (5 / 6) * (4 / 5) * ((2 + e) / (3 + 2 * e))
    ) / 3  # fmt: skip
    kw = dict(groups=[0] * 6, judged=judged)
    got = sr.infap_score(y, s, in_pool=in_pool, **kw)
    assert got == pytest.approx(want, rel=1e-12)
    # Without in_pool row 3 is outside the pool: u = 0 in both terms.
    outside = (
        1.0
        + 1 / 4 + (3 / 4) * (2 / 3) * ((1 + e) / (2 + 2 * e))
        + 1 / 6 + (5 / 6) * (3 / 5) * ((2 + e) / (3 + 2 * e))
    ) / 3  # fmt: skip
    assert sr.infap_score(y, s, **kw) == pytest.approx(outside, rel=1e-12)
    # evaluate and evaluate_per_group take the same mask; the other metrics
    # do not read it.
    both = sr.evaluate(y, s, metrics=["infap", "bpref"], in_pool=in_pool, **kw)
    assert both == pytest.approx(
        {"infap": want, "bpref": sr.bpref_score(y, s, **kw)}, rel=1e-12
    )
    per = sr.evaluate_per_group(y, s, metrics=["infap"], in_pool=in_pool, **kw)
    assert per.values["infap"].tolist() == pytest.approx([want], rel=1e-12)
    # -J removes every unjudged row, pooled or not: u = 0 and p shrinks.
    only = sr.infap_score(y, s, in_pool=in_pool, judged_only=True, **kw)
    assert only == pytest.approx(sr.infap_score(y, s, judged_only=True, **kw))


def test_in_pool_validation_names_the_argument():
    kw = dict(groups=[0, 0], judged=[True, False])
    with pytest.raises(TypeError, match="in_pool in infap_score must be a boolean"):
        sr.infap_score([1, 0], [1, 0], in_pool=[0.5, 1.0], **kw)
    with pytest.raises(ValueError, match=r"Inconsistent numbers of rows.*in_pool=1"):
        sr.infap_score([1, 0], [1, 0], in_pool=[True], **kw)
    with pytest.raises(ValueError, match="in_pool in evaluate is False on row 0"):
        sr.evaluate([1, 0], [1, 0], metrics=["infap"], in_pool=[False, True], **kw)
    # Without judged every row is judged, hence in the pool.
    with pytest.raises(ValueError, match="which is judged"):
        sr.infap_score([1, 0], [1, 0], groups=[0, 0], in_pool=[True, False])
