"""Visitation probabilities, occupancies and values (paper, Section 2).

``P_pi(s)`` is the probability that the trajectory of ``pi`` visits ``s``; in a layered MDP that
is ``P(s_h = s)`` for the layer ``h`` of ``s``. ``P_pi(x) = P_pi(decoder(x)) q(x | decoder(x))``.
``V(pi; R) = E_pi[sum_h R(x_h, a_h)]``.
"""

from __future__ import annotations

import numpy as np

from kinematic.model import BlockMDP
from kinematic.policies import Policy, check_policy, state_action_probabilities

__all__ = [
    "observation_occupancy",
    "observation_visitation",
    "occupancy",
    "policy_value",
    "state_visitation",
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


def state_visitation(mdp: BlockMDP, policy: Policy) -> tuple[np.ndarray, ...]:
    """``P_pi(s)`` for every state, per layer (shape ``(n_h,)``)."""
    return tuple(joint.sum(axis=1) for joint in occupancy(mdp, policy))


def observation_visitation(mdp: BlockMDP, policy: Policy) -> tuple[np.ndarray, ...]:
    """``P_pi(x) = P_pi(s) q(x | s)`` for every observation, per layer (shape ``(m_h,)``)."""
    return tuple(
        visitation[mdp.emission_state[h]] * mdp.emission_probability[h]
        for h, visitation in enumerate(state_visitation(mdp, policy))
    )


def observation_occupancy(mdp: BlockMDP, policy: Policy) -> tuple[np.ndarray, ...]:
    """``P_pi(x_h = x, a_h = a) = P_pi(x) pi_h(a | x)`` per layer (shape ``(m_h, |A|)``)."""
    return tuple(
        visitation[:, None] * policy.action_probabilities[h]
        for h, visitation in enumerate(observation_visitation(mdp, policy))
    )


def policy_value(
    mdp: BlockMDP, policy: Policy, rewards: tuple[np.ndarray, ...] | None = None
) -> object:
    """``V(pi; R) = sum_h sum_{x, a} P_pi(x_h = x, a_h = a) R(x, a)``.

    ``rewards`` defaults to the MDP's own expected rewards; otherwise one ``(m_h, |A|)`` array per
    layer. Exact in exact mode.
    """
    rewards = mdp.rewards if rewards is None else rewards
    total = mdp.mode.scalar(0)
    for h, joint in enumerate(observation_occupancy(mdp, policy)):
        total += (joint * rewards[h]).sum()
    return total
