"""The transitions of a spec, ``state -> action -> next state -> probability``, read in bulk
into the per-layer matrices of :class:`kinematic.model.BlockMDP` (Section 2's ``T(s'|s, a)``).

One pass over the names collects, for every layer, three flat lists - the row ``i * |A| + a`` of
the state-action pair, the column of the next state, the number - checking each name and
parsing each number as it goes (a float is taken as it is; a string is parsed once per distinct
string, :func:`kinematic.numbers.parse_number`). Once the number mode is known, the checks of
each distribution (no negative entry, a sum of 1) run on arrays, and each matrix is built from
the index arrays. Errors are those of an entry-by-entry reading, raised in the same order and
naming the same entry: ``transitions['s3']['a2'] sums to 9/10, not 1``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from kinematic.errors import InvalidBlockMDP, require_mapping
from kinematic.lookup import unknown_entry
from kinematic.numbers import Number, NumberMode, exact_text, parse_number

__all__ = ["LayerEntries", "parse_transitions", "transition_matrix"]


@dataclass
class LayerEntries:
    """The transition entries of one layer as read: ``rows[k]`` is the row ``i * |A| + a`` of
    the pair (state ``i`` of the layer, action ``a``), ``columns[k]`` the index of the next
    state in the following layer, ``values[k]`` the number as parsed (``Fraction`` or float).
    Pairs come in (state, action) order, the entries of a pair in the spec's order."""

    rows: list[int] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)
    values: list[Number] = field(default_factory=list)


def _where(state: str, action: str) -> str:
    return f"transitions[{state!r}][{action!r}]"


def _check_keys(transitions: Mapping, location: Mapping[str, tuple[int, int]],
                horizon: int) -> None:
    """Every key a known state with a next layer (the last layer may map to nothing)."""
    for state in transitions:
        if state not in location:
            raise unknown_entry("transitions", "state", state, list(location))
        if location[state][0] == horizon - 1 and transitions[state]:
            raise InvalidBlockMDP(
                f"transitions[{state!r}]: {state!r} is in the last layer {horizon}, "
                "which has no next layer"
            )


def _bad_target(where: str, target: object, location: Mapping[str, tuple[int, int]],
                layer: int) -> InvalidBlockMDP:
    if not isinstance(target, str) or target not in location:
        return unknown_entry(where, "state", target,
                             [s for s, (h, _) in location.items() if h == layer + 1])
    return InvalidBlockMDP(
        f"{where}[{target!r}]: {target!r} is in layer {location[target][0] + 1}, "
        f"not the next layer {layer + 2}"
    )


def parse_transitions(
    transitions: object,
    location: Mapping[str, tuple[int, int]],
    actions: tuple[str, ...],
    horizon: int,
) -> list[LayerEntries]:
    """The entries of layers ``1 .. H-1`` (:class:`LayerEntries`), every name checked.

    Raises
    ------
    InvalidBlockMDP
        Naming the first entry at fault (states in layer order, actions in order): an unknown
        state or action, a state of a layer before the last without an entry or an action
        without a distribution, a next state outside the following layer, a value that is not a
        number (:func:`kinematic.numbers.parse_number`).
    """
    transitions = require_mapping(transitions, "transitions")
    _check_keys(transitions, location, horizon)
    number_of_actions = len(actions)
    known_actions = frozenset(actions)
    layers = [LayerEntries() for _ in range(horizon - 1)]
    for state, (h, i) in location.items():
        if h == horizon - 1:
            continue
        if state not in transitions:
            raise InvalidBlockMDP(f"transitions: state {state!r} (layer {h + 1}) has no entry")
        per_action = require_mapping(transitions[state], f"transitions[{state!r}]")
        for action in per_action:
            if action not in known_actions:
                raise unknown_entry(f"transitions[{state!r}]", "action", action, actions)
        rows, columns, values = layers[h].rows, layers[h].columns, layers[h].values
        for a, action in enumerate(actions):
            if action not in per_action:
                raise InvalidBlockMDP(f"{_where(state, action)} is missing")
            distribution = require_mapping(per_action[action], _where(state, action))
            row = i * number_of_actions + a
            for target, value in distribution.items():
                place = location.get(target)
                if place is None or place[0] != h + 1:
                    raise _bad_target(_where(state, action), target, location, h)
                if type(value) is not float or not math.isfinite(value):
                    value = parse_number(value, f"{_where(state, action)}[{target!r}]")
                rows.append(row)
                columns.append(place[1])
                values.append(value)
    return layers


def _first_errors(mode: NumberMode, entries: LayerEntries, rows: np.ndarray, values: np.ndarray,
                  number_of_rows: int) -> tuple[int | None, int | None]:
    """The first entry with a negative value and the first row whose sum is not 1 (or None)."""
    if mode.exact:
        negative = next((k for k, v in enumerate(entries.values) if v < 0), None)
        sums = [mode.scalar(0)] * number_of_rows
        for row, value in zip(entries.rows, entries.values, strict=True):
            sums[row] += value
        bad_row = next((r for r, total in enumerate(sums) if total != 1), None)
        return negative, bad_row
    negatives = np.flatnonzero(values < 0)
    # bincount adds each row's entries in order from 0.0, as the sum of a Python list does
    row_sums = np.bincount(rows, weights=values, minlength=number_of_rows)
    bad_rows = np.flatnonzero(np.abs(row_sums - 1.0) > mode.atol)
    return (int(negatives[0]) if negatives.size else None,
            int(bad_rows[0]) if bad_rows.size else None)


def _check_rows(mode: NumberMode, entries: LayerEntries, rows: np.ndarray, values: np.ndarray,
                states: Sequence[str], next_states: Sequence[str],
                actions: tuple[str, ...]) -> None:
    """Raise for the first pair, in (state, action) order, with a negative entry (named) or a
    sum other than 1 (``atol`` in float mode), as an entry-by-entry check would."""
    number_of_actions = len(actions)
    negative, bad_row = _first_errors(mode, entries, rows, values,
                                      len(states) * number_of_actions)
    negative_row = entries.rows[negative] if negative is not None else None
    faults = [r for r in (negative_row, bad_row) if r is not None]
    if not faults:
        return
    row = min(faults)
    where = _where(states[row // number_of_actions], actions[row % number_of_actions])
    if negative is not None and row == negative_row:
        target = next_states[entries.columns[negative]]
        raise InvalidBlockMDP(f"{where}[{target!r}] is negative ({mode.scalar(values[negative])})")
    total = sum((mode.scalar(v) for r, v in zip(entries.rows, values, strict=True) if r == row),
                mode.scalar(0))
    # an exact sum may pass the int-to-str limit
    shown = exact_text(total) if isinstance(total, Fraction) else total
    raise InvalidBlockMDP(f"{where} sums to {shown}, not 1")


def transition_matrix(
    mode: NumberMode,
    entries: LayerEntries,
    states: Sequence[str],
    next_states: Sequence[str],
    actions: tuple[str, ...],
) -> np.ndarray | sp.csr_array:
    """``T`` from layer ``states`` into ``next_states`` (rows ``i * |A| + a``), checked: a dense
    object array in exact mode, a canonical CSR matrix without stored zeros in float mode."""
    values = mode.array(entries.values)
    rows = np.asarray(entries.rows, dtype=np.intp)
    _check_rows(mode, entries, rows, values, states, next_states, actions)
    shape = (len(states) * len(actions), len(next_states))
    columns = np.asarray(entries.columns, dtype=np.intp)
    if mode.exact:
        dense = mode.zeros(shape)
        dense[rows, columns] = values
        return dense
    kept = values != 0
    # from index arrays scipy sums duplicates (none: keys of a row are distinct) and sorts
    return sp.csr_array((values[kept], (rows[kept], columns[kept])), shape=shape)
