"""Bulk reading of transition tables (``kinematic.transition_tables``) against an entry-by-entry
reader: the same matrices for valid specs, the same first error for corrupted ones."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic.errors import InvalidBlockMDP
from kinematic.lookup import unknown_entry
from kinematic.model import with_float_numbers
from kinematic.numbers import DEFAULT_ATOL, parse_number
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps


def entry_by_entry(spec: dict, exact: bool) -> list[np.ndarray]:
    """Dense transition matrices of ``spec``, each name and number checked one entry at a time
    in (state, action, entry) order, then each distribution checked in the same order (an
    unknown name is worded by ``unknown_entry``, with the closest names)."""
    location = {s: (h, i) for h, layer in enumerate(spec["layers"]) for i, s in enumerate(layer)}
    horizon, actions, transitions = len(spec["layers"]), spec["actions"], spec["transitions"]
    if not isinstance(transitions, dict):
        raise InvalidBlockMDP(f"transitions must be a mapping, got {type(transitions).__name__}")
    for state in transitions:
        if state not in location:
            raise unknown_entry("transitions", "state", state, list(location))
        if location[state][0] == horizon - 1 and transitions[state]:
            raise InvalidBlockMDP(f"transitions[{state!r}]: {state!r} is in the last layer "
                                  f"{horizon}, which has no next layer")
    parsed = {}
    for state, (h, _) in location.items():
        if h == horizon - 1:
            continue
        if state not in transitions:
            raise InvalidBlockMDP(f"transitions: state {state!r} (layer {h + 1}) has no entry")
        per_action = transitions[state]
        if not isinstance(per_action, dict):
            raise InvalidBlockMDP(f"transitions[{state!r}] must be a mapping, got "
                                  f"{type(per_action).__name__}")
        for action in per_action:
            if action not in actions:
                raise unknown_entry(f"transitions[{state!r}]", "action", action, actions)
        for action in actions:
            where = f"transitions[{state!r}][{action!r}]"
            if action not in per_action:
                raise InvalidBlockMDP(f"{where} is missing")
            if not isinstance(per_action[action], dict):
                raise InvalidBlockMDP(f"{where} must be a mapping, got "
                                      f"{type(per_action[action]).__name__}")
            for target, value in per_action[action].items():
                if target not in location:
                    raise unknown_entry(where, "state", target, spec["layers"][h + 1])
                if location[target][0] != h + 1:
                    raise InvalidBlockMDP(f"{where}[{target!r}]: {target!r} is in layer "
                                          f"{location[target][0] + 1}, not the next layer {h + 2}")
                parsed[state, action, target] = parse_number(value, f"{where}[{target!r}]")
    scalar = Fraction if exact else float
    matrices = []
    for h in range(horizon - 1):
        dense = np.full((len(spec["layers"][h]) * len(actions), len(spec["layers"][h + 1])),
                        scalar(0), dtype=object if exact else float)
        for i, state in enumerate(spec["layers"][h]):
            for a, action in enumerate(actions):
                where = f"transitions[{state!r}][{action!r}]"
                total = scalar(0)
                for target in transitions[state][action]:
                    value = scalar(parsed[state, action, target])
                    if value < 0:
                        raise InvalidBlockMDP(f"{where}[{target!r}] is negative ({value})")
                    total += value
                    dense[i * len(actions) + a, location[target][1]] = value
                if (total != 1) if exact else abs(total - 1) > DEFAULT_ATOL:
                    raise InvalidBlockMDP(f"{where} sums to {total}, not 1")
        matrices.append(dense)
    return matrices


def _corrupt(draw: st.DrawFn, spec: dict, exact: bool) -> None:
    """One corruption of one distribution of ``spec`` not corrupted before (in place)."""
    layers = spec["layers"]
    intact = [(h, state, action) for h, layer in enumerate(layers[:-1]) for state in layer
              for action, row in spec["transitions"][state].items()
              if isinstance(row, dict) and row and "nowhere" not in row]
    if not intact:
        return
    h, state, action = draw(st.sampled_from(intact))
    distribution = spec["transitions"][state][action]
    target = draw(st.sampled_from(sorted(distribution)))
    number = (lambda x: str(Fraction(x))) if exact else float
    kind = draw(st.sampled_from(["negative", "scaled", "zero", "added zero", "unknown",
                                 "other layer", "not a number", "missing action", "not a mapping",
                                 "empty"]))
    absent = [s for s in layers[h + 1] if s not in distribution]
    if kind == "added zero" and absent:  # still a distribution: the zero must not be stored
        distribution[draw(st.sampled_from(absent))] = number(0)
    elif kind == "negative":
        distribution[target] = number(-Fraction(1, 3))
    elif kind == "scaled":
        distribution[target] = number(Fraction(1, 7))
    elif kind == "zero":
        distribution[target] = number(0)
    elif kind == "unknown":
        distribution["nowhere"] = number(0)
    elif kind == "other layer":
        distribution[draw(st.sampled_from(layers[0] if h else layers[-1]))] = number(0)
    elif kind == "not a number":
        distribution[target] = draw(st.sampled_from(["x", True, None, [1]]))
    elif kind == "missing action":
        del spec["transitions"][state][action]
    elif kind == "not a mapping":
        spec["transitions"][state][action] = [target]
    else:
        spec["transitions"][state][action] = {}


@st.composite
def specs_and_modes(draw: st.DrawFn) -> tuple[dict, bool]:
    mdp = draw(block_mdps(min_horizon=2))
    exact = draw(st.booleans())
    spec = copy.deepcopy(to_spec(mdp if exact else with_float_numbers(mdp)))
    for _ in range(draw(st.integers(0, 3))):
        _corrupt(draw, spec, exact)
    return spec, exact


@given(specs_and_modes())
def test_bulk_reading_matches_an_entry_by_entry_reading(case):
    spec, exact = case
    try:
        expected = entry_by_entry(spec, exact)
    except InvalidBlockMDP as error:
        with pytest.raises(InvalidBlockMDP) as raised:
            from_spec(spec)
        assert str(raised.value) == str(error)
        return
    try:
        mdp = from_spec(spec)
    except InvalidBlockMDP as error:  # a corruption may leave a state unreachable
        assert "unreachable" in str(error)
        return
    assert mdp.mode.exact == exact
    for matrix, reference in zip(mdp.transitions, expected, strict=True):
        if exact:
            assert matrix.shape == reference.shape and (matrix == reference).all()
        else:
            assert matrix.has_canonical_format and (matrix.data != 0).all()
            assert (matrix.toarray() == reference).all()


def test_a_zero_probability_is_a_probability_in_both_modes():
    """A zero entry is neither negative nor stored (float mode); the state it names is reached
    by another action."""
    for zero, half in (("0", "1/2"), (0.0, 0.5)):
        spec = _two_pair_spec({"t": half, "u": half}, {"t": zero, "u": 1 if zero == "0" else 1.0})
        mdp = from_spec(spec)
        assert mdp.mode.exact == (zero == "0")
        assert to_spec(mdp)["transitions"]["s"]["a2"] == {"u": "1" if mdp.mode.exact else 1.0}


def test_a_zero_probability_is_not_stored_in_float_mode():
    spec = {"name": "z", "horizon": 2, "actions": ["a"], "layers": [["s"], ["t", "u"]],
            "start": {"s": 1.0}, "transitions": {"s": {"a": {"u": 0.5, "t": 0.5}}}}
    matrix = from_spec(spec).transitions[0]
    assert matrix.indices.tolist() == [0, 1] and matrix.nnz == 2  # sorted within the row
    spec["layers"][1].append("v")
    spec["transitions"]["s"]["a"]["v"] = 0.0
    with pytest.raises(InvalidBlockMDP, match=r"'v' .* is unreachable"):
        from_spec(spec)


def _two_pair_spec(first: dict, second: dict) -> dict:
    return {"name": "two", "horizon": 2, "actions": ["a1", "a2"], "layers": [["s"], ["t", "u"]],
            "start": {"s": "1"}, "transitions": {"s": {"a1": first, "a2": second}}}


@pytest.mark.parametrize(("first", "second", "message"), [
    ({"t": "1/2", "u": "1/3"}, {"t": "-1/3", "u": "4/3"},
     "transitions['s']['a1'] sums to 5/6, not 1"),
    ({"t": "-1/3", "u": "4/3"}, {"t": "1/2", "u": "1/3"},
     "transitions['s']['a1']['t'] is negative (-1/3)"),
    ({"t": "1/2", "u": "1/2"}, {}, "transitions['s']['a2'] sums to 0, not 1"),
    ({"t": 0.5, "u": 0.5}, {}, "transitions['s']['a2'] sums to 0.0, not 1"),
    ({"t": 0.5, "u": 0.5}, {"t": 1.5, "u": -0.5},  # sums to 1: only the sign is at fault
     "transitions['s']['a2']['u'] is negative (-0.5)"),
    ({"t": "1/2", "u": "1/2"}, {"t": "3/2", "u": "-1/2"},
     "transitions['s']['a2']['u'] is negative (-1/2)"),
])
def test_the_first_pair_at_fault_is_named(first, second, message):
    """The earlier pair wins whichever its fault; a last pair with no entries is checked."""
    with pytest.raises(InvalidBlockMDP) as error:
        from_spec(_two_pair_spec(first, second))
    assert str(error.value) == message
