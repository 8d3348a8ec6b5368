"""The fast paths of the intent metrics (issue 45, speed): the greedy ideal in
both of its readings (rows of one intent by their (group, intent) cell, or
every row by its pairs where cells would outnumber the pairs) against a brute
force, the one-key ordering under ``ties="stable"``, and integer labels read
without a float copy. Each against an independent definition, not against the
code."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sklearn_rank import alpha_ndcg_score, evaluate_intents
from sklearn_rank._engine.context import RankingContext
from sklearn_rank._engine.kernels import intent as intent_kernels
from sklearn_rank._engine.kernels.intent import greedy_ideal_gains, intent_view
from sklearn_rank._engine.ordering import order_rows


def _greedy(rel, alpha, depth):
    """ndeval's idealResult for one group: the largest marginal gain at each
    position, ties to the last row in input order; summed in intent order."""
    seen = [0] * len(rel[0])
    left = [i for i in range(len(rel)) if any(rel[i])]
    out = []
    while left and len(out) < depth:
        gains = []
        for i in left:
            g = 0.0
            for j, r in enumerate(rel[i]):
                if r:
                    g += (1 - alpha) ** seen[j]
            gains.append(g)
        best = max(gains)
        pick = max(i for i, g in zip(left, gains, strict=True) if g == best)
        out.append(best)
        left.remove(pick)
        seen = [s + r for s, r in zip(seen, rel[pick], strict=True)]
    return out + [0.0] * (depth - len(out))


def _case(seed, skewed):
    rng = np.random.default_rng(seed)
    if skewed:  # one group of 120 rows, 30 of 1 to 3
        codes = np.r_[
            np.zeros(120, int), np.repeat(np.arange(1, 31), rng.integers(1, 4, 30))
        ]
    else:
        codes = np.repeat(np.arange(12), rng.integers(1, 9, 12))
    codes = rng.permutation(codes)
    m = int(rng.integers(1, 6))
    rel = (rng.random((codes.size, m)) < rng.uniform(0.1, 0.6)).astype(np.int8)
    score = rng.integers(0, 4, codes.size).astype(float)
    return codes, rel, score


@pytest.mark.parametrize("by_cells", [True, False])
@pytest.mark.parametrize("skewed", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_greedy_ideal_in_both_readings_equals_the_brute_force(
    seed, skewed, by_cells, monkeypatch
):
    codes, rel, score = _case(seed, skewed)
    if not by_cells:  # every row read by its pairs
        monkeypatch.setattr(intent_kernels, "_by_cells", lambda *a: False)
    n_groups = int(codes.max()) + 1
    ctx = RankingContext.from_inputs(
        rel.max(axis=1).astype(float), score, codes, n_groups, ties="stable"
    )
    # Rows of one intent (read by cell) and of several (by pairs) both occur.
    assert {1, 2} <= set(rel.sum(axis=1)) or rel.shape[1] == 1
    alpha, depth = [0.5, 0.3, 0.0, 0.9][seed], 7
    got = greedy_ideal_gains(ctx, intent_view(ctx, rel), alpha, depth)
    for g in range(n_groups):
        want = _greedy(rel[codes == g].tolist(), alpha, depth)
        assert got[g].tolist() == pytest.approx(want, rel=1e-14, abs=0)


# Lists where the tie rule changes the greedy ideal's gains (found by a search
# of small random lists against the brute force with ties to the first row).
_TIED = [
    ([[0, 1, 1, 0], [0, 1, 0, 1], [0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 0]], 0.3),
    (
        [
            [0, 0, 1, 1],
            [0, 0, 0, 1],
            [1, 1, 1, 1],
            [1, 1, 0, 0],
            [0, 0, 0, 1],
            [0, 1, 0, 1],
            [0, 1, 0, 1],
        ],
        0.5,
    ),
]


@pytest.mark.parametrize("case", range(len(_TIED)))
@pytest.mark.parametrize("by_cells", [True, False])
def test_greedy_ideal_ties_to_the_last_row_across_readings(case, by_cells, monkeypatch):
    # Rows of one intent (cells) tie with rows of several: the later row in
    # input order must win whichever reading holds it, in every input order.
    if not by_cells:
        monkeypatch.setattr(intent_kernels, "_by_cells", lambda *a: False)
    rel, alpha = np.array(_TIED[case][0]), _TIED[case][1]
    rng = np.random.default_rng(case)
    for _ in range(40):
        r = rel[rng.permutation(len(rel))]
        ctx = RankingContext.from_inputs(
            r.max(axis=1).astype(float),
            np.zeros(len(r)),
            np.zeros(len(r), int),
            1,
            ties="stable",
        )
        got = greedy_ideal_gains(ctx, intent_view(ctx, r), alpha, len(r))
        assert got[0].tolist() == pytest.approx(_greedy(r.tolist(), alpha, len(r)))


def test_greedy_ideal_tie_rule_between_and_within_its_readings():
    # A row of one intent and a row of several tie only on disjoint intents,
    # where the order of the two cannot change the gains (exact sums): the
    # rule is checked on the pieces themselves.
    beats = intent_kernels._beats
    top_a, top_b = np.array([1.0, 0.5, 0.5, 0.5]), np.array([0.5, 1.0, 0.5, 0.5])
    key_a, key_b = np.array([0, 9, 3, 7]), np.array([9, 0, 7, 3])
    assert beats(top_a, key_a, top_b, key_b).tolist() == [True, False, False, True]
    # One cell (intent 1 of group 0) holding rows 2, 5, 7 (input order): it
    # offers its last row left, then the one before; none once all are placed.
    cells = intent_kernels._Cells(
        np.array([1, 1, 1]), np.array([0, 0, 0]), np.array([2, 5, 7]), 1, 2
    )
    for row, gain in ((7, 1.0), (5, 0.5), (2, 0.25)):
        top, key = cells.best()
        assert (top.tolist(), key.tolist()) == ([gain], [row])
        cells.take(cells.of_row[key], 0.5)
    assert [a.tolist() for a in cells.best()] == [[0.0], [-1]]


def test_stable_ties_through_the_one_key_sort_keep_input_order():
    rng = np.random.default_rng(0)
    # Distinct scores (the one-key sort), then tied ones (a stable sort of the
    # scores), at scales where the key's rounding could merge close scores.
    for scale, digits in itertools.product((1.0, 1e-12, 1e200), (None, 1)):
        codes = rng.integers(0, 5, 400)
        score = rng.random(400) if digits is None else np.round(rng.random(400), 1)
        score = score * scale + (1e6 if scale < 1 else 0.0)
        order, _ = order_rows(codes, score, np.zeros(400), "stable", 5)
        assert order.tolist() == np.lexsort((np.arange(400), -score, codes)).tolist()


def test_integer_labels_give_the_float_labels_scores():
    codes, rel, score = _case(5, False)
    grades = rel * np.arange(1, rel.shape[1] + 1, dtype=np.int64)
    names = ["alpha_ndcg@5", "nerr_ia@5", "map_ia", "nnrbp"]
    as_int = evaluate_intents(grades, score, groups=codes, metrics=names)
    as_float = evaluate_intents(
        grades.astype(float), score, groups=codes, metrics=names
    )
    assert as_int == as_float
    with pytest.raises(ValueError, match="non-negative"):
        alpha_ndcg_score(-grades, score, groups=codes)


@pytest.mark.parametrize("by_cells", [True, False])
@pytest.mark.parametrize("skewed", [False, True])
def test_greedy_ideal_where_the_gains_underflow_to_zero(skewed, by_cells, monkeypatch):
    # (1 - 0.999) ** 120 is 0 in float64: rows still relevant add 0, and the
    # greedy ideal keeps placing them (ties to the last row), as ndeval.
    rng = np.random.default_rng(7)
    codes = (
        np.r_[np.zeros(150, int), np.arange(1, 41)]
        if skewed
        else np.repeat([0, 1], 150)
    )
    rel = (rng.random((codes.size, 2)) < 0.8).astype(np.int8)
    if not by_cells:
        monkeypatch.setattr(intent_kernels, "_by_cells", lambda *a: False)
    n_groups = int(codes.max()) + 1
    ctx = RankingContext.from_inputs(
        rel.max(axis=1).astype(float),
        rng.random(codes.size),
        codes,
        n_groups,
        ties="stable",
    )
    got = greedy_ideal_gains(ctx, intent_view(ctx, rel), 0.999, 140)
    assert (got[0, 130:] == 0).all() and (got[0, :2] > 0).all()
    for g in range(n_groups):
        want = _greedy(rel[codes == g].tolist(), 0.999, 140)
        assert got[g].tolist() == pytest.approx(want, rel=1e-14, abs=0)
