"""The sweep on Ray when the worker process running a task dies (SIGKILL). On a cluster of two
nodes started with ``ray start`` (a head and a worker node, one CPU each, on this machine), a
worker killed midway: Ray runs the task again, it resumes from its run directory's checkpoint,
every task has exactly one record, and no process of the cluster is left once it is stopped. On
a local Ray instance, a task whose worker dies on every try: it is recorded as failed with
Ray's error, and the other tasks are done."""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from homer.baselines.batched_checkpoint import CHECKPOINT
from homer.sweep import RAY_WORKER_RETRIES, RECORDS, RUNS, SweepTask, run_sweep, run_task

# a dev dependency: skipped only where it is not installed (a broken install fails)
ray = pytest.importorskip("ray", exc_type=ModuleNotFoundError)

ROOT = Path(__file__).parents[2]
ATTEMPTS = "attempts.jsonl"
BUDGET = 100_000
"""Episodes of each PPO task on the released H = 3 lock: PPO never reaches half of V* there
(0 of 3 seeds within 200,000 episodes on either encoding, as the authors' agent:
benchmarks/results/beside_authors.md), so a task runs its whole budget, for seconds, and
checkpoints every 10,000 episodes. (On the paper's lock it stops at half of V* near 10,000
episodes, before a worker could be killed midway.)"""


def checkpoint_episodes(run_dir: Path) -> int:
    """The episodes of the checkpoint in ``run_dir`` (0 without one)."""
    if not (run_dir / CHECKPOINT).exists():
        return 0
    with np.load(run_dir / CHECKPOINT, allow_pickle=False) as archive:
        return int(json.loads(archive["metadata"].tobytes())["episodes"])


def marking_runner(task: SweepTask) -> dict:
    """Notes each attempt (its process and the episodes of the checkpoint it starts from) in the
    sweep directory, then runs the task."""
    start = checkpoint_episodes(Path(task.out) / RUNS / task.key)
    with (Path(task.out) / ATTEMPTS).open("a") as attempts:
        attempts.write(json.dumps({"key": task.key, "pid": os.getpid(), "start": start}) + "\n")
    return run_task(task)


DRIVER = """
import sys
from homer.sweep import run_sweep
from tests.homer.test_sweep_faults import BUDGET, marking_runner
run_sweep(["ppo"], [3], 2, BUDGET, sys.argv[1], executor="ray", address=sys.argv[2],
          runner=marking_runner, variants=["released"])
"""


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free on the loopback interface now."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for one in sockets:
            one.bind(("127.0.0.1", 0))
        return [one.getsockname()[1] for one in sockets]
    finally:
        for one in sockets:
            one.close()


def _state(pid: int) -> str | None:
    """The state letter of process ``pid`` (None once it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _session(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
    except (FileNotFoundError, ProcessLookupError):
        return None


class RayCluster:
    """A head node and a worker node started by ``ray start`` in sessions of their own, so every
    process of the cluster (GCS, raylets, agents, workers) is found by its session id and
    stopped by its pid: ``ray stop`` would stop every Ray process of the machine, another
    test's too."""

    def __init__(self, temp_dir: Path) -> None:
        self.temp_dir = temp_dir
        self.sessions: list[int] = []
        # The nodes and the driver share a token of their own: Ray's default depends on
        # whether ~/.ray/auth_token exists (a local ray.init writes one), and a head and a
        # worker node that decide differently cannot talk
        self.environment = {
            **{name: value for name, value in os.environ.items()
               if name != "RAY_AUTH_TOKEN_PATH"},
            "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
            "RAY_USAGE_STATS_ENABLED": "0",
            "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get(
                "PYTHONPATH")])])}
        self.address = ""

    def _start(self, arguments: list[str]) -> None:
        ports = free_ports(7)
        command = [sys.executable, "-m", "ray.scripts.scripts", "start", "--num-cpus", "1",
                   "--object-store-memory", str(100 * 2**20), "--temp-dir", str(self.temp_dir),
                   "--disable-usage-stats", "--min-worker-port", "0", "--max-worker-port", "0",
                   "--node-manager-port", str(ports[0]), "--object-manager-port", str(ports[1]),
                   "--dashboard-agent-listen-port", str(ports[2]),
                   "--dashboard-agent-grpc-port", str(ports[3]),
                   "--runtime-env-agent-port", str(ports[4]),
                   "--metrics-export-port", str(ports[5]), *arguments]
        starter = subprocess.Popen(command, env=self.environment, start_new_session=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.sessions.append(starter.pid)
        output, _ = starter.communicate(timeout=120)
        assert starter.returncode == 0, output

    def start(self) -> None:
        # Each node on a loopback address of its own, as two machines would be: ray start
        # replaces 127.0.0.1 (and "localhost") with the machine's outward address
        port = free_ports(1)[0]
        self.address = f"127.0.0.2:{port}"
        self._start(["--head", "--node-ip-address", "127.0.0.2", "--port", str(port),
                     "--include-dashboard", "false", "--dashboard-port", str(free_ports(1)[0])])
        self._start(["--address", self.address, "--node-ip-address", "127.0.0.3"])

    def processes(self) -> list[int]:
        """The live processes of the cluster: in its sessions, or naming its temporary directory
        on their command line (a zombie, dead but not yet reaped by its parent, is not live)."""
        pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
        return [pid for pid in pids if _state(pid) not in (None, "Z") and (
            _session(pid) in self.sessions or str(self.temp_dir) in _command(pid))]

    def stop(self) -> None:
        """Stop the cluster as ``ray stop`` would, by pid: SIGTERM to the raylets, then to the
        other processes but the GCS, then to the GCS; SIGKILL to those of a group still there
        5 s later, and to anything left at the end."""
        def order(pid: int) -> int:
            name = _name(pid)
            return 0 if name == "raylet" else 2 if name == "gcs_server" else 1

        for group in range(3):
            for sent, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                for pid in self.processes():
                    if order(pid) == group:
                        os.kill(pid, sent)
                deadline = time.monotonic() + grace
                while any(order(pid) == group for pid in self.processes()) and (
                        time.monotonic() < deadline):
                    time.sleep(0.5)
        for pid in self.processes():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def ray_cluster() -> Iterator[RayCluster]:
    # under /tmp, not pytest's longer tmp_path: Ray's socket paths must stay within 107 bytes
    cluster = RayCluster(Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp")))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.temp_dir, ignore_errors=True)


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / RECORDS).read_text().splitlines()]


def _attempts(out: Path) -> list[dict]:
    path = out / ATTEMPTS
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_a_killed_ray_worker_resumes_its_task_and_its_record_is_written_once(ray_cluster,
                                                                              tmp_path):
    out = tmp_path / "sweep"
    killed = SweepTask(algorithm="ppo", variant="released", horizon=3, seed=0, budget=BUDGET,
                       out=str(out)).key
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(out), ray_cluster.address],
                              cwd=ROOT, env=ray_cluster.environment,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        while checkpoint_episodes(out / RUNS / killed) == 0:
            assert driver.poll() is None, driver.communicate()[0]
            assert time.monotonic() < deadline, "no checkpoint of the task within 180 s"
            time.sleep(0.05)
        [first] = [a for a in _attempts(out) if a["key"] == killed]
        worker = first["pid"]
        assert _session(worker) in ray_cluster.sessions  # a process of this cluster's
        assert Path(f"/proc/{worker}/comm").read_text().startswith("ray::")
        at_kill = checkpoint_episodes(out / RUNS / killed)
        os.kill(worker, signal.SIGKILL)
        output, _ = driver.communicate(timeout=180)  # the driver does not hang
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, output
    assert 0 < at_kill < BUDGET  # killed midway
    retries = [a for a in _attempts(out) if a["key"] == killed][1:]
    assert len(retries) == 1 and retries[0]["pid"] != worker
    assert retries[0]["start"] >= at_kill  # resumed from the checkpoint
    records = _records(out)
    tasks = Counter((r["algorithm"], r["variant"], r["horizon"], r["seed"]) for r in records)
    assert tasks == {("ppo", "released", 3, 0): 1, ("ppo", "released", 3, 1): 1}
    assert all(r["status"] == "done" for r in records)
    [record] = [r for r in records if r["seed"] == 0]
    assert record["episodes"] > retries[0]["start"]  # trained on after the resumption
    ray_cluster.stop()
    assert ray_cluster.processes() == []


MOST_DEATHS = 10
"""Deaths of :func:`dying_runner`'s worker on one task before it lets the task run (a sweep
that retried without end would record it done)."""


def dying_runner(task: SweepTask) -> dict:
    """Kills its own worker process (SIGKILL) on the H = 4 task (at most :data:`MOST_DEATHS`
    times), noting each try in the sweep directory; a fake run of any other task."""
    with (Path(task.out) / ATTEMPTS).open("a") as attempts:
        attempts.write(json.dumps({"key": task.key, "pid": os.getpid()}) + "\n")
    if task.horizon == 4 and len([a for a in _attempts(Path(task.out))
                                  if a["key"] == task.key]) <= MOST_DEATHS:
        os.kill(os.getpid(), signal.SIGKILL)
    return {"value": 1.0, "optimal_value": 1.0, "episodes": 10, "episodes_to_half": 10,
            "seconds": 0.0, "training_returns": [[10, 1.0]], "state_visits": {"s1a": 10}}


@pytest.fixture
def local_ray() -> Iterator[None]:
    # "local": a new instance, whatever cluster RAY_ADDRESS or `ray start` left to connect to;
    # on a loopback address (Ray takes 127.0.0.1 for the machine's outward address)
    ray.init(address="local", _node_ip_address="127.0.0.2", num_cpus=1,
             include_dashboard=False, log_to_driver=False, object_store_memory=100 * 2**20)
    try:
        yield
    finally:
        ray.shutdown()


def test_a_task_whose_worker_dies_on_every_try_is_recorded_failed(local_ray, tmp_path):
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    records = run_sweep(["a"], [3, 4], 1, 5, tmp_path, executor="ray", runner=dying_runner)
    tries = Counter(a["key"] for a in _attempts(tmp_path))
    assert sorted(tries.values()) == [1, 1 + RAY_WORKER_RETRIES]
    assert [(r["horizon"], r["status"]) for r in records] == [(3, "done"), (4, "failed")]
    assert records[1]["error"].startswith("WorkerCrashedError: ")
    assert [(r["horizon"], r["status"]) for r in _records(tmp_path)] in (
        [(3, "done"), (4, "failed")], [(4, "failed"), (3, "done")])  # each task once
