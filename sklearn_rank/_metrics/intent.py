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

import numpy as np
from numpy.typing import ArrayLike

from .._engine.conventions import Options, given_options, resolve_options
from .._engine.kernels.intent import (
    INTENT_KERNELS,
    WEIGHTED,
    WHOLE_LIST,
    attach_intent_shares,
    attach_intent_view,
)
from .._utils.params import check_k, param_error
from .evaluate import mean_values, prepare_inputs, ranking_context
from .ir_measures_names import ir_measure_metric
from .registry import METRICS
from .validation import MetricRequest, asks_for_intents, check_metrics, parse_metric

__all__ = [
    "INTENT_METRICS",
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
# The tie rules that are one ordering of the rows; "average" and "threshold"
# are expectations over the orders of tied rows, which these nonlinear metrics
# do not reduce to one ordering.
ONE_ORDER = ("stable", "pessimistic", "optimistic")


def _check_intent_labels(y_true: Any, func: str) -> np.ndarray:
    """The 2-D labels as float64; binary per intent (grade > 0) is what the
    metrics read."""
    try:
        y = np.asarray(y_true, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "y_true",
            func,
            "a numeric array of shape (n_samples, n_intents)",
            type(y_true).__name__,
        ) from None
    if y.ndim != 2 or y.shape[1] < 1:
        raise param_error(
            "y_true",
            func,
            "a 2-D array of shape (n_samples, n_intents) with n_intents >= 1",
            f"an array of shape {y.shape}",
            "Give one column per intent (subtopic), one row per document.",
        )
    if not np.isfinite(y).all():
        raise param_error("y_true", func, "finite grades", "NaN or inf")
    if (y < 0).any():
        raise param_error(
            "y_true", func, "non-negative grades", f"minimum {float(y.min())!r}"
        )
    return y


def _parse(name: Any, func: str) -> tuple[str, str, int | None]:
    if not isinstance(name, str):
        raise param_error("metrics", func, "a str or a sequence of str", name)
    base, _, cut = name.partition("@")
    if base not in INTENT_KERNELS:
        raise param_error(
            "metrics",
            func,
            "names among {" + ", ".join(repr(n) for n in INTENT_METRICS) + "}"
            " with an optional '@k'",
            name,
        )
    k = None
    if cut and base in WHOLE_LIST:
        raise param_error(
            "metrics",
            func,
            f"{base!r} without a cutoff (it reads the whole list, as ndeval)",
            name,
        )
    if cut:
        if not cut.isdigit():
            raise param_error("metrics", func, "a cutoff '@k' with k an int >= 1", name)
        k = check_k(int(cut), func)
    return name, base, k


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
        Names among ``"alpha_ndcg"``, ``"err_ia"``, ``"nerr_ia"``,
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
    ties : {"stable", "pessimistic", "optimistic"}, default=None
        The order of rows of equal score in a group: input order ("stable"),
        the rows relevant to no intent first, then by their largest grade
        ascending ("pessimistic"), or descending ("optimistic"); input order
        within equal keys. None takes the convention's rule, and "stable"
        where that is "average" or "threshold" (the default convention): an
        expectation over the orders of tied rows, which these nonlinear
        metrics do not reduce to one ordering, so that given explicitly they
        raise.
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
        Name of a convention preset that sets the keywords left at None;
        ``"ndeval"``: alpha 0.5, beta 0.5, "stable" ties, undefined groups
        scored 0 (ndeval's mean over the topics of its qrels).

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


def _parse_requests(names: list[Any], func: str) -> list[MetricRequest]:
    """The intent-aware names, checked with errors that name ``func``."""
    out = []
    for name in names:
        if ir_measure_metric(name) is not None:  # "alpha_nDCG(alpha=0.7)@20"
            out.append(parse_metric(name))
            continue
        label, base, k = _parse(name, func)
        out.append(MetricRequest(label, METRICS[base], k))
    return out


def _check_ties(ties: Any, opts: Options, func: str) -> Options:
    """The tie rule of a call with intent-aware metrics: one of
    :data:`ONE_ORDER`; a preset's "average" or "threshold" reads as "stable"
    (the order the engine then gives ties), given explicitly it raises."""
    if opts.ties in ONE_ORDER:
        return opts
    if ties is not None:
        raise param_error(
            "ties",
            func,
            "one of 'stable', 'pessimistic', 'optimistic' or None with "
            "intent-aware metrics",
            ties,
            "The intent-aware metrics are not linear in the order of tied rows: "
            "the average over their orders is not one ordering and is not "
            "computed. Pass ties='stable' (ndeval reads the run in order).",
        )
    return opts


def _mean_scores(
    func: str,
    labels: np.ndarray,
    y_score: Any,
    groups: Any,
    requests: list[MetricRequest],
    opts: Options,
    *,
    sample_weight: Any = None,
    masks: dict[str, Any] | None = None,
    intent_weight: Any = None,
) -> dict[str, float]:
    """Every request from one ordering of the rows (by group, then descending
    score, ties by ``opts.ties``); the intent-aware kernels read the
    (row, intent) view attached to it, the others each row's largest grade."""
    masks = masks or {}
    inputs = prepare_inputs(
        func,
        labels.max(axis=1),
        y_score,
        groups,
        sample_weight,
        masks.get("retrieved"),
        requests,
        opts,
        masks.get("judged"),
        masks.get("in_pool"),
        host=True,
    )
    ctx = ranking_context(inputs, opts)
    rel = (labels > 0).astype(np.int8)
    view = attach_intent_view(ctx, rel)
    if intent_weight is not None:
        weights = _group_intent_weights(intent_weight, rel, inputs, requests, func)
        attach_intent_shares(ctx, view, weights)
    return mean_values(ctx, inputs.group_ids, requests, opts)


def _group_intent_weights(
    intent_weight: Any,
    rel: np.ndarray,
    inputs: Any,
    requests: list[MetricRequest],
    func: str,
) -> np.ndarray:
    """``intent_weight`` checked: ``(n_samples, n_intents)``, finite, >= 0, the
    same on every row of a group, and not 0 on every intent of a group that
    has one; returned per group, ``(n_groups, n_intents)``."""
    unweighted = [r.label for r in requests if r.spec.name not in WEIGHTED]
    if unweighted:
        raise param_error(
            "intent_weight",
            func,
            "None with metrics that have no definition over intent weights",
            f"weights with {unweighted[0]!r}",
            "Intent weights P(i|q) weigh ERR-IA, precision-IA and MAP-IA "
            "(Agrawal et al., 2009); ask for the others in another call.",
        )
    try:
        w = np.asarray(intent_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "intent_weight", func, "a numeric array", type(intent_weight).__name__
        ) from None
    if w.shape != rel.shape:
        raise param_error(
            "intent_weight",
            func,
            f"an array of y_true's shape {rel.shape}, each row its query's weights",
            f"an array of shape {w.shape}",
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise param_error(
            "intent_weight", func, "finite weights >= 0", "NaN, inf or <0"
        )
    codes, ids = inputs.codes, inputs.group_ids
    _, first = np.unique(codes, return_index=True)
    per_group = w[first]
    differ = (w != per_group[codes]).any(axis=1)
    if differ.any():
        query = ids[[codes[np.argmax(differ)]]].tolist()[0]
        raise param_error(
            "intent_weight",
            func,
            "the same weights on every row of a query",
            f"rows that differ in query {query!r}",
        )
    m = rel.shape[1]
    rows, intents = np.nonzero(rel)
    cells = np.bincount(codes[rows] * m + intents, minlength=ids.size * m) > 0
    cells = cells.reshape(ids.size, m)
    empty = cells.any(axis=1) & ((per_group * cells).sum(axis=1) <= 0)
    if empty.any():
        raise param_error(
            "intent_weight",
            func,
            "a weight > 0 on some intent with a relevant row, in every query",
            f"0 on every such intent of query {ids[[np.argmax(empty)]].tolist()[0]!r}",
        )
    return per_group


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
    **options: Any,
) -> dict[str, float]:
    """The body of :func:`evaluate_intents` and the ``*_score`` functions: errors
    name ``func``; ``options`` are convention keywords."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    requests = _parse_requests(names, func)
    opts = _check_ties(
        options.get("ties"), resolve_options(func, convention, options), func
    )
    if opts.ties not in ONE_ORDER:  # alone, no tie blocks to find
        opts = dataclasses.replace(opts, ties="stable")
    labels = _check_intent_labels(y_true, func)
    return _mean_scores(
        func,
        labels,
        y_score,
        groups,
        requests,
        opts,
        sample_weight=sample_weight,
        intent_weight=intent_weight,
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
    convention: str | None = None,
) -> float:
    """alpha-nDCG@k (Clarke et al., 2008), normalised by ndeval's greedy ideal.

    Parameters are those of :func:`evaluate_intents`; ``k`` is the cutoff (None:
    the whole list).

    Examples
    --------
    >>> from sklearn_rank import alpha_ndcg_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> # Ranked: 1 + 0.5 / log2(3); greedy ideal: 1 + 1 / log2(3).
    >>> round(alpha_ndcg_score(y_true, [0.9, 0.8, 0.7], groups=[1, 1, 1], k=2), 4)
    0.8066
    """
    return _one("alpha_ndcg", **locals())


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
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """ERR-IA@k as ndeval prints it: the intent-aware cascade (stop probability
    ``alpha`` at a relevant row) over that of a list relevant to every intent at
    every position down to ``k``.

    Parameters are those of :func:`evaluate_intents`.

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
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """Precision-IA@k: the mean over the group's intents of precision@k.

    Parameters are those of :func:`evaluate_intents`.

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
    convention: str | None = None,
) -> float:
    """Subtopic (intent) recall@k (Zhai et al., 2003): the share of a group's
    intents with a relevant row in the top ``k``.

    Parameters are those of :func:`evaluate_intents`.

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
    convention: str | None = None,
) -> float:
    """nERR-IA@k as ndeval: ERR-IA of the ranking over that of ndeval's greedy
    ideal ranking (the ideal of :func:`alpha_ndcg_score`).

    Parameters are those of :func:`evaluate_intents`.

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
    intent_weight: ArrayLike | None = None,
    convention: str | None = None,
) -> float:
    """MAP-IA (Agrawal et al., 2009) as ndeval: the mean over a group's intents
    of average precision for that intent.

    Parameters are those of :func:`evaluate_intents`; ``k`` sums precision over
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
    convention: str | None = None,
) -> float:
    """NRBP, novelty- and rank-biased precision (Clarke et al., 2009), as
    ndeval: ``(1 - (1 - alpha) beta) / intents`` times the sum over the whole
    list of the novelty gain at rank ``r`` weighted by ``beta ** (r - 1)``.

    Parameters are those of :func:`evaluate_intents`.

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
    convention: str | None = None,
) -> float:
    """nNRBP as ndeval: NRBP over that of ndeval's greedy ideal ranking.

    Parameters are those of :func:`evaluate_intents`.

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
    _parse_requests([name], func)


# evaluate's arguments besides the convention keywords that a call with only
# intent-aware metrics reads; the others must stay None.
_INTENT_INPUTS = {"y_true", "y_score", "groups", "metrics", "sample_weight"}
_INTENT_INPUTS |= {"convention", "n_jobs", "func"}
# The row masks: the intent view covers every row, ranked and judged.
_MASKS = ("retrieved", "judged", "in_pool", "judged_only")


def evaluate_with_intents(given: dict[str, Any]) -> dict[str, float]:
    """:func:`~sklearn_rank.evaluate` with intent-aware names: every metric from
    one ordering of the rows (the other metrics read each row's largest grade);
    options no requested metric reads are refused in a call of intent-aware
    metrics only; results in the order of ``metrics``."""
    func = "evaluate"
    names = (
        [given["metrics"]]
        if isinstance(given["metrics"], str)
        else list(given["metrics"])
    )
    is_intent = [asks_for_intents([n]) for n in names]
    plain = [n for n, flag in zip(names, is_intent, strict=True) if not flag]
    single = iter(check_metrics(plain, func) if plain else [])
    requests = [
        _parse_requests([n], func)[0] if flag else next(single)
        for n, flag in zip(names, is_intent, strict=True)
    ]
    masks = [k for k in _MASKS if given[k] is not None]
    if masks:
        raise param_error(
            masks[0],
            func,
            "None with intent-aware metrics",
            given[masks[0]],
            "The intent-aware metrics rank every row of a 2-D y_true; give the "
            "rows that are ranked and judged only.",
        )
    options = given_options(given)
    if not plain:
        reads = set(_INTENT_INPUTS).union(*(r.spec.options for r in requests))
        unread = sorted(k for k, v in given.items() if k not in reads and v is not None)
        if unread:
            raise param_error(
                unread[0],
                func,
                "None: none of the intent-aware metrics asked for reads it",
                given[unread[0]],
                "They read y_true, y_score, groups, sample_weight, convention and "
                "their options (alpha, beta for nrbp / nnrbp, ties, undefined).",
            )
    opts = _check_ties(
        given["ties"], resolve_options(func, given["convention"], options), func
    )
    if not plain and opts.ties not in ONE_ORDER:
        opts = dataclasses.replace(opts, ties="stable")
    labels = _check_intent_labels(given["y_true"], func)
    return _mean_scores(
        func,
        labels,
        given["y_score"],
        given["groups"],
        requests,
        opts,
        sample_weight=given["sample_weight"],
    )
