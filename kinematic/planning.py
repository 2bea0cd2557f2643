"""Planning with policy covers (paper, Section 3.1 and Appendix ``app:psdp-appendix``).

- :func:`optimal_values`: exact dynamic programming over observations, ``max_pi V(pi; R)`` and a
  deterministic optimal policy (``lem:homing_deterministic``).
- :func:`psdp_exact`: PSDP (``alg:rl_via_homing_policies``) with infinite data and the fully
  expressive policy class: at step ``t`` the contextual-bandit oracle returns, for every
  observation in the support of the roll-in distribution ``Unf(Psi_t)``, the action maximising
  the value of continuing with the policies already learned for ``t+1 .. h``.
- :func:`policy_cover_exact`: one layer's cover ``Psi_h`` from an abstraction of its
  observations: :func:`psdp_exact` for the internal reward of each class.
- :func:`homer_exact`: HOMER's reward-free phase (``alg:learn_homing_policy``) with exact
  oracles, layer by layer: the abstraction of a layer from a labelling given the previous
  layer's cover and abstraction (in place of contrastive estimation), then
  :func:`policy_cover_exact` for it.
- :func:`exp_oracle_exact`: ExpOracle (``alg:oracle-exp``) with :func:`psdp_exact` and a given
  abstraction: the policy covers ``Psi_1 .. Psi_H`` (:func:`homer_exact` with that abstraction).
- :func:`psdp_sampled`, :func:`exp_oracle_sampled`: the same with ``n`` sampled episodes per
  contextual-bandit problem and the tabular oracle ``CB(D, Pi)`` over all deterministic
  observation policies (inverse-propensity scores summed per observation and action).

Rewards are per layer ``(m_h, |A|)`` arrays ``R(x, a)`` as in :class:`BlockMDP`. An internal
reward ``R_{i,h}(x, a, x') = 1{phi(x') = i, step(x') = h}`` is the layer-``h`` reward
``1{phi(x) = i}`` (whatever the action) and is optimised by decisions at layers ``1 .. h-1``.
Arguments that name a layer count from 1, as the paper does (``last_layer``, ``layer``); the
per-layer sequences (``rewards``, ``covers``, ``labels``) are indexed from 0 (``covers[0]`` is
layer 1's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kinematic.errors import short_repr
from kinematic.exact_sparse import sum_by
from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.named_values import StateValues
from kinematic.numbers import Number
from kinematic.policies import Policy
from kinematic.sampling import sample_episodes
from kinematic.visitation import state_visitation

__all__ = [
    "ExactCovers",
    "Labelling",
    "OptimalSolution",
    "block_rewards",
    "exp_oracle_exact",
    "exp_oracle_sampled",
    "homer_exact",
    "inverse_propensity_scores",
    "observation_labels",
    "optimal_values",
    "policy_cover_exact",
    "psdp_exact",
    "psdp_sampled",
    "tabular_cb_oracle",
]

Rewards = tuple[np.ndarray, ...]


@dataclass(frozen=True, eq=False)
class OptimalSolution:
    """Result of :func:`optimal_values`.

    Attributes
    ----------
    value : Number
        ``max_pi V(pi; R)``.
    observation_values : tuple of ndarrays
        ``V*_h(x)`` per layer.
    action_values : tuple of ndarrays
        ``Q*_h(x, a)`` per layer, shape ``(m_h, |A|)``.
    policy : Policy
        A deterministic optimal observation policy (ties: first action).
    state_values : StateValues
        ``V*_h(s) = sum_x q(x | s) V*_h(x)`` per layer: the optimal expected total reward from
        state ``s`` at its layer on (``.by_state`` reads it by name).
    """

    value: Number
    observation_values: tuple[np.ndarray, ...]
    action_values: tuple[np.ndarray, ...]
    policy: Policy
    state_values: StateValues


def _deterministic(mdp: BlockMDP, choices: Sequence[np.ndarray]) -> Policy:
    """The deterministic policy taking action ``choices[h][x]`` at observation ``x``."""
    tables = []
    for h, chosen in enumerate(choices):
        table = mdp.mode.zeros((len(mdp.observations[h]), mdp.number_of_actions))
        table[np.arange(len(chosen)), chosen] = mdp.mode.scalar(1)
        tables.append(table)
    return Policy(tuple(tables), mdp)


def _greedy(mdp: BlockMDP, q: np.ndarray) -> np.ndarray:
    """Argmax over the last axis, ties to the first action (within ``atol`` in float mode)."""
    if mdp.mode.exact:
        return np.argmax(q, axis=-1)
    return np.argmax(q >= q.max(axis=-1, keepdims=True) - mdp.mode.atol, axis=-1)


def _continuation(mdp: BlockMDP, layer: int, state_values: np.ndarray) -> np.ndarray:
    """``sum_s' T(s' | decoder(x), a) W(s')`` for the observations of ``layer``, ``(m, |A|)``.

    Exact mode sums over the non-zero entries only (:mod:`kinematic.exact_sparse`): the dense
    object product paid a ``Fraction`` operation per zero (Taxi unrolled to 10 steps: 17 s of
    V*'s 17.2 s)."""
    if mdp.mode.exact:
        pairs, states, probabilities = mdp.transition_entries[layer]
        values = state_values.tolist()
        per_pair = sum_by(pairs, [p * values[s] for p, s in zip(probabilities, states.tolist(),
                                                                    strict=True)],
                          len(mdp.transitions[layer]))
    else:
        per_pair = np.asarray(mdp.transitions[layer] @ state_values)
    per_state = per_pair.reshape(mdp.width(layer), mdp.number_of_actions)
    return per_state[mdp.emission_state[layer]]


def _state_values(mdp: BlockMDP, layer: int, observation_values: np.ndarray) -> np.ndarray:
    """``W(s) = sum_x q(x | s) V(x)`` on the states of ``layer`` (exact mode: a sum per
    observation, not a dense product over all pairs)."""
    if mdp.mode.exact:
        return sum_by(mdp.emission_state[layer],
                      [q * v for q, v in zip(mdp.emission_probability[layer].tolist(),
                                             observation_values.tolist(), strict=True)],
                      mdp.width(layer))
    return mdp.emission_matrix(layer) @ observation_values


def optimal_values(mdp: BlockMDP, rewards: Rewards | None = None) -> OptimalSolution:
    """``max_pi V(pi; R)`` by backward induction over observations (``lem:homing_deterministic``).

    ``Q_h(x, a) = R(x, a) + sum_s' T(s' | decoder(x), a) W_{h+1}(s')``, ``V_h(x) = max_a Q_h``,
    ``W_h(s) = sum_x q(x|s) V_h(x)``; exact in exact mode. ``W_h`` is the result's
    ``state_values``, ``V*(s)`` of each state.

    >>> from kinematic import combination_lock
    >>> solution = optimal_values(combination_lock(horizon=3, actions=2, seed=0))
    >>> solution.value, solution.state_values.by_state["s2a"], solution.state_values[1][2]
    (Fraction(1, 1), Fraction(1, 1), Fraction(0, 1))
    """
    rewards = mdp.rewards if rewards is None else rewards
    values: list[np.ndarray] = [None] * mdp.horizon  # type: ignore[list-item]
    actions: list[np.ndarray] = [None] * mdp.horizon  # type: ignore[list-item]
    states: list[np.ndarray] = [None] * mdp.horizon  # type: ignore[list-item]
    for h in range(mdp.horizon - 1, -1, -1):
        q = rewards[h].copy()
        if h + 1 < mdp.horizon:
            q = q + _continuation(mdp, h, states[h + 1])
        actions[h] = q
        values[h] = q.max(axis=1)
        states[h] = _state_values(mdp, h, values[h])
    policy = _deterministic(mdp, [_greedy(mdp, q) for q in actions])
    return OptimalSolution(mdp.start @ states[0], tuple(values), tuple(actions), policy,
                           StateValues(states, mdp.layers))


def observation_labels(
    mdp: BlockMDP, state_labels: Sequence[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """Lift per-layer state labels (e.g. ``Partition.labels``) to the observations."""
    return tuple(
        np.asarray(labels)[mdp.emission_state[h]] for h, labels in enumerate(state_labels)
    )


def block_rewards(mdp: BlockMDP, layer: int, labels: np.ndarray, block: int) -> Rewards:
    """The internal reward ``R_{i,h}``: 1 at the observations of layer ``layer`` (counted from
    1) labelled ``block`` (``labels`` over that layer's observations).

    >>> from kinematic import combination_lock
    >>> lock = combination_lock(horizon=2, actions=2, seed=0)
    >>> [str(r) for r in block_rewards(lock, 2, [0, 0, 1], block=1)[1][:, 0]]
    ['0', '0', '1']
    """
    h = layer_index(layer, mdp.horizon)
    labels, expected = np.asarray(labels), len(mdp.observations[h])
    if labels.ndim != 1 or len(labels) != expected:
        count = f"{len(labels)} labels: " if labels.ndim == 1 else ""
        raise ValueError(f"labels: layer {layer} has {expected} observations, one label each; "
                         f"got {count}{short_repr(labels.tolist())}")
    rewards = [mdp.mode.zeros((len(x), mdp.number_of_actions)) for x in mdp.observations]
    rewards[h][labels == block, :] = mdp.mode.scalar(1)
    return tuple(rewards)


def psdp_exact(
    mdp: BlockMDP, covers: Sequence[Sequence[Policy]], rewards: Rewards, last_layer: int
) -> Policy:
    """PSDP (``alg:rl_via_homing_policies``) with infinite data and a fully expressive ``Pi``.

    Decisions are made at layers ``1 .. last_layer`` (counted from 1); later layers take the
    first action. ``covers[t]`` is the roll-in set ``Psi`` of layer ``t + 1`` for the layers
    ``2 .. last_layer`` (``covers[0]`` is unused: layer 1 starts from the start distribution).
    At each layer the oracle picks, at every observation reached by ``Unf(Psi)``, an action
    maximising ``R + V(. ; pi)`` of the policies already learned for the later layers; elsewhere
    it is indifferent and keeps the first action.
    """
    last = layer_index(last_layer, mdp.horizon, "last_layer")
    choices = [np.zeros(len(x), dtype=np.intp) for x in mdp.observations]
    following = None
    for h in range(mdp.horizon - 1, last, -1):
        q = rewards[h].copy()
        if following is not None:
            q = q + _continuation(mdp, h, following)
        following = _state_values(mdp, h, q[:, 0])
    for t in range(last, -1, -1):
        q = rewards[t].copy()
        if following is not None:
            q = q + _continuation(mdp, t, following)
        support = _start_support(mdp) if t == 0 else _cover_support(mdp, covers[t], t)
        choices[t] = np.where(support, _greedy(mdp, q), 0)
        following = _state_values(mdp, t, q[np.arange(len(q)), choices[t]])
    return _deterministic(mdp, choices)


def _start_support(mdp: BlockMDP) -> np.ndarray:
    return mdp.mode.positive(mdp.start)[mdp.emission_state[0]]


def _cover_support(mdp: BlockMDP, cover: Sequence[Policy], layer: int) -> np.ndarray:
    if not cover:
        raise ValueError(f"PSDP needs a non-empty policy cover for layer {layer + 1}")
    reached = np.zeros(mdp.width(layer), dtype=bool)
    for policy in cover:
        reached |= mdp.mode.positive(state_visitation(mdp, policy)[layer])
    return reached[mdp.emission_state[layer]]


def policy_cover_exact(
    mdp: BlockMDP, covers: Sequence[Sequence[Policy]], layer: int, labels: np.ndarray
) -> list[Policy]:
    """``Psi_h`` for ``h = layer`` (counted from 1) as ExpOracle (``alg:oracle-exp``) and HOMER
    (``alg:learn_homing_policy``, "Learn Policy Cover") build it, with :func:`psdp_exact`: for
    each class ``i`` of the abstraction ``labels`` on the observations of layer ``h`` (in
    increasing order), PSDP for the internal reward ``R_{i,h}`` with decisions at layers
    ``1 .. h-1``, rolled in with ``covers`` (``covers[t]`` is ``Psi_{t+1}``; PSDP reads those of
    layers ``2 .. h-1``). The policies are deterministic; ties go to the first action.

    >>> from kinematic import combination_lock, state_visitation
    >>> lock = combination_lock(horizon=2, actions=2, seed=0)
    >>> cover = policy_cover_exact(lock, [[]], 2, [0, 0, 1])
    >>> [[str(p) for p in state_visitation(lock, policy)[1]] for policy in cover]
    [['1/2', '1/2', '0'], ['0', '0', '1']]
    """
    return [psdp_exact(mdp, covers, block_rewards(mdp, layer, labels, block), layer - 1)
            for block in np.unique(labels)]


Labelling = Callable[[Sequence[Policy], int, np.ndarray], np.ndarray]
"""``labelling(cover, layer, previous_labels) -> labels``: the abstraction ``phi`` on the
observations of ``layer`` (counted from 1, at least 2), given ``Psi_{h-1}`` (``cover``; empty
for ``h = 2``: the roll-in to layer 1 is the start distribution) and ``phi`` on layer ``h - 1``
(``previous_labels``)."""


@dataclass(frozen=True, eq=False)
class ExactCovers:
    """Result of :func:`homer_exact`.

    Attributes
    ----------
    labels : tuple of ndarrays
        ``phi`` on the observations of each layer (layer 1: one class).
    covers : list of lists of Policy
        ``Psi_1 .. Psi_H`` (``Psi_1`` empty); ``Psi_h`` has one policy per class of
        ``labels[h - 1]``, in increasing order of the class.
    """

    labels: tuple[np.ndarray, ...]
    covers: list[list[Policy]]


def homer_exact(mdp: BlockMDP, labelling: Labelling) -> ExactCovers:
    """The reward-free phase of HOMER (``alg:learn_homing_policy``) with exact oracles: for
    ``h = 2 .. H``, the abstraction of layer ``h`` is ``labelling(Psi_{h-1}, h, phi_{h-1})``
    (in place of contrastive estimation on data rolled in with ``Unf(Psi_{h-1}) o Unf(A)``) and
    ``Psi_h`` is :func:`policy_cover_exact` for it. ``Psi_1`` is empty, as in the paper.

    With a labelling that ignores the covers this is ExpOracle (:func:`exp_oracle_exact`).

    >>> from kinematic import backward_ki_partition, combination_lock
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> backward = observation_labels(lock, backward_ki_partition(lock).labels)
    >>> result = homer_exact(lock, lambda cover, layer, previous: backward[layer - 1])
    >>> [len(cover) for cover in result.covers]
    [0, 2, 2]
    """
    labels = [np.zeros(len(mdp.observations[0]), dtype=np.intp)]
    covers: list[list[Policy]] = [[]]
    for h in range(1, mdp.horizon):
        labels.append(np.asarray(labelling(covers[h - 1], h + 1, labels[h - 1])))
        covers.append(policy_cover_exact(mdp, covers, h + 1, labels[h]))
    return ExactCovers(tuple(labels), covers)


def exp_oracle_exact(mdp: BlockMDP, labels: Sequence[np.ndarray]) -> list[list[Policy]]:
    """ExpOracle's reward-free phase (``alg:oracle-exp``) with :func:`psdp_exact`:
    :func:`homer_exact` with the given abstraction.

    ``labels[h]`` is the abstraction ``phi`` on the observations of layer ``h + 1`` (``labels[0]``
    is not used). Returns ``Psi_1 .. Psi_H`` (``Psi_1`` empty); ``Psi_h`` has one policy per label
    used in layer ``h``.

    >>> from kinematic import combination_lock
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> one_class = [[0] * len(x) for x in lock.observations]
    >>> [len(cover) for cover in exp_oracle_exact(lock, one_class)]
    [0, 1, 1]
    """
    return homer_exact(mdp, lambda cover, layer, previous: labels[layer - 1]).covers


def tabular_cb_oracle(scores: np.ndarray) -> np.ndarray:
    """``CB(D, Pi)`` for ``Pi`` = all deterministic maps observation -> action.

    ``scores[x, a]`` is ``sum_i 1{x_i = x, a_i = a} r_i / p_i`` over the dataset (see
    :func:`inverse_propensity_scores`); the oracle maximises ``sum_x scores[x, pi(x)]``, i.e. takes
    the best action per observation. Ties, and observations never seen, take the first action.
    """
    return np.argmax(scores >= scores.max(axis=1, keepdims=True), axis=1)


def inverse_propensity_scores(
    observations: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    propensities: np.ndarray | float,
    shape: tuple[int, int],
) -> np.ndarray:
    """``scores[x, a] = sum_i 1{x_i = x, a_i = a} r_i / p_i`` (the objective of ``CB``)."""
    scores = np.zeros(shape)
    np.add.at(scores, (observations, actions), rewards / propensities)
    return scores


CHUNK = 200_000
"""Episodes sampled at once by :func:`psdp_sampled` (bounds its memory)."""


def psdp_sampled(
    mdp: BlockMDP,
    covers: Sequence[Sequence[Policy]],
    rewards: Rewards,
    last_layer: int,
    samples: int,
    rng: np.random.Generator,
    bernoulli_rewards: bool = True,
) -> Policy:
    """PSDP (``alg:rl_via_homing_policies``) with ``samples`` episodes per step and
    :func:`tabular_cb_oracle`; decisions at layers ``1 .. last_layer`` (counted from 1), as
    :func:`psdp_exact`.

    Step ``t``: roll in with a uniformly chosen policy of ``covers[t]`` to layer ``t + 1``, take
    a uniform action (``p = 1/|A|``), then follow the policies learned for the later layers up
    to ``last_layer`` (and the first action afterwards); the reward is the sum of ``R`` from
    layer ``t + 1`` on (drawn as ``Bernoulli(R)`` when ``bernoulli_rewards``).
    """
    last = layer_index(last_layer, mdp.horizon, "last_layer")
    choices = [np.zeros(len(x), dtype=np.intp) for x in mdp.observations]
    for t in range(last, -1, -1):
        continuation = _deterministic(mdp, choices)
        shape = (len(mdp.observations[t]), mdp.number_of_actions)
        scores = np.zeros(shape)
        for start in range(0, samples, CHUNK):
            episodes = sample_episodes(
                mdp,
                roll_in=list(covers[t]) if t > 0 else [continuation],
                switch_layer=t + 1,
                continuation=continuation,
                samples=min(CHUNK, samples - start),
                rng=rng,
                rewards=rewards,
                bernoulli_rewards=bernoulli_rewards,
            )
            scores += inverse_propensity_scores(
                episodes.observations[:, t], episodes.actions[:, t],
                episodes.rewards[:, t:].sum(axis=1), 1 / mdp.number_of_actions, shape,
            )
        choices[t] = tabular_cb_oracle(scores)
    return _deterministic(mdp, choices)


def exp_oracle_sampled(
    mdp: BlockMDP,
    labels: Sequence[np.ndarray],
    samples: int,
    rng: np.random.Generator,
) -> list[list[Policy]]:
    """ExpOracle's reward-free phase (``alg:oracle-exp``) with :func:`psdp_sampled`."""
    covers: list[list[Policy]] = [[]]
    for h in range(1, mdp.horizon):
        covers.append([
            psdp_sampled(mdp, covers, block_rewards(mdp, h + 1, labels[h], block), h, samples, rng)
            for block in np.unique(labels[h])
        ])
    return covers
