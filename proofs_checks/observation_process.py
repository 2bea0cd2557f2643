"""Observation-level dynamics, for claims about observations rather than states
(``lem:state-inseparable``, ``fact:time-separable``, the bounds on ``N_KD``).

``T(x' | x, a) = sum_s b(s | x) sum_s' T(s' | s, a) q(x' | s')``, where ``b(s | x)`` is the
posterior of the latent state given ``x`` under the uniform policy. In a Block MDP ``b`` is a
point mass (the decoder), so ``T`` does not depend on the reference policy; with overlapping
emissions (negative controls) it does, and the process is built for that reference.
KI relations are then computed from these matrices by the definitions, pairwise, independently
of :mod:`kinematic.inseparability`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from kinematic.model import BlockMDP
from kinematic.policies import uniform_policy
from kinematic.visitation import state_visitation

__all__ = [
    "LatentModel",
    "ObservationProcess",
    "latent_model",
    "observation_process",
    "with_overlapping_emission",
]


@dataclass(frozen=True, eq=False)
class LatentModel:
    """A layered latent model whose emissions may overlap (exact arrays).

    ``transitions[h]``: ``(n_h, |A|, n_{h+1})``; ``emissions[h]``: ``(n_h, m_h)``;
    ``observations[h]``: names of the ``m_h`` observations of layer ``h``.
    """

    mdp: BlockMDP
    transitions: tuple[np.ndarray, ...]
    emissions: tuple[np.ndarray, ...]
    observations: tuple[tuple[str, ...], ...]


def latent_model(mdp: BlockMDP) -> LatentModel:
    """The latent model of a Block MDP (disjoint emissions)."""
    return LatentModel(
        mdp,
        tuple(mdp.transition_tensor(h) for h in range(mdp.horizon - 1)),
        tuple(mdp.emission_matrix(h) for h in range(mdp.horizon)),
        mdp.observations,
    )


def with_overlapping_emission(mdp: BlockMDP, layer: int, first: int, second: int) -> LatentModel:
    """Break Assumption 1: state ``second`` of ``layer`` also emits the first observation of
    state ``first`` (with half of its emission mass)."""
    model = latent_model(mdp)
    emissions = list(model.emissions)
    matrix = emissions[layer].copy()
    shared = int(np.flatnonzero(matrix[first] != 0)[0])
    matrix[second] = matrix[second] / 2
    matrix[second, shared] += mdp.mode.scalar(1) / 2
    emissions[layer] = matrix
    return LatentModel(mdp, model.transitions, tuple(emissions), model.observations)


@dataclass(frozen=True, eq=False)
class ObservationProcess:
    """``transitions[h]``: ``T(x' | x, a)``, shape ``(m_h, |A|, m_{h+1})``; ``emitters[h][x]``:
    the states of layer ``h`` that emit ``x``."""

    observations: tuple[tuple[str, ...], ...]
    transitions: tuple[np.ndarray, ...]
    emitters: tuple[tuple[frozenset[int], ...], ...]

    def forward_ki(self, layer: int, first: int, second: int) -> bool:
        """``def:fki``: equal rows for every action (layer H: no forward dynamics, always KI)."""
        if layer == len(self.observations) - 1:
            return True
        matrix = self.transitions[layer]
        return bool((matrix[first] == matrix[second]).all())

    def backward_ki(self, layer: int, first: int, second: int) -> bool:
        """``def:bki`` via cross products: the incoming columns over ``(x, a)`` are proportional
        (layer 1: no backward dynamics, always KI)."""
        if layer == 0:
            return True
        matrix = self.transitions[layer - 1]
        left = matrix[:, :, first].reshape(-1)
        right = matrix[:, :, second].reshape(-1)
        return all(
            left[i] * right[j] == left[j] * right[i]
            for i, j in itertools.combinations(range(len(left)), 2)
        ) and all((left[i] == 0) == (right[i] == 0) for i in range(len(left)))

    def ki(self, layer: int, first: int, second: int) -> bool:
        """``def:ki``: both."""
        return self.forward_ki(layer, first, second) and self.backward_ki(layer, first, second)

    def number_of_classes(self, relation: str) -> int:
        """Size of the partition of all observations by ``relation`` (``"forward"``,
        ``"backward"`` or ``"ki"``), counted per layer by a union of pairwise relations."""
        test = {"forward": self.forward_ki, "backward": self.backward_ki, "ki": self.ki}[relation]
        total = 0
        for h, names in enumerate(self.observations):
            representatives: list[int] = []
            for x in range(len(names)):
                if not any(test(h, r, x) for r in representatives):
                    representatives.append(x)
            total += len(representatives)
        return total


def observation_process(model: LatentModel) -> ObservationProcess:
    """The observation-level dynamics of ``model`` (beliefs from the uniform policy)."""
    mdp = model.mdp
    visitation = state_visitation(mdp, uniform_policy(mdp))
    transitions = []
    for h in range(len(model.observations) - 1):
        joint = visitation[h][:, None] * model.emissions[h]  # P(s, x)
        totals = joint.sum(axis=0)
        belief = joint / np.where(totals == 0, 1, totals)  # b(s | x)
        per_state = np.einsum("sat,ty->say", model.transitions[h], model.emissions[h + 1])
        transitions.append(np.einsum("sx,say->xay", belief, per_state))
    emitters = tuple(
        tuple(frozenset(np.flatnonzero(matrix[:, x] != 0).tolist()) for x in range(matrix.shape[1]))
        for matrix in model.emissions
    )
    return ObservationProcess(model.observations, tuple(transitions), emitters)
