"""Early stopping of a wrapped ranker on this library's metric, with the
validation part split off by whole queries (``GroupedRanker(early_stopping=
True)``).

LightGBM: the validation part is ``LGBMRanker.fit``'s eval set with
:class:`~.train_metrics.LightGBMMetric` as ``eval_metric`` (its built-in metrics
switched off, so that early stopping reads this one). XGBoost: ``XGBRanker``
averages a callable metric itself, weighting each query by its rows, so the
metric runs in a training callback instead, on the validation part's
predictions after each round, through one prepared evaluation.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import GroupShuffleSplit

from .._metrics.prepared import prepare
from .._metrics.registry import METRICS
from .groups_source import take_rows
from .train_metrics import LightGBMMetric


def query_argument(argument, sorted_codes, n_groups):
    """What the wrapped ranker's ``fit`` takes for rows sorted by group code:
    ``qid=`` (XGBoost) or ``group=`` sizes (LightGBM)."""
    if argument == "qid":
        return {"qid": sorted_codes}
    sizes = np.bincount(sorted_codes, minlength=n_groups)
    return {"group": sizes[sizes > 0]}


def fit_with_early_stopping(
    ranker: Any, X: Any, y: Any, codes: np.ndarray, ids: Any, argument: str, owner: str
) -> tuple[Any, int, np.ndarray, Any]:
    """Fit a clone of ``ranker.estimator`` on the training queries, stopping on
    the held-out ones. Returns the fitted ranker, the number of rounds kept
    (1-based), the validation curve and the held-out query ids."""
    n_groups = len(ids)
    if n_groups < 2:
        raise ValueError(
            f"{owner} with early_stopping=True holds out whole queries for "
            f"validation, but the training data has {n_groups} query. Pass "
            "early_stopping=False, or train on more queries."
        )
    split = GroupShuffleSplit(
        n_splits=1,
        test_size=ranker.validation_fraction,
        random_state=ranker.random_state,
    )
    train, valid = next(split.split(np.zeros((codes.size, 1)), groups=codes))
    train = train[np.argsort(codes[train], kind="stable")]
    valid = valid[np.argsort(codes[valid], kind="stable")]
    X_train, y_train = take_rows(X, train), take_rows(y, train)
    X_valid, y_valid = take_rows(X, valid), take_rows(y, valid)
    query = query_argument(argument, codes[train], n_groups)
    held_out = np.asarray(ids)[np.unique(codes[valid])]
    name = ranker.scoring
    estimator = clone(ranker.estimator)
    fit = _lightgbm if argument == "group" else _xgboost
    fitted, best, curve = fit(
        estimator, ranker, X_train, y_train, query, X_valid, y_valid, codes[valid], name
    )
    return fitted, best, curve, held_out


def _lightgbm(estimator, ranker, X, y, query, X_valid, y_valid, valid_codes, name):
    import lightgbm  # the wrapped ranker is LightGBM's: installed

    sizes = np.bincount(valid_codes)
    sizes = sizes[sizes > 0]
    metric = LightGBMMetric(name, "", None, {})
    # LightGBM's own signature (a subclass may take **kwargs).
    params = inspect.signature(lightgbm.LGBMModel.fit).parameters
    if "eval_X" in params:  # lightgbm >= 4.7
        evals = {"eval_X": (X_valid,), "eval_y": (y_valid,)}
    else:
        evals = {"eval_set": [(X_valid, y_valid)]}
    # Only this metric on the eval set: early stopping reads the first one.
    estimator.set_params(metric="None")
    estimator.fit(
        X,
        y,
        **query,
        **evals,
        eval_group=[sizes],
        eval_metric=metric,
        callbacks=[lightgbm.early_stopping(ranker.n_iter_no_change, verbose=False)],
    )
    curve = np.asarray(estimator.evals_result_["valid_0"][metric.metrics[0]])
    best = int(estimator.best_iteration_) or curve.size
    return estimator, best, curve


def _xgboost(estimator, ranker, X, y, query, X_valid, y_valid, valid_codes, name):
    import xgboost  # the wrapped ranker is XGBoost's: installed

    prepared = prepare(y_valid, groups=valid_codes, metrics=[name])
    greater = METRICS[name.partition("@")[0]].greater_is_better
    patience = ranker.n_iter_no_change
    # Closure state: XGBoost may deep-copy its callbacks, not this dict.
    state: dict[str, Any] = {"curve": [], "best": 0}

    class _Stop(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            pred = np.asarray(model.inplace_predict(X_valid), dtype=np.float64)
            if not np.isfinite(pred).all():
                raise ValueError(
                    f"GroupedRanker: the ranker's predictions on the validation "
                    f"queries hold NaN or infinite values at iteration {epoch + 1} "
                    "(the model diverged). Lower the learning rate."
                )
            curve = state["curve"]
            curve.append(prepared.evaluate(pred)[prepared.metrics[0]])
            top = curve[state["best"]]
            if (curve[-1] > top) if greater else (curve[-1] < top):
                state["best"] = epoch
            return epoch - state["best"] >= patience

        def after_training(self, model):
            best = state["best"]
            model.set_attr(
                best_iteration=str(best), best_score=str(state["curve"][best])
            )
            return model

    callbacks = list(estimator.get_params().get("callbacks") or [])
    estimator.set_params(callbacks=[*callbacks, _Stop()])
    estimator.fit(X, y, **query)
    return estimator, state["best"] + 1, np.asarray(state["curve"])
