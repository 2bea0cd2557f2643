"""Every lemma, fact and theorem of the reference paper as an executable check.

Each claim (:class:`proofs_checks.registry.Claim`) has the label it carries in the reference
source, a one-line statement, a check returning an :class:`~proofs_checks.registry.Outcome` with
a JSON witness, a Hypothesis strategy of instances, and a negative control (a mutated instance or
a weakened hypothesis) on which the check must report a violation. ``python -m proofs_checks``
runs them all; :func:`proofs_checks.registry.all_claims` lists them.

:func:`check` runs every claim that applies to one given Block MDP on it (``python -m
proofs_checks --spec FILE``; :mod:`proofs_checks.given_mdp`).
"""

from proofs_checks.given_mdp import check

__all__ = ["check"]
