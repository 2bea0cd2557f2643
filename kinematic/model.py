"""The Block MDP model of Section 2 of the paper (``assumption:disjoint-emission``).

A :class:`BlockMDP` is layered: states ``S_1 .. S_H`` (named strings, each in exactly one layer),
actions ``A``, a start distribution over ``S_1``, transitions ``T(s'|s, a)`` from ``S_h`` into
``S_{h+1}``, emissions ``q(x|s)`` whose supports are pairwise disjoint, and rewards on
observations: ``R(x, a)`` is their expected value (every exact computation uses it); a reward
may be stochastic, a finite distribution over values that samplers draw from. Inside,
everything is indexed by dense integers per layer; names are kept at the edges. Build one with
:func:`block_mdp` (Python values) or :func:`kinematic.spec.load_spec` (JSON); both validate and
raise :class:`InvalidBlockMDP` naming the entry at fault.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from kinematic.arguments import tolerance
from kinematic.display import PrintsAsRepr, block_mdp_repr
from kinematic.errors import InvalidBlockMDP, UnknownLayer, require_mapping
from kinematic.exact_sparse import Entries, nonzero_entries
from kinematic.lookup import find, layer_position, unknown_entry
from kinematic.number_mixing import number_mode
from kinematic.numbers import DEFAULT_ATOL, Number, NumberMode, parse_number
from kinematic.transition_tables import parse_transitions, transition_matrix

__all__ = ["BlockMDP", "block_mdp", "check_reachable", "relabel_states", "with_float_numbers"]

Matrix = np.ndarray | sp.csr_array
RewardDistribution = tuple[tuple[Number, ...], tuple[Number, ...]]
"""A stochastic reward: its values and their probabilities."""


@dataclass(frozen=True, eq=False)
class BlockMDP(PrintsAsRepr):
    """A layered Block MDP with disjoint emissions (paper, Section 2).

    Attributes
    ----------
    name : str
    layers : tuple of tuple of str
        ``layers[h]`` lists the states of layer ``h + 1`` (the paper counts from 1).
    actions : tuple of str
    start : ndarray, shape (n_1,)
        Start distribution over layer 1.
    transitions : tuple of matrices
        ``transitions[h]`` has shape ``(n_h * |A|, n_{h+1})``; row ``s * |A| + a`` holds
        ``T(. | s, a)``. Dense object arrays in exact mode, ``scipy.sparse.csr_array`` in
        float mode.
    observations : tuple of tuple of str
        Observation names per layer.
    emission_state : tuple of int ndarrays
        ``emission_state[h][x]`` is the index, within layer ``h``, of the state emitting ``x``
        (the decoder of the paper); disjoint supports hold by construction.
    emission_probability : tuple of ndarrays
        ``q(x | decoder(x))`` per observation.
    rewards : tuple of ndarrays
        ``rewards[h]`` has shape ``(m_h, |A|)``: expected reward ``R(x, a)``.
    mode : NumberMode
    reward_distributions : dict
        ``(h, x, a) -> (values, probabilities)`` for the stochastic rewards (at least two values
        of positive probability, in the order of the spec); ``rewards[h][x, a]`` is their mean.
        Every other reward is deterministic. Transformations that rebuild an MDP (canonical
        forms, splits) keep the expected rewards only.
    """

    name: str
    layers: tuple[tuple[str, ...], ...]
    actions: tuple[str, ...]
    start: np.ndarray
    transitions: tuple[Matrix, ...]
    observations: tuple[tuple[str, ...], ...]
    emission_state: tuple[np.ndarray, ...]
    emission_probability: tuple[np.ndarray, ...]
    rewards: tuple[np.ndarray, ...]
    mode: NumberMode
    reward_distributions: Mapping[tuple[int, int, int], RewardDistribution] = field(
        default_factory=dict)

    def __repr__(self) -> str:
        """``from_spec({...})`` around the JSON spec for a small MDP (up to 40 states), one
        summary line for a larger one (:func:`kinematic.display.block_mdp_repr`)."""
        return block_mdp_repr(self)

    @property
    def horizon(self) -> int:
        return len(self.layers)

    @property
    def number_of_actions(self) -> int:
        return len(self.actions)

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(state for layer in self.layers for state in layer)

    @cached_property
    def state_location(self) -> dict[str, tuple[int, int]]:
        """State name -> (layer index from 0, index within the layer)."""
        return {s: (h, i) for h, layer in enumerate(self.layers) for i, s in enumerate(layer)}

    @cached_property
    def action_index(self) -> dict[str, int]:
        """Action name -> its index in ``actions`` (a lookup in constant time)."""
        return {action: a for a, action in enumerate(self.actions)}

    @cached_property
    def observation_location(self) -> dict[str, tuple[int, int]]:
        """Observation name -> (layer index from 0, index within the layer's observations)."""
        return {
            x: (h, i) for h, layer in enumerate(self.observations) for i, x in enumerate(layer)
        }

    @cached_property
    def action_major_transitions(self) -> tuple[Matrix, ...]:
        """``transitions`` with rows reordered to ``a * n_h + s``: ``T[a]`` is a contiguous block.

        Dynamic programs reshape ``T @ V`` to ``(|A|, n_h, k)`` and maximise over the first axis,
        an element-wise maximum of contiguous blocks.
        """
        result = []
        for h, matrix in enumerate(self.transitions):
            width = self.width(h)
            order = np.arange(width)[None, :] * self.number_of_actions
            order = (order + np.arange(self.number_of_actions)[:, None]).reshape(-1)
            result.append(matrix[order])
        return tuple(result)

    @cached_property
    def single_precision_transitions(self) -> tuple[sp.csr_array, ...]:
        """Float mode: :attr:`action_major_transitions` with float32 entries, sharing their
        index arrays (the single-precision steps of :mod:`kinematic.float_induction`)."""
        if self.mode.exact:
            raise ValueError(f"{self.name!r} is exact: it has no single-precision transitions")
        return tuple(
            sp.csr_array((matrix.data.astype(np.float32), matrix.indices, matrix.indptr),
                         shape=matrix.shape)
            for matrix in map(_csr, self.action_major_transitions))

    @cached_property
    def successor_bounds(self) -> tuple[int, ...]:
        """Float mode: per layer, the largest number of non-zero entries ``T(. | s, a)`` of a
        state-action pair."""
        if self.mode.exact:
            raise ValueError(f"{self.name!r} is exact: its transitions are dense arrays")
        return tuple(int(np.diff(_csr(matrix).indptr).max(initial=0))
                     for matrix in self.action_major_transitions)

    @cached_property
    def transition_entries(self) -> tuple[Entries, ...]:
        """Exact mode: the non-zero entries of each layer's ``transitions`` (rows ``s * |A| +
        a``), found once (:mod:`kinematic.exact_sparse`)."""
        if not self.mode.exact:
            raise ValueError(f"{self.name!r} is in float mode: its transitions are sparse already")
        return tuple(nonzero_entries(_dense(matrix)) for matrix in self.transitions)

    def width(self, index: int) -> int:
        """Number of states at position ``index`` (0-based: layer ``index + 1``)."""
        return len(self.layers[layer_position(index, self.horizon)])

    def _transition_position(self, index: int) -> int:
        """``index`` checked as the position of a layer that has transitions (``0 .. H - 2``)."""
        position = layer_position(index, self.horizon)
        if position == self.horizon - 1:
            raise UnknownLayer(
                f"index {position} is the last layer (layer {self.horizon}): it has no "
                f"transitions; positions with transitions run 0..{self.horizon - 2}")
        return position

    def transition_tensor(self, index: int) -> np.ndarray:
        """Dense ``T[s, a, s']`` from position ``index`` (0-based: layer ``index + 1``) to the
        next one."""
        index = self._transition_position(index)
        matrix = self.transitions[index]
        dense = matrix.toarray() if sp.issparse(matrix) else matrix
        return dense.reshape(self.width(index), self.number_of_actions, self.width(index + 1))

    def observation_transition_tensor(self, index: int) -> np.ndarray:
        """Dense ``T(x' | x, a) = T(decoder(x') | decoder(x), a) q(x' | decoder(x'))`` from
        position ``index`` (0-based: layer ``index + 1``), shape ``(m_{index}, |A|,
        m_{index+1})``."""
        tensor = self.transition_tensor(index)[self.emission_state[index]]
        following = self.emission_state[index + 1]
        return tensor[:, :, following] * self.emission_probability[index + 1]

    def emission_matrix(self, index: int) -> np.ndarray:
        """Dense ``q(x | s)`` of shape ``(n, m)`` at position ``index`` (0-based: layer
        ``index + 1``)."""
        width = self.width(index)
        matrix = self.mode.zeros((width, len(self.observations[index])))
        columns = np.arange(len(self.observations[index]))
        matrix[self.emission_state[index], columns] = self.emission_probability[index]
        return matrix

    def observations_of(self, state: str) -> dict[str, Number]:
        """The emission distribution ``q(. | state)`` as observation name -> probability
        (:class:`kinematic.UnknownName` if ``state`` is not a state)."""
        h, i = find(self.state_location, state, "state", "state")
        return {
            self.observations[h][x]: self.emission_probability[h][x]
            for x in np.flatnonzero(self.emission_state[h] == i)
        }

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the MDP: its layered graph
        (:func:`kinematic.figures.svg_picture`; None, hence text, when large)."""
        from kinematic.figures import svg_picture

        return svg_picture(self)


def _check_distribution(
    mode: NumberMode, values: Mapping[str, Number], where: str
) -> None:
    for key, value in values.items():
        if value < 0:
            raise InvalidBlockMDP(f"{where}[{key!r}] is negative ({mode.to_json(value)})")
    total = sum(values.values(), mode.scalar(0))
    if not mode.equal(total, mode.scalar(1)):  # to_json: a sum may pass the int-to-str limit
        raise InvalidBlockMDP(f"{where} sums to {mode.to_json(total)}, not 1")


def block_mdp(
    name: str,
    layers: Sequence[Sequence[str]],
    actions: Sequence[str],
    start: Mapping[str, object],
    transitions: Mapping[str, Mapping[str, Mapping[str, object]]],
    emissions: Mapping[str, Mapping[str, object]] | None = None,
    rewards: Mapping[str, Mapping[str, object]] | None = None,
    atol: float = DEFAULT_ATOL,
) -> BlockMDP:
    """Build and validate a :class:`BlockMDP` from names and numbers.

    Numbers may be ints, ``Fraction``, numeric strings (``"4/5"``) or floats; floats put the
    whole MDP in float mode with tolerance ``atol``, otherwise it is exact. Floats beside
    exact numbers that a float would round (``"1/3"``, ``"0.1"``) are refused
    (:mod:`kinematic.number_mixing`); ints and dyadic fractions (``"1/2"``) go with both.

    Parameters
    ----------
    layers
        the states of each layer, layer 1 first.
    start
        state of layer 1 -> probability; states left out have probability 0.
    transitions
        state -> action -> next state -> probability, for every state of layers
        1..H-1 and every action; next states lie in the following layer.
    emissions
        state -> observation -> probability (optional; a state left out emits one
        observation named like itself). Supports must be disjoint (Assumption 1).
    rewards
        state or observation -> action -> reward (optional, default 0): a number, or a
        distribution ``{value: probability}`` (a stochastic reward; its mean is the expected
        reward). A state key gives the reward to every observation of that state.

    Raises
    ------
    InvalidBlockMDP
        Naming the entry at fault: empty layers, unknown or repeated names, negative or
        non-summing probabilities, a transition that leaves the next layer, overlapping
        emissions, NaN, or a state that no policy reaches (eta = 0).
    """
    tolerance().check(atol, "atol")
    _check_text(str(name), "the MDP")
    layers_t = _check_layers(layers)
    actions_t = _check_actions(actions)
    location = {s: (h, i) for h, layer in enumerate(layers_t) for i, s in enumerate(layer)}
    horizon = len(layers_t)

    parsed_start = _parse_start(start, location)
    parsed_transitions = parse_transitions(transitions, location, actions_t, horizon)
    action_index = {action: a for a, action in enumerate(actions_t)}
    parsed_emissions = _parse_emissions(emissions or {}, location, layers_t)
    parsed_rewards, reward_places = _parse_rewards(rewards or {}, location, action_index,
                                                   parsed_emissions)

    def places() -> Iterator[tuple[str, Number]]:
        yield from ((f"start[{state!r}]", p) for state, p in parsed_start.items())
        for h, entries in enumerate(parsed_transitions):
            for row, column, p in zip(entries.rows, entries.columns, entries.values, strict=True):
                state, action = divmod(row, len(actions_t))
                yield (f"transitions[{layers_t[h][state]!r}][{actions_t[action]!r}]"
                       f"[{layers_t[h + 1][column]!r}]", p)
        yield from ((f"emissions[{state!r}][{x!r}]", p)
                    for state, dist in parsed_emissions.items() for x, p in dist.items())
        yield from reward_places

    mode = number_mode(itertools.chain(
        parsed_start.values(),
        *(entries.values for entries in parsed_transitions),
        (p for dist in parsed_emissions.values() for p in dist.values()),
        (number for _, number in reward_places),
    ), places, atol=atol)

    def convert(values: Mapping[str, Number]) -> dict[str, Number]:
        return {k: mode.scalar(v) for k, v in values.items()}

    start_c = convert(parsed_start)
    _check_distribution(mode, start_c, "start")
    start_vector = mode.zeros(len(layers_t[0]))
    for state, p in start_c.items():
        start_vector[location[state][1]] = p

    number_of_actions = len(actions_t)
    matrices = [
        transition_matrix(mode, entries, layers_t[h], layers_t[h + 1], actions_t)
        for h, entries in enumerate(parsed_transitions)
    ]

    observations, emission_state, emission_probability = [], [], []
    reward_arrays: list[np.ndarray] = []
    distributions: dict[tuple[int, int, int], RewardDistribution] = {}
    for layer in layers_t:
        names, owners, probabilities = [], [], []
        for i, state in enumerate(layer):
            dist = convert(parsed_emissions[state])
            _check_distribution(mode, dist, f"emissions[{state!r}]")
            for observation, p in dist.items():
                if p == 0:  # supports are exact (kinematic.numbers): 5e-10 is kept; an exact
                    continue  # number that would be 0 as a float never meets floats
                names.append(observation)
                owners.append(i)
                probabilities.append(p)
        observations.append(tuple(names))
        emission_state.append(np.asarray(owners, dtype=np.intp))
        emission_probability.append(mode.array(probabilities))
        reward_matrix = mode.zeros((len(names), number_of_actions))
        for x, observation in enumerate(names):
            for action, value in parsed_rewards.get(observation, {}).items():
                a = action_index[action]
                if isinstance(value, _Distribution):
                    outcomes, chances = value.converted(mode)
                    reward_matrix[x, a] = sum((v * p for v, p in zip(outcomes, chances,
                                                                     strict=True)),
                                              mode.scalar(0))
                    if len(outcomes) > 1:
                        distributions[len(reward_arrays), x, a] = (outcomes, chances)
                else:
                    reward_matrix[x, a] = mode.scalar(value)
        reward_arrays.append(reward_matrix)

    mdp = BlockMDP(
        name=str(name),
        layers=layers_t,
        actions=actions_t,
        start=start_vector,
        transitions=tuple(matrices),
        observations=tuple(observations),
        emission_state=tuple(emission_state),
        emission_probability=tuple(emission_probability),
        rewards=tuple(reward_arrays),
        mode=mode,
        reward_distributions=distributions,
    )
    check_reachable(mdp)
    return mdp


def _csr(matrix: Matrix) -> sp.csr_array:
    """A transition matrix of a float-mode MDP, which stores them sparse."""
    assert isinstance(matrix, sp.csr_array), "float mode stores transitions as csr_array"
    return matrix


def _dense(matrix: Matrix) -> np.ndarray:
    """A transition matrix of an exact MDP, which stores them as dense object arrays."""
    assert isinstance(matrix, np.ndarray), "exact mode stores transitions as object arrays"
    return matrix


def check_reachable(mdp: BlockMDP) -> None:
    """Raise :class:`InvalidBlockMDP` naming the first state that no policy reaches (eta = 0).

    A state is reachable iff some path of positive-probability start and transitions leads to it,
    which is what the uniform policy explores.
    """
    reached = mdp.mode.positive(mdp.start)
    for h in range(mdp.horizon):
        missing = np.flatnonzero(~reached)
        if missing.size:
            state = mdp.layers[h][missing[0]]
            raise InvalidBlockMDP(
                f"state {state!r} (layer {h + 1}) is unreachable: no policy visits it (eta = 0)"
            )
        if h + 1 < mdp.horizon:
            rows = np.repeat(reached.astype(np.float64), mdp.number_of_actions)
            support: Matrix
            if mdp.mode.exact:
                pairs, states, _ = mdp.transition_entries[h]
                support = sp.csr_array((np.ones(len(pairs)), (pairs, states)),
                                       shape=mdp.transitions[h].shape)
            else:
                support = _csr(mdp.transitions[h]) > 0  # probabilities: never negative
            reached = np.asarray(rows @ support, dtype=np.float64).ravel() > 0


def with_float_numbers(mdp: BlockMDP, atol: float = DEFAULT_ATOL) -> BlockMDP:
    """The same MDP in float mode (``float64``, sparse transitions, tolerance ``atol``)."""
    mode = NumberMode(exact=False, atol=atol)

    def floats(array: np.ndarray) -> np.ndarray:
        return np.asarray(array, dtype=np.float64)

    return BlockMDP(
        name=mdp.name,
        layers=mdp.layers,
        actions=mdp.actions,
        start=floats(mdp.start),
        transitions=tuple(
            sp.csr_array(m.astype(np.float64)) if sp.issparse(m) else sp.csr_array(floats(m))
            for m in mdp.transitions
        ),
        observations=mdp.observations,
        emission_state=mdp.emission_state,
        emission_probability=tuple(floats(p) for p in mdp.emission_probability),
        rewards=tuple(floats(r) for r in mdp.rewards),
        mode=mode,
        reward_distributions={
            key: (tuple(float(v) for v in values), tuple(float(p) for p in probabilities))
            for key, (values, probabilities) in mdp.reward_distributions.items()},
    )


def relabel_states(mdp: BlockMDP, mapping: Mapping[str, str]) -> BlockMDP:
    """The same MDP with states renamed by ``mapping`` (states left out keep their name).

    A key that is not a state raises :class:`kinematic.UnknownName` naming the closest states;
    a new name that is not a non-empty string, that two states would share, or that is an
    observation of another state raises :class:`InvalidBlockMDP` naming it.

    >>> from kinematic import combination_lock
    >>> relabel_states(combination_lock(2, 2, seed=0), {"s2c": "dead end"}).layers[1]
    ('s2a', 's2b', 'dead end')
    """
    for state, name in require_mapping(mapping, "mapping").items():
        find(mdp.state_location, state, "state", "mapping")
        if not isinstance(name, str) or not name:
            raise InvalidBlockMDP(f"mapping[{state!r}]: {name!r} is not a non-empty string")
        _check_text(name, f"mapping[{state!r}]")
    layers = tuple(tuple(mapping.get(s, s) for s in layer) for layer in mdp.layers)
    seen: dict[str, str] = {}
    for old, new in zip(mdp.states, (s for layer in layers for s in layer), strict=True):
        if new in seen:
            raise InvalidBlockMDP(f"mapping: states {seen[new]!r} and {old!r} would both be "
                                  f"named {new!r}")
        seen[new] = old
    for h, observations in enumerate(mdp.observations):
        for x, observation in zip(mdp.emission_state[h].tolist(), observations, strict=True):
            if observation in seen and layers[h][x] != observation:
                raise InvalidBlockMDP(
                    f"mapping: {observation!r}, the new name of state {seen[observation]!r}, is "
                    f"an observation of state {mdp.layers[h][x]!r}")
    return BlockMDP(
        name=mdp.name,
        layers=layers,
        actions=mdp.actions,
        start=mdp.start,
        transitions=mdp.transitions,
        observations=mdp.observations,
        emission_state=mdp.emission_state,
        emission_probability=mdp.emission_probability,
        rewards=mdp.rewards,
        mode=mdp.mode,
        reward_distributions=mdp.reward_distributions,
    )


def _check_text(name: str, where: str) -> None:
    """A state, action, observation or MDP name must be valid Unicode text: a lone surrogate
    (``"\\ud800"`` in JSON) reads as a string that cannot be printed or written as UTF-8."""
    if not name.isascii():
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidBlockMDP(f"{where}: name {name!r} is not valid Unicode text (a lone "
                                  "surrogate)") from None


def _check_layers(layers: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    if isinstance(layers, str | bytes) or not isinstance(layers, Sequence) or not layers:
        raise InvalidBlockMDP("layers must be a non-empty list of lists of state names")
    seen: dict[str, int] = {}
    result = []
    for h, layer in enumerate(layers, start=1):
        if isinstance(layer, str) or not isinstance(layer, Sequence):
            raise InvalidBlockMDP(f"layer {h} must be a list of state names, got {layer!r}")
        if not layer:
            raise InvalidBlockMDP(f"layer {h} is empty")
        for i, state in enumerate(layer, start=1):
            if not isinstance(state, str) or not state:
                raise InvalidBlockMDP(f"layer {h}: state name {state!r} is not a non-empty string")
            _check_text(state, f"layer {h}, state {i}")
            if state in seen:
                raise InvalidBlockMDP(
                    f"state {state!r} appears twice (layers {seen[state]} and {h})"
                )
            seen[state] = h
        result.append(tuple(layer))
    return tuple(result)


def _check_actions(actions: Sequence[str]) -> tuple[str, ...]:
    if isinstance(actions, str) or not isinstance(actions, Sequence) or not actions:
        raise InvalidBlockMDP("actions must be a non-empty list of action names")
    for i, action in enumerate(actions, start=1):
        if not isinstance(action, str) or not action:
            raise InvalidBlockMDP(f"action name {action!r} is not a non-empty string")
        _check_text(action, f"action {i}")
    counts = Counter(actions)
    if len(counts) < len(actions):
        first = min(action for action, count in counts.items() if count > 1)
        raise InvalidBlockMDP(f"action {first!r} appears twice")
    return tuple(actions)


def _parse_start(start: object, location: dict[str, tuple[int, int]]) -> dict[str, Number]:
    result = {}
    for state, value in require_mapping(start, "start").items():
        if state not in location:
            raise unknown_entry("start", "state", state,
                                [s for s, (h, _) in location.items() if h == 0])
        if location[state][0] != 0:
            raise InvalidBlockMDP(
                f"start: state {state!r} is in layer {location[state][0] + 1}, not layer 1"
            )
        result[state] = parse_number(value, f"start[{state!r}]")
    return result


def _parse_emissions(
    emissions: object, location: dict[str, tuple[int, int]], layers: tuple[tuple[str, ...], ...]
) -> dict[str, dict[str, Number]]:
    emissions = require_mapping(emissions, "emissions")
    for state in emissions:
        if state not in location:
            raise unknown_entry("emissions", "state", state, list(location))
    result: dict[str, dict[str, Number]] = {}
    emitter: dict[str, str] = {}
    for layer in layers:
        for state in layer:
            given = emissions.get(state)
            if given is None:
                result[state] = {state: Fraction(1)}
            else:
                where = f"emissions[{state!r}]"
                given = require_mapping(given, where)
                if not given:
                    raise InvalidBlockMDP(f"{where} is empty")
                for observation in given:
                    _check_text(str(observation), where)
                result[state] = {
                    str(x): parse_number(v, f"{where}[{x!r}]") for x, v in given.items()
                }
            for observation, p in result[state].items():
                if p == 0:
                    continue
                if observation in emitter:
                    raise InvalidBlockMDP(
                        f"emissions: observation {observation!r} is emitted by both "
                        f"{emitter[observation]!r} and {state!r} (supports must be disjoint)"
                    )
                if observation in location and observation != state:
                    raise InvalidBlockMDP(
                        f"emissions[{state!r}]: observation {observation!r} is also the name "
                        f"of state {observation!r}"
                    )
                emitter[observation] = state
    return result


@dataclass(frozen=True)
class _Distribution:
    """A stochastic reward as parsed: ``{value: probability}`` with the place it came from."""

    where: str
    outcomes: tuple[tuple[Number, Number], ...]

    def converted(self, mode: NumberMode) -> RewardDistribution:
        """Values and probabilities in ``mode``, checked; outcomes of probability 0 dropped."""
        outcomes = [(mode.scalar(v), mode.scalar(p)) for v, p in self.outcomes]
        _check_distribution(mode, {str(v): p for v, p in outcomes}, self.where)
        kept = [(v, p) for v, p in outcomes if p != 0]
        return tuple(v for v, _ in kept), tuple(p for _, p in kept)


def _parse_reward(value: object, where: str, places: list[tuple[str, Number]]
                  ) -> Number | _Distribution:
    """A reward: a number, or a distribution ``{value: probability}`` over distinct values.
    Appends to ``places`` each number that decides the number mode, with its entry: a number,
    a distribution's probabilities, and its values that are floats - the values are keys,
    strings in JSON, so an exact one never conflicts with float probabilities
    (:mod:`kinematic.number_mixing`)."""
    if not isinstance(value, Mapping):
        number = parse_number(value, where)
        places.append((where, number))
        return number
    if not value:
        raise InvalidBlockMDP(f"{where}: a reward distribution needs at least one value")
    outcomes = []
    seen: dict[Number, object] = {}
    for key, probability in value.items():
        number = parse_number(key, f"{where}: value")
        if number in seen:
            raise InvalidBlockMDP(f"{where}: values {seen[number]!r} and {key!r} are equal")
        seen[number] = key
        chance = parse_number(probability, f"{where}[{key!r}]")
        outcomes.append((number, chance))
        if isinstance(number, float):
            places.append((f"{where}: value {key!r}", number))
        places.append((f"{where}[{key!r}]", chance))
    return _Distribution(where, tuple(outcomes))


def _parse_rewards(
    rewards: object,
    location: dict[str, tuple[int, int]],
    actions: Mapping[str, int],
    emissions: dict[str, dict[str, Number]],
) -> tuple[dict[str, dict[str, Number | _Distribution]], list[tuple[str, Number]]]:
    """Rewards keyed by observation - a state key is lifted to each observation the state
    emits - and the numbers that decide the number mode with their entries, in the order of the
    spec (:func:`_parse_reward`).

    An emission entry of probability 0 is not emitted: it receives none of its state's rewards
    (another state may emit it), and a reward keyed on an observation emitted by no state with
    positive probability is refused.
    """
    support = {state: [x for x, p in dist.items() if p != 0] for state, dist in emissions.items()}
    emitter = {x: state for state, observations in support.items() for x in observations}
    result: dict[str, dict[str, Number | _Distribution]] = {}
    source: dict[str, str] = {}
    places: list[tuple[str, Number]] = []
    for key, per_action in require_mapping(rewards, "rewards").items():
        where = f"rewards[{key!r}]"
        if key in location:
            targets = support[key]
        elif key in emitter:
            targets = [key]
        else:
            listed = next((state for state, dist in emissions.items() if key in dist), None)
            if listed is not None:
                raise InvalidBlockMDP(
                    f"rewards: observation {key!r} has probability 0 in "
                    f"emissions[{listed!r}] and no state emits it: its reward is never paid")
            raise unknown_entry("rewards", "state or observation", key,
                                [*location, *(x for x in emitter if x not in location)])
        values = {}
        for action, value in require_mapping(per_action, where).items():
            if action not in actions:
                raise unknown_entry(where, "action", action, list(actions))
            values[action] = _parse_reward(value, f"{where}[{action!r}]", places)
        for observation in targets:
            if observation in source:
                raise InvalidBlockMDP(
                    f"rewards: observation {observation!r} gets rewards from both "
                    f"{source[observation]!r} and {key!r}"
                )
            source[observation] = key
            result[observation] = values
    return result, places
