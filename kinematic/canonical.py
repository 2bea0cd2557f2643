"""The canonical form of a Block MDP (paper, Section 3, Figure ``fig:mdp-canonical``).

A Block MDP is in canonical form when two observations share a latent state iff they are
kinematically inseparable. :func:`canonical_form` merges every KI class into one state:

- start and transitions add up over the members of the target class; the outgoing row of a class
  is that of any member (members are forward KI);
- a member ``s`` of class ``C`` keeps its observations, emitted by ``C`` with probability
  ``q(x | s) w(s | C)``. ``w(s | C) = P_pi(s) / P_pi(C)`` is the same for every policy
  (``lem:bki-policy-ratio``): the ratio of the incoming columns (layer >= 2) or of the start
  probabilities (layer 1);
- rewards stay on their observations.

The result emits the same observation process as the original under every observation policy,
and is its own canonical form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kinematic.errors import InvalidBlockMDP
from kinematic.inseparability import Partition, ki_partition
from kinematic.model import BlockMDP, check_reachable

__all__ = ["CanonicalForm", "canonical_form"]


@dataclass(frozen=True, eq=False)
class CanonicalForm:
    """Result of :func:`canonical_form`.

    Attributes
    ----------
    mdp : BlockMDP
        The merged Block MDP. A class of one state keeps its name; a larger class is named by
        joining its members with ``"+"``.
    state_map : dict
        Original state -> state of the canonical form.
    """

    mdp: BlockMDP
    state_map: dict[str, str]


def _membership(mdp: BlockMDP, labels: np.ndarray, layer: int) -> np.ndarray | sp.csr_array:
    """The 0/1 matrix (state x class) of one layer, in the MDP's storage (float mode: built
    sparse, never dense: width x classes is 10^8 entries at width 10^4)."""
    width, classes = mdp.width(layer), int(labels.max()) + 1
    if not mdp.mode.exact:
        return sp.csr_array((np.ones(width), (np.arange(width), labels)),
                            shape=(width, classes))
    dense = mdp.mode.zeros((width, classes))
    dense[np.arange(width), labels] = mdp.mode.scalar(1)
    return dense


def _member_weights(mdp: BlockMDP, layer: int) -> np.ndarray:
    """A vector proportional to ``P_pi(s)`` within each backward KI class of ``layer``."""
    if layer == 0:
        return mdp.start
    return np.asarray(mdp.transitions[layer - 1].sum(axis=0)).reshape(-1)


def canonical_form(mdp: BlockMDP, partition: Partition | None = None) -> CanonicalForm:
    """Merge the KI classes of ``mdp`` (``def:ki``) into single states.

    Parameters
    ----------
    partition : Partition, optional
        The KI partition of ``mdp`` if already computed.
    """
    partition = ki_partition(mdp) if partition is None else partition
    if partition.kind != "ki":
        raise ValueError(f"canonical_form needs the KI partition, got {partition.kind!r}")
    names, state_map = [], {}
    for h in range(mdp.horizon):
        layer_names = []
        for block in partition.blocks_of_layer(h):
            name = "+".join(block)
            layer_names.append(name)
            state_map.update(dict.fromkeys(block, name))
        names.append(tuple(layer_names))
    flat = [name for layer in names for name in layer]
    if len(set(flat)) != len(flat):
        raise InvalidBlockMDP("canonical_form: merged state names collide; rename states")

    memberships = [_membership(mdp, partition.labels[h], h) for h in range(mdp.horizon)]
    start = np.asarray(mdp.start @ memberships[0]).reshape(-1)
    transitions = []
    number_of_actions = mdp.number_of_actions
    for h in range(mdp.horizon - 1):
        representatives = np.unique(partition.labels[h], return_index=True)[1]
        rows = (representatives[:, None] * number_of_actions + np.arange(number_of_actions))
        transitions.append(mdp.transitions[h][rows.reshape(-1)] @ memberships[h + 1])

    emission_state, emission_probability = [], []
    for h in range(mdp.horizon):
        weights = _member_weights(mdp, h)
        class_weights = np.asarray(weights @ memberships[h]).reshape(-1)
        member_share = weights / class_weights[partition.labels[h]]
        emission_state.append(partition.labels[h][mdp.emission_state[h]])
        emission_probability.append(
            mdp.emission_probability[h] * member_share[mdp.emission_state[h]]
        )

    merged = BlockMDP(
        name=mdp.name,
        layers=tuple(names),
        actions=mdp.actions,
        start=start,
        transitions=tuple(transitions),
        observations=mdp.observations,
        emission_state=tuple(emission_state),
        emission_probability=tuple(emission_probability),
        rewards=mdp.rewards,
        mode=mdp.mode,
    )
    check_reachable(merged)
    return CanonicalForm(merged, state_map)
