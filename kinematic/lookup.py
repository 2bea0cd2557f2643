"""Looking up what a caller names: a state, observation or action by its name, a layer by its
number. A miss raises an error that names the argument and the closest valid names.

Layer convention: every public function of :mod:`kinematic` that takes a layer counts layers
from 1, as the paper does (``S_1 .. S_H``). The model's tuples are Python sequences indexed from 0
(``mdp.layers[0]`` holds layer 1); so are the array accessors of :class:`kinematic.BlockMDP`
(``width``, ``transition_tensor``, ``emission_matrix``, ``observation_transition_tensor``),
whose argument is named ``index`` and refused out of range (:func:`layer_position`).

>>> from kinematic import combination_lock
>>> from kinematic.lookup import layer_index
>>> layer_index(3, combination_lock(horizon=3, actions=2, seed=0).horizon)
2
"""

from __future__ import annotations

import difflib
import operator
from collections.abc import Collection, Mapping
from typing import TypeVar

from kinematic.errors import InvalidBlockMDP, UnknownLayer, UnknownName, short_repr

__all__ = ["closest_names", "find", "layer_index", "layer_position", "unknown_entry",
           "unknown_name"]

Value = TypeVar("Value")


def closest_names(name: object, candidates: Collection[str], count: int = 3) -> list[str]:
    """Up to ``count`` of ``candidates`` closest to ``name`` (:func:`difflib.get_close_matches`;
    a name that differs only in case comes first)."""
    if not isinstance(name, str) or not candidates:
        return []
    folded = [c for c in candidates if c.casefold() == name.casefold()]
    close = difflib.get_close_matches(name, list(candidates), n=count, cutoff=0.6)
    return list(dict.fromkeys([*folded, *close]))[:count]


def _unknown(kind: str, name: object, candidates: Collection[str]) -> str:
    """``unknown <kind> <name>`` and the closest ``candidates`` (or all, when few); a ``kind``
    such as ``"state or observation"`` lists "the states and observations"."""
    message = f"unknown {kind} {short_repr(name)}"
    suggestions = closest_names(name, candidates)
    if suggestions:
        message += f" (did you mean {' or '.join(map(repr, suggestions))}?)"
    elif 0 < len(candidates) <= 12:
        plural = " and ".join(f"{part}s" for part in kind.split(" or "))
        message += f" (the {plural} are {', '.join(map(repr, candidates))})"
    return message


def unknown_name(kind: str, name: object, candidates: Collection[str],
                 argument: str | None = None) -> UnknownName:
    """The error for a ``kind`` (``"state"``, ``"action"`` ...) ``name`` not among
    ``candidates``, naming ``argument`` and suggesting the closest names."""
    where = f"{argument}: " if argument else ""
    return UnknownName(where + _unknown(kind, name, candidates))


def unknown_entry(where: str, kind: str, name: object,
                  candidates: Collection[str]) -> InvalidBlockMDP:
    """The error for a name in a spec (the spec is at fault, so :class:`InvalidBlockMDP`) at
    ``where`` that is not among ``candidates``, with the closest names.

    >>> print(unknown_entry("spec", "key", "transitons", ["start", "transitions"]))
    spec: unknown key 'transitons' (did you mean 'transitions'?)
    """
    return InvalidBlockMDP(f"{where}: {_unknown(kind, name, candidates)}")


def find(mapping: Mapping[str, Value], name: object, kind: str,
         argument: str | None = None) -> Value:
    """``mapping[name]``, or :class:`UnknownName` naming ``argument`` and the closest keys."""
    try:
        return mapping[name]  # type: ignore[index]
    except (KeyError, TypeError):
        raise unknown_name(kind, name, list(mapping), argument) from None


def _integer(value: object, argument: str) -> int:
    if isinstance(value, bool):
        raise UnknownLayer(f"{argument} must be an int, got {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise UnknownLayer(f"{argument} must be an int, got {short_repr(value)}") from None


def layer_index(layer: object, horizon: int, argument: str = "layer") -> int:
    """The 0-based position of ``layer``, a layer number from 1 to ``horizon`` (the paper's
    ``h``); anything else raises :class:`UnknownLayer` naming the valid range."""
    number = _integer(layer, argument)
    if not 1 <= number <= horizon:
        hint = " (layers count from 1, as in the paper)" if number == 0 else ""
        raise UnknownLayer(f"{argument} {number} is out of range: this MDP has layers "
                           f"1..{horizon}{hint}")
    return number - 1


def layer_position(index: object, horizon: int, argument: str = "index") -> int:
    """``index`` itself if it is a 0-based position ``0 .. horizon - 1`` into the model's
    per-layer tuples (layer ``index + 1``); anything else (negative positions included) raises
    :class:`UnknownLayer` naming the valid range."""
    number = _integer(index, argument)
    if not 0 <= number < horizon:
        raise UnknownLayer(f"{argument} {number} is out of range: positions run 0..{horizon - 1} "
                           f"(layer h of the paper is position h - 1)")
    return number
