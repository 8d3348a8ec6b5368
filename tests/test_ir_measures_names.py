"""ir_measures' measure names: the values equal ir_measures' (its default
providers) on its own style fixtures and on random run/qrels pairs with ties and
unjudged documents."""

import numpy as np
import pytest

from sklearn_rank import evaluate
from sklearn_rank._metrics.ir_measures_names import parse_ir_measure

ir_measures = pytest.importorskip("ir_measures")

# Measures the pytrec_eval provider computes (trec_eval's tie order).
TREC_NAMES = [
    "nDCG@10",
    "nDCG",
    "nDCG@3",
    "P@5",
    "P(rel=2)@5",
    "R@100",
    "R@3",
    "AP",
    "AP@100",
    "AP@3",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "Rprec",
    "Rprec(rel=2)",
    "Bpref",
    "Bpref(rel=2)",
    "infAP",
    "SetP",
    "SetP(rel=2)",
    "SetR",
    "Success@3",
]
JUDGED_ONLY = [
    "P(judged_only=True)@5",
    "AP(judged_only=True)",
    "nDCG(judged_only=True)@10",
]


def _rows(qrels, run, descending_docno=True):
    """Rows of the queries in both, retrieved ones first in the provider's tie
    order (score descending, then docno descending for trec_eval, ascending for
    the judged provider), then the judged documents left unretrieved."""
    y, s, g, ret, jud = [], [], [], [], []
    for q in sorted(qrels):  # a judged query the run misses scores 0
        docs = sorted(run.get(q, {}).items(), reverse=descending_docno)
        docs = sorted(docs, key=lambda item: -item[1])  # stable: keeps the docno order
        for d, _ in docs:
            y.append(qrels[q].get(d, 0))
            s.append(-len(y))
            g.append(q)
            ret.append(True)
            jud.append(d in qrels[q])
        for d, label in qrels[q].items():
            if d not in run.get(q, {}):
                y.append(label)
                s.append(-1e9)
                g.append(q)
                ret.append(False)
                jud.append(True)
    return dict(y_true=y, y_score=s, groups=g, retrieved=ret, judged=jud)


def _ours(qrels, run, names, descending_docno=True):
    rows = _rows(qrels, run, descending_docno)
    return evaluate(
        rows.pop("y_true"),
        rows.pop("y_score"),
        metrics=names,
        ties="stable",
        integer_grades=True,
        **rows,
    )


def _theirs(qrels, run, names):
    measures = [ir_measures.parse_measure(n) for n in names]
    out = ir_measures.calc_aggregate(measures, qrels, run)
    return {n: out[m] for n, m in zip(names, measures, strict=True)}


def _random_pair(rng):
    qrels, run = {}, {}
    for q in range(rng.integers(1, 6)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.integers(2, 25))]
        judged = rng.choice(docs, size=rng.integers(1, len(docs) + 1), replace=False)
        qrels[qid] = {str(d): int(rng.integers(0, 4)) for d in judged}
        retrieved = rng.choice(docs, size=rng.integers(1, len(docs) + 1), replace=False)
        # few distinct scores: many ties
        run[qid] = {str(d): float(rng.integers(0, 4)) for d in retrieved}
    if rng.random() < 0.3:  # a query of the run without judgements
        run["qx"] = {"d1": 1.0}
    if len(run) > 1 and rng.random() < 0.3:  # a judged query the run misses
        del run["q0"]
    return qrels, run


FIXTURE_QRELS = {
    "q1": {"d1": 0, "d2": 1, "d3": 2, "d4": 0, "d5": 1},
    "q2": {"d1": 1, "d2": 0, "d7": 3},
    "q3": {"d9": 0},  # no relevant document: 0 under trec_eval, still averaged
}
FIXTURE_RUN = {
    "q1": {"d1": 1.0, "d2": 0.9, "d3": 0.9, "d6": 0.5, "d4": 0.1},
    "q2": {"d7": 0.3, "d8": 0.3, "d2": 0.2},
    "q3": {"d9": 1.0, "d1": 0.5},
    "q4": {"d1": 1.0},  # not judged: left out
}


@pytest.mark.parametrize("name", TREC_NAMES)
def test_fixture_matches_ir_measures(name):
    ours = _ours(FIXTURE_QRELS, FIXTURE_RUN, [name])[name]
    assert ours == pytest.approx(_theirs(FIXTURE_QRELS, FIXTURE_RUN, [name])[name])


def test_judged_matches_ir_measures():
    names = ["Judged@10", "Judged@2", "Judged@3"]
    ours = _ours(FIXTURE_QRELS, FIXTURE_RUN, names, descending_docno=False)
    assert ours == pytest.approx(_theirs(FIXTURE_QRELS, FIXTURE_RUN, names))


def test_measure_objects_are_accepted():
    from ir_measures import AP, P, nDCG

    ours = _ours(FIXTURE_QRELS, FIXTURE_RUN, [nDCG @ 10, P(rel=2) @ 5, AP])
    theirs = _theirs(FIXTURE_QRELS, FIXTURE_RUN, ["nDCG@10", "P(rel=2)@5", "AP"])
    assert ours == pytest.approx(theirs)


def test_random_pairs_match_ir_measures():
    rng = np.random.default_rng(47)
    differences, trials = [], 500
    for trial in range(trials):
        qrels, run = _random_pair(rng)
        for names, order in (
            (TREC_NAMES, True),
            (JUDGED_ONLY[:1], True),
            (JUDGED_ONLY[1:2], True),
            (JUDGED_ONLY[2:], True),
            (["Judged@5", "Judged@10"], False),
        ):
            ours = _ours(qrels, run, names, order)
            theirs = _theirs(qrels, run, names)
            for n in names:
                if not np.isclose(ours[n], theirs[n], rtol=1e-9, atol=1e-12):
                    differences.append((trial, n, ours[n], theirs[n]))
    assert differences == [], differences[:10]


@pytest.mark.parametrize(
    "name, message, column",
    [
        ("nDCG@x", "positive integer", 5),
        ("P(rell=2)@5", "no parameter 'rell'", 2),
        ("Rprec@5", "takes no cutoff", 5),
        ("P(rel=2@5", "is missing", 9),
        ("AP(rel=two)", "not a number", 7),
        ("nDCG(dcg='exp')@10", "dcg must be", None),
        ("P(rel=0)@5", "rel must be a positive", None),
        ("NumRel", "a count summed over queries", 0),
    ],
)
def test_bad_names_point_at_the_character(name, message, column):
    with pytest.raises(ValueError, match=message) as info:
        parse_ir_measure(name)
    if column is not None:
        lines = str(info.value).splitlines()
        assert lines[-1].index("^") - 2 == column, str(info.value)


def test_unknown_name_suggests_the_nearest():
    with pytest.raises(ValueError, match="Did you mean 'nDCG'"):
        evaluate([1, 0], [1, 0], groups=[0, 0], metrics=["nDGC@10"])


def test_judged_only_must_be_the_whole_call():
    with pytest.raises(ValueError, match="separate calls"):
        evaluate([1, 0], [1, 0], groups=[0, 0], metrics=["AP(judged_only=True)", "AP"])


def test_ir_names_in_scorers():
    from sklearn.dummy import DummyRegressor

    from sklearn_rank import make_ranking_scorer

    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([1, 0, 2, 0, 1, 0])
    groups = np.array([0, 0, 0, 1, 1, 1])
    model = DummyRegressor().fit(X, X.ravel())  # scores: all tied
    for name in ("nDCG@10", "P(rel=2)@5"):
        scorer = make_ranking_scorer(name)
        want = evaluate(y, model.predict(X), groups=groups, metrics=[name])[name]
        assert scorer(model, X, y, groups=groups) == pytest.approx(want)
    both = make_ranking_scorer(["AP", "RR"])(model, X, y, groups=groups)
    assert set(both) == {"AP", "RR"}


def test_command_line_takes_ir_measures_names(capsys):
    from pathlib import Path

    from sklearn_rank._cli import main

    data = Path(__file__).parent / "data" / "trec_eval"
    qrels, run = str(data / "qrels.test"), str(data / "results.test")
    names = ["nDCG@10", "AP", "P(rel=2)@5", "Judged@10", "RR", "Bpref"]
    assert main(["eval", "-m", ",".join(names), qrels, run]) == 0
    printed = {
        line.split()[0]: float(line.split()[2])
        for line in capsys.readouterr().out.splitlines()
    }
    want = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names],
        list(ir_measures.read_trec_qrels(qrels)),
        list(ir_measures.read_trec_run(run)),
    )
    for measure, value in want.items():
        assert printed[str(measure)] == pytest.approx(value, abs=5e-5)
    with pytest.raises(SystemExit):
        main(["eval", "-m", "nDGC@10", qrels, run])
    assert "did you mean 'nDCG'" in capsys.readouterr().err


def test_every_accepted_name_is_an_ir_measures_name():
    # Each name of the table (aliases too) parses in ir_measures, as the same
    # measure as its canonical spelling where two spellings share an entry.
    from sklearn_rank._metrics.ir_measures_names import IR_MEASURES

    for name, spec in IR_MEASURES.items():
        measure = ir_measures.parse_measure(name)
        twins = [n for n, s in IR_MEASURES.items() if s is spec]
        assert {str(ir_measures.parse_measure(n)) for n in twins} == {str(measure)}
