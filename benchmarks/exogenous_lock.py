"""HOMER under exogenous noise, predicted and measured: the exogenous lock (H = 4, K = 3, seed 0,
the paper's rewards, k bits each flipping with probability 1/10 at every step).

**Predicted, exactly.** For k = 1..6 (``--bits``): per step the classes of the endogenous
partition and of backward, forward and full KI (``def:bki``, ``def:fki``, ``def:ki``) computed on
the product Block MDP, with the time each took, and whether they are the product theorem's
(``predicted_ki_partitions``, from the lock's partitions and the chain's): ``N_BD``, ``N_FD`` and
``N_KD`` grow as ``2^k`` while the endogenous classes stay 2, 3, 3, 3.

**Measured.** HOMER (``python -m homer run --env combolock --horizon 4 --actions 3
--exogenous-bits K --flip 1/10 --seed 0``) at the endogenous capacity (``--backward-capacity 2
--forward-capacity 3 --allow-small-capacity``: phi_B and phi_F as wide as the lock's own KI
classes) and at KI's (``--backward-capacity 2*2^k --forward-capacity 3*2^k``, the most classes of
a step; ``--pretraining-width 48`` at k = 4, which must be at least the capacities), at k = 2
and 4 (:data:`RUNS`), each scored by ``python -m homer compare RUN --against endogenous``: phi_B,
phi_F and phi-bar against backward KI, forward KI and KI, and phi-bar against the endogenous
partition (wrong merges, the largest merge rate, splits), the cover's alpha and the learned
policy's exact value. Each run sits next to what the exact partitions predict of it and is
called "as predicted" or "not as predicted" (naming what differs), as the table of
``benchmarks/results/homer_counterexamples.md`` does.

The runs live in ``--work`` (one directory each, named as in :data:`RUNS`). A finished run
(``result.json``) is scored as it is, whatever made it, once its ``config.json`` shows the
row's lock and capacities; with ``--train`` the missing ones are run, and an unfinished one
resumed (``--resume``), one at a time, with exactly the command lines of :data:`RUNS`; without
it they are listed as not run. ``--smoke`` makes and scores a tiny version of ``k2-endo``
(k = 1 exact only, a few seconds of training): the test suite's check that the script works.

Writes this script's section of ``benchmarks/results/exogenous_lock.md`` (``results_page.py``)
and, beside it, ``exogenous_lock.json`` (the same numbers, read by
``notebooks/06_exogenous_noise.ipynb``).

Usage: ``python benchmarks/exogenous_lock.py [--bits 1,2,3,4,5,6] [--work DIR] [--train]
[--samples 500] [--note TEXT] [--results FILE] [--smoke]``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from math import comb
from pathlib import Path
from typing import TypeVar

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from kinematic import (
    backward_ki_partition,
    endogenous_partition,
    exogenous_combination_lock,
    forward_ki_partition,
    ki_partition,
    predicted_ki_partitions,
)

T = TypeVar("T")
RESULTS = Path(__file__).parent / "results" / "exogenous_lock.md"
HORIZON, ACTIONS, SEED, FLIP = 4, 3, 0, "1/10"
ENDOGENOUS_CLASSES = (2, 3, 3, 3)
"""The endogenous partition of the lock at H = 4: s1a, s1b; then a, b, c at every step."""
SMOKE = ("--transitions", "300", "--max-transitions", "300", "--max-epochs", "5",
         "--min-epochs", "5", "--psdp-samples", "200", "--eval-samples", "100",
         "--evaluation-episodes", "100")
"""``--smoke``'s training budget (HOMER's defaults otherwise)."""


@dataclass(frozen=True)
class LearnedRun:
    """One HOMER run of the page: its directory name, the lock's bits and phi_B's and phi_F's
    capacities (with any flag they need)."""

    name: str
    bits: int
    backward: int
    forward: int
    flags: tuple[str, ...] = ()

    @property
    def at_ki_capacity(self) -> bool:
        """Whether phi_B and phi_F are as wide as the most backward and forward KI classes of a
        step (2 * 2^k and 3 * 2^k), else at the endogenous capacity (2 and 3)."""
        return (self.backward, self.forward) == (2 * 2 ** self.bits, 3 * 2 ** self.bits)

    @property
    def mdp_name(self) -> str:
        return f"combolock-H{HORIZON}-K{ACTIONS}-seed{SEED}-exo{self.bits}-flip{FLIP}"

    def command(self, out: Path, resume: bool, budget: tuple[str, ...] = ()) -> list[str]:
        """``python -m homer run`` of this run into ``out`` (continued with ``resume``)."""
        return [sys.executable, "-m", "homer", "run", "--env", "combolock", "--horizon",
                str(HORIZON), "--actions", str(ACTIONS), "--exogenous-bits", str(self.bits),
                "--flip", FLIP, "--seed", str(SEED), "--backward-capacity", str(self.backward),
                "--forward-capacity", str(self.forward), *self.flags, *budget, "--out",
                str(out), "--json", *(["--resume"] if resume else [])]


RUNS = (
    LearnedRun("k2-nkd", 2, 8, 12),
    LearnedRun("k2-endo", 2, 2, 3, ("--allow-small-capacity",)),
    LearnedRun("k4-nkd", 4, 32, 48, ("--pretraining-width", "48")),
    LearnedRun("k4-endo", 4, 2, 3, ("--allow-small-capacity",)),
)
"""The learned runs: k = 2 and 4 bits, at KI's capacity and at the endogenous one."""
SMOKE_RUN = RUNS[1]
"""``--smoke``'s run (on the budget :data:`SMOKE`): the cheapest."""


def timed(compute: Callable[[], T]) -> tuple[T, float]:
    """``compute()`` and the seconds it took."""
    started = time.perf_counter()
    value = compute()
    return value, time.perf_counter() - started


def exact_row(bits: int) -> dict:
    """Per step the classes of the endogenous partition and of backward, forward and full KI of
    the lock with ``bits`` bits, the seconds each took, and whether the product theorem
    predicts them."""
    model, build = timed(lambda: exogenous_combination_lock(HORIZON, ACTIONS, SEED, bits, FLIP))
    backward, backward_s = timed(lambda: backward_ki_partition(model.mdp))
    forward, forward_s = timed(lambda: forward_ki_partition(model.mdp))
    ki, ki_s = timed(lambda: ki_partition(model.mdp, backward, forward))
    predicted, predicted_s = timed(lambda: predicted_ki_partitions(model))
    return {
        "bits": bits, "states": len(model.mdp.states),
        "endogenous": list(endogenous_partition(model).blocks_per_layer),
        "backward": list(backward.blocks_per_layer), "forward": list(forward.blocks_per_layer),
        "ki": list(ki.blocks_per_layer), "n_bd": backward.number_of_blocks,
        "n_fd": forward.number_of_blocks, "n_kd": ki.number_of_blocks,
        "as_the_theorem_predicts": (predicted.backward, predicted.forward, predicted.ki)
        == (backward, forward, ki),
        "seconds": {"build": build, "backward": backward_s, "forward": forward_s,
                    "ki": backward_s + forward_s + ki_s, "theorem": predicted_s},
    }


def forced_merges(classes: int, capacity: int) -> int:
    """The fewest pairs of ``classes`` exact classes that an abstraction into ``capacity``
    classes must put together (each learned class holding the majority of both): spread as
    evenly as possible, ``sum C(n_i, 2)``.

    >>> forced_merges(8, 3), forced_merges(8, 2), forced_merges(3, 6)
    (7, 12, 0)
    """
    size, extra = divmod(classes, capacity)
    return extra * comb(size + 1, 2) + (capacity - extra) * comb(size, 2)


def prediction(run: LearnedRun, exact: dict) -> dict:
    """What the exact partitions say of ``run``, per step (1-based lists): the fewest wrong
    merges phi-bar makes against KI (its capacity: phi_F's at step 1, phi_F's times phi_B's in
    between, phi_B's at step H); against the endogenous partition at most the one merge KI
    itself allows, s4a with s4b (backward KI joins them and phi-bar is phi_B there; a learner
    may still split them, a split costing capacity only) - at KI's capacity what learning KI
    implies, at the endogenous capacity the best phi-bar can do, not a necessity (phi_F's 3
    classes could be spent on the bits instead of on s{h}a, s{h}b, s{h}c); at KI's capacity,
    every endogenous class split (each holds 2^k KI classes; at the endogenous capacity
    phi-bar's splits are not predicted: its F x B classes may or may not split one). The optimal
    policy reads the endogenous state alone, so V* = 1 is within reach at both capacities."""
    capacity = [run.forward, *[run.forward * run.backward] * (HORIZON - 2), run.backward]
    return {
        "ki_merges_at_least": [forced_merges(n, c) for n, c in zip(exact["ki"], capacity,
                                                                    strict=True)],
        "endogenous_merges_at_most": [0] * (HORIZON - 1) + [1],
        "endogenous_splits": list(ENDOGENOUS_CLASSES) if run.at_ki_capacity else None,
        "value": 1.0,
    }


def verdict(predicted: dict, measured: dict) -> list[str]:
    """What differs between ``predicted`` and ``measured`` (empty: as predicted)."""
    differ = []
    ki = [s["ki"]["wrong_merges"] for s in measured["steps"]]
    if any(m < p for m, p in zip(ki, predicted["ki_merges_at_least"], strict=True)):
        differ.append(f"KI merges {per_step(ki)} below the forced "
                      f"{per_step(predicted['ki_merges_at_least'])}")
    if predicted["ki_merges_at_least"] == [0] * HORIZON and any(ki):
        differ.append(f"KI merges {per_step(ki)} at KI's capacity")
    merges = [s["endogenous"]["wrong_merges"] for s in measured["steps"]]
    most = predicted["endogenous_merges_at_most"]
    if any(m > p for m, p in zip(merges, most, strict=True)):
        differ.append(f"endogenous merges {per_step(merges)} above {per_step(most)}")
    splits = [s["endogenous"]["splits"] for s in measured["steps"]]
    if predicted["endogenous_splits"] is not None and splits != predicted["endogenous_splits"]:
        differ.append(f"endogenous splits {per_step(splits)}, predicted "
                      f"{per_step(predicted['endogenous_splits'])}")
    if measured["value"] is None or measured["value"] < predicted["value"] - 0.05:
        differ.append(f"value {measured['value']}")
    return differ


def run_homer(run: LearnedRun, work: Path, budget: tuple[str, ...]) -> None:
    """Make ``run`` in ``work`` (resumed when its directory holds a run), one torch thread."""
    out = work / run.name
    command = run.command(out, (out / "config.json").exists(), budget)
    print("running: " + shlex.join(command[1:]), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{run.name} failed:\n{result.stderr}")


def check_settings(run: LearnedRun, out: Path) -> dict:
    """``config.json`` of the run in ``out``, refused (exit naming it) unless of the row's lock
    and capacities."""
    config = json.loads((out / "config.json").read_text())
    found = (config["mdp"], config["config"]["backward_capacity"],
             config["config"]["forward_capacity"])
    if found != (run.mdp_name, run.backward, run.forward):
        sys.exit(f"{out / 'config.json'}: a run of {found[0]} with capacities {found[1]}, "
                 f"{found[2]}; the row {run.name} is {run.mdp_name} with {run.backward}, "
                 f"{run.forward}")
    return config


def score(run: LearnedRun, out: Path, samples: int) -> dict:
    """``homer compare --against endogenous`` of the finished run in ``out``, per step."""
    config = check_settings(run, out)
    result = subprocess.run([sys.executable, "-m", "homer", "compare", str(out), "--against",
                             "endogenous", "--samples", str(samples), "--json"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"homer compare {out} failed:\n{result.stderr}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    summary = json.loads((out / "result.json").read_text())
    steps = []
    for step in report["steps"]:
        kinds = step["abstractions"]
        steps.append({kind: {"classes": len(kinds[kind]["exact_classes"]),
                             "learned": len(kinds[kind]["learned_classes"]),
                             "wrong_merges": kinds[kind]["wrong_merges"],
                             "largest_merge_rate": max(
                                 (pair["rate"] for pair in kinds[kind]["merge_rates"]),
                                 default=0.0),
                             "splits": kinds[kind]["splits"]}
                      for kind in ("backward", "forward", "ki", "endogenous") if kind in kinds})
    return {"name": run.name, "bits": run.bits, "backward_capacity": run.backward,
            "forward_capacity": run.forward, "at_ki_capacity": run.at_ki_capacity,
            "flags": list(run.flags), "transitions": config["config"]["transitions"],
            "episodes": summary["episodes"], "seconds": summary["seconds"],
            "value": report["value"], "optimal_value": report["optimal_value"],
            "alpha_min": report["alpha_min"], "samples": samples, "steps": steps}


def per_step(values: list) -> str:
    return ", ".join(map(str, values))


def exact_lines(rows: list[dict]) -> list[str]:
    lines = ["| k | states | endogenous | backward KI | forward KI | KI | N_BD | N_FD | N_KD | "
             "as the theorem predicts | seconds: backward, forward, KI (both and their "
             "refinement), theorem |", "|" + "---|" * 11]
    for row in rows:
        s = row["seconds"]
        lines.append(
            f"| {row['bits']} | {row['states']} | {per_step(row['endogenous'])} | "
            f"{per_step(row['backward'])} | {per_step(row['forward'])} | "
            f"{per_step(row['ki'])} | {row['n_bd']} | {row['n_fd']} | {row['n_kd']} | "
            f"{'yes' if row['as_the_theorem_predicts'] else 'NO'} | {s['backward']:.2f}, "
            f"{s['forward']:.2f}, {s['ki']:.2f}, {s['theorem']:.3f} |")
    return lines


def learned_lines(learned: list[dict], missing: list[LearnedRun], work: Path) -> list[str]:
    lines = ["| run | k | phi_B, phi_F classes | episodes | seconds | value (V* = 1) | "
             "alpha min | predicted | measured | verdict |", "|" + "---|" * 10]
    for row in learned:
        p, steps = row["prediction"], row["steps"]
        capacity = "KI's" if row["at_ki_capacity"] else "endogenous"
        splits = ("" if p["endogenous_splits"] is None
                  else f", splits {per_step(p['endogenous_splits'])}")
        best = "" if row["at_ki_capacity"] else " (at best)"
        forced = ("no KI merge" if row["at_ki_capacity"]
                  else f"KI merges >= {per_step(p['ki_merges_at_least'])}")
        predicted = (f"{forced}; endogenous merges "
                     f"<= {per_step(p['endogenous_merges_at_most'])}{best}{splits}; value 1")
        measured = (f"KI merges {per_step([s['ki']['wrong_merges'] for s in steps])}; "
                    f"endogenous merges "
                    f"{per_step([s['endogenous']['wrong_merges'] for s in steps])}, splits "
                    f"{per_step([s['endogenous']['splits'] for s in steps])}")
        lines.append(
            f"| {row['name']} | {row['bits']} | {row['backward_capacity']}, "
            f"{row['forward_capacity']} ({capacity}) | {row['episodes']:,} | "
            f"{row['seconds']:.0f} | {row['value']:.3f} | {row['alpha_min']:.3f} | "
            f"{predicted} | {measured} | "
            + ("as predicted" if not row["differs"] else
               "not as predicted: " + "; ".join(row["differs"])) + " |")
    for run in missing:
        lines.append(f"| {run.name} | {run.bits} | {run.backward}, {run.forward} | not run yet "
                     f"(no {work.name}/{run.name}/result.json) |" + " |" * 6)
    return lines


def step_lines(learned: list[dict]) -> list[str]:
    lines = ["| run | step | phi_B vs backward KI | phi_F vs forward KI | phi-bar vs KI | "
             "phi-bar vs endogenous |", "|" + "---|" * 6]
    for row in learned:
        for h, step in enumerate(row["steps"], start=1):
            cells = []
            for kind in ("backward", "forward", "ki", "endogenous"):
                if kind not in step:
                    cells.append("-")
                    continue
                c = step[kind]
                cells.append(f"{c['learned']} learned / {c['classes']} exact: "
                             f"{c['wrong_merges']} merges (largest rate "
                             f"{c['largest_merge_rate']:.2f}), {c['splits']} splits")
            lines.append(f"| {row['name']} | {h} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", default="1,2,3,4,5,6",
                        help="the exact table's numbers of bits, comma-separated")
    parser.add_argument("--work", type=Path, default=Path("out/exogenous-lock"),
                        help="the run directories, one per row of RUNS")
    parser.add_argument("--train", action="store_true",
                        help="make the missing runs and resume the unfinished ones")
    parser.add_argument("--samples", type=int, default=500,
                        help="homer compare --samples: encodings per latent observation")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written (and the JSON "
                             "beside it)")
    parser.add_argument("--smoke", action="store_true",
                        help="k = 1 exact, and k2-endo made on a tiny budget and scored")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/exogenous_lock.py",
                            "HOMER under exogenous noise: predicted and measured")
    command = "python benchmarks/exogenous_lock.py " + shlex.join(sys.argv[1:])
    started = datetime.now(UTC)
    bits = [1] if args.smoke else [int(k) for k in args.bits.split(",")]
    exact = {}
    for k in bits:
        exact[k] = exact_row(k)
        print(f"k = {k}: KI {exact[k]['ki']}, endogenous {exact[k]['endogenous']}, "
              f"{exact[k]['seconds']['ki']:.2f} s", flush=True)
    runs = [SMOKE_RUN] if args.smoke else RUNS
    learned, missing = [], []
    for run in runs:
        out = args.work / run.name
        if not (out / "result.json").exists() and (args.train or args.smoke):
            run_homer(run, args.work, SMOKE if args.smoke else ())
        if not (out / "result.json").exists():
            missing.append(run)
            continue
        row = score(run, out, args.samples)
        row["prediction"] = prediction(run, exact.get(run.bits) or exact_row(run.bits))
        row["differs"] = verdict(row["prediction"], row)
        learned.append(row)
        print(f"{run.name}: value {row['value']:.3f}, "
              + ("as predicted" if not row["differs"] else "; ".join(row["differs"])),
              flush=True)
    text = [
        f"`{command}`, {started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}; the "
        "exact computations on one core, each HOMER run on one core with one torch thread "
        "(its seconds: the wall-clock its result.json records). Also running: "
        f"{args.note}.",
        "",
        f"The lock: H = {HORIZON}, K = {ACTIONS}, seed {SEED}, the paper's rewards, k bits each "
        f"flipping with probability {FLIP} at every step. Classes per step 1-{HORIZON}:",
        "",
        *exact_lines(list(exact.values())),
        "",
        "HOMER (seed 0, `--samples` "
        f"{args.samples} encodings per latent observation in `homer compare`). `predicted`: "
        "the fewest wrong merges of phi-bar against KI that its capacity forces per step "
        "(pigeonhole; none at KI's capacity, where HOMER's guarantee is to learn KI), the "
        "endogenous merges KI itself allows (s4a with s4b at step 4, where phi-bar is phi_B: "
        "what learning KI implies, and at the endogenous capacity the best it can do) and the "
        "endogenous classes split at KI's capacity:",
        "",
        *learned_lines(learned, missing, args.work),
        "",
        "The runs' command lines (`python -m homer run ...`; HOMER's defaults otherwise):",
        "",
        *(f"- {run.name}: `python "
          + shlex.join(run.command(args.work / run.name, False,
                                   SMOKE if args.smoke else ())[1:]) + "`" for run in runs),
    ]
    if learned:
        text += ["", "Per step, from `homer compare --against endogenous` (a merge: a pair of "
                 "exact classes with a merge rate above 0.05):", "", *step_lines(learned)]
    page.write(text)
    data = args.results.with_suffix(".json")
    data.write_text(json.dumps({"command": command, "date": f"{started:%Y-%m-%d}",
                                "horizon": HORIZON, "actions": ACTIONS, "seed": SEED,
                                "flip": FLIP, "exact": list(exact.values()),
                                "learned": learned,
                                "not_run": [run.name for run in missing]}, indent=1) + "\n")
    print(f"written: {args.results}, {data}")


if __name__ == "__main__":
    main()
