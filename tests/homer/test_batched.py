"""The batched A2C / PPO (+RND): gradients, optimiser, learning, checkpoints."""

from __future__ import annotations

import copy

import pytest
import torch

from homer.baselines.batched import BatchedConfig, BatchedLearner
from kinematic.families import combination_lock

SMALL = BatchedConfig(workers=8, ppo_minibatch=10, ppo_epochs=2)


def _autograd_loss(learner: BatchedLearner, network: torch.nn.Module, x, actions, old, returns,
                   advantages) -> torch.Tensor:
    """The loss of DeepRL's agents, written as they write it, for autograd."""
    config = learner.config
    log_probabilities, values = network(x)
    chosen = log_probabilities.gather(1, actions[:, None])[:, 0]
    entropy = -(log_probabilities.exp() * log_probabilities).sum(dim=1).mean()
    if learner.algorithm == "ppo":
        ratio = (chosen - old).exp()
        clipped = ratio.clamp(1 - config.ppo_ratio_clip, 1 + config.ppo_ratio_clip)
        policy = -torch.minimum(ratio * advantages, clipped * advantages).mean()
    else:
        policy = -(chosen * advantages).mean()
    return (policy - config.entropy_bonus * entropy
            + config.value_loss_coefficient * (returns - values).pow(2).mean())


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
def test_hand_written_gradients_are_autograds(algorithm):
    learner = BatchedLearner(combination_lock(3, 4, seed=0), algorithm, rnd=True, seed=1,
                             config=SMALL)
    generator = torch.Generator().manual_seed(0)
    n, d = 12, learner.env.dimension
    x = torch.randn(n, d, generator=generator)
    actions = torch.randint(4, (n,), generator=generator)
    old = torch.log(torch.rand(n, generator=generator)) * 0.1 - 1.4  # ratios in and out of clip
    returns, advantages = torch.randn(n, generator=generator), torch.randn(n, generator=generator)
    targets = torch.randn(n, learner.config.rnd_embedding, generator=generator)
    network = copy.deepcopy(learner.network).requires_grad_(True)
    predictor = copy.deepcopy(learner.predictor).requires_grad_(True)
    loss = (_autograd_loss(learner, network, x, actions, old, returns, advantages)
            + (predictor(x) - targets).pow(2).mean())
    loss.backward()
    learner._network_gradient(x, actions, old, returns, advantages)
    learner._predictor_gradient(x, targets)
    for mine, theirs in zip([*learner.network.parameters(), *learner.predictor.parameters()],
                            [*network.parameters(), *predictor.parameters()], strict=True):
        assert theirs.grad is not None and mine.grad is not None
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-7)


def test_a_flat_step_is_torchs_rmsprop_after_torchs_gradient_clipping():
    learner = BatchedLearner(combination_lock(3, 2, seed=0), "ppo", seed=0, config=SMALL)
    network = copy.deepcopy(learner.network).requires_grad_(True)
    reference = torch.optim.RMSprop(network.parameters(), lr=learner.config.learning_rate)
    generator = torch.Generator().manual_seed(3)
    for _ in range(3):
        gradients = [torch.randn(p.shape, generator=generator) * 3 for p in network.parameters()]
        for mine, theirs, g in zip(learner.network.parameters(), network.parameters(), gradients,
                                   strict=True):
            assert mine.grad is not None
            mine.grad.copy_(g)
            theirs.grad = g.clone()
        torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
        reference.step()
        learner.optimiser.clip(learner.network_part, 5.0)
        learner.optimiser.step(learner.network_part)
    for mine, theirs in zip(learner.network.parameters(), network.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-7)
    assert not torch.equal(learner.network.heads.weight, BatchedLearner(
        combination_lock(3, 2, seed=0), "ppo", seed=0, config=SMALL).network.heads.weight)
