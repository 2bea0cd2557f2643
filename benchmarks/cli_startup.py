"""How fast the command lines answer ``--help`` and an argument error: wall-clock of each
subcommand's ``--help`` and of one argument error per subcommand of ``python -m homer``,
``python -m kinematic``, ``python -m proofs_checks`` and the ``kinematic`` console script,
each a fresh process, beside ``python -c pass``, ``python -c "import kinematic"`` (what every
command line loads first) and ``python -c "import torch"`` measured in the same run.

Each command runs once unrecorded (so its bytecode is compiled and its files are in the page
cache: a warm install), then ``--repeats`` times; the page gets the median and the maximum and
whether the median is under one second. Writes its section of ``results/cli_startup.md``.

    python benchmarks/cli_startup.py --note "nothing else"
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "cli_startup.md"
TARGET = 1.0
"""Seconds within which ``--help`` and an argument error should answer."""

PYTHON = "python"
"""How a command line shows the interpreter on the page."""
SCRIPT = Path(sys.executable).parent / "kinematic"
"""The ``kinematic`` console script of this interpreter's environment."""

BASELINES: list[list[str]] = [["-c", "pass"], ["-c", "import kinematic"],
                              ["-c", "import torch"]]
COMMANDS: dict[str, list[list[str]]] = {
    "homer": [["--help"],
              ["run", "--help"], ["run", "--hidden", "-3"],
              ["compare", "--help"], ["compare", "run", "--samples", "0"],
              ["evaluate", "--help"], ["evaluate", "--samples", "0"],
              ["sweep", "--help"], ["sweep", "--seeds", "0", "--out", "s"],
              ["counterexamples", "--help"], ["counterexamples", "--transitions", "0"]],
    "kinematic": [["--help"],
                  ["analyze", "--help"], ["analyze", "spec.json", "--atol", "-1"],
                  ["family", "--help"], ["family", "nothing"],
                  ["counterexamples", "--help"], ["counterexamples", "--csv"],
                  ["find-counterexample", "--help"],
                  ["find-counterexample", "--objective", "pcid_target", "--threshold", "2"]],
    "proofs_checks": [["--help"], ["--examples", "0"],
                      ["sample-sizes", "--help"], ["sample-sizes", "--horizon", "0"]],
}
"""Per program: ``--help``, and each subcommand's ``--help`` and one argument error (a value
out of range or not among the choices, or an unknown flag)."""


def seconds(argv: list[str], status: int, repeats: int) -> list[float]:
    """Wall-clock of ``repeats`` runs of ``argv`` after one unrecorded run; exits naming the
    command if one ends with another status than ``status``."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    times = []
    for run in range(repeats + 1):
        start = time.perf_counter()
        finished = subprocess.run(argv, env=environment, cwd=ROOT, capture_output=True,
                                  check=False)
        elapsed = time.perf_counter() - start
        if finished.returncode != status:
            sys.exit(f"{shlex.join(argv)}: exit status {finished.returncode}, expected "
                     f"{status}: {finished.stderr.decode().strip()[-300:]}")
        if run:
            times.append(elapsed)
    return times


def measured(argv: list[str], shown: str, status: int, repeats: int) -> str:
    """One table row: the command as shown, median, maximum, under :data:`TARGET`."""
    times = seconds(argv, status, repeats)
    median, most = statistics.median(times), max(times)
    under = "yes" if median < TARGET else "NO"
    print(f"{median:6.2f} {most:6.2f} {under:>3}  {shown}", flush=True)
    return f"| `{shown}` | {median:.2f} s | {most:.2f} s | {under} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed runs of each command")
    parser.add_argument("--only", choices=sorted(COMMANDS), action="append", default=None,
                        help="measure these programs only (repeatable; default: all, and the "
                             "console script)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/cli_startup.py",
                            "Command-line start-up")
    started, load = datetime.now(UTC), os.getloadavg()[0]
    print(f"machine: {machine(('numpy', 'torch'))}; load {load:.2f}")
    print(f"{'median':>6} {'max':>6} <1s  command")
    rows = [measured([sys.executable, *argv], shlex.join([PYTHON, *argv]), 0, args.repeats)
            for argv in BASELINES]
    for program in args.only or sorted(COMMANDS):
        for argv in COMMANDS[program]:
            rows.append(measured([sys.executable, "-m", program, *argv],
                                 shlex.join([PYTHON, "-m", program, *argv]),
                                 0 if "--help" in argv else 2, args.repeats))
    if args.only is None and SCRIPT.is_file():
        for argv in (["--help"], ["analyze", "spec.json", "--atol", "-1"]):
            rows.append(measured([str(SCRIPT), *argv], shlex.join(["kinematic", *argv]),
                                 0 if "--help" in argv else 2, args.repeats))
    page.write([
        f"`python benchmarks/cli_startup.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}; load average "
        f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end. Wall-clock of a fresh "
        f"process; timed runs of each: {args.repeats}, after one unrecorded run (warm install); "
        f"\"under 1 s\" judges the median. Also running: {args.note}.",
        "",
        "| command | median | max | under 1 s |",
        "|---|---|---|---|",
        *rows,
    ])
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()
