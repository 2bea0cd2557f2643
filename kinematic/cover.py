"""Quality of a policy cover (paper, Section 2, ``def:policy-cover``).

A finite set ``Psi`` of policies is an alpha-policy cover if ``max_{pi in Psi} P_pi(s) >=
alpha eta(s)`` for every state. :func:`policy_cover_alpha` reports the largest such alpha, per
state, per layer and overall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kinematic.display import PrintsAsRepr, cover_report_repr
from kinematic.homing import eta
from kinematic.model import BlockMDP
from kinematic.numbers import Number
from kinematic.policies import Policy
from kinematic.visitation import state_visitation

__all__ = ["CoverReport", "is_policy_cover", "policy_cover_alpha"]


@dataclass(frozen=True)
class CoverReport(PrintsAsRepr):
    """Result of :func:`policy_cover_alpha`.

    Attributes
    ----------
    best_visitation : dict
        State -> ``max_{pi in Psi} P_pi(s)``.
    alpha_per_state : dict
        State -> ``max_{pi in Psi} P_pi(s) / eta(s)``.
    alpha_per_layer : tuple
        Minimum of ``alpha_per_state`` over each layer.
    alpha : Number
        Minimum over all states: ``Psi`` is an ``alpha``-policy cover and no better.
    """

    best_visitation: dict[str, Number]
    alpha_per_state: dict[str, Number]
    alpha_per_layer: tuple[Number, ...]
    alpha: Number

    def __repr__(self) -> str:
        """alpha, per layer, and the states below 1 by name, lowest first."""
        return cover_report_repr(self)


def policy_cover_alpha(
    mdp: BlockMDP,
    policies: Sequence[Policy],
    eta_per_layer: tuple[np.ndarray, ...] | None = None,
) -> CoverReport:
    """The cover quality of ``policies`` (``def:policy-cover``), exactly in exact mode.

    ``eta_per_layer`` may pass :func:`kinematic.homing.eta` if already computed.
    """
    if not policies:
        raise ValueError("a policy cover needs at least one policy")
    eta_per_layer = eta(mdp) if eta_per_layer is None else eta_per_layer
    visitations = [state_visitation(mdp, policy) for policy in policies]
    best: dict[str, Number] = {}
    alpha_state: dict[str, Number] = {}
    alpha_layer: list[Number] = []
    for h, layer in enumerate(mdp.layers):
        layer_best = np.max(np.stack([v[h] for v in visitations]), axis=0)
        ratios = layer_best / eta_per_layer[h]
        best.update(zip(layer, layer_best, strict=True))
        alpha_state.update(zip(layer, ratios, strict=True))
        alpha_layer.append(min(ratios))
    return CoverReport(best, alpha_state, tuple(alpha_layer), min(alpha_layer))


def is_policy_cover(mdp: BlockMDP, policies: Sequence[Policy], alpha: Number) -> bool:
    """Whether ``policies`` is an ``alpha``-policy cover (``def:policy-cover``)."""
    report = policy_cover_alpha(mdp, policies)
    return report.alpha >= alpha or mdp.mode.equal(report.alpha, alpha)
