"""Abstraction objectives of prior work (paper, Section 5) and their Bayes-optimal solutions.

Data are collected HOMER-style at layer ``h`` (0-based, ``h >= 1``): roll in to layer ``h - 1``
with ``Unf(cover)``, take a uniform action, observe ``x'``:
``J(x, a, x') = mu(x) / |A| * T(x' | x, a)``.

- Inverse dynamics (curiosity, Pathak et al. 2017): predict ``a`` from ``(x, x')``. An abstraction
  ``phi`` of ``x'`` attains the Bayes-optimal loss iff ``p(a | x, phi(x')) = p(a | x, x')``
  wherever ``(x, x')`` has positive probability.
- PCID's target (Du et al. 2019): predict ``(phi_{h-1}(x), a)`` from ``x'``. ``phi`` is
  Bayes-optimal iff ``p(phi_{h-1}(x), a | phi(x')) = p(phi_{h-1}(x), a | x')``.

Both statements are for strictly proper losses; the square (Brier) loss is computed exactly to
report numbers. Observations that the data never show are left in classes of their own.

Every objective, of Section 5 and after, is used in two forms: as an :data:`Objective
<kinematic.counterexamples.exploration.Objective>` callable ``(mdp, cover, layer,
previous_labels) -> labels`` inside HOMER's loop (:func:`~kinematic.counterexamples.exploration.
explore_with_objective`), and through its solution on one layer, an :class:`ObjectiveSolution`:
the coarsest abstraction that attains the Bayes-optimal population loss, whether it is the only
one, and that loss.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from kinematic.model import BlockMDP
from kinematic.policies import Policy, uniform_policy
from kinematic.visitation import observation_visitation

__all__ = [
    "ObjectiveSolution",
    "inverse_dynamics_abstraction",
    "inverse_dynamics_posteriors",
    "is_inverse_dynamics_optimal",
    "is_pcid_optimal",
    "pcid_posteriors",
    "pcid_target_abstraction",
    "roll_in",
    "square_loss",
    "transition_distribution",
    "uniform_step",
]


@dataclass(frozen=True, eq=False)
class ObjectiveSolution:
    """An objective's exact answer on one layer of a Block MDP.

    Attributes
    ----------
    objective : str
        The objective's name (``"inverse_dynamics"``, ``"multistep_inverse"``, ...).
    layer : int
        The layer (0-based) whose observations ``labels`` abstracts.
    labels : ndarray of int
        A coarsest abstraction of ``mdp.observations[layer]`` attaining the Bayes-optimal
        population loss: no abstraction with fewer classes attains it.
    unique : bool
        Whether ``labels`` is the only such abstraction with that number of classes (up to
        renaming the classes); when it is not, ``labels`` is the first found and the objective's
        docstring says in what order.
    loss : Fraction or float
        The Bayes-optimal population loss (an exact ``Fraction`` for square losses; a float for
        log losses, computed from the exact probabilities).
    """

    objective: str
    layer: int
    labels: np.ndarray
    unique: bool
    loss: Fraction | float


def roll_in(mdp: BlockMDP, cover: Sequence[Policy], layer: int) -> np.ndarray:
    """The distribution of the observations of ``layer`` (0-based) under ``Unf(cover)`` (the
    uniform random policy when ``cover`` is empty)."""
    policies = list(cover) or [uniform_policy(mdp)]
    total = sum((observation_visitation(mdp, policy)[layer] for policy in policies),
                mdp.mode.zeros(len(mdp.observations[layer])))
    return total * (mdp.mode.scalar(1) / len(policies))


def uniform_step(mdp: BlockMDP, layer: int) -> np.ndarray:
    """``T(x' | x, Unf(A))``, shape ``(m_layer, m_{layer+1})``: one uniformly random action."""
    return mdp.observation_transition_tensor(layer).sum(axis=1) * (
        mdp.mode.scalar(1) / mdp.number_of_actions)


def transition_distribution(mdp: BlockMDP, cover: Sequence[Policy], layer: int) -> np.ndarray:
    """``J(x, a, x')`` of shape ``(m_{layer-1}, |A|, m_layer)`` for roll-in ``Unf(cover)``
    (layer 1: the start distribution; ``cover`` may be empty)."""
    if not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1}, got {layer}")
    mu = roll_in(mdp, cover, layer - 1)
    uniform = mdp.mode.scalar(1) / mdp.number_of_actions
    return mu[:, None, None] * uniform * mdp.observation_transition_tensor(layer - 1)


def _normalised(vector: np.ndarray) -> tuple | None:
    total = vector.sum()
    return None if total == 0 else tuple(vector / total)


def inverse_dynamics_posteriors(joint: np.ndarray, labels: np.ndarray | None = None) -> dict:
    """``{(x, class of x'): p(a | x, class)}`` over the pairs with positive probability;
    ``labels`` (default: every ``x'`` its own class) abstract ``x'``."""
    labels = np.arange(joint.shape[2]) if labels is None else np.asarray(labels)
    result = {}
    for x in range(joint.shape[0]):
        for label in np.unique(labels):
            posterior = _normalised(joint[x][:, labels == label].sum(axis=1))
            if posterior is not None:
                result[x, int(label)] = posterior
    return result


def is_inverse_dynamics_optimal(joint: np.ndarray, labels: np.ndarray) -> bool:
    """Whether abstracting ``x'`` by ``labels`` keeps ``p(a | x, x')`` wherever defined."""
    fine = inverse_dynamics_posteriors(joint)
    coarse = inverse_dynamics_posteriors(joint, labels)
    return all(coarse[x, int(labels[y])] == posterior for (x, y), posterior in fine.items())


def inverse_dynamics_abstraction(joint: np.ndarray) -> np.ndarray:
    """A coarse Bayes-optimal abstraction of ``x'`` for inverse dynamics (greedy: each ``x'``
    joins the first class it can join without changing any posterior). Not unique in general:
    an ``x'`` unreachable from some ``x`` imposes nothing there."""
    labels = np.full(joint.shape[2], -1)
    reached = joint.sum(axis=(0, 1)) > 0
    classes: list[list[int]] = []
    for y in range(joint.shape[2]):
        if reached[y]:
            for index, members in enumerate(classes):
                trial = labels.copy()
                trial[y] = index
                trial[trial < 0] = len(classes) + np.arange((trial < 0).sum())
                if members and reached[members[0]] and is_inverse_dynamics_optimal(joint, trial):
                    labels[y] = index
                    members.append(y)
                    break
        if labels[y] < 0:
            labels[y] = len(classes)
            classes.append([y])
    return labels


def pcid_posteriors(joint: np.ndarray, previous_labels: np.ndarray,
                    labels: np.ndarray | None = None) -> dict:
    """``{class of x': p(phi_{h-1}(x), a | class)}`` (flattened over ``(class of x, a)``)."""
    labels = np.arange(joint.shape[2]) if labels is None else np.asarray(labels)
    previous_labels = np.asarray(previous_labels)
    by_previous = np.stack(
        [joint[previous_labels == c].sum(axis=0) for c in np.unique(previous_labels)]
    )  # (classes of x, |A|, m')
    result = {}
    for label in np.unique(labels):
        posterior = _normalised(by_previous[:, :, labels == label].sum(axis=2).reshape(-1))
        if posterior is not None:
            result[int(label)] = posterior
    return result


def is_pcid_optimal(joint: np.ndarray, previous_labels: np.ndarray, labels: np.ndarray) -> bool:
    """Whether abstracting ``x'`` by ``labels`` keeps ``p(phi_{h-1}(x), a | x')``."""
    fine = pcid_posteriors(joint, previous_labels)
    coarse = pcid_posteriors(joint, previous_labels, labels)
    return all(coarse[int(labels[y])] == posterior for y, posterior in fine.items())


def pcid_target_abstraction(joint: np.ndarray, previous_labels: np.ndarray) -> np.ndarray:
    """The coarsest Bayes-optimal abstraction for PCID's target: ``x'`` grouped by their
    posterior ``p(phi_{h-1}(x), a | x')`` (unique); unseen ``x'`` stay alone."""
    fine = pcid_posteriors(joint, previous_labels)
    numbering: dict = {}
    return np.array([
        numbering.setdefault(fine.get(y, ("unseen", y)), len(numbering))
        for y in range(joint.shape[2])
    ])


def square_loss(joint: np.ndarray, inputs: Sequence[Iterable[int]]) -> Fraction:
    """Expected Brier loss ``E[sum_y (1{y = Y} - p(y | inputs))^2] = 1 - E[sum_y p(y|in)^2]`` of
    the best predictor of ``Y`` from ``inputs``.

    ``joint`` is a probability table over ``(input index, target index)``: ``inputs`` lists, for
    each input class, the row indices it merges.
    """
    total = Fraction(0)
    for rows in inputs:
        merged = joint[list(rows)].sum(axis=0)
        mass = merged.sum()
        if mass:
            total += sum(p * p for p in merged) / mass
    return 1 - total
