"""pytest settings for docs/: the Markdown pages' ``>>>`` blocks are doctests
(``--doctest-glob=*.md``); the Sphinx configuration and build outputs are not."""

import importlib.util

import pytest

collect_ignore = ["conf.py", "conftest.py"]  # a plugin, not a module of doctests
collect_ignore_glob = ["_build/*", "auto_examples/*", "api/generated/*"]

# Pages whose examples need an optional package; without it they are skipped
# with the reason (the test extra installs every one of them).
NEEDS = {"gpu.md": "torch"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = NEEDS.get(item.path.name)
        if module is not None and importlib.util.find_spec(module) is None:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"needs {module}: the test extra installs it "
                    "(PyTorch's CPU wheel: README)"
                )
            )
