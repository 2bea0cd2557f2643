"""Visitation probabilities and values (Section 2) against enumeration of latent paths."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic.families import combination_lock, combination_lock_optimal_choices
from kinematic.model import with_float_numbers
from kinematic.policies import Policy, state_policy, uniform_policy
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import (
    observation_visitation,
    occupancy,
    policy_value,
    state_visitation,
    trajectory_distribution,
)
from tests.kinematic.brute_force import path_visitation


@given(st.data())
def test_state_visitation_equals_path_enumeration(data):
    """P_pi(s) from the layered recursion equals the sum over latent paths, exactly."""
    mdp = data.draw(block_mdps())
    policy = data.draw(policies(mdp))
    by_layer = state_visitation(mdp, policy)
    expected = path_visitation(mdp, policy)
    for layer, values in zip(mdp.layers, by_layer, strict=True):
        assert dict(zip(layer, values, strict=True)) == {s: expected[s] for s in layer}
        assert sum(values) == 1


@given(st.data())
def test_observation_visitation_and_occupancy_are_consistent(data):
    """P_pi(x) = P_pi(s) q(x|s) sums to P_pi(s) over the block of s; occupancies sum to P_pi(s)."""
    mdp = data.draw(block_mdps())
    policy = data.draw(policies(mdp))
    states = state_visitation(mdp, policy)
    observations = observation_visitation(mdp, policy)
    joint = occupancy(mdp, policy)
    for h in range(mdp.horizon):
        for i in range(mdp.width(h)):
            assert sum(observations[h][mdp.emission_state[h] == i]) == states[h][i]
            assert sum(joint[h][i]) == states[h][i]


def test_combination_lock_values():
    """V(pi*) = 1 for the good actions; the uniform policy earns the anti-shaped reward often."""
    horizon, actions = 6, 4
    mdp = combination_lock(horizon, actions, seed=3)
    good = combination_lock_optimal_choices(horizon, actions, seed=3)
    assert policy_value(mdp, state_policy(mdp, good)) == 1
    # Uniform: leave the good chain at step h with prob (1/4)^(h-1) (3/4) -> reward 1/20 each,
    # at the last step too (the paper's lock pays the anti-shaped reward at layer H).
    expected = sum(Fraction(1, 4) ** (h - 1) * Fraction(3, 4) * Fraction(1, 20)
                   for h in range(1, horizon + 1)) + Fraction(1, 4) ** horizon
    assert policy_value(mdp, uniform_policy(mdp)) == expected


@given(st.data())
def test_float_mode_visitation_and_value_match_exact(data):
    """The float representation (sparse matrices) gives the exact answers within tolerance."""
    mdp = data.draw(block_mdps())
    policy = data.draw(policies(mdp))
    floats = with_float_numbers(mdp)
    float_policy = Policy(tuple(p.astype(float) for p in policy.action_probabilities))
    for exact, approximate in zip(
        state_visitation(mdp, policy), state_visitation(floats, float_policy), strict=True
    ):
        assert approximate == pytest.approx([float(v) for v in exact], abs=1e-12)
    assert policy_value(floats, float_policy) == pytest.approx(
        float(policy_value(mdp, policy)), abs=1e-12
    )


@given(st.data())
def test_trajectory_distribution_marginals_are_the_visitations(data):
    """Summing the trajectory distribution over all but x_h gives P_pi(x_h), exactly."""
    mdp = data.draw(block_mdps(max_horizon=3, max_width=2, max_actions=2))
    policy = data.draw(policies(mdp))
    trajectories = trajectory_distribution(mdp, policy)
    assert sum(trajectories.values()) == 1
    for h, visits in enumerate(observation_visitation(mdp, policy)):
        marginal = dict.fromkeys(mdp.observations[h], 0)
        for trajectory, p in trajectories.items():
            marginal[trajectory[2 * h]] += p
        assert marginal == dict(zip(mdp.observations[h], visits, strict=True))
