"""Validation of Block MDPs: every error names its culprit (a state, an action, an entry)."""

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given

from kinematic.errors import InvalidBlockMDP
from kinematic.model import block_mdp, relabel_states, with_float_numbers
from kinematic.numbers import NumberMode
from kinematic.spec import from_spec, load_spec, to_spec
from kinematic.strategies import block_mdps

VALID = {
    "name": "fig2",
    "horizon": 3,
    "actions": ["a1", "a2"],
    "layers": [["s1"], ["s2a", "s2b"], ["s3"]],
    "start": {"s1": "1"},
    "transitions": {
        "s1": {"a1": {"s2a": "4/5", "s2b": "1/5"}, "a2": {"s2a": "4/5", "s2b": "1/5"}},
        "s2a": {"a1": {"s3": "1"}, "a2": {"s3": "1"}},
        "s2b": {"a1": {"s3": "1"}, "a2": {"s3": "1"}},
    },
    "emissions": {"s1": {"x1": "1"}},
    "rewards": {"s3": {"a1": "1"}},
}


FLOATS = json.loads(json.dumps(VALID).replace('"4/5"', "0.8").replace('"1/5"', "0.2"))
"""``VALID`` in float mode: its fractions written as floats, its ints kept."""

LINE = {"name": "line", "horizon": 2, "actions": ["a"], "layers": [["s1"], ["s2"]],
        "start": {"s1": "1"}, "transitions": {"s1": {"a": {"s2": "1"}}}}
"""A spec whose numbers are all ints."""


def mutated(change, spec=VALID) -> dict:
    spec = copy.deepcopy(spec)
    change(spec)
    return spec


def test_valid_spec_is_exact_and_round_trips():
    mdp = from_spec(VALID)
    assert mdp.mode.exact
    assert to_spec(mdp) == VALID
    assert mdp.transition_tensor(0)[0, 0, 0] == Fraction(4, 5)


def test_floats_switch_to_float_mode_with_the_same_structure():
    mdp = from_spec(FLOATS)
    assert not mdp.mode.exact
    assert mdp.transition_tensor(0)[0, 0, 0] == 0.8
    assert to_spec(mdp)["transitions"]["s1"]["a2"] == {"s2a": 0.8, "s2b": 0.2}


def set_in(path, value):
    def change(spec):
        target = spec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (set_in(["transitions", "s2a", "a2"], {"s3": "9/10"}),
         "transitions['s2a']['a2'] sums to 9/10, not 1"),
        (set_in(["transitions", "s1", "a1"], {"s2a": "6/5", "s2b": "-1/5"}),
         "transitions['s1']['a1']['s2b'] is negative (-1/5)"),
        (set_in(["transitions", "s1", "a1"], {"s3": "1"}),
         "transitions['s1']['a1']['s3']: 's3' is in layer 3, not the next layer 2"),
        (set_in(["emissions"], {"s2a": {"x": "1"}, "s2b": {"x": "1/2", "y": "1/2"}}),
         "emissions: observation 'x' is emitted by both 's2a' and 's2b' (supports must be "
         "disjoint)"),
        (lambda s: (s["transitions"]["s1"].update(a1={"s2a": "1"}, a2={"s2a": "1"})),
         "state 's2b' (layer 2) is unreachable: no policy visits it (eta = 0)"),
        (set_in(["layers", 2], ["s3", "s3x"]),
         "state 's3x' (layer 3) is unreachable: no policy visits it (eta = 0)"),
        (set_in(["start"], {"s11": "1"}), "start: unknown state 's11' (did you mean 's1'?)"),
        (set_in(["start"], {"s2a": "1"}), "start: state 's2a' is in layer 2, not layer 1"),
        (set_in(["transitions", "s1", "a3"], {"s2a": "1"}),
         "transitions['s1']: unknown action 'a3' (the actions are 'a1', 'a2')"),
        (lambda s: s["transitions"]["s1"].pop("a2"), "transitions['s1']['a2'] is missing"),
        (lambda s: s["transitions"].pop("s2b"), "transitions: state 's2b' (layer 2) has no entry"),
        (set_in(["transitions", "s1", "a1"], {"zz": "1"}),
         "transitions['s1']['a1']: unknown state 'zz' (the states are 's2a', 's2b')"),
        (set_in(["transitions", "s1", "a1"], {"s2c": "1"}),
         "transitions['s1']['a1']: unknown state 's2c' (did you mean 's2b' or 's2a'?)"),
        (set_in(["transitions", "s3"], {"a1": {"s1": "1"}}),
         "transitions['s3']: 's3' is in the last layer 3, which has no next layer"),
        (set_in(["emissions", "s9"], {"x": "1"}),
         "emissions: unknown state 's9' (the states are 's1', 's2a', 's2b', 's3')"),
        (set_in(["emissions", "S2a"], {"x": "1"}),
         "emissions: unknown state 'S2a' (did you mean 's2a'?)"),
        (set_in(["emissions", "s1"], {"x1": "1/2"}), "emissions['s1'] sums to 1/2, not 1"),
        (set_in(["emissions", "s1"], {"s3": "1"}),
         "emissions['s1']: observation 's3' is also the name of state 's3'"),
        (set_in(["rewards", "zz"], {"a1": "1"}), "rewards: unknown state or observation 'zz' "
         "(the states and observations are 's1', 's2a', 's2b', 's3', 'x1')"),
        (set_in(["rewards", "x11"], {"a1": "1"}),
         "rewards: unknown state or observation 'x11' (did you mean 'x1'?)"),
        (set_in(["rewards", "s3"], {"a7": "1"}),
         "rewards['s3']: unknown action 'a7' (the actions are 'a1', 'a2')"),
        (set_in(["layers"], [["s1"], [], ["s3"]]), "layer 2 is empty"),
        (set_in(["layers"], [["s1"], ["s2a", "s2b"], ["s2a"]]),
         "state 's2a' appears twice (layers 2 and 3)"),
        (set_in(["horizon"], 4), "spec: horizon is 4 but there are 3 layers"),
        (lambda s: s.pop("start"), "spec: missing key 'start'"),
        (lambda s: s.update(transitons=s.pop("transitions")),
         "spec: unknown key 'transitons' (did you mean 'transitions'?)"),
        (lambda s: s.update(Start=s.pop("start")),
         "spec: unknown key 'Start' (did you mean 'start'?)"),
        (set_in(["start", "s1"], "one"),
         "start['s1']: 'one' is not a number (use 'p/q', an int or a decimal)"),
        (set_in(["start", "s1"], float("nan")), "start['s1']: nan is not a finite number"),
        (set_in(["start", "s1"], [1]), "start['s1']: [1] is not a number"),
        (set_in(["rewards"], ["s3"]), "rewards must be a mapping, got list"),
        (set_in(["emissions"], ["s1"]), "emissions must be a mapping, got list"),
        (set_in(["emissions", "s1"], ["x1"]), "emissions['s1'] must be a mapping, got list"),
        (set_in(["transitions"], ["s1"]), "transitions must be a mapping, got list"),
        (set_in(["transitions", "zz"], {}),
         "transitions: unknown state 'zz' (the states are 's1', 's2a', 's2b', 's3')"),
        (set_in(["transitions", "s1"], ["a1"]), "transitions['s1'] must be a mapping, got list"),
        (set_in(["transitions", "s1", "a1"], ["s2a"]),
         "transitions['s1']['a1'] must be a mapping, got list"),
        (set_in(["emissions", "s1"], {"x1": "one"}),
         "emissions['s1']['x1']: 'one' is not a number (use 'p/q', an int or a decimal)"),
        (set_in(["emissions"], {"s2a": {"x": "0", "y": "1"}, "s2b": {"y": "1"}}),
         "emissions: observation 'y' is emitted by both 's2a' and 's2b' (supports must be "
         "disjoint)"),
        (set_in(["rewards", "s3"], ["a1"]), "rewards['s3'] must be a mapping, got list"),
        (set_in(["rewards", "s3"], {"a1": "one"}),
         "rewards['s3']['a1']: 'one' is not a number (use 'p/q', an int or a decimal)"),
        (set_in(["transitions", "s1", "a1"], {"s2a": "4/5", "s2b": "199999999999/1000000000000"}),
         "transitions['s1']['a1'] sums to 999999999999/1000000000000, not 1"),
        (set_in(["start"], {"s1": "999999999999/1000000000000"}),
         "start sums to 999999999999/1000000000000, not 1"),
        (set_in(["emissions", "s1"], {"x1": "999999999999/1000000000000"}),
         "emissions['s1'] sums to 999999999999/1000000000000, not 1"),
        (set_in(["transitions", "s2a", "a1", "s3"], True),
         "transitions['s2a']['a1']['s3']: True is a boolean, not a number"),
        (set_in(["actions"], ["a1", "a1"]), "action 'a1' appears twice"),
        (set_in(["actions"], []), "actions must be a non-empty list of action names"),
        (set_in(["actions"], "a1"), "actions must be a non-empty list of action names"),
        (set_in(["actions"], ["a1", ""]), "action name '' is not a non-empty string"),
        (set_in(["layers"], ["s1", ["s2a", "s2b"], ["s3"]]),
         "layer 1 must be a list of state names, got 's1'"),
        (set_in(["layers"], [["s1"], ["s2a", 7], ["s3"]]),
         "layer 2: state name 7 is not a non-empty string"),
        (set_in(["start"], ["s1"]), "start must be a mapping, got list"),
        (set_in(["start"], {"s1": "-1"}), "start['s1'] is negative (-1)"),
        (set_in(["emissions", "s1"], {}), "emissions['s1'] is empty"),
        (lambda s: s.update(emissions={"s3": {"x3a": "1/2", "x3b": "1/2"}},
                            rewards={"s3": {"a1": "1"}, "x3a": {"a2": "1"}}),
         "rewards: observation 'x3a' gets rewards from both 's3' and 'x3a'"),
        (set_in(["rewards", "s3", "a1"], {"1": "1/2", "0": "1/4"}),
         "rewards['s3']['a1'] sums to 3/4, not 1"),
        (set_in(["rewards", "s3", "a1"], {"1": "3/2", "0": "-1/2"}),
         "rewards['s3']['a1']['0'] is negative (-1/2)"),
        (set_in(["rewards", "s3", "a1"], {"1": "one", "0": "1/2"}),
         "rewards['s3']['a1']['1']: 'one' is not a number (use 'p/q', an int or a decimal)"),
        (set_in(["rewards", "s3", "a1"], {"0.1": "1/2", "1/10": "1/2"}),
         "rewards['s3']['a1']: values '0.1' and '1/10' are equal"),
        (set_in(["rewards", "s3", "a1"], {}),
         "rewards['s3']['a1']: a reward distribution needs at least one value"),
        (set_in(["rewards", "s3", "a1"], {"one": "1"}),
         "rewards['s3']['a1']: value: 'one' is not a number (use 'p/q', an int or a decimal)"),
    ],
)
def test_validation_errors_name_the_culprit(change, message):
    spec = mutated(change)
    with pytest.raises(InvalidBlockMDP) as error:
        from_spec(spec)
    assert str(error.value) == message


def test_layers_must_be_a_list_of_lists():
    for layers in ([], "s1"):
        with pytest.raises(InvalidBlockMDP) as error:
            block_mdp("x", layers, ["a"], {"s1": 1}, {})
        assert str(error.value) == "layers must be a non-empty list of lists of state names"


def test_a_float_start_beside_ints_puts_the_mdp_in_float_mode():
    mdp = from_spec(mutated(set_in(["start"], {"s1": 1.0}), LINE))
    assert not mdp.mode.exact and mdp.transition_tensor(0)[0, 0, 0] == 1.0


def test_float_probabilities_of_a_reward_distribution_alone_put_the_mdp_in_float_mode():
    mdp = from_spec(mutated(set_in(["rewards"], {"s2": {"a": {"1": 0.5, "0": 0.5}}}), LINE))
    assert not mdp.mode.exact and mdp.rewards[1][0, 0] == 0.5


def test_observations_after_a_zero_probability_one_are_kept():
    mdp = from_spec(mutated(set_in(["emissions", "s1"], {"x0": "0", "x1": "1/2", "x2": "1/2"})))
    assert mdp.observations[0] == ("x1", "x2")


@pytest.mark.parametrize(("path", "where"), [
    (["transitions", "s1", "a1"], "transitions['s1']['a1']"), (["start"], "start")])
def test_an_empty_float_distribution_sums_to_a_float_zero(path, where):
    spec = mutated(set_in(path, {}), FLOATS)
    with pytest.raises(InvalidBlockMDP) as error:
        from_spec(spec)
    assert str(error.value) == f"{where} sums to 0.0, not 1"


@pytest.mark.parametrize("path", [["transitions", "s1", "a1"], ["emissions", "s1"], ["start"]])
def test_a_float_sum_exactly_atol_short_of_one_is_accepted(path):
    """Transitions, emissions and the start: the tolerance is inclusive, twice it is not."""
    atol = 2.0**-30  # 0.5 + (0.5 - atol) is exactly 1 - atol in binary
    for short, accepted in ((atol, True), (2 * atol, False)):
        distribution = {"transitions": {"s2a": 0.5, "s2b": 0.5 - short},
                        "emissions": {"x1": 0.5, "x2": 0.5 - short},
                        "start": {"s1": 1 - short}}[path[0]]
        spec = mutated(set_in(path, distribution), FLOATS)
        if accepted:
            assert not from_spec(spec, atol=atol).mode.exact
        else:
            with pytest.raises(InvalidBlockMDP, match=f"sums to {1 - short!r}, not 1"):
                from_spec(spec, atol=atol)


def test_float_tolerance_for_sums():
    ok = mutated(set_in(["transitions", "s1", "a1"], {"s2a": 0.1 + 0.2, "s2b": 0.7}), FLOATS)
    from_spec(ok)
    bad = mutated(set_in(["transitions", "s1", "a1"], {"s2a": 0.3, "s2b": 0.6999}), FLOATS)
    with pytest.raises(InvalidBlockMDP, match=r"transitions\['s1'\]\['a1'\] sums to 0.9999"):
        from_spec(bad)


def test_malformed_json_names_the_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"name": "x",\n "horizon": }')
    with pytest.raises(InvalidBlockMDP, match=r"bad.json: malformed JSON at line 2, column 13"):
        load_spec(path)


def test_json_nan_literal_is_rejected(tmp_path):
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(VALID).replace('"4/5"', "NaN"))
    with pytest.raises(InvalidBlockMDP, match=r"transitions\['s1'\]\['a1'\]\['s2a'\]: nan"):
        load_spec(path)


def test_state_rewards_lift_to_every_observation():
    spec = mutated(set_in(["emissions", "s3"], {"x3a": "1/2", "x3b": "1/2"}))
    mdp = from_spec(spec)
    assert to_spec(mdp)["rewards"] == {"x3a": {"a1": "1"}, "x3b": {"a1": "1"}}


def test_a_stochastic_reward_has_its_mean_as_expected_reward_and_round_trips():
    spec = mutated(set_in(["rewards", "s3", "a1"], {"1/10": "1/2", "0": "1/4", "-1": "1/4"}))
    mdp = from_spec(spec)
    assert mdp.rewards[2][0, 0] == Fraction(1, 20) - Fraction(1, 4)
    assert mdp.reward_distributions == {
        (2, 0, 0): ((Fraction(1, 10), 0, -1), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)))}
    assert to_spec(mdp)["rewards"]["s3"]["a1"] == {"1/10": "1/2", "0": "1/4", "-1": "1/4"}
    assert to_spec(from_spec(json.loads(json.dumps(to_spec(mdp))))) == to_spec(mdp)
    floats = with_float_numbers(mdp)
    assert floats.reward_distributions == {(2, 0, 0): ((0.1, 0.0, -1.0), (0.5, 0.25, 0.25))}
    assert relabel_states(mdp, {"s3": "t"}).reward_distributions == mdp.reward_distributions
    coin = from_spec(mutated(set_in(["rewards", "s3", "a1"], {"1": "1/2", "0": "1/2"})))
    assert coin.reward_distributions == {(2, 0, 0): ((1, 0), (Fraction(1, 2), Fraction(1, 2)))}
    # Outcomes of probability 0 are dropped; a single remaining value is a plain reward.
    sure = from_spec(mutated(set_in(["rewards", "s3", "a1"], {"2": "1", "5": "0"})))
    assert sure.reward_distributions == {} and sure.rewards[2][0, 0] == 2


def test_python_api_accepts_fractions_and_ints():
    mdp = block_mdp(
        name="tiny",
        layers=[["s"], ["t"]],
        actions=["go"],
        start={"s": 1},
        transitions={"s": {"go": {"t": Fraction(1)}}},
    )
    assert mdp.mode.exact and mdp.observations == (("s",), ("t",))


def test_relabel_keeps_everything_but_names():
    mdp = from_spec(VALID)
    renamed = relabel_states(mdp, {"s2a": "left"})
    assert renamed.layers[1] == ("left", "s2b")
    with pytest.raises(InvalidBlockMDP) as error:
        relabel_states(mdp, {"s2a": "s2b"})
    assert str(error.value) == "mapping: states 's2a' and 's2b' would both be named 's2b'"


@given(block_mdps())
def test_spec_round_trip_is_a_normal_form(mdp):
    """to_spec(from_spec(to_spec(M))) == to_spec(M) for generated MDPs, via JSON text."""
    spec = to_spec(mdp)
    assert to_spec(from_spec(json.loads(json.dumps(spec)))) == spec


def test_with_float_numbers_keeps_name_structure_and_the_given_atol():
    exact = from_spec(VALID)
    floats = with_float_numbers(exact, atol=1e-6)
    assert (floats.name, floats.layers, floats.actions) == (exact.name, exact.layers, exact.actions)
    assert floats.mode == NumberMode(exact=False, atol=1e-6)
    for h in range(exact.horizon - 1):
        assert np.array_equal(floats.transition_tensor(h),
                              exact.transition_tensor(h).astype(np.float64))
    assert with_float_numbers(floats).transition_tensor(0).dtype == np.float64
