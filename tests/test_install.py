"""The exact core installs and runs without the extras (torch, gymnasium, matplotlib, ...):
importing any module of ``kinematic`` or ``proofs_checks`` imports none of them, and the
two command lines run when they cannot be imported at all. The package's metadata carries the
licence and pins nothing exactly (constraints.txt does), so ``pip install '.[homer]'`` keeps a
torch already installed."""

import email
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement

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


ROOT = Path(__file__).resolve().parents[1]
PACKAGE_INDEX = "https://pypi.org/simple/"


def _metadata_tree(directory: Path) -> Path:
    """The files the package's metadata is built from (pyproject.toml, the README, the licence and
    ``kinematic/__init__.py``, whose ``__version__`` setuptools reads without importing it),
    copied to ``directory``: a build there writes nothing into the repository."""
    for name in ("pyproject.toml", "README.md", "LICENSE", "kinematic/__init__.py"):
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, directory / name)
    return directory


def test_the_metadata_carries_the_licence_and_pins_nothing_exactly(tmp_path: Path):
    pytest.importorskip("setuptools", minversion="77", reason="pyproject.toml's build-system needs "
                        "setuptools 77 (the SPDX licence expression)")
    tree = _metadata_tree(tmp_path / "project")
    output = tmp_path / "metadata"
    output.mkdir()
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                    "print(build_meta.prepare_metadata_for_build_wheel(sys.argv[1]))", str(output)],
                   cwd=tree, check=True, capture_output=True, timeout=300)
    [info] = output.glob("kinematic-*.dist-info")
    metadata = email.message_from_string((info / "METADATA").read_text())
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert (info / "licenses" / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert all(url.split(", ")[1].startswith("https://")
               for url in metadata.get_all("Project-URL"))
    requirements = [Requirement(line) for line in metadata.get_all("Requires-Dist")]
    assert "torch" in {requirement.name for requirement in requirements}
    exact = [str(r) for r in requirements if any(s.operator in ("==", "===") for s in r.specifier)]
    assert exact == []  # exact pins live in constraints.txt


def _require_package_index() -> None:
    """Skip when :data:`PACKAGE_INDEX` cannot be reached; fail instead under
    ``KINEMATIC_REQUIRE_TOOLS=1`` (CI, which reaches it)."""
    try:
        with urllib.request.urlopen(PACKAGE_INDEX + "pip/", timeout=30):
            pass
    except OSError as error:
        reason = f"the package index {PACKAGE_INDEX} cannot be reached ({error})"
        if os.environ.get("KINEMATIC_REQUIRE_TOOLS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.mark.slow
def test_the_homer_extra_keeps_an_installed_torch_of_another_minor_version(tmp_path: Path):
    """``pip install '.[homer]'`` (dry run) into an environment holding torch 2.12.0 installs
    the rest and leaves torch as it is. The torch is a distribution's record alone (what pip
    reads), so nothing large is downloaded; pip runs with no configuration file and no PIP_*
    variable, so a machine's constraints or local wheels cannot decide the answer: only the
    package's metadata and the index do. Kills an exact pin (``torch==2.13.0``) or a lower bound
    above 2.12."""
    _require_package_index()
    project = _metadata_tree(tmp_path / "project")
    environment = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True)
    python = environment / "bin" / "python"
    site_packages = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    (site_packages / "torch").mkdir()
    (site_packages / "torch" / "__init__.py").write_text("")
    record = site_packages / "torch-2.12.0.dist-info"
    record.mkdir()
    (record / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.12.0\n")
    (record / "INSTALLER").write_text("pip\n")
    (record / "RECORD").write_text("")
    variables = {**{key: value for key, value in os.environ.items()
                    if not key.startswith("PIP_")}, "PIP_CONFIG_FILE": os.devnull}
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--dry-run", "--quiet",
         "--disable-pip-version-check", "--report", str(report), f"{project}[homer]"],
        env=variables, capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stderr
    installed = {item["metadata"]["name"].lower()
                 for item in json.loads(report.read_text())["install"]}
    assert {"kinematic", "gymnasium", "scikit-learn", "matplotlib"} <= installed
    assert "torch" not in installed
