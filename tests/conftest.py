"""Shared test settings."""

import os

from hypothesis import HealthCheck, settings

# CI is a 2-core machine: no deadline (timing is the benchmarks' job), deterministic examples.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
