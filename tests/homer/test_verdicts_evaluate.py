"""The numbers users read from ``homer evaluate`` and ``homer compare`` on hand-built classes,
policies, covers and run artefacts with known answers: no training, seconds in all (``make
mutants`` selects this file for the mutants of :mod:`homer.evaluate`,
:mod:`homer.policy_evaluation`, :mod:`homer.summary` and :mod:`homer.compare`).

The MDP :func:`fork` has one state on layer 1, four on layer 2 (``a`` and ``b`` alike, ``c`` and
``d`` apart from them and from each other going forward), two on layer 3; ``a`` and ``c`` emit
two observations each."""

import json
import math
import re
import warnings
from collections import Counter
from itertools import product

import numpy as np
import pytest

from homer.compare import (
    ComparisonReport,
    LinearPolicies,
    _majority,
    combined_classifier,
    compare_dynamics,
    compare_run,
    format_summary,
    run_abstractions,
    summary_legend,
)
from homer.encoded import EncodedObservations
from homer.encoders import HadamardNoise
from homer.evaluate import (
    MERGE_THRESHOLD,
    AbstractionComparison,
    AbstractionReport,
    Leak,
    MergeRate,
    compare_classes,
    compare_steps,
    cover_roll_in,
    evaluate_abstraction,
    exact_partitions,
    learned_classes,
    majority,
    merge_rates,
    pairwise_agreement,
)
from homer.policy_evaluation import (
    CoverReport,
    LatentPolicies,
    _action_rows,
    cover_step,
    eta_floats,
    evaluate_policies,
    float_model,
    read_cover,
)
from homer.sampler import LinearPolicy
from homer.summary import (
    ENDOGENOUS_LEGEND,
    Evaluation,
    abstraction_table,
    agreement_lines,
    class_text,
    cover_lines,
    format_evaluation,
    merge_lines,
    merge_text,
    steps_phrase,
    table_legend,
)
from homer.wording import command_line_wording
from kinematic.analysis import has_rewards
from kinematic.canonical import canonical_form
from kinematic.families import combination_lock
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.model import BlockMDP, block_mdp
from tests.homer.handmade import (
    ENCODER,
    abstraction,
    lock,
    perfect_artefacts,
    policy,
    reader,
)

# Layer 2's observations, in order, and the state emitting each.
OBSERVATIONS = ["a1", "a2", "b1", "c1", "c2", "d"]


def fork(rewards: bool = True) -> BlockMDP:
    return block_mdp(
        "fork", [["s"], ["a", "b", "c", "d"], ["e", "f"]], ["x", "y"], {"s": 1},
        {"s": {"x": {"a": "1/2", "b": "1/2"}, "y": {"c": "1/2", "d": "1/2"}},
         "a": {"x": {"e": 1}, "y": {"f": 1}}, "b": {"x": {"e": 1}, "y": {"f": 1}},
         "c": {"x": {"f": 1}, "y": {"e": 1}}, "d": {"x": {"e": "1/2", "f": "1/2"}, "y": {"e": 1}}},
        emissions={"a": {"a1": "1/2", "a2": "1/2"}, "b": {"b1": 1},
                   "c": {"c1": "1/4", "c2": "3/4"}},
        rewards={"e": {"x": 1}} if rewards else None)


EACH_STATE = [["a"], ["b"], ["c"], ["d"]]


def labelled(labels: dict[str, list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Observation ids and learned classes of layer 2: ``labels[o]`` the classes of the
    encodings of observation ``o`` (observations left out have no encodings)."""
    ids = [OBSERVATIONS.index(o) for o, classes in labels.items() for _ in classes]
    return np.array(ids), np.array([c for classes in labels.values() for c in classes])


def compared(labels: dict[str, list[int]], exact: list[list[str]] = EACH_STATE,
             roll_in: np.ndarray | None = None) -> AbstractionComparison:
    ids, learned = labelled(labels)
    return compare_classes(fork(), 2, "ki", exact, ids, learned, roll_in)


# --- homer/evaluate.py --------------------------------------------------------------------

def test_each_observation_is_assigned_to_the_class_most_of_its_encodings_fall_into():
    c = compared({"a1": [5, 5, 5, 7], "a2": [7, 7, 7, 5], "b1": [9, 9, 9, 9],
                  "c1": [9, 5, 5, 5], "c2": [5, 5, 5, 5], "d": [7, 7, 7, 7]})
    assert c.assignment == {"a1": 5, "a2": 7, "b1": 9, "c1": 5, "c2": 5, "d": 7}
    assert all(type(v) is int for v in c.assignment.values())
    assert c.learned_classes == [5, 7, 9]
    assert c.misassigned == 3 / 24
    # a split into 5 and 7; 5 holds a and c, 7 holds a and d: two majority wrong merges; by
    # merge rates also b and c (an eighth of c in 9, b's class: test_merge_rates_...)
    assert c.splits == 1 and c.majority_wrong_merges == 2 and c.wrong_merges == 3


def test_a_tie_goes_to_the_smallest_class():
    c = compared({"a1": [3, 3, 1, 1], "b1": [4, 2, 2, 4], "d": [6, 6, 6, 6]})
    assert c.assignment == {"a1": 1, "b1": 2, "d": 6}
    assert c.misassigned == 4 / 12


def test_wrong_merges_count_every_pair_of_exact_classes_in_one_learned_class():
    c = compared({"a1": [0], "b1": [0], "c1": [0], "d": [1]})
    assert c.wrong_merges == c.majority_wrong_merges == 3 and c.splits == 0
    c = compared({"a1": [0], "a2": [0], "b1": [0], "c1": [0], "c2": [0], "d": [0]})
    assert c.wrong_merges == c.majority_wrong_merges == 6
    c = compared({"a1": [0], "b1": [0], "c1": [2], "d": [2]})
    assert c.wrong_merges == c.majority_wrong_merges == 2


def test_observations_of_one_exact_class_together_are_no_wrong_merge():
    exact = [["a", "b"], ["c"], ["d"]]
    c = compared({"a1": [0], "a2": [0], "b1": [0], "c1": [1], "d": [2]}, exact)
    assert c.wrong_merges == c.majority_wrong_merges == 0 and c.splits == 0
    c = compared({"a1": [0], "a2": [1], "b1": [2], "c1": [3], "c2": [3], "d": [3]}, exact)
    assert c.wrong_merges == c.majority_wrong_merges == 1 and c.splits == 1


def test_the_confusion_matrix_has_a_column_for_every_exact_class_even_unseen():
    c = compared({"a1": [4, 4, 8], "c2": [8, 8, 8]}, [["d"], ["a"], ["b"], ["c"]])
    assert c.confusion.tolist() == [[0, 2, 0, 0], [0, 1, 0, 3]]
    assert c.confusion.dtype == np.int64
    assert c.exact_classes == [["d"], ["a"], ["b"], ["c"]]
    assert c.purity == 5 / 6
    assert c.kind == "ki"


def test_purity_and_adjusted_rand_index():
    perfect = compared({"a1": [1, 1], "b1": [2, 2], "c1": [3], "d": [4]})
    assert perfect.purity == 1.0 and perfect.adjusted_rand_index == 1.0
    one = compared({"a1": [0, 0], "b1": [0, 0]})
    assert one.purity == 0.5 and one.adjusted_rand_index == 0.0
    assert type(one.purity) is float and type(one.adjusted_rand_index) is float


def brute_force_agreement(states, shares, weights) -> float:
    """The probability of agreement summed over every pair of observations and classes."""
    total = 0.0
    for x, y in product(range(len(states)), repeat=2):
        for i, j in product(range(shares.shape[1]), repeat=2):
            if (states[x] == states[y]) == (i == j):
                total += weights[x] * weights[y] * shares[x, i] * shares[y, j]
    return total


def test_pairwise_agreement_is_the_probability_of_agreeing_on_a_pair():
    states = np.array([0, 0, 1, 2])
    shares = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [0.1, 0.2, 0.7]])
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    assert pairwise_agreement(states, shares, weights) == pytest.approx(
        brute_force_agreement(states, shares, weights), abs=1e-12)
    assert pairwise_agreement(np.array([0, 1]), np.eye(2), np.array([0.5, 0.5])) == 1.0


def test_compare_classes_adds_the_agreement_over_the_roll_in():
    roll_in = np.array([0.1, 0.2, 0.3, 0.15, 0.05, 0.2])
    c = compared({"a1": [0, 0, 1, 1], "a2": [2, 2, 2, 2], "b1": [0, 1, 1, 1],
                  "c1": [3, 3, 3, 3], "c2": [1, 3, 3, 3], "d": [0, 3, 3, 3]}, roll_in=roll_in)
    shares = np.array([[0.5, 0.5, 0, 0], [0, 0, 1, 0], [0.25, 0.75, 0, 0], [0, 0, 0, 1],
                       [0, 0.25, 0, 0.75], [0.25, 0, 0, 0.75]])
    expected = brute_force_agreement(np.array([0, 0, 1, 2, 2, 3]), shares, roll_in)
    assert c.pairwise_agreement == pytest.approx(expected, abs=1e-12)
    assert compared({"a1": [0]}).pairwise_agreement is None


def test_learned_classes_are_checked_and_returned_as_int64():
    vectors = np.zeros((3, 2))
    out = learned_classes(lambda x, step: [1.0, 2.0, -3.0], vectors, 2)
    assert out.dtype == np.int64 and out.tolist() == [1, 2, -3]
    assert learned_classes(lambda x, step: np.array([1, 2, 3], dtype=np.uint8), vectors,
                           2).dtype == np.int64
    seen = []
    learned_classes(lambda x, step: seen.append((x, step)) or [0, 0, 0], vectors, 3)
    assert seen[0][0] is vectors and seen[0][1] == 3
    with pytest.raises(ValueError, match=r"^mine\(observations, 2\) returned an array of shape "
                       r"\(2,\); expected one class per row of the 3 observations: shape \(3,\)$"):
        learned_classes(lambda x, step: [0, 1], vectors, 2, "mine")
    with pytest.raises(ValueError, match=r"^phi\(observations, 4\) must return integer classes, "
                       r"got dtype float64 \(first values \[0.5, 1.0, 2.0\]\)$"):
        learned_classes(lambda x, step: [0.5, 1.0, 2.0, 3.0], np.zeros((4, 2)), 4)
    for bad in ([np.inf, 1.0, 2.0], [np.nan, 1.0, 2.0], [True, False, True], ["a", "b", "c"]):
        with pytest.raises(ValueError, match="must return integer classes"):
            learned_classes(lambda x, step, bad=bad: np.array(bad), vectors, 1)


def test_the_exact_partitions_by_kind():
    mdp = fork()
    partitions = exact_partitions(mdp)
    assert list(partitions) == ["backward", "forward", "ki"]
    assert partitions["backward"].blocks(2) == [["a", "b"], ["c", "d"]]
    assert partitions["forward"].blocks(2) == [["a", "b"], ["c"], ["d"]]
    assert partitions["forward"].blocks(3) == [["e", "f"]]
    assert partitions["ki"].blocks(3) == [["e"], ["f"]]
    assert partitions["ki"].blocks(2) == ki_partition(mdp).blocks(2)


def test_the_roll_in_of_the_exact_cover():
    roll_in = cover_roll_in(fork())
    assert [r.tolist() for r in roll_in] == [
        [1.0], [0.125, 0.125, 0.25, 0.0625, 0.1875, 0.25], [0.5, 0.5]]
    assert all(r.dtype == np.float64 for r in roll_in)


def by_observation(classes: dict[str, int]):
    """An abstraction of layer 2 reading the observation back from a noiseless encoding."""
    mdp = fork()
    rotation = ENCODER.rotation(mdp)

    def phi(vectors, step):
        if step != 2:
            return np.zeros(len(vectors), dtype=int)
        return np.array([classes[OBSERVATIONS[k]] for k in np.argmax(vectors @ rotation, axis=1)])
    return phi


def test_evaluate_abstraction_scores_each_step_against_each_exact_partition():
    phi = by_observation({"a1": 0, "a2": 0, "b1": 0, "c1": 1, "c2": 1, "d": 1})
    report = evaluate_abstraction(fork(), phi, ENCODER, samples=2, seed=3)
    assert (report.mdp, report.samples, report.seed) == ("fork", 2, 3)
    assert [sorted(step) for step in report.steps] == [["backward", "forward", "ki"]] * 3
    assert [step["ki"].wrong_merges for step in report.steps] == [0, 1, 1]
    assert [step["backward"].wrong_merges for step in report.steps] == [0, 0, 1]
    assert [step["forward"].wrong_merges for step in report.steps] == [0, 1, 0]
    assert report.steps[1]["ki"].confusion.tolist() == [[6, 0, 0], [0, 4, 2]]
    # states a, b, c, d a quarter each, two classes of two states: 1 - 1/4 - 1/2 + 2/4
    assert report.steps[1]["ki"].pairwise_agreement == pytest.approx(0.75, abs=1e-12)
    assert report.steps_with_wrong_merges("ki") == [2, 3]
    assert report.steps_with_wrong_merges("backward") == [3]
    assert report.steps_with_wrong_merges() == [2, 3]
    document = report.to_json()
    assert document["steps_with_wrong_merges"] == {"backward": 1, "forward": 1, "ki": 2}
    assert [s["step"] for s in document["steps"]] == [1, 2, 3]
    assert [s["wrong_merges"] for s in document["steps"]] == [0, 1, 1]
    assert document["steps"][1]["splits"] == 0
    assert document["steps"][1]["abstractions"]["forward"]["wrong_merges"] == 1
    assert (document["mdp"], document["samples"], document["seed"]) == ("fork", 2, 3)
    assert document["merge_threshold"] == report.merge_threshold == MERGE_THRESHOLD == 0.05
    assert {c.merge_threshold for step in report.steps for c in step.values()} == {0.05}
    strict = evaluate_abstraction(fork(), phi, ENCODER, samples=2, seed=3, merge_threshold=0.5)
    assert strict.merge_threshold == strict.to_json()["merge_threshold"] == 0.5
    assert {c.merge_threshold for step in strict.steps for c in step.values()} == {0.5}
    with pytest.raises(ValueError, match=r"^mine\(observations, 1\)"):
        evaluate_abstraction(fork(), lambda x, step: [0], ENCODER, samples=2, name="mine")


def test_a_split_is_counted_per_step_and_steps_without_a_kind_have_no_merges():
    phi = by_observation({"a1": 0, "a2": 1, "b1": 2, "c1": 3, "c2": 3, "d": 4})
    report = evaluate_abstraction(fork(), phi, ENCODER, samples=1)
    assert [step["ki"].splits for step in report.steps] == [0, 1, 0]
    assert report.to_json()["steps"][1]["splits"] == 1
    partial = AbstractionReport("m", 1, 0, [{}, {"backward": report.steps[2]["backward"]}])
    assert partial.steps_with_wrong_merges("backward") == [2]
    assert partial.steps_with_wrong_merges("ki") == []


def test_an_abstraction_comparison_to_json_holds_every_field():
    c = compared({"a1": [0, 1], "d": [0, 0]}, roll_in=np.full(6, 1 / 6))
    document = c.to_json()
    assert document == {
        "kind": "ki", "exact_classes": EACH_STATE, "learned_classes": [0, 1],
        "confusion": [[1, 0, 0, 2], [1, 0, 0, 0]], "assignment": {"a1": 0, "d": 0},
        "misassigned": 0.25, "wrong_merges": 1, "merge_threshold": 0.05,
        # half of a in 0, which holds all of d; none of d in 1, the class holding a's other half
        "merge_rates": [{
            "classes": [0, 3], "rate": 0.5, "standard_error": math.sqrt(0.125), "leaks": [
                {"from": 0, "into": 3, "learned_class": 0, "rate": 0.5,
                 "standard_error": math.sqrt(0.125), "encodings": 2, "target_share": 1.0},
                {"from": 3, "into": 0, "learned_class": 1, "rate": 0.0, "standard_error": 0.0,
                 "encodings": 2, "target_share": 0.5}]}],
        "majority_wrong_merges": 1, "splits": 0, "purity": 0.75,
        "adjusted_rand_index": c.adjusted_rand_index,
        "pairwise_agreement": c.pairwise_agreement}


def test_compare_steps_uses_the_partitions_roll_in_and_names_given():
    mdp = fork()
    encoded = EncodedObservations(mdp, ENCODER, 1, 0)
    phi = by_observation({"a1": 0, "a2": 0, "b1": 0, "c1": 1, "c2": 1, "d": 1})
    partitions = {"ki": backward_ki_partition(mdp), "forward": forward_ki_partition(mdp)}
    roll_in = [np.ones(1), np.full(6, 1 / 6), np.full(2, 0.5)]
    found = compare_steps(mdp, encoded, {2: {"ki": phi, "forward": phi}}, partitions, roll_in)
    assert list(found) == [2] and sorted(found[2]) == ["forward", "ki"]
    assert found[2]["ki"].exact_classes == [["a", "b"], ["c", "d"]]
    assert found[2]["ki"].kind == "ki" and found[2]["forward"].kind == "forward"
    assert found[2]["ki"].wrong_merges == 0
    assert found[2]["forward"].wrong_merges == 1
    shares = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3)
    assert found[2]["ki"].pairwise_agreement == pytest.approx(brute_force_agreement(
        np.array([0, 0, 1, 2, 2, 3]), shares, np.full(6, 1 / 6)), abs=1e-12)
    default = compare_steps(mdp, encoded, {2: {"ki": phi}})
    assert default[2]["ki"].exact_classes == [["a", "b"], ["c"], ["d"]]
    assert default[2]["ki"].merge_threshold == MERGE_THRESHOLD == 0.05
    strict = compare_steps(mdp, encoded, {2: {"ki": phi, "forward": phi}}, partitions, roll_in,
                           merge_threshold=0.25)
    assert [c.merge_threshold for c in strict[2].values()] == [0.25, 0.25]
    assert default[2]["ki"].pairwise_agreement == pytest.approx(brute_force_agreement(
        np.array([0, 0, 1, 2, 2, 3]), shares, cover_roll_in(mdp)[1]), abs=1e-12)
    with pytest.raises(ValueError, match=r"^phi_B\(observations, 2\)"):
        compare_steps(mdp, encoded, {2: {"backward": lambda x, step: [0]}},
                      names={"backward": "phi_B"})
    with pytest.raises(ValueError, match=r"^phi\(observations, 2\)"):
        compare_steps(mdp, encoded, {2: {"backward": lambda x, step: [0]}})


# --- homer/policy_evaluation.py -----------------------------------------------------------

def test_float_model_and_rewards():
    exact = fork()
    floats = float_model(exact)
    assert exact.mode.exact and not floats.mode.exact
    assert float_model(floats) is floats
    assert has_rewards(exact) and not has_rewards(fork(rewards=False))
    first = block_mdp("r", [["s"], ["t"]], ["x"], {"s": 1}, {"s": {"x": {"t": 1}}},
                      rewards={"s": {"x": -1}})
    assert has_rewards(first)


def test_action_rows_one_hot_actions_and_normalised_probabilities():
    vectors = np.zeros((3, 2))
    rows = _action_rows(lambda x, step: np.array([0, 2, 1]), vectors, 1, 3, "pi")
    assert rows.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    probabilities = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5 - 5e-5], [1.0, 0.0, 0.0]])
    rows = _action_rows(lambda x, step: probabilities.astype(np.float32), vectors, 1, 3, "pi")
    assert rows.dtype == np.float64
    assert np.allclose(rows.sum(axis=1), 1.0, atol=1e-15, rtol=0)
    assert rows[1, 0] == pytest.approx(0.2 / (1 - 5e-5), rel=1e-6)
    seen = []
    _action_rows(lambda x, step: seen.append(step) or np.array([0, 0, 0]), vectors, 4, 3, "pi")
    assert seen == [4]
    rows = _action_rows(lambda x, step: np.array([0.0, 2.0, 1.0]), vectors, 1, 3, "pi")
    assert rows.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]


@pytest.mark.parametrize("output, message", [
    (np.array([0.0, 1.5, 1.0]), r"^pi\(observations, 2\) returned 3 values of dtype float64: "
     r"actions must be integers 0\.\.2 \(or return \(3, 3\) action probabilities\)$"),
    (np.array([0.0, np.nan, 1.0]), r"^pi\(observations, 2\) returned 3 values of dtype float64"),
    (np.array([0.0, 3.0, 1.0]), r"^pi\(observations, 2\) returned the action 3\.0 at row 1: "
     r"actions run 0\.\.2$"),
    (np.array([0, 3, 1]), r"^pi\(observations, 2\) returned the action 3 at row 1: actions "
         r"run 0\.\.2$"),
    (np.array([0, -1, 1]), r"^pi\(observations, 2\) returned the action -1 at row 1: actions "
         r"run 0\.\.2$"),
    (np.array([[1, 0, 0], [0.5, 0.5, 0.1], [1, 0, 0]]),
     r"^pi\(observations, 2\): row 1 is not a probability distribution over the 3 actions: "
     r"\[0\.5, 0\.5, 0\.1\]$"),
    (np.array([[1, 0, 0], [1, 0, 0], [0.5, 0.7, -0.2]]),
     r"^pi\(observations, 2\): row 2 is not a probability distribution"),
    (np.array([[1, 0, 0], [np.nan, 0, 0], [1, 0, 0]]), r"row 1 is not a probability"),
    (np.array([[1, 0, 0], [1, 0, 0], [0.9998, 0, 0]]), r"row 2 is not a probability"),
    (np.zeros((3, 2)), r"^pi\(observations, 2\) returned an array of shape \(3, 2\); expected 3 "
     r"actions \(3,\) or action probabilities \(3, 3\)$"),
])
def test_action_rows_refuse_what_is_not_actions_or_probabilities(output, message):
    with pytest.raises(ValueError, match=message):
        _action_rows(lambda x, step: output, np.zeros((3, 2)), 2, 3, "pi")


def test_action_rows_accept_sums_within_the_tolerance():
    rows = np.array([[0.99995, 0, 0], [0, 1.00009, 0], [0, 0, 1]])
    assert _action_rows(lambda x, step: rows, np.zeros((3, 2)), 1, 3, "pi").tolist() == [
        [1, 0, 0], [0, 1, 0], [0, 0, 1]]


def every_fourth(observations, step):
    """Action 1 on the first of each observation's four encodings: p = 1/4 everywhere."""
    return (np.arange(len(observations)) % 4 == 0).astype(int)


def test_the_latent_policy_is_the_mean_over_encodings_with_its_standard_error():
    mdp = fork()
    latent = LatentPolicies(EncodedObservations(mdp, ENCODER, 4, 0))
    policy, error = latent.latent(every_fourth)
    assert [layer.tolist() for layer in policy.action_probabilities] == [
        [[0.75, 0.25]], [[0.75, 0.25]] * 6, [[0.75, 0.25]] * 2]
    assert error == pytest.approx((math.sqrt(0.25 * 0.75 / 4),) * 3, rel=1e-12)
    assert type(error) is tuple
    half = lambda x, step: np.tile([0.5, 0.5], (len(x), 1))  # noqa: E731
    assert latent.latent(half)[1] == (0.0, 0.0, 0.0)


def test_the_standard_error_is_the_largest_over_steps_and_actions():
    mdp = fork()
    latent = LatentPolicies(EncodedObservations(mdp, ENCODER, 4, 0))

    def mixed(observations, step):
        if step == 2:
            return every_fourth(observations, step)
        rows = np.zeros((len(observations), 2))
        rows[:, 0] = np.where(np.arange(len(observations)) % 2 == 0, 1.0, 0.0)
        rows[:, 1] = 1 - rows[:, 0]
        return rows
    # steps 1 and 3: one half of the encodings, p = 1/2: standard error sqrt(1/4 / 4) = 1/4
    assert latent.latent(mixed)[1] == pytest.approx((0.25, math.sqrt(3) / 8, 0.25), rel=1e-12)
    layer_two = lambda x, step: every_fourth(x, step) if step == 2 else np.zeros(len(x), int)  # noqa: E731
    assert latent.latent(layer_two)[1] == pytest.approx((0.0, math.sqrt(3) / 8, 0.0), rel=1e-12)
    last = lambda x, step: every_fourth(x, step) if step == 3 else np.zeros(len(x), int)  # noqa: E731
    assert latent.latent(last)[1] == pytest.approx((0.0, 0.0, math.sqrt(3) / 8), rel=1e-12)
    assert latent.latent(last, remember=False)[1] == latent.latent(last)[1]


def test_latent_policies_are_remembered_unless_told_not_to():
    mdp = fork()
    latent = LatentPolicies(EncodedObservations(mdp, ENCODER, 2, 0))
    calls = []

    def counting(observations, step):
        calls.append(step)
        return np.zeros(len(observations), dtype=int)
    first, _ = latent.latent(counting)
    assert calls == [1, 2, 3]
    again, _ = latent.latent(counting)
    assert again is first and calls == [1, 2, 3]
    fresh, _ = latent.latent(counting, remember=False)
    assert calls == [1, 2, 3] * 2 and fresh is not first
    assert latent.latent(counting)[0] is first
    other = LatentPolicies(EncodedObservations(mdp, ENCODER, 2, 0))
    other.latent(counting, remember=False)
    other.latent(counting)
    assert calls == [1, 2, 3] * 4
    with pytest.raises(ValueError, match=r"^mine\(observations, 1\)"):
        latent.latent(lambda x, step: [0], "mine")
    with pytest.raises(ValueError, match=r"^policy\(observations, 1\)"):
        latent.latent(lambda x, step: [0])


def test_visitation_and_value_of_a_latent_policy():
    mdp = fork()
    latent = LatentPolicies(EncodedObservations(mdp, ENCODER, 4, 0))
    visits, error = latent.visitation(every_fourth)
    assert [v.tolist() for v in visits] == [
        [1.0], [0.375, 0.375, 0.125, 0.125],
        [0.375 * 0.75 * 2 + 0.125 * 0.25 + 0.125 * (0.75 * 0.5 + 0.25),
         0.375 * 0.25 * 2 + 0.125 * 0.75 + 0.125 * 0.75 * 0.5]]
    assert latent.visitation(every_fourth)[0] is visits
    assert error == pytest.approx((math.sqrt(3) / 8,) * 3, rel=1e-12)
    value, error = latent.value(every_fourth)
    assert value == pytest.approx(visits[2][0] * 0.75, rel=1e-12)
    assert error == pytest.approx(math.sqrt(3) / 8, rel=1e-12)
    # the value's standard error is the largest over the steps, wherever it is
    middle = lambda x, step: every_fourth(x, step) if step == 2 else np.zeros(len(x), int)  # noqa: E731
    assert latent.value(middle)[1] == pytest.approx(math.sqrt(3) / 8, rel=1e-12)
    assert latent.visitation(middle)[1] == pytest.approx((0.0, math.sqrt(3) / 8, 0.0))
    with pytest.raises(ValueError, match=r"^v\(observations, 1\)"):
        latent.visitation(lambda x, step: [0], "v")
    with pytest.raises(ValueError, match=r"^w\(observations, 1\)"):
        latent.value(lambda x, step: [0], "w")


def test_eta_in_floats():
    eta = eta_floats(fork())
    assert [e.tolist() for e in eta] == [[1.0], [0.5] * 4, [1.0, 1.0]]
    assert all(e.dtype == np.float64 for e in eta)


def test_a_cover_step_divides_the_best_visitation_by_the_steps_eta():
    mdp = fork()
    first = ((np.array([1.0]), np.array([0.5, 0.1, 0.0, 0.2]), np.array([0.3, 0.375])),
             (0.1, 0.05, 0.9))
    second = ((np.array([1.0]), np.array([0.0, 0.4, 0.0, 0.1]), np.array([0.9, 0.25])),
              (0.02, 0.3, 0.8))
    eta = [np.array([1.0]), np.array([0.5, 0.5, 0.0, 0.4]), np.array([1.0, 0.5])]
    step = cover_step(mdp, 2, [first, second], eta)
    assert step == {"step": 2, "alpha_min": 0.5,
                    "alpha_per_state": {"a": 1.0, "b": 0.8, "c": 1.0, "d": 0.5},
                    "visitation": {"a": 0.5, "b": 0.4, "c": 0.0, "d": 0.2},
                    "eta": {"a": 0.5, "b": 0.5, "c": 0.0, "d": 0.4},
                    "action_standard_error": 0.1}
    assert type(step["alpha_min"]) is float
    # the actions of steps 1 and 2 decide the visits of step 3; step 3's own do not count
    step = cover_step(mdp, 3, [first, second], eta)
    assert step["alpha_per_state"] == {"e": 0.9, "f": 0.75} and step["alpha_min"] == 0.75
    assert step["action_standard_error"] == 0.3
    assert cover_step(mdp, 3, [second, first], eta)["action_standard_error"] == 0.3
    assert cover_step(mdp, 3, [first], eta)["action_standard_error"] == 0.1
    assert cover_step(mdp, 2, [second], eta)["action_standard_error"] == 0.02
    assert cover_step(mdp, 1, [first, second], eta)["action_standard_error"] == 0.0


def test_a_cover_report_reads_its_smallest_alpha():
    report = CoverReport("m", 3, 4, [{"alpha_min": 0.5}, {"alpha_min": 0.25},
                                     {"alpha_min": 0.75}], [0.1], [0.2], 0.9)
    assert report.alpha_min == 0.25
    assert report.to_json() == {"mdp": "m", "samples": 3, "seed": 4, "alpha_min": 0.25,
                                "uncovered_steps": [], "values": [0.1],
                                "action_standard_errors": [0.2], "optimal_value": 0.9,
                                "steps": report.steps}
    partial = CoverReport("m", 3, 4, report.steps, [0.1], [0.2], 0.9, uncovered=[4])
    assert partial.alpha_min is None
    assert partial.to_json()["alpha_min"] is None
    assert partial.to_json()["uncovered_steps"] == [4]


def test_covers_by_step_keep_each_policy_once():
    mdp = fork()
    p, q, r = every_fourth, (lambda x, s: [0]), (lambda x, s: [1])
    cover = read_cover(mdp, {3: [q, p], 1: [p], 2: [p, r, p]})
    assert cover.policies == [p, r, q] and cover.steps == {1: [0], 2: [0, 1, 0], 3: [2, 0]}
    assert list(cover.steps) == [1, 2, 3] and cover.uncovered == []
    cover = read_cover(mdp, [p, q])
    assert cover.policies == [p, q] and cover.steps == {1: [0, 1], 2: [0, 1], 3: [0, 1]}
    cover = read_cover(mdp, {3: [p]})
    assert (cover.steps, cover.policies, cover.uncovered) == ({3: [0]}, [p], [2])


@pytest.mark.parametrize("policies, error, message", [
    ({0: [every_fourth]}, ValueError,
     r"^mine: the key 0 is not a time step of 'fork' \(an int from 1 to 3\)$"),
    ({4: [every_fourth]}, ValueError,
     r"^mine: the key 4 is not a time step of 'fork' \(an int from 1 to 3\)$"),
    ({"1": [every_fourth]}, ValueError, r"^mine: the key '1' is not a time step"),
    ({True: [every_fourth]}, ValueError, r"^mine: the key True is not a time step"),
    ({np.int64(4): [every_fourth]}, ValueError, r"^mine: the key np\.int64\(4\) is not"),
    ({1: [every_fourth], 2: []}, None, None),
    ({1: [], 2: []}, ValueError, r"^mine: no policies for any step \(give a list of policies, "
     r"the cover of every step, or a dict step -> list with steps 2 to 3\)$"),
    ([], ValueError, r"^mine: no policies for any step"),
    ([every_fourth, 3], TypeError, r"^mine\[1\] is not callable: a policy is a function "
     r"\(observations, step\) -> actions, got 3$"),
    ({2: [every_fourth, 3]}, TypeError, r"^mine\[2\]\[1\] is not callable"),
    ({2: every_fourth}, TypeError, r"^mine\[2\] must be a list of policies, got <function"),
])
def test_bad_covers_are_named(policies, error, message):
    if error is None:  # an empty list is no policy: the step is uncovered, not an error
        assert read_cover(fork(), policies, "mine").uncovered == [2, 3]
        return
    with pytest.raises(error, match=message):
        read_cover(fork(), policies, "mine")


def test_a_float_step_is_refused_by_default_name():
    with pytest.raises(ValueError, match=r"^policies: the key 1\.0 is not"):
        read_cover(fork(), {1.0: [every_fourth]})


def test_numpy_integer_steps_are_steps():
    p, q = every_fourth, (lambda x, s: [0])
    cover = read_cover(fork(), {np.int64(3): [q], np.uint8(1): [p], 2: [p, q]})
    assert cover.steps == {1: [0], 2: [0, 1], 3: [1]} and cover.policies == [p, q]
    assert list(cover.steps) == [1, 2, 3] and all(type(step) is int for step in cover.steps)
    assert cover.names == ["policies[1][0]", "policies[2][1]"]


def test_evaluate_policies_scores_alpha_per_step_and_values():
    mdp = fork()
    second = lambda x, step: np.ones(len(x), dtype=int)  # noqa: E731
    report = evaluate_policies(mdp, {2: [every_fourth, second], 3: [second]}, ENCODER,
                               samples=4, seed=1)
    assert (report.mdp, report.samples, report.seed) == ("fork", 4, 1)
    assert [s["step"] for s in report.steps] == [2, 3]
    assert report.steps[0]["alpha_per_state"] == {"a": 0.75, "b": 0.75, "c": 1.0, "d": 1.0}
    assert report.steps[1]["alpha_per_state"] == {"e": 1.0, "f": 0.0}
    assert report.steps[0]["action_standard_error"] == pytest.approx(math.sqrt(3) / 8)
    assert report.steps[1]["action_standard_error"] == 0.0
    assert report.values == [pytest.approx(0.75 * (0.375 * 0.75 * 2 + 0.125 * 0.25 + 0.125
                                                    * (0.75 * 0.5 + 0.25))), 0.0]
    assert report.action_standard_errors == [pytest.approx(math.sqrt(3) / 8), 0.0]
    assert report.optimal_value == 1.0
    plain = evaluate_policies(fork(rewards=False), [second], ENCODER, samples=1)
    assert plain.values is None and plain.action_standard_errors is None
    assert plain.optimal_value is None
    assert [s["step"] for s in plain.steps] == [1, 2, 3]
    with pytest.raises(ValueError, match=r"^mine\[1\]\(observations, 1\)"):
        evaluate_policies(mdp, [second, lambda x, step: [0.5]], ENCODER, samples=1, name="mine")
    with pytest.raises(ValueError, match=r"^mine: no policies for any step"):
        evaluate_policies(mdp, [], ENCODER, samples=1, name="mine")


# --- homer/summary.py ---------------------------------------------------------------------

def leak(source: int, target: int, rate: float, held: float = 1.0) -> Leak:
    """``rate(source -> target)`` over 100 encodings, into learned class ``target``, which
    holds ``held`` of target's encodings."""
    return Leak(source, target, target, rate, math.sqrt(rate * (1 - rate) / 100), 100, held)


def pair(first: int, second: int, rate: float, back: float = 0.0,
         held: tuple[float, float] = (1.0, 1.0)) -> MergeRate:
    """Exact classes ``first`` and ``second``: ``rate`` of first's encodings in a learned class
    holding ``held[0]`` of second's, ``back`` of second's in one holding ``held[1]`` of
    first's."""
    return MergeRate(first, second, (leak(first, second, rate, held[0]),
                                     leak(second, first, back, held[1])))


def comparison(wrong_merges: int = 0, splits: int = 0, misassigned: float = 0.0,
               agreement: float | None = None, kind: str = "ki") -> AbstractionComparison:
    """A step's learned classes: only the counts the summaries read, the ``wrong_merges`` pairs
    being the exact class ``x0`` with each of ``x1``, ``x2``, ... (every encoding of ``x0`` in
    their learned classes: merge rate 1); two exact classes at least."""
    classes = max(wrong_merges, 1) + 1
    return AbstractionComparison(kind, [[f"x{k}"] for k in range(classes)], [],
                                 np.zeros((0, 0), dtype=np.int64), {}, misassigned, splits, 1.0,
                                 1.0, agreement,
                                 [pair(0, k, 1.0 if k <= wrong_merges else 0.0)
                                  for k in range(1, classes)])


def test_steps_phrase_names_the_first_steps():
    assert steps_phrase([], 4) == "0 of 4"
    assert steps_phrase([3], 5) == "1 of 5 (step 3)"
    assert steps_phrase([1, 4], 5) == "2 of 5 (steps 1, 4)"
    assert steps_phrase([1, 2, 3, 4], 6) == "4 of 6 (steps 1, 2, 3, 4)"
    assert steps_phrase([1, 2, 3, 4, 5], 6) == "5 of 6 (steps 1, 2, 3, ... (2 more))"
    assert steps_phrase([1, 2, 3], 6, shown=1) == "3 of 6 (steps 1, ... (2 more))"
    assert steps_phrase([1, 2], 6, shown=1) == "2 of 6 (steps 1, 2)"


def test_the_abstraction_table_counts_steps_and_names_the_worst_misassigned_step():
    rows = {"first": {1: comparison(1, 0, 0.0), 2: comparison(0, 2, 0.125),
                      3: comparison(2, 1, 0.25), 4: comparison(0, 0, 0.25)},
            "empty": {},
            "clean": {2: comparison(), 3: comparison()}}
    assert abstraction_table(rows) == [
        "  learned vs exact   steps with wrong merges   wrong merges   steps with splits     "
        "max misassigned",
        "  first              2 of 4 (steps 1, 3)       3              2 of 4 (steps 2, 3)   "
        "0.250 (step 3)",
        "  clean              0 of 2                    0              0 of 2                "
        "0.000",
    ]


def one_class(misassigned: float, splits: int = 0) -> AbstractionComparison:
    """A step whose exact partition has one class."""
    return AbstractionComparison("forward", [["x0"]], [], np.zeros((0, 0), dtype=np.int64), {},
                                 misassigned, splits, 1.0, 1.0)


def test_the_largest_misassigned_share_leaves_out_the_steps_with_one_exact_class():
    """phi_F's encodings scattered over a single-state step cost nothing: that step is left
    out of the maximum, and a row of such steps only shows ``-``."""
    rows = {"scattered": {1: one_class(0.65, splits=1), 2: comparison(0, 0, 0.125),
                          3: comparison(0, 0, 0.0)},
            "lone": {1: one_class(0.5), 2: one_class(0.25)}}
    assert abstraction_table(rows) == [
        "  learned vs exact   steps with wrong merges   wrong merges   steps with splits   "
        "max misassigned",
        "  scattered          0 of 3                    0              1 of 3 (step 1)     "
        "0.125 (step 2)",
        "  lone               0 of 2                    0              0 of 2              -"]
    assert one_class(0.0).one_class and not comparison().one_class
    nothing = AbstractionComparison("ki", [], [], np.zeros((0, 0)), {}, 0.0, 0, 1.0, 1.0)
    assert nothing.one_class and nothing.wrong_merges == 0


def test_the_table_widens_its_columns_to_the_longest_cell():
    rows = {"a very long name of a row": {1: comparison(1, 1, 0.5)}}
    assert abstraction_table(rows) == [
        "  learned vs exact            steps with wrong merges   wrong merges   steps with "
        "splits   max misassigned",
        "  a very long name of a row   1 of 1 (step 1)           1              1 of 1 (step "
        "1)     0.500 (step 1)"]


def test_cover_lines_give_the_smallest_alpha_after_the_first_step():
    legend = ("  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
              "(def:policy-cover)")
    assert cover_lines([{"step": 1, "alpha_min": 0.1}], []) == [
        "policy cover: horizon 1 (step 1 needs no policy)"]
    assert cover_lines([{"step": 1, "alpha_min": 0.1}, {"step": 2, "alpha_min": 0.5}], []) == [
        "policy cover: alpha 0.500 at step 2 (step 1 needs no policy)", legend]
    steps = [{"step": 1, "alpha_min": 0.0}, {"step": 2, "alpha_min": 0.75},
             {"step": 3, "alpha_min": 0.25}, {"step": 4, "alpha_min": 0.5}]
    assert cover_lines(steps, []) == [
        "policy cover: smallest alpha 0.250 at step 3 of steps 2-4 (step 1 needs no policy)",
        legend]
    same = [{"step": 2, "alpha_min": 0.5}, {"step": 3, "alpha_min": 0.5}]
    assert cover_lines(same, [])[0] == (
        "policy cover: alpha 0.500 at each of steps 2-3 (step 1 needs no policy)")
    first_lowest = [{"step": 2, "alpha_min": 0.25}, {"step": 3, "alpha_min": 0.25},
                    {"step": 4, "alpha_min": 0.5}]
    assert cover_lines(first_lowest, [])[0] == (
        "policy cover: smallest alpha 0.250 at step 2 of steps 2-4 (step 1 needs no policy)")


def test_cover_lines_name_the_steps_given():
    def first(numbers: list[int], alphas: list[float] | None = None) -> str:
        alphas = alphas or [0.5] * len(numbers)
        steps = [{"step": n, "alpha_min": a} for n, a in zip(numbers, alphas, strict=True)]
        return cover_lines(steps, [])[0]
    assert first([3]) == "policy cover: alpha 0.500 at step 3 (step 1 needs no policy)"
    assert first([1, 3, 4, 5]) == (
        "policy cover: alpha 0.500 at each of steps 3-5 (step 1 needs no policy)")
    assert first([2, 4], [0.5, 0.25]) == (
        "policy cover: smallest alpha 0.250 at step 4 of steps 2, 4 (step 1 needs no policy)")
    assert first([2, 3, 5, 6, 7, 8, 9, 10]) == (
        "policy cover: alpha 0.500 at each of steps 2, 3, 5, 6, 7, 8, ... (2 more) (step 1 "
        "needs no policy)")


def test_agreement_lines_give_the_lowest_and_the_mean_of_the_steps_with_one():
    assert agreement_lines({}) == []
    assert agreement_lines({1: comparison(), 2: comparison()}) == []
    lines = agreement_lines({2: comparison(agreement=0.75), 3: comparison(),
                             5: comparison(agreement=0.25), 6: comparison(agreement=0.25)})
    assert lines[0] == ("pairwise agreement with the latent states: lowest 0.250 (step 5), mean "
                        "0.417 over the steps")
    assert len(lines) == 5


def evaluation(cover: CoverReport | None, capacity: int | None = 3) -> Evaluation:
    steps = [{"ki": comparison(0, 0, 0.0, 0.5), "backward": comparison(1, 0, 0.0, 0.1),
              "forward": comparison(0, 1, 0.0, 0.2)},
             {"ki": comparison(2, 0, 0.125, 0.25), "backward": comparison(),
              "forward": comparison()},
             {"ki": comparison(0, 0, 0.0, 0.375), "backward": comparison(),
              "forward": comparison()}]
    report = AbstractionReport("lock", 7, 2, steps, 0.1)
    return Evaluation("mod:phi", capacity, report, cover, None if cover is None else "mod:pi")


def test_format_evaluation_without_policies():
    text = format_evaluation(evaluation(None)).splitlines()
    assert text[:2] == ["phi = mod:phi (capacity 3) on lock vs the exact answers:",
                        "  3 time steps, 7 encodings of each latent observation (seed 2)"]
    assert text[2:11] == [
        "  learned vs exact     steps with wrong merges   wrong merges   steps with splits   "
        "max misassigned",
        "  phi vs KI            1 of 3 (step 2)           2              0 of 3              "
        "0.125 (step 2)",
        "  phi vs backward KI   1 of 3 (step 1)           1              0 of 3              "
        "0.000",
        "  phi vs forward KI    0 of 3                    0              1 of 3 (step 1)     "
        "0.000",
        "  phi vs KI wrong merges:",
        "    step 2: 100.0% of x0's encodings in a learned class holding 100.0% of x1's "
        "(standard error 0.0%)",
        "    step 2: 100.0% of x0's encodings in a learned class holding 100.0% of x2's "
        "(standard error 0.0%)",
        "  phi vs backward KI wrong merges:",
        "    step 1: 100.0% of x0's encodings in a learned class holding 100.0% of x1's "
        "(standard error 0.0%)"]
    assert text[-1] == ("policies: none given (give policies=... to score a policy cover)")
    assert text[11:20] == list(table_legend(0.1))
    assert text[11] == ("  wrong merge: a pair of exact classes with a merge rate above 0.1 "
                        "(merge_threshold=...);")
    assert text[20:25] == [
        "pairwise agreement with the latent states: lowest 0.250 (step 2), mean 0.375 over the "
        "steps",
        "  the chance that two observations drawn from the exact cover's roll-in (the homing "
        "policy of",
        "  a uniformly chosen state of the step, followed to it) get one class exactly when they "
        "come",
        "  from one latent state, as Intrepid (Microsoft Research's rich-observation RL library)",
        "  measures it; two states of one KI class in one class are no wrong merge but cost "
        "agreement"]
    assert len(text) == 26
    with command_line_wording():
        assert format_evaluation(evaluation(None)).splitlines()[-1] == (
            "policies: none given (give --policies to score a policy cover)")
    assert format_evaluation(evaluation(None, None)).startswith(
        "phi = mod:phi on lock vs the exact answers:\n")


def test_the_legend_defines_the_merge_rate_and_shows_the_threshold():
    assert table_legend(0.05) == (
        "  wrong merge: a pair of exact classes with a merge rate above 0.05 "
        "(merge_threshold=...);",
        "  merge rate of exact classes C, D: the largest share of both C's and D's encodings that",
        "  one learned class holds (max over learned classes of the smaller of its two shares);",
        "  split: the observations of one exact class are assigned to two or more learned classes,",
        "  each observation to the learned class most of its encodings fall into;",
        "  misassigned: the share of a step's encodings outside their observation's assigned "
        "class;",
        "  its maximum leaves out the steps with one exact class (nothing to merge: misassigned",
        "  encodings cost nothing there; - when every step has one);",
        "  a wrong merge breaks what HOMER's guarantees need; a split only costs capacity;")
    with command_line_wording():
        assert table_legend(0.25)[0] == ("  wrong merge: a pair of exact classes with a merge "
                                         "rate above 0.25 (--merge-threshold);")
    assert summary_legend(0.25) == (*table_legend(0.25), "  phi-bar separates what phi_F or "
                                    "phi_B separates; the cover is learned on phi_B's classes.")


def test_the_endogenous_legend_follows_the_tables_that_have_an_endogenous_row():
    """homer compare's legend ends with it when phi-bar was compared with the endogenous
    partition, homer evaluate's has it after the table's legend when phi was."""
    assert summary_legend(0.25, ["endogenous"]) == (*summary_legend(0.25), *ENDOGENOUS_LEGEND)
    assert ENDOGENOUS_LEGEND[0].startswith("  the row against the endogenous partition: ")
    plain = evaluation(None)
    assert not set(ENDOGENOUS_LEGEND) & set(format_evaluation(plain).splitlines())
    for step in plain.report.steps:
        step["endogenous"] = comparison()
    text = format_evaluation(plain).splitlines()
    legend_end = text.index(table_legend(0.1)[-1])
    assert text[legend_end + 1:legend_end + 1 + len(ENDOGENOUS_LEGEND)] == list(ENDOGENOUS_LEGEND)


def cover_report(values: list[float] | None, errors: list[float] | None) -> CoverReport:
    steps = [{"step": 1, "alpha_min": 1.0}, {"step": 2, "alpha_min": 0.5},
             {"step": 3, "alpha_min": 0.25}]
    return CoverReport("lock", 7, 2, steps, values, errors, None if values is None else 0.875)


def test_format_evaluation_reports_the_cover_values_and_the_largest_standard_error():
    text = format_evaluation(evaluation(cover_report([0.25, 0.625, 0.5],
                                                     [0.0625, 0.001, 0.125]))).splitlines()
    assert len(text) == 31 and text[0].startswith("phi = mod:phi")
    assert text[-6:] == [
        "policies: mod:pi",
        "policy cover: smallest alpha 0.250 at step 3 of steps 2-3 (step 1 needs no policy)",
        "  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
        "(def:policy-cover)",
        "best value of the 3 policies 0.625 (policy 1) vs optimal 0.875",
        "  exact, given each policy's action probabilities at the latent observations, each the "
        "mean",
        "  over the 7 encodings of an observation (largest standard error: 0.125)"]
    one = format_evaluation(evaluation(cover_report([0.375], [0.0625]))).splitlines()
    assert one[-3] == "value 0.375 vs optimal 0.875"
    assert one[-1].endswith("(largest standard error: 0.062)")
    none = format_evaluation(evaluation(cover_report(None, None))).splitlines()
    assert none[-1] == "values: none (the MDP has no rewards)"


def test_an_evaluation_to_json_holds_the_report_and_the_cover():
    cover = cover_report([0.5], [0.25])
    document = evaluation(cover).to_json()
    assert document["abstraction"] == "mod:phi" and document["capacity"] == 3
    assert document["policies"] == "mod:pi" and document["cover"] == cover.to_json()
    assert document["mdp"] == "lock" and document["steps"][1]["wrong_merges"] == 2
    assert evaluation(None).to_json()["cover"] is None
    assert evaluation(None).to_json()["policies"] is None


# --- homer/compare.py ---------------------------------------------------------------------

SAMPLES = 4


def encodings(mdp: BlockMDP, layer: int) -> np.ndarray:
    """One noiseless encoding of every observation of ``layer`` (0-based), in order."""
    return EncodedObservations(mdp, ENCODER, 1, 0).step(layer + 1)[1]


def test_phi_bar_pairs_the_forward_and_backward_classes():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    x = encodings(mdp, 1)  # s2a, s2b, s2c
    assert combined_classifier(artefacts, 1)(x).tolist() == [0 * 2 + 0, 1 * 2 + 0, 2 * 2 + 1]
    assert combined_classifier(artefacts, 0)(encodings(mdp, 0)).tolist() == [0, 1]
    assert combined_classifier(artefacts, 3)(encodings(mdp, 3)).tolist() == [0, 0, 1]
    only_forward = combined_classifier(perfect_artefacts(mdp, backward={}), 2)
    assert only_forward(encodings(mdp, 2)).tolist() == [0, 1, 2]
    only_backward = combined_classifier(perfect_artefacts(mdp, forward={}), 2)
    assert only_backward(encodings(mdp, 2)).tolist() == [0, 0, 1]
    assert combined_classifier(perfect_artefacts(mdp, forward={}), 0) is None
    widths = perfect_artefacts(mdp, backward={1: abstraction(mdp, [0, 1, 2])})
    assert combined_classifier(widths, 1)(x).tolist() == [0, 4, 8]


def test_a_runs_abstractions_by_kind():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    x = encodings(mdp, 1)
    found = run_abstractions(artefacts, 2)
    assert sorted(found) == ["backward", "forward", "ki"]
    assert found["backward"](x, 2).tolist() == [0, 0, 1]
    assert found["forward"](x, 2).tolist() == [0, 1, 2]
    assert found["ki"](x, 2).tolist() == [0, 2, 5]
    assert sorted(run_abstractions(artefacts, 1)) == ["forward", "ki"]
    assert sorted(run_abstractions(artefacts, 4)) == ["backward", "ki"]
    assert run_abstractions(perfect_artefacts(mdp, forward={}), 1) == {}


def test_linear_policies_are_uniform_beyond_their_last_step_and_computed_once():
    mdp = lock()
    linear = LinearPolicies(3)
    short = policy(mdp, {"s1a": "a2", "s1b": "a3"}, 1)
    act = linear.policy(short)
    assert linear.policy(short) is act
    x = encodings(mdp, 0)
    assert act(x, 1).tolist() == [1, 2]
    assert act(x, 1) is act(x, 1)
    assert act(encodings(mdp, 1), 2).tolist() == [[1 / 3] * 3] * 3
    other = policy(mdp, {"s1a": "a3"}, 1)
    assert linear.policy(other)(x, 1).tolist() == [2, 0]
    assert LinearPolicies(2).policy(short)(x, 2).tolist() == [[0.5, 0.5]] * 2


def test_the_majority_name_of_each_class_with_ties_to_the_first_name():
    classes = np.array([3, 3, 3, 1, 1, 1, 1, 5])
    names = np.array(["b", "a", "b", "c", "d", "d", "c", "z"])
    assert _majority(classes, names) == {1: "c", 3: "b", 5: "z"}
    assert all(type(k) is int for k in _majority(classes, names))


def report(steps: list[dict], value: float | None = 0.5) -> ComparisonReport:
    return ComparisonReport("lock", 8, steps, value, 1.0, 0.25 if value is not None else None,
                            {}, {}, [])


def test_a_comparison_reports_counts():
    steps = [{"wrong_merges": None, "alpha_min": 1.0, "abstractions": {}},
             {"wrong_merges": 2, "alpha_min": 0.5,
              "abstractions": {"backward": {"wrong_merges": 1}, "forward": {"wrong_merges": 0}}},
             {"wrong_merges": 0, "alpha_min": 0.75,
              "abstractions": {"backward": {"wrong_merges": 3}, "ki": {"wrong_merges": 0}}},
             {"wrong_merges": 3, "alpha_min": 0.25, "abstractions": {"ki": {"wrong_merges": 3}}}]
    found = report(steps)
    assert found.steps_with_wrong_merges == 2
    assert found.steps_with_wrong_merges_of("backward") == 2
    assert found.steps_with_wrong_merges_of("forward") == 0
    assert found.steps_with_wrong_merges_of("ki") == 1
    assert found.alpha_min == 0.25
    document = found.to_json()
    assert document == {
        "mdp": "lock", "samples": 8, "steps_with_wrong_merges": 2,
        "steps_with_wrong_merges_by_abstraction": {"backward": 2, "forward": 0, "ki": 1},
        "against": [], "total_wrong_merges": 5, "alpha_min": 0.25, "uncovered_steps": [],
        "value": 0.5, "optimal_value": 1.0, "policy_standard_error": 0.25, "steps": steps,
        "merge_threshold": 0.05}
    found.uncovered = [5]  # a run stopped before learning step 5: no alpha over steps 1-4
    assert found.alpha_min is None and found.to_json()["alpha_min"] is None


def test_compare_run_on_a_perfect_run():
    mdp = lock()
    found = compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=200, seed=1)
    assert (found.mdp, found.samples) == (mdp.name, SAMPLES)
    assert [s["step"] for s in found.steps] == [1, 2, 3, 4]
    assert [s["wrong_merges"] for s in found.steps] == [0, 0, 0, 0]
    assert [s["splits"] for s in found.steps] == [0, 0, 0, 0]
    assert [s["alpha_min"] for s in found.steps] == [1.0, 1.0, 1.0, 1.0]
    assert [s["action_standard_error"] for s in found.steps] == [0.0] * 4
    assert all("step" in s and "eta" in s for s in found.steps)
    assert found.value == found.optimal_value == 1.0 and found.policy_standard_error == 0.0
    assert sorted(found.abstractions) == [1, 2, 3, 4]
    assert sorted(found.abstractions[1]) == ["forward", "ki"]
    assert found.steps[1]["abstractions"]["ki"] == found.abstractions[2]["ki"].to_json()
    assert found.abstractions[2]["ki"].confusion.tolist() == [
        [SAMPLES, 0, 0], [0, SAMPLES, 0], [0, 0, SAMPLES]]
    assert found.abstractions[2]["ki"].pairwise_agreement == 1.0
    assert found.abstractions[4]["ki"].pairwise_agreement < 1.0  # s4a, s4b in one KI class
    assert sorted(found.dynamics) == [2, 3, 4]
    assert found.steps[0]["dynamics"] is None
    assert found.steps[2]["dynamics"] == found.dynamics[3].to_json()
    assert found.dynamics[3].transitions == 200
    assert sorted(found.dynamics[3].matched_from.values()) == ["s2a", "s2b", "s2c"]
    assert sorted(found.dynamics[3].matched_to.values()) == ["s3a", "s3b", "s3c"]
    # 100 episodes for each step 2..4, rolled in by the cover of the step before: start
    # uniform over s1a, s1b; the covers reach each state of a layer in turn
    assert found.visitation_counts[0].tolist() == [150.0, 150.0]
    assert [c.sum() for c in found.visitation_counts] == [300.0, 300.0, 200.0, 100.0]
    assert found.visitation_counts[1].tolist() == pytest.approx([275 / 3, 275 / 3, 350 / 3])
    assert found.visitation_counts[3].tolist() == pytest.approx([100 / 9, 100 / 9, 700 / 9])


def test_compare_run_errors_and_a_run_that_stopped():
    mdp = lock()
    with pytest.raises(ValueError, match=r"^transitions must be positive, got 0$"):
        compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=0)
    compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=1)
    artefacts = perfect_artefacts(mdp)
    stopped = perfect_artefacts(mdp, covers=artefacts.covers[:2], policy=None,
                                backward={1: artefacts.backward[1]},
                                log=artefacts.log[:1])
    found = compare_run(stopped, samples=SAMPLES, transitions=50)
    assert [s["step"] for s in found.steps] == [1, 2]
    assert found.value is None and found.policy_standard_error is None
    assert found.optimal_value == 1.0
    assert [c.sum() for c in found.visitation_counts] == pytest.approx([100.0, 100.0, 0.0, 0.0])
    assert found.to_json()["total_wrong_merges"] == 0
    without_ki = perfect_artefacts(mdp, forward={}, backward={})
    found = compare_run(without_ki, samples=SAMPLES, transitions=50)
    assert [s["wrong_merges"] for s in found.steps] == [None] * 4
    assert [s["splits"] for s in found.steps] == [None] * 4
    assert found.dynamics == {}


def test_compare_run_reads_the_learned_policy_and_its_standard_error():
    mdp = lock()
    wrong = policy(mdp, {}, mdp.horizon)  # the first action everywhere
    found = compare_run(perfect_artefacts(mdp, policy=wrong), samples=SAMPLES, transitions=50)
    assert found.value < 1.0 and found.optimal_value == 1.0
    progress = []
    compare_run(perfect_artefacts(mdp), samples=SAMPLES, transitions=50,
                progress=lambda steps: progress.append(list(steps)) or steps)
    assert progress == [[1, 2, 3, 4]]  # the steps


def test_compare_dynamics_of_a_perfect_run():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    rng = np.random.default_rng(0)
    found = compare_dynamics(artefacts, 2, 600, rng)
    assert found.learned_from == [0, 2, 5] and found.learned_to == [0, 2, 5]
    assert found.matched_from == {0: "s2a", 2: "s2b", 5: "s2c"}
    assert found.counts.sum() == 600 and found.counts.shape == (3, 3)
    assert found.estimated.shape == (3, 3, 3)
    assert found.transitions == 600
    truth = {(0, 0): [0, 0, 1], (0, 1): [0.5, 0.5, 0], (0, 2): [0, 0, 1],
             (1, 0): [0.5, 0.5, 0], (1, 1): [0, 0, 1], (1, 2): [0, 0, 1]}
    distances = {pair: 0.5 * np.abs(found.estimated[pair] - truth.get(pair, [0, 0, 1])).sum()
                 for pair in product(range(3), range(3))}
    assert found.counts.tolist() == [[56, 69, 59], [71, 70, 52], [67, 78, 78]]
    assert found.total_variation_max == max(distances.values()) > 0.05
    assert found.total_variation_mean == pytest.approx(
        sum(distances[pair] * found.counts[pair] for pair in distances) / 600, rel=1e-12)
    rare = compare_dynamics(artefacts, 2, 600, np.random.default_rng(0), min_count=70)
    assert rare.total_variation_max == distances[1, 0] < found.total_variation_max
    assert compare_dynamics(artefacts, 2, 600, np.random.default_rng(0),
                            min_count=72).total_variation_max == 0.0
    canonical = canonical_form(mdp)
    assert compare_dynamics(artefacts, 2, 50, rng, canonical).transitions == 50
    assert found.to_json() == {
        "transitions": 600, "matched_from": {"0": "s2a", "2": "s2b", "5": "s2c"},
        "matched_to": {"0": "s3a", "2": "s3b", "5": "s3c"},
        "total_variation_max": found.total_variation_max,
        "total_variation_mean": found.total_variation_mean}
    assert compare_dynamics(perfect_artefacts(mdp, forward={}, backward={}), 2, 10, rng) is None
    assert compare_dynamics(perfect_artefacts(mdp, covers=artefacts.covers[:1]), 2, 10,
                            rng) is None


# --- survivors of the first run -----------------------------------------------------------

def test_an_observation_without_encodings_has_no_class_in_the_agreement():
    roll_in = np.array([0.25, 0.0, 0.25, 0.125, 0.25, 0.125])
    c = compared({"a1": [0, 1], "b1": [1, 1], "c1": [0, 0], "c2": [2, 1], "d": [2, 2]},
                 roll_in=roll_in)
    shares = np.array([[0.5, 0.5, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0.5, 0.5],
                       [0, 0, 1]])
    assert c.pairwise_agreement == pytest.approx(brute_force_agreement(
        np.array([0, 0, 1, 2, 2, 3]), shares, roll_in), abs=1e-12)


def recorder(seen: list, output=None):
    """A policy or abstraction that keeps what it is given (and answers class/action 0)."""
    def function(vectors, step):
        seen.append((step, vectors))
        return np.zeros(len(vectors), dtype=int) if output is None else output(vectors)
    return function


def test_evaluate_abstraction_by_default_uses_the_papers_encoder_500_samples_and_seed_0():
    mdp = fork()
    seen = []
    report = evaluate_abstraction(mdp, recorder(seen))
    assert (report.samples, report.seed) == (500, 0)
    expected = EncodedObservations(mdp, None, 500, 0)
    assert seen[0][0] == 1 and np.array_equal(seen[0][1], expected.step(1)[1])
    assert np.array_equal(seen[-1][1], expected.step(3)[1])
    seen.clear()
    evaluate_abstraction(mdp, recorder(seen), samples=2, seed=7)
    assert np.array_equal(seen[-1][1], EncodedObservations(mdp, None, 2, 7).step(3)[1])
    with pytest.raises(ValueError, match=r"^phi\(observations, 1\)"):
        evaluate_abstraction(mdp, lambda x, step: [0], ENCODER, samples=2)


def test_evaluate_policies_by_default_uses_the_papers_encoder_500_samples_and_seed_0():
    mdp = fork()
    seen = []
    report = evaluate_policies(mdp, [recorder(seen)])
    assert (report.samples, report.seed) == (500, 0)
    expected = EncodedObservations(mdp, None, 500, 0)
    assert np.array_equal(seen[0][1], expected.step(1)[1])
    seen.clear()
    evaluate_policies(mdp, [recorder(seen)], samples=2, seed=7)
    assert np.array_equal(seen[-1][1], EncodedObservations(mdp, None, 2, 7).step(3)[1])
    with pytest.raises(ValueError, match=r"^policies: the key 5 is not a time step"):
        evaluate_policies(mdp, {5: [recorder(seen)]})


def test_too_many_samples_are_refused_naming_what_is_being_done():
    with pytest.raises(Exception, match=r"scoring policies with samples=10000000000000 on 'fork'"):
        evaluate_policies(fork(), [every_fourth], samples=10 ** 13)
    with pytest.raises(Exception,
                       match=r"scoring an abstraction with samples=10000000000000 on 'fork'"):
        evaluate_abstraction(fork(), recorder([]), samples=10 ** 13)


def test_a_latent_policy_knows_its_mdp():
    latent = LatentPolicies(EncodedObservations(fork(), ENCODER, 4, 0))
    remembered, _ = latent.latent(every_fourth)
    fresh, _ = latent.latent(every_fourth, remember=False)
    assert remembered.mdp is latent.floats and fresh.mdp is latent.floats
    assert [p.tolist() for p in fresh.action_probabilities] == [
        [[0.75, 0.25]], [[0.75, 0.25]] * 6, [[0.75, 0.25]] * 2]


def test_default_names_of_a_policy_in_errors():
    latent = LatentPolicies(EncodedObservations(fork(), ENCODER, 2, 0))
    with pytest.raises(ValueError, match=r"^policy\(observations, 1\)"):
        latent.visitation(lambda x, step: [0])
    with pytest.raises(ValueError, match=r"^policy\(observations, 1\)"):
        latent.value(lambda x, step: [0])


def test_the_standard_error_of_probabilities_uses_their_squares():
    """Observation a2 of step 2 gets (1/2, 1/2), (1, 0), (1, 0): variance 3/4 - (5/6)^2."""
    latent = LatentPolicies(EncodedObservations(fork(), ENCODER, 3, 0))

    def answer(vectors, step):
        rows = np.tile([1.0, 0.0], (len(vectors), 1))
        if step == 2:
            rows[3] = [0.5, 0.5]
        return rows
    assert latent.latent(answer)[1] == pytest.approx(
        (0.0, math.sqrt((0.75 - (5 / 6) ** 2) / 3), 0.0), rel=1e-9)


def test_a_variance_rounded_below_zero_counts_as_zero():
    """Three encodings of (0.2, 0.8) have a variance of -7e-18 in floats: clipped to 0, it
    leaves the standard error of the other observations."""
    latent = LatentPolicies(EncodedObservations(fork(), ENCODER, 3, 0))

    def answer(vectors, step):
        rows = np.tile([0.2, 0.8], (len(vectors), 1))
        if step == 2:
            rows[:3] = [[1, 0], [0, 1], [0, 1]]
        return rows
    assert latent.latent(answer)[1] == pytest.approx((0.0, math.sqrt(2 / 27), 0.0), rel=1e-12)


def test_the_cover_of_a_horizon_of_one_step():
    cover = CoverReport("one", 7, 2, [{"step": 1, "alpha_min": 1.0}], None, None, None)
    text = format_evaluation(evaluation(cover)).splitlines()
    assert text[-2:] == ["policy cover: horizon 1 (step 1 needs no policy)",
                         "values: none (the MDP has no rewards)"]


def two_step_policy(mdp: BlockMDP) -> LinearPolicy:
    """a2 at layer 1, a3 at layer 2 (everywhere)."""
    return policy(mdp, {"s1a": "a2", "s1b": "a2", "s2a": "a3", "s2b": "a3", "s2c": "a3"}, 2)


def test_linear_policies_read_each_steps_weights_and_cache_by_weights_biases_and_encodings():
    mdp = lock()
    act = LinearPolicies(3).policy(two_step_policy(mdp))
    assert act(encodings(mdp, 0), 1).tolist() == [1, 1]
    assert act(encodings(mdp, 1), 2).tolist() == [2, 2, 2]
    weight, bias = reader(mdp, [[0], [1], []])  # s1a -> a1, s1b -> a2
    other_weight, _ = reader(mdp, [[1], [0], []])
    linear = LinearPolicies(3)
    x = encodings(mdp, 0)
    first = linear.policy(LinearPolicy([weight], [bias]))
    assert first(x, 1).tolist() == [0, 1]
    assert linear.policy(LinearPolicy([other_weight], [bias]))(x, 1).tolist() == [1, 0]
    shifted = bias + np.array([0, 0, 10], dtype=np.float32)
    assert linear.policy(LinearPolicy([weight], [shifted]))(x, 1).tolist() == [2, 2]
    assert first(x[::-1].copy(), 1).tolist() == [1, 0]


def test_compare_dynamics_counts_pairs_seen_min_count_times():
    mdp = lock()
    found = compare_dynamics(perfect_artefacts(mdp), 2, 200, np.random.default_rng(30))
    assert found.counts[0, 1] == 20
    assert found.total_variation_max == pytest.approx(2 / 15, abs=1e-12)
    assert compare_dynamics(perfect_artefacts(mdp), 2, 200, np.random.default_rng(30),
                            min_count=1000).total_variation_max == 0.0


def test_learned_classes_matched_to_one_canonical_state_add_up():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    apart = perfect_artefacts(mdp, backward={**artefacts.backward, 3: abstraction(mdp, [0, 1, 2])})
    found = compare_dynamics(apart, 3, 300, np.random.default_rng(0))
    assert found.matched_to == {0: "s4a+s4b", 1: "s4a+s4b", 2: "s4c"}
    assert found.total_variation_mean == pytest.approx(0.0, abs=1e-12)


def test_the_dynamics_use_the_canonical_form_given():
    mdp = lock()
    other = canonical_form(combination_lock(4, 3, 2))  # the same names, other good actions
    own = compare_dynamics(perfect_artefacts(mdp), 2, 100, np.random.default_rng(0))
    found = compare_dynamics(perfect_artefacts(mdp), 2, 100, np.random.default_rng(0), other)
    assert found.matched_from == own.matched_from
    assert own.total_variation_mean < 0.1 < 0.3 < found.total_variation_mean


def test_the_dynamics_need_phi_bar_on_both_layers():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    without_first = perfect_artefacts(mdp, forward={0: artefacts.forward[0]},
                                      backward={2: artefacts.backward[2]})
    assert compare_dynamics(without_first, 2, 10, np.random.default_rng(0)) is None
    without_second = perfect_artefacts(mdp, forward={1: artefacts.forward[1]}, backward={})
    assert compare_dynamics(without_second, 2, 10, np.random.default_rng(0)) is None


def test_unseen_pairs_raise_no_warning():
    mdp = lock()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = compare_dynamics(perfect_artefacts(mdp), 2, 5, np.random.default_rng(0))
    assert (found.counts == 0).any() and np.isnan(found.estimated).any()


def test_compare_run_by_default_and_with_a_seed():
    mdp = lock()
    noisy = perfect_artefacts(mdp, encoder=HadamardNoise())
    default = compare_run(noisy, transitions=20)
    assert default.samples == 500 and default.merge_threshold == 0.05
    assert {c.merge_threshold for step in default.abstractions.values()
            for c in step.values()} == {0.05}
    strict = compare_run(noisy, samples=3, transitions=20, merge_threshold=0.5)
    assert strict.merge_threshold == strict.to_json()["merge_threshold"] == 0.5
    assert {c.merge_threshold for step in strict.abstractions.values()
            for c in step.values()} == {0.5}
    assert all(s["abstractions"][kind]["merge_threshold"] == 0.5 for s in strict.steps
               for kind in s["abstractions"])
    seeded = compare_run(noisy, samples=3, transitions=20, seed=4)
    rng = np.random.default_rng([4, 0, 2])
    for h in (1, 2, 3):
        assert np.array_equal(compare_dynamics(noisy, h, 20, rng).counts,
                              seeded.dynamics[h + 1].counts)
    zero = compare_run(noisy, samples=3, transitions=20, seed=0)
    rng = np.random.default_rng([0, 0, 2])
    assert np.array_equal(compare_dynamics(noisy, 1, 20, rng).counts, zero.dynamics[2].counts)
    assert json.dumps(zero.to_json()) == json.dumps(
        compare_run(noisy, samples=3, transitions=20).to_json())
    with pytest.raises(Exception, match=r"comparing with samples=10000000000000 and "
                       r"transitions=20 on 'combolock"):
        compare_run(noisy, samples=10 ** 13, transitions=20)


def test_compare_run_uses_the_runs_encoder_and_seed_for_the_encodings():
    mdp = lock()
    seen = []
    artefacts = perfect_artefacts(mdp, encoder=HadamardNoise())
    recording = Recording(artefacts.backward[1].classes, seen)
    compare_run(perfect_artefacts(mdp, encoder=HadamardNoise(),
                                  backward={**artefacts.backward, 1: recording}),
                samples=2, transitions=10, seed=5)
    assert np.array_equal(seen[0], EncodedObservations(mdp, HadamardNoise(), 2, 5).step(2)[1])


class Recording:
    """A learned abstraction that keeps the encodings it classifies."""

    def __init__(self, classes, seen: list) -> None:
        self.bias, self.answer, self.seen = np.zeros(2), classes, seen

    def classes(self, vectors):
        self.seen.append(vectors)
        return self.answer(vectors)


class Flaky:
    """A learned abstraction whose first ``good`` calls answer ``classes`` and later ones
    fractions."""

    def __init__(self, classes, good: int) -> None:
        self.bias, self.answer, self.good = np.zeros(3), classes, good

    def classes(self, vectors):
        self.good -= 1
        answer = self.answer(vectors)
        return answer if self.good >= 0 else answer + 0.25


@pytest.mark.parametrize("kind, good, name", [("backward", 0, "phi_B"), ("forward", 0, "phi_F"),
                                              ("forward", 1, "phi-bar")])
def test_compare_run_names_the_abstraction_in_errors(kind, good, name):
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    learned = getattr(artefacts, kind)[1]
    bad = perfect_artefacts(mdp, **{kind: {**getattr(artefacts, kind),
                                           1: Flaky(learned.classes, good)}})
    with pytest.raises(ValueError, match=rf"^{re.escape(name)}\(observations, 2\)"):
        compare_run(bad, samples=2, transitions=10)


def wild_policy(mdp: BlockMDP) -> LinearPolicy:
    """A policy answering a fourth action (index 3) of the lock's three."""
    weight, _ = reader(mdp, [[], [], [], [0, 1]])
    return LinearPolicy([weight], [np.zeros(4, np.float32)])


def test_compare_run_names_the_policies_in_errors():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    covers = [artefacts.covers[0], [wild_policy(mdp)], *artefacts.covers[2:]]
    with pytest.raises(ValueError, match=r"^the run's cover Psi\[2\]\[0\]\(observations, 1\) "
                       r"returned the action 3 at row 0"):
        compare_run(perfect_artefacts(mdp, covers=covers), samples=2, transitions=10)
    with pytest.raises(ValueError, match=r"^the learned policy\(observations, 1\) returned the "
                       r"action 3"):
        compare_run(perfect_artefacts(mdp, policy=wild_policy(mdp)), samples=2, transitions=10)


def test_episodes_logged_beyond_the_covers_are_left_out_of_the_visits():
    mdp = lock()
    artefacts = perfect_artefacts(mdp)
    stopped = perfect_artefacts(mdp, covers=artefacts.covers[:2], policy=None)
    found = compare_run(stopped, samples=2, transitions=10)
    assert [c.sum() for c in found.visitation_counts] == pytest.approx([200.0, 200.0, 100.0, 0])


def comparison_report(value: float | None) -> ComparisonReport:
    """Step 1's phi_F: a single-state step, its encodings scattered (left out of the largest
    misassigned share)."""
    mdp = lock()
    found = compare_run(perfect_artefacts(mdp), samples=2, transitions=10)
    return ComparisonReport(found.mdp, 6, found.steps[:3], value, 0.875,
                            None if value is None else 0.0625,
                            {1: {"forward": one_class(0.65, splits=1),
                                 "ki": comparison(0, 1, 0.0, 0.5)},
                             3: {"ki": comparison(1, 0, 0.25, 0.25),
                                 "backward": comparison(2, 0, 0.0, 0.125, kind="backward")},
                             2: {"ki": comparison(0, 0, 0.125, 0.375)}}, {}, [],
                            merge_threshold=0.2)


def test_the_summary_of_a_comparison():
    text = format_summary(comparison_report(0.5)).splitlines()
    assert text[:10] == [
        "combolock-H4-K3-seed0 vs the exact answers: 3 time steps, 6 encodings of each latent "
        "observation",
        "  learned vs exact                 steps with wrong merges   wrong merges   steps with "
        "splits   max misassigned",
        "  phi-bar = (phi_F, phi_B) vs KI   1 of 3 (step 3)           1              1 of 3 "
        "(step 1)     0.250 (step 3)",
        "  phi_B vs backward KI             1 of 1 (step 3)           2              0 of 1    "
        "          0.000",
        "  phi_F vs forward KI              0 of 1                    0              1 of 1 "
        "(step 1)     -",
        "  phi-bar = (phi_F, phi_B) vs KI wrong merges:",
        "    step 3: 100.0% of x0's encodings in a learned class holding 100.0% of x1's "
        "(standard error 0.0%)",
        "  phi_B vs backward KI wrong merges:",
        "    step 3: 100.0% of x0's encodings in a learned class holding 100.0% of x1's "
        "(standard error 0.0%)",
        "    step 3: 100.0% of x0's encodings in a learned class holding 100.0% of x2's "
        "(standard error 0.0%)"]
    assert text[10:20] == list(summary_legend(0.2))
    assert text[10].startswith("  wrong merge: a pair of exact classes with a merge rate above "
                               "0.2 (")
    # phi-bar's agreement only (phi_F's and phi_B's are lower)
    assert text[20:25] == [
        "pairwise agreement with the latent states: lowest 0.250 (step 3), mean 0.375 over the "
        "steps", *agreement_lines({1: comparison(agreement=0.25)})[1:]]
    assert text[25:] == [
        "policy cover: alpha 1.000 at each of steps 2-3 (step 1 needs no policy)",
        "  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
        "(def:policy-cover)",
        "learned policy: value 0.500 vs optimal 0.875",
        "  exact, given its action probabilities at the latent observations, each the share of "
        "the 6",
        "  encodings of an observation on which it takes the action (largest standard error: "
        "0.062)"]
    stopped = format_summary(comparison_report(None)).splitlines()
    assert stopped[20:] == [
        *text[20:27], "learned policy: none (the run stopped before the reward-sensitive PSDP)"]
    report = comparison_report(None)
    report.steps[1:], report.uncovered = [], [2, 3]
    assert format_summary(report).splitlines()[25] == (
        "policy cover: alpha not defined - steps 2-3 have no policies (the run stopped before "
        "learning them)")


def test_policies_sharing_some_arrays_are_not_confused():
    """The cached actions are keyed by the very weight and bias of the step: two policies that
    share their step-1 weight and step-2 bias (or step-2 weight and step-1 bias) differ at
    step 2."""
    mdp = lock()
    x = encodings(mdp, 1)
    w1, b1 = reader(mdp, [[0, 1], [], []])
    first, shared_bias = reader(mdp, [[0, 1, 2], [], []])
    second, _ = reader(mdp, [[], [0, 1, 2], []])
    linear = LinearPolicies(3)
    assert linear.policy(LinearPolicy([w1, first], [b1, shared_bias]))(x, 2).tolist() == [0] * 3
    assert linear.policy(LinearPolicy([w1, second], [b1, shared_bias]))(x, 2).tolist() == [1] * 3
    shared_weight, b2 = reader(mdp, [[], [], []])
    shifted = b2 + np.array([0, 0, 1], dtype=np.float32)
    linear = LinearPolicies(3)
    assert linear.policy(LinearPolicy([w1, shared_weight], [b1, b2]))(x, 2).tolist() == [0] * 3
    assert linear.policy(LinearPolicy([w1, shared_weight], [b1, shifted]))(x, 2).tolist() == [
        2] * 3


def test_compare_run_draws_2000_transitions_by_default():
    mdp = lock()
    found = compare_run(perfect_artefacts(mdp), samples=1)
    assert [found.dynamics[step].transitions for step in (2, 3, 4)] == [2000] * 3
    assert found.dynamics[3].counts.sum() == 2000


def test_compare_run_encodes_with_the_runs_encoder():
    mdp = lock()
    seen = []
    encoder = HadamardNoise(noise_variance=0.3)
    artefacts = perfect_artefacts(mdp, encoder=encoder)
    recording = Recording(artefacts.backward[1].classes, seen)
    compare_run(perfect_artefacts(mdp, encoder=encoder,
                                  backward={**artefacts.backward, 1: recording}),
                samples=2, transitions=10, seed=5)
    assert np.array_equal(seen[0], EncodedObservations(mdp, encoder, 2, 5).step(2)[1])


def test_evaluate_policies_encodes_with_the_encoder_given():
    mdp = fork()
    seen = []
    encoder = HadamardNoise(noise_variance=0.3)
    evaluate_policies(mdp, [recorder(seen)], encoder, samples=2, seed=7)
    assert np.array_equal(seen[-1][1], EncodedObservations(mdp, encoder, 2, 7).step(3)[1])


# --- the review's changes -----------------------------------------------------------------

def test_a_pair_of_exact_classes_merged_by_two_learned_classes_is_one_wrong_merge():
    c = compared({"a1": [0], "a2": [1], "c1": [0], "c2": [1]})
    assert c.wrong_merges == 1 and c.splits == 2
    c = compared({"a1": [0], "a2": [1], "c1": [1], "c2": [0], "d": [1]})
    assert c.wrong_merges == 3  # a-c (twice), a-d, c-d


def test_compare_steps_calls_a_function_given_for_several_kinds_once_per_step():
    mdp = fork()
    encoded = EncodedObservations(mdp, ENCODER, 1, 0)
    seen, other_seen = [], []
    phi = recorder(seen)
    other = recorder(other_seen, lambda x: np.arange(len(x)))
    found = compare_steps(mdp, encoded, {2: {"ki": phi, "forward": phi, "backward": other},
                                         3: {"ki": phi}})
    assert [step for step, _ in seen] == [2, 3] and [step for step, _ in other_seen] == [2]
    assert found[2]["ki"].learned_classes == found[2]["forward"].learned_classes == [0]
    assert found[2]["backward"].learned_classes == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match=r"^phi_B\(observations, 2\)"):
        compare_steps(mdp, encoded, {2: {"backward": lambda x, step: [0]}},
                      names={"backward": "phi_B"})


def test_learned_classes_beyond_2_to_the_62_are_refused():
    vectors = np.zeros((2, 2))
    below = 2.0 ** 62 - 2 ** 9  # the float just below 2^62
    assert learned_classes(lambda x, step: [below, -below], vectors, 1).tolist() == [
        2 ** 62 - 2 ** 9, -(2 ** 62 - 2 ** 9)]
    for bad in ([2.0 ** 62, 0.0], [0.0, -(2.0 ** 62)], [3.0 ** 40, 0.0]):
        with pytest.raises(ValueError, match="must return integer classes"):
            learned_classes(lambda x, step, bad=bad: np.array(bad), vectors, 1)


def test_the_agreement_is_over_the_observations_with_encodings_their_roll_in_renormalised():
    roll_in = np.array([0.25, 0.25, 0.25, 0.25, 0.125, 0.125])  # a2 and c2 have no encodings
    c = compared({"a1": [0], "b1": [1], "c1": [2], "d": [2]}, roll_in=roll_in)
    seen = np.array([0, 2, 3, 5])
    expected = brute_force_agreement(np.array([0, 1, 2, 3]), np.eye(3)[[0, 1, 2, 2]],
                                     roll_in[seen] / roll_in[seen].sum())
    assert expected == pytest.approx(1 - 2 * (0.25 * 0.125) / 0.875 ** 2)
    assert c.pairwise_agreement == pytest.approx(expected, abs=1e-12)
    assert compared({"a2": [0]}, roll_in=np.array([1.0, 0, 0, 0, 0, 0])).pairwise_agreement is None
    assert compared({"a2": [0]}, roll_in=np.array([0, 1.0, 0, 0, 0, 0])).pairwise_agreement == 1.0


def test_the_majority_is_the_most_common_key_the_smallest_on_a_tie():
    assert majority(Counter([3, 3, 1])) == 3
    assert majority(Counter(["b", "a", "b", "a", "c"])) == "a"
    assert majority(Counter({5: 1})) == 5


# --- where the wrong merges are, one-line reprs, the roll-in's convention, the new errors -----

def test_merge_rates_take_the_learned_class_holding_the_most_of_both_classes():
    """Shares of the learned classes 5, 7, 9: a (1/2, 1/2, 0), b (0, 0, 1), c (7/8, 0, 1/8),
    d (0, 1, 0). rate(a -> c) = 1/2 (5 holds 7/8 of c), rate(a -> d) = 1/2 (7 holds all of d),
    rate(c -> b) = 1/8 (9 holds all of b): three wrong merges where the majority rule sees two.
    rate(c -> a) is 0: 5 holds less of a than of c (the rule before took 7/8 of c in a's
    majority class 5). A rate of 0 names the first learned class holding as much of the target
    (b -> d: 5, whose share of d, 0, equals b's)."""
    c = compared({"a1": [5, 5, 5, 7], "a2": [7, 7, 7, 5], "b1": [9, 9, 9, 9],
                  "c1": [9, 5, 5, 5], "c2": [5, 5, 5, 5], "d": [7, 7, 7, 7]})
    rates = {(p.first, p.second): [(leak.source, leak.target, leak.learned_class, leak.rate,
                                    leak.encodings, leak.target_share) for leak in p.leaks]
             for p in c.merge_rates}
    assert rates == {
        (0, 1): [(0, 1, 9, 0.0, 8, 1.0), (1, 0, 5, 0.0, 4, 0.5)],
        (0, 2): [(0, 2, 5, 0.5, 8, 0.875), (2, 0, 7, 0.0, 8, 0.5)],
        (0, 3): [(0, 3, 7, 0.5, 8, 1.0), (3, 0, 5, 0.0, 4, 0.5)],
        (1, 2): [(1, 2, 5, 0.0, 4, 0.875), (2, 1, 9, 0.125, 8, 1.0)],
        (1, 3): [(1, 3, 5, 0.0, 4, 0.0), (3, 1, 5, 0.0, 4, 0.0)],
        (2, 3): [(2, 3, 7, 0.0, 8, 1.0), (3, 2, 5, 0.0, 4, 0.875)]}
    assert [p.rate for p in c.merge_rates] == [0.0, 0.5, 0.5, 0.125, 0.0, 0.0]
    worst = c.merge_rates[1].worst
    assert (worst.source, worst.rate) == (0, 0.5)
    assert worst.standard_error == math.sqrt(0.5 * 0.5 / 8)
    assert c.merge_rates[3].worst.standard_error == math.sqrt(0.125 * 0.875 / 8)  # n: c's 8
    assert [(p.first, p.second) for p in c.merges] == [(0, 2), (0, 3), (1, 2)]
    assert c.wrong_merges == 3 and c.majority_wrong_merges == 2


def test_a_learned_class_holding_equal_shares_of_both_classes_counts():
    """C: 1/2 in 0, 1/2 in 1; D: 1/2 in 0, 1/4 in 1, 1/4 in 2. Learned class 0 holds as much
    of D as of C, and of C as of D: both rates 1/2 (a strict comparison would give 0 and 1/4)."""
    [pair] = merge_rates(np.array([[2, 2], [2, 1], [0, 1]]), [0, 1, 2])
    assert pair.leaks == (Leak(0, 1, 0, 0.5, math.sqrt(0.25 / 4), 4, 0.5),
                          Leak(1, 0, 0, 0.5, math.sqrt(0.25 / 4), 4, 0.5))
    assert pair.rate == 0.5 and pair.worst is pair.leaks[0]


def test_a_tie_between_learned_classes_goes_to_the_smallest():
    """C: 2/5 in 3, 2/5 in 8, 1/5 in 11; D: 3/5 in 3, 2/5 in 8. C -> D: 3 and 8 both hold 2/5
    of C and at least as much of D: 3, the smaller, holding 3/5 of D. D -> C: 8 (2/5 of each;
    3 holds less of C than of D)."""
    [pair] = merge_rates(np.array([[2, 3], [2, 2], [1, 0]]), [3, 8, 11])
    assert pair.leaks == (Leak(0, 1, 3, 0.4, math.sqrt(0.4 * 0.6 / 5), 5, 0.6),
                          Leak(1, 0, 8, 0.4, math.sqrt(0.4 * 0.6 / 5), 5, 0.4))
    assert pair.worst is pair.leaks[0]
    assert pair.leaks[0].to_json() == {
        "from": 0, "into": 1, "learned_class": 3, "rate": 0.4,
        "standard_error": math.sqrt(0.4 * 0.6 / 5), "encodings": 5, "target_share": 0.6}


def test_a_leak_into_the_minority_class_of_a_split_class_is_a_wrong_merge():
    """a split 50/50 between 5 (its majority class, the smaller on the tie) and 7; 4 of c's 10
    encodings in 7: neither 5 nor c's majority class 9 holds both, but 7 holds 40% of c and
    half of a - a policy rewarded for 7 cannot tell c from a."""
    c = compared({"a1": [5, 5, 5, 5], "a2": [7, 7, 7, 7], "c1": [9, 9, 9, 7, 7],
                  "c2": [9, 9, 9, 7, 7]})
    assert [p.rate for p in c.merge_rates] == [0.4]  # 0 by D's majority class alone
    [merge] = c.merge_rates
    assert merge.leaks == (Leak(0, 2, 9, 0.0, 0.0, 8, 0.6),
                           Leak(2, 0, 7, 0.4, math.sqrt(0.4 * 0.6 / 10), 10, 0.5))
    assert merge.rate == 0.4 and merge.worst is merge.leaks[1]
    assert c.wrong_merges == 1 and c.majority_wrong_merges == 0


def test_merge_rates_from_a_confusion_matrix_leave_out_classes_without_encodings():
    # exact classes 0 and 2 have no encodings; 1: 2 in learned class 4, 1 in 8; 3: 3 in 8
    [only] = merge_rates(np.array([[0, 2, 0, 0], [0, 1, 0, 3]]), [4, 8])
    assert (only.first, only.second) == (1, 3)
    assert only.leaks == (Leak(1, 3, 8, 1 / 3, math.sqrt(1 / 3 * (2 / 3) / 3), 3, 1.0),
                          Leak(3, 1, 4, 0.0, 0.0, 3, 2 / 3))
    assert only.rate == 1 / 3 and only.worst is only.leaks[0]
    assert merge_rates(np.array([[5, 0], [0, 0]]), [0, 1]) == []


def test_the_larger_leak_of_a_pair_is_the_first_on_a_tie():
    assert pair(0, 1, 0.5, 0.5).worst.source == 0
    assert pair(0, 1, 0.25, 0.5).worst.source == 1 and pair(0, 1, 0.25, 0.5).rate == 0.5
    assert pair(0, 1, 0.5, 0.25).worst.source == 0
    assert pair(2, 5, 0.5, 0.25, held=(0.75, 0.5)).to_json() == {
        "classes": [2, 5], "rate": 0.5, "standard_error": 0.05, "leaks": [
            {"from": 2, "into": 5, "learned_class": 5, "rate": 0.5, "standard_error": 0.05,
             "encodings": 100, "target_share": 0.75},
            {"from": 5, "into": 2, "learned_class": 2, "rate": 0.25,
             "standard_error": math.sqrt(0.25 * 0.75 / 100), "encodings": 100,
             "target_share": 0.5}]}


def test_a_wrong_merge_is_a_merge_rate_strictly_above_the_threshold():
    labels = {"a1": [5, 5, 5, 7], "a2": [7, 7, 7, 5], "b1": [9, 9, 9, 9],
              "c1": [9, 5, 5, 5], "c2": [5, 5, 5, 5], "d": [7, 7, 7, 7]}
    ids, learned = labelled(labels)

    def merged(threshold: float) -> list[tuple[int, int]]:
        found = compare_classes(fork(), 2, "ki", EACH_STATE, ids, learned,
                                merge_threshold=threshold)
        assert found.merge_threshold == threshold
        assert found.to_json()["merge_threshold"] == threshold
        return [(p.first, p.second) for p in found.merges]

    assert merged(0.125) == [(0, 2), (0, 3)]  # 1/8 is not above 1/8
    assert merged(0.1) == [(0, 2), (0, 3), (1, 2)]
    assert merged(0.25) == [(0, 2), (0, 3)]
    assert merged(0.0) == [(0, 2), (0, 3), (1, 2)]
    assert merged(0.5) == []
    # equal rates keep the order of the pairs
    one = compared({"a1": [0], "b1": [0], "c1": [0]})
    assert [(p.first, p.second) for p in one.merges] == [(0, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize("threshold", [-0.01, 1.0, 1.5, float("nan")])
def test_a_merge_threshold_outside_0_to_1_is_refused_before_any_work(threshold):
    message = r"^merge_threshold must be a finite number in \[0, 1\), got "
    ids, learned = labelled({"a1": [0]})
    with pytest.raises(ValueError, match=message):
        compare_classes(fork(), 2, "ki", EACH_STATE, ids, learned, merge_threshold=threshold)

    def never(observations, step):
        raise AssertionError("phi called")

    with pytest.raises(ValueError, match=message):
        evaluate_abstraction(fork(), never, ENCODER, samples=1, merge_threshold=threshold)
    with pytest.raises(ValueError, match=message):
        compare_run(perfect_artefacts(lock(), covers=None), samples=1,
                    merge_threshold=threshold)


def test_two_split_classes_sharing_a_minority_class_have_a_merge_rate():
    """a's majority class is 5, c's 9; their minority observations a2 and c2 both go to 7, a
    class holding a quarter of each: merge rate 1/4 (the majority class of neither, so a rate by
    majority classes would be 0), and a majority wrong merge."""
    c = compared({"a1": [5, 5, 5], "a2": [7], "c1": [9, 9, 9], "c2": [7]})
    assert c.assignment == {"a1": 5, "a2": 7, "c1": 9, "c2": 7}
    [pair] = c.merge_rates
    assert pair.rate == 0.25 and pair.worst.learned_class == 7
    assert pair.worst.target_share == 0.25
    assert c.wrong_merges == 1 and c.majority_wrong_merges == 1 and c.splits == 2


def test_class_text_names_a_lone_state_and_braces_several():
    assert class_text(["s2c"]) == "s2c"
    assert class_text(["s2a", "s2b"]) == "{s2a, s2b}"
    assert class_text(["A\neta = 1"]) == "'A\\neta = 1'"
    assert class_text(["A\neta = 1", "b, c"]) == "{'A\\neta = 1', 'b, c'}"


def merging(blocks: list[list[str]], pairs: list[MergeRate],
            threshold: float = MERGE_THRESHOLD) -> AbstractionComparison:
    """A step with the exact classes ``blocks`` and the merge rates ``pairs``."""
    return AbstractionComparison("ki", blocks, [], np.zeros((0, 0), dtype=np.int64), {}, 0.0, 0,
                                 1.0, 1.0, None, pairs, threshold)


def test_merge_text_names_the_larger_leak_its_rate_and_standard_error():
    step = merging([["s3a", "s3b"], ["s3c"]], [pair(0, 1, 0.0, 0.4, held=(0.25, 0.75))])
    assert merge_text(step, step.merge_rates[0]) == (
        "40.0% of s3c's encodings in a learned class holding 75.0% of {s3a, s3b}'s (standard "
        "error 4.9%)")
    step = merging([["s3a"], ["s3b", "s3c"]], [pair(0, 1, 0.0625, 0.0, held=(0.5, 1.0))])
    assert merge_text(step, step.merge_rates[0]) == (
        "6.2% of s3a's encodings in a learned class holding 50.0% of {s3b, s3c}'s (standard "
        "error 2.4%)")


def test_merge_lines_name_each_wrong_merge_by_step_then_largest_rate():
    blocks = [["a"], ["b"], ["c"], ["d"]]
    two = merging(blocks, [pair(0, 1, 0.25), pair(0, 2, 0.04), pair(2, 3, 0.0, 0.5)])
    one = merging([["s2a", "s2b"], ["s2c"]], [pair(0, 1, 0.0, 0.4)])
    assert merge_lines({"phi vs KI": {4: two, 2: one, 1: comparison()}, "clean": {1: comparison()},
                        "empty": {}, "phi_B": {3: one}}) == [
        "  phi vs KI wrong merges:",
        "    step 2: 40.0% of s2c's encodings in a learned class holding 100.0% of {s2a, s2b}'s "
        "(standard error 4.9%)",
        "    step 4: 50.0% of d's encodings in a learned class holding 100.0% of c's (standard "
        "error 5.0%)",
        "    step 4: 25.0% of a's encodings in a learned class holding 100.0% of b's (standard "
        "error 4.3%)",
        "  phi_B wrong merges:",
        "    step 3: 40.0% of s2c's encodings in a learned class holding 100.0% of {s2a, s2b}'s "
        "(standard error 4.9%)"]
    assert merge_lines({"clean": {1: comparison(), 2: comparison()}}) == []
    strict = merging(blocks, [pair(0, 1, 0.25), pair(0, 2, 0.5)], threshold=0.25)
    assert merge_lines({"phi": {1: strict}}) == [
        "  phi wrong merges:",
        "    step 1: 50.0% of a's encodings in a learned class holding 100.0% of c's (standard "
        "error 5.0%)"]


def test_merge_lines_show_the_first_wrong_merges_and_count_the_rest():
    steps = {h: merging([[f"s{h}a"], [f"s{h}b"]], [pair(0, 1, 1.0)]) for h in (6, 2, 3, 5, 4)}
    steps[1] = comparison()
    lines = [f"    step {h}: 100.0% of s{h}a's encodings in a learned class holding 100.0% of "
             f"s{h}b's (standard error 0.0%)" for h in range(2, 7)]
    assert merge_lines({"phi": steps}) == [
        "  phi wrong merges:", *lines[:3],
        "    ... (2 more; report.json has every merge rate)"]
    assert merge_lines({"phi": steps}, shown=4) == [
        "  phi wrong merges:", *lines[:4],
        "    ... (1 more; report.json has every merge rate)"]
    assert merge_lines({"phi": steps}, shown=5) == ["  phi wrong merges:", *lines]
    three = {h: steps[h] for h in (2, 3, 4)}
    assert merge_lines({"phi": three}) == ["  phi wrong merges:", *lines[:3]]


def test_an_abstraction_report_prints_as_one_line_naming_the_steps_with_wrong_merges():
    report = evaluation(None).report
    assert repr(report) == (
        "<AbstractionReport on 'lock': 3 steps, 7 encodings per observation (seed 2); steps "
        "with wrong merges (merge rate above 0.1) vs backward [1], forward none, ki [2]>")
    clean = AbstractionReport("m", 1, 0, [dict.fromkeys(["ki", "backward", "forward"],
                                                        comparison())])
    assert repr(clean) == ("<AbstractionReport on 'm': 1 steps, 1 encodings per observation "
                           "(seed 0); steps with wrong merges (merge rate above 0.05) vs "
                           "backward none, forward none, ki none>")


def test_a_cover_report_prints_its_smallest_alpha_after_step_1_and_its_best_value():
    assert repr(cover_report([0.25, 0.625, 0.5], [0.1, 0.1, 0.1])) == (
        "<CoverReport on 'lock': smallest alpha 0.250 (step 3); best value 0.625 of V* 0.875>")
    assert repr(cover_report(None, None)) == (
        "<CoverReport on 'lock': smallest alpha 0.250 (step 3)>")
    # step 1's alpha is left out unless it is the only step; ties go to the first step
    report = CoverReport("m", 1, 0, [{"step": 1, "alpha_min": 0.125},
                                     {"step": 2, "alpha_min": 0.5},
                                     {"step": 4, "alpha_min": 0.5}], None, None, None)
    assert repr(report) == "<CoverReport on 'm': smallest alpha 0.500 (step 2)>"
    alone = CoverReport("m", 1, 0, [{"step": 1, "alpha_min": 1.0}], [0.75], [0.0], 1.0)
    assert repr(alone) == ("<CoverReport on 'm': smallest alpha 1.000 (step 1); best value 0.750 "
                           "of V* 1.000>")


def detour() -> BlockMDP:
    """``s`` -x-> ``u`` or ``v`` (1/2 each), -y-> ``v``; ``u`` -x-> ``w``, -y-> ``z1``;
    ``v`` -x-> ``z1``, -y-> ``z2``: ``w`` cannot be reached from ``v``, which its homing
    policy reaches with probability 1/2."""
    return block_mdp(
        "detour", [["s"], ["u", "v"], ["w", "z1", "z2"]], ["x", "y"], {"s": 1},
        {"s": {"x": {"u": "1/2", "v": "1/2"}, "y": {"v": 1}},
         "u": {"x": {"w": 1}, "y": {"z1": 1}}, "v": {"x": {"z1": 1}, "y": {"z2": 1}}})


def test_the_roll_in_takes_the_first_action_off_the_targets_paths():
    """By hand, layer 3: homing on w takes x at s and u, and x (the first action) at v, off
    w's paths: w 1/2, z1 1/2. On z1, x and y tie at s (1 each): x, then y at u and x at v:
    z1 1. On z2: y at s, y at v: z2 1. The mean: w 1/6, z1 1/2, z2 1/3 (acting uniformly at v
    would give z1 5/12, z2 5/12). Layer 2: homing on u takes x (u 1/2, v 1/2), on v y (v 1):
    u 1/4, v 3/4."""
    mdp = detour()
    assert list(mdp.observations[1]) == ["u", "v"]
    assert list(mdp.observations[2]) == ["w", "z1", "z2"]
    roll_in = cover_roll_in(mdp)
    assert roll_in[0].tolist() == [1.0] and roll_in[1].tolist() == [0.25, 0.75]
    assert roll_in[2].tolist() == pytest.approx([1 / 6, 1 / 2, 1 / 3], abs=1e-15)


def test_encoded_observations_refuse_what_is_not_a_block_mdp():
    with pytest.raises(TypeError, match=r"^mdp must be a BlockMDP, got 'lock\.json' \(a spec "
                                        r"file is read by kinematic\.load_spec\(path\)\)$"):
        EncodedObservations("lock.json", ENCODER, 1, 0)


@pytest.mark.parametrize("policies, shown", [(every_fourth, "<function every_fourth"),
                                             ("mod:pi", "'mod:pi'")])
def test_one_policy_or_a_string_where_a_cover_is_expected_is_refused(policies, shown):
    with pytest.raises(TypeError, match=r"^mine must be a list of policies \(the cover of every "
                                        r"step\) or a dict step -> list, got " + re.escape(shown)
                                        + r".*: one policy is the list \[policy\]$"):
        read_cover(fork(), policies, "mine")


def test_a_phi_returning_none_is_named():
    with pytest.raises(ValueError, match=r"^mine\(observations, 2\) returned None; expected one "
                                         r"integer class per row of the 3 observations$"):
        learned_classes(lambda x, step: None, np.zeros((3, 2)), 2, "mine")


def test_evaluate_abstraction_scores_against_the_partitions_it_is_given():
    """Partitions passed in (computed once by ``homer evaluate``) are the ones compared with:
    here a KI partition of singletons, which the constant phi merges at every step of the lock
    with more than one state."""
    from kinematic.partition import Partition
    mdp = lock()
    singletons = Partition.from_blocks(mdp, [[s] for layer in mdp.layers for s in layer])
    given = {**exact_partitions(mdp), "ki": singletons}
    report = evaluate_abstraction(mdp, lambda x, step: np.zeros(len(x), dtype=int), samples=2,
                                  partitions=given)
    assert [step["ki"].wrong_merges for step in report.steps] == [
        len(layer) * (len(layer) - 1) // 2 for layer in mdp.layers]
    assert report.steps[1]["ki"].exact_classes == [[s] for s in mdp.layers[1]]
