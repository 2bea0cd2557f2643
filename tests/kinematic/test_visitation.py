"""Visitation probabilities and values (Section 2) against enumeration of latent paths."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from kinematic.families import combination_lock, combination_lock_good_actions
from kinematic.policies import state_policy, uniform_policy
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import (
    observation_visitation,
    occupancy,
    policy_value,
    state_visitation,
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
    u, v = combination_lock_good_actions(horizon, actions, seed=3)
    good = {f"s{h + 1}a": u[h] for h in range(horizon)}
    good |= {f"s{h + 1}b": v[h] for h in range(horizon)}
    assert policy_value(mdp, state_policy(mdp, good)) == 1
    # Uniform: leave the good chain at step h with prob (1/4)^(h-1) (3/4) -> reward 1/20 each.
    expected = sum(Fraction(1, 4) ** (h - 1) * Fraction(3, 4) * Fraction(1, 20)
                   for h in range(1, horizon)) + Fraction(1, 4) ** horizon
    assert policy_value(mdp, uniform_policy(mdp)) == expected
