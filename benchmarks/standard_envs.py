"""The standard finite MDPs in the paper's terms: eta_min, N_BD, N_FD, N_KD, the canonical form
and V* of gymnasium's FrozenLake (4x4 and 8x8, slippery), CliffWalking and Taxi unrolled to a
horizon (``kinematic.from_gymnasium``), with the seconds each took.

Each case is built (``gymnasium.make`` and ``from_gymnasium``, timed as "build") and analysed
(``kinematic.analyze``: eta of every state, the three partitions, the canonical form, V*;
"analyze"), in exact rationals unless ``--float`` names the environment. The process is pinned
to one core (``os.sched_setaffinity``), so the worker pools of eta share it. Writes a dated
Markdown file (default ``benchmarks/results/standard_envs.md``) with the machine, the load
average before and after, what else ran (``--note``), the table, and the exact values in full.

Usage: ``python benchmarks/standard_envs.py [--horizons 10,20,50] [--float Taxi-v4]
[--note "nothing else ran"] [--out FILE]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import gymnasium
from machine import machine  # beside this script (run as a script)

from kinematic import analyze, from_gymnasium

ENVIRONMENTS = {
    "FrozenLake-v1": "FrozenLake 4x4, slippery",
    "FrozenLake8x8-v1": "FrozenLake 8x8, slippery",
    "CliffWalking-v1": "CliffWalking",
    "Taxi-v4": "Taxi",
}
RESULTS = Path(__file__).parent / "results" / "standard_envs.md"


def shown(value: str | float | None, limit: int = 12) -> str:
    """A result for the table: ``p/q`` when short, else its decimal value (4 significant
    digits); floats likewise; ``0`` for a V* the MDP has no reward for."""
    if value is None:
        return "0"
    if isinstance(value, str) and len(value) <= limit:
        return value
    return format(float(Fraction(value)) if isinstance(value, str) else value, ".4g")


def run_case(env_id: str, horizon: int, numbers: str) -> dict:
    began = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        env = gymnasium.make(env_id)
    mdp = from_gymnasium(env, horizon, numbers=numbers)
    built = time.perf_counter()
    result = analyze(mdp)
    done = time.perf_counter()
    return {
        "env": env_id, "horizon": horizon, "mode": result["mode"], "states": result["states"],
        "eta_min": result["eta_min"], "n_bd": result["n_bd"], "n_fd": result["n_fd"],
        "n_kd": result["n_kd"],
        "canonical": sum(len(layer) for layer in result["canonical"]["layers"]),
        "v_star": result.get("optimal_value"),
        "build": built - began, "analyze": done - built,
    }


def table(rows: list[dict]) -> list[str]:
    lines = ["| environment | H | states | arithmetic | eta_min | N_BD | N_FD | N_KD | "
             "canonical states | V* | build s | analyze s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(
            f"| {ENVIRONMENTS[row['env']]} (`{row['env']}`) | {row['horizon']} | "
            f"{row['states']:,} | {row['mode']} | {shown(row['eta_min'])} | {row['n_bd']:,} | "
            f"{row['n_fd']:,} | {row['n_kd']:,} | {row['canonical']:,} | "
            f"{shown(row['v_star'])} | {row['build']:.2f} | {row['analyze']:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizons", default="10,20,50")
    parser.add_argument("--envs", default=",".join(ENVIRONMENTS))
    parser.add_argument("--float", default="", help="environments analysed in float mode")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    floats = set(filter(None, args.float.split(",")))
    before, started = os.getloadavg(), datetime.now(UTC)
    rows = []
    for env_id in args.envs.split(","):
        for horizon in (int(h) for h in args.horizons.split(",")):
            rows.append(run_case(env_id, horizon, "float" if env_id in floats else "exact"))
            print(f"{env_id} H={horizon}: {rows[-1]['build'] + rows[-1]['analyze']:.2f} s",
                  flush=True)
    after = os.getloadavg()
    exact = [row for row in rows if row["mode"] == "exact"]
    text = [
        "# Standard environments in the paper's terms",
        "",
        f"`python benchmarks/standard_envs.py --horizons {args.horizons}"
        + (f" --float {args.float}" if args.float else "")
        + f"`, {started:%Y-%m-%d %H:%M} UTC, "
        f"{machine(('numpy', 'scipy', 'gymnasium'), 'pinned to one')}. Load average (1, 5, 15 "
        f"min) before {before[0]:.2f}, {before[1]:.2f}, {before[2]:.2f}; after "
        f"{after[0]:.2f}, {after[1]:.2f}, {after[2]:.2f}. Also running: {args.note}.",
        "",
        "build: `gymnasium.make` and `kinematic.from_gymnasium`; analyze: `kinematic.analyze` "
        "(eta of every state, the backward, forward and KI partitions, the canonical form, V*). "
        "Long fractions are shown as decimals (4 digits); the exact values follow the table. "
        "V* is the optimal expected total reward of H steps (0: no reward is reachable).",
        "",
        *table(rows),
        "",
        "Exact values:",
        "",
        *(f"- `{row['env']}`, H = {row['horizon']}: eta_min = {row['eta_min']}, V* = "
          f"{row['v_star'] or 0}" for row in exact),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(text) + "\n")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
