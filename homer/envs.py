"""``RichObservationEnv``: any :class:`kinematic.model.BlockMDP` as a ``gymnasium.Env`` with rich
observations, and the diabolical combination lock of Section 7.

One episode, one step at a time, drawn as HOMER's batches draw them and in the same order:
the latent steps by :class:`kinematic.sampling.LatentSampler`, the rewards by
:class:`homer.sampler.RewardSampler`, the observations by the encoder. An episode of the
environment is the episode a batch of one (:class:`homer.sampler.BatchSampler`) draws from the
same generator when the same actions are taken.

``info`` carries the latent state, the latent observation and the step, for evaluation only;
learners must not read it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from homer.encoders import DEFAULT_NOISE_VARIANCE, HadamardNoise
from homer.sampler import RewardSampler
from kinematic.families import combination_lock
from kinematic.model import BlockMDP
from kinematic.sampling import LatentSampler

__all__ = ["RichObservationEnv", "lock_environment"]


class RichObservationEnv(gym.Env):
    """A Block MDP whose observations are encoded into ``R^d`` (Section 7, "The environment").

    Episodes last ``H`` steps; ``terminated`` is True after the ``H``-th action. Stepping
    before ``reset`` or after termination raises ``RuntimeError``.
    """

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(self, mdp: BlockMDP, encoder: HadamardNoise | None = None,
                 sample_rewards: bool = True, seed: int | None = None):
        self.mdp = mdp
        self.encoder = encoder or HadamardNoise()
        self.rewards = RewardSampler(mdp, sample_rewards)
        self.rotation = self.encoder.rotation(mdp)
        dimension = self.rotation.shape[0]
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (dimension,), np.float32)
        self.action_space = gym.spaces.Discrete(mdp.number_of_actions)
        self.latent = LatentSampler(mdp)
        self._step = self._state = self._observation = 0
        self._running = False
        if seed is not None:
            self.reset(seed=seed)

    def _emit(self) -> tuple[np.ndarray, dict[str, Any]]:
        self._observation = int(self.latent.emit(self._step, np.array([self._state]),
                                                 self.np_random)[0])
        vector = self.encoder.encode(self.mdp, self._step, np.array([self._observation]),
                                     self.np_random, self.rotation)[0]
        info = {
            "state": self.mdp.layers[self._step][self._state],
            "observation": self.mdp.observations[self._step][self._observation],
            "step": self._step,
        }
        return vector.astype(np.float32), info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._step = 0
        self._state = int(self.latent.start(1, self.np_random)[0])
        self._running = True
        return self._emit()

    def step(self, action: int):
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        if not self._running:
            raise RuntimeError("no episode is running (it ended after H steps, or reset() was "
                               "never called): call reset() first")
        reward = float(self.rewards.draw(self._step, np.array([self._observation]),
                                         np.array([int(action)]), self.np_random)[0])
        if self._step + 1 == self.mdp.horizon:
            vector = np.zeros(self.rotation.shape[0], dtype=np.float32)
            info = {"state": None, "observation": None, "step": self._step + 1}
            self._step += 1
            self._running = False
            return vector, reward, True, False, info
        self._state = int(self.latent.step(self._step, np.array([self._state]),
                                           np.array([int(action)]), self.np_random)[0])
        self._step += 1
        vector, info = self._emit()
        return vector, reward, False, False, info


def lock_environment(horizon: int = 10, actions: int = 10, seed: int = 0,
                     noise_variance: float = DEFAULT_NOISE_VARIANCE,
                     variant: str = "paper", encoding: str = "authors") -> RichObservationEnv:
    """The paper's environment: :func:`kinematic.families.combination_lock` (with the rewards of
    ``variant``, one of :data:`kinematic.families.LOCK_VARIANTS`) and :class:`HadamardNoise`
    (``encoding``: the authors' +-1 matrix by default, or ``"orthonormal"``);
    its anti-shaped reward is drawn as ``0.1 x Ber(1/2)``. Registered with gymnasium as
    ``kinematic/DiabolicalCombinationLock-v0``, whose keyword arguments are these.

    >>> import gymnasium
    >>> env = gymnasium.make("kinematic/DiabolicalCombinationLock-v0", horizon=3, actions=2,
    ...                      variant="released")
    >>> env.unwrapped.mdp.name
    'combolock-released-H3-K2-seed0'
    """
    return RichObservationEnv(combination_lock(horizon, actions, seed, variant=variant),
                              HadamardNoise(noise_variance, encoding), seed=seed)
