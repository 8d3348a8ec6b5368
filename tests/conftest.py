"""Shared pytest configuration for the test suite."""

import os

from hypothesis import settings

# Deterministic examples on CI so that a red build can be reproduced; locally
# hypothesis keeps exploring new inputs on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
