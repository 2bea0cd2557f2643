"""Exact eta by certified float decisions and integer values (``kinematic.certified_induction``):
equal, with ``==``, to the ``Fraction`` induction of ``kinematic.homing`` (``def:homing``)."""

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given

import kinematic.certified_induction as certified
import kinematic.homing as homing
from kinematic.families import random_exact_mdp
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.spec import from_spec
from kinematic.strategies import block_mdps


def fraction_eta(mdp: BlockMDP, h: int) -> list[Fraction]:
    """eta of layer ``h`` by the ``Fraction`` batched induction (no float anywhere)."""
    columns = homing._unit_columns(mdp, h, 0, mdp.width(h))
    return list(homing._start_values(mdp, h, columns, 0.0))


def certified_eta(mdp: BlockMDP) -> list[list[Fraction] | None]:
    layers = certified.integer_layers(mdp)
    return [certified.layer_eta(layers, mdp.start, h) for h in range(1, mdp.horizon)]


@given(block_mdps(max_horizon=5, max_width=4, max_actions=3, max_splits=0))
def test_certified_eta_equals_the_fraction_induction(mdp):
    """Generated MDPs: small denominators, so exact ties between actions are common."""
    assert certified_eta(mdp) == [fraction_eta(mdp, h) for h in range(1, mdp.horizon)]


@pytest.mark.parametrize("seed", range(3))
def test_deep_mixing_mdps_need_exact_decisions_and_get_them(seed):
    """Forty layers of a mixing MDP: far from the target every action's value agrees with every
    other's to far below float precision, so most decisions there are made exactly."""
    mdp = random_exact_mdp(40, 6, 3, 3, seed=seed)
    assert certified_eta(mdp) == [fraction_eta(mdp, h) for h in range(1, mdp.horizon)]


def two_near_equal_actions(difference: Fraction) -> BlockMDP:
    """From s1, a2 reaches x (then the target t) with 1/3 + difference, a1 with 1/3."""
    first, second = Fraction(1, 3), Fraction(1, 3) + difference
    return from_spec({
        "name": "near-tie", "horizon": 3, "actions": ["a1", "a2"],
        "layers": [["s1"], ["x", "y"], ["t", "u"]], "start": {"s1": "1"},
        "transitions": {
            "s1": {"a1": {"x": str(first), "y": str(1 - first)},
                   "a2": {"x": str(second), "y": str(1 - second)}},
            "x": {"a1": {"t": "1"}, "a2": {"t": "1"}},
            "y": {"a1": {"u": "1"}, "a2": {"u": "1"}}}})


@pytest.mark.parametrize("difference", [Fraction(1, 10**30), Fraction(-1, 10**30)])
def test_a_difference_below_float_precision_is_decided_exactly(difference):
    """The two actions' probabilities round to the same float, so the float argmax is the first
    action: trusting it would give 1/3 when a2 is ahead, and leaving it out of the exact
    comparison would give a2's 1/3 - 10^-30 when a1 is ahead."""
    assert float(Fraction(1, 3)) == float(Fraction(1, 3) + difference)
    eta = certified_eta(two_near_equal_actions(difference))
    assert eta[1][0] == Fraction(1, 3) + max(difference, 0)


def test_floats_in_the_wrong_order_are_not_trusted():
    """The exact ``Q`` of a2 exceeds a1's by 1e-42 relative, but the float products and sums
    (deviations 3/2 and 1 after scaling, exact in binary) order them the other way: only the
    relative margin of the rounding sends this decision to exact integers."""
    p1 = Fraction(600481857518289856608140613233, 3 * 10**30)
    r1 = Fraction(118178044071384592379448859049, 375 * 10**27)
    p2 = Fraction(37530116094893116162950605723, 1875 * 10**26)
    r2 = Fraction(472712176285538368018493627444750000000001474209, 15 * 10**47)
    q1, q2 = (p1 * 3 / 2 + r1) / 2, (p2 * 3 / 2 + r2) / 2
    assert q2 > q1 and float(p2) * 1.5 + float(r2) < float(p1) * 1.5 + float(r1)
    mdp = from_spec({
        "name": "inverted", "horizon": 3, "actions": ["a1", "a2"],
        "layers": [["s"], ["x", "y", "z"], ["t", "u"]], "start": {"s": "1"},
        "transitions": {
            "s": {"a1": {"x": str(p1), "y": str(r1), "z": str(1 - p1 - r1)},
                  "a2": {"x": str(p2), "y": str(r2), "z": str(1 - p2 - r2)}},
            "x": {"a1": {"t": "3/4", "u": "1/4"}, "a2": {"t": "3/4", "u": "1/4"}},
            "y": {"a1": {"t": "1/2", "u": "1/2"}, "a2": {"t": "1/2", "u": "1/2"}},
            "z": {"a1": {"u": "1"}, "a2": {"u": "1"}}}})
    assert certified_eta(mdp)[1][0] == q2


def test_possible_underflow_falls_back_to_the_fraction_induction():
    """A probability of 10^-310, below the float range: ``layer_eta`` gives up and
    ``eta`` still answers exactly. (Scaling the deviations per column keeps
    10^-200 twice in range: that case is certified.)"""
    for tiny, certified_answers in ((Fraction(1, 10**310), False), (Fraction(1, 10**200), True)):
        mdp = from_spec({
            "name": "tiny", "horizon": 3, "actions": ["a1", "a2"],
            "layers": [["s1"], ["x", "y", "z"], ["t", "u"]], "start": {"s1": "1"},
            "transitions": {
                "s1": {"a1": {"x": "1/3", "y": "1/3", "z": "1/3"}, "a2": {"y": "1"}},
                "x": {"a1": {"t": "1"}, "a2": {"u": "1"}},
                "y": {"a1": {"t": str(tiny), "u": str(1 - tiny)}, "a2": {"u": "1"}},
                "z": {"a1": {"u": "1"}, "a2": {"u": "1"}}}})
        assert (certified_eta(mdp)[1] is not None) == certified_answers
        assert list(homing.eta(mdp)[2]) == [(1 + tiny) / 3, 1]


def test_a_product_that_underflows_from_two_normal_floats_falls_back():
    """A deviation of 2 x 10^-200 (layer 3's values for the target t) times a probability of
    10^-200 (layer 2): each is a normal float, their product 2 x 10^-400 is not, so the step
    could underflow and ``layer_eta`` gives up (the check must take the smallest positive
    deviation and multiply); ``eta`` answers exactly all the same."""
    tiny = Fraction(1, 10**200)
    mdp = from_spec({
        "name": "tiny-product", "horizon": 4, "actions": ["a1", "a2"],
        "layers": [["s"], ["w"], ["x", "y", "z"], ["t", "u"]], "start": {"s": "1"},
        "transitions": {
            "s": {"a1": {"w": "1"}, "a2": {"w": "1"}},
            "w": {"a1": {"x": str(tiny), "z": str(1 - tiny)}, "a2": {"y": "1"}},
            "x": {"a1": {"t": "1"}, "a2": {"t": "1"}},
            "y": {"a1": {"t": str(2 * tiny), "u": str(1 - 2 * tiny)}, "a2": {"u": "1"}},
            "z": {"a1": {"u": "1"}, "a2": {"u": "1"}}}})
    assert certified_eta(mdp)[1] is not None  # layer 3: unit deviations times 10^-200
    assert certified_eta(mdp)[2] is None
    assert list(homing.eta(mdp)[3]) == fraction_eta(mdp, 3) == [2 * tiny, 1]


def test_forked_workers_give_the_same_answers(monkeypatch):
    """The parallel path (two forked processes over the target layers) = the sequential one."""
    mdp = random_exact_mdp(8, 5, 3, 3, seed=4)
    sequential = certified.certified_maximum_visitation(mdp, workers=1)
    monkeypatch.setattr(certified, "PARALLEL_OPERATIONS", 0)
    assert certified.certified_maximum_visitation(mdp, workers=2) == sequential
    assert sequential == {h: fraction_eta(mdp, h) for h in range(1, mdp.horizon)}


def test_float_mode_mdps_are_refused():
    mdp = with_float_numbers(random_exact_mdp(3, 2, 2, 2, seed=0, denominator=10))
    with pytest.raises(ValueError, match="float mode"):
        certified.integer_layers(mdp)


def test_two_hundred_layers_of_integers_beyond_the_float_range():
    """200 layers of probabilities k/100, 8 states, 3 actions, 3 successors: the deviations'
    integers pass 2^1024 after about 150 layers, beyond any float; every step keeps them as
    Python integers (scaled by Python-integer powers of two), and eta of the last layer equals
    the ``Fraction`` induction (fails when the powers are a float array: OverflowError)."""
    mdp = random_exact_mdp(200, 8, 3, 3, seed=0)
    layers = certified.integer_layers(mdp)
    assert certified.layer_eta(layers, mdp.start, 199) == fraction_eta(mdp, 199)


def test_a_row_that_does_not_sum_to_one_is_named():
    """``BlockMDP`` itself does not validate (``from_spec`` does): built directly with a row
    that sums to 9/10, the certified induction (whose deviations need stochastic rows) refuses
    it, naming the layer, state and action, and not the first row or another one."""
    mdp = from_spec({
        "name": "rows", "horizon": 2, "actions": ["a1", "a2"],
        "layers": [["s1", "s2", "s3"], ["t"]],
        "start": {"s1": "1/3", "s2": "1/3", "s3": "1/3"},
        "transitions": {state: {"a1": {"t": "1"}, "a2": {"t": "1"}}
                        for state in ("s1", "s2", "s3")}})
    transitions = mdp.transitions[0].copy()
    transitions[2 * 2 + 0, 0] = Fraction(9, 10)  # state-major row of (s3, a1)
    broken = dataclasses.replace(mdp, transitions=(transitions,))
    with pytest.raises(ValueError) as raised:
        certified.integer_layers(broken)
    assert str(raised.value) == "layer 1, state 's3', action 'a1': probabilities sum to 9/10, not 1"
