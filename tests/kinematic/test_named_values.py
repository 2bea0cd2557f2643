"""eta, the visitations and the values to go read by name (kinematic.named_values), exactly, and
still the tuples of per-layer arrays their callers index; policies given by state or by
observation name (state_policy, observation_policy)."""

import copy
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinematic import (
    InvalidPolicy,
    ObservationValues,
    StateValues,
    UnknownName,
    block_mdp,
    combination_lock,
    eta,
    observation_policy,
    observation_visitation,
    state_policy,
    state_visitation,
    with_float_numbers,
)
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import observation_values
from tests.kinematic.brute_force import brute_force_eta, path_visitation


@settings(max_examples=30, deadline=None)
@given(block_mdps(max_horizon=3, max_width=3, max_actions=2))
def test_eta_by_state_is_the_brute_force_maximum_exactly(mdp):
    """Kills a name paired with another state's value (a layer or an index shifted) and values
    turned into floats: == against the maximum over every deterministic policy, from names."""
    by_state = eta(mdp).by_state
    assert list(by_state) == list(mdp.states)
    assert by_state == brute_force_eta(mdp)
    assert all(type(value) is Fraction for value in by_state.values())


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_visitations_by_name_are_path_enumeration_exactly(data):
    mdp = data.draw(block_mdps())
    policy = data.draw(policies(mdp))
    expected = path_visitation(mdp, policy)
    assert state_visitation(mdp, policy).by_state == expected
    assert observation_visitation(mdp, policy).by_observation == {
        x: expected[s] * q for s in mdp.states for x, q in mdp.observations_of(s).items()}


def test_values_to_go_by_observation():
    """The lock's good action from every live state earns 1 per layer; only the observation
    names of a layer are its keys."""
    lock = combination_lock(horizon=3, actions=2, seed=0)
    good = state_policy(lock, {"s1a": "a2", "s1b": "a1", "s2a": "a2", "s2b": "a1"},
                        default_action="a1")
    values = observation_values(lock, good)
    assert isinstance(values, ObservationValues)
    assert values.by_observation["s1a"] == values[0][0]
    assert values.by_observation["s3c"] == 0


def test_float_mode_reads_plain_floats():
    lock = with_float_numbers(combination_lock(horizon=3, actions=2, seed=0))
    by_state = eta(lock).by_state
    assert by_state["s2a"] == pytest.approx(0.5)
    assert all(type(value) is float for value in by_state.values())


def test_the_result_is_still_the_tuple_of_arrays():
    """Callers index layers, unpack, zip and chain it; a copy or a pickle keeps the names."""
    lock = combination_lock(horizon=3, actions=2, seed=0)
    values = eta(lock)
    assert isinstance(values, tuple) and len(values) == lock.horizon
    layer_one, layer_two, layer_three = values
    assert [len(layer_one), len(layer_two)] == [2, 3]
    assert list(layer_three) == [Fraction(1, 2), Fraction(1, 2), Fraction(1)]
    assert repr(values) == repr(tuple(values))
    for again in (copy.deepcopy(values), pickle.loads(pickle.dumps(values))):
        assert type(again) is StateValues and again.by_state == values.by_state


def test_an_unknown_name_is_a_keyerror_naming_the_closest_states():
    values = eta(combination_lock(horizon=3, actions=2, seed=0))
    with pytest.raises(UnknownName, match=r"by_state: unknown state 's2d' .*'s2c'"):
        values.by_state["s2d"]
    with pytest.raises(KeyError):
        values.by_state["s2d"]
    assert values.by_state.get("s2d") is None and "s2d" not in values.by_state


def test_names_must_fit_the_arrays():
    with pytest.raises(ValueError, match=r"StateValues: arrays of lengths \[2\] for the state "
                                         r"names of lengths \[3\]"):
        StateValues([np.zeros(2)], (("a", "b", "c"),))


def _peek():
    """One state seen as x (1/3) or y (2/3); L leads to s2a, R to s2b."""
    return block_mdp("peek", layers=[["s1"], ["s2a", "s2b"]], actions=["L", "R"],
                     start={"s1": 1}, transitions={"s1": {"L": {"s2a": 1}, "R": {"s2b": 1}}},
                     emissions={"s1": {"x": "1/3", "y": "2/3"}})


def test_observation_policy_acts_per_observation():
    """Kills a policy that writes every observation of the state (as state_policy does): then
    P(s2a) would be 0 or 1, not q(x | s1) = 1/3."""
    mdp = _peek()
    policy = observation_policy(mdp, {"x": "L", "y": "R"}, default_action="R")
    assert state_visitation(mdp, policy).by_state == {
        "s1": 1, "s2a": Fraction(1, 3), "s2b": Fraction(2, 3)}
    mixed = observation_policy(mdp, {"y": {"L": "1/2", "R": "1/2"}})  # x: uniform by default
    assert state_visitation(mdp, mixed).by_state["s2a"] == Fraction(1, 2)


def test_observation_policy_agrees_with_state_policy_on_latent_choices():
    lock = combination_lock(horizon=3, actions=2, seed=0)
    choices = {"s1a": "a2", "s2b": {"a1": "1/4", "a2": "3/4"}}
    by_state = state_policy(lock, choices, default_action="a2")
    by_observation = observation_policy(lock, choices, default_action="a2")
    assert all((left == right).all() for left, right in zip(
        by_state.action_probabilities, by_observation.action_probabilities, strict=True))


@pytest.mark.parametrize("choices, default, error, message", [
    ({"s1": "L"}, None, UnknownName, r"choices: unknown observation 's1' .*'x'"),
    ({"x": "Left"}, None, UnknownName, r"choices\['x'\]: unknown action 'Left'"),
    ({}, "left", UnknownName, r"default_action: unknown action 'left' .*'L'"),
    ({"x": {"L": "1/2"}}, None, InvalidPolicy, r"observation 'x' sums to 1/2, not 1"),
])
def test_observation_policy_names_the_argument_at_fault(choices, default, error, message):
    """A state name is no observation name when the state emits observations of other names."""
    with pytest.raises(error, match=message):
        observation_policy(_peek(), choices, default_action=default)
