"""Random network distillation (Burda et al. 2018), as the paper's A2C+RND and PPO+RND use it
(Section 7, Appendix ``app:appendix-experiment``): a fixed, randomly initialised 2-layer MLP with
100 hidden units maps observations to an embedding; a second MLP of the same shape is trained
online to predict it; its squared prediction error on the current observation, times the
intrinsic coefficient (100), is added to the reward."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from torch import nn

__all__ = ["RandomNetworkDistillation"]


def _network(dimension: int, hidden: int, embedding: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(dimension, hidden), nn.ReLU(), nn.Linear(hidden, embedding))


class RandomNetworkDistillation(gym.Wrapper):
    """Adds ``coefficient * ||f(x') - f_hat(x')||^2`` to each reward, where ``x'`` is the next
    observation; ``f_hat`` takes one Adam step on every ``batch`` observations seen."""

    def __init__(self, env: gym.Env, coefficient: float = 100.0, hidden: int = 100,
                 embedding: int = 100, learning_rate: float = 1e-3, batch: int = 32,
                 seed: int = 0):
        super().__init__(env)
        shape = env.observation_space.shape
        if shape is None:
            raise ValueError(f"random network distillation needs observations of a fixed shape, "
                             f"not the space {env.observation_space}")
        dimension = int(np.prod(shape))
        generator = torch.Generator().manual_seed(seed)
        with torch.random.fork_rng():
            torch.manual_seed(int(torch.randint(2**31, (1,), generator=generator)))
            self.target = _network(dimension, hidden, embedding).requires_grad_(False)
            self.predictor = _network(dimension, hidden, embedding)
        self.optimiser = torch.optim.Adam(self.predictor.parameters(), lr=learning_rate)
        self.coefficient, self.batch = coefficient, batch
        self._seen: list[np.ndarray] = []

    def _bonus(self, observation: np.ndarray) -> float:
        x = torch.from_numpy(np.asarray(observation, dtype=np.float32)).unsqueeze(0)
        with torch.no_grad():
            error = float(((self.predictor(x) - self.target(x)) ** 2).mean())
        self._seen.append(np.asarray(observation, dtype=np.float32))
        if len(self._seen) >= self.batch:
            batch = torch.from_numpy(np.stack(self._seen))
            loss = ((self.predictor(batch) - self.target(batch)) ** 2).mean()
            self.optimiser.zero_grad()
            loss.backward()
            self.optimiser.step()
            self._seen.clear()
        return self.coefficient * error

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        info = {**info, "extrinsic_reward": reward}
        if not terminated:
            reward = float(reward) + self._bonus(observation)
        return observation, reward, terminated, truncated, info
