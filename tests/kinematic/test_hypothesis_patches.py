"""Hypothesis's patch of a failing property over ``kinematic.strategies`` applies and runs: its
pytest plugin writes ``.hypothesis/patches/*.patch`` adding the shrunk example as
``@example(mdp=...)``, and ``git apply`` of it gives a module that imports and reproduces the
failure from the ``@example`` alone - no ``NameError`` - whenever the module imports
``kinematic`` (under any name) or ``from_spec``, as docs/guide/checking-claims.md says.

The patch writer keeps an MDP's ``from_spec({...})`` when ``from_spec`` is imported and
otherwise qualifies it through a module the test imported (``kinematic.from_spec``,
``km.from_spec``); it adds no import. So a repr qualified as ``kinematic.from_spec`` would break
the modules importing ``from_spec`` or ``kinematic as km`` (killed here), and a repr that is not
Python would give no patch (killed). A policy prints as ``<Policy on ...>``, not Python: a
failing example holding one gets no patch rather than one that cannot run (checked too).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Each module differs only in how it can reach from_spec: the line after the name.
IMPORTS = {
    "test_kinematic.py": "import kinematic",
    "test_alias.py": "import kinematic as km",
    "test_from_spec.py": "from kinematic import from_spec",
    "test_no_module.py": "",  # the control: nothing names from_spec or a module holding it
}
PATCHED_CALL = {"test_kinematic.py": "kinematic.from_spec(", "test_alias.py": "km.from_spec(",
                "test_from_spec.py": "from_spec(", "test_no_module.py": "from_spec("}

PROPERTY = '''
from hypothesis import example, given, settings

from kinematic import eta_min
from kinematic.strategies import block_mdps


@settings(database=None, derandomize=True, max_examples=30, deadline=None)
@given(mdp=block_mdps(max_horizon=2))
def test_every_state_is_surely_reached(mdp):
    assert eta_min(mdp) == 1
'''

WITH_POLICIES = '''
from hypothesis import Phase, example, given, settings

from kinematic.strategies import separable_pairs


@settings(database=None, derandomize=True, max_examples=5, deadline=None,
          phases=[Phase.explicit, Phase.generate])  # unshrunk: still a policy, and fast
@given(case=separable_pairs())
def test_separable_pairs_have_one_layer(case):
    assert case[0].horizon < 2
'''


def _pytest(directory: Path) -> str:
    """pytest's output on the modules of ``directory``, in a process of its own whose Hypothesis
    files stay in ``directory``."""
    environment = {**{key: value for key, value in os.environ.items()
                      if not key.startswith("HYPOTHESIS_") and key != "MUTANT_UNDER_TEST"},
                   "PYTHONPATH": str(ROOT),
                   "HYPOTHESIS_STORAGE_DIRECTORY": str(directory / ".hypothesis")}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE",
         "--continue-on-collection-errors", "."],
        cwd=directory, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout


def _examples(output: str, kind: str) -> dict[str, str]:
    """Module -> the example Hypothesis printed after ``kind`` (``Failing test case`` or
    ``Failing explicit example``), without the ``@reproduce_failure`` advice its CI profile
    (loaded when a ``CI`` variable is set) prints after a generated example."""
    found = {}
    for match in re.finditer(r"^(\S+\.py):\d+: \w+Error$", output, re.MULTILINE):
        block = output[:match.start()].rsplit("\n_____", 1)[-1]
        example = re.search(rf"^E +{kind}: (.*?)\n(?!E  )", block, re.MULTILINE | re.DOTALL)
        if example:
            text = re.sub(r"^E +", "", example.group(1), flags=re.MULTILINE)
            found[match.group(1)] = re.sub(r"\n+You can reproduce this test case .*\Z", "", text,
                                           flags=re.DOTALL)
    return found


@pytest.mark.no_mutants
def test_a_hypothesis_patch_applies_and_its_example_reproduces_the_failure(tmp_path: Path):
    pytest.importorskip("libcst", reason="Hypothesis writes patches only with libcst installed")
    for name, line in IMPORTS.items():
        (tmp_path / name).write_text(line + "\n" + PROPERTY)
    (tmp_path / "test_policies.py").write_text(WITH_POLICIES)
    first = _pytest(tmp_path)
    patch = re.search(r"`git apply (\S+)` to add failing test cases", first)
    assert patch, first
    shrunk = _examples(first, "Failing test case")
    assert "<Policy on 'generated'" in shrunk["test_policies.py"]
    assert "test_policies.py" not in (tmp_path / patch.group(1)).read_text()  # no patch for it
    subprocess.run(["git", "apply", patch.group(1)], cwd=tmp_path, check=True,
                   capture_output=True)

    for name, call in PATCHED_CALL.items():
        assert f"@example(\n    mdp={call}{{" in (tmp_path / name).read_text(), name
    second = _pytest(tmp_path)
    assert re.findall(r"^ERROR (\S+) - (.*)$", second, re.MULTILINE) == [
        ("test_no_module.py", "NameError: name 'from_spec' is not defined")]
    replayed = _examples(second, "Failing explicit example")
    assert set(replayed) == {"test_kinematic.py", "test_alias.py", "test_from_spec.py"}, second
    for name, example in replayed.items():
        assert example == shrunk[name]  # the @example is the shrunk MDP, failing as it did
