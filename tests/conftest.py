"""Shared pytest configuration for the test suite."""

import os

from hypothesis import settings

# Deterministic examples on CI so that a red build can be reproduced; locally
# hypothesis keeps exploring new inputs on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    # When a hypothesis test fails, its pytest plugin imports code that warns
    # "mypy_extensions.TypedDict is deprecated"; under filterwarnings=error that
    # turns the report of a real failure into an INTERNALERROR.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning",
    )
