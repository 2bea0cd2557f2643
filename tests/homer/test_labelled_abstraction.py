"""labelled_abstraction: a hand-made abstraction scored like a learned one."""

import numpy as np
import pytest

from homer.encoded import EncodedObservations
from homer.evaluate import evaluate_abstraction, exact_partitions
from homer.reference_learners import labelled_abstraction, reference_abstraction
from kinematic import combination_lock
from kinematic.planning import observation_labels


@pytest.fixture(scope="module")
def lock():
    return combination_lock(horizon=4, actions=3, seed=1)


def test_the_states_indices_give_the_oracles_classes(lock):
    states = labelled_abstraction(lock, [np.asarray(s) for s in lock.emission_state])
    oracle = reference_abstraction("oracle", lock)
    encoded = EncodedObservations(lock, None, 50, seed=3)
    for step in range(1, lock.horizon + 1):
        ids, vectors = encoded.step(step)
        assert np.array_equal(states(vectors, step), oracle(vectors, step))
        assert np.array_equal(states(vectors, step), np.asarray(lock.emission_state[step - 1])[ids])


def test_the_ki_partition_scores_no_merge_and_no_split_and_one_hand_merge_shows(lock):
    ki = exact_partitions(lock)["ki"]
    labels = [np.asarray(layer) for layer in observation_labels(lock, ki.labels)]
    report = evaluate_abstraction(lock, labelled_abstraction(lock, labels), samples=50)
    assert [(s["ki"].wrong_merges, s["ki"].splits) for s in report.steps] == [(0, 0)] * 4
    merged = [layer.copy() for layer in labels]
    merged[1][merged[1] == merged[1].max()] = 0  # step 2: the last KI class joins the first
    report = evaluate_abstraction(lock, labelled_abstraction(lock, merged), samples=50)
    assert [s["ki"].wrong_merges for s in report.steps] == [0, 1, 0, 0]


@pytest.mark.parametrize("labels, named", [
    ([[0, 1]], "one sequence per time step"),
    ([[0, 1], [0, 1], [0, 1, 2], [0, 1, 2]], r"labels\[1\] \(time step 2\)"),
    ([[0, 1], [0.5, 1, 2], [0, 1, 2], [0, 1, 2]], r"labels\[1\]"),
])
def test_labels_of_the_wrong_shape_or_type_are_refused_by_name(lock, labels, named):
    with pytest.raises(ValueError, match=named):
        labelled_abstraction(lock, labels)
