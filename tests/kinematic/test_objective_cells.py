"""One cell per objective of the results table (``benchmarks/objectives_table.py``) recomputed by
an independent brute force: the objective's data enumerated trajectory by trajectory from the
MDP's JSON spec (under the uniform random policy, or PPE's candidate paths), every abstraction
of the layer enumerated, and the exact population square loss of each evaluated
(``brute_force_abstractions``). The catalogue's solution must attain the minimum loss with the
fewest classes, be one of the abstractions of fewest classes that do, and call itself unique
exactly when it is the only one.

Wrong implementations this kills: a joint table built with the wrong gap, context or roll-in
(another minimum or another grouping), a PCID target without the previous abstraction, PPE's
posterior over the kept paths instead of the candidates, temporal contrast without the
marginal's fakes, a greedy (not minimum) cover, ``unique`` not computed.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from kinematic import exogenous_combination_lock
from kinematic.counterexamples.catalogue import OBJECTIVES
from kinematic.counterexamples.mdps import curiosity_counterexample
from kinematic.counterexamples.ppe import exact_ppe
from kinematic.model import BlockMDP
from kinematic.spec import to_spec
from tests.kinematic.brute_force_abstractions import brute_force_optimum

F = Fraction


def trajectories(mdp: BlockMDP) -> list[tuple[Fraction, list[str], list[str]]]:
    """Every ``(probability, observations, actions)`` of the uniform random policy, the states
    walked on the spec's dicts and each emitting its observations."""
    spec = to_spec(mdp)
    actions = spec["actions"]
    share = F(1, len(actions))
    walks: list[tuple[Fraction, list[str], list[str]]] = [
        (F(p), [s], []) for s, p in spec["start"].items()]
    for _ in range(mdp.horizon - 1):
        walks = [(p * share * F(q), [*states, target], [*taken, a])
                 for p, states, taken in walks for a in actions
                 for target, q in spec["transitions"].get(states[-1], {}).get(a, {}).items()]
    result = []
    for p, states, taken in walks:
        emissions = [list(mdp.observations_of(s).items()) for s in states]
        for choice in product(*emissions):
            weight = p
            for _, q in choice:
                weight *= F(q)
            result.append((weight, [x for x, _ in choice], taken))
    return result


def table(entries: dict, layer_observations: tuple[str, ...]) -> np.ndarray:
    """``{(context, x, target): mass}`` as an object array ``(contexts, m, targets)``."""
    contexts = sorted({c for c, _, _ in entries}, key=repr)
    targets = sorted({y for _, _, y in entries}, key=repr)
    joint = np.full((len(contexts), len(layer_observations), len(targets)), F(0), dtype=object)
    for (c, x, y), mass in entries.items():
        joint[contexts.index(c), layer_observations.index(x), targets.index(y)] += mass
    return joint


def enumerated_joint(mdp: BlockMDP, name: str, layer: int) -> np.ndarray:
    """The data of objective ``name`` on ``layer`` (0-based), from :func:`trajectories`."""
    entries: dict = defaultdict(F)
    walks = trajectories(mdp)
    if name == "ppe_path_prediction":
        step = exact_ppe(mdp).step(layer)
        for index, path in enumerate(step.candidates):
            for p, xs, taken in walks:
                if tuple(taken[:layer]) == tuple(path):
                    # the walk's actions are uniform: divide by their probability
                    entries[(), xs[layer], index] += p / F(1, mdp.number_of_actions) ** layer \
                        / len(step.candidates)
        return table(entries, mdp.observations[layer])
    previous = (OBJECTIVES["pcid_target"].solve(mdp, layer - 1).labels if layer > 1
                else np.zeros(len(mdp.observations[0]), dtype=int))
    marginal_before: dict = defaultdict(F)
    marginal_here: dict = defaultdict(F)
    pairs: dict = defaultdict(F)
    for p, xs, taken in walks:
        x = xs[layer]
        if name == "inverse_dynamics":
            entries[xs[layer - 1], x, taken[layer - 1]] += p
        elif name == "multistep_inverse_k2":
            entries[xs[layer - 2], x, taken[layer - 2]] += p
        elif name == "multistep_inverse":
            for k in range(1, layer + 1):
                entries[(k, xs[layer - k]), x, taken[layer - k]] += p / layer
        elif name == "pcid_target":
            before = mdp.observations[layer - 1].index(xs[layer - 1])
            entries[(), x, (int(previous[before]), taken[layer - 1])] += p
        elif name == "forward_modelling":
            entries[(), x, xs[layer + 1]] += p
        elif name == "action_forward":
            entries[taken[layer], x, xs[layer + 1]] += p
        elif name == "temporal_contrast":
            pairs[xs[layer - 1], x] += p
            marginal_before[xs[layer - 1]] += p
            marginal_here[x] += p
        else:
            raise AssertionError(name)
    for before, p in marginal_before.items():
        for x, q in marginal_here.items():
            entries[before, x, "fake"] += p * q / 2
    for (before, x), p in pairs.items():
        entries[before, x, "real"] += p / 2
    return table(entries, mdp.observations[layer])


CELLS = [
    (curiosity_counterexample, "inverse_dynamics", 2),
    (curiosity_counterexample, "multistep_inverse_k2", 2),
    (curiosity_counterexample, "multistep_inverse", 2),
    (curiosity_counterexample, "pcid_target", 2),
    (curiosity_counterexample, "ppe_path_prediction", 2),
    (curiosity_counterexample, "forward_modelling", 1),
    (curiosity_counterexample, "temporal_contrast", 2),
    (curiosity_counterexample, "action_forward", 1),
]
NOISY = [(lambda: exogenous_combination_lock(3, 2, seed=0, bits=1).mdp, name, layer)
         for name, layer in [("inverse_dynamics", 1), ("multistep_inverse", 2),
                             ("multistep_inverse_k2", 2), ("pcid_target", 2),
                             ("ppe_path_prediction", 2), ("forward_modelling", 1),
                             ("temporal_contrast", 1), ("action_forward", 1)]]


LOG_LOSSES = {"ac_state", "acdf"}
"""Objectives whose loss is a log loss: their brute force over trajectories is in
``test_acdf_objectives.py``."""


def test_every_square_loss_objective_of_the_catalogue_has_a_cell_here():
    assert {name for _, name, _ in CELLS} == set(OBJECTIVES) - LOG_LOSSES
    assert {name for _, name, _ in NOISY} == set(OBJECTIVES) - LOG_LOSSES


@pytest.mark.parametrize(("build", "name", "layer"), CELLS + NOISY,
                         ids=[f"{i}-{name}-{layer}" for i, (_, name, layer)
                              in enumerate(CELLS + NOISY)])
def test_the_catalogues_solution_is_the_brute_forces_optimum(build, name, layer):
    mdp = build()
    solution = OBJECTIVES[name].solve(mdp, layer)
    best, fewest = brute_force_optimum(enumerated_joint(mdp, name, layer))
    assert solution.loss == best
    blocks = {frozenset(np.flatnonzero(solution.labels == c).tolist())
              for c in np.unique(solution.labels)}
    assert blocks in [{frozenset(block) for block in partition} for partition in fewest]
    assert solution.unique == (len(fewest) == 1)
