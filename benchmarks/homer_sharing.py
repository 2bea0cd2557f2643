"""HOMER sharing the machine: one torch thread per run keeps a run's time next to a busy core.

1. One HOMER run (``python -m homer run --env combolock --horizon H --actions 10``) alone, then
   next to one busy process (a Python loop spinning on one core), with one torch thread (the
   default, ``homer/process_state.py``) and with as many threads as cores (torch's own default).
   Target: with one thread, busy / alone <= 1.2.
2. The sweep's throughput with 1 and 2 local workers (``python -m homer sweep --executor local
   --algorithms homer``): tasks per minute, and the ratio.

Wall-clock seconds of whole processes (start to exit), each measured in this run on this
machine; written, dated, into this script's section of a Markdown page (``results_page.py``;
default ``benchmarks/results/homer_sharing.md``, whose notes around the section are kept).
Usage: ``python benchmarks/homer_sharing.py [--horizon 5] [--sweep-horizons 3,4]
[--sweep-seeds 2] [--note TEXT] [--results FILE]``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

RESULTS = Path(__file__).parent / "results" / "homer_sharing.md"
BUSY = "while True:\n    pass\n"


def timed_run(command: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    return time.perf_counter() - start


def homer_seconds(horizon: int, threads: int, busy: bool, scratch: Path) -> float:
    out = scratch / f"H{horizon}-threads{threads}-{'busy' if busy else 'alone'}"
    command = [sys.executable, "-m", "homer", "run", "--env", "combolock", "--horizon",
               str(horizon), "--actions", "10", "--seed", "0", "--out", str(out), "--json",
               "--torch-threads", str(threads)]
    spinner = subprocess.Popen([sys.executable, "-c", BUSY]) if busy else None
    try:
        return timed_run(command)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def sweep_seconds(workers: int, horizons: str, seeds: int, scratch: Path) -> float:
    out = scratch / f"sweep-workers{workers}"
    return timed_run([sys.executable, "-m", "homer", "sweep", "--executor", "local",
                      "--algorithms", "homer", "--horizons", horizons, "--seeds", str(seeds),
                      "--workers", str(workers), "--out", str(out)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=5)
    parser.add_argument("--sweep-horizons", default="3,4")
    parser.add_argument("--sweep-seeds", type=int, default=2)
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/homer_sharing.py",
                            "HOMER sharing the machine")
    cores = os.cpu_count() or 1
    started = datetime.now(UTC)
    print(f"machine: {machine(('numpy', 'torch'))}")
    threads_rows, sweep_rows = [], []
    scratch = Path(tempfile.mkdtemp(prefix="homer-sharing-"))
    try:
        print(f"\nHOMER H={args.horizon} K=10 seed 0: seconds alone, next to one busy process")
        print(f"{'torch threads':>13} {'alone':>8} {'busy':>8} {'busy/alone':>10}")
        for threads in sorted({1, cores}):
            alone = homer_seconds(args.horizon, threads, False, scratch)
            busy = homer_seconds(args.horizon, threads, True, scratch)
            print(f"{threads:>13} {alone:>8.1f} {busy:>8.1f} {busy / alone:>10.2f}", flush=True)
            threads_rows.append(f"| {threads} | {alone:.1f} s | {busy:.1f} s | "
                                f"{busy / alone:.2f} |")
        tasks = len(args.sweep_horizons.split(",")) * args.sweep_seeds
        print(f"\nsweep of HOMER, horizons {args.sweep_horizons} x {args.sweep_seeds} seeds "
              f"({tasks} tasks), local executor")
        print(f"{'workers':>7} {'seconds':>8} {'tasks/min':>9} {'speed-up':>8}")
        baseline = None
        for workers in sorted({1, min(2, cores), cores}):
            seconds = sweep_seconds(workers, args.sweep_horizons, args.sweep_seeds, scratch)
            baseline = baseline or seconds
            print(f"{workers:>7} {seconds:>8.1f} {60 * tasks / seconds:>9.2f} "
                  f"{baseline / seconds:>8.2f}", flush=True)
            sweep_rows.append(f"| {workers} | {seconds:.1f} s | {60 * tasks / seconds:.2f} | "
                              f"{baseline / seconds:.2f}x |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    page.write([
        f"`python benchmarks/homer_sharing.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}. An H = {args.horizon}, "
        "K = 10 run, wall-clock of the whole process; \"busy\": next to one process spinning "
        f"on one core. Also running: {args.note}.",
        "",
        "| torch threads | alone | next to one busy process | ratio |",
        "|---|---|---|---|",
        *threads_rows,
        "",
        f"The sweep's local executor, one HOMER run per worker: horizons {args.sweep_horizons} "
        f"x {args.sweep_seeds} seeds ({tasks} tasks).",
        "",
        "| workers | seconds | tasks per minute | speed-up |",
        "|---|---|---|---|",
        *sweep_rows,
    ])
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()
