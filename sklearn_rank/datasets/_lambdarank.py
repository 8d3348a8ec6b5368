"""Loader for the LambdaRank sample bundled in ``datasets/data`` (see its README)."""

import gzip
from importlib import resources

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.utils import Bunch

from .._utils.params import IsBool, StrOptions, validate_params

N_FEATURES = 300
# Query ids are global over the two parts: train queries first, then test queries.
_PARTS = {"train": "rank.train", "test": "rank.test"}
_SUBSETS = ("train", "test", "all")


def _data_file(name):
    return resources.files("sklearn_rank.datasets").joinpath("data").joinpath(name)


def _read_part(stem):
    """Return (X as CSR, y as int64, query sizes) of one part of the data."""
    with _data_file(f"{stem}.gz").open("rb") as raw, gzip.open(raw) as fh:
        X, y = load_svmlight_file(
            fh, n_features=N_FEATURES, zero_based=False, dtype=np.float64
        )
    with _data_file(f"{stem}.query.gz").open("rb") as raw, gzip.open(raw) as fh:
        sizes = np.array(fh.read().split(), dtype=np.int64)
    if sizes.sum() != X.shape[0]:  # pragma: no cover - guards the shipped files
        raise RuntimeError(
            f"The bundled file {stem}.query.gz describes {sizes.sum()} rows "
            f"but {stem}.gz holds {X.shape[0]}; the package data is damaged."
        )
    return X.tocsr(), y.astype(np.int64), sizes


@validate_params(
    {
        "subset": [StrOptions(*_SUBSETS)],
        "return_X_y": [IsBool()],
        "as_frame": [IsBool()],
        "sparse": [IsBool()],
    }
)
def load_lambdarank(*, subset="train", return_X_y=False, as_frame=False, sparse=False):
    """Load the LambdaRank learning-to-rank sample shipped with sklearn_rank.

    A small real data set from LightGBM's ``examples/lambdarank`` (MIT License,
    Copyright (c) Microsoft Corporation): 201 training queries (3005 rows) and 50
    test queries (768 rows), 300 features in [0, 1], graded relevance 0..4. It is
    read from the package itself: no download.

    ==============  ====================================
    Queries         201 (train) + 50 (test)
    Rows            3005 (train) + 768 (test)
    Features        300, real, mostly zero
    Relevance       integer grades 0..4
    ==============  ====================================

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        Which part to load. ``"all"`` stacks the training rows, then the test rows.

    return_X_y : bool, default=False
        If True, return ``(X, y, groups)`` instead of a Bunch.

    as_frame : bool, default=False
        If True, ``X`` is a pandas DataFrame with columns ``feature_1`` ..
        ``feature_300``, ``y`` a Series named ``"relevance"`` and ``groups`` a
        Series named ``"qid"``; the Bunch's ``frame`` holds the features, ``qid``
        and ``relevance`` in one DataFrame. Needs pandas.

    sparse : bool, default=False
        If True (and ``as_frame=False``), ``X`` is a ``scipy.sparse`` CSR matrix,
        as stored in the files; by default it is a dense array, which every
        scikit-learn model accepts (``HistGradientBoostingRegressor`` needs it).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With ``data`` (X: float64, shape (n_rows, 300)), ``target`` (y: int64
        relevance grades), ``groups`` (int64 query id of each row: 0..200 for the
        training queries, 201..250 for the test queries, so they never collide),
        ``feature_names``, ``frame`` (DataFrame or None) and ``DESCR``. Rows of one
        query are contiguous and in file order.

    (X, y, groups) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from sklearn_rank.datasets import load_lambdarank
    >>> X, y, groups = load_lambdarank(return_X_y=True)
    >>> X.shape, X.dtype  # 3005 query-document rows, 300 features
    ((3005, 300), dtype('float64'))
    >>> sorted(set(y.tolist()))  # graded relevance
    [0, 1, 2, 3, 4]
    >>> len(set(groups.tolist()))  # 201 queries
    201
    >>> groups[:4].tolist()  # query 0 has one row, query 1 starts at row 1
    [0, 1, 1, 1]
    >>> test = load_lambdarank(subset="test")
    >>> test.data.shape, int(test.groups.min()), int(test.groups.max())
    ((768, 300), 201, 250)
    """
    names = ["train", "test"] if subset == "all" else [subset]
    parts = {name: _read_part(_PARTS[name]) for name in ("train", "test")}
    first_id = {"train": 0, "test": len(parts["train"][2])}

    X = sp.vstack([parts[n][0] for n in names], format="csr")
    y = np.concatenate([parts[n][1] for n in names])
    groups = np.concatenate(
        [
            first_id[n] + np.repeat(np.arange(len(parts[n][2])), parts[n][2])
            for n in names
        ]
    )
    feature_names = [f"feature_{j}" for j in range(1, N_FEATURES + 1)]
    if not (sparse and not as_frame):
        X = X.toarray()

    frame = None
    if as_frame:
        import pandas as pd

        X = pd.DataFrame(X, columns=feature_names)
        y = pd.Series(y, name="relevance")
        groups = pd.Series(groups, name="qid")
        frame = pd.concat([X, groups, y], axis=1)

    if return_X_y:
        return X, y, groups
    with _data_file("README.md").open("r", encoding="utf-8") as fh:
        descr = fh.read()
    return Bunch(
        data=X,
        target=y,
        groups=groups,
        feature_names=feature_names,
        frame=frame,
        DESCR=descr,
    )
