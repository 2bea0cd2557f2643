"""ACDF's four tabular exogenous MDPs (Levine, Stone and Zhang 2024; midi-lab/acdf,
numerical_experiments/numerical_experiments.py): their tables against the code's, their
declared factorisations, and the endogenous partitions the exact search computes."""

from fractions import Fraction

import pytest

from kinematic import check_factorisation, endogenous_partition
from kinematic.exogenous_examples import (
    ACDF_EXAMPLES,
    HORIZON,
    acdf_double_prime_loop,
    acdf_periodic_example,
)
from kinematic.exogenous_search import endogenous_factorisations
from kinematic.spec import to_spec

# The code's moves, transcribed line by line: observation -> (next under action 0, under 1),
# before the noise (which adds 5 times the flipped bit; double_prime_loop has none).
CODE_MOVES = {
    "control_example": {0: (4, 0), 1: (1, 4), 2: (0, 1), 3: (2, 1), 4: (4, 3)},
    "periodic_example": {0: (1, 3), 1: (2, 2), 2: (0, 0), 3: (4, 4), 4: (0, 0)},
    "single_prime_loop": {0: (1, 3), 1: (2, 2), 2: (3, 3), 3: (4, 4), 4: (0, 0)},
    "double_prime_loop": {0: (1, 8), 1: (2, 2), 2: (3, 3), 3: (4, 4), 4: (0, 0),
                          5: (6, 3), 6: (7, 7), 7: (8, 8), 8: (9, 9), 9: (5, 5)},
}


def observation(state: str) -> int:
    """The code's observation index of a state ``"s@h|bit"`` (or ``"o@h|-"``)."""
    endogenous, bit = state.split("|")
    return int(endogenous.split("@")[0]) + (5 * int(bit) if bit != "-" else 0)


def expected_row(name: str, o: int, action: int) -> dict[int, Fraction]:
    if name == "double_prime_loop":
        return {CODE_MOVES[name][o][action]: Fraction(1)}
    s, bit = o % 5, o // 5
    nxt = CODE_MOVES[name][s][action]
    return {nxt + 5 * bit: Fraction(3, 4), nxt + 5 * (1 - bit): Fraction(1, 4)}


@pytest.mark.parametrize("name", list(ACDF_EXAMPLES))
def test_the_tables_are_the_codes(name):
    """Kills a mistyped move, a wrong flip probability or a start that is not uniform."""
    mdp = ACDF_EXAMPLES[name](3).mdp
    spec = to_spec(mdp)
    assert {observation(z): Fraction(p) for z, p in spec["start"].items()} == \
        {o: Fraction(1, 10) for o in range(10)}
    for state, rows in spec["transitions"].items():
        for action, row in rows.items():
            assert {observation(z): Fraction(p) for z, p in row.items()} == \
                expected_row(name, observation(state), int(action)), (state, action)
    assert all(len(layer) == 10 for layer in mdp.layers)


@pytest.mark.parametrize("name", list(ACDF_EXAMPLES))
def test_the_declared_factorisation_checks(name):
    model = ACDF_EXAMPLES[name]()
    labels = ({z: parts[0] for z, parts in model.parts.items()},
              {z: parts[1] for z, parts in model.parts.items()})
    assert check_factorisation(model.mdp, *labels).parts == model.parts
    assert model.mdp.horizon == HORIZON


@pytest.mark.parametrize("name", ["control_example", "single_prime_loop", "double_prime_loop"])
def test_the_search_computes_the_declared_endogenous_partition(name):
    """The issue's done-when: the endogenous partition, computed exactly by the search, is the
    declared one, and the only coarsest (5 pairs {o, o + 5} per layer; the double prime loop's
    ten singletons)."""
    model = ACDF_EXAMPLES[name]()
    found = endogenous_factorisations(model.mdp)
    assert found.unique
    assert found.partitions() == [endogenous_partition(model)]


def test_the_periodic_example_has_a_second_coarsest_partition_at_layer_1_only():
    """States 2 and 4 both move to 0 whatever the action; at layer 1 nothing before them tells
    them apart, so their bits pair crosswise too. Every later layer is the declared one."""
    model = acdf_periodic_example()
    declared = endogenous_partition(model)
    found = endogenous_factorisations(model.mdp)
    assert not found.unique and len(found.coarsest) == 2
    assert declared in found.partitions()
    other = next(partition for partition in found.partitions() if partition != declared)
    assert all(other.blocks(h) == declared.blocks(h) for h in range(2, HORIZON + 1))
    assert other.blocks(1) == [["0@1|0", "0@1|1"], ["1@1|0", "1@1|1"], ["2@1|0", "4@1|1"],
                               ["2@1|1", "4@1|0"], ["3@1|0", "3@1|1"]]


def test_the_double_prime_loop_factorises_when_unrolled_to_five_layers_only():
    """The finding that sets the default horizon: up to 5 layers a layer-dependent relabelling
    of the loop bit makes it exogenous (5 endogenous states o % 5 per layer); the sixth layer
    closes the odd cycle of its constraints."""
    five = endogenous_factorisations(acdf_double_prime_loop(5).mdp)
    assert five.unique and five.endogenous_classes == 5 * 5
    assert five.partitions()[0].blocks(3) == [[f"{s}@3|-", f"{s + 5}@3|-"] for s in range(5)]
    six = endogenous_factorisations(acdf_double_prime_loop(6).mdp)
    assert six.endogenous_classes == 10 * 6
