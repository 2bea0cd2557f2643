"""How long the exact search of endogenous factorisations takes
(``kinematic.exogenous_search.endogenous_factorisations``) at 4 to 12 states per layer, beside
the plain enumeration measured in the same run.

The MDPs (exact numbers, 2 actions, ``--horizon`` layers; widths 4, 6, 8, 9, 10, 12 and 12 again
with another grid):

- *product*: a random endogenous MDP (``random_exact_mdp``, width ``e``, 2 successors per
  pair) times a random exogenous chain of ``x`` values (rows of ninths), ``e x`` states per
  layer: one coarsest factorisation, the declared one;
- *i.i.d. noise*: the same endogenous MDP times uniform noise drawn afresh at every step: one
  coarsest endogenous partition beside many exogenous labellings;
- *no structure*: ``random_exact_mdp`` of the full width, 3 successors per pair: only the
  trivial factorisation;
- *twins*: uniform transitions whatever the action, a reward on 2 states of the last layer:
  ``(n - 3)!!`` coarsest partitions (the other states of the last layer paired any way);
- ACDF's four tabular exogenous MDPs (``kinematic.exogenous_examples``, 10 states, 6 layers).

The baseline is the plain enumeration on the *product* MDPs at 2 layers: every grid of each
layer (pairs of set partitions, from sympy's ``multiset_partitions``) and every combination of
the layers' grids checked by ``check_factorisation``; measured up to ``--baseline-max`` states
per layer, its time projected at the measured rate per combination beyond. Beside it, the time
of sympy's enumeration of all ``Bell(n)`` set partitions of a layer (what ACDF's code does with
``more_itertools.set_partitions``).

Writes its section of ``results/exogenous_search.md``:

    python benchmarks/exogenous_search.py --note "nothing else"
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import numpy as np
from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script
from sympy.utilities.iterables import multiset_partitions

from kinematic import (
    BlockMDP,
    NotFactorised,
    block_mdp,
    check_factorisation,
    endogenous_factorisations,
    exogenous_block_mdp,
    exogenous_chain,
)
from kinematic.exogenous_examples import ACDF_EXAMPLES
from kinematic.families import random_exact_mdp

RESULTS = Path(__file__).parent / "results" / "exogenous_search.md"
GRIDS = [(2, 2), (3, 2), (4, 2), (3, 3), (5, 2), (3, 4), (2, 6)]
"""(endogenous states, exogenous values) of the product MDPs: widths 4 .. 12."""


def random_chain(values: int, horizon: int, seed: int, uniform: bool):
    """A stationary exogenous chain over ``values`` values, start uniform; its rows uniform
    (i.i.d. noise) or of random ninths."""
    rng = np.random.default_rng(seed)
    names = [f"x{i}" for i in range(values)]

    def row() -> dict[str, Fraction]:
        weights = np.ones(values, dtype=int) if uniform else rng.integers(1, 10, size=values)
        return {name: Fraction(int(w), int(weights.sum()))
                for name, w in zip(names, weights, strict=True)}

    return exogenous_chain(names, {name: Fraction(1, values) for name in names},
                           {name: row() for name in names}, horizon=horizon)


def product(endogenous: int, values: int, horizon: int, uniform: bool) -> BlockMDP:
    mdp = random_exact_mdp(horizon, endogenous, 2, min(endogenous, 2), seed=0, denominator=10)
    return exogenous_block_mdp(mdp, random_chain(values, horizon, 0, uniform)).mdp


def twins(width: int, horizon: int) -> BlockMDP:
    """Uniform transitions whatever the action; reward 1 for action a1 on the first two states
    of the last layer."""
    layers = [[f"s{h}_{i}" for i in range(width)] for h in range(1, horizon + 1)]
    uniform = {state: Fraction(1, width) for state in layers[0]}
    transitions = {state: {a: {nxt: Fraction(1, width) for nxt in layers[h + 1]}
                           for a in ("a1", "a2")}
                   for h in range(horizon - 1) for state in layers[h]}
    return block_mdp(f"twins-W{width}-H{horizon}", layers, ["a1", "a2"], uniform, transitions,
                     rewards={state: {"a1": 1} for state in layers[-1][:2]})


def search_rows(horizon: int, repeats: int) -> Iterator[tuple[str, int, BlockMDP]]:
    for e, x in GRIDS:
        yield f"product ({e} x {x})", e * x, product(e, x, horizon, uniform=False)
    for e, x in GRIDS:
        yield f"i.i.d. noise ({e} x {x})", e * x, product(e, x, horizon, uniform=True)
    for width in sorted({e * x for e, x in GRIDS}):
        yield "no structure", width, random_exact_mdp(horizon, width, 2, 3, seed=0,
                                                      denominator=10)
    for width in sorted({e * x for e, x in GRIDS}):
        yield "twins", width, twins(width, horizon)
    for name, make in ACDF_EXAMPLES.items():
        yield f"ACDF {name}", 10, make().mdp


def timed(work: Callable[[], object], repeats: int) -> tuple[float, object]:
    """The median wall-clock of ``repeats`` runs of ``work`` and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def grids(states: tuple[str, ...]) -> Iterator[tuple[dict[str, int], dict[str, int]]]:
    """Every grid of a layer: for each number ``m`` of exogenous values dividing the width, the
    set partitions into ``m`` blocks of equal size (exogenous) and into ``n / m`` (endogenous)
    that meet in one state per pair of blocks."""
    n = len(states)
    for m in (m for m in range(1, n + 1) if n % m == 0):
        k = n // m
        exogenous = [p for p in multiset_partitions(list(states), m) if all(
            len(block) == k for block in p)]
        endogenous = [p for p in multiset_partitions(list(states), k) if all(
            len(block) == m for block in p)]
        for x, e in itertools.product(exogenous, endogenous):
            if all(len(set(a) & set(b)) == 1 for a in x for b in e):
                yield ({z: i for i, block in enumerate(e) for z in block},
                       {z: i for i, block in enumerate(x) for z in block})


def duration(seconds: float) -> str:
    """``seconds`` in the largest unit that keeps it above 1 (s, min, h, days, years).

    >>> duration(42.0), duration(559.0), duration(1.06e10)
    ('42 s', '9.3 min', '336 years')
    """
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            value = seconds / size
            return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.2g} {unit}"
    return f"{seconds:.2g} s"


def grid_count(n: int) -> int:
    """The number of grids of a layer of ``n`` states: ``n! / (k! m!)`` per ``k m = n``."""
    return sum(math.factorial(n) // (math.factorial(k) * math.factorial(n // k))
               for k in range(1, n + 1) if n % k == 0)


def plain_enumeration(mdp: BlockMDP) -> int:
    """The fewest endogenous classes over every combination of the layers' grids that
    ``check_factorisation`` accepts."""
    fewest = None
    for choice in itertools.product(*(list(grids(layer)) for layer in mdp.layers)):
        endogenous = {z: (h, e) for h, (en, _) in enumerate(choice) for z, e in en.items()}
        exogenous = {z: x for _, ex in choice for z, x in ex.items()}
        try:
            check_factorisation(mdp, endogenous, exogenous)
        except NotFactorised:
            continue
        classes = len(set(endogenous.values()))
        fewest = classes if fewest is None else min(fewest, classes)
    assert fewest is not None
    return fewest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=4, help="layers of the MDPs searched")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each search")
    parser.add_argument("--baseline-max", type=int, default=6,
                        help="the widest layer the plain enumeration runs on (it is projected "
                             "beyond)")
    parser.add_argument("--bell-max", type=int, default=12,
                        help="the widest layer whose set partitions sympy enumerates")
    parser.add_argument("--only-small", action="store_true",
                        help="widths up to 6 only (a smoke run)")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/exogenous_search.py",
                            "Finding the endogenous state: the exact search's time")
    started, load = datetime.now(UTC), os.getloadavg()[0]
    grids_used = [(e, x) for e, x in GRIDS if not args.only_small or e * x <= 6]
    print(f"machine: {machine(('numpy', 'sympy'))}; load {load:.2f}")
    rows = []
    for family, width, mdp in search_rows(args.horizon, args.repeats):
        if args.only_small and width > 6:
            continue
        seconds, found = timed(lambda mdp=mdp: endogenous_factorisations(mdp), args.repeats)
        classes = "/".join(str(len(layer)) for layer in found.coarsest[0].endogenous.layers)
        line = (f"| {family} | {width} | {mdp.horizon} | {classes} | {len(found.coarsest)} | "
                f"{found.factorisations:,} | {seconds:.3f} s |")
        print(line, flush=True)
        rows.append(line)
    baseline, rate = [], None
    for e, x in grids_used:
        width = e * x
        mdp = product(e, x, 2, uniform=False)
        combinations = grid_count(width) ** 2
        search, found = timed(lambda mdp=mdp: endogenous_factorisations(mdp), args.repeats)
        if width <= args.baseline_max:
            seconds, fewest = timed(lambda mdp=mdp: plain_enumeration(mdp), 1)
            assert fewest == found.endogenous_classes, (width, fewest)
            rate = seconds / combinations
            plain = f"{seconds:.2f} s (measured)"
        else:
            assert rate is not None
            plain = f"{duration(rate * combinations)} (projected)"
        line = (f"| {width} ({e} x {x}) | {grid_count(width):,} | {combinations:,} | {plain} | "
                f"{search:.4f} s |")
        print(line, flush=True)
        baseline.append(line)
    bell = []
    for n in range(4, (6 if args.only_small else args.bell_max) + 1):
        seconds, count = timed(lambda n=n: sum(1 for _ in multiset_partitions(list(range(n)))),
                               1)
        bell.append(f"| {n} | {count:,} | {seconds:.3f} s |")
        print(bell[-1], flush=True)
    page.write([
        f"`python benchmarks/exogenous_search.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'sympy'))}; load average "
        f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end. One process, one "
        f"thread; median of {args.repeats} runs of each search (wall-clock). Also running: "
        f"{args.note}.",
        "",
        "The search (`endogenous_factorisations`): per MDP, its width (states per layer), "
        "layers, the coarsest endogenous classes per layer, how many coarsest endogenous "
        "partitions and factorisations (pairs of partitions) it found, and its time.",
        "",
        "| MDP | width | layers | classes | coarsest partitions | factorisations | time |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Beside the plain enumeration (every grid of each layer, every combination of the "
        "layers' grids checked by `check_factorisation`), on the product MDPs at 2 layers; "
        "both find the same fewest classes where both ran. Beyond the widths it ran on, its "
        "time is the measured time per combination times the combinations.",
        "",
        "| width | grids per layer | combinations | plain enumeration | search |",
        "|---|---|---|---|---|",
        *baseline,
        "",
        "sympy's `multiset_partitions`: every set partition of a layer (Bell(n); ACDF's code "
        "enumerates them with `more_itertools.set_partitions`), without checking any.",
        "",
        "| states | set partitions | time |",
        "|---|---|---|",
        *bell,
    ])
    print(f"written: {args.results}")


if __name__ == "__main__":
    main()
