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
    state.update(completed_step=1, log=state["log"][:1], episodes=state["log"][0]["episodes"],
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


def test_a_checkpoint_moved_back_consistently_resumes_but_compare_refuses_the_later_policy(
        finished, tmp_path, capsys):
    """A finished run's checkpoint replaced by the one it wrote after its first step, every
    count consistent: ``--resume`` learns step 2 again (harmless: it writes a new policy over
    the old one); before that, ``compare`` refuses the finished run's policy beside it."""
    run_dir = _copy(finished, tmp_path)
    path = _change_checkpoint(run_dir, _stopped_after_first_step)
    assert cli.main(["compare", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"error: {run_dir / 'policy.npz'}: the policy of a finished run, but {path} has field "
        "'completed_step' 1 of 2: the checkpoint is not this policy's\n")
    assert cli.main([*RUN, "--out", str(run_dir), "--resume"]) == 0
    assert load_checkpoint(path)["completed_step"] == 2
    assert cli.main(["compare", str(run_dir), "--samples", "3", "--transitions", "10"]) == 0


def _claims_its_second_step(state: dict) -> None:
    """A checkpoint of H = 3 stopped after its first step, edited to claim its second: a cover
    of layer 2 made of the first cover's policies with their last step again, phi_B of layer 2
    as that of layer 3 and the first log record again - all a resume reads to skip step 2's
    learning (before the counts were checked, it reported the run's value, exit 0)."""
    _stopped_after_first_step(state)
    policies = state["covers"]["policies"]
    policies.append([(weights + weights[-1:], biases + biases[-1:])
                     for weights, biases in policies[1]])
    state["backward"][2] = state["backward"][1]
    state["log"].append({**state["log"][0], "step": 3})
    state["completed_step"] = 2


def _forward_made_up(state: dict) -> None:
    state["forward"][1] = state["forward"][0]


def _episodes_made_up(state: dict) -> None:
    record, config = state["log"][1], state["config"]
    record["episodes"] = (record["transitions"]
                          + record["psdp_fallbacks"] * config["psdp_samples"] * 2)


def _visits_made_up(state: dict) -> None:
    record = state["log"][1]
    record["visits"] = {name: record["episodes"] for name in ("s1a", "s2a", "s3a")}


@pytest.mark.parametrize("also, refused", [
    ([], "field 'forward' must hold phi_F of layers 1 .. 2 (one learned with each phi_B), "
         "holds [1]"),
    # each count made up in turn: the next one still tells
    ([_forward_made_up], "log record of step 3: field 'episodes' must be "),
    ([_forward_made_up, _episodes_made_up],
     "log record of step 3: field 'visits' counts "),  # the step-2 record's
    ([_forward_made_up, _episodes_made_up, _visits_made_up], "field 'episodes' is "),
])
def test_a_checkpoint_claiming_a_step_it_does_not_hold_is_refused(finished, tmp_path, capsys,
                                                                  also, refused):
    run_dir = _copy(finished, tmp_path)
    for name in ("policy.npz", "result.json"):
        (run_dir / name).unlink()

    def claimed(state: dict) -> None:
        _claims_its_second_step(state)
        for made_up in also:
            made_up(state)

    path = _change_checkpoint(run_dir, claimed)
    for command in (["compare", str(run_dir)], [*RUN, "--out", str(run_dir), "--resume"]):
        assert cli.main(command) == 2, command
        error = capsys.readouterr().err
        assert error.startswith(f"error: {path}: not a HOMER checkpoint ({refused}"), error
    assert not (run_dir / "result.json").exists()


def _move_in_record(field: str, record: int = 0):
    def move(state: dict, by: int) -> None:
        state["log"][record][field] += by
    return move


def _move_list(get):
    """Lengthen the list ``get(state)`` by a copy of its last item, or shorten it."""
    def move(state: dict, by: int) -> None:
        items = get(state)
        if by > 0:
            items.append(items[-1])
        else:
            items.pop()
    return move


def _move_layers(field: str):
    """Add the layer after the last of ``state[field]`` (a copy of the last), or drop it."""
    def move(state: dict, by: int) -> None:
        layers = state[field]
        last = max(layers)
        if by > 0:
            layers[last + 1] = layers[last]
        else:
            del layers[last]
    return move


def _move_visits(state: dict, by: int) -> None:
    visits = state["log"][1]["visits"]
    visits[sorted(visits)[-1]] += by


def _move_covers(state: dict, by: int) -> None:
    policies = state["covers"]["policies"]
    if by > 0:
        policies.append([(w + w[-1:], b + b[-1:]) for w, b in policies[-1]])
    else:
        policies.pop()


COUNTERS = {
    "completed_step": (lambda state, by: state.update(completed_step=state["completed_step"]
                                                      + by), "field 'completed_step'"),
    "episodes": (lambda state, by: state.update(episodes=state["episodes"] + by),
                 "field 'episodes' is"),
    "covers": (_move_covers, "(field 'covers'|the covers reach)"),
    "policies of a cover": (_move_list(lambda state: state["covers"]["policies"][1]),
                            "log record of step 2: field 'classes'"),
    "backward": (_move_layers("backward"), "field 'backward'"),
    "forward": (_move_layers("forward"), "field 'forward'"),
    "log": (_move_list(lambda state: state["log"]), "the log has"),
    "record step": (_move_in_record("step"), "log record of step 2: field 'step'"),
    "record episodes": (_move_in_record("episodes", 1), "log record of step 3: field 'episodes'"),
    "record transitions": (_move_in_record("transitions"),
                           "log record of step 2: field 'transitions'"),
    "record classes": (_move_in_record("classes", 1), "log record of step 3: field 'classes'"),
    "record psdp_fallbacks": (_move_in_record("psdp_fallbacks"),
                              "log record of step 2: field '(psdp_fallbacks|episodes)'.*"
                              "psdp_fallbacks"),
    "record rounds": (_move_list(lambda state: state["log"][1]["rounds"]),
                      "log record of step 3: field '(rounds|transitions)'.*rounds"),
    "record gps_values": (_move_list(lambda state: state["log"][0]["gps_values"]),
                          "log record of step 2: field 'gps_values'"),
    "last round's gps_values": (_move_list(lambda state: state["log"][0]["rounds"][-1]
                                           ["gps_values"]),
                                "log record of step 2: field 'rounds'"),
    "record visits": (_move_visits, "log record of step 3: field 'visits'"),
}
"""Every counter a checkpoint holds, moved forward (``by = 1``) or back (``by = -1``) alone:
``(move(state, by), what the refusal names)``. ``seconds`` counts nothing the rest holds."""


@pytest.mark.parametrize("by", [1, -1])
@pytest.mark.parametrize("counter", COUNTERS)
def test_every_counter_moved_forward_or_back_is_refused_naming_it(finished, counter, by):
    """Each counter against the others: completed steps against the covers, abstractions and
    log; each record's episodes, transitions, rounds, classes, GPS values, fallbacks and visits
    against each other, its cover and the config; the episodes against the records."""
    mdp, state = combination_lock(3, 2, 0), load_checkpoint(finished / "checkpoint.pt")
    check_progress(state, mdp, HadamardNoise())  # as written: consistent
    move, named = COUNTERS[counter]
    move(state, by)
    with pytest.raises(homer.CheckpointError, match=named):
        check_progress(state, mdp, HadamardNoise())


@pytest.mark.parametrize("objective", ["one_class", "pcid"])
def test_a_run_of_another_objective_holds_no_phi_f_and_no_forward_loss(tmp_path, objective):
    config = HomerConfig(transitions=100, max_transitions=100, max_epochs=2, min_epochs=1,
                         evaluation_episodes=10, eval_samples=100, objective=objective,
                         allow_small_capacity=True)
    mdp = combination_lock(3, 2, 0)
    run_homer(mdp, tmp_path / "run", config, seed=0, progress=False)
    state = load_checkpoint(tmp_path / "run" / "checkpoint.pt")
    check_progress(state, mdp, HadamardNoise())
    with pytest.raises(homer.CheckpointError, match=f"^field 'forward' must be empty "
                                                    f"\\(objective '{objective}' learns no"):
        check_progress({**state, "forward": {0: (np.zeros((2, 8)), np.zeros(2))}}, mdp,
                       HadamardNoise())
    state["log"][0]["forward_loss"] = 0.5
    with pytest.raises(homer.CheckpointError, match="field 'forward_loss' must be None"):
        check_progress(state, mdp, HadamardNoise())


def test_a_log_record_with_half_or_broken_returns_and_visits_is_refused_naming_the_field(
        finished):
    """Returns and visits: both (runs written since they are recorded) or neither."""
    mdp, state = combination_lock(3, 2, 0), load_checkpoint(finished / "checkpoint.pt")
    older = [{key: value for key, value in entry.items() if key not in ("return_sum", "visits")}
             for entry in state["log"]]
    check_progress({**state, "log": older}, mdp, HadamardNoise())  # a run begun before
    entry = state["log"][0]
    for broken, message in [
            ({**entry, "return_sum": float("nan")}, "field 'return_sum' must be a finite"),
            ({**entry, "visits": {"s1a": -1}}, "field 'visits' must map state names to counts"),
            ({**entry, "visits": {**entry["visits"], "s9z": 0}},
             "field 'visits' counts 's9z', not a state"),
            ({**older[0], "visits": entry["visits"]}, "no field 'return_sum'"),
            ({**older[0], "return_sum": 1.0}, "no field 'visits'"),
            ({**entry, "note": 1}, "unknown field 'note'")]:
        with pytest.raises(homer.CheckpointError, match=f"^log record of step 2: {message}"):
            check_progress({**state, "log": [broken, *state["log"][1:]]}, mdp, HadamardNoise())


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
