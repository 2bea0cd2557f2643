"""JSON spec <-> :class:`BlockMDP` (the format of docs/guide/spec-format.md).

Exact numbers travel as ``"p/q"`` strings (or ints), floats as JSON numbers. ``emissions`` and
``rewards`` are optional. :func:`to_spec` writes only non-default, non-zero entries, so
``to_spec(from_spec(s))`` is a normal form that can be compared with ``==``.

A spec of an exogenous Block MDP (either form of :mod:`kinematic.exogenous_spec`: an
endogenous Block MDP and an exogenous chain, or a Block MDP with a declared ``factorisation``)
reads as its product Block MDP here, so every tool takes it;
:func:`kinematic.exogenous_spec.from_exogenous_spec` gives the factorisation too.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

import numpy as np
import scipy.sparse as sp

from kinematic.errors import InvalidBlockMDP, TooLarge
from kinematic.json_input import display_path, read_json_file
from kinematic.lookup import unknown_entry
from kinematic.model import BlockMDP, block_mdp
from kinematic.numbers import DEFAULT_ATOL, Number

__all__ = ["EXOGENOUS_KEYS", "dumps_spec", "from_spec", "load_spec", "read_spec_file",
           "to_spec"]

EXOGENOUS_KEYS = ("endogenous", "exogenous", "factorisation")
"""Top-level keys that make a spec one of an exogenous Block MDP (:mod:`kinematic.exogenous_spec`):
``endogenous`` and ``exogenous`` (the compact form), ``factorisation`` (a declared one)."""

_REQUIRED = ("name", "horizon", "actions", "layers", "start", "transitions")
_KNOWN = (*_REQUIRED, "emissions", "rewards", *EXOGENOUS_KEYS)

Built = TypeVar("Built")


def from_spec(spec: object, atol: float = DEFAULT_ATOL) -> BlockMDP:
    """Build a validated :class:`BlockMDP` from a parsed JSON spec; the spec of an exogenous
    Block MDP (a key of :data:`EXOGENOUS_KEYS`) gives its product Block MDP
    (:func:`kinematic.exogenous_spec.from_exogenous_spec`'s ``.mdp``).

    Raises
    ------
    InvalidBlockMDP
        On an unknown top-level key (with the closest known one: ``spec: unknown key
        'transitons' (did you mean 'transitions'?)``), then a missing one, a ``horizon`` that
        does not match the number of layers, or any model error of
        :func:`kinematic.model.block_mdp`; for an exogenous spec, as
        :func:`~kinematic.exogenous_spec.from_exogenous_spec`.
    TooLarge
        When an exogenous spec's product would not fit in memory.
    """
    if not isinstance(spec, Mapping):
        raise InvalidBlockMDP(f"spec must be a JSON object, got {type(spec).__name__}")
    if any(key in spec for key in EXOGENOUS_KEYS):
        from kinematic.exogenous_spec import from_exogenous_spec  # it builds on this module

        return from_exogenous_spec(spec, atol).mdp
    unknown = [key for key in spec if key not in _KNOWN]
    if unknown:  # before the missing keys: 'transitons' is why 'transitions' is missing
        raise unknown_entry("spec", "key", unknown[0], _KNOWN)
    for key in _REQUIRED:
        if key not in spec:
            raise InvalidBlockMDP(f"spec: missing key {key!r}")
    if not isinstance(spec["name"], str) or not spec["name"]:
        raise InvalidBlockMDP(f"spec: name must be a non-empty string, got {spec['name']!r}")
    horizon = spec["horizon"]
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise InvalidBlockMDP(f"spec: horizon must be a positive int, got {horizon!r}")
    if not isinstance(spec["layers"], list) or len(spec["layers"]) != horizon:
        count = len(spec["layers"]) if isinstance(spec["layers"], list) else "no"
        raise InvalidBlockMDP(f"spec: horizon is {horizon} but there are {count} layers")
    return block_mdp(
        name=spec["name"],
        layers=spec["layers"],
        actions=spec["actions"],
        start=spec["start"],
        transitions=spec["transitions"],
        emissions=spec.get("emissions"),
        rewards=spec.get("rewards"),
        atol=atol,
    )


def read_spec_file(path: str | Path, build: Callable[[object], Built]) -> Built:
    """``build`` applied to the JSON of the spec file ``path``
    (:func:`kinematic.json_input.read_json_file`: bounded depth, no duplicate keys); every
    error names the file: an :class:`InvalidBlockMDP` (or the subclass ``build`` raised), or
    :class:`~kinematic.errors.TooLarge`."""
    path = Path(path)
    try:
        spec = read_json_file(path)
    except ValueError as error:
        raise InvalidBlockMDP(str(error)) from None
    try:
        return build(spec)
    except (InvalidBlockMDP, TooLarge) as error:
        raise type(error)(f"{display_path(path)}: {error}") from None


def load_spec(path: str | Path, atol: float = DEFAULT_ATOL) -> BlockMDP:
    """Read a JSON spec file (:func:`read_spec_file`: bounded depth, no duplicate keys); every
    error is an :class:`InvalidBlockMDP` naming the file (:class:`~kinematic.errors.TooLarge`
    for an exogenous spec whose product would not fit in memory)."""
    return read_spec_file(path, lambda spec: from_spec(spec, atol=atol))


def _reward(mdp: BlockMDP, layer: int, observation: int, action: int,
            number: Callable[[Number], object]) -> object:
    """The spec entry of one reward: its distribution ``{value: probability}`` if stochastic,
    else its value."""
    distribution = mdp.reward_distributions.get((layer, observation, action))
    if distribution is None:
        return number(mdp.rewards[layer][observation, action])
    return {str(number(v)): number(p) for v, p in zip(*distribution, strict=True)}


def _transition_table(mdp: BlockMDP, layer: int) -> dict[str, dict[str, dict[str, object]]]:
    """``state -> action -> next state -> number`` for the positive entries of
    ``transitions[layer]`` (next states in layer order), built from whole-layer lists: one
    ``tolist`` per array and no numpy call per row or entry."""
    matrix = mdp.transitions[layer]
    rows: np.ndarray
    columns: np.ndarray
    if sp.issparse(matrix):
        matrix = sp.csr_array(matrix)
        if not matrix.has_canonical_format:  # sorted, no duplicates; the MDP's own untouched
            matrix = matrix.copy()
            matrix.sum_duplicates()
        positive = matrix.data > 0
        rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))[positive]
        columns = matrix.indices[positive]
        values = matrix.data[positive].tolist()  # Python floats: their own JSON numbers
    else:
        rows, columns = np.nonzero(mdp.mode.positive(matrix))
        values = [mdp.mode.to_json(p) for p in matrix[rows, columns]]
    counts = np.bincount(rows, minlength=matrix.shape[0]).tolist()
    names = np.asarray(mdp.layers[layer + 1], dtype=object)[columns].tolist()
    entries = zip(names, values, strict=True)
    number_of_actions = mdp.number_of_actions
    return {
        state: {action: dict(itertools.islice(entries, counts[i * number_of_actions + a]))
                for a, action in enumerate(mdp.actions)}
        for i, state in enumerate(mdp.layers[layer])
    }


def _emission_table(mdp: BlockMDP) -> dict[str, dict[str, object]]:
    """``state -> observation -> number`` for the states whose emission is not the default
    (one observation named like the state)."""
    number = mdp.mode.to_json
    table: dict[str, dict[str, object]] = {}
    for h, layer in enumerate(mdp.layers):
        emitted: list[dict[str, object]] = [{} for _ in layer]
        for owner, observation, p in zip(mdp.emission_state[h].tolist(), mdp.observations[h],
                                         mdp.emission_probability[h], strict=True):
            emitted[owner][observation] = number(p)
        for state, distribution in zip(layer, emitted, strict=True):
            if list(distribution) != [state]:
                table[state] = distribution
    return table


def _reward_table(mdp: BlockMDP) -> dict[str, dict[str, object]]:
    """``observation -> action -> reward`` for the non-zero or stochastic rewards."""
    number = mdp.mode.to_json
    table: dict[str, dict[str, object]] = {}
    for h, observations in enumerate(mdp.observations):
        rewarded = np.asarray(mdp.rewards[h] != 0, dtype=bool)
        for (layer, x, a) in mdp.reward_distributions:
            if layer == h:
                rewarded[x, a] = True
        for x in np.flatnonzero(rewarded.any(axis=1)).tolist():
            table[observations[x]] = {
                mdp.actions[a]: _reward(mdp, h, x, a, number)
                for a in np.flatnonzero(rewarded[x]).tolist()
            }
    return table


def to_spec(mdp: BlockMDP) -> dict:
    """The JSON spec of ``mdp`` (only non-zero entries; emissions only where not default)."""
    number = mdp.mode.to_json
    transitions: dict[str, dict[str, dict[str, object]]] = {}
    for h in range(mdp.horizon - 1):
        transitions.update(_transition_table(mdp, h))
    spec = {
        "name": mdp.name,
        "horizon": mdp.horizon,
        "actions": list(mdp.actions),
        "layers": [list(layer) for layer in mdp.layers],
        "start": {
            mdp.layers[0][i]: number(p)
            for i, p in enumerate(mdp.start)
            if p != 0
        },
        "transitions": transitions,
    }
    emissions, rewards = _emission_table(mdp), _reward_table(mdp)
    if emissions:
        spec["emissions"] = emissions
    if rewards:
        spec["rewards"] = rewards
    return spec


def dumps_spec(mdp: BlockMDP, indent: int | None = 1) -> str:
    """``to_spec`` as JSON text."""
    return json.dumps(to_spec(mdp), indent=indent)
