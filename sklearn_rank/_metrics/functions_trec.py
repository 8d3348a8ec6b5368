"""Public functions of trec_eval's other measures: G, binG, infAP, R-precision at
multiples of R, Unjudged@k, the RBP residual, ndcg_rel and Rndcg (kernels in
``_engine.kernels.trec``; definitions in docs/metrics.md §2.21-2.28), declared
from the metric table as in ``functions.py``."""

from __future__ import annotations

from .declare import metric_function

g_score = metric_function(
    "g",
    """trec_eval's G: each gain over a log of the ideal cost not yet reached.

    ``G = (1/Σ⁺g) Σ_i g_i / log2(2 + C_i - S_i)`` over the ranked rows with a
    nonzero gain ``g_i`` (the label; 0 for an unjudged row), with ``S_i`` the
    gains ranked up to and including position i, ``C_i = Σ_{j<=i} max(ideal_j,
    1)`` the ideal cost (``ideal_j`` the group's j-th largest positive gain, 0
    past the last), and ``Σ⁺g`` the sum of the group's positive gains, retrieved
    or not (trec_eval's m_G.c). A group is defined where that sum is > 0,
    whatever the relevance threshold. Under ``ties="average"`` a tie block that
    mixes gains raises (the value then depends on its order).
    """,
    see_also=("bing", "ndcg"),
    examples="""
    Grades 2, 0, 1: the grade-2 row first costs nothing, the grade-1 row comes
    one position late.

    >>> from sklearn_rank import g_score
    >>> round(g_score([2, 0, 1], [3, 2, 1], groups=[0] * 3), 4)
    0.877
    """,
)

bing_score = metric_function(
    "bing",
    """trec_eval's binG: G with binary gains.

    ``binG = (1/R) Σ_r 1/log2(2 + n_r)`` over the ranked relevant rows r, with
    ``n_r`` the non-relevant (or unjudged) rows ranked above r and R the group's
    relevant rows, retrieved or not (trec_eval's m_binG.c). Under
    ``ties="average"`` a tie block that mixes relevant and other rows raises.
    """,
    see_also=("g",),
    examples="""
    Relevant rows at positions 1 and 3, one non-relevant row above the second:

    >>> from sklearn_rank import bing_score
    >>> round(bing_score([1, 0, 1], [3, 2, 1], groups=[0] * 3), 4)
    0.8155
    """,
)

infap_score = metric_function(
    "infap",
    """Inferred average precision (trec_eval's infAP).

    Yilmaz and Aslam (2006) as trec_eval's m_infap.c computes it: a relevant
    row at position p with ``a`` relevant, ``b`` judged non-relevant and ``u``
    pooled but unjudged rows (``in_pool=True``, ``judged=False``) above it adds
    1 at p = 1, else ``1/p + ((p-1)/p) ((a + b + u)/(p-1)) ((a + ε)/(a + b +
    2ε))`` with ε = 1e-5; the sum is divided by R. Unjudged rows outside the
    pool count only through p. With every row judged it is average precision
    up to the ε terms. Under ``ties="average"`` a tie block that mixes relevant
    and other rows raises.
    """,
    see_also=("map", "bpref"),
    examples="""
    The second row is unjudged: the relevant row below it is read as if it
    were not there, up to its position.

    >>> from sklearn_rank import infap_score
    >>> kw = dict(groups=[0] * 3, judged=[True, False, True])
    >>> round(infap_score([1, 0, 1], [3, 2, 1], **kw), 4)
    0.8333

    Pooled but unjudged, the same row counts as a sampled one of the pool's
    documents, read as relevant in the proportion of the judged ones above:

    >>> round(infap_score([1, 0, 1], [3, 2, 1], in_pool=[True] * 3, **kw), 4)
    1.0
    """,
)

r_precision_mult_score = metric_function(
    "rprec_mult",
    """R-precision at a multiple of R (trec_eval's Rprec_mult).

    Precision at the cutoff ``c = floor(m R + 0.9)`` of each group, with ``m``
    the ``r_multiple`` keyword (or ``"rprec_mult@m"`` in :func:`evaluate`) and
    R the group's relevant rows: ``hits in the top c / c``, 0 where c = 0. A
    list shorter than c counts as padded with non-relevant rows. ``m = 1`` is
    R-precision.
    """,
    see_also=("r_precision",),
    examples="""
    R = 2, so m = 2 reads precision at 4:

    >>> from sklearn_rank import r_precision_mult_score
    >>> y_true, y_score = [1, 0, 0, 1, 0], [5, 4, 3, 2, 1]
    >>> r_precision_mult_score(y_true, y_score, groups=[0] * 5, r_multiple=2.0)
    0.5
    """,
)

unjudged_at_k_score = metric_function(
    "unjudged",
    """Unjudged@k: the unjudged rows in the top k over k (trec_eval's unj).

    ``unj@k = U_k / k`` with ``U_k`` the rows with ``judged=False`` among the
    first k of the ranked list; a list shorter than k counts as padded with
    judged rows (trec_eval's m_unjudged.c), and ``k=None`` divides by the
    list's length. Labels play no part; a group is defined when it ranks at
    least one row. Unlike :func:`judged_at_k_score` (``J_k / min(k, n)``), the
    denominator is k.
    """,
    see_also=("judged",),
    examples="""
    Five ranked rows, the second and fourth unjudged:

    >>> from sklearn_rank import unjudged_at_k_score
    >>> kw = dict(groups=[0] * 5, judged=[1, 0, 1, 0, 1])
    >>> unjudged_at_k_score([1, 0, 0, 0, 1], [5, 4, 3, 2, 1], k=2, **kw)
    0.5
    >>> unjudged_at_k_score([1, 0, 0, 0, 1], [5, 4, 3, 2, 1], k=10, **kw)
    0.2
    """,
)

rbp_residual_score = metric_function(
    "rbp_residual",
    """The RBP residual: the mass the unjudged rows leave open (trec_eval's rbp_resid).

    ``p^n + (1 - p) Σ_i p^(i-1)`` over the unjudged rows (``judged=False``) at
    positions i of a list of n rows (Moffat and Zobel, 2008): how much RBP could
    still grow if every unjudged row and the unseen tail were relevant. As
    trec_eval's m_rbp_resid.c, a list without an unjudged row scores 0 (the
    tail ``p^n`` is then left out). Labels play no part; a group is defined
    when it ranks at least one row.
    """,
    see_also=("rbp",),
    examples="""
    Three rows, the second unjudged, p = 0.5: 0.5**3 + 0.5 * 0.5.

    >>> from sklearn_rank import rbp_residual_score
    >>> kw = dict(groups=[0] * 3, judged=[1, 0, 1], persistence=0.5)
    >>> rbp_residual_score([1, 0, 0], [3, 2, 1], **kw)
    0.375
    """,
)

ndcg_rel_score = metric_function(
    "ndcg_rel",
    """NDCG averaged over the relevant rows (trec_eval's ndcg_rel).

    ``(1/P) [Σ_p DCG@p / IDCG@min(p, P) + (P - P_ret) DCG@n / IDCG@P]`` over
    the ranked rows p of positive gain (gain: the label; 0 for an unjudged row),
    with P the group's judged rows of positive gain, P_ret those ranked and n the
    list length (trec_eval's m_ndcg_rel.c): NDCG read at each relevant row, and
    at the end of the list for each one never ranked. Defined where P > 0,
    whatever the relevance threshold. Under ``ties="average"`` a tie block that
    mixes gains raises.
    """,
    see_also=("ndcg", "rndcg"),
    examples="""
    Grades 2, 0, 1: NDCG at the grade-2 row is 1; at the grade-1 row it is
    (2 + 1/2) / (2 + 1/log2(3)).

    >>> from sklearn_rank import ndcg_rel_score
    >>> round(ndcg_rel_score([2, 0, 1], [3, 2, 1], groups=[0] * 3), 4)
    0.9751
    """,
)

rndcg_score = metric_function(
    "rndcg",
    """NDCG averaged at the R levels of the ideal list (trec_eval's Rndcg).

    The mean of NDCG@b over the positions b where the gain of the ideal list
    drops (after each grade's run of judged rows, the last at P, the number of
    judged rows of positive gain), plus DCG@n / IDCG@P when the list's length n
    exceeds P + 1 (trec_eval's m_Rndcg.c; gain: the label, 0 for an unjudged
    row). Defined where the group has a relevant row (trec_eval returns 0
    otherwise). Under ``ties="average"`` a tie block that mixes gains across an
    R level raises.
    """,
    see_also=("ndcg", "ndcg_rel"),
    examples="""
    Grades 2, 0, 1: R levels 1 and 2; NDCG@1 = 1 and NDCG@2 = 2 / (2 + 1/log2 3).

    >>> from sklearn_rank import rndcg_score
    >>> round(rndcg_score([2, 0, 1], [3, 2, 1], groups=[0] * 3), 4)
    0.8801
    """,
)

# doctest finds a module's functions through their globals (see functions.py).
__test__ = {name: f for name, f in dict(globals()).items() if name.endswith("_score")}
