"""What an abstraction does for exploration when interleaved with PSDP (paper, Section 5).

HOMER-style exploration with an abstraction ``phi``: for each layer ``h`` and each class ``i``
of ``phi`` on layer ``h``, PSDP maximises the internal reward ``R_{i,h} = 1{phi(x) = i}``; the
policies form ``Psi_h``. With exact data PSDP returns *some* optimal policy for each reward; which
one depends on how its contextual-bandit oracle breaks ties. :func:`worst_case_cover_alpha`
computes the cover quality when every tie is broken against a state (the argument of the
curiosity example); :func:`explore_with_objective` runs the whole interleaved loop, learning
``phi`` on layer ``h`` from data rolled in with ``Psi_{h-1}``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from kinematic.cover import policy_cover_alpha
from kinematic.homing import eta
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.numbers import Number
from kinematic.planning import block_rewards, homer_exact, optimal_values
from kinematic.policies import Policy

__all__ = [
    "ExplorationResult",
    "explore_with_objective",
    "single_policy_alpha",
    "state_groups",
    "visitation_among_optimal",
    "worst_case_cover_alpha",
]


def visitation_among_optimal(
    mdp: BlockMDP, rewards: tuple[np.ndarray, ...], layer: int, most: bool = False
) -> np.ndarray:
    """For each state ``s`` of ``layer``: ``min P_pi(s)`` (``most``: ``max P_pi(s)``) over the
    policies that are optimal for ``rewards`` (those taking an action of ``argmax_a Q*(x, a)``
    at every observation): ties broken against ``s`` (``most``: in its favour).

    Exact dynamic program over observations with the action sets restricted to the optimal ones.
    """
    q_values = optimal_values(mdp, rewards).action_values
    mode = mdp.mode
    result = []
    for i in range(mdp.width(layer)):
        state_values = mode.zeros(mdp.width(layer))
        state_values[i] = mode.scalar(1)
        for t in range(layer - 1, -1, -1):
            per_state = np.asarray(mdp.transitions[t] @ state_values).reshape(
                mdp.width(t), mdp.number_of_actions)[mdp.emission_state[t]]
            q = q_values[t]
            best = q.max(axis=1, keepdims=True)
            optimal = (q == best) if mode.exact else (q >= best - mode.atol)
            if most:
                observation_values = np.where(optimal, per_state, -1).max(axis=1)
            else:
                observation_values = np.where(optimal, per_state, 2).min(axis=1)
            state_values = mdp.emission_matrix(t) @ observation_values
        result.append(mdp.start @ state_values)
    return np.array(result, dtype=mode.dtype)


def worst_case_cover_alpha(
    mdp: BlockMDP, labels: Sequence[np.ndarray], most: bool = False
) -> tuple[tuple[Number, ...], dict[str, Number]]:
    """Cover quality of ``Psi_h = {one optimal policy per class of labels[h]}`` when the optimal
    policies are chosen adversarially: for each state ``s`` of layer ``h``,
    ``alpha(s) = max_i min_{pi optimal for R_{i,h}} P_pi(s) / eta(s)`` (the choices for different
    classes are independent). Returns alpha per layer (layer 1: 1) and per state. With
    ``most`` every tie is broken in the state's favour instead (the best case: an alpha below
    1 then holds whatever tie-breaking PSDP uses)."""
    eta_layers = eta(mdp)
    per_state: dict[str, Number] = {s: mdp.mode.scalar(1) for s in mdp.layers[0]}
    per_layer = [mdp.mode.scalar(1)]
    for h in range(1, mdp.horizon):
        worst = np.stack([
            visitation_among_optimal(mdp, block_rewards(mdp, h + 1, labels[h], block), h, most)
            for block in np.unique(labels[h])
        ])
        ratios = worst.max(axis=0) / eta_layers[h]
        per_state.update(zip(mdp.layers[h], ratios, strict=True))
        per_layer.append(min(ratios))
    return tuple(per_layer), per_state


@dataclass(frozen=True, eq=False)
class ExplorationResult:
    """Result of :func:`explore_with_objective`.

    Attributes
    ----------
    labels : tuple of ndarrays
        The learned abstraction on the observations of each layer (layer 1: one class).
    covers : list of lists of Policy
        ``Psi_1 .. Psi_H`` from exact PSDP (ties: first action).
    alpha : tuple
        Cover quality of each ``Psi_h`` on layer ``h`` for those covers.
    worst_case_alpha : tuple
        The same with every PSDP tie broken against the state (see
        :func:`worst_case_cover_alpha`).
    """

    labels: tuple[np.ndarray, ...]
    covers: list[list[Policy]]
    alpha: tuple[Number, ...]
    worst_case_alpha: tuple[Number, ...]


Objective = Callable[[BlockMDP, Sequence[Policy], int, np.ndarray], np.ndarray]
"""``objective(mdp, cover, layer, previous_labels) -> labels`` on the observations of
``layer``: the abstraction learned from data rolled in with ``Unf(cover)`` then ``Unf(A)``."""


def explore_with_objective(mdp: BlockMDP, objective: Objective) -> ExplorationResult:
    """HOMER's loop with ``objective`` in place of contrastive estimation (exact data):
    :func:`kinematic.planning.homer_exact` with the labelling ``objective`` (``layer`` there
    counted from 1, here from 0), and the alpha of each cover (``def:policy-cover``)."""
    result = homer_exact(mdp, lambda cover, layer, previous: objective(mdp, cover, layer - 1,
                                                                       previous))
    eta_layers = eta(mdp)
    alpha = [mdp.mode.scalar(1)] + [
        policy_cover_alpha(mdp, result.covers[h], eta_layers).alpha_per_layer[h]
        for h in range(1, mdp.horizon)]
    worst, _ = worst_case_cover_alpha(mdp, result.labels)
    return ExplorationResult(result.labels, result.covers, tuple(alpha), worst)


def state_groups(mdp: BlockMDP, layer: int, labels: np.ndarray) -> list[list[str]]:
    """The classes of ``labels`` (on the observations of ``layer``) as lists of state names, in
    order of first appearance."""
    groups: dict[int, list[str]] = {}
    for x, label in enumerate(labels):
        state = mdp.layers[layer][mdp.emission_state[layer][x]]
        if state not in groups.setdefault(int(label), []):
            groups[int(label)].append(state)
    return list(groups.values())


def single_policy_alpha(mdp: BlockMDP, layer: int) -> float:
    """``max_pi min_s P_pi(s) / eta(s)`` over the states of ``layer`` (0-based, >= 1) and every
    policy acting on observations, stochastic ones included: the best alpha of a cover with one
    policy, as a one-class abstraction gets from PSDP (``def:policy-cover``). A linear program
    over the policies' occupancy measures ``d_t(x, a)`` (the flow of each layer's
    observations; scipy's HiGHS), so floats."""
    if not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1}, got {layer}")
    floats = with_float_numbers(mdp) if mdp.mode.exact else mdp
    actions = floats.number_of_actions
    sizes = [len(floats.observations[t]) * actions for t in range(layer)]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    variables = offsets[-1] + 1  # the occupancies, then alpha
    rows, right = [], []
    start = floats.start @ floats.emission_matrix(0)
    for t in range(layer):
        m = len(floats.observations[t])
        for x in range(m):
            row = np.zeros(variables)
            row[offsets[t] + x * actions:offsets[t] + (x + 1) * actions] = 1
            if t > 0:
                inflow = floats.observation_transition_tensor(t - 1)[:, :, x].reshape(-1)
                row[offsets[t - 1]:offsets[t]] -= inflow
            rows.append(row)
            right.append(start[x] if t == 0 else 0.0)
    reach = floats.transition_tensor(layer - 1)[floats.emission_state[layer - 1]]
    eta_layer = np.asarray(eta(floats)[layer], dtype=float)
    bounds_rows = []
    for s in np.flatnonzero(eta_layer > 0):
        row = np.zeros(variables)
        row[offsets[layer - 1]:offsets[layer]] = -reach[:, :, s].reshape(-1)
        row[-1] = eta_layer[s]
        bounds_rows.append(row)
    objective = np.zeros(variables)
    objective[-1] = -1
    solution = linprog(objective, A_ub=np.array(bounds_rows), b_ub=np.zeros(len(bounds_rows)),
                       A_eq=np.array(rows), b_eq=np.array(right),
                       bounds=[(0, None)] * (variables - 1) + [(0, 1)], method="highs")
    if not solution.success or solution.x is None:
        raise RuntimeError(f"the occupancy LP of layer {layer} failed: {solution.message}")
    return float(solution.x[-1])
