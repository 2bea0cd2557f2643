"""Artefacts built by hand for a noiseless encoder: every encoding of an observation is the
same vector, so linear abstractions and policies that read the one-hot coordinates back act
deterministically and their exact effect is known. Leaks planted on purpose: a linear
abstraction that sends a chosen share of an observation's noisy encodings to another class
(:func:`leaking_abstraction`), and a hand-written phi that does so exactly
(:func:`leaking_phi`)."""

from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from homer.artefacts import RunArtefacts
from homer.encoders import HadamardNoise
from homer.evaluate import Abstraction
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


def leaking_abstraction(mdp: BlockMDP, layer: int, kept: Sequence[int], leaking: Sequence[int],
                        share: float, encoder: HadamardNoise, classes: int = 2
                        ) -> LinearAbstraction:
    """Two classes of the observations of ``layer`` (0-based): ``kept`` in class 0,
    ``leaking`` in class 1, except that each encoding of a ``leaking`` observation goes to
    class 0 with probability ``share`` under ``encoder``'s noise (that of ``kept`` stay, ``2 /
    (sigma sqrt(len(kept) + len(leaking)))`` standard deviations away); ``classes`` rows in
    all, those after the first two never chosen.

    Row k sums the matrix's columns of its observations, so on an encoding of a ``leaking``
    observation class 0 scores ``c (noise of kept) + bias`` and class 1 ``c (1 + noise of
    leaking)``, ``c`` a column's squared norm: class 0 wins with probability ``share`` for
    ``bias = c (1 + sigma sqrt(len(kept) + len(leaking)) Phi^-1(share))``."""
    weight, _ = reader(mdp, [kept, leaking])
    scale = float(encoder.rotation(mdp)[:, 0] @ encoder.rotation(mdp)[:, 0])
    spread = np.sqrt(encoder.noise_variance * (len(kept) + len(leaking)))
    bias = scale * (1 + spread * NormalDist().inv_cdf(share))
    rows = np.zeros((classes, weight.shape[1]), dtype=np.float32)
    rows[:2] = weight
    biases = np.full(classes, -1e9, dtype=np.float32)
    biases[:2] = [bias, 0.0]
    return LinearAbstraction(rows, biases)


def leaking_phi(share: float) -> Abstraction:
    """phi on the H = 3, K = 2 lock (``combination_lock(3, 2, 0)``): its exact KI classes -
    each state its own class at steps 1 and 2, {s3a, s3b} (class 0) and {s3c} (class 1) at step
    3 - except that rows ``k`` of s3c's encodings (numbered in order) with ``k mod 100 < 100
    share`` go to the class of {s3a, s3b}: exactly ``share`` of them when they are a multiple
    of 100."""
    mdp = combination_lock(3, 2, 0)

    def phi(observations: np.ndarray, step: int) -> np.ndarray:
        observation = ENCODER.decode(mdp, observations, step)
        classes = np.asarray(mdp.emission_state[step - 1])[observation]
        if step == 3:
            classes = (classes == mdp.layers[2].index("s3c")).astype(int)
            rows = np.flatnonzero(classes == 1)
            classes[rows[np.arange(len(rows)) % 100 < round(100 * share)]] = 0
        return classes
    return phi
