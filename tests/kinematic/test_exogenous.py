"""Exogenous Block MDPs: the product of an endogenous Block MDP and an exogenous chain, the exact
check of a declared factorisation (which recovers both parts) and the endogenous partition."""

from fractions import Fraction

import pytest

from kinematic import (
    InvalidBlockMDP,
    NotFactorised,
    Partition,
    block_mdp,
    check_factorisation,
    combination_lock,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    figure2_canonical,
    ki_partition,
    quotient,
    with_float_numbers,
)
from kinematic.spec import from_spec, to_spec


def flips(p: str, horizon: int = 3):
    """One exogenous bit that flips with probability ``p`` at every step."""
    q = str(1 - Fraction(p))
    return exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                           {"0": {"0": q, "1": p}, "1": {"0": p, "1": q}}, horizon=horizon)


LOCK = combination_lock(3, 2, seed=0)


def labels(model):
    return ({z: parts[0] for z, parts in model.parts.items()},
            {z: parts[1] for z, parts in model.parts.items()})


def test_the_product_multiplies_start_transitions_and_keeps_the_rewards():
    noisy = exogenous_block_mdp(LOCK, flips("1/10")).mdp
    assert noisy.layers[0] == ("s1a|0", "s1a|1", "s1b|0", "s1b|1")
    spec, lock = to_spec(noisy), to_spec(LOCK)
    for nxt, p in lock["transitions"]["s1a"]["a1"].items():
        assert Fraction(spec["transitions"]["s1a|0"]["a1"][f"{nxt}|1"]) == \
            Fraction(p) * Fraction(1, 10)
    assert spec["start"] == {z: "1/4" for z in noisy.layers[0]}
    assert spec["rewards"]["s3a|0"] == spec["rewards"]["s3a|1"] == to_spec(LOCK)["rewards"]["s3a"]


def test_checking_the_product_recovers_both_parts():
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    recovered = check_factorisation(model.mdp, *labels(model))
    assert recovered.chain == model.chain
    assert recovered.parts == model.parts
    assert recovered.endogenous.layers == LOCK.layers
    for h, (mine, theirs) in enumerate(zip(recovered.endogenous.transitions, LOCK.transitions,
                                           strict=True)):
        assert (mine == theirs).all(), h
    # rewards: the expected ones (the lock's rewards are coins; their means are kept)
    assert recovered.endogenous.rewards[2].tolist() == LOCK.rewards[2].tolist()


def test_observations_of_the_endogenous_part_carry_the_exogenous_value():
    mdp = figure2_canonical()
    model = exogenous_block_mdp(mdp, flips("1/2", mdp.horizon))
    state = next(s for s in mdp.states if len(mdp.observations_of(s)) > 1)
    assert model.mdp.observations_of(f"{state}|1") == {
        f"{x}|1": p for x, p in mdp.observations_of(state).items()}


def test_the_endogenous_partition_groups_each_endogenous_state_and_works_as_a_partition():
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    partition = endogenous_partition(model)
    assert partition.kind == "endogenous"
    assert partition.blocks(3) == [["s3a|0", "s3a|1"], ["s3b|0", "s3b|1"], ["s3c|0", "s3c|1"]]
    assert partition == Partition.from_labels(model.mdp, labels(model)[0])
    # with i.i.d. noise the exogenous values of a state are forward KI, so the quotient by the
    # endogenous partition is defined: the lock again
    iid = exogenous_block_mdp(LOCK, flips("1/2"))
    merged = quotient(iid.mdp, endogenous_partition(iid))
    assert [len(layer) for layer in merged.mdp.layers] == [2, 3, 3]


@pytest.mark.parametrize(("flip", "classes"), [("1/10", [4, 6, 4]), ("1/2", [2, 3, 2])])
def test_ki_separates_exogenous_values_with_memory_and_merges_iid_ones(flip, classes):
    """One bit on the H = 3 lock: flipping with probability 1/10 it has memory and KI keeps its
    two values apart under every KI class of the lock (2, 3, 2 classes); flipping with 1/2 it is
    i.i.d. and KI is the lock's own, lifted."""
    model = exogenous_block_mdp(LOCK, flips(flip))
    partition = ki_partition(model.mdp)
    assert [len(partition.blocks(h)) for h in (1, 2, 3)] == classes
    assert [len(endogenous_partition(model).blocks(h)) for h in (1, 2, 3)] == [2, 3, 3]


def test_a_chain_is_checked_naming_the_entry():
    with pytest.raises(InvalidBlockMDP, match=r"^exogenous transitions\[1\]\['0'\]: the "
                                              r"probabilities sum to 9/10, not 1$"):
        exogenous_chain(["0", "1"], {"0": "1"}, {"0": {"0": "9/10"}, "1": {"1": "1"}},
                        horizon=2)
    with pytest.raises(InvalidBlockMDP, match=r"'2' is not a value of this layer"):
        exogenous_chain(["0", "1"], {"0": "1", "2": "0"}, {}, horizon=1)
    with pytest.raises(InvalidBlockMDP, match=r"^exogenous value '1' of layer 2 has probability "
                                              r"0: its product states would be unreachable$"):
        exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                        {"0": {"0": "1"}, "1": {"0": "1"}}, horizon=2)
    with pytest.raises(InvalidBlockMDP, match=r"needs horizon"):
        exogenous_chain(["0"], {"0": "1"}, {})
    with pytest.raises(InvalidBlockMDP, match=r"horizon 2, but the endogenous Block MDP"):
        exogenous_block_mdp(LOCK, flips("1/2", horizon=2))


def test_a_chain_given_layer_by_layer():
    chain = exogenous_chain([["x"], ["y", "z"]], {"x": 1},
                            [{"x": {"y": "1/3", "z": "2/3"}}])
    assert chain.layers == (("x",), ("y", "z"))
    assert chain.transitions[0]["x"] == {"y": Fraction(1, 3), "z": Fraction(2, 3)}


def two_by_two(weights, other=None):
    """Layer 1: one state; layer 2: four states ``ij``, reached from ``s`` with ``weights``
    under action ``a`` (``other`` under ``b``); a factorisation labels them ``(i, j)``."""
    return block_mdp("grid", [["s"], ["00", "01", "10", "11"]], ["a", "b"], {"s": 1},
                     {"s": {"a": weights, "b": other or weights}})


def test_a_broken_factorisation_is_refused_naming_the_entry():
    correlated = two_by_two({"00": "1/2", "11": "1/2"}, {"01": "1/2", "10": "1/2"})
    first = {z: z[0] for z in correlated.states if len(z) == 2} | {"s": "s"}
    second = {z: z[1] for z in correlated.states if len(z) == 2} | {"s": "-"}
    with pytest.raises(NotFactorised, match=r"^transitions\['s'\]\['a'\]\['00'\]: 1/2 is not "
                                            r"T_en\('0' \| 's', 'a'\) T_ex\('0' \| '-'\) = "
                                            r"1/2 \* 1/2 \(T_en as from 's', T_ex as from 's' "
                                            r"with action 'a'\)$"):
        check_factorisation(correlated, first, second)
    independent = two_by_two({"00": "1/4", "01": "1/4", "10": "1/4", "11": "1/4"})
    assert check_factorisation(independent, first, second).chain.layers == (("-",), ("0", "1"))
    with pytest.raises(NotFactorised, match=r"^layer 2: no state has the labels \('0', '2'\): "
                                            r"every pair of a layer's endogenous and exogenous "
                                            r"labels must be one state \(the latent space of a "
                                            r"layer is the product of the two parts'\)$"):
        check_factorisation(independent, first, second | {"11": "2"})
    with pytest.raises(NotFactorised, match=r"^layer 2: states '00' and '01' have the same "
                                            r"labels \('0', '0'\)$"):
        check_factorisation(independent, first, second | {"01": "0"})


def test_an_exogenous_part_that_the_action_moves_is_refused():
    moved = block_mdp("moved", [["s"], ["x", "y"]], ["a", "b"], {"s": 1},
                      {"s": {"a": {"x": 1}, "b": {"y": 1}}})
    with pytest.raises(NotFactorised, match=r"^transitions\['s'\]\['b'\]: the next exogenous "
                                            r"value is \{'y': 1\}, but from 's' with action 'a' "
                                            r"\{'x': 1\}: it depends on the action, so it is not "
                                            r"exogenous$"):
        check_factorisation(moved, {"s": "s", "x": "e", "y": "e"},
                            {"s": "-", "x": "x", "y": "y"})


def test_an_exogenous_part_that_the_endogenous_state_moves_is_refused():
    """From s the bit is fair, from t it stays 0: the chain is read off s."""
    moved = block_mdp("moved", [["s", "t"], ["e|0", "e|1"]], ["a"], {"s": "1/2", "t": "1/2"},
                      {"s": {"a": {"e|0": "1/2", "e|1": "1/2"}}, "t": {"a": {"e|0": 1}}})
    with pytest.raises(NotFactorised, match=r"^transitions\['t'\]\['a'\]: the next exogenous "
                                            r"value is \{'0': 1\}, but from 's' with action 'a' "
                                            r"\{'0': 1/2, '1': 1/2\}: it depends on the "
                                            r"endogenous state or the action, so it is not "
                                            r"exogenous$"):
        check_factorisation(moved, {"s": "s", "t": "t", "e|0": "e", "e|1": "e"},
                            {"s": "-", "t": "-", "e|0": "0", "e|1": "1"})


def test_parts_that_move_together_are_refused_naming_the_entry_off_the_product():
    """Each part's marginal is a chain of its own, but they move together: (e0, 0) or (e1, 1)
    under one action, (e0, 1) or (e1, 0) under the other."""
    together = block_mdp("together", [["s"], ["e0|0", "e0|1", "e1|0", "e1|1"]], ["a", "b"],
                         {"s": 1}, {"s": {"a": {"e0|0": "1/2", "e1|1": "1/2"},
                                          "b": {"e0|1": "1/2", "e1|0": "1/2"}}})
    with pytest.raises(NotFactorised, match=r"^transitions\['s'\]\['a'\]\['e0\|0'\]: 1/2 is "
                                            r"not T_en\('e0' \| 's', 'a'\) T_ex\('0' \| '-'\) "
                                            r"= 1/2 \* 1/2"):
        check_factorisation(together, {"s": "s", **{z: z[:2] for z in together.layers[1]}},
                            {"s": "-", **{z: z[-1] for z in together.layers[1]}})


def test_rewards_that_depend_on_the_exogenous_part_are_refused():
    independent = block_mdp("r", [["s"], ["00", "01"]], ["a"], {"s": 1},
                            {"s": {"a": {"00": "1/2", "01": "1/2"}}}, rewards={"01": {"a": 1}})
    with pytest.raises(NotFactorised, match=r"^rewards of '01' with action 'a': expected 1, but "
                                            r"0 for '00' \(both endogenous label '0'\): the "
                                            r"reward depends on the exogenous part$"):
        check_factorisation(independent, {"s": "s", "00": "0", "01": "0"},
                            {"s": "-", "00": "0", "01": "1"})


def test_numbers_that_mix_floats_and_fractions_are_refused_naming_the_part_they_are_in():
    """A float beside 7/10 in the chain is the chain's error; a float of the chain beside 1/3
    of the endogenous MDP names both parts (the product's entries were named, which the user
    never wrote); floats against the endogenous fractions put the product in float mode."""
    with pytest.raises(InvalidBlockMDP, match=r"^numbers mix floats and exact fractions: "
                                              r"exogenous start\['0'\] is the float 0\.5 but "
                                              r"exogenous transitions\[1\]\['0'\]\['0'\] is the "
                                              r"exact '9/10'"):
        exogenous_chain(["0", "1"], {"0": 0.5, "1": 0.5},
                        {"0": {"0": "9/10", "1": "1/10"}, "1": {"0": 0.5, "1": 0.5}}, horizon=3)
    thirds = from_spec({"name": "thirds", "horizon": 2, "actions": ["a"],
                        "layers": [["s", "t"], ["u"]], "start": {"s": "1/3", "t": "2/3"},
                        "transitions": {"s": {"a": {"u": 1}}, "t": {"a": {"u": 1}}}})
    half_float = exogenous_chain(["x", "y"], {"x": 0.5, "y": "1/2"},
                                 {"x": {"x": 0.75, "y": 0.25}, "y": {"x": 0.5, "y": 0.5}},
                                 horizon=2)
    with pytest.raises(InvalidBlockMDP, match=r"^numbers mix floats and exact fractions: "
                                              r"exogenous start\['x'\] \(the chain\) is the "
                                              r"float 0\.5 but the endogenous Block MDP's "
                                              r"start\['s'\] is the exact '1/3'"):
        exogenous_block_mdp(thirds, half_float)
    floats = exogenous_chain(["x", "y"], {"x": 0.5, "y": 0.5},
                             {"x": {"x": 0.75, "y": 0.25}, "y": {"x": 0.5, "y": 0.5}}, horizon=2)
    assert not exogenous_block_mdp(thirds, floats).mdp.mode.exact


def test_its_repr_gives_the_sizes_of_both_parts_per_layer():
    """The one-line summary: the product's state count, then the endogenous states and the
    exogenous values of each layer (a chain of 1, 2, 2 values: not the product's sizes)."""
    chain = exogenous_chain([["u"], ["v", "w"], ["v", "w"]], {"u": 1},
                            [{"u": {"v": "1/2", "w": "1/2"}},
                             {"v": {"v": "1/2", "w": "1/2"}, "w": {"v": "1/2", "w": "1/2"}}])
    assert repr(exogenous_block_mdp(LOCK, chain, name="noisy")) == (
        "<ExogenousBlockMDP 'noisy': 14 states = endogenous 2/3/3 x exogenous 1/2/2 per layer>")


def test_labels_are_checked_naming_the_part_and_the_state():
    independent = two_by_two({"00": "1/4", "01": "1/4", "10": "1/4", "11": "1/4"})
    first = {z: z[0] for z in independent.states if len(z) == 2} | {"s": "s"}
    second = {z: z[1] for z in independent.states if len(z) == 2} | {"s": "-"}
    with pytest.raises(InvalidBlockMDP, match=r"^endogenous labels must be a mapping, got list$"):
        check_factorisation(independent, ["0"], second)
    with pytest.raises(InvalidBlockMDP, match=r"^exogenous labels\['00'\]: \['x'\] is not "
                                              r"hashable$"):
        check_factorisation(independent, first, second | {"00": ["x"]})
    seven = block_mdp("seven", [["s"], [f"w{i}" for i in range(7)]], ["a"], {"s": 1},
                      {"s": {"a": {f"w{i}": "1/7" for i in range(7)}}})
    with pytest.raises(InvalidBlockMDP, match=r"^endogenous labels: no label for state\(s\) "
                                              r"'w0', 'w1', 'w2', 'w3', 'w4', ... \(2 more\)$"):
        check_factorisation(seven, {"s": "s"}, {"s": "s"})


def test_a_start_that_is_not_the_product_of_its_marginals_is_refused():
    start = block_mdp("start", [["00", "01", "10", "11"]], ["a"],
                      {"00": "1/2", "01": "1/6", "10": "1/6", "11": "1/6"}, {})
    with pytest.raises(NotFactorised, match=r"^start\['00'\]: 1/2 is not mu_en\('0'\) "
                                            r"mu_ex\('0'\) = 2/3 \* 2/3$"):
        check_factorisation(start, {z: z[0] for z in start.states},
                            {z: z[1] for z in start.states})


def test_exact_numbers_are_compared_exactly_and_floats_within_the_mdps_atol():
    """An exact product with one entry moved by 10^-12 does not factorise; a float MDP (atol
    10^-3) whose rows sum to 1.0004 does, and its parts keep that atol (with the default 10^-9
    their rows would not sum to 1); the float lock times a bit flipping with probability 0.1,
    whose products are rounded, factorises."""
    spec = to_spec(exogenous_block_mdp(LOCK, flips("1/10")).mdp)
    row = spec["transitions"]["s1a|0"]["a1"]
    first, second = sorted(row)[:2]
    row[first] = str(Fraction(row[first]) + Fraction(1, 10 ** 12))
    row[second] = str(Fraction(row[second]) - Fraction(1, 10 ** 12))
    moved = from_spec(spec)
    with pytest.raises(NotFactorised, match=r"^transitions\['s1a\|0'\]\['a2'\]: the next "
                                            r"exogenous value is \{'0': 9/10, '1': 1/10\}, but "
                                            r"from 's1a\|0' with action 'a1' \{'0': "
                                            r"900000000001/1000000000000, "):
        check_factorisation(moved, *labels(exogenous_block_mdp(LOCK, flips("1/10"))))
    loose = block_mdp("grid", [["s"], ["00", "01", "10", "11"]], ["a", "b"], {"s": 1},
                      {"s": {"a": {"00": 0.2502, "01": 0.2502, "10": 0.25, "11": 0.25},
                             "b": {"00": 0.5002, "01": 0.5002}}}, atol=1e-3)
    parts = check_factorisation(loose, {z: z[0] for z in loose.states} | {"s": "s"},
                                {z: z[-1] for z in loose.states} | {"s": "-"})
    assert parts.endogenous.mode.atol == 1e-3
    assert parts.chain.transitions[0]["-"] == {"0": 0.5002, "1": 0.5002}
    chain = exogenous_chain(["0", "1"], {"0": 0.5, "1": 0.5},
                            {"0": {"0": 0.9, "1": 0.1}, "1": {"0": 0.1, "1": 0.9}}, horizon=3)
    model = exogenous_block_mdp(with_float_numbers(LOCK), chain)
    assert check_factorisation(model.mdp, *labels(model)).parts == model.parts


def test_the_recovered_parts_are_named_after_the_mdp_and_its_labels():
    """The endogenous Block MDP is "<name> (endogenous)"; a label used in several layers names
    a state per layer, "label@h"; labels that print alike (1 and "1") are refused, naming the
    part and the layer."""
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    endogenous, exogenous = labels(model)
    assert check_factorisation(model.mdp, endogenous, exogenous).endogenous.name == \
        "combolock-H3-K2-seed0+exogenous (endogenous)"
    letters = {z: "e" + label[2:] for z, label in endogenous.items()}  # ea, eb, ec per layer
    assert check_factorisation(model.mdp, letters, exogenous).endogenous.layers == (
        ("ea@1", "eb@1"), ("ea@2", "eb@2", "ec@2"), ("ea@3", "eb@3", "ec@3"))
    alike = {z: 1 if z.endswith("1") else "1" for z in model.mdp.states}
    with pytest.raises(InvalidBlockMDP, match=r"^exogenous labels of layer 1: two labels print "
                                              r"alike \(\['1', '1'\]\)$"):
        check_factorisation(model.mdp, endogenous, alike)
    alike = endogenous | {z: 1 for z in model.mdp.layers[0] if z.startswith("s1a")} \
        | {z: "1" for z in model.mdp.layers[0] if z.startswith("s1b")}
    with pytest.raises(InvalidBlockMDP, match=r"^endogenous labels of layer 1: two labels print "
                                              r"alike \(\['1@1', '1@1'\]\)$"):
        check_factorisation(model.mdp, alike, exogenous)


def test_product_names_that_coincide_and_a_plain_mdp_are_refused_in_words():
    pipes = block_mdp("pipes", [["s", "s|1"]], ["a"], {"s": "1/2", "s|1": "1/2"}, {})
    chain = exogenous_chain(["1", "1|1"], {"1": "1/2", "1|1": "1/2"}, {}, horizon=1)
    with pytest.raises(InvalidBlockMDP, match=r"^exogenous product: the name 's\|1\|1' stands for "
                                              r"both \('s', '1\|1'\) and \('s\|1', '1'\) \(a name "
                                              r"holding '\|'\)$"):
        exogenous_block_mdp(pipes, chain)
    with pytest.raises(TypeError, match=r"^endogenous_partition needs an ExogenousBlockMDP "
                                        r"\(exogenous_block_mdp or check_factorisation\), got "
                                        r"BlockMDP$"):
        endogenous_partition(LOCK)


BAD_CHAINS = {  # (values, start, transitions, horizon) -> the whole message
    "a string": ("01", {}, {}, 2, "exogenous values: a non-empty list of names (or one list per "
                                  "layer), got '01'"),
    "no values": ([], {}, {}, 2, "exogenous values: a non-empty list of names (or one list per "
                                 "layer), got []"),
    "horizon True": (["0"], {"0": 1}, {"0": {"0": 1}}, True,
                     "exogenous chain: a stationary chain needs horizon, a positive int, got True"),
    "horizon 0": (["0"], {"0": 1}, {"0": {"0": 1}}, 0,
                  "exogenous chain: a stationary chain needs horizon, a positive int, got 0"),
    "horizon 1.5": (["0"], {"0": 1}, {"0": {"0": 1}}, 1.5,
                    "exogenous chain: a stationary chain needs horizon, a positive int, got 1.5"),
    "names and lists": ([["0"], "1"], {"0": 1}, [], None,
                        "exogenous values: names, or one list of names per layer, got [['0'], "
                        "'1']"),
    "steps missing": ([["0"], ["0"]], {"0": 1}, [], None,
                      "exogenous transitions: one mapping per step (1) for a chain given layer by "
                      "layer, got []"),
    "one mapping": ([["0"], ["0"]], {"0": 1}, {"0": {"0": 1}}, None,
                    "exogenous transitions: one mapping per step (1) for a chain given layer by "
                    "layer, got {'0': {'0': 1}}"),
    "repeated value": ([["0", "0"], ["1"]], {"0": 1}, [{}], None,
                       "exogenous values of layer 1: distinct non-empty names, got ['0', '0']"),
    "empty name": ([["0"], ["", "1"]], {"0": 1}, [{}], None,
                   "exogenous values of layer 2: distinct non-empty names, got ['', '1']"),
    "not a name": ([["0"], [1]], {"0": 1}, [{}], None,
                   "exogenous values of layer 2: distinct non-empty names, got [1]"),
    "start short": (["0", "1"], {"0": "9/10"}, {}, 1,
                    "exogenous start: the probabilities sum to 9/10, not 1"),
    "start 1 + 1e-12": (["0"], {"0": "1000000000001/1000000000000"}, {}, 1,
                        "exogenous start: the probabilities sum to 1000000000001/1000000000000, "
                        "not 1"),
    "start a list": (["0"], ["0"], {}, 1, "exogenous start must be a mapping, got list"),
    "start not a number": (["0"], {"0": "x"}, {}, 1,
                           "exogenous start['0']: 'x' is not a number (use 'p/q', an int or a "
                           "decimal)"),
    "start negative": (["0", "1"], {"0": "-1/2", "1": "3/2"}, {}, 1,
                       "exogenous start['0']: -1/2 is negative"),
    "start unknown": (["0", "1"], {"0": 1, "2": 0}, {}, 1,
                      "exogenous start: '2' is not a value of this layer ('0', '1')"),
    "step a list": ([["0"], ["0"]], {"0": 1}, [["x"]], None,
                    "exogenous transitions[1] must be a mapping, got list"),
    "rows missing": (["0", "1", "2"], {"0": 1}, {"0": {"0": 1}}, 2,
                     "exogenous transitions[1]: no row for value(s) '1', '2' of layer 1"),
    "float value within atol of 0": (["0", "1"], {"0": 1.0, "1": 1e-12}, {}, 1,
                                     "exogenous value '1' of layer 1 has probability 0: its "
                                     "product states would be unreachable"),
}


@pytest.mark.parametrize("case", list(BAD_CHAINS))
def test_a_malformed_chain_is_refused_with_the_whole_message(case):
    """An exact row summing to 1 + 10^-12 is refused too (exact rows are compared exactly)."""
    values, start, transitions, horizon, message = BAD_CHAINS[case]
    with pytest.raises(InvalidBlockMDP) as raised:
        exogenous_chain(values, start, transitions, horizon=horizon)
    assert str(raised.value) == message


def test_an_exact_value_of_tiny_probability_is_reachable():
    """Exact probabilities are compared with 0 exactly (a float one within atol, above)."""
    tiny = Fraction(1, 10 ** 12)
    chain = exogenous_chain(["0", "1"], {"0": 1 - tiny, "1": tiny}, {}, horizon=1)
    assert chain.start["1"] == tiny
