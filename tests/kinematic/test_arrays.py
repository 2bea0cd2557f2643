"""block_mdp_from_arrays: the same MDP as the spec route, and every malformed array refused
naming the layer, state and action."""

import numpy as np
import pytest
import scipy.sparse as sp

from kinematic.analysis import analyze
from kinematic.arrays import block_mdp_from_arrays
from kinematic.errors import InvalidBlockMDP
from kinematic.families import combination_lock, random_sparse_mdp
from kinematic.model import with_float_numbers
from kinematic.spec import from_spec, to_spec


def test_arrays_and_spec_give_the_same_mdp_and_analysis():
    mdp = random_sparse_mdp(horizon=5, width=6, actions=3, successors=2, seed=4)
    again = from_spec(to_spec(mdp))
    assert again.layers == mdp.layers and again.actions == mdp.actions
    for ours, theirs in zip(mdp.transitions, again.transitions, strict=True):
        assert abs(ours - theirs).max() == 0
    assert analyze(mdp) == analyze(again)


def test_the_lock_from_its_arrays_keeps_eta_and_rewards():
    lock = with_float_numbers(combination_lock(4, 3, 0))
    rebuilt = block_mdp_from_arrays("lock", lock.start, lock.transitions, actions=3,
                                    rewards=lock.rewards)
    assert [len(layer) for layer in rebuilt.layers] == [2, 3, 3, 3]
    assert analyze(rebuilt)["eta_min"] == analyze(lock)["eta_min"] == 0.5
    assert all(np.array_equal(a, b) for a, b in zip(rebuilt.rewards, lock.rewards, strict=True))


@pytest.mark.parametrize("spelled", [lambda value: value, lambda value: str(float(value))],
                         ids=["Fraction", "decimal string"])
def test_exact_numbers_and_numeric_strings_are_read_as_floats(spelled):
    # An exact MDP's tables are object arrays of Fractions; numpy reads numeric strings too.
    exact = combination_lock(4, 3, 0)
    floats = with_float_numbers(exact)

    def spell(array):
        return np.vectorize(spelled, otypes=[object])(array)

    rebuilt = block_mdp_from_arrays("lock", spell(exact.start),
                                    [spell(matrix) for matrix in exact.transitions], actions=3,
                                    rewards=[spell(reward) for reward in exact.rewards])
    for ours, theirs in zip(rebuilt.transitions, floats.transitions, strict=True):
        assert ours.dtype == np.float64 and abs(ours - theirs).max() == 0
    assert all(np.array_equal(a, b) for a, b in zip(rebuilt.rewards, floats.rewards, strict=True))


HALF = sp.csr_array(np.full((2, 2), 0.5))


@pytest.mark.parametrize("start, transitions, actions, rewards, message", [
    ([0.5, 0.5], [np.full((3, 2), 0.5)], 1, None,
     r"^transitions\[0\] \(layer 1 -> 2\) has shape \(3, 2\), expected \(2 states x 1 actions"),
    ([0.5, 0.5], [np.array([[0.5, 0.5], [1.5, -0.5]])], 1, None,
     r"^transitions\[0\] \(layer 1\): a negative probability$"),
    ([0.5, 0.5], [np.array([[0.5, 0.5], [np.nan, 0.5]])], 1, None,
     r"^transitions\[0\] \(layer 1\): a NaN or infinite probability$"),
    ([0.5, 0.5], [np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.4]])], 2, None,
     r"^T\(\. \| 's1_1', 'a2'\) \(layer 1\) sums to 0\.9, not 1 \(atol=1e-09\)$"),
    ([0.5, 0.4], [HALF], 1, None, r"^start sums to 0\.9, not 1"),
    ([[0.5, 0.5]], [HALF], 1, None, r"^start must be a non-empty 1-d array"),
    ([1.0, 0.0], [np.eye(2)], 1, None, r"^state 's1_1' \(layer 1\) is unreachable"),
    ([0.5, 0.5], [np.array([[1.0, 0.0], [1.0, 0.0]])], 1, None,
     r"^state 's2_1' \(layer 2\) is unreachable"),
    ([0.5, 0.5], [HALF], 0, None, r"^actions must be a positive int, got 0$"),
    ([0.5, 0.5], [HALF], 1, [np.zeros((2, 1))], r"^rewards has 1 layers, the MDP 2$"),
    ([0.5, 0.5], [HALF], 1, [np.zeros((2, 1)), np.full((2, 1), np.inf)],
     r"^rewards\[1\] must be finite of shape \(2, 1\)"),
    (["half", "0.5"], [HALF], 1, None,
     r"^start is not an array of numbers: could not convert string to float: .*'half'"),
    ([0.5, 0.5], [HALF, [["a", "0.5"], ["0.5", "0.5"]]], 1, None,
     r"^transitions\[1\] \(layer 2 -> 3\) is not an array of numbers: could not convert"),
    ([0.5, 0.5], [np.full((2, 2, 1), 0.5)], 1, None,
     r"^transitions\[0\] \(layer 1 -> 2\) must be a matrix \(2-d\), got shape \(2, 2, 1\)$"),
    ([0.5, 0.5], [sp.coo_array(np.full(2, 0.5))], 1, None,
     r"^transitions\[0\] \(layer 1 -> 2\) must be a matrix \(2-d\), got shape \(2,\)$"),
    ([0.5, 0.5], [HALF], 1, [np.zeros((2, 1)), [[None], ["one"]]],
     r"^rewards\[1\] \(layer 2\) is not an array of numbers: "),
])
def test_malformed_arrays_are_refused_naming_the_culprit(start, transitions, actions, rewards,
                                                          message):
    with pytest.raises(InvalidBlockMDP, match=message):
        block_mdp_from_arrays("bad", np.asarray(start), transitions, actions, rewards)


@pytest.mark.parametrize("width, successors", [(3, 2), (6, 5), (50, 5), (10_000, 5)])
def test_random_sparse_mdp_draws_distinct_successors_including_the_forced_one(width,
                                                                              successors):
    """Pair k of a layer reaches k mod width and successors - 1 other distinct states (the
    rejection path for few successors, the permutation path for many), with Dirichlet
    probabilities summing to one."""
    mdp = random_sparse_mdp(horizon=2, width=width, actions=2, successors=successors, seed=1)
    matrix = sp.csr_array(mdp.transitions[0])
    assert (np.diff(matrix.indptr) == successors).all()
    pairs = np.arange(2 * width)
    assert (matrix[pairs, pairs % width] > 0).all()
    assert np.allclose(matrix.sum(axis=1), 1.0)
