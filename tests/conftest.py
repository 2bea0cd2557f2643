"""Hypothesis profiles: ``dev`` (more examples, random), ``ci`` (fewer, derandomized) and
``mutants`` (fewest, derandomized, no shrinking: ``make mutants`` runs the tests once per
mutant, and a first failing example is all it needs).

Select with the environment variable ``HYPOTHESIS_PROFILE`` (``make test`` uses ``ci`` unless
it is set); an unknown name stops the run with a one-line usage error listing the profiles.

Under mutmut (``make mutants``), the tests selected for a mutant run fastest first, by the
durations mutmut recorded on the unmutated code: a mutant is killed by its first failing test
(``-x``), so a cheap killer found early saves the slow ones. Tests of the test machinery
itself (``NOT_RUN_PER_MUTANT``) are left out of mutant runs, and tests marked ``no_mutants``
(Ray, a learning run or a subprocess, whose calls mutmut cannot see, in a file whose
other tests are selected) out of every run of mutmut's.
"""

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

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
    database=None,
    phases=[Phase.explicit, Phase.generate],  # a failing example kills the mutant: no shrinking
    suppress_health_check=[HealthCheck.too_slow],
)
PROFILES = ("ci", "dev", "mutants")


def profile_name(environment: Mapping[str, str]) -> str:
    """The profile ``HYPOTHESIS_PROFILE`` names (``dev`` when unset); ``pytest.UsageError`` naming
    the variable and the known profiles for any other name."""
    name = environment.get("HYPOTHESIS_PROFILE", "dev")
    if name not in PROFILES:
        raise pytest.UsageError(f"HYPOTHESIS_PROFILE={name!r} is not a Hypothesis profile of "
                                f"this project (known: {', '.join(PROFILES)})")
    return name


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile(profile_name(os.environ))


def _mutmut_durations() -> dict[str, float]:
    """Test id -> seconds, as recorded by mutmut in ``mutants/mutmut-stats.json`` (mutmut runs
    the tests from a copy of the project in ``mutants/``); empty outside a mutmut run."""
    if "MUTANT_UNDER_TEST" not in os.environ:
        return {}
    stats = Path(__file__).resolve().parents[1] / "mutmut-stats.json"
    try:
        return json.loads(stats.read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return {}


NOT_RUN_PER_MUTANT = {
    # They replace the code under test by a sabotaged check or a monkeypatched partition: they
    # test the registry's controls, not the mutated module, and take half the selection's time.
    "test_a_check_that_always_holds_misses_its_control",
    "test_partition_claims_catch_a_wrong_backward_partition",
    # They test modules outside the mutated core (kinematic.counterexamples.finder,
    # kinematic.strategies) with long Hypothesis searches.
    "test_finder_returns_a_shrunk_counterexample",
    "test_block_mdps_generates_stochastic_forward_ki_twins_without_splits",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "MUTANT_UNDER_TEST" in os.environ:  # every run of mutmut's, the stats' too
        kept = [item for item in items if item.get_closest_marker("no_mutants") is None]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept
    durations = _mutmut_durations()
    if not durations:
        return
    kept = [item for item in items if item.originalname not in NOT_RUN_PER_MUTANT]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = sorted(kept, key=lambda item: durations.get(item.nodeid, float("inf")))
