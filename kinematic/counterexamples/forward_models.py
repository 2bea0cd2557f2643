r"""Forward models and temporal contrast, solved exactly: the action-free objectives of video
pre-training (Misra, Saran, Xie, Lamb and Langford, ICLR 2024, "Towards Principled Representation
Learning from Videos for Reinforcement Learning", Section 3: forward modeling and temporal
contrastive learning) and the action-conditioned forward model, the latent forward part of ACDF
(Levine, Stone and Zhang 2024, "Multistep Inverse Is Not All You Need") in its single form.

Each is an instance of :mod:`kinematic.counterexamples.predictive` (a context in full, an
abstracted observation, a target). Data as HOMER collects them for the abstracted layer
``t``: ``Unf(cover)`` to layer ``t - 1``, one uniformly random action to layer ``t`` (the start
distribution at ``t = 0``), and one more to ``t + 1`` where the target lies ahead; with an
empty cover this is the uniform random policy, the video's. ``bar T(x' | x)`` is the uniform-
action transition, ``mu_h`` the distribution of ``x_h``.

- *Forward modelling* (:func:`forward_modelling_joint`): ``phi`` abstracts ``x_h``, the target is
  ``x_{h+1}``, no context, no action seen. The optimum groups the observations of layer ``h`` by
  their next-observation distribution ``bar T(. | x)``; compatibility is transitive (one
  context), so the coarsest optimal abstraction is unique. At the last layer there is no next
  observation (a constant target): one class.
- *Temporal contrast* (:func:`temporal_contrast_joint`): ``phi`` abstracts ``x_{h+1}``, the
  context is ``x_h`` in full, the target is real (``x_{h+1} ~ bar T(. | x_h)``) or fake
  (``x_{h+1}`` drawn from its marginal ``P(x') = sum_x mu_h(x) bar T(x' | x)``, independently),
  each with prior 1/2. The Bayes predictor is ``p(real | x, x') = r / (1 + r)``,
  ``r = bar T(x' | x) / P(x')``. Every seen ``x'`` has positive mass with every seen ``x`` (the
  fake pairs), so compatibility is transitive and the optimum groups ``x'`` by
  ``r(., x') = P(x_h = . | x') / mu_h(.)``, i.e. by the *action-free backward posterior*
  ``P(x_h | x_{h+1})``: backward kinematic inseparability with the actions marginalised out
  (coarser than or equal to the backward KI partition, ``def:bki``, on the states the data
  reach).
- *Action-conditioned forward modelling* (:func:`action_forward_joint`): ``phi`` abstracts
  ``x_h``, the context is the action ``a_h`` (uniform), the target ``x_{h+1}``. The optimum
  groups ``x_h`` by ``T(. | x, a)`` for every action: forward kinematic inseparability
  (``def:fki``) on the states the data reach (one class at the last layer).

Exogenous noise (:func:`kinematic.exogenous.exogenous_block_mdp`, latent state ``(s, xi)``):
when the exogenous part is i.i.d. from step to step (``T_ex(xi' | xi) = P(xi')``), ``bar T``
and ``T`` factor as ``T_en(s' | s) P(xi')`` and ``xi`` drops out of every posterior above, so
the optima merge the exogenous values (forward modelling and the action-conditioned model:
given ``s``; temporal contrast: given ``s'``); whether they then recover the endogenous state
itself depends on the endogenous dynamics (two endogenous states with the same next-state
distribution are merged too). When the exogenous part has memory, ``xi_h`` predicts ``xi_{h+1}``
and the reverse, so all three keep the exogenous value apart: they recover at least the latent
state ``(s, xi)``, not the endogenous one. (Misra et al. prove recovery with i.i.d. noise only
and a lower bound with exogenous noise.) The tests check this on the exogenous lock at flip
1/2 and 1/10.

>>> from kinematic.families import exogenous_combination_lock
>>> noisy = exogenous_combination_lock(horizon=3, actions=2, seed=0, bits=1, flip="1/2")
>>> solution = temporal_contrast_solution(noisy.mdp, layer=2)
>>> from kinematic.counterexamples.exploration import state_groups
>>> state_groups(noisy.mdp, 2, solution.labels), solution.unique  # the noise bit merged
([['s3a|0', 's3a|1', 's3b|0', 's3b|1'], ['s3c|0', 's3c|1']], True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kinematic.counterexamples.objectives import ObjectiveSolution, roll_in, uniform_step
from kinematic.counterexamples.predictive import (
    coarsest_optimal_abstraction,
    predictive_solution,
    require_exact,
)
from kinematic.model import BlockMDP
from kinematic.policies import Policy

__all__ = [
    "action_forward_joint",
    "action_forward_objective",
    "action_forward_solution",
    "forward_modelling_joint",
    "forward_modelling_objective",
    "forward_modelling_solution",
    "temporal_contrast_joint",
    "temporal_contrast_objective",
    "temporal_contrast_solution",
]


def _reached(mdp: BlockMDP, cover: Sequence[Policy], layer: int) -> np.ndarray:
    """``mu_layer``: ``Unf(cover)`` to ``layer - 1``, then one uniform action (the start
    distribution at layer 0)."""
    require_exact(mdp)
    if not 0 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 0..{mdp.horizon - 1}, got {layer}")
    if layer == 0:
        return roll_in(mdp, cover, 0)
    return roll_in(mdp, cover, layer - 1) @ uniform_step(mdp, layer - 1)


def forward_modelling_joint(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                            ) -> np.ndarray:
    """``P(x_h, x_{h+1})`` with ``h = layer`` as a table of one context: shape ``(1, m_h,
    m_{h+1})`` (``(1, m_h, 1)`` at the last layer: nothing to predict)."""
    mu = _reached(mdp, cover, layer)
    if layer == mdp.horizon - 1:
        return mu[None, :, None]
    return (mu[:, None] * uniform_step(mdp, layer))[None]


def temporal_contrast_joint(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                            ) -> np.ndarray:
    """``P(x_h, x_{h+1}, real or fake)`` with ``h + 1 = layer`` (the abstracted layer, >= 1):
    shape ``(m_h, m_{h+1}, 2)``, target 0 real, 1 fake."""
    if not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1} (the abstracted x_{{h+1}}), "
                         f"got {layer}")
    require_exact(mdp)
    mu = roll_in(mdp, cover, layer - 1)
    real = mu[:, None] * uniform_step(mdp, layer - 1)
    fake = mu[:, None] * real.sum(axis=0)[None, :]
    half = mdp.mode.scalar(1) / 2
    return np.stack([real * half, fake * half], axis=2)


def action_forward_joint(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                         ) -> np.ndarray:
    """``P(a_h, x_h, x_{h+1})`` with ``h = layer``: shape ``(|A|, m_h, m_{h+1})`` (``(|A|, m_h,
    1)`` at the last layer)."""
    mu = _reached(mdp, cover, layer) * (mdp.mode.scalar(1) / mdp.number_of_actions)
    if layer == mdp.horizon - 1:
        return np.repeat(mu[None, :, None], mdp.number_of_actions, axis=0)
    return (mu[:, None, None] * mdp.observation_transition_tensor(layer)).transpose(1, 0, 2)


def forward_modelling_solution(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                               ) -> ObjectiveSolution:
    """Forward modelling's coarsest Bayes-optimal abstraction of ``layer`` (0-based; unique)."""
    return predictive_solution("forward_modelling", layer,
                               forward_modelling_joint(mdp, layer, cover))


def temporal_contrast_solution(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                               ) -> ObjectiveSolution:
    """Temporal contrast's coarsest Bayes-optimal abstraction of ``layer`` (0-based, >= 1;
    unique)."""
    return predictive_solution("temporal_contrast", layer,
                               temporal_contrast_joint(mdp, layer, cover))


def action_forward_solution(mdp: BlockMDP, layer: int, cover: Sequence[Policy] = ()
                            ) -> ObjectiveSolution:
    """The action-conditioned forward model's coarsest Bayes-optimal abstraction of ``layer``
    (0-based; unique)."""
    return predictive_solution("action_forward", layer, action_forward_joint(mdp, layer, cover))


def forward_modelling_objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                                previous_labels: np.ndarray) -> np.ndarray:
    """Forward modelling as an :data:`~kinematic.counterexamples.exploration.Objective`."""
    return coarsest_optimal_abstraction(forward_modelling_joint(mdp, layer, cover))[0]


def temporal_contrast_objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                                previous_labels: np.ndarray) -> np.ndarray:
    """Temporal contrast as an :data:`~kinematic.counterexamples.exploration.Objective`."""
    return coarsest_optimal_abstraction(temporal_contrast_joint(mdp, layer, cover))[0]


def action_forward_objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                             previous_labels: np.ndarray) -> np.ndarray:
    """The action-conditioned forward model as an :data:`~kinematic.counterexamples.
    exploration.Objective`."""
    return coarsest_optimal_abstraction(action_forward_joint(mdp, layer, cover))[0]
