"""Quotients by any partition (Section 3, ``fig:mdp-canonical``, ``lem:bki-ratio``,
``lem:bki-policy-ratio``), against an independent reading of when the merge is defined."""

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from kinematic.errors import InvalidBlockMDP, InvalidPartition, UndefinedQuotient
from kinematic.families import combination_lock, figure2_split
from kinematic.homing import eta
from kinematic.inseparability import backward_ki_partition, ki_partition
from kinematic.model import block_mdp, with_float_numbers
from kinematic.partition import Partition
from kinematic.quotient import quotient
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import policy_value, trajectory_distribution
from tests.kinematic.test_homing import by_state

SMALL = block_mdps(max_horizon=3, max_width=3, max_actions=2, max_splits=2)


def defined_by_definition(mdp, partition) -> bool:
    """When the merge is defined, read off the spec pair by pair: members of a block reach each
    block of the next layer with the same probability for every action (so the merged
    T(C' | C, a) exists), and their incoming columns are proportional (all 2x2 cross products
    agree: lem:bki-ratio, so w(s | C) exists)."""
    spec = to_spec(mdp)
    transitions = {s: {a: {t: Fraction(p) for t, p in row.items()} for a, row in rows.items()}
                   for s, rows in spec["transitions"].items()}
    block = {s: (h, partition.labels[h][i]) for h, layer in enumerate(mdp.layers)
             for i, s in enumerate(layer)}
    incoming = defaultdict(dict)
    for source, rows in transitions.items():
        for action, row in rows.items():
            for target, p in row.items():
                incoming[target][source, action] = p

    def aggregated(state):
        row = defaultdict(Fraction)
        for action, targets in transitions.get(state, {}).items():
            for target, p in targets.items():
                row[action, block[target]] += p
        return {key: p for key, p in row.items() if p}

    for first, second in itertools.combinations(mdp.states, 2):
        if block[first] != block[second]:
            continue
        if aggregated(first) != aggregated(second):
            return False
        left, right = incoming[first], incoming[second]
        pairs = left.keys() | right.keys()
        if any(left.get(j, 0) * right.get(k, 0) != right.get(j, 0) * left.get(k, 0)
               for j, k in itertools.product(pairs, repeat=2)):
            return False
    return True


@st.composite
def any_partitions(draw, mdp, labels=3):
    """Random partitions: each state draws one of ``labels`` labels within its layer."""
    return Partition.from_labels(mdp, {s: draw(st.integers(0, labels - 1)) for s in mdp.states})


@st.composite
def refinements(draw, partition):
    """Random refinements of ``partition``: each state keeps its block or leaves with others."""
    mdp = partition.mdp
    return Partition.from_labels(mdp, {
        s: (int(partition.labels[h][i]), draw(st.booleans()))
        for h, layer in enumerate(mdp.layers) for i, s in enumerate(layer)})


def merged_blocks(mdp, partition):
    return [block for block in partition.blocks() if len(block) > 1]


def merge_two_blocks(mdp, partition, layer, first, second):
    """``partition`` with blocks ``first`` and ``second`` of ``layer`` (from 1) merged."""
    return Partition.from_labels(mdp, {
        s: (h, second if (h == layer - 1 and label == first) else label)
        for h, (states, labels) in enumerate(zip(mdp.layers, partition.labels, strict=True))
        for s, label in zip(states, labels.tolist(), strict=True)})


@given(SMALL)
def test_the_ki_partition_is_the_coarsest_partition_with_a_quotient(mdp):
    """Section 3: the canonical form is the coarsest quotient. By the pairwise reading of the
    definition, the KI partition's merge is defined, merging any two of its blocks of a layer is
    not, and quotient merges exactly its blocks. Catches a KI partition too fine or too coarse,
    and a quotient that merges other states than the blocks."""
    ki = ki_partition(mdp)
    assert defined_by_definition(mdp, ki)
    for layer in range(1, mdp.horizon + 1):
        for first, second in itertools.combinations(range(ki.blocks_per_layer[layer - 1]), 2):
            assert not defined_by_definition(mdp, merge_two_blocks(mdp, ki, layer, first, second))
    state_map = quotient(mdp, ki).state_map
    assert all(len({state_map[s] for s in block}) == 1 for block in ki.blocks())
    assert len(set(state_map.values())) == ki.number_of_blocks


@given(st.data())
def test_the_quotient_is_refused_exactly_when_the_definition_fails(data):
    """The toolkit checks that each block's members are forward and backward KI; the reading
    here is the other one of the module docstring (equal rows over the next layer's *blocks*,
    proportional columns): they agree. Catches a missing row or column check."""
    mdp = data.draw(SMALL)
    partition = data.draw(st.one_of(any_partitions(mdp),
                                    refinements(backward_ki_partition(mdp))))
    try:
        quotient(mdp, partition)
        refused = False
    except UndefinedQuotient:
        refused = True
    assert refused == (not defined_by_definition(mdp, partition))


@given(st.data())
def test_a_quotient_emits_the_same_observation_process_under_every_policy(data):
    """The trajectory distribution (x_1, a_1, ..., x_H, a_H) is the same, exactly, and so is the
    value. Catches wrong member shares w(s | C), wrong sums over the next blocks, rewards not
    kept on their observations."""
    mdp = data.draw(SMALL)
    partition = data.draw(refinements(backward_ki_partition(mdp)))
    assume(defined_by_definition(mdp, partition))
    merged = quotient(mdp, partition).mdp
    policy = data.draw(policies(mdp))
    assert trajectory_distribution(merged, policy) == trajectory_distribution(mdp, policy)
    assert policy_value(merged, policy) == policy_value(mdp, policy)  # rewards kept


@given(st.data())
def test_the_eta_of_a_merged_state_is_the_sum_over_its_members(data):
    """lem:abstraction-policy: members of a block are backward KI, so one policy maximises them
    all and eta(C) = sum eta(s)."""
    mdp = data.draw(SMALL)
    partition = data.draw(refinements(backward_ki_partition(mdp)))
    assume(defined_by_definition(mdp, partition))
    result = quotient(mdp, partition)
    original, merged = by_state(mdp, eta(mdp)), by_state(result.mdp, eta(result.mdp))
    for state, name in result.state_map.items():
        members = [s for s, n in result.state_map.items() if n == name]
        assert merged[name] == sum(original[s] for s in members), state


@given(st.data())
def test_every_refinement_of_the_ki_partition_has_a_quotient(data):
    """Merging only some KI classes (or parts of them) always works."""
    mdp = data.draw(SMALL)
    partition = data.draw(refinements(ki_partition(mdp)))
    result = quotient(mdp, partition)
    assert len(result.mdp.states) == partition.number_of_blocks


def test_merging_some_ki_classes_of_a_lock_keeps_the_others():
    """In this lock s3a, s3b (u_3 = v_3) and the last layer's s4a, s4b are KI; merging only the
    first pair leaves s4a, s4b apart and keeps eta."""
    mdp = combination_lock(horizon=4, actions=2, seed=1)
    assert ki_partition(mdp).same_block("s3a", "s3b")
    result = quotient(mdp, Partition.from_blocks(mdp, [["s3a", "s3b"]]))
    assert result.mdp.layers[2:] == (("s3a+s3b", "s3c"), ("s4a", "s4b", "s4c"))
    assert result.state_map["s3b"] == "s3a+s3b" and result.state_map["s4b"] == "s4b"
    assert eta(result.mdp, "s3a+s3b") == eta(mdp, "s3a") + eta(mdp, "s3b")


def forked_spec(rows: tuple[dict, dict], incoming: dict | None = None) -> dict:
    """s1 -> s2a, s2b (backward KI unless ``incoming`` says otherwise) -> s3a, s3b."""
    return {
        "name": "fork", "horizon": 3, "actions": ["go", "stay"],
        "layers": [["s1"], ["s2a", "s2b"], ["s3a", "s3b"]],
        "start": {"s1": 1},
        "transitions": {
            "s1": incoming or {"go": {"s2a": "1/4", "s2b": "3/4"},
                               "stay": {"s2a": "1/4", "s2b": "3/4"}},
            "s2a": rows[0], "s2b": rows[1],
        },
    }


SPLIT_ROWS = ({"go": {"s3a": 1}, "stay": {"s3b": 1}}, {"go": {"s3a": 1}, "stay": {"s3a": 1}})
EQUAL_ROWS = ({"go": {"s3a": 1}, "stay": {"s3b": 1}}, {"go": {"s3a": 1}, "stay": {"s3b": 1}})


def test_a_backward_ki_merge_of_states_with_different_rows_names_the_pair_and_the_action():
    mdp = from_spec(forked_spec(SPLIT_ROWS))
    assert backward_ki_partition(mdp).same_block("s2a", "s2b")
    with pytest.raises(UndefinedQuotient, match=(
            r"^quotient: states 's2a' and 's2b' of layer 2 cannot be merged: they are not "
            r"forward KI \(def:fki\): with action 'stay' they move to 's3a' with probability 0 "
            r"and 1, and one merged state cannot do both$")):
        quotient(mdp, backward_ki_partition(mdp))


def test_merging_states_that_are_not_backward_ki_names_the_pair_and_the_incoming_pairs():
    mdp = from_spec(forked_spec(EQUAL_ROWS, incoming={"go": {"s2a": "1/2", "s2b": "1/2"},
                                                      "stay": {"s2a": "1/4", "s2b": "3/4"}}))
    with pytest.raises(UndefinedQuotient, match=(
            r"^quotient: states 's2a' and 's2b' of layer 2 cannot be merged: they are not "
            r"backward KI \(def:bki\): their incoming transitions are not proportional, so "
            r"their shares of the merged state would depend on the policy: from \('s1', 'go'\) "
            r"1/2 and 1/2, from \('s1', 'stay'\) 1/4 and 3/4$")):
        quotient(mdp, Partition.from_blocks(mdp, [["s2a", "s2b"]]))


def test_a_block_mixing_layers_is_refused_before_any_merge():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^blocks\[0\] spans layers 1 and 2 \('s1' and "
                                               r"'s2a'\): a block holds states of one layer$"):
        Partition.from_blocks(mdp, [["s1", "s2a"]])


def test_a_partition_of_another_mdps_states_is_refused():
    mdp = figure2_split()
    other = combination_lock(horizon=3, actions=2, seed=0)
    with pytest.raises(InvalidPartition, match=r"^partition: it partitions other states than "
                                               r"those of 'figure2' \(layer 1: \{s1a, s1b\} in "
                                               r"the partition, \{s1\} in the MDP\)$"):
        quotient(mdp, ki_partition(other))


def test_a_partition_that_is_not_a_partition_object_is_refused_by_name():
    with pytest.raises(InvalidPartition, match=r"^partition must be a Partition "
                                               r"\(Partition\.from_blocks, .*got None$"):
        quotient(figure2_split(), None)


def names_clash_mdp(emitter):
    """Layer 2 has states a, b, x; ``emitter`` (a state) emits the observation 'a+b'."""
    return from_spec({
        "name": "clash", "horizon": 2, "actions": ["u"], "layers": [["s"], ["a", "b", "x"]],
        "start": {"s": 1}, "transitions": {"s": {"u": {"a": "1/4", "b": "1/4", "x": "1/2"}}},
        "emissions": {emitter: {"a+b": 1}}})


def test_a_merged_name_that_is_another_states_observation_is_refused_naming_both():
    """'a+b' as a state next to x emitting 'a+b' would not reload (from_spec refuses it)."""
    mdp = names_clash_mdp("x")
    with pytest.raises(InvalidBlockMDP, match=r"^quotient: the block \{a, b\} would be named "
                                              r"'a\+b', the name of an observation of the state "
                                              r"'x' \(a state may share its name only with its own "
                                              r"observations\); rename states"):
        quotient(mdp, Partition.from_blocks(mdp, [["a", "b"]]))


def test_a_merged_name_that_is_a_members_observation_is_kept_and_reloads():
    mdp = names_clash_mdp("a")
    merged = quotient(mdp, Partition.from_blocks(mdp, [["a", "b"]])).mdp
    assert merged.observations_of("a+b") == {"a+b": Fraction(1, 2), "b": Fraction(1, 2)}
    assert to_spec(from_spec(to_spec(merged))) == to_spec(merged)


def test_the_repr_gives_the_sizes_and_the_merged_states_only():
    mdp = figure2_split()
    assert repr(quotient(mdp, ki_partition(mdp))) == (
        "Quotient('figure2', 4 -> 3 states, merged: s2a+s2b)")


def test_the_repr_names_the_first_four_merged_states_and_counts_the_rest():
    lock = combination_lock(horizon=12, actions=2, seed=0)
    assert repr(quotient(lock, ki_partition(lock))) == (
        "Quotient('combolock-H12-K2-seed0', 35 -> 28 states, merged: s1a+s1b, s2a+s2b, "
        "s3a+s3b, s9a+s9b, ... (3 more))")


def test_the_singleton_partition_gives_the_same_mdp():
    mdp = figure2_split()
    singletons = Partition.from_labels(mdp, {s: s for s in mdp.states})
    result = quotient(mdp, singletons)
    assert to_spec(result.mdp) == to_spec(mdp)
    assert result.state_map == {s: s for s in mdp.states}


# --- float mode ------------------------------------------------------------------------------


@given(st.data())
def test_the_float_quotient_is_the_exact_one_in_floats(data):
    mdp = data.draw(SMALL)
    partition = data.draw(st.one_of(any_partitions(mdp),
                                    refinements(backward_ki_partition(mdp))))
    floats = with_float_numbers(mdp)
    float_partition = Partition.from_labels(floats, dict(zip(
        mdp.states, np.concatenate(partition.labels).tolist(), strict=True)))
    try:
        exact = quotient(mdp, partition)
    except UndefinedQuotient:
        with pytest.raises(UndefinedQuotient):
            quotient(floats, float_partition)
        return
    result = quotient(floats, float_partition)
    assert result.state_map == exact.state_map
    for h in range(mdp.horizon):
        assert np.allclose(result.mdp.emission_probability[h],
                           exact.mdp.emission_probability[h].astype(float), rtol=0, atol=1e-12)
    for h in range(mdp.horizon - 1):
        assert np.allclose(sp.csr_array(result.mdp.transitions[h]).toarray(),
                           exact.mdp.transitions[h].astype(float), rtol=0, atol=1e-12)


def near_twins(offsets: list[float], shares: list[float] | None = None):
    """Float MDP: with action ``a``, s1 -> s2_k with probabilities ``shares`` (with ``b``:
    uniformly); with either action s2_k -> s3_0 .. s3_3 with probabilities 0.25 + d, 0.25 + d,
    0.25 - d, 0.25 - d for the offsets d."""
    states = [f"s2_{k}" for k in range(len(offsets))]
    uniform = dict.fromkeys(states, 1 / len(states))
    row = {"s1": {"a": dict(zip(states, shares, strict=True)) if shares else uniform,
                  "b": uniform}}
    for state, d in zip(states, offsets, strict=True):
        targets = dict(zip(["s3_0", "s3_1", "s3_2", "s3_3"],
                           [0.25 + d, 0.25 + d, 0.25 - d, 0.25 - d], strict=True))
        row[state] = {"a": targets, "b": targets}
    return block_mdp("near twins", [["s1"], states, ["s3_0", "s3_1", "s3_2", "s3_3"]],
                     ["a", "b"], {"s1": 1.0}, row)


def test_float_members_within_atol_of_each_other_merge():
    """s2_0, s2_1 are KI within atol = 1e-9 (each entry of their rows 0.8e-9 apart), as in the
    float KI partition."""
    mdp = near_twins([0.0, 0.8e-9])
    assert ki_partition(mdp).same_block("s2_0", "s2_1")
    partition = Partition.from_blocks(mdp, [["s2_0", "s2_1"]])
    assert quotient(mdp, partition).mdp.layers[1] == ("s2_0+s2_1",)


def test_float_members_beyond_atol_are_refused():
    mdp = near_twins([0.0, 1.2e-9])
    with pytest.raises(UndefinedQuotient, match=r"^quotient: states 's2_0' and 's2_1' of layer "
                                                r"2 cannot be merged: they are not forward KI"):
        quotient(mdp, Partition.from_blocks(mdp, [["s2_0", "s2_1"]]))


def test_a_float_block_spreading_beyond_atol_is_refused_whatever_its_order():
    """The first member's rows lie within atol of both others', but theirs differ by 1.2e-9:
    refused (comparing every member with the first only would accept the block)."""
    mdp = near_twins([0.0, -0.6e-9, 0.6e-9])
    with pytest.raises(UndefinedQuotient, match=r"states 's2_1' and 's2_2' of layer 2 cannot be "
                                                r"merged: they are not forward KI"):
        quotient(mdp, Partition.from_blocks(mdp, [["s2_0", "s2_1", "s2_2"]]))


def test_a_float_block_with_incoming_shares_spreading_beyond_atol_is_refused():
    """Incoming shares 1/3 - d, 1/3 + d, 1/3 with action a (1/3 each with b): normalised
    columns 3d/4 from the middle one, 3d/2 = 1.35e-9 apart at d = 0.9e-9."""
    third, d = 1 / 3, 0.9e-9
    mdp = near_twins([0.0, 0.0, 0.0], shares=[third, third - d, third + d])
    with pytest.raises(UndefinedQuotient, match=r"states 's2_1' and 's2_2' of layer 2 cannot be "
                                                r"merged: they are not backward KI"):
        quotient(mdp, Partition.from_blocks(mdp, [["s2_0", "s2_1", "s2_2"]]))
