"""The batched learner's updates on tiny batches against values computed by hand and against
torch (autograd, ``torch.optim.RMSprop``, ``torch.nn.utils.clip_grad_norm_``): GAE on a
3-step rollout, the RND bonus and its predictor steps, whole PPO and A2C updates (advantage
normalisation, minibatches, clipping norms), and the defaults of the paper's tables. Seconds in
all; these are the tests ``make mutants`` gives the mutants of ``homer/baselines/batched.py``."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from homer.baselines.batched import BatchedConfig, BatchedLearner
from homer.encoders import HadamardNoise
from kinematic.families import combination_lock
from kinematic.model import BlockMDP
from kinematic.spec import from_spec
from tests.homer.test_batched import _autograd_loss


def chain() -> BlockMDP:
    """H = 3, one state per layer, two actions with the same deterministic reward: 1, then 0,
    then 2 whatever the agent does."""
    both = {"a1": {}, "a2": {}}
    return from_spec({
        "name": "chain", "horizon": 3, "actions": ["a1", "a2"],
        "layers": [["s1"], ["s2"], ["s3"]], "start": {"s1": "1"},
        "transitions": {"s1": {a: {"s2": "1"} for a in both},
                        "s2": {a: {"s3": "1"} for a in both}},
        "rewards": {"s1": {a: "1" for a in both}, "s3": {a: "2" for a in both}}})


def _constant_value(learner: BatchedLearner, value: float) -> None:
    """Make the value head output ``value`` everywhere (its row of the heads: zero weights)."""
    with torch.no_grad():
        learner.network.heads.weight[-1].zero_()
        learner.network.heads.bias[-1] = value


def _per_step(array: np.ndarray, workers: int) -> np.ndarray:
    """The learner's rows (step by step) as ``(H, workers)``."""
    return array.reshape(-1, workers)


def test_gae_on_a_three_step_rollout_computed_by_hand():
    # rewards (1, 0, 2), V = 0.5 everywhere, gamma 0.99, lambda 0.95, the episode ends after
    # step 3 (nothing is bootstrapped there):
    #   R_3 = 2, R_2 = 0.99 * 2 = 1.98, R_1 = 1 + 0.99 * 1.98 = 2.9602
    #   delta_3 = 2 - 0.5 = 1.5, delta_2 = 0.99 * 0.5 - 0.5 = -0.005, delta_1 = 1 + 0.495 - 0.5
    #   A_3 = 1.5, A_2 = -0.005 + 0.9405 * 1.5 = 1.40575, A_1 = 0.995 + 0.9405 * 1.40575
    # (lambda = 1 would give A_2 = 1.48, lambda = 0 A_2 = -0.005)
    learner = BatchedLearner(chain(), "ppo", seed=0, config=BatchedConfig(workers=4),
                             sample_rewards=False)
    _constant_value(learner, 0.5)
    _, _, _, returns, advantages, _ = learner._rollout()
    expected_returns = [2.9602, 1.98, 2.0]
    expected_advantages = [0.995 + 0.9405 * 1.40575, 1.40575, 1.5]
    np.testing.assert_allclose(_per_step(returns, 4), np.repeat(
        np.array(expected_returns)[:, None], 4, axis=1), rtol=1e-6)
    np.testing.assert_allclose(_per_step(advantages, 4), np.repeat(
        np.array(expected_advantages)[:, None], 4, axis=1), rtol=1e-6)


def test_a_rollout_returns_float32_rows_step_by_step():
    """The rows the passes read are float32 (a float64 array would turn every product of a
    minibatch into float64), the actions indices."""
    learner = BatchedLearner(chain(), "ppo", rnd=True, config=BatchedConfig(workers=2))
    x, actions, old, returns, advantages, targets = learner._rollout()
    assert x.shape == (6, learner.env.dimension) and targets.shape == (6, 100)
    for array in (x, old, returns, advantages, targets):
        assert array.dtype == np.float32
    assert actions.dtype == np.intp and actions.shape == old.shape == returns.shape == (6,)


def test_a_rollout_rewards_the_rnd_error_before_each_predictor_step():
    """With RND, step t's reward gets 100 x the predictor's squared error on the step's
    observations (before that step's predictor update), then the predictor takes one RMSprop
    step on the mean error: the returns equal those of a torch predictor stepped likewise."""
    workers = 5
    learner = BatchedLearner(chain(), "a2c", rnd=True, seed=3,
                             config=BatchedConfig(workers=workers), sample_rewards=False)
    _constant_value(learner, 0.0)
    predictor = copy.deepcopy(learner.predictor).requires_grad_(True)
    target = copy.deepcopy(learner.target)
    optimiser = torch.optim.RMSprop(predictor.parameters(), lr=learner.config.learning_rate)
    x, _, _, returns, _, targets = learner._rollout()
    x = torch.from_numpy(x.reshape(3, workers, -1))
    bonuses = []
    for t in range(3):
        torch.testing.assert_close(
            torch.from_numpy(targets.reshape(3, workers, -1)[t]), target(x[t]))
        error = (predictor(x[t]) - target(x[t])).pow(2).mean(dim=1)
        bonuses.append(100.0 * error.detach())
        optimiser.zero_grad()
        error.mean().backward()
        optimiser.step()
    rewards = torch.tensor([1.0, 0.0, 2.0])[:, None] + torch.stack(bonuses)
    expected = [rewards[2]]
    for t in (1, 0):
        expected.insert(0, rewards[t] + 0.99 * expected[0])
    torch.testing.assert_close(torch.from_numpy(_per_step(returns, workers)),
                               torch.stack(expected), rtol=1e-5, atol=1e-5)
    assert float(torch.stack(bonuses).min()) > 0.01  # the bonus is there to see
    for mine, theirs in zip(learner.predictor.parameters(), predictor.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs.detach(), rtol=0, atol=5e-5)  # a step: ~1e-3


def test_the_rnd_error_falls_on_observations_seen_again_and_again():
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", rnd=True, seed=0,
                             config=BatchedConfig(workers=8))
    x = learner.env.reset().astype(np.float32)
    targets = learner.target_layers.forward(x)[-1]
    first = learner._rnd_step(x, targets).mean()
    for _ in range(100):
        last = learner._rnd_step(x, targets).mean()
    assert last < first / 10


def _fixed_rollout(learner: BatchedLearner, n: int, seed: int, big_return: float,
                   ) -> tuple[np.ndarray, ...]:
    """Rows as a rollout returns them: observations, actions, old log-probabilities, value
    targets (one of them ``big_return``, the others small: minibatches whose gradient norms
    lie on both sides of the clipping norm), advantages (not centred) and RND targets."""
    rng = np.random.default_rng(seed)
    d, actions = learner.env.dimension, learner.env.mdp.number_of_actions
    x = rng.normal(size=(n, d)).astype(np.float32)
    returns = rng.normal(0.0, 0.1, size=n).astype(np.float32)
    returns[0] = big_return
    return (x, rng.integers(actions, size=n), (np.log(rng.random(n)) * 0.1 - 0.7).astype(
        np.float32), returns, rng.normal(2.0, 3.0, size=n).astype(np.float32),
        rng.normal(size=(n, learner.config.rnd_embedding)).astype(np.float32))


def _torch_updates(learner: BatchedLearner, rollouts: list[tuple[np.ndarray, ...]],
                   ) -> tuple[torch.nn.Module, torch.nn.Module]:
    """The updates as DeepRL writes them, in torch: the network and predictor after one update
    per rollout. PPO: advantages centred and scaled by their (unbiased) std, for each epoch a
    permutation cut into minibatches, each minibatch one backward pass of the PPO loss plus the
    RND loss, the network's gradient clipped to norm 5, both RMSprops stepped. A2C: one step on
    all rows, raw advantages, norm 0.5, the predictor left alone (it learns during the
    rollout)."""
    config, ppo = learner.config, learner.algorithm == "ppo"
    network = copy.deepcopy(learner.network).requires_grad_(True)
    predictor = copy.deepcopy(learner.predictor).requires_grad_(True)
    optimisers = [torch.optim.RMSprop(module.parameters(), lr=1e-3)
                  for module in (network, predictor)]
    rng = copy.deepcopy(learner.rng)
    for rows in rollouts:
        x, actions, old, returns, advantages, targets = (torch.from_numpy(np.asarray(a))
                                                         for a in rows)
        if ppo:
            advantages = (advantages - advantages.mean()) / advantages.std()
            batches = [order[start:start + config.ppo_minibatch]
                       for order in (torch.from_numpy(rng.permutation(len(x)))
                                     for _ in range(config.ppo_epochs))
                       for start in range(0, len(x), config.ppo_minibatch)]
        else:
            batches = [torch.arange(len(x))]
        for rows_of in batches:
            for optimiser in optimisers:
                optimiser.zero_grad()
            loss = _autograd_loss(learner, network, x[rows_of], actions[rows_of],
                                  old[rows_of], returns[rows_of], advantages[rows_of])
            if ppo:
                loss = loss + (predictor(x[rows_of]) - targets[rows_of]).pow(2).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0 if ppo else 0.5)
            for optimiser in optimisers[:2 if ppo else 1]:
                optimiser.step()
    return network, predictor


def _gradient_norm(learner: BatchedLearner, rows: tuple[np.ndarray, ...]) -> float:
    learner._network_gradient(*rows[:5])
    grad = learner.optimiser.grad[learner.network_part]
    return float(np.sqrt(np.dot(grad, grad)))


@pytest.mark.parametrize("algorithm", ["ppo", "a2c"])
def test_updates_are_torchs_on_fixed_rollouts(algorithm, monkeypatch):
    """Two updates on fixed rollouts against :func:`_torch_updates` (PPO: 2 epochs of
    minibatches of 5, 5 and 2 rows). The clipping norm shows after the first RMSprop step
    (which is scale-free): the rollouts' gradient norms lie on both sides of it."""
    config = BatchedConfig(workers=4, ppo_epochs=2, ppo_minibatch=5)
    learner = BatchedLearner(combination_lock(3, 2, seed=0), algorithm, rnd=True, seed=0,
                             config=config)
    rollouts = [_fixed_rollout(learner, 12, seed=k, big_return=big)
                for k, big in enumerate((100.0, 0.0))]
    norms = [_gradient_norm(learner, rows) for rows in rollouts]
    assert norms[0] > 5 and 0.5 < norms[1] < 5  # the clipping norms of both algorithms
    network, predictor = _torch_updates(learner, rollouts)
    for rows in rollouts:
        monkeypatch.setattr(learner, "_rollout", lambda rows=rows: rows)
        learner.update()
    for mine, theirs in zip([*learner.network.parameters(), *learner.predictor.parameters()],
                            [*network.parameters(), *predictor.parameters()], strict=True):
        torch.testing.assert_close(mine, theirs.detach(), rtol=0, atol=1e-4)
    assert learner.updates == 2


def test_the_defaults_are_the_papers_tables():
    """Tables tab:aac-hyperparam and tab:ppo-hyperparam (and the text: 2 x 64 hidden units,
    100 for the RND networks, lambda_I = 100)."""
    config = BatchedConfig()
    assert (config.learning_rate, config.gamma, config.gae_lambda, config.entropy_bonus) == (
        0.001, 0.99, 0.95, 0.01)
    assert (config.a2c_gradient_clipping, config.ppo_gradient_clipping) == (0.5, 5.0)
    assert (config.ppo_epochs, config.ppo_minibatch, config.ppo_ratio_clip) == (10, 160, 0.2)
    assert (config.hidden, config.rnd_hidden, config.intrinsic_coefficient) == (64, 100, 100.0)
    assert config.value_loss_coefficient == 0.5 and not config.normalise_bonus


def test_clipping_is_torchs_bit_for_bit_on_both_sides_of_the_clipping_norm():
    """Norms 4.5 (left alone: a test ``norm + 1 > 5`` would scale it up to 5), exactly 5 (scaled
    by ``5 / (5 + 1e-6)``, to 4.999999: a test ``norm - 1e-6 > 5`` would leave it) and 10 (scaled
    to 4.9999995, below 5: ``5 / (10 - 1e-6)`` would give 5.0000005), against
    ``clip_grad_norm_`` on the same float32 gradient."""
    learner = BatchedLearner(chain(), "ppo", config=BatchedConfig(workers=1))
    optimiser, part = learner.optimiser, learner.network_part
    for norm in (4.5, 5.0, 10.0):
        optimiser.grad[:] = 0.0
        optimiser.grad[part][0] = norm
        reference = torch.nn.Parameter(torch.zeros(3))
        reference.grad = torch.from_numpy(optimiser.grad[part][:3].copy())
        torch.nn.utils.clip_grad_norm_([reference], 5.0)
        optimiser.clip(part, 5.0)
        np.testing.assert_array_equal(optimiser.grad[part][:3], reference.grad.numpy())
        clipped = float(np.sqrt(np.dot(optimiser.grad[part], optimiser.grad[part])))
        assert clipped < 5.0 if norm >= 5.0 else clipped == norm


def test_the_networks_are_deeprls_layer_init_at_the_papers_sizes():
    """The actor-critic body: two 64-unit layers of orthogonal weights (every singular value
    1) and zero biases; the heads' rows: the action head's and the value head's, each
    orthogonal times 1e-3; the RND target and predictor: three 100-unit layers. The torch
    modules take no autograd gradients (the flat arrays are the state)."""
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", rnd=True,
                             config=BatchedConfig(workers=1))
    d = learner.env.dimension
    body = [m for m in learner.network.body if isinstance(m, torch.nn.Linear)]
    assert [tuple(m.weight.shape) for m in body] == [(64, d), (64, 64)]
    for layer in body:
        torch.testing.assert_close(torch.linalg.svdvals(layer.weight), torch.ones(min(
            layer.weight.shape)))
        assert not layer.bias.any()
    heads = learner.network.heads
    assert tuple(heads.weight.shape) == (3, 64) and not heads.bias.any()
    torch.testing.assert_close(torch.linalg.svdvals(heads.weight[:-1]), torch.full((2,), 1e-3))
    torch.testing.assert_close(heads.weight[-1].norm(), torch.tensor(1e-3))
    for module in (learner.target, learner.predictor):
        assert [tuple(m.weight.shape) for m in module if isinstance(m, torch.nn.Linear)] == [
            (100, d), (100, 100), (100, 100)]
    for module in (learner.network, learner.predictor, learner.target):
        assert not any(p.requires_grad for p in module.parameters())


def test_a_seeds_networks_do_not_depend_on_torchs_global_generator():
    """Every initial weight comes from the learner's seed (the actor-critic's from a generator
    seeded with it, the RND networks' from a seed that generator draws), none from torch's
    global generator; the episodes are drawn from the seed too."""
    mdp, config = combination_lock(3, 2, seed=0), BatchedConfig(workers=1)
    learners = []
    for global_seed in (1, 2):
        torch.manual_seed(global_seed)
        learners.append(BatchedLearner(mdp, "ppo", rnd=True, seed=5, config=config))
    first, second = learners
    np.testing.assert_array_equal(first.optimiser.data, second.optimiser.data)
    for mine, theirs in zip(first.target.parameters(), second.target.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    other = BatchedLearner(mdp, "ppo", rnd=True, seed=6, config=config)
    assert not np.array_equal(first.optimiser.data, other.optimiser.data)
    assert not np.array_equal(first.env.reset(), other.env.reset())  # the episodes' seed too


def test_seed_zero_is_the_default_and_draws_what_stored_runs_were_drawn_with():
    """The first initial weights of the actor-critic and the RND target and the learner's first
    draws for seed 0 (the default), and seed 2's target, as recorded: a run replays from its
    seed."""
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo",
                             config=BatchedConfig(workers=4))
    np.testing.assert_allclose(learner.optimiser.data[:4],
                               [-0.16799903, -0.10237993, -0.03534829, -0.03812164], rtol=1e-5)
    np.testing.assert_allclose(learner.target[0].weight.flatten()[:4].numpy(),
                               [-0.3452, 0.0283, -0.2529, 0.3298], atol=1e-4)
    assert learner.rng.integers(1000, size=4).tolist() == [522, 889, 992, 557]
    # seed 2: the RND networks' seed drawn below 2**31 is 539900020 (below 2**32: another)
    other = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", seed=2,
                           config=BatchedConfig(workers=4))
    np.testing.assert_allclose(other.target[0].weight.flatten()[:4].numpy(),
                               [0.23978543, -0.09397364, -0.29773167, -0.01941996], rtol=1e-5)


def test_an_unknown_algorithm_is_refused_naming_it():
    with pytest.raises(ValueError, match="unknown algorithm 'sac': expected 'a2c' or 'ppo'"):
        BatchedLearner(chain(), "sac")


def coin() -> BlockMDP:
    """The :func:`chain` whose first reward is 0 or 2 with probability 1/2 each (mean 1)."""
    both = ("a1", "a2")
    return from_spec({
        "name": "coin", "horizon": 3, "actions": list(both),
        "layers": [["s1"], ["s2"], ["s3"]], "start": {"s1": "1"},
        "transitions": {"s1": {a: {"s2": "1"} for a in both},
                        "s2": {a: {"s3": "1"} for a in both}},
        "rewards": {"s1": {a: {"0": "1/2", "2": "1/2"} for a in both},
                    "s3": {a: "2" for a in both}}})


@pytest.mark.parametrize("sample_rewards", [None, True, False])
def test_a_learner_samples_rewards_by_default_and_observes_through_its_encoder(sample_rewards):
    """Rewards drawn (0 or 2 at the first step: the default) or expected (1); a noiseless
    encoder gives every worker the same observation of the one start state."""
    encoder = HadamardNoise(noise_variance=0.0)
    chosen = {} if sample_rewards is None else {"sample_rewards": sample_rewards}
    learner = BatchedLearner(coin(), "a2c", encoder=encoder, config=BatchedConfig(workers=40),
                             **chosen)
    x, _, _, returns, _, _ = learner._rollout()
    first = x.reshape(3, 40, -1)[0]
    assert (first == first[0]).all()
    rewards = set(np.round(_per_step(returns, 40)[0] - 0.99 ** 2 * 2, 4).tolist())
    assert rewards == ({0.0, 2.0} if sample_rewards in (None, True) else {1.0})
