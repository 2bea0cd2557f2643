"""Kinematic inseparability of an exogenous Block MDP, from its two parts.

In an exogenous Block MDP (:mod:`kinematic.exogenous`; Efroni, Misra, Krishnamurthy, Agarwal and
Langford, ICLR 2022) the latent state is ``z = (s, xi)`` and
``T((s', xi') | (s, xi), a) = T_en(s' | s, a) T_ex(xi' | xi)``. Its backward, forward and full
KI partitions (``def:bki``, ``def:fki``, ``def:ki`` of the paper) are products:

    (s1, xi1) ~ (s2, xi2)  iff  s1 ~ s2 in the endogenous Block MDP  and  xi1 ~ xi2 in the chain,

where KI of the chain is that of the chain read as a Block MDP with one action: forward, equal
rows ``T_ex(. | xi1) = T_ex(. | xi2)``; backward, proportional columns ``T_ex(xi1' | .)`` and
``T_ex(xi2' | .)`` (``lem:bki-ratio``); with the toolkit's conventions (layer 1 is one backward
class, layer H one forward class) for both parts. The proof is in the documentation
(``docs/concepts/exogenous.md``): rows of the product are outer products ``T_en(. | s, a)
(x) T_ex(. | xi)`` and columns outer products ``T_en(s' | ., .) (x) T_ex(xi' | .)`` of
non-negative non-zero vectors, which are equal (proportional) iff their factors are. The
chain's start distribution plays no part (only its positive probabilities, which keep every
product state reachable).

Hence a chain with memory splits KI classes by exogenous value, and the three partitions of the
product are the endogenous Block MDP's own, lifted to every exogenous value, iff every step of
the chain is i.i.d. (``T_ex(. | xi)`` the same for all ``xi``): then every row of the chain is
equal and every column constant.

- :func:`chain_partitions`: the chain's backward, forward and full KI partitions of its values;
- :func:`product_partition`: the partition of the product predicted from a partition of the
  endogenous states and one of the exogenous values;
- :func:`predicted_ki_partitions`: the theorem's three partitions of the product.

>>> from kinematic import combination_lock, exogenous_block_mdp, exogenous_chain, ki_partition
>>> lock = combination_lock(3, 2, seed=0)
>>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
...                        horizon=3)
>>> model = exogenous_block_mdp(lock, flip)
>>> predicted_ki_partitions(model).ki == ki_partition(model.mdp)
True
>>> ki_partition(model.mdp).blocks_per_layer  # 2, 3, 2 classes of the lock, times 2 values
(4, 6, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from kinematic.errors import InvalidPartition
from kinematic.exogenous import ExogenousBlockMDP, ExogenousChain
from kinematic.inseparability import (
    backward_ki_partition,
    forward_ki_partition,
    group_rows,
    ki_partition,
)
from kinematic.numbers import DEFAULT_ATOL, NumberMode
from kinematic.partition import Partition, first_appearance

__all__ = ["KIPartitions", "chain_partitions", "predicted_ki_partitions", "product_partition"]


@dataclass(frozen=True)
class KIPartitions:
    """The backward (``def:bki``), forward (``def:fki``) and full (``def:ki``) KI partitions of
    one object, each a :class:`~kinematic.partition.Partition`."""

    backward: Partition
    forward: Partition
    ki: Partition


def _mode(chain: ExogenousChain, atol: float) -> NumberMode:
    """Exact when every transition probability of ``chain`` is a rational, as a spec's."""
    exact = all(isinstance(p, Fraction) for step in chain.transitions for row in step.values()
                for p in row.values())
    return NumberMode(exact, atol)


def _matrix(chain: ExogenousChain, step: int, mode: NumberMode) -> np.ndarray:
    """``T_ex`` of step ``step`` (0-based) as a matrix: rows the values of layer ``step + 1``,
    columns those of layer ``step + 2``."""
    rows = chain.transitions[step]
    return mode.array(np.array([[rows[xi][xi2] for xi2 in chain.layers[step + 1]]
                                for xi in chain.layers[step]], dtype=object))


def _normalised_columns(matrix: np.ndarray) -> np.ndarray:
    """The columns of ``matrix`` as rows, each divided by its sum (positive: every value of a
    chain has positive probability, :func:`kinematic.exogenous.exogenous_chain`)."""
    return (matrix / matrix.sum(axis=0)).T


def chain_partitions(chain: ExogenousChain, atol: float = DEFAULT_ATOL) -> KIPartitions:
    """The KI partitions of the values of an exogenous chain, layer by layer: the chain read as
    a Block MDP with one action (``def:bki``, ``def:fki``, ``def:ki``).

    - backward: values of layer ``h >= 2`` whose incoming columns ``T_ex(xi' | .)`` over the
      values of layer ``h - 1`` are proportional (``lem:bki-ratio``); layer 1 is one class;
    - forward: values of layer ``h < H`` with equal rows ``T_ex(. | xi)``; layer H is one class;
    - full KI: both.

    The start distribution plays no part. Exact chains (rational probabilities) are compared
    exactly; chains with floats within ``atol``, as :func:`kinematic.backward_ki_partition`
    does. The partitions' ``layers`` are the chain's values, whose names may repeat from layer
    to layer: read them with ``blocks(layer)``, not ``same_block``.

    >>> from kinematic import exogenous_chain
    >>> sticky = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                          {"0": {"0": "9/10", "1": "1/10"},
    ...                           "1": {"0": "1/10", "1": "9/10"}}, horizon=3)
    >>> partitions = chain_partitions(sticky)
    >>> partitions.backward.blocks_per_layer, partitions.forward.blocks_per_layer
    ((1, 2, 2), (2, 2, 1))
    >>> coin = exogenous_chain(["h", "t"], {"h": "1/2", "t": "1/2"},
    ...                        {"h": {"h": "1/2", "t": "1/2"}, "t": {"h": "1/2", "t": "1/2"}},
    ...                        horizon=3)
    >>> chain_partitions(coin).ki.blocks_per_layer  # i.i.d. noise: one class per layer
    (1, 1, 1)
    """
    mode = _mode(chain, atol)
    horizon = chain.horizon
    one_class = [np.zeros(len(layer), dtype=np.intp) for layer in chain.layers]
    backward = [one_class[0]]
    forward = []
    for step in range(horizon - 1):
        matrix = _matrix(chain, step, mode)
        forward.append(group_rows(mode, matrix, chain.layers[step]))
        backward.append(group_rows(mode, _normalised_columns(matrix), chain.layers[step + 1]))
    forward.append(one_class[-1])
    full = [first_appearance(list(zip(b.tolist(), f.tolist(), strict=True)))
            for b, f in zip(backward, forward, strict=True)]
    return KIPartitions(*(Partition(kind, chain.layers, tuple(labels))
                          for kind, labels in (("backward", backward), ("forward", forward),
                                               ("ki", full))))


def _labels_by_name(partition: Partition) -> list[dict[str, int]]:
    """Per layer, each name's block in ``partition``."""
    return [dict(zip(names, labels.tolist(), strict=True))
            for names, labels in zip(partition.layers, partition.labels, strict=True)]


def product_partition(endogenous_partition: Partition, chain_partition: Partition,
                      model: ExogenousBlockMDP) -> Partition:
    """The partition of ``model.mdp`` in which ``(s1, xi1)`` and ``(s2, xi2)`` share a block iff
    ``s1, s2`` share a block of ``endogenous_partition`` (a partition of
    ``model.endogenous``'s states) and ``xi1, xi2`` one of ``chain_partition`` (a partition of
    ``model.chain``'s values, as :func:`chain_partitions` gives). Every pair of a layer is a
    state, so layer ``h`` has the product of the two numbers of blocks.

    With the backward (forward, full) KI partitions of both parts, this is the backward
    (forward, full) KI partition of the product (the module docstring; the proof in
    ``docs/concepts/exogenous.md``). The result has the parts' ``kind`` when they agree,
    ``"product"`` otherwise.

    Raises
    ------
    InvalidPartition
        When a partition is not of ``model``'s part (its layers differ), naming the argument.

    >>> from kinematic import (combination_lock, endogenous_partition, exogenous_block_mdp,
    ...                        exogenous_chain, forward_ki_partition)
    >>> lock = combination_lock(3, 2, seed=0)
    >>> coin = exogenous_chain(["h", "t"], {"h": "1/2", "t": "1/2"},
    ...                        {"h": {"h": "1/2", "t": "1/2"}, "t": {"h": "1/2", "t": "1/2"}},
    ...                        horizon=3)
    >>> model = exogenous_block_mdp(lock, coin)
    >>> lifted = product_partition(forward_ki_partition(lock), chain_partitions(coin).forward,
    ...                            model)
    >>> lifted.blocks(1)
    [['s1a|h', 's1a|t'], ['s1b|h', 's1b|t']]
    >>> lifted == forward_ki_partition(model.mdp)
    True
    """
    if endogenous_partition.layers != model.endogenous.layers:
        raise InvalidPartition("product_partition: endogenous_partition is not a partition of "
                               f"the states of {model.endogenous.name!r}")
    if chain_partition.layers != model.chain.layers:
        raise InvalidPartition("product_partition: chain_partition is not a partition of the "
                               "values of model.chain")
    endogenous, exogenous = _labels_by_name(endogenous_partition), _labels_by_name(chain_partition)
    labels = {state: (endogenous[h][model.parts[state][0]], exogenous[h][model.parts[state][1]])
              for h, layer in enumerate(model.mdp.layers) for state in layer}
    kind = (endogenous_partition.kind if endogenous_partition.kind == chain_partition.kind
            else "product")
    return Partition.from_labels(model.mdp, labels, kind=kind)


def predicted_ki_partitions(model: ExogenousBlockMDP) -> KIPartitions:
    """The backward, forward and full KI partitions of ``model.mdp`` computed from its parts:
    each the :func:`product_partition` of the endogenous Block MDP's partition
    (:func:`kinematic.backward_ki_partition`, ...) and the chain's (:func:`chain_partitions`).
    Equal to the partitions of ``model.mdp`` itself in exact mode, which is the theorem;
    computed on the parts, whose sizes add where the product's multiply. In float mode both
    sides compare within ``atol`` but on different numbers (a chain's rows, the product's
    rows scaled by the endogenous probabilities), so rows of the chain that differ by more
    than ``atol`` can still give product rows within it: the two may then disagree.

    >>> from kinematic import (combination_lock, endogenous_partition, exogenous_block_mdp,
    ...                        exogenous_chain)
    >>> lock = combination_lock(3, 2, seed=0)
    >>> coin = exogenous_chain(["h", "t"], {"h": "1/2", "t": "1/2"},
    ...                        {"h": {"h": "1/2", "t": "1/2"}, "t": {"h": "1/2", "t": "1/2"}},
    ...                        horizon=3)
    >>> model = exogenous_block_mdp(lock, coin)
    >>> predicted_ki_partitions(model).ki.blocks(3)  # the lock's s3a, s3b are KI
    [['s3a|h', 's3a|t', 's3b|h', 's3b|t'], ['s3c|h', 's3c|t']]
    >>> endogenous_partition(model).blocks_per_layer
    (2, 3, 3)
    """
    chain = chain_partitions(model.chain, model.mdp.mode.atol)
    backward = backward_ki_partition(model.endogenous)
    forward = forward_ki_partition(model.endogenous)
    return KIPartitions(
        product_partition(backward, chain.backward, model),
        product_partition(forward, chain.forward, model),
        product_partition(ki_partition(model.endogenous, backward, forward), chain.ki, model))
