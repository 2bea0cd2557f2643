"""The rich-observation environment and the batched sampler."""

import math
from fractions import Fraction

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import homer  # noqa: F401  (registers the environment)
from homer.encoders import HadamardNoise
from homer.envs import RichObservationEnv, lock_environment
from homer.sampler import BatchSampler, LinearPolicy
from kinematic.families import combination_lock, figure2_split
from kinematic.model import block_mdp
from kinematic.policies import uniform_policy
from kinematic.visitation import state_visitation


# The observations carry Gaussian noise, so the Box is unbounded by design; the checker warns.
@pytest.mark.filterwarnings("ignore:.*A Box observation space m(in|ax)imum value is:UserWarning")
def test_lock_environment_passes_the_gymnasium_checker():
    env = lock_environment(horizon=5, actions=4, seed=1)
    check_env(env, skip_render_check=True)


def test_registered_and_dimension_of_the_paper():
    env = gymnasium.make("kinematic/DiabolicalCombinationLock-v0", horizon=100, actions=10)
    assert env.observation_space.shape == (128,)  # 2^ceil(log2(100 + 4))
    assert env.unwrapped.encoder.noise_variance == HadamardNoise().noise_variance == 0.01
    for horizon, dimension in ((4, 8), (5, 16), (12, 16), (13, 32), (61, 128)):
        lock = combination_lock(horizon, 2, 0)  # the paper's 2^ceil(log2(H + 4))
        assert HadamardNoise().dimension(lock) == dimension == 2 ** math.ceil(
            math.log2(horizon + 4))
    assert env.action_space.n == 10


def test_an_episode_lasts_h_steps_and_reveals_latents_only_in_info():
    env = lock_environment(horizon=4, actions=3, seed=0)
    observation, info = env.reset(seed=5)
    assert observation.dtype == np.float32 and info["state"] in ("s1a", "s1b")
    for step in range(4):
        observation, reward, terminated, truncated, info = env.step(0)
        assert reward in (0.0, 0.1, 1.0)
        assert terminated == (step == 3) and not truncated
    with pytest.raises(ValueError, match="not in"):
        env.step(7)
    with pytest.raises(RuntimeError, match="no episode is running"):
        env.step(0)  # after termination
    env.reset(seed=6)
    assert env.step(0)[2] is False  # a new episode runs
    with pytest.raises(RuntimeError, match="call reset"):
        RichObservationEnv(combination_lock(2, 2, 0)).step(0)  # before any reset


def test_several_observations_per_state_get_their_own_one_hot():
    mdp = figure2_split()
    env = RichObservationEnv(mdp, HadamardNoise(noise_variance=0.0), seed=0)
    seen = {}
    for episode in range(30):
        env.reset(seed=episode)
        vector, _, _, _, info = env.step(0)
        seen[info["observation"]] = vector
    assert set(seen) == {"x2a", "x2b"}
    assert not np.allclose(seen["x2a"], seen["x2b"])


def two_rewards():
    """One state, two actions: ``a`` pays 2 with probability 1/4 and -1 otherwise (mean -1/4);
    ``b`` pays 1/20 for sure (the mean of the lock's anti-shaped reward, not drawn as one)."""
    return block_mdp("two-rewards", [["s"]], ["a", "b"], {"s": 1}, {},
                     rewards={"s": {"a": {"2": "1/4", "-1": "3/4"}, "b": "1/20"}})


def test_the_sampler_draws_stochastic_rewards_from_their_distribution_only():
    mdp = two_rewards()
    assert mdp.rewards[0].tolist() == [[Fraction(-1, 4), Fraction(1, 20)]]
    sampler = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(0))
    draws = sampler.run(20_000, [], None)
    paid_a = draws.rewards[draws.actions == 0]
    assert set(np.unique(paid_a)) == {-1.0, 2.0}
    assert abs((paid_a == 2).mean() - 0.25) < 0.015  # 4.6 standard errors
    assert set(draws.rewards[draws.actions == 1]) == {0.05}
    means = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(0), sample_rewards=False)
    expected = means.run(1000, [], None)
    assert set(expected.rewards[expected.actions == 0]) == {-0.25}


def test_the_environment_draws_the_locks_anti_shaped_reward_as_a_tenth_times_a_coin():
    env = lock_environment(horizon=2, actions=2, seed=0)
    wrong = {"s1a": 0, "s1b": 0}  # u_1 = v_1 = a2 for this lock: a1 leaves the good states
    assert combination_lock(2, 2, 0).reward_distributions
    draws = []
    for episode in range(4000):
        _, info = env.reset(seed=episode)
        draws.append(env.step(wrong[info["state"]])[1])
    assert set(draws) == {0.0, 0.1}
    assert abs(np.mean(draws) - 0.05) < 0.004  # 5 standard errors


def test_sampler_latent_frequencies_match_the_exact_visitation():
    mdp = combination_lock(horizon=4, actions=3, seed=2)
    sampler = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(1))
    batch = sampler.run(20_000, [], None)
    assert sampler.episodes == 20_000
    assert batch.observations.shape == (20_000, 4, HadamardNoise().dimension(mdp))
    for h, exact in enumerate(state_visitation(mdp, uniform_policy(mdp))):
        frequencies = np.bincount(batch.states[:, h], minlength=mdp.width(h)) / 20_000
        assert np.allclose(frequencies, [float(p) for p in exact], atol=0.015)


@pytest.mark.parametrize("mdp", [combination_lock(4, 3, 1), figure2_split(), two_rewards()],
                         ids=["lock", "figure2-split", "stochastic-reward"])
def test_an_episode_of_the_environment_is_the_episode_a_batch_of_one_draws(mdp):
    # One sampler of latent steps (kinematic.sampling.LatentSampler) for both: same generator,
    # same actions, same episode, bit for bit.
    rng = np.random.default_rng(7)
    dimension = HadamardNoise().dimension(mdp)
    policy = LinearPolicy([rng.normal(size=(mdp.number_of_actions, dimension))
                           for _ in range(mdp.horizon)],
                          [rng.normal(size=mdp.number_of_actions) for _ in range(mdp.horizon)])
    env = RichObservationEnv(mdp)
    sampler = BatchSampler(mdp, HadamardNoise(), np.random.default_rng(0))
    for seed in range(20):
        sampler.rng = np.random.default_rng(seed)
        batch = sampler.run(1, [], None, policy)
        observation, info = env.reset(seed=seed)
        for t in range(mdp.horizon):
            assert np.array_equal(observation, batch.observations[0, t])
            assert info["state"] == mdp.layers[t][batch.states[0, t]]
            assert info["observation"] == mdp.observations[t][batch.observation_ids[0, t]]
            action = int(policy.act(t, observation[None])[0])
            assert action == batch.actions[0, t]
            observation, reward, _, _, info = env.step(action)
            assert reward == batch.rewards[0, t]
