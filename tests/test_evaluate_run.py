"""evaluate_run: qrels and runs as PyTerrier, ir_measures, ir_datasets,
pytrec_eval and ranx hold them; values equal ir_measures' on random pairs."""

import warnings

import numpy as np
import pytest

from sklearn_rank import evaluate_run

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
ir_measures = pytest.importorskip("ir_measures")

NAMES = [
    "nDCG@10",
    "nDCG",
    "P@5",
    "P(rel=2)@5",
    "R@100",
    "AP",
    "AP@5",
    "RR",
    "Rprec",
    "Bpref",
    "infAP",
    "SetP",
    "SetR",
    "Success@3",
    "Judged@5",
    "Judged@10",
]
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d3": 2, "d9": 1}, "q3": {"x": 0}}
RUN = {
    "q1": {"d1": 0.2, "d2": 0.9, "d4": 0.9, "d3": 0.2},
    "q2": {"d3": 1.0, "d4": 0.5, "d5": 0.5},
    "q9": {"d1": 1.0},
}


def _frame(d, number):
    rows = [(q, doc, v) for q, docs in d.items() for doc, v in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", number])


def _theirs(qrels, run, names):
    measures = [ir_measures.parse_measure(n) for n in names]
    out = ir_measures.calc_aggregate(measures, qrels, run)
    return {n: out[m] for n, m in zip(names, measures, strict=True)}


def test_every_input_form_gives_ir_measures_values():
    want = _theirs(QRELS, RUN, NAMES)
    qrels_iter = [
        ir_measures.Qrel(q, d, r) for q, v in QRELS.items() for d, r in v.items()
    ]
    run_iter = [
        ir_measures.ScoredDoc(q, d, s) for q, v in RUN.items() for d, s in v.items()
    ]
    renamed = _frame(QRELS, "relevance").rename(
        columns={"qid": "query_id", "docno": "doc_id"}
    )
    forms = [
        (QRELS, RUN),
        (_frame(QRELS, "label"), _frame(RUN, "score")),
        (iter(qrels_iter), iter(run_iter)),
        (renamed, RUN),
    ]
    for qrels, run in forms:
        assert evaluate_run(qrels, run, metrics=NAMES) == pytest.approx(want)


def test_ranx_objects():
    ranx = pytest.importorskip("ranx")
    got = evaluate_run(ranx.Qrels(QRELS), ranx.Run(RUN), metrics=["nDCG@10", "AP"])
    assert got == pytest.approx(_theirs(QRELS, RUN, ["nDCG@10", "AP"]))


def test_random_pairs_match_ir_measures():
    rng = np.random.default_rng(4747)
    differences, compared = [], 0
    for trial in range(200):
        qrels, run = {}, {}
        for q in range(rng.integers(1, 6)):
            docs = [f"d{i}" for i in range(rng.integers(2, 25))]
            judged = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            qrels[f"q{q}"] = {str(d): int(rng.integers(0, 4)) for d in judged}
            ranked = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            run[f"q{q}"] = {str(d): float(rng.integers(0, 4)) for d in ranked}
        if len(run) > 1 and rng.random() < 0.3:  # a judged query the run misses
            del run["q0"]
        if rng.random() < 0.3:  # a query of the run without judgements
            run["qx"] = {"d1": 1.0}
        ours = evaluate_run(_frame(qrels, "label"), _frame(run, "score"), metrics=NAMES)
        theirs = _theirs(qrels, run, NAMES)
        for n in NAMES:
            compared += 1
            if not np.isclose(ours[n], theirs[n], rtol=1e-9, atol=1e-12):
                differences.append((trial, n, ours[n], theirs[n]))
    assert compared == 200 * len(NAMES)
    assert differences == [], differences[:10]


def test_several_runs_for_compare():
    from sklearn_rank import stats

    other = {"q1": {"d3": 1.0}, "q3": {"x": 1.0}}  # q2 missing: ranks nothing
    scores = evaluate_run(QRELS, {"a": RUN, "b": other}, metrics=["AP", "P@5"])
    assert list(scores["a"].group_ids) == ["q1", "q2", "q3"]
    assert list(scores["b"].group_ids) == ["q1", "q2", "q3"]
    assert scores["b"].values["AP"][1] == 0.0
    with pytest.warns(RuntimeWarning, match="cannot reject"):  # 3 queries only
        report = stats.compare(None, scores, metrics=["AP"], n_resamples=99)
    assert "a - b" in str(report)


def test_missing_columns():
    frame = _frame(RUN, "score").rename(columns={"docno": "doc"})
    with pytest.raises(ValueError, match="no 'docno' or 'doc_id' column"):
        evaluate_run(QRELS, frame, metrics="AP")


def test_duplicate_rows():
    frame = pd.concat([_frame(RUN, "score")] * 2)
    with pytest.raises(ValueError, match=r"duplicate document 'd1'"):
        evaluate_run(QRELS, frame, metrics="AP")
    with pytest.raises(ValueError, match="duplicate"):
        evaluate_run(pd.concat([_frame(QRELS, "label")] * 2), RUN, metrics="AP")


def test_mixed_id_types():
    qrels = _frame({"1": {"d1": 1}}, "label")
    run = pd.DataFrame({"qid": [1], "docno": ["d1"], "score": [1.0]})
    with pytest.raises(TypeError, match="never match"):
        evaluate_run(qrels, run, metrics="AP")
    mixed = pd.DataFrame({"qid": [1, "2"], "docno": ["d1", "d1"], "score": [1.0, 1]})
    with pytest.raises(TypeError, match="one type"):
        evaluate_run(qrels, mixed, metrics="AP")


def test_ir_measures_provider_gives_ir_measures_values():
    from sklearn_rank.io import ir_measures_provider

    provider = ir_measures_provider()
    assert ir_measures.providers.registry["sklearn_rank"] is provider
    measures = [ir_measures.parse_measure(n) for n in NAMES]
    assert all(provider.supports(m) for m in measures)
    got = provider.calc_aggregate(measures, QRELS, RUN)
    want = ir_measures.calc_aggregate(measures, QRELS, RUN)
    assert got == pytest.approx(want)
    per_query = {(m.query_id, str(m.measure)): m.value
                 for m in provider.iter_calc(measures, QRELS, RUN)}  # fmt: skip
    theirs = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.iter_calc(measures, QRELS, RUN)}  # fmt: skip
    assert per_query == pytest.approx(theirs)
    frame_got = provider.calc_aggregate(
        measures, _frame(QRELS, "label"), _frame(RUN, "score")
    )
    assert frame_got == pytest.approx(want)


def test_docs_page_examples_run():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "ir_stack.md"
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(page), module_relative=False, optionflags=flags)
    assert result.failed == 0 and result.attempted > 0


def test_gdeval_measures_match_at_its_printed_precision():
    # ERR@k and nDCG(dcg='exp-log2')@k come from gdeval (a perl script that
    # takes numeric query ids and prints 5 decimals).
    import shutil

    if shutil.which("perl") is None:
        pytest.skip("gdeval needs perl")
    rng = np.random.default_rng(7)
    names = ["ERR@20", "ERR@5", "nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@3"]
    measures = [ir_measures.parse_measure(n) for n in names]
    differences, compared = [], 0
    for trial in range(40):
        qrels, run = {}, {}
        for q in range(1, rng.integers(2, 6)):
            docs = [f"d{i}" for i in range(rng.integers(2, 25))]
            judged = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            qrels[str(q)] = {str(d): int(rng.integers(0, 5)) for d in judged}
            ranked = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            run[str(q)] = {str(d): float(rng.integers(0, 4)) for d in ranked}
        theirs = ir_measures.calc_aggregate(measures, qrels, run)
        ours = evaluate_run(qrels, run, metrics=names)
        for name, measure in zip(names, measures, strict=True):
            compared += 1
            if abs(ours[name] - theirs[measure]) > 5.01e-6:
                differences.append((trial, name, ours[name], theirs[measure]))
    assert compared == 160
    assert differences == [], differences[:5]


def test_ranx_values_without_ties():
    # ranx breaks ties its own way; on distinct scores its measures equal the
    # library's under evaluate_run's default (trec_eval) convention. ranx's
    # bpref differs from trec_eval's (NaN or 0 on some queries): not compared.
    ranx = pytest.importorskip("ranx")
    shared = {"ndcg@10": "ndcg@10", "map": "map", "map@5": "map@5", "mrr": "mrr",
              "mrr@3": "mrr@3", "precision@5": "precision@5",
              "recall@10": "recall@10", "hit_rate@5": "hit_rate@5",
              "r_precision": "r-precision", "f1@5": "f1@5"}  # fmt: skip
    rng = np.random.default_rng(3)
    differences, compared = [], 0
    for trial in range(60):
        qrels, run = {}, {}
        for q in range(rng.integers(1, 6)):
            docs = [f"d{i}" for i in range(rng.integers(2, 25))]
            judged = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            qrels[f"q{q}"] = {str(d): int(rng.integers(0, 4)) for d in judged}
            ranked = rng.choice(docs, rng.integers(1, len(docs) + 1), replace=False)
            scores = rng.permutation(len(ranked)).astype(float)
            run[f"q{q}"] = dict(zip(map(str, ranked), scores, strict=True))
        ours = evaluate_run(qrels, run, metrics=list(shared))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = ranx.evaluate(
                ranx.Qrels(qrels), ranx.Run(run), list(shared.values())
            )
        for name, theirs_name in shared.items():
            compared += 1
            if not np.isclose(ours[name], theirs[theirs_name]):
                differences.append((trial, name, ours[name], theirs[theirs_name]))
    assert compared == 600
    assert differences == [], differences[:5]


def test_several_runs_average_as_one_run():
    # per-query values fill undefined queries as the names say (0), so the
    # mean of each run's values is evaluate_run's value of that run alone
    names = ["AP", "nDCG@10", "map", "Judged@10"]
    both = evaluate_run(QRELS, {"a": RUN, "b": {"q1": {"d3": 1.0}}}, metrics=names)
    for name in names:
        alone = evaluate_run(QRELS, RUN, metrics=[name])[name]
        assert np.mean(both["a"].values[name]) == pytest.approx(alone)
        assert not np.isnan(both["b"].values[name]).any()
