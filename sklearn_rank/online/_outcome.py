"""Credit assignment of interleaving experiments and the sign test."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._utils.params import param_error
from ._inputs import (
    check_clicks,
    check_log,
    check_no_unshown_clicks,
    check_same_length,
)
from ._interleave import Interleaving


@dataclass(frozen=True)
class InterleavingOutcome:
    """Wins, ties and losses of ranking A against B over groups.

    Attributes
    ----------
    per_group : ndarray of shape (n_groups,)
        +1 where A wins the group, -1 where B wins, 0 for a tie (groups without
        a click are ties), aligned with ``group_ids``.
    group_ids : ndarray of shape (n_groups,)
    wins, ties, losses : int
        Groups won by A, tied, won by B.
    no_click : int
        Groups without any click (counted among the ties).
    preference : float
        wins / (wins + losses): A's share of the decided groups (NaN if none).
    delta : float
        (wins + ties / 2) / n_groups - 1/2 (Chapelle et al., 2012).
    p_value : float
        Two-sided binomial sign test of wins among wins + losses against 1/2
        (``scipy.stats.binomtest``); ties are excluded. 1.0 without a decided
        group.
    """

    per_group: np.ndarray
    group_ids: np.ndarray
    wins: int
    ties: int
    losses: int
    no_click: int
    preference: float
    delta: float
    p_value: float


def interleaving_outcome(
    clicks: ArrayLike,
    interleaved: Interleaving,
    *,
    groups: ArrayLike,
    marginalize: bool = False,
) -> InterleavingOutcome:
    """Credit clicks on interleaved lists to the two rankings, per group and overall.

    - team-draft and probabilistic: each ranking gets the clicks on its team's
      rows; the one with more clicked rows wins the group (Radlinski et al.,
      2008; for probabilistic interleaving, the credit of the observed
      assignment);
    - probabilistic with ``marginalize=True`` (Hofmann et al., 2011): the
      outcome of a group is the expectation of sign(clicks_A − clicks_B) over the
      assignments of rows to rankings that could have produced the list, given
      the list. Each row's assignment is independent given the list, with
      P(A | list) = p_A / (p_A + p_B), p_j the probability that ranking j would
      have drawn that row at that position; the outcome is a number in [-1, 1]
      with less variance than the observed assignment's sign.
    - balanced: with l the lowest clicked position of the list and c the
      higher of the item's ranks in A and B, min(rank_a, rank_b), each ranking
      gets the clicks on its own top c items; more wins (Joachims, 2002).

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks per row, e.g. from :func:`simulate_clicks` with
        ``position=interleaved.position``.
    interleaved : Interleaving
        The result of :func:`interleave` on the same rows.
    groups : array-like of shape (n_samples,)
        The groups passed to :func:`interleave`.
    marginalize : bool, default=False
        Probabilistic interleaving only: marginalise the credit over the
        assignments (``per_group`` is then a float in [-1, 1]; wins and losses
        count its sign, and the sign test runs on them).

    Returns
    -------
    outcome : InterleavingOutcome

    Examples
    --------
    >>> from sklearn_rank.online import interleave, interleaving_outcome
    >>> r = interleave([3, 2, 1], [2, 1, 3], groups=[0, 0, 0], random_state=1)
    >>> out = interleaving_outcome([0, 0, 1], r, groups=[0, 0, 0])
    >>> out.wins, out.ties, out.losses, out.p_value  # B's item z was clicked
    (0, 0, 1, 1.0)
    """
    func = "interleaving_outcome"
    if not isinstance(interleaved, Interleaving):
        raise param_error(
            "interleaved",
            func,
            "the Interleaving returned by interleave",
            type(interleaved).__name__,
        )
    c = check_clicks(clicks, func)
    n = check_same_length(func, clicks=c, position=interleaved.position)
    log = check_log(func, groups, n=n)
    if not np.array_equal(log.codes, interleaved.codes):
        raise ValueError(
            f"groups in {func} differ from the groups passed to interleave; pass the "
            "same rows in the same order."
        )
    pos = interleaved.position
    check_no_unshown_clicks(c, pos, func)
    g, n_groups = log.codes, log.n_groups
    clicked = c > 0
    if marginalize and interleaved.method != "probabilistic":
        raise param_error(
            "marginalize",
            func,
            'False unless the interleaving is method="probabilistic"',
            marginalize,
        )
    if marginalize:
        per_group = _marginalized(c, interleaved, g, n_groups)
        credit_a = credit_b = None
    elif interleaved.method in ("team_draft", "probabilistic"):
        team_a = interleaved.team == "a"
        credit_a = log.group_sum(c * team_a)
        credit_b = log.group_sum(c * (~team_a & (pos > 0)))
    else:
        credit_a, credit_b = _balanced_credit(clicked, interleaved, g, n_groups)
    if credit_a is not None:
        per_group = np.sign(credit_a - credit_b).astype(np.int64)
    wins = int((per_group > 0).sum())
    losses = int((per_group < 0).sum())
    ties = n_groups - wins - losses
    no_click = int((log.group_count(clicked) == 0).sum())
    decided = wins + losses
    if decided:
        from scipy.stats import binomtest

        p_value = float(binomtest(wins, decided, 0.5).pvalue)
    else:
        p_value = 1.0
    return InterleavingOutcome(
        per_group,
        log.group_ids,
        wins,
        ties,
        losses,
        no_click,
        wins / decided if decided else float("nan"),
        (wins + ties / 2) / n_groups - 0.5,
        p_value,
    )


def _balanced_credit(clicked, interleaved, g, n_groups):
    pos = interleaved.position
    big = np.iinfo(np.int64).max
    ra = np.where(interleaved.rank_a > 0, interleaved.rank_a, big)
    rb = np.where(interleaved.rank_b > 0, interleaved.rank_b, big)
    last = seg.segment_max(g[clicked], pos[clicked], n_groups, 0.0).astype(np.int64)
    at_last = clicked & (pos == last[g])
    cut = np.zeros(n_groups, dtype=np.int64)
    cut[g[at_last]] = np.minimum(ra, rb)[at_last]
    credit_a = seg.segment_sum(g, (clicked & (ra <= cut[g])).astype(float), n_groups)
    credit_b = seg.segment_sum(g, (clicked & (rb <= cut[g])).astype(float), n_groups)
    return credit_a, credit_b


def _marginalized(c, interleaved, g, n_groups) -> np.ndarray:
    """E[sign(clicks_A - clicks_B) | list] per group (Hofmann et al., 2011)."""
    pos = interleaved.position
    shown = np.flatnonzero(pos > 0)
    order = shown[np.lexsort((pos[shown], g[shown]))]  # group, then position
    go = g[order]
    p = []
    for rank in (interleaved.rank_a, interleaved.rank_b):
        w_all = np.where(rank > 0, np.maximum(rank, 1) ** -interleaved.tau, 0.0)
        total = seg.segment_sum(g, w_all, n_groups)
        w = w_all[order]
        before = seg.exclusive_cumsum(w, go, _starts(go, n_groups), n_groups)
        left = total[go] - before
        with np.errstate(invalid="ignore", divide="ignore"):
            p.append(np.where(left > 1e-300, w / left, 0.0))
    # P(row assigned to A | list): each ranking is chosen with probability 1/2
    # when both have items left, so the prior cancels
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(p[0] + p[1] > 0, p[0] / (p[0] + p[1]), 0.5)
    hit = c[order] > 0
    qh, gh = q[hit], go[hit]
    n_hit = seg.segment_count(gh, n_groups)
    most = int(n_hit.max()) if n_hit.size else 0
    # distribution of the number of clicks credited to A: one convolution per
    # clicked row, all groups at once
    dist = np.zeros((n_groups, most + 1))
    dist[:, 0] = 1.0
    nth = np.arange(gh.size) - _starts(gh, n_groups)[gh]
    for j in range(most):
        rows = nth == j
        grp, qq = gh[rows], qh[rows]
        old = dist[grp]
        new = old * (1 - qq)[:, None]
        new[:, 1:] += old[:, :-1] * qq[:, None]
        dist[grp] = new
    diff = 2 * np.arange(most + 1)[None, :] - n_hit[:, None]
    return (dist * np.sign(diff)).sum(axis=1)


def _starts(sorted_codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Start of each group's run in group-sorted codes."""
    size = seg.segment_count(sorted_codes, n_groups)
    start = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(size[:-1], out=start[1:])
    return start
