"""The batched baselines beside the authors' DeepRL agent: PPO and A2C, with and without RND,
at H = 3 and 6 on both locks, at the budget and with the metric of a side-by-side check.

Each run: ``run_batched_baseline(combination_lock(H, 10, seed, variant), algorithm, 200,000
episodes, rnd, seed)`` with the default configuration (DeepRL's ``run.py`` as the paper ran it:
learning rate 1e-3, RND coefficient 100, bonus normalisation off) and the encoder given by
``--encodings`` (``authors``: the default, the +-1 Hadamard matrix; ``orthonormal``: the
encoder this project shipped before), the exact value of its policy evaluated every 1,000
episodes and the run stopped at the first evaluation reaching half of ``V*``. "At" is that
episode count.

Each finished run is written at once to ``--out`` (one small JSON file per run: algorithm,
lock, horizon, seed, encoding, episodes to half of ``V*``, final value, seconds), so a stopped
run of this script resumes where it was; this script's section of
``benchmarks/results/beside_authors.md`` (``results_page.py``) is written from every file
there, beside the authors' agent's figures (:data:`AUTHORS`:
measured by running the authors' released DeepRL agent on CPU with the paper's
hyperparameters on the same cells, same budget and metric, 3 seeds each).

Usage: ``python benchmarks/beside_authors.py [--seeds 3] [--encodings authors,orthonormal]
[--cells ppo_rnd:paper:6,...] [--out benchmarks/results/beside_authors] [--page-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from homer.baselines.batched import run_batched_baseline
from homer.encoders import ENCODINGS, HadamardNoise
from kinematic.families import combination_lock

HERE = Path(__file__).parent
RESULTS = HERE / "results" / "beside_authors.md"
ALGORITHMS = ("ppo", "ppo_rnd", "a2c", "a2c_rnd")
CELLS = [(a, v, h) for v in ("paper", "released") for h in (3, 6) for a in ALGORITHMS]
BUDGET = 200_000
EVERY = 1_000

AUTHORS: dict[tuple[str, str, int], str] = {
    ("ppo", "paper", 3): "3/3, at 4,000 - 7,000",
    ("ppo_rnd", "paper", 6): "3/3, at 4,000 - 5,000",
    ("ppo", "released", 3): "0/3",
}
"""The authors' DeepRL agent (cereb-rl's ``PPO_agent.py``, ``run.py``'s PPO configuration, its
``bonus_type == 'rnd'`` branch for RND) on CPU, 200,000 episodes, 3 seeds, "at": the episodes
at which the mean return of its last 1,000 training episodes first reached half of ``V*``.
Cells not listed were not run with the authors' agent."""


def run_one(algorithm: str, variant: str, horizon: int, seed: int, encoding: str,
            runs: Path) -> dict[str, Any]:
    """One run, resumable from its run directory under ``runs``."""
    name = f"{algorithm}-{variant}-H{horizon}-seed{seed}-{encoding}"
    result = run_batched_baseline(
        combination_lock(horizon, 10, seed, variant=variant), algorithm.split("_")[0], BUDGET,
        rnd=algorithm.endswith("_rnd"), seed=seed, run_dir=runs / name,
        encoder=HadamardNoise(encoding=encoding), evaluate_every=EVERY, stop_at_half=True)
    return {"algorithm": algorithm, "variant": variant, "horizon": horizon, "seed": seed,
            "encoding": encoding, "budget": BUDGET, "evaluate_every": EVERY,
            "episodes_to_half": result.episodes_to_half, "episodes": result.episodes,
            "value": round(result.value, 4), "optimal_value": result.optimal_value,
            "seconds": round(result.seconds, 1)}


def _cell(text: str) -> tuple[str, str, int]:
    algorithm, variant, horizon = text.split(":")
    if algorithm not in ALGORITHMS or variant not in ("paper", "released"):
        raise argparse.ArgumentTypeError(f"not a cell ALGORITHM:LOCK:H: {text!r}")
    return algorithm, variant, int(horizon)


def _summary(rows: list[dict[str, Any]]) -> str:
    """``3/3, at 4,000 - 12,000`` (seeds reaching half of V*, the range of their episodes)."""
    if not rows:
        return "not run"
    reached = sorted(r["episodes_to_half"] for r in rows if r["episodes_to_half"] is not None)
    text = f"{len(reached)}/{len(rows)}"
    if reached:
        low, high = reached[0], reached[-1]
        text += f", at {low:,}" + (f" - {high:,}" if high != low else "")
    missed = [r["value"] for r in rows if r["episodes_to_half"] is None]
    if missed:
        low, high = f"{min(missed):.3f}", f"{max(missed):.3f}"
        text += f" (missed: value {low}" + (f" - {high}" if high != low else "") + ")"
    return text


def page(out: Path) -> str:
    """The Markdown table of every run in ``out`` beside :data:`AUTHORS`."""
    rows = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    seeds = sorted({r["seed"] for r in rows})
    lines = ["| cell | the authors' DeepRL agent | this project, authors' encoding (default) "
             "| this project, orthonormal encoding (as shipped before) |",
             "|---|---|---|---|"]
    for algorithm, variant, horizon in CELLS:
        mine = [r for r in rows if (r["algorithm"], r["variant"], r["horizon"])
                == (algorithm, variant, horizon)]
        by = {e: [r for r in mine if r["encoding"] == e] for e in ENCODINGS}
        label = algorithm.upper().replace("_RND", "+RND")
        lines.append(f"| {label}, {variant} lock, H = {horizon} | "
                     f"{AUTHORS.get((algorithm, variant, horizon), 'not run')} | "
                     f"{_summary(by['authors'])} | {_summary(by['orthonormal'])} |")
    seconds = sum(r["seconds"] for r in rows)
    lines += ["", f"{len(rows)} runs (seeds {', '.join(map(str, seeds))}), "
                  f"{seconds / 60:,.0f} minutes of learning in all."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--encodings", default="authors,orthonormal")
    parser.add_argument("--cells", type=lambda t: [_cell(c) for c in t.split(",")],
                        default=CELLS)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "beside_authors")
    parser.add_argument("--runs", type=Path, default=Path("out/beside_authors_runs"))
    parser.add_argument("--page-only", action="store_true",
                        help="write the page from the runs in --out, running nothing")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    page_file = ResultsPage.read(args.results, "benchmarks/beside_authors.py",
                                 "Baselines beside the authors' agent")
    args.out.mkdir(parents=True, exist_ok=True)
    encodings = args.encodings.split(",")
    if not args.page_only:
        for encoding in encodings:
            for algorithm, variant, horizon in args.cells:
                for seed in range(args.seeds):
                    path = args.out / f"{algorithm}-{variant}-H{horizon}-seed{seed}-{encoding}.json"
                    if path.exists():
                        continue
                    record = run_one(algorithm, variant, horizon, seed, encoding, args.runs)
                    path.write_text(json.dumps(record, indent=1) + "\n")
                    print(json.dumps(record), flush=True)
    table = page(args.out)
    print(table)
    command = shlex.join(["python", "benchmarks/beside_authors.py", *sys.argv[1:]])
    page_file.write([f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
                     + machine(("numpy", "torch")), "", table])


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
