"""This library's metrics as LightGBM's and XGBoost's evaluation callables.

One callable serves both interfaces of each framework: the native one
(``lightgbm.train(feval=...)``, ``xgboost.train(custom_metric=...)``), which
hands over the ``Dataset`` / ``DMatrix`` with its query information, and the
scikit-learn one (``LGBMRanker.fit(eval_metric=...)``, ``XGBRanker(
eval_metric=...)``). Each eval set gets one :class:`PreparedEvaluation`, made on
its first round and reused every round after (the labels and queries of an eval
set never change during training). Neither lightgbm nor xgboost is imported
here: the objects are recognised by their methods.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._metrics.evaluate import evaluate
from .._metrics.prepared import PreparedEvaluation, prepare
from .._metrics.validation import check_metrics

# Eval sets whose prepared evaluation is kept (the training set and a few
# validation sets); the oldest is dropped beyond this.
_CACHE_SIZE = 8


class _TrainMetric:
    """What both frameworks' callables share: metrics, options, the cache of
    prepared evaluations per eval set, the round count per eval set."""

    framework = ""

    def __init__(
        self,
        metrics: str | Sequence[str],
        prefix: str,
        convention: str | None,
        options: dict[str, Any],
    ) -> None:
        func = f"{self.framework}_metric"
        requests = check_metrics(metrics, func)
        self.metrics = tuple(r.label for r in requests)
        self.higher_is_better = tuple(r.spec.greater_is_better for r in requests)
        if not isinstance(prefix, str):
            raise TypeError(f"prefix in {func} must be a str; got {prefix!r}.")
        self.prefix, self.convention, self.options = prefix, convention, options
        # Checks every option now, not at the first round of training.
        prepare(
            [1.0], groups=[0], metrics=self.metrics, convention=convention, **options
        )
        self._cache: dict[int, list] = {}  # id(key) -> [key, prepared, rounds]
        self.__name__ = prefix + self.metrics[0]  # XGBoost's sklearn names it so

    def __repr__(self) -> str:
        return f"{type(self).__name__}(metrics={list(self.metrics)!r})"

    def _prepared(self, key: Any, make: Any) -> tuple[PreparedEvaluation, int]:
        """The prepared evaluation of the eval set ``key`` (made by ``make()`` on
        first sight) and the 1-based round it is called for."""
        entry = self._cache.get(id(key))
        if entry is None or entry[0] is not key:
            if len(self._cache) >= _CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            entry = self._cache[id(key)] = [key, make(), 0]  # holds key: id stays
        entry[2] += 1
        return entry[1], entry[2]

    def _make(self, y_true, groups, weight) -> PreparedEvaluation:
        return prepare(
            y_true,
            groups=groups,
            metrics=self.metrics,
            sample_weight=weight,
            convention=self.convention,
            **self.options,
        )

    def _values(self, prepared: PreparedEvaluation, preds: Any, round_: int) -> list:
        preds = np.asarray(preds)
        if preds.ndim != 1:
            raise ValueError(
                f"{self.framework}_metric takes one score per row; the predictions "
                f"have shape {preds.shape} (a multi-class objective?). Use a "
                "ranking objective (lambdarank, rank:ndcg, ...)."
            )
        if preds.shape[0] != prepared.n_samples:
            raise ValueError(
                f"{self.framework}_metric got {preds.shape[0]} predictions for an "
                f"eval set of {prepared.n_samples} rows; pass the eval set's own "
                "labels and query information."
            )
        try:
            scores = prepared.evaluate(preds)
        except ValueError as exc:
            if "NaN or infinite" not in str(exc):
                raise
            raise ValueError(
                f"{self.framework}_metric: the model's predictions at iteration "
                f"{round_} of this eval set hold NaN or infinite values (the model "
                "diverged). Lower the learning rate or check the features; a NaN "
                f"metric would stop training silently. ({exc})"
            ) from None
        return [(self.prefix + name, scores[name]) for name in self.metrics]


def _sizes_to_groups(sizes: Any, n_rows: int, where: str) -> np.ndarray:
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.sum() != n_rows:
        raise ValueError(
            f"The query sizes of {where} add up to {int(sizes.sum())} rows but it "
            f"has {n_rows}; give one size per query, in row order."
        )
    return np.repeat(np.arange(sizes.size), sizes)


class LightGBMMetric(_TrainMetric):
    """This library's metrics as a LightGBM evaluation function (see
    :func:`~sklearn_rank.boosting.lightgbm_metric`)."""

    framework = "lightgbm"

    def __call__(self, first: Any, second: Any, weight: Any = None, group: Any = None):
        """``(preds, eval_data)`` from ``lightgbm.train(feval=...)``, or ``(y_true,
        y_pred, weight, group)`` from ``LGBMRanker.fit(eval_metric=...)``.
        Returns ``(name, value, is_higher_better)``, a list for several metrics."""
        if hasattr(second, "get_group") and hasattr(second, "get_label"):
            preds, data = first, second

            def make() -> PreparedEvaluation:
                sizes = data.get_group()
                if sizes is None:
                    raise ValueError(
                        "lightgbm_metric: the eval Dataset has no query "
                        "information. Create it with group=<rows per query>, "
                        "e.g. lightgbm.Dataset(X, y, group=sizes)."
                    )
                y = data.get_label()
                groups = _sizes_to_groups(sizes, len(y), "the eval Dataset")
                return self._make(y, groups, data.get_weight())

            prepared, round_ = self._prepared(data, make)
        else:
            y_true, preds = first, second

            def make() -> PreparedEvaluation:
                if group is None:
                    raise ValueError(
                        "lightgbm_metric got no query sizes (group) for the eval "
                        "set. Pass eval_group= to LGBMRanker.fit, or use "
                        "sklearn_rank.GroupedRanker."
                    )
                y = np.asarray(y_true)
                return self._make(
                    y, _sizes_to_groups(group, len(y), "eval_group"), weight
                )

            prepared, round_ = self._prepared(y_true, make)
        values = self._values(prepared, preds, round_)
        out = [
            (n, v, better)
            for (n, v), better in zip(values, self.higher_is_better, strict=True)
        ]
        return out[0] if len(out) == 1 else out


class XGBoostMetric(_TrainMetric):
    """This library's metrics as an XGBoost evaluation function (see
    :func:`~sklearn_rank.boosting.xgboost_metric`)."""

    framework = "xgboost"

    def __call__(self, first: Any, second: Any, sample_weight: Any = None):
        """``(predt, dmatrix)`` from ``xgboost.train(custom_metric=...)``:
        ``(name, value)``, a list for several metrics. ``(y_true, y_pred)`` from
        ``XGBRanker(eval_metric=...)``, which calls it once per query and
        averages the values itself: the value of the one metric on that query."""
        if hasattr(second, "get_uint_info") and hasattr(second, "get_label"):
            preds, data = first, second

            def make() -> PreparedEvaluation:
                ptr = np.asarray(data.get_uint_info("group_ptr"), dtype=np.int64)
                y = data.get_label()
                if ptr.size < 2:
                    raise ValueError(
                        "xgboost_metric: the eval DMatrix has no query "
                        "information. Give it qid= (xgboost.DMatrix(X, y, "
                        "qid=qid)) or call set_group(sizes)."
                    )
                sizes = np.diff(ptr)
                groups = _sizes_to_groups(sizes, len(y), "the eval DMatrix")
                weight = data.get_weight()
                # XGBoost's ranking weights are one per query.
                row_weight = None
                if weight.size:
                    row_weight = (
                        np.repeat(weight, sizes)
                        if weight.size == sizes.size
                        else weight
                    )
                return self._make(y, groups, row_weight)

            prepared, round_ = self._prepared(data, make)
            values = self._values(prepared, preds, round_)
            return values[0] if len(values) == 1 else values
        return self._sklearn_call(first, second, sample_weight)

    def _sklearn_call(self, y_true, y_pred, sample_weight):
        if len(self.metrics) > 1:
            raise ValueError(
                "XGBRanker(eval_metric=...) takes one value per metric callable; "
                f"this one holds {len(self.metrics)} metrics. Make one "
                "xgboost_metric per metric, or use xgboost.train(custom_metric=...)."
            )
        # One query per call (XGBoost's ltr_metric_decorator, from worker
        # threads): nothing to prepare; a plain evaluation keeps no state.
        y = np.asarray(y_true)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an undefined query: handled below
            value = evaluate(
                y,
                np.asarray(y_pred),
                groups=np.zeros(y.shape[0], dtype=np.intp),
                metrics=self.metrics,
                sample_weight=sample_weight,
                convention=self.convention,
                **self.options,
            )[self.metrics[0]]
        if np.isnan(value):
            raise ValueError(
                f"xgboost_metric: {self.metrics[0]} is undefined on a query of "
                "the eval set (no relevant row?), and XGBRanker averages one "
                "number per query itself. Give the number: undefined=0.0, or "
                "undefined=1.0 as XGBoost's own ndcg (convention='xgboost')."
            )
        return value
