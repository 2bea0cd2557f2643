"""The verdicts, runs and figures of the horizon sweep (``fig:horizon-plot``).

The verdicts against the paper of every task finished in one or more sweep directories, the
runs, and the three figures (``fig:horizon-plot``, ``fig:value-function-plot``,
``fig:traces``).

The runs themselves are ``python -m homer sweep`` commands (resumable; a cell can be run by
several commands, into one directory or several); this script reads their ``records.jsonl``
(``homer.sweep.finished_records``), prints the verdict grid of one encoding (``--encoding``,
default the authors'; records without an encoding are of the orthonormal one) with the legend
that says what its verdicts mean (to go above the grid wherever it is shown), writes the
figures (of every record) into
``--figures`` (default ``benchmarks/results/horizon_sweep/``) and writes the command, the
machine, what else ran (``--note``), the grid, every cell in detail and every run, dated, into
this script's section of a Markdown page (``results_page.py``; default
``benchmarks/results/horizon_sweep.md``, whose notes around the section are kept).

Usage: ``python benchmarks/horizon_sweep.py --out DIR [--out DIR ...] [--encoding ENCODING]
[--note TEXT] [--figures DIR] [--results FILE]``
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from homer.encoders import ENCODINGS
from homer.plots import save_figure
from homer.sweep import finished_records, horizon_figure
from homer.sweep_figures import traces_figure, value_figure
from homer.sweep_verdicts import sweep_verdicts, verdict_grid, verdict_legend, verdict_table
from kinematic.arguments import format_duration

RESULTS = Path(__file__).parent / "results" / "horizon_sweep.md"
FIGURES = Path(__file__).parent / "results" / "horizon_sweep"


def _run_line(record: dict) -> str:
    reached = record["episodes_to_half"]
    return (f"{record['algorithm']}, {record['variant']} lock, H = {record['horizon']}, seed "
            f"{record['seed']}: value {record['value']:.3f} of V* = "
            f"{record['optimal_value']:.3g}, {record['episodes']:,} episodes"
            + (f" (half of V* at {reached:,})" if reached is not None else "")
            + f", {format_duration(record['seconds'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, action="append", required=True,
                        help="a sweep directory (repeat for several)")
    parser.add_argument("--encoding", choices=ENCODINGS, default=ENCODINGS[0],
                        help="the encoding whose records the verdicts judge (records without "
                             "an encoding are of the orthonormal one)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--figures", type=Path, default=FIGURES,
                        help="where horizon.png, value.png and traces.png go")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/horizon_sweep.py",
                            "The horizon sweep")
    records = [record for out in args.out for record in finished_records(out)]
    if not records:
        sys.exit(f"no finished task in {', '.join(map(str, args.out))}")
    cells = sweep_verdicts(records, encoding=args.encoding)
    grid, legend = verdict_grid(cells), verdict_legend(args.encoding)
    print(legend)
    print()
    print(grid)
    args.figures.mkdir(parents=True, exist_ok=True)
    figures = {"horizon": horizon_figure, "value": value_figure, "traces": traces_figure}
    links = []
    for name, draw in figures.items():
        [png] = save_figure(draw(records), args.figures / name, formats=("png",))  # the page's
        links.append(f"[{name}.png]({os.path.relpath(png, args.results.parent)})")
    shown = [Path(arg).name if before == "--out" else arg  # a sweep directory by its name
             for before, arg in zip(sys.argv[:-1], sys.argv[1:], strict=True)]
    page.write([
        f"`python benchmarks/horizon_sweep.py {shlex.join(shown)}`, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}. Also "
        f"running during the runs: {args.note}.",
        "",
        legend,
        "",
        grid,
        "",
        "Figures: " + ", ".join(links) + ".",
        "",
        "Every cell in detail:",
        "",
        verdict_table(cells),
        "",
        "Every run:",
        "",
        *(f"- {_run_line(r)}" for r in sorted(records, key=lambda r: (
            r["variant"], r["algorithm"], r["horizon"], r["seed"]))),
    ])
    print(f"written: {args.results} and {args.figures}/")


if __name__ == "__main__":
    main()
