"""A state name cannot forge a line or a member where blocks of states are printed: a
partition, a quotient and the wrong merges of ``homer evaluate``'s summary all print blocks
through :func:`kinematic.partition.block_text`, which quotes a name that could be misread."""

import ast

import numpy as np

from kinematic import Partition, from_spec, quotient

FORGING = "A\neta_min = 1"
SPEC = {
    "name": "forged", "horizon": 2, "actions": ["a"],
    "layers": [["s1"], [FORGING, "b, c", "d"]], "start": {"s1": "1"},
    "transitions": {"s1": {"a": {FORGING: "1/3", "b, c": "1/3", "d": "1/3"}}},
}


def merged() -> Partition:
    return Partition.from_blocks(from_spec(SPEC), [[FORGING, "b, c"]])


def test_a_partition_prints_a_forging_name_quoted_on_one_line():
    text = repr(merged())
    assert "\n" not in text
    start = text.index("layer 2: {") + len("layer 2: {")
    block = text[start:text.index("}", start)]
    assert [ast.literal_eval(name) for name in block.split(", ", 1)] == [FORGING, "b, c"]


def test_a_quotient_prints_a_forging_merged_name_quoted():
    merged_mdp = quotient(from_spec(SPEC), merged())
    names = [name for name in merged_mdp.mdp.states if name not in ("s1", "d")]
    text = repr(merged_mdp)
    assert "\n" not in text and repr(names[0]) in text


def test_the_wrong_merges_of_an_evaluation_print_on_one_line():
    from homer.evaluate import AbstractionComparison, merge_rates
    from homer.summary import merge_lines

    confusion = np.array([[6, 0], [4, 10]])
    comparison = AbstractionComparison("ki", [[FORGING, "b, c"], ["d"]], [0, 1], confusion,
                                       {}, 0.0, 0, 0.5, 0.0,
                                       merge_rates=merge_rates(confusion, [0, 1]))
    lines = merge_lines({"phi vs KI": {2: comparison}})
    assert lines == ["  phi vs KI wrong merges:",
                     "    step 2: 40.0% of {'A\\neta_min = 1', 'b, c'}'s encodings in a learned "
                     "class holding 100.0% of d's (standard error 15.5%)"]


def test_a_quotient_that_merges_nothing_says_so():
    assert repr(quotient(from_spec(SPEC), Partition.from_blocks(from_spec(SPEC), []))) == (
        "Quotient('forged', 4 -> 4 states, merged: none)")
