"""Hypothesis profiles: ``dev`` (more examples, random), ``ci`` (fewer, derandomized) and
``mutants`` (fewest, derandomized: ``make mutants`` runs the tests once per mutant).

Select with the environment variable ``HYPOTHESIS_PROFILE`` (``make test`` uses ``ci`` unless
it is set).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "mutants",
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
