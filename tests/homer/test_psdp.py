"""The contextual-bandit oracle, GPS and PSDP on a tabular toy (a lock dressed by the
noiseless encoder), against exact answers: fit_q returns the sample mean reward of each
context and action, PSDP from exact homing covers finds an optimal policy, and GPS accepts a
class that some policy reaches surely and rejects one that none reaches with probability above
1/2."""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.psdp import fit_q, greedy_policy_search, psdp, q_values, ridge_penalty
from homer.sampler import Batch, BatchSampler, LinearPolicy
from kinematic.families import combination_lock
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.visitation import policy_value, state_visitation
from tests.homer.handmade import ENCODER, homing_covers, lock


def latent(mdp, linear: LinearPolicy) -> Policy:
    """The exact latent policy of ``linear`` under the noiseless encoder (uniform after its
    last step)."""
    rng, actions, layers = np.random.default_rng(0), mdp.number_of_actions, []
    for t in range(mdp.horizon):
        ids = np.arange(len(mdp.observations[t]))
        if t < linear.length:
            chosen = linear.act(t, ENCODER.encode(mdp, t, ids, rng))
            rows = [[Fraction(int(a == c)) for a in range(actions)] for c in chosen]
        else:
            rows = [[Fraction(1, actions)] * actions for _ in ids]
        layers.append(np.array(rows, dtype=object))
    return Policy(tuple(layers))


def test_fit_q_returns_the_sample_mean_reward_of_each_observation_and_action():
    mdp, rng = lock(), np.random.default_rng(1)
    ids = rng.integers(3, size=3000)
    actions = rng.integers(3, size=3000)
    means = np.array([[0.1, 0.5, 0.9], [0.3, 0.0, 1.0], [0.7, 0.2, 0.4]])
    rewards = (rng.random(3000) < means[ids, actions]).astype(float)
    weight, bias = fit_q(ENCODER.encode(mdp, 2, ids, rng), actions, rewards, 3, ridge=1e-6)
    q = q_values(ENCODER.encode(mdp, 2, np.arange(3), rng), weight, bias)
    for x in range(3):
        for a in range(3):
            cell = (ids == x) & (actions == a)
            assert q[x, a] == pytest.approx(rewards[cell].mean(), abs=1e-4)


def test_fit_q_is_scikit_learns_ridge_with_an_unpenalised_intercept_per_action():
    mdp, rng = combination_lock(50, 10, 0), np.random.default_rng(4)
    ids, actions = rng.integers(3, size=300), rng.integers(3, size=300)
    observations = HadamardNoise().encode(mdp, 10, ids, rng)
    rewards = rng.random(300) + ids
    weight, bias = fit_q(observations, actions, rewards, 4, ridge=1.0)
    for a in range(3):
        rows = actions == a
        alpha = ridge_penalty(observations, 1.0)  # 1 x the mean squared norm of all rows
        reference = Ridge(alpha=alpha).fit(observations[rows].astype(np.float64), rewards[rows])
        np.testing.assert_allclose(weight[a], reference.coef_, rtol=1e-4, atol=1e-5)
        assert bias[a] == pytest.approx(reference.intercept_, rel=1e-5)
    assert not weight[3].any() and bias[3] == 0  # an action without rows


def test_the_penalty_is_the_ridge_times_the_rows_mean_squared_norm_at_least_the_ridge():
    assert ridge_penalty(np.array([[3.0, 4.0], [0.0, 0.0]]), 0.1) == pytest.approx(1.25)
    assert ridge_penalty(np.array([[0.1, 0.0]]), 0.5) == 0.5  # the floor
    assert ridge_penalty(np.array([[3.0, 4.0]]), 0.1) == pytest.approx(2.5)  # one row
    assert ridge_penalty(np.zeros((0, 2)), 0.3) == 0.3  # no rows: the ridge itself
    # squared in float64: float32 rows of 1e20 would overflow to inf
    assert ridge_penalty(np.full((2, 2), 1e20, np.float32), 1.0) == pytest.approx(2e40, rel=1e-6)
    observations = HadamardNoise().encode(combination_lock(6, 2, 0), 1, np.zeros(400, int),
                                          np.random.default_rng(0))
    # the authors' encoding: two one-hots and noise, times the +-1 matrix (d = 16)
    assert ridge_penalty(observations, 1.0) == pytest.approx(16 * (2 + 10 * 0.01), rel=0.05)


@pytest.mark.parametrize("scale", [0.25, 4.0])
def test_observations_scaled_by_a_constant_give_the_same_q_values(scale):
    # the authors' +-1 encoding is the orthonormal one times sqrt(d): the ridge is relative to
    # the observations' size, so either gives the same choices (a fixed penalty would not)
    mdp, rng = combination_lock(50, 10, 0), np.random.default_rng(6)
    actions = rng.integers(3, size=400)
    observations = HadamardNoise().encode(mdp, 10, rng.integers(3, size=400), rng)
    rewards = rng.random(400) + actions * (observations[:, 0] > 0)
    fresh = HadamardNoise().encode(mdp, 10, rng.integers(3, size=50), rng)
    q = q_values(fresh, *fit_q(observations, actions, rewards, 3, ridge=0.3))
    scaled = q_values(fresh * scale, *fit_q(observations * scale, actions, rewards, 3,
                                            ridge=0.3))
    np.testing.assert_allclose(scaled, q, rtol=1e-4, atol=1e-4)


def test_a_constant_added_to_every_reward_moves_every_q_value_by_that_constant():
    # the better action (0) has fewer rows; a penalised intercept would shrink its value more
    mdp, rng = combination_lock(50, 10, 0), np.random.default_rng(5)
    actions = np.r_[np.zeros(200, int), np.ones(300, int)]
    observations = HadamardNoise().encode(mdp, 10, rng.integers(2, size=500), rng)
    rewards = np.where(actions == 0, 0.1, 0.0)
    fresh = HadamardNoise().encode(mdp, 10, rng.integers(2, size=200), rng)
    before = q_values(fresh, *fit_q(observations, actions, rewards, 2, ridge=1.0))
    after = q_values(fresh, *fit_q(observations, actions, rewards + 50.0, 2, ridge=1.0))
    np.testing.assert_allclose(after, before + 50.0, atol=1e-4)
    assert (after.argmax(axis=1) == 0).all()


def test_psdp_from_exact_homing_covers_finds_an_optimal_policy():
    mdp = lock()
    sampler = BatchSampler(mdp, ENCODER, np.random.default_rng(2))
    found = psdp(sampler, homing_covers(mdp), mdp.horizon - 1,
                 lambda batch, t: batch.rewards[:, t:].sum(axis=1), samples=300,
                 ridge=HomerConfig().ridge)
    assert found.length == mdp.horizon
    assert policy_value(mdp, latent(mdp, found)) == optimal_values(mdp).value == 1


@pytest.mark.parametrize("ridge, solved", [(HomerConfig().ridge, True), (1e-3, False)])
def test_the_reward_sensitive_psdp_solves_a_lock_whose_observations_have_as_many_coordinates_as_an_action_has_rows(  # noqa: E501
        ridge, solved):
    # At H = 50 the encoder gives d = 64 coordinates (the one-hots plus noise of variance
    # 0.01 on each) and 500 episodes per step give each of the 10 actions about 50 rows: a
    # nearly unregularised regression interpolates the noise, its argmax on fresh encodings
    # is close to random, and every earlier step learns from a broken continuation.
    mdp, config = combination_lock(50, 10, 0), HomerConfig()
    sampler = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(0))
    found = psdp(sampler, homing_covers(mdp), mdp.horizon - 1,
                 lambda batch, t: batch.rewards[:, t:].sum(axis=1), config.eval_samples, ridge)
    value = sampler.run(2000, [], None, found).rewards.sum(axis=1).mean()
    assert (value > 0.95) if solved else (value < 0.5)


@pytest.mark.parametrize("block, accepted", [(("s3a", "s3b"), True), (("s3a",), False)])
def test_gps_accepts_a_surely_reachable_class_and_rejects_a_class_reached_at_most_half(
        block, accepted):
    # {s3a, s3b} is reached surely by the good action from s2a or s2b; s3a alone with
    # probability at most 1/2 (the good action moves to s3a or s3b uniformly).
    mdp, step = lock(), 2
    sampler = BatchSampler(mdp, ENCODER, np.random.default_rng(3))
    cover = homing_covers(mdp)[step - 1]
    batch = sampler.run(2000, cover, step - 1, last_step=step)
    reward = np.isin(batch.states[:, step], [mdp.layers[step].index(s) for s in block])
    found, value = greedy_policy_search(batch, batch.roll_in_index, cover, step - 1,
                                        reward.astype(float), 3, ridge=HomerConfig().ridge,
                                        epsilon=0.1)
    if accepted:
        assert value == pytest.approx(1.0, abs=0.05)
        reached = state_visitation(mdp, latent(mdp, found))[step]
        assert sum(reached[mdp.layers[step].index(s)] for s in block) == 1
    else:
        assert found is None and value == pytest.approx(0.5, abs=0.05)


def test_gps_scores_a_policy_on_the_half_it_was_not_chosen_from():
    # Rewards are coin flips whatever the observation and action: every policy's value is 1/2.
    # Scored on the regression that chose it (24 coordinates, about 80 rows per action), the
    # chosen policy looks almost surely rewarding: 0.95 - 1.06 over seeds 0 - 7; cross-fitted,
    # 0.38 - 0.58 (unbiased, but one regression's noise is shared by every episode).
    rng, n, d, actions = np.random.default_rng(5), 800, 24, 10
    batch = Batch(observations=rng.normal(size=(n, 1, d)).astype(np.float32),
                  actions=rng.integers(actions, size=(n, 1)), rewards=np.zeros((n, 1)),
                  states=np.zeros((n, 1), int), observation_ids=np.zeros((n, 1), int),
                  roll_in_index=np.zeros(n, int))
    rewards = (rng.random(n) < 0.5).astype(float)
    cover = [LinearPolicy([], [])]
    found, value = greedy_policy_search(batch, batch.roll_in_index, cover, 0, rewards, actions,
                                        ridge=1.0, epsilon=0.3)
    assert found is None and value == pytest.approx(0.5, abs=0.2)
    accepted, same = greedy_policy_search(batch, batch.roll_in_index, cover, 0, rewards,
                                          actions, ridge=1.0, epsilon=0.9)
    assert same == value and accepted is not None and accepted.length == 1
    weight, bias = fit_q(batch.observations[:, 0], batch.actions[:, 0], rewards, actions, 1.0)
    assert np.array_equal(accepted.weights[0], weight)  # the step learned from every episode
    assert np.array_equal(accepted.biases[0], bias)


def test_fit_q_leaves_actions_without_rows_at_zero_and_fits_the_others_in_float32():
    rng = np.random.default_rng(7)
    observations = rng.normal(size=(40, 3))
    actions = np.where(np.arange(40) % 2 == 0, 1, 3)  # actions 0 and 2 have no rows
    rewards = observations @ np.array([1.0, -2.0, 0.5]) + 3.0
    weight, bias = fit_q(observations, actions, rewards, 4, ridge=1e-9)
    assert weight.dtype == bias.dtype == np.float32
    assert not weight[[0, 2]].any() and not bias[[0, 2]].any()
    for a in (1, 3):
        np.testing.assert_allclose(weight[a], [1.0, -2.0, 0.5], atol=1e-5)
        assert bias[a] == pytest.approx(3.0, abs=1e-5)


def _batch(observations: np.ndarray, actions: np.ndarray, roll_in: np.ndarray) -> Batch:
    n, steps = actions.shape
    zeros = np.zeros((n, steps), int)
    return Batch(observations=observations.astype(np.float32), actions=actions,
                 rewards=np.zeros((n, steps)), states=zeros, observation_ids=zeros,
                 roll_in_index=roll_in)


def test_gps_estimate_is_the_mean_of_both_cross_fitted_halves():
    # Written out: even episodes fit one regression, odd ones the other; each episode's value
    # is the mean of (scored by the odd fit, the even fit's choice) and the reverse.
    rng, n, d, actions = np.random.default_rng(8), 300, 5, 4
    x = rng.normal(size=(n, 1, d))
    taken = rng.integers(actions, size=(n, 1))
    rewards = x[:, 0, 0] * (taken[:, 0] == 1) + rng.normal(0, 0.1, size=n)
    batch = _batch(x, taken, np.zeros(n, int))
    _, value = greedy_policy_search(batch, batch.roll_in_index, [LinearPolicy([], [])], 0,
                                    rewards, actions, ridge=0.5, epsilon=0.5)
    observations = batch.observations[:, 0]
    even, odd = (fit_q(observations[k::2], taken[k::2, 0], rewards[k::2], actions, 0.5)
                 for k in (0, 1))
    rows = np.arange(n)
    by_odd = q_values(observations, *odd)[rows, q_values(observations, *even).argmax(axis=1)]
    by_even = q_values(observations, *even)[rows, q_values(observations, *odd).argmax(axis=1)]
    assert value == pytest.approx(np.mean((by_odd + by_even) / 2), rel=1e-6)


def test_gps_extends_the_roll_in_with_the_best_estimate_and_skips_one_without_episodes():
    # Step 1's observation says which roll-in policy ran (0 or 1; policy 2 ran no episode) and
    # the reward is 1 after roll-in 1, 0 after roll-in 0.
    rng, n, actions = np.random.default_rng(9), 400, 3
    roll_in = rng.integers(2, size=n)
    x = np.zeros((n, 2, 3))
    x[np.arange(n), 1, roll_in] = 1.0
    batch = _batch(x, rng.integers(actions, size=(n, 2)), roll_in)
    cover = [LinearPolicy([np.full((actions, 3), k, np.float32)], [np.zeros(actions)])
             for k in range(3)]
    found, value = greedy_policy_search(batch, roll_in, cover, 1, roll_in.astype(float),
                                        actions, ridge=1e-6, epsilon=0.1)
    assert value == pytest.approx(1.0, abs=1e-3)
    assert found is not None and found.length == 2 and (found.weights[0] == 1).all()


def test_gps_accepts_an_estimate_of_exactly_one_minus_epsilon():
    # Every reward is 1: both regressions are exactly the constant 1, and so is the estimate.
    rng, n = np.random.default_rng(10), 60
    batch = _batch(rng.normal(size=(n, 1, 4)), rng.integers(2, size=(n, 1)), np.zeros(n, int))
    found, value = greedy_policy_search(batch, batch.roll_in_index, [LinearPolicy([], [])], 0,
                                        np.ones(n), 2, ridge=1.0, epsilon=0.0)
    assert value == 1.0 and found is not None


def test_psdp_asks_for_the_return_from_each_step_it_learns_and_keeps_the_given_last_step():
    mdp = lock()
    sampler = BatchSampler(mdp, ENCODER, np.random.default_rng(2))
    calls = []

    def reward_of(batch, t):
        calls.append((t, batch.rewards.shape[1]))
        return batch.rewards[:, t:].sum(axis=1)

    first = (np.full((3, sampler.dimension), 7, np.float32), np.arange(3, dtype=np.float32))
    found = psdp(sampler, homing_covers(mdp), 2, reward_of, samples=50,
                 ridge=HomerConfig().ridge, first=first, episode_end=2)
    assert calls == [(1, 3), (0, 3)]  # steps 1 and 0, episodes through step 2 (0-based)
    assert found.weights[2] is first[0] and found.biases[2] is first[1]
    assert len(found.weights) == len(found.biases) == 3
