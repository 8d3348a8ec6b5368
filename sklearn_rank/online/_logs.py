"""Online metrics of impression logs: CTR, success, abandonment, clicks, RR."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._metrics.evaluate import GroupScores
from .._utils.params import param_error
from ._inputs import (
    check_clicks,
    check_log,
    check_no_unshown_clicks,
    check_position,
    check_same_length,
    check_unique_positions,
)

ONLINE_METRICS = (
    "ctr",
    "impression_ctr",
    "success",
    "abandonment",
    "clicks",
    "rr_first_click",
)
"""Names of the online metrics, in the order they are documented."""


def online_metrics_per_group(
    clicks: ArrayLike,
    *,
    groups: ArrayLike,
    position: ArrayLike,
    sample_weight: ArrayLike | None = None,
    metrics: str | Sequence[str] = ONLINE_METRICS,
) -> GroupScores:
    """Online metrics of each group (query or session) of an impression log.

    Per group g with shown rows S_g (position >= 1), clicks c and row weights w:

    - ``"ctr"``: Σ w c / Σ w over S_g (clicks per impression of the group);
      its mean weighs every group by its mean row weight (1 without weights);
    - ``"impression_ctr"``: the same value, weighted by Σ w over S_g, so its
      mean is the pooled CTR Σ w c / Σ w over all impressions;
    - ``"success"``: 1 if the group has a click, else 0 (the share of groups
      with a click); ``"abandonment"``: 1 - success;
    - ``"clicks"``: Σ c over S_g (clicks per group);
    - ``"rr_first_click"``: 1 / the position of the group's first (highest)
      click, 0 without a click.

    A group without a shown row is undefined (NaN) for every metric.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks of each impression.
    groups : array-like of shape (n_samples,)
        Query or session id of each row.
    position : array-like of shape (n_samples,)
        1-based position of the row in its shown list; 0 = not shown.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (e.g. session weights, repeated on the session's rows).
    metrics : str or sequence of str, default=all of them
        Names among ``ONLINE_METRICS``.

    Returns
    -------
    scores : GroupScores
        ``.group_ids``, ``.values[name]``, ``.weights[name]`` and ``.mean(name)``:
        the object :func:`sklearn_rank.stats.bootstrap_ci` and
        :func:`sklearn_rank.stats.compare` take (``y_true=None``).

    Examples
    --------
    >>> from sklearn_rank.online import online_metrics_per_group
    >>> s = online_metrics_per_group([0, 1, 0, 0, 0], groups=[1, 1, 1, 2, 2],
    ...                              position=[1, 2, 3, 1, 2])
    >>> s.values["ctr"], s.values["rr_first_click"], s.values["abandonment"]
    (array([0.33333333, 0.        ]), array([0.5, 0. ]), array([0., 1.]))
    """
    func = "online_metrics_per_group"
    names = _check_metrics(metrics, func)
    c = check_clicks(clicks, func)
    pos = check_position(position, func)
    n = check_same_length(func, clicks=c, position=pos)
    log = check_log(func, groups, n=n, position=pos, sample_weight=sample_weight)
    n_groups = log.n_groups
    shown = pos > 0
    check_no_unshown_clicks(c, pos, func)
    check_unique_positions(log, pos, func)
    if not shown.any():
        raise ValueError(
            f"position in {func} is 0 on every row: no impression was shown, so no "
            "online metric is defined. Give shown rows their 1-based position."
        )
    w = np.ones(n) if log.sample_weight is None else log.sample_weight
    w_shown = np.where(shown, w, 0.0)
    impressions = log.group_sum(w_shown)
    defined = log.group_count(shown) > 0
    clicked = log.group_sum(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        ctr = log.group_sum(w_shown * c) / impressions
    hit = c > 0
    first = seg.segment_min(
        log.codes[hit], pos[hit].astype(np.float64), n_groups, np.inf
    )
    rr = seg.divide(np.ones(n_groups), first, clicked > 0, 0.0)
    success = (clicked > 0).astype(np.float64)
    values = {
        "ctr": ctr,
        "impression_ctr": ctr,
        "success": success,
        "abandonment": 1.0 - success,
        "clicks": clicked,
        "rr_first_click": rr,
    }
    group_w = log.group_weight()
    out = GroupScores(log.group_ids)
    for name in names:
        out.values[name] = np.where(defined, values[name], np.nan)
        out.weights[name] = impressions if name == "impression_ctr" else group_w
    return out


def online_metrics(
    clicks: ArrayLike,
    *,
    groups: ArrayLike,
    position: ArrayLike,
    sample_weight: ArrayLike | None = None,
    metrics: str | Sequence[str] = ONLINE_METRICS,
) -> dict[str, float]:
    """Online metrics of an impression log, averaged over groups.

    The weighted mean over the groups with a shown row of
    :func:`online_metrics_per_group`'s values; see there for the definitions.

    Examples
    --------
    >>> from sklearn_rank.online import online_metrics
    >>> m = online_metrics([0, 1, 0, 0, 0], groups=[1, 1, 1, 2, 2],
    ...                    position=[1, 2, 3, 1, 2])
    >>> round(m["ctr"], 4), m["impression_ctr"], m["success"], m["clicks"]
    (0.1667, 0.2, 0.5, 0.5)
    """
    scores = online_metrics_per_group(
        clicks,
        groups=groups,
        position=position,
        sample_weight=sample_weight,
        metrics=metrics,
    )
    return {name: scores.mean(name) for name in scores.values}


@dataclass(frozen=True)
class PositionCTR:
    """CTR by position: ``ctr[i]`` over the impressions at ``position[i]``."""

    position: np.ndarray
    ctr: np.ndarray
    impressions: np.ndarray


def ctr_by_position(
    clicks: ArrayLike,
    *,
    position: ArrayLike,
    sample_weight: ArrayLike | None = None,
) -> PositionCTR:
    """Click-through rate at each position: Σ w c / Σ w over its impressions.

    Parameters
    ----------
    clicks : array-like of shape (n_samples,)
        0/1 clicks of each impression.
    position : array-like of shape (n_samples,)
        1-based shown position of each impression (0 is refused: drop the rows
        that were not shown; add 1 to 0-based positions).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    ctr : PositionCTR
        ``.position`` (the positions seen), ``.ctr`` and ``.impressions``.

    Examples
    --------
    >>> from sklearn_rank.online import ctr_by_position
    >>> r = ctr_by_position([1, 0, 1, 1, 0, 0], position=[1, 2, 3, 1, 2, 3])
    >>> r.position, r.ctr, r.impressions
    (array([1, 2, 3]), array([1. , 0. , 0.5]), array([2., 2., 2.]))
    """
    func = "ctr_by_position"
    c = check_clicks(clicks, func)
    pos = check_position(position, func, unshown=False)
    n = check_same_length(func, clicks=c, position=pos)
    log = check_log(func, pos - 1, n=n, sample_weight=sample_weight)
    w = np.ones(n) if log.sample_weight is None else log.sample_weight
    count = log.group_sum(w)
    click = log.group_sum(w * c)
    seen = count > 0
    return PositionCTR(log.group_ids[seen] + 1, click[seen] / count[seen], count[seen])


def _check_metrics(metrics, func: str) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    bad = [m for m in names if m not in ONLINE_METRICS]
    if bad or not names:
        raise param_error(
            "metrics", func, f"names among {list(ONLINE_METRICS)}", metrics
        )
    return names
