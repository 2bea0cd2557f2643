"""HOMER with small budgets: it learns a cover visiting every latent state with at least half of
its eta (checked with the latent states the sampler records), resumes identically, and its
command line prints a JSON summary."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import homer.algorithm as algorithm
from homer.algorithm import run_homer
from homer.artefacts import load_run
from homer.cli import main
from homer.compare import compare_run
from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.run_directory import load_checkpoint
from homer.sampler import BatchSampler
from kinematic.families import combination_lock, random_sparse_mdp
from kinematic.homing import eta
from kinematic.spec import from_spec, to_spec


def cover_quality(mdp, covers, samples=3000, seed=11):
    """Per layer, min over states of (best empirical P_pi(s) over Psi_h) / eta(s)."""
    sampler = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(seed))
    eta_layers = eta(mdp)
    ratios = []
    for h in range(1, mdp.horizon):
        best = np.zeros(mdp.width(h))
        for policy in covers[h]:
            batch = sampler.run(samples, [policy], h, last_step=h)
            best = np.maximum(best, np.bincount(batch.states[:, h], minlength=mdp.width(h))
                              / samples)
        ratios.append(min(best / np.array([float(e) for e in eta_layers[h]])))
    return ratios


def wrong_merges(run_dir) -> dict[str, list[int]]:
    """For each kind of learned abstraction (``backward``: phi_B, ``forward``: phi_F, ``ki``:
    phi-bar), per step that has one, the pairs of states of distinct exact classes it merges
    (``homer.compare``)."""
    report = compare_run(load_run(run_dir), samples=200, transitions=200)
    return {kind: [step["abstractions"][kind]["wrong_merges"] for step in report.steps
                   if kind in step["abstractions"]] for kind in ("backward", "forward", "ki")}


@pytest.mark.parametrize("horizon", [3, *(pytest.param(h, marks=pytest.mark.slow) for h in (4, 5))])
def test_homer_covers_small_locks(horizon, tmp_path):
    mdp = combination_lock(horizon, actions=10, seed=horizon)
    result = run_homer(mdp, tmp_path, seed=1, progress=False)
    assert min(cover_quality(mdp, result.covers)) >= 0.5
    assert result.value >= 0.9 and result.optimal_value == 1.0
    assert wrong_merges(tmp_path) == {"backward": [0] * (horizon - 1),
                                      "forward": [0] * (horizon - 1), "ki": [0] * horizon}


def two_observations_per_state(mdp):
    spec = to_spec(mdp)
    spec["emissions"] = {s: {f"{s}#0": 0.5, f"{s}#1": 0.5} for s in mdp.states}
    return from_spec(spec)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_homer_covers_generated_block_mdps_with_several_observations(seed, tmp_path):
    mdp = two_observations_per_state(
        random_sparse_mdp(horizon=4, width=3, actions=3, successors=2, seed=seed))
    assert min(min(e) for e in eta(mdp)) > Fraction(1, 10)
    # Classes of these MDPs are reachable with probability < 1, so GPS rejects them and every
    # class goes to full PSDP after one extra round of transitions (capped for CI time).
    config = HomerConfig(backward_capacity=3, forward_capacity=3, max_transitions=4000)
    result = run_homer(mdp, tmp_path, config=config, seed=seed, progress=False)
    assert min(cover_quality(mdp, result.covers)) >= 0.5
    assert all(entry["psdp_fallbacks"] >= 1 for entry in result.log)  # as the comment says
    assert wrong_merges(tmp_path) == {"backward": [0] * 3, "forward": [0] * 3, "ki": [0] * 4}


SMALL = HomerConfig(transitions=300, max_transitions=600, max_epochs=10, min_epochs=10,
                    psdp_samples=300, eval_samples=200, evaluation_episodes=200)
"""A cheap configuration for tests of the machinery (resume, command line), not of learning."""


def test_a_stopped_run_resumes_with_identical_results(tmp_path, monkeypatch):
    mdp = combination_lock(4, actions=4, seed=0)
    whole = run_homer(mdp, tmp_path / "whole", SMALL, seed=3, progress=False)

    saves = {"count": 0}
    original = algorithm.write_checkpoint

    def save_then_stop(run_dir, checkpoint):
        original(run_dir, checkpoint)
        saves["count"] += 1
        if saves["count"] == 2:
            raise KeyboardInterrupt  # as if killed right after the second checkpoint

    monkeypatch.setattr(algorithm, "write_checkpoint", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run_homer(mdp, tmp_path / "stopped", SMALL, seed=3, progress=False)
    monkeypatch.setattr(algorithm, "write_checkpoint", original)
    with pytest.raises(FileExistsError, match="pass resume=True to continue it, force=True to "
                                              "replace it"):
        run_homer(mdp, tmp_path / "stopped", SMALL, seed=3, progress=False)
    resumed = run_homer(mdp, tmp_path / "stopped", SMALL, seed=3, resume=True, progress=False)
    assert resumed.episodes == whole.episodes
    assert resumed.value == whole.value
    assert resumed.log == whole.log
    assert resumed.training_returns == whole.training_returns
    assert resumed.state_visits == whole.state_visits
    for first, second in zip(resumed.policy.weights, whole.policy.weights, strict=True):
        assert np.array_equal(first, second)
    with pytest.raises(ValueError, match="another run"):
        run_homer(mdp, tmp_path / "stopped", SMALL, seed=4, resume=True, progress=False)
    with pytest.raises(ValueError, match=r"another run \(rewards differ"):
        run_homer(mdp, tmp_path / "stopped", SMALL, seed=3, sample_rewards=False, resume=True,
                  progress=False)


def test_ctrl_c_during_run_exits_130_saying_how_to_resume_and_the_resumed_run_is_identical(
        tmp_path, monkeypatch, capsys):
    command = ["run", "--env", "combolock", "--horizon", "3", "--actions", "3", "--json",
               "--transitions", "300", "--max-epochs", "10", "--min-epochs", "10",
               "--evaluation-episodes", "200"]
    assert main([*command, "--out", str(tmp_path / "whole")]) == 0
    original = algorithm.write_checkpoint

    def save_then_interrupt(run_dir, checkpoint):
        original(run_dir, checkpoint)
        raise KeyboardInterrupt  # Ctrl-C right after the first step's checkpoint

    monkeypatch.setattr(algorithm, "write_checkpoint", save_then_interrupt)
    stopped = tmp_path / "stopped"
    capsys.readouterr()
    assert main([*command, "--out", str(stopped)]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: interrupted; the time steps completed so far are saved in {stopped} "
        "(checkpoint.pt): rerun the same command with --resume to continue"]
    assert load_checkpoint(stopped / "checkpoint.pt")["completed_step"] == 1
    early = tmp_path / "early"

    def interrupt(*args):
        raise KeyboardInterrupt  # Ctrl-C during the first step, before any checkpoint

    monkeypatch.setattr(algorithm, "_learn_step", interrupt)
    assert main([*command, "--out", str(early)]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: interrupted; no time step was completed yet: rerun the same command with "
        f"--resume to start again in {early}"]
    monkeypatch.undo()
    assert main([*command, "--out", str(early), "--resume"]) == 0  # as the line says
    capsys.readouterr()
    monkeypatch.setattr(algorithm, "write_checkpoint", original)
    assert main([*command, "--out", str(stopped), "--resume"]) == 0

    def result(run_dir):
        summary = json.loads((run_dir / "result.json").read_text())
        return {key: value for key, value in summary.items()
                if key not in ("seconds", "run_dir")}

    assert result(stopped) == result(tmp_path / "whole")


def test_command_line_prints_a_json_summary_last(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "homer", "run", "--env", "combolock", "--horizon", "3",
         "--actions", "3", "--out", str(tmp_path / "run"), "--json", "--transitions", "300",
         "--max-epochs", "10", "--min-epochs", "10", "--evaluation-episodes", "200"],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(summary) >= {"value", "optimal_value", "episodes", "seconds", "run_dir"}
    assert summary["optimal_value"] == 1.0 and summary["episodes"] > 0
    assert (tmp_path / "run" / "checkpoint.pt").exists()
    assert (tmp_path / "run" / "result.json").exists()
