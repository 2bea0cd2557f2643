"""The exact core installs and runs without the extras (torch, gymnasium, matplotlib, ...):
importing any module of ``kinematic`` or ``proofs_checks`` imports none of them, and the
two command lines run when they cannot be imported at all."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kinematic
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec

EXTRAS = ("torch", "gymnasium", "matplotlib", "sklearn", "ray", "stable_baselines3", "tqdm")

# Runs a module as ``python -m`` would, with every extra made unimportable.
WITHOUT_EXTRAS = """
import runpy, sys
EXTRAS = {extras!r}
class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in EXTRAS:
            raise ModuleNotFoundError(f"No module named {{name!r}} (extras not installed)")
sys.meta_path.insert(0, NotInstalled())
sys.argv = {argv!r}
runpy.run_module({module!r}, run_name="__main__", alter_sys=True)
"""


def _run_without_extras(module: str, *arguments: str) -> subprocess.CompletedProcess:
    script = WITHOUT_EXTRAS.format(extras=EXTRAS, argv=[module, *arguments], module=module)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, check=False)


def test_importing_the_core_and_proofs_checks_imports_no_extra():
    script = (
        "import pkgutil, importlib, sys, kinematic, proofs_checks\n"
        "for package in (kinematic, proofs_checks):\n"
        "    for module in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if not module.name.endswith('__main__'):\n"
        "            importlib.import_module(module.name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {EXTRAS!r}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, check=True)
    assert result.stdout.strip() == "[]"


def test_analyze_and_proofs_checks_run_without_the_extras(tmp_path: Path):
    spec = tmp_path / "lock.json"
    spec.write_text(dumps_spec(combination_lock(3, 2, 0)))
    analysis = _run_without_extras("kinematic", "analyze", str(spec), "--json")
    assert analysis.returncode == 0, analysis.stderr
    assert json.loads(analysis.stdout)["eta_min"] == "1/2"
    checks = _run_without_extras("proofs_checks", "--examples", "1", "--only", "lem:p-form",
                                 "--json")
    assert checks.returncode == 0, checks.stderr
    assert [claim["label"] for claim in json.loads(checks.stdout.splitlines()[-1])] == [
        "lem:p-form"]


def test_family_gymnasium_without_gymnasium_names_the_extra():
    result = _run_without_extras("kinematic", "family", "gymnasium", "--env", "FrozenLake-v1")
    assert (result.returncode, result.stderr) == (
        2, "error: family gymnasium needs the gymnasium package, part of the homer extra: pip "
           "install -c constraints.txt '.[homer]'\n")


def test_the_blocker_does_block():
    """Control: the same harness makes a torch import fail, so the tests above mean something."""
    result = _run_without_extras("homer", "--help")
    assert result.returncode != 0 and "extras not installed" in result.stderr


def test_drawing_without_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch):
    from kinematic.graph import draw_block_mdp

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"kinematic\[homer\]"):
        draw_block_mdp(combination_lock(3, 2, 0))


def test_without_matplotlib_kinematic_exports_its_drawings_and_an_mdp_shows_as_text():
    script = WITHOUT_EXTRAS.split("sys.argv")[0].format(extras=EXTRAS) + (
        "import kinematic\n"
        "assert {'draw_block_mdp', 'draw_partitions'} <= set(kinematic.__all__)\n"
        "print(kinematic.combination_lock(3, 2, 0)._repr_svg_())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, check=False)
    assert (result.returncode, result.stdout) == (0, "None\n"), result.stderr


def test_version_is_the_installed_distributions():
    from importlib.metadata import version

    assert kinematic.__version__ == version("kinematic")
