"""Fuzzing run directories as people hand them over: a real finished run, mutated (a checkpoint
field deleted, retyped or moved, any counter it holds moved forward or back (the completed step,
the episodes, a cover's policies, the abstractions' layers, the log and each record's counts), a
file truncated, replaced by a FIFO or by a symlink to a file
outside, ``mdp.json`` swapped for another MDP of the same name, a symlink to a file outside
planted as ``<artefact>.tmp`` or as a ``compare`` output), then ``homer compare`` and
``homer run --resume`` in-process on it. Whatever the mutation, each command exits 0 or exits 2
with one ``error:`` line naming a file of the run directory, never raises, never blocks, and
writes nothing outside the directory; a directory left valid gives the original results."""

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homer import cli
from homer.algorithm import run_homer
from homer.config import HomerConfig
from homer.run_directory import (
    ARTEFACTS,
    COMPARE_DIRECTORY,
    COMPARE_OUTPUTS,
    load_checkpoint,
    save_checkpoint,
)
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec, from_spec, to_spec
from tests.homer.test_run_state import COUNTERS
from tests.test_fuzz_cli import _assert_clean_outcome

CONFIG = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                     evaluation_episodes=10, eval_samples=100)
RUN = ["run", "--env", "combolock", "--horizon", "3", "--actions", "2", "--transitions", "200",
       "--max-transitions", "200", "--max-epochs", "5", "--min-epochs", "5",
       "--evaluation-episodes", "10", "--eval-samples", "100", "--json", "--resume"]
COMPARE = ["--samples", "3", "--transitions", "10", "--json"]
FIELDS = ["mdp", "mdp_sha256", "config", "seed", "encoder", "rewards", "numpy_rng",
          "torch_rng", "torch_global_rng", "completed_step", "episodes", "seconds", "covers",
          "backward", "forward", "log"]


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> dict:
    """A finished H = 3 run, its ``compare`` report and its value."""
    run_dir = tmp_path_factory.mktemp("original") / "run"
    result = run_homer(combination_lock(3, 2, 0), run_dir, CONFIG, seed=0, progress=False)
    assert cli.main(["compare", str(run_dir), *COMPARE]) == 0
    report = json.loads((run_dir / "compare" / "report.json").read_text())
    shutil.rmtree(run_dir / "compare")
    return {"run_dir": run_dir, "report": _without_plots(report), "value": result.value}


def _without_plots(report: dict) -> dict:
    return {key: value for key, value in report.items() if key != "plots"}


def _other_mdp_with_the_same_name() -> str:
    spec = to_spec(combination_lock(3, 2, 0))
    spec["start"] = {"s1a": "1/4", "s1b": "3/4"}
    return dumps_spec(from_spec(spec))


RETYPED = {"str": lambda v: str(v)[:20], "float": lambda v: 1.5, "None": lambda v: None,
           "list": lambda v: [v], "array": lambda v: np.arange(3.0)}


@st.composite
def mutations(draw: st.DrawFn) -> tuple:
    """One mutation: ``(kind, *parameters)``."""
    kind = draw(st.sampled_from(["noop", "delete", "retype", "move", "counter", "truncate",
                                 "fifo", "symlink", "swap", "planted_tmp", "compare_link"]))
    if kind == "compare_link":
        return kind, draw(st.sampled_from(COMPARE_OUTPUTS))
    if kind in ("delete", "retype"):
        return kind, draw(st.sampled_from(FIELDS)), draw(st.sampled_from(sorted(RETYPED)))
    if kind == "move":
        return (kind, draw(st.sampled_from(["completed_step", "episodes"])),
                draw(st.sampled_from([-1, 1, 10**6])))
    if kind == "counter":
        return kind, draw(st.sampled_from(sorted(COUNTERS))), draw(st.sampled_from([-1, 1]))
    if kind == "truncate":
        return kind, draw(st.sampled_from(ARTEFACTS)), draw(st.floats(0, 0.99))
    if kind == "swap":
        return kind, draw(st.booleans())  # also drop the checkpoint's mdp_sha256
    return kind, draw(st.sampled_from(ARTEFACTS))


def _mutate(run_dir: Path, outside: Path, mutation: tuple) -> None:
    kind, *parameters = mutation
    checkpoint = run_dir / "checkpoint.pt"
    if kind in ("delete", "retype", "move", "counter") or (kind == "swap" and parameters[0]):
        state = load_checkpoint(checkpoint)
        if kind == "retype":
            state[parameters[0]] = RETYPED[parameters[1]](state[parameters[0]])
        elif kind == "move":
            state[parameters[0]] += parameters[1]
        elif kind == "counter":
            COUNTERS[parameters[0]][0](state, parameters[1])
        else:
            del state["mdp_sha256" if kind == "swap" else parameters[0]]
        save_checkpoint(checkpoint, state)
    if kind == "swap":
        (run_dir / "mdp.json").write_text(_other_mdp_with_the_same_name())
        return
    if kind in ("planted_tmp", "compare_link"):  # where a naive writer would write
        target = outside / f"target-of-{parameters[0]}"
        target.write_text("must stay as it is")
        planted = (run_dir / f"{parameters[0]}.tmp" if kind == "planted_tmp"
                   else run_dir / COMPARE_DIRECTORY / parameters[0])
        planted.parent.mkdir(exist_ok=True)
        planted.symlink_to(target)
        return
    if kind not in ("noop", "truncate", "fifo", "symlink"):
        return
    path = run_dir / parameters[0]
    content = path.read_bytes()
    if kind == "noop":
        path.write_bytes(content)
    elif kind == "truncate":
        path.write_bytes(content[:int(parameters[1] * len(content))])
    elif kind == "fifo":
        path.unlink()
        os.mkfifo(path)
    else:
        target = outside / parameters[0]
        target.write_bytes(content)
        path.unlink()
        path.symlink_to(target)


def _assert_counter_refused(mutation: tuple, status: int, error: str, run_dir: Path) -> None:
    """A moved counter: refused, the one error line naming the checkpoint and the field."""
    if mutation[0] != "counter":
        return
    assert status == 2, mutation
    prefix = f"error: {run_dir / 'checkpoint.pt'}: not a HOMER checkpoint ("
    assert error.startswith(prefix), (mutation, error)
    assert re.search(COUNTERS[mutation[1]][1], error), (mutation, error)


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.is_symlink()}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=80)
@given(mutation=mutations())
def test_compare_and_resume_on_a_mutated_run_directory_exit_cleanly(mutation, original,
                                                                     tmp_path_factory, capsys):
    sandbox = tmp_path_factory.mktemp("mutated")
    run_dir, outside = sandbox / "run", sandbox / "outside"
    shutil.copytree(original["run_dir"], run_dir)
    outside.mkdir()
    (outside / "unrelated.txt").write_text("not part of the run")
    _mutate(run_dir, outside, mutation)
    before = _snapshot(outside)
    valid = mutation[0] in ("noop", "planted_tmp")  # a fresh temporary name is never planted
    capsys.readouterr()

    status = cli.main(["compare", str(run_dir), *COMPARE])
    captured = capsys.readouterr()
    _assert_clean_outcome(status, captured, run_dir)
    _assert_counter_refused(mutation, status, captured.err, run_dir)
    if status == 0:  # nothing that changes what compare reads is accepted
        report = json.loads((run_dir / "compare" / "report.json").read_text())
        assert _without_plots(report) == original["report"], mutation
    assert status == 0 or not valid, mutation

    status = cli.main([*RUN, "--out", str(run_dir)])
    captured = capsys.readouterr()
    _assert_clean_outcome(status, captured, run_dir)
    _assert_counter_refused(mutation, status, captured.err, run_dir)
    if status == 0:  # the same covers and generator states: the same policy and value
        assert json.loads(captured.out.splitlines()[-1])["value"] == original["value"], mutation
    assert status == 0 or not valid, mutation
    assert _snapshot(outside) == before
    assert sorted(p.name for p in sandbox.iterdir()) == ["outside", "run"]


@pytest.mark.parametrize("by", [1, -1])
def test_every_counter_moved_forward_or_back_is_refused_by_compare_and_resume(by, original,
                                                                             tmp_path, capsys):
    """Each counter of the checkpoint (tests/homer/test_run_state.py's ``COUNTERS``) moved
    alone: both commands exit 2 naming the checkpoint and the field, and nothing is written."""
    for counter in COUNTERS:
        run_dir = tmp_path / counter.replace(" ", "_")
        shutil.copytree(original["run_dir"], run_dir)
        _mutate(run_dir, tmp_path, ("counter", counter, by))
        before = _snapshot(run_dir)
        for command in (["compare", str(run_dir), *COMPARE], [*RUN, "--out", str(run_dir)]):
            status = cli.main(command)
            captured = capsys.readouterr()
            _assert_clean_outcome(status, captured, run_dir)
            _assert_counter_refused(("counter", counter, by), status, captured.err, run_dir)
        assert _snapshot(run_dir) == before, counter
