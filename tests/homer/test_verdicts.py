"""The verdicts of ``python -m homer counterexamples`` on hand-built rows and comparison
reports with known answers: no training, seconds in all (``make mutants`` selects this file for
the mutants of :mod:`homer.counterexamples`; the learning runs are in test_counterexamples.py)."""

import json
from fractions import Fraction

import numpy as np
import pytest

import homer.counterexamples as counterexamples
from homer.compare import AbstractionComparison, ComparisonReport
from homer.counterexamples import (
    ALPHA_TOLERANCE,
    CASES,
    HOMER_ALPHA,
    SUMMARY_FIELDS,
    Case,
    _found_cases,
    _prediction,
    _row,
    as_predicted,
    classes_partition,
    counterexample_table,
    exact_prediction,
    fails_as_predicted,
    homer_succeeds,
    learned_partitions,
    row_summary,
)
from kinematic import InvalidPartition, UnknownName
from kinematic.counterexamples.mdps import (
    autoencoder_exploration_counterexample,
    curiosity_counterexample,
    pcid_chain,
)
from kinematic.model import BlockMDP, block_mdp

CASE = {case.name: case for case in CASES}


def three_way_split() -> BlockMDP:
    """One state, three actions, each to its own state: the best single policy reaches each
    state with probability 1/3 (uniform), and each is reachable with probability 1."""
    return block_mdp("three-way", [["s"], ["t1", "t2", "t3"]], ["a", "b", "c"], {"s": 1},
                     {"s": {"a": {"t1": 1}, "b": {"t2": 1}, "c": {"t3": 1}}})


def single_chain() -> BlockMDP:
    """One state per layer: every abstraction has one class per layer."""
    return block_mdp("chain", [["s"], ["t"], ["u"]], ["a", "b"], {"s": 1},
                     {"s": {"a": {"t": 1}, "b": {"t": 1}}, "t": {"a": {"u": 1}, "b": {"u": 1}}})


def _abstraction(kind: str, assignment: dict[str, int]) -> AbstractionComparison:
    """A layer's learned classes: only ``assignment`` is read by the rows."""
    return AbstractionComparison(kind, [], [], np.zeros((0, 0)), assignment, 0.0, 0, 1.0, 1.0)


def _report(mdp: BlockMDP, alphas: list[float], backward: list[dict[str, int]],
            merging: dict[int, int], value: float | None = 0.5) -> ComparisonReport:
    """A comparison report: step ``h`` has alpha ``alphas[h]``; ``backward[h - 2]`` is phi_B
    on the observations of step ``h`` (from 2) (phi_F there: everything in one class, with 5 wrong
    merges at every step, to tell the kinds apart); ``merging[h]`` phi_B's wrong merges."""
    steps = [{"alpha_min": alpha, "wrong_merges": 7,
              "abstractions": {"backward": {"wrong_merges": merging.get(h, 0)},
                               "forward": {"wrong_merges": 5}}}
             for h, alpha in enumerate(alphas)]
    abstractions = {h: {"backward": _abstraction("backward", assignment),
                        "forward": _abstraction("forward", dict.fromkeys(assignment, 0))}
                    for h, assignment in enumerate(backward, start=2)}
    return ComparisonReport(mdp.name, 10, steps, value, 1.0, None, abstractions, {}, [])


def _labels(prediction: tuple) -> list[list[int]]:
    """The prediction's labels, after checking they are integer arrays."""
    assert all(labels.dtype == np.intp for labels in prediction[2])
    return [labels.tolist() for labels in prediction[2]]




# The verdicts -------------------------------------------------------------------------------


def test_an_alpha_up_to_the_prediction_plus_the_tolerance_fails_as_predicted():
    assert ALPHA_TOLERANCE == 0.05 and HOMER_ALPHA == 0.5
    for criterion in ("alpha", "abstract_alpha"):
        assert fails_as_predicted(criterion, 0.0, 0, Fraction(0))
        assert fails_as_predicted(criterion, 0.03, 0, Fraction(0))  # within the tolerance
        assert fails_as_predicted(criterion, 0.05, 0, Fraction(0))  # at it: 0 + 0.05 == 0.05
        assert not fails_as_predicted(criterion, 0.0501, 0, Fraction(0))
        assert fails_as_predicted(criterion, 0.0, 0, Fraction(1, 2))  # failing more than said
        assert fails_as_predicted(criterion, 0.54, 0, Fraction(1, 2))
        assert not fails_as_predicted(criterion, 0.56, 0, Fraction(1, 2))
        assert fails_as_predicted(criterion, 0.44, 3, 0.4)  # one_class's prediction, a float
        assert not fails_as_predicted(criterion, 0.46, 3, 0.4)


def test_under_the_merges_criterion_the_objective_must_also_merge_backward_ki_classes():
    assert fails_as_predicted("merges", 1.0, 1, Fraction(1))
    assert fails_as_predicted("merges", 1.0, 2, Fraction(1))
    assert not fails_as_predicted("merges", 1.0, 0, Fraction(1))  # no merge: not the failure
    assert not fails_as_predicted("merges", 0.5, 1, Fraction(0))  # merged, alpha not as said
    assert fails_as_predicted("alpha", 0.0, 0, Fraction(0))  # other criteria ignore merges


def test_homer_succeeds_from_an_alpha_of_one_half():
    assert homer_succeeds(0.5) and homer_succeeds(1.0)
    assert not homer_succeeds(0.4999)


def test_the_verdicts_of_numpy_alphas_are_python_bools_for_json():
    verdicts = [fails_as_predicted("alpha", np.float64(0.0), 0, Fraction(0)),
                fails_as_predicted("merges", np.float64(0.0), 1, Fraction(0)),
                homer_succeeds(np.float64(0.5))]
    assert [type(verdict) for verdict in verdicts] == [bool, bool, bool]
    assert json.dumps(verdicts) == "[true, true, true]"


def test_a_row_is_as_predicted_when_the_objective_fails_and_homer_succeeds():
    for fails in (True, False):
        for succeeds in (True, False):
            row = {"fails_as_predicted": fails, "homer_succeeds": succeeds}
            assert as_predicted(row) is (fails and succeeds)


# Exact predictions ------------------------------------------------------------------------


def test_the_exact_predictions_of_the_papers_cases():
    curiosity = curiosity_counterexample()
    # the inverse-dynamics abstraction merges s7 and s8: s8 is never reached
    for name in ("curiosity", "pcid_target"):
        prediction = _prediction(CASE[name], curiosity)
        assert prediction[:2] == (Fraction(0), 2) and type(prediction[0]) is Fraction
        assert _labels(prediction) == [[0, 0], [0, 0, 1, 1], [0, 0, 1]]
    # PCID's classes cannot undo a stochastic start: 1/2 whatever it learns
    prediction = _prediction(CASE["pcid_model_based"], pcid_chain(2))
    assert prediction[:2] == (Fraction(1, 2), 2) and type(prediction[0]) is Fraction
    assert _labels(prediction) == [[0, 0], [0, 1, 2]]
    # the autoencoder's best code mixes the states, its cover still reaches both
    prediction = _prediction(CASE["autoencoder"], autoencoder_exploration_counterexample())
    assert prediction[:2] == (Fraction(1), 2) and type(prediction[0]) is Fraction
    assert _labels(prediction) == [[0], [0, 0, 0, 1]]
    # one policy per layer: the best single policy's alpha, min over layers 2 and 3 (1/2, 2/5)
    prediction = _prediction(CASE["bisimulation"], curiosity)
    assert prediction[:2] == (0.4, 2)
    assert _labels(prediction) == [[0, 0], [0, 0, 0, 0], [0, 0, 0]]


def test_the_one_class_prediction_is_the_best_single_policy_rounded_to_four_decimals():
    case = Case("split", three_way_split, "one_class", None, "alpha")
    prediction = _prediction(case, three_way_split())
    assert prediction[:2] == (0.3333, 2)  # 1/3: the uniform policy
    assert _labels(prediction) == [[0], [0, 0, 0]]


def test_the_merges_prediction_breaks_ties_in_the_states_favour():
    """The best two-class code of three observations puts two together; a cover on it reaches
    both only when PSDP's tie between them is broken in each state's favour (1, not 0)."""
    case = Case("split", three_way_split, "autoencoder", None, "merges")
    prediction = _prediction(case, three_way_split())
    assert prediction[:2] == (Fraction(1), 2)
    assert _labels(prediction) == [[0], [0, 0, 1]]


def test_the_stored_instance_is_predicted_to_fail():
    (case,) = _found_cases()
    prediction = _prediction(case, case.mdp())
    assert prediction[:2] == (Fraction(0), 2)
    assert _labels(prediction) == [[0], [0, 1], [0, 1, 1]]


def test_an_objective_with_one_class_per_layer_still_gets_a_capacity_of_two():
    case = Case("chain", single_chain, "inverse_dynamics", "inverse_dynamics", "alpha")
    prediction = _prediction(case, single_chain())
    assert prediction[:2] == (Fraction(1), 2)
    assert _labels(prediction) == [[0], [0], [0]]


def test_stored_instances_become_cases_of_the_learned_objective(monkeypatch):
    mdp = curiosity_counterexample()
    monkeypatch.setattr(counterexamples, "stored_instances",
                        lambda: {"inverse_dynamics": ({}, mdp), "pcid_target": ({}, mdp)})
    cases = _found_cases()
    assert [(case.name, case.objective, case.exact_objective, case.criterion)
            for case in cases] == [
        ("found_inverse_dynamics", "inverse_dynamics", "inverse_dynamics", "alpha"),
        ("found_pcid_target", "pcid", "pcid_target", "alpha")]
    assert all(case.mdp() is mdp for case in cases)


# Rows ------------------------------------------------------------------------------------


def test_a_row_reads_the_objectives_and_homers_reports_against_the_prediction():
    mdp = curiosity_counterexample()
    case = CASE["curiosity"]
    objective = _report(mdp, [1.0, 1.0, 0.0],
                        [{"s3": 0, "s4": 0, "s5": 1, "s6": 1}, {"s7": 0, "s8": 0, "s9": 1}],
                        {1: 1, 2: 1}, value=0.123456)
    homer = _report(mdp, [1.0, 1.0, 0.99871],
                    [{"s3": 0, "s4": 1, "s5": 2, "s6": 3}, {"s7": 0, "s8": 1, "s9": 2}], {})
    row = _row(case, mdp, _prediction(case, mdp), objective, homer, 10.94)
    assert row == {**CURIOSITY_ROW, "value": 0.1235, "seconds": 10.9,
                   "exact_classes": [[["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]],
                                     [["s7", "s8"], ["s9"]]]}
    assert json.loads(json.dumps(row)) == row


def test_a_row_whose_objective_does_not_fail_and_whose_homer_merges_is_not_as_predicted():
    mdp = curiosity_counterexample()
    case = CASE["bisimulation"]
    objective = _report(mdp, [1.0, 0.50004, 0.6], [{"s3": 0, "s4": 0, "s5": 0, "s6": 0},
                                               {"s7": 0, "s8": 0, "s9": 0}], {}, value=None)
    homer = _report(mdp, [1.0, 0.7, 0.46], [{"s3": 0, "s4": 0, "s5": 1, "s6": 1},
                                            {"s7": 0, "s8": 1, "s9": 1}], {2: 2}, value=None)
    row = _row(case, mdp, _prediction(case, mdp), objective, homer, 3.04)
    assert row == {
        "name": "bisimulation", "objective": "one_class", "criterion": "alpha", "capacity": 2,
        "alpha_min": 0.5, "steps_with_wrong_merges": 0, "value": None, "exact_prediction": "0.4",
        "alpha_per_layer": [1.0, 0.5, 0.6],  # to 4 decimals
        "exact_classes": [[["s1", "s2"]], [["s3", "s4", "s5", "s6"]], [["s7", "s8", "s9"]]],
        "learned_classes": [[["s1", "s2"]], [["s3", "s4", "s5", "s6"]], [["s7", "s8", "s9"]]],
        "homer_alpha_min": 0.46, "homer_alpha_per_layer": [1.0, 0.7, 0.46],
        "homer_learned_classes": [[["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]],
                                  [["s7"], ["s8", "s9"]]],
        "homer_steps_with_wrong_merges": 1, "fails_as_predicted": False,
        "homer_succeeds": False, "seconds": 3.0}
    assert not as_predicted(row)


def test_pcids_row_judges_the_best_cover_of_policies_on_its_learned_classes():
    mdp = pcid_chain(2)
    case = CASE["pcid_model_based"]
    # the report's own cover reached 0.9; policies acting on the classes reach 1/2 at best
    objective = _report(mdp, [1.0, 0.9], [{"s2a": 0, "s2b": 0, "s2c": 1}], {})
    homer = _report(mdp, [1.0, 0.8], [{"s2a": 0, "s2b": 1, "s2c": 2}], {})
    row = _row(case, mdp, _prediction(case, mdp), objective, homer, 1.0)
    assert (row["alpha_min"], row["exact_prediction"]) == (0.5, "1/2")
    assert row["alpha_per_layer"] == [1.0, 0.9]
    assert row["learned_classes"] == [[["s1a", "s1b"]], [["s2a", "s2b"], ["s2c"]]]
    assert row["fails_as_predicted"] and row["homer_succeeds"]


def test_the_autoencoders_row_fails_as_predicted_only_when_it_merges():
    mdp = autoencoder_exploration_counterexample()
    case = CASE["autoencoder"]
    mixed = [{"00": 0, "01": 0, "10": 0, "11": 1}]
    homer = _report(mdp, [1.0, 1.0], [{"00": 0, "01": 0, "10": 1, "11": 1}], {})
    merged = _row(case, mdp, _prediction(case, mdp), _report(mdp, [1.0, 1.0], mixed, {1: 1}),
                  homer, 1.0)
    assert merged["learned_classes"] == [[["s"]], [["s0", "s1"], ["s1"]]]
    assert merged["steps_with_wrong_merges"] == 1 and merged["fails_as_predicted"]
    kept_apart = _row(case, mdp, _prediction(case, mdp), _report(mdp, [1.0, 1.0], mixed, {}),
                      homer, 1.0)
    assert kept_apart["steps_with_wrong_merges"] == 0 and not kept_apart["fails_as_predicted"]


def test_the_table_shows_each_rows_numbers_and_verdict():
    failing = {**CURIOSITY_ROW, "name": "bisimulation", "objective": "one_class",
               "alpha_min": 0.5, "exact_prediction": "0.4", "steps_with_wrong_merges": 0,
               "homer_alpha_min": 0.46, "homer_steps_with_wrong_merges": 1,
               "fails_as_predicted": False, "homer_succeeds": False, "seconds": 3.04}
    assert counterexample_table([CURIOSITY_ROW, failing]).splitlines() == [
        "case                       objective          alpha  pred. merges HOMER alpha merges "
        "as predicted      s",
        "curiosity                  inverse_dynamics   0.000      0      2       0.999      0 "
        "         yes   11.0",
        "bisimulation               one_class          0.500    0.4      0       0.460      1 "
        "          NO    3.0"]
    for verdicts in ({"fails_as_predicted": False}, {"homer_succeeds": False}):
        line = counterexample_table([{**CURIOSITY_ROW, **verdicts}]).splitlines()[1]
        assert line.split()[-2] == "NO"


# Rows read back ---------------------------------------------------------------------------


CURIOSITY_ROW = {
    "name": "curiosity", "objective": "inverse_dynamics", "criterion": "alpha", "capacity": 2,
    "alpha_min": 0.0, "exact_prediction": "0", "steps_with_wrong_merges": 2,
    "alpha_per_layer": [1.0, 1.0, 0.0], "homer_alpha_per_layer": [1.0, 1.0, 0.9987],
    "learned_classes": [[["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]], [["s7", "s8"], ["s9"]]],
    "homer_learned_classes": [[["s1", "s2"]], [["s3"], ["s4"], ["s5"], ["s6"]],
                              [["s7"], ["s8"], ["s9"]]],
    "homer_alpha_min": 0.9987, "homer_steps_with_wrong_merges": 0,
    "fails_as_predicted": True, "homer_succeeds": True, "seconds": 11.0}
"""A row as ``run_counterexamples`` returns it (made by hand: no training)."""


def test_a_state_split_across_classes_joins_them_into_one_block_named_in_the_kind():
    """The autoencoder's row lists s1 in two classes; the block holds s0 and s1 whichever
    class comes last (drawing a split state with its last class would hide the merge when the
    mixed class comes first)."""
    mdp = autoencoder_exploration_counterexample()
    for layer_2 in ([["s0", "s1"], ["s1"]], [["s1"], ["s0", "s1"]]):
        partition = classes_partition(mdp, [[["s"]], layer_2], "learned: autoencoder")
        assert partition.blocks(2) == [["s0", "s1"]]
        assert partition.kind == "learned: autoencoder; s1 split"


def test_classes_are_joined_only_through_a_state_they_share():
    mdp = curiosity_counterexample()
    layers = [[["s1"], ["s2"]], [["s3", "s4"], ["s5", "s6"]]]
    chained = classes_partition(mdp, [*layers, [["s7", "s8"], ["s8", "s9"]]])
    assert chained.blocks(3) == [["s7", "s8", "s9"]]
    apart = classes_partition(mdp, [*layers, [["s7"], ["s8", "s9"]]], "learned")
    assert apart.blocks(3) == [["s7"], ["s8", "s9"]]
    assert apart.blocks(2) == [["s3", "s4"], ["s5", "s6"]]
    assert apart.kind == "learned"  # nothing split, nothing said


def test_a_rows_learned_classes_become_the_objectives_and_homers_partitions():
    objective, homer = learned_partitions(curiosity_counterexample(), CURIOSITY_ROW)
    assert (objective.kind, homer.kind) == ("learned: inverse_dynamics", "learned: HOMER (phi_B)")
    assert objective.blocks(3) == [["s7", "s8"], ["s9"]]
    assert homer.blocks(3) == [["s7"], ["s8"], ["s9"]]
    assert objective.mdp is homer.mdp is not None  # drawable


def test_classes_of_another_mdp_are_refused_naming_the_entry():
    mdp = curiosity_counterexample()
    first, second = CURIOSITY_ROW["learned_classes"][:2]
    with pytest.raises(InvalidPartition, match=r"row\['x'\]\[2\]\[1\] \(layer 3\) names 's6', "
                       "a state of layer 2"):
        classes_partition(mdp, [first, second, [["s7", "s8"], ["s6", "s9"]]], argument="row['x']")
    with pytest.raises(InvalidPartition,
                       match=r"classes\[2\] \(layer 3\) leaves out state\(s\) s9"):
        classes_partition(mdp, [first, second, [["s7", "s8"]]])
    with pytest.raises(InvalidPartition) as error:
        classes_partition(mdp, [first, second, [["s7"]]])
    assert str(error.value) == ("classes[2] (layer 3) leaves out state(s) s8, s9: every state is "
                                "in a class (classes of another MDP?)")
    with pytest.raises(UnknownName) as error:
        classes_partition(mdp, [first, second, [["s7", "s8"], ["s99"]]])
    assert str(error.value) == "classes[2][1]: unknown state 's99' (did you mean 's9'?)"
    with pytest.raises(InvalidPartition) as error:
        classes_partition(mdp, [first, second])
    assert str(error.value) == (
        "classes must hold the classes of each of the 3 layers of 'curiosity-counterexample', "
        "got [[['s1', 's2']], [['s3', 's4'], ['s5', 's6']]]")
    for not_a_class in ("s9", []):
        with pytest.raises(InvalidPartition, match=r"classes\[2\]\[1\] must be a non-empty list"):
            classes_partition(mdp, [first, second, [["s7", "s8"], not_a_class]])


def test_the_exact_prediction_is_read_as_an_exact_number():
    assert exact_prediction({"exact_prediction": "1/3"}) == Fraction(1, 3)
    assert exact_prediction({"exact_prediction": "0.4"}) == Fraction(2, 5)  # one_class's LP


def test_the_exact_prediction_is_parsed_never_evaluated():
    for text in ("1 + 1", "__import__('os').getpid()", None):
        with pytest.raises(ValueError, match=r"row\['exact_prediction'\] must be a fraction"):
            exact_prediction({"exact_prediction": text})
    with pytest.raises(ValueError) as error:
        exact_prediction({"exact_prediction": "1 + 1"})
    assert str(error.value).endswith("a decimal such as '0.4', got '1 + 1'")


def test_a_rows_summary_holds_the_numbers_of_its_verdict():
    summary = row_summary(CURIOSITY_ROW)
    assert list(summary) == list(SUMMARY_FIELDS)
    assert summary == {"alpha_min": 0.0, "exact_prediction": "0", "steps_with_wrong_merges": 2,
                       "homer_alpha_min": 0.9987, "homer_steps_with_wrong_merges": 0,
                       "fails_as_predicted": True, "homer_succeeds": True}
    with pytest.raises(ValueError) as error:
        row_summary({key: CURIOSITY_ROW[key] for key in SUMMARY_FIELDS[:-2]})
    assert str(error.value) == ("row: no field(s) fails_as_predicted, homer_succeeds (a row of "
                                "run_counterexamples holds them)")


def test_the_split_states_of_every_layer_are_named_and_the_default_kind_is_learned():
    mdp = curiosity_counterexample()
    partition = classes_partition(mdp, [[["s1", "s2"]], [["s3", "s4"], ["s4", "s5", "s6"]],
                                        [["s7", "s8"], ["s8", "s9"]]])
    assert partition.kind == "learned; s4, s8 split"


def test_a_rows_bad_classes_are_named_by_their_field():
    mdp = curiosity_counterexample()
    for field in ("learned_classes", "homer_learned_classes"):
        with pytest.raises(InvalidPartition) as error:
            learned_partitions(mdp, {**CURIOSITY_ROW, field: CURIOSITY_ROW[field][:1]})
        assert str(error.value).startswith(f"row['{field}'] must hold the classes of each of ")


def test_the_objectives_prediction_breaks_ties_in_the_states_favour():
    """PCID's target (the previous state) puts PCID's chain in one class per layer: a cover on
    it reaches every state only when PSDP's ties are broken in the states' favour (1, not 0)."""
    case = Case("chain", lambda: pcid_chain(2), "pcid", "pcid_target", "alpha")
    prediction = _prediction(case, pcid_chain(2))
    assert prediction[:2] == (Fraction(1), 2)
    assert _labels(prediction) == [[0, 0], [0, 0, 0]]
