"""Kinematic inseparability of exogenous Block MDPs (``kinematic.exogenous_ki``): each KI
partition of the product is the product of the endogenous Block MDP's and the chain's, and it is
the endogenous one lifted iff the noise is i.i.d.; the strategies that draw them."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinematic import (
    AmbiguousTolerance,
    InvalidPartition,
    Partition,
    backward_ki_partition,
    block_mdp,
    combination_lock,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    forward_ki_partition,
    ki_partition,
    with_float_numbers,
)
from kinematic.exogenous import ExogenousChain
from kinematic.exogenous_ki import (
    chain_partitions,
    predicted_ki_partitions,
    product_partition,
)
from kinematic.partition import first_appearance
from kinematic.strategies import exogenous_block_mdps, exogenous_chains

RELATIONS = {"backward": backward_ki_partition, "forward": forward_ki_partition,
             "ki": ki_partition}
LOCK = combination_lock(3, 2, seed=0)


def flips(p: str, horizon: int = 3, start: str = "1/2") -> ExogenousChain:
    """One exogenous bit that flips with probability ``p`` at every step."""
    q = str(1 - Fraction(p))
    return exogenous_chain(["0", "1"], {"0": start, "1": str(1 - Fraction(start))},
                           {"0": {"0": q, "1": p}, "1": {"0": p, "1": q}}, horizon=horizon)


def iid(chain: ExogenousChain) -> bool:
    """Every step's rows are equal: ``T_ex(. | xi)`` does not depend on ``xi``."""
    return all(len({tuple(row.items()) for row in step.values()}) == 1
               for step in chain.transitions)


def one_class(chain: ExogenousChain) -> Partition:
    return Partition("chain", chain.layers,
                     tuple(np.zeros(len(layer), dtype=np.intp) for layer in chain.layers))


def discrete(partition: Partition) -> bool:
    return all(len(set(labels.tolist())) == len(labels) for labels in partition.labels)


@given(exogenous_block_mdps())
def test_each_ki_partition_of_the_product_is_the_product_of_the_parts_partitions(model):
    """(s1, xi1) ~ (s2, xi2) in the product iff s1 ~ s2 in the endogenous Block MDP and
    xi1 ~ xi2 in the chain, for backward, forward and full KI. Kills a prediction that ignores
    the chain (memory splits classes), a chain whose backward KI asks for equal rather than
    proportional columns (the strategy splits columns by unequal weights), that reads rows for
    columns, or that does not make layer 1 one backward class and layer H one forward class."""
    predicted = predicted_ki_partitions(model)
    for relation, partition in RELATIONS.items():
        assert partition(model.mdp) == getattr(predicted, relation), relation


@given(exogenous_block_mdps())
def test_ki_of_the_product_is_the_endogenous_ki_lifted_iff_the_noise_is_iid(model):
    """The corollary, both ways: with i.i.d. noise every chain row is equal and every column
    constant, so the three partitions are the endogenous Block MDP's, lifted to every exogenous
    value; with memory at any step, some partition separates two values (the chain's columns
    are all proportional only if its rows are equal). Kills "KI ignores exogenous noise" (false
    with memory) and "exogenous values are always KI-separable" (false when i.i.d.)."""
    for relation, partition in RELATIONS.items():
        lifted = product_partition(partition(model.endogenous), one_class(model.chain), model)
        assert (partition(model.mdp) == lifted) == iid(model.chain), relation


@given(exogenous_block_mdps(noise="iid"))
def test_with_iid_noise_ki_is_the_endogenous_partition_iff_the_endogenous_ki_is_discrete(model):
    """The lifted partition is ``endogenous_partition`` only when the endogenous Block MDP's own
    partition keeps every state apart (the H = 3 lock's KI merges s3a and s3b: not there)."""
    for relation, partition in RELATIONS.items():
        assert (partition(model.mdp) == endogenous_partition(model)) == \
            discrete(partition(model.endogenous)), relation


@pytest.mark.parametrize(("flip", "backward", "forward", "ki"), [
    ("1/10", (1, 4, 4), (4, 6, 1), (4, 6, 4)),
    ("1/2", (1, 2, 2), (2, 3, 1), (2, 3, 2)),
])
def test_the_lock_with_one_exogenous_bit(flip, backward, forward, ki):
    """The numbers of docs/concepts/exogenous.md: classes per layer of the H = 3 lock (2
    actions, seed 0) with one bit flipping with probability 1/10 (memory: every class of the
    lock doubled, but for layer 1's one backward class and layer 3's one forward class) and
    1/2 (i.i.d.: the lock's own (1, 2, 2), (2, 3, 1), (2, 3, 2)), against the endogenous
    partition's (2, 3, 3)."""
    model = exogenous_block_mdp(LOCK, flips(flip))
    predicted = predicted_ki_partitions(model)
    for relation, expected in (("backward", backward), ("forward", forward), ("ki", ki)):
        assert RELATIONS[relation](model.mdp).blocks_per_layer == expected
        assert getattr(predicted, relation).blocks_per_layer == expected
    assert endogenous_partition(model).blocks_per_layer == (2, 3, 3)


def test_k_bits_with_memory_multiply_the_locks_ki_classes_by_2_to_the_k():
    """docs/concepts/exogenous.md: two bits flipping independently with probability 1/10 give
    N_KD = 7 * 2^2 on the H = 3 lock, and a third bit 7 * 2^3 (the theorem: the chain's 2^k
    classes per layer times the lock's 2, 3, 2)."""
    for k in (2, 3):
        values = [format(i, f"0{k}b") for i in range(2 ** k)]
        flips = {(v, w): sum(a != b for a, b in zip(v, w, strict=True))
                 for v in values for w in values}
        chain = exogenous_chain(
            values, dict.fromkeys(values, Fraction(1, 2 ** k)),
            {v: {w: Fraction(1, 10) ** flips[v, w] * Fraction(9, 10) ** (k - flips[v, w])
                 for w in values} for v in values}, horizon=3)
        model = exogenous_block_mdp(LOCK, chain)
        assert ki_partition(model.mdp).blocks_per_layer == (2 * 2 ** k, 3 * 2 ** k, 2 * 2 ** k)
        assert predicted_ki_partitions(model).ki.number_of_blocks == 7 * 2 ** k


def test_proportional_columns_are_one_backward_class_and_equal_rows_one_forward_class():
    """A value ``y`` split into ``y1``, ``y2`` by weights 1/3, 2/3 has columns proportional, not
    equal: one backward class (a chain comparing columns unnormalised splits it). ``a`` and
    ``b`` have equal rows: one forward class; ``c`` does not."""
    chain = exogenous_chain(
        [["a", "b", "c"], ["y1", "y2", "z"]], {"a": "1/3", "b": "1/3", "c": "1/3"},
        [{"a": {"y1": "1/6", "y2": "1/3", "z": "1/2"}, "b": {"y1": "1/6", "y2": "1/3", "z": "1/2"},
          "c": {"y1": "1/3", "y2": "2/3"}}])
    partitions = chain_partitions(chain)
    assert partitions.backward.blocks(2) == [["y1", "y2"], ["z"]]
    assert partitions.forward.blocks(1) == [["a", "b"], ["c"]]
    assert partitions.backward.blocks(1) == [["a", "b", "c"]]  # layer 1: one backward class
    assert partitions.forward.blocks(2) == [["y1", "y2", "z"]]  # layer H: one forward class
    assert partitions.ki.blocks(1) == [["a", "b"], ["c"]]


def test_the_chains_start_distribution_plays_no_part():
    """Only the chain's transitions enter its partitions, and those of the product."""
    even, skewed = flips("1/10"), flips("1/10", start="1/5")
    assert chain_partitions(even) == chain_partitions(skewed)
    for partition in RELATIONS.values():
        assert partition(exogenous_block_mdp(LOCK, even).mdp) == \
            partition(exogenous_block_mdp(LOCK, skewed).mdp)


def as_block_mdp(chain: ExogenousChain):
    """The chain as a Block MDP with one action, its values renamed ``x0@2`` (the states of a
    Block MDP have distinct names over all layers)."""
    def name(value, h):
        return f"{value}@{h + 1}"
    return block_mdp(
        "chain", [[name(v, h) for v in layer] for h, layer in enumerate(chain.layers)], ["-"],
        {name(v, 0): p for v, p in chain.start.items()},
        {name(v, h): {"-": {name(w, h + 1): p for w, p in row.items() if p}}
         for h, step in enumerate(chain.transitions) for v, row in step.items()})


@given(st.integers(1, 4).flatmap(exogenous_chains))
def test_the_chains_partitions_are_those_of_the_chain_as_a_block_mdp_with_one_action(chain):
    """Kills a chain partition that compares rows by their supports, columns unnormalised, or
    rows for columns."""
    mdp = as_block_mdp(chain)
    partitions = chain_partitions(chain)
    for relation, partition in RELATIONS.items():
        expected = partition(mdp).labels
        computed = getattr(partitions, relation).labels
        assert all(np.array_equal(a, b) for a, b in zip(expected, computed, strict=True)), \
            relation


@given(st.integers(2, 4).flatmap(lambda h: exogenous_chains(h, noise="deterministic")))
def test_a_deterministic_chain_separates_every_value_backward_and_merges_by_image_forward(chain):
    """Point masses: the column of ``xi'`` is the indicator of its preimage, and preimages are
    disjoint and non-empty (every value is reached), so no two values are backward KI; two
    values are forward KI iff they move to the same value."""
    partitions = chain_partitions(chain)
    assert partitions.backward.blocks_per_layer[1:] == tuple(map(len, chain.layers[1:]))
    for h, step in enumerate(chain.transitions):
        images = [next(value for value, p in step[xi].items() if p) for xi in chain.layers[h]]
        assert partitions.forward.labels[h].tolist() == first_appearance(images).tolist()


def test_float_numbers_give_the_same_partitions():
    """A float lock and a float chain: the prediction and the product's partitions agree, as in
    exact arithmetic."""
    chain = exogenous_chain(["0", "1"], {"0": 0.5, "1": 0.5},
                            {"0": {"0": 0.9, "1": 0.1}, "1": {"0": 0.1, "1": 0.9}}, horizon=3)
    model = exogenous_block_mdp(with_float_numbers(LOCK), chain)
    assert not model.mdp.mode.exact
    predicted = predicted_ki_partitions(model)
    for relation, partition in RELATIONS.items():
        assert partition(model.mdp) == getattr(predicted, relation)
    assert predicted.ki.blocks_per_layer == (4, 6, 4)


def test_a_partition_of_another_object_is_refused_naming_the_argument():
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    chain = chain_partitions(model.chain)
    with pytest.raises(InvalidPartition, match=r"^product_partition: endogenous_partition is not "
                                               r"a partition of the states of 'combolock-H3"):
        product_partition(ki_partition(model.mdp), chain.ki, model)
    with pytest.raises(InvalidPartition, match=r"^product_partition: chain_partition is not a "
                                               r"partition of the values of model.chain$"):
        product_partition(ki_partition(LOCK), chain_partitions(flips("1/10", 3)).ki,
                          exogenous_block_mdp(LOCK, exogenous_chain(
                              ["u"], {"u": 1}, {"u": {"u": 1}}, horizon=3)))


def test_mixed_kinds_make_a_product_partition():
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    mixed = product_partition(backward_ki_partition(LOCK), chain_partitions(model.chain).forward,
                              model)
    assert mixed.kind == "product"


@settings(max_examples=30)
@given(exogenous_chains(3))
def test_drawn_chains_reach_every_value_and_use_every_kind_of_step(chain):
    """Every value has positive probability (the chain is valid), so every column is non-zero
    and backward KI is defined on it."""
    assert chain.horizon == 3
    assert all(any(row[value] for row in step.values())
               for step, layer in zip(chain.transitions, chain.layers[1:], strict=True)
               for value in layer)


def test_the_strategy_draws_twins_proportional_columns_iid_and_deterministic_steps():
    """The property tests above exercise each case the theorem distinguishes: within 200 draws,
    chains with forward KI twins, with backward KI values whose columns are not equal, i.i.d.
    steps with several values and deterministic ones."""
    seen: set[str] = set()

    @settings(max_examples=200, database=None, derandomize=True)
    @given(exogenous_chains(3))
    def draw(chain):
        partitions = chain_partitions(chain)
        for h, step in enumerate(chain.transitions):
            rows = list(step.values())
            distinct = len({tuple(row.items()) for row in rows})
            if len(rows) > 1 and distinct == 1:
                seen.add("iid")
            if len(rows) > 1 and all(max(row.values()) == 1 for row in rows):
                seen.add("deterministic")
            if 1 < distinct < len(rows):
                seen.add("twins")
            supports = [tuple(value for value, p in row.items() if p) for row in rows]
            if any(supports[i] == supports[j] and rows[i] != rows[j]
                   for i in range(len(rows)) for j in range(i)):
                seen.add("one support, unequal rows")
            columns = {value: tuple(row[value] for row in rows) for value in chain.layers[h + 1]}
            for block in partitions.backward.blocks(h + 2):
                if len({columns[value] for value in block}) > 1:
                    seen.add("proportional, unequal columns")

    draw()
    assert seen == {"iid", "deterministic", "twins", "proportional, unequal columns",
                    "one support, unequal rows"}


def _rows_apart_by(epsilon: Fraction | float) -> ExogenousChain:
    """Two values whose rows differ by ``epsilon``: forward KI twins iff ``epsilon`` is taken
    for 0."""
    half = Fraction(1, 2) if isinstance(epsilon, Fraction) else 0.5
    return exogenous_chain(["0", "1"], {"0": half, "1": half},
                           {"0": {"0": half + epsilon, "1": half - epsilon},
                            "1": {"0": half, "1": half}}, horizon=3)


def test_an_exact_chain_is_compared_exactly_and_a_float_chain_within_atol():
    """Rows 10^-12 apart at each step: two forward classes when the chain is exact (Fractions),
    one when it holds floats (within the default atol 10^-9), two again within atol = 10^-15; the
    prediction for a float product uses the product's own atol. Kills a chain read as exact
    when it holds floats, or as float when exact, and an atol left at its default."""
    apart = Fraction(1, 10 ** 12)
    assert chain_partitions(_rows_apart_by(apart)).forward.blocks_per_layer == (2, 2, 1)
    close = _rows_apart_by(1e-12)
    assert chain_partitions(close).forward.blocks_per_layer == (1, 1, 1)
    assert chain_partitions(close, atol=1e-15).forward.blocks_per_layer == (2, 2, 1)
    for atol, classes in ((1e-9, (2, 3, 1)), (1e-15, (4, 6, 1))):  # the lock's, or doubled
        model = exogenous_block_mdp(with_float_numbers(LOCK, atol=atol), close)
        assert predicted_ki_partitions(model).forward.blocks_per_layer == classes, atol
        assert forward_ki_partition(model.mdp).blocks_per_layer == classes, atol


def test_the_partitions_have_the_kind_of_their_relation():
    """The chain's partitions and the predicted partitions of the product are of kind
    ``backward``, ``forward`` and ``ki`` (what drawings and reports print), as the product's own
    partitions are."""
    model = exogenous_block_mdp(LOCK, flips("1/10"))
    for relation in ("backward", "forward", "ki"):
        assert getattr(chain_partitions(model.chain), relation).kind == relation
        assert getattr(predicted_ki_partitions(model), relation).kind == relation


def test_float_columns_linked_within_atol_but_apart_are_refused_naming_the_values():
    """Backward KI of a float chain groups normalised columns within atol; columns linked by a
    chain of close ones whose ends differ by more than atol are refused, naming two values of
    the layer the columns lead to (here p, q, r, s of layer 2: 0.5, 0.50075, 0.5015, 0.4997 of
    their mass from a)."""
    chain = exogenous_chain(
        [["a", "b"], ["p", "q", "r", "s"], ["z"]], {"a": 0.5, "b": 0.5},
        [{"a": {"p": 0.1, "q": 0.1, "r": 0.1, "s": 0.7},
          "b": {"p": 0.1, "q": 0.0997, "r": 0.0994, "s": 0.7009}},
         {value: {"z": 1.0} for value in "pqrs"}])
    with pytest.raises(AmbiguousTolerance, match=r"^states '[pqrs]' and '[pqrs]' are linked by "
                                                 r"a chain of states within atol=0.001"):
        chain_partitions(chain, atol=0.001)
