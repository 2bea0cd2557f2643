"""The standard finite MDPs in the paper's terms: eta_min and where it is attained, N_BD, N_FD,
N_KD, the canonical form and V* of gymnasium's FrozenLake (4x4 and 8x8, slippery), CliffWalking
and Taxi unrolled to a horizon (``kinematic.from_gymnasium``), with the seconds each took.

Where eta_min is attained is said in the environment's own words (:func:`attained_words`: "the
goal, reached at step 7 in 6 moves, the fewest (`s7_15_end`)"), from the states that
``kinematic.analyze`` names (``eta_min_states``); ``tests/test_standard_environments.py`` checks
the guide's table (``docs/guide/standard-environments.md``) against these words.

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
import re
import time
import warnings
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import gymnasium
from machine import machine  # beside this script (run as a script)

from kinematic import BlockMDP, analyze, from_gymnasium

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


UNROLLED_NAME = re.compile(r"s(\d+)_(\d+)(_end)?")
"""``from_gymnasium``'s name of a state of the table (an int here) at step ``h``: ``s{h}_{state}``,
``_end`` for the copy that the episode ended in."""


def place(env: gymnasium.Env, state: int, ended: bool = False) -> str:
    """A state of the table as the environment describes it: FrozenLake's letter of the cell
    (``desc``), Taxi's passenger (``decode``: 4 is in the taxi; an episode of Taxi ends only with
    the passenger delivered); a cell of the grid otherwise. ``ended``: the terminal copy.

    >>> lake = gymnasium.make("FrozenLake-v1")
    >>> place(lake, 0), place(lake, 5), place(lake, 6), place(lake, 15)
    ('the start', 'the hole at cell 5', 'frozen cell 6', 'the goal')
    """
    unwrapped = env.unwrapped
    kind = type(unwrapped).__name__
    if kind == "FrozenLakeEnv":
        letter = unwrapped.desc.flat[state].decode()  # type: ignore[attr-defined]
        return {"S": "the start", "F": f"frozen cell {state}", "H": f"the hole at cell {state}",
                "G": "the goal"}[letter]
    if kind == "TaxiEnv":
        *_, passenger, _ = unwrapped.decode(state)  # type: ignore[attr-defined]
        return ("the passenger delivered" if ended else
                "the passenger in the taxi" if passenger == 4 else "the passenger waiting")
    return f"cell {state}"


def _one_state(env: gymnasium.Env, mdp: BlockMDP, name: str) -> str:
    """One state of the unrolled MDP in words: where, and at which step; for a terminal copy
    (``_end``), after how many moves the episode ended there when this is its first layer."""
    match = UNROLLED_NAME.fullmatch(name)
    assert match, name
    step, state, ended = int(match.group(1)), int(match.group(2)), bool(match.group(3))
    where = place(env, state, ended)
    if not ended:
        return f"{where} at step {step} (`{name}`)"
    if f"s{step - 1}_{state}_end" in mdp.state_location:
        return f"{where} at step {step}, the episode over since an earlier step (`{name}`)"
    return f"{where}, reached at step {step} in {step - 1} moves, the fewest (`{name}`)"


def attained_words(env: gymnasium.Env, mdp: BlockMDP, groups: list[dict]) -> str:
    """Where eta_min is attained (``analyze``'s ``eta_min_states``, ``groups``) in the
    environment's words: "every state"; "each of the N start states, at step 1" when every
    start state attains it; one state by :func:`place`, its step and its name; several of the
    same place as their number and steps. ``_end`` copies are where the episode ended: in its
    first layer, it has ended in the fewest moves, which is why eta is smallest there.

    >>> lake = gymnasium.make("FrozenLake-v1")
    >>> attained_words(lake, from_gymnasium(lake, 10), [{"layer": 7, "states": ["s7_15_end"]}])
    'the goal, reached at step 7 in 6 moves, the fewest (`s7_15_end`)'
    """
    states = [(group["layer"], name) for group in groups for name in group["states"]]
    if len(states) == len(mdp.states):
        return "every state"
    parts = []
    starts = mdp.layers[0]
    if len(starts) > 1 and {(1, name) for name in starts} <= set(states):
        parts.append(f"each of the {len(starts):,} start states, at step 1")
        states = [(step, name) for step, name in states if step > 1]
    by_place: dict[str, list[tuple[int, str]]] = {}
    for step, name in states:
        match = UNROLLED_NAME.fullmatch(name)
        assert match, name
        by_place.setdefault(place(env, int(match.group(2)), bool(match.group(3))),
                            []).append((step, name))
    for where, members in by_place.items():
        if len(members) == 1:
            parts.append(_one_state(env, mdp, members[0][1]))
        else:
            first, last = members[0][0], members[-1][0]
            steps = f"step {first}" if first == last else f"steps {first}-{last}"
            parts.append(f"{where}: {len(members):,} states, {steps}")
    return "; ".join(parts)


def horizons_cell(words: dict[int, str]) -> str:
    """Where eta_min is attained at each horizon, as one cell of the guide's table: the words
    once when they are the same at every horizon, else ``H = 10: ... H = 20 / 50: ...``.

    >>> horizons_cell({10: "a", 20: "b", 50: "b"})
    'H = 10: a. H = 20 / 50: b'
    """
    horizons: dict[str, list[int]] = {}
    for horizon, text in words.items():
        horizons.setdefault(text, []).append(horizon)
    if len(horizons) == 1:
        return next(iter(horizons))
    return ". ".join(f"H = {' / '.join(map(str, hs))}: {text}" for text, hs in horizons.items())


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
        "eta_min": result["eta_min"],
        "attained": attained_words(env, mdp, result["eta_min_states"]),
        "n_bd": result["n_bd"], "n_fd": result["n_fd"],
        "n_kd": result["n_kd"],
        "canonical": sum(len(layer) for layer in result["canonical"]["layers"]),
        "v_star": result.get("optimal_value"),
        "build": built - began, "analyze": done - built,
    }


def table(rows: list[dict]) -> list[str]:
    lines = ["| environment | H | states | arithmetic | eta_min | eta_min attained at | N_BD | "
             "N_FD | N_KD | canonical states | V* | build s | analyze s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(
            f"| {ENVIRONMENTS[row['env']]} (`{row['env']}`) | {row['horizon']} | "
            f"{row['states']:,} | {row['mode']} | {shown(row['eta_min'])} | {row['attained']} | "
            f"{row['n_bd']:,} | "
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
        "eta_min attained at: the states whose eta is eta_min, in the environment's words, with "
        "the names `analyze` gives them (`s{h}_{state}` at step h; `_end`: the episode ended "
        "there). Long fractions are shown as decimals (4 digits); the exact values follow the "
        "table. V* is the optimal expected total reward of H steps (0: no reward is reachable).",
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
