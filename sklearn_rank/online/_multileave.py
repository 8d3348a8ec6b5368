"""Team-draft multileaving of n rankings and its outcome, and interleaving of two
ranked lists of document ids."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.group_codes import encode_groups
from .._utils.params import Interval, IsNone, StrOptions, param_error, validate_params
from ._inputs import (
    check_clicks,
    check_log,
    check_no_unshown_clicks,
    check_random_state,
    check_same_length,
    rank_within_groups,
    show_id,
)
from ._interleave import METHODS, Interleaving, _skip_used, interleave


@dataclass(frozen=True)
class Multileaving:
    """A multileaved list per group (the result of :func:`multileave`).

    Attributes
    ----------
    position : ndarray of shape (n_samples,)
        1-based position in the group's list; 0 where not shown.
    team : ndarray of int of shape (n_samples,)
        The ranker (column of ``scores``) that contributed the row; -1 if not
        shown.
    n_rankers : int
    codes : ndarray
        Group code of each row, to check the groups of
        :func:`multileaving_outcome`.
    """

    position: np.ndarray
    team: np.ndarray
    n_rankers: int
    codes: np.ndarray


@validate_params(
    {
        "k": [Interval(numbers.Integral, 1, None, closed="left"), IsNone()],
    }
)
def multileave(
    scores: ArrayLike,
    *,
    groups: ArrayLike,
    k: int | None = None,
    random_state: Any = None,
) -> Multileaving:
    """Team-draft multileaving of n rankings (Schuth et al., 2014).

    In each round the rankers take turns in a random order (drawn per group and
    round); on its turn a ranker appends its highest-ranked item not yet in the
    list, which joins its team. Ties within a ranking are broken at random
    (``random_state``).

    Parameters
    ----------
    scores : array-like of shape (n_samples, n_rankers)
        Column j: the scores of ranker j (descending = better); every ranker
        scores every row.
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    k : int, default=None
        Length of each list; None shows every item.
    random_state : None, int, RandomState or Generator, default=None

    Returns
    -------
    multileaved : Multileaving

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.online import multileave
    >>> s = np.array([[3, 1, 2], [2, 3, 1], [1, 2, 3]])  # 3 items x 3 rankers
    >>> r = multileave(s, groups=[0, 0, 0], random_state=0)
    >>> sorted(r.team.tolist()), sorted(r.position.tolist())  # one item each
    ([0, 1, 2], [1, 2, 3])
    """
    func = "multileave"
    arr = np.asarray(scores)
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.dtype.kind not in "biuf":
        raise param_error(
            "scores",
            func,
            "a numeric array of shape (n_samples, n_rankers) with n_rankers >= 2",
            f"an array of shape {arr.shape} and dtype {arr.dtype}",
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        i, j = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"scores in {func} must be finite (every ranker scores every row); got "
            f"{arr[i, j]!r} at row {i}, ranker {j}."
        )
    n, m = arr.shape
    log = check_log(func, groups, n=n)
    rng = check_random_state(random_state, func)
    codes, n_groups = log.codes, log.n_groups
    size = log.group_count()
    start = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(size[:-1], out=start[1:])
    orders = []
    for j in range(m):
        _, order = rank_within_groups(codes, arr[:, j], n_groups, rng.permutation(n))
        orders.append(order)
    # ranker j's list of group g: order_cat[start_cat[g * m + j] + i]
    order_cat = np.concatenate(orders)
    start_cat = (start[:, None] + n * np.arange(m)[None, :]).ravel()
    len_cat = np.repeat(size, m)
    limit = size if k is None else np.minimum(size, int(k))
    position = np.zeros(n, dtype=np.int64)
    team = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    ptr = np.zeros(n_groups * m, dtype=np.int64)
    placed = np.zeros(n_groups, dtype=np.int64)
    turns = np.zeros((n_groups, m), dtype=np.int64)
    act = np.flatnonzero(limit > 0)
    while act.size:
        slot = placed[act] % m
        new_round = act[slot == 0]
        turns[new_round] = np.argsort(rng.random((new_round.size, m)), axis=1)
        who = turns[act, slot]
        idx = act * m + who
        _skip_used(ptr, order_cat, start_cat, len_cat, used, idx)
        row = order_cat[start_cat[idx] + ptr[idx]]
        used[row] = True
        placed[act] += 1
        position[row] = placed[act]
        team[row] = who
        act = act[placed[act] < limit[act]]
    return Multileaving(position, team, m, codes)


@dataclass(frozen=True)
class MultileavingOutcome:
    """Pairwise outcome of a multileaving experiment.

    Attributes
    ----------
    credit : ndarray of shape (n_groups, n_rankers)
        Clicks on each ranker's team, per group (aligned with ``group_ids``).
    group_ids : ndarray of shape (n_groups,)
    wins : ndarray of int of shape (n_rankers, n_rankers)
        ``wins[i, j]``: groups where ranker i got more clicks than ranker j.
    preference : ndarray of shape (n_rankers, n_rankers)
        wins[i, j] / (wins[i, j] + wins[j, i]) (NaN where no group decides).
    p_value : ndarray of shape (n_rankers, n_rankers)
        Two-sided binomial sign test of wins[i, j] among the decided groups
        (``scipy.stats.binomtest``), unadjusted for the n(n-1)/2 comparisons; 1
        on the diagonal and where no group decides.
    """

    credit: np.ndarray
    group_ids: np.ndarray
    wins: np.ndarray
    preference: np.ndarray
    p_value: np.ndarray


def multileaving_outcome(
    clicks: ArrayLike, multileaved: Multileaving, *, groups: ArrayLike
) -> MultileavingOutcome:
    """Credit clicks on multileaved lists to the rankers' teams; pairwise tests.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.online import multileave, multileaving_outcome
    >>> s = np.array([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    >>> r = multileave(s, groups=[0, 0, 0], random_state=0)
    >>> out = multileaving_outcome((r.team == 2).astype(int), r, groups=[0, 0, 0])
    >>> out.wins[2].tolist()  # ranker 2's item was clicked: it beats 0 and 1
    [1, 1, 0]
    """
    from scipy.stats import binomtest

    func = "multileaving_outcome"
    if not isinstance(multileaved, Multileaving):
        raise param_error(
            "multileaved",
            func,
            "the Multileaving returned by multileave",
            type(multileaved).__name__,
        )
    c = check_clicks(clicks, func)
    n = check_same_length(func, clicks=c, position=multileaved.position)
    log = check_log(func, groups, n=n)
    if not np.array_equal(log.codes, multileaved.codes):
        raise ValueError(
            f"groups in {func} differ from the groups passed to multileave; pass the "
            "same rows in the same order."
        )
    check_no_unshown_clicks(c, multileaved.position, func)
    m, g = multileaved.n_rankers, log.codes
    shown = multileaved.team >= 0
    key = g[shown] * m + multileaved.team[shown]
    credit = seg.segment_sum(key, c[shown], log.n_groups * m).reshape(-1, m)
    wins = (credit[:, :, None] > credit[:, None, :]).sum(axis=0)
    decided = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        preference = np.where(decided > 0, wins / decided, np.nan)
    p = np.ones((m, m))
    for i in range(m):
        for j in range(m):
            if i != j and decided[i, j]:
                p[i, j] = binomtest(int(wins[i, j]), int(decided[i, j])).pvalue
    return MultileavingOutcome(credit, log.group_ids, wins, preference, p)


@dataclass(frozen=True)
class IdInterleaving:
    """The result of :func:`interleave_ids`: one row per (group, document) of
    the union of the two lists, and the interleaving of those rows.

    Attributes
    ----------
    groups, doc_id : ndarray of shape (n_rows,)
        The group and document of each row (groups sorted, documents in their
        first appearance in list A then list B).
    interleaved : Interleaving
        ``.position`` and ``.team`` of each row; pass it with
        ``groups=result.groups`` to :func:`interleaving_outcome`.
    """

    groups: np.ndarray
    doc_id: np.ndarray
    interleaved: Interleaving


@validate_params(
    {
        "method": [StrOptions(*METHODS)],
    }
)
def interleave_ids(
    docs_a: ArrayLike,
    docs_b: ArrayLike,
    *,
    groups_a: ArrayLike,
    groups_b: ArrayLike,
    method: str = "team_draft",
    k: int | None = None,
    random_state: Any = None,
) -> IdInterleaving:
    """Interleave two ranked lists of document ids per group.

    ``docs_a`` lists ranking A's documents, best first within each group (the
    rows of a group in rank order; groups in any order), with ``groups_a``; the
    same for B. A document may be in one list only. The union of the lists
    becomes one row per (group, document), ranked by each list's order (absent:
    not ranked), and :func:`interleave` does the rest.

    Examples
    --------
    >>> from sklearn_rank.online import interleave_ids
    >>> r = interleave_ids(["x", "y", "z"], ["z", "x", "w"],
    ...                    groups_a=[1, 1, 1], groups_b=[1, 1, 1], random_state=1)
    >>> r.doc_id.tolist(), r.interleaved.position.tolist()
    (['x', 'y', 'z', 'w'], [2, 3, 1, 4])
    """
    func = "interleave_ids"
    da, db = np.asarray(docs_a), np.asarray(docs_b)
    if da.ndim != 1 or db.ndim != 1:
        raise param_error("docs_a", func, "1-d arrays of document ids", da.shape)
    na, nb = da.size, db.size
    ga_codes, ga_ids = encode_groups(groups_a, na, func)
    gb_codes, gb_ids = encode_groups(groups_b, nb, func)
    all_codes, group_ids = encode_groups(
        np.concatenate([ga_ids[ga_codes], gb_ids[gb_codes]]), na + nb, func
    )
    doc_codes, doc_ids = encode_groups(np.concatenate([da, db]), na + nb, func)
    n_docs = doc_ids.size
    key = all_codes.astype(np.int64) * n_docs + doc_codes
    for part, name in ((key[:na], "docs_a"), (key[na:], "docs_b")):
        uniq, count = np.unique(part, return_counts=True)
        if (count > 1).any():
            dup = uniq[count > 1][0]
            raise ValueError(
                f"{name} in {func} lists document {show_id(doc_ids[dup % n_docs])} "
                f"twice in group {show_id(group_ids[dup // n_docs])}; each list "
                "ranks a document once."
            )
    rows, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    # rows in group order, documents by first appearance (A before B)
    order = np.lexsort((first, rows // n_docs))
    rows, inverse_sorted = rows[order], np.argsort(order)[inverse]
    n_rows = rows.size
    rank_in = []
    for part in (slice(0, na), slice(na, na + nb)):
        within = _place_in_group(all_codes[part], group_ids.size)
        score = np.full(n_rows, np.nan)
        score[inverse_sorted[part]] = -within.astype(np.float64)
        rank_in.append(score)
    groups = group_ids[rows // n_docs]
    result = interleave(
        rank_in[0], rank_in[1], groups=groups, method=method, k=k,
        random_state=random_state,
    )  # fmt: skip
    return IdInterleaving(groups, doc_ids[rows % n_docs], result)


def _place_in_group(codes: np.ndarray, n_groups: int) -> np.ndarray:
    """0-based place of each row among the rows of its group, in input order."""
    order = np.argsort(codes, kind="stable")
    size = seg.segment_count(codes, n_groups)
    start = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(size[:-1], out=start[1:])
    place = np.empty(codes.size, dtype=np.int64)
    place[order] = np.arange(codes.size) - np.repeat(start, size)
    return place
