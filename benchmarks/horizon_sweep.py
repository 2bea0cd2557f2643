"""The horizon sweep of Figure ``fig:horizon-plot`` at a budget that fits a 2-core machine.

Runs ``homer.sweep.run_sweep`` for HOMER, PPO, PPO+RND, A2C, A2C+RND and PCID on the
combination lock (K = 10) and prints the table (successes = runs whose exact value reached half
the optimal value within the budget; median episodes to get there) next to the paper's claims,
and writes the horizon plot. Defaults: H in {3, 6, 12}, one seed, 5,000 episodes per PPO / A2C
run, a local process pool of one worker (about an hour here; the paper's budget is 10^7 episodes:
``python -m homer sweep --address auto`` runs it on a Ray cluster). Finished tasks are kept in
``--out``, so a rerun (for instance with more seeds) only runs what is missing. Writes the
command, the machine, what else ran (``--note``), every run and the table, dated, into this
script's section of a Markdown page (``results_page.py``; default
``benchmarks/results/horizon_sweep.md``, whose notes around the section are kept).

Usage: ``python benchmarks/horizon_sweep.py [--horizons 3,6,12] [--seeds 1] [--budget 5000]
[--out DIR] [--executor local|ray] [--workers 1] [--note TEXT] [--results FILE]``
"""

from __future__ import annotations

import argparse
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from homer.plots import save_figure
from homer.sweep import ALGORITHMS, horizon_figure, run_sweep, sweep_table

RESULTS = Path(__file__).parent / "results" / "horizon_sweep.md"

PAPER = """paper (10^7 episodes): PPO and A2C fail for H > 3; PPO+RND and A2C+RND solve H <= 25;
PCID fails at every H (it cannot separate s_{h,a} from s_{h,b}); HOMER solves every H up to 100."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--horizons", default="3,6,12")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--budget", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=Path("out/horizon-sweep"))
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/horizon_sweep.py",
                            "The horizon sweep at a budget for a 2-core machine")
    started = datetime.now(UTC)
    print(f"machine: {machine(('numpy', 'torch'))}; budget {args.budget} episodes per PPO/A2C "
          f"run", flush=True)
    lines: list[str] = []

    def report(record: dict) -> None:
        outcome = (f"value {record['value']:.3f}, {record['episodes']} episodes, "
                   f"{record['seconds']:.0f} s" if record["status"] == "done"
                   else "FAILED: " + record["error"].strip().splitlines()[-1])
        lines.append(f"{record['algorithm']} H={record['horizon']} seed={record['seed']}: "
                     f"{outcome}")
        print("  " + lines[-1], flush=True)

    records = run_sweep(args.algorithms.split(","), [int(h) for h in args.horizons.split(",")],
                        args.seeds, args.budget, args.out, args.executor,
                        workers=args.workers, on_record=report)
    table = sweep_table(records)
    print(table)
    print(PAPER)
    print("plot:", save_figure(horizon_figure(records), args.out / "horizon")[0])
    page.write([
        f"`python benchmarks/horizon_sweep.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}; {args.budget} episodes "
        f"per PPO / A2C run, {args.workers} worker(s). Also running: {args.note}.",
        "",
        "Runs finished in this invocation (exact values; \"reached 1/2\": the exact value "
        "reached half of V* = 1 at an evaluation):",
        "",
        *(f"- {line}" for line in lines),
        "",
        "```",
        table,
        "```",
        "",
        PAPER.replace("\n", " "),
    ])
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()
