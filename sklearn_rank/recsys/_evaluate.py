"""``evaluate_recommendations``: the flat ranked table of each user's top-k plus
the held-out items not retrieved, evaluated through ``evaluate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._metrics.evaluate import evaluate
from .._utils.params import param_error
from ._beyond import BEYOND_ACCURACY, beyond_accuracy
from ._topk import check_interactions, ranked_top_k

_FUNC = "evaluate_recommendations"


def _check_test(test: Any, shape: tuple[int | None, int]) -> sp.csr_matrix:
    csr = check_interactions(test, "test", _FUNC, shape, "held-out grades")
    coo = sp.coo_matrix(test)  # as given: CSR would have summed duplicates
    codes = coo.row.astype(np.int64) * shape[1] + coo.col
    if np.unique(codes).size != codes.size:
        raise param_error(
            "test",
            _FUNC,
            "free of duplicate (user, item) interactions",
            "duplicates",
            "Keep one grade per pair (e.g. test.sum_duplicates() or the max).",
        )
    if coo.data.size and not np.isfinite(coo.data).all():
        raise param_error("test", _FUNC, "finite grades", "NaN or inf")
    return csr


def _metric_names(metrics: str | Sequence[str], k: int) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    out = []
    for name in names:
        if name.endswith("@k"):
            name = f"{name[:-2]}@{k}"
        elif "@" not in name:
            name = f"{name}@{k}"
        out.append(name)
    return out


def flat_table(
    scores: Any, test: Any, *, exclude: Any = None, k: int, block_size: Any = None
) -> dict[str, np.ndarray]:
    """``y_true``, ``y_score``, ``groups`` and ``retrieved`` of the ranked table:
    each user's top-k items with their scores (``retrieved`` True) and the
    held-out items outside the top-k (``retrieved`` False, counted in the number
    of relevant items and the ideal DCG only)."""
    n_users = test.shape[0] if sp.issparse(test) else None
    items, values = ranked_top_k(scores, k, exclude, n_users, block_size)
    test = _check_test(test, (items.shape[0], _n_items(scores, test)))
    return _table(items, values, test)


def _table(items: np.ndarray, values: np.ndarray, test: sp.csr_matrix):
    users = np.repeat(np.arange(items.shape[0]), items.shape[1])
    flat_items, flat_values = items.ravel(), values.ravel()
    keep = flat_items >= 0
    users, flat_items, flat_values = users[keep], flat_items[keep], flat_values[keep]
    grades = np.asarray(test[users, flat_items]).ravel().astype(np.float64)
    coo = sp.coo_matrix(test)
    n_items = test.shape[1]
    got = users.astype(np.int64) * n_items + flat_items
    held = coo.row.astype(np.int64) * n_items + coo.col
    missing = ~np.isin(held, got)
    y_true = np.concatenate([grades, coo.data[missing].astype(np.float64)])
    # -inf scores (items never to be recommended that still filled a list) rank
    # below every finite one; the missed rows are not ranked, any finite score.
    finite = np.isfinite(flat_values)
    low = flat_values[finite].min() - 1.0 if finite.any() else 0.0
    flat_values = np.where(finite, flat_values, low)
    y_score = np.concatenate([flat_values, np.full(missing.sum(), low)])
    groups = np.concatenate([users, coo.row[missing]])
    retrieved = np.concatenate(
        [np.ones(users.size, bool), np.zeros(missing.sum(), bool)]
    )
    order = np.argsort(groups, kind="stable")
    return {
        "y_true": y_true[order],
        "y_score": y_score[order],
        "groups": groups[order],
        "retrieved": retrieved[order],
    }


def _n_items(scores: Any, test: Any) -> int:
    return test.shape[1] if callable(scores) else np.shape(scores)[1]


def evaluate_recommendations(
    scores: Any,
    test: Any,
    *,
    exclude: Any = None,
    k: int,
    metrics: str | Sequence[str] = ("ndcg", "hit_rate", "recall", "map"),
    block_size: int | None = None,
    train: Any = None,
    item_features: Any = None,
    distance: Any = "cosine",
    head_share: float = 0.2,
    convention: str | None = None,
    **options: Any,
) -> dict[str, float]:
    """Accuracy of each user's top-k over the whole catalogue, seen items excluded.

    Every user's ``k`` best items (:func:`top_k`) with their scores, and the
    held-out items they missed, form the flat ranked table the engine takes; the
    metrics come from :func:`sklearn_rank.evaluate` with ``retrieved=False`` on
    the missed items, so recall and the ideal DCG count every held-out item of
    the user, not only the retrieved ones.

    Parameters
    ----------
    scores : ndarray of shape (n_users, n_items), sparse matrix or callable
        As in :func:`top_k` (a callable takes user indices).
    test : sparse matrix of shape (n_users, n_items)
        Held-out grades (stored entries; their values are the grades, 1 for
        binary). Duplicates are refused.
    exclude : sparse matrix of shape (n_users, n_items), default=None
        Interactions excluded from the ranking (training items).
    k : int
        Length of each list; metric names without a cutoff get ``@k``.
    metrics : str or list of str, default=("ndcg", "hit_rate", "recall", "map")
        Registry names, with or without ``@k``, and the beyond-accuracy names
        of :func:`beyond_accuracy` (``catalog_coverage``, ``gini``,
        ``entropy``, ``novelty``, ``arp``, ``aplt``, ``intra_list_diversity``,
        ``personalization``, ``serendipity``), computed on the same top-k
        lists. Here ``arp`` is the average recommendation popularity (the
        ranking registry's average relevant position is not offered).
    block_size : int, default=None
        Users per block, as in :func:`top_k`.
    train : sparse matrix of shape (n_users, n_items), default=None
        Training interactions for the popularity of the beyond-accuracy
        metrics; ``exclude`` when not given.
    item_features : ndarray of shape (n_items, n_features), default=None
        Item features, for ``intra_list_diversity`` (:func:`beyond_accuracy`).
    distance : {"cosine", "hamming"} or callable, default="cosine"
        The item distance of ``intra_list_diversity`` (:func:`beyond_accuracy`).
    head_share : float, default=0.2
        The head's share of training interactions for ``aplt``
        (:func:`beyond_accuracy`).
    convention : str, default=None
        A named convention, as in :func:`sklearn_rank.evaluate`.
    **options
        The conventions' keywords (``ties``, ``gain``, ``undefined`` ...). Users
        without held-out items are undefined for recall-like metrics and follow
        the ``undefined`` rule (by default left out of the mean).

    Returns
    -------
    scores : dict of str to float
        The mean over users of each metric.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sklearn_rank.recsys import evaluate_recommendations
    >>> scores = np.array([[0.9, 0.8, 0.1], [0.2, 0.7, 0.6]])
    >>> train = sp.csr_matrix(([1], ([0], [0])), shape=(2, 3))
    >>> test = sp.csr_matrix(([1, 1], ([0, 1], [2, 2])), shape=(2, 3))
    >>> res = evaluate_recommendations(
    ...     scores, test, exclude=train, k=1, metrics=["hit_rate", "recall"]
    ... )
    >>> {name: round(v, 3) for name, v in res.items()}
    {'hit_rate@1': 0.0, 'recall@1': 0.0}
    """
    names = _metric_names(metrics, k)
    beyond = [name for name in names if name.split("@")[0] in BEYOND_ACCURACY]
    ranking = [name for name in names if name not in beyond]
    n_users = test.shape[0] if sp.issparse(test) else None
    items, values = ranked_top_k(scores, k, exclude, n_users, block_size)
    test = _check_test(test, (items.shape[0], _n_items(scores, test)))
    out = {}
    if ranking:
        table = _table(items, values, test)
        out.update(
            evaluate(
                table["y_true"],
                table["y_score"],
                groups=table["groups"],
                retrieved=table["retrieved"],
                metrics=ranking,
                convention=convention,
                **options,
            )
        )
    for name in beyond:
        cut = name.split("@")[1]
        if not cut.isdigit() or not 1 <= int(cut) <= k:
            raise param_error("metrics", _FUNC, f"a cutoff in [1, k={k}]", name)
        out.update(
            beyond_accuracy(
                items[:, : int(cut)],
                n_items=test.shape[1],
                metrics=[name],
                train=exclude if train is None else train,
                test=test,
                item_features=item_features,
                distance=distance,
                head_share=head_share,
            )
        )
    return {name: out[name] for name in names}
