"""What a run reads back: one checked loader of checkpoints for ``homer compare`` and
``homer run --resume`` (every field required and type-checked, step counts consistent with the
covers), run and sweep files read only as regular files, sweep records checked when read, seeds
bounded by what torch accepts, and rewards that could overflow the policy refused before
training."""

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import homer
from homer import cli
from homer.algorithm import run_homer
from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.psdp import fit_q
from homer.run_directory import load_checkpoint, save_checkpoint
from homer.run_state import (
    MAX_POLICY_WEIGHT,
    check_identity,
    check_policy_step,
    check_progress,
    check_reward_scale,
)
from homer.sweep import RECORDS, run_sweep
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec, from_spec, to_spec
from tests.homer.test_sweep import counting_runner

CONFIG = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                     evaluation_episodes=10, eval_samples=100)
RUN = ["run", "--env", "combolock", "--horizon", "3", "--actions", "2", "--transitions", "200",
       "--max-transitions", "200", "--max-epochs", "5", "--min-epochs", "5",
       "--evaluation-episodes", "10", "--eval-samples", "100", "--json"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    run_homer(combination_lock(3, 2, 0), out, CONFIG, seed=0, progress=False)
    return out


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    return copy


def _change_checkpoint(run_dir: Path, change) -> Path:
    path = run_dir / "checkpoint.pt"
    state = load_checkpoint(path)
    change(state)
    save_checkpoint(path, state)
    return path


def _both_refuse(run_dir: Path, capsys, message: str) -> None:
    """``compare`` and ``run --resume`` both exit 2 with ``message`` as their one line."""
    for command in (["compare", str(run_dir)], [*RUN, "--out", str(run_dir), "--resume"]):
        assert cli.main(command) == 2, command
        captured = capsys.readouterr()
        assert captured.err == f"error: {message}\n", command


def test_the_public_checks_raise_the_exported_checkpoint_error_naming_the_field(finished):
    """The checks of run_state name the field (the run directory puts the file in front: the
    tests below) with the exception ``homer`` exports, which a caller can catch."""
    mdp, state = combination_lock(3, 2, 0), load_checkpoint(finished / "checkpoint.pt")
    with pytest.raises(homer.CheckpointError, match=r"^field 'seed' must be "):
        check_identity({**state, "seed": -1})
    with pytest.raises(homer.CheckpointError, match=r"^field 'completed_step' must be "):
        check_progress({**state, "completed_step": "3"}, mdp, HadamardNoise())
    with pytest.raises(homer.CheckpointError, match=r"^step 1: weight \(2, 3\) and bias"):
        check_policy_step(np.zeros((2, 3)), np.zeros(2), 8, 2, "step 1")


def test_a_checkpoint_without_its_mdp_hash_is_refused_even_with_a_swapped_spec(finished,
                                                                               tmp_path,
                                                                               capsys):
    # The hole: without mdp_sha256, compare took mdp.json's MDP of the same name on trust.
    run_dir = _copy(finished, tmp_path)
    path = _change_checkpoint(run_dir, lambda state: state.pop("mdp_sha256"))
    spec = to_spec(combination_lock(3, 2, 0))
    spec["start"] = {"s1a": "1/4", "s1b": "3/4"}
    (run_dir / "mdp.json").write_text(dumps_spec(from_spec(spec)))
    _both_refuse(run_dir, capsys, f"{path}: not a HOMER checkpoint (no field 'mdp_sha256')")


@pytest.mark.parametrize("field", ["numpy_rng", "torch_rng", "torch_global_rng", "episodes",
                                   "seconds", "seed", "config", "rewards"])
def test_a_missing_field_is_named_by_compare_and_resume(finished, tmp_path, capsys, field):
    # resume used to read RNG states and counts unchecked (KeyError); compare never read them
    run_dir = _copy(finished, tmp_path)
    path = _change_checkpoint(run_dir, lambda state: state.pop(field))
    _both_refuse(run_dir, capsys, f"{path}: not a HOMER checkpoint (no field {field!r})")


@pytest.mark.parametrize("field, value, wanted", [
    ("completed_step", "2", "an int in [1, 2], got '2'"),
    ("completed_step", 2.0, "an int in [1, 2], got 2.0"),
    ("episodes", -1, "an int >= 0, got -1"),
    ("seconds", float("nan"), "a finite number >= 0, got nan"),
    ("seed", 2**64, "an int in [0, 18446744073709551615], got 18446744073709551616"),
    ("seed", 10**400, f"an int in [0, 18446744073709551615], got {'1' + '0' * 56}..."),
    ("rewards", "drawn", "'sampled' or 'expected', got 'drawn'"),
    ("mdp_sha256", "abc", "a SHA-256 in hex (64 digits 0-9a-f), got 'abc'"),
])
def test_a_mistyped_field_is_named_by_compare_and_resume(finished, tmp_path, capsys, field,
                                                         value, wanted):
    run_dir = _copy(finished, tmp_path)
    path = _change_checkpoint(run_dir, lambda state: state.update({field: value}))
    _both_refuse(run_dir, capsys,
                 f"{path}: not a HOMER checkpoint (field {field!r} must be {wanted})")


def _stopped_after_first_step(state: dict) -> None:
    """The checkpoint a run of H = 3 writes after its first learned step."""
    covers = state["covers"]
    covers["policies"] = covers["policies"][:2]
    state.update(completed_step=1, log=state["log"][:1],
                 backward={1: state["backward"][1]}, forward={0: state["forward"][0]})


def test_a_step_count_moved_beyond_the_covers_is_refused_and_the_true_count_resumes(
        finished, tmp_path, capsys):
    run_dir = _copy(finished, tmp_path)
    for name in ("policy.npz", "result.json"):
        (run_dir / name).unlink()

    def moved(state: dict) -> None:
        _stopped_after_first_step(state)
        state["completed_step"] = 2  # resume would skip step 2 and index a missing cover

    path = _change_checkpoint(run_dir, moved)
    _both_refuse(run_dir, capsys, f"{path}: not a HOMER checkpoint (field 'completed_step' is "
                                  "2, but the covers reach layer 1)")
    _change_checkpoint(run_dir, lambda state: state.update(completed_step=1))
    assert cli.main([*RUN, "--out", str(run_dir), "--resume"]) == 0
    assert load_checkpoint(run_dir / "checkpoint.pt")["completed_step"] == 2


@pytest.mark.parametrize("field, change", [
    # numpy's generator takes a float state and rounds it: only a round trip shows it
    ("numpy_rng", lambda s: s["state"].update(state=1.5)),
    ("numpy_rng", lambda s: s.update(bit_generator="MT19937")),
    ("torch_rng", lambda s: s[:-1]),
    ("torch_global_rng", lambda s: s.float()),
])
def test_a_generator_state_that_no_generator_takes_is_named(finished, tmp_path, capsys, field,
                                                            change):
    run_dir = _copy(finished, tmp_path)

    def damage(state: dict) -> None:
        changed = change(state[field])
        state[field] = state[field] if changed is None else changed

    path = _change_checkpoint(run_dir, damage)
    for command in (["compare", str(run_dir)], [*RUN, "--out", str(run_dir), "--resume"]):
        assert cli.main(command) == 2
        assert capsys.readouterr().err.startswith(
            f"error: {path}: not a HOMER checkpoint (field {field!r} must be the state of a ")


@pytest.mark.parametrize("name", ["checkpoint.pt", "policy.npz", "result.json", "mdp.json"])
@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_fifo_or_symlink_in_a_run_directory_is_refused_naming_it(finished, tmp_path, capsys,
                                                                  name, kind):
    run_dir = _copy(finished, tmp_path)
    path = run_dir / name
    if kind == "fifo":
        path.unlink()
        os.mkfifo(path)  # reading it would block forever
    else:
        outside = tmp_path / f"outside-{name}"
        outside.write_bytes(path.read_bytes())  # even a copy of the right content
        path.unlink()
        path.symlink_to(outside)
    assert cli.main(["compare", str(run_dir)]) == 2
    refused = ("not a regular file (a FIFO)" if kind == "fifo" else
               "a symbolic link where HOMER keeps its own regular file; refused (it could point "
               "anywhere): remove it")
    assert capsys.readouterr().err == f"error: {path}: {refused}\n"


def _records(tmp_path: Path) -> Path:
    run_sweep(["a"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="local", workers=1,
              runner=counting_runner)
    return tmp_path / RECORDS


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("status"), "no field 'status'"),
    (lambda r: r.update(episodes_to_half="12"),
     "field 'episodes_to_half' must be an int >= 0 or null, got '12'"),
    (lambda r: r.update(horizon=True), "field 'horizon' must be an int >= 1, got True"),
    (lambda r: r.update(seed=-10**400), "field 'seed' must be an int >= 0, got -100000000000"),
    (lambda r: r.update(value=None), "field 'value' must be a finite number, got None"),
    (lambda r: r.update(status="failed"), "no field 'error'"),
])
def test_a_mistyped_sweep_record_is_refused_naming_the_line(tmp_path, change, message):
    path = _records(tmp_path)
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    change(record)
    path.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=f"^{path}, line 1: not a sweep record \\({message}"):
        _records(tmp_path)


@pytest.mark.parametrize("line, message", [
    (b'{"algorithm": "\xff"}', "'utf-8' codec can't decode byte 0xff"),
    (b"[" * 100_000, "the line: JSON nested 100000 levels deep"),  # not a RecursionError
])
def test_a_non_utf8_or_deep_sweep_record_is_refused_naming_the_line(tmp_path, line, message):
    path = _records(tmp_path)
    path.write_bytes(line + b"\n" + path.read_bytes())
    with pytest.raises(ValueError, match=f"^{path}, line 1: not a sweep record \\({message}"):
        _records(tmp_path)


def test_a_last_line_torn_inside_a_character_is_dropped_as_torn(tmp_path):
    path = _records(tmp_path)
    path.write_bytes(path.read_bytes() + '{"algorithm": "é'.encode()[:-1])
    with pytest.warns(UserWarning, match="dropped a torn last line \\(line 3\\)"):
        assert len(_records(tmp_path).read_text().splitlines()) == 2


def test_a_fifo_as_the_sweep_records_is_refused_naming_it(tmp_path):
    os.mkfifo(tmp_path / RECORDS)
    with pytest.raises(ValueError, match=f"^{tmp_path / RECORDS}: not a regular file \\(a FIFO"):
        _records(tmp_path)


@pytest.mark.parametrize("algorithms, horizons, repeated", [
    (["pcid", "pcid"], [3], "algorithm 'pcid' given twice"),
    (["pcid"], [3, 3], "horizon 3 given twice"),
])
def test_a_repeated_algorithm_or_horizon_is_refused(tmp_path, algorithms, horizons, repeated):
    with pytest.raises(ValueError, match=f"^{repeated}"):
        run_sweep(algorithms, horizons, seeds=1, budget=5, out=tmp_path, executor="local",
                  runner=counting_runner)
    assert not (tmp_path / RECORDS).exists()


@pytest.mark.parametrize("arguments", [
    ["run", "--env", "combolock", "--seed"], ["run", "--env", "combolock", "--lock-seed"],
    ["compare", "DIR", "--seed"], ["counterexamples", "--seed"],
])
def test_a_seed_beyond_what_torch_takes_is_refused_naming_the_range(capsys, tmp_path,
                                                                    arguments):
    with pytest.raises(SystemExit) as stop:
        cli.main([*arguments, str(2**64), *([] if "DIR" in arguments else
                                            ["--out", str(tmp_path / "out")])])
    assert stop.value.code == 2
    assert (f"argument {arguments[-1]}: must be an int in [0, 18446744073709551615], got "
            f"'{2**64}'") in capsys.readouterr().err


def test_the_largest_seed_runs(tmp_path):
    # 2^63 .. 2^64 - 1 are seeds torch takes (a bound at 2^63 - 1 would refuse them)
    assert cli.main(["run", "--env", "combolock", "--horizon", "1", "--actions", "2",
                     "--seed", str(2**64 - 1), "--out", str(tmp_path / "run"), "--json"]) == 0


def _lock_spec(tmp_path: Path, reward: str) -> Path:
    spec = to_spec(combination_lock(3, 2, 0))
    spec["rewards"]["s3a"] = {"a2": reward}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.parametrize("reward, shown", [("1e300", "1e+300"), ("1" + "0" * 400, "about 1e400")])
def test_rewards_that_could_overflow_the_policy_are_refused_before_training(tmp_path, capsys,
                                                                            reward, shown):
    out = tmp_path / "run"
    # 1e300 used to run to exit 0 with infinite policy weights; 10^400 to an OverflowError
    assert cli.main(["run", "--spec", str(_lock_spec(tmp_path, reward)), "--out",
                     str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: the reward of ('s3a', 'a2') at step 3 has magnitude "
                            f"{shown}: beyond ") and error.count("\n") == 1
    assert error.endswith("with H = 3, --eval-samples 500 and --ridge 0.1\n")
    assert not out.exists()


def test_the_reward_bound_is_the_largest_the_ridge_regression_keeps_below_2_to_the_100():
    mdp = combination_lock(3, 2, 0)
    config = HomerConfig(eval_samples=50, ridge=1e-3)
    gain = math.sqrt(50) / (2 * math.sqrt(1e-3)) * 3
    limit = MAX_POLICY_WEIGHT / gain
    spec = to_spec(mdp)
    for factor, refused in ((0.99, False), (1.01, True)):
        spec["rewards"]["s3a"] = {"a2": repr(limit * factor)}
        if refused:
            with pytest.raises(ValueError, match="the reward of \\('s3a', 'a2'\\)") as error:
                check_reward_scale(from_spec(spec), config)
            assert str(error.value).endswith("with H = 3, eval_samples=50 and ridge=0.001")
        else:
            check_reward_scale(from_spec(spec), config)
    # the worst case the bound covers: returns of H * limit on any design stay within 2^100
    rng = np.random.default_rng(0)
    for design in (rng.normal(size=(50, 8)), np.ones((50, 8)), np.zeros((50, 8))):
        returns = np.full(50, 3 * limit * 0.99)
        weights, biases = fit_q(design, np.zeros(50, np.intp), returns, 1, 1e-3)
        assert np.isfinite(weights).all() and np.isfinite(biases).all()
        assert np.linalg.norm(np.append(weights[0].astype(float), biases[0])) <= MAX_POLICY_WEIGHT


def test_a_file_larger_than_the_memory_is_refused_naming_it(finished, tmp_path, capsys):
    run_dir = _copy(finished, tmp_path)
    os.truncate(run_dir / "result.json", 2**40)  # sparse: a terabyte that takes no disk
    assert cli.main(["compare", str(run_dir)]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: reading {run_dir / 'result.json'} would need about 1.0 TiB of memory; this "
        "machine has ")
