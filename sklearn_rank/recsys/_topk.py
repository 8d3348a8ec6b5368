"""``top_k``: each user's k best items from a score matrix, a sparse one or a
callable scoring a block of users, with the training interactions excluded."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.params import param_error

_FUNC = "top_k"
_BLOCK_CELLS = 1 << 24  # about 64 MiB of float32 scores per block


def check_interactions(
    value: Any, name: str, func: str, shape: tuple[int | None, int | None], what: str
) -> sp.csr_matrix:
    """A scipy sparse (users x items) matrix as CSR, its shape checked against
    ``shape`` (None: any size on that axis)."""
    if not sp.issparse(value) or value.ndim != 2:
        raise param_error(
            name,
            func,
            f"a scipy sparse (n_users, n_items) matrix of {what}",
            getattr(value, "shape", type(value).__name__),
            "Build one with scipy.sparse.csr_matrix((data, (users, items))).",
        )
    for axis, (got, expected) in enumerate(zip(value.shape, shape, strict=True)):
        if expected is not None and got != expected:
            raise param_error(
                name,
                func,
                f"of shape {shape} (users x items, as the scores)",
                value.shape,
                f"Axis {axis} differs: item or user ids outside the catalogue, or a "
                "transposed matrix.",
            )
    return sp.csr_matrix(value)


def _check_exclude(exclude: Any, n_users: int | None, n_items: int | None):
    """The exclusion matrix as CSR with sorted, unique indices, shape checked."""
    if exclude is None:
        return None
    csr = check_interactions(
        exclude, "exclude", _FUNC, (n_users, n_items), "interactions to exclude"
    )
    csr.sum_duplicates()  # duplicate interactions exclude the item once
    csr.sort_indices()
    return csr


def _check_k(k: Any, n_items: int) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise param_error("k", _FUNC, "an int >= 1", k)
    if k < 1 or k > n_items:
        raise param_error(
            "k",
            _FUNC,
            f"an int in [1, n_items={n_items}]",
            k,
            "k cannot exceed the catalogue; pass k <= the number of items.",
        )
    return int(k)


def _blocks(
    scores: Any, n_users: int, block_size: int
) -> Iterator[tuple[int, np.ndarray]]:
    """(first user, dense 2-D float block) over the users."""
    for start in range(0, n_users, block_size):
        stop = min(start + block_size, n_users)
        if callable(scores):
            block = np.asarray(scores(np.arange(start, stop)))
            if block.ndim != 2 or block.shape[0] != stop - start:
                raise param_error(
                    "scores",
                    _FUNC,
                    "a callable returning a (len(users), n_items) array",
                    getattr(block, "shape", type(block).__name__),
                )
        elif sp.issparse(scores):
            block = scores[start:stop].toarray()
        else:
            block = scores[start:stop]
        if block.dtype.kind not in "fiu":
            raise param_error("scores", _FUNC, "numeric", block.dtype)
        yield start, block


def _refuse_nan(block: np.ndarray, start: int) -> None:
    if block.dtype.kind == "f" and np.isnan(block.sum()):
        nan = np.isnan(block)
        if nan.any():
            user = start + int(np.nonzero(nan.any(axis=1))[0][0])
            raise param_error(
                "scores",
                _FUNC,
                "free of NaN",
                f"NaN for user {user}",
                "Score every item, or give unscorable items -inf.",
            )


def _check_left(rows, n_items: int, start: int) -> None:
    """Refuse a user whose every item is excluded."""
    left = n_items - np.diff(rows.indptr)
    if (left == 0).any():
        user = start + int(np.nonzero(left == 0)[0][0])
        raise param_error(
            "exclude",
            _FUNC,
            "leaving at least one candidate item per user",
            f"every item excluded for user {user}",
            "Drop that user from the scores, or exclude fewer items.",
        )


def _block_top_k(block: np.ndarray, k: int, rows=None) -> np.ndarray:
    """Item indices of the k highest scores per row, the items stored in ``rows``
    (the block's CSR slice of ``exclude``) left out: descending score, ties by
    ascending item index (also at the k-th place), -1 where a row runs out.

    The block is never copied: the top ``k + m`` (``m`` the most items excluded
    in a row) of the raw scores hold the top ``k`` of the candidates."""
    n_users, n_items = block.shape
    counts = np.zeros(n_users, dtype=np.intp) if rows is None else np.diff(rows.indptr)
    width = min(k + int(counts.max(initial=0)), n_items)
    if width == n_items:
        part = np.broadcast_to(np.arange(n_items), block.shape)
    else:
        part = np.argpartition(block, n_items - width, axis=1)[:, n_items - width :]
    values = np.take_along_axis(block, part, axis=1).astype(np.float64)
    excluded = np.zeros(part.shape, dtype=bool)
    if rows is not None and rows.nnz:
        ex_users = np.repeat(np.arange(n_users), counts)
        ex_codes = ex_users.astype(np.int64) * n_items + rows.indices
        codes = np.arange(n_users, dtype=np.int64)[:, None] * n_items + part
        excluded = np.isin(codes, ex_codes)
    order = np.lexsort((part, -values, excluded), axis=1)[:, :k]
    part = np.take_along_axis(part, order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    excluded = np.take_along_axis(excluded, order, axis=1)
    # A row whose k-th score is tied with a candidate left out: which tied items
    # enter is settled by item index, from a stable sort of that row alone.
    kth = values[:, -1]
    above = np.count_nonzero(block >= kth[:, None], axis=1)
    if rows is not None and rows.nnz:
        ex_scores = block[ex_users, rows.indices]
        above -= np.bincount(ex_users[ex_scores >= kth[ex_users]], minlength=n_users)
    crowded = (above > k) & ~excluded[:, -1]
    for row in np.nonzero(crowded)[0]:
        mask = np.zeros(n_items, dtype=bool)
        if rows is not None:
            mask[rows.indices[rows.indptr[row] : rows.indptr[row + 1]]] = True
        full = np.lexsort((np.arange(n_items), -block[row].astype(np.float64), mask))
        part[row] = full[:k]
    part[excluded] = -1
    return part


def ranked_top_k(
    scores: Any,
    k: int,
    exclude: Any = None,
    n_users: int | None = None,
    block_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``top_k``'s items and their scores (float64; -1 items carry junk scores)."""
    if callable(scores):
        if n_users is None:
            if exclude is None:
                raise param_error(
                    "n_users",
                    _FUNC,
                    "an int with a callable scores and no exclude",
                    None,
                )
            n_users = exclude.shape[0]
        n_items = None
    elif sp.issparse(scores):
        scores = sp.csr_matrix(scores)
        n_users, n_items = scores.shape
    else:
        scores = np.asarray(scores)
        if scores.ndim != 2:
            raise param_error("scores", _FUNC, "2-D (n_users, n_items)", scores.shape)
        n_users, n_items = scores.shape
    exclude = _check_exclude(exclude, n_users, n_items)
    if block_size is None:
        width = n_items or (exclude.shape[1] if exclude is not None else 1)
        block_size = max(1, _BLOCK_CELLS // max(width, 1))
    out = None
    for start, block in _blocks(scores, n_users, block_size):
        if out is None:
            n_items = block.shape[1]
            k = _check_k(k, n_items)
            out = np.empty((n_users, k), dtype=np.intp)
            vals = np.empty((n_users, k), dtype=np.float64)
        elif block.shape[1] != n_items:
            raise param_error(
                "scores", _FUNC, f"{n_items} items in every block", block.shape[1]
            )
        _refuse_nan(block, start)
        rows = None
        if exclude is not None:
            if exclude.shape[1] != n_items:
                raise param_error(
                    "exclude", _FUNC, f"{n_items} columns", exclude.shape[1]
                )
            rows = exclude[start : start + block.shape[0]]
            _check_left(rows, n_items, start)
        items = _block_top_k(block, k, rows)
        stop = start + block.shape[0]
        out[start:stop] = items
        vals[start:stop] = np.take_along_axis(block, np.maximum(items, 0), axis=1)
    if out is None:
        k = _check_k(k, n_items or 1)
        return np.empty((0, k), dtype=np.intp), np.empty((0, k))
    return out, vals


def top_k(
    scores: np.ndarray | sp.spmatrix | Callable[[np.ndarray], np.ndarray],
    k: int,
    *,
    exclude: sp.spmatrix | None = None,
    n_users: int | None = None,
    block_size: int | None = None,
) -> np.ndarray:
    """The ``k`` highest-scored items of every user, seen items excluded.

    Parameters
    ----------
    scores : ndarray of shape (n_users, n_items), sparse matrix or callable
        Users' scores over the catalogue. A sparse matrix is read one block of
        users at a time, its implicit entries as score 0. A callable takes an
        array of user indices and returns their ``(len(users), n_items)`` scores,
        so the whole matrix never sits in memory. NaN scores are refused; give
        an item that must never be recommended ``-inf``.
    k : int
        Items per user, ``1 <= k <= n_items``.
    exclude : sparse matrix of shape (n_users, n_items), default=None
        Interactions to exclude (the training items); any stored entry, whatever
        its value, excludes that item. Duplicates count once.
    n_users : int, default=None
        Number of users; needed only with a callable ``scores`` and no
        ``exclude``.
    block_size : int, default=None
        Users per block; by default about 16M scores per block.

    Returns
    -------
    items : ndarray of shape (n_users, k), dtype intp
        Item indices by descending score. Ties are broken by ascending item
        index, both inside the list and at the k-th place, so the result is
        deterministic; evaluate the lists with their scores (not their
        positions) for the ``ties`` convention of the metrics. A user with
        fewer than ``k`` items left after exclusion is padded with ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sklearn_rank.recsys import top_k
    >>> scores = np.array([[0.1, 0.9, 0.5, 0.7], [0.3, 0.3, 0.8, 0.1]])
    >>> seen = sp.csr_matrix(([1, 1], ([0, 1], [1, 2])), shape=(2, 4))
    >>> top_k(scores, 2, exclude=seen)
    array([[3, 2],
           [0, 1]])
    """
    return ranked_top_k(scores, k, exclude, n_users, block_size)[0]
