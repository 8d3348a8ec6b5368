"""The public ``*_score`` functions of the metric table, declared from it.

Each function only forwards to the engine, so it is declared, not written out:
:func:`~sklearn_rank._metrics.declare.metric_function` builds it from its
``MetricSpec`` (signature, parameters, returns and See Also from the tables);
what is given here is each metric's own text: its summary and definition, notes,
and a worked example that runs as a doctest. trec_eval's other measures are
declared the same way in ``functions_trec.py``.
"""

from __future__ import annotations

from .declare import metric_function

ndcg_score = metric_function(
    "ndcg",
    """Normalised discounted cumulative gain, averaged over groups.

    ``NDCG@k = DCG@k / IDCG@k`` where ``DCG@k = Σ_{p<=k} gain(y_p) / log2(p + 1)``
    and IDCG@k is the DCG@k of the group's own labels sorted descending
    (unretrieved rows included).
    """,
    returns="Weighted mean of the per-group NDCG over the defined groups.",
    see_also=("dcg", "ndcg_rel", "rndcg"),
    examples="""
    Graded labels ``(3, 2, 0, 1, 2)`` in ranked order. Exponential gain (the
    default): DCG is ``7 + 3/log2(3) + 0 + 1/log2(5) + 3/log2(6) = 10.484`` and the
    ideal order ``(3, 2, 2, 1, 0)`` gives ``7 + 3/log2(3) + 3/2 + 1/log2(5) =
    10.824``, so NDCG@5 is 0.969. Linear gain gives ``5.466 / 5.693 = 0.960``:

    >>> from sklearn_rank import ndcg_score
    >>> y_true = [3, 2, 0, 1, 2]
    >>> y_score = [5, 4, 3, 2, 1]
    >>> round(ndcg_score(y_true, y_score, groups=[0] * 5, k=5), 3)
    0.969
    >>> round(ndcg_score(y_true, y_score, groups=[0] * 5, k=5, gain="linear"), 3)
    0.96
    """,
)

dcg_score = metric_function(
    "dcg",
    """Discounted cumulative gain ``Σ_{p<=k} gain(y_p) / log2(p + 1)``, averaged
    over groups.
    """,
    see_also=("ndcg",),
    examples="""
    Two tied rows share positions 1 and 2, so each gets the mean discount
    ``(1 + 1/log2(3)) / 2``; with binary labels the DCG is that mean:

    >>> from sklearn_rank import dcg_score
    >>> round(dcg_score([1, 0], [0.5, 0.5], groups=[0, 0]), 4)
    0.8155
    """,
)

map_score = metric_function(
    "map",
    """Mean average precision: ``AP@k = (1/R) Σ_{p<=k, relevant} precision@p``.
    """,
    see_also=("infap", "iprec_11pt"),
    examples="""
    Relevant rows at positions 1, 3, 6, 7 and 10 of 10, with 8 relevant items in
    total (three were not retrieved):
    AP = (1/1 + 2/3 + 3/6 + 4/7 + 5/10) / 8 = 0.405.

    >>> from sklearn_rank import map_score
    >>> ranked = [1, 0, 1, 0, 0, 1, 1, 0, 0, 1]
    >>> y_true = ranked + [1, 1, 1]
    >>> y_score = list(range(10, 0, -1)) + [0, 0, 0]
    >>> retrieved = [True] * 10 + [False] * 3
    >>> round(map_score(y_true, y_score, groups=[0] * 13, retrieved=retrieved), 3)
    0.405
    """,
)

mrr_score = metric_function(
    "mrr",
    """Mean reciprocal rank: 1/position of the first relevant row (0 beyond k).
    """,
    see_also=("hit_rate", "err"),
    examples="""
    Three queries whose first relevant rows are at positions 1, 3 and 2:
    ``(1 + 1/3 + 1/2) / 3 = 0.611``.

    >>> from sklearn_rank import mrr_score
    >>> y_true = [1, 0, 0, 0, 0, 1, 0, 1, 0]
    >>> y_score = [3, 2, 1, 3, 2, 1, 3, 2, 1]
    >>> groups = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> round(mrr_score(y_true, y_score, groups=groups), 3)
    0.611
    """,
)

precision_at_k_score = metric_function(
    "precision",
    """Precision at k: relevant rows in the top ``k`` divided by ``k``.
    """,
    see_also=("recall", "f1", "r_precision"),
    examples="""
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: two relevant in the top 5.

    >>> from sklearn_rank import precision_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> precision_at_k_score(y_true, y_score, groups=[0] * 6, k=5)
    0.4
    """,
)

recall_at_k_score = metric_function(
    "recall",
    """Recall at k: relevant rows in the top ``k`` divided by R, the group's number
    of relevant rows (unretrieved ones included), or by ``min(k, R)`` with
    ``recall_denominator="min_k_n_relevant"``.
    """,
    see_also=("precision", "f1"),
    examples="""
    >>> from sklearn_rank import recall_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(recall_at_k_score(y_true, y_score, groups=[0] * 6, k=5), 3)
    0.667
    """,
)

hit_rate_score = metric_function(
    "hit_rate",
    """Hit rate at k: the share of groups with a relevant row in the top ``k``.
    """,
    see_also=("mrr",),
    examples="""
    The first group has its relevant row at position 1, the second at 3:

    >>> from sklearn_rank import hit_rate_score
    >>> y_true = [1, 0, 0, 0, 0, 1]
    >>> y_score = [3, 2, 1, 3, 2, 1]
    >>> hit_rate_score(y_true, y_score, groups=[0, 0, 0, 1, 1, 1], k=2)
    0.5
    """,
)

r_precision_score = metric_function(
    "r_precision",
    """R-precision: precision at R, the group's own number of relevant rows.
    """,
    see_also=("precision", "rprec_mult"),
    examples="""
    Three relevant rows; one of them is in the top 3:

    >>> from sklearn_rank import r_precision_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(r_precision_score(y_true, y_score, groups=[0] * 6), 4)
    0.3333
    """,
)

err_score = metric_function(
    "err",
    """Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, 2009).

    ``ERR@k = Σ_{p<=k} (1/p) R(y_p) Π_{q<p} (1 - R(y_q))`` with stop probability
    ``R(y) = (2**y - 1) / 2**max_grade``.
    """,
    see_also=("rbp", "mrr"),
    notes="""
    With ``ties="average"`` a tie block that mixes grades gets the exact
    expectation over its orders, from the elementary symmetric polynomials of
    its stop probabilities (docs/metrics.md, section 3). Such a block inside the
    cutoff may hold at most ``ERR_TIE_BLOCK_LIMIT`` = 1024 rows; a larger one
    raises ``ValueError`` (the cost grows with the cube of its size). Blocks of
    equal grades are exact at any size.
    """,
    examples="""
    Grades 0..4 with the relevant row (grade 4) second:
    ``R(4) = 15/16``, so ERR = ``(1/2) * 15/16 = 0.46875``.

    >>> from sklearn_rank import err_score
    >>> err_score([0, 4, 0], [3, 2, 1], groups=[0, 0, 0], max_grade=4)
    0.46875
    """,
)

gauc_score = metric_function(
    "gauc",
    """Group AUC: the per-group Mann-Whitney AUC, averaged with group weights.

    ``AUC_g = (Σ_{pos i, neg j} [s_i > s_j] + ½ [s_i = s_j]) / (P_g N_g)`` over the
    group's ranked rows; groups with a single class are undefined. Zhou et al.
    (2018, Deep Interest Network) weight each group by its number of rows.
    """,
    see_also=("auc", "pairwise_accuracy"),
    examples="""
    Three users: u1 ranks its only click first (AUC 1), u2 ranks it last (0) and
    u3 ranks its two clicks above both non-clicks (1); weighted by rows
    (3, 2 and 4 rows) GAUC is ``(3 * 1 + 2 * 0 + 4 * 1) / 9 = 0.778``; with uniform
    weights it is ``2/3``:

    >>> from sklearn_rank import gauc_score
    >>> y_true = [1, 0, 0, 0, 1, 1, 1, 0, 0]
    >>> y_score = [0.9, 0.5, 0.1, 0.8, 0.2, 0.9, 0.8, 0.3, 0.1]
    >>> groups = ["u1"] * 3 + ["u2"] * 2 + ["u3"] * 4
    >>> round(gauc_score(y_true, y_score, groups=groups), 3)
    0.778
    >>> round(gauc_score(y_true, y_score, groups=groups, weights="uniform"), 3)
    0.667
    """,
)

auc_score = metric_function(
    "auc",
    """AUC pooled over all rows, equal to ``sklearn.metrics.roc_auc_score``.

    Reported next to :func:`gauc_score` in the usual metric tables. Pairs are
    weighted by ``sample_weight[i] * sample_weight[j]``.
    """,
    see_also=("gauc",),
    examples="""
    >>> from sklearn_rank import auc_score
    >>> auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """,
)

f1_at_k_score = metric_function(
    "f1",
    """F1 at k: the harmonic mean of precision at k and recall at k.

    ``F1@k = 2 P R / (P + R) = 2 H_k / (D + R)`` with ``H_k`` the relevant rows in
    the top ``k``, ``D`` the precision denominator and ``R`` the recall
    denominator (the group's number of relevant rows, or ``min(k, R)``) (0 when
    ``H_k = 0``).
    """,
    see_also=("precision", "recall"),
    examples="""
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: P@5 = 2/5 and R@5 = 2/3, so
    F1@5 = ``2 * 2 / (5 + 3) = 0.5``:

    >>> from sklearn_rank import f1_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> f1_at_k_score(y_true, y_score, groups=[0] * 6, k=5)
    0.5
    """,
)

fallout_at_k_score = metric_function(
    "fallout",
    """Fall-out at k: non-relevant rows in the top ``k`` divided by N, the group's
    number of non-relevant rows (unretrieved ones included). Lower is better.

    A group is defined when it has a non-relevant row (a group without relevant
    rows is defined). The scorers negate it, as scikit-learn does for losses.
    """,
    see_also=("precision",),
    examples="""
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: the top 3 holds B and D, two
    of the three non-relevant rows:

    >>> from sklearn_rank import fallout_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(fallout_at_k_score(y_true, y_score, groups=[0] * 6, k=3), 4)
    0.6667
    """,
)

arp_score = metric_function(
    "arp",
    """Average relevant position: ``Σ y_p p / Σ y_p`` over a group's ranked
    relevant rows, averaged over groups. Lower is better.

    With binary labels it is the mean 1-based position of a relevant row; graded
    labels weight the positions, as TF-Ranking's ``ARPMetric`` does. Unretrieved
    relevant rows have no position and are left out; a group with no ranked
    relevant row is undefined. The scorers negate it, as scikit-learn does for
    losses.
    """,
    see_also=("mrr",),
    examples="""
    Relevant rows at positions 2, 4 and 6 give 4. With the first two rows tied,
    the relevant one of them sits at 1.5 on average, so ``(1.5 + 3) / 2 = 2.25``:

    >>> from sklearn_rank import arp_score
    >>> arp_score([0, 1, 0, 1, 0, 1], [6, 5, 4, 3, 2, 1], groups=[0] * 6)
    4.0
    >>> arp_score([1, 0, 1], [1.0, 1.0, 0.0], groups=[0] * 3)
    2.25
    """,
)

rbp_score = metric_function(
    "rbp",
    """Rank-biased precision (Moffat and Zobel, 2008), averaged over groups.

    ``RBP@k = (1 - p) Σ_{i<=k} u(y_i) p^(i-1)`` with persistence ``p`` and utility
    ``u(y) = y / max_grade`` in [0, 1]: 0 or 1 for binary labels, graded labels
    scaled by the top of their scale.
    """,
    see_also=("rbp_residual", "err"),
    examples="""
    Relevant rows at positions 1 and 3 with ``p = 0.8``:
    ``0.2 * (1 + 0.8**2) = 0.328``. Grade 2 of 0..2 at position 1 and grade 1 at
    position 2 give ``0.2 * (2/2 + 0.8 * 1/2) = 0.28``:

    >>> from sklearn_rank import rbp_score
    >>> round(rbp_score([1, 0, 1], [3, 2, 1], groups=[0] * 3), 6)
    0.328
    >>> round(rbp_score([2, 1, 0], [3, 2, 1], groups=[0] * 3, max_grade=2), 6)
    0.28
    """,
)

pairwise_accuracy_score = metric_function(
    "pairwise_accuracy",
    """Pairwise accuracy: the share of pairs with different labels whose higher
    label is ranked above, pooled over groups.

    ``PA_g = Σ_{y_i > y_j} ([s_i > s_j] + ½ [s_i = s_j]) / #{y_i > y_j}`` over the
    group's ranked rows (a graded AUC, TF-Ranking's ordered pair accuracy). Each
    group weighs its number of pairs with different labels (times its mean sample
    weight), so the mean is the share of all such pairs; a group without one is
    undefined. Labels are compared only; ``relevance_threshold`` decides nothing
    here and is accepted for a uniform signature.
    """,
    see_also=("gauc",),
    examples="""
    TF-Ranking's ``OPAMetric`` example: labels ``(0, 1, 2)`` scored ``(3, 1, 2)``
    order one of three pairs correctly (2 above 1):

    >>> from sklearn_rank import pairwise_accuracy_score
    >>> round(pairwise_accuracy_score([0, 1, 2], [3, 1, 2], groups=[0] * 3), 4)
    0.3333
    """,
)

interpolated_precision_score = metric_function(
    "iprec",
    """Interpolated precision at a recall level, as trec_eval's
    ``iprec_at_recall``, averaged over groups.

    With ``c = round(recall_level * R)`` (halves up, at least 1), the value is the
    largest precision ``m / p_m`` at the position ``p_m`` of the m-th relevant row
    over ``m >= c``; 0 when fewer than ``c`` relevant rows are ranked.
    """,
    see_also=("iprec_11pt",),
    notes="""
    With ``ties="average"`` a tie block that mixes relevant and non-relevant rows
    raises ``ValueError`` where it makes the value depend on the order of the tie;
    the expectation of that maximum is not computed, never approximated.
    """,
    examples="""
    Relevant rows at positions 2, 3 and 6 of R = 4: precisions 1/2, 2/3 and 3/6.
    At recall 0.5, ``c = 2``: ``max(2/3, 3/6) = 0.667``; at recall 1, ``c = 4``
    exceeds the 3 ranked relevant rows: 0.

    >>> from sklearn_rank import interpolated_precision_score
    >>> y_true = [0, 1, 1, 0, 0, 1, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1, 0]
    >>> retrieved = [True] * 6 + [False]
    >>> kw = dict(groups=[0] * 7, retrieved=retrieved)
    >>> round(interpolated_precision_score(y_true, y_score, recall_level=0.5, **kw), 4)
    0.6667
    >>> interpolated_precision_score(y_true, y_score, recall_level=1.0, **kw)
    0.0
    """,
)

eleven_point_precision_score = metric_function(
    "iprec_11pt",
    """11-point interpolated average precision, as trec_eval's ``11pt_avg``: the
    mean of :func:`interpolated_precision_score` at recall 0, 0.1, ..., 1.
    """,
    see_also=("iprec", "map"),
    notes="""
    Under ``ties="average"`` it raises where any of the 11 levels does (see
    :func:`interpolated_precision_score`).
    """,
    examples="""
    Relevant rows at positions 2, 3 and 6 of R = 4 (one never ranked): levels 0
    to 0.6 read ``max(1/2, 2/3, 3/6) = 2/3`` (c <= 2), levels 0.7 and 0.8 read 1/2
    (c = 3), levels 0.9 and 1 read 0 (c = 4): ``(7 * 2/3 + 2 * 1/2) / 11 = 0.5152``.

    >>> from sklearn_rank import eleven_point_precision_score
    >>> y_true = [0, 1, 1, 0, 0, 1, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1, 0]
    >>> retrieved = [True] * 6 + [False]
    >>> kw = dict(groups=[0] * 7, retrieved=retrieved)
    >>> round(eleven_point_precision_score(y_true, y_score, **kw), 4)
    0.5152
    """,
)

bpref_score = metric_function(
    "bpref",
    """Binary preference (bpref), as trec_eval's ``bpref``, averaged over groups.

    ``bpref = (1/R) Σ_r (1 - min(n_r, R) / min(N, R))`` over the ranked relevant
    rows r, where ``n_r`` counts the judged non-relevant rows ranked above r, R
    is the group's number of relevant rows and N its number of judged
    non-relevant rows (both counting rows with ``retrieved=False``). Rows with
    ``judged=False`` are skipped: bpref reads only judged rows (Buckley and
    Voorhees, SIGIR 2004; trec_eval ``m_bpref.c``). Undefined when R = 0.
    """,
    see_also=("map", "infap"),
    examples="""
    Ranked: relevant, non-relevant, unjudged, relevant, non-relevant, relevant;
    one more relevant and one more non-relevant row were judged but not ranked,
    so R = 4 and N = 3. The relevant rows have 0, 1 and 2 judged non-relevant
    rows above them (the unjudged one is skipped):
    ``(1 + (1 - 1/3) + (1 - 2/3)) / 4 = 0.5``.

    >>> from sklearn_rank import bpref_score
    >>> y_true = [1, 0, 0, 1, 0, 1, 1, 0]
    >>> y_score = [8, 7, 6, 5, 4, 3, 0, 0]
    >>> kw = dict(groups=[0] * 8, retrieved=[True] * 6 + [False] * 2)
    >>> bpref_score(y_true, y_score, judged=[1, 1, 0, 1, 1, 1, 1, 1], **kw)
    0.5
    """,
)

judged_at_k_score = metric_function(
    "judged",
    """Judged@k: the share of the top k rows that are judged, averaged over groups.

    ``Judged@k = J_k / min(k, n)`` with ``J_k`` the rows with ``judged=True``
    among the first k of the ranked list and n its length, as ir_measures'
    ``Judged@k`` (reported by the TREC Deep Learning tracks). It does not read
    the labels (``relevance_threshold`` is accepted, as by every metric, and
    changes nothing); a group is defined when it ranks at least one row.
    """,
    see_also=("unjudged",),
    examples="""
    Six ranked rows, the third unjudged: two of the top 3 are judged, and five of
    the six rows of a list shorter than 10.

    >>> from sklearn_rank import judged_at_k_score
    >>> y_true = [1, 0, 0, 1, 0, 1]
    >>> kw = dict(groups=[0] * 6, judged=[1, 1, 0, 1, 1, 1])
    >>> round(judged_at_k_score(y_true, [6, 5, 4, 3, 2, 1], k=3, **kw), 4)
    0.6667
    >>> round(judged_at_k_score(y_true, [6, 5, 4, 3, 2, 1], k=10, **kw), 4)
    0.8333
    """,
)

# doctest finds a module's functions through their globals, which are
# declare.py's here: the examples are listed for it by name.
__test__ = {name: f for name, f in dict(globals()).items() if name.endswith("_score")}
