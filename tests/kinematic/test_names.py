"""A name the MDP does not have, passed to a public function, raises ``UnknownName`` naming the
argument and the closest valid names (the argument is at fault, not the MDP)."""

import pytest

from kinematic import (
    InvalidBlockMDP,
    InvalidPolicy,
    UnknownLayer,
    UnknownName,
    combination_lock,
    figure2_split,
    from_spec,
    homing_policy,
    relabel_states,
    to_spec,
    uniform_policy,
    with_float_numbers,
)
from kinematic.counterexamples.abstract_policies import best_class_policy_visitation
from kinematic.families import split_state, unequal_split
from kinematic.homing import eta, homing_policy_choices, lp_maximum_visitation
from kinematic.planning import block_rewards, psdp_exact
from kinematic.policies import state_policy, transfer_policy

LOCK = combination_lock(horizon=3, actions=2, seed=0)
STATES = "'s1a', 's1b', 's2a', 's2b', 's2c', 's3a', 's3b', 's3c'"


@pytest.mark.parametrize("function", [homing_policy, homing_policy_choices, eta,
                                      lp_maximum_visitation, LOCK.observations_of.__func__,
                                      lambda mdp, state: best_class_policy_visitation(
                                          mdp, [], state)])
def test_an_unknown_state_names_the_argument_and_the_closest_states(function):
    with pytest.raises(UnknownName) as error:
        function(LOCK, "s2d")
    assert str(error.value) == "state: unknown state 's2d' (did you mean 's2c' or 's2b' or 's2a'?)"


def test_a_name_far_from_every_state_lists_the_states_of_a_small_mdp():
    with pytest.raises(UnknownName) as error:
        homing_policy(LOCK, "s9")
    assert str(error.value) == f"state: unknown state 's9' (the states are {STATES})"


def test_a_name_in_the_wrong_case_suggests_the_right_one():
    with pytest.raises(UnknownName, match=r"^state: unknown state 'S2A' \(did you mean 's2a'\?\)$"):
        homing_policy(LOCK, "S2A")


@pytest.mark.parametrize(("choices", "default", "message"), [
    ({"s2x": "a1"}, None, "choices: unknown state 's2x' (did you mean 's2c' or 's2b' or 's2a'?)"),
    ({"s2a": "a3"}, None, "choices['s2a']: unknown action 'a3' (the actions are 'a1', 'a2')"),
    ({"s2a": {"a1": "1/2", "b2": "1/2"}}, None,
     "choices['s2a']: unknown action 'b2' (the actions are 'a1', 'a2')"),
    ({}, "a0", "default_action: unknown action 'a0' (the actions are 'a1', 'a2')"),
])
def test_state_policy_names_the_argument_at_fault(choices, default, message):
    with pytest.raises(UnknownName) as error:
        state_policy(LOCK, choices, default_action=default)
    assert str(error.value) == message


def test_state_policy_reads_numeric_strings_in_float_mode_too():
    # a float-mode MDP once took "1/2" to float(), a ValueError naming nothing
    policy = state_policy(with_float_numbers(LOCK), {"s1b": {"a1": "1/2", "a2": "1/2"}})
    assert policy.action_probabilities[0].tolist()[-1] == [0.5, 0.5]


@pytest.mark.parametrize("value", ["x", None, [1], True])
def test_state_policy_names_a_probability_that_is_no_number(value):
    with pytest.raises(InvalidPolicy, match=r"^choices\['s1b'\]\['a1'\]: "):
        state_policy(LOCK, {"s1b": {"a1": value, "a2": "1/2"}})


def test_relabel_refuses_a_key_that_is_not_a_state():
    with pytest.raises(UnknownName) as error:
        relabel_states(LOCK, {"s2d": "x"})
    assert str(error.value) == ("mapping: unknown state 's2d' (did you mean 's2c' or 's2b' or "
                                "'s2a'?)")


@pytest.mark.parametrize(("mapping", "message"), [
    ({"s2a": ""}, "mapping['s2a']: '' is not a non-empty string"),
    ({"s2a": "s2b", "s2b": "s2a"},
     "mapping: 's2a', the new name of state 's2b', is an observation of state 's2a'"),
])
def test_relabel_refuses_a_new_name_the_model_would_refuse(mapping, message):
    with pytest.raises(InvalidBlockMDP) as error:
        relabel_states(LOCK, mapping)
    assert str(error.value) == message


def test_transfer_names_an_observation_the_source_lacks():
    spec = to_spec(LOCK)
    spec["emissions"] = {"s2a": {"o2a": "1"}}
    renamed = from_spec(spec)
    with pytest.raises(UnknownName) as error:
        transfer_policy(uniform_policy(LOCK), LOCK, renamed)
    assert str(error.value) == ("target (layer 2, not in source): unknown observation 'o2a' "
                                "(did you mean 's2a'?)")


def test_splits_name_the_state_the_observations_and_the_predecessor():
    with pytest.raises(UnknownName, match=r"^state: unknown state 's2' \(did you mean"):
        split_state(LOCK, "s2", weight="1/2")
    with pytest.raises(UnknownName) as error:
        split_state(figure2_split(), "s2a", observations_a=["x2"])
    assert str(error.value) == "observations_a: unknown observation 'x2' (did you mean 'x2a'?)"
    with pytest.raises(UnknownName, match=r"^predecessor: unknown state 's1c' \(did you mean"):
        unequal_split(LOCK, "s2a", ("s1c", "a1"), ("1/4", "1/2"))
    with pytest.raises(UnknownName, match=r"^predecessor: unknown action 'a3' "):
        unequal_split(LOCK, "s2a", ("s1a", "a3"), ("1/4", "1/2"))
    with pytest.raises(ValueError, match=r"^predecessor: 's1a' is in layer 1, not layer 2, the "
                                         r"one before 's3a'$"):
        unequal_split(LOCK, "s3a", ("s1a", "a1"), ("1/4", "1/2"))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: block_rewards(LOCK, 0, [0, 0], 0),
     "layer 0 is out of range: this MDP has layers 1..3 (layers count from 1, as in the paper)"),
    (lambda: psdp_exact(LOCK, [[]] * 3, LOCK.rewards, 4),
     "last_layer 4 is out of range: this MDP has layers 1..3"),
])
def test_layer_numbers_count_from_1_and_name_their_range(call, message):
    with pytest.raises(UnknownLayer) as error:
        call()
    assert str(error.value) == message
