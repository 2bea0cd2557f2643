"""Float-mode eta with a single-precision tail (``kinematic.float_induction``): every float32
step within its rounding bound, checked in exact arithmetic; every eta within the requested
error of the exact eta; the bound spent in float32 part of the stopping rule and capped at half
the error (``def:homing``)."""

from fractions import Fraction

import numpy as np
import pytest

import kinematic.float_induction as float_induction
import kinematic.homing as homing
from kinematic.arrays import block_mdp_from_arrays
from kinematic.families import random_exact_mdp, random_sparse_mdp
from kinematic.homing import eta
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.spec import from_spec


def exact_step(matrix: np.ndarray, deviations: np.ndarray, actions: int) -> np.ndarray:
    """``max_a sum_s' T(s'|s, a) D(s')`` in rationals, from the float64 entries as they are."""
    rows = np.vectorize(Fraction, otypes=[object])(matrix)
    values = rows @ np.vectorize(Fraction, otypes=[object])(deviations)
    return values.reshape(actions, -1, deviations.shape[1]).max(axis=0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", [1.0, 3e-4, 1e-9, 1e-40])
def test_one_single_precision_step_is_within_its_bound(seed, spread):
    """Deviations in float64 (minima 0), converted to float32 as a switching column's are, one
    float32 step, compared in rationals with the step on the float64 data: the computed
    ``offset + D`` is within ``single_precision_step_bound`` of the exact values (spread 1e-40:
    float32 subnormals, where the bound's absolute underflow term carries it). The step runs in
    float32 and leaves each column's minimum at 0 and its maximum as its spread."""
    mdp = random_sparse_mdp(horizon=2, width=30, actions=4, successors=6, seed=seed)
    rng = np.random.default_rng(seed)
    deviations = rng.random((30, 8)) * spread
    deviations -= deviations.min(axis=0)
    before = deviations.max(axis=0)
    columns = float_induction._Columns(
        np.arange(8), np.zeros(8), np.zeros(8), deviations.astype(np.float32), before)
    float_induction._bellman_step(mdp, 0, columns, single=True)
    assert columns.deviations.dtype == np.float32
    assert (columns.deviations.min(axis=0) == 0).all()
    assert (columns.spread == columns.deviations.max(axis=0)).all()
    exact = exact_step(mdp.action_major_transitions[0].toarray(), deviations, 4)
    computed = columns.offset + columns.deviations.astype(np.float64)
    bound = float_induction.single_precision_step_bound(
        mdp.successor_bounds[0], np.maximum(before, columns.spread))
    errors = np.abs(np.vectorize(Fraction, otypes=[object])(computed) - exact)
    assert (errors <= np.vectorize(Fraction, otypes=[object])(bound)).all()
    assert errors.max() > 0  # the step rounds: a bound of 0 would fail here


def single_steps(monkeypatch) -> list[int]:
    """Spy: the number of columns of each float32 step."""
    counts: list[int] = []
    step = float_induction._bellman_step

    def counted(mdp, t, columns, single):
        if single:
            counts.append(columns.deviations.shape[1])
        return step(mdp, t, columns, single)

    monkeypatch.setattr(float_induction, "_bellman_step", counted)
    return counts


@pytest.mark.parametrize("error", [1e-12, 1e-9, 1e-5])
def test_eta_with_float32_steps_is_within_the_error(error, monkeypatch):
    """A 30-layer mixing MDP (probabilities k/100) read in floats: many float32 steps, and every
    eta within ``error`` plus float64 rounding (``4 H d 2**-52``) of the exact eta of the exact
    MDP (:mod:`kinematic.certified_induction`)."""
    exact_mdp = random_exact_mdp(30, 8, 3, 3, seed=0)
    floats = with_float_numbers(exact_mdp)
    counts = single_steps(monkeypatch)
    computed = eta(floats, workers=1, error=error)
    assert sum(counts) > 100
    rounding = 4 * floats.horizon * max(floats.successor_bounds) * 2.0**-52
    for values, exact in zip(computed, eta(exact_mdp), strict=True):
        assert np.abs(values - np.array(exact, dtype=float)).max() <= error + rounding


def test_a_column_carries_the_sum_of_its_float32_step_bounds(monkeypatch):
    """The accounting itself: before every step, a column's ``spent`` is the sum of
    ``single_precision_step_bound`` over its float32 steps so far (each with the larger of the
    spreads before and after the step)."""
    mdp = with_float_numbers(random_exact_mdp(30, 8, 3, 3, seed=1))
    expected: dict[int, float] = {}
    checked = 0
    step = float_induction._bellman_step

    def recording(mdp, t, columns, single):
        nonlocal checked
        for target, spent in zip(columns.targets, columns.spent, strict=True):
            assert spent == pytest.approx(expected.get(target, 0.0), rel=1e-12, abs=0)
            checked += spent > 0
        before = columns.spread.copy()
        step(mdp, t, columns, single)
        if single:
            bounds = float_induction.single_precision_step_bound(
                mdp.successor_bounds[t], np.maximum(before, columns.spread))
            for target, bound in zip(columns.targets, bounds, strict=True):
                expected[target] = expected.get(target, 0.0) + bound

    monkeypatch.setattr(float_induction, "_bellman_step", recording)
    float_induction.start_values(mdp, 29, np.eye(8), 1e-9)
    assert checked > 8  # columns with several float32 steps behind them


def two_groups_mdp(horizon: int, group: int = 41) -> BlockMDP:
    """Two groups of ``group`` states per layer that never mix: a state moves uniformly to
    ``group - 1`` states of its own group in layers of even index, to one in the others, so the
    spread of a terminal that is constant on each group never shrinks, and the number of
    successors alternates between ``group - 1`` and 1."""
    width = 2 * group
    matrices = []
    for t in range(horizon - 1):
        matrix = np.zeros((width, width))
        for s in range(width):
            base, i = (s // group) * group, s % group
            targets = ([base + (i + k) % group for k in range(1, group)] if t % 2 == 0
                       else [base + (i + 1) % group])
            matrix[s, targets] = 1 / len(targets)
        matrices.append(matrix)
    return block_mdp_from_arrays("two-groups", np.full(width, 1 / width), matrices, actions=1)


def test_no_float32_step_starts_that_could_take_spent_past_half_the_error(monkeypatch):
    """Spreads that never shrink (``two_groups_mdp``) make columns spend their budget: every
    float32 step starts with ``spent`` plus the bound of that layer's step (at the spread before
    it) within ``error / 2``, although the layers' successor counts alternate between 40 and 1
    (the guard must use the bound of the layer the step runs on); the answers stay within
    ``error``."""
    mdp = two_groups_mdp(14)
    error = 1e-9
    spread = error / 8 / float(float_induction.single_precision_step_bound(40, np.ones(1))[0])
    terminal = np.zeros((82, 3))
    terminal[:41] = spread * np.array([1.0, 0.5, 0.25])
    starts = []
    step = float_induction._bellman_step

    def recording(mdp, t, columns, single):
        if single:
            bounds = float_induction.single_precision_step_bound(
                mdp.successor_bounds[t], columns.spread)
            starts.append(float((columns.spent + bounds).max()))
        return step(mdp, t, columns, single)

    monkeypatch.setattr(float_induction, "_bellman_step", recording)
    values = float_induction.start_values(mdp, 13, terminal, error)
    assert len(starts) > 5
    assert max(starts) <= error / 2
    assert max(starts) > error / 4  # the budget was actually in play
    assert np.abs(values - terminal[:41].mean(axis=0) / 2).max() <= error


@pytest.mark.parametrize("error", [0.0, 1e-9, 1e-3])
def test_any_terminal_values_not_only_unit_columns(error):
    """``start_values`` takes any terminal values (here rewards in [0.2, 0.9] per target-layer
    state, shifted per column): within ``error`` plus rounding of the exact induction of the
    exact MDP."""
    exact_mdp = random_exact_mdp(25, 6, 3, 3, seed=2)
    rng = np.random.default_rng(2)
    terminal = rng.integers(20, 91, size=(6, 5)) / 100 + np.arange(5) / 10
    exact_terminal = np.vectorize(lambda v: Fraction(v).limit_denominator(1000),
                                  otypes=[object])(terminal)
    exact = homing._start_values(exact_mdp, 24, exact_terminal, 0.0)
    computed = float_induction.start_values(with_float_numbers(exact_mdp), 24, terminal, error)
    assert np.abs(computed - np.array(exact, dtype=float)).max() <= error + 1e-13


DYADIC_SPEC = {
    "name": "dyadic", "horizon": 4, "actions": ["a0"],
    "layers": [["s"], ["u", "v"], ["p", "q"], ["t", "w"]], "start": {"s": 1.0},
    "transitions": {"s": {"a0": {"u": 1 - 1e-6, "v": 1e-6}},
                    "u": {"a0": {"p": 0.75, "q": 0.25}}, "v": {"a0": {"p": 0.25, "q": 0.75}},
                    "p": {"a0": {"t": 1.0}}, "q": {"a0": {"w": 1.0}}},
}
"""For the target t: values 1 (p) and 0 (q) in float64, then 0.75 (u) and 0.25 (v) in float32
(exact in binary); eta(t) = 0.75 - 5e-7."""


def test_the_bound_spent_in_float32_is_part_of_the_stopping_rule(monkeypatch):
    """With error 0.25 the spread 0.5 of layer 2 would end the induction at the midpoint 0.5 -
    but it was computed in float32 and has spent a rounding bound, so ``0.25 + spent > 0.25``:
    the induction goes on to the start and is exact up to rounding."""
    mdp = from_spec(DYADIC_SPEC)
    counts = single_steps(monkeypatch)
    value = eta(mdp, error=0.25)[3][0]
    assert counts == [2]  # t and w, one float32 step each (layer 2)
    assert value == pytest.approx(0.75 - 5e-7, abs=1e-12)


def test_columns_switch_to_float32_when_cheap_and_back_before_the_budget_runs_out():
    """``_regrouped``: a float64 column switches when a step's bound is at most
    ``SINGLE_PRECISION_SHARE * error`` and it leaves ``spent`` below ``error / 2``; a float32
    column returns to float64 before its next step could take ``spent`` past ``error / 2``."""
    error, successors = 1e-6, 5
    unit_bound = float_induction.single_precision_step_bound(successors, np.ones(1))[0]
    switching = float_induction.SINGLE_PRECISION_SHARE * error / unit_bound
    spreads = np.array([0.99 * switching, 1.01 * switching, 0.5 * switching, 0.5 * switching])
    nearly_spent = error / 2 - 0.4 * float_induction.SINGLE_PRECISION_SHARE * error
    spent = np.array([0.0, 0.0, 0.4 * error, nearly_spent])
    width = 3
    double = float_induction._Columns(np.arange(4), np.zeros(4), spent,
                                      np.zeros((width, 4)), spreads)
    single = float_induction._Columns(
        np.arange(4, 8), np.zeros(4), spent.copy(), np.zeros((width, 4), dtype=np.float32),
        spreads.copy())
    groups = float_induction._regrouped({False: double, True: single}, successors, error)
    # double: 0 switches, 1 (bound above the share) and 3 (budget) stay, 2 switches
    # single: 4, 5, 6 stay (bound within the budget), 7 returns
    assert sorted(groups[True].targets) == [0, 2, 4, 5, 6]
    assert sorted(groups[False].targets) == [1, 3, 7]
    assert groups[True].deviations.dtype == np.float32
    assert groups[False].deviations.dtype == np.float64


def test_the_rules_allow_their_limits_and_return_columns_in_float64():
    """``<=`` at both limits (errors chosen as powers of two times a step's bound, so that the
    comparisons are exact): a float64 column whose step bound is exactly the share of the error
    switches; a float32 column whose ``spent`` plus bound is exactly half the error stays; one
    over that returns, in float64 even when the float64 group was empty."""
    successors = 2
    bound = float_induction.single_precision_step_bound(successors, np.ones(1))[0]

    def columns(count, spent, dtype):
        return float_induction._Columns(np.arange(count), np.zeros(count), np.array(spent),
                                        np.zeros((2, count), dtype=dtype), np.ones(count))

    error = bound / float_induction.SINGLE_PRECISION_SHARE
    assert float_induction.SINGLE_PRECISION_SHARE * error == bound
    groups = float_induction._regrouped(
        {False: columns(1, [0.0], np.float64), True: columns(0, [], np.float32)},
        successors, error)
    assert list(groups[True].targets) == [0]
    groups = float_induction._regrouped(
        {False: columns(0, [], np.float64), True: columns(2, [0.0, bound], np.float32)},
        successors, 2 * bound)
    assert list(groups[True].targets) == [0]
    assert list(groups[False].targets) == [1]
    assert groups[False].deviations.dtype == np.float64
