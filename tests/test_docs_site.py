"""The Sphinx site's API reference lists every public name (one page each).

The build itself (``python -m sphinx -W``, in .ci/run) fails on any warning; this
checks, without Sphinx, that no name of a public ``__all__`` is missing from
the module pages of ``docs/api/`` (listed in ``docs/api/index.rst``), whose
autosummary tables generate the pages.
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
    "sklearn_rank.boosting",
]


def _pages():
    """The pages of the toctree of docs/api/index.rst, in order."""
    text = (DOCS / "api" / "index.rst").read_text()
    body = text.split(".. toctree::")[1]
    return re.findall(r"^   ([\w.]+)$", body, flags=re.M)


def _rows(pages=None):
    """(module, name) of each row of the autosummary tables of the API
    reference's pages (one per module, listed in docs/api/index.rst), in
    order."""
    for page in _pages() if pages is None else pages:
        yield from _page_rows(page)


def _page_rows(page):
    module = None
    in_table = False
    for line in (DOCS / "api" / f"{page}.rst").read_text().splitlines():
        if m := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = m.group(1)
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and (m := re.match(r"   (\w+)$", line)):
            yield module, m.group(1)
        elif in_table and line and not line.startswith("   "):
            in_table = False


def _listed():
    """{module: names} of the autosummary tables of the API reference."""
    listed: dict[str, set[str]] = {}
    for module, name in _rows():
        listed.setdefault(module, set()).add(name)
    return listed


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_has_a_reference_page(module):
    names = set(importlib.import_module(module).__all__)
    listed = _listed().get(module, set())
    assert names - listed == set(), f"add to the page of {module} in docs/api/"
    assert listed - names == set(), f"not in {module}.__all__"


def test_no_name_is_listed_twice_in_a_module():
    # A name listed twice generates its page twice and shows twice in the table.
    rows = list(_rows())
    twice = sorted({row for row in rows if rows.count(row) > 1})
    assert not twice, twice


def test_the_reference_has_one_page_per_module():
    # The site's sidebar shows the API reference's toctree: one entry per
    # module (its names under it), not one flat list of every name.
    pages = _pages()
    assert "cli" in pages
    modules = [p for p in pages if p != "cli"]
    for page in modules:
        on_page = {module for module, _ in _page_rows(page)}
        assert len(on_page) == 1, (page, on_page)
    owners = [next(_page_rows(p))[0] for p in modules]
    assert sorted(owners) == sorted(PUBLIC), owners
    index = (DOCS / "api" / "index.rst").read_text()
    assert ":hidden:" not in index and ".. autosummary::" not in index


def test_class_pages_list_the_examples_that_only_call_a_method():
    # sphinx-gallery files `Display.from_predictions(...)` under the method's
    # name: the class page's "Examples using" takes the methods' too.
    template = (DOCS / "_templates" / "autosummary" / "class.rst").read_text()
    line = next(t for t in template.splitlines() if t.startswith(".. minigallery::"))
    assert "{% for item in methods" in line and "{{ fullname }}.{{ item }}" in line


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


def test_the_site_shows_its_version_and_a_changelog_page():
    # Checked on the sources (the build is .ci's): the header names the
    # version, the changelog page is in the site's table of contents and
    # includes CHANGELOG.md, and long API titles wrap (a stylesheet).
    conf = (DOCS / "conf.py").read_text()
    assert 'html_title = f"sklearn-rank {release}"' in conf
    toctree = (DOCS / "index.md").read_text().split("```{toctree}")[1]
    assert "\nchangelog\n" in toctree
    assert "{include} ../CHANGELOG.md" in (DOCS / "changelog.md").read_text()
    css = re.search(r'html_css_files = \["([^"]+)"\]', conf).group(1)
    assert "overflow-wrap: anywhere" in (DOCS / "_static" / css).read_text()


def test_every_gallery_example_draws_its_thumbnail():
    # An example without a figure gets sphinx-gallery's placeholder thumbnail.
    examples = sorted((DOCS.parent / "examples").glob("plot_*.py"))
    assert examples
    draws = re.compile(r"Display\b|\.plot\(|plt\.|\.subplots\(|\.savefig\(")
    bare = [p.name for p in examples if not draws.search(p.read_text())]
    assert not bare, f"no figure (placeholder thumbnail): {bare}"


def test_public_displays_have_see_also():
    import sklearn_rank.plot as plot

    missing = [
        name
        for name in plot.__all__
        if "See Also\n" not in (getattr(plot, name).__doc__ or "")
    ]
    assert not missing, missing
