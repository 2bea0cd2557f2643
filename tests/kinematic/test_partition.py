"""Partitions by state name: the constructors, blocks by layer number, lookups and the repr."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic.errors import InvalidPartition, UnknownLayer, UnknownName
from kinematic.families import combination_lock, figure2_canonical, figure2_split
from kinematic.inseparability import backward_ki_partition
from kinematic.partition import Partition, check_partition_of
from kinematic.strategies import block_mdps

LOCK = combination_lock(horizon=4, actions=2, seed=0)


def test_blocks_count_layers_from_one():
    backward = backward_ki_partition(LOCK)
    assert backward.blocks(1) == [["s1a", "s1b"]]
    assert backward.blocks(4) == [["s4a", "s4b"], ["s4c"]]


def test_blocks_without_a_layer_lists_every_block_layer_by_layer():
    assert backward_ki_partition(figure2_split()).blocks() == [["s1"], ["s2a", "s2b"], ["s3"]]


@pytest.mark.parametrize("layer, message", [
    (0, r"^layer 0 is out of range: this MDP has layers 1\.\.4 \(layers count from 1, as in the "
        r"paper\)$"),
    (5, r"^layer 5 is out of range: this MDP has layers 1\.\.4$"),
])
def test_blocks_of_a_layer_out_of_range_names_the_valid_layers(layer, message):
    with pytest.raises(UnknownLayer, match=message):
        backward_ki_partition(LOCK).blocks(layer)


def test_same_block_names_the_unknown_argument_and_the_closest_states():
    partition = backward_ki_partition(figure2_split())
    with pytest.raises(UnknownName, match=r"^second: unknown state 's2c' \(did you mean 's2b' or "
                                          r"'s2a'\?\)$"):
        partition.same_block("s2a", "s2c")
    with pytest.raises(UnknownName, match=r"^first: unknown state 'zzz' \(the states are 's1', "
                                          r"'s2a', 's2b', 's3'\)$"):
        partition.same_block("zzz", "s1")


def test_the_repr_lists_blocks_by_name_per_layer():
    assert repr(backward_ki_partition(figure2_split())) == (
        "Partition(kind='backward', layer 1: {s1}; layer 2: {s2a, s2b}; layer 3: {s3})")


def test_the_repr_of_a_long_partition_is_summarised():
    lock = combination_lock(horizon=100, actions=2, seed=0)
    text = repr(backward_ki_partition(lock))
    assert text.startswith("Partition(kind='backward', 199 blocks of 299 states; layer 1: "
                           "{s1a, s1b}; layer 2: {s2a, s2b} {s2c}; ")
    assert "; ... 94 more layers ...; layer 99: {s99a, s99b} {s99c}; layer 100: " in text
    assert len(text) < 400


def test_the_repr_of_a_wide_layer_shows_its_first_blocks_and_members():
    mdp = figure2_split()
    wide = Partition("user", (tuple(f"s{i}" for i in range(20)),),
                     (np.array([0] * 10 + list(range(1, 11))),), mdp)
    assert repr(wide) == ("Partition(kind='user', layer 1: {s0, s1, s2, s3, ... (6 more)} "
                          "{s10} {s11} {s12} {s13} {s14} ... (5 more))")


def test_labels_not_numbered_by_first_appearance_are_refused():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^Partition: labels\[1\] must number the blocks "
                                               r"of layer 2 0, 1, \.\.\. in order of first "
                                               r"appearance, got \[1, 0\] \(use "
                                               r"Partition.from_labels"):
        Partition("user", mdp.layers, (np.array([0]), np.array([1, 0]), np.array([0])))


def test_labels_of_the_wrong_length_are_refused():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^Partition: labels\[1\] must be 2 integers, one "
                                               r"per state of layer 2, got \[0\]$"):
        Partition("user", mdp.layers, ([0], [0], [0]))


# --- from_labels -------------------------------------------------------------------------------


@given(st.data())
def test_from_labels_puts_states_of_one_layer_with_equal_labels_together(data):
    mdp = data.draw(block_mdps(max_splits=1))
    labels = {s: data.draw(st.sampled_from("xyz")) for s in mdp.states}
    partition = Partition.from_labels(mdp, labels)
    for first in mdp.states:
        for second in mdp.states:
            same_layer = mdp.state_location[first][0] == mdp.state_location[second][0]
            assert partition.same_block(first, second) == (
                same_layer and labels[first] == labels[second])


def test_from_labels_keeps_the_mdp_and_the_kind_given():
    mdp = figure2_split()
    partition = Partition.from_labels(mdp, dict.fromkeys(mdp.states, 0), kind="homer")
    assert partition.kind == "homer" and partition.mdp is mdp
    assert partition.blocks() == [["s1"], ["s2a", "s2b"], ["s3"]]


def test_from_labels_names_an_unknown_state_and_the_closest_ones():
    mdp = figure2_split()
    with pytest.raises(UnknownName, match=r"^labels: unknown state 's2' \(did you mean 's2b' or "
                                          r"'s2a'\?\)$"):
        Partition.from_labels(mdp, {"s1": 0, "s2": 0, "s2a": 0, "s2b": 0, "s3": 0})


def test_from_labels_names_a_label_that_is_not_hashable():
    labels = {"s1": 0, "s2a": [1], "s2b": [1], "s3": 0}
    with pytest.raises(InvalidPartition, match=r"^labels\['s2a'\]: the label \[1\] is not "
                                               r"hashable \(use str, int or tuple labels\)$"):
        Partition.from_labels(figure2_split(), labels)


def test_from_labels_names_the_states_without_a_label():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^labels: no label for state\(s\) 's2b', 's3' "
                                               r"\(every state of the MDP needs one\)$"):
        Partition.from_labels(mdp, {"s1": 0, "s2a": 0})


# --- from_blocks -------------------------------------------------------------------------------


def test_from_blocks_leaves_the_states_not_listed_alone():
    partition = Partition.from_blocks(LOCK, [["s3b", "s3a"]])
    assert partition.blocks(3) == [["s3a", "s3b"], ["s3c"]]
    assert partition.blocks(2) == [["s2a"], ["s2b"], ["s2c"]]
    assert partition.kind == "user" and partition.mdp is LOCK


@pytest.mark.parametrize("blocks, error, message", [
    ([["s2a", "s3a"]], InvalidPartition,
     r"^blocks\[0\] spans layers 2 and 3 \('s2a' and 's3a'\): a block holds states of one "
     r"layer$"),
    ([["s2a", "s2b"], ["s2c", "s2a"]], InvalidPartition,
     r"^state 's2a' is in blocks\[0\] and blocks\[1\]$"),
    ([["s2a", "s2a"]], InvalidPartition, r"^state 's2a' is twice in blocks\[0\]$"),
    ([["s2a"], []], InvalidPartition, r"^blocks\[1\] is empty$"),
    (["s2a"], InvalidPartition,
     r"^blocks\[0\] is the string 's2a', not a list of state names \(one block: "
     r"\[\['s2a', \.\.\.\]\]\)$"),
    ([["s2a", "s2d"]], UnknownName,
     r"^blocks\[0\]: unknown state 's2d' \(did you mean 's2c' or 's2b' or 's2a'\?\)$"),
])
def test_from_blocks_refuses_what_is_not_a_partition_by_layer(blocks, error, message):
    with pytest.raises(error, match=message):
        Partition.from_blocks(LOCK, blocks)


@pytest.mark.parametrize("blocks, message", [
    (None, r"^blocks must be a list of lists of state names, got None$"),
    (3, r"^blocks must be a list of lists of state names, got 3$"),
    ([["s2a"], None], r"^blocks\[1\] must be a list of state names, got None$"),
])
def test_from_blocks_names_an_argument_that_is_not_a_list(blocks, message):
    with pytest.raises(InvalidPartition, match=message):
        Partition.from_blocks(LOCK, blocks)


# --- from_observation_labels -------------------------------------------------------------------


def test_from_observation_labels_gives_each_state_its_observations_label():
    mdp = figure2_split()
    partition = Partition.from_observation_labels(mdp, [np.array([3]), np.array([5, 5]),
                                                        np.array([3])], kind="learned")
    assert partition.blocks() == [["s1"], ["s2a", "s2b"], ["s3"]]
    assert partition.kind == "learned"


def test_from_observation_labels_names_a_state_whose_observations_differ():
    mdp = figure2_canonical()  # s2 emits x2a and x2b
    with pytest.raises(InvalidPartition, match=r"^labels_per_layer\[1\]: state 's2' emits 'x2a' "
                                               r"\(label 0\) and 'x2b' \(label 1\): a partition "
                                               r"of states needs one label per state$"):
        Partition.from_observation_labels(mdp, [[0], [0, 1], [0]])


@pytest.mark.parametrize("labels, message", [
    (3, r"^labels_per_layer must be a list of sequences of labels, one per layer, got 3$"),
    (None, r"^labels_per_layer must be a list of sequences of labels, one per layer, got None$"),
    ([0, [0, 0], [0]], r"^labels_per_layer\[0\] must be a list of labels, one per observation "
                       r"of layer 1, got 0$"),
    ([[0], [[0], [0]], [0]], r"^labels_per_layer\[1\]\[0\]: the label \[0\] is not hashable"),
])
def test_from_observation_labels_names_an_argument_that_is_not_labels(labels, message):
    with pytest.raises(InvalidPartition, match=message):
        Partition.from_observation_labels(figure2_split(), labels)


def test_from_observation_labels_reads_labels_from_a_generator():
    partition = Partition.from_observation_labels(
        figure2_split(), (layer for layer in [[0], [7, 7], [0]]))
    assert partition.blocks(2) == [["s2a", "s2b"]]


def test_from_observation_labels_refuses_a_layer_of_the_wrong_length():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^labels_per_layer\[1\] \(layer 2\) must label "
                                               r"its 2 observations, got \[0\]$"):
        Partition.from_observation_labels(mdp, [[0], [0], [0]])


# --- check_partition_of ------------------------------------------------------------------------


def test_check_partition_of_returns_a_partition_of_the_mdps_states():
    partition = Partition.from_blocks(LOCK, [])
    assert check_partition_of(LOCK, partition) is partition


def test_check_partition_of_names_the_argument_that_is_not_a_partition():
    with pytest.raises(InvalidPartition, match=r"^partitions\[2\] must be a Partition "
                                               r"\(Partition\.from_blocks, .*got \[\['s2a'\]\]$"):
        check_partition_of(LOCK, [["s2a"]], "partitions[2]")


def test_check_partition_of_names_the_first_layer_with_other_states():
    shorter = combination_lock(horizon=3, actions=2, seed=0)
    message = (r"^partition: it partitions other states than those of 'combolock-H4-K2-seed0' "
               r"\(layer 4: \{\} in the partition, \{s4a, s4b, s4c\} in the MDP\)$")
    with pytest.raises(InvalidPartition, match=message):
        check_partition_of(LOCK, backward_ki_partition(shorter))
