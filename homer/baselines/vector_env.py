"""Many episodes of a Block MDP stepped at once, in numpy: the environment of the batched
baselines (:mod:`homer.baselines.batched`), as DeepRL's ``workers`` run the paper's A2C and PPO
(Appendix ``app:appendix-experiment``).

``workers`` episodes start together and, the MDP being layered, all end after its ``H``-th
action. Each step draws, for the whole batch: the rewards ``R(x, a)`` of the current
observations and actions (:meth:`homer.sampler.RewardSampler.draw`), the next latent states
(:meth:`kinematic.sampling.LatentSampler.step`), their observations
(:meth:`~kinematic.sampling.LatentSampler.emit`) and their encodings (one product with the
encoder's rotation, :meth:`homer.encoders.HadamardNoise.encode`). There is no Python loop over
episodes. A step's draws come from one ``numpy.random.Generator`` in a fixed order, so a seed
fixes every episode.

Two counters are kept for evaluation only (the learner must not read them): the visits of
every latent state during training (:attr:`VectorEnv.visits`) and the extrinsic return of every
finished episode of the last batch (:attr:`VectorEnv.returns`).
"""

from __future__ import annotations

import numpy as np

from homer.encoders import HadamardNoise
from homer.sampler import RewardSampler
from kinematic.arguments import at_least
from kinematic.model import BlockMDP
from kinematic.sampling import LatentSampler

__all__ = ["VectorEnv"]


class VectorEnv:
    """``workers`` episodes of ``mdp`` with observations encoded by ``encoder``, stepped at once.

    :meth:`reset` starts a batch and returns its first encodings ``(workers, d)``;
    :meth:`step` takes one action per episode and returns the rewards and the next encodings
    (``None`` after the ``H``-th action, when the batch is over). Positions are 0-based
    internally; :attr:`step_index` is the number of actions taken in the running batch.

    >>> from kinematic.families import combination_lock
    >>> env = VectorEnv(combination_lock(2, 2, seed=0), workers=3, seed=0)
    >>> env.reset().shape
    (3, 8)
    >>> rewards, following = env.step(np.zeros(3, dtype=np.intp))
    >>> rewards.shape, following.shape
    ((3,), (3, 8))
    >>> rewards, following = env.step(np.zeros(3, dtype=np.intp))
    >>> following is None, env.returns.shape, int(sum(c.sum() for c in env.visits))
    (True, (3,), 6)
    """

    def __init__(self, mdp: BlockMDP, workers: int, encoder: HadamardNoise | None = None,
                 sample_rewards: bool = True, seed: int = 0) -> None:
        at_least(1).check(workers, "workers")
        self.mdp, self.workers = mdp, workers
        self.encoder = encoder or HadamardNoise()
        self.rotation = self.encoder.rotation(mdp)
        self.dimension = self.rotation.shape[0]
        self.latent = LatentSampler(mdp)
        self.rewards = RewardSampler(mdp, sample_rewards)
        self.rng = np.random.default_rng(seed)
        self.visits = [np.zeros(len(layer), dtype=np.int64) for layer in mdp.layers]
        """Visits of every latent state (per layer, indexed as ``mdp.layers``) so far."""
        self.returns = np.zeros(0)
        """The extrinsic returns of the episodes of the last finished batch."""
        self.step_index = mdp.horizon  # no batch running
        self._states = self._observations = np.zeros(0, dtype=np.intp)
        self._collected = np.zeros(workers)

    def _emit(self) -> np.ndarray:
        h = self.step_index
        np.add.at(self.visits[h], self._states, 1)
        self._observations = self.latent.emit(h, self._states, self.rng)
        return self.encoder.encode(self.mdp, h, self._observations, self.rng, self.rotation)

    def reset(self) -> np.ndarray:
        """Start ``workers`` new episodes; their first encodings. A running batch is dropped."""
        self.step_index = 0
        self._collected = np.zeros(self.workers)
        self._states = self.latent.start(self.workers, self.rng)
        return self._emit()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The rewards of ``actions`` (one integer in ``[0, |A|)`` per episode) and the next
        encodings, ``None`` once the batch has taken its ``H`` actions (its returns are then in
        :attr:`returns`)."""
        h, mdp = self.step_index, self.mdp
        if h >= mdp.horizon:
            raise RuntimeError("no batch of episodes is running: call reset() first")
        actions = np.asarray(actions)
        if actions.shape != (self.workers,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.workers} integers (one per episode), got "
                             f"an array of shape {actions.shape} and type {actions.dtype}")
        if actions.size and (actions.min() < 0 or actions.max() >= mdp.number_of_actions):
            raise ValueError(f"actions must lie in [0, {mdp.number_of_actions}), got "
                             f"{int(actions.min())} .. {int(actions.max())}")
        rewards = self.rewards.draw(h, self._observations, actions, self.rng)
        self._collected += rewards
        self.step_index = h + 1
        if h + 1 == mdp.horizon:
            self.returns = self._collected.copy()
            return rewards, None
        self._states = self.latent.step(h, self._states, actions, self.rng)
        return rewards, self._emit()
