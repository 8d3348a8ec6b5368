"""trec_eval's other measures against pytrec_eval on random qrels and runs.

The random data of ``test_pytrec_eval_differential`` (ties, unjudged retrieved
documents, negative grades, topics without relevant documents) goes through
``sklearn_rank.io`` and the library's metrics under ``convention="trec_eval"``
(per topic, to 1e-12), and through ``sklearn-rank eval -q`` for the measures
that are not per-topic metrics (set measures, counts, geometric means: printed
values equal pytrec_eval's at trec_eval's 4 decimals).
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from test_pytrec_eval_differential import random_trec

from sklearn_rank import evaluate_per_group
from sklearn_rank.io import read_qrels, read_run, trec_arrays

pytrec_eval = pytest.importorskip("pytrec_eval")

MULTIPLES = [i / 5 for i in range(1, 11)]
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# pytrec_eval key -> (library metric, its own keywords)
LIBRARY = {
    "ndcg": ("ndcg", {}),
    "ndcg_cut_10": ("ndcg@10", {}),
    "binG": ("bing", {}),
    "G": ("g", {}),
    "ndcg_rel": ("ndcg_rel", {}),
    "Rndcg": ("rndcg", {}),
    **{f"Rprec_mult_{m:.2f}": (f"rprec_mult@{m!r}", {}) for m in MULTIPLES},
    **{
        f"relative_P_{k}": (f"recall@{k}", {"recall_denominator": "min_k_n_relevant"})
        for k in CUTS
    },
}
# Not compared: 11pt_avg (pytrec_eval bundles trec_eval 9, whose recall levels
# round with + 0.9 where trec_eval 10 uses lround; tests/test_trec_eval_parity.py
# checks it against trec_eval 10's own output).
CLI = (
    "set_P set_recall set_relative_P set_map set_F utility num_nonrel_judged_ret "
    "infAP gm_map gm_bpref"
).split()


def _dicts(qrels_text: str, run_text: str):
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        qid, _, doc, rel = line.split()
        qrels.setdefault(qid, {})[doc] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for line in run_text.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return qrels, run


def _pytrec(qrels_text, run_text, level, measures):
    qrels, run = _dicts(qrels_text, run_text)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    return evaluator.evaluate(run)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(12))
def test_library_metrics_agree_with_pytrec_eval(seed, level):
    qrels_text, run_text = random_trec(seed)
    measures = {"ndcg", "ndcg_cut.10", "binG", "G", "ndcg_rel", "Rndcg"}
    measures |= {"Rprec_mult", "relative_P"}
    expected = _pytrec(qrels_text, run_text, level, measures)
    t = trec_arrays(
        read_qrels(io.StringIO(qrels_text)), read_run(io.StringIO(run_text))
    )
    calls: dict[tuple, list[str]] = {}
    for name, keywords in LIBRARY.values():
        calls.setdefault(tuple(keywords.items()), []).append(name)
    values = {}
    for keywords, names in calls.items():
        found = evaluate_per_group(
            t.y_true,
            t.y_score,
            groups=t.groups,
            retrieved=t.retrieved,
            judged=t.judged,
            metrics=names,
            convention="trec_eval",
            relevance_threshold=level,
            **dict(keywords),
        )
        ids = [str(g) for g in found.group_ids]
        for name in names:
            values[name] = dict(zip(ids, found.values[name], strict=True))
    assert set(values["ndcg"]) == set(expected)
    compared = 0
    for qid, theirs in expected.items():
        for key, (name, _) in LIBRARY.items():
            ours = values[name][qid]
            ours = 0.0 if math.isnan(ours) else ours  # trec_eval scores 0
            assert ours == pytest.approx(theirs[key], abs=1e-12, rel=0), (qid, key)
            compared += 1
    assert compared >= 3 * len(LIBRARY)


def _cli_values(tmp_path, qrels_text, run_text, level, capsys, names):
    from sklearn_rank._cli import main

    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    argv = ["eval", "--quiet", "-q", f"-l{level}"]
    for name in names:
        argv += ["-m", name]
    assert main([*argv, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    out = {}
    for line in capsys.readouterr().out.splitlines():
        name, qid, value = line.split("\t")
        out[name.strip(), qid] = value
    return out


def _pooled_unjudged(qrels_text: str, run_text: str) -> bool:
    """Whether the run retrieves a document with a negative qrels grade."""
    qrels, run = _dicts(qrels_text, run_text)
    return any(qrels.get(q, {}).get(d, 0) < 0 for q, docs in run.items() for d in docs)


def test_the_random_cases_retrieve_pooled_unjudged_documents():
    # infAP's third class (a negative grade: pooled, not judged) is compared
    # with pytrec_eval below only if some run retrieves such a document.
    cases = [random_trec(seed) for seed in range(0, 8, 2)]
    assert sum(_pooled_unjudged(q, r) for q, r in cases) >= 2


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(8))
def test_eval_set_measures_agree_with_pytrec_eval(seed, level, tmp_path, capsys):
    qrels_text, run_text = random_trec(seed)
    if seed % 2:  # no negative grade: infAP's pooled-unjudged class is empty
        lines = qrels_text.splitlines(keepends=True)
        qrels_text = "".join(x for x in lines if not x.rstrip().endswith("-1"))
    expected = _pytrec(qrels_text, run_text, level, set(CLI))
    got = _cli_values(tmp_path, qrels_text, run_text, level, capsys, list(CLI))
    compared = 0
    for qid, theirs in expected.items():
        for name in CLI:
            if name.startswith("gm_"):
                continue
            value = theirs[name]
            want = (
                str(int(value)) if name == "num_nonrel_judged_ret" else f"{value:.4f}"
            )
            assert got[name, qid] == want, (qid, name)
            compared += 1
    # gm_*: pytrec_eval gives each topic's log(max(v, 1e-5)); the summary is
    # exp of their mean.
    for name in ("gm_map", "gm_bpref"):
        logs = [expected[q][name] for q in sorted(expected)]
        assert got[name, "all"] == f"{math.exp(np.mean(logs)):.4f}", name
    assert compared >= 7 * len(expected)
