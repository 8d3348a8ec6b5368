"""The recipe for adding a metric or an option, enforced.

Adding a metric = a kernel, one ``MetricSpec``, an oracle in ``_reference.ORACLES``
and a docs section; adding an option = one ``OPTIONS`` entry (plus the kernels and
oracle that read it, and a strategy). Each test here fails when one of those steps
is missing or when a hand-written surface drifts from the tables.
"""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from _reference import ORACLES, reference_mean
from strategies import OPTION_STRATEGIES
from test_intent_metrics import INTENT_ORACLES

import sklearn_rank
from sklearn_rank._engine.conventions import OPTIONS, PRESETS, preset_values
from sklearn_rank._engine.kernels.intent import WEIGHTED
from sklearn_rank._metrics.declare import option_doc
from sklearn_rank._metrics.registry import METRICS, MetricSpec
from sklearn_rank._sklearn import scorer as _scorer

DOCS = Path(__file__).resolve().parents[1] / "docs"
SPECS = list(METRICS.values())
# The metrics of one label per row; the intent-aware ones (a 2-D y_true) have
# their brute-force oracles in tests/test_intent_metrics.py.
SINGLE = [spec for spec in SPECS if not spec.intents]


def test_every_metric_has_an_independent_oracle():
    single = {spec.name for spec in SINGLE}
    assert set(ORACLES) == single, "add an oracle to tests/_reference.py"
    intents = set(METRICS) - single
    assert set(INTENT_ORACLES) == intents, "add one to tests/test_intent_metrics.py"


@pytest.mark.parametrize("spec", SINGLE, ids=lambda s: s.name)
def test_oracle_agrees_with_the_registry_on_what_the_metric_reads(spec):
    oracle = ORACLES[spec.name]
    assert oracle.cutoff == spec.takes_k
    assert oracle.graded == (spec.labels in ("gain", "grades", "raw"))
    assert oracle.reads_pool == spec.reads_pool  # the in_pool mask


def test_every_option_has_a_strategy_and_reaches_the_oracle():
    assert set(OPTION_STRATEGIES) == set(OPTIONS), "add a strategy to strategies.py"
    oracle_keywords = set(inspect.signature(reference_mean).parameters)
    assert set(OPTIONS) <= oracle_keywords, "the reference must take every option"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_public_signature_follows_the_registry(spec):
    func = getattr(sklearn_rank, spec.function)
    assert spec.function in sklearn_rank.__all__
    params = inspect.signature(func).parameters
    expected = ["y_true", "y_score", "groups"]
    expected += ["k"] if spec.takes_k else []
    expected += [*spec.options, "sample_weight"]
    expected += ["retrieved"] + ["judged"] * (not spec.intents)
    expected += ["intent_weight"] * (spec.name in WEIGHTED)
    expected += ["in_pool"] * spec.reads_pool + ["convention"]
    assert list(params) == expected
    for name in expected[2:]:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    for name in expected[3:]:
        assert params[name].default is None, name  # None: from the convention


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_docstring_documents_every_option_in_the_table_words(spec):
    if spec.intents:  # their functions' parameters are evaluate_intents'
        doc = sklearn_rank.evaluate_intents.__doc__
        assert "evaluate_intents" in getattr(sklearn_rank, spec.function).__doc__
        for name in spec.options:
            assert f"\n    {name} : " in doc, name
        return
    doc = getattr(sklearn_rank, spec.function).__doc__
    assert "{params}" not in doc
    words = " ".join(doc.split())
    for name in spec.options:
        assert " ".join(option_doc(OPTIONS[name]).split()) in words, name


@pytest.mark.parametrize(
    ("func", "excluded"),
    [(sklearn_rank.evaluate, set()), (sklearn_rank.evaluate_per_group, {"undefined"})],
)
def test_evaluate_takes_every_option(func, excluded):
    params = inspect.signature(func).parameters
    assert set(OPTIONS) - excluded <= set(params)
    assert excluded.isdisjoint(params)


def test_presets_are_valid_overrides_of_the_default():
    for name, overrides in PRESETS.items():
        assert set(overrides) <= set(OPTIONS), name
        for key, value in preset_values(name).items():
            OPTIONS[key].check(value, f"preset {name!r}")


def test_docs_define_every_metric_and_option():
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### .*$", text, flags=re.M)
    for spec in SPECS:
        assert any(f"`{spec.function}`" in h for h in headings), spec.function
    table = text[text.index("### 4.1 Keywords") :]
    for name, option in OPTIONS.items():
        row = next(
            line for line in table.splitlines() if line.startswith(f"| `{name}`")
        )
        for choice in option.choices:
            assert f'"{choice}"' in row, (name, choice)


def test_architecture_recipe_names_every_step():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    for step in (
        "_engine/kernels/",
        "MetricSpec",
        "ORACLES",
        "docs/metrics.md",
        "OPTIONS",
    ):
        assert step in text, step


def test_scorer_sign_follows_greater_is_better(monkeypatch):
    # A loss registered as such is negated by the scorers, as scikit-learn does.
    loss = MetricSpec(
        "mrr_loss", METRICS["mrr"].kernel, "mrr_score", "test", greater_is_better=False
    )
    monkeypatch.setitem(METRICS, "mrr_loss", loss)

    class Fixed:
        def predict(self, X):
            return np.asarray(X)[:, 0]

    X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0]])
    y, qid = np.array([0, 1, 0, 1, 0]), np.array([0, 0, 0, 1, 1])
    gain = _scorer.make_ranking_scorer("mrr")(Fixed(), X, y, groups=qid)
    loss_value = _scorer.make_ranking_scorer("mrr_loss")(Fixed(), X, y, groups=qid)
    assert gain == pytest.approx(0.5)
    assert loss_value == -gain
    multi = _scorer.make_ranking_scorer(["mrr", "mrr_loss"])(Fixed(), X, y, groups=qid)
    assert multi == {"mrr": gain, "mrr_loss": -gain}


def test_modules_import_only_the_layers_above_them():
    # The order of the module table in docs/architecture.md is the layering.
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    order = re.findall(r"^\| `((?:io/)?_\w+)\.py`", text, flags=re.M)
    assert "io/_trec" in order
    package = Path(sklearn_rank.__file__).parent
    for i, name in enumerate(order):
        source = (package / f"{name}.py").read_text(encoding="utf-8")
        folder = name.rpartition("/")[0]  # "io" for io/ modules, "" at the top
        siblings = set(re.findall(r"^\s*from \.(_\w+) import", source, flags=re.M))
        siblings |= set(re.findall(r"^from \. import (_\w+)", source, flags=re.M))
        imported = {f"{folder}/{s}" if folder else s for s in siblings}
        if folder:  # the package's own modules, one level up
            imported |= set(re.findall(r"^\s*from \.\.(_\w+) import", source, re.M))
        below = imported - set(order[:i])
        assert not (below & set(order)), f"{name} imports {sorted(below)}"


class _Reached(Exception):
    pass


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_option_of_a_function_reaches_the_resolution(spec, monkeypatch):
    # A keyword in the signature but missing from the call would be ignored.
    seen = {}

    def capture(func, convention, given):
        seen.update(given)
        raise _Reached

    monkeypatch.setattr("sklearn_rank._metrics.evaluate.resolve_options", capture)
    monkeypatch.setattr("sklearn_rank._metrics.intent.resolve_options", capture)
    marks = {name: f"<{name}>" for name in spec.options}
    with pytest.raises(_Reached):
        getattr(sklearn_rank, spec.function)([1], [1], groups=[0], **marks)
    assert seen == marks


@pytest.mark.parametrize(
    ("func", "excluded"),
    [(sklearn_rank.evaluate, set()), (sklearn_rank.evaluate_per_group, {"undefined"})],
)
def test_every_option_of_evaluate_reaches_the_resolution(func, excluded, monkeypatch):
    seen = {}

    def capture(name, convention, given):
        seen.update(given)
        raise _Reached

    monkeypatch.setattr("sklearn_rank._metrics.evaluate.resolve_options", capture)
    marks = {name: f"<{name}>" for name in OPTIONS if name not in excluded}
    with pytest.raises(_Reached):
        func([1], [1], groups=[0], **marks)
    assert seen == marks


def test_readme_names_every_convention_keyword_and_preset():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Conventions are parameters", 1)[1].split("\n## ", 1)[0]
    for name in [*OPTIONS, *PRESETS]:
        if name != "sklearn_rank":  # the default convention needs no preset name
            assert f"`{name}`" in section or f'`"{name}"`' in section, name
