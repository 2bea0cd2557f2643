"""Visitation probabilities, occupancies and values (paper, Section 2).

``P_pi(s)`` is the probability that the trajectory of ``pi`` visits ``s``; in a layered MDP that
is ``P(s_h = s)`` for the layer ``h`` of ``s``. ``P_pi(x) = P_pi(decoder(x)) q(x | decoder(x))``.
``V(pi; R) = E_pi[sum_h R(x_h, a_h)]``.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import numpy as np

from kinematic.model import BlockMDP
from kinematic.named_values import ObservationValues, StateValues
from kinematic.numbers import Number
from kinematic.policies import Policy, check_policy, state_action_probabilities

__all__ = [
    "observation_occupancy",
    "observation_values",
    "observation_visitation",
    "occupancy",
    "policy_value",
    "state_visitation",
    "trajectory_distribution",
]


def occupancy(mdp: BlockMDP, policy: Policy) -> tuple[np.ndarray, ...]:
    """``P_pi(s_h = s, a_h = a)`` per layer, each of shape ``(n_h, |A|)``.

    This is the occupancy measure ``xi_h`` of the proof of ``lem:bki-policy-ratio``, on states.
    """
    check_policy(mdp, policy)
    result = []
    visitation = mdp.start
    for h in range(mdp.horizon):
        joint = visitation[:, None] * state_action_probabilities(mdp, policy, h)
        result.append(joint)
        if h + 1 < mdp.horizon:
            visitation = np.asarray(joint.reshape(-1) @ mdp.transitions[h]).reshape(-1)
    return tuple(result)


def state_visitation(mdp: BlockMDP, policy: Policy) -> StateValues:
    """``P_pi(s)`` for every state, per layer (shape ``(n_h,)``); ``.by_state`` maps each state's
    name to it (:class:`kinematic.named_values.StateValues`).

    >>> from kinematic import combination_lock, homing_policy
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> state_visitation(lock, homing_policy(lock, "s3a")).by_state["s3a"]
    Fraction(1, 2)
    """
    return StateValues((joint.sum(axis=1) for joint in occupancy(mdp, policy)), mdp.layers)


def observation_visitation(mdp: BlockMDP, policy: Policy) -> ObservationValues:
    """``P_pi(x) = P_pi(s) q(x | s)`` for every observation, per layer (shape ``(m_h,)``);
    ``.by_observation`` maps each observation's name to it
    (:class:`kinematic.named_values.ObservationValues`).

    >>> from kinematic import block_mdp, homing_policy
    >>> mdp = block_mdp("two-layer", layers=[["s1"], ["s2a", "s2b"]], actions=["L", "R"],
    ...                 start={"s1": 1},
    ...                 transitions={"s1": {"L": {"s2a": "1/3", "s2b": "2/3"}, "R": {"s2b": 1}}},
    ...                 emissions={"s2a": {"x": "1/4", "y": "3/4"}})
    >>> observation_visitation(mdp, homing_policy(mdp, "s2a")).by_observation["x"]
    Fraction(1, 12)
    """
    return ObservationValues(
        (visitation[mdp.emission_state[h]] * mdp.emission_probability[h]
         for h, visitation in enumerate(state_visitation(mdp, policy))),
        mdp.observations,
    )


def observation_occupancy(mdp: BlockMDP, policy: Policy) -> tuple[np.ndarray, ...]:
    """``P_pi(x_h = x, a_h = a) = P_pi(x) pi_h(a | x)`` per layer (shape ``(m_h, |A|)``)."""
    return tuple(
        visitation[:, None] * policy.action_probabilities[h]
        for h, visitation in enumerate(observation_visitation(mdp, policy))
    )


def policy_value(
    mdp: BlockMDP, policy: Policy, rewards: tuple[np.ndarray, ...] | None = None
) -> Number:
    """``V(pi; R) = sum_h sum_{x, a} P_pi(x_h = x, a_h = a) R(x, a)``.

    ``rewards`` defaults to the MDP's own expected rewards; otherwise one ``(m_h, |A|)`` array per
    layer. Exact in exact mode.
    """
    rewards = mdp.rewards if rewards is None else rewards
    total = mdp.mode.scalar(0)
    for h, joint in enumerate(observation_occupancy(mdp, policy)):
        total += (joint * rewards[h]).sum()
    return total


def observation_values(
    mdp: BlockMDP, policy: Policy, rewards: tuple[np.ndarray, ...] | None = None
) -> ObservationValues:
    """Values to go ``V(x_h; pi_{h:H}) = E_pi[sum_{h' >= h} R(x_h', a_h') | x_h]`` per layer, one
    entry per observation (the ``V(x; pi)`` of ``lem:perf-diff``; ``.by_observation`` by name)."""
    check_policy(mdp, policy)
    rewards = mdp.rewards if rewards is None else rewards
    values: list[np.ndarray] = []
    following = None
    for h in range(mdp.horizon - 1, -1, -1):
        q = rewards[h]
        if following is not None:
            per_state = np.asarray(mdp.transitions[h] @ following).reshape(
                mdp.width(h), mdp.number_of_actions
            )
            q = q + per_state[mdp.emission_state[h]]
        value = (policy.action_probabilities[h] * q).sum(axis=1)
        values.append(value)
        following = mdp.emission_matrix(h) @ value
    return ObservationValues(reversed(values), mdp.observations)


def trajectory_distribution(mdp: BlockMDP, policy: Policy) -> dict[tuple[str, ...], object]:
    """The distribution of observation-action trajectories ``(x_1, a_1, ..., x_H, a_H)`` under
    ``policy``, by the forward algorithm over latent states (names as keys; positive entries only).

    Exponential in the horizon: meant for small MDPs, e.g. to check that two MDPs are
    indistinguishable from observations (Figure ``fig:mdp-canonical``).
    """
    check_policy(mdp, policy)
    beliefs: dict[tuple[str, ...], np.ndarray] = {(): mdp.start}
    for h in range(mdp.horizon):
        following: dict[tuple[str, ...], np.ndarray] = defaultdict(
            functools.partial(mdp.mode.zeros, mdp.width(h + 1) if h + 1 < mdp.horizon else 1)
        )
        emission = mdp.emission_matrix(h)
        for prefix, belief in beliefs.items():
            for x, observation in enumerate(mdp.observations[h]):
                seen = belief * emission[:, x]
                if not mdp.mode.positive(seen).any():
                    continue
                for a, action in enumerate(mdp.actions):
                    weight = seen * policy.action_probabilities[h][x, a]
                    if not mdp.mode.positive(weight).any():
                        continue
                    key = (*prefix, observation, action)
                    if h + 1 < mdp.horizon:
                        rows = np.arange(mdp.width(h)) * mdp.number_of_actions + a
                        following[key] = following[key] + np.asarray(
                            weight @ mdp.transitions[h][rows]
                        ).reshape(-1)
                    else:
                        following[key] = following[key] + weight.sum()
        beliefs = following
    return {prefix: belief.sum() for prefix, belief in beliefs.items()}
