"""Sphinx configuration of the sklearn_rank site.

Build it from the repository root (the ``docs`` extra installs the tools)::

    python -m pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The build is offline: no intersphinx inventory is fetched, so references to
numpy / scikit-learn names are plain text. The gallery runs every script of
``examples/`` (each takes seconds) and writes ``docs/auto_examples``.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import matplotlib
import matplotlib.image

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed copy

import sklearn_rank  # noqa: E402

project = "sklearn-rank"
author = "sklearn-rank developers"
copyright = "sklearn-rank developers, BSD-3-Clause"
version = release = sklearn_rank.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
]
templates_path = ["_templates"]

# MyST: the pages are the Markdown read on the repository (their ``>>>`` blocks
# are doctests run by pytest); headings get anchors so ``metrics.md#name`` links
# resolve; ``$...$`` and ``$$...$$`` are math.
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 4
# A page may go from ## to #### (online.md's reference subsections): MyST's
# heading-level style warning is not an error of the page.
suppress_warnings = ["myst.header"]

# API reference: one page per public name (autosummary), numpydoc docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the signature shows them; numpydoc the Parameters
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Gallery: every example runs at build time; its figures are the user guide's.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "image_srcset": [],
    # "Examples using X" on each reference page
    "doc_module": ("sklearn_rank",),
    "backreferences_dir": "api/generated/backreferences",
    "line_numbers": False,
}

html_theme = "pydata_sphinx_theme"
# the version in the header of every page (the changelog page says what changed)
html_title = f"sklearn-rank {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
}
html_static_path = ["_static"]
html_css_files = ["sklearn_rank.css"]  # long API page titles wrap
html_show_sourcelink = False

# Pictures of docs/plots.md: the displays example draws them (in the page's
# order); the site shows the gallery's images, and the copies in
# docs/images/plots (what the repository's Markdown view shows) are refreshed
# from them at each build.
PLOT_PICTURES = [
    "metric_at_k",
    "group_scores",
    "paired_difference",
    "precision_recall",
    "segments",
    "combined",
]
GALLERY_IMAGE = "auto_examples/images/sphx_glr_plot_displays_{:03d}.png"


def _copy_plot_pictures(app) -> None:
    for i, name in enumerate(PLOT_PICTURES, start=1):
        made = DOCS / GALLERY_IMAGE.format(i)
        kept = DOCS / "images" / "plots" / f"{name}.png"
        if made.exists() and not _same_pixels(made, kept):
            shutil.copyfile(made, kept)


def _same_pixels(a: Path, b: Path) -> bool:
    # the bytes differ with the writer's metadata; the picture is what counts
    if not b.exists():
        return False
    x, y = matplotlib.image.imread(a), matplotlib.image.imread(b)
    return x.shape == y.shape and bool((x == y).all())


def _plots_page_uses_gallery_images(app, docname, source) -> None:
    if docname != "plots":
        return
    text = source[0]
    for i, name in enumerate(PLOT_PICTURES, start=1):
        made = f"(/{GALLERY_IMAGE.format(i)})"
        text = text.replace(f"(images/plots/{name}.png)", made)
    source[0] = text


def _skip_routing_requests(app, what, name, obj, skip, options):
    # scikit-learn generates set_{fit,score,...}_request on every estimator; their
    # docstrings point into scikit-learn's own user guide (no page here).
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


# The user guide writes function names as code (`compare`, `sklearn_rank.stats.
# bootstrap_ci`, `MetricAtKDisplay.from_predictions`); on the site each becomes
# a link to its reference page. A bare name links when it names one object (or
# the top-level one: `evaluate` is sklearn_rank.evaluate outside scale.md).
PUBLIC_MODULES = [
    "sklearn_rank",
    "sklearn_rank.stats",
    "sklearn_rank.plot",
    "sklearn_rank.online",
    "sklearn_rank.io",
    "sklearn_rank.datasets",
    "sklearn_rank.dask",
    "sklearn_rank.spark",
]
SCALE_PAGES = {"scale"}


def _api_targets() -> tuple[dict[str, str], dict[str, str]]:
    import importlib

    full: dict[str, str] = {}
    bare: dict[str, list[str]] = {}
    for module in PUBLIC_MODULES:
        for name in importlib.import_module(module).__all__:
            full[f"{module}.{name}"] = f"{module}.{name}"
            bare.setdefault(name, []).append(f"{module}.{name}")
    unique = {}
    for name, targets in bare.items():
        if len(targets) == 1 or f"sklearn_rank.{name}" in targets:
            unique[name] = targets[0] if len(targets) == 1 else f"sklearn_rank.{name}"
    return full, unique


def _link_api_names(app, doctree, docname) -> None:
    from docutils import nodes

    if app.builder.format != "html" or docname.startswith("api/generated/"):
        return
    full, unique = app.env.sklearn_rank_api_targets
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, nodes.reference):
            continue
        text = literal.astext().strip()
        name = text[:-2] if text.endswith("()") else text
        target = full.get(name)
        if target is None and "." in name:  # Class.method or module.name.attr
            head, _, attr = name.rpartition(".")
            owner = full.get(head) or unique.get(head)
            target = owner and f"{owner}"
            anchor = f"{owner}.{attr}" if owner else None
        else:
            anchor = target
        if target is None and docname not in SCALE_PAGES:
            target = anchor = unique.get(name)
        if target is None:
            continue
        page = f"api/generated/{target}"
        if page == docname or page not in app.env.all_docs:
            continue
        if anchor not in app.env.get_domain("py").objects:
            if not name.startswith("sklearn_rank."):
                continue  # `Run.from_file` may be another library's Run
            anchor = target  # an attribute without an entry: its class's page
        uri = app.builder.get_relative_uri(docname, page) + f"#{anchor}"
        ref = nodes.reference("", "", internal=True, refuri=uri)
        literal.replace_self(ref)
        ref.append(literal)


METRIC_LITERAL = re.compile(r'^"?([a-z][a-z0-9_]*)(@[0-9.a-z]+)?"?$')


def _metric_anchors(app) -> dict[str, str]:
    """{metric name: section id} of the metric sections of docs/metrics.md,
    whose titles name the metric as a literal: ### 2.2 NDCG — `"ndcg@k"`."""
    from docutils import nodes

    cached = getattr(app.env, "sklearn_rank_metric_anchors", None)
    if cached is not None:
        return cached
    anchors: dict[str, str] = {}
    for section in app.env.get_doctree("metrics").findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or not section["ids"]:
            continue
        for literal in title.findall(nodes.literal):
            m = METRIC_LITERAL.match(literal.astext())
            if m and literal.astext().startswith('"'):
                anchors.setdefault(m.group(1), section["ids"][0])
    app.env.sklearn_rank_metric_anchors = anchors
    return anchors


def _link_metric_names(app, doctree, docname) -> None:
    from docutils import nodes

    if app.builder.format != "html" or docname == "metrics":
        return
    anchors = _metric_anchors(app)
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, nodes.reference):
            continue
        m = METRIC_LITERAL.match(literal.astext().strip())
        if not m or m.group(1) not in anchors or len(m.group(1)) < 3:
            continue
        uri = app.builder.get_relative_uri(docname, "metrics")
        ref = nodes.reference(
            "", "", internal=True, refuri=f"{uri}#{anchors[m.group(1)]}"
        )
        literal.replace_self(ref)
        ref.append(literal)


def _remember_api_targets(app) -> None:
    app.env.sklearn_rank_api_targets = _api_targets()


def setup(app):
    app.connect("builder-inited", _remember_api_targets)
    app.connect("doctree-resolved", _link_api_names)
    app.connect("doctree-resolved", _link_metric_names)
    app.connect("autodoc-skip-member", _skip_routing_requests)
    # after sphinx-gallery has run the examples (its handler has priority 500)
    app.connect("builder-inited", _copy_plot_pictures, priority=900)
    app.connect("source-read", _plots_page_uses_gallery_images)
