"""The exact search of endogenous factorisations against the plain enumeration (every grid of
every layer, every combination checked by check_factorisation), on small MDPs with and without
exogenous structure; non-unique coarsest partitions; float mode; the refusal beyond the limit."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kinematic import (
    NotFactorised,
    Partition,
    TooLarge,
    block_mdp,
    check_factorisation,
    combination_lock,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    with_float_numbers,
)
from kinematic.exogenous_search import (
    _endogenous_paths,
    _Grid,
    _Prefix,
    endogenous_factorisations,
    exact_covers,
)
from kinematic.families import random_exact_mdp
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps
from tests.kinematic.brute_force_abstractions import set_partitions


def flips(p: str, horizon: int, start: str = "1/2"):
    """One exogenous bit that flips with probability ``p`` at every step."""
    q = str(1 - Fraction(p))
    return exogenous_chain(["0", "1"], {"0": start, "1": str(1 - Fraction(start))},
                           {"0": {"0": q, "1": p}, "1": {"0": p, "1": q}}, horizon=horizon)


def grids(layer):
    """Every grid of a layer: (endogenous labels, exogenous labels) with every pair of labels
    one state, by brute force over pairs of set partitions."""
    partitions = list(set_partitions(list(layer)))
    for endogenous, exogenous in itertools.product(partitions, repeat=2):
        if len(endogenous) * len(exogenous) != len(layer):
            continue
        if all(len(set(e) & set(x)) == 1 for e in endogenous for x in exogenous):
            yield ({z: "+".join(e) for e in endogenous for z in e},
                   {z: i for i, x in enumerate(exogenous) for z in x})


def plain_enumeration(mdp):
    """The coarsest factorisations by checking every combination of every layer's grids:
    (fewest endogenous classes, their endogenous partitions, how many factorisations)."""
    passing = []
    for choice in itertools.product(*(list(grids(layer)) for layer in mdp.layers)):
        endogenous = {z: e for en, _ in choice for z, e in en.items()}
        exogenous = {z: x for _, ex in choice for z, x in ex.items()}
        try:
            check_factorisation(mdp, endogenous, exogenous)
        except NotFactorised:
            continue
        passing.append((len(set(endogenous.values())),
                        Partition.from_labels(mdp, endogenous)))
    fewest = min(classes for classes, _ in passing)
    coarsest = [partition for classes, partition in passing if classes == fewest]
    return fewest, set(coarsest), len(coarsest)


def two_by_two(seed: int, flip: str = "1/10", horizon: int = 3):
    """A random exact endogenous MDP of width 2 times a flipping bit: 4 states per layer."""
    return exogenous_block_mdp(random_exact_mdp(horizon, 2, 2, 2, seed=seed, denominator=5),
                               flips(flip, horizon))


def twins(flip: str = "1/4"):
    """Layer 1: p, q, r times a bit; p and q both lead to u, r to u (action a1) or v (a2);
    layer 2: u, v times the bit. p and q have the same future and nothing before them, so the
    bits of p and q can be paired either way: two coarsest endogenous partitions."""
    endogenous = block_mdp("twins", [["p", "q", "r"], ["u", "v"]], ["a1", "a2"],
                           {"p": "1/3", "q": "1/3", "r": "1/3"},
                           {"p": {"a1": {"u": 1}, "a2": {"u": 1}},
                            "q": {"a1": {"u": 1}, "a2": {"u": 1}},
                            "r": {"a1": {"u": 1}, "a2": {"v": 1}}})
    return exogenous_block_mdp(endogenous, flips(flip, 2))


SMALL = {
    "random endogenous x flipping bit": lambda: two_by_two(0).mdp,
    "another seed": lambda: two_by_two(3).mdp,
    "i.i.d. uniform bit": lambda: two_by_two(1, flip="1/2").mdp,
    "no structure": lambda: random_exact_mdp(3, 4, 2, 3, seed=0, denominator=7),
    "twins": lambda: twins().mdp,
}


@pytest.mark.parametrize("name", list(SMALL))
def test_the_search_finds_what_the_plain_enumeration_finds(name):
    """Kills a pruning condition that is not necessary (a coarsest partition lost, or a count
    too small), one that is not sufficient together with the others (a partition too many),
    and a wrong objective (the count of classes)."""
    mdp = SMALL[name]()
    fewest, coarsest, count = plain_enumeration(mdp)
    found = endogenous_factorisations(mdp)
    assert found.endogenous_classes == fewest
    assert set(found.partitions()) == coarsest
    assert len(found.coarsest) == len(coarsest)
    assert found.factorisations == count
    assert found.unique == (len(coarsest) == 1)


def test_a_product_has_its_declared_endogenous_partition_as_the_unique_coarsest():
    model = two_by_two(0)
    found = endogenous_factorisations(model.mdp)
    assert found.unique and found.factorisations == 1
    assert found.partitions() == [endogenous_partition(model)]
    recovered = found.coarsest[0]
    assert recovered.chain.transitions[0]["xi1"] == {"xi1": Fraction(9, 10),
                                                     "xi2": Fraction(1, 10)}


def test_without_structure_the_trivial_factorisation_is_the_answer():
    mdp = SMALL["no structure"]()
    found = endogenous_factorisations(mdp)
    assert found.unique
    assert found.endogenous_classes == len(mdp.states)
    assert found.coarsest[0].chain.layers == (("xi1",),) * mdp.horizon


def test_iid_uniform_noise_leaves_the_exogenous_labels_free_beside_one_endogenous_partition():
    model = two_by_two(1, flip="1/2")
    found = endogenous_factorisations(model.mdp)
    assert found.partitions() == [endogenous_partition(model)]
    # the bit or the bit xor the endogenous state, independently at each layer
    assert found.factorisations == 2 ** model.mdp.horizon


def test_twins_have_two_coarsest_partitions_that_pair_their_bits_both_ways():
    found = endogenous_factorisations(twins().mdp)
    assert not found.unique
    assert sorted(partition.blocks(1) for partition in found.partitions()) == [
        [["p|0", "p|1"], ["q|0", "q|1"], ["r|0", "r|1"]],
        [["p|0", "q|1"], ["p|1", "q|0"], ["r|0", "r|1"]],
    ]
    assert "2 coarsest endogenous partitions" in repr(found)


def test_rewards_belong_to_the_endogenous_part():
    """A reward on one exogenous value of a layer makes the bit endogenous there, and then at
    the layer before (whose bit decides it): kills a search that ignores rewards, whose answer
    check_factorisation would reject."""
    model = two_by_two(0, horizon=2)
    assert endogenous_factorisations(model.mdp).endogenous_classes == 2 + 2
    spec = to_spec(model.mdp)
    spec["rewards"] = {"s2_0|1": {"a1": 1}}
    paid = from_spec(spec)
    found = endogenous_factorisations(paid)
    assert [partition.blocks_per_layer for partition in found.partitions()] == [(4, 4)]
    assert plain_enumeration(paid)[0] == 4 + 4
    spec["rewards"] = {"s2_0|0": {"a1": 1}, "s2_1|1": {"a1": 1}}  # two states alike in reward
    crossed = from_spec(spec)
    fewest, coarsest, _ = plain_enumeration(crossed)
    found = endogenous_factorisations(crossed)
    assert found.endogenous_classes == fewest and set(found.partitions()) == coarsest


def test_float_mode_finds_the_same_partitions():
    model = twins()
    exact = endogenous_factorisations(model.mdp)
    floats = endogenous_factorisations(with_float_numbers(model.mdp))
    assert floats.partitions() == exact.partitions()
    assert floats.factorisations == exact.factorisations


def test_a_layer_wider_than_the_limit_is_refused_naming_it():
    mdp = random_exact_mdp(2, 5, 2, 2, seed=0, denominator=5)
    with pytest.raises(TooLarge, match=r"^layer 1 has 5 states: .*max_states_per_layer = 4"):
        endogenous_factorisations(mdp, max_states_per_layer=4)
    lock = exogenous_block_mdp(combination_lock(3, 2, seed=0), flips("1/10", 3)).mdp
    with pytest.raises(TooLarge, match=r"^layer 2 has 6 states"):
        endogenous_factorisations(lock, max_states_per_layer=5)


def test_exact_covers_lists_each_partition_once():
    pairs = [(1 << i) | (1 << j) for i, j in itertools.combinations(range(6), 2)]
    covers = list(exact_covers(6, pairs))
    assert len(covers) == len(set(covers)) == 15  # 5 * 3 * 1 perfect matchings of 6
    assert all(sum(cover) == 0b111111 for cover in covers)


def test_more_coarsest_partitions_than_the_limit_are_refused_naming_it():
    with pytest.raises(TooLarge, match=r"^'twins\+exogenous' has more than max_partitions = 1 "
                                       r"coarsest endogenous partitions \(5 classes in all\); "
                                       r"raise max_partitions to list them$"):
        endogenous_factorisations(twins().mdp, max_partitions=1)
    assert len(endogenous_factorisations(twins().mdp, max_partitions=2).coarsest) == 2


@st.composite
def small_mdps(draw):
    """Block MDPs of up to 4 states per layer and 2 layers: products of a generated MDP of
    width up to 2 and a generated 2-valued chain (zeros, ties and uniform rows included), and
    generated MDPs of width up to 4 with no declared structure (rewards, several observations
    per state, split states)."""
    if draw(st.booleans()):
        return draw(block_mdps(min_horizon=2, max_horizon=2, max_width=4, min_actions=2,
                               max_actions=2))
    endogenous = draw(block_mdps(min_horizon=2, max_horizon=2, max_width=2, min_actions=2,
                                 max_actions=2, max_splits=0))
    weights = [[draw(st.integers(0, 2)) for _ in range(2)] for _ in range(2)]
    rows = {value: {nxt: Fraction(w, sum(row)) if sum(row) else Fraction(1, 2)
                    for nxt, w in zip("01", row, strict=True)}
            for value, row in zip("01", weights, strict=True)}
    assume(all(rows["0"][nxt] + rows["1"][nxt] for nxt in "01"))  # both values reachable
    chain = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"}, rows, horizon=2)
    return exogenous_block_mdp(endogenous, chain).mdp


@settings(max_examples=25, deadline=None, database=None)
@given(small_mdps())
def test_the_search_agrees_with_the_plain_enumeration_on_generated_mdps(mdp):
    fewest, coarsest, count = plain_enumeration(mdp)
    found = endogenous_factorisations(mdp)
    assert (found.endogenous_classes, set(found.partitions()), found.factorisations) == \
        (fewest, coarsest, count)


def test_endogenous_paths_follow_every_exogenous_choice_of_an_endogenous_partition():
    """The coarsest endogenous partitions are listed by carrying the set of grids reached so far;
    two grids of layer 1 with one endogenous partition and two exogenous ones lead to different
    endogenous partitions of layer 2, and both must be listed (kills carrying one grid per
    endogenous partition, which the generated MDPs above rarely tell apart)."""
    last = _Prefix(1, (2,), [_Grid((0b01, 0b10), (0b11,)), _Grid((0b11,), (0b01, 0b10))],
                   [[], []], None)
    first = _Prefix(0, (2, 2), [_Grid((0b11,), (0b01, 0b10)), _Grid((0b11,), (0b10, 0b01))],
                    [[0], [1]], last)
    paths = list(_endogenous_paths(first))
    assert sorted(paths) == [[0, 0], [1, 1]]


def test_its_repr_gives_the_classes_per_layer_whether_unique_and_the_count():
    """The one-line summary, with the plural of one and two factorisations."""
    assert repr(endogenous_factorisations(two_by_two(0).mdp)) == (
        "<EndogenousFactorisations 'random-exact-H3-W2-A2-S2-D5-seed0+exogenous': endogenous "
        "classes 2/2/2 per layer (unique; 1 factorisation)>")
    assert repr(endogenous_factorisations(twins().mdp)) == (
        "<EndogenousFactorisations 'twins+exogenous': endogenous classes 3/2 per layer "
        "(2 coarsest endogenous partitions; 2 factorisations)>")


@pytest.mark.parametrize("flip", [f"1/{2 ** 40}", f"1/{3 ** 41}"])
def test_the_search_stays_exact_with_denominators_beyond_int64(flip):
    """A bit flipping with probability 2^-40 (rows scaled by 2^41: products of two beyond
    2^63) or 3^-41 (beyond 2^63 alone) on the H = 3 lock: the declared endogenous partition,
    unique, as with 1/10. Kills int64 arithmetic (or floats) where the scaled rows or their
    products overflow it."""
    model = exogenous_block_mdp(combination_lock(3, 2, seed=0), flips(flip, 3))
    found = endogenous_factorisations(model.mdp)
    assert found.unique and found.factorisations == 1
    assert found.partitions() == [endogenous_partition(model)]


def test_the_endogenous_states_are_named_by_their_members_and_the_values_xi():
    """The names the docstring promises: an endogenous state joins the states of its block with
    ``+``, exogenous values are ``xi1``, ``xi2``, ... per layer."""
    recovered = endogenous_factorisations(two_by_two(0).mdp).coarsest[0]
    assert recovered.endogenous.layers[1] == ("s2_0|0+s2_0|1", "s2_1|0+s2_1|1")
    assert recovered.chain.layers == (("xi1", "xi2"),) * 3


def test_layers_of_different_widths_and_a_single_action():
    """Widths 2, 4, 6 (an endogenous part of 1, 2, 3 states times a bit with memory): the
    declared partition, 1/2/3 classes; and with one action every step is action-independent, so
    all of a two-layer product is exogenous: one endogenous class per layer. Kills a search
    that reads one layer's sizes or rows for another's, or a second action that is not there."""
    widening = block_mdp("widths", [["a"], ["b", "c"], ["d", "e", "f"]], ["x", "y"], {"a": 1},
                         {"a": {"x": {"b": 1}, "y": {"c": 1}},
                          "b": {"x": {"d": 1}, "y": {"e": 1}},
                          "c": {"x": {"e": 1}, "y": {"f": 1}}})
    model = exogenous_block_mdp(widening, flips("1/10", 3))
    found = endogenous_factorisations(model.mdp)
    assert found.unique and found.partitions() == [endogenous_partition(model)]
    chain = block_mdp("one action", [["p", "q"], ["u", "v"]], ["a"], {"p": "1/2", "q": "1/2"},
                      {"p": {"a": {"u": 1}}, "q": {"a": {"v": 1}}})
    found = endogenous_factorisations(exogenous_block_mdp(chain, flips("1/10", 2)).mdp)
    assert found.endogenous_classes == 2 and found.partitions()[0].blocks_per_layer == (1, 1)


def test_a_layer_as_wide_as_the_limit_is_searched():
    assert endogenous_factorisations(two_by_two(0).mdp, max_states_per_layer=4).unique


def test_exact_rewards_apart_by_very_little_are_apart():
    """Two exogenous copies of an endogenous state whose rewards differ by 10^-12 cannot share
    an endogenous block (exact rewards compare exactly): as when they differ by 1."""
    spec = to_spec(two_by_two(0, horizon=2).mdp)
    for reward in ("1", "1/1000000000000"):
        spec["rewards"] = {"s2_0|1": {"a1": reward}}
        found = endogenous_factorisations(from_spec(spec))
        assert [partition.blocks_per_layer for partition in found.partitions()] == [(4, 4)]


def test_float_mode_finds_the_declared_partition_despite_rounding():
    """A float lock times a bit flipping with probability 0.1: products such as 0.9 * 0.5 are
    rounded, so the search, which compares sums of entries, must allow for rounding."""
    chain = exogenous_chain(["0", "1"], {"0": 0.5, "1": 0.5},
                            {"0": {"0": 0.9, "1": 0.1}, "1": {"0": 0.1, "1": 0.9}}, horizon=3)
    model = exogenous_block_mdp(with_float_numbers(combination_lock(3, 2, seed=0)), chain)
    found = endogenous_factorisations(model.mdp)
    assert found.unique and found.partitions() == [endogenous_partition(model)]


def test_in_float_mode_a_factorisation_only_the_search_accepts_is_refused():
    """Entries 0.005 from the product of their marginals: within the search's 4 * width * atol
    (atol = 10^-3) but not within check_factorisation's atol, which has the last word."""
    grid = block_mdp("grid", [["s"], ["00", "01", "10", "11"]], ["a", "b"], {"s": 1},
                     {"s": {"a": {"00": 0.255, "01": 0.245, "10": 0.245, "11": 0.255},
                            "b": {"00": 0.5, "01": 0.5}}}, atol=1e-3)
    with pytest.raises(NotFactorised, match=r"^'grid': the coarsest factorisations the search "
                                            r"found \(within 4 \* width \* atol\) fail "
                                            r"check_factorisation within atol; give the MDP "
                                            r"exact numbers$"):
        endogenous_factorisations(grid)
