"""The endogenous state of a Block MDP when nobody declared it: the factorisations into an
endogenous Block MDP and an exogenous Markov chain that exist, found by exact search, and the
coarsest of them (:func:`endogenous_factorisations`).

A factorisation of layer ``h`` is a grid: a partition ``E_h`` of its states (the endogenous
labels) and a partition ``X_h`` (the exogenous labels) such that every pair of an ``E_h`` block
and an ``X_h`` block meets in exactly one state. The factorisations of the MDP are the grids of
every layer under which :func:`kinematic.exogenous_check.check_factorisation` passes (the model
of :mod:`kinematic.exogenous`). One always exists: each state its own endogenous label, one
exogenous value per layer. The *coarsest* have the fewest endogenous classes summed over the
layers: the most structure that no action influences.

The search (exact; the conditions below are equivalent to ``check_factorisation``'s, which
verifies every factorisation reported):

- *incoming*, from layer ``h``'s own rows (the start for layer 1, else ``T(. | z, a)`` from
  every state ``z`` of layer ``h - 1``): an exogenous block's probability does not depend on the
  action; each row is the product of its endogenous and exogenous marginals, checked block by
  endogenous block (``T(j | z, a) = T(E(j) | z, a) T(X(j) | z, a)``); rewards are equal within
  an endogenous block. So the exogenous blocks are the subsets (of one size, dividing the
  layer's width) whose probability is action-independent, the partitions their exact covers,
  and the endogenous blocks the transversals of the exogenous partition that pass the product
  check, the partitions again their exact covers;
- *outgoing*, to the next layer's grid: the states of one exogenous block have the same
  exogenous marginal (``T_ex`` depends on ``xi`` only), those of one endogenous block the same
  endogenous marginal under every action (``T_en`` on ``s, a`` only). Given the next layer's
  grid these say which states may share a block, and the blocks are built within them (a size
  is skipped at once when some state has fewer partners, alike in rewards and in endogenous
  marginals, than an endogenous block of that size needs).

The layers are searched backwards from the last one (whose grids only the incoming conditions
restrict), each layer's grids built for each grid of the next, with the number of endogenous
classes per layer chosen best first (A*: the classes chosen so far plus one per layer left) and
each layer's grids of one size built only when that choice is reached. So a layer's
unrestricted grids, millions at 12 states when its rows are uniform (``12! / (3! 4!)`` for
3 x 4 alone), are built only when nothing coarser exists.

In float mode the conditions are compared within ``SLACK * width * atol`` (block sums add up
to ``width`` entries), a necessary condition of ``check_factorisation``'s, whose verdict (within
``atol``) is final.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import DTypeLike

from kinematic.errors import TooLarge
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.exogenous_check import NotFactorised, check_factorisation
from kinematic.model import BlockMDP
from kinematic.partition import Partition

__all__ = ["MAX_PARTITIONS", "MAX_STATES_PER_LAYER", "SLACK", "EndogenousFactorisations",
           "endogenous_factorisations"]

MAX_STATES_PER_LAYER = 12
"""The widest layer :func:`endogenous_factorisations` searches by default."""

MAX_PARTITIONS = 1000
"""The most coarsest endogenous partitions :func:`endogenous_factorisations` lists by default."""

SLACK = 4
"""Float mode: the search compares within ``SLACK * width * atol``."""

_INT64_SCALE = 2 ** 30
"""Exact rows scaled by a common denominator up to this are int64 (products stay below 2^62)."""


@dataclass(frozen=True)
class EndogenousFactorisations:
    """What :func:`endogenous_factorisations` found.

    Attributes
    ----------
    mdp : BlockMDP
        The MDP searched.
    coarsest : tuple of ExogenousBlockMDP
        One factorisation per coarsest endogenous partition (fewest endogenous classes summed
        over the layers), each checked by ``check_factorisation``; ordered by their partitions.
        Endogenous labels join the states of a block with ``+``; exogenous values are ``xi1``,
        ``xi2``, ... per layer.
    endogenous_classes : int
        Their number of endogenous classes, summed over the layers.
    factorisations : int
        The number of coarsest factorisations: pairs of partitions (endogenous, exogenous) of
        every layer. Larger than ``len(coarsest)`` when the exogenous part can be chosen in
        several ways beside one endogenous partition (i.i.d. uniform noise, for instance).
    """

    mdp: BlockMDP
    coarsest: tuple[ExogenousBlockMDP, ...]
    endogenous_classes: int
    factorisations: int

    @property
    def unique(self) -> bool:
        """Whether the coarsest endogenous partition is unique."""
        return len(self.coarsest) == 1

    def partitions(self) -> list[Partition]:
        """The coarsest endogenous partitions (kind ``"endogenous"``)."""
        return [endogenous_partition(model) for model in self.coarsest]

    def __repr__(self) -> str:
        classes = " or ".join(dict.fromkeys(
            "/".join(str(len(layer)) for layer in model.endogenous.layers)
            for model in self.coarsest))
        which = ("unique" if self.unique else
                 f"{len(self.coarsest)} coarsest endogenous partitions")
        count = f"{self.factorisations:,} factorisation{'s' if self.factorisations > 1 else ''}"
        return (f"<EndogenousFactorisations {self.mdp.name!r}: endogenous classes {classes} "
                f"per layer ({which}; {count})>")


class _Numbers:
    """Equality of the search's numbers: integers (exact mode) or floats within ``tol``."""

    def __init__(self, exact: bool, tol: float) -> None:
        self.exact, self.tol = exact, tol

    def equal(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.exact:
            return np.asarray(a == b).astype(bool)
        return np.asarray(np.abs(a - b) <= self.tol)

    def together(self, signatures: np.ndarray) -> np.ndarray:
        """``[i, j]``: whether rows ``i`` and ``j`` of ``signatures`` are equal."""
        return np.asarray(self.equal(signatures[:, None, :], signatures[None, :, :])
                          .all(axis=-1))


def _scaled(rows: np.ndarray, exact: bool) -> tuple[np.ndarray, int]:
    """``rows`` as integers times their least common denominator (exact mode), or floats."""
    if not exact:
        return np.asarray(rows, dtype=np.float64), 1
    fractions = [Fraction(value) for value in rows.flat]
    scale = math.lcm(*(value.denominator for value in fractions))
    integers = [value.numerator * (scale // value.denominator) for value in fractions]
    dtype = np.int64 if scale <= _INT64_SCALE else object
    return np.array(integers, dtype=dtype).reshape(rows.shape), scale


def _indicator(blocks: Sequence[int], n: int, dtype: DTypeLike = np.int64) -> np.ndarray:
    """One row per bitmask of ``blocks``, one column per state."""
    masks = np.asarray(blocks, dtype=np.int64).reshape(-1, 1)
    return ((masks >> np.arange(n)) & 1).astype(dtype)


def _members(block: int, n: int) -> list[int]:
    return [i for i in range(n) if (block >> i) & 1]


def exact_covers(n: int, blocks: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The partitions of ``{0 .. n-1}`` into blocks among ``blocks`` (bitmasks), each once: the
    block of the smallest uncovered element is chosen first.

    >>> sorted(exact_covers(4, [0b0011, 0b1100, 0b0101, 0b1010, 0b0110]))
    [(3, 12), (5, 10)]
    """
    by_lowest: dict[int, list[int]] = {}
    for block in blocks:
        by_lowest.setdefault((block & -block).bit_length() - 1, []).append(block)
    full = (1 << n) - 1
    chosen: list[int] = []

    def extend(covered: int) -> Iterator[tuple[int, ...]]:
        if covered == full:
            yield tuple(chosen)
            return
        lowest = (~covered & (covered + 1)).bit_length() - 1
        for block in by_lowest.get(lowest, ()):
            if not block & covered:
                chosen.append(block)
                yield from extend(covered | block)
                chosen.pop()

    yield from extend(0)


@dataclass(frozen=True)
class _Grid:
    """One layer's factorisation: endogenous and exogenous blocks as bitmasks, in order."""

    endogenous: tuple[int, ...]
    exogenous: tuple[int, ...]


class _Layer:
    """What the search needs of one layer: its incoming rows (scaled), which states have the
    same expected rewards, and the grids found so far per (size, restriction)."""

    def __init__(self, mdp: BlockMDP, h: int, numbers: _Numbers) -> None:
        self.states = mdp.layers[h]
        self.n = n = len(self.states)
        if h == 0:
            rows = np.asarray(mdp.start).reshape(1, 1, n)
        else:
            matrix = mdp.transitions[h - 1]
            dense = matrix if isinstance(matrix, np.ndarray) else matrix.toarray()
            rows = np.asarray(dense).reshape(len(mdp.layers[h - 1]), len(mdp.actions), n)
        self.incoming, self.scale = _scaled(rows, mdp.mode.exact)
        flat = self.incoming.reshape(-1, n)
        self.rows = np.unique(flat, axis=0) if flat.dtype != object else flat
        self.numbers = numbers
        expected = mdp.mode.zeros((n, len(mdp.actions)))
        for o, state in enumerate(mdp.emission_state[h]):
            expected[state] = expected[state] + \
                mdp.emission_probability[h][o] * mdp.rewards[h][o]
        rewards = _Numbers(mdp.mode.exact, mdp.mode.atol)
        self.same_rewards = rewards.together(expected)
        self.cache: dict[tuple[int, bytes], list[_Grid]] = {}
        self.subsets: dict[int, tuple[list[int], np.ndarray]] = {}
        self.marginals: dict[tuple[tuple[int, ...], bool], np.ndarray] = {}

    def together(self, blocks: tuple[int, ...], exogenous: bool) -> np.ndarray:
        """Which states of the layer before this one have the same probabilities of ``blocks``
        (the exogenous blocks of a grid of this layer: under the first action, which is every
        action's; the endogenous ones: under every action)."""
        key = (blocks, exogenous)
        if key not in self.marginals:
            incoming = self.incoming
            indicator = _indicator(blocks, self.n, incoming.dtype)
            marginals = (incoming[:, 0, :] @ indicator.T if exogenous else
                         (incoming @ indicator.T).reshape(incoming.shape[0], -1))
            self.marginals[key] = self.numbers.together(marginals)
        return self.marginals[key]

    def grids(self, size: int, together: tuple[np.ndarray, np.ndarray] | None) -> list[_Grid]:
        """The grids whose exogenous blocks have ``size`` states (``size`` endogenous classes)
        that pass the incoming conditions and, when given, ``together``: which states may share
        an exogenous block and which an endogenous one (from the next layer's grid)."""
        key = (size, b"" if together is None else together[0].tobytes() + together[1].tobytes())
        if key not in self.cache:
            self.cache[key] = list(self._build(size, together))
        return self.cache[key]

    def _build(self, size: int,
               together: tuple[np.ndarray, np.ndarray] | None) -> Iterator[_Grid]:
        n = self.n
        partners = self.same_rewards if together is None else self.same_rewards & together[1]
        if partners.sum(axis=1).min() < n // size:
            return  # an endogenous block holds n / size states that may share one
        subsets, indicator = self._exogenous_blocks(size)
        valid = np.ones(len(subsets), dtype=bool)
        if together is not None:
            valid &= _within(indicator, together[0])
        blocks = [subset for subset, ok in zip(subsets, valid, strict=True) if ok]
        for exogenous in exact_covers(n, blocks):
            for endogenous in self._endogenous(exogenous,
                                               None if together is None else together[1]):
                yield _Grid(endogenous, exogenous)

    def _exogenous_blocks(self, size: int) -> tuple[list[int], np.ndarray]:
        """The subsets of ``size`` states whose probability no action changes, from every state
        of the layer before (every subset in layer 1), with their indicator rows."""
        if size not in self.subsets:
            subsets = [sum(1 << i for i in members)
                       for members in itertools.combinations(range(self.n), size)]
            indicator = _indicator(subsets, self.n)
            sums = self.incoming @ indicator.T.astype(self.incoming.dtype)
            valid = np.asarray(self.numbers.equal(sums, sums[:, :1, :]).all(axis=(0, 1)))
            self.subsets[size] = ([s for s, ok in zip(subsets, valid, strict=True) if ok],
                                  indicator[valid])
        return self.subsets[size]

    def _endogenous(self, exogenous: tuple[int, ...],
                    together: np.ndarray | None) -> Iterator[tuple[int, ...]]:
        """The endogenous partitions beside ``exogenous``: exact covers by its transversals on
        which every incoming row is the product of its marginals and the rewards are equal."""
        n = self.n
        picks = np.zeros(1, dtype=np.int64)
        for block in exogenous:
            bits = np.array([1 << i for i in _members(block, n)], dtype=np.int64)
            picks = (picks[:, None] + bits[None, :]).ravel()
        transversals = picks.tolist()
        indicator = _indicator(transversals, n)
        same_block = (_indicator(exogenous, n).T @ _indicator(exogenous, n))
        rows = self.rows
        endogenous_mass = rows @ indicator.T.astype(rows.dtype)
        exogenous_mass = rows @ same_block.astype(rows.dtype)
        product = endogenous_mass[:, :, None] * exogenous_mass[:, None, :]
        matches = self.numbers.equal((rows * self.scale)[:, None, :], product)
        valid = (matches | (indicator == 0)[None, :, :]).all(axis=(0, 2))
        valid &= _within(indicator, self.same_rewards)
        if together is not None:
            valid &= _within(indicator, together)
        yield from exact_covers(n, [block for block, ok in zip(transversals, valid, strict=True)
                                    if ok])


def _within(indicator: np.ndarray, together: np.ndarray) -> np.ndarray:
    """Per row of ``indicator`` (a subset of states): whether all its pairs are ``together``."""
    apart = (~together).astype(np.int64)
    return ((indicator @ apart) * indicator).sum(axis=1) == 0


def _together(layer: _Layer, grid: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """Which states of the layer before ``layer`` may share an exogenous block (same
    probabilities of ``grid``'s exogenous blocks) and an endogenous one (same probabilities of
    its endogenous blocks under every action)."""
    return (layer.together(grid.exogenous, exogenous=True),
            layer.together(grid.endogenous, exogenous=False))


@dataclass
class _Prefix:
    """A choice of endogenous classes for layers ``h .. H`` (``classes``, from layer ``h``) with
    the grids of layer ``h`` that lead on through ``parent``'s: ``successors[i]`` are the indices
    of ``parent.grids`` compatible with ``grids[i]``."""

    h: int
    classes: tuple[int, ...]
    grids: list[_Grid]
    successors: list[list[int]]
    parent: _Prefix | None = field(repr=False)


def _expand(layers: list[_Layer], h: int, size: int, parent: _Prefix | None) -> _Prefix:
    """The grids of layer ``h`` with ``size`` endogenous classes that lead on to ``parent``."""
    if parent is None:
        grids = layers[h].grids(size, None)
        return _Prefix(h, (size,), grids, [[] for _ in grids], None)
    by_restriction: dict[bytes, tuple[tuple[np.ndarray, np.ndarray], list[int]]] = {}
    for j, following in enumerate(parent.grids):
        together = _together(layers[h + 1], following)
        key = together[0].tobytes() + together[1].tobytes()
        by_restriction.setdefault(key, (together, []))[1].append(j)
    successors: dict[_Grid, list[int]] = {}
    for together, indices in by_restriction.values():
        for grid in layers[h].grids(size, together):
            successors.setdefault(grid, []).extend(indices)
    return _Prefix(h, (size, *parent.classes), list(successors), list(successors.values()),
                   parent)


def _search(layers: list[_Layer]) -> list[_Prefix]:
    """The complete choices of classes with the fewest endogenous classes in total (A*)."""
    horizon = len(layers)
    divisors = [[k for k in range(1, layer.n + 1) if layer.n % k == 0] for layer in layers]
    queue: list[tuple[int, int, int, int, _Prefix | None]] = []
    counter = itertools.count()
    for k in divisors[-1]:
        heapq.heappush(queue, (k + horizon - 1, next(counter), horizon - 1, k, None))
    best: int | None = None
    found: list[_Prefix] = []
    while queue:
        bound, _, h, size, parent = heapq.heappop(queue)
        if best is not None and bound > best:
            break
        prefix = _expand(layers, h, size, parent)
        if not prefix.grids:
            continue
        total = sum(prefix.classes)
        if h == 0:
            best = total if best is None else best
            if total == best:
                found.append(prefix)
            continue
        for k in divisors[h - 1]:
            heapq.heappush(queue, (total + k + h - 1, next(counter), h - 1, k, prefix))
    return found


def _endogenous_paths(prefix: _Prefix) -> Iterator[list[int]]:
    """One chain of grid indices (layer 1 first) per distinct sequence of endogenous
    partitions: the grids reachable so far are carried as a set, grouped by their endogenous
    partition, so that the number of exogenous choices does not multiply the work."""

    def extend(level: _Prefix, reachable: list[int],
               chosen: list[list[int]]) -> Iterator[list[list[int]]]:
        groups: dict[tuple[int, ...], list[int]] = {}
        for i in reachable:
            groups.setdefault(level.grids[i].endogenous, []).append(i)
        for members in groups.values():
            if level.parent is None:
                yield [*chosen, members]
                continue
            following = sorted({j for i in members for j in level.successors[i]})
            yield from extend(level.parent, following, [*chosen, members])

    for groups in extend(prefix, list(range(len(prefix.grids))), []):
        yield _witness(prefix, groups)


def _witness(prefix: _Prefix, groups: list[list[int]]) -> list[int]:
    """A chain through ``groups`` (one list of grid indices per layer, layer 1 first), chosen
    backwards from the last layer so that every choice leads on."""
    levels = []
    level: _Prefix | None = prefix
    while level is not None:
        levels.append(level)
        level = level.parent
    alive = [set(groups[-1])]
    for t in range(len(levels) - 2, -1, -1):
        alive.insert(0, {i for i in groups[t]
                         if any(j in alive[0] for j in levels[t].successors[i])})
    chain = [min(alive[0])]
    for t in range(1, len(levels)):
        chain.append(min(j for j in levels[t - 1].successors[chain[-1]] if j in alive[t]))
    return chain


def _count(prefix: _Prefix) -> int:
    """The number of chains of grids through ``prefix`` and its parents."""
    counts: list[int] | None = None
    levels = []
    level: _Prefix | None = prefix
    while level is not None:
        levels.append(level)
        level = level.parent
    for level in reversed(levels):
        counts = [1 if counts is None else sum(counts[j] for j in following)
                  for following in level.successors]
    assert counts is not None
    return sum(counts)


def _labels(layers: list[_Layer], prefix: _Prefix,
            chain: list[int]) -> tuple[dict[str, str], dict[str, str]]:
    endogenous: dict[str, str] = {}
    exogenous: dict[str, str] = {}
    level: _Prefix | None = prefix
    for index in chain:
        assert level is not None
        grid, states = level.grids[index], layers[level.h].states
        n = len(states)
        for block in grid.endogenous:
            label = "+".join(states[i] for i in _members(block, n))
            endogenous.update({states[i]: label for i in _members(block, n)})
        for v, block in enumerate(sorted(grid.exogenous), start=1):
            exogenous.update({states[i]: f"xi{v}" for i in _members(block, n)})
        level = level.parent
    return endogenous, exogenous


def endogenous_factorisations(mdp: BlockMDP, max_states_per_layer: int = MAX_STATES_PER_LAYER,
                              max_partitions: int = MAX_PARTITIONS) -> EndogenousFactorisations:
    """The coarsest factorisations of ``mdp`` into an endogenous Block MDP and an exogenous
    Markov chain, by exact search (see the module's docstring): every coarsest endogenous
    partition (fewest endogenous classes summed over the layers), one factorisation of each,
    checked by :func:`~kinematic.exogenous_check.check_factorisation`.

    Raises
    ------
    TooLarge
        When a layer has more than ``max_states_per_layer`` states (naming it): the search
        enumerates subsets of a layer's states, ``2^width`` of them; or when there are more
        than ``max_partitions`` coarsest endogenous partitions (each is checked and built:
        about a millisecond each at 10 states per layer).
    NotFactorised
        In float mode only, when ``check_factorisation`` (within ``atol``) rejects every
        coarsest factorisation the search found (within ``SLACK * width * atol``); a coarsest
        partition it rejects is left out.

    >>> from kinematic import combination_lock, exogenous_block_mdp, exogenous_chain
    >>> lock = combination_lock(3, 2, seed=0)
    >>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
    ...                        horizon=3)
    >>> found = endogenous_factorisations(exogenous_block_mdp(lock, flip).mdp)
    >>> found  # doctest: +NORMALIZE_WHITESPACE
    <EndogenousFactorisations 'combolock-H3-K2-seed0+exogenous': endogenous classes 2/3/3 per
     layer (unique; 1 factorisation)>
    >>> found.partitions()[0].blocks(2)
    [['s2a|0', 's2a|1'], ['s2b|0', 's2b|1'], ['s2c|0', 's2c|1']]
    """
    for h, layer in enumerate(mdp.layers):
        if len(layer) > max_states_per_layer:
            raise TooLarge(f"layer {h + 1} has {len(layer)} states: the exact search of "
                           f"endogenous factorisations takes up to max_states_per_layer = "
                           f"{max_states_per_layer} (it enumerates subsets of a layer's states)")
    layers = []
    for h, states in enumerate(mdp.layers):
        tol = 0.0 if mdp.mode.exact else SLACK * len(states) * mdp.mode.atol
        layers.append(_Layer(mdp, h, _Numbers(mdp.mode.exact, tol)))
    found = _search(layers)
    chains = list(itertools.islice(((prefix, chain) for prefix in found
                                    for chain in _endogenous_paths(prefix)), max_partitions + 1))
    if len(chains) > max_partitions:
        raise TooLarge(f"{mdp.name!r} has more than max_partitions = {max_partitions} coarsest "
                       f"endogenous partitions ({sum(found[0].classes)} classes in all); raise "
                       "max_partitions to list them")
    models: list[ExogenousBlockMDP] = []
    for prefix, chain in chains:
        endogenous, exogenous = _labels(layers, prefix, chain)
        try:
            models.append(check_factorisation(mdp, endogenous, exogenous))
        except NotFactorised:
            if mdp.mode.exact:
                raise
    if not models:
        raise NotFactorised(f"{mdp.name!r}: the coarsest factorisations the search found (within "
                            f"{SLACK} * width * atol) fail check_factorisation within atol; "
                            "give the MDP exact numbers")
    models.sort(key=lambda model: [labels.tolist() for labels in
                                   endogenous_partition(model).labels])
    return EndogenousFactorisations(mdp, tuple(models), sum(found[0].classes),
                                    sum(_count(prefix) for prefix in found))
