"""The combination lock of the authors' released code (``variant="released"``), checked against
its rules written out here (cereb-rl ``rl_acid_environment.py``), not against the family."""

import json
from fractions import Fraction

import numpy as np
import pytest

from kinematic.families import LOCK_VARIANTS, combination_lock, combination_lock_optimal_choices
from kinematic.homing import eta_min
from kinematic.inseparability import backward_ki_partition, forward_ki_partition, ki_partition
from kinematic.planning import optimal_values
from kinematic.policies import state_policy
from kinematic.spec import dumps_spec, from_spec
from kinematic.visitation import policy_value

LOCKS = [(1, 2, 0), (2, 2, 0), (3, 3, 1), (5, 4, 2), (8, 10, 3)]
"""(H, K, seed) of the locks checked; H = 1 has no step between live states."""

ANTI_SHAPED = {Fraction(1, 10): Fraction(1, 2), Fraction(0): Fraction(1, 2)}


def good_actions(horizon: int, actions: int, seed: int) -> dict[str, str]:
    """``u_h`` at ``s{h}a`` and ``v_h`` at ``s{h}b``: each drawn uniformly from the actions by
    ``numpy.random.default_rng(seed)``, the ``u`` row first."""
    u, v = np.random.default_rng(seed).integers(actions, size=(2, horizon))
    return {**{f"s{h + 1}a": f"a{k + 1}" for h, k in enumerate(u)},
            **{f"s{h + 1}b": f"a{k + 1}" for h, k in enumerate(v)}}


def released_reward(horizon: int, state: str, action: str, good: dict[str, str]
                    ) -> dict[Fraction, Fraction]:
    """The released rules: the good action pays 5 at layer H and ``-1/(H-1)`` before it (the
    step is between two live states); any other action at a live state moves into a dead state
    and pays the anti-shaped ``0.1 x Ber(1/2)``, at layer H too; a dead state pays 0."""
    layer = int(state[1:-1])
    if state.endswith("c"):
        return {Fraction(0): Fraction(1)}
    if action != good[state]:
        return ANTI_SHAPED
    if layer == horizon:
        return {Fraction(5): Fraction(1)}
    return {Fraction(-1, horizon - 1): Fraction(1)}


def reward_of(mdp, layer: int, observation: int, action: int) -> dict[Fraction, Fraction]:
    """The MDP's reward at one entry as ``{value: probability}``."""
    if (layer, observation, action) in mdp.reward_distributions:
        values, probabilities = mdp.reward_distributions[layer, observation, action]
        return dict(zip(values, probabilities, strict=True))
    return {mdp.rewards[layer][observation, action]: Fraction(1)}


@pytest.mark.parametrize(("horizon", "actions", "seed"), [lock for lock in LOCKS if lock[0] > 1])
def test_released_lock_is_worth_four(horizon, actions, seed):
    value = optimal_values(combination_lock(horizon, actions, seed, variant="released")).value
    assert value == Fraction(4)  # 5 at the end, -1/(H-1) on each of the H - 1 steps before


def test_released_lock_of_one_step_is_worth_five():
    assert optimal_values(combination_lock(1, 3, 0, variant="released")).value == Fraction(5)


@pytest.mark.parametrize(("horizon", "actions", "seed"), LOCKS)
def test_released_lock_has_the_dynamics_and_partitions_of_the_paper_lock(horizon, actions, seed):
    released = combination_lock(horizon, actions, seed, variant="released")
    paper = combination_lock(horizon, actions, seed)
    assert released.layers == paper.layers and released.actions == paper.actions
    assert released.observations == paper.observations
    assert list(released.start) == list(paper.start)
    for h in range(horizon - 1):
        assert (released.transition_tensor(h) == paper.transition_tensor(h)).all()
    for partition in (backward_ki_partition, forward_ki_partition, ki_partition):
        assert partition(released).blocks() == partition(paper).blocks()
    assert eta_min(released) == Fraction(1, 2)


@pytest.mark.parametrize(("horizon", "actions", "seed"), LOCKS)
def test_always_a_wrong_action_is_worth_one_anti_shaped_reward(horizon, actions, seed):
    mdp = combination_lock(horizon, actions, seed, variant="released")
    good = good_actions(horizon, actions, seed)
    wrong = {state: "a2" if action == "a1" else "a1" for state, action in good.items()}
    # the first wrong action pays 1/20 in expectation (at layer H when H = 1), then dead states
    assert policy_value(mdp, state_policy(mdp, wrong, default_action="a1")) == Fraction(1, 20)


@pytest.mark.parametrize(("horizon", "actions", "seed"), [lock for lock in LOCKS if lock[0] > 1])
def test_optimal_policy_collects_five_at_the_end_and_minus_one_on_the_way(horizon, actions, seed):
    mdp = combination_lock(horizon, actions, seed, variant="released")
    optimal = state_policy(mdp, combination_lock_optimal_choices(horizon, actions, seed),
                           default_action="a1")
    last = len(mdp.rewards) - 1
    at_the_end = tuple(r if h == last else 0 * r for h, r in enumerate(mdp.rewards))
    on_the_way = tuple(0 * r if h == last else r for h, r in enumerate(mdp.rewards))
    assert policy_value(mdp, optimal, at_the_end) == 5
    assert policy_value(mdp, optimal, on_the_way) == -1


def test_released_lock_survives_its_spec():
    mdp = combination_lock(4, 3, 0, variant="released")
    again = from_spec(json.loads(dumps_spec(mdp)))
    assert again.name == "combolock-released-H4-K3-seed0"
    assert optimal_values(again).value == Fraction(4)
    assert combination_lock(4, 3, 0).name == "combolock-H4-K3-seed0"


def test_unknown_variant_names_the_argument_and_the_choices():
    assert LOCK_VARIANTS == ("paper", "released")
    with pytest.raises(ValueError, match=r"variant must be one of paper, released, got 'text'"):
        combination_lock(3, 2, 0, variant="text")


def paper_reward(horizon: int, state: str, action: str, good: dict[str, str]
                 ) -> dict[Fraction, Fraction]:
    """The paper's rules (Section 7, "The environment"): the good action pays 1 at layer H and 0
    before it; any other action at a live state moves into a dead state (``s_{h+1,c}``, for
    every ``h <= H``: "after taking h actions the agent is in s_{h+1,a}, s_{h+1,b} or s_{h+1,c}")
    and pays the anti-shaped ``0.1 x Ber(1/2)``, at layer H too; a dead state pays 0."""
    if state.endswith("c"):
        return {Fraction(0): Fraction(1)}
    if action != good[state]:
        return ANTI_SHAPED
    return {Fraction(int(int(state[1:-1]) == horizon)): Fraction(1)}


@pytest.mark.parametrize(("variant", "rules"), [("released", released_reward),
                                                ("paper", paper_reward)])
@pytest.mark.parametrize(("horizon", "actions", "seed"), LOCKS)
def test_every_reward_follows_its_locks_rules(variant, rules, horizon, actions, seed):
    mdp = combination_lock(horizon, actions, seed, variant=variant)
    good = good_actions(horizon, actions, seed)
    for h, observations in enumerate(mdp.observations):
        for x, observation in enumerate(observations):
            state = mdp.layers[h][mdp.emission_state[h][x]]
            for a, action in enumerate(mdp.actions):
                assert reward_of(mdp, h, x, a) == rules(horizon, state, action, good), (
                    observation, action)


@pytest.mark.parametrize("variant", LOCK_VARIANTS)
@pytest.mark.parametrize(("horizon", "actions", "seed"), LOCKS)
def test_a_wrong_action_at_layer_h_pays_the_anti_shaped_reward_in_both_locks(
        variant, horizon, actions, seed):
    mdp = combination_lock(horizon, actions, seed, variant=variant)
    good = good_actions(horizon, actions, seed)
    last = horizon - 1
    for x, observation in enumerate(mdp.observations[last]):
        state = mdp.layers[last][mdp.emission_state[last][x]]
        if state.endswith("c"):
            continue
        wrong = next(a for a, name in enumerate(mdp.actions) if name != good[state])
        assert reward_of(mdp, last, x, wrong) == ANTI_SHAPED, (variant, observation)
