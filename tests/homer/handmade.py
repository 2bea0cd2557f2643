"""Artefacts built by hand for a noiseless encoder: every encoding of an observation is the
same vector, so linear abstractions and policies that read the one-hot coordinates back act
deterministically and their exact effect is known."""

from collections.abc import Mapping, Sequence

import numpy as np

from homer.artefacts import RunArtefacts
from homer.encoders import HadamardNoise
from homer.models import LinearAbstraction
from homer.sampler import LinearPolicy
from kinematic.families import combination_lock, combination_lock_optimal_choices
from kinematic.homing import homing_policy_choices
from kinematic.model import BlockMDP

ENCODER = HadamardNoise(noise_variance=0.0)


def lock() -> BlockMDP:
    """H=4, K=3: good actions u = (a3, a2, a2, a1), v = (a1, a1, a1, a1), so s_{h,a} and
    s_{h,b} are forward-separable except on the last layer."""
    return combination_lock(4, 3, 0)


def reader(mdp: BlockMDP, rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """A linear map whose row ``k`` sums the one-hot coordinates of the observations
    ``rows[k]``: argmax picks the row holding the observation."""
    rotation = ENCODER.rotation(mdp)
    weight = np.zeros((len(rows), rotation.shape[0]), dtype=np.float32)
    for k, observations in enumerate(rows):
        for o in observations:
            weight[k] += rotation[:, o]
    return weight, np.zeros(len(rows), dtype=np.float32)


def abstraction(mdp: BlockMDP, assignment: Sequence[int]) -> LinearAbstraction:
    """phi(observation o) = assignment[o]."""
    classes = max(assignment) + 1
    return LinearAbstraction(*reader(mdp, [[o for o, c in enumerate(assignment) if c == k]
                                           for k in range(classes)]))


def policy(mdp: BlockMDP, choices: Mapping[str, str], steps: int) -> LinearPolicy:
    """The deterministic policy taking ``choices[state]`` (first action elsewhere)."""
    weights, biases = [], []
    for t in range(steps):
        rows = [[] for _ in mdp.actions]
        for o in range(len(mdp.observations[t])):
            state = mdp.layers[t][mdp.emission_state[t][o]]
            rows[mdp.actions.index(choices.get(state, mdp.actions[0]))].append(o)
        weight, bias = reader(mdp, rows)
        weights.append(weight)
        biases.append(bias)
    return LinearPolicy(weights, biases)


def homing_covers(mdp: BlockMDP) -> list[list[LinearPolicy]]:
    """Exact homing policies of every state as linear policies (the covers of a perfect run):
    ``covers[h]`` reaches layer ``h``, ``covers[0]`` is the empty policy."""
    return [[LinearPolicy([], [])]] + [
        [policy(mdp, homing_policy_choices(mdp, s), h) for s in mdp.layers[h]]
        for h in range(1, mdp.horizon)]


def perfect_artefacts(mdp: BlockMDP, **changes) -> RunArtefacts:
    """Homing policies for every state as the covers, phi_B = backward KI, phi_F = forward KI
    (a, b, c apart; a, b together on the last layer for phi_B) of :func:`lock`, the optimal
    policy; ``changes`` replace fields."""
    covers = homing_covers(mdp)
    backward = {h: abstraction(mdp, [0, 0, 1]) for h in range(1, mdp.horizon)}
    forward = {0: abstraction(mdp, [0, 1])}
    forward.update({h: abstraction(mdp, [0, 1, 2]) for h in range(1, mdp.horizon - 1)})
    optimal = policy(mdp, combination_lock_optimal_choices(4, 3, 0), mdp.horizon)
    log = [{"step": h + 1, "episodes": 100} for h in range(1, mdp.horizon)]
    fields = {"mdp": mdp, "encoder": ENCODER, "covers": covers, "backward": backward,
              "forward": forward, "policy": optimal, "log": log, "summary": {}}
    return RunArtefacts(**{**fields, **changes})
