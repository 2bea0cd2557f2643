r"""Multi-step inverse dynamics, solved exactly (MusIK: Mhammedi, Foster and Rakhlin, ICML 2023,
"Representation Learning with Multi-Step Inverse Kinematics", Algorithm MusIK and its
multi-step inverse kinematics objective).

The representation of layer ``t`` (0-based, ``t >= 1``) is learned by predicting the action
``a_{t-k}`` taken ``k`` layers earlier from ``(x_{t-k}, phi(x_t))``: the earlier observation
is given in full, only the later one goes through the abstraction ``phi``. Data, in this exact
version: ``x_{t-k}`` rolled in with ``Unf(cover)`` (the uniform random policy when ``cover`` is
empty), ``a_{t-k}`` uniform, every action after it uniform:

$$P(x_{t-k}, a, x_t) = \mu_{t-k}(x_{t-k}) \frac{1}{|A|}
  \big[T(a) \, \bar T^{\,k-1}\big](x_t \mid x_{t-k}),$$

``bar T`` the uniform-action transition. Two forms:

- a fixed gap ``k`` (:func:`multistep_inverse_joint`): context ``C = x_{t-k}``, target
  ``a_{t-k}``; ``k = 1`` is Section 5's inverse dynamics (curiosity), with the same posteriors
  :func:`kinematic.counterexamples.objectives.inverse_dynamics_posteriors`;
- every gap ``k = 1 .. t`` (:func:`every_gap_joint`, MusIK's, which learns from every earlier
  layer): ``k`` is part of the context and drawn uniformly, ``C = (k, x_{t-k})`` with
  probability ``P(k) = 1/t``. The contexts of different gaps are disjoint, so ``phi`` is
  Bayes-optimal for it iff it is for every ``k``, and its loss is the mean of theirs.

Either is an instance of :mod:`kinematic.counterexamples.predictive` (context in full,
abstracted observation, target): the coarsest optimal abstraction is a minimum clique cover of
the compatibility graph, unique when ``unique`` says so.

The context is the raw observation here. AC-State (Lamb et al. 2022) and ACDF (Levine, Stone
and Zhang 2024) encode both ends with the same ``phi``; that shared-encoder form is not this
module's.

Inside HOMER's loop (:func:`~kinematic.counterexamples.exploration.explore_with_objective`) the
cover passed for layer ``t`` is ``Psi_{t-1}``; its policies roll in to every earlier context
layer. The fixed-gap objective at a layer ``t < k`` uses the largest gap there is, ``t``.

>>> from kinematic.counterexamples.mdps import curiosity_counterexample
>>> mdp = curiosity_counterexample()
>>> solution = multistep_inverse_solution(mdp, layer=2)
>>> solution.labels.tolist(), solution.unique, str(solution.loss)
([0, 1, 2], True, '7/30')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kinematic.counterexamples.exploration import Objective
from kinematic.counterexamples.objectives import ObjectiveSolution, roll_in, uniform_step
from kinematic.counterexamples.predictive import (
    coarsest_optimal_abstraction,
    predictive_solution,
    require_exact,
)
from kinematic.model import BlockMDP
from kinematic.policies import Policy

__all__ = [
    "every_gap_joint",
    "multistep_inverse_gap_objective",
    "multistep_inverse_joint",
    "multistep_inverse_objective",
    "multistep_inverse_solution",
]


def _check(mdp: BlockMDP, layer: int, gap: int | None) -> None:
    require_exact(mdp)
    if not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1} (0-based; layer 0 has no "
                         f"earlier action), got {layer}")
    if gap is not None and not 1 <= gap <= layer:
        raise ValueError(f"gap must lie in 1..{layer} at layer {layer}, got {gap}")


def multistep_inverse_joint(mdp: BlockMDP, layer: int, gap: int,
                            cover: Sequence[Policy] = ()) -> np.ndarray:
    """``P(x_{t-k}, x_t, a_{t-k})`` with ``t = layer``, ``k = gap``: shape ``(m_{t-k}, m_t,
    |A|)`` (context, abstracted observation, target)."""
    _check(mdp, layer, gap)
    start = layer - gap
    later = np.identity(len(mdp.observations[start + 1]), dtype=object) * mdp.mode.scalar(1)
    for h in range(start + 1, layer):
        later = later @ uniform_step(mdp, h)
    first = mdp.observation_transition_tensor(start)  # (m_{t-k}, |A|, m_{t-k+1})
    reach = np.einsum("xay,yz->xza", first, later)
    share = roll_in(mdp, cover, start) * (mdp.mode.scalar(1) / mdp.number_of_actions)
    return share[:, None, None] * reach


def every_gap_joint(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()) -> np.ndarray:
    """The tables of every gap ``k = 1 .. layer`` stacked along the context axis (``k = 1``
    first), each weighted ``1 / layer``: shape ``(sum_k m_{t-k}, m_t, |A|)``."""
    _check(mdp, layer, None)
    weight = mdp.mode.scalar(1) / layer
    return np.concatenate([multistep_inverse_joint(mdp, layer, k, cover) * weight
                           for k in range(1, layer + 1)])


def multistep_inverse_solution(mdp: BlockMDP, layer: int, gap: int | None = None,
                               cover: Sequence[Policy] = ()) -> ObjectiveSolution:
    """The coarsest Bayes-optimal abstraction of ``layer`` (0-based) for the multi-step inverse
    with gap ``gap``, or with every gap ``1 .. layer`` (``gap=None``, MusIK's), its uniqueness
    and the Bayes-optimal square loss (for every gap: the mean over the gaps).

    Raises ``ValueError`` naming ``layer`` or ``gap`` out of range, or ``mdp`` in float mode.
    """
    if gap is None:
        return predictive_solution("multistep_inverse", layer, every_gap_joint(mdp, layer, cover))
    return predictive_solution(f"multistep_inverse_k{gap}", layer,
                               multistep_inverse_joint(mdp, layer, gap, cover))


def multistep_inverse_objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                                previous_labels: np.ndarray) -> np.ndarray:
    """The :data:`~kinematic.counterexamples.exploration.Objective` of every gap ``1 ..
    layer`` (MusIK's form)."""
    return coarsest_optimal_abstraction(every_gap_joint(mdp, layer, cover))[0]


def multistep_inverse_gap_objective(gap: int) -> Objective:
    """The :data:`~kinematic.counterexamples.exploration.Objective` of the fixed gap ``gap``
    (at layers ``t < gap``: the gap ``t``).

    >>> from kinematic.counterexamples.exploration import explore_with_objective
    >>> from kinematic.counterexamples.mdps import curiosity_counterexample
    >>> found = explore_with_objective(curiosity_counterexample(),
    ...                                multistep_inverse_gap_objective(2))
    >>> [labels.tolist() for labels in found.labels]
    [[0, 0], [0, 0, 1, 1], [0, 1, 2]]
    """
    if isinstance(gap, bool) or not isinstance(gap, int) or gap < 1:
        raise ValueError(f"gap must be an int >= 1, got {gap!r}")

    def objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                  previous_labels: np.ndarray) -> np.ndarray:
        return coarsest_optimal_abstraction(
            multistep_inverse_joint(mdp, layer, min(gap, layer), cover))[0]

    return objective
