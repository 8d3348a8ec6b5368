"""Team-draft and balanced interleaving of two rankings, all groups at once.

The algorithms run one step for every unfinished group at a time (numpy passes
over the active groups): the number of passes is the length of the longest
interleaved list, never the number of groups.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._utils.params import Interval, IsNone, StrOptions, validate_params
from ._inputs import (
    check_log,
    check_random_state,
    check_same_length,
    rank_within_groups,
    to_1d,
)

METHODS = ("team_draft", "balanced", "probabilistic")


@dataclass(frozen=True)
class Interleaving:
    """An interleaved list per group (the result of :func:`interleave`).

    Attributes
    ----------
    position : ndarray of shape (n_samples,)
        1-based position of each row in its group's interleaved list; 0 where
        the row is not shown (below ``k``).
    team : ndarray of str of shape (n_samples,)
        ``"a"`` or ``"b"``: the ranking that contributed the row (team-draft:
        its team; balanced: the list it was taken from); ``""`` if not shown.
    rank_a, rank_b : ndarray of shape (n_samples,)
        1-based rank of each row in ranking A and B; 0 where absent (NaN score).
    method : str
    codes : ndarray
    tau : float
        The rank exponent of ``"probabilistic"``.
        Group code of each row (sorted group ids), to check the groups of
        :func:`interleaving_outcome`.
    """

    position: np.ndarray
    team: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    method: str
    codes: np.ndarray
    tau: float = 3.0


def _ranking(score: Any, name: str, func: str, codes, n_groups, tiebreak=None):
    """Ranks (0 = absent) and the rows of each group's list, group-major."""
    arr = to_1d(score, name, func)
    try:
        s = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} in {func} must be numeric (NaN = not ranked)."
        ) from None
    absent = np.isnan(s)
    if np.isinf(s).any():
        raise ValueError(
            f"{name} in {func} contains infinite values; use NaN for "
            "rows the ranking does not hold."
        )
    filled = np.where(absent, -np.inf, s)
    rank, order = rank_within_groups(codes, filled, n_groups, tiebreak)
    rank[absent] = 0
    order = order[~absent[order]]
    length = seg.segment_count(codes[order], n_groups)
    start = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    return rank, order, start, length


@validate_params(
    {
        "method": [StrOptions(*METHODS)],
        "k": [Interval(numbers.Integral, 1, None, closed="left"), IsNone()],
        "tau": [Interval(numbers.Real, 0, None, closed="left")],
        "ties": [StrOptions("row_order", "random")],
    }
)
def interleave(
    score_a: ArrayLike,
    score_b: ArrayLike,
    *,
    groups: ArrayLike,
    method: str = "team_draft",
    k: int | None = None,
    tau: float = 3.0,
    ties: str = "row_order",
    random_state: Any = None,
) -> Interleaving:
    """Interleave two rankings of every group into one list.

    Rows are the union of both rankings' items per group; each ranking orders
    its items by descending score (NaN: the ranking does not hold the item; ties
    by row order, or at random with ``ties="random"``).

    - ``"team_draft"`` (Radlinski et al., 2008): the team with fewer picks so
      far, or a coin flip when both have as many, appends its highest-ranked
      item not yet in the list; the item joins that team. When one ranking has
      nothing left, the other picks.
    - ``"balanced"`` (Joachims, 2002): with pointers i, j into A and B and a
      coin flip per group deciding which list leads, take from A when i < j (or
      i == j and A leads), else from B; the item is appended unless already in
      the list, and the pointer moves on either way.
    - ``"probabilistic"`` (Hofmann et al., 2011): each ranking becomes a
      distribution over its items, P(d) ∝ 1 / rank(d)^``tau``; at each position a
      coin flip picks a ranking, which draws an item not yet in the list from its
      distribution renormalised over those items; the item joins that ranking's
      team. Every item has a chance at every position, which gives the method its
      fidelity where team-draft cannot tell two rankings apart. Credit (in
      :func:`interleaving_outcome`) is by team, as team-draft's.

    Parameters
    ----------
    score_a, score_b : array-like of shape (n_samples,)
        Scores of the two rankers (NaN = item not in that ranking).
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    method : {"team_draft", "balanced", "probabilistic"}, default="team_draft"
    k : int, default=None
        Length of each interleaved list; None shows every item.
    tau : float, default=3.0
        The rank exponent of ``"probabilistic"`` (ignored otherwise).
    ties : {"row_order", "random"}, default="row_order"
        Order of equal scores within a ranking: the rows' order, or a random
        order drawn from ``random_state`` (one draw for both rankings).
    random_state : None, int, RandomState or Generator, default=None
        Seed of the coin flips.

    Returns
    -------
    interleaved : Interleaving
        ``.position`` and ``.team`` per row.

    Examples
    --------
    A ranks items x, y, z; B ranks z, x, y. With team-draft, B wins the first
    coin flip here and takes z, A (now behind) takes x, and A wins the second
    coin flip and takes y:

    >>> from sklearn_rank.online import interleave
    >>> r = interleave([3, 2, 1], [2, 1, 3], groups=[0, 0, 0], random_state=1)
    >>> r.position, r.team
    (array([2, 3, 1]), array(['a', 'a', 'b'], dtype='<U1'))
    """
    func = "interleave"
    a = to_1d(score_a, "score_a", func)
    b = to_1d(score_b, "score_b", func)
    n = check_same_length(func, score_a=a, score_b=b)
    log = check_log(func, groups, n=n)
    rng = check_random_state(random_state, func)
    codes, n_groups = log.codes, log.n_groups
    tiebreak = rng.permutation(n) if ties == "random" else None
    rank_a, order_a, start_a, len_a = _ranking(
        a, "score_a", func, codes, n_groups, tiebreak
    )
    rank_b, order_b, start_b, len_b = _ranking(
        b, "score_b", func, codes, n_groups, tiebreak
    )
    neither = (rank_a == 0) & (rank_b == 0)
    if neither.any():
        raise ValueError(
            f"Row {np.flatnonzero(neither)[0]} in {func} is in neither ranking (both "
            "scores NaN); drop the rows that neither ranker returns."
        )
    items = log.group_count()
    limit = items if k is None else np.minimum(items, int(k))
    lists = (order_a, start_a, len_a, order_b, start_b, len_b)
    if method == "probabilistic":
        ranks = (rank_a, rank_b)
        position, from_a = _probabilistic(ranks, codes, limit, n_groups, tau, rng)
    else:
        step = _team_draft if method == "team_draft" else _balanced
        position, from_a = step(lists, limit, n, n_groups, rng)
    team = np.full(n, "", dtype="<U1")
    team[position > 0] = np.where(from_a[position > 0], "a", "b")
    return Interleaving(position, team, rank_a, rank_b, method, codes, float(tau))


def _skip_used(ptr, order, start, length, used, act):
    """Move each active group's pointer past items already in its list."""
    idx = act
    while idx.size:
        p = ptr[idx]
        live = p < length[idx]
        idx, p = idx[live], p[live]
        busy = used[order[start[idx] + p]]
        idx = idx[busy]
        ptr[idx] += 1


def _heads(from_a, act, ptr_a, ptr_b, lists):
    """The row under each active group's pointer, in A where ``from_a``, else B."""
    order_a, start_a, _, order_b, start_b, _ = lists
    row = np.empty(act.size, dtype=np.int64)
    ga, gb = act[from_a], act[~from_a]
    row[from_a] = order_a[start_a[ga] + ptr_a[ga]]
    row[~from_a] = order_b[start_b[gb] + ptr_b[gb]]
    return row


def _team_draft(lists, limit, n, n_groups, rng):
    order_a, start_a, len_a, order_b, start_b, len_b = lists
    position = np.zeros(n, dtype=np.int64)
    from_a = np.zeros(n, dtype=bool)
    used = np.zeros(n, dtype=bool)
    ptr_a = np.zeros(n_groups, dtype=np.int64)
    ptr_b = np.zeros(n_groups, dtype=np.int64)
    count_a = np.zeros(n_groups, dtype=np.int64)
    count_b = np.zeros(n_groups, dtype=np.int64)
    placed = np.zeros(n_groups, dtype=np.int64)
    act = np.flatnonzero(limit > 0)
    while act.size:
        _skip_used(ptr_a, order_a, start_a, len_a, used, act)
        _skip_used(ptr_b, order_b, start_b, len_b, used, act)
        has_a = ptr_a[act] < len_a[act]
        has_b = ptr_b[act] < len_b[act]
        ca, cb = count_a[act], count_b[act]
        coin = rng.random(act.size) < 0.5
        pick_a = (ca < cb) | ((ca == cb) & coin)
        pick_a = (pick_a & has_a) | ~has_b
        row = _heads(pick_a, act, ptr_a, ptr_b, lists)
        used[row] = True
        placed[act] += 1
        position[row] = placed[act]
        from_a[row] = pick_a
        count_a[act] += pick_a
        count_b[act] += ~pick_a
        act = act[placed[act] < limit[act]]
    return position, from_a


def _balanced(lists, limit, n, n_groups, rng):
    _, _, len_a, _, _, len_b = lists
    position = np.zeros(n, dtype=np.int64)
    from_a = np.zeros(n, dtype=bool)
    used = np.zeros(n, dtype=bool)
    ptr_a = np.zeros(n_groups, dtype=np.int64)
    ptr_b = np.zeros(n_groups, dtype=np.int64)
    placed = np.zeros(n_groups, dtype=np.int64)
    a_leads = rng.random(n_groups) < 0.5
    act = np.flatnonzero(limit > 0)
    while act.size:
        pa, pb = ptr_a[act], ptr_b[act]
        has_a, has_b = pa < len_a[act], pb < len_b[act]
        take_a = (pa < pb) | ((pa == pb) & a_leads[act])
        take_a = (take_a & has_a) | ~has_b
        row = _heads(take_a, act, ptr_a, ptr_b, lists)
        ptr_a[act] += take_a
        ptr_b[act] += ~take_a
        new = ~used[row]
        g, r = act[new], row[new]
        used[r] = True
        placed[g] += 1
        position[r] = placed[g]
        from_a[r] = take_a[new]
        act = act[placed[act] < limit[act]]
    return position, from_a


def _probabilistic(ranks, codes, limit, n_groups, tau, rng):
    """Probabilistic interleaving: per position, a coin flip picks a ranking and a
    Gumbel-max draw picks an unused item with probability ∝ rank^-tau among that
    ranking's unused items (fresh noise per position, so each draw is from the
    renormalised distribution)."""
    n = codes.size
    logw = []
    for rank in ranks:
        with np.errstate(divide="ignore"):
            logw.append(np.where(rank > 0, -tau * np.log(np.maximum(rank, 1)), -np.inf))
    position = np.zeros(n, dtype=np.int64)
    from_a = np.zeros(n, dtype=bool)
    placed = np.zeros(n_groups, dtype=np.int64)
    left = [seg.segment_count(codes[rank > 0], n_groups) for rank in ranks]
    active = limit > 0
    rows = np.flatnonzero(active[codes])
    step = 0
    while rows.size:
        step += 1
        g = codes[rows]
        coin = rng.random(n_groups) < 0.5
        # a ranking with nothing left passes its turn to the other
        pick_a = (coin & (left[0] > 0)) | (left[1] == 0)
        key = np.where(pick_a[g], logw[0][rows], logw[1][rows])
        key = key - np.log(-np.log(rng.random(rows.size)))  # + Gumbel noise
        key[position[rows] > 0] = -np.inf
        best = seg.segment_max(g, key, n_groups, -np.inf)
        hit = (key == best[g]) & np.isfinite(key)
        win = rows[hit]
        _, first = np.unique(codes[win], return_index=True)  # one per group
        win = win[first]
        gw = codes[win]
        placed[gw] += 1
        position[win] = placed[gw]
        from_a[win] = pick_a[gw]
        for j, rank in enumerate(ranks):
            left[j][gw] -= rank[win] > 0
        done = placed >= limit
        rows = rows[~done[codes[rows]] & (position[rows] == 0)]
    return position, from_a
