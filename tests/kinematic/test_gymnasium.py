"""from_gymnasium: the layers against a brute-force enumeration of paths through FrozenLake's
table, the rows and V* against the table itself, the number modes, and every refusal."""

from __future__ import annotations

import itertools
import json
import math
import tracemalloc
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from kinematic import (
    InvalidBlockMDP,
    TooLarge,
    UnknownName,
    finite_envs,
    from_gymnasium,
    optimal_values,
)
from kinematic.cli import main
from kinematic.finite_envs import InexactTable
from kinematic.spec import load_spec, to_spec

gymnasium = pytest.importorskip("gymnasium")
generate_random_map = pytest.importorskip("gymnasium.envs.toy_text.frozen_lake").generate_random_map


def make(env_id: str, **keywords: object) -> object:
    return gymnasium.make(env_id, **keywords)


def table_probability(value: float) -> Fraction:
    """The tests' own reading of a toy_text probability: the envs here use 1, 1/3, 1/300."""
    return Fraction(value).limit_denominator(1000)


def name(layer: int, state: int, ended: bool) -> str:
    return f"s{layer}_{state}" + ("_end" if ended else "")


def reachable_by_paths(env: object, horizon: int) -> list[set[str]]:
    """Per layer, the (state, ended) pairs at the end of some path of positive probability:
    every sequence of (action, outcome) pairs from every start state, one path at a time."""
    table, start = env.unwrapped.P, env.unwrapped.initial_state_distrib

    def end(first: int, path: tuple[int, ...]) -> tuple[int, bool] | None:
        state, ended = first, False
        for action, choice in zip(path[::2], path[1::2], strict=True):
            outcomes = table[state][action]
            if not ended:
                if choice >= len(outcomes) or outcomes[choice][0] == 0:
                    return None
                _, following, _, ended = outcomes[choice]
                state = int(following)
        return state, ended

    layers: list[set[str]] = [set() for _ in range(horizon)]
    for first in np.flatnonzero(start):
        for length in range(horizon):
            for path in itertools.product(list(table[0]), range(3), repeat=length):
                reached = end(int(first), path)
                if reached is not None:
                    layers[length].add(name(length + 1, *reached))
    return layers


def finite_horizon_value(env: object, horizon: int) -> Fraction:
    """V* by value iteration on the table: ``V_h(s) = max_a sum p (r + [not t] V_{h+1}(s'))``."""
    table, start = env.unwrapped.P, env.unwrapped.initial_state_distrib
    following = {state: Fraction(0) for state in table}
    for _ in range(horizon):
        following = {
            state: max(sum(table_probability(p) * (r + (0 if t else following[int(s)]))
                           for p, s, r, t in outcomes)
                       for outcomes in per_action.values())
            for state, per_action in table.items()}
    return sum(table_probability(p) * following[s] for s, p in enumerate(start) if p > 0)


@pytest.mark.parametrize("slippery", [True, False])
def test_the_layers_are_the_states_some_path_of_the_table_reaches(slippery: bool):
    env = make("FrozenLake-v1", is_slippery=slippery)
    mdp = from_gymnasium(env, horizon=5)
    assert [set(layer) for layer in mdp.layers] == reachable_by_paths(env, 5)


def test_each_row_is_the_tables_row_read_as_fractions_with_repeated_entries_summed():
    env = make("FrozenLake-v1")
    spec = to_spec(from_gymnasium(env, horizon=4))
    for state, per_action in spec["transitions"].items():
        layer, _, rest = state[1:].partition("_")
        index, ended = int(rest.removesuffix("_end")), rest.endswith("_end")
        for action, row in per_action.items():
            if ended:
                expected = {name(int(layer) + 1, index, True): Fraction(1)}
            else:
                expected = {}
                for p, following, _, terminated in env.unwrapped.P[index][int(action)]:
                    key = name(int(layer) + 1, int(following), terminated)
                    expected[key] = expected.get(key, 0) + table_probability(p)
            assert {s: Fraction(p) for s, p in row.items()} == expected
            assert sum(Fraction(p) for p in row.values()) == 1


@pytest.mark.parametrize("env_id, horizon", [
    ("FrozenLake-v1", 10), ("FrozenLake8x8-v1", 16), ("CliffWalking-v1", 15),
    ("CliffWalkingSlippery-v1", 6)])
def test_v_star_is_the_finite_horizon_value_of_the_table(env_id: str, horizon: int):
    env = make(env_id)
    mdp = from_gymnasium(env, horizon=horizon)
    assert mdp.mode.exact
    assert optimal_values(mdp).value == finite_horizon_value(env, horizon)


def test_a_terminated_transition_ends_in_its_state_absorbing_without_reward():
    spec = to_spec(from_gymnasium(make("CliffWalking-v1"), horizon=15))
    # the goal is 13 steps from the start: ended first in layer 14
    assert [s for s in spec["layers"][12] + spec["layers"][13] if "end" in s] == ["s14_47_end"]
    assert spec["transitions"]["s14_47_end"] == {a: {"s15_47_end": "1"} for a in "0123"}
    assert "s14_47_end" not in spec.get("rewards", {})


def test_a_state_entered_with_and_without_termination_has_both_versions():
    env = SimpleNamespace(P={0: {0: [(0.5, 1, 0, True), (0.5, 1, 0, False)]},
                             1: {0: [(1.0, 1, 0, False)]}}, initial_state_distrib=[1.0, 0.0])
    assert from_gymnasium(env, horizon=2).layers == (("s1_0",), ("s2_1", "s2_1_end"))


def test_taxi_starts_uniformly_on_its_300_start_states_exactly():
    mdp = from_gymnasium(make("Taxi-v4"), horizon=1)
    assert len(mdp.layers[0]) == 300
    assert set(mdp.start) == {Fraction(1, 300)}


def test_numbers_float_keeps_the_tables_floats():
    mdp = from_gymnasium(make("FrozenLake-v1"), horizon=2, numbers="float")
    assert not mdp.mode.exact
    assert set(mdp.transitions[0].data) == {0.3333333333333333, 0.33333333333333337,
                                            0.33333333333333337 + 0.3333333333333333}


ODD = SimpleNamespace(P={0: {0: [(0.123456789, 0, 0, False), (0.876543211, 0, 1, False)]}},
                      initial_state_distrib=[1.0])


def test_a_probability_that_is_no_simple_fraction_gives_float_mode_with_a_warning():
    with pytest.warns(InexactTable, match=r"P\[0\]\[0\]\[0\]: probability 0.123456789 is no "
                                          "simple fraction, so the MDP is in float mode"):
        mdp = from_gymnasium(ODD, horizon=2)
    assert mdp.transitions[0].toarray().tolist() == [[1.0]]
    assert mdp.rewards[0][0, 0] == 0.876543211


def test_numbers_exact_refuses_a_probability_that_is_no_simple_fraction():
    with pytest.raises(InvalidBlockMDP, match=r"cannot be exact: P\[0\]\[0\]\[0\]: "
                                              "probability 0.123456789 is no simple fraction"):
        from_gymnasium(ODD, horizon=2, numbers="exact")


def test_simple_fractions_that_do_not_sum_to_one_are_not_made_exact():
    # 1/2 + 4999/10000 is 1 within atol = 1e-3, not exactly: the floats are kept
    env = SimpleNamespace(P={0: {0: [(0.5, 0, 0, False), (0.4999, 0, 0, False)]}},
                          initial_state_distrib=[1.0])
    with pytest.warns(InexactTable, match=r"P\[0\]\[0\] sums to 9999/10000 read exactly"):
        mdp = from_gymnasium(env, horizon=2, atol=1e-3)
    assert mdp.transitions[0].toarray().tolist() == [[0.9999]]


def test_start_overrides_the_environments_start():
    mdp = from_gymnasium(make("FrozenLake-v1"), horizon=1, start={4: 0.25, 8: 0.75})
    assert dict(zip(mdp.layers[0], mdp.start, strict=True)) == {
        "s1_4": Fraction(1, 4), "s1_8": Fraction(3, 4)}


def test_an_environment_without_a_table_is_refused_naming_what_is_read():
    with pytest.raises(InvalidBlockMDP, match=r"^the environment 'CartPole-v1' \(CartPoleEnv\) "
                                              "has no finite transition table: from_gymnasium "
                                              r"reads env.unwrapped.P"):
        from_gymnasium(make("CartPole-v1"), horizon=3)


def table_with(outcome: tuple) -> SimpleNamespace:
    return SimpleNamespace(P={0: {0: [outcome, (0.5, 0, 0, False)]}},
                           initial_state_distrib=[1.0])


@pytest.mark.parametrize("env, message", [
    (table_with((math.nan, 0, 0, False)), r"P\[0\]\[0\]\[0\]: probability nan is not a finite"),
    (table_with((math.inf, 0, 0, False)), r"P\[0\]\[0\]\[0\]: probability inf is not a finite"),
    (table_with((-0.5, 0, 0, False)), r"P\[0\]\[0\]\[0\]: probability -0.5 is negative"),
    (table_with((0.5, 0, math.nan, False)), r"P\[0\]\[0\]\[0\]: reward nan is not a finite"),
    (table_with((0.5, 7, 0, False)), r"P\[0\]\[0\]\[0\]: next state 7 is not a state of P"),
    (table_with((0.5, 0, 0, "no")), r"P\[0\]\[0\]\[0\]: terminated 'no' is not a bool"),
    (table_with((0.5, 0, 0)), r"P\[0\]\[0\]\[0\] must be \(probability, next_state, reward, "),
    (table_with((0.25, 0, 0, False)), r"P\[0\]\[0\] sums to 0.75, not 1"),
    (SimpleNamespace(P={0: {0: [(1.0, 1, 0, False)]}, 1: {1: [(1.0, 1, 0, False)]}},
                     initial_state_distrib=[1.0, 0.0]),
     r"P\[1\] has the actions 1 but P\[0\] has 0: every state needs the same actions"),
    (table_with((0.5, [0], 0, False)), r"P\[0\]\[0\]\[0\]: next state \[0\] is not a state of P"),
    (table_with((0.5, {}, 0, False)), r"P\[0\]\[0\]\[0\]: next state \{\} is not a state of P"),
    (table_with((0.5, np.array([0]), 0, False)),
     r"P\[0\]\[0\]\[0\]: next state array\(\[0\]\) is not a state of P"),
    (table_with((0.5, 0, 0, False, 1)), r"P\[0\]\[0\]\[0\] must be \(probability, next_state, "),
    (table_with(("0.5", 0, 0, False)), r"P\[0\]\[0\]\[0\]: probability '0.5' is not a number"),
    (table_with((0.5, 0, "1", False)), r"P\[0\]\[0\]\[0\]: reward '1' is not a number"),
    (table_with((0.5, 0, 10**400, False)),
     r"P\[0\]\[0\]\[0\]: reward 1000.* is too large for a float"),
    (table_with((10**400, 0, 0, False)),
     r"P\[0\]\[0\]\[0\]: probability 1000.* is too large for a float"),
    (table_with((0.5, 0, np.float64("-inf"), False)),
     r"P\[0\]\[0\]\[0\]: reward np.float64\(-inf\) is not a finite"),
    (table_with((0.5, 0, 0, 1)), r"P\[0\]\[0\]\[0\]: terminated 1 is not a bool"),
    (table_with((0.5, 0, 0, None)), r"P\[0\]\[0\]\[0\]: terminated None is not a bool"),
    (SimpleNamespace(P={0: {0: [(1.0, 0, 0, False)]}, 1: {}}, initial_state_distrib=[1.0, 0]),
     r"^P\[1\] must be a non-empty mapping action -> list of outcomes, got \{\}"),
    (SimpleNamespace(P={0: [[(1.0, 0, 0, False)]]}, initial_state_distrib=[1.0]),
     r"^P\[0\] must be a non-empty mapping action -> list of outcomes, got \[\["),
    (SimpleNamespace(P={0: {0: {0: (1.0, 0, 0, False)}}}, initial_state_distrib=[1.0]),
     r"^P\[0\]\[0\] must be a non-empty list of \(probability, next_state, reward, "),
    (SimpleNamespace(P={0: {0: [(1.0, "0", 0, False)]}, "0": {0: [(1.0, 0, 0, False)]}},
                     initial_state_distrib={0: 1.0}),
     r"^P: the states 0 and '0' would have the same name '0' in the MDP \(states of mixed "),
    (SimpleNamespace(P={0: {0: [(1.0, 0, 0, True)]}, "0_end": {0: [(1.0, 0, 0, False)]}},
                     initial_state_distrib={0: 1.0}),
     r"^P: the state '0_end' would have the name of the ended version of the state 0"),
    (SimpleNamespace(P={0: {0: [(1.0, 0, 0, False)], "0": [(1.0, 0, 0, False)]}},
                     initial_state_distrib={0: 1.0}),
     r"^P\[0\]: the actions 0 and '0' would have the same name '0' in the MDP"),
    (SimpleNamespace(P=[]), r"env.unwrapped.P must be a non-empty mapping"),
    (SimpleNamespace(P={0: {0: [(1.0, 0, 0, False)]}}),
     r"has no initial_state_distrib: pass start="),
])
def test_a_malformed_table_is_refused_naming_the_entry(env: object, message: str):
    with pytest.raises(InvalidBlockMDP, match=message):
        from_gymnasium(env, horizon=2)


@pytest.mark.parametrize("start, message", [
    ({0: 0.5}, r"^start sums to 0.5, not 1"),
    ([0.5, 0.25] + [0.0] * 14, r"^start sums to 0.75, not 1"),
    ({16: 1.0}, r"^start: 16 is not a state of P"),
    ([1.0, 0.0], r"^start: one probability per state needs the states 0..1; P has 16 states"),
    ({0: -1.0, 1: 2.0}, r"^start\[0\]: probability -1.0 is negative"),
])
def test_a_start_distribution_that_is_not_one_is_refused(start: object, message: str):
    with pytest.raises(InvalidBlockMDP, match=message):
        from_gymnasium(make("FrozenLake-v1"), horizon=2, start=start)


def test_a_start_distribution_of_the_environment_that_does_not_sum_to_one_is_refused():
    env = SimpleNamespace(P={0: {0: [(1.0, 0, 0, False)]}}, initial_state_distrib=[0.5])
    with pytest.raises(InvalidBlockMDP,
                       match=r"^env.unwrapped.initial_state_distrib sums to 0.5, not 1"):
        from_gymnasium(env, horizon=2)


@pytest.mark.parametrize("horizon", [0, -3, 2.0])
def test_a_horizon_below_one_or_not_an_int_is_refused(horizon: object):
    with pytest.raises(ValueError, match=r"^horizon must be an int >= 1, got "):
        from_gymnasium(make("FrozenLake-v1"), horizon=horizon)


def test_a_tolerance_outside_its_range_is_refused_before_the_table_is_read():
    with pytest.raises(ValueError, match=r"^atol must be a finite number in \[0, 0.001\], got "
                                         "1.0"):
        from_gymnasium(make("FrozenLake-v1"), horizon=2, atol=1.0)


def test_an_unknown_number_mode_is_refused_with_the_closest():
    with pytest.raises(UnknownName, match=r"numbers: unknown number mode 'exactly' \(did you "
                                          "mean 'exact'"):
        from_gymnasium(make("FrozenLake-v1"), horizon=2, numbers="exactly")


def test_family_gymnasium_writes_the_spec_of_the_unrolled_environment(tmp_path):
    out = tmp_path / "lake.json"
    assert main(["family", "gymnasium", "--env", "FrozenLake-v1", "--env-arg",
                 "is_slippery=false", "--horizon", "4", "--out", str(out)]) == 0
    written = load_spec(out)
    expected = from_gymnasium(make("FrozenLake-v1", is_slippery=False), horizon=4)
    assert to_spec(written) == to_spec(expected)
    assert json.loads(out.read_text())["name"] == (
        "FrozenLake-v1(map_name='4x4', is_slippery=False)-H4")


@pytest.mark.parametrize("arguments, message", [
    ([], "error: family gymnasium needs --env, a gymnasium environment id"),
    (["--env", "NoSuchEnv-v0"], "error: --env NoSuchEnv-v0: "),
    (["--env", "FrozenLake-v1", "--env-arg", "slippery=1"],
     "error: --env-arg slippery=1: FrozenLake-v1 takes map_name, desc, is_slippery, "),
    (["--env", "CartPole-v1"], "error: the environment 'CartPole-v1' (CartPoleEnv) has no "),
])
def test_family_gymnasium_reports_a_bad_environment_in_one_line(arguments, message, capsys):
    assert main(["family", "gymnasium", *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_family_gymnasium_prints_the_float_mode_warning_as_one_line(capsys):
    assert main(["family", "gymnasium", "--env", "FrozenLake-v1", "--env-arg",
                 "success_rate=0.3712345678", "--horizon", "2"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: FrozenLake-v1(map_name='4x4', success_rate=0.3712345678)"
                          "-H2: P[0][0][0]: probability 0.3143827161 is no simple fraction")
    assert err.count("\n") == 1


def test_an_entry_of_probability_zero_leads_nowhere():
    env = SimpleNamespace(P={0: {0: [(1.0, 0, 0, False), (0.0, 1, 5, True)]},
                             1: {0: [(1.0, 1, 0, False)]}}, initial_state_distrib=[1.0, 0.0])
    assert from_gymnasium(env, horizon=2).layers == (("s1_0",), ("s2_0",))


def test_a_next_state_equal_to_a_state_of_another_type_is_that_state():
    # the table's key is 1.0, its entries and the start say 1: one state, named as the key
    env = SimpleNamespace(P={0: {0: [(1.0, 1, 0, False)]}, 1.0: {0: [(1.0, 0, 0, False)]}},
                          initial_state_distrib={1: 1.0})
    assert from_gymnasium(env, horizon=3).layers == (("s1_1.0",), ("s2_0",), ("s3_1.0",))


def test_a_horizon_too_large_for_memory_is_refused_before_anything_is_built():
    with pytest.raises(TooLarge, match=r"^FrozenLake-v1\(map_name='4x4'\)-H100000000 "
                                       r"\(horizon=100000000: about [0-9,]+ states, rewards and "
                                       r"transitions\) would need about .* TiB of memory; this "
                                       "machine has"):
        from_gymnasium(make("FrozenLake-v1"), horizon=10**8)


class Estimated(Exception):
    """Raised instead of building: the estimate was made."""


def estimate(env: object, horizon: int, monkeypatch) -> int:
    """The bytes :func:`from_gymnasium` estimates for ``env`` at ``horizon``."""
    def record(needed: int, _: str) -> None:
        raise Estimated(needed)

    monkeypatch.setattr(finite_envs, "check_memory", record)
    with pytest.raises(Estimated) as estimated:
        from_gymnasium(env, horizon=horizon)
    return estimated.value.args[0]


def test_the_estimate_of_a_long_horizon_continues_the_repeating_layers(monkeypatch):
    # 4x4 FrozenLake's layers repeat from about layer 8 on: 10^8 layers are counted, not built,
    # and each layer past the 100th adds as much as the 101st
    lake = make("FrozenLake-v1")
    first, second = estimate(lake, 100, monkeypatch), estimate(lake, 101, monkeypatch)
    assert estimate(lake, 10**8, monkeypatch) == first + (10**8 - 100) * (second - first)


def ring(states: int) -> SimpleNamespace:
    """One action, from each state ``s`` to ``s + 1`` (mod ``states``): a layer of one state."""
    return SimpleNamespace(P={s: {0: [(1.0, (s + 1) % states, 0, False)]}
                              for s in range(states)}, initial_state_distrib={0: 1.0})


def with_memory(monkeypatch, size: int) -> None:
    monkeypatch.setattr("kinematic.resources.physical_memory", lambda: size)
    monkeypatch.setattr(finite_envs, "physical_memory", lambda: size)


def test_the_estimate_counts_the_reachable_layers_not_the_table(monkeypatch):
    with_memory(monkeypatch, 10 * 2**20)  # 10 MiB: 17,476 units of 600 bytes
    # a table of 30,000 states, 3 of them reached in 3 layers (as a bound of 30,000 states
    # in each of 3 layers would not be)
    assert len(from_gymnasium(ring(30_000), horizon=3, numbers="float").layers) == 3
    # the ring's layers cycle with period 2000: 10^5 layers, 3 units each, counted exactly
    with pytest.raises(TooLarge, match=r"horizon=100000: about 300,000 states, rewards and "
                                       r"transitions\) would need about 171.7 MiB of memory"):
        from_gymnasium(ring(2000), horizon=100_000, numbers="float")


def test_layers_that_grow_without_repeating_are_counted_only_up_to_the_memory(monkeypatch):
    # from state s to s or s + 1: layer h holds h states, none repeats before layer 20,000
    spreading = SimpleNamespace(
        P={s: {0: [(0.5, s, 0, False), (0.5, min(s + 1, 19_999), 0, False)]}
           for s in range(20_000)}, initial_state_distrib={0: 1.0})
    with_memory(monkeypatch, 100 * 2**20)
    with pytest.raises(TooLarge, match=r"horizon=100000000: about [0-9,]+ states"):
        from_gymnasium(spreading, horizon=10**8, numbers="float")


@pytest.mark.parametrize("env_id, horizon, numbers", [
    ("FrozenLake-v1", 40, "exact"), ("FrozenLake8x8-v1", 20, "float"), ("Taxi-v4", 3, "exact")])
def test_the_memory_estimate_bounds_the_peak_of_building(env_id, horizon, numbers, monkeypatch):
    estimates = []
    monkeypatch.setattr(finite_envs, "check_memory", lambda needed, _: estimates.append(needed))
    env = make(env_id)
    tracemalloc.start()
    try:
        from_gymnasium(env, horizon=horizon, numbers=numbers)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimates[0] <= 10 * peak


def test_an_unseeded_random_map_is_refused_a_seeded_one_named_by_its_map():
    with pytest.raises(ValueError, match=r"^the environment 'FrozenLake-v1' \(FrozenLakeEnv\) "
                                         "was made with map_name=None and no desc: gymnasium "
                                         "drew its map at random without a seed"):
        from_gymnasium(make("FrozenLake-v1", map_name=None), horizon=2)
    named = from_gymnasium(make("FrozenLake-v1", map_name=None), horizon=2, name="lake-seed-7")
    assert named.name == "lake-seed-7"
    desc = generate_random_map(seed=7)
    seeded = from_gymnasium(make("FrozenLake-v1", map_name=None, desc=desc), horizon=2)
    assert seeded.name == f"FrozenLake-v1(map_name=None, desc={desc!r})-H2"
