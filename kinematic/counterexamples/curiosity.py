"""Curiosity / inverse dynamics (Section 5, "Predicting Previous Action from Observations").

On :func:`kinematic.counterexamples.mdps.curiosity_counterexample` the previous action is perfectly
predictable from ``(x, x')`` wherever ``x'`` comes from ``{s7, s8}``, so the abstraction merging
``{s3, s4}``, ``{s5, s6}`` and ``{s7, s8}`` attains the Bayes-optimal inverse-dynamics loss (at
layer 3 it is the only Bayes-optimal abstraction with two classes, the coarsest possible). The
internal reward of the class ``{s7, s8}`` has a single optimal policy - the text's, ``a1`` in
``s1`` and ``s3``, ``a2`` in ``s2`` and ``s6`` - which reaches ``s7`` surely and ``s8`` never,
so the cover has alpha = 0 at ``s8`` whatever tie-breaking PSDP uses (first action, against a
state or in its favour: all three are computed). The backward KI abstraction with exact PSDP
gives alpha = 1 everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from kinematic.counterexamples import Counterexample
from kinematic.counterexamples.exploration import (
    explore_with_objective,
    state_groups,
    worst_case_cover_alpha,
)
from kinematic.counterexamples.mdps import curiosity_counterexample
from kinematic.counterexamples.objectives import (
    inverse_dynamics_abstraction,
    inverse_dynamics_posteriors,
    is_inverse_dynamics_optimal,
    square_loss,
    transition_distribution,
)
from kinematic.cover import policy_cover_alpha
from kinematic.homing import eta
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
              _labels(mdp, 2, [["s7", "s8"], ["s9"]])]
    numbers: dict = {}
    optimal = True
    cover: list[Policy] = []
    for h in (1, 2):
        joint = transition_distribution(mdp, cover, h)
        bayes, abstracted = inverse_dynamics_loss(joint), inverse_dynamics_loss(joint, merged[h])
        optimal &= bayes == abstracted and is_inverse_dynamics_optimal(joint, merged[h])
        numbers[f"layer {h + 1}: Bayes-optimal square loss"] = str(bayes)
        numbers[f"layer {h + 1}: loss with the merged abstraction"] = str(abstracted)
        numbers[f"layer {h + 1}: Bayes-optimal two-class abstractions"] = [
            state_groups(mdp, h, labels) for labels in _two_class_labels(len(merged[h]))
            if is_inverse_dynamics_optimal(joint, labels)]
        if h == 1:
            cover = [state_policy(mdp, {"s1": "a1", "s2": "a1"}),
                     state_policy(mdp, {"s1": "a2", "s2": "a2"})]
    merged_states = {mdp.layers[2].index(s) for s in ("s7", "s8")}
    into_merged = [y for y, state in enumerate(mdp.emission_state[2]) if state in merged_states]
    predictable = all(max(posterior) == 1 for (x, y), posterior
                      in inverse_dynamics_posteriors(joint).items() if y in into_merged)
    numbers["layer 3: p(a | x, x') is a point mass for every x' from {s7,s8}"] = predictable
    found = explore_with_objective(mdp, inverse_dynamics_objective)
    numbers["coarsest Bayes-optimal classes found (HOMER loop, exact PSDP)"] = [
        state_groups(mdp, h, found.labels[h]) for h in range(mdp.horizon)]

    reward = block_rewards(mdp, 3, merged[2], 0)
    best = optimal_values(mdp, reward).value
    paper_policy = state_policy(mdp, {"s1": "a1", "s3": "a1", "s2": "a2", "s6": "a2"})
    visits = state_visitation(mdp, paper_policy)[2]
    numbers.update({
        "max value of the internal reward of {s7,s8}": str(best),
        "value of pi (a1 in s1, s3; a2 in s2, s6)": str(policy_value(mdp, paper_policy,
                                                                    reward)),
        "P_pi(s7)": str(visits[0]), "P_pi(s8)": str(visits[1]),
        "eta(s8)": str(eta(mdp, "s8")),
    })
    worst = found.worst_case_alpha  # explore_with_objective computed it
    luckiest, per_state = worst_case_cover_alpha(mdp, found.labels, most=True)
    numbers["alpha per layer, curiosity abstraction, first-action PSDP"] = [
        str(a) for a in found.alpha]
    numbers["alpha per layer, curiosity abstraction, ties against a state"] = [
        str(a) for a in worst]
    numbers["alpha per layer, curiosity abstraction, ties in a state's favour"] = [
        str(a) for a in luckiest]
    numbers["alpha at s8, ties in its favour"] = str(per_state["s8"])

    backward = observation_labels(mdp, backward_ki_partition(mdp).labels)
    covers = exp_oracle_exact(mdp, backward)
    alphas = [policy_cover_alpha(mdp, covers[h]).alpha_per_layer[h]
              for h in range(1, mdp.horizon)]
    kinematic_worst, _ = worst_case_cover_alpha(mdp, backward)
    numbers["alpha per layer, backward KI + exact PSDP"] = [str(a) for a in alphas]
    numbers["worst-case alpha per layer, backward KI"] = [str(a) for a in kinematic_worst]

    holds = (
        optimal and predictable
        and numbers["layer 3: Bayes-optimal two-class abstractions"] == [[["s7", "s8"], ["s9"]]]
        and [sorted(map(sorted, g)) for g in
             numbers["coarsest Bayes-optimal classes found (HOMER loop, exact PSDP)"]]
        == [[["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]], [["s7", "s8"], ["s9"]]]
        and best == 1 == policy_value(mdp, paper_policy, reward)
        and visits[0] == 1 and visits[1] == 0
        and found.alpha[2] == worst[2] == luckiest[2] == 0
        and all(a == 1 for a in alphas) and all(a == 1 for a in kinematic_worst)
    )
    return Counterexample(
        "curiosity",
        "the previous action is perfectly predictable from (x, x') for x' in {s7,s8}, so "
        "merging {s3,s4}, {s5,s6}, {s7,s8} attains the Bayes-optimal inverse-dynamics loss (at "
        "layer 3 the only Bayes-optimal two-class abstraction); the only optimal policy for the "
        "{s7,s8} reward (a1 in s1, s3; a2 in s2, s6) never visits s8, so the cover has alpha = 0 "
        "under any tie-breaking, while backward KI with exact PSDP gives alpha = 1",
        bool(holds),
        numbers,
    )


def _two_class_labels(observations: int) -> list[np.ndarray]:
    """Every split of ``observations`` into two non-empty classes (observation 0 in class 0)."""
    return [np.array([(mask >> y) & 1 for y in range(observations)])
            for mask in range(2, 2 ** observations, 2)]
