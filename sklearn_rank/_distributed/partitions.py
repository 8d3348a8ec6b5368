"""The per-partition work of the distributed front-ends (Dask, Spark).

A partition is a pandas DataFrame holding every row of each of its groups. The
in-memory engine (:func:`~sklearn_rank._metrics.evaluate.rank_inputs` and the kernels)
runs on it unchanged; what leaves a partition is one row per group (values and
weights) or a handful of partial sums. Nothing here knows about Dask or Spark,
so both front-ends share it and give the same numbers.

Two parts of the in-memory result read more than one group, and are handled
here explicitly:

- ``group_weight="relevant_mean"`` with sample weights gives a group without a
  relevant row the mean weight of the groups that have one: a global quantity,
  reduced first (:func:`fill_parts`, :func:`fill_value`) and passed to every
  partition (:func:`group_frame`).
- the pooled ``"auc"`` reads pairs across groups: each partition is reduced to
  its total weight per (score, class) (:func:`auc_histogram`); the merged
  histogram goes through the in-memory AUC (:func:`auc_from_histogram`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._engine.conventions import OPTIONS, Options, resolve_options
from .._engine.group_codes import encode_groups
from .._engine.reduce import apply_undefined, fill_weight, weighted_mean, weighted_sum
from .._metrics.evaluate import (
    GroupScores,
    group_values,
    prepare_inputs,
    rank_inputs,
)
from .._metrics.validation import MetricRequest, check_metrics

ROW_KEYS = ("__sklearn_rank_part", "__sklearn_rank_row")  # input order, for ties


def option_values(scope: dict[str, Any]) -> dict[str, Any]:
    """The convention keywords among a front-end's arguments (its ``locals()``),
    read through ``OPTIONS`` rather than spelled out in every function body."""
    return {name: scope[name] for name in OPTIONS if name in scope}


def weight_column(label: str) -> str:
    """The name of a metric's group-weight column in a per-group frame."""
    return f"weight:{label}"


@dataclass(frozen=True)
class Plan:
    """What every partition computes: column names, metrics and options."""

    func: str
    y_true: str
    y_score: str
    groups: str
    sample_weight: str | None
    retrieved: str | None
    judged: str | None
    in_pool: str | None
    requests: tuple[MetricRequest, ...]  # per-group metrics
    pooled: tuple[MetricRequest, ...]  # the pooled "auc", if requested
    labels: tuple[str, ...]  # every requested name, in the order given
    opts: Options

    @property
    def columns(self) -> list[str]:
        """The input columns a partition needs."""
        names = (self.y_true, self.y_score, self.groups)
        extra = (self.sample_weight, self.retrieved, self.judged, self.in_pool)
        return [*names, *(c for c in extra if c is not None)]

    @property
    def needs_fill(self) -> bool:
        """True when a group's weight depends on other groups."""
        return (
            self.opts.group_weight == "relevant_mean"
            and self.sample_weight is not None
            and bool(self.requests)
        )

    @property
    def needs_order(self) -> bool:
        """True when the order of rows inside a group changes a value."""
        return self.opts.ties == "stable"

    def output_columns(self) -> list[str]:
        labels = [r.label for r in self.requests]
        return [*labels, *(weight_column(label) for label in labels)]

    def meta(self, group_dtype: Any) -> pd.DataFrame:
        """The empty per-group frame (column names and dtypes)."""
        index = pd.Index([], dtype=group_dtype, name=self.groups)
        return pd.DataFrame(
            {c: np.array([], dtype=np.float64) for c in self.output_columns()},
            index=index,
        )


def make_plan(
    func: str,
    *,
    y_true: str,
    y_score: str,
    groups: str,
    sample_weight: str | None,
    retrieved: str | None,
    judged: str | None,
    in_pool: str | None = None,
    metrics: Any,
    convention: str | None,
    options: dict[str, Any],
    per_group: bool,
) -> Plan:
    """Validate the metrics and the options once, on the client, as evaluate does."""
    opts = resolve_options(func, convention, options)
    requests = check_metrics(metrics, func, per_group=per_group)
    grouped = tuple(r for r in requests if not r.spec.pooled)
    pooled = tuple(r for r in requests if r.spec.pooled)
    if pooled and opts.ties == "stable":
        raise ValueError(
            f"{pooled[0].label!r} in {func} is pooled over all rows, and with "
            "ties='stable' its value depends on the order of tied rows across "
            "partitions, which a distributed frame does not keep. Pass "
            "ties='average' (or 'pessimistic' / 'optimistic'), or use 'gauc'."
        )
    return Plan(
        func,
        y_true,
        y_score,
        groups,
        sample_weight,
        retrieved,
        judged,
        in_pool,
        grouped,
        pooled,
        tuple(r.label for r in requests),
        opts,
    )


def _column(pdf: pd.DataFrame, name: str | None) -> np.ndarray | None:
    return None if name is None else pdf[name].to_numpy()


def _in_input_order(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """The group column as a column, and rows back in input order when a
    shuffle moved them and ties read it."""
    pdf = as_columns(pdf, plan)
    if plan.needs_order and ROW_KEYS[0] in pdf.columns:
        pdf = pdf.sort_values(list(ROW_KEYS), kind="stable")
    return pdf


def as_columns(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """A partition whose index is the group column, with that index as a column."""
    if plan.groups not in pdf.columns and pdf.index.name == plan.groups:
        return pdf.reset_index()
    return pdf


def _context(pdf: pd.DataFrame, plan: Plan, requests: Sequence[MetricRequest]):
    pdf = _in_input_order(pdf, plan)
    return rank_inputs(
        plan.func,
        _column(pdf, plan.y_true),
        _column(pdf, plan.y_score),
        _column(pdf, plan.groups),
        _column(pdf, plan.sample_weight),
        _column(pdf, plan.retrieved),
        requests,
        plan.opts,
        _column(pdf, plan.judged),
        _column(pdf, plan.in_pool),
    )


def check_rows(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """``pdf`` unchanged, after the in-memory checks of its rows (labels, scores,
    weights, masks, group ids): run on the input partitions before a shuffle, so
    that a bad row fails the call before rows move, with its row number in the
    partition (:mod:`sklearn_rank._distributed.frontend` maps it to the input)."""
    rows = as_columns(pdf, plan)
    if len(rows) == 0:
        return pdf
    opts = plan.opts
    if _nothing_judged(rows, plan):  # its groups stay, empty (group_frame)
        opts = dataclasses.replace(opts, judged_only=False)
    prepare_inputs(
        plan.func,
        _column(rows, plan.y_true),
        _column(rows, plan.y_score),
        _column(rows, plan.groups) if plan.requests else None,
        _column(rows, plan.sample_weight),
        _column(rows, plan.retrieved),
        (*plan.requests, *plan.pooled),
        opts,
        _column(rows, plan.judged),
        _column(rows, plan.in_pool),
    )
    return pdf


def _nothing_judged(pdf: pd.DataFrame, plan: Plan) -> bool:
    """judged_only=True on a partition without a judged row: each group stays,
    empty (undefined, weight 0), as the in-memory engine keeps it."""
    return (
        plan.opts.judged_only
        and plan.judged is not None
        and not pdf[plan.judged].to_numpy(dtype=bool).any()
    )


def group_frame(
    pdf: pd.DataFrame, plan: Plan, fill: float | None = None
) -> pd.DataFrame:
    """One row per group of a partition: each metric's value (NaN where
    undefined) and weight, from the in-memory engine.

    Every group of ``pdf`` must have all its rows in ``pdf``. ``fill`` is the
    global weight of a group without a relevant row under
    ``group_weight="relevant_mean"`` (:func:`fill_value`).
    """
    pdf = as_columns(pdf, plan)
    meta = plan.meta(pdf[plan.groups].dtype)
    if len(pdf) == 0 or not plan.requests:
        return meta
    if _nothing_judged(pdf, plan):
        ids = np.unique(pdf[plan.groups].to_numpy())
        out = {r.label: np.full(ids.size, np.nan) for r in plan.requests}
        out.update({weight_column(r.label): np.zeros(ids.size) for r in plan.requests})
        index = pd.Index(ids, name=plan.groups).astype(meta.index.dtype)
        return pd.DataFrame(out, index=index)[meta.columns]
    ctx, ids = _context(pdf, plan, plan.requests)
    if plan.needs_fill:
        _set_fill(ctx, plan, fill)
    data = {}
    for request in plan.requests:
        values, defined, weight = group_values(ctx, request, plan.opts)
        data[request.label] = np.where(defined, values, np.nan)
        data[weight_column(request.label)] = np.asarray(weight, dtype=np.float64)
    index = pd.Index(ids, name=plan.groups).astype(meta.index.dtype)
    return pd.DataFrame(data, index=index)[meta.columns]


def _fill_masks(ctx, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
    """(groups whose weight is the fill, groups that enter the fill's mean),
    from the engine's own parts of the "relevant_mean" weights."""
    _, has_rel, positive = ctx.totals.relevant_mean_parts()
    return ~has_rel & positive, has_rel & positive


def _set_fill(ctx, plan: Plan, fill: float | None) -> None:
    """Give the partition's groups without a relevant row the global fill weight.

    The engine computes a group's weight once and caches it; the groups it
    filled with the partition's own mean get the global one instead, so every
    kernel (and its weight factors, as GAUC's size) reads the global weight.
    """
    if fill is None:
        raise ValueError("group_weight='relevant_mean' needs the global fill weight")
    weight = ctx.group_weight()  # the cached array every kernel reads
    filled, _ = _fill_masks(ctx, plan)
    weight[filled] = fill


def fill_parts(pdf: pd.DataFrame, plan: Plan) -> np.ndarray:
    """(Σ weight, count) over the partition's groups that have a relevant row
    and a positive total weight: the parts of the global fill weight."""
    pdf = as_columns(pdf, plan)
    if len(pdf) == 0 or not plan.needs_fill or _nothing_judged(pdf, plan):
        return np.zeros(2)
    ctx, _ = _context(pdf, plan, plan.requests)
    _, counted = _fill_masks(ctx, plan)
    weight = ctx.group_weight()
    return np.array([weight[counted].sum(), float(counted.sum())])


def fill_value(parts: Any) -> float:
    """The engine's rule (:func:`fill_weight`) on the summed parts."""
    total, count = np.asarray(parts, dtype=np.float64)
    return float(fill_weight(total, count))


# -- the mean over groups ---------------------------------------------------------
_SHOWN = 5  # undefined ids a partial keeps: the ones the in-memory error shows


@dataclass
class Partial:
    """What a partition (or a merge of partitions) sends to the client for
    :func:`finish`: per metric the sums of the groups that enter its mean
    (Σ w·v, Σ w, count), the number and the smallest ids of the undefined groups
    under ``undefined="raise"``; the number of groups, and one id per id type (a
    mix of types that cannot be ordered is refused, as in memory)."""

    groups: int = 0
    sums: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    undefined: dict[str, int] = dataclasses.field(default_factory=dict)
    shown: dict[str, list] = dataclasses.field(default_factory=dict)
    id_types: dict[str, Any] = dataclasses.field(default_factory=dict)


def id_types(ids: Any) -> dict[str, Any]:
    """One id per Python type among object ids (numbers and strings of a typed
    column are one type)."""
    ids = np.asarray(ids)
    if ids.dtype != object or ids.size == 0:
        return {}
    out: dict[str, Any] = {}
    for value in ids:
        out.setdefault(type(value).__name__, value)
    return out


def partial(frame: pd.DataFrame, plan: Plan) -> Partial:
    """The :class:`Partial` of a per-group frame (:func:`group_frame`), after
    the undefined rule of the reduction module (``"raise"`` counts here and
    raises in :func:`finish`, with the counts of the whole input)."""
    ids = frame.index.to_numpy()
    out = Partial(groups=len(frame), id_types=id_types(ids))
    for r in plan.requests:
        values = frame[r.label].to_numpy()
        weight = frame[weight_column(r.label)].to_numpy()
        defined = ~np.isnan(values)
        if plan.opts.undefined == "raise":
            include = defined
            bad = np.flatnonzero(~defined)
            out.undefined[r.label] = int(bad.size)
            out.shown[r.label] = _smallest(ids[bad].tolist())
        else:
            values, include = apply_undefined(
                values, defined, plan.opts.undefined, r.label, ids
            )
        w = weight[include]
        total = float(weighted_sum(values[include], w))
        out.sums[r.label] = np.array([total, float(w.sum()), float(include.sum())])
    return out


def _smallest(ids: list) -> list:
    try:
        return sorted(ids)[:_SHOWN]
    except TypeError:  # a mix of id types: refused by finish
        return ids[:_SHOWN]


def merge_partials(items: Sequence[Partial]) -> Partial:
    """Several partials as one (the combine step of the tree; exact sums of
    disjoint groups)."""
    out = Partial()
    for item in items:
        out.groups += item.groups
        for label, sums in item.sums.items():
            out.sums[label] = out.sums.get(label, 0.0) + sums
        for label, n in item.undefined.items():
            out.undefined[label] = out.undefined.get(label, 0) + n
            out.shown[label] = _smallest(
                [*out.shown.get(label, []), *item.shown[label]]
            )
        for name, value in item.id_types.items():
            out.id_types.setdefault(name, value)
    return out


def check_id_types(types: dict[str, Any], func: str) -> None:
    """The in-memory refusal of ids of types that cannot be ordered (1 and "1"),
    which a partition holding one type alone cannot see."""
    if len(types) > 1:
        sample = np.array(list(types.values()), dtype=object)
        encode_groups(sample, sample.size, func)


def finish(merged: Partial, auc: dict[str, float], plan: Plan) -> dict[str, float]:
    """The dict evaluate returns, from the merged partial (and the pooled AUC);
    the rules of the reduction module on the totals of the whole input."""
    if plan.requests and merged.groups == 0:  # the in-memory check
        raise ValueError(
            f"{plan.func} got empty inputs (0 rows); pass at least one row."
        )
    check_id_types(merged.id_types, plan.func)
    for r in plan.requests:
        n_bad = merged.undefined.get(r.label, 0)
        if n_bad:  # the in-memory error, with the counts of every group
            defined = np.ones(merged.groups, dtype=bool)
            defined[:n_bad] = False
            ids = np.empty(merged.groups, dtype=object)
            shown = merged.shown[r.label]
            ids[: len(shown)] = shown
            apply_undefined(np.zeros(merged.groups), defined, "raise", r.label, ids)
    result = {}
    for label in plan.labels:
        if label in auc:
            result[label] = auc[label]
            continue
        num, den, n = merged.sums[label]
        # The in-memory rule (NaN with a warning if no group enters, an error if
        # the weights sum to zero) on the reduced totals: one "group" of weight
        # Σ w whose value is the weighted mean.
        value = np.array([num / den if den > 0 else 0.0])
        result[label] = weighted_mean(value, np.array([n > 0]), np.array([den]), label)
    return result


# -- the pooled AUC -----------------------------------------------------------------
HISTOGRAM = ("score", "positive", "weight")


def auc_histogram(pdf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """Total weight per (score, class) of the partition's ranked rows: all the
    pooled AUC reads (its pairs are weighted by the product of row weights)."""
    pdf = as_columns(pdf, plan)
    empty = pd.DataFrame({c: np.array([], dtype=np.float64) for c in HISTOGRAM})
    if len(pdf) == 0 or not plan.pooled or _nothing_judged(pdf, plan):
        return empty
    # The in-memory checks and label rules (integer_grades, judged_only).
    inputs = prepare_inputs(
        plan.func,
        _column(pdf, plan.y_true),
        _column(pdf, plan.y_score),
        None,
        _column(pdf, plan.sample_weight),
        _column(pdf, plan.retrieved),
        plan.pooled,
        plan.opts,
        _column(pdf, plan.judged),
        _column(pdf, plan.in_pool),
    )
    n = inputs.y_true.shape[0]
    keep = np.ones(n, dtype=bool) if inputs.retrieved is None else inputs.retrieved
    y, score = inputs.y_true[keep], inputs.y_score[keep]
    w = np.ones(n) if inputs.sample_weight is None else inputs.sample_weight
    w = w[keep]
    threshold = plan.opts.relevance_threshold
    positive = y > 0 if threshold is None else y >= threshold
    frame = pd.DataFrame(
        {"score": score, "positive": positive.astype(np.float64), "weight": w}
    )
    return merge_histograms([frame])


def merge_histograms(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Histograms of several partitions as one (the combine step of the tree)."""
    frame = pd.concat(list(parts), ignore_index=True)
    merged = frame.groupby(["score", "positive"], sort=True, as_index=False)["weight"]
    return merged.sum()[list(HISTOGRAM)]


def auc_from_histogram(hist: pd.DataFrame, plan: Plan) -> dict[str, float]:
    """The in-memory pooled AUC of the merged histogram: one row per (score,
    class) weighted by its total, which weighs every pair as the rows did."""
    from .._metrics.evaluate import evaluate

    if not plan.pooled:
        return {}
    opts = {
        f.name: getattr(plan.opts, f.name)
        for f in dataclasses.fields(plan.opts)
        if f.name in ("ties", "undefined")
    }
    labels = [r.label for r in plan.pooled]
    if len(hist) == 0:  # no ranked row at all: the in-memory error
        hist = pd.DataFrame({"score": [], "positive": [], "weight": []})
    found = evaluate(
        hist["positive"].to_numpy(),
        hist["score"].to_numpy(),
        groups=None,
        metrics=labels,
        sample_weight=hist["weight"].to_numpy(),
        **opts,
    )
    return found


def group_scores_from_frame(frame: pd.DataFrame) -> GroupScores:
    """A per-group frame of a distributed ``evaluate_per_group`` (one row per group,
    the group id as index, a value and a ``weight:`` column per metric) as the
    in-memory :class:`~sklearn_rank.GroupScores`, ids sorted."""
    labels = [c for c in frame.columns if not c.startswith("weight:")]
    if frame.index.has_duplicates:
        raise ValueError(
            "The per-group result has a group id on more than one row; compute it "
            "with sklearn_rank.dask.evaluate_per_group on the whole data."
        )
    frame = frame.sort_index()
    return GroupScores(
        group_ids=frame.index.to_numpy(),
        values={m: frame[m].to_numpy(dtype=np.float64) for m in labels},
        weights={m: frame[weight_column(m)].to_numpy(dtype=np.float64) for m in labels},
    )
