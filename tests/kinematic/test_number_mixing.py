"""The number-mode rule: a spec's numbers are exact or floats, never both; ints go with both
(``kinematic.number_mixing``)."""

from fractions import Fraction

import pytest

from kinematic import InvalidBlockMDP, block_mdp, combination_lock, from_spec, to_spec
from kinematic.model import with_float_numbers

HOW_TO_FIX = ("; write every number exactly (ints, 'p/q' or decimal strings such as '0.5') or "
              "every number as a float (an exact MDP converts with "
              "kinematic.with_float_numbers)")


def spec(start: dict, left: dict, right: dict, rewards: dict | None = None) -> dict:
    """Two layers: ``s`` goes to ``t`` or ``u`` with the distributions ``left`` (action ``a``)
    and ``right`` (action ``b``)."""
    result = {"name": "mixed", "horizon": 2, "actions": ["a", "b"], "layers": [["s"], ["t", "u"]],
              "start": start, "transitions": {"s": {"a": left, "b": right}}}
    if rewards is not None:
        result["rewards"] = rewards
    return result


def test_a_float_beside_a_fraction_string_is_refused_naming_both_entries():
    with pytest.raises(InvalidBlockMDP) as error:
        from_spec(spec({"s": "1"}, {"t": "1/3", "u": "2/3"}, {"t": 0.5, "u": 0.5}))
    assert str(error.value) == (
        "numbers mix floats and exact fractions: transitions['s']['b']['t'] is the float 0.5 "
        "but transitions['s']['a']['t'] is the exact '1/3', which a float would round"
        + HOW_TO_FIX)


def test_a_decimal_string_a_float_would_round_conflicts_with_a_float_start():
    with pytest.raises(InvalidBlockMDP, match=r"start\['s'\] is the float 1.0 but "
                                              r"transitions\['s'\]\['a'\]\['t'\] is the exact "
                                              r"'1/10', which a float would round"):
        from_spec(spec({"s": 1.0}, {"t": "0.1", "u": "0.9"}, {"t": "1"}))


def test_exact_numbers_a_float_holds_go_with_floats():
    mdp = from_spec(spec({"s": 1.0}, {"t": "0.5", "u": "1/2"}, {"t": 0.25, "u": "3/4"}))
    assert not mdp.mode.exact
    assert mdp.transition_tensor(0)[0].tolist() == [[0.5, 0.5], [0.25, 0.75]]


def test_a_dyadic_fraction_beyond_the_float_range_is_refused_beside_a_float():
    too_large = f"{2**1100 + 1}/2"  # a power-of-2 denominator, but no float holds it
    with pytest.raises(InvalidBlockMDP, match="which a float would round"):
        from_spec(spec({"s": 1.0}, {"t": "1"}, {"t": "1"}, {"t": {"a": too_large}}))


def test_a_fraction_beside_a_float_in_python_is_refused():
    with pytest.raises(InvalidBlockMDP, match=r"start\['s'\] is the float 0.9 but "
                                              r"start\['r'\] is the exact '1/10'"):
        block_mdp("mixed", [["s", "r"]], ["a"], {"s": 0.9, "r": Fraction(1, 10)}, {})


def test_a_float_reward_beside_exact_probabilities_is_refused():
    with pytest.raises(InvalidBlockMDP, match=r"rewards\['t'\]\['a'\] is the float 0.5 but "
                                              r"transitions\['s'\]\['a'\]\['t'\] is the exact"):
        from_spec(spec({"s": "1"}, {"t": "1/3", "u": "2/3"}, {"t": "1"}, {"t": {"a": 0.5}}))


def test_a_float_reward_value_is_named_as_a_value():
    with pytest.raises(InvalidBlockMDP, match=r"rewards\['t'\]\['a'\]: value 0.1 is the float "
                                              r"0.1 but"):
        block_mdp("mixed", [["s"], ["t", "u"]], ["a"], {"s": 1},
                  {"s": {"a": {"t": "1/3", "u": "2/3"}}}, rewards={"t": {"a": {0.1: "1"}}})


def test_an_exact_reward_probability_beside_a_float_is_named_by_its_value():
    with pytest.raises(InvalidBlockMDP, match=r"start\['s'\] is the float 1.0 but "
                                              r"rewards\['u'\]\['b'\]\['0'\] is the exact "
                                              r"'1/3', which a float would round"):
        from_spec(spec({"s": 1.0}, {"t": "1"}, {"u": "1"},
                       {"t": {"a": "1/2"}, "u": {"b": {"0": "1/3", "1": "2/3"}}}))


def test_ints_go_with_floats():
    mdp = from_spec(spec({"s": 1}, {"t": 0.25, "u": 0.75}, {"t": "1"}, {"t": {"a": "2"}}))
    assert not mdp.mode.exact and mdp.rewards[1][0, 0] == 2.0


def test_ints_go_with_fractions():
    mdp = from_spec(spec({"s": 1}, {"t": "1/4", "u": Fraction(3, 4)}, {"t": 1}))
    assert mdp.mode.exact and mdp.transition_tensor(0)[0, 0, 1] == Fraction(3, 4)


def test_all_float_and_all_exact_specs_still_load():
    assert from_spec(spec({"s": "1"}, {"t": "1/4", "u": "0.75"}, {"u": "1"})).mode.exact
    assert not from_spec(spec({"s": 1.0}, {"t": 0.25, "u": 0.75}, {"u": 1.0})).mode.exact


def test_a_float_mode_spec_with_stochastic_rewards_round_trips():
    """The values of a stochastic reward are JSON keys, strings: ``"0.1"`` beside float
    probabilities does not mix (the lock's anti-shaped reward, written by ``to_spec``)."""
    lock = with_float_numbers(combination_lock(horizon=3, actions=2, seed=0))
    written = to_spec(lock)
    assert any(isinstance(reward, dict) for per_action in written["rewards"].values()
               for reward in per_action.values())
    again = from_spec(written)
    assert not again.mode.exact and to_spec(again) == written
