"""Many episodes of a rich-observation Block MDP at once, in numpy.

Latent states are sampled exactly from the :class:`kinematic.model.BlockMDP`; observations are
encoded by the encoder; the agent's policies act on the encoded vectors only. ``states`` and
``observation ids`` are returned for evaluation, never given to the learner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from homer.encoders import HadamardNoise
from kinematic.model import BlockMDP
from kinematic.sampling import categorical

__all__ = ["Batch", "BatchSampler", "LinearPolicy", "RewardSampler"]

RewardSampler = Callable[[np.ndarray, np.random.Generator], np.ndarray]
"""Draws rewards given their means (the MDP stores expected rewards)."""


def expected_rewards(means: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The default :data:`RewardSampler`: the mean itself."""
    return means


@dataclass
class LinearPolicy:
    """A deterministic non-stationary linear policy ``pi_t(x) = argmax_a (W_t x + b_t)_a``
    (Section 7, "HOMER implementation"), defined on steps ``0 .. len(weights) - 1``."""

    weights: list[np.ndarray]  # (|A|, d) per step
    biases: list[np.ndarray]  # (|A|,) per step

    @property
    def length(self) -> int:
        return len(self.weights)

    def act(self, step: int, observations: np.ndarray) -> np.ndarray:
        return np.argmax(observations @ self.weights[step].T + self.biases[step], axis=1)

    def extended(self, weight: np.ndarray, bias: np.ndarray) -> LinearPolicy:
        """This policy followed by one more step."""
        return LinearPolicy([*self.weights, weight], [*self.biases, bias])


@dataclass(frozen=True)
class Batch:
    """``n`` episodes up to some step: encoded observations ``(n, T, d)``, actions, rewards,
    latent states and observation ids ``(n, T)`` (latent ones for evaluation only)."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    states: np.ndarray
    observation_ids: np.ndarray
    roll_in_index: np.ndarray
    """Which roll-in policy each episode used (-1 without roll-in)."""


class BatchSampler:
    """Runs batches of episodes of ``mdp`` dressed by ``encoder``; counts episodes."""

    def __init__(self, mdp: BlockMDP, encoder: HadamardNoise, rng: np.random.Generator,
                 reward_sampler: RewardSampler = expected_rewards) -> None:
        self.mdp, self.encoder, self.rng = mdp, encoder, rng
        self.reward_sampler = reward_sampler
        self.rotation = encoder.rotation(mdp)
        self.dimension = self.rotation.shape[0]
        self.start = np.asarray(mdp.start, dtype=np.float64)
        self.transitions = [
            np.asarray(t.toarray() if sp.issparse(t) else t, dtype=np.float64)
            for t in mdp.transitions
        ]
        self.emissions = [np.asarray(mdp.emission_matrix(h), dtype=np.float64)
                          for h in range(mdp.horizon)]
        self.rewards = [np.asarray(r, dtype=np.float64) for r in mdp.rewards]
        self.episodes = 0

    def run(
        self,
        samples: int,
        roll_in: Sequence[LinearPolicy],
        uniform_step: int | None,
        continuation: LinearPolicy | None = None,
        last_step: int | None = None,
    ) -> Batch:
        """``samples`` episodes through step ``last_step`` (default: the last). Before
        ``uniform_step`` act with a policy drawn uniformly from ``roll_in`` (per episode); at
        ``uniform_step`` act uniformly at random; after it follow ``continuation`` where it is
        defined and act uniformly at random beyond it."""
        mdp, rng = self.mdp, self.rng
        last_step = mdp.horizon - 1 if last_step is None else last_step
        steps = last_step + 1
        chosen = rng.integers(len(roll_in), size=samples) if roll_in else None
        observations = np.zeros((samples, steps, self.dimension), dtype=np.float32)
        actions = np.zeros((samples, steps), dtype=np.intp)
        rewards = np.zeros((samples, steps))
        states = np.zeros((samples, steps), dtype=np.intp)
        ids = np.zeros((samples, steps), dtype=np.intp)
        current = categorical(np.tile(self.start, (samples, 1)), rng)
        for t in range(steps):
            observed = categorical(self.emissions[t][current], rng)
            encoded = self.encoder.encode(mdp, t, observed, rng, self.rotation)
            if uniform_step is not None and t < uniform_step:
                acted = np.zeros(samples, dtype=np.intp)
                for k, policy in enumerate(roll_in):
                    group = chosen == k
                    if group.any():
                        acted[group] = policy.act(t, encoded[group])
            elif t == uniform_step or continuation is None or t >= continuation.length:
                acted = rng.integers(mdp.number_of_actions, size=samples)
            else:
                acted = continuation.act(t, encoded)
            rewards[:, t] = self.reward_sampler(self.rewards[t][observed, acted], rng)
            observations[:, t], actions[:, t], states[:, t], ids[:, t] = (
                encoded, acted, current, observed)
            if t + 1 < mdp.horizon:
                rows = self.transitions[t][current * mdp.number_of_actions + acted]
                current = categorical(rows, rng)
        self.episodes += samples
        index = chosen if chosen is not None else np.full(samples, -1)
        return Batch(observations, actions, rewards, states, ids, index)
