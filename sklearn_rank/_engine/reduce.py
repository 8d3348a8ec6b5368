"""From one value per group to one number: the one reduction module.

Every front-end (``evaluate``, segments, statistics, the online module, the command
line, Dask and Spark) reduces through these functions, so the undefined-group rule,
the weighted mean over groups and the geometric mean are written once:

- :func:`apply_undefined`: the ``undefined=`` rule on values with a mask of the
  groups where the metric is defined ("raise", "skip" or a fill value);
- :func:`fill_undefined`: the same rule on values that mark undefined groups NaN
  (the form of per-group results);
- :func:`weighted_sum`: the one weighted sum over groups (the same bits for
  a column alone or in a batch, on any number of BLAS threads);
- :func:`weighted_average`: the one weighted mean of values over groups;
- :func:`weighted_mean`: that mean over the included groups, NaN with a warning
  when no group is included;
- :func:`mean_over_groups`: the rule, then the mean (one call for a front-end);
- :func:`weighted_means_at_cutoffs`: the mean over groups at many cutoffs at once
  (the cutoff axis' table);
- :func:`geometric_mean`: trec_eval's ``gm_*`` summary (the exponential of the
  mean log of values floored at ``GEOMETRIC_FLOOR``);
- :func:`fill_weight`: the weight ``group_weight="relevant_mean"`` gives a group
  without a relevant row (in memory, and from the partial sums of Dask and Spark);
- :func:`group_counts`: per-group counts or sums of per-row values from group
  codes (host numpy; the engine's ``segments`` for other namespaces).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .segments import array_namespace, flatnonzero, to_floats

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
            error.undefined_groups = (metric, bad_ids, n)  # type: ignore[attr-defined]
            raise error
        return values, defined
    return xp.where(defined, values, float(undefined)), xp.ones_like(defined)


def _scalar(x: Any) -> object:
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
    if xp is not np:  # in the inputs' namespace: masked sums, one read back
        w = xp.where(include, weight, 0.0)
        sums = xp.stack([xp.sum(w), xp.sum(w * xp.where(include, values, 0.0))])
        total, weighted = to_floats(sums)
        if total > 0:
            return weighted / total
        # A total of 0: no group included (the warning) or zero weights (the error).
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
    # calls. Both pick the same values in the same order. The sum is
    # weighted_sum, the one sklearn_rank.stats uses: its means equal these to
    # the last bit.
    if xp is not np:
        raise _zero_weight(metric)
    if include.size > _GATHER_FROM:
        rows = np.flatnonzero(include)
        w, values = weight.take(rows), values.take(rows)
    else:
        w, values = weight[include], values[include]
    total = w.sum()
    if total <= 0:
        raise _zero_weight(metric)
    return weighted_average(values, w, total)


def weighted_sum(
    values: np.ndarray, weights: np.ndarray, axis: int = -1, *, scratch: bool = False
) -> Any:
    """``sum(w * v)`` along the groups' ``axis``: numpy's pairwise sum of the
    products along a contiguous last axis.

    The one weighted sum of the means over groups. Every row of a batch (many
    columns at once) gets the bits of the same row summed alone, whatever the
    batch's layout or the arrays' alignment; and it runs on the calling
    thread. A BLAS dot product does neither: OpenBLAS splits a long dot over
    its threads, so its last bit depends on the thread count (and a busy core
    stalls it), and its matrix-vector product sums in another order than its
    dot.

    ``scratch``: ``values`` is a C-contiguous array of the caller's own, and
    holds the products after (no second array of its size).
    """
    if scratch and axis in (-1, values.ndim - 1) and values.flags.c_contiguous:
        return np.add.reduce(np.multiply(values, weights, out=values), axis=-1)
    moved = np.moveaxis(np.asarray(values), axis, -1)
    return np.add.reduce(np.multiply(moved, weights, order="C"), axis=-1)


def weighted_average(
    values: np.ndarray, weights: np.ndarray, total: float | None = None
) -> float:
    """The weighted mean of per-group values, ``sum(w * v) / sum(w)``.

    The one formula every mean over groups uses (the statistics' resamples too),
    so that means computed by different front-ends agree to the last bit.
    ``total`` is ``sum(w)`` when the caller has it.
    """
    if total is None:
        total = weights.sum()
    return float(weighted_sum(values, weights) / total)


def weighted_averages(
    values: np.ndarray, weights: np.ndarray, axis: int = 0
) -> np.ndarray:
    """:func:`weighted_average` of many columns at once, along the groups' ``axis``.

    ``weights`` is 1-d over the groups (shared by every column) or of ``values``'
    shape (a weight per value). Each column's mean has the bits of
    :func:`weighted_average` of that column. Used by the bootstrap (the centre
    of the resamples) and the randomised Tukey test (every trial's system
    means).
    """
    if weights.ndim == 1:
        return weighted_sum(values, weights, axis) / weights.sum()
    w = np.moveaxis(weights, axis, -1)
    return weighted_sum(values, w, axis) / np.add.reduce(
        np.ascontiguousarray(w), axis=-1
    )


def mean_over_groups(
    values: np.ndarray,
    defined: np.ndarray,
    weight: np.ndarray,
    undefined: str | float,
    metric: str,
    group_ids: np.ndarray,
) -> float:
    """The undefined rule, then the weighted mean: one metric's value over groups."""
    values, include = apply_undefined(values, defined, undefined, metric, group_ids)
    return weighted_mean(values, include, weight, metric)


def fill_undefined(
    values: np.ndarray,
    undefined: str | float,
    metric: str,
    group_ids: np.ndarray,
) -> np.ndarray:
    """The undefined rule on per-group values that are NaN where undefined.

    Returns the values with undefined groups NaN (``"skip"``), filled with the
    given float, or raises :func:`apply_undefined`'s error (``"raise"``).
    """
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    filled, include = apply_undefined(values, defined, undefined, metric, group_ids)
    return np.where(include, filled, np.nan)


# trec_eval's MIN_GEO_MEAN: a value below it counts as it in a geometric mean.
GEOMETRIC_FLOOR = 1e-5


def geometric_mean(
    values: np.ndarray,
    weights: np.ndarray | None = None,
    floor: float = GEOMETRIC_FLOOR,
) -> float:
    """trec_eval's geometric mean: ``exp(mean(log(max(v, floor))))``.

    ``values`` are the groups that enter the mean (after :func:`apply_undefined`);
    with ``weights`` the mean of the logs is :func:`weighted_average`'s.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return float("nan")
    logs = np.log(np.maximum(values, floor))
    if weights is None:
        return float(np.exp(logs.mean()))
    return float(np.exp(weighted_average(logs, np.asarray(weights, np.float64))))


def fill_weight(weight_sum: Any, count: Any, xp: Any = np) -> Any:
    """The weight of a group without a relevant row under ``group_weight=
    "relevant_mean"``: the mean weight ``weight_sum / count`` of the ``count``
    groups that have a relevant row and a positive total weight, 1.0 when there
    is none. ``weight_sum`` and ``count`` are scalars (0-d arrays) of namespace
    ``xp``: the engine passes its per-group sums, Dask and Spark the sums of their
    partitions, so the rule is the same in memory and distributed."""
    return xp.where(count > 0, weight_sum / xp.clip(count, 1, None), 1.0)


def group_counts(
    codes: np.ndarray, n_groups: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Rows per group (or the sum of ``weights`` per group) from codes 0..G-1."""
    if weights is None:
        return np.bincount(codes, minlength=n_groups)
    return np.bincount(codes, weights=weights, minlength=n_groups)


def _zero_weight(metric: str) -> ValueError:
    return ValueError(
        f"sample_weight sums to zero over the groups that enter {metric}; give "
        "at least one of them a positive weight."
    )


def weighted_means_at_cutoffs(
    table: np.ndarray,
    rows: np.ndarray,
    divisor: np.ndarray | None,
    defined: np.ndarray,
    weight: np.ndarray,
    undefined: str | float,
) -> np.ndarray | None:
    """:func:`mean_over_groups` at every cutoff of a cutoff table at once.

    ``table`` (n_rows, n_groups) holds per-group values, ``rows`` (n_k,) the row
    each cutoff reads and ``divisor`` (n_k,) what it is divided by, if anything.
    ``defined`` is (n_groups,) when groups are defined or not at every cutoff
    alike (then ``table`` must be finite everywhere), else of ``table``'s shape.
    Returns None where the rule raises or warns (``undefined="raise"``, a cutoff
    with no included group or no positive weight): the caller then reduces cutoff
    by cutoff through :func:`mean_over_groups`, which raises or warns.

    Each cutoff's mean has the bits of :func:`mean_over_groups` of its values
    alone: the included groups taken out first, then :func:`weighted_sum` of
    them and the sum of their weights (a metric asked with other cutoffs of its
    family gives what it gives asked alone).
    """
    if undefined == "raise":
        return None
    if divisor is not None:
        table, rows = table[rows] / divisor[:, None], np.arange(rows.size)
    # Each distinct row once (capped cutoffs share one), a few rows at a time:
    # the taken groups and their products stay in the caches.
    used, back = np.unique(rows, return_inverse=True)
    means = np.empty(used.size)
    skip = undefined == "skip"
    if defined.ndim == 1:
        whole = bool(defined.all())  # every group as it is: no copy to fill
        taken = np.flatnonzero(defined) if skip and not whole else None
        w = weight if taken is None else weight.take(taken)
        total = w.sum()
        if not total > 0:
            return None
        step = max(1, _CUTOFF_BLOCK // max(w.size, 1))
        every = used.size == table.shape[0]  # (then used is 0, 1, ..., n - 1)
        for a in range(0, used.size, step):
            block = table[a : a + step] if every else table[used[a : a + step]]
            if taken is not None:
                block = block.take(taken, axis=1)
            elif not whole:
                block = np.where(defined, block, float(undefined))
            own = not (whole and every)  # block is then a view of the table
            means[a : a + step] = weighted_sum(block, w, scratch=own) / total
        return means[back.reshape(-1)]
    for i, row in enumerate(used.tolist()):  # the groups taken differ by cutoff
        one = weighted_means_at_cutoffs(
            table[row : row + 1],
            np.zeros(1, np.intp),
            None,
            defined[row],
            weight,
            undefined,
        )
        if one is None:
            return None
        means[i] = one[0]
    return means[back.reshape(-1)]


# Values per block of cutoff rows in weighted_means_at_cutoffs (2 MB of floats).
_CUTOFF_BLOCK = 1 << 18
