"""What every display shares: the lazy matplotlib import, the axes, the models.

matplotlib is imported only when a display draws (scikit-learn's displays do the
same), so computing a display's data needs no matplotlib, and ``import
sklearn_rank`` never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._metrics.validation import check_lengths, check_numeric
from .._utils.params import param_error

PLOT_EXTRA = 'pip install "sklearn-rank[plot]"'


def check_matplotlib(func: str) -> None:
    """Raise an ImportError naming the extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{func} draws with matplotlib, which is not installed. Install it "
            f"with the plot extra: {PLOT_EXTRA}"
        ) from None


def get_axes(ax: Any, func: str):
    """The axes to draw on and its figure: ``ax``, or a new figure's axes."""
    check_matplotlib(func)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    elif not hasattr(ax, "plot") or not hasattr(ax, "figure"):
        raise param_error("ax", func, "a matplotlib Axes or None", type(ax).__name__)
    return ax, ax.figure


def model_scores(
    y_score: Any, func: str, *, name: str | None = None, n_rows: int | None = None
) -> dict[str, np.ndarray]:
    """Model name -> 1-D scores, from one array or a mapping of them (a DataFrame
    gives one model per column). Every model has the same number of rows."""
    if isinstance(y_score, Mapping) or (
        hasattr(y_score, "items") and hasattr(y_score, "columns")
    ):
        scores = {str(k): v for k, v in y_score.items()}
        if not scores:
            raise param_error(
                "y_score", func, "an array of scores or a non-empty mapping", {}
            )
    else:
        scores = {name if name is not None else "model": y_score}
    out = {m: check_numeric(s, f"y_score[{m!r}]", func) for m, s in scores.items()}
    lengths = {f"y_score[{m!r}]": s for m, s in out.items()}
    if n_rows is not None:
        lengths = {"y_true": np.empty(n_rows), **lengths}
    check_lengths(func, **lengths)
    return out


def estimator_scores(
    estimator: Any, X: Any, response_method: Any, func: str
) -> dict[str, np.ndarray]:
    """Model name -> scores of one fitted estimator or a mapping of them."""
    from .._sklearn.scorer import ranking_scores  # imports scikit-learn: only here

    if isinstance(estimator, Mapping):
        if not estimator:
            raise param_error(
                "estimator", func, "a fitted estimator or a non-empty mapping", {}
            )
        models = {str(k): v for k, v in estimator.items()}
    else:
        models = {type(estimator).__name__: estimator}
    return {m: ranking_scores(e, X, response_method, func) for m, e in models.items()}


def check_names(name: Any, models: list[str], func: str) -> list[str]:
    """Legend names: None keeps the model names; a str names a single model; a
    list names each model."""
    if name is None:
        return list(models)
    if isinstance(name, str):
        if len(models) != 1:
            raise param_error(
                "name", func, f"a list of {len(models)} names or None", name
            )
        return [name]
    names = list(name)
    if len(names) != len(models) or not all(isinstance(n, str) for n in names):
        raise param_error(
            "name", func, f"None, a str or a list of {len(models)} str", name
        )
    return names


def check_options(metric_options: Any, func: str) -> dict[str, Any]:
    if metric_options is None:
        return {}
    if not isinstance(metric_options, Mapping):
        raise param_error(
            "metric_options",
            func,
            "a dict of evaluate keywords or None",
            type(metric_options).__name__,
        )
    return dict(metric_options)


def per_group(
    y_true: Any,
    scores: dict[str, np.ndarray],
    groups: Any,
    metrics: list[str],
    sample_weight: Any,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Model name -> :class:`~sklearn_rank.GroupScores` (NaN where undefined);
    ``undefined`` is not an option here (the displays show undefined groups)."""
    from .._metrics.evaluate import evaluate_per_group
    from .._utils.array_api import on_host

    options = {k: v for k, v in options.items() if k != "undefined"}
    # Displays draw from numpy: array API inputs are read on the host.
    with on_host(y_true, groups, sample_weight, *scores.values(), *options.values()):
        return {
            model: evaluate_per_group(
                y_true,
                score,
                groups=groups,
                metrics=metrics,
                sample_weight=sample_weight,
                **options,
            )
            for model, score in scores.items()
        }


def check_metric_name(metric: Any, func: str) -> str:
    """One metric name with a per-group value (``"ndcg@10"``, not ``"auc"``)."""
    from .._metrics.validation import check_metrics

    if not isinstance(metric, str):
        raise param_error("metric", func, "a metric name such as 'ndcg@10'", metric)
    check_metrics([metric], func, per_group=True)
    return metric
