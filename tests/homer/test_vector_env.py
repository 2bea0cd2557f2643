"""The batched environment of the baselines against the exact model it samples."""

from __future__ import annotations

import numpy as np
import pytest

from homer.baselines.vector_env import VectorEnv
from homer.envs import RichObservationEnv
from kinematic.families import combination_lock
from kinematic.model import with_float_numbers as to_floats
from kinematic.policies import uniform_policy
from kinematic.visitation import policy_value, state_visitation


def _uniform_run(env: VectorEnv, rng: np.random.Generator) -> list[np.ndarray]:
    observations = [env.reset()]
    while True:
        _, following = env.step(rng.integers(env.mdp.number_of_actions, size=env.workers))
        if following is None:
            return observations
        observations.append(following)


def test_state_visits_and_returns_match_the_exact_model_under_uniform_actions():
    mdp = combination_lock(4, 3, seed=1)
    workers = 20_000
    env = VectorEnv(mdp, workers, seed=3)
    _uniform_run(env, np.random.default_rng(4))
    floats = to_floats(mdp)
    exact = state_visitation(floats, uniform_policy(floats))
    for h, (counts, probabilities) in enumerate(zip(env.visits, exact, strict=True)):
        p = np.asarray(probabilities, dtype=float)
        tolerance = 5 * np.sqrt(workers * p * (1 - p)) + 1  # 5 binomial standard deviations
        assert np.all(np.abs(counts - workers * p) <= tolerance), (h, counts, workers * p)
    value = float(policy_value(floats, uniform_policy(floats)))
    standard_error = env.returns.std() / np.sqrt(workers)
    assert abs(env.returns.mean() - value) <= 5 * standard_error + 1e-12
    assert env.returns.shape == (workers,)


def test_a_fixed_action_moves_every_episode_as_the_transition_table_says():
    mdp = combination_lock(2, 2, seed=0)
    workers = 8_000
    env = VectorEnv(mdp, workers, seed=0)
    env.reset()
    env.step(np.zeros(workers, dtype=np.intp))
    start = np.asarray(to_floats(mdp).start, dtype=float)
    table = to_floats(mdp).transitions[0]
    table = np.asarray(table.toarray() if hasattr(table, "toarray") else table, dtype=float)
    expected = start @ table[0::mdp.number_of_actions]  # rows s * |A| + 0
    tolerance = 5 * np.sqrt(workers * expected * (1 - expected)) + 1
    assert np.all(np.abs(env.visits[1] - workers * expected) <= tolerance)
    assert env.visits[0].sum() == workers == env.visits[1].sum()


def test_a_seed_fixes_every_episode_and_another_seed_changes_them():
    mdp = combination_lock(3, 2, seed=0)
    runs = [_uniform_run(VectorEnv(mdp, 5, seed=seed), np.random.default_rng(0))
            for seed in (7, 7, 8)]
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[1], strict=True))
    assert not np.array_equal(runs[0][0], runs[2][0])


def test_one_worker_draws_the_episode_of_the_gymnasium_environment():
    """The same sampler and encoder in the same order: a batch of one is the single episode."""
    mdp = combination_lock(3, 2, seed=0)
    env, single = VectorEnv(mdp, 1, seed=5), RichObservationEnv(mdp, seed=None)
    first, _ = single.reset(seed=5)
    assert np.array_equal(env.reset()[0], first)
    for _ in range(mdp.horizon):
        rewards, following = env.step(np.array([1]))
        vector, reward, terminated, _, _ = single.step(1)
        assert rewards[0] == reward
        if following is not None:
            assert np.array_equal(following[0], vector)
    assert terminated and following is None and env.returns.shape == (1,)


def test_stepping_outside_a_batch_or_with_bad_actions_is_refused():
    env = VectorEnv(combination_lock(2, 2, seed=0), 3, seed=0)
    with pytest.raises(RuntimeError,
                       match=r"^no batch of episodes is running: call reset\(\) first$"):
        env.step(np.zeros(3, dtype=np.intp))
    env.reset()
    with pytest.raises(ValueError, match="3 integers"):
        env.step(np.zeros(2, dtype=np.intp))
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        env.step(np.array([0, 2, 1]))


def test_a_batch_draws_from_seed_0_by_default_and_counts_visits_in_integers():
    mdp = combination_lock(2, 2, seed=0)
    env = VectorEnv(mdp, 3)
    assert env.returns.shape == (0,)  # no batch finished yet
    assert all(counts.dtype == np.int64 for counts in env.visits)
    first = env.reset()
    assert np.array_equal(first, VectorEnv(mdp, 3, seed=0).reset())
    assert not np.array_equal(first, VectorEnv(mdp, 3, seed=1).reset())
    with pytest.raises(ValueError, match=r"^workers must be"):
        VectorEnv(mdp, 0)


@pytest.mark.parametrize(("sample_rewards", "anti_shaped"), [(True, 0.1), (False, 0.05)])
def test_rewards_are_drawn_or_expected(sample_rewards, anti_shaped):
    """The paper lock's anti-shaped reward, 0.1 x Ber(1/2), drawn (0 or 0.1) or expected (0.05)."""
    env = VectorEnv(combination_lock(2, 2, seed=0), 200, sample_rewards=sample_rewards)
    env.reset()
    rewards, _ = env.step(np.random.default_rng(0).integers(2, size=200))
    assert anti_shaped in set(np.round(rewards, 6).tolist()) <= {0.0, 0.05, 0.1, 1.0}
