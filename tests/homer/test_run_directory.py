"""Run directories handed over are data, and nothing they hold redirects a write: with symbolic
links planted where a run or ``homer compare`` keeps its files (``<name>.tmp``,
``compare/report.json``, ``compare`` itself), ``homer run --resume``, ``homer compare`` and
``homer run --force`` write nothing outside the run directory and either succeed or exit 2
naming the link; ``--force`` deletes only a run's files, and only where a run is; an output
path that cannot be written exits 2 with one line naming it. Below the root a user names, a link
at any level of a path a command writes under is refused naming it (run, compare, sweep and its
runs, batched baselines, counterexamples); the root itself, or a parent of it, may be a link."""

import shutil
from pathlib import Path

import pytest

from homer.baselines.batched import run_batched_baseline
from homer.baselines.batched_checkpoint import CHECKPOINT as BATCHED_CHECKPOINT
from homer.baselines.batched_checkpoint import IDENTITY
from homer.cli import main
from homer.run_directory import ARTEFACTS, COMPARE_OUTPUTS
from homer.safe_files import UnsafePathError
from homer.sweep import RECORDS, SweepTask, run_sweep, run_task
from kinematic.families import combination_lock
from tests.homer.test_sweep import counting_runner

RUN = ["run", "--env", "combolock", "--horizon", "3", "--actions", "2", "--transitions", "300",
       "--max-epochs", "5", "--min-epochs", "5", "--evaluation-episodes", "50", "--json"]
"""A run of a few seconds (its identity must match for ``--resume``)."""
COMPARE = ["--json", "--samples", "20", "--transitions", "100"]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    assert main([*RUN, "--out", str(run_dir)]) == 0
    return run_dir


@pytest.fixture
def run_dir(finished_run, tmp_path) -> Path:
    """A copy of the finished run, as ``tmp_path / "run"``."""
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


@pytest.fixture
def outside(tmp_path) -> Path:
    """A directory beside the run that nothing may touch: a file and a directory with a file."""
    directory = tmp_path / "outside"
    (directory / "dir").mkdir(parents=True)
    (directory / "victim.txt").write_text("not yours")
    (directory / "dir" / "kept.txt").write_text("not yours either")
    return directory


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every path under ``directory``: its bytes (files) and its modification time."""
    return {str(path.relative_to(directory)): (path.read_bytes() if path.is_file() else b"",
                                               path.lstat().st_mtime_ns)
            for path in sorted(directory.rglob("*"))}


def plant_tmp_links(run_dir: Path, outside: Path) -> Path:
    for name in ("config.json", "checkpoint.pt", "mdp.json"):
        (run_dir / f"{name}.tmp").symlink_to(outside / "victim.txt")
    return run_dir / "config.json.tmp"


def plant_compare_file_links(run_dir: Path, outside: Path) -> Path:
    (run_dir / "compare").mkdir()
    for name in ("report.json", "summary.txt"):
        (run_dir / "compare" / name).symlink_to(outside / "victim.txt")
    return run_dir / "compare" / "report.json"


def plant_compare_directory_link(run_dir: Path, outside: Path) -> Path:
    (run_dir / "compare").symlink_to(outside / "dir", target_is_directory=True)
    return run_dir / "compare"


COMMANDS = {
    "run --resume": lambda run_dir: [*RUN, "--out", str(run_dir), "--resume"],
    "compare": lambda run_dir: ["compare", str(run_dir), *COMPARE],
    "run --force": lambda run_dir: [*RUN, "--out", str(run_dir), "--force"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("plant", "refused"), [(plant_tmp_links, False),
                                                (plant_compare_file_links, True),
                                                (plant_compare_directory_link, True)])
def test_planted_links_in_a_run_directory_get_nothing_written_outside_it(
        plant, refused, command, run_dir, outside, tmp_path, capsys):
    link = plant(run_dir, outside)
    before = snapshot(outside)
    capsys.readouterr()
    status = main(COMMANDS[command](run_dir))
    error = capsys.readouterr().err
    assert snapshot(outside) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "run"]
    assert link.is_symlink()  # neither replaced nor deleted
    if refused:
        kind = "directory" if link.name == "compare" else "regular file"
        assert status == 2
        assert error.strip().splitlines() == [f"error: {link}: a symbolic link where HOMER "
                                              f"keeps its own {kind}; refused (it could point "
                                              "anywhere): remove it"]
    else:
        assert status == 0, error
        assert all(not (run_dir / name).is_symlink() for name in ARTEFACTS)


def test_force_on_a_directory_holding_no_run_deletes_and_replaces_nothing(tmp_path, capsys):
    """Files named like a run's artefacts, but no run (``config.json`` is not a run's
    identity): refused, naming them, and every file keeps its bytes."""
    directory = tmp_path / "mine"
    (directory / "compare").mkdir(parents=True)
    (directory / "config.json").write_text('{"learning_rate": 0.1}')
    (directory / "checkpoint.pt").write_bytes(b"someone's model")
    (directory / "compare" / "report.json").write_text("my report")
    (directory / "notes.txt").write_text("my notes")
    before = snapshot(directory)
    assert main([*RUN, "--out", str(directory), "--force"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert error[0].startswith(f"error: {directory} holds config.json, checkpoint.pt but no "
                               "HOMER run")
    assert snapshot(directory) == before


def test_force_on_a_directory_without_artefacts_runs_afresh_and_deletes_nothing(tmp_path):
    directory = tmp_path / "mine"
    (directory / "compare").mkdir(parents=True)
    (directory / "compare" / "report.json").write_text("my report")
    (directory / "notes.txt").write_text("my notes")
    before = snapshot(directory)
    assert main([*RUN, "--out", str(directory), "--force"]) == 0
    after = snapshot(directory)
    assert {name: after[name] for name in before} == before
    assert set(after) - set(before) == set(ARTEFACTS)


def test_force_on_a_run_deletes_only_what_the_run_and_compare_wrote(run_dir, capsys):
    assert main(["compare", str(run_dir), *COMPARE]) == 0
    assert sorted(p.name for p in (run_dir / "compare").iterdir()) == sorted(COMPARE_OUTPUTS)
    (run_dir / "notes.txt").write_text("mine")
    (run_dir / "compare" / "notes.txt").write_text("mine too")
    old_checkpoint = (run_dir / "checkpoint.pt").stat().st_mtime_ns
    assert main([*RUN, "--out", str(run_dir), "--force"]) == 0
    assert (run_dir / "notes.txt").read_text() == "mine"
    assert [p.name for p in (run_dir / "compare").iterdir()] == ["notes.txt"]
    assert (run_dir / "checkpoint.pt").stat().st_mtime_ns != old_checkpoint  # run afresh


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_compare_to_an_output_path_that_cannot_be_a_directory_exits_2_naming_it(
        where, run_dir, tmp_path, capsys):
    """(A read-only directory fails the same way, but not for root, who may run the tests:
    a path under a regular file cannot be created by anyone.)"""
    file = tmp_path / "file"
    file.write_text("mine")
    out = file if where == "a file" else file / "sub"
    capsys.readouterr()
    assert main(["compare", str(run_dir), *COMPARE, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        f"error: {file} is a file, not a directory" if where == "a file"
        else f"error: {out}: cannot write there (Not a directory)"]
    assert file.read_text() == "mine"
    if where == "under a file":  # computed, so printed before the error: nothing is lost
        assert '"steps_with_wrong_merges"' in captured.out


def test_compare_refuses_a_directory_where_its_report_goes(run_dir, capsys):
    (run_dir / "compare" / "report.json").mkdir(parents=True)
    assert main(["compare", str(run_dir), *COMPARE]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {run_dir / 'compare' / 'report.json'}: not a regular file (a directory)"]


def test_run_to_an_output_path_that_is_a_file_exits_2_naming_it(tmp_path, capsys):
    file = tmp_path / "file"
    file.write_text("mine")
    assert main([*RUN, "--out", str(file)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {file} is a file, not a run directory"]
    assert file.read_text() == "mine"


@pytest.mark.parametrize("arguments", [
    [*RUN], ["compare", "run"], ["sweep", "--algorithms", "pcid", "--executor", "local"],
    ["counterexamples"]], ids=["run", "compare", "sweep", "counterexamples"])
@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_output_path_is_refused_naming_the_flag(arguments, out, tmp_path, capsys,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)  # where an empty path would write
    with pytest.raises(SystemExit) as exited:
        main([*arguments, "--out", out])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        f"error: argument --out: must be a non-empty path, got {out!r}")
    assert list(tmp_path.iterdir()) == []


def _command(*arguments: str):
    """A command line's writer: its error line (after ``error: ``), if it exits 2."""
    def run(root: Path, capsys) -> str | None:
        capsys.readouterr()
        status = main([arg.format(root=root) for arg in arguments])
        error = capsys.readouterr().err.strip().splitlines()
        assert status in (0, 2) and len(error) == (status == 2), error
        return error[0].removeprefix("error: ") if status else None
    return run


def _function(call):
    """A Python function's writer: its :class:`UnsafePathError`, if it raises one."""
    def run(root: Path, capsys) -> str | None:
        try:
            call(root)
        except UnsafePathError as error:
            return str(error)
        return None
    return run


HOMER_KEY = SweepTask("homer", "paper", 3, 0, 8, "").key
PPO_KEY = SweepTask("ppo", "paper", 3, 0, 8, "").key
WRITERS = {
    "homer run": (_command(*RUN, "--out", "{root}"), [*ARTEFACTS]),
    "homer compare": (_command("compare", "{root}", *COMPARE),
                      ["compare/", *(f"compare/{name}" for name in COMPARE_OUTPUTS)]),
    "homer sweep": (_function(lambda root: run_sweep(["homer"], [3], 1, 1, root,
                                                     executor="local",
                                                     runner=counting_runner)),
                    [RECORDS, "runs/"]),
    "sweep's HOMER run": (_function(lambda root: run_task(SweepTask("homer", "paper", 3, 0, 8,
                                                                    str(root)))),
                          ["runs/", f"runs/{HOMER_KEY}/",
                           *(f"runs/{HOMER_KEY}/{name}" for name in ARTEFACTS)]),
    "sweep's PPO run": (_function(lambda root: run_task(SweepTask("ppo", "paper", 3, 0, 8,
                                                                  str(root)))),
                        ["runs/", f"runs/{PPO_KEY}/",
                         *(f"runs/{PPO_KEY}/{name}" for name in (IDENTITY, BATCHED_CHECKPOINT))]),
    "batched baseline": (_function(lambda root: run_batched_baseline(
        combination_lock(3, 2, 0), "ppo", 8, run_dir=root)), [IDENTITY, BATCHED_CHECKPOINT]),
    # the second case directory's files as its first's (one of them: the objective runs first)
    "homer counterexamples": (_command("counterexamples", "--out", "{root}", "--cases",
                                       "curiosity", "--transitions", "100", "--json"),
                              ["curiosity/", "homer-curiosity/",
                               *(f"curiosity/{name}" for name in ARTEFACTS),
                               "homer-curiosity/checkpoint.pt"]),
}
"""Each writer of the project on a root (a run, sweep or baseline run directory) and every
path it writes under (``/``: a directory), at every level below the root."""


@pytest.mark.parametrize(("writer", "planted"), [
    (writer, planted) for writer, (_, paths) in WRITERS.items() for planted in paths])
def test_a_link_planted_at_any_level_below_the_root_is_refused_naming_it(
        writer, planted, finished_run, tmp_path, outside, capsys):
    """A symbolic link at any level of a path a command writes under (an intermediate
    directory as well as the file) is refused naming it, and nothing is written through it."""
    root = tmp_path / "root"
    if writer == "homer compare":
        shutil.copytree(finished_run, root)
    directory = planted.endswith("/")
    link = root / planted.rstrip("/")
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "dir" if directory else outside / "victim.txt",
                    target_is_directory=directory)
    before = snapshot(outside)
    error = WRITERS[writer][0](root, capsys)
    kind = "directory" if directory else "regular file"
    assert error == (f"{link}: a symbolic link where HOMER keeps its own {kind}; refused (it "
                     "could point anywhere): remove it")
    assert snapshot(outside) == before
    assert link.is_symlink()


ROOT_WRITERS = {
    "homer run": (WRITERS["homer run"][0], ["config.json", "checkpoint.pt", "result.json"]),
    "homer sweep": (WRITERS["homer sweep"][0], [RECORDS, "calls.txt"]),
    "batched baseline": (WRITERS["batched baseline"][0], [IDENTITY, BATCHED_CHECKPOINT]),
}


@pytest.mark.parametrize("parent", [False, True], ids=["root", "its parent"])
@pytest.mark.parametrize("writer", ROOT_WRITERS)
def test_a_root_given_through_a_link_is_the_users_and_written_into(writer, parent, tmp_path,
                                                                   capsys):
    """The root a user names may be a symbolic link, or lie below one (``/tmp`` on macOS): the
    command follows it and writes into the directory it names."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    root = tmp_path / "link" / "root" if parent else tmp_path / "link"
    assert ROOT_WRITERS[writer][0](root, capsys) is None
    written = real / "root" if parent else real
    assert all((written / name).is_file() for name in ROOT_WRITERS[writer][1])

