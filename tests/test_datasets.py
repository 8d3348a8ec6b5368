"""The bundled LambdaRank sample and its loader."""

import gzip
import hashlib
from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rank.datasets import load_lambdarank

# SHA-256 of the files as published upstream (LightGBM examples/lambdarank at
# commit bae0b7ba953341a32b2a9c5c5c437a1b976f576f); the data README lists them too.
UPSTREAM_SHA256 = {
    "rank.train": "a0c7201c89120879c14a5059e091f441cbf2a29b8aaef363885ccb1a530448df",
    "rank.train.query": (
        "40cb5fef637229311cd30fab13cb7fb633b023e86a87ff04ec55db420143d6af"
    ),
    "rank.test": "3b1219ce117a0a36d2f76c02de7e7831c1d79af0d40f5195c03178bbe26c824b",
    "rank.test.query": (
        "36dca82ba3bf99201bac3987b00a8fbf6fe5f563e9fa6d0da90e783710a32df4"
    ),
}


def _data_dir():
    return resources.files("sklearn_rank.datasets").joinpath("data")


@pytest.mark.parametrize("name", sorted(UPSTREAM_SHA256))
def test_shipped_files_are_upstream_content_unchanged(name):
    packed = _data_dir().joinpath(f"{name}.gz").read_bytes()
    digest = hashlib.sha256(gzip.decompress(packed)).hexdigest()
    assert digest == UPSTREAM_SHA256[name]


def test_licence_and_source_travel_with_the_data():
    licence = _data_dir().joinpath("LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence
    assert "Copyright (c) Microsoft Corporation" in licence
    readme = _data_dir().joinpath("README.md").read_text(encoding="utf-8")
    assert "bae0b7ba953341a32b2a9c5c5c437a1b976f576f" in readme
    assert "microsoft/LightGBM" in readme
    for name, digest in UPSTREAM_SHA256.items():
        assert f"`{name}.gz`" in readme
        assert digest in readme
    assert load_lambdarank().DESCR == readme


def test_train_part_matches_the_published_description():
    X, y, groups = load_lambdarank(return_X_y=True)
    assert isinstance(X, np.ndarray)
    assert X.shape == (3005, 300)
    assert X.dtype == np.float64
    assert y.dtype == np.int64
    assert groups.dtype == np.int64
    # Label counts given in the source's README.
    assert np.bincount(y).tolist() == [645, 1211, 858, 222, 69]
    assert 0.0 <= X.min() and X.max() <= 1.0
    # File index j is column j - 1: the first row of rank.train starts "0 10:0.89".
    assert X[0, 9] == pytest.approx(0.89)
    assert X[0, :9].tolist() == [0.0] * 9
    # 201 queries, numbered in row order, rows of a query contiguous.
    assert np.all(np.diff(groups) >= 0)
    assert np.unique(groups).tolist() == list(range(201))
    assert np.bincount(groups)[:5].tolist() == [1, 13, 5, 8, 19]


def test_test_part_ids_follow_the_train_ids():
    bunch = load_lambdarank(subset="test")
    assert bunch.data.shape == (768, 300)
    assert np.unique(bunch.groups).tolist() == list(range(201, 251))
    assert np.bincount(bunch.groups - 201)[:4].tolist() == [12, 19, 18, 10]
    assert set(np.unique(bunch.target).tolist()) <= {0, 1, 2, 3, 4}


def test_all_is_train_then_test():
    train = load_lambdarank(subset="train")
    test = load_lambdarank(subset="test")
    both = load_lambdarank(subset="all")
    np.testing.assert_array_equal(both.data, np.vstack([train.data, test.data]))
    np.testing.assert_array_equal(both.target, np.r_[train.target, test.target])
    np.testing.assert_array_equal(both.groups, np.r_[train.groups, test.groups])
    assert both.feature_names[0] == "feature_1"
    assert both.feature_names[-1] == "feature_300"


def test_sparse_matches_dense():
    dense = load_lambdarank(subset="test", return_X_y=True)[0]
    X = load_lambdarank(subset="test", sparse=True, return_X_y=True)[0]
    assert sp.issparse(X) and X.format == "csr"
    np.testing.assert_array_equal(X.toarray(), dense)


def test_as_frame():
    pd = pytest.importorskip("pandas")
    bunch = load_lambdarank(subset="test", as_frame=True)
    assert isinstance(bunch.data, pd.DataFrame)
    assert list(bunch.data.columns) == bunch.feature_names
    assert bunch.target.name == "relevance"
    assert bunch.groups.name == "qid"
    assert list(bunch.frame.columns[-2:]) == ["qid", "relevance"]
    np.testing.assert_array_equal(
        bunch.frame.to_numpy()[:, :300], load_lambdarank(subset="test").data
    )
    X, _, groups = load_lambdarank(subset="test", as_frame=True, return_X_y=True)
    assert isinstance(X, pd.DataFrame) and isinstance(groups, pd.Series)


def test_loader_returns_fresh_arrays():
    first = load_lambdarank(subset="test")
    first.data[:] = -1.0
    assert load_lambdarank(subset="test").data.min() == 0.0


def test_bad_subset():
    msg = "The 'subset' parameter of load_lambdarank must be"
    with pytest.raises(ValueError, match=msg):
        load_lambdarank(subset="valid")
