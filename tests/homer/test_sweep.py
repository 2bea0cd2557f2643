"""The sweep: on a local Ray instance, resumed after a stop without repeating a task, and with a
failing task reported (after one retry) with its error; lock variants in the task key; records
with their thinned return curves and state visits, checked when read; HOMER's per-step log of
returns and visits."""

import argparse
import errno
import json
import os
import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import homer.algorithm as algorithm
from homer import cli, commands
from homer.algorithm import run_homer
from homer.cli import main
from homer.config import HomerConfig
from homer.safe_files import UnsafePathError
from homer.sampler import BatchSampler
from homer.sweep import (
    MAX_CURVE_POINTS,
    RECORDS,
    SweepTask,
    finished_records,
    horizon_figure,
    horizon_series,
    lock_of,
    run_sweep,
    run_task,
    sweep_table,
    thin_curve,
)
from homer.sweep_verdicts import verdict_legend
from kinematic.families import combination_lock

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 2**20)
    yield
    ray.shutdown()


def records_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / RECORDS).read_text().splitlines()]


def counting_runner(task: SweepTask) -> dict:
    """Notes each call in the sweep directory, then reports a fake run."""
    with (Path(task.out) / "calls.txt").open("a") as calls:
        calls.write(task.key + "\n")
    return {"value": 1.0, "optimal_value": 1.0, "episodes": 10 * task.horizon,
            "episodes_to_half": 10 * task.horizon, "seconds": 0.0,
            "training_returns": [[10 * task.horizon, 1.0]], "state_visits": {"s1a": 10}}


def failing_runner(task: SweepTask) -> dict:
    if task.horizon == 4:
        raise RuntimeError(f"boom at {task.key}")
    return counting_runner(task)


class Stop(Exception):
    pass


# 18 s alone, 44 s next to the other test worker: two Ray workers start and import torch.
# make test keeps Ray (test_ray_reports_a_failing_task_with_its_error) and real learners
# (test_sweep_command_writes_table_and_plot, local executor).
@pytest.mark.slow
@pytest.mark.no_mutants
def test_ray_sweep_of_two_algorithms_and_two_horizons(local_ray, tmp_path):
    records = run_sweep(["pcid", "ppo"], [3, 4], seeds=1, budget=200, out=tmp_path,
                        executor="ray")
    assert sorted((r["algorithm"], r["horizon"]) for r in records) == [
        ("pcid", 3), ("pcid", 4), ("ppo", 3), ("ppo", 4)]
    assert all(r["status"] == "done" and r["optimal_value"] == 1.0 for r in records)
    assert [r["episodes"] for r in records if r["algorithm"] == "ppo"] == [200, 200]
    assert len(records_of(tmp_path)) == 4
    table = sweep_table(records)
    assert "pcid" in table and "ppo" in table
    assert horizon_figure(records).axes[0].get_yscale() == "log"


def test_the_horizon_axis_has_integer_ticks(tmp_path):
    records = run_sweep(["a"], [3, 4], 1, 5, tmp_path, executor="local", workers=1,
                        runner=counting_runner)
    axes = horizon_figure(records).axes[0]
    low, high = axes.get_xlim()
    assert [t for t in axes.get_xticks() if low <= t <= high] == [3, 4]


@pytest.mark.no_mutants
def test_ray_reports_a_failing_task_with_its_error(local_ray, tmp_path):
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    records = run_sweep(["a"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="ray",
                        runner=failing_runner)
    failed = [r for r in records if r["status"] == "failed"]
    assert len(failed) == 1 and failed[0]["horizon"] == 4
    assert "boom at a-paper-H4-seed0-budget5" in failed[0]["error"] and failed[0]["attempts"] == 2


def test_a_stopped_sweep_resumes_without_repeating_tasks(tmp_path):
    def stop_after_first(record):
        raise Stop

    with pytest.raises(Stop):
        run_sweep(["a", "b"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="local",
                  workers=1, runner=counting_runner, on_record=stop_after_first)
    first = records_of(tmp_path)
    assert len(first) == 1
    records = run_sweep(["a", "b"], [3, 4], seeds=1, budget=5, out=tmp_path,
                        executor="local", workers=1, runner=counting_runner)
    assert len(records) == 4 and all(r["status"] == "done" for r in records)
    keys = [json.dumps([r["algorithm"], r["horizon"]]) for r in records_of(tmp_path)]
    assert len(keys) == len(set(keys)) == 4  # every task recorded once
    calls = (tmp_path / "calls.txt").read_text().split()
    first_key = f"{first[0]['algorithm']}-paper-H{first[0]['horizon']}-seed0-budget5"
    assert calls.count(first_key) == 1  # the recorded task did not run again


def test_a_failed_task_is_retried_once_and_reported_locally(tmp_path):
    records = run_sweep(["a"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="local",
                        workers=1, runner=failing_runner)
    failed = [r for r in records if r["status"] == "failed"]
    assert [r["horizon"] for r in failed] == [4]
    assert "RuntimeError: boom at a-paper-H4-seed0-budget5" in failed[0]["error"]
    assert "failed" in sweep_table(records).splitlines()[0]


def test_bad_arguments_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="unknown algorithms"):
        run_sweep(["dqn"], [3], seeds=1, budget=5, out=tmp_path)
    with pytest.raises(ValueError, match="unknown executor"):
        run_sweep(["a"], [3], seeds=1, budget=5, out=tmp_path, executor="slurm",
                  runner=counting_runner)


@pytest.mark.no_mutants
def test_sweep_command_writes_table_and_plot(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "homer", "sweep", "--algorithms", "pcid", "--horizons", "3",
         "--seeds", "1", "--budget", "100", "--out", str(tmp_path), "--executor", "local",
         "--workers", "1"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "table.txt").read_text().startswith("lock")
    for figure in ("horizon", "value", "traces"):
        assert (tmp_path / f"{figure}.png").exists() and (tmp_path / f"{figure}.svg").exists()
    verdicts = (tmp_path / "verdicts.md").read_text()
    [pcid] = [line for line in verdicts.splitlines() if line.startswith("| paper | pcid | 3 |")]
    assert pcid.startswith("| paper | pcid | 3 | fails | authors' encoding: 1 (")
    assert ", own schedule |" in pcid
    assert "| paper | ppo | 3 | solves | - | - | not run |" in verdicts
    legend, grid, _ = verdicts.split("\n\n", 2)  # then every cell in detail
    assert legend == verdict_legend() and legend in result.stdout
    grid = grid.splitlines()
    assert grid[0] == ("| lock (K = 10) | algorithm | H = 3 | H = 6 | H = 12 | H = 25 | H = 50 "
                       "| H = 100 |")
    [grid_row] = [line for line in grid if line.startswith("| paper | pcid | ")]
    [record] = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    reached = record["episodes_to_half"] is not None  # PCID at H = 3 is near half of V*
    # one seed: a solved claimed failure is not refuted (3 seeds needed)
    verdict = ("not reproduced (authors' encoding; 1 seed, own schedule)" if reached
               else "reproduced (authors' encoding)")
    assert grid_row.startswith(f"| paper | pcid | {verdict}: {int(reached)}/1 seed reached")
    assert grid_row in result.stdout  # the grid is printed, every cell in verdicts.md


@pytest.mark.no_mutants
def test_the_verdicts_judge_every_finished_task_of_the_directory(tmp_path):
    # H = 3 in one command, H = 4 in the next: the second's verdicts still have H = 3's run
    # (its table and figures are of its own tasks)
    for horizon in ("3", "4"):
        result = subprocess.run(
            [sys.executable, "-m", "homer", "sweep", "--algorithms", "pcid", "--horizons",
             horizon, "--seeds", "1", "--budget", "100", "--out", str(tmp_path), "--executor",
             "local", "--workers", "1"], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
    verdicts = (tmp_path / "verdicts.md").read_text()
    for horizon, claim in ((3, "fails"), (4, "no claim")):  # the paper ran no H = 4
        [line] = [v for v in verdicts.splitlines() if v.startswith(f"| paper | pcid | {horizon} |")]
        assert line.startswith(f"| paper | pcid | {horizon} | {claim} | authors' encoding: 1 (")
    assert (tmp_path / "table.txt").read_text().count("pcid") == 1


def test_a_torn_last_record_is_dropped_with_a_warning_and_its_task_reruns(tmp_path):
    run_sweep(["a"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="local", workers=1,
              runner=counting_runner)
    path = tmp_path / RECORDS
    text = path.read_text()
    torn = records_of(tmp_path)[-1]  # records are written in completion order
    path.write_text(text[:-10])  # the driver was killed while writing the last record
    with pytest.warns(UserWarning, match=f"{path}: dropped a torn last line \\(line 2\\)"):
        records = run_sweep(["a"], [3, 4], seeds=1, budget=5, out=tmp_path, executor="local",
                            workers=1, runner=counting_runner)
    assert [r["horizon"] for r in records] == [3, 4]
    assert sorted(r["horizon"] for r in records_of(tmp_path)) == [3, 4]  # one parseable line each
    calls = (tmp_path / "calls.txt").read_text().split()
    torn_key = f"a-paper-H{torn['horizon']}-seed0-budget5"
    assert sorted(calls) == sorted(["a-paper-H3-seed0-budget5", "a-paper-H4-seed0-budget5",
                                   torn_key])


def test_a_malformed_record_before_the_last_is_an_error_naming_the_line(tmp_path):
    (tmp_path / RECORDS).write_text('{"torn\n{"algorithm": "a"}\n')
    with pytest.raises(ValueError, match=f"^{tmp_path / RECORDS}, line 1: not a sweep record"):
        run_sweep(["a"], [3], seeds=1, budget=5, out=tmp_path, executor="local", workers=1,
                  runner=counting_runner)


def test_another_budget_is_another_task(tmp_path):
    for budget in (5, 6):
        run_sweep(["a"], [3], seeds=1, budget=budget, out=tmp_path, executor="local",
                  workers=1, runner=counting_runner)
    assert (tmp_path / "calls.txt").read_text().split() == [
        "a-paper-H3-seed0-budget5", "a-paper-H3-seed0-budget6"]


def sleeping_runner(task: SweepTask) -> dict:
    """Writes its pid to ``pids/`` and sleeps far longer than the test waits."""
    import os
    import time

    pids = Path(task.out) / "pids"
    pids.mkdir(exist_ok=True)
    (pids / str(os.getpid())).write_text(task.key)
    time.sleep(120)
    return counting_runner(task)


DRIVER = """
import sys
from homer.sweep import run_sweep
from tests.homer.test_sweep import sleeping_runner
run_sweep(["homer"], [3, 4], 1, 1, sys.argv[1], executor="local", workers=2,
          runner=sleeping_runner)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.no_mutants
def test_killing_the_local_driver_kills_its_workers(tmp_path):
    import os
    import signal
    import time

    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path)],
                              cwd=Path(__file__).parents[2])
    pids_dir = tmp_path / "pids"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(pids_dir.glob("*"))) < 2:
        assert driver.poll() is None, "the driver stopped before its workers started"
        time.sleep(0.2)
    workers = [int(p.name) for p in pids_dir.glob("*")]
    assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.1)
    survivors = [pid for pid in workers if _alive(pid)]
    for pid in survivors:  # do not leave them behind, whatever the verdict
        os.kill(pid, signal.SIGKILL)
    assert survivors == []
    assert not (tmp_path / "calls.txt").exists()  # no worker finished a task after the kill


def test_a_file_as_the_sweep_directory_is_refused(tmp_path):
    path = tmp_path / "file"
    path.write_text("")
    with pytest.raises(ValueError, match="is a file"):
        run_sweep(["homer"], [3], 1, 1, path, executor="local", runner=counting_runner)


def test_a_planted_link_as_the_records_file_is_refused_before_any_task_runs(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / RECORDS).symlink_to(outside)
    with pytest.raises(UnsafePathError, match=f"^{tmp_path / 'sweep' / RECORDS}: a symbolic"):
        run_sweep(["a"], [3], 1, 1, tmp_path / "sweep", executor="local",
                  runner=counting_runner)
    assert outside.read_text() == ""
    assert not (tmp_path / "sweep" / "calls.txt").exists()


def test_a_planted_link_as_the_runs_directory_is_refused_before_any_task_runs(tmp_path):
    # HOMER's tasks make their run directories in runs/: a link there would take their files
    # (and --force deletions) elsewhere
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "runs").symlink_to(outside)
    with pytest.raises(UnsafePathError, match=f"^{tmp_path / 'sweep' / 'runs'}: a symbolic link "
                                              "where HOMER keeps its own directory"):
        run_sweep(["homer"], [1], 1, 1, tmp_path / "sweep", executor="local",
                  runner=counting_runner)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "sweep" / RECORDS).exists()


def test_the_horizon_figure_draws_a_line_per_algorithm_and_configuration():
    from homer.sweep import algorithm_colour

    records = [done_record(algorithm="ppo", variant=v, horizon=h, episodes_to_half=100 * h,
                           learning_rate=rate, state_visits={})
               for v in ("paper", "released") for h in (3, 4) for rate in (0.01, 0.001)]
    records += [done_record(algorithm="homer", variant=v, horizon=3, episodes=5000,
                            episodes_to_half=None, state_visits={})
                for v in ("paper", "released")]
    figure = horizon_figure(records)
    assert list(figure.get_size_inches()) == [12, 4] and len(figure.axes) == 2
    assert [a.get_subplotspec().get_geometry() for a in figure.axes] == [(1, 2, 0, 0),
                                                                         (1, 2, 1, 1)]
    axes = figure.axes[1]
    assert axes.get_title().startswith("released lock, K = 10")
    lines = {line.get_label(): line for line in axes.get_lines()}
    assert {label: (line.get_color(), line.get_linestyle()) for label, line in lines.items()} \
        == {"ppo (lr 0.001, authors' encoding)": ("C1", "-"),
            "ppo (lr 0.01, authors' encoding)": ("C1", "--")}
    assert list(lines["ppo (lr 0.01, authors' encoding)"].get_ydata()) == [300, 400]
    [homer] = axes.collections  # not reached: an x at the episodes used, shifted left
    assert homer.get_label() == "homer"
    assert homer.get_offsets().tolist() == [[pytest.approx(3 * (1 - 0.008)), 5000]]
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [  # sorted
        "homer", "ppo (lr 0.001, authors' encoding)", "ppo (lr 0.01, authors' encoding)"]
    # the series drawn, by hand: sorted by algorithm, then configuration; 3 series, the
    # markers of the first shifted by 0.08 x (0 - 1) / 10 of H
    series = horizon_series([*records, done_record(  # another variant: not on this panel
        algorithm="ppo", variant="paper", horizon=5, state_visits={})], "released")
    assert [(s.label, s.colour, s.style, s.medians, s.missed) for s in series] == [
        ("homer", "C0", "-", [], [(pytest.approx(3 * (1 - 0.008)), 5000)]),
        ("ppo (lr 0.001, authors' encoding)", "C1", "-", [(3, 300), (4, 400)], []),
        ("ppo (lr 0.01, authors' encoding)", "C1", "--", [(3, 300), (4, 400)], [])]
    five = [done_record(algorithm="ppo", horizon=3, learning_rate=rate, episodes=70 + k,
                        episodes_to_half=None if k % 2 else 20, state_visits={})
            for k, rate in enumerate((1e-5, 1e-4, 1e-3, 1e-2, 1e-1))]
    five.append(done_record(algorithm="ppo", horizon=3, seed=1, learning_rate=1e-5,
                            episodes=90, episodes_to_half=None, state_visits={}))
    five.append(done_record(algorithm="ppo", horizon=3, variant="released", state_visits={},
                            learning_rate=1e-4, episodes_to_half=None))  # not on this panel
    assert [(s.style, s.medians, s.missed) for s in horizon_series(five, "paper")] == [
        ("-", [], [(pytest.approx(3 * (1 - 0.016)), 90)]),  # the most episodes of the seeds
        ("--", [], [(pytest.approx(3 * (1 - 0.008)), 71)]), (":", [(3, 20)], []),
        ("-.", [], [(pytest.approx(3 * (1 + 0.008)), 73)]), ("-", [(3, 20)], [])]
    # one configuration: named by its algorithm alone
    one = horizon_figure([r for r in records if r.get("learning_rate") != 0.01])
    assert [line.get_label() for line in one.axes[0].get_lines()] == ["ppo"]
    assert horizon_figure([]).axes[0].get_title().startswith("paper lock")
    assert algorithm_colour("x4", [f"x{i}" for i in range(5)]) == "C0"  # the 11th colour


def test_a_homer_task_refuses_a_link_planted_as_its_run_directory(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    task = SweepTask("homer", "paper", 1, 0, 1, str(tmp_path / "sweep"))
    (tmp_path / "sweep" / "runs").mkdir(parents=True)
    (tmp_path / "sweep" / "runs" / task.key).symlink_to(outside)
    with pytest.raises(UnsafePathError, match=f"^{tmp_path / 'sweep' / 'runs' / task.key}: a "
                                              "symbolic link"):
        run_task(task)
    assert list(outside.iterdir()) == []


SWEEP = ["sweep", "--algorithms", "pcid", "--horizons", "3", "--seeds", "1", "--budget", "5",
         "--executor", "local", "--workers", "1"]


def test_a_planted_link_as_the_table_is_refused_before_any_task_runs(tmp_path, capsys):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "table.txt").symlink_to(outside)
    assert main([*SWEEP, "--out", str(tmp_path / "sweep")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {tmp_path / 'sweep' / 'table.txt'}: a symbolic link where HOMER keeps its own "
        "regular file; refused (it could point anywhere): remove it"]
    assert outside.read_text() == "not yours"
    assert not (tmp_path / "sweep" / RECORDS).exists()


def test_a_table_that_cannot_be_written_is_printed_and_named(tmp_path, monkeypatch, capsys):
    out = tmp_path / "sweep"
    run_sweep(["pcid"], [3], 1, 5, out, executor="local", runner=counting_runner)
    calls = (out / "calls.txt").read_text()

    def disk_full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(commands, "write_atomically", disk_full)
    assert main([*SWEEP, "--out", str(out)]) == 2  # every task done: none runs again
    captured = capsys.readouterr()
    assert captured.out.startswith("lock")  # the table is not lost
    assert captured.err.strip().splitlines() == [
        f"error: {out / 'table.txt'}: cannot write there (No space left on device)"]
    assert (out / "calls.txt").read_text() == calls


def test_ctrl_c_keeps_the_finished_runs_and_says_how_to_go_on(tmp_path, monkeypatch, capsys):
    real_run_sweep = commands.run_sweep

    def interrupted_after_the_first_record(*args, **kwargs):
        def report_then_interrupt(record: dict) -> None:
            raise KeyboardInterrupt  # Ctrl-C once the first run's record is written

        return real_run_sweep(*args[:5], "local", None, 1, runner=counting_runner,
                              on_record=report_then_interrupt)

    monkeypatch.setattr(commands, "run_sweep", interrupted_after_the_first_record)
    out = tmp_path / "sweep"
    assert cli.main(["sweep", "--algorithms", "a", "--horizons", "3,4", "--seeds", "1",
                     "--out", str(out), "--executor", "local"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: interrupted; the finished runs are kept in {out / 'records.jsonl'}: rerun the "
        "same command to run the others"]
    [kept] = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    finished = f"a-paper-H{kept['horizon']}-seed0-budget100000"  # either run may finish first
    monkeypatch.setattr(commands, "run_sweep", lambda *args, **kwargs: real_run_sweep(
        *args[:5], "local", None, 1, runner=counting_runner))
    assert cli.main(["sweep", "--algorithms", "a", "--horizons", "3,4", "--seeds", "1",
                     "--out", str(out), "--executor", "local"]) == 0
    calls = (out / "calls.txt").read_text().splitlines()
    assert calls.count(finished) == 1  # finished before Ctrl-C: not run again
    assert len((out / "records.jsonl").read_text().splitlines()) == 2


def test_the_sweep_command_prints_a_warning_as_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(commands, "run_sweep", lambda *args, **kwargs: run_sweep(
        *args[:5], "local", None, 1, runner=counting_runner, on_record=kwargs["on_record"]))
    out = tmp_path / "sweep"
    arguments = ["sweep", "--algorithms", "a", "--horizons", "3", "--seeds", "1", "--out",
                 str(out), "--executor", "local"]
    assert cli.main(arguments) == 0
    (out / RECORDS).write_text((out / RECORDS).read_text()[:-10])  # a torn last record
    capsys.readouterr()
    assert cli.main(arguments) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {out / RECORDS}: dropped a torn last line (line 1); its task runs again"]


def test_every_lock_variant_is_its_own_task_and_named_in_its_record(tmp_path):
    records = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                        runner=counting_runner, variants=["paper", "released"])
    assert [(r["variant"], r["horizon"]) for r in records] == [("paper", 3), ("released", 3)]
    assert sorted((tmp_path / "calls.txt").read_text().split()) == [
        "a-paper-H3-seed0-budget5", "a-released-H3-seed0-budget5"]
    assert sweep_table(records).splitlines()[2].startswith("released a ")
    run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1, runner=counting_runner,
              variants=["released"])  # done: not run again
    assert len((tmp_path / "calls.txt").read_text().split()) == 2


def test_an_unknown_or_repeated_lock_variant_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"unknown lock variants \['cereb'\]; known: paper, "
                                         "released"):
        run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", runner=counting_runner,
                  variants=["paper", "cereb"])
    with pytest.raises(ValueError, match="lock variant 'paper' given twice"):
        run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", runner=counting_runner,
                  variants=["paper", "paper"])
    assert cli._lock_variants("released,paper") == ["released", "paper"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown lock variant 'cereb'"):
        cli._lock_variants("paper,cereb")


def test_a_task_of_the_released_variant_runs_on_the_released_lock(tmp_path):
    from kinematic.planning import optimal_values

    released = lock_of(SweepTask("pcid", "released", 3, 0, 1, str(tmp_path)))
    paper = lock_of(SweepTask("pcid", "paper", 3, 0, 1, str(tmp_path)))
    assert released.name == "combolock-released-H3-K10-seed0"
    assert (optimal_values(released).value, optimal_values(paper).value) == (4, 1)


def done_record(**changes) -> dict:
    record = {"algorithm": "a", "variant": "paper", "horizon": 3, "seed": 0, "budget": 5,
              "out": "x", "status": "done", "value": 1.0, "optimal_value": 1.0,
              "episodes": 30, "episodes_to_half": 30, "seconds": 1.0,
              "training_returns": [[10, 0.0], [30, 1.0]], "state_visits": {"s3c": 4},
              "encoding": "authors"}
    record.update(changes)
    return {name: value for name, value in record.items() if value is not DROP}


DROP = object()


@pytest.mark.parametrize(("changes", "message"), [
    ({"variant": DROP}, "no field 'variant'; records written before lock variants were of the "
                        "paper's lock: add \"variant\": \"paper\" to each of them"),
    ({"variant": "cereb"}, "field 'variant' must be one of paper, released, got 'cereb'"),
    ({"encoding": "rotated"}, "field 'encoding' must be one of authors, orthonormal, got "
                              "'rotated'"),
    ({"seconds": DROP}, "no field 'seconds'"),
    ({"optimal_value": 0.0}, "field 'optimal_value' must be a finite number > 0"),
    ({"training_returns": DROP}, "no field 'training_returns'"),
    ({"training_returns": [[30, 1.0], [10, 0.0]]}, "field 'training_returns' must be a list"),
    ({"training_returns": [[10, "1"]]}, "field 'training_returns' must be a list"),
    ({"training_returns": [[e, 0.0] for e in range(2001)]},
     "field 'training_returns' must be a list of at most 2000"),
    ({"state_visits": DROP}, "no field 'state_visits'"),
    ({"state_visits": {"s3d": 1}}, "field 'state_visits' must be a mapping from lock states"),
    ({"state_visits": {"s3a": -1}}, "field 'state_visits' must be a mapping from lock states"),
    ({"state_visits": {"s4a": 1}}, "field 'state_visits' names 's4a', beyond horizon 3"),
])
def test_a_record_with_a_missing_or_malformed_field_is_an_error_naming_file_and_line(
        tmp_path, changes, message):
    good = json.dumps(done_record(horizon=4, state_visits={"s4a": 1}))
    (tmp_path / RECORDS).write_text(good + "\n" + json.dumps(done_record(**changes)) + "\n"
                                    + good + "\n")
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / RECORDS}, line 2: not a sweep "
                                                   f"record ({message}")):
        run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                  runner=counting_runner)
    assert not (tmp_path / "calls.txt").exists()


def test_the_reference_record_is_accepted(tmp_path):
    (tmp_path / RECORDS).write_text(json.dumps(done_record()) + "\n")
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=counting_runner)
    assert record == done_record() and not (tmp_path / "calls.txt").exists()


def test_a_record_without_an_encoding_is_an_orthonormal_run(tmp_path):
    # written before encodings were named: every run then used the orthonormal rotation
    old = done_record(encoding=DROP)
    (tmp_path / RECORDS).write_text(json.dumps(old) + "\n")
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=counting_runner, encoding="orthonormal")
    assert record == old and not (tmp_path / "calls.txt").exists()
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=counting_runner)  # the authors' encoding: another task
    assert record["encoding"] == "authors" and (tmp_path / "calls.txt").exists()
    with pytest.raises(ValueError, match="unknown encoding 'rotated'"):
        run_sweep(["a"], [3], 1, 5, tmp_path, runner=counting_runner, encoding="rotated")


def malformed_runner(task: SweepTask) -> dict:
    return {**counting_runner(task), "state_visits": {"s9a": 1}}


def test_a_runner_giving_a_malformed_record_is_a_failed_task_not_a_broken_file(tmp_path):
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=malformed_runner)
    assert record["status"] == "failed" and record["attempts"] == 2
    assert "field 'state_visits' names 's9a', beyond horizon 3" in record["error"]
    assert "wall_seconds" in record
    run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
              runner=counting_runner)  # the file stays readable; the task runs again


def long_curve_runner(task: SweepTask) -> dict:
    import time

    time.sleep(0.2)
    return {**counting_runner(task), "episodes": 100_000, "seconds": 12.5,
            "training_returns": [[100 * (k + 1), k % 3] for k in range(1000)],
            "state_visits": {"s1a": np.int64(7), "s2c": 3}}


def test_a_record_keeps_a_thinned_curve_its_visits_and_its_wall_clock(tmp_path):
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=long_curve_runner)
    assert record["status"] == "done" and record["seconds"] == 12.5
    assert record["wall_seconds"] >= 0.2
    assert record["state_visits"] == {"s1a": 7, "s2c": 3}
    curve = record["training_returns"]
    assert len(curve) <= MAX_CURVE_POINTS and curve[-1][0] == 100_000
    assert records_of(tmp_path) == [record]


def test_thinning_keeps_every_episode_s_return_and_the_early_points():
    points = [[10 * (k + 1), float(k % 7)] for k in range(50_000)]
    thinned = thin_curve(points, most=300)
    assert len(thinned) <= 300
    assert thinned[:5] == points[:5]  # early points (narrow buckets) are kept as they are
    assert thinned[-1][0] == points[-1][0]
    total = sum(10 * mean for _, mean in points)  # 10 episodes behind each point
    previous, kept = 0, 0.0
    for episodes, mean in thinned:
        kept += (episodes - previous) * mean
        previous = episodes
    assert kept == pytest.approx(total, rel=1e-12)
    assert thin_curve(points[:300], most=300) == points[:300]


def test_thinning_by_hand():
    # edges of most = 3 buckets: geomspace(1, 1000, 4)[1:-1] = [10, 100], a point on an edge
    # in the lower bucket; each bucket's mean weighted by the episodes behind each point
    points = [(1, 0.0), (2, 1.0), (4, 0.0), (12, 0.0), (100, 1.0), (1000, 0.5)]
    assert thin_curve(points, most=3) == [[4, 0.25], [100, 88 / 96], [1000, 0.5]]
    # a bucket of points with no episodes behind them (at 0): their plain mean
    assert thin_curve([(0, 1.0), (0, 0.5), (5, 0.0), (50, 1.0)], most=3) == [
        [0, 0.75], [5, 0.0], [50, 1.0]]
    # one episode behind the bucket's points: the weighted mean still
    assert thin_curve([(0, 1.0), (1, 0.0), (50, 1.0), (60, 1.0)], most=3) == [
        [1, 0.0], [60, 1.0]]


TINY = HomerConfig(transitions=200, max_transitions=200, max_epochs=5, min_epochs=5,
                   psdp_samples=100, eval_samples=100, evaluation_episodes=50)
"""An H = 3 lock run of a few seconds (one torch thread)."""


@pytest.mark.no_mutants
def test_homer_logs_each_step_s_episodes_returns_and_visits(tmp_path, monkeypatch):
    batches = []
    original_run = BatchSampler.run

    def recording_run(self, *args, **kwargs):
        batch = original_run(self, *args, **kwargs)
        batches.append(batch)
        return batch

    monkeypatch.setattr(BatchSampler, "run", recording_run)
    mdp = combination_lock(3, 10, 0)
    result = run_homer(mdp, tmp_path, TINY, seed=0, progress=False)
    assert len(result.log) == 2
    remaining = list(batches)
    phases = [entry["episodes"] for entry in result.log]
    phases.append(result.episodes - sum(phases))  # the reward-sensitive PSDP
    expected_visits: Counter[str] = Counter()
    expected_curve, episodes = [], 0
    for number, count in enumerate(phases):
        mine = []
        while sum(len(b.actions) for b in mine) < count:
            mine.append(remaining.pop(0))
        assert sum(len(b.actions) for b in mine) == count
        return_sum = sum(float(b.rewards.sum()) for b in mine)
        visits = Counter(mdp.layers[t][s] for b in mine for row in b.states
                         for t, s in enumerate(row))
        if number < len(result.log):
            entry = result.log[number]
            assert entry["return_sum"] == pytest.approx(return_sum, abs=1e-12)
            assert entry["visits"] == dict(visits)
            assert max(int(name[1:-1]) for name in visits) == entry["step"]
        expected_visits.update(visits)
        episodes += count
        expected_curve.append((episodes, return_sum / count))
    assert [len(b.actions) for b in remaining] == [TINY.evaluation_episodes]  # not counted
    assert result.state_visits == dict(expected_visits)
    assert sum(result.state_visits[s] for s in ("s1a", "s1b")) == result.episodes
    assert [e for e, _ in result.training_returns] == [e for e, _ in expected_curve]
    assert [m for _, m in result.training_returns] == pytest.approx(
        [m for _, m in expected_curve], abs=1e-12)
    summary = result.summary()
    assert summary["state_visits"] == result.state_visits
    assert summary["training_returns"] == [list(p) for p in result.training_returns]


@pytest.mark.no_mutants
def test_homer_s_returns_and_visits_survive_a_resume(tmp_path, monkeypatch):
    mdp = combination_lock(3, 10, 0)
    whole = run_homer(mdp, tmp_path / "whole", TINY, seed=0, progress=False)
    original = algorithm.write_checkpoint

    def save_then_stop(run_dir, checkpoint):
        original(run_dir, checkpoint)
        raise KeyboardInterrupt  # killed right after the first step's checkpoint

    monkeypatch.setattr(algorithm, "write_checkpoint", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run_homer(mdp, tmp_path / "stopped", TINY, seed=0, progress=False)
    monkeypatch.setattr(algorithm, "write_checkpoint", original)
    resumed = run_homer(mdp, tmp_path / "stopped", TINY, seed=0, resume=True, progress=False)
    assert resumed.log[0]["visits"] == whole.log[0]["visits"]  # read back from the checkpoint
    assert resumed.training_returns == whole.training_returns
    assert resumed.state_visits == whole.state_visits


@pytest.mark.no_mutants
def test_a_run_begun_before_returns_were_recorded_resumes_without_them(tmp_path, monkeypatch):
    mdp = combination_lock(3, 10, 0)
    original = algorithm.write_checkpoint

    def forget_then_stop(run_dir, checkpoint):
        for entry in checkpoint.log:  # as an older version wrote its log
            entry.pop("return_sum")
            entry.pop("visits")
        original(run_dir, checkpoint)
        raise KeyboardInterrupt

    monkeypatch.setattr(algorithm, "write_checkpoint", forget_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run_homer(mdp, tmp_path / "old", TINY, seed=0, progress=False)
    monkeypatch.setattr(algorithm, "write_checkpoint", original)
    resumed = run_homer(mdp, tmp_path / "old", TINY, seed=0, resume=True, progress=False)
    assert (resumed.training_returns, resumed.state_visits) == ([], {})  # not made up
    assert resumed.value >= resumed.optimal_value / 2


def self_naming_runner(task: SweepTask) -> dict:
    """A baseline's summary names its algorithm without the RND suffix."""
    return {**counting_runner(task), "algorithm": "ppo", "horizon": 99, "curve": [[1, 0.5]]}


def test_a_record_keeps_its_task_s_fields_over_the_runner_s(tmp_path):
    [record] = run_sweep(["ppo_rnd"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=self_naming_runner)
    assert (record["algorithm"], record["horizon"]) == ("ppo_rnd", 3)
    assert record["curve"] == [[1, 0.5]]  # the runner's other fields are kept


def test_a_learning_rate_or_coefficient_other_than_the_default_is_named_in_the_key():
    task = SweepTask("ppo_rnd", "paper", 6, 0, 10, "out")
    assert (task.learning_rate, task.intrinsic_coefficient) == (1e-3, 100.0)
    assert task.key == "ppo_rnd-paper-H6-seed0-budget10"  # as before they were named
    assert SweepTask("ppo_rnd", "paper", 6, 0, 10, "out", learning_rate=0.01).key == (
        "ppo_rnd-paper-H6-seed0-budget10-lr0.01")
    assert SweepTask("ppo_rnd", "paper", 6, 0, 10, "out", "orthonormal", 1e-4, 1).key == (
        "ppo_rnd-paper-H6-seed0-budget10-orthonormal-lr0.0001-coefficient1")
    assert SweepTask("a2c_rnd", "paper", 6, 0, 10, "out", intrinsic_coefficient=0.5).key == (
        "a2c_rnd-paper-H6-seed0-budget10-coefficient0.5")
    assert str(SweepTask("a2c", "paper", 6, 0, 10, "out", learning_rate=0.01).configuration) \
        == "lr 0.01, authors' encoding"


@pytest.mark.parametrize(("changes", "message"), [
    ({"learning_rate": 0.0}, "the learning rate must be a finite number > 0, got 0.0"),
    ({"learning_rate": float("nan")}, "the learning rate must be a finite number > 0, got nan"),
    ({"intrinsic_coefficient": -1.0},
     "the intrinsic coefficient must be a finite number >= 0, got -1.0"),
    ({"algorithm": "ppo", "intrinsic_coefficient": 10.0},
     "the intrinsic coefficient does not change a run of ppo: it takes the default 100 only, "
     "got 10.0"),
    ({"algorithm": "homer", "learning_rate": 0.01},
     "the learning rate does not change a run of homer: it takes the default 0.001 only, "
     "got 0.01"),
])
def test_a_task_refuses_a_configuration_naming_the_value(changes, message):
    fields = {"algorithm": "ppo_rnd", "variant": "paper", "horizon": 3, "seed": 0,
              "budget": 5, "out": "x", **changes}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SweepTask(**fields)


def test_every_learning_rate_and_rnd_coefficient_is_a_task_and_no_more(tmp_path):
    records = run_sweep(["ppo", "ppo_rnd", "homer"], [3], 1, 5, tmp_path, executor="local",
                        workers=1, runner=counting_runner, learning_rates=[0.01, 0.001],
                        intrinsic_coefficients=[1, 100])
    assert sorted((tmp_path / "calls.txt").read_text().split()) == sorted([
        "ppo-paper-H3-seed0-budget5-lr0.01", "ppo-paper-H3-seed0-budget5",
        "ppo_rnd-paper-H3-seed0-budget5-lr0.01-coefficient1",
        "ppo_rnd-paper-H3-seed0-budget5-lr0.01", "ppo_rnd-paper-H3-seed0-budget5-coefficient1",
        "ppo_rnd-paper-H3-seed0-budget5", "homer-paper-H3-seed0"])
    assert [(r["algorithm"], r["learning_rate"], r["intrinsic_coefficient"])
            for r in records] == [
        ("ppo", 0.01, 100), ("ppo", 0.001, 100), ("ppo_rnd", 0.01, 1), ("ppo_rnd", 0.01, 100),
        ("ppo_rnd", 0.001, 1), ("ppo_rnd", 0.001, 100), ("homer", 0.001, 100)]
    table = sweep_table(records)
    assert table.splitlines()[0] == ("lock     algorithm     H runs failed reached 1/2 median "
                                     "episodes to 1/2    budget  configuration")
    assert "lr 0.01, coefficient 1, authors' encoding" in table
    assert len(table.splitlines()) == 8  # a row per configuration


@pytest.mark.parametrize(("arguments", "message"), [
    ({"learning_rates": [0.01, 0.0]}, "a learning rate must be a finite number > 0, got 0.0"),
    ({"intrinsic_coefficients": [-5]}, "an intrinsic coefficient must be a finite number >= 0, "
                                       "got -5"),
    ({"learning_rates": [0.01, 0.01]}, "learning rate 0.01 given twice"),
    ({"intrinsic_coefficients": [10, 10.0]}, "intrinsic coefficient 10 given twice"),
    ({"learning_rates": []}, "need at least one algorithm, lock variant, horizon, seed, "
                             "learning rate and intrinsic coefficient"),
])
def test_a_bad_learning_rate_or_coefficient_is_refused_naming_it(tmp_path, arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        run_sweep(["a_rnd"], [3], 1, 5, tmp_path, executor="local", runner=counting_runner,
                  **arguments)
    assert not (tmp_path / "calls.txt").exists()


def test_the_command_s_lists_of_learning_rates_and_coefficients():
    args = cli._parser().parse_args(["sweep", "--out", "x", "--learning-rates", "0.01,1e-4",
                                     "--intrinsic-coefficients", "1,500"])
    assert (args.learning_rates, args.intrinsic_coefficients) == ([0.01, 1e-4], [1.0, 500.0])
    defaults = cli._parser().parse_args(["sweep", "--out", "x"])
    assert (defaults.learning_rates, defaults.intrinsic_coefficients) == ([1e-3], [100.0])
    with pytest.raises(argparse.ArgumentTypeError, match="learning rate '0': must be a finite "
                                                         "number > 0, got '0'"):
        cli._numbers(cli.positive(), "learning rate")("0.01,0")
    with pytest.raises(argparse.ArgumentTypeError, match="intrinsic coefficient 'ten': must be"):
        cli._numbers(cli.nonnegative(), "intrinsic coefficient")("ten")


def test_a_baseline_task_runs_with_its_learning_rate_and_coefficient(tmp_path, monkeypatch):
    import homer.baselines.batched as batched
    from homer import sweep

    seen = {}

    class Result:
        def summary(self):
            return {"summary": "of the run"}

    def fake(mdp, algorithm, episodes, **options):
        seen.update(options, mdp=mdp, algorithm=algorithm, episodes=episodes)
        return Result()

    monkeypatch.setattr(batched, "run_batched_baseline", fake)
    task = SweepTask("a2c_rnd", "released", 3, 2, 400, str(tmp_path), "orthonormal",
                     learning_rate=0.01, intrinsic_coefficient=10)
    assert sweep._run_baseline(task, lock_of(task), tmp_path / "run") == {
        "summary": "of the run"}
    assert (seen["algorithm"], seen["episodes"], seen["rnd"], seen["seed"]) == (
        "a2c", 400, True, 2)
    assert (seen["config"].learning_rate, seen["config"].intrinsic_coefficient) == (0.01, 10)
    assert seen["config"].gamma == 0.99  # the rest of the tables as they are
    assert (seen["run_dir"], seen["evaluate_every"], seen["stop_at_half"]) == (
        tmp_path / "run", 20, True)
    assert seen["encoder"].encoding == "orthonormal"
    assert seen["mdp"].name == "combolock-released-H3-K10-seed2"
    task = SweepTask("ppo", "paper", 3, 0, 400, str(tmp_path))
    sweep._run_baseline(task, lock_of(task), tmp_path / "run")
    assert (seen["algorithm"], seen["rnd"], seen["encoder"].encoding) == ("ppo", False,
                                                                           "authors")


def test_the_evaluation_interval_is_a_twentieth_of_the_budget_between_1_and_10000():
    from homer.sweep import evaluation_interval

    assert [evaluation_interval(b) for b in (1, 19, 20, 41, 5000, 200_000, 200_020, 10**7)] \
        == [1, 1, 1, 2, 250, 10_000, 10_000, 10_000]


def test_an_attempt_is_retried_once_then_recorded_as_failed_with_its_error(tmp_path):
    import time

    from homer import sweep

    tries = []

    def flaky(task):
        tries.append(task.key)
        if len(tries) == 1:
            raise RuntimeError("first try")
        return {**long_curve_runner(task),  # 0.2 s  # numpy counts, a curve of 3,000 points
                "training_returns": [[k + 1, 1.0] for k in range(3000)]}

    task = SweepTask("a", "paper", 3, 0, 5, str(tmp_path))
    record = sweep._attempt(flaky, task)
    assert tries == [task.key] * 2 and record["status"] == "done"
    assert record["learning_rate"] == 0.001 and record["state_visits"] == {"s1a": 7, "s2c": 3}
    assert len(record["training_returns"]) <= 2000  # thinned
    assert 0.2 <= record["wall_seconds"] < 2  # the attempt that produced it, in ms
    assert record["wall_seconds"] == round(record["wall_seconds"], 3)

    def failing(task):
        tries.append(task.key)
        time.sleep(0.1)
        raise RuntimeError(f"try {len(tries)}")

    tries.clear()
    failed = sweep._attempt(failing, SweepTask("a", "paper", 4, 0, 5, str(tmp_path)))
    assert len(tries) == 2 and (failed["status"], failed["attempts"]) == ("failed", 2)
    assert failed["horizon"] == 4
    assert failed["error"].splitlines()[-1] == "RuntimeError: try 2"  # the last try's
    assert 0.1 <= failed["wall_seconds"] < 2  # the last try's time
    assert failed["wall_seconds"] == round(failed["wall_seconds"], 3)


def test_a_record_without_a_learning_rate_or_coefficient_is_a_default_run(tmp_path):
    # written before they were named: every run then used the defaults
    old = done_record(algorithm="a_rnd")
    (tmp_path / RECORDS).write_text(json.dumps(old) + "\n")
    [record] = run_sweep(["a_rnd"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=counting_runner)
    assert record == old and not (tmp_path / "calls.txt").exists()
    run_sweep(["a_rnd"], [3], 1, 5, tmp_path, executor="local", workers=1,
              runner=counting_runner, learning_rates=[0.01])  # another learning rate: runs
    assert (tmp_path / "calls.txt").read_text().split() == ["a_rnd-paper-H3-seed0-budget5-lr0.01"]


@pytest.mark.parametrize(("changes", "message"), [
    ({"learning_rate": -1}, "field 'learning_rate' must be a finite number > 0, got -1"),
    ({"intrinsic_coefficient": "100"}, "field 'intrinsic_coefficient' must be a finite number "
                                       ">= 0, got '100'"),
    ({"intrinsic_coefficient": 10.0}, "the intrinsic coefficient does not change a run of a"),
])
def test_a_record_with_a_malformed_configuration_is_an_error_naming_the_line(
        tmp_path, changes, message):
    (tmp_path / RECORDS).write_text(json.dumps(done_record(**changes)) + "\n"
                                    + json.dumps(done_record(horizon=4)) + "\n")
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / RECORDS}, line 1: not a sweep "
                                                   f"record ({message}")):
        run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                  runner=counting_runner)


def test_a_task_recorded_failed_then_done_is_done_and_not_run_again(tmp_path):
    # the first attempt failed, a later sweep finished it: the last record is the task's
    failed = {**done_record(), "status": "failed", "error": "boom"}
    (tmp_path / RECORDS).write_text(json.dumps(failed) + "\n" + json.dumps(done_record())
                                    + "\n")
    [record] = run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", workers=1,
                         runner=counting_runner)
    assert record == done_record() and not (tmp_path / "calls.txt").exists()
    # and the other way round: done, then failed (a rerun of a finished task) is failed
    (tmp_path / RECORDS).write_text(json.dumps(done_record()) + "\n" + json.dumps(failed)
                                    + "\n")
    assert finished_records(tmp_path) == []


def test_two_finished_records_of_a_task_that_disagree_warn_naming_the_task_and_both_lines(
        tmp_path):
    """Two sweeps run into one directory, or records files joined: two finished records of
    one task. The last counts (as for a failed one, then a finished one), with a warning naming
    the task, both lines and the fields that differ; records differing only in the time they
    took (``seconds``, ``wall_seconds``), the directory they ran in or the task's fields they
    name agree, silently."""
    path = tmp_path / RECORDS
    first, other = done_record(), done_record(horizon=4)
    disagreeing = done_record(value=0.5, episodes_to_half=None, seconds=9.0, curve=[[5, 0.5]])
    failed = {**done_record(), "status": "failed", "error": "boom"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (first, other, failed, disagreeing)))
    with pytest.warns(UserWarning) as caught:
        [kept] = [r for r in finished_records(tmp_path) if r["horizon"] == 3]
    assert kept == disagreeing
    assert [str(w.message) for w in caught] == [
        f"{path}: lines 1 and 4 are two finished records of task a-paper-H3-seed0-budget5 that "
        "disagree (curve, episodes_to_half, value); line 4, the last, counts: remove the other "
        "to keep it"]
    agreeing = {**first, "seconds": 7.5, "wall_seconds": 3.0, "out": "elsewhere",
                "learning_rate": 0.001}  # the default, which the first does not name
    path.write_text(json.dumps(first) + "\n" + json.dumps(agreeing) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert finished_records(tmp_path) == [agreeing]


def test_a_tampered_baseline_checkpoint_fails_its_task_with_an_error_naming_it(tmp_path):
    from homer import sweep

    task = SweepTask("ppo", "paper", 3, 0, 100, str(tmp_path))  # one update of 100 workers
    assert sweep._attempt(run_task, task)["status"] == "done"
    checkpoint = tmp_path / "runs" / task.key / "checkpoint.npz"
    with np.load(checkpoint, allow_pickle=False) as archive:
        entries = {name: archive[name] for name in archive.files}
    metadata = json.loads(entries["metadata"].tobytes())
    entries["metadata"] = np.frombuffer(json.dumps({**metadata, "episodes": -5}).encode(),
                                        np.uint8)
    np.savez(checkpoint, allow_pickle=False, **entries)
    failed = sweep._attempt(run_task, task)
    assert failed["status"] == "failed"
    assert failed["error"].splitlines()[-1] == (
        f"homer.run_state.CheckpointError: {checkpoint}: entry 'metadata', field 'episodes' "
        "must be an int in [0, 9223372036854775807], got -5")


@pytest.mark.parametrize("curve", [[[e, 0.0] for e in range(2000)], [[0, 0.0]],
                                   [[10, 0.0], [10, 1.0]]])
def test_a_curve_of_2000_points_from_episode_0_repeating_a_count_is_accepted(tmp_path, curve):
    record = done_record(training_returns=curve, state_visits={"s1a": 0})
    (tmp_path / RECORDS).write_text(json.dumps(record) + "\n")
    assert finished_records(tmp_path) == [record]


@pytest.mark.parametrize(("line", "message"), [
    ('{"torn', "the line: malformed JSON at line 1, column 2"),
    ("[1, 2]", "a JSON list, not an object"),
    (json.dumps(done_record(seconds=DROP)), "no field 'seconds'"),
    (json.dumps({**done_record(), "status": "failed"}), "no field 'error'"),
    (json.dumps({**done_record(), "status": "failed", "error": 5}),
     "field 'error' must be a string, got 5"),
    (json.dumps(done_record(training_returns=[[-1, 0.0]])), "field 'training_returns' must be"),
])
def test_a_record_s_error_says_what_is_wrong_and_nothing_else(tmp_path, line, message):
    (tmp_path / RECORDS).write_text(line + "\n" + json.dumps(done_record()) + "\n")
    with pytest.raises(ValueError) as error:
        finished_records(tmp_path)
    shown = str(error.value).removeprefix(f"{tmp_path / RECORDS}, line 1: not a sweep record (")
    assert shown.startswith(message) and shown.endswith(")")
    if message.startswith(("a JSON", "no field")):
        assert shown == message + ")"


def test_a_failed_record_needs_only_its_task_and_error_and_blank_lines_are_skipped(tmp_path):
    failed = {name: done_record()[name] for name in ("algorithm", "variant", "horizon", "seed",
                                                     "budget", "out")}
    (tmp_path / RECORDS).write_text(json.dumps({**failed, "status": "failed", "error": "e"})
                                    + "\n\n" + json.dumps(done_record(horizon=4)) + "\n")
    assert [r["horizon"] for r in finished_records(tmp_path)] == [4]


def test_a_torn_last_of_three_records_leaves_the_other_two_as_lines(tmp_path):
    run_sweep(["a"], [3, 4, 5], 1, 5, tmp_path, executor="local", workers=1,
              runner=counting_runner)
    path = tmp_path / RECORDS
    path.write_text(path.read_text()[:-10])
    with pytest.warns(UserWarning, match="dropped a torn last line"):
        assert len(finished_records(tmp_path)) == 2
    assert [json.loads(line)["status"] for line in path.read_text().splitlines()] == [
        "done", "done"]


def death_signal_runner(task: SweepTask) -> dict:
    """Reports its worker's process id and the signal it gets when its parent dies."""
    import ctypes
    import ctypes.util

    signal_number = ctypes.c_int(0)
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(2, ctypes.byref(signal_number))  # PR_GET_PDEATHSIG
    return {**counting_runner(task), "pid": os.getpid(), "death_signal": signal_number.value}


def test_local_workers_die_with_the_driver_and_are_as_many_as_asked(tmp_path):
    import signal

    records = run_sweep(["a"], [3, 4, 5, 6], 1, 5, tmp_path, executor="local", workers=1,
                        runner=death_signal_runner)
    assert {r["death_signal"] for r in records} == {signal.SIGKILL}
    assert len({r["pid"] for r in records}) == 1


def test_a_stopped_local_sweep_runs_no_queued_task(tmp_path):
    def stop(record):
        raise Stop

    with pytest.raises(Stop):
        run_sweep(["a", "b"], [3, 4, 5, 6], 1, 5, tmp_path, executor="local", workers=1,
                  runner=long_curve_runner, on_record=stop)
    assert len(records_of(tmp_path)) == 1
    assert len((tmp_path / "calls.txt").read_text().split()) < 8  # the queued ones cancelled


def test_the_local_executor_needs_linux(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(ValueError, match=re.escape(
            "the local executor needs Linux (its workers die with the driver through prctl); "
            "use --executor ray")):
        run_sweep(["a"], [3], 1, 5, tmp_path, executor="local", runner=counting_runner)


def test_ray_is_the_default_executor_given_the_tasks_runner_and_address(tmp_path, monkeypatch):
    from homer import sweep

    seen = []

    def fake(tasks, runner, *where):
        seen.append(([t.key for t in tasks], runner, where))
        yield from (sweep._attempt(runner, task) for task in tasks)

    monkeypatch.setattr(sweep, "_ray_results", fake)
    records = run_sweep(["a"], [3, 4], 1, 5, tmp_path / "new" / "sweep", address="head:6379",
                        runner=counting_runner)  # its parents made too
    assert seen == [(["a-paper-H3-seed0-budget5", "a-paper-H4-seed0-budget5"], counting_runner,
                     ("head:6379",))]
    assert [r["status"] for r in records] == ["done", "done"]
    monkeypatch.setattr(sweep, "_local_results", fake)
    run_sweep(["a"], [5], 1, 5, tmp_path, executor="local", runner=counting_runner)
    assert seen[-1][2] == (2,)  # two local workers by default


@pytest.mark.parametrize(("arguments", "message"), [
    ({"algorithms": ["a", "a"]}, "algorithm 'a' given twice: each task runs once"),
    ({"horizons": [3, 3]}, "horizon 3 given twice: each task runs once"),
    ({"algorithms": ["dqn"], "runner": run_task},
     "unknown algorithms ['dqn']; known: homer, ppo, ppo_rnd, a2c, a2c_rnd, pcid"),
    ({"encoding": "rotated"}, "unknown encoding 'rotated'; known: authors, orthonormal"),
    ({"seeds": 0}, "need at least one"), ({"budget": 0}, "need at least one"),
    ({"algorithms": []}, "need at least one"), ({"horizons": []}, "need at least one"),
    ({"variants": []}, "need at least one"),
])
def test_each_bad_argument_is_named(tmp_path, arguments, message):
    given = {"algorithms": ["a"], "horizons": [3], "seeds": 1, "budget": 5, "out": tmp_path,
             "executor": "local", "runner": counting_runner, **arguments}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        run_sweep(**given)


def test_the_table_counts_failed_runs_and_shows_a_median_only_where_most_reached(tmp_path):
    records = [done_record(), done_record(seed=1, episodes_to_half=None),
               done_record(seed=2, episodes_to_half=50),
               {**done_record(seed=3), "status": "failed", "error": "e"},
               done_record(horizon=4, episodes_to_half=None, state_visits={})]
    rows = [line.split() for line in sweep_table(records).splitlines()[1:]]
    assert rows == [
        ["paper", "a", "3", "4", "1", "2", "/", "3", "50", "5", "lr", "0.001,", "authors'",
         "encoding"],
        ["paper", "a", "4", "1", "0", "0", "/", "1", "-", "5", "lr", "0.001,", "authors'",
         "encoding"]]
