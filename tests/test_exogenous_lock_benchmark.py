"""``benchmarks/exogenous_lock.py``: the exact table of the exogenous lock, HOMER's runs made,
resumed or scored as they are (``--smoke``: one run on a tiny budget), each next to its
prediction; the page's section and the JSON beside it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
SCRIPT = BENCHMARKS / "exogenous_lock.py"

pytestmark = pytest.mark.no_mutants  # subprocesses


def bench(*arguments: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(BENCHMARKS.parent)}
    return subprocess.run([sys.executable, str(SCRIPT), "--samples", "20", *arguments],
                          capture_output=True, text=True, check=False, env=environment)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    """``--smoke`` in a fresh directory: k = 1 exact, k2-endo made on a tiny budget, scored."""
    directory = tmp_path_factory.mktemp("exogenous")
    result = bench("--smoke", "--work", str(directory / "runs"), "--results",
                   str(directory / "page.md"))
    assert result.returncode == 0, result.stderr
    return directory


def test_the_smoke_run_writes_the_exact_row_and_a_scored_run(smoke):
    data = json.loads((smoke / "page.json").read_text())
    [exact] = data["exact"]
    assert (exact["bits"], exact["endogenous"], exact["backward"], exact["forward"],
            exact["ki"]) == (1, [2, 3, 3, 3], [1, 4, 4, 4], [4, 6, 6, 1], [4, 6, 6, 4])
    assert exact["as_the_theorem_predicts"] and exact["n_kd"] == 20
    [run] = data["learned"]
    assert run["name"] == "k2-endo" and not run["at_ki_capacity"]
    assert run["prediction"]["ki_merges_at_least"] == [7, 6, 6, 12]  # 8, 12, 12, 8 into 3, 6, 6, 2
    assert run["prediction"]["endogenous_splits"] is None
    assert [sorted(step) for step in run["steps"]][1] == ["backward", "endogenous", "forward",
                                                         "ki"]
    page = (smoke / "page.md").read_text()
    assert "| 1 | 22 | 2, 3, 3, 3 | 1, 4, 4, 4 | 4, 6, 6, 1 | 4, 6, 6, 4 | 13 | 17 | 20 | yes |" \
        in page
    [row] = [line for line in page.splitlines() if line.startswith("| k2-endo | 2 | 2, 3 ")]
    assert row.endswith("| as predicted |") or "| not as predicted: " in row


def test_a_finished_run_is_scored_again_without_training(smoke):
    result_file = smoke / "runs" / "k2-endo" / "result.json"
    before = result_file.stat().st_mtime_ns
    result = bench("--bits", "1", "--work", str(smoke / "runs"), "--results",
                   str(smoke / "again.md"))
    assert result.returncode == 0, result.stderr
    assert "running:" not in result.stdout and result_file.stat().st_mtime_ns == before
    data = json.loads((smoke / "again.json").read_text())
    assert [run["name"] for run in data["learned"]] == ["k2-endo"]
    assert data["not_run"] == ["k2-nkd", "k4-nkd", "k4-endo"]
    assert "| k4-nkd | 4 | 32, 48 | not run yet (no runs/k4-nkd/result.json) |" in \
        (smoke / "again.md").read_text()


def test_a_run_of_other_settings_is_refused_naming_its_config(smoke, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "k2-nkd").symlink_to(smoke / "runs" / "k2-endo")  # capacities 2, 3, not 8, 12
    result = bench("--bits", "1", "--work", str(runs), "--results", str(tmp_path / "page.md"))
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"{runs / 'k2-nkd' / 'config.json'}: a run of combolock-H4-K3-seed0-exo2-flip1/10 with "
        "capacities 2, 3; the row k2-nkd is combolock-H4-K3-seed0-exo2-flip1/10 with 8, 12")
