"""Finite MDPs from elsewhere: gymnasium's tabular environments unrolled into layered Block MDPs.

:func:`from_gymnasium` reads the transition table ``env.unwrapped.P`` (``P[s][a]`` a list of
``(probability, next_state, reward, terminated)``) that gymnasium's toy_text environments
(FrozenLake, CliffWalking, Taxi) expose, and unrolls it to a horizon, so that eta_min, N_BD,
N_FD, N_KD, the canonical form and V* (Sections 2-3) can be computed for the MDPs
researchers know. It never imports gymnasium: any object with such a table will do.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from kinematic.arguments import at_least, tolerance
from kinematic.errors import InvalidBlockMDP, short_repr
from kinematic.lookup import find
from kinematic.model import BlockMDP, block_mdp
from kinematic.numbers import DEFAULT_ATOL, Number
from kinematic.resources import check_memory, physical_memory
from kinematic.simple_fractions import MAX_DENOMINATOR, simple_fraction

__all__ = ["InexactTable", "environment_name", "from_gymnasium", "random_map"]

TableNumber = float | Fraction
"""A probability or reward of the table (numpy's numbers read as Python's)."""
Outcome = tuple[TableNumber, Hashable, TableNumber, bool]
"""One entry of ``P[s][a]``: probability, next state, reward, terminated."""
Table = dict[tuple[Hashable, Hashable], list[Outcome]]
"""``(state, action) -> P[state][action]``, checked."""
Reader = Callable[[TableNumber], Number]
"""How the table's numbers become the MDP's: exact (:func:`simple_fraction`) or ``float``."""

_NUMBER_MODES = {"auto": None, "exact": True, "float": False}

UNROLLED_BYTES_PER_ENTRY = {True: 2400, False: 600}
"""Peak memory of :func:`from_gymnasium`, exact and float mode, per state, reward and transition
entry of the unrolled MDP (measured with ``tracemalloc`` on FrozenLake 4x4 and 8x8, CliffWalking
and Taxi at H = 3-800: at most 1,840 bytes exact, Taxi's at H = 60, and 430 float)."""


class InexactTable(UserWarning):
    """``numbers="auto"`` found a number that is no simple fraction: the MDP is in float mode."""


def from_gymnasium(env: object, horizon: int, start: object = None, numbers: str = "auto",
                   atol: float = DEFAULT_ATOL, name: str | None = None) -> BlockMDP:
    """The layered Block MDP of an environment with a finite transition table, to ``horizon``.

    ``from_gymnasium(gymnasium.make("FrozenLake-v1"), horizon=10)`` is FrozenLake's 4x4 slippery
    lake over 10 steps, in exact rationals. Only ``env.unwrapped.P`` (or ``env.P``) and the start
    distribution are read, never ``step``: dynamics outside the table (Taxi's
    ``fickle_passenger=True``) are not modelled, and the horizon takes the place of gymnasium's
    time limit.

    The model (Section 2's Block MDP with ``H = horizon`` layers):

    - Layer 1 holds the states of positive start probability, layer ``h + 1`` exactly the states
      that some action reaches with positive probability from layer ``h``: every state is
      reachable (``def:homing`` needs eta > 0). A state of the table is named ``s{h}_{state}``
      in each layer ``h`` it can be in at step ``h`` (``s3_14``).
    - Termination: gymnasium ends the episode on a transition marked ``terminated``. Such a
      transition into ``state`` leads to ``s{h+1}_{state}_end``, which stays in
      ``s{h+2}_{state}_end`` whatever the action, with reward 0, to the last layer: the episode
      is over but where it ended is still a state (eta of FrozenLake's goal is the chance of
      reaching it). A state entered both with and without termination has both versions. So
      ``eta`` of ``s{h}_{state}_end`` is the best chance that the episode has ended in
      ``state`` by step ``h``; in the first layer that has the copy, the episode can only have
      ended there in the fewest moves, and this is often where ``eta`` is smallest: FrozenLake's
      ``eta_min`` of 1/243 at ``horizon=10`` is ``s7_15_end``, the goal after 6 moves
      (``kinematic.analyze`` names the states attaining ``eta_min``, ``"eta_min_states"``).
    - Rewards: ``BlockMDP`` keeps ``R(x, a)``, the expected reward of an observation and action,
      which is all V* and every exact quantity need; a reward that depends on the next state
      (FrozenLake pays 1 on entering the goal) becomes its expectation over ``P[s][a]``. The
      rewards of layer ``H`` count: V* is the best expected total of ``horizon`` rewards.
    - Entries of ``P[s][a]`` with the same next state and termination are summed (FrozenLake
      lists a wall bounce twice); probability-0 entries lead nowhere.
    - Emissions: one observation per state, its own name. These are ordinary MDPs: the
      partitions group states the dynamics cannot tell apart.
    - Actions are named ``str(a)`` for the table's actions ``a`` (``"0"`` .. ``"3"`` for
      FrozenLake), so a policy's choice is ``env.step(int(action))``.

    Numbers (:mod:`kinematic.simple_fractions`): ``numbers="exact"`` reads every probability,
    reward and start probability, floats included, as the simple fraction it stands for (at most
    1e-12 away, denominator at most 10,000: FrozenLake's ``0.33333333333333337`` is 1/3), and
    requires every ``P[s][a]`` and the start to sum to exactly 1 so read; otherwise it refuses,
    naming the entry - a distribution is never changed to make it exact. ``"float"`` keeps
    floats (tolerance ``atol``). ``"auto"`` (the default) is exact when it can be and float mode
    otherwise, with an :class:`InexactTable` warning naming the entry.

    Parameters
    ----------
    env
        an environment whose ``unwrapped`` (or itself) has ``P``: state -> action -> list of
        ``(probability, next_state, reward, terminated)``; every state must list the same
        actions.
    horizon
        the number of layers ``H >= 1`` (steps of an episode).
    start
        the start distribution, default ``env.unwrapped.initial_state_distrib``
        (FrozenLake, CliffWalking and Taxi have it): a state of the table, a mapping state ->
        probability, or one probability per state ``0 .. n - 1``.
    numbers
        ``"auto"``, ``"exact"`` or ``"float"`` (above).
    atol
        the tolerance of the sums of the table's distributions and of a float-mode MDP.
    name
        the MDP's name, default :func:`environment_name` of the environment's id and keyword
        arguments of ``gymnasium.make`` (``FrozenLake-v1(map_name='4x4')-H10``), or of its
        type's name (``FrozenLakeEnv-H10``) when it has no spec.

    Raises
    ------
    InvalidBlockMDP
        Naming the entry at fault (``P[s][a][i]``, ``P[s][a]`` or ``P[s]``): no table ``P``
        (CartPole); ``P`` or a ``P[s]`` that is no mapping, a ``P[s][a]`` that is no list, an
        entry that is not 4 values; a probability or reward that is not a number, NaN,
        infinite or too large for a float, a negative probability; a next state that is not
        a state of the table (unhashable ones included); a ``terminated`` that is not a bool;
        a state whose actions differ from the first state's; two states or two actions with
        the same name (``0`` and ``'0'``); a distribution or start that does not sum to 1
        (within ``atol``); no start distribution.
    TooLarge
        (:class:`kinematic.TooLarge`) when the unrolled MDP would not fit in memory, before
        it is built: the estimate is :data:`UNROLLED_BYTES_PER_ENTRY` times its states, rewards
        and transition entries, counted layer by layer from the table's reachable states (a
        layer that repeats an earlier one repeats the layers after it, so FrozenLake at
        ``horizon=10**8`` is counted in 8 layers).
    ValueError
        ``horizon`` below 1 or not an int; an unknown ``numbers``
        (:class:`kinematic.UnknownName`); ``atol`` outside ``[0, 1e-3]``; an environment whose
        table gymnasium drew at random without a seed (:func:`random_map`: FrozenLake made with
        ``map_name=None`` and no ``desc``) and no ``name``, as its name would not say which
        MDP it is.

    >>> from types import SimpleNamespace
    >>> from kinematic import optimal_values
    >>> coin = SimpleNamespace(  # in state 0: reward 1 and the end, or stay, each with 1/2
    ...     P={0: {0: [(0.5, 0, 0, False), (0.5, 1, 1, True)]}, 1: {0: [(1.0, 1, 0, False)]}},
    ...     initial_state_distrib=[1.0, 0.0])
    >>> mdp = from_gymnasium(coin, horizon=3)
    >>> mdp.layers
    (('s1_0',), ('s2_0', 's2_1_end'), ('s3_0', 's3_1_end'))
    >>> optimal_values(mdp).value
    Fraction(7, 8)
    """
    at_least(1).check(horizon, "horizon")
    tolerance().check(atol, "atol")
    exact = find(_NUMBER_MODES, numbers, "number mode", "numbers")
    unwrapped = getattr(env, "unwrapped", env)
    table = getattr(unwrapped, "P", None)
    if table is None:
        raise InvalidBlockMDP(
            f"{_describe(env)} has no finite transition table: from_gymnasium reads "
            "env.unwrapped.P (state -> action -> list of (probability, next_state, reward, "
            "terminated)), which gymnasium's toy_text environments (FrozenLake, CliffWalking, "
            "Taxi) have")
    if name is None:
        if random_map(env):
            raise ValueError(
                f"{_describe(env)} was made with map_name=None and no desc: gymnasium drew its "
                "map at random without a seed, and its name would not say which map; make it "
                "with desc=generate_random_map(seed=...) (gymnasium.envs.toy_text.frozen_lake) "
                "or pass name=")
        name = _name(env, horizon)
    states, actions, rows = _read_table(table, atol)
    if start is None:
        start = getattr(unwrapped, "initial_state_distrib", None)
        where = "env.unwrapped.initial_state_distrib"
        if start is None:
            raise InvalidBlockMDP(f"{_describe(env)} has no initial_state_distrib: pass start= "
                                  "(a state, a mapping state -> probability, or one probability "
                                  "per state)")
    else:
        where = "start"
    start_probabilities = _read_start(start, where, table, atol)
    per_entry = UNROLLED_BYTES_PER_ENTRY[exact is not False]
    size = _unrolled_size(rows, actions, start_probabilities, horizon,
                          limit=physical_memory() // per_entry)
    check_memory(per_entry * size, f"{name} (horizon={horizon}: about {size:,} states, "
                                   "rewards and transitions)")
    number = _number_reader(rows, start_probabilities, where, exact, name, atol)
    return _unrolled(name, horizon, states, actions, rows,
                     {s: number(p) for s, p in start_probabilities.items()}, number, atol)


def _describe(env: object) -> str:
    """``the environment 'CartPole-v1' (CartPoleEnv)``, or the type alone without a spec."""
    spec = getattr(env, "spec", None)
    kind = type(getattr(env, "unwrapped", env)).__name__
    env_id = getattr(spec, "id", None)
    return f"the environment {env_id!r} ({kind})" if env_id else f"the environment {kind}"


def environment_name(env_id: str, keywords: Mapping[str, object], horizon: int) -> str:
    """``FrozenLake-v1(map_name='4x4')-H10``: an environment's id, the keyword arguments it was
    made with and the horizon, the name :func:`from_gymnasium` gives its MDP.

    >>> environment_name("FrozenLake-v1", {"map_name": None, "seed": 3}, 10)
    'FrozenLake-v1(map_name=None, seed=3)-H10'
    """
    arguments = ", ".join(f"{key}={value!r}" for key, value in keywords.items())
    return f"{env_id}({arguments})-H{horizon}" if arguments else f"{env_id}-H{horizon}"


def random_map(env: object) -> bool:
    """Whether gymnasium drew ``env``'s table at random, without a seed, when it made it: a
    FrozenLake made with ``map_name=None`` and no ``desc`` (``generate_random_map()``). The
    other toy_text environments (CliffWalking, Taxi, Blackjack) draw nothing when made."""
    keywords = getattr(getattr(env, "spec", None), "kwargs", None) or {}
    return (type(getattr(env, "unwrapped", env)).__name__ == "FrozenLakeEnv"
            and "map_name" in keywords and keywords["map_name"] is None
            and keywords.get("desc") is None)


def _name(env: object, horizon: int) -> str:
    """:func:`environment_name` of the id and keyword arguments of ``gymnasium.make`` when the
    environment has a spec, else of its type's name."""
    spec = getattr(env, "spec", None)
    env_id = getattr(spec, "id", None) or type(getattr(env, "unwrapped", env)).__name__
    return environment_name(env_id, getattr(spec, "kwargs", None) or {}, horizon)


def _shown(key: Hashable) -> str:
    """A state or action of the table as text: numpy ints as plain ints (``35``, not
    ``np.int64(35)``)."""
    return str(int(key)) if isinstance(key, Integral) else str(key)


def _real(value: object, where: str, probability: bool) -> TableNumber:
    """A finite real number (a non-negative one for a probability), else InvalidBlockMDP; a
    numpy number as the Python int or float of the same value."""
    kind = "probability" if probability else "reward"
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        raise InvalidBlockMDP(f"{where}: {kind} {short_repr(value)} is not a number")
    try:
        number: TableNumber = (value if isinstance(value, float | Fraction) else
                               int(value) if isinstance(value, Integral) else float(value))
        finite = math.isfinite(float(number))
    except OverflowError:
        raise InvalidBlockMDP(f"{where}: {kind} {short_repr(value)} is too large for a float"
                              ) from None
    if not finite:
        raise InvalidBlockMDP(f"{where}: {kind} {short_repr(value)} is not a finite number")
    if probability and number < 0:
        raise InvalidBlockMDP(f"{where}: probability {value!r} is negative")
    return number


def _check_sum(values: Sequence[TableNumber], where: str, atol: float) -> None:
    total = math.fsum(float(v) for v in values)
    if abs(total - 1) > atol:
        raise InvalidBlockMDP(f"{where} sums to {total!r}, not 1 (atol={atol})")


def _read_table(table: object, atol: float
                ) -> tuple[list[Hashable], tuple[Hashable, ...], Table]:
    """The table's states, actions and rows, checked entry by entry; every next state is the
    table's own key (``1`` where the table has ``1.0``: one state, one name)."""
    if not isinstance(table, Mapping) or not table:
        raise InvalidBlockMDP("env.unwrapped.P must be a non-empty mapping state -> action -> "
                              f"list of outcomes, got {short_repr(table)}")
    states = {state: state for state in table}
    _check_names(list(states), "P", "states")
    actions: tuple[Hashable, ...] = ()
    rows: Table = {}
    for state, per_action in table.items():
        where = f"P[{_shown(state)}]"
        if not isinstance(per_action, Mapping) or not per_action:
            raise InvalidBlockMDP(f"{where} must be a non-empty mapping action -> list of "
                                  f"outcomes, got {short_repr(per_action)}")
        if not actions:
            actions, first = tuple(per_action), where
            _check_names(list(actions), where, "actions")
        elif set(per_action) != set(actions):
            raise InvalidBlockMDP(
                f"{where} has the actions {', '.join(map(_shown, per_action))} but {first} has "
                f"{', '.join(map(_shown, actions))}: every state needs the same actions")
        for action, outcomes in per_action.items():
            rows[state, action] = _read_row(outcomes, f"{where}[{_shown(action)}]", states, atol)
    return list(states), actions, rows


def _check_names(keys: list[Hashable], where: str, what: str) -> None:
    """Refuse two states (or actions) of the table that would have the same name in the MDP:
    ``0`` and ``'0'``, or a state ``'3_end'`` and the ended version of the state ``3``."""
    named: dict[str, Hashable] = {}
    for key in keys:
        shown = _shown(key)
        if shown in named:
            raise InvalidBlockMDP(f"{where}: the {what} {short_repr(named[shown])} and "
                                  f"{short_repr(key)} would have the same name {shown!r} in the "
                                  f"MDP ({what} of mixed types?)")
        named[shown] = key
    for shown, key in named.items():
        ended = shown.removesuffix("_end")
        if what == "states" and ended != shown and ended in named:
            raise InvalidBlockMDP(f"{where}: the state {short_repr(key)} would have the name of "
                                  f"the ended version of the state {short_repr(named[ended])}")


def _read_row(outcomes: object, where: str, states: Mapping[Hashable, Hashable], atol: float
              ) -> list[Outcome]:
    if isinstance(outcomes, str) or not isinstance(outcomes, Sequence) or not outcomes:
        raise InvalidBlockMDP(f"{where} must be a non-empty list of (probability, next_state, "
                              f"reward, terminated), got {short_repr(outcomes)}")
    row = []
    for i, outcome in enumerate(outcomes):
        entry = f"{where}[{i}]"
        if isinstance(outcome, str) or not isinstance(outcome, Sequence) or len(outcome) != 4:
            raise InvalidBlockMDP(f"{entry} must be (probability, next_state, reward, "
                                  f"terminated), got {short_repr(outcome)}")
        probability, following, reward, terminated = outcome
        try:
            following = states[following]
        except (KeyError, TypeError):  # TypeError: unhashable, so no key of the table
            raise InvalidBlockMDP(f"{entry}: next state {short_repr(following)} is not a state "
                                  "of P") from None
        if not isinstance(terminated, bool | np.bool_):
            raise InvalidBlockMDP(f"{entry}: terminated {short_repr(terminated)} is not a bool")
        row.append((_real(probability, entry, probability=True), following,
                    _real(reward, entry, probability=False), bool(terminated)))
    _check_sum([p for p, *_ in row], where, atol)
    return row


def _read_start(start: object, where: str, table: Mapping, atol: float
                ) -> dict[Hashable, TableNumber]:
    """The start distribution as state -> probability (positive entries only), checked."""
    if isinstance(start, Integral) and not isinstance(start, bool | np.bool_):
        given: Mapping = {start: 1}
    elif isinstance(start, Mapping):
        given = start
    elif isinstance(start, Sequence | np.ndarray) and not isinstance(start, str):
        values = list(start)
        if len(values) != len(table) or any(i not in table for i in range(len(values))):
            raise InvalidBlockMDP(
                f"{where}: one probability per state needs the states 0..{len(values) - 1}; P "
                f"has {len(table)} states")
        given = dict(enumerate(values))
    else:
        raise InvalidBlockMDP(f"{where} must be a state, a mapping state -> probability or one "
                              f"probability per state, got {short_repr(start)}")
    states = {state: state for state in table}
    for state in given:
        if state not in states:
            raise InvalidBlockMDP(f"{where}: {short_repr(state)} is not a state of P")
    probabilities = {states[state]: _real(p, f"{where}[{_shown(state)}]", probability=True)
                     for state, p in given.items()}
    _check_sum(list(probabilities.values()), where, atol)
    return {state: p for state, p in probabilities.items() if p > 0}


def _number_reader(rows: Table, start: Mapping[Hashable, TableNumber], start_where: str,
                   exact: bool | None, name: str, atol: float) -> Reader:
    """The function that turns the table's numbers into the MDP's: :func:`simple_fraction` when
    every number has a simple reading and every distribution sums to exactly 1 so read, floats
    otherwise (``exact`` None: with an :class:`InexactTable` warning; True: refused)."""
    if exact is False:
        return float
    readings: dict[TableNumber, Fraction | None] = {}

    def read(value: TableNumber) -> Fraction | None:
        if value not in readings:
            readings[value] = simple_fraction(value)
        return readings[value]

    def exact_reading(value: TableNumber) -> Fraction:
        reading = read(value)
        assert reading is not None, "every number of the table has a reading"
        return reading

    problem = _inexact_entry(rows, start, start_where, read)
    if problem is None:
        return exact_reading
    if exact:
        raise InvalidBlockMDP(f"{name} cannot be exact: {problem} (a float is read as p/q "
                              f"only with q <= {MAX_DENOMINATOR} and within 1e-12 of it, and "
                              "every distribution must sum to exactly 1 so read); "
                              "numbers='float' (--numbers float) keeps the floats")
    warnings.warn(f"{name}: {problem}, so the MDP is in float mode (atol={atol}); "
                  "numbers='float' (--numbers float) builds it so without this warning",
                  InexactTable, stacklevel=3)
    return float


def _inexact_entry(rows: Table, start: Mapping[Hashable, TableNumber], start_where: str,
                   read: Callable[[TableNumber], Fraction | None]) -> str | None:
    """The first number without a simple reading, or distribution that does not sum to 1 when
    read exactly, as a phrase; None when there is none."""
    def distribution(values: list[tuple[str, TableNumber]], where: str) -> str | None:
        total = Fraction(0)
        for entry, value in values:
            reading = read(value)
            if reading is None:
                return f"{entry} {value!r} is no simple fraction"
            total += reading
        return None if total == 1 else f"{where} sums to {total} read exactly, not 1"

    def problems() -> Iterator[str | None]:
        yield distribution([(f"{start_where}[{_shown(s)}]: probability", p)
                            for s, p in start.items()],
                           start_where)
        for (state, action), row in rows.items():
            where = f"P[{_shown(state)}][{_shown(action)}]"
            yield distribution([(f"{where}[{i}]: probability", p)
                                for i, (p, *_) in enumerate(row)], where)
            for i, (_, _, reward, _) in enumerate(row):
                if read(reward) is None:
                    yield f"{where}[{i}]: reward {reward!r} is no simple fraction"

    return next((problem for problem in problems() if problem is not None), None)


def _unrolled_size(rows: Table, actions: tuple[Hashable, ...], start: Mapping[Hashable, object],
                   horizon: int, limit: int) -> int:
    """The number of states, rewards and transition entries of :func:`_unrolled`'s MDP,
    counted layer by layer without building it: a layer's states are a function of the previous
    layer's, so once a layer repeats an earlier one the rest of the layers are that cycle again.
    Counting stops past ``limit``, the rest estimated as copies of the last layer."""
    successors: dict[Hashable, set[tuple[Hashable, bool]]] = {}
    entries: dict[Hashable, int] = {}
    for (state, _), row in rows.items():
        successors.setdefault(state, set()).update((s, t) for p, s, _, t in row if p > 0)
        entries[state] = entries.get(state, 0) + len(row)
    layer = frozenset((state, False) for state in start)
    seen: dict[frozenset[tuple[Hashable, bool]], int] = {}
    sizes: list[int] = []
    total = 0
    while len(sizes) < horizon:
        if layer in seen:  # the layers from seen[layer] on repeat
            cycle = sizes[seen[layer]:]
            rounds, rest = divmod(horizon - len(sizes), len(cycle))
            return total + rounds * sum(cycle) + sum(cycle[:rest])
        seen[layer] = len(sizes)
        sizes.append(sum(1 + len(actions) + (0 if ended else entries[state])
                         for state, ended in layer))
        total += sizes[-1]
        if total > limit:
            return total + (horizon - len(sizes)) * sizes[-1]
        layer = frozenset(pair for state, ended in layer
                          for pair in ([(state, True)] if ended else successors[state]))
    return total


def _unrolled(name: str, horizon: int, states: list[Hashable], actions: tuple[Hashable, ...],
              rows: Table, start: Mapping[Hashable, Number], number: Reader, atol: float
              ) -> BlockMDP:
    """The Block MDP of :func:`from_gymnasium`: the layers of reachable (state, ended) pairs."""
    action_names = [_shown(a) for a in actions]
    outcomes: dict[tuple[Hashable, Hashable], dict[tuple[Hashable, bool], Number]] = {}
    expected: dict[tuple[Hashable, Hashable], Number] = {}
    for key, row in rows.items():
        merged: dict[tuple[Hashable, bool], Number] = {}
        for probability, next_state, _, terminated in row:
            if probability > 0:
                target = (next_state, terminated)
                merged[target] = merged.get(target, 0) + number(probability)
        outcomes[key] = merged
        expected[key] = sum((number(p) * number(r) for p, _, r, _ in row), number(0))

    def state_name(layer: int, state: Hashable, ended: bool) -> str:
        return f"s{layer}_{_shown(state)}" + ("_end" if ended else "")

    order = [(s, False) for s in states] + [(s, True) for s in states]
    current = {(s, False) for s in start}
    layers, transitions, rewards = [], {}, {}
    for layer in range(1, horizon + 1):
        members = [pair for pair in order if pair in current]
        layers.append([state_name(layer, *pair) for pair in members])
        following: set[tuple[Hashable, bool]] = set()
        for state, ended in members:
            here = state_name(layer, state, ended)
            if not ended:
                rewards[here] = {a: expected[state, action]
                                 for a, action in zip(action_names, actions, strict=True)
                                 if expected[state, action] != 0}
            if layer == horizon:
                continue
            per_action = {}
            for a, action in zip(action_names, actions, strict=True):
                targets = {(state, True): number(1)} if ended else outcomes[state, action]
                per_action[a] = {state_name(layer + 1, *t): p for t, p in targets.items()}
                following.update(targets)
            transitions[here] = per_action
        current = following
    return block_mdp(name, layers, action_names,
                     {state_name(1, s, False): p for s, p in start.items()},
                     transitions, rewards=rewards, atol=atol)
