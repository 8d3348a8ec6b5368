"""Beyond-accuracy metrics of top-k lists: functions of the lists (and of the
training popularity), not of per-query relevance, so they live here and not in
the ranking registry. Definitions and sources in docs/recsys.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.params import param_error

_FUNC = "beyond_accuracy"
_PAIRS_PER_BLOCK = 1 << 20  # item pairs per block of users for a non-cosine ILD


def _counts(lists: np.ndarray, n_items: int) -> np.ndarray:
    flat = lists[lists >= 0]
    return np.bincount(flat, minlength=n_items).astype(np.float64)


def _coverage(lists, n_items, pop, n_users, **_):
    return np.count_nonzero(_counts(lists, n_items)) / n_items


def _gini(lists, n_items, pop, n_users, **_):
    c = np.sort(_counts(lists, n_items))
    i = np.arange(1, n_items + 1)
    return float(np.sum((2 * i - n_items - 1) * c) / (n_items * c.sum()))


def _entropy(lists, n_items, pop, n_users, **_):
    c = _counts(lists, n_items)
    p = c[c > 0] / c.sum()
    return float(-np.sum(p * np.log(p)))


def _check_unique(lists: np.ndarray) -> None:
    """Refuse an item twice in one list (the -1 padding aside)."""
    srt = np.sort(lists, axis=1)
    if ((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any():
        user = int(
            np.nonzero(((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any(1))[0][0]
        )
        raise param_error(
            "lists",
            _FUNC,
            "free of repeated items within a list",
            f"a repeated item in the list of user {user}",
            "Recommend each item once per user (top_k never repeats one).",
        )


def _per_list(valid: np.ndarray) -> np.ndarray:
    """Items per list, refusing an empty list: a per-list mean is undefined."""
    n = valid.sum(axis=1)
    if (n == 0).any():
        raise param_error(
            "lists",
            _FUNC,
            "at least one item in every list",
            f"an empty list (all -1) for user {int(np.argmin(n))}",
            "Drop users without recommendations.",
        )
    return n


def _needs_train(pop):
    if pop is None:
        raise param_error(
            "train",
            _FUNC,
            "a sparse (n_users, n_items) matrix",
            None,
            "Popularity metrics need the training interactions.",
        )


def _novelty(lists, n_items, pop, n_users, **_):
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
    return float(np.mean(info.sum(axis=1) / _per_list(valid)))


def _arp(lists, n_items, pop, n_users, **_):
    _needs_train(pop)
    valid = lists >= 0
    value = np.zeros(lists.shape)
    value[valid] = pop[lists[valid]]
    return float(np.mean(value.sum(axis=1) / _per_list(valid)))


def _head(pop, head_share):
    """Boolean mask of the head: the most popular training items (ties by
    ascending index) until their interactions reach ``head_share`` of all."""
    order = np.lexsort((np.arange(pop.size), -pop))
    share = np.cumsum(pop[order]) / pop.sum()
    n_head = int(np.searchsorted(share, head_share - 1e-12)) + 1
    head = np.zeros(pop.size, bool)
    head[order[:n_head]] = True
    return head


def _aplt(lists, n_items, pop, n_users, head_share=0.2, **_):
    _needs_train(pop)
    valid = lists >= 0
    tail = np.zeros(lists.shape)
    tail[valid] = ~_head(pop, head_share)[lists[valid]]
    return float(np.mean(tail.sum(axis=1) / _per_list(valid)))


def _needs(value, name, what):
    if value is None:
        raise param_error(name, _FUNC, what, None, "This metric needs it.")


def _hamming_pair_sums(lists: np.ndarray, valid: np.ndarray, feats: np.ndarray):
    """Per list, the sum over item pairs of the number of features that differ:
    ``d * C(n, 2) - sum over features of the pairs with equal values``, the
    equal pairs counted from the (user, feature, value) occurrences; in blocks
    of users, so memory is bounded whatever ``k``."""
    n_users, k = lists.shape
    n_feats = feats.shape[1]
    codes = np.empty(feats.shape, dtype=np.int64)  # value codes per feature
    for f in range(n_feats):
        codes[:, f] = np.unique(feats[:, f], return_inverse=True)[1]
    width = int(codes.max(initial=0)) + 1
    n = valid.sum(axis=1)
    equal = np.zeros(n_users)
    step = max(1, _PAIRS_PER_BLOCK // max(k * n_feats, 1))
    for start in range(0, n_users, step):
        block, ok = lists[start : start + step], valid[start : start + step]
        users = np.nonzero(ok)[0]
        key = (users[:, None] * n_feats + np.arange(n_feats)) * width
        key = (key + codes[block[ok]]).ravel()
        space = block.shape[0] * n_feats * width
        if space <= 4 * key.size:  # few values per feature (binary): a bincount
            count = np.bincount(key, minlength=space).astype(np.float64)
            same = (count * (count - 1) / 2).reshape(block.shape[0], -1)
            equal[start : start + step] = same.sum(axis=1)
            continue
        uniq, count = np.unique(key, return_counts=True)
        same = count * (count - 1) / 2
        equal[start : start + step] = np.bincount(
            uniq // (n_feats * width), weights=same, minlength=block.shape[0]
        )
    return n_feats * n * (n - 1) / 2 - equal


def _ild(lists, n_items, pop, n_users, item_features=None, distance="cosine", **_):
    _needs(item_features, "item_features", f"an ({n_items}, n_features) array")
    feats = np.asarray(item_features, dtype=np.float64)
    if feats.ndim != 2 or feats.shape[0] != n_items:
        raise param_error(
            "item_features",
            _FUNC,
            f"a 2-D array with one row per item ({n_items} rows)",
            feats.shape,
            "Pass features as (n_items, n_features).",
        )
    used = np.unique(lists[lists >= 0])
    if not np.isfinite(feats[used]).all():
        raise param_error(
            "item_features",
            _FUNC,
            "finite rows for every recommended item",
            "a non-finite row",
            "Fill missing features before computing the diversity.",
        )
    valid = lists >= 0
    n = valid.sum(axis=1)
    pairs = n * (n - 1) / 2
    ok = pairs > 0
    if not ok.any():
        raise param_error(
            "lists",
            _FUNC,
            "a list of at least 2 items for intra_list_diversity",
            "every list shorter",
            "The diversity of a list of one item is undefined; use k >= 2.",
        )
    if distance == "cosine":
        norm = np.linalg.norm(feats, axis=1)
        if (norm[used] == 0).any():
            raise param_error(
                "item_features",
                _FUNC,
                "non-zero rows for every recommended item",
                "a zero row",
                "Cosine distance is undefined for a zero vector.",
            )
        unit = feats / np.where(norm == 0, 1.0, norm)[:, None]
        # sum over pairs i < j of cos = (|sum_i u_i|^2 - n) / 2 for unit u_i:
        # the list's sum vector from a sparse (users x items) product, so
        # memory is (n_users, n_features), never (n_users, k, k)
        rows = np.nonzero(valid)[0]
        member = sp.csr_matrix(
            (np.ones(rows.size), (rows, lists[valid])), shape=(lists.shape[0], n_items)
        )
        total = np.asarray(member @ unit)
        off = (np.einsum("ud,ud->u", total, total) - n) / 2
        return float(np.mean(1 - off[ok] / pairs[ok]))
    if distance == "hamming":
        total = _hamming_pair_sums(lists, valid, feats)
        return float(np.mean(total[ok] / pairs[ok]))
    if not callable(distance):
        raise param_error(
            "distance", _FUNC, '"cosine", "hamming" or a callable', distance
        )
    first, second = np.triu_indices(lists.shape[1], k=1)
    total = np.zeros(lists.shape[0])
    step = max(1, _PAIRS_PER_BLOCK // max(first.size, 1))
    for start in range(0, lists.shape[0], step):  # blocks of users: bounded memory
        a, b = lists[start : start + step, first], lists[start : start + step, second]
        both = (a >= 0) & (b >= 0)
        d = np.asarray(distance(feats[a[both]], feats[b[both]]), dtype=np.float64)
        if d.shape != (int(both.sum()),):
            raise param_error(
                "distance",
                _FUNC,
                "a callable returning one distance per row pair",
                d.shape,
            )
        block = np.zeros(a.shape)
        block[both] = d
        total[start : start + step] = block.sum(axis=1)
    return float(np.mean(total[ok] / pairs[ok]))


def _personalization(lists, n_items, pop, n_users, **_):
    n = lists.shape[0]
    if n < 2:
        raise param_error("lists", _FUNC, "lists of at least 2 users", n)
    c = _counts(lists, n_items)
    # sum over ordered pairs u != v of |L_u & L_v| = sum_i c_i^2 - sum_u |L_u|
    overlap = (np.sum(c * c) - c.sum()) / (n * (n - 1))
    return float(1 - overlap / lists.shape[1])


def _serendipity(lists, n_items, pop, n_users, test=None, **_):
    _needs_train(pop)
    _needs(test, "test", f"a sparse (n_users, {n_items}) matrix of held-out items")
    k = lists.shape[1]
    baseline = np.lexsort((np.arange(n_items), -pop))[:k]
    unexpected = np.ones(n_items, bool)
    unexpected[baseline] = False
    valid = lists >= 0
    rows = np.repeat(np.arange(lists.shape[0]), k)[valid.ravel()]
    items = lists[valid]
    useful = np.asarray(test[rows, items]).ravel() > 0
    hit = np.zeros(lists.shape)
    hit[valid] = useful & unexpected[items]
    return float(np.mean(hit.sum(axis=1) / k))


BEYOND_ACCURACY = {
    "catalog_coverage": _coverage,
    "gini": _gini,
    "entropy": _entropy,
    "novelty": _novelty,
    "arp": _arp,
    "avg_rec_popularity": _arp,
    "aplt": _aplt,
    "intra_list_diversity": _ild,
    "personalization": _personalization,
    "serendipity": _serendipity,
}


def beyond_accuracy(
    lists: Any,
    *,
    n_items: int,
    metrics: str | Sequence[str] = ("catalog_coverage", "gini", "novelty", "arp"),
    train: Any = None,
    test: Any = None,
    item_features: Any = None,
    distance: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "cosine",
    head_share: float = 0.2,
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
        ``arp`` (alias ``avg_rec_popularity``), ``aplt``,
        ``intra_list_diversity``, ``personalization``, ``serendipity``, each
        optionally with ``@k``
        (the lists' length). ``arp`` here is the average recommendation
        popularity, not the ranking registry's average relevant position.
    train : sparse matrix of shape (n_users, n_items), default=None
        Training interactions, for ``novelty``, ``arp``, ``aplt`` and
        ``serendipity``.
    test : sparse matrix of shape (n_users, n_items), default=None
        Held-out items (grade > 0 relevant), for ``serendipity``.
    item_features : ndarray of shape (n_items, n_features), default=None
        Item features, for ``intra_list_diversity``.
    distance : {"cosine", "hamming"} or callable, default="cosine"
        The distance between two items of a list, for
        ``intra_list_diversity``: ``1 - cos(f_a, f_b)``, the number of features
        that differ (as RecTools' ``PairwiseHammingDistanceCalculator``), or a
        callable taking two ``(n_pairs, n_features)`` arrays of feature rows and
        returning the ``n_pairs`` distances.
    head_share : float, default=0.2
        For ``aplt``: the head is the most popular training items until their
        interactions reach this share of all; the rest is the long tail.

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
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(
        n_items, (int, np.integer)
    ):
        raise param_error("n_items", _FUNC, "an int >= 1", n_items)
    if n_items < 1:
        raise param_error("n_items", _FUNC, "an int >= 1", n_items)
    if not 0 < head_share <= 1:
        raise param_error("head_share", _FUNC, "a float in (0, 1]", head_share)
    lists = np.asarray(lists)
    if lists.ndim != 2 or lists.dtype.kind not in "iu":
        raise param_error("lists", _FUNC, "a 2-D int array (n_users, k)", lists.shape)
    _check_unique(lists)
    if (lists >= n_items).any() or (lists < -1).any():
        raise param_error(
            "lists",
            _FUNC,
            f"item indices in [0, {n_items}) or -1",
            "ids outside",
            "Item ids must index the catalogue.",
        )
    if test is not None and (
        not sp.issparse(test) or test.shape != (lists.shape[0], n_items)
    ):
        raise param_error(
            "test",
            _FUNC,
            f"a sparse matrix of shape {(lists.shape[0], n_items)} (users x items)",
            getattr(test, "shape", type(test).__name__),
            "One row per list, one column per catalogue item.",
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
        out[name] = float(
            BEYOND_ACCURACY[base](
                lists,
                n_items,
                pop,
                n_users,
                test=test,
                item_features=item_features,
                distance=distance,
                head_share=head_share,
            )
        )
    return out
