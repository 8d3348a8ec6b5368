"""The intent-aware metrics in the metric table (issue 45): their names, alpha and
beta through the one option path, ir_measures' names, the tie rules and one
ordering for a mixed call. Values are checked against the brute force of
test_intent_metrics.py."""

from __future__ import annotations

import numpy as np
import pytest
from test_intent_metrics import _case, _err, _intents, _mean_oracle, _ranked

import sklearn_rank
from sklearn_rank import (
    alpha_ndcg_score,
    evaluate,
    evaluate_intents,
    get_metric_names,
    make_ranking_scorer,
    nrbp_score,
)
from sklearn_rank._metrics.registry import METRICS
from sklearn_rank._utils.params import InvalidParameterError

INTENT_NAMES = sorted(name for name, spec in METRICS.items() if spec.intents)


def test_the_table_lists_the_intent_metrics():
    assert INTENT_NAMES == sorted(
        [
            *("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp"),
            "map_ia",
            *("precision_ia", "subtopic_recall"),
        ]
    )
    names = get_metric_names()
    for name in INTENT_NAMES:
        spec = METRICS[name]
        assert name in names and (f"{name}@k" in names) == spec.takes_k
        assert spec.function in sklearn_rank.__all__
    assert sklearn_rank.get_scorer_names() == names


@pytest.mark.parametrize("seed", range(6))
def test_alpha_and_beta_through_evaluate_and_the_scorer(seed):
    y, s, g, w = _case(np.random.default_rng(300 + seed))
    names = ["alpha_ndcg@5", "nerr_ia@3", "nrbp", "nnrbp", "err_ia@4"]
    got = evaluate(y, s, groups=g, metrics=names, sample_weight=w, alpha=0.7, beta=0.3)
    for name in names:
        metric, _, cut = name.partition("@")
        k = int(cut) if cut else None
        want = _mean_oracle(metric, y, s, g, w, 0.7, k, 0.3)
        assert got[name] == pytest.approx(want, abs=1e-12), name

    class Fixed:
        def predict(self, X):
            return np.asarray(X)[:, 0]

    X = s.reshape(-1, 1)
    scorer = make_ranking_scorer("alpha_ndcg@5", alpha=0.7)
    assert (
        scorer(Fixed(), X, y, groups=g)
        == evaluate(y, s, groups=g, metrics="alpha_ndcg@5", alpha=0.7)["alpha_ndcg@5"]
    )
    multi = make_ranking_scorer(["nrbp", "ndcg@3"], beta=0.3)(Fixed(), X, y, groups=g)
    assert multi["nrbp"] == nrbp_score(y, s, groups=g, beta=0.3)


def test_the_ndeval_convention():
    y, s, g, _ = _case(np.random.default_rng(5))
    y[g == g[0]] = 0  # one query without a relevant (row, intent) pair
    ndeval = evaluate_intents(
        y, s, groups=g, metrics=["alpha_ndcg@5", "nnrbp"], convention="ndeval"
    )
    explicit = evaluate_intents(
        y,
        s,
        groups=g,
        metrics=["alpha_ndcg@5", "nnrbp"],
        alpha=0.5,
        beta=0.5,
        ties="stable",
        undefined=0.0,
    )
    assert ndeval == explicit
    # A keyword given explicitly wins over the preset.
    assert alpha_ndcg_score(
        y, s, groups=g, k=5, convention="ndeval", alpha=0.2
    ) == alpha_ndcg_score(y, s, groups=g, k=5, alpha=0.2, ties="stable", undefined=0.0)


@pytest.mark.parametrize(
    ("keyword", "value", "expected"),
    [
        ("alpha", 1.0, r"a float in the range \[0, 1\)"),
        ("alpha", -0.5, r"a float in the range \[0, 1\)"),
        ("beta", 0.0, r"a float in the range \(0, 1\)"),
        ("beta", 1.0, r"a float in the range \(0, 1\)"),
        ("beta", "0.5", r"a float in the range \(0, 1\)"),
    ],
)
def test_bad_alpha_and_beta_name_the_argument(keyword, value, expected):
    y, s, g = [[1, 0], [0, 1]], [0.2, 0.1], [0, 0]
    where = [
        (lambda: evaluate(y, s, groups=g, metrics=["nrbp"], **{keyword: value})),
        (lambda: nrbp_score(y, s, groups=g, **{keyword: value})),
        (lambda: make_ranking_scorer("nrbp", **{keyword: value})),
    ]
    for call, owner in zip(
        where, ("evaluate", "nrbp_score", "make_ranking_scorer"), strict=True
    ):
        with pytest.raises(
            InvalidParameterError,
            match=rf"'{keyword}' parameter of {owner}.*{expected}",
        ):
            call()


def test_options_no_requested_metric_reads_are_refused():
    y, s, g = [[1, 0], [0, 1]], [0.2, 0.1], [0, 0]
    with pytest.raises(InvalidParameterError, match="'beta' parameter of evaluate"):
        evaluate(y, s, groups=g, metrics=["alpha_ndcg@2"], beta=0.3)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of evaluate"):
        evaluate(y, s, groups=g, metrics=["map_ia"], alpha=0.3)
    with pytest.raises(TypeError, match="alpha"):
        sklearn_rank.map_ia_score(y, s, groups=g, alpha=0.3)
    with pytest.raises(InvalidParameterError, match="'judged' parameter"):
        evaluate(y, s, groups=g, metrics=["map_ia", "map"], judged=[True, False])


def test_front_ends_of_one_label_per_row_refuse_intent_names():
    y, s, g = [1, 0], [0.2, 0.1], [0, 0]
    match = "'alpha_ndcg@3' is intent-aware: it needs a 2-D y_true"
    with pytest.raises(ValueError, match=match):
        sklearn_rank.evaluate_per_group(y, s, groups=g, metrics=["alpha_ndcg@3"])
    with pytest.raises(ValueError, match=match):
        sklearn_rank.prepare(y, groups=g, metrics=["alpha_ndcg@3"])
    with pytest.raises(InvalidParameterError, match="'metric' parameter"):
        sklearn_rank.plot.MetricAtKDisplay.from_predictions(
            y, s, groups=g, metric="alpha_ndcg"
        )


def test_a_mixed_call_orders_the_rows_once(monkeypatch):
    from sklearn_rank._engine.context import RankingContext

    calls = []
    original = RankingContext.from_inputs.__func__

    def counted(cls, *args, **kwargs):
        calls.append(kwargs["ties"])
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(RankingContext, "from_inputs", classmethod(counted))
    y, s, g, w = _case(np.random.default_rng(9))
    names = ["alpha_ndcg@5", "ndcg@5", "map", "err_ia@3", "nrbp"]
    got = evaluate(y, s, groups=g, metrics=names, sample_weight=w)
    assert calls == ["average"]  # one ordering: the single-label metrics' average
    calls.clear()
    # ... in which ties are in input order: the intent metrics read "stable".
    alone = evaluate_intents(
        y, s, groups=g, metrics=[*names[::3], "nrbp"], sample_weight=w
    )
    for name, value in alone.items():
        assert got[name] == value
    single = evaluate(y.max(axis=1), s, groups=g, metrics=["ndcg@5", "map"])
    assert got["ndcg@5"] == pytest.approx(
        sklearn_rank.ndcg_score(y.max(axis=1), s, groups=g, k=5, sample_weight=w)
    )
    assert set(single) == {"ndcg@5", "map"}


def _tie_scores(y, s, g, ties):
    """Scores without ties that rank the rows as ``ties`` orders them: by group,
    descending score, then the rows relevant to no intent first and by their
    largest grade ascending ("pessimistic") or the reverse ("optimistic")."""
    top = y.max(axis=1)
    sign = {"stable": 0.0, "pessimistic": 1.0, "optimistic": -1.0}[ties]
    out = np.empty(len(s))
    for q in np.unique(g):
        rows = np.flatnonzero(g == q)
        order = sorted(rows, key=lambda i: (-s[i], sign * top[i], i))
        out[order] = np.arange(len(order), 0, -1)
    return out


@pytest.mark.parametrize("ties", ["stable", "pessimistic", "optimistic"])
@pytest.mark.parametrize("seed", range(8))
def test_tie_rules_equal_the_brute_force_of_their_ordering(ties, seed):
    rng = np.random.default_rng(700 + seed)
    y, s, g, w = _case(rng)
    y[rng.random(len(g)) < 0.3] *= 2  # grades 0..4: the largest grade orders
    names = ["alpha_ndcg@3", "err_ia@5", "nerr_ia", "nnrbp", "map_ia@4"]
    names += ["precision_ia@2", "subtopic_recall@3", "nrbp"]
    got = evaluate_intents(
        y, s, groups=g, metrics=names, sample_weight=w, ties=ties, alpha=0.3
    )
    resolved = _tie_scores(y, s, g, ties)
    for name in names:
        metric, _, cut = name.partition("@")
        k = int(cut) if cut else None
        want = _mean_oracle(metric, y, resolved, g, w, 0.3, k, 0.5)
        assert got[name] == pytest.approx(want, abs=1e-12), (name, ties)
    # A mixed call orders once by the same rule.
    mixed = evaluate(
        y,
        s,
        groups=g,
        metrics=[*names, "ndcg@3"],
        sample_weight=w,
        ties=ties,
        alpha=0.3,
    )
    assert {n: mixed[n] for n in names} == got


def test_threshold_ties_are_refused_when_given():
    # ties="average" given is the expectation over the orders of the ties
    # (tests/test_intent_ties.py); "threshold" has no reading here.
    y, s, g = [[1, 0], [0, 1]], [0.2, 0.2], [0, 0]
    with pytest.raises(InvalidParameterError, match="'ties' parameter of"):
        alpha_ndcg_score(y, s, groups=g, ties="threshold")
    with pytest.raises(InvalidParameterError, match="one score threshold"):
        evaluate(y, s, groups=g, metrics=["alpha_ndcg", "ndcg"], ties="threshold")
    # The default convention's "average" (not given) reads as "stable", and so
    # does the sklearn preset's "threshold".
    stable = alpha_ndcg_score(y, s, groups=g, ties="stable")
    assert alpha_ndcg_score(y, s, groups=g) == stable
    assert alpha_ndcg_score(y, s, groups=g, convention="sklearn") == stable


# -- ir_measures' names (the pyndeval provider's measures) ----------------------

IR_NAMES = [
    ("alpha_nDCG@20", "alpha_ndcg@20", {}),
    ("alpha_nDCG(alpha=0.7)@5", "alpha_ndcg@5", {"alpha": 0.7}),
    ("alpha_DCG@20", "alpha_dcg@20", {}),
    ("alpha_DCG(alpha=0.7)@5", "alpha_dcg@5", {"alpha": 0.7}),
    ("\u03b1_nDCG@10", "alpha_ndcg@10", {}),
    ("\u03b1_DCG(alpha=0.3)@5", "alpha_dcg@5", {"alpha": 0.3}),
    ("ERR_IA@20", "err_ia@20", {}),
    ("nERR_IA@10", "nerr_ia@10", {}),
    ("NRBP", "nrbp", {}),
    ("NRBP(alpha=0.3,beta=0.8)", "nrbp", {"alpha": 0.3, "beta": 0.8}),
    ("nNRBP(beta=0.9)", "nnrbp", {"beta": 0.9}),
    ("P_IA@10", "precision_ia@10", {}),
    ("AP_IA", "map_ia", {}),
    ("MAP_IA", "map_ia", {}),
    ("StRecall@20", "subtopic_recall@20", {}),
]


@pytest.mark.parametrize(("ir_name", "ours", "options"), IR_NAMES)
def test_ir_measures_names_are_the_metrics_with_ndeval_defaults(ir_name, ours, options):
    y, s, g, _ = _case(np.random.default_rng(21))
    got = evaluate(y, s, groups=g, metrics=[ir_name, "ndcg@3"])
    want = evaluate_intents(
        y, s, groups=g, metrics=ours, convention="ndeval", **options
    )[ours]
    assert list(got) == [ir_name, "ndcg@3"]
    assert got[ir_name] == want
    assert evaluate_intents(y, s, groups=g, metrics=[ir_name])[ir_name] == want


@pytest.mark.parametrize(("ir_name", "ours", "options"), IR_NAMES)
def test_ir_measures_parses_the_names_the_same_way(ir_name, ours, options):
    ir_measures = pytest.importorskip("ir_measures")
    from sklearn_rank._metrics.validation import parse_metric

    measure = ir_measures.parse_measure(ir_name)
    request = parse_metric(measure)  # a measure object, as its str
    assert request.spec.name == ours.partition("@")[0]
    assert request.k == measure["cutoff"] if "cutoff" in measure.params else True
    defaults = {"alpha": 0.5, "beta": 0.5}
    for key in ("alpha", "beta"):
        if key in measure.SUPPORTED_PARAMS:
            assert dict(request.options)[key] == measure[key]
        else:  # ERR_IA, nERR_IA, P_IA: the provider's ndeval defaults
            assert dict(request.options)[key] == defaults[key]


def test_ir_measures_names_in_a_scorer():
    class Fixed:
        def predict(self, X):
            return np.asarray(X)[:, 0]

    y, s, g, _ = _case(np.random.default_rng(4))
    X = s.reshape(-1, 1)
    scorer = sklearn_rank.get_scorer("alpha_nDCG(alpha=0.7)@5")
    assert scorer(Fixed(), X, y, groups=g) == alpha_ndcg_score(
        y, s, groups=g, k=5, alpha=0.7, undefined=0.0
    )
    with pytest.raises(ValueError, match="NRBP takes no cutoff"):
        make_ranking_scorer("NRBP@5")


@pytest.mark.parametrize("seed", range(3))
def test_alpha_dcg_names_equal_ir_measures_values(seed):
    # ir_measures' own numbers (its pyndeval provider) on a random case: the
    # per-query values and the mean of alpha_DCG beside alpha_nDCG.
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    rng = np.random.default_rng(50 + seed)
    y, _, g, _ = _case(rng)
    s = rng.permutation(g.size).astype(float)  # distinct scores: one order
    by_query = np.argsort(g, kind="stable")  # pyndeval reads a query's lines as one
    qrels = [
        ir_measures.Qrel(str(g[i]), f"d{i:03d}", int(y[i, j] > 0), str(j))
        for i in by_query
        for j in range(y.shape[1])
    ]
    run = [ir_measures.ScoredDoc(str(g[i]), f"d{i:03d}", s[i]) for i in by_query]
    names = ["alpha_DCG@5", "alpha_DCG(alpha=0.7)@3", "alpha_nDCG@5"]
    ours = evaluate(y, s, groups=g, metrics=names)
    for name in names:
        # One measure a call: ir_measures 0.4.3's pyndeval provider hands the
        # run to its first invocation only (another alpha then reads 0).
        measure = ir_measures.parse_measure(name)
        theirs = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        assert ours[name] == pytest.approx(theirs, abs=1e-12), name


def test_bad_ir_measures_names():
    y, s, g = [[1, 0], [0, 1]], [0.2, 0.1], [0, 0]
    for name, match in [
        ("alpha_nDCG(alpha=1.0)@5", r"'alpha' parameter of evaluate"),
        ("NRBP@5", "NRBP takes no cutoff"),
        ("StRecall(rel=2)@5", "rel other than 1"),
        ("ERR_IA(alpha=0.3)@5", "takes no parameter 'alpha'"),
    ]:
        with pytest.raises(ValueError, match=match):
            evaluate(y, s, groups=g, metrics=[name])


# -- intent weights P(i|q) (Agrawal et al., 2009) --------------------------------


def _weighted_oracle(metric, rel, score, weight, alpha, k):
    """sum_i P(i|q) M_i over the query's intents I_q (those with a relevant
    row), P(i|q) the intent's weight over the weights of I_q; ERR-IA over the
    ERR of a list relevant at every position down to k (ndeval's form)."""
    intents = _intents(rel)
    if not intents:
        return None
    total = sum(weight[j] for j in intents)
    order = _ranked(rel, score)
    k = len(rel) if k is None else k
    value = 0.0
    for j in intents:
        hits = [bool(rel[i][j]) for i in order]
        if metric == "err_ia":
            m = _err([alpha * h for h in hits], k) / _err([alpha] * k, k)
        elif metric == "precision_ia":
            m = sum(hits[:k]) / k
        else:  # map_ia: precision at the relevant rows in the top k, over all
            seen, m = 0, 0.0
            for r, h in enumerate(hits, start=1):
                seen += h
                m += seen / r if h and r <= k else 0.0
            m /= sum(hits)
        value += weight[j] / total * m
    return value


def _weighted_mean(metric, y, s, g, w, weights, alpha, k):
    values, group_weights = [], []
    for q in dict.fromkeys(g):
        rows = [i for i in range(len(g)) if g[i] == q]
        rel, score = [list(y[i]) for i in rows], [s[i] for i in rows]
        v = _weighted_oracle(metric, rel, score, weights[rows[0]], alpha, k)
        if v is not None:
            values.append(v)
            group_weights.append(np.mean([w[i] for i in rows]))
    return float(np.average(values, weights=group_weights))


def _query_weights(rng, y, g):
    """Per query, weights in {0, 0.5, 1, 3}, one intent with a relevant row at
    least weighing 1; the same on every row of the query."""
    per_query = {}
    for q in np.unique(g):
        row = rng.choice([0.0, 0.5, 1.0, 3.0], size=y.shape[1])
        relevant = np.flatnonzero((y[g == q] > 0).any(axis=0))
        if relevant.size:
            row[rng.choice(relevant)] = 1.0
        per_query[q] = row
    return np.array([per_query[q] for q in g])


@pytest.mark.parametrize("seed", range(12))
def test_intent_weights_equal_the_brute_force(seed):
    rng = np.random.default_rng(900 + seed)
    y, s, g, w = _case(rng)
    weights = _query_weights(rng, y, g)
    names = ["err_ia@3", "err_ia", "precision_ia@2", "precision_ia", "map_ia"]
    names += ["map_ia@3"]
    got = evaluate_intents(
        y, s, groups=g, metrics=names, sample_weight=w, intent_weight=weights, alpha=0.3
    )
    for name in names:
        metric, _, cut = name.partition("@")
        k = int(cut) if cut else None
        want = _weighted_mean(metric, y, s, g, w, weights, 0.3, k)
        assert got[name] == pytest.approx(want, abs=1e-12), name
    # Uniform weights are the unweighted metrics (ndeval's 1 / |I_q|).
    ones = np.ones_like(weights)
    assert evaluate_intents(
        y, s, groups=g, metrics=names, intent_weight=ones
    ) == pytest.approx(evaluate_intents(y, s, groups=g, metrics=names), abs=1e-15)


def test_intent_weights_hand_worked():
    # Intents A, B weigh 3 and 1: P(A|q) = 0.75. Ranked d1 (A), d2 (B).
    y, s, g = [[1, 0], [0, 1]], [2, 1], [0, 0]
    weights = [[3, 1], [3, 1]]
    # P-IA@1: 0.75 x 1 + 0.25 x 0; MAP-IA: 0.75 x 1 + 0.25 x 1/2.
    assert sklearn_rank.precision_ia_score(
        y, s, groups=g, k=1, intent_weight=weights
    ) == pytest.approx(0.75)
    assert sklearn_rank.map_ia_score(y, s, groups=g, intent_weight=weights) == (
        pytest.approx(0.875)
    )
    # ERR-IA@2 (alpha 0.5): (0.75 x 0.5 + 0.25 x 0.5 / 2) / (0.5 + 0.25 / 2).
    assert sklearn_rank.err_ia_score(
        y, s, groups=g, k=2, intent_weight=weights
    ) == pytest.approx(0.4375 / 0.625)


def test_bad_intent_weights():
    y, s, g = [[1, 0], [0, 1], [1, 1]], [3, 2, 1], [0, 0, 1]
    good = [[1, 2], [1, 2], [1, 1]]
    for weights, match in [
        (
            [[1, 2], [1, 2]],
            r"'intent_weight' parameter of err_ia_score must be an "
            r"array of y_true's shape \(3, 2\)",
        ),
        ([[1, 2], [2, 1], [1, 1]], "the same weights on every row of a query"),
        ([[1, -2], [1, -2], [1, 1]], "finite weights >= 0"),
        ([[1, np.nan], [1, np.nan], [1, 1]], "finite weights >= 0"),
        ([[0, 0], [0, 0], [1, 1]], "0 on every such intent of query 0"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            sklearn_rank.err_ia_score(y, s, groups=g, intent_weight=weights)
    with pytest.raises(
        InvalidParameterError, match="no definition over intent weights"
    ):
        evaluate_intents(
            y, s, groups=g, metrics=["err_ia", "alpha_ndcg"], intent_weight=good
        )
    with pytest.raises(TypeError, match="intent_weight"):
        alpha_ndcg_score(y, s, groups=g, intent_weight=good)
    # The weight of an intent without a relevant row in the query is not read.
    assert (
        sklearn_rank.map_ia_score(
            [[1, 0], [0, 0]], [2, 1], groups=[0, 0], intent_weight=[[1, 0], [1, 0]]
        )
        == 1.0
    )
