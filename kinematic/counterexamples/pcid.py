"""PCID (Du et al. 2019), Section 5: "Predicting Previous Action and Abstract State".

- Target (``pcid_target``): on :func:`kinematic.counterexamples.mdps.curiosity_counterexample` the
  Bayes-optimal abstraction for predicting ``(phi_{h-1}(x), a)`` from ``x'`` merges ``{s1, s2}``
  (a stochastic start has nothing to predict), then ``{s3, s4}``, ``{s5, s6}`` and ``{s7, s8}``:
  the same failure as curiosity (``s7`` and ``s8`` have equal posteriors over the previous
  class and action, ``s9`` another), caused by the merged start (with the start states
  separated, the optimum keeps ``s7`` and ``s8`` apart).
- Model-based cover (``pcid_model_based``): on :func:`kinematic.counterexamples.mdps.pcid_chain`,
  policies over PCID's abstract states reach the good pair ``{s2a, s2b}`` with probability at
  most 1/2 where an observation policy reaches it surely; chained over ``H`` layers, the best
  cover of abstract-state policies has alpha = 2^-(H-1).

Data are collected as HOMER does, with the most favourable roll-in: ``Unf(Psi_{h-1}) o Unf(A)``
with ``Psi_{h-1}`` the homing policies of layer ``h - 1`` (a 1-policy cover).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kinematic.counterexamples import Counterexample
from kinematic.counterexamples.abstract_policies import abstract_cover_alpha
from kinematic.counterexamples.exploration import (
    explore_with_objective,
    state_groups,
    worst_case_cover_alpha,
)
from kinematic.counterexamples.mdps import curiosity_counterexample, pcid_chain
from kinematic.counterexamples.objectives import (
    pcid_posteriors,
    pcid_target_abstraction,
    square_loss,
    transition_distribution,
)
from kinematic.homing import homing_policy
from kinematic.model import BlockMDP
from kinematic.policies import Policy, state_policy
from kinematic.visitation import state_visitation

__all__ = [
    "pcid_abstraction",
    "pcid_model_based_claim",
    "pcid_target_claim",
    "pcid_target_loss",
    "pcid_target_objective",
]


def pcid_target_objective(
    mdp: BlockMDP, cover: Sequence[Policy], layer: int, previous_labels: np.ndarray
) -> np.ndarray:
    """The coarsest Bayes-optimal abstraction of ``layer`` for PCID's prediction target."""
    return pcid_target_abstraction(transition_distribution(mdp, cover, layer), previous_labels)


def pcid_abstraction(mdp: BlockMDP, separate_start: bool = False) -> list[np.ndarray]:
    """PCID's Bayes-optimal abstraction of every layer, each learned from data rolled in with
    the homing policies of the previous layer. Layer 1 is one class (nothing to predict) unless
    ``separate_start`` (the deterministic-start assumption of Du et al., as an oracle)."""
    first = mdp.emission_state[0] if separate_start else np.zeros(len(mdp.observations[0]), int)
    labels = [np.asarray(first)]
    for h in range(1, mdp.horizon):
        cover = [homing_policy(mdp, s) for s in mdp.layers[h - 1]]
        labels.append(pcid_target_objective(mdp, cover, h, labels[h - 1]))
    return labels


def pcid_target_loss(joint: np.ndarray, previous_labels: np.ndarray,
                     labels: np.ndarray | None = None) -> object:
    """Square loss of the best predictor of ``(phi_{h-1}(x), a)`` from ``phi(x')``."""
    classes = np.unique(previous_labels)
    table = np.stack([joint[previous_labels == c].sum(axis=0) for c in classes])
    table = table.reshape(-1, joint.shape[2]).T  # rows: x', columns: (class of x, a)
    labels = np.arange(joint.shape[2]) if labels is None else np.asarray(labels)
    return square_loss(table, [np.flatnonzero(labels == c) for c in np.unique(labels)])


def pcid_target_claim() -> Counterexample:
    mdp = curiosity_counterexample()
    found = explore_with_objective(mdp, pcid_target_objective)
    classes = [state_groups(mdp, h, found.labels[h]) for h in range(mdp.horizon)]
    separated = pcid_abstraction(mdp, separate_start=True)
    separated_classes = [state_groups(mdp, h, separated[h]) for h in range(mdp.horizon)]
    numbers: dict = {
        "PCID classes per layer (HOMER loop, exact PSDP)": classes,
        "worst-case alpha per layer": [str(a) for a in found.worst_case_alpha],
        "PCID classes with s1, s2 separated (deterministic-start oracle)": separated_classes,
    }
    for h in range(1, mdp.horizon):
        joint = transition_distribution(mdp, found.covers[h - 1], h)
        numbers[f"layer {h + 1}: Bayes-optimal PCID loss"] = str(
            pcid_target_loss(joint, found.labels[h - 1]))
        numbers[f"layer {h + 1}: loss with the merged classes"] = str(
            pcid_target_loss(joint, found.labels[h - 1], found.labels[h]))
        numbers[f"layer {h + 1}: posteriors p(phi(x), a | x')"] = {
            mdp.observations[h][y]: [str(p) for p in posterior]
            for y, posterior in pcid_posteriors(joint, found.labels[h - 1]).items()
        }
    luckiest, _ = worst_case_cover_alpha(mdp, found.labels, most=True)
    numbers["alpha per layer, ties in a state's favour"] = [str(a) for a in luckiest]
    last = numbers[f"layer {mdp.horizon}: posteriors p(phi(x), a | x')"]
    holds = (
        classes[0] == [["s1", "s2"]]
        and sorted(map(sorted, classes[1])) == [["s3", "s4"], ["s5", "s6"]]
        and sorted(map(sorted, classes[2])) == [["s7", "s8"], ["s9"]]
        and last["s7"] == last["s8"] != last["s9"]
        and found.worst_case_alpha[2] == luckiest[2] == 0
        and not any(set(group) >= {"s7", "s8"} for group in separated_classes[2])
    )
    return Counterexample(
        "pcid_target",
        "PCID's Bayes-optimal target merges {s1,s2} (stochastic start), then {s3,s4}, {s5,s6} "
        "and {s7,s8} (equal posteriors p(phi(x), a | x'), unlike s9's): the same alpha = 0 "
        "failure as curiosity under any tie-breaking; separating s1, s2 keeps s7, s8 apart",
        bool(holds),
        numbers,
    )


def pcid_model_based_claim(horizons: Sequence[int] = tuple(range(2, 13))) -> Counterexample:
    numbers: dict = {}
    holds = True
    for horizon in horizons:
        mdp = pcid_chain(horizon)
        labels = pcid_abstraction(mdp)
        alpha, ratios = abstract_cover_alpha(mdp, labels)
        expected = mdp.mode.scalar(1) / 2 ** (horizon - 1)
        worst_state = min(ratios, key=ratios.__getitem__)
        numbers[f"H={horizon}"] = {"alpha": str(alpha), "worst state": worst_state,
                                   "PCID classes, last layer": state_groups(mdp, horizon - 1,
                                                                       labels[-1])}
        holds &= alpha == expected
        if horizon == 2:
            abstract = _best_pair(mdp, labels)
            observation = state_visitation(mdp, homing_policy(mdp, "s2a"))[1][:2].sum()
            numbers["H=2: best abstract-state policy, P({s2a, s2b})"] = str(abstract)
            numbers["H=2: observation policy, P({s2a, s2b})"] = str(observation)
            holds &= abstract == mdp.mode.scalar(1) / 2 and observation == 1
    return Counterexample(
        "pcid_model_based",
        "policies over PCID's abstract states reach the good pair with probability <= 1/2 (an "
        "observation policy: 1); chained, the best abstract-state cover has alpha = 2^-(H-1)",
        bool(holds),
        numbers,
    )


def _best_pair(mdp: BlockMDP, labels: list[np.ndarray]) -> object:
    """``max P({s2a, s2b})`` over policies acting on PCID's classes of layer 1 (one class, so
    one action for both start states)."""
    if len(np.unique(labels[0])) != 1:
        raise ValueError("expected PCID to merge the start states")
    return max(
        state_visitation(mdp, state_policy(mdp, {}, default_action=action))[1][:2].sum()
        for action in mdp.actions
    )
