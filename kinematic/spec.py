"""JSON spec <-> :class:`BlockMDP` (format of DESIGN.md, "JSON spec").

Exact numbers travel as ``"p/q"`` strings (or ints), floats as JSON numbers. ``emissions`` and
``rewards`` are optional. :func:`to_spec` writes only non-default, non-zero entries, so
``to_spec(from_spec(s))`` is a normal form that can be compared with ``==``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kinematic.errors import InvalidBlockMDP
from kinematic.json_input import read_json_file
from kinematic.model import BlockMDP, block_mdp
from kinematic.numbers import DEFAULT_ATOL, Number

__all__ = ["dumps_spec", "from_spec", "load_spec", "to_spec"]

_REQUIRED = ("name", "horizon", "actions", "layers", "start", "transitions")
_KNOWN = (*_REQUIRED, "emissions", "rewards")


def from_spec(spec: Mapping, atol: float = DEFAULT_ATOL) -> BlockMDP:
    """Build a validated :class:`BlockMDP` from a parsed JSON spec.

    Raises
    ------
    InvalidBlockMDP
        On a missing or unknown top-level key, a ``horizon`` that does not match the number of
        layers, or any model error of :func:`kinematic.model.block_mdp`.
    """
    if not isinstance(spec, Mapping):
        raise InvalidBlockMDP(f"spec must be a JSON object, got {type(spec).__name__}")
    for key in _REQUIRED:
        if key not in spec:
            raise InvalidBlockMDP(f"spec: missing key {key!r}")
    unknown = sorted(set(spec) - set(_KNOWN))
    if unknown:
        raise InvalidBlockMDP(f"spec: unknown key {unknown[0]!r} (known: {', '.join(_KNOWN)})")
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


def load_spec(path: str | Path, atol: float = DEFAULT_ATOL) -> BlockMDP:
    """Read a JSON spec file (:func:`kinematic.json_input.read_json_file`: bounded depth, no
    duplicate keys); every error is an :class:`InvalidBlockMDP` naming the file."""
    path = Path(path)
    try:
        spec = read_json_file(path)
    except ValueError as error:
        raise InvalidBlockMDP(str(error)) from None
    try:
        return from_spec(spec, atol=atol)
    except InvalidBlockMDP as error:
        raise InvalidBlockMDP(f"{path}: {error}") from None


def _reward(mdp: BlockMDP, layer: int, observation: int, action: int,
            number: Callable[[Number], object]) -> object:
    """The spec entry of one reward: its distribution ``{value: probability}`` if stochastic,
    else its value."""
    distribution = mdp.reward_distributions.get((layer, observation, action))
    if distribution is None:
        return number(mdp.rewards[layer][observation, action])
    return {str(number(v)): number(p) for v, p in zip(*distribution, strict=True)}


def _positive_rows(mdp: BlockMDP, layer: int) -> Iterator[tuple[tuple[int, int], list]]:
    """``((state, action), [(next state, probability), ...])`` for every row of
    ``transitions[layer]``, in order, with the positive entries only: read from the CSR arrays
    in float mode (one ``tolist`` per layer, no per-row numpy call), from the dense rows in
    exact mode."""
    actions = mdp.number_of_actions
    matrix = mdp.transitions[layer]
    if sp.issparse(matrix):
        matrix = sp.csr_array(matrix)
        if not matrix.has_canonical_format:  # sorted, no duplicates; the MDP's own untouched
            matrix = matrix.copy()
            matrix.sum_duplicates()
        starts, columns, values = (matrix.indptr.tolist(), matrix.indices.tolist(),
                                   matrix.data.tolist())
        for row in range(matrix.shape[0]):
            entries = zip(columns[starts[row]:starts[row + 1]],
                          values[starts[row]:starts[row + 1]], strict=True)
            yield divmod(row, actions), [(j, p) for j, p in entries if p > 0]
        return
    for row in range(matrix.shape[0]):
        positive = np.flatnonzero(mdp.mode.positive(matrix[row]))
        yield divmod(row, actions), [(j, matrix[row, j]) for j in positive.tolist()]


def to_spec(mdp: BlockMDP) -> dict:
    """The JSON spec of ``mdp`` (only non-zero entries; emissions only where not default)."""
    mode = mdp.mode
    number = mode.to_json
    transitions: dict[str, dict[str, dict[str, object]]] = {}
    for h in range(mdp.horizon - 1):
        following = mdp.layers[h + 1]
        for (i, a), row in _positive_rows(mdp, h):
            action = mdp.actions[a]
            transitions.setdefault(mdp.layers[h][i], {})[action] = {
                following[j]: number(p) for j, p in row}
    emissions, rewards = {}, {}
    for h, layer in enumerate(mdp.layers):
        for state in layer:
            dist = mdp.observations_of(state)
            if list(dist) != [state]:
                emissions[state] = {x: number(p) for x, p in dist.items()}
        for x, observation in enumerate(mdp.observations[h]):
            nonzero = {
                action: _reward(mdp, h, x, a, number)
                for a, action in enumerate(mdp.actions)
                if mdp.rewards[h][x, a] != 0 or (h, x, a) in mdp.reward_distributions
            }
            if nonzero:
                rewards[observation] = nonzero
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
    if emissions:
        spec["emissions"] = emissions
    if rewards:
        spec["rewards"] = rewards
    return spec


def dumps_spec(mdp: BlockMDP, indent: int | None = 1) -> str:
    """``to_spec`` as JSON text."""
    return json.dumps(to_spec(mdp), indent=indent)
