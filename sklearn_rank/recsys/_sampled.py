"""``evaluate_sampled``: each held-out item ranked against ``n_negatives``
items sampled per user (the "sampled metrics" of many papers), with the
corrections of Krichene & Rendle (KDD 2020) that estimate the full-catalogue
value from the sampled rank. Definitions in docs/recsys.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.utils import check_random_state

from .._engine.conventions import resolve_options
from .._engine.reduce import mean_over_groups
from .._metrics.evaluate import evaluate_per_group
from .._utils.params import param_error
from ._evaluate import _check_test, _metric_names
from ._topk import _BLOCK_CELLS, _blocks, _check_exclude, _refuse_nan

_FUNC = "evaluate_sampled"
SAMPLED_METRICS = ("hit_rate", "ndcg", "recall")
CORRECTIONS = ("none", "expected_rank", "bias_variance")


def metric_at_rank(names: list[str], k: int, n_ranks: int, **options) -> dict:
    """Value of each metric for a list whose one relevant item is at rank
    ``R = 1 .. n_ranks``, computed by the engine (no formula restated here): one
    group per rank up to ``k + 1``; every rank past ``k`` has the value at
    ``k + 1`` (all three metrics are cut at ``k``)."""
    top = min(k + 1, n_ranks)
    sizes = np.arange(1, top + 1)
    groups = np.repeat(sizes, sizes)
    pos = np.arange(groups.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    y_true = (pos == groups - 1).astype(np.float64)  # relevant item last
    y_score = -pos.astype(np.float64)
    res = evaluate_per_group(y_true, y_score, groups=groups, metrics=names, **options)
    out = {}
    for name in names:
        v = np.asarray(res.values[name], dtype=np.float64)
        out[name] = np.concatenate([v, np.full(n_ranks - top, v[-1])])
    return out


def _transition(n_pool: int, n_neg: int) -> np.ndarray:
    """``P[R - 1, r - 1]``: probability of sampled rank ``r`` given full rank
    ``R`` among ``n_pool`` negatives, ``n_neg`` drawn without replacement
    (hypergeometric: ``r - 1`` of the ``R - 1`` negatives above are drawn)."""
    above = np.arange(n_pool + 1, dtype=np.float64)[:, None]
    drawn = np.arange(n_neg + 1, dtype=np.float64)[None, :]
    with np.errstate(invalid="ignore"):
        log_p = (
            _log_choose(above, drawn)
            + _log_choose(n_pool - above, n_neg - drawn)
            - _log_choose(float(n_pool), float(n_neg))
        )
    return np.where(np.isnan(log_p), 0.0, np.exp(log_p))


def _log_choose(n, r):
    """log C(n, r); -inf where r > n or r < 0 (impossible draws)."""
    n, r = np.broadcast_arrays(np.asarray(n, float), np.asarray(r, float))
    ok = (r >= 0) & (r <= n)
    out = np.full(n.shape, -np.inf)
    out[ok] = gammaln(n[ok] + 1) - gammaln(r[ok] + 1) - gammaln(n[ok] - r[ok] + 1)
    return out


def correction_table(
    full: np.ndarray, n_pool: int, n_neg: int, correction: str, gamma: float
) -> np.ndarray:
    """Value given to each sampled rank ``r = 1 .. n_neg + 1``, from the metric's
    value ``full`` at each full rank ``R = 1 .. n_pool + 1``."""
    if correction == "none":
        return full[: n_neg + 1]
    if correction == "expected_rank":
        # E[r - 1 | R] = (R - 1) n / N: map r back to R = 1 + (r - 1) N / n
        rank = 1 + np.rint(np.arange(n_neg + 1) * n_pool / n_neg).astype(np.intp)
        return full[rank - 1]
    a = _transition(n_pool, n_neg)
    # argmin_m sum_R [(E[m(r)|R] - M(R))^2 + gamma Var(m(r)|R)], uniform p(R)
    lhs = (1 - gamma) * a.T @ a + gamma * np.diag(a.sum(axis=0))
    return np.linalg.lstsq(lhs, a.T @ full, rcond=None)[0]


def _check_n_negatives(n_negatives: Any, smallest_pool: int) -> int:
    if isinstance(n_negatives, (bool, np.bool_)) or not isinstance(
        n_negatives, (int, np.integer)
    ):
        raise param_error("n_negatives", _FUNC, "an int >= 1", n_negatives)
    if n_negatives < 1 or n_negatives > smallest_pool:
        raise param_error(
            "n_negatives",
            _FUNC,
            f"an int in [1, {smallest_pool}] (the smallest pool of a user's "
            "items neither held out nor excluded)",
            n_negatives,
            "Sample fewer negatives, or drop the users with few candidates.",
        )
    return int(n_negatives)


def _check_names(metrics: Any, k: int) -> list[str]:
    names = _metric_names(metrics, k)
    for name in names:
        base = name.split("@")[0]
        if base not in SAMPLED_METRICS or name != f"{base}@{k}":
            raise param_error(
                "metrics", _FUNC, f"among {SAMPLED_METRICS} at the cutoff k={k}", name
            )
    return names


def _sampled_ranks(scores, rel, blocked, n_neg, rng, block_size) -> np.ndarray:
    """Sampled rank of each stored entry of ``rel`` (CSR order): one uniform
    draw of ``n_neg`` items per user outside ``blocked``, without replacement."""
    n_users, n_items = rel.shape
    if block_size is None:
        block_size = max(1, _BLOCK_CELLS // max(n_items, 1))
    ranks = np.empty(rel.nnz, dtype=np.intp)
    for start, block in _blocks(scores, n_users, block_size):
        _refuse_nan(block, start)
        stop = start + block.shape[0]
        keys = rng.random_sample(block.shape)
        keys[blocked[start:stop].toarray() > 0] = np.inf  # never sampled
        sample = np.argpartition(keys, n_neg - 1, axis=1)[:, :n_neg]
        neg = np.take_along_axis(block, sample, axis=1)
        rows = rel[start:stop]
        local = np.repeat(np.arange(stop - start), np.diff(rows.indptr))
        pos = block[local, rows.indices]
        lo, hi = rel.indptr[start], rel.indptr[stop]
        ranks[lo:hi] = 1 + (neg[local] >= pos[:, None]).sum(axis=1)
    return ranks


def evaluate_sampled(
    scores: Any,
    test: Any,
    *,
    exclude: Any = None,
    n_negatives: int = 100,
    k: int,
    metrics: str | Sequence[str] = ("hit_rate", "ndcg", "recall"),
    correction: str = "bias_variance",
    gamma: float = 0.01,
    random_state: Any = None,
    block_size: int | None = None,
    **options: Any,
) -> dict[str, float]:
    """Sampled-negative evaluation, optionally corrected (Krichene & Rendle 2020).

    For each user, ``n_negatives`` items are drawn uniformly without replacement
    from the pool of items neither held out nor excluded; each held-out item gets
    the sampled rank ``r = 1 + #{sampled items scored >= it}`` (ties count
    against it). A metric value is given to each ``r`` by ``correction``;
    the per-user value is the mean over the user's held-out items, the result
    the mean over users with held-out items.

    Parameters
    ----------
    scores : ndarray of shape (n_users, n_items), sparse matrix or callable
        As in :func:`top_k`.
    test : sparse matrix of shape (n_users, n_items)
        Held-out interactions (entries with a grade > 0 are the relevant items).
    exclude : sparse matrix of shape (n_users, n_items), default=None
        Interactions never sampled nor ranked (training items).
    n_negatives : int, default=100
        Negatives sampled per user.
    k : int
        Cutoff of the metrics.
    metrics : str or list of str, default=("hit_rate", "ndcg", "recall")
        Among ``hit_rate``, ``ndcg``, ``recall`` (``@k`` optional).
    correction : {"bias_variance", "expected_rank", "none"}, \
default="bias_variance"
        ``"none"``: the metric at the sampled rank (the biased sampled metric).
        ``"expected_rank"``: the metric at the full rank whose expected sampled
        rank is ``r``, ``R = 1 + round((r - 1) N / n)`` (``N`` the user's pool).
        ``"bias_variance"``: the values ``m(r)`` minimising
        ``sum_R [(E[m(r) | R] - M(R))^2 + gamma Var(m(r) | R)]`` over the full
        ranks ``R`` (uniform weights), the paper's bias/variance correction.
    gamma : float, default=0.01
        Weight of the variance (``gamma = 0``, the minimal-bias solution, is
        ill-conditioned: its values explode).
        Weight of the variance for ``"bias_variance"``.
    random_state : int, RandomState instance or None, default=None
        Seed of the negative sampling.
    block_size : int, default=None
        Users per block of scores.
    **options
        The conventions' keywords, passed to the engine that values each rank.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sklearn_rank.recsys import evaluate_sampled
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((50, 200))
    >>> test = sp.csr_matrix((np.ones(50), (np.arange(50), np.arange(50))),
    ...                      shape=(50, 200))
    >>> res = evaluate_sampled(scores, test, n_negatives=20, k=5,
    ...                        metrics="hit_rate", correction="none",
    ...                        random_state=0)
    >>> sorted(res)
    ['hit_rate@5']
    """
    if correction not in CORRECTIONS:
        raise param_error("correction", _FUNC, f"one of {CORRECTIONS}", correction)
    if not (isinstance(gamma, (int, float)) and 0 <= gamma <= 1):
        raise param_error("gamma", _FUNC, "a float in [0, 1]", gamma)
    if not callable(scores):
        scores = sp.csr_matrix(scores) if sp.issparse(scores) else np.asarray(scores)
        if scores.ndim != 2:
            raise param_error("scores", _FUNC, "2-D (n_users, n_items)", scores.shape)
    n_users = test.shape[0] if sp.issparse(test) else None
    n_items = test.shape[1] if callable(scores) else np.shape(scores)[1]
    test = _check_test(
        test, (n_users if callable(scores) else scores.shape[0], n_items)
    )
    n_users = test.shape[0]
    names = _check_names(metrics, k)
    rel = test.copy()
    rel.data = (rel.data > 0).astype(np.float64)
    rel.eliminate_zeros()
    rel.sort_indices()
    exclude = _check_exclude(exclude, n_users, n_items)
    blocked = rel.copy()
    if exclude is not None:
        blocked = ((blocked + exclude) > 0).astype(np.float64).tocsr()
    pool = n_items - np.diff(blocked.indptr)
    has = np.diff(rel.indptr) > 0
    n_neg = _check_n_negatives(
        n_negatives, int(pool[has].min()) if has.any() else n_items
    )
    ranks = _sampled_ranks(
        scores, rel, blocked, n_neg, check_random_state(random_state), block_size
    )
    pair_user = np.repeat(np.arange(n_users), np.diff(rel.indptr))
    pair_pool = pool[pair_user]
    # undefined is the rule of the mean over users below, not of a rank's value
    per_rank = {key: v for key, v in options.items() if key != "undefined"}
    full = metric_at_rank(names, k, int(pool.max()) + 1, **per_rank)
    stacked = np.column_stack([full[name] for name in names])
    value = np.empty((rel.nnz, len(names)))
    for n_pool in np.unique(pair_pool):
        at = pair_pool == n_pool
        table = correction_table(
            stacked[: n_pool + 1], int(n_pool), n_neg, correction, gamma
        )
        value[at] = table[ranks[at] - 1]
    # users without held-out items are undefined: the library's rule and mean
    given = {key: v for key, v in options.items() if key != "convention"}
    opts = resolve_options(_FUNC, options.get("convention"), given)
    n_held = np.maximum(np.diff(rel.indptr), 1)
    out = {}
    for j, name in enumerate(names):
        per_user = np.bincount(pair_user, value[:, j], n_users) / n_held
        out[name] = mean_over_groups(
            per_user, has, np.ones(n_users), opts.undefined, name, np.arange(n_users)
        )
    return out
