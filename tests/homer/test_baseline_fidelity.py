"""The batched A2C / PPO (+RND) against DeepRL's agents, behaviour by behaviour
(``docs/guide/baselines-fidelity.md`` lists each item and where the two codes do it): the RND
bonus, the value targets, the minibatches, what the gradient clipping touches, the
initialisation and the defaults. Each test names the wrong version it kills."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
import torch

from homer.baselines.batched import BatchedConfig, BatchedLearner
from kinematic.families import combination_lock


def _recording(learner: BatchedLearner) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Record what the environment hands the learner: the observations of every step (the
    reset's, then each step's next ones) and the extrinsic rewards of every step."""
    env, observations, rewards = learner.env, [], []
    reset, step = env.reset, env.step

    def recorded_reset() -> np.ndarray:
        first = reset()
        observations.append(first.copy())
        return first

    def recorded_step(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        reward, following = step(actions)
        rewards.append(reward.astype(np.float64))
        if following is not None:
            observations.append(following.copy())
        return reward, following

    env.reset, env.step = recorded_reset, recorded_step  # type: ignore[method-assign]
    return observations, rewards


@pytest.mark.parametrize("normalise_bonus", [False, True])
def test_the_bonus_is_the_predictors_error_on_the_current_observation_before_its_step(
        normalise_bonus):
    """DeepRL's ``PPO_agent.py`` / ``A2C_agent.py`` ``step``: at every rollout step, on the
    observations the policy acts on, ``100 x`` the per-sample mean squared error of the
    predictor as it is BEFORE the predictor's step on them, then one RMSprop step on the mean
    error; the reward is the extrinsic reward plus that bonus (through the bonus normaliser
    when on), at every step including the last; the value target is the discounted return.

    Kills: the bonus on the next observation; the bonus after the predictor's step; no
    predictor step during the rollout (the errors of later steps would differ); a sum instead
    of a mean over the embedding; the normaliser applied to the whole reward or not at all;
    no bonus at the last step; lambda-returns (or bootstrapped returns) as value targets."""
    horizon, workers = 4, 6
    config = BatchedConfig(workers=workers, normalise_bonus=normalise_bonus)
    learner = BatchedLearner(combination_lock(horizon, 3, seed=0), "ppo", rnd=True, seed=3,
                             config=config)
    predictor = copy.deepcopy(learner.predictor).requires_grad_(True)
    target = copy.deepcopy(learner.target)
    averages = [torch.zeros_like(p) for p in predictor.parameters()]
    observations, extrinsic = _recording(learner)

    returns = learner._rollout()[3].reshape(horizon, workers).astype(np.float64)

    assert len(observations) == len(extrinsic) == horizon
    expected_bonuses = []
    for current in observations:
        x = torch.from_numpy(current)
        error = ((predictor(x) - target(x)) ** 2).mean(dim=1)
        expected_bonuses.append(config.intrinsic_coefficient * error.detach().double().numpy())
        gradients = torch.autograd.grad(error.mean(), list(predictor.parameters()))
        with torch.no_grad():  # torch's RMSprop (alpha 0.99, eps 1e-8), written out: its
            # optimisers import torch._dynamo on first use, ~10 s
            for p, g, v in zip(predictor.parameters(), gradients, averages, strict=True):
                v.mul_(0.99).add_(0.01 * g * g)
                p.sub_(config.learning_rate * g / (v.sqrt() + 1e-8))
    rewards = returns.copy()  # each step's reward, from the discounted returns (mask 0 at H)
    rewards[:-1] -= config.gamma * returns[1:]
    for t in range(horizon):
        bonus = expected_bonuses[t]
        if normalise_bonus:  # DeepRL's MeanStdNormalizer over every bonus so far (pooled
            # with its prior: mean 0, variance 1, count 1e-4, which matters when the bonuses
            # are large, as on the authors' observation scale)
            seen = np.concatenate(expected_bonuses[:t + 1])
            prior, total = 1e-4, 1e-4 + len(seen)
            mean = seen.mean() * len(seen) / total
            var = (prior + seen.var() * len(seen) + seen.mean() ** 2 * prior * len(seen) / total
                   ) / total
            bonus = np.clip((bonus - mean) / np.sqrt(var + 1e-8), -10, 10)
        np.testing.assert_allclose(rewards[t] - extrinsic[t], bonus, rtol=2e-3, atol=2e-3,
                                   err_msg=f"step {t}")
    # the steps matter: the predictor after a step has another error on the same observations
    x = torch.from_numpy(observations[0])
    after = config.intrinsic_coefficient * ((predictor(x) - target(x)) ** 2).mean(dim=1)
    assert np.abs(after.detach().numpy() - expected_bonuses[0]).max() > 0.05


def _spy(learner: BatchedLearner, name: str, calls: list[dict[str, Any]]) -> None:
    """Record the arguments of every call of ``learner.<name>`` (then make it)."""
    method = getattr(learner, name)

    def spied(*args: np.ndarray) -> Any:
        calls.append({"name": name, "args": [np.array(a, copy=True) for a in args]})
        return method(*args)

    setattr(learner, name, spied)


def _keep_rollouts(learner: BatchedLearner) -> list[tuple[np.ndarray, ...]]:
    """The outputs of every ``learner._rollout()`` from now on."""
    rollout, kept = learner._rollout, []

    def kept_rollout() -> tuple[np.ndarray, ...]:
        kept.append(rollout())
        return kept[-1]

    learner._rollout = kept_rollout  # type: ignore[method-assign]
    return kept


def test_each_ppo_epoch_cuts_a_new_permutation_into_minibatches_and_a_smaller_remainder():
    """DeepRL's ``random_sample`` (``misc.py``) as ``PPO_agent.py`` ``step`` uses it: every
    epoch a random permutation of the rollout's rows, cut into minibatches of
    ``mini_batch_size`` and a last, smaller one with the remainder; the RND predictor steps on
    the same minibatch as the actor-critic.

    Kills: dropping the remainder; sampling rows with replacement; one permutation for all
    epochs; fewer or more epochs; the predictor's minibatch step on other rows."""
    horizon, workers = 3, 7
    config = BatchedConfig(workers=workers, ppo_minibatch=5, ppo_epochs=3)
    learner = BatchedLearner(combination_lock(horizon, 3, seed=0), "ppo", rnd=True, seed=1,
                             config=config)
    calls: list[dict[str, Any]] = []
    _spy(learner, "_network_gradient", calls)
    _spy(learner, "_predictor_gradient", calls)
    rollouts = _keep_rollouts(learner)
    learner.update()

    everything = sorted(row.tobytes() for row in rollouts[0][0])
    minibatch_calls = calls[horizon:]  # the rollout's predictor steps come first
    assert [c["name"] for c in calls[:horizon]] == ["_predictor_gradient"] * horizon
    network = [c["args"][0] for c in minibatch_calls if c["name"] == "_network_gradient"]
    predictor = [c["args"][0] for c in minibatch_calls if c["name"] == "_predictor_gradient"]
    assert [len(x) for x in network] == [5, 5, 5, 5, 1] * 3
    for a, b in zip(network, predictor, strict=True):
        assert np.array_equal(a, b)
    epochs = [np.concatenate(network[k * 5:(k + 1) * 5]) for k in range(3)]
    for epoch in epochs:
        assert sorted(row.tobytes() for row in epoch) == everything
    assert not np.array_equal(epochs[0], epochs[1]) and not np.array_equal(epochs[1], epochs[2])


def test_a2c_takes_one_step_on_the_whole_rollout_with_its_advantages_unnormalised():
    """DeepRL's ``A2C_agent.py`` ``step``: one loss on every row of the rollout, the GAE
    advantages as computed (no normalisation; PPO normalises).

    Kills: A2C normalising its advantages; A2C in minibatches or epochs."""
    horizon, workers = 3, 8
    learner = BatchedLearner(combination_lock(horizon, 3, seed=0), "a2c", rnd=True, seed=0,
                             config=BatchedConfig(workers=workers))
    calls: list[dict[str, Any]] = []
    _spy(learner, "_network_gradient", calls)
    rollouts = _keep_rollouts(learner)
    learner.update()
    assert len(calls) == 1
    x, _, _, returns, advantages = calls[0]["args"]
    assert len(x) == horizon * workers
    assert np.array_equal(advantages, rollouts[0][4]) and np.array_equal(returns, rollouts[0][3])


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
def test_gradient_clipping_touches_the_actor_critic_only(algorithm):
    """DeepRL clips ``self.network``'s gradient (``clip_grad_norm_`` in ``step``); the RND
    predictor's steps are not clipped. An update with a clipping norm of 1e-12 changes the
    actor-critic's step and leaves the predictor exactly as with the table's norm (the rollout
    and the predictor's minibatches do not depend on the actor-critic's step).

    Kills: clipping the actor-critic's and the predictor's gradients together before a step
    of both (PPO+RND's minibatch steps), or A2C+RND stepping its predictor with the
    actor-critic."""
    mdp = combination_lock(3, 3, seed=0)
    learners = [BatchedLearner(mdp, algorithm, rnd=True, seed=2, config=BatchedConfig(
        workers=8, ppo_minibatch=10, ppo_epochs=2, a2c_gradient_clipping=norm,
        ppo_gradient_clipping=norm)) for norm in (5.0, 1e-12)]
    for learner in learners:
        learner.update()
    table, tiny = learners
    predictor, network = table.predictor_part, table.network_part
    assert np.array_equal(table.optimiser.data[predictor], tiny.optimiser.data[predictor])
    assert not np.allclose(table.optimiser.data[network], tiny.optimiser.data[network])


def _orthonormal(matrix: np.ndarray, scale: float) -> bool:
    """Rows (or columns, whichever are fewer) orthonormal after dividing by ``scale``."""
    w = matrix.astype(np.float64) / scale
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    return bool(np.allclose(gram, np.eye(len(gram)), atol=1e-5))


def test_the_networks_are_initialised_as_deeprls():
    """DeepRL's ``layer_init`` (``network_utils.py``) in ``FCBody`` and
    ``CategoricalActorCriticNet`` (``network_bodies.py``, ``network_heads.py``): orthogonal
    weights, scale 1 in the body and 1e-3 in both heads, zero biases; the RND target and
    predictor (``PPO_agent.py`` ``__init__``): three ``nn.Linear`` of 100 outputs with torch's
    default initialisation (weights and biases uniform within ``1/sqrt(fan_in)``), drawn
    independently.

    Kills: torch's default initialisation for the actor-critic; heads at scale 1 or 0.01;
    non-zero biases; an RND network of one hidden layer; orthogonal or zero RND layers; the
    target equal to the predictor (a bonus of 0)."""
    learner = BatchedLearner(combination_lock(4, 3, seed=0), "ppo", rnd=True, seed=0)
    d, actions = learner.env.dimension, 3
    first, second = (layer for layer in learner.network.body if isinstance(layer,
                                                                           torch.nn.Linear))
    assert first.weight.shape == (64, d) and second.weight.shape == (64, 64)
    assert _orthonormal(first.weight.numpy(), 1.0) and _orthonormal(second.weight.numpy(), 1.0)
    heads = learner.network.heads.weight.numpy()
    assert heads.shape == (actions + 1, 64)
    assert _orthonormal(heads[:actions], 1e-3) and np.isclose(np.linalg.norm(heads[-1]), 1e-3)
    biases = [first.bias, second.bias, learner.network.heads.bias]
    assert all(not b.numpy().any() for b in biases)
    shapes = [(100, d), (100, 100), (100, 100)]
    for network in (learner.target, learner.predictor):
        layers = [layer for layer in network if isinstance(layer, torch.nn.Linear)]
        assert [tuple(layer.weight.shape) for layer in layers] == shapes
        for layer in layers:
            bound = 1 / np.sqrt(layer.weight.shape[1])
            for values in (layer.weight.numpy(), layer.bias.numpy()):
                assert np.abs(values).max() <= bound and np.abs(values).max() > bound / 2
            assert not _orthonormal(layer.weight.numpy(), float(np.linalg.norm(
                layer.weight.numpy()[0])))
    target, predictor = (next(network.parameters()).numpy()
                         for network in (learner.target, learner.predictor))
    assert not np.array_equal(target, predictor)


def test_the_defaults_are_the_papers_tables_and_deeprls_run_py():
    """Tables ``tab:aac-hyperparam`` / ``tab:ppo-hyperparam`` and ``run.py``'s
    ``ppo_feature`` (100 workers, bonus coefficient 100, bonus normaliser off), ``PPO_agent.py``
    / ``A2C_agent.py``'s value loss ``0.5 mean (R - v)^2``.

    Kills: a default drifting from the tables (each field is one constant)."""
    assert BatchedConfig() == BatchedConfig(
        learning_rate=1e-3, gamma=0.99, gae_lambda=0.95, entropy_bonus=0.01,
        value_loss_coefficient=0.5, a2c_gradient_clipping=0.5, ppo_gradient_clipping=5.0,
        ppo_epochs=10, ppo_minibatch=160, ppo_ratio_clip=0.2, hidden=64, workers=100,
        rnd_hidden=100, rnd_embedding=100, intrinsic_coefficient=100.0, normalise_bonus=False,
        torch_threads=BatchedConfig().torch_threads)
