"""Sampling episodes of a Block MDP in numpy, many at once.

:class:`LatentSampler` is the one sampler of a Block MDP's latent steps - the start state, the
observation a state emits and the next state, each one categorical draw (:func:`categorical`)
from the MDP's tables in floats - shared by every place that samples episodes:
:func:`sample_episodes` here (the sampled planners), HOMER's batches of rich-observation
episodes (:class:`homer.sampler.BatchSampler`) and the gymnasium environment of the baselines
(:class:`homer.envs.RichObservationEnv`, one episode and one step at a time). Each draw takes
one uniform number per episode of the batch, drawn for the whole batch at once: a batch of one
episode consumes the random stream as the environment's episode does, while a batch of many
interleaves its episodes' draws step by step (episode ``k`` of a batch is not the ``k``-th
episode sampled alone).

:func:`sample_episodes` is the procedure of ``alg:rl_via_homing_policies`` (line
``line:psdp-sampling-proc``): ``Unf(Psi_t) o Unf(A) o pi_{t+1} o ... ``: each episode rolls in
with a policy drawn uniformly from ``roll_in`` until layer ``switch_layer`` (counted from 1),
takes a uniformly random action there, and follows ``continuation`` afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.policies import Policy

__all__ = ["Episodes", "LatentSampler", "categorical", "sample_episodes"]


@dataclass(frozen=True)
class Episodes:
    """``samples x H`` arrays: latent state and observation indices (within their layer),
    actions, and rewards."""

    states: np.ndarray
    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray


def categorical(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of a (rows x k) matrix of probabilities."""
    cumulative = probabilities.cumsum(axis=1)
    draws = rng.random(len(probabilities))[:, None] * cumulative[:, -1:]
    return np.minimum((cumulative <= draws).sum(axis=1), probabilities.shape[1] - 1)


def _floats(array: np.ndarray | sp.csr_array) -> np.ndarray:
    dense = array.toarray() if sp.issparse(array) else array
    return np.asarray(dense, dtype=np.float64)


def _float_table(matrix: np.ndarray | sp.csr_array) -> np.ndarray | sp.csr_array:
    """``matrix`` in float64, sparse if it is sparse (a float-mode MDP's shared, not copied)."""
    if sp.issparse(matrix):
        return sp.csr_array(matrix.astype(np.float64, copy=False))
    return np.asarray(matrix, dtype=np.float64)


def _dense_rows(table: np.ndarray | sp.csr_array, rows: np.ndarray) -> np.ndarray:
    """Rows ``rows`` of ``table`` as a dense array: a sparse table is indexed before it is
    made dense, so only the rows drawn from are ever dense."""
    return table[rows].toarray() if sp.issparse(table) else table[rows]


class LatentSampler:
    """Draws of ``mdp``'s latent steps for many episodes at once, from its tables in floats
    (exact numbers rounded once). Positions ``h`` are 0-based (layer ``h + 1``), as in
    :meth:`~kinematic.model.BlockMDP.emission_matrix`; states and observations are indices
    within their layer.

    >>> from kinematic.families import combination_lock
    >>> mdp = combination_lock(3, 2, 0)
    >>> latent, rng = LatentSampler(mdp), np.random.default_rng(0)
    >>> states = latent.start(4, rng)
    >>> [mdp.layers[0][s] for s in states]
    ['s1b', 's1a', 's1a', 's1a']
    >>> [mdp.observations[0][x] for x in latent.emit(0, states, rng)]
    ['s1b', 's1a', 's1a', 's1a']
    >>> following = latent.step(0, states, np.array([0, 1, 0, 1]), rng)
    >>> [mdp.layers[1][s] for s in following]
    ['s2b', 's2b', 's2c', 's2a']
    """

    def __init__(self, mdp: BlockMDP) -> None:
        self.actions = mdp.number_of_actions
        self.start_distribution = _floats(mdp.start)
        self.decoders = mdp.emission_state
        """The state emitting each observation, per position (the MDP's ``emission_state``)."""
        self.emission_probabilities = [_floats(p) for p in mdp.emission_probability]
        """``q(x | decoder(x))`` per position: a state's row of ``q(x | s)`` is made dense
        only for the states drawn from."""
        self.transitions = [_float_table(matrix) for matrix in mdp.transitions]
        """``T(s' | s, a)`` of each position but the last (row ``s * |A| + a``) in float64,
        sparse where the MDP's are (float mode): only the rows drawn from are made dense."""

    def start(self, samples: int, rng: np.random.Generator) -> np.ndarray:
        """``samples`` start states."""
        return categorical(np.tile(self.start_distribution, (samples, 1)), rng)

    def emit(self, h: int, states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The observation each of ``states`` (at position ``h``) emits."""
        emitters = self.decoders[h][None, :] == states[:, None]
        return categorical(np.where(emitters, self.emission_probabilities[h], 0.0), rng)

    def step(self, h: int, states: np.ndarray, actions: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
        """The next state of each of ``states`` (at position ``h < H - 1``) after ``actions``."""
        return categorical(_dense_rows(self.transitions[h], states * self.actions + actions), rng)


def sample_episodes(
    mdp: BlockMDP,
    roll_in: Sequence[Policy],
    switch_layer: int | None,
    continuation: Policy,
    samples: int,
    rng: np.random.Generator,
    rewards: tuple[np.ndarray, ...] | None = None,
    bernoulli_rewards: bool = False,
) -> Episodes:
    """Sample ``samples`` episodes: ``Unf(roll_in)`` before layer ``switch_layer`` (counted from
    1, as the paper's layers), a uniform action at ``switch_layer``, ``continuation`` after it;
    with ``switch_layer=None``, ``Unf(roll_in)`` throughout.

    Rewards are ``R(x, a)`` (default: the MDP's), or ``Bernoulli(R(x, a))`` draws when
    ``bernoulli_rewards`` (then every ``R`` must lie in [0, 1]).
    """
    if not roll_in:
        raise ValueError("sample_episodes needs at least one roll-in policy")
    switch = mdp.horizon if switch_layer is None else layer_index(
        switch_layer, mdp.horizon, "switch_layer")
    rewards = mdp.rewards if rewards is None else rewards
    float_rewards = [_floats(r) for r in rewards]
    if bernoulli_rewards and any(((r < 0) | (r > 1)).any() for r in float_rewards):
        raise ValueError("Bernoulli rewards need every R(x, a) in [0, 1]")
    horizon, number_of_actions = mdp.horizon, mdp.number_of_actions
    chosen = rng.integers(len(roll_in), size=samples)
    shape = (samples, horizon)
    states, observations = np.zeros(shape, np.intp), np.zeros(shape, np.intp)
    actions, collected = np.zeros(shape, np.intp), np.zeros(shape)
    latent = LatentSampler(mdp)
    current = latent.start(samples, rng)
    for h in range(horizon):
        observed = latent.emit(h, current, rng)
        if h < switch:
            tables = np.stack([_floats(p.action_probabilities[h]) for p in roll_in])
            acted = categorical(tables[chosen, observed], rng)
        elif h == switch:
            acted = rng.integers(number_of_actions, size=samples)
        else:
            acted = categorical(_floats(continuation.action_probabilities[h])[observed], rng)
        mean = float_rewards[h][observed, acted]
        collected[:, h] = (rng.random(samples) < mean) if bernoulli_rewards else mean
        states[:, h], observations[:, h], actions[:, h] = current, observed, acted
        if h + 1 < horizon:
            current = latent.step(h, current, acted, rng)
    return Episodes(states, observations, actions, collected)
