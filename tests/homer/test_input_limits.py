"""HOMER's inputs: every HomerConfig field and command-line flag validated (the flag named), a
run directory holding another run refused unless --resume or --force, requests larger than the
machine refused with an estimate, and run directories whose contents do not fit their MDP
refused naming the file."""

import json
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest
import torch

from homer import algorithm, cli
from homer.algorithm import run_homer
from homer.artefacts import load_run
from homer.config import OBJECTIVES, RANGES, HomerConfig
from homer.encoders import HadamardNoise
from homer.models import ContrastiveEnsemble
from homer.run_directory import load_checkpoint, save_checkpoint
from homer.run_state import CheckpointError
from homer.sampler import Batch, BatchSampler, batch_bytes
from kinematic.errors import TooLarge
from kinematic.families import combination_lock

BAD_VALUES = {  # one value outside each field's range
    "backward_capacity": 1, "forward_capacity": 1, "pretraining_width": 1, "hidden": 0,
    "learning_rate": 0.0,
    "batch_size": 0, "max_epochs": 0, "patience": 0, "min_epochs": -1, "restarts": 0,
    "forward_restarts": 0, "validation_fraction": 1.5, "gumbel_temperature": float("nan"),
    "transitions": 0, "max_transitions": 0, "psdp_samples": 0, "eval_samples": 0,
    "gps_epsilon": 1.0, "ridge": float("inf"), "evaluation_episodes": 0, "torch_threads": 0,
}


def test_every_field_has_a_range_and_its_default_is_inside():
    numeric = {f.name for f in fields(HomerConfig)} - {"objective", "allow_small_capacity"}
    assert set(RANGES) == numeric == set(BAD_VALUES)
    for name in numeric:
        assert RANGES[name].contains(getattr(HomerConfig(), name)), name
    assert HomerConfig().objective in OBJECTIVES


def test_the_objective_flag_offers_exactly_the_objectives(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["run", "--env", "combolock", "--out", "x", "--objective", "curiosity"])
    assert stop.value.code == 2
    assert "invalid choice: 'curiosity'" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"^objective must be one of contrastive, "):
        HomerConfig(objective="curiosity")


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_a_field_outside_its_range_is_refused_naming_it(name):
    value = BAD_VALUES[name]
    with pytest.raises(ValueError) as error:
        replace(HomerConfig(), **{name: value})
    assert str(error.value) == f"{name} must be {RANGES[name].describe()}, got {value!r}"


def test_an_int_too_long_to_print_is_described_by_its_digits():
    with pytest.raises(ValueError, match=r"^validation_fraction must be a finite number in "
                                         r"\(0, 1\), got an int of about 5,000 digits$"):
        HomerConfig(validation_fraction=10**5000)  # repr() alone would raise


DEPENDENT = [  # (settings, the error from Python, the error on the command line)
    ({"min_epochs": 101, "max_epochs": 100}, "min_epochs=101 must be at most max_epochs=100",
     "--min-epochs 101 must be at most --max-epochs 100"),
    ({"transitions": 20, "max_transitions": 10},
     "max_transitions=10 must be at least transitions=20",
     "--max-transitions 10 must be at least --transitions 20"),
    ({"pretraining_width": 2},  # forward_capacity is 3
     "pretraining_width=2 must be at least the capacities (backward_capacity=2, "
     "forward_capacity=3)",
     "--pretraining-width 2 must be at least the capacities (--backward-capacity 2, "
     "--forward-capacity 3)"),
]


@pytest.mark.parametrize("settings, python, _", DEPENDENT)
def test_fields_that_depend_on_each_other_name_the_arguments_in_python(settings, python, _):
    with pytest.raises(ValueError) as error:
        HomerConfig(**settings)
    assert str(error.value) == python
    assert HomerConfig(min_epochs=5, max_epochs=5, transitions=10, max_transitions=10,
                       pretraining_width=3)


@pytest.mark.parametrize("settings, _, command_line", DEPENDENT)
def test_fields_that_depend_on_each_other_name_the_flags_on_the_command_line(
        settings, _, command_line, capsys, tmp_path):
    flags = [text for name, value in settings.items()
             for text in ("--" + name.replace("_", "-"), str(value))]
    out = tmp_path / "run"
    assert cli.main(["run", "--env", "combolock", "--out", str(out), *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"error: {command_line}\n"
    assert not out.exists()


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_each_config_flag_names_itself(name, capsys, tmp_path):
    flag = "--" + name.replace("_", "-")
    with pytest.raises(SystemExit) as stop:
        cli.main(["run", "--env", "combolock", "--out", str(tmp_path / "run"), flag,
                  str(BAD_VALUES[name])])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"error: argument {flag}: must be {RANGES[name].describe()}" in captured.err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("arguments, flag", [
    (["run", "--env", "combolock", "--noise-variance", "nan"], "--noise-variance"),
    (["run", "--env", "combolock", "--noise-variance", "-1"], "--noise-variance"),
    (["run", "--env", "combolock", "--horizon", "0"], "--horizon"),
    (["run", "--env", "combolock", "--actions", "1"], "--actions"),
    (["run", "--env", "combolock", "--seed", "-3"], "--seed"),
    (["compare", "DIR", "--samples", "0"], "--samples"),
    (["compare", "DIR", "--transitions", "-5"], "--transitions"),
    (["sweep", "--horizons", "3,x"], "--horizons"),
    (["sweep", "--horizons", "3,0"], "--horizons"),
    (["sweep", "--seeds", "0"], "--seeds"),
    (["sweep", "--budget", "0"], "--budget"),
    (["sweep", "--seeds", "1001"], "--seeds"),
    (["sweep", "--budget", str(10**9 + 1)], "--budget"),
    (["sweep", "--workers", "65"], "--workers"),
    (["sweep", "--workers", "0"], "--workers"),
])
def test_other_flags_name_themselves(arguments, flag, capsys, tmp_path):
    if arguments[0] != "compare":
        arguments = [*arguments, "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stop:
        cli.main(arguments)
    assert stop.value.code == 2
    assert f"error: argument {flag}: must be" in capsys.readouterr().err


@pytest.mark.parametrize("arguments, start", [
    (["--horizon", "100000000"], "error: the observation encoder at H = 100000000"),
    (["--actions", "100000000"], "error: combination_lock(horizon=10, actions=100000000)"),
    (["--horizon", "100", "--min-epochs", "200"],
     "error: --min-epochs 200 must be at most --max-epochs 100"),
    (["--max-transitions", "1000000000"],
     "error: HOMER with --max-transitions 1000000000 on "
     "'combolock-H10-K10-seed0' (H = 10, observations of dimension 16) would need about"),
    (["--evaluation-episodes", "10000000000"],
     "error: HOMER with --evaluation-episodes 10000000000 on"),
    (["--max-epochs", "1000000"],
     "error: HOMER with --max-epochs 1000000, --batch-size 64 and --max-transitions 8000 on "
     "'combolock-H10-K10-seed0' (H = 10) could "
     "train for 9,000,000,000 mini-batch steps, at least 52 days"),
    (["--hidden", "1000000000"],
     "error: HOMER's contrastive models with --hidden 1000000000, --pretraining-width 16 and 3 "
     "models per round (--restarts 2 + --forward-restarts 1)"),
])
def test_impossible_runs_exit_2_at_once_with_one_line(arguments, start, capsys, tmp_path):
    out = tmp_path / "run"
    assert cli.main(["run", "--env", "combolock", "--out", str(out), *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(start)
    assert captured.err.count("\n") == 1 and not out.exists()


def test_the_encoder_estimate_is_what_its_rotation_needs():
    with pytest.raises(TooLarge, match=r"dimension d = 134217728\) would need about 320\.0 PiB"):
        HadamardNoise().check_fits(3, 10**8)
    HadamardNoise().check_fits(3, 1000)  # d = 1024: 20 MiB


def test_the_batch_estimate_is_what_a_batch_holds():
    mdp = combination_lock(4, 3, 0)
    encoder = HadamardNoise()
    batch = BatchSampler(mdp, encoder, np.random.default_rng(0)).run(50, [], 0)
    held = sum(getattr(batch, part.name).nbytes for part in fields(Batch))
    assert batch_bytes(50, mdp.horizon, encoder.dimension(mdp)) == held


def test_an_objective_that_trains_nothing_is_not_refused_for_its_model_settings(tmp_path):
    config = HomerConfig(objective="one_class", hidden=10**9, max_epochs=10**9,
                         min_epochs=100, transitions=100, max_transitions=100,
                         evaluation_episodes=10)
    result = run_homer(combination_lock(2, 2, 0), tmp_path, config, progress=False)
    assert result.episodes > 0


def test_the_model_estimate_counts_what_an_ensemble_allocates():
    config = HomerConfig(hidden=7, pretraining_width=5)
    ensemble = ContrastiveEnsemble(16, 3, [True, True, False], config, torch.Generator())
    allocated = sum(parameter.numel() for parameter in ensemble.parameters())
    assert ContrastiveEnsemble.parameter_count(16, 3, 3, config) == allocated


def test_the_training_estimate_counts_the_steps_of_a_run_that_never_stops_early(monkeypatch,
                                                                                 tmp_path):
    config = HomerConfig(transitions=150, max_transitions=150, max_epochs=3, min_epochs=3,
                         patience=3, batch_size=32, evaluation_episodes=10)
    mdp = combination_lock(3, 2, 0)
    monkeypatch.setattr(algorithm, "MAX_TRAINING_SECONDS", 0)
    with pytest.raises(ValueError, match=r"could train for ([\d,]+) mini-batch steps") as error:
        algorithm.check_run_time(mdp, config)
    estimated = int(error.value.args[0].split("could train for ")[1].split(" ")[0].replace(",", ""))
    monkeypatch.undo()
    steps = []
    real_step = torch.optim.Adam.step
    monkeypatch.setattr(torch.optim.Adam, "step",
                        lambda self, *args, **kwargs: steps.append(1) or real_step(self, *args,
                                                                                  **kwargs))
    run_homer(mdp, tmp_path, config, seed=0, progress=False)
    assert len(steps) == estimated == 2 * 3 * 2 * 8  # (H - 1) steps x 2 phases x 3 epochs x 8


def _run(out: Path, *extra: str) -> int:
    return cli.main(["run", "--env", "combolock", "--horizon", "1", "--actions", "2", "--out",
                     str(out), "--json", *extra])


def test_a_directory_holding_a_run_is_refused_unless_resume_or_force(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(out) == 0  # H = 1 writes no checkpoint: the refusal cannot rely on one
    first = json.loads((out / "config.json").read_text())
    capsys.readouterr()
    assert _run(out) == 2
    error = capsys.readouterr().err
    assert error.splitlines() == [
        f"error: {out} holds a run (config.json, mdp.json, policy.npz, result.json): pass "
        "--resume to continue it, --force to replace it, or use another directory"]
    assert _run(out, "--seed", "1", "--resume") == 2
    assert "holds another run (seed, mdp, mdp_sha256 differ" in capsys.readouterr().err
    assert json.loads((out / "config.json").read_text()) == first  # nothing overwritten
    assert _run(out, "--resume") == 0
    capsys.readouterr()
    assert cli.main(["compare", str(out)]) == 2  # an H = 1 run learns nothing to compare
    assert "stopped before its first step, or has horizon 1" in capsys.readouterr().err
    (out / "compare").mkdir()
    (out / "compare" / "report.json").write_text("{}")  # a report of the old run
    assert _run(out, "--seed", "1", "--force") == 0
    assert not (out / "compare").exists()
    assert json.loads((out / "config.json").read_text())["seed"] == 1
    with pytest.raises(SystemExit):
        _run(out, "--resume", "--force")
    with pytest.raises(ValueError, match="resume and force exclude each other"):
        run_homer(combination_lock(1, 2, 0), out, resume=True, force=True)


def test_force_deletes_the_old_checkpoint_so_the_run_starts_afresh(tmp_path):
    mdp = combination_lock(2, 2, 0)
    config = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5)
    run_homer(mdp, tmp_path, config, seed=0, progress=False)
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    save_checkpoint(tmp_path / "checkpoint.pt", {**state, "seconds": 1e6})
    result = run_homer(mdp, tmp_path, config, seed=0, progress=False, force=True)
    assert result.seconds < 1e5  # not resumed from the planted checkpoint


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    config = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                         evaluation_episodes=10)
    run_homer(combination_lock(3, 2, 0), out, config, seed=0, progress=False)
    return out


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    target.mkdir()
    for path in run_dir.iterdir():
        if path.is_file():
            (target / path.name).write_bytes(path.read_bytes())
    return target


@pytest.mark.parametrize("change, message", [
    (lambda s: s["backward"].update({1: (s["backward"][1][0][:, :3], s["backward"][1][1])}),
     "phi_B of layer 2: weight (2, 3) and bias (2,) do not fit observations of dimension 8"),
    (lambda s: s["forward"].update({7: s["forward"][0]}), "phi_F of layer 7"),
    (lambda s: s["backward"][1][0].fill(np.nan), "phi_B of layer 2: weights must be finite"),
    (lambda s: s["covers"]["policies"][1][0][0].__setitem__(0, 10**6),
     "a cover refers to array 1000000"),
    (lambda s: s["covers"]["policies"].append([]), "4 covers for horizon 3"),
    (lambda s: s.update(encoder={"noise_variance": -1.0}),
     "noise_variance must be a finite number >= 0, got -1.0"),
    (lambda s: s.update(encoder={"noise": 0.1}), "unexpected keyword argument 'noise'"),
    (lambda s: s.update(log="none"), "log is not a list of records"),
    (lambda s: s["covers"]["policies"][2][0][0].pop(), "has 1 steps, not 2"),
])
def test_a_checkpoint_that_does_not_fit_its_mdp_is_refused_naming_it(run_dir, tmp_path, change,
                                                                       message):
    copy = _copy(run_dir, tmp_path)
    state = load_checkpoint(copy / "checkpoint.pt")
    change(state)
    save_checkpoint(copy / "checkpoint.pt", state)
    with pytest.raises(CheckpointError) as error:
        load_run(copy)
    assert str(error.value).startswith(f"{copy / 'checkpoint.pt'}: not a HOMER checkpoint (")
    assert message in str(error.value)


def test_a_policy_that_does_not_fit_its_mdp_is_refused_naming_it(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    with np.load(copy / "policy.npz") as arrays:
        stored = [arrays[f"arr_{i}"] for i in range(len(arrays.files))]
    stored[0] = np.zeros((5, 8), dtype=np.float32)  # 5 actions for a 2-action MDP
    stored[3] = np.zeros(5, dtype=np.float32)
    np.savez(copy / "policy.npz", *stored)
    with pytest.raises(ValueError, match=f"^{copy / 'policy.npz'}, step 1: 5 actions, not 2$"):
        load_run(copy)
    (copy / "result.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=f"^{copy / 'result.json'}: not a HOMER result"):
        load_run(copy)


def test_a_run_without_its_mdp_json_asks_for_its_mdp_by_the_argument_name(run_dir, tmp_path):
    copy = _copy(run_dir, tmp_path)
    (copy / "mdp.json").unlink()
    with pytest.raises(FileNotFoundError) as error:
        load_run(copy)
    assert str(error.value) == f"{copy / 'mdp.json'} not found: pass the run's MDP (mdp=...)"


def test_compare_of_a_run_without_its_mdp_json_asks_for_spec(run_dir, tmp_path, capsys):
    copy = _copy(run_dir, tmp_path)
    (copy / "mdp.json").unlink()
    assert cli.main(["compare", str(copy)]) == 2
    assert capsys.readouterr().err == (f"error: {copy / 'mdp.json'} not found: pass the run's "
                                       "MDP (--spec)\n")


@pytest.mark.parametrize("flag", ["--samples", "--transitions"])
def test_a_comparison_larger_than_the_machine_exits_2_at_once_naming_its_flag(run_dir, flag,
                                                                              capsys):
    assert cli.main(["compare", str(run_dir), flag, str(10**12)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: comparing with --samples ") and \
        f"{flag} {10**12} " in captured.err and "would need about" in captured.err
    assert not (run_dir / "compare").exists()


@pytest.mark.parametrize("command", [[], ["run"], ["compare"], ["sweep"], ["counterexamples"]])
def test_every_help_page_prints(command, capsys):
    # A '%' in a field's docstring once made argparse crash on `homer run --help`.
    with pytest.raises(SystemExit) as stop:
        cli.main([*command, "--help"])
    assert stop.value.code == 0
    assert "usage:" in capsys.readouterr().out
