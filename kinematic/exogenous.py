"""Exogenous Block MDPs: a latent state that is a pair of an endogenous part, which the actions
control, and an exogenous part, which follows its own Markov chain whatever the agent does.

The model of Efroni, Misra, Krishnamurthy, Agarwal and Langford (ICLR 2022, "Provable RL with
Exogenous Distractors via Multistep Inverse Dynamics"): the latent state of layer ``h`` is
``z = (s, xi)`` and

    T((s', xi') | (s, xi), a) = T_en(s' | s, a) T_ex(xi' | xi),    mu(s, xi) = mu_en(s) mu_ex(xi),

with emissions disjoint over ``z`` as in any Block MDP (Assumption 1 of the paper) and rewards
that depend on the endogenous part only. The target of representation learning there is the
endogenous state ``x -> s``, not the latent state.

A :class:`~kinematic.model.BlockMDP` is kept as it is; the factorisation lives beside it:

- :func:`exogenous_chain` builds the exogenous Markov chain (:class:`ExogenousChain`), stationary
  or layer by layer;
- :func:`exogenous_block_mdp` composes an endogenous Block MDP and a chain into the product
  Block MDP, whose states are named ``"s|xi"`` (:class:`ExogenousBlockMDP` keeps the parts);
- :func:`kinematic.exogenous_check.check_factorisation` checks exactly that any Block MDP
  factorises as declared (each state's endogenous and exogenous label), naming the first entry
  that breaks it, and recovers the two parts;
- :func:`endogenous_partition` is the partition of the states by their endogenous part, a
  :class:`~kinematic.partition.Partition` of kind ``"endogenous"`` usable wherever partitions
  are (drawing, :func:`kinematic.quotient`, ``homer evaluate``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from kinematic.errors import InvalidBlockMDP, require_mapping, short_repr
from kinematic.lookup import find
from kinematic.model import BlockMDP, block_mdp
from kinematic.number_mixing import number_mode
from kinematic.numbers import DEFAULT_ATOL, Number, number_text, parse_number
from kinematic.partition import Partition
from kinematic.spec import to_spec

__all__ = ["SEPARATOR", "ExogenousBlockMDP", "ExogenousChain", "endogenous_partition",
           "exogenous_block_mdp", "exogenous_chain"]

SEPARATOR = "|"
"""Between the endogenous and the exogenous part of a product state's name: ``"s2a|01"``."""


@dataclass(frozen=True)
class ExogenousChain:
    """A Markov chain over exogenous values, layer by layer: the part of the latent state that
    no action influences.

    Attributes
    ----------
    layers : tuple of tuple of str
        The exogenous values of each layer (names may repeat between layers: the product state's
        name is unique through its endogenous part).
    start : dict
        Value of layer 1 -> probability (every value of layer 1 listed).
    transitions : tuple of dict
        ``transitions[h][xi][xi2]``: the probability of value ``xi2`` of layer ``h + 2`` after
        value ``xi`` of layer ``h + 1``; full rows (zeros included), one dict per step.
    """

    layers: tuple[tuple[str, ...], ...]
    start: Mapping[str, Number]
    transitions: tuple[Mapping[str, Mapping[str, Number]], ...]

    @property
    def horizon(self) -> int:
        return len(self.layers)


def _probabilities(row: object, values: Sequence[str], where: str,
                   atol: float) -> dict[str, Number]:
    """``row`` (value -> probability, absent values 0) as a full row over ``values``."""
    row = require_mapping(row, where)
    for name in row:
        if name not in values:
            raise InvalidBlockMDP(f"{where}: {name!r} is not a value of this layer "
                                  f"({', '.join(map(repr, values))})")
    full: dict[str, Number] = {value: parse_number(row.get(value, 0), f"{where}[{value!r}]")
                               for value in values}
    for value, p in full.items():
        if p < 0:
            raise InvalidBlockMDP(f"{where}[{value!r}]: {number_text(p)} is negative")
    total: Number = sum(full.values(), Fraction(0))
    exact = all(isinstance(p, Fraction) for p in full.values())
    if (total != 1) if exact else abs(float(total) - 1) > atol:
        raise InvalidBlockMDP(f"{where}: the probabilities sum to {number_text(total)}, not 1")
    return full


def exogenous_chain(values: Sequence[str] | Sequence[Sequence[str]], start: Mapping[str, object],
                    transitions: Mapping[str, Mapping[str, object]]
                    | Sequence[Mapping[str, Mapping[str, object]]],
                    horizon: int | None = None, atol: float = DEFAULT_ATOL) -> ExogenousChain:
    """An exogenous Markov chain, checked: probabilities are numbers as in a spec (``"9/10"``,
    ints, ``Fraction``; floats put the product in float mode), rows sum to 1, every value of
    every layer has positive probability (else its product states would be unreachable, which a
    Block MDP refuses).

    Parameters
    ----------
    values
        The exogenous values: one list for a stationary chain (then ``horizon`` is required and
        ``transitions`` is one mapping ``xi -> xi' -> p`` used at every step), or one list per
        layer (then ``transitions`` is a list of ``H - 1`` mappings).
    start
        Value of layer 1 -> probability (absent values: 0).
    transitions
        ``xi -> xi' -> p`` (stationary) or a list of them, one per step.

    Raises
    ------
    InvalidBlockMDP
        Naming the entry at fault (``exogenous transitions[1]['0']: the probabilities sum to
        9/10, not 1``).

    >>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
    ...                        horizon=3)
    >>> flip.layers
    (('0', '1'), ('0', '1'), ('0', '1'))
    >>> flip.transitions[0]["0"]["1"]
    Fraction(1, 10)
    """
    if not isinstance(values, Sequence) or isinstance(values, str) or not values:
        raise InvalidBlockMDP(f"exogenous values: a non-empty list of names (or one list per "
                              f"layer), got {short_repr(values)}")
    stationary = all(isinstance(value, str) for value in values)
    if stationary:
        if horizon is None or isinstance(horizon, bool) or not isinstance(horizon, int) \
                or horizon < 1:
            raise InvalidBlockMDP(f"exogenous chain: a stationary chain needs horizon, a "
                                  f"positive int, got {short_repr(horizon)}")
        layers: tuple[tuple[str, ...], ...] = tuple(
            tuple(str(value) for value in values) for _ in range(horizon))
        steps = [transitions] * (horizon - 1)
    else:
        if not all(isinstance(layer, Sequence) and not isinstance(layer, str)
                   for layer in values):
            raise InvalidBlockMDP(f"exogenous values: names, or one list of names per layer, "
                                  f"got {short_repr(values)}")
        layers = tuple(tuple(layer) for layer in values)
        if horizon is not None and horizon != len(layers):
            raise InvalidBlockMDP(f"exogenous chain: {len(layers)} layers of values but "
                                  f"horizon {horizon}")
        if not isinstance(transitions, Sequence) or len(transitions) != len(layers) - 1:
            raise InvalidBlockMDP(f"exogenous transitions: one mapping per step "
                                  f"({len(layers) - 1}) for a chain given layer by layer, got "
                                  f"{short_repr(transitions)}")
        steps = list(transitions)
    for h, layer in enumerate(layers):
        if not layer or not all(isinstance(value, str) and value for value in layer) \
                or len(set(layer)) != len(layer):
            raise InvalidBlockMDP(f"exogenous values of layer {h + 1}: distinct non-empty "
                                  f"names, got {short_repr(list(layer))}")
    first = _probabilities(start, layers[0], "exogenous start", atol)
    rows: list[dict[str, dict[str, Number]]] = []
    for h, step in enumerate(steps):
        step = require_mapping(step, f"exogenous transitions[{h + 1}]")
        for value in step:
            find({v: v for v in layers[h]}, value, "exogenous value",
                 f"exogenous transitions[{h + 1}] (from layer {h + 1})")
        missing = [value for value in layers[h] if value not in step]
        if missing:
            raise InvalidBlockMDP(f"exogenous transitions[{h + 1}]: no row for value(s) "
                                  f"{', '.join(map(repr, missing))} of layer {h + 1}")
        rows.append({value: _probabilities(step[value], layers[h + 1],
                                           f"exogenous transitions[{h + 1}][{value!r}]", atol)
                     for value in layers[h]})
    chain = ExogenousChain(layers, first, tuple(rows))
    numbers = list(_numbers(chain))
    number_mode([p for _, p in numbers], lambda: iter(numbers))  # refuses floats beside 1/3
    for h, marginal in enumerate(_marginals(chain)):
        for value, p in marginal.items():
            if p <= (0 if isinstance(p, Fraction) else atol):
                raise InvalidBlockMDP(f"exogenous value {value!r} of layer {h + 1} has "
                                      "probability 0: its product states would be unreachable")
    return chain


def _numbers(chain: ExogenousChain) -> Iterator[tuple[str, Number]]:
    """Every probability of ``chain`` with its entry (``exogenous transitions[1]['0']['1']``,
    steps counted from 1)."""
    yield from ((f"exogenous start[{value!r}]", p) for value, p in chain.start.items())
    for h, step in enumerate(chain.transitions):
        yield from ((f"exogenous transitions[{h + 1}][{value!r}][{nxt!r}]", p)
                    for value, row in step.items() for nxt, p in row.items())


def _marginals(chain: ExogenousChain) -> list[dict[str, Number]]:
    """The distribution of the exogenous value at each layer."""
    marginals = [dict(chain.start)]
    for h, step in enumerate(chain.transitions):
        previous = marginals[-1]
        marginals.append({value: sum((previous[xi] * step[xi][value] for xi in chain.layers[h]),
                                     Fraction(0)) for value in chain.layers[h + 1]})
    return marginals


@dataclass(frozen=True)
class ExogenousBlockMDP:
    """A Block MDP with its factorisation into an endogenous Block MDP and an exogenous chain.

    Attributes
    ----------
    mdp : BlockMDP
        The product: states ``"s|xi"`` (or the names of a checked MDP).
    endogenous : BlockMDP
        The part the actions control, with the rewards.
    chain : ExogenousChain
        The part no action influences.
    parts : dict
        State of ``mdp`` -> ``(endogenous state, exogenous value)``.
    """

    mdp: BlockMDP
    endogenous: BlockMDP
    chain: ExogenousChain
    parts: Mapping[str, tuple[str, str]]

    def __getattr__(self, name: str) -> object:
        """An attribute of a Block MDP asked of the factorisation (by a function of Block MDPs
        given it whole) is refused saying where the Block MDP is."""
        raise AttributeError(
            f"'ExogenousBlockMDP' object has no attribute {name!r}: it is a Block MDP with its "
            "factorisation, the Block MDP being its .mdp - give a function of Block MDPs "
            "model.mdp (ki_partition(model.mdp)); analyze and draw_partitions take it whole")

    def __repr__(self) -> str:
        sizes = "/".join(str(len(layer)) for layer in self.endogenous.layers)
        values = "/".join(str(len(layer)) for layer in self.chain.layers)
        return (f"<ExogenousBlockMDP {self.mdp.name!r}: {len(self.mdp.states)} states = "
                f"endogenous {sizes} x exogenous {values} per layer>")


def exogenous_block_mdp(endogenous: BlockMDP, chain: ExogenousChain,
                        name: str | None = None) -> ExogenousBlockMDP:
    """The exogenous Block MDP of ``endogenous`` and ``chain``: state ``"s|xi"`` for every state
    ``s`` and value ``xi`` of a layer, start ``mu_en(s) mu_ex(xi)``, transitions
    ``T_en(s' | s, a) T_ex(xi' | xi)``, observation ``"x|xi"`` for each observation ``x`` of
    ``s`` (a state that emits only itself stays so), rewards those of ``endogenous``.

    Raises
    ------
    InvalidBlockMDP
        When the horizons differ, or two product names coincide (a name holding ``"|"``).

    >>> from kinematic import combination_lock, ki_partition
    >>> lock = combination_lock(3, 2, seed=0)
    >>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
    ...                        horizon=3)
    >>> noisy = exogenous_block_mdp(lock, flip)
    >>> noisy  # doctest: +NORMALIZE_WHITESPACE
    <ExogenousBlockMDP 'combolock-H3-K2-seed0+exogenous': 16 states =
     endogenous 2/3/3 x exogenous 2/2/2 per layer>
    >>> endogenous_partition(noisy).blocks(2)
    [['s2a|0', 's2a|1'], ['s2b|0', 's2b|1'], ['s2c|0', 's2c|1']]
    """
    if chain.horizon != endogenous.horizon:
        raise InvalidBlockMDP(f"exogenous chain: horizon {chain.horizon}, but the endogenous "
                              f"Block MDP {endogenous.name!r} has horizon {endogenous.horizon}")
    spec = to_spec(endogenous)
    parts: dict[str, tuple[str, str]] = {}
    layers = []
    for h, layer in enumerate(endogenous.layers):
        names = []
        for state in layer:
            for value in chain.layers[h]:
                product = f"{state}{SEPARATOR}{value}"
                if product in parts:
                    raise InvalidBlockMDP(
                        f"exogenous product: the name {product!r} stands for both "
                        f"{parts[product]} and {(state, value)} (a name holding "
                        f"{SEPARATOR!r})")
                parts[product] = (state, value)
                names.append(product)
        layers.append(names)
    start = {f"{s}{SEPARATOR}{xi}": p_s * p_xi
             for s, p_s in zip(endogenous.layers[0], endogenous.start, strict=True) if p_s
             for xi, p_xi in chain.start.items() if p_xi}
    transitions: dict[str, dict[str, dict[str, Number]]] = {}
    for h, step in enumerate(chain.transitions):
        tensor = endogenous.transition_tensor(h)
        for i, state in enumerate(endogenous.layers[h]):
            for a, action in enumerate(endogenous.actions):
                row = tensor[i, a]
                for xi in chain.layers[h]:
                    transitions.setdefault(f"{state}{SEPARATOR}{xi}", {})[action] = {
                        f"{nxt}{SEPARATOR}{xi2}": p * q
                        for nxt, p in zip(endogenous.layers[h + 1], row, strict=True) if p
                        for xi2, q in step[xi].items() if q}
    emissions = {f"{state}{SEPARATOR}{xi}": {f"{x}{SEPARATOR}{xi}": p for x, p in row.items()}
                 for state, row in spec.get("emissions", {}).items()
                 for h in [endogenous.state_location[state][0]] for xi in chain.layers[h]}
    rewards = {}
    for key, row in spec.get("rewards", {}).items():
        h = _layer_of(endogenous, key)
        for xi in chain.layers[h]:
            rewards[f"{key}{SEPARATOR}{xi}"] = row
    floats = [(where, p) for where, p in _numbers(chain) if isinstance(p, float)]
    if floats and endogenous.mode.exact:  # the parts are each of one kind: is the product?
        number_mode([*start.values(), *(p for rows in transitions.values()
                                        for row in rows.values() for p in row.values())],
                    lambda: iter([(f"{floats[0][0]} (the chain)", floats[0][1]),
                                  *((f"the endogenous Block MDP's {where}", p)
                                    for where, p in _exact_numbers(spec))]))
    mdp = block_mdp(name or f"{endogenous.name}+exogenous", layers, endogenous.actions, start,
                    transitions, emissions, rewards, atol=endogenous.mode.atol)
    return ExogenousBlockMDP(mdp, endogenous, chain, parts)


def _exact_numbers(spec: Mapping) -> Iterator[tuple[str, Number]]:
    """The start and transition probabilities of an exact Block MDP's ``spec``, as numbers,
    with their entries."""
    yield from ((f"start[{state!r}]", Fraction(p)) for state, p in spec["start"].items())
    yield from ((f"transitions[{state!r}][{action!r}][{nxt!r}]", Fraction(p))
                for state, row in spec["transitions"].items() for action, nexts in row.items()
                for nxt, p in nexts.items())


def _layer_of(mdp: BlockMDP, name: str) -> int:
    """The layer of a state or an observation of ``mdp`` (a spec's reward key)."""
    if name in mdp.state_location:
        return mdp.state_location[name][0]
    for h, observations in enumerate(mdp.observations):
        if name in observations:
            return h
    raise InvalidBlockMDP(f"rewards: {name!r} is neither a state nor an observation")


def endogenous_partition(model: ExogenousBlockMDP) -> Partition:
    """The partition of ``model.mdp``'s states by their endogenous part (kind
    ``"endogenous"``): the abstraction ``x -> s`` that representation learning targets in an
    exogenous Block MDP.

    >>> from kinematic import figure2_canonical
    >>> mdp = figure2_canonical()
    >>> coin = exogenous_chain(["h", "t"], {"h": "1/2", "t": "1/2"},
    ...                        {"h": {"h": "1/2", "t": "1/2"}, "t": {"h": "1/2", "t": "1/2"}},
    ...                        horizon=mdp.horizon)
    >>> endogenous_partition(exogenous_block_mdp(mdp, coin)).kind
    'endogenous'
    """
    if not isinstance(model, ExogenousBlockMDP):
        raise TypeError(f"endogenous_partition needs an ExogenousBlockMDP (exogenous_block_mdp "
                        f"or check_factorisation), got {type(model).__name__}")
    return Partition.from_labels(model.mdp, {state: part[0] for state, part in
                                             model.parts.items()}, kind="endogenous")
