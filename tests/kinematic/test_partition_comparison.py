"""compare_with: equal / finer / coarser / crossing, with witness pairs, against the pair sets."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinematic import InvalidPartition, Partition, UnknownLayer, combination_lock, figure2_split
from kinematic.partition import compare_with


def _together(partition: Partition, layers: range | list[int]) -> set[tuple[str, str]]:
    """Every pair of states (in state order) sharing a block, from the blocks."""
    return {pair for h in layers for block in partition.blocks(h + 1)
            for pair in itertools.combinations(block, 2)}


def test_the_four_relations_with_their_witnesses():
    lock = combination_lock(3, 2, seed=0)
    fine = Partition.from_blocks(lock, [["s2a", "s2b"]])
    coarse = Partition.from_blocks(lock, [["s2a", "s2b", "s2c"]])
    other = Partition.from_blocks(lock, [["s2b", "s2c"]])
    assert compare_with(fine, Partition.from_blocks(lock, [["s2b", "s2a"]])).relation == "equal"
    finer = compare_with(fine, coarse)
    assert (finer.relation, finer.merged_by_first, finer.merged_by_second) == (
        "finer", None, ("s2a", "s2c"))
    coarser = compare_with(coarse, fine)
    assert (coarser.relation, coarser.merged_by_first) == ("coarser", ("s2a", "s2c"))
    crossing = compare_with(fine, other)
    assert (crossing.relation, crossing.merged_by_first, crossing.merged_by_second) == (
        "crossing", ("s2a", "s2b"), ("s2b", "s2c"))
    # a layer where they agree
    assert compare_with(fine, other, layer=3).relation == "equal"


def test_refuses_other_states_and_bad_layers():
    lock = combination_lock(3, 2, seed=0)
    with pytest.raises(InvalidPartition, match="second: it partitions other states than first"):
        compare_with(Partition.from_blocks(lock, []),
                     Partition.from_blocks(figure2_split(), []))
    with pytest.raises(InvalidPartition, match="first must be a Partition"):
        compare_with("s1", Partition.from_blocks(lock, []))  # type: ignore[arg-type]
    with pytest.raises(UnknownLayer, match="layer 4 is out of range"):
        compare_with(Partition.from_blocks(lock, []), Partition.from_blocks(lock, []), layer=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=3, max_size=3),
       st.lists(st.integers(0, 2), min_size=3, max_size=3))
def test_agrees_with_the_pair_sets(first_labels, second_labels):
    """Kills a relation read the wrong way round, or a witness that is not one."""
    lock = combination_lock(3, 2, seed=0)  # layer 2 has three states
    states = lock.layers[1]

    def partition(labels: list[int]) -> Partition:
        names = {s: (h, 0) for h, layer in enumerate(lock.layers) for s in layer}
        names.update({s: (1, label) for s, label in zip(states, labels, strict=True)})
        return Partition.from_labels(lock, names)

    first, second = partition(first_labels), partition(second_labels)
    comparison = compare_with(first, second)
    mine, theirs = _together(first, range(3)), _together(second, range(3))
    expected = {(False, False): "equal", (False, True): "finer", (True, False): "coarser",
                (True, True): "crossing"}[bool(mine - theirs), bool(theirs - mine)]
    assert comparison.relation == expected
    assert (comparison.merged_by_first is None) == (not mine - theirs)
    assert comparison.merged_by_first is None or comparison.merged_by_first in mine - theirs
    assert comparison.merged_by_second is None or comparison.merged_by_second in theirs - mine
