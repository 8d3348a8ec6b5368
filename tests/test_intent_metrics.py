"""Intent-aware metrics (issue 45, first slice): a brute force written from the
definitions, a hand-worked example, ndeval (pyndeval) where installed, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sklearn_rank import (
    alpha_ndcg_score,
    err_ia_score,
    evaluate_intents,
    map_ia_score,
    nerr_ia_score,
    nnrbp_score,
    nrbp_score,
    precision_ia_score,
    subtopic_recall_score,
)
from sklearn_rank._utils.params import InvalidParameterError

# -- brute force, one query at a time, from the papers' definitions --------------


def _ranked(rel, score):
    """Rows by descending score, input order within ties (the stable rule)."""
    return sorted(range(len(score)), key=lambda i: -score[i])


def _intents(rel):
    return [j for j in range(len(rel[0])) if any(row[j] for row in rel)]


def _alpha_dcg(lists, intents, alpha, k):
    """Clarke et al. (2008): gain sum_i J(d, i) (1 - alpha)^{r_{i, p-1}}, discount
    1 / log2(1 + p)."""
    seen = dict.fromkeys(intents, 0)
    total = 0.0
    for p, row in enumerate(lists[:k], start=1):
        gain = 0.0
        for j in intents:
            if row[j]:
                gain += (1 - alpha) ** seen[j]
                seen[j] += 1
        total += gain / math.log2(1 + p)
    return total


def _greedy_ideal(rel, intents, alpha):
    """ndeval's idealResult: the largest marginal gain at each position, ties to
    the greatest docno (here: the last row in input order)."""
    left = list(range(len(rel)))
    seen = dict.fromkeys(intents, 0)
    out = []
    while left:
        best, where = None, None
        for i in left:
            g = sum((1 - alpha) ** seen[j] for j in intents if rel[i][j])
            if best is None or g >= best:
                best, where = g, i
        left.remove(where)
        out.append(rel[where])
        for j in intents:
            seen[j] += bool(rel[where][j])
    return out


def _alpha_ndcg(rel, score, alpha, k):
    intents = _intents(rel)
    if not intents:
        return None
    k = len(rel) if k is None else k
    ranked = [rel[i] for i in _ranked(rel, score)]
    ideal = _greedy_ideal(rel, intents, alpha)
    return _alpha_dcg(ranked, intents, alpha, k) / _alpha_dcg(ideal, intents, alpha, k)


def _alpha_dcg_ndeval(rel, score, alpha, k):
    """ndeval's alpha-DCG@k: alpha-DCG over that of a list relevant to every
    intent at each of the k ranks (its "ideal ideal", no greedy ideal)."""
    intents = _intents(rel)
    if not intents:
        return None
    k = len(rel) if k is None else k
    ranked = [rel[i] for i in _ranked(rel, score)]
    every = [[1] * len(rel[0])] * k
    return _alpha_dcg(ranked, intents, alpha, k) / _alpha_dcg(every, intents, alpha, k)


def _err(stops, k):
    """Chapelle et al. (2009): sum_p R_p / p prod_{q < p} (1 - R_q)."""
    total, through = 0.0, 1.0
    for p, r in enumerate(stops[:k], start=1):
        total += through * r / p
        through *= 1 - r
    return total


def _err_ia(rel, score, alpha, k):
    """Agrawal et al. (2009) with uniform intent weights and stop probability
    alpha at a relevant row, over the ERR of a list relevant at every position
    down to k (ndeval's normalisation)."""
    intents = _intents(rel)
    if not intents:
        return None
    k = len(rel) if k is None else k
    order = _ranked(rel, score)
    per = [_err([alpha * bool(rel[i][j]) for i in order], k) for j in intents]
    return (sum(per) / len(intents)) / _err([alpha] * k, k)


def _precision_ia(rel, score, k):
    intents = _intents(rel)
    if not intents:
        return None
    k = len(rel) if k is None else k
    top = _ranked(rel, score)[:k]
    return sum(sum(bool(rel[i][j]) for i in top) / k for j in intents) / len(intents)


def _subtopic_recall(rel, score, k):
    """Zhai et al. (2003): |union of the intents of the top k| / |intents|."""
    intents = _intents(rel)
    if not intents:
        return None
    top = _ranked(rel, score)[: len(rel) if k is None else k]
    covered = {j for i in top for j in intents if rel[i][j]}
    return len(covered) / len(intents)


def _ia_err_sum(lists, intents, alpha, k):
    """Sum over intents of each intent's ERR (stop probability alpha at a row
    relevant to it), down to k."""
    return sum(_err([alpha * bool(row[j]) for row in lists], k) for j in intents)


def _nerr_ia(rel, score, alpha, k):
    """ndeval's nERR-IA: the ranking's intent-aware ERR over that of the greedy
    ideal ranking."""
    intents = _intents(rel)
    if not intents:
        return None
    k = len(rel) if k is None else k
    ranked = [rel[i] for i in _ranked(rel, score)]
    ideal = _greedy_ideal(rel, intents, alpha)
    return _ia_err_sum(ranked, intents, alpha, k) / _ia_err_sum(
        ideal, intents, alpha, k
    )


def _rbp_sum(lists, intents, alpha, beta):
    """Clarke et al. (2009): sum_r beta^(r-1) sum_i J(d_r, i) (1 - alpha)^(seen)."""
    seen = dict.fromkeys(intents, 0)
    total = 0.0
    for r, row in enumerate(lists, start=1):
        for j in intents:
            if row[j]:
                total += beta ** (r - 1) * (1 - alpha) ** seen[j]
                seen[j] += 1
    return total


def _nrbp(rel, score, alpha, beta):
    intents = _intents(rel)
    if not intents:
        return None
    ranked = [rel[i] for i in _ranked(rel, score)]
    scale = (1 - (1 - alpha) * beta) / len(intents)
    return scale * _rbp_sum(ranked, intents, alpha, beta)


def _nnrbp(rel, score, alpha, beta):
    intents = _intents(rel)
    if not intents:
        return None
    ranked = [rel[i] for i in _ranked(rel, score)]
    ideal = _greedy_ideal(rel, intents, alpha)
    return _rbp_sum(ranked, intents, alpha, beta) / _rbp_sum(
        ideal, intents, alpha, beta
    )


def _map_ia(rel, score, k):
    """Agrawal et al. (2009): the mean over intents of AP for the intent, its
    relevant rows the denominator; precision summed at its relevant rows in the
    top k."""
    intents = _intents(rel)
    if not intents:
        return None
    order = _ranked(rel, score)
    k = len(rel) if k is None else k
    total = 0.0
    for j in intents:
        hits, ap = 0, 0.0
        for r, i in enumerate(order, start=1):
            if rel[i][j]:
                hits += 1
                if r <= k:
                    ap += hits / r
        total += ap / hits
    return total / len(intents)


# name -> oracle(rel, score, alpha, k, beta): every intent-aware metric of the
# table (tests/test_registry.py checks that none is missing).
INTENT_ORACLES = {
    "alpha_ndcg": lambda rel, score, alpha, k, beta: _alpha_ndcg(rel, score, alpha, k),
    "alpha_dcg": lambda rel, score, alpha, k, beta: _alpha_dcg_ndeval(
        rel, score, alpha, k
    ),
    "err_ia": lambda rel, score, alpha, k, beta: _err_ia(rel, score, alpha, k),
    "nerr_ia": lambda rel, score, alpha, k, beta: _nerr_ia(rel, score, alpha, k),
    "nrbp": lambda rel, score, alpha, k, beta: _nrbp(rel, score, alpha, beta),
    "nnrbp": lambda rel, score, alpha, k, beta: _nnrbp(rel, score, alpha, beta),
    "map_ia": lambda rel, score, alpha, k, beta: _map_ia(rel, score, k),
    "precision_ia": lambda rel, score, alpha, k, beta: _precision_ia(rel, score, k),
    "subtopic_recall": lambda rel, score, alpha, k, beta: _subtopic_recall(
        rel, score, k
    ),
}


def _oracle(metric, rel, score, alpha, k, beta=0.5):
    return INTENT_ORACLES[metric](rel, score, alpha, k, beta)


def _mean_oracle(metric, y, s, g, w, alpha, k, beta=0.5):
    values, weights = [], []
    for q in dict.fromkeys(g):
        rows = [i for i in range(len(g)) if g[i] == q]
        rel, score = [list(y[i]) for i in rows], [s[i] for i in rows]
        v = _oracle(metric, rel, score, alpha, k, beta)
        if v is not None:
            values.append(v)
            weights.append(np.mean([w[i] for i in rows]))
    return float(np.average(values, weights=weights))


def _case(rng):
    n_groups = int(rng.integers(1, 5))
    sizes = rng.integers(1, 9, size=n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    rng.shuffle(g)
    n, m = g.size, int(rng.integers(1, 7))
    density = rng.choice([0.2, 0.4, 0.7])
    y = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < density)
    y[0, int(rng.integers(m))] = 1  # at least one defined group
    s = rng.integers(0, 4, size=n).astype(float)  # ties
    w = rng.uniform(0.5, 2.0, size=n)
    return y, s, g, w


# Every intent metric the package has: a new one without an oracle fails here.
METRICS = (
    "alpha_ndcg",
    "alpha_dcg",
    "err_ia",
    "nerr_ia",
    "map_ia",
    "precision_ia",
    "subtopic_recall",
)
WHOLE_LIST = ("nrbp", "nnrbp")


def test_every_intent_metric_has_an_oracle():
    from sklearn_rank._metrics.intent import INTENT_METRICS
    from sklearn_rank._metrics.registry import METRICS as TABLE

    assert set(INTENT_METRICS) == set(METRICS) | set(WHOLE_LIST)
    in_table = {name for name, spec in TABLE.items() if spec.intents}
    assert in_table == set(INTENT_METRICS) == set(INTENT_ORACLES)
    for name in WHOLE_LIST:
        assert not TABLE[name].takes_k


@pytest.mark.parametrize("seed", range(60))
def test_random_cases_equal_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    y, s, g, w = _case(rng)
    alpha = float(rng.choice([0.0, 0.3, 0.5, 0.9]))
    beta = float(rng.choice([0.2, 0.5, 0.8, 0.95]))
    names = [f"{m}@{k}" if k else m for m in METRICS for k in (None, 1, 3, 20)]
    names += list(WHOLE_LIST)
    got = evaluate_intents(
        y, s, groups=g, metrics=names, alpha=alpha, beta=beta, sample_weight=w
    )
    for name in names:
        metric, _, cut = name.partition("@")
        if metric in ("err_ia", "nerr_ia") and alpha == 0:
            continue  # the cascade's 0 / 0 (ndeval's form has the limit)
        k = int(cut) if cut else None
        want = _mean_oracle(metric, y, s, g, w, alpha, k, beta)
        assert got[name] == pytest.approx(want, abs=1e-12, rel=1e-12), name


def test_public_functions_agree_with_evaluate_intents():
    y, s, g, _ = _case(np.random.default_rng(7))
    both = evaluate_intents(
        y, s, groups=g, metrics=["alpha_ndcg@5", "err_ia@5"], alpha=0.3
    )
    assert alpha_ndcg_score(y, s, groups=g, k=5, alpha=0.3) == both["alpha_ndcg@5"]
    assert err_ia_score(y, s, groups=g, k=5, alpha=0.3) == both["err_ia@5"]
    assert (
        precision_ia_score(y, s, groups=g, k=5)
        == evaluate_intents(y, s, groups=g, metrics="precision_ia@5")["precision_ia@5"]
    )


def test_hand_worked_example():
    # One query, intents A and B; ranked d1 (A), d2 (A), d3 (B), d4 (A, B).
    y = [[1, 0], [1, 0], [0, 1], [1, 1]]
    s = [4, 3, 2, 1]
    g = [0] * 4
    # alpha = 0.5. Gains in the ranking: 1, 0.5, 1, 0.25 + 0.5 = 0.75.
    # Greedy ideal: d4 (2), then d3 (0.5) or d1/d2 (0.5): a tie, to the last row
    # in input order, d3 (0.5); then d2 (A seen once: 0.5), d1 (0.25).
    disc = [1 / math.log2(p + 1) for p in range(1, 5)]
    dcg = 1 * disc[0] + 0.5 * disc[1] + 1 * disc[2] + 0.75 * disc[3]
    ideal = 2 * disc[0] + 0.5 * disc[1] + 0.5 * disc[2] + 0.25 * disc[3]
    assert alpha_ndcg_score(y, s, groups=g) == pytest.approx(dcg / ideal, abs=1e-15)
    # At k = 2: (1 + 0.5 / log2 3) / (2 + 0.5 / log2 3).
    want = (1 + 0.5 * disc[1]) / (2 + 0.5 * disc[1])
    assert alpha_ndcg_score(y, s, groups=g, k=2) == pytest.approx(want, abs=1e-15)
    # ERR-IA@2: (gains / position) = 1 + 0.5/2 over 2 intents x (1 + 0.5/2).
    assert err_ia_score(y, s, groups=g, k=2) == pytest.approx(1.25 / 2.5, abs=1e-15)
    # P-IA@3: pairs in the top 3 = 3, over 3 x 2.
    assert precision_ia_score(y, s, groups=g, k=3) == 0.5
    # Intent recall: A at 1, B at 3.
    assert subtopic_recall_score(y, s, groups=g, k=2) == 0.5
    assert subtopic_recall_score(y, s, groups=g, k=3) == 1.0
    # nERR-IA@2: ranked 1 + 0.5 / 2 over the greedy ideal's 2 + 0.5 / 2.
    assert nerr_ia_score(y, s, groups=g, k=2) == pytest.approx(1.25 / 2.25, abs=1e-15)
    # NRBP (beta 0.5): 1 + 0.5 x 0.5 + 1 x 0.25 + 0.75 x 0.125 = 1.59375, times
    # (1 - 0.5 x 0.5) / 2 intents; nNRBP over the ideal's 2 + 0.25 + 0.125 +
    # 0.25 / 8 = 2.40625.
    assert nrbp_score(y, s, groups=g) == pytest.approx(1.59375 * 0.375, abs=1e-15)
    assert nnrbp_score(y, s, groups=g) == pytest.approx(1.59375 / 2.40625, abs=1e-15)
    # MAP-IA: A at ranks 1, 2, 4: (1 + 1 + 3/4) / 3; B at 3, 4: (1/3 + 2/4) / 2.
    want = ((1 + 1 + 0.75) / 3 + (1 / 3 + 0.5) / 2) / 2
    assert map_ia_score(y, s, groups=g) == pytest.approx(want, abs=1e-15)


def test_undefined_rule():
    # Query 1 has no relevant (row, intent): skipped, scored, or an error.
    y = [[1, 0], [0, 0], [0, 0], [0, 0]]
    s, g = [2, 1, 2, 1], [0, 0, 1, 1]
    assert subtopic_recall_score(y, s, groups=g) == 1.0
    assert subtopic_recall_score(y, s, groups=g, undefined=0.0) == 0.5
    with pytest.raises(ValueError, match="undefined for 1 of 2 groups"):
        alpha_ndcg_score(y, s, groups=g, undefined="raise")


def test_inputs_not_modified():
    y = np.array([[2.0, 0.0], [0.0, 1.0]])
    s = np.array([0.1, 0.2])
    y0, s0 = y.copy(), s.copy()
    evaluate_intents(y, s, groups=[1, 1], metrics=list(METRICS))
    assert np.array_equal(y, y0) and np.array_equal(s, s0)


# -- bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("y", "match"),
    [
        ([1, 0], r"'y_true' parameter of alpha_ndcg_score must be a 2-D array"),
        ([[[1]], [[0]]], "must be a 2-D array"),
        (np.zeros((2, 0)), "n_intents >= 1"),
        ([[1, np.nan], [0, 0]], "must be finite grades. Got 'NaN or inf'"),
        ([[1, -1], [0, 0]], "must be non-negative grades. Got 'minimum -1.0'"),
    ],
)
def test_bad_labels(y, match):
    with pytest.raises(InvalidParameterError, match=match):
        alpha_ndcg_score(y, [1, 2], groups=[0, 0])


@pytest.mark.parametrize("alpha", [1.0, -0.1, 1.5, float("nan"), "0.5"])
def test_bad_alpha(alpha):
    with pytest.raises(
        InvalidParameterError,
        match=r"'alpha' parameter of alpha_ndcg_score must be a float in the range "
        r"\[0, 1\)",
    ):
        alpha_ndcg_score([[1], [0]], [1, 2], groups=[0, 0], alpha=alpha)


def test_bad_names_ties_and_lengths():
    y, s, g = [[1], [0]], [1, 2], [0, 0]
    with pytest.raises(InvalidParameterError, match="'metrics' parameter"):
        evaluate_intents(y, s, groups=g, metrics=["ndcg@10"])
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        evaluate_intents(y, s, groups=g, metrics=["err_ia@0"])
    with pytest.raises(InvalidParameterError, match="'k' parameter of err_ia_score"):
        err_ia_score(y, s, groups=g, k=0)
    with pytest.raises(InvalidParameterError, match="'ties' parameter"):
        evaluate_intents(y, s, groups=g, ties="threshold")
    with pytest.raises(ValueError, match="y_score"):
        evaluate_intents(y, [1, 2, 3], groups=g)


# -- ndeval (pyndeval) ---------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_pyndeval_random_cases(seed):
    pyndeval = pytest.importorskip("pyndeval")
    rng = np.random.default_rng(1000 + seed)
    y, _, g, _ = _case(rng)
    # Distinct scores (ndeval's run order); docnos sort in input order within a
    # query, so its greedy tie rule (greatest docno) is "last row in input
    # order". Queries without a relevant pair stay in half the cases: ndeval
    # scores them 0 in its mean, undefined=0.0 here.
    if seed % 2:
        for q in np.unique(g):
            y[np.flatnonzero(g == q)[0], 0] = 1
    s = rng.permutation(g.size).astype(float)
    # pyndeval reads a query's lines as one run of lines: give them by query.
    by_query = np.argsort(g, kind="stable")
    qrels = [
        (str(g[i]), str(j), f"d{i:03d}", int(y[i, j] > 0))
        for i in by_query
        for j in range(y.shape[1])
    ]
    run = [(str(g[i]), f"d{i:03d}", float(s[i])) for i in by_query]
    ks = (2, 3, 5, 10, 20)
    ours = {"alpha-nDCG": "alpha_ndcg", "ERR-IA": "err_ia", "P-IA": "precision_ia"}
    ours |= {"alpha-DCG": "alpha_dcg"}
    ours |= {"strec": "subtopic_recall", "nERR-IA": "nerr_ia"}
    whole = {"NRBP": "nrbp", "nNRBP": "nnrbp", "MAP-IA": "map_ia"}
    measures = [f"{m}@{k}" for m in ours for k in ks] + list(whole)
    alpha = float(rng.choice([0.2, 0.5, 0.8]))
    beta = float(rng.choice([0.3, 0.5, 0.9]))
    per_query = pyndeval.ndeval(qrels, run, measures=measures, alpha=alpha, beta=beta)
    names = [f"{ours[m]}@{k}" for m in ours for k in ks] + list(whole.values())
    got = evaluate_intents(
        y, s, groups=g, metrics=names, alpha=alpha, beta=beta, undefined=0.0
    )
    for measure, name in zip(measures, names, strict=True):
        found = np.array([v[measure] for v in per_query.values()])
        if measure == "nNRBP":
            # ndeval divides 0 by 0 for a query without a relevant pair (its
            # NRBP and its ideal's are 0) and prints nan: undefined=0.0 here.
            found = np.nan_to_num(found, nan=0.0)
        assert got[name] == pytest.approx(found.mean(), abs=1e-12), measure


def test_greedy_ideal_tie_rule_and_a_value_above_one():
    # Three rows tie at gain 2 for the first ideal position. ndeval takes the
    # greatest docno (here the last row, {A, C}); then {C, D} and {A, B} add 1.5
    # each. The ranked order {A, B}, {C, D}, {A, C} gains 2, 2, 1: more than the
    # greedy ideal, so alpha-nDCG exceeds 1 (pyndeval prints 1.0177104674506583).
    y = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]]
    d = [1 / math.log2(p + 1) for p in (1, 2, 3)]
    want = (2 + 2 * d[1] + 1 * d[2]) / (2 + 1.5 * d[1] + 1.5 * d[2])
    got = alpha_ndcg_score(y, [3, 2, 1], groups=[1, 1, 1], k=3)
    assert got == pytest.approx(want, abs=1e-15)
    assert got == pytest.approx(1.0177104674506583, abs=1e-15)


# -- through evaluate ------------------------------------------------------------


def test_evaluate_takes_intent_names_with_a_2d_y_true():
    from sklearn_rank import evaluate, ndcg_score

    rng = np.random.default_rng(11)
    g = np.repeat(np.arange(12), 7)
    y = rng.integers(0, 3, size=(g.size, 4)) * (rng.random((g.size, 4)) < 0.4)
    s, w = rng.integers(0, 5, size=g.size).astype(float), rng.uniform(1, 2, g.size)
    names = ["alpha_ndcg@5", "ndcg@5", "nrbp", "map", "err_ia@3"]
    got = evaluate(y, s, groups=g, metrics=names, sample_weight=w)
    assert list(got) == names
    intents = evaluate_intents(
        y, s, groups=g, metrics=["alpha_ndcg@5", "nrbp", "err_ia@3"], sample_weight=w
    )
    for name, value in intents.items():
        assert got[name] == value
    # the single-label metrics read each row's largest grade
    assert got["ndcg@5"] == ndcg_score(y.max(axis=1), s, groups=g, k=5, sample_weight=w)


def test_evaluate_with_intent_names_refuses_what_it_cannot_read():
    from sklearn_rank import evaluate

    y, s, g = [[1, 0], [0, 1]], [0.2, 0.1], [0, 0]
    with pytest.raises(InvalidParameterError, match="'y_true' parameter of evaluate"):
        evaluate([1, 0], s, groups=g, metrics=["alpha_ndcg@2"])
    with pytest.raises(InvalidParameterError, match="'gain' parameter of evaluate"):
        evaluate(y, s, groups=g, metrics=["alpha_ndcg@2"], gain="linear")


def test_scorer_with_a_2d_y_in_a_search():
    # get_scorer takes the intent-aware names; in a search the estimator gets the
    # 2-D y too (here one that fits on each row's largest grade), the scorer each
    # test fold's rows: its values are evaluate_intents on that fold.
    import sklearn
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, cross_validate

    from sklearn_rank import get_scorer

    class LargestGradeRidge(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.model_ = Ridge().fit(X, np.asarray(y).max(axis=1))
            return self

        def predict(self, X):
            return self.model_.predict(X)

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(24), 6)
    X = rng.normal(size=(g.size, 3))
    y = ((X[:, [0]] + rng.normal(size=(g.size, 3))) > 1).astype(int)
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        found = cross_validate(
            LargestGradeRidge(),
            X,
            y,
            params={"groups": g},
            scoring=get_scorer("alpha_ndcg@3"),
            cv=cv,
            return_estimator=True,
        )
    for (_, test), est, value in zip(
        cv.split(X, y, g), found["estimator"], found["test_score"], strict=True
    ):
        want = alpha_ndcg_score(y[test], est.predict(X[test]), groups=g[test], k=3)
        assert value == want
    with pytest.raises(InvalidParameterError, match="without a cutoff"):
        get_scorer("nrbp@5")
