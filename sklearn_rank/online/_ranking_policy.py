"""Off-policy estimates of a stochastic ranking policy from rankings logged by
another one: the independent IPS, the reward-interaction IPS and the cascade
doubly robust estimator of Kiyohara et al. (2022)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.reduce import weighted_mean
from .._metrics.validation import check_numeric
from .._utils.params import StrOptions, check_param, param_error
from ._inputs import (
    CI_METHODS,
    check_choice,
    check_level,
    check_log,
    check_position,
    check_random_state,
    check_resamples,
    check_same_length,
    check_unique_positions,
)
from ._ips import IPSEstimate, _interval, metric_discount, parse_metric

RANKING_ESTIMATORS = ("iips", "rips", "cascade_dr")

ESTIMAND = (
    "V(pi) = E_x E_{a ~ pi(.|x)} sum_k lambda(k) r_k: the target ranking policy's "
    "expected metric over the logged contexts"
)


def ranking_policy_estimate(
    rewards: ArrayLike,
    *,
    groups: ArrayLike,
    position: ArrayLike,
    logging_probability: ArrayLike,
    target_probability: ArrayLike,
    estimator: str = "rips",
    metric: str = "clicks",
    predicted_value: ArrayLike | None = None,
    expected_predicted_value: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    confidence_level: float | None = None,
    n_resamples: int = 9999,
    method: str = "BCa",
    random_state: Any = None,
) -> IPSEstimate:
    """Estimate a ranking policy's value from rankings logged by a stochastic one.

    Each group is one logged ranking a = (a_1, ..., a_K) of a context x, drawn
    by the logging policy π₀, with the reward r_k (e.g. a click) observed at
    each slot k = 1..K (rows: one per slot, ``position`` = k, every slot 1..K of
    a group present). The target policy π is a distribution over rankings too;
    its value is V(π) = E_x E_{a∼π(· | x)} Σ_k λ(k) r_k, λ the metric's weight
    of slot k. With the per-slot ratios below, the estimators of Kiyohara et
    al. (2022) are, per group (the estimate averages groups):

    - ``"iips"`` (independent IPS): V̂ = Σ_k λ(k) w_k r_k with
      w_k = π(a_k at k | x) / π₀(a_k at k | x), the **marginal** probabilities
      that the policy puts this item in slot k. Unbiased under the
      position-based (independence) model, where r_k depends on x and a_k only;
      biased when a click depends on the items above (cascade);
    - ``"rips"`` (reward-interaction IPS): V̂ = Σ_k λ(k) w_{1:k} r_k with
      w_{1:k} = Π_{l ≤ k} π(a_l | x, a_{1:l−1}) / π₀(a_l | x, a_{1:l−1}), the
      product of the **conditional** ratios of the slots up to and including k
      (= π(a_{1:k} | x) / π₀(a_{1:k} | x)). Unbiased under the cascade
      assumption (r_k depends on x and a_{1:k} only; this includes the
      position-based model), at more variance than IIPS;
    - ``"cascade_dr"`` (cascade doubly robust): V̂ = Σ_k [w_{1:k} (λ(k) r_k −
      Q̂_k(x, a_{1:k})) + w_{1:k−1} E_{a′∼π(· | x, a_{1:k−1})} Q̂_k(x, a_{1:k−1},
      a′)] with w_{1:0} = 1, Q̂_k = ``predicted_value`` and the expectation
      ``expected_predicted_value``. Unbiased under the cascade assumption for
      **any** Q̂ when the probabilities are right (the model's terms cancel in
      expectation; it is not "unbiased if either model is right": wrong
      probabilities bias it however good Q̂). Its variance is smallest when
      Q̂_k(x, a_{1:k}) = E_π[Σ_{l ≥ k} λ(l) r_l | x, a_{1:k}] (the recursive
      Q-function of the paper); a per-slot model λ(k) q̂(x, a_{1:k}) also works.

    Parameters
    ----------
    rewards : array-like of shape (n_samples,)
        The reward observed at each logged slot (0/1 clicks or any number).
    groups : array-like of shape (n_samples,)
        The id of the logged ranking (context) of each row.
    position : array-like of shape (n_samples,)
        The 1-based slot k of each row; each group holds slots 1..K_g once each.
    logging_probability : array-like of shape (n_samples,)
        π₀ of the row's item, in (0, 1]: with ``"iips"`` the marginal
        π₀(a_k at k | x); with ``"rips"`` and ``"cascade_dr"`` the conditional
        π₀(a_k | x, a_{1:k−1}) given the items logged above it (for a
        Plackett-Luce policy: the item's weight over the weights of the items
        not yet placed).
    target_probability : array-like of shape (n_samples,)
        π of the same item, in [0, 1], in the same sense (marginal or
        conditional); 0/1 for a deterministic target ranking.
    estimator : {"iips", "rips", "cascade_dr"}, default="rips"
    metric : str, default="clicks"
        λ: ``"clicks@k"`` 1[slot <= k]; ``"dcg@k"`` 1[slot <= k] / log2(slot
        + 1); ``"rr_sum@k"`` 1[slot <= k] / slot (``@k`` optional).
    predicted_value : array-like of shape (n_samples,), default=None
        Q̂_k(x, a_{1:k}) of the logged prefix, on the scale of λ(k) r_k.
        Required by ``"cascade_dr"``.
    expected_predicted_value : array-like of shape (n_samples,), default=None
        Σ_{a′} π(a′ | x, a_{1:k−1}) Q̂_k(x, a_{1:k−1}, a′): the model's value of
        slot k when the target policy fills it after the logged prefix.
        Required by ``"cascade_dr"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights; a group weighs its rows' mean weight.
    confidence_level : float, default=None
        When given, a bootstrap interval over groups at this level.
    n_resamples : int, default=9999
    method : {"BCa", "percentile"}, default="BCa"
    random_state : None, int, RandomState or Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    estimate : IPSEstimate
        ``.value``, ``.per_group``, ``.ci``, ``.standard_error``, ``.estimand``.

    See Also
    --------
    ips_estimate : A deterministic new ranking from clicks logged on another
        one, with examination propensities per position.

    References
    ----------
    H. Kiyohara, Y. Saito, T. Matsuhiro, Y. Narita, N. Shimizu and
    Y. Yamamoto. Doubly Robust Off-Policy Evaluation for Ranking Policies under
    the Cascade Behavior Model. WSDM 2022.

    Examples
    --------
    One logged ranking of two slots, both clicked; π₀ chose the top item with
    probability 0.5 and then the other with 1; π would choose them with 0.8 and
    1, so w_1 = 1.6 and w_{1:2} = 1.6:

    >>> from sklearn_rank.online import ranking_policy_estimate
    >>> ranking_policy_estimate([1, 1], groups=[0, 0], position=[1, 2],
    ...                         logging_probability=[0.5, 1.0],
    ...                         target_probability=[0.8, 1.0]).value
    3.2
    """
    func = "ranking_policy_estimate"
    check_param(estimator, "estimator", func, (StrOptions(*RANKING_ESTIMATORS),))
    name, k = parse_metric(metric, func)
    r = check_numeric(rewards, "rewards", func)
    pos = check_position(position, func, unshown=False)
    p0 = check_numeric(logging_probability, "logging_probability", func)
    p1 = check_numeric(target_probability, "target_probability", func)
    n = check_same_length(
        func, rewards=r, position=pos, logging_probability=p0, target_probability=p1
    )
    _check_probability(p0, "logging_probability", func, zero=False)
    _check_probability(p1, "target_probability", func, zero=True)
    q, v = _check_model(estimator, predicted_value, expected_predicted_value, n, func)
    log = check_log(func, groups, n=n, position=pos, sample_weight=sample_weight)
    check_unique_positions(log, pos, func)
    _check_slots_from_top(log, pos, func)
    level = None if confidence_level is None else check_level(confidence_level, func)
    n_resamples = check_resamples(n_resamples, func)
    method = check_choice("method", func, method, CI_METHODS)
    rng = check_random_state(random_state, func)

    lam = metric_discount(name, k, pos, None, np.ones(1))
    ratio = p1 / p0
    if estimator == "iips":
        term = lam * ratio * r
    else:
        # rows by group, then slot: the prefix products are running products
        order = np.lexsort((pos, log.codes))
        upto = np.empty(n)
        upto[order] = seg.segment_cumprod(ratio[order], pos[order])
        if estimator == "rips":
            term = lam * upto * r
        else:
            before = np.ones(n)  # w_{1:k-1}; 1 at the top slot
            below = order[1:][pos[order[1:]] > 1]
            before[below] = upto[order[:-1]][pos[order[1:]] > 1]
            term = upto * (lam * r - q) + before * v
    per_group = log.group_sum(term)
    weights = log.group_weight()
    if not (weights > 0).any():
        raise ValueError(f"{func} has no group with a positive weight to average.")
    value = weighted_mean(per_group, np.ones(log.n_groups, bool), weights, func)
    ci, se = None, float("nan")
    if level is not None:  # the plain bootstrap over groups of ips_estimate
        fitted = (per_group, weights, np.ones(log.n_groups, bool))
        ci, se = _interval(None, None, None, fitted, value, level, n_resamples,
                           method, rng)  # fmt: skip
    return IPSEstimate(
        value, per_group, weights, log.group_ids, ci, se, metric, estimator, ESTIMAND
    )


def _check_probability(p: np.ndarray, name: str, func: str, *, zero: bool) -> None:
    bad = ~(((p >= 0) if zero else (p > 0)) & (p <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        lo = "[0" if zero else "(0"
        raise ValueError(
            f"{name} in {func} must hold probabilities in {lo}, 1]; got "
            f"{float(p[i])!r} at row {i}."
            + (
                ""
                if zero
                else " The logging policy must give every logged item a positive "
                "probability (a deterministic logger cannot be corrected by "
                "importance weights)."
            )
        )


def _check_model(estimator, q, v, n: int, func: str):
    if estimator != "cascade_dr":
        for arg, val in (("predicted_value", q), ("expected_predicted_value", v)):
            if val is not None:
                raise param_error(
                    arg,
                    func,
                    f'None with estimator="{estimator}" (it uses no model)',
                    "an array",
                    'Use estimator="cascade_dr" to use a reward model.',
                )
        return None, None
    out = []
    for arg, val in (("predicted_value", q), ("expected_predicted_value", v)):
        if val is None:
            raise param_error(
                arg,
                func,
                'one value per row with estimator="cascade_dr"',
                val,
                "Pass the reward model's Q̂_k of the logged prefix and its "
                "expectation under the target policy (see the docstring).",
            )
        arr = check_numeric(val, arg, func)
        out.append(arr)
    check_same_length(func, rewards=np.empty(n), predicted_value=out[0])
    check_same_length(func, rewards=np.empty(n), expected_predicted_value=out[1])
    return out[0], out[1]


def _check_slots_from_top(log, pos: np.ndarray, func: str) -> None:
    """Each group holds slots 1..K_g: the prefix of every slot is logged."""
    deepest = seg.segment_max(log.codes, pos.astype(np.float64), log.n_groups, 0.0)
    count = log.group_count()
    gap = deepest != count
    if gap.any():
        g = int(np.flatnonzero(gap)[0])
        raise ValueError(
            f"position in {func}: group {log.group_ids[g]!r} has {int(count[g])} "
            f"rows but slot {int(deepest[g])}; each logged ranking needs every slot "
            "from 1 down (the prefix products need the items above each slot)."
        )
