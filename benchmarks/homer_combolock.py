"""HOMER on the diabolical combination lock: value, episodes, time and memory per run.

For each horizon H and seed, runs ``python -m homer run --env combolock --horizon H --actions 10
--seed S --json`` in a subprocess and prints: the value of the learned policy (estimated by
rollouts; optimal 1), whether it reaches half the optimal value (the metric of Figure
``fig:horizon-plot``; HOMER's policy exists only at the end of a run, so the episodes to reach
it are the run's total), total episodes, wall-clock, CPU seconds (user + system of the run's
process, from ``wait4``: unlike wall-clock, robust to other processes loading the machine) and
peak memory (max RSS of the run).

``--setting LABEL=FLAGS`` (repeatable) runs every horizon and seed once per setting, with
``FLAGS`` appended to ``python -m homer run`` (e.g. ``--setting "batch128=--batch-size 128"``;
without it one setting, ``default``, with no flags); the runs of a setting go in
``OUT/LABEL``, and the page gets a summary per setting and horizon besides the table of runs
(the trade-off table of ``benchmarks/results/homer_speed.md``).

With ``--compare`` each finished run is also compared with the exact answers
(``python -m homer compare``, not part of the timing): the steps whose phi_B, phi_F and phi-bar
merge states of distinct backward-KI, forward-KI and KI classes (of H - 1 steps with a learned
abstraction of each kind), and the minimum alpha of the learned cover.

Runs go in parallel, ``--jobs`` at a time (default: one per core; each run uses one torch
thread, so per-run seconds stay those of a run alone, within the 1.2x measured by
``benchmarks/homer_sharing.py``).

Writes a dated Markdown table with the command, the machine and what else ran (``--note``) into
this script's section of a Markdown page (``results_page.py``; default
``benchmarks/results/homer_combolock.md``, whose notes around the section are kept).

Usage: ``python benchmarks/homer_combolock.py [--horizons 5,10,20,50,100] [--seeds 0,1,2,3,4]
[--setting LABEL=FLAGS ...] [--out DIR] [--compare] [--jobs N] [--note TEXT] [--results FILE]``.
Runs are resumable: an existing run directory is resumed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

RESULTS = Path(__file__).parent / "results" / "homer_combolock.md"


@dataclass(frozen=True)
class Setting:
    """A configuration of the runs: its label and the flags it adds to ``python -m homer
    run``."""

    label: str
    flags: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Setting:
        """``LABEL=FLAGS`` as given to ``--setting``.

        >>> Setting.parse("fast=--batch-size 128 --torch-threads 2")
        Setting(label='fast', flags=('--batch-size', '128', '--torch-threads', '2'))
        """
        label, sign, flags = text.partition("=")
        if not sign or not label or "/" in label:
            raise argparse.ArgumentTypeError(f"a setting is LABEL=FLAGS (a label without "
                                             f"'/'), got {text!r}")
        return cls(label, tuple(shlex.split(flags)))


DEFAULT_SETTING = Setting("default", ())


def run(horizon: int, seed: int, out: Path, flags: tuple[str, ...] = ()) -> dict:
    run_dir = out / f"H{horizon}-seed{seed}"
    command = [sys.executable, "-m", "homer", "run", "--env", "combolock", "--horizon",
               str(horizon), "--actions", "10", "--seed", str(seed), "--out", str(run_dir),
               "--json", *flags]
    if (run_dir / "config.json").exists():
        command.append("--resume")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    _, status, usage = os.wait4(process.pid, 0)
    stdout, stderr = process.stdout.read(), process.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"H={horizon} seed={seed} failed:\n{stderr}")
    summary = json.loads(stdout.strip().splitlines()[-1])
    summary["peak_mib"] = usage.ru_maxrss / 1024
    summary["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return summary


def compare(run_dir: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "homer", "compare", run_dir, "--json"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"compare {run_dir} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def markdown_row(summary: dict, report: dict | None) -> str:
    """One run as a row of the results table (``report``: its ``homer compare --json``)."""
    cells = [summary["setting"], str(summary["horizon"]), str(summary["seed"]),
             f"{summary['value']:.3f}", f"{summary['episodes']:,}", f"{summary['seconds']:.0f} s",
             f"{summary['cpu_seconds']:.0f} s", f"{summary['peak_mib']:.0f} MiB"]
    if report is not None:
        steps = len(report["steps"])
        merges = report["steps_with_wrong_merges_by_abstraction"]
        cells += [f"{merges['backward']} / {steps - 1}", f"{merges['forward']} / {steps - 1}",
                  f"{merges['ki']} / {steps}", f"{report['alpha_min']:.3f}"]
    return "| " + " | ".join(cells) + " |"


def summary_rows(runs: list[tuple[Setting, dict, dict | None]]) -> list[str]:
    """Per setting and horizon (in the order of ``runs``): the runs, the most episodes, the
    median wall-clock and CPU seconds, the most steps with wrong merges of each abstraction and
    the least alpha (the last two when compared)."""
    groups: dict[tuple[Setting, int], list[tuple[dict, dict | None]]] = {}
    for setting, summary, report in runs:
        groups.setdefault((setting, summary["horizon"]), []).append((summary, report))
    rows = []
    for (setting, horizon), members in groups.items():
        summaries = [summary for summary, _ in members]
        cells = [setting.label, f"`{shlex.join(setting.flags)}`" if setting.flags else "-",
                 str(horizon), str(len(members)),
                 f"{max(s['episodes'] for s in summaries):,}",
                 f"{statistics.median(s['seconds'] for s in summaries):.0f} s",
                 f"{statistics.median(s['cpu_seconds'] for s in summaries):.0f} s",
                 f"{min(s['value'] for s in summaries):.3f}"]
        reports = [report for _, report in members if report is not None]
        if reports:
            cells += [str(max(r["steps_with_wrong_merges_by_abstraction"][kind]
                              for r in reports)) for kind in ("backward", "forward", "ki")]
            cells.append(f"{min(r['alpha_min'] for r in reports):.3f}")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def write_results(page: ResultsPage, command: str, started: datetime, note: str, jobs: int,
                  runs: list[tuple[Setting, dict, dict | None]], compared: bool) -> None:
    """Writes the dated section of ``page``: command, machine, the summary per setting and
    horizon, the table of runs."""
    summary_columns = ["setting", "flags", "H", "runs", "most episodes", "median wall-clock",
                       "median CPU", "least value"]
    if compared:
        summary_columns += ["most phi_B merge steps", "most phi_F merge steps",
                            "most phi-bar merge steps", "least alpha"]
    columns = ["setting", "H", "seed", "value (optimal 1)", "episodes", "wall-clock", "CPU",
               "peak RSS"]
    if compared:
        columns += ["phi_B merge steps", "phi_F merge steps", "phi-bar merge steps",
                    "min alpha"]
    text = [
        f"`{command}`, {started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}. K = 10; "
        f"runs {jobs} at a time, one torch thread each unless a setting says otherwise. Also "
        f"running: {note}.",
        "",
        "CPU is the user + system seconds of the run's process (robust to other processes "
        "loading the machine, unlike wall-clock).",
        "",
        "| " + " | ".join(summary_columns) + " |",
        "|" + "---|" * len(summary_columns),
        *summary_rows(runs),
        "",
        "HOMER's policy exists only at the end of a run, so \"episodes to reach half the "
        "optimal value\" (the metric of `fig:horizon-plot`) is the run's total."
        + (" The last four columns come from `python -m homer compare`: the steps at which "
           "phi_B, phi_F and phi-bar = (phi_F, phi_B) merge states of distinct backward-KI, "
           "forward-KI and KI classes, and the cover's minimum alpha." if compared else ""),
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *(markdown_row({**summary, "setting": setting.label}, report)
          for setting, summary, report in runs),
    ]
    page.write(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizons", default="5,10,20,50,100")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--setting", type=Setting.parse, action="append", dest="settings",
                        metavar="LABEL=FLAGS",
                        help="a configuration: FLAGS added to 'python -m homer run' "
                             "(repeatable; default: one setting, 'default', without flags)")
    parser.add_argument("--out", type=Path, default=Path("out/homer-benchmark"))
    parser.add_argument("--compare", action="store_true",
                        help="also compare each run with the exact answers")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="runs at a time (default: one per core)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    settings: list[Setting] = args.settings or [DEFAULT_SETTING]
    if len({setting.label for setting in settings}) < len(settings):
        parser.error("--setting: two settings share a label")
    page = ResultsPage.read(args.results, "benchmarks/homer_combolock.py",
                            "HOMER on the diabolical combination lock")
    command = "python benchmarks/homer_combolock.py " + shlex.join(sys.argv[1:])
    started_at = datetime.now(UTC)
    print(f"machine: {machine(('numpy', 'torch'))}")
    header = f"{'setting':>12} {'H':>4} {'seed':>4} {'value':>6} {'>=1/2':>5} {'episodes':>9} " \
             f"{'seconds':>8} {'CPU s':>8} {'peak MiB':>9}" \
        + (f" {'phi_B':>5} {'phi_F':>5} {'phi-bar':>7} {'alpha min':>9}" if args.compare else "")
    print(header, flush=True)
    rows: dict[tuple[str, int], list[dict]] = {}
    table: list[tuple[Setting, dict, dict | None]] = []

    def one(setting: Setting, horizon: int, seed: int
            ) -> tuple[str, tuple[Setting, dict, dict | None]]:
        out = args.out if args.settings is None else args.out / setting.label
        summary = {**run(horizon, seed, out, setting.flags), "horizon": horizon, "seed": seed}
        rows.setdefault((setting.label, horizon), []).append(summary)
        line = (f"{setting.label:>12} {horizon:>4} {seed:>4} {summary['value']:>6.3f} "
                f"{'yes' if summary['value'] >= 0.5 else 'no':>5} {summary['episodes']:>9} "
                f"{summary['seconds']:>8.1f} {summary['cpu_seconds']:>8.1f} "
                f"{summary['peak_mib']:>9.0f}")
        report = compare(summary["run_dir"]) if args.compare else None
        if report is not None:
            merges = report["steps_with_wrong_merges_by_abstraction"]
            line += (f" {merges['backward']:>5} {merges['forward']:>5} {merges['ki']:>7}"
                     f" {report['alpha_min']:>9.3f}")
        return line, (setting, summary, report)

    started = time.perf_counter()
    runs = [(setting, int(h), int(s)) for setting in settings for h in args.horizons.split(",")
            for s in args.seeds.split(",")]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # each run is its own process
        for line, row in pool.map(lambda task: one(*task), runs):
            print(line, flush=True)
            table.append(row)
    print(f"\n{len(runs)} runs in {time.perf_counter() - started:.0f} s of wall-clock with "
          f"{args.jobs} at a time (one torch thread each)")
    write_results(page, command, started_at, args.note, args.jobs, table, args.compare)
    print(f"written: {args.results}")
    print("\nper setting and horizon: successes, median episodes, median seconds, median CPU")
    for (label, horizon), summaries in rows.items():
        successes = sum(s["value"] >= 0.5 for s in summaries)
        print(f"{label} H={horizon:>3}: {successes}/{len(summaries)}, "
              f"{statistics.median(s['episodes'] for s in summaries):.0f} episodes, "
              f"{statistics.median(s['seconds'] for s in summaries):.0f} s, "
              f"{statistics.median(s['cpu_seconds'] for s in summaries):.0f} s CPU")


if __name__ == "__main__":
    main()
