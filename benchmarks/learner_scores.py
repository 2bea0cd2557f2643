"""Learners scored against the exact truth, each number beside the exact prediction.

On the combination lock of ``make demo`` (H = 10, K = 10, seed 0), two generated Block MDPs with
several observations per state (``benchmarks/data/generated-a.json``, ``generated-b.json``:
:func:`generated_mdp`, so a learner must find which observations belong together) and slippery
FrozenLake 4x4 unrolled to a horizon (``kinematic.from_gymnasium``), every learner's abstraction
is scored by :mod:`homer.evaluate` (500 encodings of each latent observation by the paper's
encoder, seed 0) against the exact backward KI, forward KI and KI partitions (``def:bki``,
``def:fki``, ``def:ki``), and a learned policy cover by :mod:`homer.policy_evaluation`.

Learners: the reference abstractions of :mod:`homer.reference_learners` (``oracle``, ``random``,
``kmeans``, ``pca-kmeans``); HOMER (:func:`homer.algorithm.run_homer`, the contrastive
objective, capacities from :func:`homer.capacity.required_capacities`); and the Section 5
objectives run in HOMER's loop as :mod:`homer.counterexamples` runs them (``inverse_dynamics``,
``pcid``, ``autoencoder``, ``one_class``). Every run: one torch thread, seed 0, one round of
transitions per step (``max_transitions = transitions``, as ``homer counterexamples``: where a
class has eta < 0.9 GPS rejects it whatever the data, so more rounds only delay the PSDP
fallback). A run's phi-bar = (phi_F, phi_B) is scored against KI and its phi_B against
backward KI (the objectives learn phi_B only, so their phi-bar is phi_B).

The **exact prediction** beside each number (:func:`predictions`) is the same score of the
abstraction the exact analysis says the learner finds, or a bound:

- ``oracle``: the latent states: 0 wrong merges, splits = the KI classes of several states,
  agreement 1. ``kmeans``, ``pca-kmeans``: the same where each state has one observation and a
  step has at most ``capacity`` of them (the lock, FrozenLake); "-" with several observations
  per state (which observations k-means groups depends on the noise: equally far apart).
- ``random``: agreement ``1 - P(same state) - 1/c + 2 P(same state) / c`` for uniform classes
  among ``c``; wrong merges and splits "-" (they depend on the draw).
- HOMER: 0 wrong merges of phi_B against backward KI only as the samples grow without bound
  (``lem:coupling`` with ``lem:bki-ratio``, the paper's asymptotic argument; a capacity of at
  least the backward-KI classes of a step); no prediction for phi-bar against KI (the paper
  says only that phi_F is empirically close to forward KI); a 1/2-policy cover with value
  >= V* - epsilon (``thm:main-theorem``: with probability 1 - delta at the theorem's sample
  sizes, far above a run's, and for a capacity N >= N_KD, which these runs do not use: their
  capacities are the backward- and forward-KI classes of a step); splits "-" (splitting a KI
  class breaks no guarantee); the agreement of the KI partition itself beside it.
- ``inverse_dynamics``, ``pcid``: the coarsest Bayes-optimal abstraction of HOMER's loop with
  exact data (:func:`kinematic.counterexamples.exploration.explore_with_objective`), scored:
  every optimal abstraction refines it, so its wrong merges bound the learned ones ("<="); its
  splits, agreement and cover alpha with every tie broken in the states' favour
  (``worst_case_cover_alpha(most=True)``) are marked "c:" - a learner holds to them only where
  the capacity (that abstraction's most classes of a step, as ``homer.counterexamples`` sets
  it) leaves no room for a finer optimum.
- ``one_class``: one class: every pair of distinct classes merged (scored); alpha at most the
  best single policy's (``single_policy_alpha``).
- ``autoencoder``: "-": the repository's exact optimum (``one_hot_reconstruction_optimum``) is
  for the first step's data only and not unique; run at HOMER's backward capacity.

Each (MDP, learner) is one JSON file in ``benchmarks/results/learner_scores/``; a rerun skips
the files that exist (``--force`` redoes them). Run directories go to ``out/learner_scores/``.
``benchmarks/results/learner_scores.md`` is written from all stored cells.

Usage: ``OMP_NUM_THREADS=1 python benchmarks/learner_scores.py [--mdps lock,generated-a,...]
[--learners oracle,homer,...] [--note "what else ran"] [--force]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from machine import machine  # beside this script (run as a script)

from homer.algorithm import run_homer
from homer.artefacts import load_run
from homer.capacity import SmallCapacityWarning, required_capacities
from homer.compare import compare_run
from homer.config import HomerConfig
from homer.counterexamples import OBJECTIVE_RESTARTS
from homer.evaluate import AbstractionComparison, cover_roll_in, evaluate_abstraction
from homer.reference_learners import (
    default_capacity,
    labelled_abstraction,
    reference_abstraction,
)
from kinematic.counterexamples.exploration import (
    explore_with_objective,
    single_policy_alpha,
    worst_case_cover_alpha,
)
from kinematic.counterexamples.search import OBJECTIVES as EXACT_OBJECTIVES
from kinematic.families import combination_lock, split_state
from kinematic.homing import eta
from kinematic.inseparability import ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels, optimal_values
from kinematic.spec import from_spec, load_spec, to_spec

ROOT = Path(__file__).parent
DATA = ROOT / "data"
CELLS = ROOT / "results" / "learner_scores"
RESULTS = ROOT / "results" / "learner_scores.md"
RUNS = ROOT.parent / "out" / "learner_scores"
FROZEN_LAKE_HORIZON = 6
"""The first horizon at which FrozenLake's goal can be reached (V* = 1/243 > 0)."""

GENERATED = {
    "generated-a": {"seed": 1, "horizon": 6, "width": 3, "actions": 3,
                    "favoured": Fraction(4, 5), "split_layers": (2, 4)},
    "generated-b": {"seed": 2, "horizon": 6, "width": 4, "actions": 2,
                    "favoured": Fraction(3, 4), "split_layers": (3, 5)},
}
"""The arguments of :func:`generated_mdp` behind ``benchmarks/data/<name>.json``."""

REFERENCE = ("oracle", "random", "kmeans", "pca-kmeans")
OBJECTIVES = ("inverse_dynamics", "pcid", "autoencoder", "one_class")
LEARNERS = (*REFERENCE, "homer", *OBJECTIVES)
EXACT_NAME = {"inverse_dynamics": "inverse_dynamics", "pcid": "pcid_target"}
"""A learned objective -> its name in the exact core."""
MDPS = ("lock", "generated-a", "generated-b", "frozenlake")
SAMPLES, SEED = 500, 0


def generated_mdp(name: str, seed: int, horizon: int, width: int, actions: int,
                  favoured: Fraction, split_layers: tuple[int, ...]) -> BlockMDP:
    """A random exact Block MDP with 2-3 observations per state: ``width`` states per layer,
    start uniform; action ``k`` at a state moves to a target of its own (distinct targets per
    state) with probability ``favoured`` and to one other state with the rest; each state emits
    2-3 observations with weights 1-3; reward 1 at one state of the last layer (any action).
    Then one random state of each layer in ``split_layers`` (1-based) is split by its
    observations into two kinematically inseparable halves (:func:`split_state`): KI classes of
    two states, which an abstraction may keep together."""
    rng = np.random.default_rng(seed)
    layers = [[f"s{h + 1}_{i}" for i in range(width)] for h in range(horizon)]
    names = [f"a{k + 1}" for k in range(actions)]
    transitions = {}
    for h in range(horizon - 1):
        for state in layers[h]:
            targets = rng.permutation(width)[:actions]
            row = {}
            for action, target in zip(names, targets, strict=True):
                other = rng.choice([j for j in range(width) if j != target])
                row[action] = {layers[h + 1][target]: str(favoured),
                               layers[h + 1][other]: str(1 - favoured)}
            transitions[state] = row
    emissions = {}
    for state in (s for layer in layers for s in layer):
        weights = rng.integers(1, 4, size=int(rng.integers(2, 4)))
        emissions[state] = {f"{state}.x{k}": str(Fraction(int(w), int(weights.sum())))
                            for k, w in enumerate(weights)}
    goal = layers[-1][int(rng.integers(width))]
    mdp = from_spec({"name": name, "horizon": horizon, "actions": names, "layers": layers,
                     "start": {s: f"1/{width}" for s in layers[0]},
                     "transitions": transitions, "emissions": emissions,
                     "rewards": {goal: dict.fromkeys(names, "1")}})
    for layer in split_layers:
        state = layers[layer - 1][int(rng.integers(width))]
        mdp = split_state(mdp, state, observations_a=list(mdp.observations_of(state))[:1])
    return mdp


def build_mdp(name: str) -> BlockMDP:
    if name == "lock":
        return combination_lock(horizon=10, actions=10, seed=0)
    if name == "frozenlake":
        import gymnasium

        from kinematic import from_gymnasium
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return from_gymnasium(gymnasium.make("FrozenLake-v1"), horizon=FROZEN_LAKE_HORIZON)
    path = DATA / f"{name}.json"
    if not path.exists():
        DATA.mkdir(exist_ok=True)
        spec = to_spec(generated_mdp(name, **GENERATED[name]))
        path.write_text(json.dumps(spec, indent=1) + "\n")
    return load_spec(path)


def scores(steps: dict[int, dict[str, AbstractionComparison]]) -> dict[str, Any]:
    """The table's abstraction numbers from per-step comparisons (phi-bar as ``ki``)."""
    ki = {h: c["ki"] for h, c in steps.items() if "ki" in c}
    backward = {h: c["backward"] for h, c in steps.items() if "backward" in c}
    return {
        "steps": sorted(h for h, comparisons in steps.items() if comparisons),
        "steps_with_wrong_merges_ki": sorted(h for h, c in ki.items() if c.wrong_merges),
        "steps_with_wrong_merges_backward": sorted(h for h, c in backward.items()
                                                   if c.wrong_merges),
        "wrong_merges": sum(c.wrong_merges for c in ki.values()),
        "splits": sum(c.splits for c in ki.values()),
        "pairwise_agreement": float(np.mean([c.pairwise_agreement for c in ki.values()])),
        "per_step": {h: {kind: {"wrong_merges": c.wrong_merges, "splits": c.splits,
                                "misassigned": c.misassigned,
                                "pairwise_agreement": c.pairwise_agreement}
                         for kind, c in comparisons.items()}
                     for h, comparisons in steps.items()},
    }


def score_labels(mdp: BlockMDP, labels: list[np.ndarray], steps: list[int]) -> dict[str, Any]:
    """:func:`scores` of the exact abstraction ``labels`` on ``steps``."""
    report = evaluate_abstraction(mdp, labelled_abstraction(mdp, labels, seed=SEED),
                                  samples=SAMPLES, seed=SEED)
    return scores({h: report.steps[h - 1] for h in steps})


def objective_prediction(mdp: BlockMDP, learner: str) -> tuple[list[np.ndarray], Fraction,
                                                               int]:
    """The exact loop's Bayes-optimal abstraction of ``learner``, the alpha of its cover with
    favourable ties (min over layers 2..H) and its capacity."""
    found = explore_with_objective(mdp, EXACT_OBJECTIVES[EXACT_NAME[learner]])
    alpha = worst_case_cover_alpha(mdp, found.labels, most=True)[0]
    capacity = max(2, *(len(np.unique(labels)) for labels in found.labels))
    return list(found.labels), Fraction(min(alpha[1:])), capacity


def predictions(mdp: BlockMDP, learner: str, steps: list[int]) -> dict[str, Any]:
    """The exact prediction of each number of the row (module docstring); None: no
    prediction, with ``why``."""
    ki = ki_partition(mdp)
    several = sum(1 for h in range(1, mdp.horizon + 1) for block in ki.blocks(h)
                  if len(block) > 1)
    one_observation = all(len(x) == mdp.width(h) for h, x in enumerate(mdp.observations))
    states = [np.asarray(x) for x in mdp.emission_state]
    none = dict.fromkeys(("steps_with_wrong_merges_ki", "steps_with_wrong_merges_backward",
                          "wrong_merges", "splits", "pairwise_agreement", "alpha", "value"))
    if learner == "oracle" or (learner in ("kmeans", "pca-kmeans") and one_observation
                               and default_capacity(mdp) >= max(map(len, mdp.observations))):
        exact = score_labels(mdp, states, steps)
        return {**none, **{k: exact[k] for k in ("steps_with_wrong_merges_ki",
                                                 "steps_with_wrong_merges_backward",
                                                 "wrong_merges", "splits",
                                                 "pairwise_agreement")},
                "several_state_ki_classes": several,
                "why": "the latent states (one observation per state, k >= observations)"
                if learner != "oracle" else "the latent states"}
    if learner in ("kmeans", "pca-kmeans"):
        return {**none, "why": "several observations per state: which observations k-means "
                               "groups depends on the noise (they are equally far apart)"}
    if learner == "random":
        c = default_capacity(mdp)
        roll_in = cover_roll_in(mdp)
        agreement = []
        for h in steps:
            by_state = np.bincount(states[h - 1], weights=roll_in[h - 1])
            same = float(np.sum(by_state ** 2))
            agreement.append(1 - same - 1 / c + 2 * same / c)
        return {**none, "pairwise_agreement": float(np.mean(agreement)),
                "why": f"uniform classes among c = {c}: agreement in expectation; merges and "
                       "splits depend on the draw"}
    if learner == "homer":
        ideal = score_labels(mdp, list(observation_labels(mdp, ki.labels)), steps)
        return {**none, "steps_with_wrong_merges_backward": [],
                "pairwise_agreement": ideal["pairwise_agreement"],
                "alpha": ">= 1/2", "value": ">= V* - epsilon",
                "why": "backward-KI merges: 0 as n -> infinity (lem:coupling, lem:bki-ratio); "
                       "no prediction against KI (phi_F is only empirically forward KI); "
                       "alpha and value: thm:main-theorem, at its sample sizes and for "
                       "N >= N_KD, neither met by a run; agreement: phi-bar = KI"}
    if learner in EXACT_NAME:
        labels, alpha, capacity = objective_prediction(mdp, learner)
        exact = score_labels(mdp, labels, steps)
        spare = [h for h in steps if len(np.unique(labels[h - 1])) < capacity]
        return {**none, **{k: exact[k] for k in ("steps_with_wrong_merges_ki",
                                                 "steps_with_wrong_merges_backward",
                                                 "wrong_merges")},
                "merges_bound": True, "splits": f"c: {exact['splits']}",
                "pairwise_agreement": f"c: {exact['pairwise_agreement']:.3f}",
                "alpha": f"c: {alpha}",
                "why": "the coarsest Bayes-optimal abstraction of the exact loop "
                       "(explore_with_objective; every optimum refines it, so its merges bound "
                       "the learned ones), its splits, agreement and cover alpha with ties in "
                       f"the states' favour (c:); capacity {capacity} leaves room for a finer "
                       f"optimum at steps {spare or 'none'}"}
    if learner == "one_class":
        exact = score_labels(mdp, [np.zeros(len(x), int) for x in mdp.observations], steps)
        best = min(single_policy_alpha(mdp, h) for h in range(1, mdp.horizon))
        return {**none, **{k: exact[k] for k in ("steps_with_wrong_merges_ki",
                                                 "steps_with_wrong_merges_backward",
                                                 "wrong_merges", "splits",
                                                 "pairwise_agreement")},
                "alpha": f"<= {best:.4f}",
                "why": "one class; alpha of the best single policy (single_policy_alpha)"}
    return {**none, "why": "no exact analysis of the autoencoder beyond the first step's data "
                           "(one_hot_reconstruction_optimum), whose optimum is not unique"}


def run_config(mdp: BlockMDP, learner: str) -> HomerConfig:
    """HOMER's or an objective's configuration on ``mdp`` (module docstring)."""
    base = HomerConfig(max_transitions=HomerConfig().transitions, torch_threads=1)
    needs = {name: max(2, need.classes) for name, need in required_capacities(mdp).items()}
    if learner == "homer":
        return replace(base, **needs)
    capacity = {"autoencoder": needs["backward_capacity"], "one_class": 2}.get(learner)
    if capacity is None:
        capacity = objective_prediction(mdp, learner)[2]
    return replace(base, objective=learner, backward_capacity=capacity,
                   forward_capacity=max(base.forward_capacity, capacity),
                   pretraining_width=max(base.pretraining_width, capacity),
                   restarts=max(base.restarts, OBJECTIVE_RESTARTS), allow_small_capacity=True)


def score_cell(mdp_name: str, learner: str) -> dict[str, Any]:
    """One (MDP, learner): the learned numbers, the predictions and the seconds."""
    mdp = build_mdp(mdp_name)
    wall, cpu = time.perf_counter(), time.process_time()
    cell: dict[str, Any] = {"mdp": mdp_name, "mdp_name": mdp.name, "learner": learner,
                            "load_before": os.getloadavg()}
    if learner in REFERENCE:
        phi = reference_abstraction(learner, mdp, seed=SEED)
        report = evaluate_abstraction(mdp, phi, samples=SAMPLES, seed=SEED)
        found = scores(dict(enumerate(report.steps, start=1)))
        cell.update(found, capacity=default_capacity(mdp), alpha=None, value=None)
    else:
        config = run_config(mdp, learner)
        run_dir = RUNS / mdp_name / learner
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallCapacityWarning)
            run_homer(mdp, run_dir, config, seed=SEED, progress=False, force=True)
        cell["run_seconds"] = time.perf_counter() - wall
        report = compare_run(load_run(run_dir), samples=SAMPLES, seed=SEED)
        found = scores(report.abstractions)
        later = [s["alpha_min"] for s in report.steps if s["step"] >= 2]
        cell.update(found, capacity=[config.backward_capacity, config.forward_capacity],
                    alpha=min(later) if later else None, value=report.value,
                    episodes=json.loads((run_dir / "result.json").read_text()).get("episodes"))
    cell["seconds"] = time.perf_counter() - wall
    cell["cpu_seconds"] = time.process_time() - cpu
    cell["optimal_value"] = float(optimal_values(mdp).value)
    cell["prediction"] = predictions(mdp, learner, found["steps"])
    cell["load_after"] = os.getloadavg()
    return cell


def shown(value: Any, digits: int = 3) -> str:
    """A number of the table: "-" for none, a list by its length."""
    if value is None:
        return "-"
    if isinstance(value, list):
        return str(len(value))
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def pair(learned: Any, predicted: Any, bound: bool = False) -> str:
    """``learned (predicted)``; ``bound``: the prediction is an upper bound."""
    return f"{shown(learned)} ({'<= ' if bound else ''}{shown(predicted)})"


def table(cells: list[dict[str, Any]]) -> list[str]:
    lines = ["| MDP | learner | steps w/ wrong merges vs KI | vs backward KI | wrong merges | "
             "splits | agreement | alpha after step 1 | value (V*) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        p = c["prediction"]
        steps, bound = len(c["steps"]), p.get("merges_bound", False)
        value = "-" if c["value"] is None else (f"{c['value']:.3f} ({c['optimal_value']:.3f}"
                                                + (f"; {p['value']}" if p["value"] else "")
                                                + ")")
        merges = [pair(c[key], p[key], bound) for key in (
            "steps_with_wrong_merges_ki", "steps_with_wrong_merges_backward", "wrong_merges")]
        row = [c["mdp"], c["learner"], f"{merges[0]} of {steps}", *merges[1:],
               pair(c["splits"], p["splits"]),
               pair(c["pairwise_agreement"], p["pairwise_agreement"]),
               pair(c["alpha"], p["alpha"]), value]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def most_misassigned(cell: dict[str, Any]) -> float:
    """The largest misassigned share of phi-bar (``ki``) over the cell's steps."""
    return max((step["ki"]["misassigned"] for step in cell["per_step"].values() if step),
               default=0.0)


def write_results(note: str) -> None:
    cells = []
    for mdp in MDPS:
        for learner in LEARNERS:
            path = CELLS / f"{mdp}__{learner}.json"
            if path.exists():
                cells.append(json.loads(path.read_text()))
    mdps = {c["mdp"]: build_mdp(c["mdp"]) for c in cells}
    eta_min = {key: min(min(layer) for layer in eta(mdp))
               for key, mdp in mdps.items()}
    text = [
        "# Learners scored against the exact truth",
        "",
        f"`OMP_NUM_THREADS=1 python benchmarks/learner_scores.py`, written "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine(('numpy', 'torch'))}. Every "
        "number is the learned "
        "one with the exact prediction in parentheses (\"-\": none, see below); each cell's "
        "seconds and load average are listed at the end. Also running: " + note + ".",
        "",
        "MDPs: " + "; ".join(
            f"**{key}** `{mdp.name}` (H = {mdp.horizon}, {sum(map(len, mdp.layers))} states, "
            f"{sum(map(len, mdp.observations))} observations, N_KD per layer <= "
            f"{default_capacity(mdp)}, eta_min = {eta_min[key]})"
            for key, mdp in mdps.items()) + ".",
        "",
        "Columns: steps whose learned abstraction (a run's phi-bar = (phi_F, phi_B); phi_B "
        "alone for the Section 5 objectives) merges distinct KI classes (`def:ki`), steps whose "
        "phi_B (a reference learner: its one abstraction) merges backward-KI classes "
        "(`def:bki`), the wrong merges (pairs of KI classes merged) and splits (KI classes "
        "spread over several learned classes) summed over the steps, Intrepid's pairwise "
        "agreement with the latent states averaged over the steps, the cover's smallest alpha "
        "after step 1 (`def:policy-cover`) and the learned policy's value with V*. 500 "
        "encodings per latent observation, seed 0; reference learners are scored on every "
        "step, runs on the steps with a learned abstraction.",
        "",
        *table(cells),
        "",
        "In parentheses: the exact prediction. `<=`: an upper bound on the wrong merges (the "
        "coarsest Bayes-optimal abstraction of the objective in HOMER's loop with exact data; "
        "every optimum refines it). `c:`: that coarsest abstraction's own number, which a "
        "learner with spare capacity at a step need not match. HOMER: backward-KI merges "
        "from the paper's asymptotic argument (`lem:coupling`), alpha and value from "
        "`thm:main-theorem`, a guarantee with probability 1 - delta at the theorem's sample "
        "sizes and for N >= N_KD, not a run's. Why "
        "each prediction (from `predictions` in the script):",
        "",
        *[f"- {c['mdp']} / {c['learner']}: {c['prediction']['why']}"
          + (f"; KI classes of several states: {c['prediction']['several_state_ki_classes']}"
             if "several_state_ki_classes" in c["prediction"] else "") for c in cells],
        "",
        "Runs: one torch thread, seed 0, `max_transitions = transitions` (one round of "
        "transitions per step, as `homer counterexamples`); the objectives train "
        f"{OBJECTIVE_RESTARTS} models per round. FrozenLake's horizon is the first with a "
        "reachable goal (V* > 0). Seconds per cell (wall; CPU of this process; a run's HOMER "
        "part), the capacity (reference learners: k; runs: [N, M]), the largest share of a "
        "step's encodings outside their observation's assigned class (phi-bar; a noisy "
        "abstraction shows here before it shows as a wrong merge) and the load average (1 "
        "min) before and after:",
        "",
        "| MDP | learner | capacity | seconds | CPU s | run s | episodes | max misassigned | "
        "load |",
        "|---|---|---|---|---|---|---|---|---|",
        *[f"| {c['mdp']} | {c['learner']} | {c['capacity']} | {c['seconds']:.1f} | "
          f"{c['cpu_seconds']:.1f} | {shown(c.get('run_seconds'), 1)} | "
          f"{shown(c.get('episodes'))} | {most_misassigned(c):.3f} | "
          f"{c['load_before'][0]:.2f} -> {c['load_after'][0]:.2f} |" for c in cells],
        "",
        f"Total: {sum(c['seconds'] for c in cells) / 60:.1f} minutes wall, "
        f"{sum(c['cpu_seconds'] for c in cells) / 60:.1f} minutes CPU.",
    ]
    RESULTS.write_text("\n".join(text) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mdps", default=",".join(MDPS))
    parser.add_argument("--learners", default=",".join(LEARNERS))
    parser.add_argument("--note", default="not recorded", help="what else ran meanwhile")
    parser.add_argument("--force", action="store_true", help="redo stored cells")
    parser.add_argument("--repredict", action="store_true",
                        help="recompute the stored cells' predictions; nothing is rerun")
    args = parser.parse_args()
    CELLS.mkdir(parents=True, exist_ok=True)
    if args.repredict:
        for path in sorted(CELLS.glob("*.json")):
            cell = json.loads(path.read_text())
            cell["steps"] = sorted(int(h) for h, step in cell["per_step"].items() if step)
            cell["prediction"] = predictions(build_mdp(cell["mdp"]), cell["learner"],
                                             cell["steps"])
            path.write_text(json.dumps(cell, indent=1) + "\n")
    for mdp in args.mdps.split(","):
        learners = args.learners.split(",")
        if mdp == "frozenlake":  # HOMER and the references only: the objectives' exact loop
            learners = [learner for learner in learners if learner not in OBJECTIVES]
        for learner in learners:
            path = CELLS / f"{mdp}__{learner}.json"
            if path.exists() and not args.force:
                continue
            cell = score_cell(mdp, learner)
            path.write_text(json.dumps(cell, indent=1) + "\n")
            print(f"{mdp} {learner}: {cell['seconds']:.1f} s", file=sys.stderr, flush=True)
    write_results(args.note)


if __name__ == "__main__":
    main()
