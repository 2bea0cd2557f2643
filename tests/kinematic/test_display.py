"""Objects print by names (``kinematic.display``): a small MDP as ``from_spec({...})`` around
its spec, a large one as a summary line; policies, canonical forms and cover reports by state,
observation and action names; Hypothesis and IPython show the same text."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis.vendor.pretty import pretty

from kinematic import (
    Policy,
    UnknownName,
    block_mdp,
    canonical_form,
    combination_lock,
    from_spec,
    homing_policy,
    ki_partition,
    policy_cover_alpha,
    to_spec,
    uniform_policy,
    with_float_numbers,
)
from kinematic.strategies import block_mdps

TWO = block_mdp("two", [["s"], ["t", "u"]], ["go", "stay"], {"s": 1},
                {"s": {"go": {"t": "1/2", "u": "1/2"}, "stay": {"t": 1}}},
                emissions={"s": {"x": "1/3", "y": "2/3"}})
"""``s`` emits ``x`` (1/3) and ``y`` (2/3)."""


def table(*rows: tuple[int | Fraction, ...]) -> np.ndarray:
    return np.array([[Fraction(p) for p in row] for row in rows], dtype=object)


MIXED = Policy((table((1, 0), (Fraction(1, 2), Fraction(1, 2))), table((0, 1), (1, 0))), TWO)
"""At ``x`` go, at ``y`` a coin; at ``t`` stay, at ``u`` go."""


def test_a_small_mdp_prints_as_from_spec_around_its_spec():
    assert repr(TWO) == (
        'from_spec({"name": "two", "horizon": 2, "actions": ["go", "stay"], "layers": [["s"], '
        '["t", "u"]], "start": {"s": "1"}, "transitions": {"s": {"go": {"t": "1/2", "u": "1/2"}, '
        '"stay": {"t": "1"}}}, "emissions": {"s": {"x": "1/3", "y": "2/3"}}})')


@given(block_mdps())
def test_the_repr_of_a_small_mdp_evaluates_to_the_same_mdp(mdp):
    assert to_spec(eval(repr(mdp), {"from_spec": from_spec})) == to_spec(mdp)


def test_a_float_mdp_with_its_own_tolerance_prints_it():
    floats = with_float_numbers(TWO, atol=1e-6)
    assert repr(floats).endswith('"emissions": {"s": {"x": 0.3333333333333333, "y": '
                                 '0.6666666666666666}}}, atol=1e-06)')
    assert eval(repr(floats), {"from_spec": from_spec}).mode == floats.mode


def test_an_mdp_of_more_than_40_states_prints_one_summary_line():
    lock = combination_lock(horizon=20, actions=3, seed=0)
    assert repr(lock) == (
        "<BlockMDP 'combolock-H20-K3-seed0' (exact): horizon 20, 59 states (2 to 3 per layer), "
        "59 observations, 3 actions a1, a2, a3; layer 1: s1a, s1b; layer 2: s2a, s2b, s2c; ...; "
        "layer 20: s20a, s20b, s20c>")


def test_a_policy_prints_by_state_where_its_observations_agree_and_by_observation_otherwise():
    assert repr(MIXED) == ("<Policy on 'two': layer 1: x -> go, y -> {go: 1/2, stay: 1/2}; "
                           "layer 2: t -> stay, u -> go>")
    assert repr(uniform_policy(TWO)) == ("<Policy on 'two': layer 1: s -> {go: 1/2, stay: 1/2}; "
                                         "layer 2: t -> {go: 1/2, stay: 1/2}, u -> "
                                         "{go: 1/2, stay: 1/2}>")


def test_a_long_policy_lists_its_first_40_decisions():
    lock = combination_lock(horizon=20, actions=3, seed=0)
    shown = repr(homing_policy(lock, "s20a"))
    assert shown.count(" -> ") == 40 and shown.endswith(", ... (59 observations in all)>")


def test_a_policy_without_its_mdp_says_how_to_print_it_by_names():
    assert repr(Policy(MIXED.action_probabilities)) == (
        "<Policy without its MDP: 2 layers of 2, 2 observations; built with mdp=... it prints "
        "by names>")


def test_policy_at_an_observation_is_its_row_and_at_a_state_the_emission_weighted_mix():
    assert MIXED.at("y") == {"go": Fraction(1, 2), "stay": Fraction(1, 2)}
    assert MIXED.at("s") == {"go": Fraction(2, 3), "stay": Fraction(1, 3)}  # 1/3 + 2/3 * 1/2
    assert MIXED.at("t") == {"go": 0, "stay": 1}


def test_policy_at_an_unknown_name_suggests_states_and_observations():
    with pytest.raises(UnknownName) as error:
        MIXED.at("yy")
    assert str(error.value) == "name: unknown state or observation 'yy' (did you mean 'y'?)"


def test_policy_at_needs_the_mdp():
    with pytest.raises(ValueError, match="built without its MDP"):
        Policy(MIXED.action_probabilities).at("x")


def test_a_policy_of_the_wrong_shape_for_its_mdp_is_refused():
    with pytest.raises(ValueError, match=r"^policy layer 2 has shape \(1, 2\), expected \(2, 2\)$"):
        Policy((MIXED.action_probabilities[0], table((1, 0))), TWO)


def test_a_cover_report_prints_alpha_and_the_states_below_1_lowest_first():
    lock = combination_lock(horizon=3, actions=2, seed=0)
    assert repr(policy_cover_alpha(lock, [uniform_policy(lock)])) == (
        "<CoverReport alpha 1/4; per layer 1, 1/2, 1/4; states below 1: s3a 1/4, s3b 1/4, "
        "s2a 1/2, s2b 1/2, s2c 1/2, s3c 3/4>")
    every = [homing_policy(lock, state) for state in lock.states]
    assert repr(policy_cover_alpha(lock, every)) == (
        "<CoverReport alpha 1; per layer 1, 1, 1; every state at 1>")


def test_hypothesis_and_ipython_print_as_repr_not_field_by_field():
    lock = combination_lock(horizon=3, actions=2, seed=0)
    report = policy_cover_alpha(lock, [uniform_policy(lock)])
    for value in (TWO, MIXED, canonical_form(lock), ki_partition(lock), report):
        assert pretty(value) == repr(value)
