"""Shared pytest configuration for the test suite.

Hypothesis profiles (``--hypothesis-profile NAME`` overrides the default):

- ``ci`` (the default when the ``CI`` environment variable is set): derandomized,
  so a red build replays the same examples; each test keeps its own
  ``max_examples``.
- ``dev`` (the default otherwise): random examples on every run, the same counts.
- ``nightly``: random examples and ten times every test's ``max_examples``
  (``SKLEARN_RANK_HYPOTHESIS_SCALE`` changes the factor), for a long run on a
  quiet machine: ``python -m pytest -n auto --hypothesis-profile nightly``.

No profile has a deadline: no test depends on wall time.

Under pytest-xdist (``-n``), the tests of the modules that start a Dask cluster
or a Spark session run on one worker each (``--dist loadgroup``, set here), so a
run starts one cluster and one session whatever the number of workers.
"""

import importlib
import os

import pytest
from hypothesis import settings

NIGHTLY_SCALE = int(os.environ.get("SKLEARN_RANK_HYPOTHESIS_SCALE", "10"))

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.register_profile(
    "nightly", deadline=None, max_examples=100 * NIGHTLY_SCALE, print_blob=True
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Documentation pages whose examples need an optional package: skipped, with the
# reason, where it does not import (the test extra installs each of them).
PAGES_NEEDING = {"gpu.md": "torch", "training.md": "xgboost"}

# Modules whose session fixture starts a service: one xdist worker each.
SHARED_SERVICE_MODULES = {
    "test_dask.py": "dask-cluster",
    "test_dask_processes.py": "dask-processes",  # its own scheduler and workers
    "test_spark.py": "spark",
    # the same worker as test_spark.py, whose session it then reuses
    "test_spark_evaluator.py": "spark",
    "test_spark_standalone.py": "spark-standalone",
}

# Work units (an xdist group, else a module) that take the longest, longest
# first: they start at once, one per worker, and the many short modules fill in
# around them. xdist's own order (most tests first) left a group of a few slow
# tests for last, with one worker idle for a minute while the other ran it.
LONGEST_FIRST = [
    "spark",
    "spark-standalone",
    "dask-cluster",
    "tests/test_benchmarks_smoke.py",
    "dask-processes",
    "tests/test_evaluate_run.py",
]


def pytest_configure(config):
    # When a hypothesis test fails, its pytest plugin imports code that warns
    # "mypy_extensions.TypedDict is deprecated"; under filterwarnings=error that
    # turns the report of a real failure into an INTERNALERROR.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning",
    )
    # registered here too, so that --strict-markers accepts it without xdist
    config.addinivalue_line(
        "markers", "xdist_group(name): run these tests on one xdist worker"
    )
    # `-n N` alone means --dist load; make it loadgroup, on the controller (which
    # schedules) and on each worker (which tags the grouped tests' ids; it
    # parsed the command line itself, before xdist turned -n into a mode).
    distributed = getattr(config.option, "numprocesses", None) or hasattr(
        config, "workerinput"
    )
    if distributed and getattr(config.option, "dist", "no") in ("no", "load"):
        config.option.dist = "loadgroup"
        config.option.loadgroup = True
    if distributed:
        config.option.loadscopereorder = False  # the order is set below


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    scale_examples = _profile_name(config) == "nightly"
    for item in items:
        needed = PAGES_NEEDING.get(item.path.name)
        if needed is not None and not _importable(needed):
            item.add_marker(
                pytest.mark.skip(
                    reason=f"needs {needed}: the test extra installs it "
                    "(PyTorch's CPU wheel: README)"
                )
            )
        group = SHARED_SERVICE_MODULES.get(item.path.name)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if scale_examples:
            _scale_max_examples(item)
    _order_work_units(items)


def _work_unit(item) -> str:
    group = SHARED_SERVICE_MODULES.get(item.path.name)
    return group if group is not None else item.nodeid.split("::", 1)[0]


def _order_work_units(items) -> None:
    """The longest work units first, then the others by their number of tests
    (xdist's own order), each unit's tests in their collected order."""
    sizes: dict[str, int] = {}
    for item in items:
        unit = _work_unit(item)
        sizes[unit] = sizes.get(unit, 0) + 1
    rank = {unit: i for i, unit in enumerate(LONGEST_FIRST)}
    items.sort(
        key=lambda item: (
            rank.get(_work_unit(item), len(rank)),
            -sizes[_work_unit(item)],
        )
    )


def _importable(module):
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _profile_name(config):
    current = getattr(settings, "get_current_profile_name", None)
    if current is not None:
        return current()
    return config.getoption("hypothesis_profile", None)


def _scale_max_examples(item):
    """Nightly profile: NIGHTLY_SCALE times a test's own ``@settings`` count."""
    test = getattr(item, "obj", None)
    test = getattr(test, "__func__", test)  # a method's function
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is None or own.max_examples == settings().max_examples:
        return  # not a hypothesis test, or it has the profile's count already
    test._hypothesis_internal_use_settings = settings(
        own, max_examples=own.max_examples * NIGHTLY_SCALE
    )


# --doctest-modules would import this file as a module named "conftest", which
# clashes with docs/conftest.py's: it is a plugin, not a module of doctests.
collect_ignore = ["conftest.py"]
