"""Public metric functions: validate, call the kernel, reduce to a float.

Each function's parameters section is built from the registry and the option
table (``_doc``), so every function documents a keyword with the same words, and a
test pins each signature to its registry entry.

Why one module of about 1,300 lines: each function is a short forwarding body
(``score_metric``) under a hand-written summary and a worked, doctested example;
the lines are those examples. Generating the functions from the table would keep
the bodies but lose the examples and the signatures type checkers read.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

from numpy.typing import ArrayLike

from .._engine.conventions import OPTIONS, Option, given_options
from .._utils.params import FiniteMapping, Interval, IsBool, IsCallable
from .evaluate import score_metric
from .registry import METRICS

_INPUTS = """y_true : array-like of shape (n_samples,)
        Relevance label of each row (binary or graded).
    y_score : array-like of shape (n_samples,)
        Score of each row; higher scores rank first within a group.
    groups : array-like of shape (n_samples,)
        Query, user or session id of each row: ints, strings, objects or a pandas
        Categorical, in any order (groups need not be contiguous)."""
_CUTOFF = """k : int, default=None
        Cutoff: only the top ``k`` positions of each group count. None means the
        whole list."""
_TAIL = """sample_weight : array-like of shape (n_samples,), default=None
        Row weights. A group's weight is the mean of its rows' weights (see
        ``group_weight``) and the result is the weighted mean over groups.
    retrieved : array-like of bool of shape (n_samples,), default=None
        False marks rows that are judged but not in the ranked list (a candidate
        list cut short): they count in the group's number of relevant rows and in
        its ideal DCG, never at a position.
    judged : array-like of bool of shape (n_samples,), default=None
        False marks rows that carry no judgement (unjudged documents of a run,
        label 0): non-relevant here unless ``judged_only=True`` removes them.
        None means every row is judged.
    convention : str, default=None
        Name of a convention preset that sets every keyword left at None; None is
        the project default, "sklearn_rank"."""


_AUC_INPUTS = """y_true : array-like of shape (n_samples,)
        Labels; relevant (positive) rows follow ``relevance_threshold``.
    y_score : array-like of shape (n_samples,)
        Scores.
    groups : array-like of shape (n_samples,), default=None
        Accepted (and validated) so that AUC and GAUC take the same arguments; the
        pooled AUC does not depend on it. Under ``ties="average"`` a tied
        positive/negative pair counts ½."""
_AUC_TAIL = """sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a pair weighs the product of its rows' weights.
    retrieved : array-like of bool of shape (n_samples,), default=None
        Rows with False are left out.
    judged : array-like of bool of shape (n_samples,), default=None
        False marks rows that carry no judgement (unjudged documents of a run,
        label 0): non-relevant here unless ``judged_only=True`` removes them.
        None means every row is judged.
    convention : str, default=None
        Name of a convention preset that sets every keyword left at None."""


def option_type(option: Option) -> str:
    """The numpydoc type of a convention keyword, from its constraints."""
    strs = list(option.choices)
    numeric = [c for c in option.constraints if isinstance(c, Interval)]
    kinds = (FiniteMapping, IsCallable)
    other = [c for c in option.constraints if isinstance(c, kinds)]
    if strs and not numeric and not other:
        parts = ["{" + ", ".join(f'"{o}"' for o in strs) + "}"]
    else:
        parts = [f'"{o}"' for o in strs]
    parts += ["int" if c.kind is numbers.Integral else "float" for c in numeric]
    parts += ["dict" if isinstance(c, FiniteMapping) else "callable" for c in other]
    parts += ["bool" for c in option.constraints if isinstance(c, IsBool)]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    return f"{text}, default=None"


def option_doc(option: Option) -> str:
    """The numpydoc entry of a convention keyword, as the table words it."""
    lines, line = [], ""
    for word in option.doc.split():
        if line and len(line) + 1 + len(word) > 76:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    indent = "\n        "
    return f"{option.name} : {option_type(option)}{indent}{indent.join(lines)}"


_IN_POOL = """in_pool : array-like of bool of shape (n_samples,), default=None
        True marks rows in the judgment pool: the judged rows, and unjudged rows
        that were pooled but not judged (trec_eval's negative qrels grades). A
        judged row must be in the pool. None means every unjudged row is outside
        the pool.
    """


def _doc(metric: str, inputs: str = _INPUTS, tail: str = _TAIL):
    """Fill ``{params}`` from the registry and the option table: the inputs, the
    cutoff if the metric has one, its options in signature order, the tail
    (with ``in_pool`` before ``convention`` for a metric that reads it)."""
    spec = METRICS[metric]
    parts = [inputs]
    if spec.takes_k:
        parts.append(_CUTOFF)
    parts.extend(option_doc(OPTIONS[name]) for name in spec.options)
    if spec.reads_pool:
        tail = tail.replace("convention : ", _IN_POOL + "convention : ", 1)
    parts.append(tail)

    def wrap(func):
        func.__doc__ = func.__doc__.replace(
            "    {params}", "\n".join("    " + part for part in parts)
        )
        return func

    return wrap


@_doc("ndcg")
def ndcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ideal_order: str | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Normalised discounted cumulative gain, averaged over groups.

    ``NDCG@k = DCG@k / IDCG@k`` where ``DCG@k = Σ_{p<=k} gain(y_p) / log2(p + 1)``
    and IDCG@k is the DCG@k of the group's own labels sorted descending
    (unretrieved rows included).

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float
        Weighted mean of the per-group NDCG over the defined groups.

    Examples
    --------
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
    """
    return score_metric(
        "ndcg",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("dcg")
def dcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    gain: str | None = None,
    discount: str | float | Callable | None = None,
    gain_rows: str | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Discounted cumulative gain ``Σ_{p<=k} gain(y_p) / log2(p + 1)``, averaged
    over groups.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Two tied rows share positions 1 and 2, so each gets the mean discount
    ``(1 + 1/log2(3)) / 2``; with binary labels the DCG is that mean:

    >>> from sklearn_rank import dcg_score
    >>> round(dcg_score([1, 0], [0.5, 0.5], groups=[0, 0]), 4)
    0.8155
    """
    return score_metric(
        "dcg",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("map")
def map_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    ap_denominator: str | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Mean average precision: ``AP@k = (1/R) Σ_{p<=k, relevant} precision@p``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
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
    """
    return score_metric(
        "map",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("mrr")
def mrr_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Mean reciprocal rank: 1/position of the first relevant row (0 beyond k).

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Three queries whose first relevant rows are at positions 1, 3 and 2:
    ``(1 + 1/3 + 1/2) / 3 = 0.611``.

    >>> from sklearn_rank import mrr_score
    >>> y_true = [1, 0, 0, 0, 0, 1, 0, 1, 0]
    >>> y_score = [3, 2, 1, 3, 2, 1, 3, 2, 1]
    >>> groups = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> round(mrr_score(y_true, y_score, groups=groups), 3)
    0.611
    """
    return score_metric(
        "mrr",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("precision")
def precision_at_k_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Precision at k: relevant rows in the top ``k`` divided by ``k``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: two relevant in the top 5.

    >>> from sklearn_rank import precision_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> precision_at_k_score(y_true, y_score, groups=[0] * 6, k=5)
    0.4
    """
    return score_metric(
        "precision",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("recall")
def recall_at_k_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    recall_denominator: str | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Recall at k: relevant rows in the top ``k`` divided by R, the group's number
    of relevant rows (unretrieved ones included), or by ``min(k, R)`` with
    ``recall_denominator="min_k_n_relevant"``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    >>> from sklearn_rank import recall_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(recall_at_k_score(y_true, y_score, groups=[0] * 6, k=5), 3)
    0.667
    """
    return score_metric(
        "recall",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("hit_rate")
def hit_rate_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Hit rate at k: the share of groups with a relevant row in the top ``k``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    The first group has its relevant row at position 1, the second at 3:

    >>> from sklearn_rank import hit_rate_score
    >>> y_true = [1, 0, 0, 0, 0, 1]
    >>> y_score = [3, 2, 1, 3, 2, 1]
    >>> hit_rate_score(y_true, y_score, groups=[0, 0, 0, 1, 1, 1], k=2)
    0.5
    """
    return score_metric(
        "hit_rate",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("r_precision")
def r_precision_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """R-precision: precision at R, the group's own number of relevant rows.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Three relevant rows; one of them is in the top 3:

    >>> from sklearn_rank import r_precision_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(r_precision_score(y_true, y_score, groups=[0] * 6), 4)
    0.3333
    """
    return score_metric(
        "r_precision",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("err")
def err_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    max_grade: float | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, 2009).

    ``ERR@k = Σ_{p<=k} (1/p) R(y_p) Π_{q<p} (1 - R(y_q))`` with stop probability
    ``R(y) = (2**y - 1) / 2**max_grade``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Notes
    -----
    With ``ties="average"`` a tie block that mixes grades gets the exact
    expectation over its orders, from the elementary symmetric polynomials of
    its stop probabilities (docs/metrics.md, section 3). Such a block inside the
    cutoff may hold at most ``ERR_TIE_BLOCK_LIMIT`` = 1024 rows; a larger one
    raises ``ValueError`` (the cost grows with the cube of its size). Blocks of
    equal grades are exact at any size.

    Examples
    --------
    Grades 0..4 with the relevant row (grade 4) second:
    ``R(4) = 15/16``, so ERR = ``(1/2) * 15/16 = 0.46875``.

    >>> from sklearn_rank import err_score
    >>> err_score([0, 4, 0], [3, 2, 1], groups=[0, 0, 0], max_grade=4)
    0.46875
    """
    return score_metric(
        "err",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("gauc")
def gauc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    weights: str | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Group AUC: the per-group Mann-Whitney AUC, averaged with group weights.

    ``AUC_g = (Σ_{pos i, neg j} [s_i > s_j] + ½ [s_i = s_j]) / (P_g N_g)`` over the
    group's ranked rows; groups with a single class are undefined. Zhou et al.
    (2018, Deep Interest Network) weight each group by its number of rows.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
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
    """
    return score_metric(
        "gauc",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("auc", inputs=_AUC_INPUTS, tail=_AUC_TAIL)
def auc_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """AUC pooled over all rows, equal to ``sklearn.metrics.roc_auc_score``.

    Reported next to :func:`gauc_score` in the usual metric tables. Pairs are
    weighted by ``sample_weight[i] * sample_weight[j]``.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    >>> from sklearn_rank import auc_score
    >>> auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    return score_metric(
        "auc",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("f1")
def f1_at_k_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    precision_denominator: str | None = None,
    recall_denominator: str | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """F1 at k: the harmonic mean of precision at k and recall at k.

    ``F1@k = 2 P R / (P + R) = 2 H_k / (D + R)`` with ``H_k`` the relevant rows in
    the top ``k``, ``D`` the precision denominator and ``R`` the recall
    denominator (the group's number of relevant rows, or ``min(k, R)``) (0 when
    ``H_k = 0``).

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: P@5 = 2/5 and R@5 = 2/3, so
    F1@5 = ``2 * 2 / (5 + 3) = 0.5``:

    >>> from sklearn_rank import f1_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> f1_at_k_score(y_true, y_score, groups=[0] * 6, k=5)
    0.5
    """
    return score_metric(
        "f1",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("fallout")
def fallout_at_k_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Fall-out at k: non-relevant rows in the top ``k`` divided by N, the group's
    number of non-relevant rows (unretrieved ones included). Lower is better.

    A group is defined when it has a non-relevant row (a group without relevant
    rows is defined). The scorers negate it, as scikit-learn does for losses.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Relevant {A, C, F}, ranking [B, A, D, C, E, F]: the top 3 holds B and D, two
    of the three non-relevant rows:

    >>> from sklearn_rank import fallout_at_k_score
    >>> y_true = [0, 1, 0, 1, 0, 1]
    >>> y_score = [6, 5, 4, 3, 2, 1]
    >>> round(fallout_at_k_score(y_true, y_score, groups=[0] * 6, k=3), 4)
    0.6667
    """
    return score_metric(
        "fallout",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("arp")
def arp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Average relevant position: ``Σ y_p p / Σ y_p`` over a group's ranked
    relevant rows, averaged over groups. Lower is better.

    With binary labels it is the mean 1-based position of a relevant row; graded
    labels weight the positions, as TF-Ranking's ``ARPMetric`` does. Unretrieved
    relevant rows have no position and are left out; a group with no ranked
    relevant row is undefined. The scorers negate it, as scikit-learn does for
    losses.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Relevant rows at positions 2, 4 and 6 give 4. With the first two rows tied,
    the relevant one of them sits at 1.5 on average, so ``(1.5 + 3) / 2 = 2.25``:

    >>> from sklearn_rank import arp_score
    >>> arp_score([0, 1, 0, 1, 0, 1], [6, 5, 4, 3, 2, 1], groups=[0] * 6)
    4.0
    >>> arp_score([1, 0, 1], [1.0, 1.0, 0.0], groups=[0] * 3)
    2.25
    """
    return score_metric(
        "arp",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("rbp")
def rbp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    persistence: float | None = None,
    max_grade: float | None = None,
    gain_rows: str | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Rank-biased precision (Moffat and Zobel, 2008), averaged over groups.

    ``RBP@k = (1 - p) Σ_{i<=k} u(y_i) p^(i-1)`` with persistence ``p`` and utility
    ``u(y) = y / max_grade`` in [0, 1]: 0 or 1 for binary labels, graded labels
    scaled by the top of their scale.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Relevant rows at positions 1 and 3 with ``p = 0.8``:
    ``0.2 * (1 + 0.8**2) = 0.328``. Grade 2 of 0..2 at position 1 and grade 1 at
    position 2 give ``0.2 * (2/2 + 0.8 * 1/2) = 0.28``:

    >>> from sklearn_rank import rbp_score
    >>> round(rbp_score([1, 0, 1], [3, 2, 1], groups=[0] * 3), 6)
    0.328
    >>> round(rbp_score([2, 1, 0], [3, 2, 1], groups=[0] * 3, max_grade=2), 6)
    0.28
    """
    return score_metric(
        "rbp",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("pairwise_accuracy")
def pairwise_accuracy_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Pairwise accuracy: the share of pairs with different labels whose higher
    label is ranked above, pooled over groups.

    ``PA_g = Σ_{y_i > y_j} ([s_i > s_j] + ½ [s_i = s_j]) / #{y_i > y_j}`` over the
    group's ranked rows (a graded AUC, TF-Ranking's ordered pair accuracy). Each
    group weighs its number of pairs with different labels (times its mean sample
    weight), so the mean is the share of all such pairs; a group without one is
    undefined. Labels are compared only; ``relevance_threshold`` decides nothing
    here and is accepted for a uniform signature.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    TF-Ranking's ``OPAMetric`` example: labels ``(0, 1, 2)`` scored ``(3, 1, 2)``
    order one of three pairs correctly (2 above 1):

    >>> from sklearn_rank import pairwise_accuracy_score
    >>> round(pairwise_accuracy_score([0, 1, 2], [3, 1, 2], groups=[0] * 3), 4)
    0.3333
    """
    return score_metric(
        "pairwise_accuracy",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("iprec")
def interpolated_precision_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    recall_level: float | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Interpolated precision at a recall level, as trec_eval's
    ``iprec_at_recall``, averaged over groups.

    With ``c = round(recall_level * R)`` (halves up, at least 1), the value is the
    largest precision ``m / p_m`` at the position ``p_m`` of the m-th relevant row
    over ``m >= c``; 0 when fewer than ``c`` relevant rows are ranked.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Notes
    -----
    With ``ties="average"`` a tie block that mixes relevant and non-relevant rows
    raises ``ValueError`` where it makes the value depend on the order of the tie;
    the expectation of that maximum is not computed, never approximated.

    Examples
    --------
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
    """
    return score_metric(
        "iprec",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("iprec_11pt")
def eleven_point_precision_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """11-point interpolated average precision, as trec_eval's ``11pt_avg``: the
    mean of :func:`interpolated_precision_score` at recall 0, 0.1, ..., 1.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Notes
    -----
    Under ``ties="average"`` it raises where any of the 11 levels does (see
    :func:`interpolated_precision_score`).

    Examples
    --------
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
    """
    return score_metric(
        "iprec_11pt",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("bpref")
def bpref_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Binary preference (bpref), as trec_eval's ``bpref``, averaged over groups.

    ``bpref = (1/R) Σ_r (1 - min(n_r, R) / min(N, R))`` over the ranked relevant
    rows r, where ``n_r`` counts the judged non-relevant rows ranked above r, R
    is the group's number of relevant rows and N its number of judged
    non-relevant rows (both counting rows with ``retrieved=False``). Rows with
    ``judged=False`` are skipped: bpref reads only judged rows (Buckley and
    Voorhees, SIGIR 2004; trec_eval ``m_bpref.c``). Undefined when R = 0.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
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
    """
    return score_metric(
        "bpref",
        y_true,
        y_score,
        groups=groups,
        k=None,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )


@_doc("judged")
def judged_at_k_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    relevance_threshold: float | str | None = None,
    undefined: str | float | None = None,
    group_weight: str | None = None,
    integer_grades: bool | None = None,
    judged_only: bool | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    judged: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Judged@k: the share of the top k rows that are judged, averaged over groups.

    ``Judged@k = J_k / min(k, n)`` with ``J_k`` the rows with ``judged=True``
    among the first k of the ranked list and n its length, as ir_measures'
    ``Judged@k`` (reported by the TREC Deep Learning tracks). It does not read
    the labels (``relevance_threshold`` is accepted, as by every metric, and
    changes nothing); a group is defined when it ranks at least one row.

    Parameters
    ----------
    {params}

    Returns
    -------
    score : float

    Examples
    --------
    Six ranked rows, the third unjudged: two of the top 3 are judged, and five of
    the six rows of a list shorter than 10.

    >>> from sklearn_rank import judged_at_k_score
    >>> y_true = [1, 0, 0, 1, 0, 1]
    >>> kw = dict(groups=[0] * 6, judged=[1, 1, 0, 1, 1, 1])
    >>> round(judged_at_k_score(y_true, [6, 5, 4, 3, 2, 1], k=3, **kw), 4)
    0.6667
    >>> round(judged_at_k_score(y_true, [6, 5, 4, 3, 2, 1], k=10, **kw), 4)
    0.8333
    """
    return score_metric(
        "judged",
        y_true,
        y_score,
        groups=groups,
        k=k,
        options=given_options(locals()),
        sample_weight=sample_weight,
        retrieved=retrieved,
        judged=judged,
        convention=convention,
    )
