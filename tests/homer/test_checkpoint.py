"""Run directories are data: a checkpoint that would execute code is refused before anything
runs, by ``homer compare`` and by ``--resume``; broken files are named; a resume needs the very
MDP of the run, not only its name; a write goes to its target only, never through a link."""

import doctest
import errno
import os
import sys

import numpy as np
import pytest
import torch

import homer.run_directory
from homer.algorithm import run_homer
from homer.artefacts import load_run
from homer.cli import main
from homer.config import HomerConfig
from homer.run_directory import load_checkpoint, save_checkpoint
from homer.run_state import CheckpointError
from homer.safe_files import UnsafePathError, write_atomically
from kinematic.families import combination_lock
from kinematic.spec import from_spec, to_spec


class Payload:
    """Unpickling this object runs a shell command that creates ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def malicious_run_dir(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    marker = tmp_path / "executed"
    torch.save({"mdp": "lock", "covers": Payload(marker)}, run_dir / "checkpoint.pt")
    return run_dir, marker


def test_a_malicious_checkpoint_is_refused_by_compare_and_runs_nothing(tmp_path, capsys):
    run_dir, marker = malicious_run_dir(tmp_path)
    assert main(["compare", str(run_dir)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {run_dir / 'checkpoint.pt'}: not a HOMER checkpoint")
    assert not marker.exists()


def test_a_malicious_checkpoint_is_refused_by_resume_and_runs_nothing(tmp_path, capsys):
    run_dir, marker = malicious_run_dir(tmp_path)
    assert main(["run", "--env", "combolock", "--horizon", "3", "--actions", "2",
                 "--out", str(run_dir), "--resume"]) == 2
    assert "not a HOMER checkpoint" in capsys.readouterr().err
    assert not marker.exists()


# torch's weights-only unpickler warns about the protocol-4 header before it refuses the garbage.
@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4:UserWarning")
@pytest.mark.parametrize("content", [b"", b"\x80\x04garbage", np.random.default_rng(0).bytes(64)])
def test_an_empty_or_foreign_checkpoint_is_named(tmp_path, content):
    path = tmp_path / "checkpoint.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=f"^{path}: not a HOMER checkpoint"):
        load_checkpoint(path)


def test_a_checkpoint_nested_too_deeply_is_named(tmp_path):
    nested: list = []
    for _ in range(5000):
        nested = [nested]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # for the pickler to write it; the reader keeps its limit
    try:
        save_checkpoint(tmp_path / "checkpoint.pt", {"log": nested})
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(CheckpointError, match=r"\(containers nested too deeply: a run's are at "
                                              r"most a few levels deep\)$"):
        load_checkpoint(tmp_path / "checkpoint.pt")


def test_a_checkpoint_round_trips_arrays_containers_and_generator_states(tmp_path):
    generator = torch.Generator().manual_seed(3)
    state = {"covers": {"arrays": [np.arange(6.0).reshape(2, 3)], "policies": [[([0], [0])]]},
             "backward": {1: (np.ones((2, 4)), np.zeros(2))}, "log": [{"step": 2, "x": 0.5}],
             "numpy_rng": np.random.default_rng(1).bit_generator.state,
             "torch_rng": generator.get_state(), "completed_step": 1}
    save_checkpoint(tmp_path / "c.pt", state)
    loaded = load_checkpoint(tmp_path / "c.pt")
    assert np.array_equal(loaded["covers"]["arrays"][0], state["covers"]["arrays"][0])
    assert loaded["covers"]["policies"] == [[([0], [0])]]
    weight, bias = loaded["backward"][1]
    assert isinstance(weight, np.ndarray) and np.array_equal(weight, np.ones((2, 4)))
    assert np.array_equal(bias, np.zeros(2))
    assert loaded["numpy_rng"] == state["numpy_rng"] and loaded["log"] == state["log"]
    assert torch.equal(loaded["torch_rng"], state["torch_rng"])
    assert [p.name for p in tmp_path.iterdir()] == ["c.pt"]  # no temporary file left


def test_a_planted_tmp_link_beside_the_target_is_never_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json.tmp").symlink_to(outside)
    write_atomically(tmp_path / "run" / "config.json", "ours")
    assert outside.read_text() == "theirs"
    assert not (tmp_path / "run" / "config.json").is_symlink()
    assert (tmp_path / "run" / "config.json").read_text() == "ours"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["config.json",
                                                                     "config.json.tmp"]


def test_a_target_that_is_a_link_or_a_directory_is_refused_by_name(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs")
    (tmp_path / "report.json").symlink_to(outside)
    with pytest.raises(UnsafePathError, match=f"^{tmp_path / 'report.json'}: a symbolic link"):
        write_atomically(tmp_path / "report.json", "ours")
    assert outside.read_text() == "theirs" and (tmp_path / "report.json").is_symlink()
    (tmp_path / "summary.txt").mkdir()
    with pytest.raises(UnsafePathError, match=f"^{tmp_path / 'summary.txt'}: not a regular"):
        write_atomically(tmp_path / "summary.txt", "ours")


def test_a_failed_write_removes_its_temporary_file_keeps_the_target_and_names_it(
        tmp_path, monkeypatch):
    target = tmp_path / "result.json"
    target.write_text("before")

    def disk_full(descriptor):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left") as raised:
        write_atomically(target, "after")
    assert raised.value.filename == str(target)  # not the temporary file's name
    assert target.read_text() == "before"
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_written_file_gets_the_permissions_of_an_ordinary_new_file(tmp_path, umask):
    previous = os.umask(umask)  # the umask when writing, not when the module was imported
    try:
        ordinary = tmp_path / "ordinary"
        ordinary.write_text("")
        write_atomically(tmp_path / "written", "data")
    finally:
        os.umask(previous)
    assert (tmp_path / "written").stat().st_mode == ordinary.stat().st_mode  # not 0o600


def test_resume_refuses_another_mdp_with_the_same_name(tmp_path):
    mdp = combination_lock(3, actions=2, seed=0)
    config = HomerConfig(transitions=500, max_transitions=500)
    run_homer(mdp, tmp_path, config, seed=0, progress=False)
    spec = to_spec(mdp)
    spec["start"] = {"s1a": "1/4", "s1b": "3/4"}  # same name, another MDP
    other = from_spec(spec)
    assert other.name == mdp.name
    with pytest.raises(ValueError, match="holds another run \\(mdp_sha256 differs in "):
        run_homer(other, tmp_path, config, seed=0, resume=True, progress=False)
    config_text = (tmp_path / "config.json").read_text()
    (tmp_path / "config.json").unlink()  # the checkpoint still knows its MDP
    with pytest.raises(ValueError, match="belongs to another run \\(mdp_sha256 differ\\)"):
        run_homer(other, tmp_path, config, seed=0, resume=True, progress=False)
    (tmp_path / "config.json").write_text(config_text)
    with pytest.raises(ValueError, match="same name, other spec"):
        load_run(tmp_path, other)
    (tmp_path / "policy.npz").write_bytes((tmp_path / "policy.npz").read_bytes()[:40])
    with pytest.raises(ValueError, match=f"^{tmp_path / 'policy.npz'}: not a policy"):
        load_run(tmp_path)


def test_the_examples_in_the_docstrings_run():
    result = doctest.testmod(homer.run_directory)
    assert result.attempted > 0 and result.failed == 0
