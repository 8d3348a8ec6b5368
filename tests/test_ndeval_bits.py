"""ndeval's arithmetic to the last bit: its per-topic functions (computeERR,
computeDCG, computeNRBP, computeMAP, computePrecision, computeSTRecall,
idealResult and renormalize of ndeval.c 4.5) transcribed here as plain loops in
Python floats (IEEE doubles, as C's; ``math.log`` is the C library's), and
compared bitwise with ``ndeval_table``. Printed to six decimals, a last-bit
difference shows only where a value sits on a rounding boundary (a risk
difference of two equal values printing -0.000000, say): rare in random files,
certain over enough of them. Alphas whose powers are inexact (0.1, 0.3, 0.6)
make the order of every product and sum count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sklearn_rank._metrics.ndeval import NDEVAL_COLUMNS, ndeval_table

DEPTH = 20


def _per_rank(rels, alpha, m, per_rank):
    """computeERR / computeDCG: per-rank scores down to DEPTH, running sums,
    divided by the ideal ideal (from rank 2 on, as ndeval's loop)."""
    gain = [1.0] * m
    out = [0.0] * DEPTH
    for i in range(min(DEPTH, len(rels))):
        score = 0.0
        for j in range(m):
            if rels[i][j]:
                score += gain[j]
                gain[j] *= 1.0 - alpha
        out[i] = per_rank(score, i)
    actual = sum(1 for j in range(m) if any(r[j] for r in rels))
    return out, actual


def _normalise(out, actual_subtopics, alpha, per_rank):
    ideal_ideal, g = [0.0] * DEPTH, float(actual_subtopics)
    for i in range(DEPTH):
        ideal_ideal[i] = per_rank(g, i)
        g *= 1.0 - alpha
    for i in range(1, DEPTH):
        out[i] += out[i - 1]
        ideal_ideal[i] += ideal_ideal[i - 1]
    for i in range(1, DEPTH):
        out[i] /= ideal_ideal[i]
    return out


def _err(score, i):
    return score / float(i + 1)


def _dcg(score, i):
    return score * (math.log(2.0) / math.log(i + 2.0))


def _topic(ranked, judged, m, alpha, beta):
    """ndeval's 21 columns of one topic: ``ranked`` the run's relevance rows in
    rank order, ``judged`` every judged row of the topic (docno order)."""
    n_rel_sub = [sum(1 for r in judged if r[j]) for j in range(m)]
    actual = sum(1 for c in n_rel_sub if c)
    # idealResult: greedy, ties to the largest docno (the last judged row).
    gain, left, ideal = [1.0] * m, list(range(len(judged))), []
    for _ in range(len(judged)):
        where, best = -1, 0.0
        for i in left:
            score = 0.0
            for j in range(m):
                if judged[i][j]:
                    score += gain[j]
            if where == -1 or score > best or (score == best and i > where):
                best, where = score, i
        left.remove(where)
        ideal.append(judged[where])
        for j in range(m):
            if judged[where][j]:
                gain[j] *= 1.0 - alpha

    def lists(rels):
        err = _normalise(_per_rank(rels, alpha, m, _err)[0], actual, alpha, _err)
        dcg = _normalise(_per_rank(rels, alpha, m, _dcg)[0], actual, alpha, _dcg)
        gain, nrbp, decay = [1.0] * m, 0.0, 1.0
        for r in rels:
            score = 0.0
            for j in range(m):
                if r[j]:
                    score += gain[j]
                    gain[j] *= 1.0 - alpha
            nrbp += score * decay
            decay *= beta
        nrbp *= (1 - (1 - alpha) * beta) / actual
        return err, dcg, nrbp

    err, dcg, nrbp = lists(ranked)
    ierr, idcg, inrbp = lists(ideal)
    nerr, ndcg = [0.0] * DEPTH, [0.0] * DEPTH
    for i in range(DEPTH):  # renormalize
        if dcg[i]:
            ndcg[i] = dcg[i] / idcg[i]
            nerr[i] = err[i] / ierr[i]
    nnrbp = nrbp / inrbp if inrbp else math.nan
    # computeMAP
    count, total = [0.0] * m, [0.0] * m
    for i, r in enumerate(ranked):
        for j in range(m):
            if r[j]:
                count[j] += 1
                total[j] += count[j] / float(i + 1)
    map_ia = 0.0
    for j in range(m):
        if n_rel_sub[j]:
            map_ia += total[j] / n_rel_sub[j]
    map_ia /= actual
    # computePrecision, computeSTRecall
    prec, strec, hits, seen = [0.0] * DEPTH, [0.0] * DEPTH, 0, set()
    for i in range(DEPTH):
        if i < len(ranked):
            hits += sum(1 for j in range(m) if ranked[i][j])
            seen |= {j for j in range(m) if ranked[i][j]}
        prec[i] = float(hits) / ((i + 1) * actual)
        strec[i] = float(len(seen)) / float(actual)
    at = (4, 9, 19)
    return (
        [err[i] for i in at]
        + [nerr[i] for i in at]
        + [dcg[i] for i in at]
        + [ndcg[i] for i in at]
        + [nrbp, nnrbp, map_ia]
        + [prec[i] for i in at]
        + [strec[i] for i in at]
    )


def _case(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 6))
    rows, groups, scores, retrieved = [], [], [], []
    for g in range(int(rng.integers(1, 5))):
        n = int(rng.integers(2, 30))
        rel = rng.random((n, m)) < rng.choice([0.15, 0.4, 0.7])
        rel[rng.integers(0, n), rng.integers(0, m)] = True  # a relevant row
        ranked = rng.random(n) < 0.8
        ranked[0] = True
        rows.append(rel.astype(np.int8))
        groups += [g] * n
        scores += list(rng.permutation(n) + 0.5)  # no ties
        retrieved += list(ranked)
    return (
        np.vstack(rows),
        np.array(scores),
        np.array(groups),
        np.array(retrieved),
        float(rng.choice([0.1, 0.3, 0.5, 0.6])),
        float(rng.choice([0.3, 0.5, 0.9])),
    )


@pytest.mark.parametrize("seed", range(16))
def test_ndeval_table_has_ndevals_bits(seed):
    y, s, g, ret, alpha, beta = _case(seed)
    ids, table = ndeval_table(y, s, groups=g, retrieved=ret, alpha=alpha, beta=beta)
    for gi, gid in enumerate(ids):
        rows = np.flatnonzero(g == gid)
        judged = [tuple(y[r]) for r in rows]  # input order: docno order
        kept = rows[ret[rows]]
        ranked = [tuple(y[r]) for r in kept[np.argsort(-s[kept], kind="stable")]]
        want = _topic(ranked, judged, y.shape[1], alpha, beta)
        got = [table[c][gi] for c, _, _ in NDEVAL_COLUMNS]
        for (name, _, _), a, b in zip(NDEVAL_COLUMNS, got, want, strict=True):
            assert a == b or (math.isnan(a) and math.isnan(b)), (name, a, b)
