"""A false property over ``kinematic.strategies`` fails with an example a user can paste: each
generated MDP printed once as ``from_spec({...})`` around a JSON spec that ``python -m kinematic
analyze`` reads as it is, policies by names, no numpy arrays (``kinematic.display``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kinematic import eta_min, from_spec

ROOT = Path(__file__).resolve().parents[2]

PROPERTIES = '''
import json
from pathlib import Path

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from kinematic import dumps_spec, eta_min
from kinematic.strategies import block_mdps, policies, separable_pairs, split_states

SETTINGS = settings(derandomize=True, database=None, max_examples=50, deadline=None)
UNSHRUNK = settings(SETTINGS, phases=[Phase.generate])


@SETTINGS
@given(block_mdps())
def test_every_state_is_surely_reached(mdp):
    if eta_min(mdp) != 1:
        Path("last_failure.json").write_text(dumps_spec(mdp))
    assert eta_min(mdp) == 1


@UNSHRUNK
@given(split_states())
def test_splits(case):
    assert case[1].horizon < 2


@UNSHRUNK
@given(st.data())
def test_policies(data):
    mdp = data.draw(block_mdps())
    data.draw(policies(mdp))
    assert mdp.horizon < 2


@UNSHRUNK
@given(separable_pairs())
def test_separable_pairs(case):
    assert case[0].horizon < 2
'''


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory) -> tuple[str, Path]:
    """pytest's output on the four false properties above, and the directory it ran in."""
    directory = tmp_path_factory.mktemp("false_properties")
    (directory / "test_false.py").write_text(PROPERTIES)
    # Under mutmut the properties run unmutated: its variable would make the child look for
    # mutmut's configuration in this directory, which has none, and fail on every property.
    environment = {**{key: value for key, value in os.environ.items()
                      if key != "MUTANT_UNDER_TEST"}, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_false.py"],
        cwd=directory, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout, directory


def failing_cases(output: str) -> dict[str, str]:
    """Test name -> the lines Hypothesis printed for its failing example (pytest's ``E``
    prefixes removed)."""
    cases, name = {}, None
    for line in output.splitlines():
        text = line[1:].strip() if line.startswith("E ") else None
        if text is not None and text.startswith("Failing test case: "):
            name = text.removeprefix("Failing test case: ").split("(")[0]
            cases[name] = ""
        elif name is not None and text is not None:
            cases[name] += text + "\n"
        elif text is None:
            name = None
    return cases


def specs_in(text: str) -> list[dict]:
    """Every JSON object printed as ``from_spec({...})`` in ``text``."""
    decoder, specs, start = json.JSONDecoder(), [], 0
    while (found := text.find("from_spec(", start)) >= 0:
        spec, end = decoder.raw_decode(text, found + len("from_spec("))
        specs.append(spec)
        start = end
    return specs


def test_the_shrunk_mdp_is_printed_as_a_spec_that_analyze_accepts(failing_run, tmp_path):
    output, directory = failing_run
    example = failing_cases(output)["test_every_state_is_surely_reached"]
    assert "array(" not in example
    [spec] = specs_in(example)
    assert spec == json.loads((directory / "last_failure.json").read_text())  # the shrunk MDP
    assert eta_min(from_spec(spec)) < 1
    path = tmp_path / "pasted.json"
    path.write_text(json.dumps(spec))
    analysis = subprocess.run([sys.executable, "-m", "kinematic", "analyze", str(path)],
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=120)
    assert analysis.returncode == 0, analysis.stderr
    assert spec["name"] in analysis.stdout


@pytest.mark.parametrize(("test", "specs"), [("test_splits", 2), ("test_policies", 1),
                                             ("test_separable_pairs", 1)])
def test_every_strategy_prints_its_mdps_as_specs_once(failing_run, test, specs):
    example = failing_cases(failing_run[0])[test]
    assert "array(" not in example and "dtype" not in example
    printed = specs_in(example)
    assert len(printed) == specs
    for spec in printed:
        from_spec(spec)


@pytest.mark.parametrize(("test", "policies"), [("test_policies", 1),
                                                ("test_separable_pairs", 2)])
def test_generated_policies_print_by_names(failing_run, test, policies):
    example = failing_cases(failing_run[0])[test]
    assert example.count("<Policy on 'generated': layer 1: s1_") == policies
