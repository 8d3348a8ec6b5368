"""Beyond-accuracy metrics of top-k lists: functions of the lists (and of the
training popularity), not of per-query relevance, so they live here and not in
the ranking registry. Definitions and sources in docs/recsys.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.params import param_error

_FUNC = "beyond_accuracy"


def _counts(lists: np.ndarray, n_items: int) -> np.ndarray:
    flat = lists[lists >= 0]
    return np.bincount(flat, minlength=n_items).astype(np.float64)


def _coverage(lists, n_items, pop, n_users):
    return np.count_nonzero(_counts(lists, n_items)) / n_items


def _gini(lists, n_items, pop, n_users):
    c = np.sort(_counts(lists, n_items))
    i = np.arange(1, n_items + 1)
    return float(np.sum((2 * i - n_items - 1) * c) / (n_items * c.sum()))


def _entropy(lists, n_items, pop, n_users):
    c = _counts(lists, n_items)
    p = c[c > 0] / c.sum()
    return float(-np.sum(p * np.log(p)))


def _needs_train(pop):
    if pop is None:
        raise param_error(
            "train",
            _FUNC,
            "a sparse (n_users, n_items) matrix",
            None,
            "Popularity metrics need the training interactions.",
        )


def _novelty(lists, n_items, pop, n_users):
    _needs_train(pop)
    valid = lists >= 0
    p = pop[lists[valid]] / n_users
    if (p == 0).any():
        raise param_error(
            "train",
            _FUNC,
            "an interaction for every recommended item",
            "an item never seen in training",
            "Its self-information is infinite; drop it.",
        )
    info = np.zeros(lists.shape)
    info[valid] = -np.log2(p)
    return float(np.mean(info.sum(axis=1) / valid.sum(axis=1)))


def _arp(lists, n_items, pop, n_users):
    _needs_train(pop)
    valid = lists >= 0
    value = np.zeros(lists.shape)
    value[valid] = pop[lists[valid]]
    return float(np.mean(value.sum(axis=1) / valid.sum(axis=1)))


BEYOND_ACCURACY = {
    "catalog_coverage": _coverage,
    "gini": _gini,
    "entropy": _entropy,
    "novelty": _novelty,
    "arp": _arp,
    "avg_rec_popularity": _arp,
}


def beyond_accuracy(
    lists: Any,
    *,
    n_items: int,
    metrics: str | Sequence[str] = ("catalog_coverage", "gini", "novelty", "arp"),
    train: Any = None,
) -> dict[str, float]:
    """Beyond-accuracy metrics of users' top-k lists.

    Parameters
    ----------
    lists : ndarray of int of shape (n_users, k)
        Item indices per user, as :func:`top_k` returns them (``-1`` padding
        ignored).
    n_items : int
        Catalogue size.
    metrics : str or list of str
        Names among ``catalog_coverage``, ``gini``, ``entropy``, ``novelty``,
        ``arp`` (alias ``avg_rec_popularity``), each optionally with ``@k``
        (the lists' length). ``arp`` here is the average recommendation
        popularity, not the ranking registry's average relevant position.
    train : sparse matrix of shape (n_users, n_items), default=None
        Training interactions, for ``novelty`` and ``arp``.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank.recsys import beyond_accuracy
    >>> beyond_accuracy(np.array([[0, 1], [0, 2]]), n_items=4,
    ...                 metrics=["catalog_coverage", "gini"])
    {'catalog_coverage': 0.75, 'gini': 0.375}
    """
    lists = np.asarray(lists)
    if lists.ndim != 2 or lists.dtype.kind not in "iu":
        raise param_error("lists", _FUNC, "a 2-D int array (n_users, k)", lists.shape)
    if (lists >= n_items).any() or (lists < -1).any():
        raise param_error(
            "lists",
            _FUNC,
            f"item indices in [0, {n_items}) or -1",
            "ids outside",
            "Item ids must index the catalogue.",
        )
    pop = None
    if train is not None:
        if not sp.issparse(train) or train.shape[1] != n_items:
            raise param_error(
                "train",
                _FUNC,
                f"a sparse matrix with {n_items} columns",
                getattr(train, "shape", type(train).__name__),
            )
        binary = sp.csr_matrix(train, copy=True)
        binary.sum_duplicates()
        binary.data[:] = 1
        pop = np.asarray(binary.sum(axis=0)).ravel()
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    out = {}
    for name in names:
        base = name.split("@")[0]
        if base not in BEYOND_ACCURACY:
            raise param_error(
                "metrics", _FUNC, f"among {sorted(BEYOND_ACCURACY)}", name
            )
        n_users = None if train is None else train.shape[0]
        out[name] = float(BEYOND_ACCURACY[base](lists, n_items, pop, n_users))
    return out
