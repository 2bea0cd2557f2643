"""Policies of the paper, Section 2: stochastic non-stationary observation policies.

A :class:`Policy` gives, for every layer ``h`` and observation ``x`` of that layer, a distribution
``pi_h(. | x)`` over actions. Deterministic policies, and policies defined on latent states (as
homing policies are), are the special cases built by the helpers below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kinematic.errors import InvalidPolicy
from kinematic.model import BlockMDP

__all__ = [
    "Policy",
    "check_policy",
    "state_action_probabilities",
    "state_policy",
    "transfer_policy",
    "uniform_policy",
]


@dataclass(frozen=True, eq=False)
class Policy:
    """A stochastic non-stationary policy on observations.

    ``action_probabilities[h]`` has shape ``(m_h, |A|)``: row ``x`` is ``pi_h(. | x)``.
    """

    action_probabilities: tuple[np.ndarray, ...]


def check_policy(mdp: BlockMDP, policy: Policy) -> None:
    """Raise :class:`InvalidPolicy` naming the layer/observation where ``policy`` does not fit."""
    if len(policy.action_probabilities) != mdp.horizon:
        raise InvalidPolicy(
            f"policy has {len(policy.action_probabilities)} layers, the MDP has {mdp.horizon}"
        )
    for h, probabilities in enumerate(policy.action_probabilities):
        expected = (len(mdp.observations[h]), mdp.number_of_actions)
        if probabilities.shape != expected:
            raise InvalidPolicy(
                f"policy layer {h + 1} has shape {probabilities.shape}, expected {expected}"
            )
        for x, row in enumerate(probabilities):
            observation = mdp.observations[h][x]
            if any(p != p for p in row):
                raise InvalidPolicy(f"policy at observation {observation!r} contains NaN")
            if any(p < 0 for p in row):
                raise InvalidPolicy(f"policy at observation {observation!r} has a negative entry")
            if not mdp.mode.equal(sum(row), mdp.mode.scalar(1)):
                raise InvalidPolicy(
                    f"policy at observation {observation!r} sums to {sum(row)}, not 1"
                )


def uniform_policy(mdp: BlockMDP) -> Policy:
    """``Unf(A)`` at every observation."""
    share = mdp.mode.scalar(1) / mdp.number_of_actions
    return Policy(
        tuple(
            np.full((len(layer), mdp.number_of_actions), share, dtype=mdp.mode.dtype)
            for layer in mdp.observations
        )
    )


def state_policy(
    mdp: BlockMDP,
    choices: Mapping[str, str | Mapping[str, object]],
    default_action: str | None = None,
) -> Policy:
    """A policy that acts on latent states, lifted to their observations.

    ``choices`` maps a state to an action name (deterministic) or to ``{action: probability}``;
    states left out take ``default_action``, or act uniformly at random when it is None.
    """
    policy = uniform_policy(mdp)
    if default_action is not None:
        if default_action not in mdp.action_index:
            raise InvalidPolicy(f"policy: unknown default action {default_action!r}")
        for probabilities in policy.action_probabilities:
            probabilities.fill(mdp.mode.scalar(0))
            probabilities[:, mdp.action_index[default_action]] = mdp.mode.scalar(1)
    for state, choice in choices.items():
        if state not in mdp.state_location:
            raise InvalidPolicy(f"policy: unknown state {state!r}")
        h, i = mdp.state_location[state]
        row = mdp.mode.zeros(mdp.number_of_actions)
        dist = {choice: 1} if isinstance(choice, str) else choice
        for action, p in dist.items():
            if action not in mdp.action_index:
                raise InvalidPolicy(f"policy[{state!r}]: unknown action {action!r}")
            row[mdp.action_index[action]] = mdp.mode.scalar(p)
        policy.action_probabilities[h][mdp.emission_state[h] == i] = row
    check_policy(mdp, policy)
    return policy


def transfer_policy(policy: Policy, source: BlockMDP, target: BlockMDP) -> Policy:
    """The same observation policy for another MDP with the same observation names per layer
    (rows are positional, so they are reordered by name)."""
    tables = []
    for h, names in enumerate(target.observations):
        where = {name: x for x, name in enumerate(source.observations[h])}
        if set(names) != set(where):
            raise InvalidPolicy(f"policy transfer: layer {h + 1} observations differ")
        order = [where[name] for name in names]
        tables.append(policy.action_probabilities[h][order])
    return Policy(tuple(tables))


def state_action_probabilities(mdp: BlockMDP, policy: Policy, layer: int) -> np.ndarray:
    """``P(a_h = a | s_h = s) = sum_x q(x|s) pi_h(a|x)``, shape ``(n_h, |A|)``.

    Because ``x_h ~ q(.|s_h)`` is drawn afresh at each step, the latent process under an
    observation policy is the Markov chain with these action probabilities.
    """
    return mdp.emission_matrix(layer) @ policy.action_probabilities[layer]
