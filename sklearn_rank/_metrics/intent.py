"""Intent-aware (diversity) metrics from relevance per (row, intent).

``y_true`` is 2-D, of shape ``(n_samples, n_intents)``. The rows are validated
and ordered once through the engine (its context built from the largest grade of
each row), then every metric reads the same ordering; the formulas live in
``_engine/kernels/intent.py``. See ``docs/diversity.md``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine.context import RankingContext
from .._engine.conventions import resolve_options
from .._engine.kernels.intent import (
    INTENT_KERNELS,
    WHOLE_LIST,
    IntentParams,
    intent_view,
    largest_grade,
)
from .._engine.reduce import mean_over_groups
from .._utils.params import Interval, check_k, check_param, param_error
from .validation import check_inputs

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
_ALPHA = (Interval(numbers.Real, 0, 1, closed="left"),)
_BETA = (Interval(numbers.Real, 0, 1, closed="both"),)


def _check_intent_labels(y_true: Any, func: str) -> np.ndarray:
    """The 2-D labels as float64, or as given where they are whole numbers (no
    float copy, and they cannot be NaN); binary per intent (grade > 0) is what
    the metrics read."""
    given = y_true if isinstance(y_true, np.ndarray) else None
    whole = given is not None and given.dtype.kind in "biu"
    try:
        y = given if whole else np.asarray(y_true, dtype=np.float64)
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
    if not whole and not np.isfinite(y).all():
        raise param_error("y_true", func, "finite grades", "NaN or inf")
    if (y.min() if y.size else 0) < 0:
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
    alpha: float = 0.5,
    beta: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
        Names among ``"alpha_ndcg"``, ``"err_ia"``, ``"nerr_ia"``,
        ``"map_ia"``, ``"precision_ia"``, ``"subtopic_recall"``, each with an
        optional ``"@k"`` cutoff, and ``"nrbp"``, ``"nnrbp"`` (the whole list).
    alpha : float, default=0.5
        Redundancy intolerance in [0, 1): the gain of an intent decays by
        ``1 - alpha`` for each relevant row for it ranked above (alpha-nDCG,
        ERR-IA, nERR-IA, NRBP; ERR-IA's stop probability at a relevant row).
    beta : float, default=0.5
        NRBP's patience in [0, 1]: the weight of rank ``r`` is ``beta ** (r - 1)``
        (``nrbp``, ``nnrbp``; ndeval's ``-beta``).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a group weighs the mean of its rows' weights.
    ties : {"stable"}, default=None
        Rows of equal score keep their input order (the one rule so far; the
        expectation over tie orders is not done yet).
    undefined : "skip", "raise" or float, default=None
        What a group without any relevant (row, intent) does: left out of the
        mean ("skip"), an error, or scored with the float.
    convention : str, default=None
        Name of a convention preset that sets ``undefined`` when None.
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
    alpha: Any,
    sample_weight: Any,
    beta: Any = 0.5,
    ties: Any,
    undefined: Any,
    convention: Any,
    retrieved: Any = None,
) -> dict[str, float]:
    """The body of :func:`evaluate_intents` and the ``*_score`` functions: errors
    name ``func``."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    requests = [_parse(n, func) for n in names]
    params = IntentParams(
        float(check_param(alpha, "alpha", func, _ALPHA)),
        float(check_param(beta, "beta", func, _BETA)),
    )
    if ties is not None and ties != "stable":
        raise param_error(
            "ties",
            func,
            "'stable' or None (the one tie rule of the intent-aware metrics so far)",
            ties,
        )
    opts = resolve_options(func, convention, {"undefined": undefined})
    labels = _check_intent_labels(y_true, func)
    inputs = check_inputs(
        func,
        largest_grade(labels),
        y_score,
        groups,
        sample_weight,
        retrieved,
        host=True,
    )
    ctx = RankingContext.from_inputs(
        inputs.y_true,
        inputs.y_score,
        inputs.codes,
        inputs.n_groups,
        ties="stable",
        retrieved=inputs.retrieved,
        sample_weight=inputs.sample_weight,
        group_weight=opts.group_weight,
    )
    view = intent_view(ctx, (labels > 0).astype(np.int8))
    out = {}
    for name, base, k in requests:
        values, defined, weight = INTENT_KERNELS[base](ctx, view, k, params)
        out[name] = mean_over_groups(
            values, defined, weight, opts.undefined, name, inputs.group_ids
        )
    return out


def _one(metric: str, y_true, y_score, *, k=None, alpha=0.5, **kw) -> float:
    """One metric through :func:`_scores`."""
    func = f"{metric}_score"
    name = metric if check_k(k, func) is None else f"{metric}@{k}"
    return _scores(func, y_true, y_score, metrics=[name], alpha=alpha, **kw)[name]


def alpha_ndcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    alpha: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    alpha: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    alpha: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    alpha: float = 0.5,
    beta: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    alpha: float = 0.5,
    beta: float = 0.5,
    sample_weight: ArrayLike | None = None,
    ties: str | None = None,
    undefined: str | float | None = None,
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
    """Refuse a malformed intent-aware name (``err_ia@0``, ``nrbp@5``) now."""
    _parse(name, func)


def asks_for_intents(metrics: Any) -> bool:
    """Whether ``metrics`` names an intent-aware metric (``evaluate``'s switch)."""
    names = [metrics] if isinstance(metrics, str) else metrics
    try:
        return any(
            isinstance(n, str) and n.partition("@")[0] in INTENT_KERNELS for n in names
        )
    except TypeError:  # not iterable: evaluate's own check names it
        return False


# evaluate's keywords the intent-aware metrics read; the others must stay None.
_INTENT_KEYWORDS = {"y_true", "y_score", "groups", "metrics", "sample_weight"}
_INTENT_KEYWORDS |= {"ties", "undefined", "convention", "n_jobs", "func"}


def evaluate_with_intents(
    given: dict[str, Any], evaluate: Callable[..., dict[str, float]]
) -> dict[str, float]:
    """:func:`~sklearn_rank.evaluate` with intent-aware names: those through
    :func:`evaluate_intents` (``alpha`` and ``beta`` at their defaults), the
    others through ``evaluate`` (passed in: it imports this module) on each
    row's largest grade; results in the order of ``metrics``."""
    func = "evaluate"
    names = (
        [given["metrics"]]
        if isinstance(given["metrics"], str)
        else list(given["metrics"])
    )
    labels = _check_intent_labels(given["y_true"], func)
    intent = [n for n in names if asks_for_intents(n)]
    single = [n for n in names if n not in intent]
    if single:
        keywords = {
            k: v for k, v in given.items() if k not in ("y_true", "metrics", "func")
        }
        out = evaluate(labels.max(axis=1), metrics=single, **keywords)
    else:
        out = {}
        unread = sorted(
            k for k, v in given.items() if k not in _INTENT_KEYWORDS and v is not None
        )
        if unread:
            raise param_error(
                unread[0],
                func,
                "None with only intent-aware metrics",
                given[unread[0]],
                "The intent-aware metrics read y_true, y_score, groups, "
                "sample_weight, ties, undefined and convention; use "
                "evaluate_intents for alpha and beta.",
            )
    out |= _scores(
        func,
        labels,
        given["y_score"],
        groups=given["groups"],
        metrics=intent,
        alpha=0.5,
        sample_weight=given["sample_weight"],
        ties=given["ties"],
        undefined=given["undefined"],
        convention=given["convention"],
    )
    return {n: out[n] for n in names}
