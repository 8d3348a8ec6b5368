"""The docs extra installs what the documentation build imports (issue 44).

``pip install -e ".[docs]"`` on a fresh machine must be enough for the Sphinx
build: the API pages import every documented module (autosummary) and the
gallery runs every example. A package imported at module level by one of them
and missing from the extra failed the build on a new machine (``No module named
'pyspark'``) while CI, which installed the test extra first, did not see it.
This test reads the imports (statically) and the extra from pyproject.toml, and
checks that .ci/run builds the docs in a fresh environment with the extra only.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
# Import name -> distribution name, for the optional packages the package uses.
DISTRIBUTION = {
    "pandas": "pandas",
    "pyarrow": "pyarrow",
    "matplotlib": "matplotlib",
    "dask": "dask",
    "distributed": "dask",  # dask[distributed]
    "pyspark": "pyspark",
    "lightgbm": "lightgbm",
    "xgboost": "xgboost",
    "torch": "torch",
    "joblib": "scikit-learn",  # installed with scikit-learn
}
BASE = {"numpy", "scipy", "sklearn", "threadpoolctl", "sklearn_rank"}


def _requirement_names(requirements, extras):
    """Distribution names of a list of requirements, self-extras expanded."""
    names = set()
    for req in requirements:
        name = re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower()
        inner = re.search(r"\[([^\]]*)\]", req)
        if name == "sklearn-rank":
            for extra in inner.group(1).split(","):
                names |= _requirement_names(extras[extra.strip()], extras)
        else:
            names.add(name)
    return names


def _module_file(module: str) -> Path:
    path = ROOT / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _module_level_imports(module: str, seen: set[str]) -> set[str]:
    """Top-level names imported at module level (try/if blocks included) by
    ``module`` and by the package modules it imports at module level."""
    if module in seen:
        return set()
    seen.add(module)
    path = _module_file(module)
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    body = list(tree.body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Try | ast.If):
            body += node.body + node.orelse
            body += [s for h in getattr(node, "handlers", []) for s in h.body]
        elif isinstance(node, ast.Import):
            out |= {a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.add(node.module.partition(".")[0])
                continue
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            for name in candidates:
                f = _module_file(name)
                if f.exists():
                    out |= _module_level_imports(name, seen)
    return out


def _documented_modules() -> set[str]:
    text = (ROOT / "docs" / "api" / "index.rst").read_text()
    return set(re.findall(r"currentmodule:: (sklearn_rank[\w.]*)", text))


def _example_imports() -> set[str]:
    """Imports of the examples the gallery runs (docs/conf.py: filename_pattern
    "/plot_"; the others are shown, not run)."""
    out = set()
    for path in (ROOT / "examples").glob("plot_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                out.add(node.module)
    return out


def test_docs_extra_installs_what_the_docs_import():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    installed = _requirement_names(extras["docs"], extras)
    installed |= _requirement_names(project["dependencies"], extras)
    seen: set[str] = set()
    imported = set()
    for module in sorted(_documented_modules()):
        imported |= _module_level_imports(module, seen)
    for name in _example_imports():
        top = name.partition(".")[0]
        if top == "sklearn_rank":
            imported |= _module_level_imports(name, seen)
        imported.add(top)
    third_party = imported - set(sys.stdlib_module_names) - BASE - {"__future__"}
    unknown = third_party - set(DISTRIBUTION)
    assert not unknown, f"add these imports to DISTRIBUTION: {sorted(unknown)}"
    missing = {DISTRIBUTION[n] for n in third_party} - installed
    assert not missing, f"the docs extra lacks {sorted(missing)}"


def test_ci_builds_the_docs_in_a_fresh_environment_with_the_docs_extra_only():
    run = (ROOT / ".ci" / "run").read_text()
    venv = re.search(r"python -m venv --clear (\S+)", run)
    assert venv, "the docs build must run in a fresh virtual environment"
    env = venv.group(1)
    assert f'{env}/bin/python -m pip install -q -e ".[docs]"' in run
    assert f"{env}/bin/python -m sphinx -W" in run
