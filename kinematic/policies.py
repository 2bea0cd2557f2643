"""Policies of the paper, Section 2: stochastic non-stationary observation policies.

A :class:`Policy` gives, for every layer ``h`` and observation ``x`` of that layer, a distribution
``pi_h(. | x)`` over actions. Deterministic policies, and policies defined on latent states (as
homing policies are), are the special cases built by the helpers below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from kinematic.display import PrintsAsRepr, policy_repr
from kinematic.errors import InvalidBlockMDP, InvalidPolicy
from kinematic.lookup import find, unknown_name
from kinematic.model import BlockMDP
from kinematic.numbers import Number, parse_number

__all__ = [
    "Policy",
    "check_policy",
    "observation_policy",
    "state_action_probabilities",
    "state_policy",
    "transfer_policy",
    "uniform_policy",
]


@dataclass(frozen=True, eq=False)
class Policy(PrintsAsRepr):
    """A stochastic non-stationary policy on observations.

    ``action_probabilities[h]`` has shape ``(m_h, |A|)``: row ``x`` is ``pi_h(. | x)`` (layer
    ``h + 1``, observation ``mdp.observations[h][x]``). ``mdp`` is the Block MDP the policy acts
    in, when known (the functions of :mod:`kinematic` that build policies set it; its shapes are
    checked): with it the policy prints by state, observation and action names, and :meth:`at`
    looks names up.

    >>> from kinematic import combination_lock, homing_policy
    >>> policy = homing_policy(combination_lock(horizon=2, actions=2, seed=0), "s2a")
    >>> policy.at("s1b")
    {'a1': Fraction(0, 1), 'a2': Fraction(1, 1)}
    """

    action_probabilities: tuple[np.ndarray, ...]
    mdp: BlockMDP | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.mdp is not None:
            _check_shapes(self.mdp, self)

    def at(self, name: str) -> dict[str, Number]:
        """Action name -> probability at observation ``name`` (``pi_h(. | x)``), or at state
        ``name``: ``P(a | s) = sum_x q(x | s) pi_h(a | x)``, the latent process's (the
        distribution of each observation of ``s`` when they agree). A state that emits an
        observation of its own name among others is read as that observation.

        Raises :class:`kinematic.UnknownName` (naming the closest states and observations) for
        any other name, ``ValueError`` for a policy built without its MDP.
        """
        mdp = self.mdp
        if mdp is None:
            raise ValueError("this policy was built without its MDP (Policy(..., mdp=None)): "
                             "it has no names to look up")
        if isinstance(name, str) and name in mdp.observation_location:
            h, x = mdp.observation_location[name]
            row = self.action_probabilities[h][x]
        elif isinstance(name, str) and name in mdp.state_location:
            h, i = mdp.state_location[name]
            emitted = mdp.emission_state[h] == i
            row = mdp.emission_probability[h][emitted] @ self.action_probabilities[h][emitted]
        else:
            names = dict.fromkeys([*mdp.states, *mdp.observation_location])
            raise unknown_name("state or observation", name, list(names), "name")
        return dict(zip(mdp.actions, row, strict=True))

    def __repr__(self) -> str:
        return policy_repr(self)


def _check_shapes(mdp: BlockMDP, policy: Policy) -> None:
    """Raise :class:`InvalidPolicy` if ``policy`` has not one ``(m_h, |A|)`` table per layer."""
    if len(policy.action_probabilities) != mdp.horizon:
        raise InvalidPolicy(
            f"policy has {len(policy.action_probabilities)} layers, the MDP has {mdp.horizon}"
        )
    for h, probabilities in enumerate(policy.action_probabilities):
        expected = (len(mdp.observations[h]), mdp.number_of_actions)
        if np.shape(probabilities) != expected:
            raise InvalidPolicy(
                f"policy layer {h + 1} has shape {np.shape(probabilities)}, expected {expected}"
            )


def check_policy(mdp: BlockMDP, policy: Policy) -> None:
    """Raise :class:`InvalidPolicy` naming the layer/observation where ``policy`` does not fit."""
    _check_shapes(mdp, policy)
    for h, probabilities in enumerate(policy.action_probabilities):
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
        ),
        mdp,
    )


def state_policy(
    mdp: BlockMDP,
    choices: Mapping[str, str | Mapping[str, object]],
    default_action: str | None = None,
) -> Policy:
    """A policy that acts on latent states, lifted to their observations (every observation of a
    state takes the state's choice).

    ``choices`` maps a state to an action name (deterministic) or to ``{action: probability}``;
    states left out take ``default_action``, or act uniformly at random when it is None. An
    unknown state or action raises :class:`kinematic.UnknownName` naming the argument
    (``choices``, ``choices['s1']``, ``default_action``) and the closest names; a distribution
    that does not sum to 1 raises :class:`kinematic.InvalidPolicy`. A policy per observation:
    :func:`observation_policy`.

    >>> from kinematic import combination_lock, policy_value, state_visitation
    >>> lock = combination_lock(horizon=2, actions=2, seed=0)
    >>> choices = {"s1a": "a2", "s1b": {"a1": "1/2", "a2": "1/2"}}
    >>> policy = state_policy(lock, choices, default_action="a1")
    >>> policy  # doctest: +NORMALIZE_WHITESPACE
    <Policy on 'combolock-H2-K2-seed0': layer 1: s1a -> a2, s1b -> {a1: 1/2, a2: 1/2};
     layer 2: s2a -> a1, s2b -> a1, s2c -> a1>
    >>> state_visitation(lock, policy).by_state["s2c"]   # s1b's a2 leads to s2c
    Fraction(1, 4)
    >>> policy_value(lock, policy)
    Fraction(13, 32)
    """
    policy = _default_policy(mdp, default_action)
    for state, choice in choices.items():
        h, i = find(mdp.state_location, state, "state", "choices")
        policy.action_probabilities[h][mdp.emission_state[h] == i] = _action_row(
            mdp, choice, f"choices[{state!r}]")
    check_policy(mdp, policy)
    return policy


def observation_policy(
    mdp: BlockMDP,
    choices: Mapping[str, str | Mapping[str, object]],
    default_action: str | None = None,
) -> Policy:
    """A policy given per observation name: ``pi_h(. | x)`` for the observations ``x`` in
    ``choices`` (an action name, or ``{action: probability}``), ``default_action`` at the others
    (uniformly random when it is None). Unlike :func:`state_policy`, the observations of one
    state may act differently. Unknown names raise :class:`kinematic.UnknownName` naming the
    argument (``choices``, ``choices['x']``, ``default_action``) and the closest names.

    >>> from kinematic import block_mdp, state_visitation
    >>> mdp = block_mdp("peek", layers=[["s1"], ["s2a", "s2b"]], actions=["L", "R"],
    ...                 start={"s1": 1},
    ...                 transitions={"s1": {"L": {"s2a": 1}, "R": {"s2b": 1}}},
    ...                 emissions={"s1": {"x": "1/3", "y": "2/3"}})
    >>> policy = observation_policy(mdp, {"x": "L", "y": "R"}, default_action="L")
    >>> policy.at("s1")                    # the state's action distribution
    {'L': Fraction(1, 3), 'R': Fraction(2, 3)}
    >>> state_visitation(mdp, policy).by_state["s2a"]
    Fraction(1, 3)
    """
    policy = _default_policy(mdp, default_action)
    for observation, choice in choices.items():
        h, x = find(mdp.observation_location, observation, "observation", "choices")
        policy.action_probabilities[h][x] = _action_row(mdp, choice, f"choices[{observation!r}]")
    check_policy(mdp, policy)
    return policy


def _default_policy(mdp: BlockMDP, default_action: str | None) -> Policy:
    """``default_action`` everywhere, or the uniform policy when it is None."""
    policy = uniform_policy(mdp)
    if default_action is not None:
        default = find(mdp.action_index, default_action, "action", "default_action")
        for probabilities in policy.action_probabilities:
            probabilities.fill(mdp.mode.scalar(0))
            probabilities[:, default] = mdp.mode.scalar(1)
    return policy


def _action_row(mdp: BlockMDP, choice: str | Mapping[str, object], where: str) -> np.ndarray:
    """The action distribution ``choice`` (an action name or ``{action: probability}``) given at
    ``where``, as a row of action probabilities."""
    row = mdp.mode.zeros(mdp.number_of_actions)
    distribution = {choice: 1} if isinstance(choice, str) else choice
    for action, p in distribution.items():
        row[find(mdp.action_index, action, "action", where)] = mdp.mode.scalar(
            _probability(p, f"{where}[{action!r}]"))
    return row


def _probability(value: object, where: str) -> Number:
    """An action's probability given as a number or a numeric string (``"1/2"``, in either
    number mode), else :class:`InvalidPolicy` naming ``where``."""
    try:
        return parse_number(value, where)
    except InvalidBlockMDP as error:
        raise InvalidPolicy(str(error)) from None


def transfer_policy(policy: Policy, source: BlockMDP, target: BlockMDP) -> Policy:
    """The same observation policy for another MDP with the same observation names per layer
    (rows are positional, so they are reordered by name). An observation of ``target`` that
    ``source`` lacks raises :class:`kinematic.UnknownName` naming it and the closest ones."""
    tables = []
    for h, names in enumerate(target.observations):
        where = {name: x for x, name in enumerate(source.observations[h])}
        order = [find(where, name, "observation", f"target (layer {h + 1}, not in source)")
                 for name in names]
        if len(order) != len(where):
            missing = [name for name in where if name not in set(names)]
            raise InvalidPolicy(f"target (layer {h + 1}) lacks the observations "
                                f"{', '.join(map(repr, missing))} of source")
        tables.append(policy.action_probabilities[h][order])
    return Policy(tuple(tables), target)


def state_action_probabilities(mdp: BlockMDP, policy: Policy, index: int) -> np.ndarray:
    """``P(a_h = a | s_h = s) = sum_x q(x|s) pi_h(a|x)`` at position ``index`` (0-based: layer
    ``index + 1``), shape ``(n_h, |A|)``.

    Because ``x_h ~ q(.|s_h)`` is drawn afresh at each step, the latent process under an
    observation policy is the Markov chain with these action probabilities.
    """
    return mdp.emission_matrix(index) @ policy.action_probabilities[index]
