"""Quality of a policy cover (paper, Section 2, ``def:policy-cover``).

A finite set ``Psi`` of policies is an alpha-policy cover if ``max_{pi in Psi} P_pi(s) >=
alpha eta(s)`` for every state. :func:`policy_cover_alpha` reports the largest such alpha, per
state, per layer and overall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    policies: Iterable[Policy] | Mapping[object, Policy],
    eta_per_layer: tuple[np.ndarray, ...] | None = None,
) -> CoverReport:
    """The cover quality of ``policies`` (``def:policy-cover``), exactly in exact mode.

    ``policies`` is a non-empty list (or other iterable) of :class:`Policy`, or a dict whose
    values are (such as :func:`kinematic.homing.homing_policies` returns); anything else is
    refused, naming the entry at fault. ``eta_per_layer`` may pass
    :func:`kinematic.homing.eta` if already computed.

    >>> from kinematic.families import combination_lock
    >>> from kinematic.homing import homing_policies
    >>> lock = combination_lock(3, 2, seed=0)
    >>> policy_cover_alpha(lock, homing_policies(lock)).alpha
    Fraction(1, 1)
    >>> report = policy_cover_alpha(lock, [homing_policies(lock)["s3c"]])
    >>> report.alpha, report.alpha_per_state["s3c"]
    (Fraction(0, 1), Fraction(1, 1))
    """
    policies = _policy_list(policies)
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


def _policy_list(policies: object) -> list[Policy]:
    """``policies`` (an iterable, or a mapping's values) as a non-empty list of
    :class:`Policy`; an entry that is not one is named by its index or key."""
    if isinstance(policies, Mapping):
        entries = [(repr(key), policy) for key, policy in policies.items()]
    elif isinstance(policies, Iterable):
        entries = [(str(k), policy) for k, policy in enumerate(policies)]
    else:
        raise TypeError(
            "policies must be Policy objects in a list (or another iterable, or a dict's "
            f"values), e.g. [policy] or homing_policies(mdp), got {type(policies).__name__}")
    if not entries:
        raise ValueError("a policy cover needs at least one policy")
    for where, policy in entries:
        if not isinstance(policy, Policy):
            raise TypeError(f"policies[{where}] must be a Policy, got {type(policy).__name__}")
    return [policy for _, policy in entries]


def is_policy_cover(mdp: BlockMDP, policies: Iterable[Policy] | Mapping[object, Policy],
                    alpha: Number) -> bool:
    """Whether ``policies`` is an ``alpha``-policy cover (``def:policy-cover``)."""
    report = policy_cover_alpha(mdp, policies)
    return report.alpha >= alpha or mdp.mode.equal(report.alpha, alpha)
