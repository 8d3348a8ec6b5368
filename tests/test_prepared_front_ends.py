"""Front-ends that score several models on the same labels prepare them once.

``stats.compare`` (and through it ``cross_val_compare``), the displays drawn
from several models' predictions (``GroupScoreDisplay``,
``PairedDifferenceDisplay``, ``InterpolatedPrecisionRecallDisplay``) go through
``evaluate_models``: one ``prepare`` for all models, the numbers of one cold
call per model. Each test counts the ``prepare`` calls (it fails if a front-end
stops preparing) and compares the values with the cold calls exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank._metrics import prepared as prepared_module


def _data(seed=0, n_groups=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 25, n_groups)
    groups = np.repeat(np.arange(n_groups) * 7 + 100, sizes)
    n = groups.size
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
    scores = {
        "good": y + rng.normal(size=n),
        "noise": rng.normal(size=n),
        "tied": np.round(rng.normal(size=n)),
    }
    return y, scores, groups


@pytest.fixture
def prepare_calls(monkeypatch):
    """The metrics each ``prepare`` call was made for."""
    calls = []
    real = prepared_module.prepare

    def counting(*args, **kwargs):
        calls.append(kwargs.get("metrics"))
        return real(*args, **kwargs)

    monkeypatch.setattr(prepared_module, "prepare", counting)
    return calls


def _cold_per_group(y, scores, groups, metrics, **options):
    return {
        m: sr.evaluate_per_group(y, s, groups=groups, metrics=metrics, **options)
        for m, s in scores.items()
    }


def _assert_same(got, want):
    assert got.keys() == want.keys()
    for model in want:
        for name in want[model].values:
            np.testing.assert_array_equal(
                got[model].values[name], want[model].values[name], strict=True
            )
            np.testing.assert_array_equal(
                got[model].weights[name], want[model].weights[name], strict=True
            )


@pytest.mark.parametrize("per_group", [False, True])
def test_evaluate_models_prepares_once_and_equals_cold_calls(prepare_calls, per_group):
    y, scores, groups = _data()
    metrics = ["ndcg@10", "map", "mrr", "precision@5"]
    weight = np.random.default_rng(1).random(y.size)
    got = prepared_module.evaluate_models(
        y,
        scores,
        groups=groups,
        metrics=metrics,
        per_group=per_group,
        sample_weight=weight,
        ties="average",
    )
    assert len(prepare_calls) == 1
    one = sr.evaluate_per_group if per_group else sr.evaluate
    want = {
        m: one(y, s, groups=groups, metrics=metrics, sample_weight=weight)
        for m, s in scores.items()
    }
    if per_group:
        _assert_same(got, want)
    else:
        assert got == want
    # One model: a plain call, nothing to share.
    prepare_calls.clear()
    single = prepared_module.evaluate_models(
        y, {"good": scores["good"]}, groups=groups, metrics=metrics
    )
    assert not prepare_calls
    assert single == {
        "good": sr.evaluate(y, scores["good"], groups=groups, metrics=metrics)
    }


def _cold_models(y_true, y_scores, *, groups, metrics, per_group=False, **options):
    """The path before prepare: one cold call per model."""
    one = sr.evaluate_per_group if per_group else sr.evaluate
    return {
        m: one(y_true, s, groups=groups, metrics=metrics, **options)
        for m, s in y_scores.items()
    }


def test_compare_prepares_once(prepare_calls, monkeypatch):
    from sklearn_rank.stats import compare

    y, scores, groups = _data(2)
    kw = dict(metrics=["ndcg@10", "mrr"], random_state=0, n_resamples=500)
    got = compare(y, scores, groups=groups, **kw)
    assert len(prepare_calls) == 1
    # The same report as one cold evaluate_per_group per model.
    import sklearn_rank.stats._inputs as stats_inputs

    monkeypatch.setattr(stats_inputs, "evaluate_models", _cold_models)
    assert compare(y, scores, groups=groups, **kw) == got
    assert len(prepare_calls) == 1


@pytest.mark.filterwarnings("ignore:compare:RuntimeWarning")
def test_cross_val_compare_prepares_the_test_labels_once(prepare_calls, monkeypatch):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold

    import sklearn_rank.stats._inputs as stats_inputs
    from sklearn_rank.stats import cross_val_compare

    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(30), 8)
    X = rng.normal(size=(groups.size, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=groups.size) > 0.8).astype(int)
    models = {"strong": Ridge(alpha=1.0), "weak": Ridge(alpha=1e5), "x": Ridge()}
    cv = GroupKFold(n_splits=3)
    kw = dict(metrics=["ndcg@5", "mrr"], n_resamples=200, random_state=0)
    got = cross_val_compare(models, X, y, groups=groups, cv=cv, **kw)
    # Three models scored against the same out-of-fold labels: one prepare.
    assert len(prepare_calls) == 1
    monkeypatch.setattr(stats_inputs, "evaluate_models", _cold_models)
    assert cross_val_compare(models, X, y, groups=groups, cv=cv, **kw) == got


@pytest.fixture
def axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure().add_subplot()


def test_group_score_display_prepares_once(prepare_calls, axes):
    from sklearn_rank.plot import GroupScoreDisplay

    y, scores, groups = _data(4)
    disp = GroupScoreDisplay.from_predictions(
        y, scores, groups=groups, metric="ndcg@5", ax=axes
    )
    assert len(prepare_calls) == 1
    cold = _cold_per_group(y, scores, groups, ["ndcg@5"])
    for m in scores:
        np.testing.assert_array_equal(
            np.asarray(disp.values[m]), cold[m].values["ndcg@5"], strict=False
        )


def test_paired_display_prepares_once(prepare_calls, axes):
    from sklearn_rank.plot import PairedDifferenceDisplay

    y, scores, groups = _data(5)
    disp = PairedDifferenceDisplay.from_predictions(
        y, scores, groups=groups, metric="mrr", baseline="noise", ax=axes
    )
    assert len(prepare_calls) == 1
    cold = _cold_per_group(y, scores, groups, ["mrr"])
    base = cold["noise"].values["mrr"]
    for m in ("good", "tied"):
        want = cold[m].values["mrr"] - base
        got = np.asarray(disp.differences[m])  # sorted, largest win first
        np.testing.assert_array_equal(np.sort(got), np.sort(want[~np.isnan(want)]))


def test_precision_recall_display_prepares_once(prepare_calls, axes):
    from sklearn_rank.plot import InterpolatedPrecisionRecallDisplay

    y, scores, groups = _data(6)
    del scores["tied"]  # ties="average" has no interpolated precision on them
    disp = InterpolatedPrecisionRecallDisplay.from_predictions(
        y, scores, groups=groups, ax=axes
    )
    assert len(prepare_calls) == 1
    names = [f"iprec@{r:g}" for r in np.round(np.linspace(0, 1, 11), 1)]
    for m, s in scores.items():
        ref = sr.evaluate(y, s, groups=groups, metrics=[*names, "iprec_11pt"])
        assert disp.lines_[m].get_ydata().tolist() == [ref[n] for n in names]
        assert disp.average_precision[m] == ref["iprec_11pt"]
