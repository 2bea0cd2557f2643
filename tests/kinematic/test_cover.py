"""Policy-cover quality alpha (``def:policy-cover``)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic.cover import is_policy_cover, policy_cover_alpha
from kinematic.families import combination_lock, combination_lock_optimal_choices
from kinematic.homing import eta, homing_policies, homing_policy
from kinematic.model import with_float_numbers
from kinematic.policies import state_policy, uniform_policy
from kinematic.strategies import block_mdps, policies
from tests.kinematic.brute_force import path_visitation
from tests.kinematic.test_homing import by_state


@given(block_mdps(max_splits=1))
def test_homing_policies_form_a_one_cover(mdp):
    """{pi_s : s in S} is a 1-policy cover, exactly."""
    report = policy_cover_alpha(mdp, [homing_policy(mdp, s) for s in mdp.states])
    assert report.alpha == 1
    assert is_policy_cover(mdp, [homing_policy(mdp, s) for s in mdp.states], 1)


@given(st.data())
def test_alpha_is_the_worst_ratio_of_the_best_policy(data):
    """alpha(s) = max_{pi in Psi} P_pi(s) / eta(s), min over states; adding policies only helps."""
    mdp = data.draw(block_mdps())
    cover = data.draw(st.lists(policies(mdp), min_size=1, max_size=3))
    report = policy_cover_alpha(mdp, cover)
    values = by_state(mdp, eta(mdp))
    visits = [path_visitation(mdp, policy) for policy in cover]
    for state in mdp.states:
        assert report.best_visitation[state] == max(v[state] for v in visits)
        assert report.alpha_per_state[state] == report.best_visitation[state] / values[state]
    assert report.alpha == min(report.alpha_per_state.values())
    assert 0 <= report.alpha <= 1
    larger = policy_cover_alpha(mdp, [*cover, data.draw(policies(mdp))])
    assert larger.alpha >= report.alpha


def test_a_cover_that_misses_the_bad_states():
    """The optimal lock policy never visits s_hc: alpha = 0 there, 1 on the good states."""
    horizon, actions = 5, 3
    mdp = combination_lock(horizon, actions, seed=1)
    good = combination_lock_optimal_choices(horizon, actions, seed=1)
    report = policy_cover_alpha(mdp, [state_policy(mdp, good)])
    assert report.alpha == 0
    assert report.alpha_per_layer == (1, 0, 0, 0, 0)
    assert all(report.alpha_per_state[f"s{h}c"] == 0 for h in range(2, horizon + 1))
    assert not is_policy_cover(mdp, [state_policy(mdp, good)], Fraction(1, 2))
    with_uniform = policy_cover_alpha(mdp, [state_policy(mdp, good), uniform_policy(mdp)])
    assert with_uniform.alpha_per_state["s2c"] == Fraction(2, 3)


def test_empty_cover_is_rejected():
    with pytest.raises(ValueError, match=r"^a policy cover needs at least one policy$"):
        policy_cover_alpha(combination_lock(2, 2, 0), [])


LOCK = combination_lock(3, 2, 0)
HOMING = homing_policies(LOCK)
NOT_A_LIST = (r"^policies must be Policy objects in a list \(or another iterable, or a dict's "
              r"values\), e\.g\. \[policy\] or homing_policies\(mdp\), got {}$")


@pytest.mark.parametrize("given, message", [
    (HOMING["s2a"], NOT_A_LIST.format("Policy")),
    (None, NOT_A_LIST.format("NoneType")),
    ([HOMING["s2a"], "s3c"], r"^policies\[1\] must be a Policy, got str$"),
    (list(HOMING), r"^policies\[0\] must be a Policy, got str$"),
    ({"s2a": HOMING["s2a"], "s3c": [HOMING["s3c"]]},
     r"^policies\['s3c'\] must be a Policy, got list$"),
], ids=["one policy", "None", "a name among policies", "the dict's keys", "a list in a dict"])
def test_a_cover_that_is_not_policies_is_refused_naming_the_entry(given, message):
    for check in (policy_cover_alpha, lambda mdp, policies: is_policy_cover(mdp, policies, 1)):
        with pytest.raises(TypeError, match=message):
            check(LOCK, given)


def test_any_iterable_of_policies_is_a_cover():
    listed = policy_cover_alpha(LOCK, list(HOMING.values()))
    assert listed.alpha == 1
    assert policy_cover_alpha(LOCK, iter(HOMING.values())) == listed
    assert policy_cover_alpha(LOCK, (HOMING[s] for s in LOCK.states)) == listed
    assert policy_cover_alpha(LOCK, HOMING) == listed  # a dict: its values
    assert is_policy_cover(LOCK, HOMING, 1)


@given(st.data())
def test_is_policy_cover_holds_at_and_below_alpha_and_not_above(data):
    """Psi is an alpha'-cover exactly for alpha' <= alpha (exact mode: no tolerance)."""
    mdp = data.draw(block_mdps())
    cover = data.draw(st.lists(policies(mdp), min_size=1, max_size=2))
    alpha = policy_cover_alpha(mdp, cover).alpha
    assert is_policy_cover(mdp, cover, alpha)
    assert is_policy_cover(mdp, cover, alpha / 2)
    assert is_policy_cover(mdp, cover, 0)
    if alpha < 1:
        assert not is_policy_cover(mdp, cover, (alpha + 1) / 2)


def test_float_cover_within_atol_of_the_threshold_counts():
    """Float mode: an alpha below the threshold by less than atol is a cover, by more is not."""
    mdp = with_float_numbers(combination_lock(3, 2, 0))
    cover = [homing_policy(mdp, s) for s in mdp.states]
    assert is_policy_cover(mdp, cover, 1 + 1e-12)
    assert not is_policy_cover(mdp, cover, 1 + 1e-6)
