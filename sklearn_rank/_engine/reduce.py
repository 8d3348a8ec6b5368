"""From one value per group to one number: the undefined-group rule and weights."""

from __future__ import annotations

import warnings

import numpy as np

from .segments import array_namespace, flatnonzero

_SHOWN_IDS = 5


def apply_undefined(
    values: np.ndarray,
    defined: np.ndarray,
    undefined: str | float,
    metric: str,
    group_ids: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the values to average and the mask of groups that enter the mean."""
    if undefined == "skip":
        return values, defined
    xp = array_namespace(values)
    if undefined == "raise":
        if not bool(xp.all(defined)):
            bad = flatnonzero(~defined)
            n_bad, n = bad.shape[0], defined.shape[0]
            if isinstance(bad, np.ndarray):
                bad_ids = group_ids[bad]
            else:  # another namespace: the ids the message shows, on the host
                shown_rows = [int(i) for i in bad[: min(_SHOWN_IDS, n_bad)]]
                bad_ids = np.asarray([_scalar(group_ids[i]) for i in shown_rows])
            shown = ", ".join(repr(g) for g in bad_ids[:_SHOWN_IDS].tolist())
            more = ", ..." if n_bad > _SHOWN_IDS else ""
            error = ValueError(
                f"{metric} is undefined for {n_bad} of {n} groups "
                f"(ids {shown}{more}): they have no relevant item (for AUC: a single "
                "class). Pass undefined='skip' to leave them out of the mean, or a "
                "float such as undefined=0.0 to score them."
            )
            # For front ends that name the groups in their own terms (the command
            # line maps its integer codes back to query ids).
            error.undefined_groups = (metric, bad_ids, n)
            raise error
        return values, defined
    return xp.where(defined, values, float(undefined)), xp.ones_like(defined)


def _scalar(x: object) -> object:
    """A Python number from a 0-d array of any namespace (or the value itself)."""
    if isinstance(x, (int, float, str, np.generic)):
        return x
    xp = array_namespace(x)
    return int(x) if xp.isdtype(x.dtype, "integral") else float(x)


# Above this many groups the mean gathers by positions (see weighted_mean).
_GATHER_FROM = 4096


def weighted_mean(
    values: np.ndarray, include: np.ndarray, weight: np.ndarray, metric: str
) -> float:
    """Weighted mean over the included groups; NaN with a warning if none."""
    xp = array_namespace(values)
    if not bool(xp.any(include)):
        # scikit-learn's own warning class, imported here so that importing the
        # engine does not import scikit-learn.
        from sklearn.exceptions import UndefinedMetricWarning

        warnings.warn(
            f"{metric} is undefined for every group (no group has a relevant item; "
            "for AUC, none has both classes); returning NaN. Check y_true and "
            "relevance_threshold, or pass undefined=0.0 to score such groups.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    # Large inputs: positions, then gathers (a boolean index over a random mask
    # branches per element); small ones: the boolean index, which costs fewer
    # calls. Both pick the same values in the same order. The dot product is the
    # one sklearn_rank.stats uses, so that its means equal these to the last bit.
    if xp is not np:  # in the inputs' namespace: masked sums, one number back
        w = xp.where(include, weight, 0.0)
        total = float(xp.sum(w))
        if total <= 0:
            raise _zero_weight(metric)
        return float(xp.sum(w * xp.where(include, values, 0.0))) / total
    if include.size > _GATHER_FROM:
        rows = np.flatnonzero(include)
        w, values = weight.take(rows), values.take(rows)
    else:
        w, values = weight[include], values[include]
    total = w.sum()
    if total <= 0:
        raise _zero_weight(metric)
    return float(np.dot(w, values) / total)


def _zero_weight(metric: str) -> ValueError:
    return ValueError(
        f"sample_weight sums to zero over the groups that enter {metric}; give "
        "at least one of them a positive weight."
    )
