"""Fairness of exposure: how a ranking (or a distribution of rankings) spreads
the attention of a user over the rows of each group. The browsing model and the
per-group sums live in ``_engine/kernels/exposure.py``; see ``docs/diversity.md``.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.context import GroupTotals, RankingContext
from .._engine.conventions import OPTIONS
from .._engine.kernels.exposure import (
    awrf,
    exposure_terms,
    group_attention,
    row_attention,
    row_cascade_exposure,
    row_exposure,
)
from .._engine.reduce import mean_over_groups
from .._utils.params import (
    Interval,
    IsNone,
    StrOptions,
    check_k,
    check_param,
    param_error,
)
from .validation import check_inputs

__all__ = [
    "CrossedItemGroups",
    "attention_weighted_rank_fairness",
    "cross_item_groups",
    "expected_exposure",
    "exposure_by_item_group",
    "relevant_item_group_shares",
]

_PATIENCE = (Interval(numbers.Real, 0, 1, closed="both"),)
_BROWSING = (StrOptions("rbp", "gerr"),)
_STOP = (*_PATIENCE, IsNone())
_STOP_DEFAULT = 0.5  # expeval's -r default


def _floats(x: Any, name: str, func: str, expected: str) -> np.ndarray:
    """``x`` as a float64 array, or the parameter's error."""
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(name, func, expected, type(x).__name__) from None


def _draws(y_score: Any, func: str) -> np.ndarray:
    """The scores as ``(n_samples, n_draws)``: one column per sampled ranking."""
    s = _floats(y_score, "y_score", func, "a numeric array")
    if s.ndim == 1:
        s = s[:, None]
    if s.ndim != 2 or s.shape[1] < 1:
        raise param_error(
            "y_score",
            func,
            "an array of shape (n_samples,) or (n_samples, n_rankings)",
            f"an array of shape {np.shape(y_score)}",
            "Give one column per sampled ranking of a stochastic ranker.",
        )
    if not np.isfinite(s).all():
        raise param_error("y_score", func, "finite scores", "NaN or inf")
    return s


def _browsing(browsing: Any, patience: Any, stop: Any, func: str):
    """The checked browsing model as ``exposure(ctx)``: rank-biased precision's
    or the cascade (expeval's ``gerr``)."""
    patience = float(check_param(patience, "patience", func, _PATIENCE))
    browsing = check_param(browsing, "browsing", func, _BROWSING)
    stop = check_param(stop, "stop", func, _STOP)
    if browsing == "rbp":
        if stop is not None:
            raise param_error(
                "stop",
                func,
                'None with browsing="rbp"',
                stop,
                'Only browsing="gerr" stops at relevant rows.',
            )
        return lambda ctx: row_exposure(ctx, patience)
    stop = _STOP_DEFAULT if stop is None else float(stop)
    if stop == 0.0:  # never stops at a relevant row: rank-biased precision's
        return lambda ctx: row_exposure(ctx, patience)
    return lambda ctx: row_cascade_exposure(ctx, patience, stop)


def _mean_exposure(totals: GroupTotals, scores: np.ndarray, exposure):
    """Per input row, the exposure averaged over the sampled rankings."""
    out = np.zeros(scores.shape[0])
    for j in range(scores.shape[1]):  # one ordering per sampled ranking
        out += exposure(RankingContext.from_scores(totals, scores[:, j]))
    return out / scores.shape[1]


def expected_exposure(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    patience: float = 0.5,
    browsing: str = "rbp",
    stop: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> dict[str, float]:
    """Expected exposure (Diaz et al., 2020): the attention a ranker gives each row,
    against the attention a fair ideal ranker would give it.

    A user reads rank ``r`` with probability ``patience ** (r - 1)`` (the browsing
    model of rank-biased precision, ``browsing="rbp"``), or, under the cascade
    model (``browsing="gerr"``, expeval's ``-u gerr``), with probability
    ``patience ** (r - 1) * (1 - stop) ** c``, ``c`` the relevant rows (grade
    > 0) above rank ``r``: the reader also stops after a relevant row with
    probability ``stop``. That is the exposure of the row placed there,
    averaged over the sampled rankings of a stochastic ranker (the columns of a
    2-D ``y_score``) and over every order of a tie, equally likely. The target
    exposure of a row is the mean exposure of its grade's positions in an ideal
    ranking (grades descending), shared equally by the rows of the grade (every
    ideal ranking equally likely).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance grades.
    y_score : array-like of shape (n_samples,) or (n_samples, n_rankings)
        Scores of one ranking, or one column per sampled ranking.
    groups : array-like of shape (n_samples,)
        Query id of each row; the exposure is spread over the rows of a query.
    patience : float, default=0.5
        Probability in [0, 1] of reading on to the next rank.
    browsing : {"rbp", "gerr"}, default="rbp"
        The user model: rank-biased precision's, or the cascade that may stop
        after each relevant row (expeval's ``-u gerr``; its default).
    stop : float, default=None
        Probability in [0, 1] of stopping after a relevant row (expeval's
        ``-r``), read only by ``browsing="gerr"``; None: 0.5 there. 0 gives
        rank-biased precision's exposure.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a query weighs the mean of its rows' weights.

    Returns
    -------
    scores : dict of str to float
        Means over queries of the sums over each query's rows: ``"ee_l"`` the
        squared distance of the exposure from the target (lower is better; 0
        for a fair ideal ranker), ``"ee_d"`` the squared norm of the exposure
        (disparity: lower spreads attention more evenly), ``"ee_r"`` the inner
        product of exposure and target (relevance: higher is better).
        ``ee_l = ee_d - 2 ee_r + |target|^2`` per query.

    Examples
    --------
    >>> from sklearn_rank import expected_exposure
    >>> # Two relevant rows: the target gives each (1 + 0.5) / 2 = 0.75, and the
    >>> # third row 0.25. One ranking gives them 1, 0.5, 0.25:
    >>> y_true = [1, 1, 0]
    >>> one = expected_exposure(y_true, [3, 2, 1], groups=[0, 0, 0])
    >>> one["ee_l"]  # 0.25**2 + 0.25**2 + 0**2
    0.125
    >>> # A ranker that swaps the two relevant rows half of the time is fair.
    >>> both = expected_exposure(y_true, [[3, 2], [2, 3], [1, 1]], groups=[0, 0, 0])
    >>> both["ee_l"]
    0.0
    >>> # The cascade stops after the first relevant row half of the time: the
    >>> # second row gets 0.5 * 0.5 and the third 0.25 * 0.25. The target gives
    >>> # each relevant row (1 + 0.25) / 2 = 0.625, the third row 0.0625:
    >>> gerr = expected_exposure(y_true, [3, 2, 1], groups=[0, 0, 0], browsing="gerr")
    >>> gerr["ee_l"]  # 0.375**2 + 0.375**2 + 0**2
    0.28125
    """
    func = "expected_exposure"
    exposure_of = _browsing(browsing, patience, stop, func)
    scores = _draws(y_score, func)
    inputs = check_inputs(
        func, y_true, scores[:, 0], groups, sample_weight, None, host=True
    )
    totals = GroupTotals.from_inputs(
        inputs.y_true,
        inputs.codes,
        inputs.n_groups,
        ties="average",
        sample_weight=inputs.sample_weight,
    )
    target = exposure_of(RankingContext.from_scores(totals, inputs.y_true))
    exposure = _mean_exposure(totals, scores, exposure_of)
    terms = exposure_terms(exposure, target, inputs.codes, inputs.n_groups)
    weight = totals.group_weight()
    every = np.ones(inputs.n_groups, dtype=bool)
    return {
        name: mean_over_groups(values, every, weight, "skip", name, inputs.group_ids)
        for name, values in terms.items()
    }


def exposure_by_item_group(
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    item_groups: ArrayLike,
    patience: float = 0.5,
) -> dict[Any, float]:
    """Mean exposure of a row of each item group (a provider, a category), over
    every query: the attention each item group gets per item ranked.

    The exposure of a row is that of :func:`expected_exposure`
    (``patience ** (r - 1)`` at rank ``r``, averaged over ties and over the
    sampled rankings of a 2-D ``y_score``). Demographic parity of exposure
    (Singh and Joachims, 2018) holds when every item group gets the same mean;
    the ratio of the largest to the smallest is a common disparity summary.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,) or (n_samples, n_rankings)
        Scores of one ranking, or one column per sampled ranking.
    groups : array-like of shape (n_samples,)
        Query id of each row.
    item_groups : array-like of shape (n_samples,)
        The item group of each row.
    patience : float, default=0.5
        Probability in [0, 1] of reading on to the next rank.

    Returns
    -------
    exposure : dict
        Item group -> mean exposure of its rows, item groups sorted.

    Examples
    --------
    >>> from sklearn_rank import exposure_by_item_group
    >>> exposure_by_item_group(
    ...     [3, 2, 1, 0], groups=[0, 0, 0, 0], item_groups=["a", "b", "a", "b"]
    ... )
    {'a': 0.625, 'b': 0.3125}
    """
    func = "exposure_by_item_group"
    exposure_of = _browsing("rbp", patience, None, func)
    scores = _draws(y_score, func)
    n = scores.shape[0]
    inputs = check_inputs(
        func, np.zeros(n), scores[:, 0], groups, None, None, host=True
    )
    kinds = np.asarray(item_groups)
    if kinds.ndim != 1 or kinds.shape[0] != n:
        raise param_error(
            "item_groups",
            func,
            f"one item group per row: shape ({n},)",
            f"an array of shape {kinds.shape}",
        )
    totals = GroupTotals.from_inputs(
        inputs.y_true, inputs.codes, inputs.n_groups, ties="average"
    )
    exposure = _mean_exposure(totals, scores, exposure_of)
    names, codes = np.unique(kinds, return_inverse=True)
    total = seg.segment_sum(codes, exposure, names.size)
    count = seg.segment_count(codes, names.size)
    return {
        name.item() if hasattr(name, "item") else name: float(t / c)
        for name, t, c in zip(names, total, count, strict=True)
    }


def _alignment(
    item_groups: Any, n: int, func: str, name: str = "item_groups"
) -> np.ndarray:
    """Item groups as an ``(n, n_item_groups)`` membership matrix: one-hot
    columns of the sorted labels of a 1-D ``item_groups``, or a given 2-D
    matrix of non-negative memberships."""
    given = np.asarray(item_groups)
    if given.ndim == 1 and given.shape[0] == n:
        _, codes = np.unique(given, return_inverse=True)
        return np.eye(int(codes.max()) + 1 if n else 0)[codes]
    if given.ndim == 2 and given.shape[0] == n and given.shape[1] >= 1:
        try:
            out = given.astype(np.float64)
        except (TypeError, ValueError):
            out = None
        if out is None:
            got = f"an array of dtype {given.dtype}"
        elif not np.isfinite(out).all():
            got = "NaN or inf"
        elif (out < 0).any():
            got = f"minimum {float(out.min())!r}"
        else:
            return out
        raise param_error(name, func, "finite non-negative memberships", got)
    raise param_error(
        name,
        func,
        f"one label per row, shape ({n},), or memberships of shape ({n}, "
        "n_item_groups)",
        f"an array of shape {given.shape}",
    )


def _target(target: Any, n_groups: int, n_items: int, func: str) -> np.ndarray:
    """The target distribution per query, ``(n_groups, n_items)``, rows summing
    to 1: uniform by default."""
    if target is None:
        return np.full((n_groups, n_items), 1.0 / n_items)
    t = _floats(target, "target", func, "an array of shares")
    if t.ndim == 1:
        t = np.broadcast_to(t, (n_groups, t.shape[0]))
    if t.shape != (n_groups, n_items):
        raise param_error(
            "target",
            func,
            f"shape ({n_items},) or ({n_groups}, {n_items}): one share per item "
            "group, for every query or one row per query",
            f"an array of shape {np.shape(target)}",
        )
    total = t.sum(axis=1, keepdims=True)
    if not np.isfinite(t).all() or (t < 0).any() or (total <= 0).any():
        raise param_error(
            "target", func, "finite non-negative shares with a positive sum", target
        )
    return t / total


def attention_weighted_rank_fairness(
    y_score: ArrayLike,
    *,
    groups: ArrayLike,
    item_groups: ArrayLike,
    target: ArrayLike | None = None,
    k: int | None = None,
    discount: Any = "jarvelin",
) -> float:
    """Attention-weighted rank fairness (AWRF) as the TREC Fair Ranking track
    (2021, 2022) evaluates it: how close the attention each item group gets is
    to a target distribution.

    Sapiezynski et al. (2019) weigh each rank by the attention a reader gives
    it; the track takes the DCG discount ``1 / log2(max(r, 2))`` at rank ``r``.
    Per query, the attention of its rows is summed per item group (a row that
    belongs to several item groups splits its attention by its memberships),
    made a distribution ``p`` and compared with the target ``q``:
    ``AWRF = 1 - JSD(p, q)``, JSD the Jensen-Shannon divergence in nats (the
    square of scipy's ``jensenshannon``, as the track's script), so that 1 is
    a perfect match and ``1 - ln 2`` the farthest. A query whose rows have no
    attention on any item group reads as uniform, as the track's script. Rows
    of equal score share the mean attention of their positions. The value is
    the mean over queries; the track multiplies it per query by an nDCG.

    Parameters
    ----------
    y_score : array-like of shape (n_samples,)
        Scores of the ranking.
    groups : array-like of shape (n_samples,)
        Query id of each row.
    item_groups : array-like of shape (n_samples,) or (n_samples, n_item_groups)
        The item group of each row (the columns are then the sorted labels), or
        each row's non-negative membership in every item group (several groups
        per item, or fractional alignments as the track's). Several fairness
        categories crossed (the 2022 track's intersectional groups): the
        ``memberships`` of :func:`cross_item_groups`.
    target : array-like of shape (n_item_groups,) or (n_queries, n_item_groups), \
            default=None
        The target share of each item group, for every query or one row per
        query (queries in sorted order of their ids); normalised to sum to 1.
        None: every item group equal. The track's target averages the item
        groups of the query's relevant rows (:func:`relevant_item_group_shares`)
        with a population estimate.
    k : int, default=None
        Only the top ``k`` ranks get attention; None: the whole list.
    discount : {"jarvelin", "log2"}, float or callable, default="jarvelin"
        The attention of a rank, as the ``discount`` option of the DCG
        metrics; ``"jarvelin"`` (``1 / log2(max(r, 2))``) is the track's.

    Returns
    -------
    awrf : float
        Mean over queries of ``1 - JSD``.

    Examples
    --------
    >>> from sklearn_rank import attention_weighted_rank_fairness
    >>> # Ranks 1 and 2 both get attention 1: groups a and b get equal shares.
    >>> attention_weighted_rank_fairness(
    ...     [2, 1], groups=[0, 0], item_groups=["a", "b"]
    ... )
    1.0
    >>> # Only item group a is ranked: p = (1, 0) against q = (1/2, 1/2), so
    >>> # JSD = 3/4 ln(4/3).
    >>> round(attention_weighted_rank_fairness(
    ...     [2, 1], groups=[0, 0], item_groups=[[1, 0], [1, 0]]
    ... ), 6)
    0.784238
    """
    func = "attention_weighted_rank_fairness"
    k = check_k(k, func)
    discount = OPTIONS["discount"].check(discount, func)
    scores = _draws(y_score, func)
    if scores.shape[1] != 1:
        raise param_error(
            "y_score", func, "an array of shape (n_samples,)", f"shape {scores.shape}"
        )
    n = scores.shape[0]
    inputs = check_inputs(
        func, np.zeros(n), scores[:, 0], groups, None, None, host=True
    )
    alignment = _alignment(item_groups, n, func)
    goal = _target(target, inputs.n_groups, alignment.shape[1], func)
    totals = GroupTotals.from_inputs(
        inputs.y_true, inputs.codes, inputs.n_groups, ties="average"
    )
    ctx = RankingContext.from_scores(totals, inputs.y_score)
    attention = row_attention(ctx, discount, k)
    exposure = group_attention(attention, alignment, inputs.codes, inputs.n_groups)
    values = awrf(exposure, goal)
    every = np.ones(inputs.n_groups, dtype=bool)
    return mean_over_groups(
        values, every, totals.group_weight(), "skip", "awrf", inputs.group_ids
    )


class CrossedItemGroups(NamedTuple):
    """The item groups of several fairness categories crossed: ``memberships``
    of shape ``(n_samples, n_crossed)`` and ``labels``, one tuple per column
    (the level of each category, in the order of the categories)."""

    memberships: np.ndarray
    labels: list[tuple]


def _levels(category: Any, n: int, func: str) -> tuple[np.ndarray, list]:
    """One category's ``(n, n_levels)`` memberships and its level labels: the
    sorted labels of a 1-D array, the column indices of a 2-D one."""
    given = np.asarray(category)
    memberships = _alignment(given, n, func, "categories")
    if given.ndim == 1:
        return memberships, [
            v.item() if hasattr(v, "item") else v for v in np.unique(given)
        ]
    return memberships, list(range(memberships.shape[1]))


def cross_item_groups(categories: Sequence[ArrayLike]) -> CrossedItemGroups:
    """Item groups crossed over several fairness categories (the TREC Fair
    Ranking 2022 track's intersectional groups).

    Each row has a level in every category (a label), or non-negative
    memberships over its levels (the track's page alignments, a distribution
    per category with an "unknown" level). Its membership in a crossed group
    ``(l_1, ..., l_C)`` is the product of its memberships ``a_c[l_c]``: the
    outer product of its per-category vectors, as the track's evaluation
    script crosses its fairness dimensions. Pass ``memberships`` as the
    ``item_groups`` of :func:`attention_weighted_rank_fairness` (and the
    target over the same columns, e.g. :func:`relevant_item_group_shares`).

    Parameters
    ----------
    categories : sequence of array-like, each of shape (n_samples,) or \
            (n_samples, n_levels)
        One entry per category: the level of each row, or each row's
        non-negative membership in every level (columns in order).

    Returns
    -------
    crossed : CrossedItemGroups
        ``memberships`` of shape ``(n_samples, prod n_levels)``, the first
        category varying slowest; ``labels`` the matching tuples of levels
        (sorted labels of a 1-D category, column indices of a 2-D one).

    Examples
    --------
    >>> from sklearn_rank import cross_item_groups
    >>> crossed = cross_item_groups([["f", "m", "f"], ["north", "north", "south"]])
    >>> crossed.labels
    [('f', 'north'), ('f', 'south'), ('m', 'north'), ('m', 'south')]
    >>> crossed.memberships.tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    >>> # A row half in each gender level (a track-style alignment):
    >>> cross_item_groups([[[0.5, 0.5]], ["north"]]).memberships.tolist()
    [[0.5, 0.5]]
    """
    func = "cross_item_groups"
    parts = list(categories) if not isinstance(categories, (str, bytes)) else []
    if not parts:
        raise param_error(
            "categories",
            func,
            "a non-empty sequence of per-category arrays",
            categories,
            "Give one array per fairness category, e.g. [gender, region].",
        )
    n = np.shape(parts[0])[0] if np.ndim(parts[0]) else -1
    out, labels = np.ones((max(n, 0), 1)), [()]
    for category in parts:
        memberships, levels = _levels(category, n, func)
        # row-wise outer product: one loop per category, none per row or group
        out = (out[:, :, None] * memberships[:, None, :]).reshape(n, -1)
        labels = [(*head, level) for head, level in itertools.product(labels, levels)]
    return CrossedItemGroups(out, labels)


def relevant_item_group_shares(
    y_true: ArrayLike, *, groups: ArrayLike, item_groups: ArrayLike
) -> np.ndarray:
    """Per query, the share of each item group among its relevant rows: the
    mean of their memberships (the relevant-set part of the TREC Fair Ranking
    2022 track's target, its ``mean_outer`` of the relevant pages' crossed
    alignments before the averaging with population backgrounds).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance; a grade > 0 is relevant.
    groups : array-like of shape (n_samples,)
        Query id of each row.
    item_groups : array-like of shape (n_samples,) or (n_samples, n_item_groups)
        As in :func:`attention_weighted_rank_fairness` (e.g. the
        ``memberships`` of :func:`cross_item_groups`).

    Returns
    -------
    target : ndarray of shape (n_queries, n_item_groups)
        One row per query in sorted order of the query ids, the ``target`` of
        :func:`attention_weighted_rank_fairness`.

    Examples
    --------
    >>> from sklearn_rank import relevant_item_group_shares
    >>> relevant_item_group_shares(
    ...     [1, 1, 0, 1], groups=[0, 0, 0, 1], item_groups=["a", "b", "b", "a"]
    ... ).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    func = "relevant_item_group_shares"
    y = _floats(y_true, "y_true", func, "a numeric array")
    inputs = check_inputs(func, y, np.zeros(y.shape[0]), groups, None, None, host=True)
    alignment = _alignment(item_groups, inputs.y_true.shape[0], func)
    rel = inputs.y_true > 0
    g, m = inputs.n_groups, alignment.shape[1]
    cells = inputs.codes[rel][:, None].astype(np.intp) * m + np.arange(m)
    total = np.bincount(cells.ravel(), alignment[rel].ravel(), g * m).reshape(g, m)
    count = seg.segment_count(inputs.codes[rel], g)
    empty = (count == 0) | (total.sum(axis=1) <= 0)
    if empty.any():
        raise param_error(
            "y_true",
            func,
            "a relevant row with an item group in every query",
            f"none in query {inputs.group_ids[np.flatnonzero(empty)[0]].item()!r}",
            "Leave such queries out, or give their target yourself.",
        )
    return total / count[:, None]
