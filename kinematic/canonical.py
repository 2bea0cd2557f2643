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

from kinematic.display import canonical_form_repr
from kinematic.errors import InvalidBlockMDP
from kinematic.exact_sparse import Entries, sum_by
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

    def __repr__(self) -> str:
        """The merged classes by their new names, and the merged MDP."""
        return canonical_form_repr(self)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(repr(self))  # type: ignore[attr-defined]


def _membership(labels: np.ndarray) -> sp.csr_array:
    """The 0/1 matrix (state x class) of one layer, float mode, built sparse (never dense:
    width x classes is 10^8 entries at width 10^4)."""
    return sp.csr_array((np.ones(len(labels)), (np.arange(len(labels)), labels)),
                        shape=(len(labels), int(labels.max()) + 1))


def _merged_vector(mdp: BlockMDP, vector: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``vector @ membership``: the entries of each class added up."""
    if mdp.mode.exact:
        return sum_by(labels, vector.tolist(), int(labels.max()) + 1)
    return np.asarray(vector @ _membership(labels)).reshape(-1)


def _merged_transitions(
    mdp: BlockMDP, h: int, partition: Partition
) -> tuple[np.ndarray | sp.csr_array, Entries | None]:
    """The rows ``T(. | s, a)`` of one representative ``s`` per class of layer ``h``, their
    columns added up per class of layer ``h + 1``; exact mode: computed over the non-zero
    entries, and returned with the result's non-zero entries."""
    labels, next_labels = partition.labels[h], partition.labels[h + 1]
    representatives = np.unique(labels, return_index=True)[1]
    actions, classes = mdp.number_of_actions, int(next_labels.max()) + 1
    if not mdp.mode.exact:
        rows = representatives[:, None] * actions + np.arange(actions)
        return mdp.transitions[h][rows.reshape(-1)] @ _membership(next_labels), None
    class_of = np.full(mdp.width(h), -1)
    class_of[representatives] = np.arange(len(representatives))
    pairs, states, values = mdp.transition_entries[h]
    new_pairs = class_of[pairs // actions] * actions + pairs % actions
    kept = np.flatnonzero(class_of[pairs // actions] >= 0)
    keys = new_pairs[kept] * classes + next_labels[states[kept]]
    merged = sum_by(keys, [values[i] for i in kept.tolist()],
                    len(representatives) * actions * classes)
    # sums of positive probabilities are positive: the non-zero entries are the keys summed into
    nonzero = np.unique(keys)
    entries = (nonzero // classes, nonzero % classes, merged[nonzero].tolist())
    return merged.reshape(len(representatives) * actions, classes), entries


def _member_weights(mdp: BlockMDP, layer: int) -> np.ndarray:
    """A vector proportional to ``P_pi(s)`` within each backward KI class of ``layer``."""
    if layer == 0:
        return mdp.start
    if mdp.mode.exact:
        _, states, values = mdp.transition_entries[layer - 1]
        return sum_by(states, values, mdp.width(layer))
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

    start = _merged_vector(mdp, mdp.start, partition.labels[0])
    merged_layers = [_merged_transitions(mdp, h, partition) for h in range(mdp.horizon - 1)]
    transitions = [matrix for matrix, _ in merged_layers]

    emission_state, emission_probability = [], []
    for h in range(mdp.horizon):
        weights = _member_weights(mdp, h)
        class_weights = _merged_vector(mdp, weights, partition.labels[h])
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
    if mdp.mode.exact:  # known already: spares check_reachable a scan of every entry
        merged.__dict__["transition_entries"] = tuple(entries for _, entries in merged_layers)
    check_reachable(merged)
    return CanonicalForm(merged, state_map)
