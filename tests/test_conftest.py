"""The test suite's own configuration (``tests/conftest.py``): the Hypothesis profile is chosen
by ``HYPOTHESIS_PROFILE``, and an unknown name stops the run with one line listing the
profiles, not a traceback from inside Hypothesis."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests.conftest import PROFILES, profile_name

ROOT = Path(__file__).resolve().parents[1]


def test_the_profile_is_the_one_named_and_dev_when_unset():
    assert profile_name({}) == "dev"
    assert [profile_name({"HYPOTHESIS_PROFILE": name}) for name in PROFILES] == list(PROFILES)
    for name in PROFILES:  # every listed profile is registered (or this raises)
        settings.get_profile(name)


def test_an_unknown_profile_is_a_usage_error_naming_the_variable_and_the_profiles():
    with pytest.raises(pytest.UsageError, match=r"^HYPOTHESIS_PROFILE='fast' is not a Hypothesis "
                                                r"profile of this project \(known: ci, dev, "
                                                r"mutants\)$"):
        profile_name({"HYPOTHESIS_PROFILE": "fast"})


def test_pytest_with_an_unknown_profile_exits_4_with_one_line(tmp_path: Path):
    environment = {**os.environ, "HYPOTHESIS_PROFILE": "fast"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--collect-only", "-q", str(ROOT / "tests" / "proofs_checks" / "test_sample_sizes.py")],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "ERROR: HYPOTHESIS_PROFILE='fast' is not a Hypothesis profile of this project (known: "
        "ci, dev, mutants)"]
