"""A streaming accumulator for training loops: batches in, one evaluation out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._engine import segments as seg
from .._engine.conventions import resolve_options
from .._engine.reduce import mean_over_groups
from .._utils.array_api import is_foreign
from .evaluate import DEFAULT_METRICS, evaluate, evaluate_per_group
from .validation import check_metrics, check_option_keywords

_FIELDS = ("y_true", "y_score", "groups", "sample_weight")


def _as_array(x: Any) -> Any:
    """A batch kept as it came: arrays of any namespace as they are (on their
    device), lists and pandas objects as numpy arrays."""
    if x is None or is_foreign(x) or isinstance(x, np.ndarray):
        return x
    return np.asarray(x.to_numpy() if hasattr(x, "to_numpy") else x)


def _concat(parts: list) -> Any:
    if not parts or parts[0] is None:
        return None
    xp = seg.array_namespace(*parts)
    if xp is np:
        return np.concatenate(parts)
    return xp.concat(parts)


def _check_batch(batch: dict[str, Any], index: int) -> None:
    """One entry per row in every array of a batch."""
    lengths = {k: v.shape[0] for k, v in batch.items() if v is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(
            f"Batch {index} of RankingAccumulator.update has inconsistent "
            f"numbers of rows: {detail}. Give one entry per row in each array."
        )


def _reduce(parts: list, metrics: tuple, undefined: Any) -> dict[str, float]:
    """The undefined rule and the weighted mean over every finished query (the
    per-group results ``parts`` of the in-order mode)."""
    ids = _concat(
        [
            np.asarray(p.group_ids, dtype=object)
            if isinstance(p.group_ids, np.ndarray)
            else p.group_ids
            for p in parts
        ]
    )
    out = {}
    for name in metrics:
        values = _concat([p.values[name] for p in parts])
        weight = _concat([p.weights[name] for p in parts])
        xp = seg.array_namespace(values)
        out[name] = mean_over_groups(
            values, ~xp.isnan(values), weight, undefined, name, ids
        )
    return out


class RankingAccumulator:
    """Metrics of a stream of batches, equal to one :func:`evaluate` of them all.

    For validation inside a training loop (PyTorch or any array library):
    :meth:`update` with each batch's labels, scores and group ids, then
    :meth:`compute` once per epoch. A query may span batches. Batches of
    PyTorch tensors (or other array API arrays) are kept as they are, on their
    device, and :meth:`compute` runs where :func:`evaluate` would (under
    scikit-learn's ``array_api_dispatch``, on that device).

    Parameters
    ----------
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr")
        Names from :func:`get_metric_names`.
    in_order : bool, default=False
        The queries arrive whole and in order: a group id, once followed by
        another, never comes back. Finished queries are then reduced to
        per-group values at once and their rows dropped, so memory is bounded
        by the largest query (plus one value per query). Pooled metrics
        (``"auc"``) and ``group_weight="relevant_mean"``, which need every
        group at once, are refused in this mode.
    convention : str, default=None
        Name of a preset of conventions; None is ``"sklearn_rank"``.
    **options
        The convention keywords of :func:`evaluate`.

    Examples
    --------
    >>> from sklearn_rank import RankingAccumulator, evaluate
    >>> acc = RankingAccumulator(["mrr", "ndcg@2"])
    >>> acc.update([1, 0, 0], [0.9, 0.8, 0.1], groups=["q1", "q1", "q1"])
    >>> acc.update([0, 1, 0], [0.3, 0.2, 0.7], groups=["q2", "q2", "q2"])
    >>> acc.compute()
    {'mrr': 0.6666666666666666, 'ndcg@2': 0.5}
    >>> acc.reset()
    """

    def __init__(
        self,
        metrics: str | Sequence[str] = DEFAULT_METRICS,
        *,
        in_order: bool = False,
        convention: str | None = None,
        **options: Any,
    ) -> None:
        func = "RankingAccumulator"
        check_option_keywords(options, "RankingAccumulator()")
        self._opts = resolve_options(func, convention, options)
        self._requests = check_metrics(metrics, func, per_group=in_order)
        self.metrics = tuple(r.label for r in self._requests)
        self.in_order = bool(in_order)
        if self.in_order and self._opts.group_weight == "relevant_mean":
            raise ValueError(
                "RankingAccumulator(in_order=True) reduces each query when it "
                "ends, but group_weight='relevant_mean' weighs a query by every "
                "other one. Pass in_order=False."
            )
        self.convention, self.options = convention, dict(options)
        self.reset()

    def _key(self) -> tuple:
        return (self.metrics, self._opts, self.in_order)

    def reset(self) -> None:
        """Forget every batch (start of a new epoch)."""
        self._batches: dict[str, list] = {name: [] for name in _FIELDS}
        self._done: list = []  # in_order: GroupScores of finished queries
        self._done_ids: set = set()
        self._weighted: bool | None = None
        self.n_batches = 0

    def update(
        self,
        y_true: ArrayLike,
        y_score: ArrayLike,
        groups: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> None:
        """Add one batch of rows.

        Parameters
        ----------
        y_true, y_score, groups : array-like of shape (n_rows,)
            Labels, scores and group ids of the batch's rows.
        sample_weight : array-like of shape (n_rows,), default=None
            Row weights; give them for every batch or for none.
        """
        batch = {
            "y_true": _as_array(y_true),
            "y_score": _as_array(y_score),
            "groups": _as_array(groups),
            "sample_weight": _as_array(sample_weight),
        }
        _check_batch(batch, self.n_batches)
        weighted = sample_weight is not None
        if self._weighted is None:
            self._weighted = weighted
        elif self._weighted != weighted:
            raise ValueError(
                "RankingAccumulator.update got sample_weight for some batches "
                "only; give it for every batch or for none."
            )
        for name, value in batch.items():
            self._batches[name].append(value)
        self.n_batches += 1
        if self.in_order:
            self._reduce_finished(final=False)

    def _pending(self) -> dict[str, Any]:
        return {name: _concat(parts) for name, parts in self._batches.items()}

    def _reduce_finished(self, final: bool) -> None:
        """In-order mode: per-group values of the queries that have ended (all
        but the last one seen, or every one when ``final``)."""
        rows = self._pending()
        if rows["y_true"] is None or not rows["y_true"].shape[0]:
            return
        groups = rows["groups"]
        xp = seg.array_namespace(groups)
        n = groups.shape[0]
        if final:
            cut = n
        else:
            last = groups[n - 1]
            same = groups == last
            # The last query's rows must be a suffix (queries arrive whole).
            cut = n - int(xp.sum(xp.astype(same, xp.int64)))
            if bool(xp.any(same[:cut])):
                raise ValueError(
                    "RankingAccumulator(in_order=True) got rows of one query "
                    "that do not follow each other; the queries must arrive "
                    "whole and in order. Pass in_order=False."
                )
        if cut == 0:
            return
        done = {k: None if v is None else v[:cut] for k, v in rows.items()}
        scores = self._per_group(done)
        ids = scores.group_ids
        if isinstance(ids, np.ndarray):
            seen = self._done_ids.intersection(ids.tolist())
            if seen:
                raise ValueError(
                    f"RankingAccumulator(in_order=True) saw the query "
                    f"{sorted(seen, key=str)[0]!r} again after other queries; "
                    "the queries must arrive whole and in order. Pass "
                    "in_order=False."
                )
            self._done_ids.update(ids.tolist())
        self._done.append(scores)
        for name, value in rows.items():
            self._batches[name] = [] if value is None else [value[cut:]]
        if rows["sample_weight"] is None:
            self._batches["sample_weight"] = []

    def _call(self, func, rows: dict[str, Any], **options: Any):
        """``func`` (evaluate or evaluate_per_group) on the gathered rows."""
        return func(
            rows["y_true"],
            rows["y_score"],
            groups=rows["groups"],
            metrics=list(self.metrics),
            sample_weight=rows["sample_weight"],
            convention=self.convention,
            **options,
        )

    def _per_group(self, rows: dict[str, Any]):
        options = {k: v for k, v in self.options.items() if k != "undefined"}
        return self._call(evaluate_per_group, rows, **options)

    def compute(self) -> dict[str, float]:
        """The metrics of every row added since the last :meth:`reset`: what
        one :func:`evaluate` of the concatenated batches returns."""
        if not self.n_batches:
            raise ValueError(
                "RankingAccumulator.compute has no rows; call update() with at "
                "least one batch first."
            )
        if not self.in_order:
            return self._call(evaluate, self._pending(), **self.options)
        self._reduce_finished(final=True)
        return _reduce(self._done, self.metrics, self._opts.undefined)

    def merge(self, other: RankingAccumulator) -> RankingAccumulator:
        """Add the rows of ``other`` (another worker's accumulator) to this one;
        returns self. Both must compute the same metrics under the same
        conventions. With ``in_order`` the last query of each is finished
        here: merge once both have seen all their rows."""
        if not isinstance(other, RankingAccumulator):
            raise TypeError(
                f"RankingAccumulator.merge takes a RankingAccumulator; got a "
                f"{type(other).__name__}."
            )
        if other._key() != self._key():
            raise ValueError(
                "RankingAccumulator.merge needs accumulators of the same metrics, "
                f"conventions and in_order: {self.metrics} and {other.metrics}, "
                "options may differ too. Build both with the same arguments."
            )
        if self.in_order:
            other._reduce_finished(final=True)
            self._reduce_finished(final=True)
            both = self._done_ids & other._done_ids
            if both:
                raise ValueError(
                    f"RankingAccumulator.merge: the query "
                    f"{sorted(both, key=str)[0]!r} has rows in both "
                    "accumulators; with in_order=True each query must be in one."
                )
            self._done += other._done
            self._done_ids |= other._done_ids
        else:
            for name in _FIELDS:
                self._batches[name] += other._batches[name]
        self.n_batches += other.n_batches
        return self

    def __repr__(self) -> str:
        return (
            f"RankingAccumulator(metrics={list(self.metrics)!r}, "
            f"in_order={self.in_order}, n_batches={self.n_batches})"
        )
