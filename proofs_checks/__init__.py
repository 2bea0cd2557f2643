"""Every lemma, fact and theorem of the reference paper as an executable check.

Each claim (:class:`proofs_checks.registry.Claim`) has the label it carries in the reference
source, a one-line statement, a check returning an :class:`~proofs_checks.registry.Outcome` with
a JSON witness, a Hypothesis strategy of instances, and a negative control (a mutated instance or
a weakened hypothesis) on which the check must report a violation. ``python -m proofs_checks``
runs them all; :func:`proofs_checks.registry.all_claims` lists them.

:func:`check` runs every claim that applies to one given Block MDP on it (``python -m
proofs_checks --spec FILE``; :mod:`proofs_checks.given_mdp`). It is loaded with the claims
when first asked for, so that ``python -m proofs_checks --help`` answers without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proofs_checks.given_mdp import check

__all__ = ["check"]


def __getattr__(name: str) -> Any:
    """``check``, imported from :mod:`proofs_checks.given_mdp` on first use (PEP 562)."""
    if name != "check":
        raise AttributeError(f"module 'proofs_checks' has no attribute {name!r}")
    from proofs_checks.given_mdp import check

    return check


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
