"""Quotients of a Block MDP: the states of each block of a partition merged into one state
(paper, Section 3). The canonical form (Figure ``fig:mdp-canonical``) is the quotient by the
KI partition (:func:`kinematic.canonical.canonical_form`).

The merge, for blocks ``C`` of layer ``h`` and ``C'`` of layer ``h + 1``:

- start: ``mu(C) = sum_{s in C} mu(s)``;
- transitions: ``T(C' | C, a) = sum_{s' in C'} T(s' | s, a)`` for any member ``s`` of ``C``;
- emissions: ``C`` emits the observations of its members, ``q(x | C) = q(x | s) w(s | C)`` for
  the member ``s`` emitting ``x``, with ``w(s | C) = P_pi(s) / P_pi(C)``: ``mu(s) / mu(C)`` in
  layer 1, and in layer ``h >= 2`` the share of ``s`` in the total incoming transitions
  ``sum_{x, a} T(. | x, a)`` of ``C``;
- rewards stay on their observations.

When the quotient is defined: iff every block lies within one KI class (``def:ki``), i.e. the
partition refines the KI partition; the canonical form is the coarsest quotient. Precisely, a
Block MDP over the blocks, each emitting its members' observations, has the same observation
process as ``mdp`` under every observation policy iff every block ``C`` satisfies

1. (rows) its members are forward KI (``def:fki``): ``T(. | s, a)`` is the same for every member
   ``s`` and action ``a`` (nothing to check in layer H);
2. (columns) its members are backward KI (``def:bki``): in layer ``h >= 2`` their incoming
   columns ``T(s | ., .)`` over ``S_{h-1} x A`` are proportional (``lem:bki-ratio``), so
   ``w(s | C)`` is the same for every policy (``lem:bki-policy-ratio``); in layer 1 the start
   distribution fixes ``w``.

Sufficient: emissions are disjoint, so the observations of a trajectory name its states ``s_h``
in ``mdp`` and their blocks ``C_h`` in the quotient, and a trajectory's probability is a product
of one factor per step. With (1) and (2), ``T(C' | C, a) = T(C' | s, a)`` for every member and
``T(s' | s, a) = w(s' | C') T(C' | s, a)`` (proportional columns), so ``mu(C_1) w(s_1 | C_1) =
mu(s_1)`` and ``T(C' | C, a) w(s' | C') = T(s' | s, a)``: the factors agree. Necessary: every
state is reachable and an observation policy may take any action, so every step must agree,
``T(s' | s, a) q(x' | s') = T(C' | C, a) q(x' | C')`` for every member ``s`` of ``C``. The right
side does not depend on ``s``: (1). Summed over the observations of ``s'`` it gives
``T(s' | s, a) = T(C' | C, a) w(s' | C')``: the columns of the members of ``C'`` are proportional
to ``T(C' | ., .)``, (2). (Equal rows aggregated over the next layer's blocks, together with (2)
for those blocks, already force (1).)

A partition that fails is refused with :class:`UndefinedQuotient`, naming two states of a block
and the action and next state (1) or the incoming pairs (2) that tell them apart; blocks are
checked layer by layer from layer 1, only the partition's own blocks (unlike computing the KI
partition, which looks at every state).

Float mode: the tolerance of the KI partitions. Members' rows, and their incoming columns
normalised to sum 1, may differ by ``atol`` in each entry; a block's spread (largest minus
smallest value over its members) is compared, so the verdict does not depend on the order of
the states, and every refinement of the float KI partition has a quotient.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from kinematic.display import PrintsAsRepr, listed, name_text
from kinematic.errors import InvalidBlockMDP, UndefinedQuotient
from kinematic.exact_sparse import Entries, sum_by
from kinematic.model import BlockMDP, check_reachable
from kinematic.numbers import Number
from kinematic.partition import Partition, block_text, check_partition_of

__all__ = ["Quotient", "quotient"]

Violation = tuple[int, int, int]
"""Two states of one block (indices within their layer, in the MDP's order) and a column where
their rows differ."""


@dataclass(frozen=True, eq=False)
class Quotient(PrintsAsRepr):
    """Result of :func:`quotient` (and :func:`kinematic.canonical.canonical_form`).

    Attributes
    ----------
    mdp : BlockMDP
        The merged Block MDP. A block of one state keeps its name; a larger block is named by
        joining its members with ``"+"``.
    state_map : dict
        Original state -> state of the merged MDP.
    """

    mdp: BlockMDP
    state_map: dict[str, str]

    def __repr__(self) -> str:
        """The sizes and the merged states (the first few), not the merged MDP's arrays."""
        sizes = Counter(self.state_map.values())
        merged = [name_text(name) for name in self.mdp.states if sizes[name] > 1]
        return (f"Quotient({self.mdp.name!r}, {len(self.state_map)} -> "
                f"{len(self.mdp.states)} states, merged: {listed(merged, 4) or 'none'})")

def _membership(labels: np.ndarray) -> sp.csr_array:
    """The 0/1 matrix (state x block) of one layer, float mode, built sparse (never dense:
    width x blocks is 10^8 entries at width 10^4)."""
    return sp.csr_array((np.ones(len(labels)), (np.arange(len(labels)), labels)),
                        shape=(len(labels), int(labels.max()) + 1))


def _merged_vector(mdp: BlockMDP, vector: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``vector @ membership``: the entries of each block added up."""
    if mdp.mode.exact:
        return sum_by(labels, vector.tolist(), int(labels.max()) + 1)
    return np.asarray(vector @ _membership(labels)).reshape(-1)


def _exact_violation(owners: np.ndarray, keys: np.ndarray, values: list[Fraction],
                     labels: np.ndarray, representatives: np.ndarray,
                     scale: np.ndarray | None = None) -> Violation | None:
    """Exact mode: the first state whose row differs from that of its block's first state, with
    that state and the first column where they differ. The rows are given by their non-zero
    entries ``(owners[k], keys[k], values[k])``, each multiplied by ``scale[owner]`` if given;
    only the states of blocks with several members are read."""
    shared = np.bincount(labels)[labels] > 1
    kept = np.flatnonzero(shared[owners])
    rows: dict[int, dict[int, Fraction]] = {}
    for k, state, key in zip(kept.tolist(), owners[kept].tolist(), keys[kept].tolist(),
                             strict=True):
        rows.setdefault(state, {})[key] = values[k] if scale is None else values[k] * scale[state]
    for state in np.flatnonzero(shared).tolist():
        first = int(representatives[labels[state]])
        mine, theirs = rows.get(state, {}), rows.get(first, {})
        if state != first and mine != theirs:
            column = min(key for key in mine.keys() | theirs.keys()
                         if mine.get(key, 0) != theirs.get(key, 0))
            return first, state, column
    return None


def _float_violation(rows: sp.csr_array, labels: np.ndarray,
                     tolerance: np.ndarray) -> Violation | None:
    """The first block (then column) whose members' entries spread by more than
    ``tolerance[column]``, with the members holding the smallest and the largest entry."""
    sizes = np.bincount(labels)
    entries = sp.coo_array(rows)
    kept = sizes[labels[entries.row]] > 1
    columns = rows.shape[1]
    keys = labels[entries.row[kept]].astype(np.int64) * columns + entries.col[kept]
    values = entries.data[kept]
    if not len(keys):
        return None
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    group = keys[starts]
    high = np.maximum.reduceat(values, starts)
    low = np.minimum.reduceat(values, starts)
    some_zero = np.diff(np.r_[starts, len(keys)]) < sizes[group // columns]
    spread = np.where(some_zero, np.maximum(high, 0), high) - np.where(
        some_zero, np.minimum(low, 0), low)
    wide = np.flatnonzero(spread > tolerance[group % columns])
    if not len(wide):
        return None
    block, column = divmod(int(group[wide[0]]), columns)
    members = np.flatnonzero(labels == block)
    column_values = rows[members][:, [column]].toarray().reshape(-1)
    ends = sorted((int(members[np.argmin(column_values)]), int(members[np.argmax(column_values)])))
    return ends[0], ends[1], column


def _value(mdp: BlockMDP, value: Number) -> str:
    return str(mdp.mode.to_json(value)) if mdp.mode.exact else repr(float(value))


def _row_error(mdp: BlockMDP, h: int, violation: Violation) -> UndefinedQuotient:
    first, second, column = violation
    action, target = divmod(column, mdp.width(h + 1))
    values = [_value(mdp, mdp.transitions[h][state * mdp.number_of_actions + action, target])
              for state in (first, second)]
    return UndefinedQuotient(
        f"quotient: states {mdp.layers[h][first]!r} and {mdp.layers[h][second]!r} of layer "
        f"{h + 1} cannot be merged: they are not forward KI (def:fki): with action "
        f"{mdp.actions[action]!r} they move to {mdp.layers[h + 1][target]!r} with probability "
        f"{values[0]} and {values[1]}, and one merged state cannot do both")


def _column_error(mdp: BlockMDP, h: int, first: int, second: int) -> UndefinedQuotient:
    """Two incoming pairs on which the shares of ``first`` and ``second`` (states of layer
    ``h >= 1``) in their incoming totals differ in opposite directions."""
    matrix = mdp.transitions[h - 1]
    columns = [matrix[:, [state]] for state in (first, second)]
    dense = [np.asarray(c.toarray() if sp.issparse(c) else c).reshape(-1) for c in columns]
    shares = [column / column.sum() for column in dense]
    difference = shares[0] - shares[1]
    pairs = [int(np.argmax(difference)), int(np.argmin(difference))]

    def pair_text(pair: int) -> str:
        state, action = divmod(pair, mdp.number_of_actions)
        return (f"from ({mdp.layers[h - 1][state]!r}, {mdp.actions[action]!r}) "
                f"{_value(mdp, dense[0][pair])} and {_value(mdp, dense[1][pair])}")

    return UndefinedQuotient(
        f"quotient: states {mdp.layers[h][first]!r} and {mdp.layers[h][second]!r} of layer "
        f"{h + 1} cannot be merged: they are not backward KI (def:bki): their incoming "
        "transitions are not proportional, so their shares of the merged state would depend on "
        f"the policy: {pair_text(pairs[0])}, {pair_text(pairs[1])}")


def _check_columns(mdp: BlockMDP, h: int, labels: np.ndarray, representatives: np.ndarray,
                   totals: np.ndarray) -> None:
    """Condition (2) of the module docstring for layer ``h >= 1`` (0-based); ``totals`` are the
    incoming column sums (:func:`_member_weights`)."""
    if mdp.mode.exact:
        pairs, states, values = mdp.transition_entries[h - 1]
        scale = np.array([1 / total for total in totals.tolist()], dtype=object)
        violation = _exact_violation(states, pairs, values, labels, representatives, scale)
    else:
        normalised = sp.csr_array(sp.diags_array(1.0 / totals) @ mdp.transitions[h - 1].T)
        violation = _float_violation(normalised, labels,
                                     np.full(normalised.shape[1], mdp.mode.atol))
    if violation is not None:
        raise _column_error(mdp, h, violation[0], violation[1])


def _merged_transitions(
    mdp: BlockMDP, h: int, partition: Partition, representatives: np.ndarray
) -> tuple[np.ndarray | sp.csr_array, Entries | None]:
    """Condition (1) of the module docstring for layer ``h`` (0-based), and the merged
    ``T(C' | C, a)`` (rows ``C * |A| + a``): the rows of each block's first state, their
    columns added up per block of layer ``h + 1``. Exact mode: computed over the non-zero
    entries, and returned with the result's non-zero entries."""
    labels, next_labels = partition.labels[h], partition.labels[h + 1]
    actions, classes = mdp.number_of_actions, int(next_labels.max()) + 1
    width, next_width = mdp.width(h), mdp.width(h + 1)
    if not mdp.mode.exact:
        rows = sp.csr_array(mdp.transitions[h].reshape((width, actions * next_width)))
        violation = _float_violation(rows, labels, np.full(rows.shape[1], mdp.mode.atol))
        if violation is not None:
            raise _row_error(mdp, h, violation)
        pairs = (representatives[:, None] * actions + np.arange(actions)).reshape(-1)
        return mdp.transitions[h][pairs] @ _membership(next_labels), None
    pairs, states, values = mdp.transition_entries[h]
    violation = _exact_violation(pairs // actions, (pairs % actions) * next_width + states,
                                 values, labels, representatives)
    if violation is not None:
        raise _row_error(mdp, h, violation)
    block_of = np.full(width, -1)
    block_of[representatives] = np.arange(len(representatives))
    kept = np.flatnonzero(block_of[pairs // actions] >= 0)
    merged_pairs = block_of[pairs[kept] // actions] * actions + pairs[kept] % actions
    keys = merged_pairs * classes + next_labels[states[kept]]
    merged = sum_by(keys, [values[i] for i in kept.tolist()],
                    len(representatives) * actions * classes)
    # sums of positive probabilities are positive: the non-zero entries are the keys summed into
    nonzero = np.unique(keys)
    entries = (nonzero // classes, nonzero % classes, merged[nonzero].tolist())
    return merged.reshape(len(representatives) * actions, classes), entries


def _member_weights(mdp: BlockMDP, h: int) -> np.ndarray:
    """A vector proportional to ``P_pi(s)`` within each backward KI class of layer ``h``
    (0-based): the start, or the incoming column totals."""
    if h == 0:
        return mdp.start
    if mdp.mode.exact:
        _, states, values = mdp.transition_entries[h - 1]
        return sum_by(states, values, mdp.width(h))
    return np.asarray(mdp.transitions[h - 1].sum(axis=0)).reshape(-1)


def _merged_names(mdp: BlockMDP, partition: Partition) -> tuple[list[tuple[str, ...]],
                                                                  dict[str, str]]:
    """The merged states' names per layer and the state map; names that collide with another
    state's name or with an observation another state emits are refused."""
    names, state_map = [], {}
    source: dict[str, list[str]] = {}
    for h in range(mdp.horizon):
        layer_names = []
        for block in partition.blocks(h + 1):
            name = "+".join(block)
            if name in source:
                first, second = (f"the block {block_text(b)}" if len(b) > 1 else
                                 f"the state {b[0]!r}" for b in (source[name], block))
                raise InvalidBlockMDP(f"quotient: {first} and {second} would both be named "
                                      f"{name!r}; rename states (relabel_states)")
            if len(block) > 1 and name in mdp.observation_location:
                layer, x = mdp.observation_location[name]
                emitter = mdp.layers[layer][mdp.emission_state[layer][x]]
                if emitter not in block and emitter != name:  # else a name clash of two states
                    raise InvalidBlockMDP(
                        f"quotient: the block {block_text(block)} would be named {name!r}, the "
                        f"name of an observation of the state {emitter!r} (a state may share "
                        "its name only with its own observations); rename states "
                        "(relabel_states)")
            source[name] = block
            layer_names.append(name)
            state_map.update(dict.fromkeys(block, name))
        names.append(tuple(layer_names))
    return names, state_map


_ENDOGENOUS_HINT = (
    "An endogenous partition has a quotient only when the exogenous values of each endogenous "
    "state are KI, that is when the next exogenous value does not depend on the current one "
    "(i.i.d. noise); this exogenous part has memory: quotient by the KI partition (or a "
    "refinement of it) instead")
"""Added to the error of a quotient by a partition of kind ``"endogenous"``
(:func:`kinematic.exogenous.endogenous_partition`): two states with one endogenous state and two
exogenous values are forward KI iff the exogenous chain's rows from the two values are equal,
and all of them are also backward KI when every step's rows are equal."""


def quotient(mdp: BlockMDP, partition: Partition) -> Quotient:
    """Merge the states of each block of ``partition`` into one state (see the module
    docstring for the merge and for when it is defined).

    The result emits the same observation process as ``mdp`` under every observation policy;
    its visitation of a merged state is the sum over its members.

    Raises
    ------
    UndefinedQuotient
        Naming two states of a block that cannot be merged, and the action or incoming pairs
        that tell them apart; for an endogenous partition (kind ``"endogenous"``), saying why
        the exogenous part's memory forbids the quotient.
    InvalidPartition
        When ``partition`` is not a Partition of the states of ``mdp``.
    InvalidBlockMDP
        When two merged states would get the same name, or a merged state the name of another
        state's observation (which :func:`kinematic.spec.from_spec` could not reload).

    >>> from kinematic import Partition, figure2_split, quotient
    >>> mdp = figure2_split()
    >>> merged = quotient(mdp, Partition.from_blocks(mdp, [["s2a", "s2b"]]))
    >>> merged.mdp.layers
    (('s1',), ('s2a+s2b',), ('s3',))
    >>> merged.mdp.observations_of("s2a+s2b")
    {'x2a': Fraction(4, 5), 'x2b': Fraction(1, 5)}
    """
    check_partition_of(mdp, partition)
    names, state_map = _merged_names(mdp, partition)
    representatives = [np.unique(labels, return_index=True)[1] for labels in partition.labels]
    weights = [_member_weights(mdp, h) for h in range(mdp.horizon)]
    merged_layers = []
    try:
        for h in range(mdp.horizon):
            if h > 0:
                _check_columns(mdp, h, partition.labels[h], representatives[h], weights[h])
            if h + 1 < mdp.horizon:
                merged_layers.append(_merged_transitions(mdp, h, partition, representatives[h]))
    except UndefinedQuotient as error:
        if partition.kind != "endogenous":
            raise
        raise UndefinedQuotient(f"{error}. {_ENDOGENOUS_HINT}") from None

    emission_state, emission_probability = [], []
    for h in range(mdp.horizon):
        labels = partition.labels[h]
        member_share = weights[h] / _merged_vector(mdp, weights[h], labels)[labels]
        emission_state.append(labels[mdp.emission_state[h]])
        emission_probability.append(
            mdp.emission_probability[h] * member_share[mdp.emission_state[h]])

    merged = BlockMDP(
        name=mdp.name,
        layers=tuple(names),
        actions=mdp.actions,
        start=_merged_vector(mdp, mdp.start, partition.labels[0]),
        transitions=tuple(matrix for matrix, _ in merged_layers),
        observations=mdp.observations,
        emission_state=tuple(emission_state),
        emission_probability=tuple(emission_probability),
        rewards=mdp.rewards,
        mode=mdp.mode,
    )
    if mdp.mode.exact:  # known already: spares check_reachable a scan of every entry
        merged.__dict__["transition_entries"] = tuple(entries for _, entries in merged_layers)
    check_reachable(merged)
    return Quotient(merged, state_map)
