"""Whether a Block MDP factorises into an endogenous Block MDP and an exogenous Markov chain, as
declared by a label of each part for every state (:func:`check_factorisation`), checked exactly.

The definition is that of :mod:`kinematic.exogenous`: every state of a layer is one pair of its
labels and every pair is a state (the latent space of a layer is the product of the two parts'),
``mu(s, xi) = mu_en(s) mu_ex(xi)``, ``T((s', xi') | (s, xi), a) = T_en(s' | s, a) T_ex(xi' | xi)``,
and the expected reward of a state and an action depends on the endogenous label only.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction

import numpy as np

from kinematic.display import listed
from kinematic.errors import InvalidBlockMDP, require_mapping
from kinematic.exogenous import ExogenousBlockMDP, exogenous_chain
from kinematic.lookup import find
from kinematic.model import BlockMDP, block_mdp
from kinematic.numbers import Number, number_text

__all__ = ["NotFactorised", "check_factorisation"]


class NotFactorised(InvalidBlockMDP):
    """A Block MDP does not factorise as declared; the message names the first state or entry
    that breaks the factorisation and the numbers that should be equal. An
    :class:`~kinematic.errors.InvalidBlockMDP`: a spec that declares a factorisation that does
    not hold is refused as any invalid spec is."""


def _labels(mdp: BlockMDP, labels: object, part: str) -> dict[str, Hashable]:
    labels = require_mapping(labels, f"{part} labels")
    for state, label in labels.items():
        find(mdp.state_location, state, "state", f"{part} labels")
        try:
            hash(label)
        except TypeError:
            raise InvalidBlockMDP(f"{part} labels[{state!r}]: {label!r} is not hashable") \
                from None
    missing = [state for state in mdp.states if state not in labels]
    if missing:
        raise InvalidBlockMDP(f"{part} labels: no label for state(s) "
                              f"{listed(map(repr, missing), 5)}")
    return dict(labels)


def _ordered(values: list[Hashable]) -> list[Hashable]:
    return list(dict.fromkeys(values))


class _Layer:
    """One layer's states as a grid: endogenous labels x exogenous labels -> state index."""

    def __init__(self, mdp: BlockMDP, h: int, endogenous: dict[str, Hashable],
                 exogenous: dict[str, Hashable]) -> None:
        layer = mdp.layers[h]
        self.states = layer
        self.en = [endogenous[state] for state in layer]
        self.ex = [exogenous[state] for state in layer]
        self.en_values = _ordered(self.en)
        self.ex_values = _ordered(self.ex)
        self.index: dict[tuple[Hashable, Hashable], int] = {}
        for i, pair in enumerate(zip(self.en, self.ex, strict=True)):
            if pair in self.index:
                raise NotFactorised(f"layer {h + 1}: states {layer[self.index[pair]]!r} and "
                                    f"{layer[i]!r} have the same labels {pair!r}")
            self.index[pair] = i
        for e in self.en_values:
            for x in self.ex_values:
                if (e, x) not in self.index:
                    raise NotFactorised(
                        f"layer {h + 1}: no state has the labels {(e, x)!r}: every pair of a "
                        "layer's endogenous and exogenous labels must be one state (the "
                        "latent space of a layer is the product of the two parts')")

    def sums(self, row: np.ndarray, by_endogenous: bool) -> dict[Hashable, Number]:
        """``row`` (a distribution over this layer's states) summed by label."""
        labels, values = (self.en, self.en_values) if by_endogenous else (self.ex, self.ex_values)
        totals: dict[Hashable, Number] = {value: Fraction(0) for value in values}
        for label, p in zip(labels, row, strict=True):
            totals[label] += p
        return totals


def check_factorisation(mdp: BlockMDP, endogenous: Mapping[str, Hashable],
                        exogenous: Mapping[str, Hashable]) -> ExogenousBlockMDP:
    """Check exactly (to ``mdp``'s tolerance in float mode) that ``mdp`` factorises as declared,
    every state ``z`` being the pair ``(endogenous[z], exogenous[z])``, and return the two
    parts: the endogenous Block MDP (its states named by the labels, ``"label@h"`` when a label
    is used in several layers; each emits itself; its rewards the expected ones) and the
    exogenous chain.

    The parts are read off ``mdp``: ``T_en(s' | s, a)`` is the probability of the endogenous
    label ``s'`` from a state with label ``s``, ``T_ex(xi' | xi)`` that of ``xi'`` from a state
    with label ``xi``; these must not depend on the other label (nor ``T_ex`` on the action),
    and their product must be every entry of ``mdp``.

    Raises
    ------
    NotFactorised
        Naming the first state, entry or reward that breaks the factorisation.
    UnknownName, InvalidBlockMDP
        For labels of states that are not ``mdp``'s, states without labels.

    >>> from kinematic import combination_lock, exogenous_block_mdp, exogenous_chain
    >>> lock = combination_lock(3, 2, seed=0)
    >>> flip = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
    ...                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": "1/10", "1": "9/10"}},
    ...                        horizon=3)
    >>> noisy = exogenous_block_mdp(lock, flip).mdp
    >>> parts = {state: state.split("|") for state in noisy.states}
    >>> check_factorisation(noisy, {z: p[0] for z, p in parts.items()},
    ...                     {z: p[1] for z, p in parts.items()}).chain == flip
    True
    >>> check_factorisation(noisy, {z: p[0] for z, p in parts.items()},
    ...                     {z: "0" for z in noisy.states})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kinematic.exogenous_check.NotFactorised: layer 1: states 's1a|0' and 's1a|1' have the same ...
    """
    endogenous = _labels(mdp, endogenous, "endogenous")
    exogenous = _labels(mdp, exogenous, "exogenous")
    grids = [_Layer(mdp, h, endogenous, exogenous) for h in range(mdp.horizon)]
    close = _Comparison(mdp)
    first = grids[0]
    mu_en = first.sums(mdp.start, by_endogenous=True)
    mu_ex = first.sums(mdp.start, by_endogenous=False)
    for i, state in enumerate(first.states):
        e, x = first.en[i], first.ex[i]
        if not close(mdp.start[i], mu_en[e] * mu_ex[x]):
            raise NotFactorised(
                f"start[{state!r}]: {number_text(mdp.start[i])} is not mu_en({e!r}) "
                f"mu_ex({x!r}) = {number_text(mu_en[e])} * {number_text(mu_ex[x])}")
    steps = [_step(mdp, h, grids[h], grids[h + 1], close) for h in range(mdp.horizon - 1)]
    rewards = _endogenous_rewards(mdp, grids, close)
    return _parts(mdp, grids, mu_en, mu_ex, steps, rewards)


class _Comparison:
    """Equality of two numbers of ``mdp``: exact, or within its tolerance in float mode."""

    def __init__(self, mdp: BlockMDP) -> None:
        self.exact, self.atol = mdp.mode.exact, mdp.mode.atol

    def __call__(self, a: Number, b: Number) -> bool:
        return a == b if self.exact else abs(float(a) - float(b)) <= self.atol


class _Step:
    """``T_en`` and ``T_ex`` of one step, read off reference states."""

    def __init__(self) -> None:
        self.endogenous: dict[tuple[Hashable, str], dict[Hashable, Number]] = {}
        self.exogenous: dict[Hashable, dict[Hashable, Number]] = {}


def _step(mdp: BlockMDP, h: int, grid: _Layer, following: _Layer,
          close: _Comparison) -> _Step:
    """Read ``T_en`` off the states with the first exogenous label and ``T_ex`` off those with
    the first endogenous label and the first action, then check that their product is every
    entry of the step (which is then factorised by them, and only by them)."""
    tensor, actions = mdp.transition_tensor(h), mdp.actions
    step = _Step()
    x0, e0 = grid.ex_values[0], grid.en_values[0]
    for e in grid.en_values:
        for a, action in enumerate(actions):
            step.endogenous[e, action] = following.sums(tensor[grid.index[e, x0], a],
                                                        by_endogenous=True)
    for x in grid.ex_values:
        step.exogenous[x] = following.sums(tensor[grid.index[e0, x], 0], by_endogenous=False)
    for i, state in enumerate(grid.states):  # the exogenous part moves whatever s and a are
        x = grid.ex[i]
        for a, action in enumerate(actions):
            moved = following.sums(tensor[i, a], by_endogenous=False)
            if not all(close(p, step.exogenous[x][x2]) for x2, p in moved.items()):
                reference = grid.states[grid.index[e0, x]]
                raise NotFactorised(
                    f"transitions[{state!r}][{action!r}]: the next exogenous value is "
                    f"{_distribution(moved)}, but from {reference!r} with action "
                    f"{actions[0]!r} {_distribution(step.exogenous[x])}: it depends on the "
                    f"{'action' if state == reference else 'endogenous state or the action'}, "
                    "so it is not exogenous")
    for i, state in enumerate(grid.states):
        e, x = grid.en[i], grid.ex[i]
        for a, action in enumerate(actions):
            row = tensor[i, a]
            for j, nxt in enumerate(following.states):
                e2, x2 = following.en[j], following.ex[j]
                p_en, p_ex = step.endogenous[e, action][e2], step.exogenous[x][x2]
                if not close(row[j], p_en * p_ex):
                    raise NotFactorised(
                        f"transitions[{state!r}][{action!r}][{nxt!r}]: {number_text(row[j])} "
                        f"is not T_en({e2!r} | {e!r}, {action!r}) T_ex({x2!r} | {x!r}) = "
                        f"{number_text(p_en)} * {number_text(p_ex)} (T_en as from "
                        f"{grid.states[grid.index[e, x0]]!r}, T_ex as from "
                        f"{grid.states[grid.index[e0, x]]!r} with action {actions[0]!r})")
    return step


def _distribution(probabilities: Mapping[Hashable, Number]) -> str:
    """``{'sun': 7/10, 'rain': 3/10}``: the values of positive probability."""
    return "{" + ", ".join(f"{value!r}: {number_text(p)}" for value, p in probabilities.items()
                           if p) + "}"


def _endogenous_rewards(mdp: BlockMDP, grids: list[_Layer],
                        close: _Comparison) -> list[dict[tuple[Hashable, str], Number]]:
    """The expected reward of each endogenous label and action, layer by layer, checked to be
    that of every state with the label (``E_q[r(x, a) | z]``)."""
    tables = []
    for h, grid in enumerate(grids):
        expected = np.zeros((len(grid.states), len(mdp.actions)), dtype=object)
        expected[:] = Fraction(0)
        for o, state in enumerate(mdp.emission_state[h]):
            expected[state] = expected[state] + mdp.emission_probability[h][o] * mdp.rewards[h][o]
        table: dict[tuple[Hashable, str], Number] = {}
        seen: dict[Hashable, str] = {}
        for i, state in enumerate(grid.states):
            e = grid.en[i]
            for a, action in enumerate(mdp.actions):
                if (e, action) not in table:
                    table[e, action] = expected[i, a]
                    seen[e] = state
                elif not close(expected[i, a], table[e, action]):
                    raise NotFactorised(
                        f"rewards of {state!r} with action {action!r}: expected "
                        f"{number_text(expected[i, a])}, but {number_text(table[e, action])} for "
                        f"{seen[e]!r} (both endogenous label {e!r}): the reward depends on the "
                        "exogenous part")
        tables.append(table)
    return tables


def _names(grids: list[_Layer], endogenous: bool) -> list[dict[Hashable, str]]:
    """Each layer's labels as names: ``str(label)``, or ``"label@h"`` where two layers share a
    label (the states of a Block MDP have distinct names over all layers)."""
    per_layer = [grid.en_values if endogenous else grid.ex_values for grid in grids]
    texts = [str(label) for labels in per_layer for label in labels]
    unique = len(set(texts)) == len(texts) or not endogenous
    return [{label: str(label) if unique else f"{label}@{h + 1}" for label in labels}
            for h, labels in enumerate(per_layer)]


def _parts(mdp: BlockMDP, grids: list[_Layer], mu_en: dict[Hashable, Number],
           mu_ex: dict[Hashable, Number], steps: list[_Step],
           rewards: list[dict[tuple[Hashable, str], Number]]) -> ExogenousBlockMDP:
    en_names, ex_names = _names(grids, True), _names(grids, False)
    for h, names in enumerate(ex_names):
        if len(set(names.values())) != len(names):
            raise InvalidBlockMDP(f"exogenous labels of layer {h + 1}: two labels print alike "
                                  f"({sorted(names.values())})")
    for h, names in enumerate(en_names):
        if len(set(names.values())) != len(names):
            raise InvalidBlockMDP(f"endogenous labels of layer {h + 1}: two labels print alike "
                                  f"({sorted(names.values())})")
    transitions: dict[str, dict[str, dict[str, Number]]] = {}
    for h, step in enumerate(steps):
        for (e, action), row in step.endogenous.items():
            transitions.setdefault(en_names[h][e], {})[action] = {
                en_names[h + 1][e2]: p for e2, p in row.items() if p}
    reward_table: dict[str, dict[str, Number]] = {}
    for h, table in enumerate(rewards):
        for (e, action), r in table.items():
            if r:
                reward_table.setdefault(en_names[h][e], {})[action] = r
    endogenous = block_mdp(f"{mdp.name} (endogenous)",
                           [list(names.values()) for names in en_names], mdp.actions,
                           {en_names[0][e]: p for e, p in mu_en.items() if p}, transitions,
                           rewards=reward_table, atol=mdp.mode.atol)
    chain = exogenous_chain(
        [list(names.values()) for names in ex_names],
        {ex_names[0][x]: p for x, p in mu_ex.items()},
        [{ex_names[h][x]: {ex_names[h + 1][x2]: p for x2, p in row.items()}
          for x, row in step.exogenous.items()} for h, step in enumerate(steps)],
        atol=mdp.mode.atol)
    parts = {state: (en_names[h][grid.en[i]], ex_names[h][grid.ex[i]])
             for h, grid in enumerate(grids) for i, state in enumerate(grid.states)}
    return ExogenousBlockMDP(mdp, endogenous, chain, parts)
