"""The representation objectives after HOMER, solved exactly and compared with the truth: which
objective recovers backward KI, KI and the endogenous partition on which MDP, with witnesses.

Every objective of :data:`kinematic.counterexamples.catalogue.OBJECTIVES` (Section 5's inverse
dynamics and PCID; the multi-step inverse at gap 2 and at every gap, MusIK's form; PPE's path
prediction; action-free forward modelling and temporal contrast; the action-conditioned forward
model; AC-State and ACDF with both ends encoded, gaps 1..2) on every layer ``h >= 2`` of the
MDPs of :data:`CASES` (Section 5's counterexamples, the paper's lock and a deterministic one,
the exogenous lock at flip 1/10 and 1/2, ACDF's four tabular exogenous MDPs unrolled to H = 6)
through :func:`kinematic.counterexamples.objectives_table.objectives_table`: every cell exact
(Fractions; the log losses of AC-State and ACDF are decided exactly where the bound is met,
else within 1e-12), no sampling. Beside it, ACDF's own experiment at its population limit
(:func:`kinematic.counterexamples.acdf.population_experiment`: the stationary chain, every
encoder of the 10 observations).

Writes this script's section of ``benchmarks/results/objectives_table.md`` (``results_page.py``)
and ``objectives_table.json`` beside it. ``--quick`` computes the first three cases only and no
ACDF experiment (the test suite's check that the script works).

Usage: ``python benchmarks/objectives_table.py [--quick] [--results FILE] [--note TEXT]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from kinematic import combination_lock, exogenous_combination_lock
from kinematic.counterexamples.acdf import population_experiment
from kinematic.counterexamples.catalogue import LAYERED_GAPS, OBJECTIVES
from kinematic.counterexamples.mdps import (
    autoencoder_exploration_counterexample,
    curiosity_counterexample,
    pcid_chain,
)
from kinematic.counterexamples.objectives_table import ObjectivesTable, objectives_table
from kinematic.exogenous import ExogenousBlockMDP
from kinematic.exogenous_examples import ACDF_EXAMPLES
from kinematic.families import deterministic_combination_lock
from kinematic.model import BlockMDP

RESULTS = Path(__file__).parent / "results" / "objectives_table.md"

CASES: list[tuple[str, Callable[[], BlockMDP | ExogenousBlockMDP]]] = [
    ("Section 5's curiosity MDP", curiosity_counterexample),
    ("Section 5's PCID chain, H = 3", lambda: pcid_chain(3)),
    ("Section 5's autoencoder MDP (HOMER's loop)", autoencoder_exploration_counterexample),
    ("the paper's lock, H = 4, K = 2, seed 0", lambda: combination_lock(4, 2, seed=0)),
    ("a deterministic lock, H = 4, K = 2, seed 0",
     lambda: deterministic_combination_lock(4, 2, seed=0)),
    ("the exogenous lock, H = 4, K = 2, 1 bit, flip 1/10",
     lambda: exogenous_combination_lock(4, 2, 0, bits=1, flip="1/10")),
    ("the exogenous lock, H = 4, K = 2, 1 bit, flip 1/2 (i.i.d.)",
     lambda: exogenous_combination_lock(4, 2, 0, bits=1, flip="1/2")),
    ("the exogenous lock, H = 4, K = 2, 2 bits, flip 1/10 (the learned runs')",
     lambda: exogenous_combination_lock(4, 2, 0, bits=2, flip="1/10")),
    *[(f"ACDF's {name}, unrolled to H = 6", build) for name, build in ACDF_EXAMPLES.items()],
]
"""The MDPs of the table, by description."""

SHORT = {"backward KI": "BKI", "KI": "KI", "endogenous": "endo"}


def recovered(table: ObjectivesTable, objective: str) -> str:
    """What ``objective`` recovers on every layer where it is solved: the references it equals
    (``BKI``, ``KI``, ``endo``), or ``-``; and those layers when it is not solved on all."""
    names = [SHORT[r] for r in table.references if table.cell(objective, r).recovers]
    solved = [i + 2 for i, s in enumerate(table.solutions[objective]) if s is not None]
    where = "" if len(solved) == len(table.solutions[objective]) else (
        f" (h in {', '.join(map(str, solved))})" if solved else " (no layer)")
    return (", ".join(names) or "-") + where


def table_json(description: str, table: ObjectivesTable, seconds: float) -> dict:
    """The JSON record of one MDP's table."""
    return {"description": description, "seconds": seconds, **table.as_json()}


def acdf_lines(experiments: list) -> list[str]:
    """ACDF's experiment at its population limit: per example and ``K``, the verdict of the
    coarsest exact minimisers of AC-State and of ACDF (how many tie), and what their 0.001
    rule selects where it differs."""
    lines = ["| example | K | AC-State (exact) | ACDF (exact) | their 0.001 rule, where it "
             "differs |", "|---|---|---|---|---|"]
    for result in experiments:
        exact = {(s.objective, s.k): s for s in result.exact}
        rule = {(s.objective, s.k): s for s in result.tolerance_rule}
        for k in range(1, result.max_k + 1):
            cells = []
            for objective in ("ac_state", "acdf"):
                chosen = exact[objective, k]
                ties = "" if chosen.unique else f", {len(chosen.encoders)} tie"
                cells.append(f"{chosen.verdict} ({chosen.classes} classes{ties})")
            differs = [f"{o}: {rule[o, k].verdict} ({rule[o, k].classes} classes)"
                       for o in ("ac_state", "acdf")
                       if rule[o, k].names != exact[o, k].names]
            lines.append(f"| {result.example} | {k} | {cells[0]} | {cells[1]} | "
                         f"{'; '.join(differs) or '-'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="the first three MDPs, no ACDF experiment")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--note", default="", help="what else ran on the machine")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/objectives_table.py",
                            "The representation objectives after HOMER, solved exactly")
    cases = CASES[:3] if args.quick else CASES
    tables, records = [], []
    for description, build in cases:
        started = time.perf_counter()
        table = objectives_table(build())
        seconds = time.perf_counter() - started
        tables.append((description, table, seconds))
        records.append(table_json(description, table, seconds))
        print(f"{description}: {seconds:.1f} s", flush=True)
    experiments = [] if args.quick else [population_experiment(name) for name in
                                         ("periodic_example", "control_example",
                                          "single_prime_loop", "double_prime_loop")]

    names = list(OBJECTIVES)
    lines = [f"`python benchmarks/objectives_table.py{' --quick' if args.quick else ''}`, "
             f"{datetime.now(UTC):%Y-%m-%d}, {machine(note=args.note)}"
             + ".", "",
             "## What each objective recovers on every layer h >= 2", "",
             "BKI: backward KI (`def:bki`), KI (`def:ki`), endo: the endogenous partition "
             "(exogenous MDPs only); `-`: none of them. Data: the uniform random policy "
             f"(PPE: its own candidate paths). AC-State and ACDF: gaps 1..{LAYERED_GAPS}.", "",
             "| objective | " + " | ".join(f"{i + 1}" for i in range(len(tables))) + " |",
             "|---|" + "---|" * len(tables)]
    for name in names:
        lines.append(f"| {name} | "
                     + " | ".join(recovered(t, name) for _, t, _ in tables) + " |")
    lines += ["", "Columns: " + "; ".join(f"{i + 1}. {d} (`{t.mdp_name}`)"
                                          for i, (d, t, _) in enumerate(tables)) + ".", ""]
    for i, (description, table, seconds) in enumerate(tables):
        lines += [f"## {i + 1}. {description}", "",
                  f"`{table.mdp_name}`, {seconds:.1f} s. Classes per layer h = 2..H; each "
                  "reference cell lists the layers where the objective differs from it, with "
                  "two states it merges that the reference separates, or splits that the "
                  "reference merges.", "", table.markdown(), ""]
    if experiments:
        lines += ["## ACDF's experiment at its population limit", "",
                  "The stationary 10-state chain of each example under uniformly random "
                  "actions; every encoder of the 10 observations (Bell(10) = 115,975) scored "
                  "by AC-State's loss (the mean over k = 1..K of the cross entropy of a_t from "
                  "both encoded ends) and ACDF's (plus the latent forward cross entropy); the "
                  "coarsest minimisers, exactly, and the verdict of their `classify_output` "
                  "against the ground truth.", "", *acdf_lines(experiments), "",
                  "Seconds per example: " + ", ".join(f"{r.example} {r.seconds:.1f}"
                                                     for r in experiments) + "."]
    page.write(lines)
    args.results.with_suffix(".json").write_text(json.dumps({
        "date": f"{datetime.now(UTC):%Y-%m-%d}", "tables": records,
        "acdf_experiment": [
            {"example": r.example, "period": r.period, "seconds": r.seconds,
             "exact": [{"objective": s.objective, "k": s.k, "names": list(s.names),
                        "classes": s.classes, "verdict": s.verdict} for s in r.exact],
             "tolerance_rule": [{"objective": s.objective, "k": s.k, "names": list(s.names),
                                 "classes": s.classes, "verdict": s.verdict}
                                for s in r.tolerance_rule]}
            for r in experiments]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
