"""The ``*_score`` functions declared from the metric table (``_metrics/declare``)
behave as written-out functions: they report their module and name, refuse
unknown or misplaced arguments with a ``TypeError`` naming the function, carry
annotations a type-hint reader can resolve, and their examples run as doctests."""

import doctest
import importlib
import typing

import pytest

import sklearn_rank
from sklearn_rank._metrics.registry import METRICS

SPECS = list(METRICS.values())


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_declared_function_reports_its_module_and_name(spec):
    func = getattr(sklearn_rank, spec.function)
    assert func.__module__ == f"sklearn_rank.{spec.module}"
    assert func.__name__ == func.__qualname__ == spec.function
    hints = typing.get_type_hints(func)
    assert hints["return"] is float
    assert set(hints) >= {"y_true", "y_score", "groups", "convention"}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_declared_function_has_a_doctest(spec):
    module = importlib.import_module(f"sklearn_rank.{spec.module}")
    found = {t.name.rpartition(".")[2]: t for t in doctest.DocTestFinder().find(module)}
    assert found[spec.function].examples, spec.function


def test_bad_arguments_name_the_function():
    with pytest.raises(TypeError, match=r"ndcg_score\(\) got an unexpected keyword"):
        sklearn_rank.ndcg_score([1], [1], groups=[0], tie="average")
    with pytest.raises(TypeError, match=r"map_score\(\) too many positional"):
        sklearn_rank.map_score([1], [1], [0])
    with pytest.raises(TypeError, match=r"r_precision_score\(\) got an unexpected"):
        sklearn_rank.r_precision_score([1], [1], groups=[0], k=3)  # no cutoff
    with pytest.raises(TypeError, match=r"mrr_score\(\) missing .* 'groups'"):
        sklearn_rank.mrr_score([1], [1])
    assert sklearn_rank.auc_score([0, 1], [0.1, 0.2]) == 1.0  # pooled: no groups
