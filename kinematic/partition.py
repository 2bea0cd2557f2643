"""Partitions of a Block MDP's states into blocks, layer by layer, by state name.

A :class:`Partition` is what the KI partitions of :mod:`kinematic.inseparability` return, and
what a user states to merge states (:func:`kinematic.quotient.quotient`) or to score a learned
abstraction: built from labels (:meth:`Partition.from_labels`), from blocks of state names
(:meth:`Partition.from_blocks`) or from labels of observations, as learned abstractions give
them (:meth:`Partition.from_observation_labels`). Blocks never span layers: a state of layer
``h`` is only ever merged with states of layer ``h`` (``fact:time-separable`` of the paper: states
of different layers are kinematically separable).

>>> from kinematic import Partition, figure2_split
>>> mdp = figure2_split()
>>> Partition.from_blocks(mdp, [["s2a", "s2b"]])
Partition(kind='user', layer 1: {s1}; layer 2: {s2a, s2b}; layer 3: {s3})
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import zip_longest
from typing import TYPE_CHECKING

import numpy as np

from kinematic.display import PrintsAsRepr, listed, name_text
from kinematic.errors import InvalidPartition, short_repr
from kinematic.lookup import find, layer_index

if TYPE_CHECKING:
    from kinematic.model import BlockMDP

__all__ = ["Partition", "PartitionComparison", "block_text", "check_partition_of", "compare_with",
           "first_appearance"]

_SHOWN_LAYERS = 6
_SHOWN_BLOCKS = 6
_SHOWN_MEMBERS = 4


def first_appearance(keys: Sequence[Hashable]) -> np.ndarray:
    """Labels numbered 0, 1, ... by first appearance of each distinct key.

    >>> first_appearance(["b", "a", "b", "c"]).tolist()
    [0, 1, 0, 2]
    """
    numbering: dict = {}
    return np.asarray([numbering.setdefault(key, len(numbering)) for key in keys], dtype=np.intp)


def block_text(block: Sequence[str], limit: int = _SHOWN_MEMBERS) -> str:
    """A block as ``{s2a, s2b}``, its first ``limit`` members only when it is large
    (:func:`kinematic.display.listed`); a name that could be misread (a newline, the
    separator ``, ``...) is quoted with escapes (:func:`kinematic.display.name_text`), so
    that no name can forge a line or a member.

    >>> block_text(["s2a", "s2b"])
    '{s2a, s2b}'
    >>> block_text(["s1", "s2", "s3", "s4", "s5", "s6"])
    '{s1, s2, s3, s4, ... (2 more)}'
    >>> print(block_text(["a\\nb", "c, d"]))
    {'a\\nb', 'c, d'}
    """
    return f"{{{listed(map(name_text, block), limit)}}}"


def _check_label(label: object, where: str) -> None:
    """``label`` is hashable (labels are told apart by hashing), else InvalidPartition."""
    try:
        hash(label)
    except TypeError:
        raise InvalidPartition(f"{where}: the label {short_repr(label)} is not hashable (use "
                               "str, int or tuple labels)") from None


def _listed(value: object, argument: str, what: str) -> list:
    """``value`` (any iterable but a string or a mapping) as a list, else InvalidPartition
    naming ``argument`` and what it must hold."""
    if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
        raise InvalidPartition(f"{argument} must be a list of {what}, got {short_repr(value)}")
    return value.tolist() if isinstance(value, np.ndarray) else list(value)


@dataclass(frozen=True, eq=False)
class Partition(PrintsAsRepr):
    """A partition of every layer's states into blocks.

    Layers are numbered from 1 as in the paper: ``blocks(2)`` are the blocks of layer 2, held
    in ``layers[1]`` and ``labels[1]``.

    Attributes
    ----------
    kind : str
        ``"backward"``, ``"forward"`` or ``"ki"`` for the partitions of ``def:bki``, ``def:fki``
        and ``def:ki``; ``"user"`` (or any name the caller gives) for the others.
    layers : tuple of tuple of str
        The states of each layer (as in the MDP).
    labels : tuple of int ndarrays
        ``labels[h][i]`` is the block of state ``layers[h][i]``; blocks are numbered
        0, 1, ... per layer in order of first appearance (checked on construction; the
        ``from_*`` constructors number any labels so).
    mdp : BlockMDP or None
        The MDP whose states are partitioned, when known (the partitions computed here and the
        ``from_*`` constructors keep it), for operations that need its dynamics (drawing,
        quotients).
    """

    kind: str
    layers: tuple[tuple[str, ...], ...]
    labels: tuple[np.ndarray, ...]
    mdp: BlockMDP | None = field(default=None, repr=False, compare=False)

    def __eq__(self, other: object) -> bool:
        """Two partitions are equal when they put the same states of every layer together
        (whatever their ``kind`` and MDP object): ``ki_partition(a) == ki_partition(b)`` says
        whether two MDPs with the same states have the same KI classes.

        >>> from kinematic import backward_ki_partition, combination_lock, ki_partition
        >>> lock = combination_lock(3, 2, seed=0)
        >>> ki_partition(lock) == ki_partition(combination_lock(3, 2, seed=0))
        True
        >>> ki_partition(lock) == backward_ki_partition(lock)  # s1a, s1b: one backward class
        False
        """
        if not isinstance(other, Partition):
            return NotImplemented
        return self.layers == other.layers and all(
            np.array_equal(mine, theirs)
            for mine, theirs in zip(self.labels, other.labels, strict=True))

    def __hash__(self) -> int:
        return hash((self.layers, tuple(tuple(labels.tolist()) for labels in self.labels)))

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.layers):
            raise InvalidPartition(f"Partition: {len(self.labels)} label arrays for "
                                   f"{len(self.layers)} layers")
        labels = []
        for h, (layer, given) in enumerate(zip(self.layers, self.labels, strict=True)):
            array = np.asarray(given)
            if array.shape != (len(layer),) or not np.issubdtype(array.dtype, np.integer):
                raise InvalidPartition(
                    f"Partition: labels[{h}] must be {len(layer)} integers, one per state of "
                    f"layer {h + 1}, got {short_repr(given)}")
            running_maximum = np.maximum.accumulate(array)
            if array[0] != 0 or array.min() < 0 or (array[1:] > running_maximum[:-1] + 1).any():
                raise InvalidPartition(
                    f"Partition: labels[{h}] must number the blocks of layer {h + 1} 0, 1, ... "
                    f"in order of first appearance, got {short_repr(array.tolist())} (use "
                    "Partition.from_labels for labels of any kind)")
            labels.append(array.astype(np.intp, copy=False))
        object.__setattr__(self, "labels", tuple(labels))

    @classmethod
    def from_labels(cls, mdp: BlockMDP, labels: Mapping[str, Hashable],
                    kind: str = "user") -> Partition:
        """The partition in which two states of a layer share a block iff they have the same
        label.

        Parameters
        ----------
        labels
            state name -> any hashable label, for every state of ``mdp``. Equal labels in
            different layers are different blocks (blocks never span layers).

        Raises
        ------
        UnknownName
            For a name that is not a state of ``mdp``, naming the closest states.
        InvalidPartition
            Naming the states that have no label, or a label that is not hashable.

        >>> from kinematic import figure2_split
        >>> mdp = figure2_split()
        >>> Partition.from_labels(mdp, {"s1": 0, "s2a": "x", "s2b": "x", "s3": 0}).blocks(2)
        [['s2a', 's2b']]
        """
        if not isinstance(labels, Mapping):
            raise InvalidPartition(f"labels must be a mapping state name -> label, got "
                                   f"{type(labels).__name__}")
        for name, label in labels.items():
            find(mdp.state_location, name, "state", "labels")
            _check_label(label, f"labels[{name!r}]")
        missing = [state for state in mdp.states if state not in labels]
        if missing:
            raise InvalidPartition(f"labels: no label for state(s) "
                                   f"{listed(map(repr, missing), 5)} (every state of the MDP "
                                   "needs one)")
        return cls(kind, mdp.layers,
                   tuple(first_appearance([labels[s] for s in layer]) for layer in mdp.layers),
                   mdp)

    @classmethod
    def from_blocks(cls, mdp: BlockMDP, blocks: Iterable[Iterable[str]],
                    kind: str = "user") -> Partition:
        """The partition whose blocks are ``blocks`` (lists of state names of one layer each);
        every state not in one of them is a block of its own.

        Raises
        ------
        UnknownName
            For a name that is not a state of ``mdp`` (argument ``blocks[i]``), naming the
            closest states.
        InvalidPartition
            For a block that spans two layers, a state in two blocks, an empty block, or a
            block (or ``blocks``) that is not a list.

        >>> from kinematic import figure2_split
        >>> Partition.from_blocks(figure2_split(), [["s2a", "s2b"]]).blocks()
        [['s1'], ['s2a', 's2b'], ['s3']]
        """
        block_of: dict[str, int] = {}
        for i, block in enumerate(_listed(blocks, "blocks", "lists of state names")):
            where = f"blocks[{i}]"
            if isinstance(block, str):
                raise InvalidPartition(
                    f"{where} is the string {short_repr(block)}, not a list of state names (one "
                    f"block: [[{block!r}, ...]])")
            members = _listed(block, where, "state names")
            if not members:
                raise InvalidPartition(f"{where} is empty")
            first_layer = find(mdp.state_location, members[0], "state", where)[0]
            for state in members:
                layer = find(mdp.state_location, state, "state", where)[0]
                if layer != first_layer:
                    raise InvalidPartition(
                        f"{where} spans layers {first_layer + 1} and {layer + 1} ({members[0]!r} "
                        f"and {state!r}): a block holds states of one layer")
                if state in block_of:
                    other = block_of[state]
                    raise InvalidPartition(
                        f"state {state!r} is twice in {where}" if other == i else
                        f"state {state!r} is in blocks[{other}] and {where}")
                block_of[state] = i
        return cls(kind, mdp.layers,
                   tuple(first_appearance([block_of.get(s, s) for s in layer])
                         for layer in mdp.layers),
                   mdp)

    @classmethod
    def from_observation_labels(cls, mdp: BlockMDP, labels_per_layer: Sequence[Sequence[Hashable]],
                                kind: str = "user") -> Partition:
        """The partition of states given by an abstraction of observations (as HOMER and the
        objectives of Section 5 learn them): ``labels_per_layer[h][x]`` labels observation
        ``mdp.observations[h][x]`` (``h`` from 0: position ``h`` holds layer ``h + 1``). All
        observations of a state must share a label, which the state gets.

        Raises
        ------
        InvalidPartition
            Naming a state whose observations got different labels (the abstraction splits it:
            it is not a partition of states), or a layer with the wrong number of labels.

        >>> from kinematic import figure2_split
        >>> mdp = figure2_split()
        >>> mdp.observations
        (('s1',), ('x2a', 'x2b'), ('s3',))
        >>> Partition.from_observation_labels(mdp, [[0], [7, 7], [0]]).blocks(2)
        [['s2a', 's2b']]
        """
        layers = _listed(labels_per_layer, "labels_per_layer", "sequences of labels, one per layer")
        if len(layers) != mdp.horizon:
            raise InvalidPartition(
                f"labels_per_layer must hold one sequence of labels per layer ({mdp.horizon}), "
                f"got {short_repr(layers)}")
        labels = []
        for h, given in enumerate(layers):
            observations, owners = mdp.observations[h], mdp.emission_state[h]
            where = f"labels_per_layer[{h}]"
            given = _listed(given, where, f"labels, one per observation of layer {h + 1}")
            if len(given) != len(observations):
                raise InvalidPartition(
                    f"{where} (layer {h + 1}) must label its {len(observations)} "
                    f"observations, got {short_repr(given)}")
            of_state: dict[int, tuple[int, Hashable]] = {}
            for x, label in enumerate(given):
                _check_label(label, f"{where}[{x}]")
                first_x, first_label = of_state.setdefault(int(owners[x]), (x, label))
                if label != first_label:
                    raise InvalidPartition(
                        f"labels_per_layer[{h}]: state {mdp.layers[h][owners[x]]!r} emits "
                        f"{observations[first_x]!r} (label {first_label!r}) and "
                        f"{observations[x]!r} (label {label!r}): a partition of states needs "
                        "one label per state")
            labels.append(first_appearance([of_state[i][1] for i in range(mdp.width(h))]))
        return cls(kind, mdp.layers, tuple(labels), mdp)

    def blocks(self, layer: int | None = None) -> list[list[str]]:
        """The blocks of layer ``layer`` (numbered from 1, as in the paper), each a list of
        state names in the MDP's order; without ``layer``, all blocks, layer by layer.

        Raises :class:`kinematic.UnknownLayer` for a layer out of ``1 .. H``.
        """
        if layer is None:
            return [block for h in range(len(self.layers)) for block in self._blocks_at(h)]
        return self._blocks_at(layer_index(layer, len(self.layers)))

    def _blocks_at(self, position: int) -> list[list[str]]:
        blocks: list[list[str]] = [[] for _ in range(self.blocks_per_layer[position])]
        for state, label in zip(self.layers[position], self.labels[position], strict=True):
            blocks[label].append(state)
        return blocks

    @property
    def blocks_per_layer(self) -> tuple[int, ...]:
        """Number of blocks in each layer (position ``h`` for layer ``h + 1``)."""
        return tuple(int(labels.max()) + 1 for labels in self.labels)

    @property
    def number_of_blocks(self) -> int:
        """Size of the partition: ``N_BD``, ``N_FD`` or ``N_KD`` of Section 3 for the KI
        partitions."""
        return sum(self.blocks_per_layer)

    @cached_property
    def _location(self) -> dict[str, tuple[int, int]]:
        return {s: (h, i) for h, layer in enumerate(self.layers) for i, s in enumerate(layer)}

    def same_block(self, first: str, second: str) -> bool:
        """Whether two states lie in the same block (states of different layers never do).

        Raises :class:`kinematic.UnknownName` naming the argument (``first`` or ``second``) for
        a name that is not a state, with the closest state names.
        """
        h1, i1 = find(self._location, first, "state", "first")
        h2, i2 = find(self._location, second, "state", "second")
        return h1 == h2 and self.labels[h1][i1] == self.labels[h2][i2]

    def __repr__(self) -> str:
        """The blocks by state names, layer by layer; long partitions summarised (the first
        blocks, members and layers, with counts of the rest)."""
        horizon = len(self.layers)
        if horizon <= _SHOWN_LAYERS:
            shown: list[int | None] = list(range(horizon))
        else:
            shown = [*range(_SHOWN_LAYERS - 2), None, horizon - 2, horizon - 1]
        parts = [f"... {horizon - _SHOWN_LAYERS} more layers ..." if h is None
                 else f"layer {h + 1}: {self._layer_text(h)}" for h in shown]
        size = "" if horizon <= _SHOWN_LAYERS else (
            f"{self.number_of_blocks} blocks of {sum(map(len, self.layers))} states; ")
        return f"Partition(kind={self.kind!r}, {size}{'; '.join(parts)})"

    def _layer_text(self, position: int) -> str:
        blocks = self._blocks_at(position)
        return listed(map(block_text, blocks), _SHOWN_BLOCKS, separator=" ")

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the partition: its MDP's layered graph with the blocks coloured
        (:func:`kinematic.figures.svg_picture`); None, hence text, without ``mdp`` or when
        large."""
        from kinematic.figures import svg_picture

        return None if self.mdp is None else svg_picture(self.mdp, self)


def check_partition_of(mdp: BlockMDP, partition: object, argument: str = "partition") -> Partition:
    """``partition`` if it is a :class:`Partition` of the states of ``mdp`` (layer by layer, in
    the MDP's order), for the functions that take both.

    Raises
    ------
    InvalidPartition
        Naming ``argument``: not a Partition, or a partition of other states (another MDP's),
        with the first layer that differs.

    >>> from kinematic import combination_lock, figure2_split, ki_partition
    >>> split = figure2_split()
    >>> check_partition_of(split, ki_partition(split)).blocks(2)
    [['s2a', 's2b']]
    >>> check_partition_of(split, ki_partition(combination_lock(3, 2, 0)))
    Traceback (most recent call last):
    ...
    kinematic.errors.InvalidPartition: partition: it partitions other states than those of \
'figure2' (layer 1: {s1a, s1b} in the partition, {s1} in the MDP)
    """
    if not isinstance(partition, Partition):
        raise InvalidPartition(
            f"{argument} must be a Partition (Partition.from_blocks, from_labels or "
            f"ki_partition build one), got {short_repr(partition)}")
    for h, (ours, theirs) in enumerate(zip_longest(mdp.layers, partition.layers)):
        if ours != theirs:
            raise InvalidPartition(
                f"{argument}: it partitions other states than those of {mdp.name!r} (layer "
                f"{h + 1}: {block_text(list(theirs or ()))} in the partition, "
                f"{block_text(list(ours or ()))} in the MDP)")
    return partition


@dataclass(frozen=True)
class PartitionComparison:
    """How two partitions of the same states relate (:func:`compare_with`).

    Attributes
    ----------
    relation : str
        ``"equal"`` (the same blocks), ``"finer"`` (every block of the first lies within a block
        of the second, and they differ), ``"coarser"`` (the other way round) or ``"crossing"``
        (neither refines the other).
    merged_by_first : tuple of two str or None
        Two states the first partition puts together and the second separates (None when there
        are none: the first is finer or equal).
    merged_by_second : tuple of two str or None
        Two states the second puts together and the first separates.
    """

    relation: str
    merged_by_first: tuple[str, str] | None
    merged_by_second: tuple[str, str] | None


def _merged_only_by(first: Partition, second: Partition,
                    positions: Sequence[int]) -> tuple[str, str] | None:
    """The first pair of states (in layer, then state order) in one block of ``first`` and in
    two blocks of ``second``."""
    for h in positions:
        seen: dict[int, tuple[int, int]] = {}
        for i, (mine, theirs) in enumerate(zip(first.labels[h], second.labels[h], strict=True)):
            j, their_first = seen.setdefault(int(mine), (i, int(theirs)))
            if their_first != theirs:
                return first.layers[h][j], first.layers[h][i]
    return None


def compare_with(first: Partition, second: Partition, layer: int | None = None
                 ) -> PartitionComparison:
    """Whether ``first`` equals, refines (``"finer"``), is refined by (``"coarser"``) or crosses
    ``second``, with a witness pair of states for each way they differ; on every layer, or on
    layer ``layer`` alone (numbered from 1).

    Raises
    ------
    InvalidPartition
        When either is not a Partition, or they partition different states.
    UnknownLayer
        For a layer out of ``1 .. H``.

    >>> from kinematic import backward_ki_partition, combination_lock, ki_partition
    >>> lock = combination_lock(3, 2, seed=0)
    >>> compare_with(ki_partition(lock), backward_ki_partition(lock))
    PartitionComparison(relation='finer', merged_by_first=None, merged_by_second=('s1a', 's1b'))
    >>> compare_with(ki_partition(lock), backward_ki_partition(lock), layer=3).relation
    'equal'
    """
    for argument, partition in (("first", first), ("second", second)):
        if not isinstance(partition, Partition):
            raise InvalidPartition(f"{argument} must be a Partition, got {short_repr(partition)}")
    if first.layers != second.layers:
        h = next(h for h, (a, b) in enumerate(zip_longest(first.layers, second.layers))
                 if a != b)
        raise InvalidPartition(
            f"second: it partitions other states than first (layer {h + 1}: "
            f"{block_text(list(second.layers[h] if h < len(second.layers) else ()))} in second, "
            f"{block_text(list(first.layers[h] if h < len(first.layers) else ()))} in first)")
    positions = (range(len(first.layers)) if layer is None
                 else [layer_index(layer, len(first.layers))])
    by_first = _merged_only_by(first, second, positions)
    by_second = _merged_only_by(second, first, positions)
    relation = {(False, False): "equal", (False, True): "finer", (True, False): "coarser",
                (True, True): "crossing"}[by_first is not None, by_second is not None]
    return PartitionComparison(relation, by_first, by_second)
