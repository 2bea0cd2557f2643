"""HOMER (``alg:learn_homing_policy``) on rich observations, in PyTorch.

Importing the package registers ``kinematic/DiabolicalCombinationLock-v0`` with gymnasium.
The exceptions and warnings of HOMER's modules are importable from here (``from homer import
CheckpointError``); each is loaded with its module when first asked for, so that ``import
homer`` (and so ``import homer.evaluate``) imports no torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import gymnasium

if TYPE_CHECKING:
    from homer.capacity import CapacityTooSmall, SmallCapacityWarning
    from homer.psdp import PsdpFallbackWarning
    from homer.run_state import CheckpointError
    from homer.safe_files import UnsafePathError
    from homer.user_code import UserCodeError

__all__ = ["CapacityTooSmall", "CheckpointError", "PsdpFallbackWarning", "SmallCapacityWarning",
           "UnsafePathError", "UserCodeError"]

_MODULE_OF = {
    "CapacityTooSmall": "homer.capacity",
    "SmallCapacityWarning": "homer.capacity",
    "CheckpointError": "homer.run_state",
    "PsdpFallbackWarning": "homer.psdp",
    "UnsafePathError": "homer.safe_files",
    "UserCodeError": "homer.user_code",
}
"""Where each name of ``__all__`` is defined (homer.run_state imports torch)."""

if "kinematic/DiabolicalCombinationLock-v0" not in gymnasium.registry:
    gymnasium.register(
        id="kinematic/DiabolicalCombinationLock-v0",
        entry_point="homer.envs:lock_environment",
    )


def __getattr__(name: str) -> object:
    """A name of ``__all__``, imported from its module on first use (PEP 562)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'homer' has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULE_OF[name]), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
