"""The horizon sweep of Figure ``fig:horizon-plot``: algorithms x lock variants x horizons x
seeds on the diabolical combination lock (K = 10), each (algorithm, variant, horizon, seed) one
task - for PPO / A2C (+RND) at each learning rate, and for RND at each intrinsic coefficient
too (the hyperparameters the paper's search varied, ``app:appendix-experiment``): a task's
:class:`Configuration` (with the observation encoding) is what the verdicts judge separately.
A value other than the default is named in the task's key, so the keys and run directories of
default runs are those of before; a record without a learning rate or coefficient ran with the
defaults, one without an encoding with the orthonormal one.

The lock variant is ``"paper"`` (Section 7's lock, ``V* = 1``) or ``"released"`` (the lock of
the authors' released baselines, cereb-rl's ``rl_acid_environment.py``: final reward 5, a step
penalty of ``-1/(H-1)``, ``V* = 4``). Tasks run on Ray (``executor="ray"``: a local Ray
instance, or a cluster at ``address``) or on a local process pool (``executor="local"``). Each
finished task is appended to ``records.jsonl`` in the output directory as soon as it completes,
so a stopped sweep resumes without redoing finished tasks (of several records of one task, the
last counts: a failed attempt, then a finished one, is finished; two finished records that
disagree - two sweeps run into one directory, or records files joined - are warned about,
naming the task and both lines); HOMER and the PPO / A2C runs keep
run directories under ``runs/``, so a task stopped midway resumes there. A task that raises is
retried once; if it fails again its error is recorded (``status: failed``) and reported, and a
later run of the sweep tries it again.

On Ray, a task whose worker process dies (killed, or its node lost) is run again by Ray, at
most :data:`RAY_WORKER_RETRIES` times, on any node with a free CPU: HOMER and PPO / A2C resume
from the last checkpoint in their run directory (PCID starts over). If the worker dies on every
try, the task is recorded as failed with Ray's error and the other tasks go on. Only the driver
writes ``records.jsonl``, one line per task result, so a retried task has one record. If the
driver dies, Ray stops the tasks it submitted, and the next run of the sweep resumes them.

Every record carries the run's wall-clock seconds and episodes, its return curve through
training (``training_returns``: (episodes so far, mean extrinsic return per episode), thinned to
at most :data:`MAX_CURVE_POINTS` points) and its latent state visits during training
(``state_visits``): what :mod:`homer.sweep_figures` draws (``fig:value-function-plot``,
``fig:traces``) and :mod:`homer.sweep_verdicts` judges against the paper.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import math
import os
import re
import signal
import statistics
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from homer.config import DEFAULT_TORCH_THREADS
from homer.encoders import ENCODINGS, UNNAMED_ENCODING, HadamardNoise
from homer.psdp import PsdpFallbackWarning
from homer.safe_files import (
    check_own_path,
    own_subdirectory,
    present,
    read_regular_file,
    write_atomically,
)
from homer.settings import DEFAULT_INTRINSIC_COEFFICIENT, DEFAULT_LEARNING_RATE
from kinematic.arguments import NumberRange, at_least, nonnegative, positive
from kinematic.errors import short_repr
from kinematic.families import LOCK_VARIANTS, combination_lock
from kinematic.figures import new_figure
from kinematic.json_input import read_json
from kinematic.model import BlockMDP

__all__ = ["ALGORITHMS", "DEFAULT_INTRINSIC_COEFFICIENT", "DEFAULT_LEARNING_RATE",
           "MAX_CURVE_POINTS", "Configuration", "HorizonSeries", "SweepTask", "configuration_of",
           "encoding_of", "finished_records", "horizon_figure", "horizon_series", "lock_of",
           "run_sweep", "run_task", "sweep_table", "thin_curve"]

ALGORITHMS = ("homer", "ppo", "ppo_rnd", "a2c", "a2c_rnd", "pcid")
LOCK_ACTIONS = 10
"""K of every lock of the sweep (``fig:horizon-plot``)."""
OWN_SCHEDULES = ("homer", "pcid")
"""The algorithms whose episodes follow their own schedule, not the sweep's budget."""
MOST_EPISODES_BETWEEN_EVALUATIONS = 10_000
"""Resolution of a baseline's episodes to half the optimal value at large budgets (an exact
evaluation costs milliseconds; 10,000 episodes of training, seconds)."""
RECORDS = "records.jsonl"
RUNS = "runs"
"""The directory of a sweep where its runs keep their run directories (one per task)."""
MAX_CURVE_POINTS = 2000
"""Most points of a record's ``training_returns`` (:func:`thin_curve`)."""


def tuned(algorithm: str) -> tuple[bool, bool]:
    """Whether the learning rate, and whether the intrinsic coefficient, change a run of
    ``algorithm``: the learning rate every algorithm but HOMER and PCID (which follow their own
    schedules and optimisers), the coefficient the RND ones only.

    >>> tuned("ppo_rnd"), tuned("a2c"), tuned("homer")
    ((True, True), (True, False), (False, False))
    """
    return algorithm not in OWN_SCHEDULES, algorithm.endswith("_rnd")


def _number(value: float) -> str:
    """``value`` as short as it reads back exactly (``0.01``, ``1e-05``, ``100``).

    >>> _number(0.01), _number(100.0), _number(1e-5)
    ('0.01', '100', '1e-05')
    """
    return repr(float(value)).removesuffix(".0")


@dataclass(frozen=True)
class Configuration:
    """What a cell's verdict is judged per (:mod:`homer.sweep_verdicts`): the encoding, and the
    learning rate and intrinsic coefficient where they change a run (None where not:
    :func:`tuned`).

    >>> str(Configuration("authors", 0.001, 100.0)), str(Configuration("orthonormal", None, None))
    ("lr 0.001, coefficient 100, authors' encoding", 'orthonormal encoding')
    """

    encoding: str
    learning_rate: float | None
    intrinsic_coefficient: float | None

    def sort_key(self) -> tuple[str, float, float]:
        """Encoding, then learning rate, then coefficient (a value that does not apply as 0)."""
        return (self.encoding, self.learning_rate or 0.0, self.intrinsic_coefficient or 0.0)

    def __str__(self) -> str:
        parts = [] if self.learning_rate is None else [f"lr {_number(self.learning_rate)}"]
        if self.intrinsic_coefficient is not None:
            parts.append(f"coefficient {_number(self.intrinsic_coefficient)}")
        encoding = "authors'" if self.encoding == "authors" else self.encoding
        return ", ".join([*parts, f"{encoding} encoding"])


@dataclass(frozen=True)
class SweepTask:
    """One run of the sweep.

    >>> SweepTask("ppo_rnd", "released", 25, 0, 10**7, "out").key
    'ppo_rnd-released-H25-seed0-budget10000000'
    """

    algorithm: str
    variant: str
    """The lock: one of :data:`kinematic.families.LOCK_VARIANTS`."""
    horizon: int
    seed: int
    budget: int
    """Episodes for PPO / A2C (+RND); HOMER and PCID use their own schedules and report the
    episodes they used."""
    out: str
    """The sweep's output directory (runs keep their run directories there, to resume)."""
    encoding: str = "authors"
    """The observation encoder's encoding (:data:`homer.encoders.ENCODINGS`): the authors' +-1
    Hadamard matrix, or the orthonormal rotation of every record written before encodings were
    named (such a record reads as ``"orthonormal"``)."""
    learning_rate: float = DEFAULT_LEARNING_RATE
    """PPO's / A2C's (+RND) learning rate (HOMER and PCID: the default only, :func:`tuned`)."""
    intrinsic_coefficient: float = DEFAULT_INTRINSIC_COEFFICIENT
    """RND's intrinsic reward coefficient (other algorithms: the default only)."""

    def __post_init__(self) -> None:
        positive().check(self.learning_rate, "the learning rate")
        nonnegative().check(self.intrinsic_coefficient, "the intrinsic coefficient")
        learning_rate, coefficient = tuned(self.algorithm)
        for name, value, default, applies in (
                ("learning rate", self.learning_rate, DEFAULT_LEARNING_RATE, learning_rate),
                ("intrinsic coefficient", self.intrinsic_coefficient,
                 DEFAULT_INTRINSIC_COEFFICIENT, coefficient)):
            if value != default and not applies:
                raise ValueError(f"the {name} does not change a run of {self.algorithm}: it "
                                 f"takes the default {_number(default)} only, got {value!r}")

    @property
    def key(self) -> str:
        """Every parameter that changes a result: a PPO / A2C (+RND) rerun with another budget
        is new work; HOMER's and PCID's runs follow their own schedules, so another budget
        finds them done. An encoding, a learning rate and an intrinsic coefficient other than
        the default are named last (so the keys of default runs are those of the records
        written before they were named).

        >>> SweepTask("ppo", "paper", 6, 0, 1000, "out").key
        'ppo-paper-H6-seed0-budget1000'
        >>> SweepTask("homer", "released", 6, 0, 1000, "out", "orthonormal").key
        'homer-released-H6-seed0-orthonormal'
        >>> SweepTask("a2c_rnd", "paper", 6, 0, 10, "out", "authors", 0.01, 500).key
        'a2c_rnd-paper-H6-seed0-budget10-lr0.01-coefficient500'
        """
        key = f"{self.algorithm}-{self.variant}-H{self.horizon}-seed{self.seed}"
        key = key if self.algorithm in OWN_SCHEDULES else f"{key}-budget{self.budget}"
        key = key if self.encoding == ENCODINGS[0] else f"{key}-{self.encoding}"
        if self.learning_rate != DEFAULT_LEARNING_RATE:
            key = f"{key}-lr{_number(self.learning_rate)}"
        if self.intrinsic_coefficient != DEFAULT_INTRINSIC_COEFFICIENT:
            key = f"{key}-coefficient{_number(self.intrinsic_coefficient)}"
        return key

    @property
    def configuration(self) -> Configuration:
        """The configuration of the task's runs (what the verdicts judge separately)."""
        learning_rate, coefficient = tuned(self.algorithm)
        return Configuration(self.encoding,
                             self.learning_rate if learning_rate else None,
                             self.intrinsic_coefficient if coefficient else None)

    @property
    def encoder(self) -> HadamardNoise:
        """The encoder of the task's runs (the default noise variance)."""
        return HadamardNoise(encoding=self.encoding)


def lock_of(task: SweepTask) -> BlockMDP:
    """The lock of ``task``: ``combination_lock(H, 10, seed)`` of its variant."""
    return combination_lock(task.horizon, LOCK_ACTIONS, task.seed, variant=task.variant)


def _run_baseline(task: SweepTask, mdp: BlockMDP, run_dir: Path) -> dict[str, Any]:
    """The summary of a batched PPO / A2C (+RND) run of ``task`` on ``mdp``
    (:func:`homer.baselines.batched.run_batched_baseline`), stopped at the first evaluation
    reaching half the optimal value; ``run_dir`` (its own directory under the sweep's
    ``runs/``) holds its checkpoints, so a stopped sweep resumes the run where it was."""
    from homer.baselines.batched import BatchedConfig, run_batched_baseline

    config = BatchedConfig(learning_rate=task.learning_rate,
                           intrinsic_coefficient=task.intrinsic_coefficient)
    return run_batched_baseline(mdp, task.algorithm.split("_")[0], task.budget,
                                rnd=task.algorithm.endswith("_rnd"), seed=task.seed,
                                run_dir=run_dir, encoder=task.encoder, config=config,
                                evaluate_every=evaluation_interval(task.budget),
                                stop_at_half=True).summary()


def evaluation_interval(budget: int) -> int:
    """Episodes between two exact evaluations of a baseline of budget ``budget``: a twentieth
    of it, at most :data:`MOST_EPISODES_BETWEEN_EVALUATIONS` (the resolution of the episodes
    to half the optimal value).

    >>> evaluation_interval(5_000), evaluation_interval(10_000_000)
    (250, 10000)
    """
    return max(1, min(budget // 20, MOST_EPISODES_BETWEEN_EVALUATIONS))


def run_task(task: SweepTask) -> dict[str, Any]:  # pragma: no mutate block
    """Run one task on its lock (:func:`lock_of`); the summary of its run (a baseline's whole
    summary; HOMER's :data:`DONE_FIELDS`)."""
    if task.algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {task.algorithm!r}; known: {ALGORITHMS}")
    mdp = lock_of(task)
    if task.algorithm == "homer":
        from homer.algorithm import run_homer
        from homer.run_directory import CONFIG

        run_dir = own_subdirectory(Path(task.out), RUNS, task.key)
        with warnings.catch_warnings():  # a task's report is its record's line; the run's
            warnings.simplefilter("ignore", PsdpFallbackWarning)  # log counts its fallbacks
            result = run_homer(mdp, run_dir, seed=task.seed, encoder=task.encoder,
                               resume=(run_dir / CONFIG).exists(), progress=False)
        reached = result.value >= result.optimal_value / 2
        summary = {**result.summary(), "episodes_to_half": result.episodes if reached else None}
        return {name: summary[name] for name in DONE_FIELDS}
    if task.algorithm == "pcid":
        from homer.baselines.pcid import run_pcid

        summary = run_pcid(mdp, seed=task.seed, encoder=task.encoder).result.summary()
        # PCID's runner records no return curve or visit counts (None): none to draw
        summary = {**summary, "training_returns": [], "state_visits": {}}
    else:
        run_dir = own_subdirectory(Path(task.out), RUNS, task.key)
        run_dir.mkdir(parents=True, exist_ok=True)
        summary = _run_baseline(task, mdp, run_dir)
    return summary


def thin_curve(points: Iterable[Sequence[float]], most: int = MAX_CURVE_POINTS
               ) -> list[list[float]]:
    """``points`` ``(episodes so far, mean return per episode since the previous point)`` with
    at most ``most`` points: consecutive points merged within buckets of geometrically growing
    width (the curves are drawn against log episodes, so early points are kept), each merged
    point at its bucket's last episode count with the mean return of all its episodes.

    >>> thin_curve([(10, 1.0), (20, 0.0), (30, 0.5)], most=2)
    [[10, 1.0], [30, 0.25]]
    """
    rows = [(int(episodes), float(mean)) for episodes, mean in points]
    if len(rows) <= most:
        return [list(row) for row in rows]
    episodes = np.array([e for e, _ in rows], dtype=np.float64)
    means = np.array([m for _, m in rows])
    weights = np.diff(episodes, prepend=0.0)
    edges = np.geomspace(max(episodes[0], 1.0), episodes[-1], most + 1)[1:-1]
    buckets = np.searchsorted(edges, episodes, side="left")
    thinned = []
    for bucket in np.unique(buckets):
        chosen = buckets == bucket
        weight = weights[chosen]
        mean = (float(np.average(means[chosen], weights=weight)) if weight.sum() > 0
                else float(means[chosen].mean()))
        thinned.append([int(episodes[chosen][-1]), mean])
    return thinned


def _attempt(runner: Callable[[SweepTask], dict], task: SweepTask) -> dict[str, Any]:
    """Run ``task`` (retried once); the checked record to append, never an exception. Its
    ``wall_seconds`` is the time of the attempt that produced it; the curve is thinned
    (:func:`thin_curve`) and the visits made plain ints, so the record is small JSON."""
    errors = []
    for _ in range(2):
        started = time.perf_counter()
        try:
            result = runner(task)
            record = {**result, **asdict(task), "status": "done",  # the task names itself
                      "training_returns": thin_curve(result["training_returns"]),
                      "state_visits": {str(name): int(count)
                                       for name, count in result["state_visits"].items()},
                      "wall_seconds": round(time.perf_counter() - started, 3)}
            return _record(json.dumps(record).encode("utf-8"))
        except Exception:  # reported in the record, never dropped
            errors.append(traceback.format_exc())
    return {**asdict(task), "status": "failed", "error": errors[-1], "attempts": 2,
            "wall_seconds": round(time.perf_counter() - started, 3)}


def encoding_of(record: dict) -> str:
    """The encoding of a record's run (``"orthonormal"`` for one written before encodings were
    named).

    >>> encoding_of({"encoding": "authors"}), encoding_of({})
    ('authors', 'orthonormal')
    """
    return str(record.get("encoding", UNNAMED_ENCODING))


def _task_of(record: dict) -> SweepTask:
    """The task of ``record``; a record without ``encoding`` was written before encodings were
    named, when every run used the orthonormal rotation, and one without ``learning_rate`` or
    ``intrinsic_coefficient`` before they were named, when every run used the defaults
    (``ValueError`` for a value the task refuses)."""
    given = {name: record[name] for name in SweepTask.__dataclass_fields__
             if name in record and name != "encoding"}
    return SweepTask(**given, encoding=encoding_of(record))


def configuration_of(record: dict) -> Configuration:
    """The configuration of a record's run (an old record's: :func:`_task_of`).

    >>> str(configuration_of({"algorithm": "ppo", "variant": "paper", "horizon": 3, "seed": 0,
    ...                       "budget": 5, "out": "x", "learning_rate": 0.01}))
    'lr 0.01, orthonormal encoding'
    """
    return _task_of(record).configuration


def _is_curve(value: object) -> bool:
    """A list of at most :data:`MAX_CURVE_POINTS` ``[episodes >= 0, finite mean return]``
    pairs, the episodes non-decreasing."""
    if not (isinstance(value, list) and len(value) <= MAX_CURVE_POINTS and all(
            isinstance(p, list) and len(p) == 2 and at_least(0).contains(p[0])
            and NumberRange(float).contains(p[1]) for p in value)):
        return False
    return all(a[0] <= b[0] for a, b in pairwise(value))


LOCK_STATE = re.compile(r"s([1-9][0-9]*)([abc])")
"""A latent state of the lock: ``s{h}a``, ``s{h}b`` or ``s{h}c`` (``h`` 1-based)."""


def _is_visits(value: object) -> bool:
    """A mapping from lock states (``s{h}a|b|c``) to counts >= 0."""
    return isinstance(value, dict) and all(
        LOCK_STATE.fullmatch(name) and at_least(0).contains(count)
        for name, count in value.items())


RECORD_FIELDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "algorithm": ("a non-empty string", lambda v: isinstance(v, str) and v != ""),
    "variant": (f"one of {', '.join(LOCK_VARIANTS)}", lambda v: v in LOCK_VARIANTS),
    "horizon": ("an int >= 1", at_least(1).contains),
    "seed": ("an int >= 0", at_least(0).contains),
    "budget": ("an int >= 1", at_least(1).contains),
    "out": ("a string", lambda v: isinstance(v, str)),
    "status": ("'done' or 'failed'", lambda v: v in ("done", "failed")),
}
"""Fields of every record, what each must be and its test."""

OPTIONAL_FIELDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "encoding": (f"one of {', '.join(ENCODINGS)}", lambda v: v in ENCODINGS),
    "learning_rate": ("a finite number > 0", positive().contains),
    "intrinsic_coefficient": ("a finite number >= 0", nonnegative().contains),
}
"""Fields a record may lack (written before they existed: :func:`_task_of` gives their value
then), what each must be when present."""

DONE_FIELDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "value": ("a finite number", NumberRange(float).contains),
    "optimal_value": ("a finite number > 0", positive().contains),
    "episodes": ("an int >= 0", at_least(0).contains),
    "episodes_to_half": ("an int >= 0 or null",
                         lambda v: v is None or at_least(0).contains(v)),
    "seconds": ("a finite number >= 0", nonnegative().contains),
    "training_returns": (f"a list of at most {MAX_CURVE_POINTS} [episodes, mean return] pairs "
                         "(episodes ints >= 0, non-decreasing; returns finite)", _is_curve),
    "state_visits": ("a mapping from lock states s{h}a|b|c to ints >= 0", _is_visits),
}
"""Fields of a finished task's record that the table, the figures, the verdicts and the report
read (``seconds``: the run's own time, over every session of a resumed run)."""

OLD_RECORDS = ("records written before lock variants were of the paper's lock: add "
               "\"variant\": \"paper\" to each of them")


def _record(line: bytes) -> dict[str, Any]:
    """A line of ``records.jsonl`` as a checked record (``ValueError`` saying what is wrong)."""
    record = read_json(line.decode("utf-8"), "the line")  # bounded depth, no repeated keys
    if not isinstance(record, dict):
        raise ValueError(f"a JSON {type(record).__name__}, not an object")
    required = {**RECORD_FIELDS, **(DONE_FIELDS if record.get("status") == "done" else {
        "error": ("a string", lambda v: isinstance(v, str))})}
    for name, (wanted, valid) in required.items():
        if name not in record:
            raise ValueError(f"no field {name!r}" + (f"; {OLD_RECORDS}" if name == "variant"
                                                     else ""))
        if not valid(record[name]):
            shown = short_repr(record[name])
            raise ValueError(f"field {name!r} must be {wanted}, got {shown}")
    for name, (wanted, valid) in OPTIONAL_FIELDS.items():
        if name in record and not valid(record[name]):
            raise ValueError(f"field {name!r} must be {wanted}, got {short_repr(record[name])}")
    if record["status"] == "done":
        beyond = [name for name in record["state_visits"]
                  if int(LOCK_STATE.fullmatch(name)[1]) > record["horizon"]]  # type: ignore[index]
        if beyond:
            raise ValueError(f"field 'state_visits' names {beyond[0]!r}, beyond horizon "
                             f"{record['horizon']}")
    _task_of(record)  # e.g. a coefficient of a run without RND
    return record


def _finished(out: Path) -> dict[str, dict]:
    """Key -> record of the tasks already done in ``out`` (failed ones run again).

    Each record is checked once, here (the table and the figure read its fields): a line that
    is not UTF-8, not JSON, or a record with a missing or mistyped field is an error naming the
    file and the line, and so is ``records.jsonl`` as anything but a regular file (a FIFO
    would block, a symlink could point anywhere). A torn last line (a driver killed while
    writing it) is dropped with a warning naming the file, and its task runs again.
    Of several records of one task the last counts; two finished ones that disagree in
    anything but :data:`NOT_RESULTS` are warned about, naming the task and both lines.
    """
    path = out / RECORDS
    if not present(path):
        return {}
    lines = read_regular_file(path).splitlines()
    records: dict[str, dict] = {}
    finished: dict[str, tuple[int, dict]] = {}  # each task's last finished record, its line
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
        key = _task_of(record).key
        records[key] = record
        if record["status"] == "done":
            if key in finished:
                _warn_if_disagreeing(path, key, finished[key], (number, record))
            finished[key] = (number, record)
    return {key: r for key, r in records.items() if r["status"] == "done"}


NOT_RESULTS = ("seconds", "wall_seconds", *SweepTask.__dataclass_fields__)
"""Fields of a finished record that two runs of one task may differ in and still agree: the
time they took, and the task's own fields (its key, the same by construction; the sweep
directory it ran in; a learning rate only one of them names, as the default)."""


def _warn_if_disagreeing(path: Path, key: str, earlier: tuple[int, dict],
                         later: tuple[int, dict]) -> None:
    """Warn, naming the task, both lines and the fields, if two finished records of one task
    (two sweeps run into one directory, or records files joined) give different results; the
    later one counts."""
    (first, one), (second, other) = earlier, later
    differ = sorted(name for name in one.keys() | other.keys()
                    if name not in NOT_RESULTS and one.get(name, DROPPED) != other.get(name,
                                                                                       DROPPED))
    if differ:
        warnings.warn(f"{path}: lines {first} and {second} are two finished records of task "
                      f"{key} that disagree ({', '.join(differ)}); line {second}, the last, "
                      "counts: remove the other to keep it", stacklevel=3)


DROPPED = object()
"""A field one of two records lacks."""


def finished_records(out: str | Path) -> list[dict]:
    """Every finished task's record in the sweep directory ``out``, whatever command ran it
    (other algorithms, horizons, seeds or budgets; checked as :func:`run_sweep` checks them):
    what :func:`homer.sweep_verdicts.sweep_verdicts` judges.

    >>> finished_records("no-sweep-here")
    []
    """
    return list(_finished(Path(out)).values())


RAY_WORKER_RETRIES = 3
"""Times Ray runs a task again whose worker process died (Ray's default for tasks)."""


def _ray_results(tasks: list[SweepTask], runner: Callable, address: str | None
                 ) -> Generator[dict, None, None]:  # pragma: no mutate block
    """The record of each task, run on Ray, as it completes. A task whose worker process dies
    (killed, or its node lost) is run again by Ray, at most :data:`RAY_WORKER_RETRIES` times,
    and resumes from its run directory's checkpoint; after that its record is a failed one with
    Ray's error, and the other tasks go on."""
    import ray
    from ray.exceptions import RayError

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=DEFAULT_TORCH_THREADS, max_retries=RAY_WORKER_RETRIES,
                        retry_exceptions=False)(_attempt)  # _attempt retries an exception
    pending = {remote.remote(runner, task): task for task in tasks}
    while pending:
        [done], _ = ray.wait(list(pending), num_returns=1)
        task = pending.pop(done)
        try:
            record = ray.get(done)
        except RayError as error:  # e.g. its worker died on every try: failed, the sweep goes on
            record = {**asdict(task), "status": "failed",
                      "error": f"{type(error).__name__}: {error}"}
        yield record


def _die_with(driver: int) -> None:  # pragma: no mutate block
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
              on_record: Callable[[dict], None] = lambda record: None,
              variants: Iterable[str] = ("paper",), encoding: str = "authors",
              learning_rates: Iterable[float] = (DEFAULT_LEARNING_RATE,),
              intrinsic_coefficients: Iterable[float] = (DEFAULT_INTRINSIC_COEFFICIENT,)
              ) -> list[dict]:
    """Run every task (each algorithm, lock variant, horizon and seed, observed through the
    encoder's ``encoding``) not yet finished in ``out``; all records (old and new) in task
    order. A PPO / A2C (+RND) task runs at each of ``learning_rates``, and an RND one at each
    of ``intrinsic_coefficients`` too (every combination); HOMER and PCID, which use neither,
    and PPO / A2C without RND, which do not use the coefficient, run once (:func:`tuned`).

    ``runner`` runs one task (default :func:`run_task`); it returns ``value``,
    ``optimal_value``, ``episodes``, ``episodes_to_half``, ``seconds``, ``training_returns``
    and ``state_visits`` (:data:`DONE_FIELDS`). A record that fails those checks is a failed
    task, so ``records.jsonl`` only ever holds records the next sweep can read.

    >>> run_sweep(["homer"], [3], 1, 10, "out", variants=["paper", "new"])
    Traceback (most recent call last):
    ...
    ValueError: unknown lock variants ['new']; known: paper, released
    """
    algorithms, horizons, variants = list(algorithms), list(horizons), list(variants)
    learning_rates, coefficients = list(learning_rates), list(intrinsic_coefficients)
    for name, values in (("algorithm", algorithms), ("horizon", horizons),
                         ("lock variant", variants), ("learning rate", learning_rates),
                         ("intrinsic coefficient", coefficients)):
        repeated = [value for value, count in Counter(values).items() if count > 1]
        if repeated:
            raise ValueError(f"{name} {repeated[0]!r} given twice: each task runs once")
    unknown = [a for a in algorithms if a not in ALGORITHMS]
    if unknown and runner is run_task:
        raise ValueError(f"unknown algorithms {unknown}; known: {', '.join(ALGORITHMS)}")
    unknown = [v for v in variants if v not in LOCK_VARIANTS]
    if unknown:
        raise ValueError(f"unknown lock variants {unknown}; known: {', '.join(LOCK_VARIANTS)}")
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
    for rate in learning_rates:
        positive().check(rate, "a learning rate")
    for coefficient in coefficients:
        nonnegative().check(coefficient, "an intrinsic coefficient")
    if (seeds < 1 or budget < 1 or not algorithms or not horizons or not variants
            or not learning_rates or not coefficients):
        raise ValueError("need at least one algorithm, lock variant, horizon, seed, learning "
                         "rate and intrinsic coefficient, and a positive budget")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a sweep directory")
    out.mkdir(parents=True, exist_ok=True)
    check_own_path(out / RECORDS)  # appended to: a planted link would get the records
    check_own_path(out / RUNS, directory=True)  # the runs' directories go there
    tasks = [SweepTask(a, v, h, s, budget, str(out), encoding, rate, coefficient)
             for v in variants for a in algorithms
             for rate in (learning_rates if tuned(a)[0] else [DEFAULT_LEARNING_RATE])
             for coefficient in (coefficients if tuned(a)[1] else [DEFAULT_INTRINSIC_COEFFICIENT])
             for h in horizons for s in range(seeds)]
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


def _median_episodes(group: list[dict]) -> float:
    """The median over the finished runs of ``group`` of the episodes to half the optimal
    value, a run that never got there counting as infinite (``fig:horizon-plot``'s metric: the
    median over seeds; finite exactly when more than half of the runs reached)."""
    return statistics.median(math.inf if e is None else e for e in map(_reached, group))


def sweep_table(records: list[dict]) -> str:
    """One line per (lock variant, algorithm, horizon, configuration): successes and the median
    episodes to half value."""
    groups: dict[tuple[str, str, int, Configuration], list[dict]] = {}
    for record in records:
        groups.setdefault((record["variant"], record["algorithm"], record["horizon"],
                           configuration_of(record)), []).append(record)
    lines = [f"{'lock':<8} {'algorithm':<10} {'H':>4} {'runs':>4} {'failed':>6} "
             f"{'reached 1/2':>11} {'median episodes to 1/2':>22} {'budget':>9}  configuration"]
    for (variant, algorithm, horizon, configuration), group in sorted(
            groups.items(), key=lambda item: (*item[0][:3], item[0][3].sort_key())):
        done = [r for r in group if r["status"] == "done"]
        reached = [e for e in map(_reached, done) if e is not None]
        middle = _median_episodes(done) if done else math.inf
        median = "-" if math.isinf(middle) else f"{middle:.0f}"
        lines.append(f"{variant:<8} {algorithm:<10} {horizon:>4} {len(group):>4} "
                     f"{len(group) - len(done):>6} {len(reached):>5} / {len(done):<3} "
                     f"{median:>22} {group[0]['budget']:>9}  {configuration}")
    return "\n".join(lines)


def algorithm_colour(algorithm: str, algorithms: Sequence[str]) -> str:
    """The colour of ``algorithm`` in every figure of the sweep: by its place in
    :data:`ALGORITHMS`, then in ``algorithms`` (the others drawn)."""
    known = [*ALGORITHMS, *sorted(a for a in set(algorithms) if a not in ALGORITHMS)]
    return f"C{known.index(algorithm) % 10}"


def variants_of(records: list[dict]) -> list[str]:
    """The lock variants of ``records``, in the order of :data:`LOCK_VARIANTS`."""
    present = {r["variant"] for r in records}
    return [v for v in LOCK_VARIANTS if v in present]


@dataclass(frozen=True)
class HorizonSeries:
    """One algorithm and configuration of :func:`horizon_figure` on one lock variant."""

    label: str
    """The algorithm, and its configuration when the records hold several of it."""
    colour: str
    style: str
    """The line style: the algorithm's configurations in turn."""
    medians: list[tuple[int, float]]
    """(H, median episodes to half the optimal value) where most runs reached it."""
    missed: list[tuple[float, int]]
    """(H shifted apart from the other series' markers, the most episodes used) elsewhere."""


def horizon_series(records: list[dict], variant: str) -> list[HorizonSeries]:
    """What :func:`horizon_figure` draws on the panel of ``variant``: a series per algorithm and
    configuration of ``records`` (sorted), each median over the finished runs of a horizon
    (:func:`_median_episodes`) or, where most never got there, a marker at the episodes they
    used (PPO / A2C's budget, HOMER and PCID's own schedules)."""
    algorithms = sorted({r["algorithm"] for r in records})
    series = sorted({(r["algorithm"], configuration_of(r)) for r in records},
                    key=lambda pair: (pair[0], pair[1].sort_key()))
    drawn = []
    for index, (algorithm, configuration) in enumerate(series):
        several = [c for a, c in series if a == algorithm]
        shift = 0.08 * (index - (len(series) - 1) / 2)  # markers at the budget apart
        mine = [r for r in records if r["algorithm"] == algorithm
                and configuration_of(r) == configuration
                and r["variant"] == variant and r["status"] == "done"]
        medians, missed = [], []
        for horizon in sorted({r["horizon"] for r in mine}):
            group = [r for r in mine if r["horizon"] == horizon]
            median = _median_episodes(group)
            if not math.isinf(median):
                medians.append((horizon, median))
            else:
                missed.append((horizon * (1 + shift / 10), max(r["episodes"] for r in group)))
        drawn.append(HorizonSeries(
            algorithm if len(several) == 1 else f"{algorithm} ({configuration})",
            algorithm_colour(algorithm, algorithms),
            ("-", "--", ":", "-.")[several.index(configuration) % 4], medians, missed))
    return drawn


def horizon_figure(records: list[dict]) -> Figure:  # pragma: no mutate block
    """Figure ``fig:horizon-plot``: median episodes to reach half the optimal value against the
    horizon (log scale), one line per algorithm and configuration (:func:`horizon_series`) and
    one panel per lock variant; where most runs never got there, an ``x`` at the episodes they
    used. (Drawing only, left out of mutation testing like :mod:`homer.sweep_figures`: what it
    draws is :func:`horizon_series`'.)"""
    variants = variants_of(records) or ["paper"]
    figure = new_figure(figsize=(6 * len(variants), 4))
    for column, variant in enumerate(variants, start=1):
        axes = figure.add_subplot(1, len(variants), column)
        for series in horizon_series(records, variant):
            if series.medians:
                axes.plot(*zip(*series.medians, strict=True), marker="o", color=series.colour,
                          linestyle=series.style, label=series.label)
            if series.missed:
                axes.scatter(*zip(*series.missed, strict=True), marker="x",
                             color=series.colour,
                             label=None if series.medians else series.label)
        axes.set_yscale("log")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("horizon H")
        axes.set_ylabel("episodes to reach half the optimal value")
        axes.set_title(f"{variant} lock, K = {LOCK_ACTIONS} (x: not reached, at the episodes used)",
                       fontsize=9)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=8)
    return figure
