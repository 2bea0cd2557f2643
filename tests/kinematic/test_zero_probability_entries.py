"""An entry of probability 0 means "not there": in emissions, transitions, start and reward
distributions it changes no result (an observation listed with probability 0 is not emitted by
that state, and receives none of its rewards)."""

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinematic.analysis import analyze
from kinematic.cli import main
from kinematic.errors import InvalidBlockMDP
from kinematic.families import combination_lock
from kinematic.model import block_mdp
from kinematic.planning import optimal_values
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps

ZERO_EMISSION = {
    "name": "zero", "horizon": 2, "actions": ["a"],
    "layers": [["s0"], ["A", "B"]],
    "start": {"s0": "1"},
    "transitions": {"s0": {"a": {"A": "1/2", "B": "1/2"}}},
    "emissions": {"A": {"X": "0", "xa": "1"}, "B": {"X": "1"}},
    "rewards": {"A": {"a": "1"}},
}


def test_an_observation_of_probability_0_gets_none_of_its_states_reward():
    mdp = from_spec(ZERO_EMISSION)
    assert optimal_values(mdp).value == Fraction(1, 2)
    assert to_spec(mdp)["rewards"] == {"xa": {"a": "1"}}


def test_a_reward_on_an_observation_emitted_with_probability_0_only_is_refused():
    spec = json.loads(json.dumps(ZERO_EMISSION))
    spec["emissions"]["B"] = {"xb": "1"}
    spec["rewards"] = {"X": {"a": "1"}}
    with pytest.raises(InvalidBlockMDP, match=r"rewards: observation 'X' has probability 0 in "
                                              r"emissions\['A'\] and no state emits it"):
        from_spec(spec)


def test_an_emission_that_would_be_0_as_a_float_is_refused_naming_it():
    # the float 1.0 would put the MDP in float mode, where 1e-400 is 0.0: its observation would
    # lose the reward the spec gives it, silently
    with pytest.raises(InvalidBlockMDP, match=r"^numbers mix floats and exact fractions: "
                                              r"start\['A'\] is the float 1.0 but "
                                              r"emissions\['A'\]\['Z'\] is the exact about "
                                              r"1e-400, which a float would round; "):
        block_mdp("t", [["A"], ["B"]], ["a"], {"A": 1.0}, {"A": {"a": {"B": 1}}},
                  emissions={"A": {"X": 1, "Z": "1e-400"}, "B": {"Y": 1}},
                  rewards={"Z": {"a": 1}})


@st.composite
def with_zero_entries(draw: st.DrawFn, spec: dict) -> dict:
    """``spec`` with entries of probability ``"0"`` added: in emissions (observations of other
    states of any layer, names of states, new names), transitions (next states outside a row's
    support), start (layer-1 states outside its support) and reward distributions (a second
    value of probability 0)."""
    spec = json.loads(json.dumps(spec))
    states = [state for layer in spec["layers"] for state in layer]
    emissions = spec.setdefault("emissions", {})
    observations = [x for dist in emissions.values() for x in dist]
    names = observations + states + ["new"] + [s for s in states if s not in emissions]
    for state in draw(st.lists(st.sampled_from(states), max_size=4, unique=True)):
        dist = emissions.setdefault(state, {state: "1"})
        for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)):
            dist.setdefault(name, "0")
    for h, layer in enumerate(spec["layers"][:-1]):
        following = spec["layers"][h + 1]
        for state in layer:
            for row in spec["transitions"][state].values():
                for target in following:
                    if target not in row and draw(st.booleans()):
                        row[target] = "0"
    for state in spec["layers"][0]:
        if state not in spec["start"] and draw(st.booleans()):
            spec["start"][state] = "0"
    for per_action in spec.get("rewards", {}).values():
        for action, value in per_action.items():
            if isinstance(value, str) and draw(st.booleans()):
                other = "7" if value != "7" else "8"
                per_action[action] = {value: "1", other: "0"}
    return spec


@given(st.data(), block_mdps(max_splits=2))
def test_entries_of_probability_0_change_no_result(data, mdp):
    spec = to_spec(mdp)
    padded = from_spec(data.draw(with_zero_entries(spec)))
    assert to_spec(padded) == spec
    assert optimal_values(padded).value == optimal_values(mdp).value
    assert analyze(padded, policies=True) == analyze(mdp, policies=True)


# capsys is read out (and so emptied) once per command
@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_analyze_prints_the_same_json_for_a_spec_padded_with_zero_entries(tmp_path_factory, capsys,
                                                                           data):
    folder = tmp_path_factory.mktemp("padded")
    spec = to_spec(combination_lock(3, 2, 0))
    reports = []
    for name, document in [("spec", spec), ("padded", data.draw(with_zero_entries(spec)))]:
        path = folder / f"{name}.json"
        path.write_text(json.dumps(document))
        assert main(["analyze", str(path), "--json", "--policies"]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0] == reports[1]
