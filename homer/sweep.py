"""The horizon sweep of Figure ``fig:horizon-plot``: algorithms x horizons x seeds on the
diabolical combination lock (K = 10), each (algorithm, horizon, seed) one task.

Tasks run on Ray (``executor="ray"``: a local Ray instance, or a cluster at ``address``) or on
a local process pool (``executor="local"``). Each finished task is appended to
``records.jsonl`` in the output directory as soon as it completes, so a stopped sweep resumes
without redoing finished tasks. A task that raises is retried once; if it fails again its error
is recorded (``status: failed``) and reported, and a later run of the sweep tries it again.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import statistics
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from homer.config import DEFAULT_TORCH_THREADS
from homer.safe_files import (
    check_own_path,
    own_subdirectory,
    present,
    read_regular_file,
    write_atomically,
)
from kinematic.arguments import NumberRange, at_least
from kinematic.errors import short_repr
from kinematic.figures import new_figure
from kinematic.json_input import read_json

__all__ = ["ALGORITHMS", "SweepTask", "horizon_figure", "run_sweep", "run_task", "sweep_table"]

ALGORITHMS = ("homer", "ppo", "ppo_rnd", "a2c", "a2c_rnd", "pcid")
RECORDS = "records.jsonl"
RUNS = "runs"
"""The directory of a sweep where HOMER's runs keep their run directories."""


@dataclass(frozen=True)
class SweepTask:
    algorithm: str
    horizon: int
    seed: int
    budget: int
    """Episodes for PPO / A2C (+RND); HOMER and PCID use their own schedules and report the
    episodes they used."""
    out: str
    """The sweep's output directory (HOMER keeps its run directory there, to resume)."""

    @property
    def key(self) -> str:
        """Every parameter that changes a result (a rerun with another budget is new work)."""
        return f"{self.algorithm}-H{self.horizon}-seed{self.seed}-budget{self.budget}"


def run_task(task: SweepTask) -> dict[str, Any]:
    """Run one task on the lock ``combination_lock(H, 10, seed)``; the summary of its run."""
    from kinematic.families import combination_lock

    mdp = combination_lock(task.horizon, 10, task.seed)
    if task.algorithm == "homer":
        from homer.algorithm import run_homer
        from homer.run_directory import CONFIG

        run_dir = own_subdirectory(Path(task.out), RUNS, task.key)
        result = run_homer(mdp, run_dir, seed=task.seed,
                           resume=(run_dir / CONFIG).exists(), progress=False)
        reached = result.value >= result.optimal_value / 2
        return {"value": result.value, "optimal_value": result.optimal_value,
                "episodes": result.episodes, "seconds": result.seconds,
                "episodes_to_half": result.episodes if reached else None}
    if task.algorithm == "pcid":
        from homer.baselines.pcid import run_pcid

        summary = run_pcid(mdp, seed=task.seed).result.summary()
    elif task.algorithm in ("ppo", "ppo_rnd", "a2c", "a2c_rnd"):
        from homer.baselines.actor_critic import run_actor_critic

        summary = run_actor_critic(mdp, task.algorithm.split("_")[0], task.budget,
                                   rnd=task.algorithm.endswith("_rnd"),
                                   seed=task.seed).summary()
    else:
        raise ValueError(f"unknown algorithm {task.algorithm!r}; known: {ALGORITHMS}")
    summary.pop("algorithm")
    return summary


def _attempt(runner: Callable[[SweepTask], dict], task: SweepTask) -> dict[str, Any]:
    """Run ``task`` (retried once); the record to append, never an exception."""
    errors = []
    for _ in range(2):
        try:
            return {**asdict(task), "status": "done", **runner(task)}
        except Exception:  # reported in the record, never dropped
            errors.append(traceback.format_exc())
    return {**asdict(task), "status": "failed", "error": errors[-1], "attempts": 2}


def _task_of(record: dict) -> SweepTask:
    return SweepTask(**{name: record[name] for name in SweepTask.__dataclass_fields__})


RECORD_FIELDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "algorithm": ("a non-empty string", lambda v: isinstance(v, str) and v != ""),
    "horizon": ("an int >= 1", at_least(1).contains),
    "seed": ("an int >= 0", at_least(0).contains),
    "budget": ("an int >= 1", at_least(1).contains),
    "out": ("a string", lambda v: isinstance(v, str)),
    "status": ("'done' or 'failed'", lambda v: v in ("done", "failed")),
}
"""Fields of every record, what each must be and its test."""

DONE_FIELDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "value": ("a finite number", NumberRange(float).contains),
    "episodes": ("an int >= 0", at_least(0).contains),
    "episodes_to_half": ("an int >= 0 or null",
                         lambda v: v is None or at_least(0).contains(v)),
}
"""Fields of a finished task's record that the table, the figure and the report read."""


def _record(line: bytes) -> dict[str, Any]:
    """A line of ``records.jsonl`` as a checked record (``ValueError`` saying what is wrong)."""
    record = read_json(line.decode("utf-8"), "the line")  # bounded depth, no repeated keys
    if not isinstance(record, dict):
        raise ValueError(f"a JSON {type(record).__name__}, not an object")
    required = {**RECORD_FIELDS, **(DONE_FIELDS if record.get("status") == "done" else {
        "error": ("a string", lambda v: isinstance(v, str))})}
    for name, (wanted, valid) in required.items():
        if name not in record:
            raise ValueError(f"no field {name!r}")
        if not valid(record[name]):
            shown = short_repr(record[name])
            raise ValueError(f"field {name!r} must be {wanted}, got {shown}")
    return record


def _finished(out: Path) -> dict[str, dict]:
    """Key -> record of the tasks already done in ``out`` (failed ones run again).

    Each record is checked once, here (the table and the figure read its fields): a line that
    is not UTF-8, not JSON, or a record with a missing or mistyped field is an error naming the
    file and the line, and so is ``records.jsonl`` as anything but a regular file (a FIFO
    would block, a symlink could point anywhere). A torn last line (a driver killed while
    writing it) is dropped with a warning naming the file, and its task runs again.
    """
    path = out / RECORDS
    if not present(path):
        return {}
    lines = read_regular_file(path).splitlines()
    records = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = _record(line)
        except ValueError as error:  # UnicodeDecodeError and JSONDecodeError too
            if number < len(lines):
                raise ValueError(f"{path}, line {number}: not a sweep record ({error})") from None
            warnings.warn(f"{path}: dropped a torn last line (line {number}); its task runs "
                          "again", stacklevel=2)
            write_atomically(path, b"".join(kept + b"\n" for kept in lines[:-1]))
            continue
        records[_task_of(record).key] = record
    return {key: r for key, r in records.items() if r["status"] == "done"}


def _ray_results(tasks: list[SweepTask], runner: Callable, address: str | None
                 ) -> Generator[dict, None, None]:
    import ray

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=DEFAULT_TORCH_THREADS, max_retries=0)(_attempt)
    pending = [remote.remote(runner, task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


def _die_with(driver: int) -> None:
    """Initializer of a local worker: ask Linux to kill it when its driver dies (even by
    SIGKILL), so that no orphan keeps writing into the sweep directory."""
    PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != driver:  # the driver died before the request took effect
        os._exit(1)


def _local_results(tasks: list[SweepTask], runner: Callable, workers: int
                   ) -> Generator[dict, None, None]:
    if not sys.platform.startswith("linux"):
        raise ValueError("the local executor needs Linux (its workers die with the driver "
                         "through prctl); use --executor ray")
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_die_with,
                               initargs=(os.getpid(),))
    try:
        pending = {pool.submit(_attempt, runner, task) for task in tasks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:  # a stopped sweep does not run (and then forget) the queued tasks
        pool.shutdown(wait=True, cancel_futures=True)


def run_sweep(algorithms: Iterable[str], horizons: Iterable[int], seeds: int, budget: int,
              out: str | Path, executor: str = "ray", address: str | None = None,
              workers: int = 2, runner: Callable[[SweepTask], dict] = run_task,
              on_record: Callable[[dict], None] = lambda record: None) -> list[dict]:
    """Run every task not yet finished in ``out``; all records (old and new) in task order."""
    algorithms, horizons = list(algorithms), list(horizons)
    for name, values in (("algorithm", algorithms), ("horizon", horizons)):
        repeated = [value for value, count in Counter(values).items() if count > 1]
        if repeated:
            raise ValueError(f"{name} {repeated[0]!r} given twice: each task runs once")
    unknown = [a for a in algorithms if a not in ALGORITHMS]
    if unknown and runner is run_task:
        raise ValueError(f"unknown algorithms {unknown}; known: {', '.join(ALGORITHMS)}")
    if seeds < 1 or budget < 1 or not algorithms or not horizons:
        raise ValueError("need at least one algorithm, horizon and seed, and a positive budget")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a sweep directory")
    out.mkdir(parents=True, exist_ok=True)
    check_own_path(out / RECORDS)  # appended to: a planted link would get the records
    check_own_path(out / RUNS, directory=True)  # HOMER's run directories go there
    tasks = [SweepTask(a, h, s, budget, str(out)) for a in algorithms for h in horizons
             for s in range(seeds)]
    finished = _finished(out)
    todo = [t for t in tasks if t.key not in finished]
    if executor == "ray":
        results = _ray_results(todo, runner, address)
    elif executor == "local":
        results = _local_results(todo, runner, workers)
    else:
        raise ValueError(f"unknown executor {executor!r}: expected 'ray' or 'local'")
    with (out / RECORDS).open("a") as records:
        try:
            for record in results:
                records.write(json.dumps(record) + "\n")
                records.flush()
                os.fsync(records.fileno())
                finished[_task_of(record).key] = record
                on_record(record)
        finally:
            results.close()
    return [finished[t.key] for t in tasks if t.key in finished]


def _reached(record: dict) -> int | None:
    """Episodes to half the optimal value (None: not reached). PPO and A2C stop at the budget;
    HOMER and PCID follow their own schedules, and their episode counts are what they used."""
    return record.get("episodes_to_half")


def sweep_table(records: list[dict]) -> str:
    """One line per (algorithm, horizon): successes and the median episodes to half value."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for record in records:
        groups.setdefault((record["algorithm"], record["horizon"]), []).append(record)
    lines = [f"{'algorithm':<10} {'H':>4} {'runs':>4} {'failed':>6} {'reached 1/2':>11} "
             f"{'median episodes to 1/2':>22} {'budget':>9}"]
    for (algorithm, horizon), group in sorted(groups.items()):
        done = [r for r in group if r["status"] == "done"]
        reached = [e for e in map(_reached, done) if e is not None]
        median = f"{statistics.median(reached):.0f}" if reached else "-"
        lines.append(f"{algorithm:<10} {horizon:>4} {len(group):>4} "
                     f"{len(group) - len(done):>6} {len(reached):>5} / {len(done):<3} "
                     f"{median:>22} {group[0]['budget']:>9}")
    return "\n".join(lines)


def horizon_figure(records: list[dict]) -> Figure:
    """Figure ``fig:horizon-plot``: median episodes to reach half the optimal value against the
    horizon (log scale), one line per algorithm; where most runs never got there, an ``x`` at
    the budget."""
    figure = new_figure(figsize=(6, 4))
    axes = figure.add_subplot()
    algorithms = sorted({r["algorithm"] for r in records})
    for index, algorithm in enumerate(algorithms):
        colour = f"C{index}"
        shift = 0.08 * (index - (len(algorithms) - 1) / 2)  # markers at the budget side by side
        mine = [r for r in records if r["algorithm"] == algorithm and r["status"] == "done"]
        medians, missed = [], []
        for horizon in sorted({r["horizon"] for r in mine}):
            group = [r for r in mine if r["horizon"] == horizon]
            reached = [e for e in map(_reached, group) if e is not None]
            if 2 * len(reached) > len(group):
                medians.append((horizon, statistics.median(reached)))
            else:
                missed.append((horizon * (1 + shift / 10), group[0]["budget"]))
        if medians:
            axes.plot(*zip(*medians, strict=True), marker="o", color=colour, label=algorithm)
        if missed:
            axes.scatter(*zip(*missed, strict=True), marker="x", color=colour,
                         label=None if medians else algorithm)
    axes.set_yscale("log")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("horizon H")
    axes.set_ylabel("episodes to reach half the optimal value")
    axes.set_title("combination lock, K = 10 (x: not reached within the budget)")
    if algorithms:
        axes.legend(fontsize=8)
    return figure
