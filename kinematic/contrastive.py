"""HOMER's contrastive learning problem (paper, Section 4 and ``app:appendix-sample-complexity``).

At iteration ``h`` HOMER draws two independent transitions ``(x1, a1, x1')`` and
``(x2, a2, x2')`` from ``Unf(Psi_{h-1}) o Unf(A)`` and a label ``y ~ Ber(1/2)``; it keeps the
real transition ``(x1, a1, x1', 1)`` or the imposter ``(x1, a1, x2', 0)``. This module computes
that distribution ``D`` exactly, its Bayes-optimal square-loss predictor ``E_D[y | x, a, x']``,
the closed form ``f_rho`` of ``lem:p-form``, the prior ``rho`` (``lem:bound-rho-prior``) and the
level sets of a predictor in ``x'`` (``prop:bki-in-class``). Everything is on observations;
layers count from 1: at HOMER's iteration ``h`` (2 to H), ``x`` lies in layer ``h - 1`` and ``x'``
in layer ``h``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from kinematic.errors import InvalidBlockMDP, UnknownLayer, short_repr
from kinematic.inseparability import group_rows
from kinematic.lookup import layer_index
from kinematic.model import BlockMDP
from kinematic.numbers import Number, parse_number
from kinematic.policies import Policy
from kinematic.visitation import observation_visitation

__all__ = [
    "ContrastiveDistribution",
    "bayes_optimal_predictor",
    "contrastive_distribution",
    "f_rho",
    "level_sets",
    "state_prior",
]


@dataclass(frozen=True, eq=False)
class ContrastiveDistribution:
    """The distribution ``D(x, a, x', y)`` of ``alg:learn_homing_policy`` at one layer.

    Attributes
    ----------
    layer : int
        The layer ``h`` of ``x'`` (counted from 1, at least 2).
    roll_in : ndarray
        ``mu(x)``: the distribution of ``x`` in layer ``h - 1`` under ``Unf(Psi_{h-1})``.
    prior : ndarray
        ``rho(x')``: the marginal of ``x'`` under ``Unf(Psi_{h-1}) o Unf(A)``.
    joint : ndarray, shape (m_{h-1}, |A|, m_h, 2)
        ``D(x, a, x', y)``.
    """

    layer: int
    roll_in: np.ndarray
    prior: np.ndarray
    joint: np.ndarray


def contrastive_distribution(
    mdp: BlockMDP,
    cover: Sequence[Policy],
    layer: int,
    positive_probability: object = Fraction(1, 2),
) -> ContrastiveDistribution:
    """``D`` at HOMER's iteration ``layer`` (the paper's ``h``, from 2 to H): ``x`` from the
    roll-in ``Unf(cover)`` to layer ``h - 1``, then ``Unf(A)``, ``x'`` in layer ``h``.

    ``positive_probability`` is the probability of the label ``y = 1`` (1/2 in HOMER). A layer
    out of range raises :class:`kinematic.UnknownLayer` naming the valid range.

    >>> from kinematic import combination_lock, uniform_policy
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> [str(p) for p in contrastive_distribution(lock, [uniform_policy(lock)], layer=2).prior]
    ['1/4', '1/4', '1/2']
    """
    h = layer_index(layer, mdp.horizon) - 1
    if h < 0:
        raise UnknownLayer(f"layer {layer} has no previous layer: the contrastive problem runs "
                           f"at layers 2..{mdp.horizon} (x in layer h - 1, x' in layer h)")
    if not cover:
        raise ValueError("the roll-in needs at least one policy")
    mode = mdp.mode
    share = mode.scalar(1) / len(cover)
    roll_in: np.ndarray = sum((observation_visitation(mdp, policy)[h] for policy in cover),
                              mode.zeros(len(mdp.observations[h]))) * share
    transitions = mdp.observation_transition_tensor(h)
    uniform = mode.scalar(1) / mdp.number_of_actions
    real = roll_in[:, None, None] * uniform * transitions
    prior = real.sum(axis=(0, 1))
    imposter = np.repeat(
        roll_in[:, None, None] * uniform * prior[None, None, :], mdp.number_of_actions, axis=1
    )
    p = mode.scalar(_label_prior(positive_probability))
    joint = np.stack([(1 - p) * imposter, p * real], axis=-1)
    return ContrastiveDistribution(layer, roll_in, prior, joint)


def _label_prior(value: object) -> Number:
    """``positive_probability`` read as a number in ``[0, 1]`` (an exact one may be a string
    such as ``"1/2"``), else ``ValueError`` naming it."""
    try:
        p = parse_number(value, "positive_probability")
    except InvalidBlockMDP as error:
        raise ValueError(str(error)) from None
    if not 0 <= p <= 1:
        raise ValueError(f"positive_probability must lie in [0, 1], got {short_repr(value)}")
    return p


def bayes_optimal_predictor(distribution: ContrastiveDistribution) -> np.ndarray:
    """``E_D[y | x, a, x'] = D(x, a, x', 1) / D(x, a, x')`` where ``D(x, a, x') > 0``; NaN (float)
    or None (exact) elsewhere."""
    joint = distribution.joint
    total = joint.sum(axis=-1)
    result = np.empty(total.shape, dtype=joint.dtype)
    positive = total > 0
    result[positive] = joint[..., 1][positive] / total[positive]
    result[~positive] = None if joint.dtype == object else np.nan
    return result


def state_prior(mdp: BlockMDP, distribution: ContrastiveDistribution) -> np.ndarray:
    """``rho(s') = sum_{x' in s'} rho(x')``: the prior of the contrastive distribution on the
    states of layer ``distribution.layer``."""
    h = distribution.layer - 1  # the position of x'
    prior = mdp.mode.zeros(mdp.width(h))
    for x, state in enumerate(mdp.emission_state[h]):
        prior[state] += distribution.prior[x]
    return prior


def f_rho(mdp: BlockMDP, distribution: ContrastiveDistribution) -> np.ndarray:
    """The closed form of ``lem:p-form`` on states, lifted to observations:
    ``T(s'|s, a) / (T(s'|s, a) + rho(s'))`` with ``s = decoder(x)``, ``s' = decoder(x')``,
    ``rho(s') = sum_{x' in s'} rho(x')``; undefined (None / NaN) where ``D(x, a, x') = 0``."""
    h = distribution.layer - 1  # the position of x'
    tensor = mdp.transition_tensor(h - 1)[mdp.emission_state[h - 1]]
    tensor = tensor[:, :, mdp.emission_state[h]]
    rho = state_prior(mdp, distribution)[mdp.emission_state[h]][None, None, :]
    result = np.empty(tensor.shape, dtype=tensor.dtype)
    defined = distribution.joint.sum(axis=-1) > 0
    result[defined] = (tensor / (tensor + np.where(rho == 0, 1, rho)))[defined]
    result[~defined] = None if tensor.dtype == object else np.nan
    return result


def level_sets(
    mdp: BlockMDP, predictor: np.ndarray, distribution: ContrastiveDistribution
) -> list[list[str]]:
    """The level sets of ``x' -> predictor(., ., x')`` over the observations ``x'`` with
    ``rho(x') > 0``, comparing on the ``(x, a)`` with ``mu(x) > 0`` (``prop:bki-in-class``)."""
    h = distribution.layer - 1  # the position of x'
    contexts = np.flatnonzero(mdp.mode.positive(distribution.roll_in))
    targets = np.flatnonzero(mdp.mode.positive(distribution.prior))
    columns = predictor[contexts][:, :, targets].reshape(-1, len(targets)).T
    names = [mdp.observations[h][x] for x in targets]
    if not mdp.mode.exact:
        columns = np.asarray(columns, dtype=np.float64)
    labels = group_rows(mdp.mode, columns, names)
    sets: list[list[str]] = [[] for _ in range(int(labels.max()) + 1 if len(labels) else 0)]
    for name, label in zip(names, labels, strict=True):
        sets[label].append(name)
    return sets
