"""Partitions compare by their blocks: equal iff every layer's states are grouped alike."""

from kinematic import backward_ki_partition, combination_lock, ki_partition
from kinematic.partition import Partition


def test_partitions_of_equal_mdps_are_equal_and_hash_alike():
    first, second = combination_lock(4, 3, seed=1), combination_lock(4, 3, seed=1)
    assert ki_partition(first) == ki_partition(second)
    assert len({ki_partition(first), ki_partition(second)}) == 1
    released = combination_lock(4, 3, seed=1, variant="released")
    assert ki_partition(released) == ki_partition(first)  # rewards do not move KI classes


def test_partitions_with_different_blocks_or_states_differ():
    lock = combination_lock(4, 3, seed=1)
    merged = Partition.from_labels(lock, {s: 0 for layer in lock.layers for s in layer})
    assert merged != ki_partition(lock)
    assert backward_ki_partition(lock) != ki_partition(lock)  # layer 1: s1a, s1b merged
    assert ki_partition(combination_lock(3, 3, seed=1)) != ki_partition(lock)  # other layers
    assert ki_partition(lock) != "not a partition"
