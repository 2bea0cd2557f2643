"""Many episodes of a rich-observation Block MDP at once, in numpy.

Latent states and observations are drawn by :class:`kinematic.sampling.LatentSampler` (the
sampler the baselines' environment, :class:`homer.envs.RichObservationEnv`, shares);
observations are encoded by the encoder; the agent's policies act on the encoded vectors only.
``states`` and ``observation ids`` are returned for evaluation, never given to the learner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from homer.encoders import HadamardNoise
from kinematic.model import BlockMDP
from kinematic.sampling import LatentSampler

__all__ = ["Batch", "BatchSampler", "Collected", "LinearPolicy", "RewardSampler", "StepPolicy",
           "batch_bytes"]


class RewardSampler:
    """The rewards of ``mdp`` as an agent receives them: stochastic rewards
    (``BlockMDP.reward_distributions``) drawn from their distribution, the others as they are;
    with ``sample=False`` every reward is its expected value.

    When the MDP has stochastic rewards, :meth:`draw` takes one uniform number per episode and
    step (also where that step's rewards are deterministic), so the random stream does not
    depend on which entries are stochastic; the value drawn is the first whose cumulative
    probability exceeds it.
    """

    def __init__(self, mdp: BlockMDP, sample: bool = True) -> None:
        self.means = [np.asarray(r, dtype=np.float64) for r in mdp.rewards]
        self.sample = sample and bool(mdp.reward_distributions)
        self.index = [np.full(r.shape, -1, dtype=np.intp) for r in self.means]
        entries: list[list[tuple]] = [[] for _ in self.means]
        for (h, x, a), distribution in mdp.reward_distributions.items():
            self.index[h][x, a] = len(entries[h])
            entries[h].append(distribution)
        width = 1 + max((len(values) for values, _ in mdp.reward_distributions.values()),
                        default=1)
        self.values, self.cumulative = [], []
        for layer in entries:
            values = np.zeros((len(layer), width))
            cumulative = np.full((len(layer), width), 2.0)  # beyond the last value: never
            for k, (outcomes, probabilities) in enumerate(layer):
                n = len(outcomes)
                values[k, :n] = np.asarray(outcomes, dtype=np.float64)
                values[k, n:] = values[k, n - 1]  # float rounding of the last cumulative
                cumulative[k, :n] = np.cumsum(np.asarray(probabilities, dtype=np.float64))
            self.values.append(values)
            self.cumulative.append(cumulative)

    def draw(self, layer: int, observations: np.ndarray, actions: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
        """Rewards of the observations ``observations`` (indices in ``layer``) and actions."""
        rewards = self.means[layer][observations, actions]
        if not self.sample:
            return rewards
        uniform = rng.random(len(observations))
        index = self.index[layer][observations, actions]
        rows = np.flatnonzero(index >= 0)
        if rows.size:
            entry = index[rows]
            chosen = (uniform[rows, None] >= self.cumulative[layer][entry]).sum(axis=1)
            rewards = rewards.copy()
            rewards[rows] = self.values[layer][entry, chosen]
        return rewards


def batch_bytes(samples: int, steps: int, dimension: int) -> int:
    """Bytes of a :class:`Batch` of ``samples`` episodes of ``steps`` steps: float32 encodings
    of ``dimension`` entries, four 8-byte entries per step (action, reward, state, observation
    id) and the roll-in index."""
    return samples * (steps * (4 * dimension + 32) + 8)


class StepPolicy(Protocol):
    """A policy the sampler runs: the actions of a batch of encoded observations at each step
    ``0 .. length - 1`` (:class:`LinearPolicy`, a baseline's abstract policy)."""

    @property
    def length(self) -> int: ...

    def act(self, step: int, observations: np.ndarray, /) -> np.ndarray: ...


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


@dataclass(frozen=True)
class Collected:
    """What the episodes a :class:`BatchSampler` ran since its last reading collected
    (:meth:`BatchSampler.collected`): their number, the sum of their extrinsic returns (the
    rewards the agent received, over the steps each episode ran) and the visits of each latent
    state by name (states never visited left out). For the return curve of
    ``fig:value-function-plot`` and the visitation counts of ``fig:traces``; learners never
    read it."""

    episodes: int
    return_sum: float
    visits: dict[str, int]


class BatchSampler:
    """Runs batches of episodes of ``mdp`` dressed by ``encoder``; counts episodes, and tallies
    their returns and latent state visits until :meth:`collected` reads them.

    >>> from kinematic.families import combination_lock
    >>> sampler = BatchSampler(combination_lock(2, 2, 0), HadamardNoise(),
    ...                        np.random.default_rng(0))
    >>> batch = sampler.run(5, [], 0)
    >>> tally = sampler.collected()
    >>> tally.episodes, sum(tally.visits.values()), tally.return_sum == float(batch.rewards.sum())
    (5, 10, True)
    >>> sampler.collected().episodes  # read: the tally starts again
    0
    """

    def __init__(self, mdp: BlockMDP, encoder: HadamardNoise, rng: np.random.Generator,
                 sample_rewards: bool = True) -> None:
        self.mdp, self.encoder, self.rng = mdp, encoder, rng
        self.rewards = RewardSampler(mdp, sample_rewards)
        self.rotation = encoder.rotation(mdp)
        self.dimension = self.rotation.shape[0]
        self.latent = LatentSampler(mdp)
        self.episodes = 0
        self._tallied = 0
        self._return_sum = 0.0
        self._visits = [np.zeros(len(layer), dtype=np.int64) for layer in mdp.layers]

    def collected(self) -> Collected:
        """The episodes run since the last call (or since the sampler was made), their return
        sum and their state visits; the tally then starts again from zero."""
        names = self.mdp.layers
        visits = {names[h][s]: int(layer[s]) for h, layer in enumerate(self._visits)
                  for s in np.flatnonzero(layer)}
        tally = Collected(self._tallied, self._return_sum, visits)
        self._tallied, self._return_sum = 0, 0.0
        for layer in self._visits:
            layer[:] = 0
        return tally

    def run(
        self,
        samples: int,
        roll_in: Sequence[StepPolicy],
        uniform_step: int | None,
        continuation: StepPolicy | None = None,
        last_step: int | None = None,
    ) -> Batch:
        """``samples`` episodes through step ``last_step`` (default: the last). Before
        ``uniform_step`` act with a policy drawn uniformly from ``roll_in`` (per episode); at
        ``uniform_step`` act uniformly at random; after it follow ``continuation`` where it is
        defined and act uniformly at random beyond it."""
        mdp, rng = self.mdp, self.rng
        last_step = mdp.horizon - 1 if last_step is None else last_step
        steps = last_step + 1
        chosen = rng.integers(len(roll_in), size=samples) if roll_in else np.full(samples, -1)
        observations = np.zeros((samples, steps, self.dimension), dtype=np.float32)
        actions = np.zeros((samples, steps), dtype=np.intp)
        rewards = np.zeros((samples, steps))
        states = np.zeros((samples, steps), dtype=np.intp)
        ids = np.zeros((samples, steps), dtype=np.intp)
        current = self.latent.start(samples, rng)
        for t in range(steps):
            observed = self.latent.emit(t, current, rng)
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
            rewards[:, t] = self.rewards.draw(t, observed, acted, rng)
            observations[:, t], actions[:, t], states[:, t], ids[:, t] = (
                encoded, acted, current, observed)
            if t + 1 < mdp.horizon:
                current = self.latent.step(t, current, acted, rng)
        self.episodes += samples
        self._tallied += samples
        self._return_sum += float(rewards.sum())
        for t in range(steps):
            self._visits[t] += np.bincount(states[:, t], minlength=len(self._visits[t]))
        return Batch(observations, actions, rewards, states, ids, chosen)
