"""Metric options of the displays: keywords, as in every other front-end.

``from_predictions`` takes ``convention`` and the convention keywords of
``evaluate`` directly (the other keywords go to matplotlib); the 0.1 spelling
``metric_options={...}`` still works with a ``FutureWarning``.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402

from sklearn_rank import evaluate  # noqa: E402
from sklearn_rank._engine.conventions import OPTIONS, take_options  # noqa: E402
from sklearn_rank.plot import (  # noqa: E402
    GroupScoreDisplay,
    MetricAtKDisplay,
    PairedDifferenceDisplay,
    PrecisionRecallDisplay,
    SegmentDisplay,
)

DEPRECATION = (
    "'metric_options' was deprecated in 0.1 and will be removed in 0.3; "
    "pass the options as keywords"
)
CASES = [
    (MetricAtKDisplay, {"k_max": 4}),
    (GroupScoreDisplay, {}),
    (PairedDifferenceDisplay, {}),
    (PrecisionRecallDisplay, {}),
    (SegmentDisplay, {"segments": None, "confidence_level": None}),
]


def _data(seed=0, n_groups=20):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), rng.integers(3, 15, n_groups))
    n = groups.size
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    scores = {"a": np.round(y + rng.normal(size=n), 1), "b": rng.normal(size=n)}
    return y, scores, groups


def _call(cls, kw, **more):
    y, scores, groups = _data()
    kw = dict(kw)
    if "segments" in kw:
        kw["segments"] = groups % 3
    return cls.from_predictions(
        y, scores, groups=groups, ax=Figure().add_subplot(), **kw, **more
    )


def _state(disp):
    return {k: v for k, v in vars(disp).items() if not k.endswith("_")}


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_keywords_equal_the_deprecated_dict_which_warns(cls, kw):
    options = {"convention": "trec_eval", "ties": "pessimistic"}
    direct = _call(cls, kw, **options)
    with pytest.warns(FutureWarning, match=DEPRECATION) as record:
        old = _call(cls, kw, metric_options=options)
    assert record[0].filename == __file__  # the warning points at the caller
    np.testing.assert_equal(_state(direct), _state(old))


@pytest.mark.parametrize(("cls", "kw"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_keywords_reach_the_metric_and_are_checked(cls, kw):
    with pytest.raises(ValueError, match="ties"):
        _call(cls, kw, ties="no such rule")
    with pytest.raises(ValueError, match="metric_options"):
        with pytest.warns(FutureWarning):
            _call(cls, kw, ties="average", metric_options={"ties": "average"})


def test_a_keyword_changes_the_values_as_in_evaluate():
    y, scores, groups = _data()
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        groups=groups,
        k_max=3,
        ties="pessimistic",
        gain="linear",
        ax=Figure().add_subplot(),
    )
    for model, score in scores.items():
        expected = [
            evaluate(
                y,
                score,
                groups=groups,
                metrics=[f"ndcg@{k}"],
                ties="pessimistic",
                gain="linear",
            )[f"ndcg@{k}"]
            for k in (1, 2, 3)
        ]
        np.testing.assert_allclose(disp.values[model], expected, rtol=1e-12)
    plain = MetricAtKDisplay.from_predictions(
        y, scores, groups=groups, k_max=3, ax=Figure().add_subplot()
    )
    assert not np.allclose(plain.values["a"], disp.values["a"])


def test_matplotlib_keywords_still_reach_plot():
    disp = _call(MetricAtKDisplay, {"k_max": 3}, linestyle="--", ties="average")
    assert {line.get_linestyle() for line in disp.lines_.values()} == {"--"}


def test_take_options_moves_only_the_convention_keywords():
    kwargs = {"convention": "trec_eval", "gain": "linear", "color": "red"}
    assert take_options(kwargs) == {"convention": "trec_eval", "gain": "linear"}
    assert kwargs == {"color": "red"}
    every = dict.fromkeys(OPTIONS)
    assert take_options(every) == dict.fromkeys(OPTIONS) and every == {}


def test_docstrings_list_the_option_table():
    for cls, _ in CASES:
        doc = " ".join(cls.from_predictions.__doc__.split())
        assert "{metric_keywords}" not in doc
        assert all(f"``{name}``" in doc for name in OPTIONS), cls.__name__
        assert "Deprecated in 0.1" in doc
