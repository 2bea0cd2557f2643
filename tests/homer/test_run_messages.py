"""What ``homer run`` tells its user while it runs: one warning line for each time step where
greedy policy search gave up on a class and full PSDP ran (the state and its eta, the
threshold), and the episodes so far on the progress bar as an integer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from homer import algorithm
from homer.algorithm import episodes_postfix, fallback_message, run_homer
from homer.config import HomerConfig
from homer.psdp import PsdpFallbackWarning
from homer.wording import command_line_wording
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec, from_spec

ROOT = Path(__file__).parents[2]

HALF = {"name": "half", "horizon": 3, "actions": ["a", "b"],
        "layers": [["s"], ["u", "v"], ["x", "y"]], "start": {"s": "1"},
        "transitions": {"s": {"a": {"u": "1"}, "b": {"u": "1/2", "v": "1/2"}},
                        "u": {"a": {"x": "1"}, "b": {"y": "1"}},
                        "v": {"a": {"x": "1"}, "b": {"y": "1"}}},
        "rewards": {"x": {"a": "1"}}}
"""Five states; ``v`` is reached with probability 1/2 at most (``b``, then a coin), its own
backward-KI class: GPS can never accept its class (threshold 0.9)."""

NO_TRAINING = HomerConfig(objective="one_class", transitions=300, max_transitions=300,
                          psdp_samples=100, eval_samples=100, evaluation_episodes=100,
                          allow_small_capacity=True)
"""HOMER's loop without learning an abstraction (one class per layer): a fraction of a second."""


def test_the_warning_names_the_state_its_eta_and_the_threshold():
    half = from_spec(HALF)
    classes, states = np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1])
    with command_line_wording():
        line = fallback_message(half, 1, {1: 0.47}, classes, states, HomerConfig())
    assert line.startswith("layer 2: greedy policy search rejected backward class 1 (estimated "
                           "reach 0.47; state v, whose eta is 1/2): it accepts a class when "
                           "the estimated probability of reaching it is at least 0.9 (1 minus "
                           "--gps-epsilon 0.1), and no policy reaches a state more often than "
                           "its eta; full PSDP found the policy instead (--psdp-samples 2000 ")
    assert "\n" not in line
    both = fallback_message(half, 1, {0: 0.8, 1: 0.47}, classes, states,
                            HomerConfig(gps_epsilon=0.25))
    assert "backward classes 0 (estimated reach 0.80; 67% state u, whose eta is 1), 1 (" in both
    assert "at least 0.75 (1 minus gps_epsilon=0.25); a state with eta at least that can pass" \
        in both
    assert "found the policies instead (psdp_samples=2000 episodes" in both


def test_a_run_warns_once_for_each_step_that_falls_back(tmp_path, monkeypatch):
    def rejecting(*args, **kwargs):
        return None, 0.5

    monkeypatch.setattr(algorithm, "greedy_policy_search", rejecting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_homer(from_spec(HALF), tmp_path / "run", NO_TRAINING, progress=False)
    lines = [str(w.message) for w in caught if w.category is PsdpFallbackWarning]
    assert [line.split(":")[0] for line in lines] == ["layer 2", "layer 3"]
    # one class holds u and v, u about 3/4 of it (reached by a, and by b half the time)
    assert re.search(r"backward class 0 \(estimated reach 0\.50; 7\d% state u, whose eta is "
                     r"1\)", lines[0])


def test_a_run_whose_search_accepts_every_class_does_not_warn(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_homer(combination_lock(3, 2, 0), tmp_path / "run", NO_TRAINING, progress=False)
    assert not [w for w in caught if w.category is PsdpFallbackWarning]


def test_the_episodes_are_counted_in_integers():
    assert episodes_postfix(10_000) == "episodes=10,000"
    assert episodes_postfix(0) == "episodes=0"
    assert episodes_postfix(1_234_567) == "episodes=1,234,567"


def test_the_progress_bar_shows_the_episodes_as_an_integer(tmp_path, capsys):
    config = HomerConfig(objective="one_class", transitions=10_000, max_transitions=10_000,
                         psdp_samples=100, eval_samples=100, evaluation_episodes=100,
                         allow_small_capacity=True)
    run_homer(combination_lock(2, 2, 0), tmp_path / "run", config, progress=True)
    bar = capsys.readouterr().err
    assert "episodes=10,000" in bar and "e+" not in bar


def _homer_run(tmp_path: Path, *source: str) -> subprocess.CompletedProcess[str]:
    """``python -m homer run`` on ``source`` with a small budget (about 5 s)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "homer", "run", *source, "--out", str(tmp_path / "run"),
         "--transitions", "300", "--max-transitions", "600", "--max-epochs", "10",
         "--min-epochs", "10", "--psdp-samples", "300", "--eval-samples", "200",
         "--evaluation-episodes", "200", "--json"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, check=True)


@pytest.mark.slow
def test_homer_run_says_why_it_falls_back_on_a_state_reached_half_the_time(tmp_path):
    (tmp_path / "half.json").write_text(dumps_spec(from_spec(HALF)))
    warned = [line for line in _homer_run(tmp_path, "--spec", "half.json").stderr.splitlines()
              if line.startswith("warning: ")]
    assert len(warned) == 1
    assert warned[0].startswith("warning: layer 2: greedy policy search rejected backward "
                                "class ")
    assert "state v, whose eta is 1/2): it accepts a class when the estimated probability of " \
           "reaching it is at least 0.9 (1 minus --gps-epsilon 0.1), and no policy" in warned[0]
    (tmp_path / "lock").mkdir()
    lock = _homer_run(tmp_path / "lock", "--env", "combolock", "--horizon", "3",
                      "--actions", "2")
    assert "warning" not in lock.stderr


def test_the_last_line_says_the_value_is_an_estimate_and_where_the_exact_one_is(tmp_path, capsys):
    """A sample mean can exceed the optimum (0.508 of 0.500 on a small spec): the line says it is
    estimated, over how many episodes, and that ``homer compare`` computes it exactly."""
    from homer.cli import main

    assert main(["run", "--env", "combolock", "--horizon", "2", "--actions", "2",
                 "--out", str(tmp_path / "run"), "--objective", "one_class",
                 "--allow-small-capacity", "--transitions", "300", "--max-transitions", "300",
                 "--psdp-samples", "100", "--eval-samples", "100",
                 "--evaluation-episodes", "150"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"HOMER on combolock-H2-K2-seed0: value \d\.\d{3} estimated over 150 evaluation episodes "
        r"\(optimal 1\.000; exact: homer compare\), [\d,]+ learning episodes, [\d.]+ s; "
        r"artefacts in .*run", line), line
