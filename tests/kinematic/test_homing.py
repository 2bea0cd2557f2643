"""eta(s), eta_min and homing policies (``def:homing``, ``lem:homing_deterministic``)."""

import copy
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given
from hypothesis import strategies as st

import kinematic.homing as homing
from kinematic.families import combination_lock, random_sparse_mdp
from kinematic.homing import (
    _distribution,
    eta,
    eta_error_bound,
    eta_min,
    homing_policies,
    homing_policy,
    homing_policy_choices,
    lp_maximum_visitation,
    lp_optimal_value,
)
from kinematic.model import with_float_numbers
from kinematic.planning import optimal_values
from kinematic.policies import state_policy
from kinematic.spec import from_spec
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import policy_value, state_visitation
from tests.kinematic.brute_force import brute_force_eta, path_visitation

SMALL = block_mdps(max_horizon=3, max_width=2, max_actions=3, max_splits=0)


def by_state(mdp, per_layer):
    """State name -> value, from per-layer arrays such as ``eta(mdp)``'s."""
    return {state: per_layer[h][i] for state, (h, i) in mdp.state_location.items()}


@given(SMALL)
def test_eta_by_dynamic_programming_equals_brute_force(mdp):
    """eta(s) by batched backward induction = max over all deterministic policies, exactly."""
    assert by_state(mdp, eta(mdp)) == brute_force_eta(mdp)


@given(block_mdps())
def test_batched_and_single_target_inductions_agree(mdp):
    """All targets of a layer at once give the same eta as one induction per target."""
    batched = by_state(mdp, eta(mdp))
    assert batched == {s: eta(mdp, s) for s in mdp.states}
    assert eta_min(mdp) == min(batched.values())


@given(block_mdps())
def test_homing_policies_attain_eta(mdp):
    """The deterministic policy of every state visits it with probability exactly eta(s)."""
    values = by_state(mdp, eta(mdp))
    all_choices = homing_policy_choices(mdp)
    all_policies = homing_policies(mdp)
    assert list(all_choices) == list(all_policies) == list(mdp.states)
    for state in mdp.states:
        visits = path_visitation(mdp, homing_policy(mdp, state))
        assert visits[state] == values[state]
        assert all_choices[state] == homing_policy_choices(mdp, state)
        lifted = state_policy(mdp, all_choices[state], default_action=mdp.actions[-1])
        assert path_visitation(mdp, lifted)[state] == values[state]
        one = homing_policy(mdp, state)
        assert all_policies[state].mdp is mdp
        assert all(np.array_equal(ours, theirs) for ours, theirs in zip(
            all_policies[state].action_probabilities, one.action_probabilities, strict=True))


@given(st.data())
def test_no_stochastic_policy_beats_eta(data):
    """lem:homing_deterministic: P_pi(s) <= eta(s) for random stochastic observation policies."""
    mdp = data.draw(block_mdps())
    policy = data.draw(policies(mdp))
    values = eta(mdp)
    for visits, best in zip(state_visitation(mdp, policy), values, strict=True):
        assert all(v <= b for v, b in zip(visits, best, strict=True))


@given(block_mdps(max_splits=0))
def test_linear_program_over_stochastic_policies_matches(mdp):
    """lem:homing_deterministic: the LP optimum over stochastic policies equals eta(s) (to the
    solver's tolerance), and the LP's stochastic policy, evaluated exactly, never exceeds eta."""
    values = by_state(mdp, eta(mdp))
    for state in mdp.states:
        result = lp_maximum_visitation(mdp, state)
        assert result.value == pytest.approx(float(values[state]), abs=1e-7)
        reached = path_visitation(mdp, result.policy)[state]
        assert reached <= values[state]
        # The LP's policy (rounded to rationals of denominator <= 10^6) attains its optimum.
        assert float(reached) == pytest.approx(result.value, abs=1e-5)
        for table in result.policy.action_probabilities:
            assert all(sum(row) == 1 and min(row) >= 0 for row in table)


def test_the_linear_program_policy_knows_its_mdp_and_looks_names_up():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    policy = lp_maximum_visitation(mdp, "s3a").policy
    assert policy.mdp is mdp
    assert set(policy.at("s1a")) == set(mdp.actions)


@given(block_mdps(max_splits=0))
def test_the_reward_linear_program_policy_attains_the_optimal_value(mdp):
    result = lp_optimal_value(mdp, mdp.rewards)
    optimum = optimal_values(mdp).value
    assert result.value == pytest.approx(float(optimum), abs=1e-7)
    assert float(policy_value(mdp, result.policy)) == pytest.approx(float(optimum), abs=1e-5)


@given(block_mdps())
def test_float_mode_agrees_with_exact_mode(mdp):
    """The same MDP read with float probabilities gives eta within the tolerance."""
    floats = with_float_numbers(mdp)
    assert not floats.mode.exact
    exact = by_state(mdp, eta(mdp))
    for state, value in by_state(floats, eta(floats)).items():
        assert value == pytest.approx(float(exact[state]), abs=1e-12)
        assert lp_maximum_visitation(floats, state).value == pytest.approx(value, abs=1e-7)


@given(block_mdps(), st.sampled_from([0.0, 1e-3, 0.05, 0.2]))
def test_float_eta_is_within_the_requested_error(mdp, error):
    """``eta(error=e)`` in float mode, of every state and of one state: every eta within ``e``
    (plus rounding) of the exact eta - the stopping rule of ``_start_values`` (values of a
    column within ``2 e`` of each other, answer their midpoint)."""
    floats = with_float_numbers(mdp)
    exact = by_state(mdp, eta(mdp))
    per_layer = eta(floats, error=error)
    for layer, values in zip(floats.layers, per_layer, strict=True):
        for state, value in zip(layer, values, strict=True):
            assert abs(value - float(exact[state])) <= error + 1e-12
            single = eta(floats, state, error=error)
            assert abs(single - float(exact[state])) <= error + 1e-12


MIDPOINT_SPEC = {
    "name": "midpoint", "horizon": 3, "actions": ["a0"],
    "layers": [["s"], ["v", "u"], ["t", "w"]], "start": {"s": 1.0},
    "transitions": {"s": {"a0": {"u": 1 - 1e-6, "v": 1e-6}},
                    "u": {"a0": {"t": 0.6, "w": 0.4}}, "v": {"a0": {"t": 0.4, "w": 0.6}}},
}
"""Layer-2 values 0.4 (v) and 0.6 (u) for the target t; s reaches u with probability 1 - 1e-6,
so eta(t) = 0.6 - 2e-7 (also used by the CLI test of ``--eta-error``)."""


def test_the_error_bound_is_tight_for_the_midpoint_rule():
    """v's value is 0.4, u's 0.6 and s reaches u with probability 1 - 1e-6, so eta(t) is
    0.6 - 2e-7. With error 0.1 the spread 0.2 = 2 * 0.1 ends the induction with the midpoint
    0.5, off by almost exactly the bound (the first state's value, 0.4, would be off by twice
    it); with error 0.09 the induction runs to the start and is exact up to rounding."""
    mdp = from_spec(MIDPOINT_SPEC)
    exact = 0.6 - 2e-7
    stopped = eta(mdp, error=0.1)[2][0]
    assert stopped == pytest.approx(0.5, abs=1e-12)
    assert abs(stopped - exact) <= 0.1
    assert eta(mdp, error=0.09)[2][0] == pytest.approx(exact, abs=1e-12)


def test_a_spread_of_exactly_twice_the_error_settles_for_all_states_and_for_one():
    """The rule is ``spread <= 2 error``: dyadic values 0.25 (v) and 0.75 (u), exact in binary,
    with error 0.25 stop at the midpoint 0.5, in ``eta`` of every state and of ``t`` alone
    alike; a smaller error runs to the start."""
    spec = copy.deepcopy(MIDPOINT_SPEC)
    spec["transitions"].update(u={"a0": {"t": 0.75, "w": 0.25}}, v={"a0": {"t": 0.25, "w": 0.75}})
    mdp = from_spec(spec)
    assert eta(mdp, error=0.25)[2][0] == 0.5
    assert eta(mdp, "t", error=0.25) == 0.5
    exact = 0.75 * (1 - 1e-6) + 0.25 * 1e-6
    assert eta(mdp, "t", error=0.2) == pytest.approx(exact, abs=1e-12)


def test_blocks_of_targets_give_the_single_target_answers(monkeypatch):
    """Float mode splits wide layers into blocks of targets spread over threads (here blocks of
    16 or 17 of a width-50 layer): the same eta as one induction per target (up to the rounding
    of differently shaped products), with one worker or two."""
    mdp = random_sparse_mdp(horizon=4, width=50, actions=3, successors=4, seed=1)
    monkeypatch.setattr(homing, "BLOCK_BYTES", 8 * 3 * 50 * 16)
    assert homing._block_columns(mdp, 0) == 16
    single = [np.array([eta(mdp, state) for state in layer]) for layer in mdp.layers]
    for workers in (1, 2):
        blocked = eta(mdp, workers=workers)
        for expected, values in zip(single, blocked, strict=True):
            np.testing.assert_allclose(values, expected, rtol=0, atol=1e-15)


def test_error_is_refused_in_exact_mode_and_checked_in_float_mode():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    for state in (None, "s2a"):
        with pytest.raises(ValueError) as refused:
            eta(mdp, state, error=1e-3)
        assert str(refused.value) == (
            "error applies to float mode; 'combolock-H3-K2-seed0' is exact and its eta is "
            "computed exactly (convert it with kinematic.model.with_float_numbers)")
    assert eta_error_bound(mdp) == 0  # exact: no error at all
    assert eta_error_bound(with_float_numbers(mdp)) == 1e-3 * mdp.mode.atol
    for bad in (-1e-3, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="error must be"):
            eta(with_float_numbers(mdp), error=bad)


def test_combination_lock_eta():
    """Section 7: the reachability parameter is 1/2; the bad states are reached surely."""
    mdp = combination_lock(horizon=12, actions=10, seed=0)
    values = by_state(mdp, eta(mdp))
    assert eta_min(mdp) == Fraction(1, 2)
    assert all(values[f"s{h}c"] == 1 for h in range(2, 13))
    assert all(values[f"s{h}{k}"] == Fraction(1, 2) for h in range(1, 13) for k in "ab")


def test_unknown_state_is_named():
    with pytest.raises(ValueError, match="unknown state 'nope'"):
        eta(combination_lock(3, 2, 0), "nope")


def test_workers_apply_to_every_state_only():
    """``workers`` spreads the inductions of all states; one state's is a single induction."""
    with pytest.raises(ValueError) as refused:
        eta(combination_lock(3, 2, 0), "s2a", workers=2)
    assert str(refused.value) == ("workers applies to eta of every state; eta of 's2a' alone is "
                                  "one induction")


def test_zero_workers_mean_the_default_one_per_cpu_in_both_modes():
    """``workers=0`` is read as None (``workers or os.cpu_count()``), in the float threads (H >= 3:
    not sequential) as in the exact processes."""
    for mdp in (combination_lock(3, 2, 0), with_float_numbers(combination_lock(3, 2, 0))):
        default = eta(mdp)
        for expected, values in zip(default, eta(mdp, workers=0), strict=True):
            assert list(values) == list(expected)


def test_homing_policy_choices_name_every_state():
    """One entry per state; layer-1 states need no decision."""
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    choices = homing_policy_choices(mdp)
    assert list(choices) == list(mdp.states)
    assert all(choices[s] == {} for s in mdp.layers[0])


# --- the LP's policy in the MDP's number mode (``_distribution``) ---------------------------------

FOUR_ACTIONS = combination_lock(horizon=2, actions=4, seed=0)  # exact mode


def test_exact_lp_shares_are_rationals_with_denominators_up_to_a_million():
    shares = np.array([0.2500003, 0.3141593, 1 - 0.2500003 - 0.3141593 - 1e-15, 1e-15])
    rounded = _distribution(FOUR_ACTIONS, shares)
    assert all(type(p) is Fraction for p in rounded) and sum(rounded) == 1
    assert all(p.denominator <= 10**6 for p in rounded[:-1])  # the last one completes the sum
    assert max(abs(float(p) - q) for p, q in zip(rounded, shares, strict=True)) < 1e-9


def test_rounding_that_overshoots_falls_back_to_the_most_likely_action():
    """The first three shares round up by 5.6e-11 in total: the last would be negative."""
    shares = np.array([0.2718282, 0.3333337, 1 - 0.2718282 - 0.3333337 - 1e-15, 1e-15])
    assert _distribution(FOUR_ACTIONS, shares) == [0, 0, 1, 0]


def test_a_zero_last_share_is_kept():
    assert _distribution(FOUR_ACTIONS, np.array([0.5, 0.25, 0.25, 0.0])) == [
        Fraction(1, 2), Fraction(1, 4), Fraction(1, 4), 0]


def test_one_action_gets_probability_one_as_a_rational():
    one_action = from_spec({"name": "one", "horizon": 1, "actions": ["a"], "layers": [["s"]],
                            "start": {"s": 1}, "transitions": {}})
    assert [type(p) for p in _distribution(one_action, np.array([1.0]))] == [Fraction]


def test_float_lp_shares_are_clipped_and_normalised():
    floats = with_float_numbers(FOUR_ACTIONS)
    assert _distribution(floats, np.array([-1e-12, 1.0, 2.0, 1.0])) == [0.0, 0.25, 0.5, 0.25]


def test_a_failed_linear_program_is_reported_with_the_solvers_message(monkeypatch):
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *args, **kwargs: SimpleNamespace(
        status=2, message="The problem is infeasible."))
    with pytest.raises(RuntimeError, match=r"^linprog failed: The problem is infeasible\.$"):
        lp_maximum_visitation(FOUR_ACTIONS, "s2a")


@pytest.mark.parametrize("build", [homing_policy, lambda mdp, state: homing_policies(mdp)[state]],
                         ids=["homing_policy", "homing_policies"])
def test_a_homing_policy_takes_the_first_action_where_it_need_not_decide(build):
    """From the target's layer on, and at states that cannot reach it: the first action."""
    mdp = combination_lock(horizon=4, actions=3, seed=0)
    policy = build(mdp, "s3a")
    for h in range(mdp.horizon):
        for x, name in enumerate(mdp.observations[h]):
            row = policy.action_probabilities[h][x].tolist()
            if h >= 2 or name == "s2c":
                assert row == [1, 0, 0], (name, row)
            else:
                assert sorted(row) == [0, 0, 1], (name, row)
