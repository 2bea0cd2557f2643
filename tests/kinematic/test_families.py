"""Named Block MDPs (Section 7 lock, Figure fig:mdp-canonical) and splits."""

from fractions import Fraction

import pytest

from kinematic.families import (
    combination_lock,
    combination_lock_good_actions,
    figure2_split,
    split_state,
    unequal_split,
)
from kinematic.inseparability import backward_ki_partition, ki_partition


def test_combination_lock_structure():
    mdp = combination_lock(horizon=4, actions=5, seed=7)
    u, v = combination_lock_good_actions(4, 5, 7)
    assert mdp.layers[0] == ("s1a", "s1b") and mdp.layers[3] == ("s4a", "s4b", "s4c")
    assert mdp.actions == ("a1", "a2", "a3", "a4", "a5")
    assert list(mdp.start) == [Fraction(1, 2), Fraction(1, 2)]
    tensor = mdp.transition_tensor(0)
    good = mdp.actions.index(u[0])
    assert list(tensor[0, good]) == [Fraction(1, 2), Fraction(1, 2), 0]
    bad = (good + 1) % 5
    assert list(tensor[0, bad]) == [0, 0, 1]
    # anti-shaped reward 0.1 x Ber(1/2) on leaving the good chain; 1 for the last good action
    assert mdp.rewards[0][0, bad] == Fraction(1, 20) and mdp.rewards[0][0, good] == 0
    assert mdp.rewards[3][0, mdp.actions.index(u[3])] == 1
    assert mdp.rewards[3][1, mdp.actions.index(v[3])] == 1


def test_combination_lock_is_seeded():
    assert combination_lock_good_actions(20, 10, 3) == combination_lock_good_actions(20, 10, 3)
    assert combination_lock_good_actions(20, 10, 3) != combination_lock_good_actions(20, 10, 4)
    with pytest.raises(ValueError, match="at least 2 actions"):
        combination_lock(5, 1, 0)


def test_figure2_split_is_not_canonical():
    mdp = figure2_split()
    assert mdp.layers[1] == ("s2a", "s2b")
    assert list(mdp.transition_tensor(0)[0, 0]) == [Fraction(4, 5), Fraction(1, 5)]
    assert ki_partition(mdp).same_block("s2a", "s2b")


def test_split_errors_are_clear():
    mdp = figure2_split()
    with pytest.raises(ValueError, match="exactly one of"):
        split_state(mdp, "s1")
    with pytest.raises(ValueError, match="non-empty proper subset"):
        split_state(mdp, "s2a", observations_a=["x2a"])
    with pytest.raises(ValueError, match="unknown state 'zz'"):
        split_state(mdp, "zz", weight="1/2")
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        split_state(mdp, "s3", weight="1")


def test_unequal_split_is_backward_separable():
    lock = combination_lock(3, 2, seed=0)
    u, _ = combination_lock_good_actions(3, 2, 0)
    split = unequal_split(lock, "s2a", ("s1a", u[0]), ("1/4", "1/2"))
    assert not backward_ki_partition(split).same_block("s2a/a", "s2a/b")
