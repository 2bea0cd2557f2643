"""HOMER's contrastive models on single layers of the combination lock, against the exact KI
partitions.

For each seed and layer, transitions ``(x, a, x')`` are drawn as HOMER's cover rolls in on the
lock (half of the episodes reach ``{s_a, s_b}`` uniformly, half ``s_c``; then one uniform
action), the backward and forward models are trained with ``train_contrastive`` exactly as in a
run (``restarts`` backward models, the better kept), and the abstractions are compared with
the exact partitions: a *wrong merge* puts two states of distinct forward-KI (phi_F) or
backward-KI (phi_B) classes into one learned class. Isolating one layer removes the cover, the
GPS rounds and the earlier steps from the measurement, so a setting is judged in minutes
instead of whole runs; ``benchmarks/homer_combolock.py --compare`` then checks whole runs.

Usage: ``python benchmarks/lock_abstractions.py [--horizon 10] [--seeds 0,1,2,3,4]
[--layers 1,2,...] [--set FIELD=VALUE ...] [--note TEXT] [--results FILE]`` (``--set``
overrides a ``HomerConfig`` field, e.g. ``--set transitions=4000``). Prints one line per layer
and a summary, and writes them, dated, into this script's section of a Markdown page
(``results_page.py``; default ``benchmarks/results/lock_abstractions.md``, whose notes around
the section are kept); one torch thread.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import torch
from machine import machine  # beside this script (run as a script)
from results_page import ResultsPage  # beside this script

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.evaluate import compare_classes
from homer.models import LinearAbstraction, train_contrastive
from homer.process_state import process_state
from kinematic.families import combination_lock
from kinematic.inseparability import Partition, backward_ki_partition, forward_ki_partition
from kinematic.model import BlockMDP
from kinematic.sampling import categorical

ACTIONS = 10
RESULTS = Path(__file__).parent / "results" / "lock_abstractions.md"


def override(config: HomerConfig, assignment: str) -> HomerConfig:
    name, _, value = assignment.partition("=")
    fields = {f.name: f for f in dataclasses.fields(HomerConfig)}
    if name not in fields:
        raise SystemExit(f"--set: HomerConfig has no field {name!r}")
    kind = float if fields[name].type in (float, "float") else int
    return dataclasses.replace(config, **{name: kind(value)})


def wrong_merges(abstraction: LinearAbstraction, partition: Partition, mdp: BlockMDP,
                 layer: int, rng: np.random.Generator) -> int:
    """Pairs of distinct exact blocks of ``layer`` that ``abstraction`` merges
    (:func:`homer.evaluate.compare_classes`, 300 encodings per observation)."""
    ids = np.repeat(np.arange(len(mdp.observations[layer])), 300)
    learned = abstraction.classes(HadamardNoise().encode(mdp, layer, ids, rng))
    return compare_classes(mdp, layer + 1, partition.kind, partition.blocks(layer + 1), ids,
                           learned).wrong_merges


def one_layer(mdp: BlockMDP, layer: int, config: HomerConfig, seed: int) -> dict:
    rng = np.random.default_rng(1000 * seed + layer)
    roll_in = np.array([0.25, 0.25, 0.5]) if mdp.width(layer) == 3 else np.array([0.5, 0.5])
    n = config.transitions
    states = rng.choice(mdp.width(layer), size=n, p=roll_in)
    actions = rng.integers(ACTIONS, size=n)
    rows = np.asarray(mdp.transitions[layer], dtype=float)
    following = categorical(rows[states * ACTIONS + actions], rng)
    encoder = HadamardNoise()
    x = encoder.encode(mdp, layer, states, rng)
    x_next = encoder.encode(mdp, layer + 1, following, rng)
    started = time.perf_counter()
    trained = train_contrastive(x, actions, x_next, ACTIONS,
                                [True] * config.restarts + [False] * config.forward_restarts,
                                config, torch.Generator().manual_seed(seed * 1000 + layer))
    seconds = time.perf_counter() - started
    backward = min(trained[:config.restarts], key=lambda model: model.validation_loss)
    forward = min(trained[config.restarts:], key=lambda model: model.validation_loss)
    return {
        "forward": wrong_merges(forward.abstraction, forward_ki_partition(mdp), mdp, layer,
                                rng),
        "backward": wrong_merges(backward.abstraction, backward_ki_partition(mdp), mdp,
                                 layer + 1, rng),
        "forward_loss": forward.validation_loss, "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=10)
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--layers", default="",
                        help="0-based layers of x (default: 1 .. H - 2)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the Markdown page whose section is written")
    args = parser.parse_args()
    page = ResultsPage.read(args.results, "benchmarks/lock_abstractions.py",
                            "HOMER's contrastive models on single layers of the lock")
    started = datetime.now(UTC)
    config = HomerConfig()
    for assignment in args.set:
        config = override(config, assignment)
    layers = ([int(x) for x in args.layers.split(",")] if args.layers
              else list(range(1, args.horizon - 1)))
    print(f"machine: {machine(('numpy', 'torch'))}; H = {args.horizon}, settings "
          f"{args.set or 'default'}")
    print(f"{'seed':>4} {'layer':>5} {'phi_F':>5} {'phi_B':>5} {'loss_F':>7} {'seconds':>7}")
    results, rows = [], []
    for seed in (int(s) for s in args.seeds.split(",")):
        mdp = combination_lock(args.horizon, ACTIONS, seed)
        for layer in layers:
            result = one_layer(mdp, layer, config, seed)
            results.append(result)
            print(f"{seed:>4} {layer:>5} {result['forward']:>5} {result['backward']:>5} "
                  f"{result['forward_loss']:>7.4f} {result['seconds']:>7.1f}", flush=True)
            rows.append(f"| {seed} | {layer + 1} | {result['forward']} | {result['backward']} | "
                        f"{result['forward_loss']:.4f} | {result['seconds']:.1f} |")
    summary = (f"layers with wrong merges: phi_F {sum(r['forward'] > 0 for r in results)}"
               f"/{len(results)}, phi_B {sum(r['backward'] > 0 for r in results)}/"
               f"{len(results)}; {np.mean([r['seconds'] for r in results]):.1f} s of training "
               f"per layer")
    print(summary)
    page.write([
        f"`python benchmarks/lock_abstractions.py {shlex.join(sys.argv[1:])}`, "
        f"{started:%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}; H = {args.horizon}, "
        f"settings {', '.join(args.set) or 'default'}; one torch thread. Also running: "
        f"{args.note}.",
        "",
        "layer: the layer h of x, counted from 1 (`--layers` takes 0-based positions); phi_F, "
        "phi_B: pairs of distinct forward-KI classes of layer h (backward-KI classes of layer "
        "h + 1) that the learned abstraction merges; loss_F: the forward model's validation "
        "loss.",
        "",
        "| seed | layer | phi_F | phi_B | loss_F | seconds |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        summary[0].upper() + summary[1:] + ".",
    ])
    print(f"written: {args.results}")


if __name__ == "__main__":
    with process_state(1):  # one torch and BLAS thread, as HOMER's runs
        main()
