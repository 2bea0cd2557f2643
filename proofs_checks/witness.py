"""JSON witnesses: instances as specs, policies and numbers as ``"p/q"`` strings."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from kinematic.model import BlockMDP
from kinematic.policies import Policy
from kinematic.spec import to_spec

__all__ = ["number", "policy_json", "spec"]


def number(value: Any) -> Any:
    """``"p/q"`` for exact numbers, floats and ints as they are, recursively for containers."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): number(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [number(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def spec(mdp: BlockMDP) -> dict[str, Any]:
    """The instance as a JSON spec (``kinematic.spec.to_spec``)."""
    return to_spec(mdp)


def policy_json(mdp: BlockMDP, policy: Policy) -> dict[str, dict[str, str]]:
    """``{observation: {action: probability}}`` over all layers (zero entries left out)."""
    result = {}
    for h, table in enumerate(policy.action_probabilities):
        for x, row in enumerate(table):
            result[mdp.observations[h][x]] = {
                action: number(p) for action, p in zip(mdp.actions, row, strict=True) if p != 0
            }
    return result
