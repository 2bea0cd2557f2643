"""Curiosity / inverse dynamics (Section 5, "Predicting Previous Action from Observations").

On :func:`kinematic.families.curiosity_counterexample`, the abstraction merging ``{s3, s4}``,
``{s5, s6}`` and ``{s7, s8}`` attains the Bayes-optimal inverse-dynamics loss; the internal
reward of the class ``{s7, s8}`` has an optimal policy that reaches ``s7`` surely and ``s8``
never, so the cover built from it has alpha = 0 at ``s8``; the backward KI abstraction with exact
PSDP gives alpha = 1 everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from kinematic.counterexamples import Counterexample
from kinematic.counterexamples.exploration import explore_with_objective, worst_case_cover_alpha
from kinematic.counterexamples.objectives import (
    inverse_dynamics_abstraction,
    is_inverse_dynamics_optimal,
    square_loss,
    transition_distribution,
)
from kinematic.families import curiosity_counterexample
from kinematic.homing import maximum_visitation
from kinematic.inseparability import backward_ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import block_rewards, exp_oracle_exact, observation_labels, optimal_values
from kinematic.policies import Policy, state_policy
from kinematic.visitation import policy_value, state_visitation

__all__ = ["curiosity_claim", "inverse_dynamics_loss", "inverse_dynamics_objective"]


def inverse_dynamics_objective(
    mdp: BlockMDP, cover: Sequence[Policy], layer: int, previous_labels: np.ndarray
) -> np.ndarray:
    """The (greedy, coarse) Bayes-optimal inverse-dynamics abstraction of ``layer``."""
    return inverse_dynamics_abstraction(transition_distribution(mdp, cover, layer))


def inverse_dynamics_loss(joint: np.ndarray, labels: np.ndarray | None = None) -> Fraction:
    """Square loss of the best predictor of ``a`` from ``(x, phi(x'))`` (``labels`` = phi)."""
    m, actions, following = joint.shape
    labels = np.arange(following) if labels is None else np.asarray(labels)
    table = joint.transpose(0, 2, 1).reshape(m * following, actions)
    inputs = [
        [x * following + y for y in np.flatnonzero(labels == label)]
        for x in range(m) for label in np.unique(labels)
    ]
    return square_loss(table, inputs)


def _labels(mdp: BlockMDP, layer: int, groups: list[list[str]]) -> np.ndarray:
    """Observation labels of ``layer`` from groups of state names."""
    of_state = {s: i for i, group in enumerate(groups) for s in group}
    return np.array([of_state[mdp.layers[layer][s]] for s in mdp.emission_state[layer]])


def curiosity_claim() -> Counterexample:
    mdp = curiosity_counterexample()
    merged = [np.zeros(2, dtype=np.intp),
              _labels(mdp, 1, [["s3", "s4"], ["s5", "s6"]]),
              _labels(mdp, 2, [["s7", "s8"]])]
    wrong = _labels(mdp, 1, [["s3", "s5"], ["s4", "s6"]])
    numbers: dict = {}
    optimal = True
    cover: list[Policy] = []
    for h in (1, 2):
        joint = transition_distribution(mdp, cover, h)
        bayes, abstracted = inverse_dynamics_loss(joint), inverse_dynamics_loss(joint, merged[h])
        optimal &= bayes == abstracted and is_inverse_dynamics_optimal(joint, merged[h])
        numbers[f"layer {h + 1}: Bayes-optimal square loss"] = str(bayes)
        numbers[f"layer {h + 1}: loss with the merged abstraction"] = str(abstracted)
        if h == 1:
            numbers["layer 2: loss when merging {s3,s5} and {s4,s6} instead"] = str(
                inverse_dynamics_loss(joint, wrong))
            cover = [state_policy(mdp, {"s1": "a1", "s2": "a1"}),
                     state_policy(mdp, {"s1": "a2", "s2": "a2"})]
    found = explore_with_objective(mdp, inverse_dynamics_objective)
    numbers["greedy Bayes-optimal classes found, layer 3"] = len(np.unique(found.labels[2]))

    reward = block_rewards(mdp, 2, merged[2], 0)
    best = optimal_values(mdp, reward).value
    tie_break = state_policy(mdp, {"s1": "a1", "s3": "a1", "s2": "a2", "s6": "a2"})
    visits = state_visitation(mdp, tie_break)[2]
    eta_s8 = maximum_visitation(mdp)[2][1]
    numbers.update({
        "max value of the internal reward of {s7,s8}": str(best),
        "value of pi (a1 in s1, s3; a2 in s2, s6)": str(policy_value(mdp, tie_break, reward)),
        "P_pi(s7)": str(visits[0]), "P_pi(s8)": str(visits[1]), "eta(s8)": str(eta_s8),
        "alpha at s8 of the cover {pi}": str(visits[1] / eta_s8),
    })
    worst, _ = worst_case_cover_alpha(mdp, merged)
    numbers["worst-case alpha per layer, curiosity abstraction"] = [str(a) for a in worst]

    backward = observation_labels(mdp, backward_ki_partition(mdp).labels)
    covers = exp_oracle_exact(mdp, backward)
    alphas = []
    for h in range(1, mdp.horizon):
        reached = np.max(np.stack([state_visitation(mdp, p)[h] for p in covers[h]]), axis=0)
        alphas.append(min(reached / maximum_visitation(mdp)[h]))
    kinematic_worst, _ = worst_case_cover_alpha(mdp, backward)
    numbers["alpha per layer, backward KI + exact PSDP"] = [str(a) for a in alphas]
    numbers["worst-case alpha per layer, backward KI"] = [str(a) for a in kinematic_worst]

    holds = (
        optimal
        and best == 1 == policy_value(mdp, tie_break, reward)
        and visits[0] == 1 and visits[1] == 0 and worst[2] == 0
        and all(a == 1 for a in alphas) and all(a == 1 for a in kinematic_worst)
    )
    return Counterexample(
        "curiosity",
        "merging {s3,s4}, {s5,s6}, {s7,s8} attains the Bayes-optimal inverse-dynamics loss; an "
        "optimal policy for the {s7,s8} reward never visits s8 (alpha = 0 there), while backward "
        "KI with exact PSDP gives alpha = 1",
        bool(holds),
        numbers,
    )
