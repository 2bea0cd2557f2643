"""The guide's table of gymnasium's environments (``docs/guide/standard-environments.md``): its
eta_min and "eta_min attained at" cells are what ``from_gymnasium`` and ``eta_min_states`` give
today, in the words of ``benchmarks/standard_envs.py`` (which writes them per horizon to
``benchmarks/results/standard_envs.md``, checked against the guide too)."""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from kinematic import eta, eta_min_states, from_gymnasium

gymnasium = pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "standard-environments.md"
RESULTS = ROOT / "benchmarks" / "results" / "standard_envs.md"


def _script():
    """``benchmarks/standard_envs.py`` as its own module (it imports ``machine`` from beside
    it, as a script does)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("standard_envs",
                                                      ROOT / "benchmarks" / "standard_envs.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


standard_envs = _script()
ENV_IDS = {label: env_id for env_id, label in standard_envs.ENVIRONMENTS.items()}


def table(text: str, first_header: str) -> list[dict[str, str]]:
    """The rows of the Markdown table whose header starts with ``first_header``, as
    ``{header: cell}`` (cells split at ``|``; none of these cells holds one)."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    header = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert len(cells) == len(header), line
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


GUIDE_ROWS = {row["environment"]: row
              for row in table(GUIDE.read_text(), "| environment | H | states | eta_min |")}


def test_the_guide_has_a_row_per_environment_of_the_benchmark():
    assert set(GUIDE_ROWS) == set(ENV_IDS)


def expected_cells(label: str) -> tuple[str, str]:
    """The eta_min cell and the "eta_min attained at" cell of the guide's row ``label``,
    computed: the states attaining eta_min in the environment unrolled to each H of the row
    (exact eta of every state), and the eta of one of them."""
    env = gymnasium.make(ENV_IDS[label])
    values, words = [], {}
    for horizon in map(int, GUIDE_ROWS[label]["H"].split(" / ")):
        mdp = from_gymnasium(env, horizon, numbers="exact")
        groups = eta_min_states(mdp)
        values.append(str(eta(mdp, groups[0]["states"][0])))
        words[horizon] = standard_envs.attained_words(env, mdp, groups)
    eta_min = values[0] if len(set(values)) == 1 else ", ".join(values)
    return eta_min, standard_envs.horizons_cell(words)


SLOW = {"Taxi"}
"""Taxi's exact eta at H = 10, 20 and 50 takes about a minute on one core."""


@pytest.mark.parametrize("label", [
    pytest.param(label, marks=pytest.mark.slow) if label in SLOW else label
    for label in standard_envs.ENVIRONMENTS.values()])
def test_the_guide_says_where_eta_min_is_attained_as_computed_today(label):
    row = GUIDE_ROWS[label]
    assert (row["eta_min"], row["eta_min attained at"]) == expected_cells(label)


def test_frozenlake_4x4_attains_eta_min_at_the_goal_reached_in_the_fewest_moves():
    """The words of the guide's example, computed: kills a table saying where without
    computing it, or words that lose the step or the name."""
    assert GUIDE_ROWS["FrozenLake 4x4, slippery"]["eta_min attained at"] == (
        "the goal, reached at step 7 in 6 moves, the fewest (`s7_15_end`)")


def test_the_benchmark_results_say_what_the_guide_says():
    """The results page (written by ``benchmarks/standard_envs.py``, one row per horizon) and
    the guide's summary (one row per environment) agree on eta_min and where it is attained."""
    per_environment: dict[str, dict[int, dict[str, str]]] = {}
    for row in table(RESULTS.read_text(), "| environment | H |"):
        label = re.fullmatch(r"(.*) \(`.*`\)", row["environment"])
        assert label, row["environment"]
        per_environment.setdefault(label.group(1), {})[int(row["H"])] = row
    assert set(per_environment) == set(GUIDE_ROWS)
    for label, rows in per_environment.items():
        guide = GUIDE_ROWS[label]
        assert " / ".join(map(str, rows)) == guide["H"]
        values = [row["eta_min"] for row in rows.values()]
        assert guide["eta_min"] == (values[0] if len(set(values)) == 1 else ", ".join(values))
        assert guide["eta_min attained at"] == standard_envs.horizons_cell(
            {horizon: row["eta_min attained at"] for horizon, row in rows.items()})


def test_the_examples_in_the_script_run():
    assert doctest.testmod(standard_envs).failed == 0
