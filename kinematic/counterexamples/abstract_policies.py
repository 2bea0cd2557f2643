"""Policies that act on abstract states (as in the model-based cover construction of PCID,
Section 5): one action per class of the abstraction, per layer.

The visitation probability of a state is multilinear in the classes' action distributions, so
deterministic class policies attain the maximum. :func:`best_class_policy_visitation` searches
them forward, layer by layer, over the distinct state distributions they reach (exact tuples),
pruning with the unconstrained optimum as an upper bound (branch and bound): enumeration only
where the frontier is small.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from kinematic.homing import eta
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.numbers import Number

__all__ = ["abstract_cover_alpha", "best_class_policy_visitation"]


def _step(mdp: BlockMDP, layer: int, distribution: np.ndarray, labels: np.ndarray,
          assignment: Sequence[int]) -> np.ndarray:
    """State distribution at ``layer + 1`` when class ``c`` of ``layer`` takes ``assignment[c]``."""
    classes = np.unique(labels)
    action_of_observation = np.array([assignment[np.searchsorted(classes, c)] for c in labels])
    acting = mdp.mode.zeros((len(labels), mdp.number_of_actions))
    acting[np.arange(len(labels)), action_of_observation] = mdp.mode.scalar(1)
    state_actions = mdp.emission_matrix(layer) @ acting  # P(a | s)
    joint = distribution[:, None] * state_actions
    return np.asarray(joint.reshape(-1) @ mdp.transitions[layer]).reshape(-1)


def _reach_bounds(mdp: BlockMDP, target_layer: int, target: int) -> list[np.ndarray]:
    """``max_pi P(target | s_t = s)`` for every layer ``t`` before the target (no constraint)."""
    values = mdp.mode.zeros(mdp.width(target_layer))
    values[target] = mdp.mode.scalar(1)
    bounds = [values]
    for t in range(target_layer - 1, -1, -1):
        q = np.asarray(mdp.transitions[t] @ values).reshape(mdp.width(t), mdp.number_of_actions)
        values = q.max(axis=1)
        bounds.append(values)
    return bounds[::-1]


def best_class_policy_visitation(
    mdp: BlockMDP, labels: Sequence[np.ndarray], state: str
) -> Number:
    """``max P_pi(state)`` over policies taking one action per class of ``labels[t]`` (labels
    on the observations of each layer)."""
    target_layer, target = find(mdp.state_location, state, "state", "state")
    if target_layer == 0:
        return mdp.start[target]
    bounds = _reach_bounds(mdp, target_layer, target)
    frontier = {tuple(mdp.start): mdp.start}
    best_known = mdp.mode.scalar(0)
    for t in range(target_layer):
        classes = len(np.unique(labels[t]))
        following: dict[tuple, np.ndarray] = {}
        for distribution in frontier.values():
            for assignment in itertools.product(range(mdp.number_of_actions), repeat=classes):
                reached = _step(mdp, t, distribution, labels[t], assignment)
                key = tuple(reached)
                if key not in following:
                    following[key] = reached
        if t + 1 == target_layer:
            return max(d[target] for d in following.values())
        # a lower bound from any completion: the value of the first distribution's greedy path
        best_known = max(best_known, _any_completion(mdp, labels, following, t + 1, target_layer,
                                                     target))
        frontier = {
            key: d for key, d in following.items() if (d * bounds[t + 1]).sum() >= best_known
        }
    raise AssertionError("unreachable")


def _any_completion(mdp: BlockMDP, labels: Sequence[np.ndarray],
                    frontier: Mapping[tuple, np.ndarray], layer: int, target_layer: int,
                    target: int) -> Number:
    """Value of completing one frontier distribution with class policies that always take the
    first action (a lower bound on the optimum)."""
    distribution = next(iter(frontier.values()))
    for t in range(layer, target_layer):
        distribution = _step(mdp, t, distribution, labels[t], [0] * len(np.unique(labels[t])))
    return distribution[target]


def abstract_cover_alpha(
    mdp: BlockMDP, labels: Sequence[np.ndarray]
) -> tuple[Number, dict[str, Number]]:
    """The best cover quality achievable with class policies:
    ``min_s max_{pi over classes} P_pi(s) / eta(s)``, and that ratio per state."""
    eta_layers = eta(mdp)
    ratios = {
        state: best_class_policy_visitation(mdp, labels, state) / eta_layers[h][i]
        for h, layer in enumerate(mdp.layers) for i, state in enumerate(layer)
    }
    return min(ratios.values()), ratios
