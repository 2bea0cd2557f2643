"""Backward, forward and full kinematic inseparability partitions (paper, Section 3).

For states (equivalently their observations, ``lem:state-inseparable``) of layer ``h``:

- backward KI (``def:bki``): by ``lem:bki-ratio``, ``s1 ~ s2`` iff the incoming columns
  ``T(s1 | ., .)`` and ``T(s2 | ., .)`` over ``S_{h-1} x A`` are proportional. Layer 1 has no
  backward dynamics: all its states form one block (``phi_B,1 = 1``).
- forward KI (``def:fki``): ``s1 ~ s2`` iff ``T(. | s1, a) = T(. | s2, a)`` for every action.
  Layer H has no forward dynamics: all its states form one block (``phi_F,H = 1``).
- KI (``def:ki``): both.

Grouping is near-linear: exact vectors (normalised columns, rows) are hashed; float vectors are
first hashed bit for bit, then the remaining near-duplicates are found by sorting a random
projection and checked in the max norm against ``atol``. Float grouping never splits or merges
inconsistently: when states chain within ``atol`` while some two members of the chain differ by
more (the block's diameter, whatever the order the states are listed in),
:class:`AmbiguousTolerance` is raised instead of a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from kinematic.errors import AmbiguousTolerance
from kinematic.exact_sparse import Entries, nonzero_entries, sum_by
from kinematic.model import BlockMDP
from kinematic.numbers import NumberMode
from kinematic.partition import Partition, first_appearance

__all__ = [
    "Partition",
    "backward_ki_partition",
    "forward_ki_partition",
    "group_rows",
    "ki_partition",
    "n_bd",
    "n_fd",
    "n_kd",
]


def _group_exact_entries(
    entries: Entries, row_count: int,
    key_of: Callable[[int, int, Fraction], tuple[int, tuple[int, Fraction]]],
) -> np.ndarray:
    """Labels of equal rows of an exact matrix given by its non-zero entries, by hashing each
    row's ``(column, value)`` pairs; ``key_of(row, column, value)`` gives an entry's row and
    pair (the entry's own, or those of a rearranged matrix)."""
    keys: list[list[tuple[int, Fraction]]] = [[] for _ in range(row_count)]
    for row, column, value in zip(entries[0].tolist(), entries[1].tolist(), entries[2],
                                  strict=True):
        target, pair = key_of(row, column, value)
        keys[target].append(pair)
    return first_appearance([tuple(row) for row in keys])


def _group_exact(rows: np.ndarray) -> np.ndarray:
    """Labels of equal rows of an exact (object) matrix."""
    return _group_exact_entries(nonzero_entries(rows), rows.shape[0],
                                lambda row, column, value: (row, (column, value)))


def _group_float(rows: np.ndarray | sp.csr_array, atol: float, names: tuple[str, ...]
                 ) -> np.ndarray:
    """Labels of rows equal within ``atol`` in the max norm (see the module docstring)."""
    rows = sp.csr_array(rows)
    rows.sort_indices()
    keys = [
        (rows.indices[a:b].tobytes(), rows.data[a:b].tobytes())
        for a, b in zip(rows.indptr[:-1], rows.indptr[1:], strict=True)
    ]
    exact_labels = first_appearance(keys)
    representatives = np.unique(exact_labels, return_index=True)[1]
    unique_rows = rows[representatives]
    count = len(representatives)
    weights = np.random.default_rng(0).uniform(1.0, 2.0, size=rows.shape[1])
    projection = unique_rows @ weights
    order = np.argsort(projection, kind="stable")
    # Two rows within atol differ only on the union of their supports, so their projections
    # differ by at most atol * (2 * most non-zeros in a row) * max weight.
    widest = int(np.diff(unique_rows.indptr).max()) if count else 0
    threshold = atol * min(weights.sum(), 2 * widest * weights.max())
    first, second = [], []
    for position, i in enumerate(order):
        for j in order[position + 1:]:
            if projection[j] - projection[i] > threshold:
                break
            first.append(i)
            second.append(j)
    close_first, close_second = _pairs_within(unique_rows, first, second, atol)
    if not len(close_first):  # no near-duplicates: the bit-for-bit groups are final
        return exact_labels
    graph = sp.coo_array(
        (np.ones(len(close_first)), (close_first, close_second)), shape=(count, count)
    )
    _, components = connected_components(graph, directed=False)
    component_labels = first_appearance(components.tolist())
    _check_consistent(unique_rows, component_labels, atol, [names[r] for r in representatives])
    return first_appearance(component_labels[exact_labels].tolist())


def _pairs_within(
    rows: sp.csr_array, first: list[int], second: list[int], atol: float
) -> tuple[np.ndarray, np.ndarray]:
    """The candidate pairs whose rows differ by at most ``atol`` in the max norm."""
    first_a, second_a = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    if not len(first_a):
        return first_a, second_a
    distance = abs(rows[first_a] - rows[second_a]).max(axis=1).toarray().reshape(-1)
    close = distance <= atol
    return first_a[close], second_a[close]


def _check_consistent(
    rows: sp.csr_array, labels: np.ndarray, atol: float, names: list[str]
) -> None:
    """Refuse any block whose diameter exceeds ``atol``, whatever the order of its members.

    The max-norm diameter of a set of rows is ``max_j (max_i r_ij - min_i r_ij)``: the largest
    spread of one coordinate, computed per block from its column maxima and minima.
    """
    rows = sp.csr_array(rows)
    for label in np.flatnonzero(np.bincount(labels) > 1):
        members = np.flatnonzero(labels == label)
        block = rows[members]
        spread = (block.max(axis=0).toarray() - block.min(axis=0).toarray()).reshape(-1)
        column = int(np.argmax(spread))
        if spread[column] > atol:
            values = block[:, [column]].toarray().reshape(-1)
            high, low = members[int(np.argmax(values))], members[int(np.argmin(values))]
            raise AmbiguousTolerance(
                f"states {names[low]!r} and {names[high]!r} are linked by a chain of states "
                f"within atol={atol} but differ by {spread[column]:.3g}"
            )


def group_rows(
    mode: NumberMode, rows: np.ndarray | sp.csr_array, names: Sequence[str]
) -> np.ndarray:
    """Labels (by first appearance) of the equal rows of a matrix: exactly equal in exact mode,
    equal within ``atol`` in float mode (see the module docstring). ``names`` label the rows in
    error messages."""
    if mode.exact:
        return _group_exact(np.asarray(rows))
    return _group_float(rows, mode.atol, tuple(names))


def _incoming_columns(mdp: BlockMDP, layer: int) -> sp.csr_array:
    """Rows ``T(s | ., .) / sum T(s | ., .)`` for the states ``s`` of ``layer`` (>= 1), float
    mode."""
    columns = sp.csr_array(mdp.transitions[layer - 1].T)
    totals = np.asarray(columns.sum(axis=1)).reshape(-1)
    return sp.csr_array(sp.diags_array(1.0 / totals) @ columns)


def _exact_backward_labels(mdp: BlockMDP, layer: int) -> np.ndarray:
    """Exact mode: states of ``layer`` (>= 1) grouped by their normalised incoming columns."""
    entries = mdp.transition_entries[layer - 1]
    totals = sum_by(entries[1], entries[2], mdp.width(layer))
    return _group_exact_entries(
        entries, mdp.width(layer),
        lambda pair, state, value: (state, (pair, value / totals[state])))


def _outgoing_rows(mdp: BlockMDP, layer: int) -> sp.csr_array:
    """Rows ``(T(. | s, a))_a`` concatenated over actions, for the states of ``layer``, float
    mode."""
    matrix = mdp.transitions[layer]
    width = mdp.width(layer)
    return sp.csr_array(matrix.reshape((width, matrix.shape[0] * matrix.shape[1] // width)))


def _exact_forward_labels(mdp: BlockMDP, layer: int) -> np.ndarray:
    """Exact mode: states of ``layer`` grouped by their outgoing rows over all actions."""
    actions, next_width = mdp.number_of_actions, mdp.width(layer + 1)
    return _group_exact_entries(
        mdp.transition_entries[layer], mdp.width(layer),
        lambda pair, state, value: (pair // actions,
                                    ((pair % actions) * next_width + state, value)))


def backward_ki_partition(mdp: BlockMDP) -> Partition:
    """The backward KI partition (``def:bki``), computed by ``lem:bki-ratio``.

    Layer 1 is one block; in layer ``h >= 2`` two states share a block iff their incoming
    transition columns are proportional.
    """
    labels = [np.zeros(mdp.width(0), dtype=np.intp)]
    for h in range(1, mdp.horizon):
        labels.append(_exact_backward_labels(mdp, h) if mdp.mode.exact else
                      _group_float(_incoming_columns(mdp, h), mdp.mode.atol, mdp.layers[h]))
    return Partition("backward", mdp.layers, tuple(labels), mdp)


def forward_ki_partition(mdp: BlockMDP) -> Partition:
    """The forward KI partition (``def:fki``): equal outgoing rows for every action.

    Layer H is one block.
    """
    labels = [
        _exact_forward_labels(mdp, h) if mdp.mode.exact else
        _group_float(_outgoing_rows(mdp, h), mdp.mode.atol, mdp.layers[h])
        for h in range(mdp.horizon - 1)
    ]
    labels.append(np.zeros(mdp.width(mdp.horizon - 1), dtype=np.intp))
    return Partition("forward", mdp.layers, tuple(labels), mdp)


def ki_partition(
    mdp: BlockMDP, backward: Partition | None = None, forward: Partition | None = None
) -> Partition:
    """The KI partition (``def:ki``): the common refinement of backward and forward KI.

    Pass already computed ``backward`` / ``forward`` partitions to avoid recomputing them.
    """
    backward = backward_ki_partition(mdp) if backward is None else backward
    forward = forward_ki_partition(mdp) if forward is None else forward
    labels = tuple(
        first_appearance(list(zip(b.tolist(), f.tolist(), strict=True)))
        for b, f in zip(backward.labels, forward.labels, strict=True)
    )
    return Partition("ki", mdp.layers, labels, mdp)


def n_bd(mdp: BlockMDP) -> int:
    """``N_BD`` of Section 3: the number of backward KI classes (``def:bki``), all layers.

    >>> from kinematic import figure2_split, n_bd
    >>> n_bd(figure2_split())
    3
    """
    return backward_ki_partition(mdp).number_of_blocks


def n_fd(mdp: BlockMDP) -> int:
    """``N_FD`` of Section 3: the number of forward KI classes (``def:fki``), all layers.

    >>> from kinematic import figure2_split, n_fd
    >>> n_fd(figure2_split())
    3
    """
    return forward_ki_partition(mdp).number_of_blocks


def n_kd(mdp: BlockMDP) -> int:
    """``N_KD`` of Section 3: the number of KI classes (``def:ki``), all layers; ``max(N_BD,
    N_FD) <= N_KD <= |S|``.

    >>> from kinematic import combination_lock, n_kd
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> n_kd(lock), len(lock.states)
    (7, 8)
    """
    return ki_partition(mdp).number_of_blocks
