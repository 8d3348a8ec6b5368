"""Intent-aware (diversity) metrics from relevance per (row, intent).

``y_true`` is 2-D, of shape ``(n_samples, n_intents)``. The rows are validated
and ordered once through the engine (its context built from the largest grade of
each row), then every metric reads the same ordering; the formulas live in
``_engine/kernels/intent.py``. See ``docs/diversity.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from .._engine.conventions import resolve_options
from .._engine.kernels.intent import INTENT_KERNELS, WEIGHTED
from .._utils.params import check_k
from .evaluate import intent_means
from .validation import (
    ONE_ORDER,
    check_intent_labels,
    check_intent_ties,
    parse_intent_names,
)

__all__ = [
    "INTENT_METRICS",
    "alpha_dcg_score",
    "alpha_ndcg_score",
    "err_ia_score",
    "evaluate_intents",
    "map_ia_score",
    "nerr_ia_score",
    "nnrbp_score",
    "nrbp_score",
    "precision_ia_score",
    "subtopic_recall_score",
]

INTENT_METRICS = tuple(INTENT_KERNELS)
DEFAULT_INTENT_METRICS = ("alpha_ndcg@10", "err_ia@10", "subtopic_recall@10")


def evaluate_intents(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    metrics: str | Sequence[str] = DEFAULT_INTENT_METRICS,
    alpha: float | None = None,
    beta: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
    retrieved: ArrayLike | None = None,
) -> dict[str, float]:
    """Intent-aware ranking metrics from one ordering of the rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_intents)
        Relevance of each row to each intent (subtopic); a grade > 0 is relevant
        (binary per intent, as ndeval). A group's intents are the columns with a
        relevant row in the group.
    y_score : array-like of shape (n_samples,)
        Scores; higher ranks first within a group.
    groups : array-like of shape (n_samples,)
        Query id of each row, in any order.
    metrics : str or sequence of str, default=("alpha_ndcg@10", "err_ia@10", \
"subtopic_recall@10")
        Names among ``"alpha_ndcg"``, ``"alpha_dcg"``, ``"err_ia"``, ``"nerr_ia"``,
        ``"map_ia"``, ``"precision_ia"``, ``"subtopic_recall"``, each with an
        optional ``"@k"`` cutoff, and ``"nrbp"``, ``"nnrbp"`` (the whole list).
    alpha : float, default=None
        Redundancy intolerance in [0, 1) (0.5 when None, as ndeval): the gain
        of an intent decays by ``1 - alpha`` for each relevant row for it
        ranked above (alpha-nDCG, nERR-IA, NRBP, nNRBP); ERR-IA's stop
        probability at a relevant row. The table's ``alpha``.
    beta : float, default=None
        NRBP's patience in (0, 1) (0.5 when None, as ndeval's ``-beta``): the
        weight of rank ``r`` is ``beta ** (r - 1)`` (``nrbp``, ``nnrbp``).
    ties : {"average", "stable", "pessimistic", "optimistic"}, default=None
        Rows of equal score in a group (a tie block). "average": the exact
        expected value of the metric over uniformly random orders of the rows
        within each tie block (a block's ``t``-th row relevant to an intent
        lies at its ``j``-th rank with probability
        ``C(j - 1, t) C(b - j, K - 1 - t) / C(b, K)``; see
        ``docs/diversity.md``). The others are one ordering: input order
        ("stable"), the rows relevant to no intent first, then by their
        largest grade ascending ("pessimistic"), or descending ("optimistic");
        input order within equal keys. None takes the convention's rule, and
        "stable" where that is "average" (the default convention) or
        "threshold" (the "sklearn" preset): only "average" given explicitly
        takes the expectation. "threshold" given explicitly raises.
    undefined : "skip", "raise" or float, default=None
        What a group without any relevant (row, intent) does: left out of the
        mean ("skip"), an error, or scored with the float.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a group weighs the mean of its rows' weights.
    intent_weight : array-like of shape (n_samples, n_intents), default=None
        Weight of each intent for the row's query, the same on every row of a
        query (it is split with ``y_true`` in a cross-validation). Agrawal et
        al. (2009)'s intent probabilities: ``P(i|q)`` is the intent's weight
        over the sum of the weights of the query's intents (those with a
        relevant row), and ERR-IA, precision-IA and MAP-IA become
        ``sum_i P(i|q) M_i`` (ERR-IA still over the ERR of a list relevant at
        every position). None: uniform, ``P(i|q) = 1 / |I_q|``, as ndeval.
        The other metrics have no weighted definition and refuse it.
        :func:`~sklearn_rank.evaluate` takes it too, and a search routes it
        to the scorers (metadata routing; see ``docs/diversity.md``).
    convention : str, default=None
        Name of a convention preset that sets the keywords left at None;
        ``"ndeval"``: alpha 0.5, beta 0.5, "stable" ties, undefined groups
        scored 0 (ndeval's mean over the topics of its qrels).
    retrieved : array-like of bool of shape (n_samples,), default=None
        False marks rows that are judged but not ranked (ndeval's qrels beside
        its run): they count in a group's intents, in MAP-IA's per-intent
        denominators and in the greedy ideal, never in the ranked list. None:
        every row is ranked.

    Returns
    -------
    scores : dict of str to float
        One entry per name in ``metrics``, in that order.

    Examples
    --------
    >>> from sklearn_rank import evaluate_intents
    >>> # One query, three documents, two intents.
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> y_score = [0.9, 0.8, 0.7]
    >>> scores = evaluate_intents(
    ...     y_true, y_score, groups=[1, 1, 1],
    ...     metrics=["subtopic_recall@2", "precision_ia@2"],
    ... )
    >>> scores  # intent 1 only in the top 2; 2 pairs of 2 x 2
    {'subtopic_recall@2': 0.5, 'precision_ia@2': 0.5}
    """
    return _scores("evaluate_intents", **locals())


def _scores(
    func: str,
    y_true: Any,
    y_score: Any,
    *,
    groups: Any,
    metrics: str | Sequence[str],
    sample_weight: Any,
    convention: Any,
    intent_weight: Any = None,
    retrieved: Any = None,
    **options: Any,
) -> dict[str, float]:
    """The body of :func:`evaluate_intents` and the ``*_score`` functions: errors
    name ``func``; ``options`` are convention keywords."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    requests = parse_intent_names(names, func)
    average = options.get("ties") == "average"  # given: the expectation
    opts = check_intent_ties(
        options.get("ties"), resolve_options(func, convention, options), func
    )
    if opts.ties not in ONE_ORDER and not average:  # alone, no tie blocks to find
        opts = dataclasses.replace(opts, ties="stable")
    labels = check_intent_labels(y_true, func)
    return intent_means(
        func,
        labels,
        y_score,
        groups,
        requests,
        opts,
        sample_weight=sample_weight,
        intent_weight=intent_weight,
        masks={"retrieved": retrieved},
        average=average,
    )


def _one(metric: str, y_true, y_score, *, k=None, **kw) -> float:
    """One metric through :func:`_scores`."""
    func = f"{metric}_score"
    name = metric if check_k(k, func) is None else f"{metric}@{k}"
    return _scores(func, y_true, y_score, metrics=[name], **kw)[name]


def alpha_ndcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    alpha: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """alpha-nDCG@k (Clarke et al., 2008), normalised by ndeval's greedy ideal.

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked); ``k`` is the cutoff (None: the whole list).

    Examples
    --------
    >>> from sklearn_rank import alpha_ndcg_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> # Ranked: 1 + 0.5 / log2(3); greedy ideal: 1 + 1 / log2(3).
    >>> round(alpha_ndcg_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1], k=2), 4)
    0.8066
    """
    return _one("alpha_ndcg", **locals())


def alpha_dcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    alpha: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """alpha-DCG@k as ndeval prints it (its ``alpha-DCG@k`` column, ir_measures'
    ``alpha_DCG``): the ranking's alpha-DCG (Clarke et al., 2008) over that of
    a list relevant to every one of the query's intents at every rank down to
    ``k`` (ndeval's "ideal ideal" normalisation, which needs no ideal ranking).

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked); ``k`` is the cutoff (None: the whole list).

    Examples
    --------
    >>> from sklearn_rank import alpha_dcg_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> # Ranked: 1 + 0.5 / log2(3); both intents at both ranks: 2 + 1 / log2(3).
    >>> alpha_dcg_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1], k=2)
    0.5
    """
    return _one("alpha_dcg", **locals())


def err_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    alpha: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """ERR-IA@k as ndeval prints it: the intent-aware cascade (stop probability
    ``alpha`` at a relevant row) over that of a list relevant to every intent at
    every position down to ``k``.

    Parameters are those of :func:`evaluate_intents`: ``intent_weight`` holds
    each row's query's intent weights P(i|q), ``retrieved`` is False for
    judged rows not ranked.

    Examples
    --------
    >>> from sklearn_rank import err_ia_score
    >>> y_true = [[1, 0], [0, 1]]
    >>> err_ia_score(y_true, [0.9, 0.8], groups=[1, 1], k=2)  # (1 + 1/2) / (2 * 1.25)
    0.6
    """
    return _one("err_ia", **locals())


def precision_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Precision-IA@k: the mean over the group's intents of precision@k.

    Parameters are those of :func:`evaluate_intents`: ``intent_weight`` holds
    each row's query's intent weights P(i|q), ``retrieved`` is False for
    judged rows not ranked.

    Examples
    --------
    >>> from sklearn_rank import precision_ia_score
    >>> precision_ia_score([[1, 1], [0, 1]], [0.9, 0.8], groups=[1, 1], k=2)
    0.75
    """
    return _one("precision_ia", **locals())


def subtopic_recall_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Subtopic (intent) recall@k (Zhai et al., 2003): the share of a group's
    intents with a relevant row in the top ``k``.

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked).

    Examples
    --------
    >>> from sklearn_rank import subtopic_recall_score
    >>> subtopic_recall_score([[1, 0], [0, 1]], [0.9, 0.8], groups=[1, 1], k=1)
    0.5
    """
    return _one("subtopic_recall", **locals())


def nerr_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    alpha: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """nERR-IA@k as ndeval: ERR-IA of the ranking over that of ndeval's greedy
    ideal ranking (the ideal of :func:`alpha_ndcg_score`).

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked).

    Examples
    --------
    >>> from sklearn_rank import nerr_ia_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> # Ranked: 1 + 0.5 / 2; greedy ideal: 1 + 1 / 2.
    >>> round(nerr_ia_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1], k=2), 4)
    0.8333
    """
    return _one("nerr_ia", **locals())


def map_ia_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """MAP-IA (Agrawal et al., 2009) as ndeval: the mean over a group's intents
    of average precision for that intent.

    Parameters are those of :func:`evaluate_intents`: ``intent_weight`` holds
    each row's query's intent weights P(i|q), ``retrieved`` is False for
    judged rows not ranked; ``k`` sums precision over
    the top ``k`` only (the denominator stays the intent's relevant rows).

    Examples
    --------
    >>> from sklearn_rank import map_ia_score
    >>> # Intent 1: relevant at ranks 1 and 3 (1 + 2/3) / 2; intent 2: 1/2.
    >>> y_true = [[1, 0], [0, 1], [1, 0]]
    >>> round(map_ia_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1]), 4)
    0.6667
    """
    return _one("map_ia", **locals())


def nrbp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    alpha: float | None = None,
    beta: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """NRBP, novelty- and rank-biased precision (Clarke et al., 2009), as
    ndeval: ``(1 - (1 - alpha) beta) / intents`` times the sum over the whole
    list of the novelty gain at rank ``r`` weighted by ``beta ** (r - 1)``.

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked).

    Examples
    --------
    >>> from sklearn_rank import nrbp_score
    >>> # Gains 1, 1 at ranks 1, 2: (1 + 0.5) x (1 - 0.25) / 2 intents.
    >>> nrbp_score([[1, 0], [0, 1]], [0.9, 0.8], groups=[1, 1])
    0.5625
    """
    return _one("nrbp", **locals())


def nnrbp_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    alpha: float | None = None,
    beta: float | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
    sample_weight: ArrayLike | None = None,
    retrieved: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """nNRBP as ndeval: NRBP over that of ndeval's greedy ideal ranking.

    Parameters are those of :func:`evaluate_intents` (``retrieved``: False for
    judged rows not ranked).

    Examples
    --------
    >>> from sklearn_rank import nnrbp_score
    >>> # Ranked gains 1, 0.5, 1 weigh 1 + 0.25 + 0.25; the greedy ideal's
    >>> # 1, 1, 0.5 weigh 1 + 0.5 + 0.125 (beta = 0.5).
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> round(nnrbp_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1]), 4)
    0.9231
    """
    return _one("nnrbp", **locals())


def check_intent_name(name: str, func: str) -> None:
    """Refuse a malformed intent-aware name (``err_ia@0``, ``nrbp@5``,
    ``NRBP@5``) now."""
    parse_intent_names([name], func)


def takes_intent_weight(name: str) -> bool:
    """Whether an intent-aware name has a definition over intent weights
    (ERR-IA, precision-IA, MAP-IA, in any spelling)."""
    return parse_intent_names([name], "takes_intent_weight")[0].spec.name in WEIGHTED
