"""The Sphinx site's API reference lists every public name (one page each).

The build itself (``python -m sphinx -W``, in .ci/run) fails on any warning; this
checks, without Sphinx, that no name of a public ``__all__`` is missing from
``docs/api/index.rst``, whose autosummary tables generate the pages.
"""

import importlib
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PUBLIC = [
    "sklearn_rank",
    "sklearn_rank.stats",
    "sklearn_rank.plot",
    "sklearn_rank.online",
    "sklearn_rank.recsys",
    "sklearn_rank.io",
    "sklearn_rank.datasets",
    "sklearn_rank.dask",
    "sklearn_rank.spark",
]


def _listed():
    """{module: names} of the autosummary tables of docs/api/index.rst."""
    listed: dict[str, set[str]] = {}
    module = None
    in_table = False
    for line in (DOCS / "api" / "index.rst").read_text().splitlines():
        if m := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = m.group(1)
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and (m := re.match(r"   (\w+)$", line)):
            listed.setdefault(module, set()).add(m.group(1))
        elif in_table and line and not line.startswith("   "):
            in_table = False
    return listed


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_has_a_reference_page(module):
    names = set(importlib.import_module(module).__all__)
    listed = _listed().get(module, set())
    assert names - listed == set(), f"add to docs/api/index.rst under {module}"
    assert listed - names == set(), f"not in {module}.__all__"


def test_every_public_subpackage_is_in_the_reference():
    import pkgutil

    import sklearn_rank

    public = {
        f"sklearn_rank.{m.name}"
        for m in pkgutil.iter_modules(sklearn_rank.__path__)
        if not m.name.startswith("_")
    }
    assert public <= set(PUBLIC), public - set(PUBLIC)


def test_the_command_line_reference_documents_the_real_parser():
    page = (DOCS / "api" / "cli.rst").read_text()
    assert ":module: sklearn_rank._cli" in page
    assert ":func: get_parser" in page
