"""``python -m proofs_checks``'s flags and side effects: a count beyond its bound fails at once
with the time it would take, and a run leaves nothing in the working directory."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

from kinematic import hypothesis_files
from kinematic.hypothesis_files import hypothesis_files_in_user_cache
from proofs_checks.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_examples_beyond_the_bound_exit_2_with_the_time_they_would_take(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--examples", "1000000000"])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "python -m proofs_checks: error: argument --examples: at most 100,000 (about 3 s per "
        "example of every claim measured on a 2-core machine; 1000000000 would take about 95 "
        "years), got '1000000000'")


def test_a_run_writes_no_hypothesis_directory_where_it_is_started(tmp_path: Path):
    """Hypothesis's caches go to the user's cache directory (here ``XDG_CACHE_HOME``), not to
    ``.hypothesis/`` in the working directory."""
    # (and, under mutmut, without its variable: the child would look for mutmut's configuration
    # in the empty working directory and fail)
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("HYPOTHESIS_STORAGE_DIRECTORY", "MUTANT_UNDER_TEST")}
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [environment.get("PYTHONPATH")])])
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "proofs_checks", "--examples", "1", "--only", "lem:bki-ratio"],
        cwd=work, env=environment, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert list(work.iterdir()) == []
    assert (tmp_path / "cache" / "kinematic" / "hypothesis").is_dir()


def test_hypothesis_files_go_to_the_user_cache_for_the_block_only(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    before = storage_directory("constants", intent_to_write=False).path
    with hypothesis_files_in_user_cache() as directory:
        assert directory == tmp_path / "kinematic" / "hypothesis"
        assert storage_directory("constants", intent_to_write=False).path == directory / "constants"
    assert storage_directory("constants", intent_to_write=False).path == before


def test_a_home_directory_the_caller_chose_is_restored_after_the_block(tmp_path: Path,
                                                                        monkeypatch):
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before = storage_directory(intent_to_write=False).home_directory
    set_hypothesis_home_dir(tmp_path / "chosen")
    try:
        with hypothesis_files_in_user_cache():
            pass
        assert storage_directory(intent_to_write=False).home_directory == tmp_path / "chosen"
    finally:
        set_hypothesis_home_dir(before)


def test_without_a_home_directory_hypothesis_files_go_to_a_temporary_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(hypothesis_files.Path, "home", no_home)
    with hypothesis_files_in_user_cache() as directory:
        assert directory.is_dir() and not directory.is_relative_to(Path.cwd())
    assert not directory.exists()


def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("proofs_checks.commands.sample_sizes", interrupted)
    assert main(["sample-sizes", "-N", "3", "--horizon", "3", "--actions", "2", "--eta", "0.1",
                 "--log-policies", "1", "--log-abstractions", "1"]) == 130
    assert capsys.readouterr().err == (
        "error: interrupted before the command finished; rerun it to start again\n")


@pytest.mark.parametrize(("argv", "defaults"), [
    ([], ["at most 100000 (default: 100)", "run only these labels (default: every claim)",
          "computation refused (default: generated instances)"]),
    (["sample-sizes"], ["returned policy (default: 0.1)", "failure probability (default: 0.1)"]),
])
def test_help_shows_each_default_once_and_none_or_false_never(capsys, argv, defaults):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for default in defaults:
        assert default in text
    assert text.count("default") == len(defaults)
    assert "(default: None)" not in text and "(default: False)" not in text


def test_an_unknown_label_is_refused_before_any_output_with_the_closest_labels(capsys):
    assert main(["--only", "lem:p-from"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not the table's header first
    assert err == ("error: --only: unknown label 'lem:p-from' (did you mean 'lem:p-form' or "
                   "'lem:bki-ratio'?)\n")
    assert main(["--only", "zzz"]) == 2
    assert capsys.readouterr().err.startswith(
        "error: --only: unknown label 'zzz' (the labels: alg:learn_homing_policy, ")
