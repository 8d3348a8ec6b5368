"""Per-group values of every model, from flat arrays or from GroupScores."""

from __future__ import annotations

import numbers
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine.conventions import resolve_options
from .._engine.reduce import fill_undefined
from .._metrics.evaluate import DEFAULT_METRICS, GroupScores
from .._metrics.prepared import evaluate_models
from .._utils.array_api import on_host
from .._utils.params import (  # noqa: F401 (the statistics' modules import them here)
    CI_METHODS,
    check_choice,
    check_level,
    check_random_state,
    check_resamples,
    param_error,
)

TESTS = (
    "randomization",
    "bootstrap",
    "bootstrap-t",
    "bootstrap-shift",
    "t",
    "wilcoxon",
)
ALTERNATIVES = ("two-sided", "greater", "less")
SCOPES = ("metric", "all")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
# The one rounding rule: per-group differences are rounded to DECIMALS decimals of
# the metric's scale (the power of ten at or above its largest |value|: 1 for
# metrics in [0, 1]) before every test, interval, rank, effect size and count of
# wins / ties / losses. Equal differences of a discrete metric (0.3 - 0.2 and
# 0.4 - 0.3 on P@10) are then equal floats, and float noise of equal scores is 0.
DECIMALS = 10


def metric_scale(*values: np.ndarray) -> float:
    """The power of ten at or above the largest finite |value| (1 if none)."""
    top = 0.0
    for v in values:
        finite = np.abs(v[np.isfinite(v)])
        if finite.size:
            top = max(top, float(finite.max()))
    return 1.0 if top == 0 else float(10.0 ** np.ceil(np.log10(top)))


def round_differences(d: np.ndarray, scale: float) -> np.ndarray:
    """``d`` rounded to DECIMALS decimals of ``scale`` (the one rounding rule)."""
    if scale == 1.0:
        out = np.round(d, DECIMALS)
    else:
        out = np.round(d / scale, DECIMALS) * scale
    out[out == 0] = 0.0  # no -0.0
    return out


def seed_entropy(seed: Any, func: str) -> int:
    """The int from which every random stream of one call is derived.

    An int is used as is; None, a RandomState or a Generator give one draw, so
    that the report can store the int and a rerun with it repeats the result.
    """
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise param_error("random_state", func, "a non-negative int", seed)
        return int(seed)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63))
    if seed is None or isinstance(seed, np.random.RandomState):
        rs = np.random.mtrand._rand if seed is None else seed
        return int(rs.randint(0, 2**63, dtype=np.int64))
    raise param_error(
        "random_state",
        func,
        "None, an int, a numpy.random.RandomState or a numpy.random.Generator",
        seed,
    )


def with_n_jobs(options: dict[str, Any], n_jobs: Any) -> dict[str, Any]:
    """The evaluation's keywords, with the call's ``n_jobs`` when one was given."""
    return options if n_jobs is None else {**options, "n_jobs": n_jobs}


def stream(entropy: int, *key: str) -> np.random.Generator:
    """An independent random stream for one (metric, models..., procedure).

    ``SeedSequence(entropy, spawn_key=...)`` is what ``SeedSequence.spawn``
    does, with the child's key taken from the names instead of a counter: a
    pair's draws depend on the seed and on that pair alone, not on which other
    pairs, metrics or intervals the call computes.
    """
    words = tuple(zlib.crc32(str(k).encode("utf-8")) for k in key)
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=words))


def canonical_order(*columns: np.ndarray) -> np.ndarray:
    """Row order that depends on the rows' values only (lexicographic).

    Resampling draws rows by position, so a Monte Carlo p-value or interval
    computed on the rows in this order depends on the groups as a set of
    values and on the seed, not on the order the groups came in (their ids,
    strings on the command line, integers in Python, sort differently). Equal
    rows are interchangeable. ``columns``: 1-d of shape (n,) or 2-d (n, k);
    the first is the primary key.
    """
    keys = []
    for col in columns:
        col = np.asarray(col)
        keys.extend(col.T if col.ndim == 2 else [col])
    return np.lexsort(keys[::-1])


@dataclass
class PerGroup:
    """Aligned per-group values: values[model][metric], NaN where undefined."""

    group_ids: np.ndarray
    metrics: list[str]
    values: dict[str, dict[str, np.ndarray]]
    weights: dict[str, dict[str, np.ndarray]]


def _undefined_rule(func: str, options: dict[str, Any]) -> str | float:
    """The undefined-group rule evaluate would use with these options."""
    convention = options.get("convention")
    undefined = options.pop("undefined", None)
    return resolve_options(func, convention, {"undefined": undefined}).undefined


def _apply_undefined(values, rule, metric, model, func, group_ids=None):
    """The engine's undefined rule (one reduction module), naming the model."""
    if group_ids is None:
        group_ids = np.arange(np.shape(values)[0])
    try:
        return fill_undefined(values, rule, metric, group_ids)
    except ValueError as exc:
        raise ValueError(f"{func}, model {model!r}: {exc}") from None


def _from_dask(value: Any) -> Any:
    """A per-group Dask DataFrame of sklearn_rank.dask.evaluate_per_group as
    GroupScores (its per-group rows come to the client); anything else as is."""
    if hasattr(value, "__dask_graph__") and hasattr(value, "columns"):
        from .._distributed.partitions import group_scores_from_frame

        return group_scores_from_frame(value.compute())
    return value


def collect(
    func: str,
    y_true: Any,
    y_scores: dict[str, Any],
    groups: Any,
    metrics: str | Sequence[str] | None,
    options: dict[str, Any],
) -> PerGroup:
    """Per-group values of every model: one evaluate_per_group call per model."""
    options = dict(options)
    rule = _undefined_rule(func, options)
    y_scores = {model: _from_dask(value) for model, value in y_scores.items()}
    per_group = [isinstance(v, GroupScores) for v in y_scores.values()]
    if any(per_group) and not all(per_group):
        raise TypeError(
            f"{func} got per-group results (GroupScores) for some models and score "
            "arrays for others; pass one kind for every model."
        )
    if isinstance(metrics, str):
        metrics = [metrics]
    if all(per_group):
        if y_true is not None:
            raise param_error(
                "y_true",
                func,
                "None when the scores are per-group results (GroupScores)",
                type(y_true).__name__,
                "The labels already entered evaluate_per_group.",
            )
        results = dict(y_scores)
        first = next(iter(results.values()))
        names = list(first.values) if metrics is None else list(metrics)
        for model, res in results.items():
            if not np.array_equal(res.group_ids, first.group_ids):
                raise ValueError(
                    f"The per-group results of {model!r} in {func} cover other "
                    "groups than the first model's; compute every model's "
                    "evaluate_per_group on the same y_true and groups."
                )
            missing = [m for m in names if m not in res.values]
            if missing:
                raise param_error(
                    "metrics",
                    func,
                    f"names present in the per-group results of {model!r} "
                    f"({list(res.values)})",
                    missing,
                )
    else:
        if y_true is None:
            raise param_error(
                "y_true", func, "an array of labels when y_score is an array", None
            )
        names = list(DEFAULT_METRICS) if metrics is None else list(metrics)
        # The statistics run on the host (scipy): array inputs are read there.
        arrays = (y_true, groups, *y_scores.values(), *options.values())
        with on_host(*arrays):
            results = _per_model(y_true, y_scores, groups, names, options)
    group_ids = next(iter(results.values())).group_ids
    values = {
        model: {
            m: _apply_undefined(res.values[m], rule, m, model, func, group_ids)
            for m in names
        }
        for model, res in results.items()
    }
    weights = {
        model: {m: res.weights[m] for m in names} for model, res in results.items()
    }
    return PerGroup(group_ids, names, values, weights)


def _per_model(y_true, y_scores, groups, names, options) -> dict[str, GroupScores]:
    """evaluate_per_group of every model's scores; with several models the
    labels are checked and encoded once (``prepare``)."""
    return evaluate_models(
        y_true, y_scores, groups=groups, metrics=names, per_group=True, **options
    )
