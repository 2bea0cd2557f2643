"""``benchmarks/objectives_table.py --quick``: the extended table's page section and JSON, on
Section 5's three MDPs (the full run, with ACDF's examples, takes minutes)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kinematic.counterexamples.catalogue import OBJECTIVES

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"

pytestmark = pytest.mark.no_mutants  # a subprocess


def test_the_quick_run_writes_every_objective_against_each_mdp(tmp_path):
    page = tmp_path / "page.md"
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "objectives_table.py"), "--quick", "--results",
         str(page)], capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(BENCHMARKS.parent)})
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    headline = text.split("## What each objective recovers")[1].split("\n## ")[0]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:]
            for line in headline.splitlines() if line.startswith("| ") and "---" not in line}
    assert set(rows) == set(OBJECTIVES) | {"objective"}
    # curiosity: one-step inverse dynamics merges s7 with s8, a gap of 2 keeps them apart
    assert rows["inverse_dynamics"][0] == "-"
    assert rows["multistep_inverse_k2"][0] == "BKI, KI (h in 3)"
    data = json.loads(page.with_suffix(".json").read_text())
    assert [t["mdp"] for t in data["tables"]] == [
        "curiosity-counterexample", "pcid-chain-H3", "autoencoder-exploration-d2"]
    curiosity = data["tables"][0]["objectives"]["multistep_inverse"]
    assert curiosity["classes"] == [2, 3] and curiosity["loss"][1] == "7/30"
    assert data["acdf_experiment"] == []
