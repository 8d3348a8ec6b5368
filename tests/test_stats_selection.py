"""cross_val_compare: out-of-fold predictions of several models, then compare."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_val_predict

from sklearn_rank.stats import compare, cross_val_compare


def _data():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(40), 8)
    X = rng.normal(size=(groups.size, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=groups.size) > 0.8).astype(int)
    return X, y, groups


def test_equals_compare_on_hand_made_out_of_fold_scores():
    X, y, groups = _data()
    cv = GroupKFold(n_splits=4)
    models = {"strong": Ridge(alpha=1.0), "weak": Ridge(alpha=1e5)}
    kw = dict(metrics=["ndcg@5", "mrr"], n_resamples=300, random_state=0)
    got = cross_val_compare(models, X, y, groups=groups, cv=cv, **kw)
    oof = {
        name: cross_val_predict(est, X, y, groups=groups, cv=cv)
        for name, est in models.items()
    }
    assert got == compare(y, oof, groups=groups, **kw)


def test_search_top_candidates_in_rank_order():
    X, y, groups = _data()
    cv = GroupKFold(n_splits=4)
    search = GridSearchCV(Ridge(), {"alpha": [1e5, 0.1, 1e3]}, cv=cv)
    search.fit(X, y, groups=groups)
    report = cross_val_compare(
        search, X, y, groups=groups, cv=cv, top=3, metrics="ndcg@5", n_resamples=99,
        random_state=0,
    )  # fmt: skip
    ranks = search.cv_results_["rank_test_score"]
    alphas = [search.cv_results_["params"][i]["alpha"] for i in np.argsort(ranks)]
    names = [m.model for m in report.models]
    assert names == [f"#{i + 1} alpha={a!r}" for i, a in enumerate(alphas)]
    assert len(report.pairs) == 3


def test_rejects_a_splitter_that_splits_groups():
    X, y, groups = _data()
    with pytest.raises(ValueError, match="The 'cv' parameter of cross_val_compare"):
        cross_val_compare(
            {"a": Ridge(), "b": Ridge(alpha=10)}, X, y, groups=groups,
            cv=KFold(3, shuffle=True, random_state=0),
        )  # fmt: skip
