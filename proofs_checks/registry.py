"""The registry of claims and the runner behind ``python -m proofs_checks``.

Instances come from Hypothesis strategies, driven by :func:`hypothesis.given` with a seed fixed by
the claim's label (:func:`claim_seed`) and no example database, so a run is reproducible, and a
claim's instances change only with its label and its strategy (not with edits to this module:
``derandomize`` would seed from the source of the runner). The first violation stops the
search; Hypothesis then shrinks it, so the reported witness is a small instance.
"""

from __future__ import annotations

import contextlib
import importlib
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from kinematic.errors import short_repr

__all__ = ["Claim", "ClaimReport", "Outcome", "all_claims", "claim_seed", "register", "run_claim",
           "search"]


@dataclass(frozen=True)
class Outcome:
    """The result of checking one instance: whether the claim holds, and a JSON-ready witness
    (the instance as a spec, the policies, the two sides of the identity, ...)."""

    holds: bool
    witness: dict[str, Any] = field(default_factory=dict)
    crashed: bool = False
    """The check raised instead of deciding (:func:`_checked`)."""


@dataclass(frozen=True)
class Claim:
    """One statement of the paper as a check.

    Attributes
    ----------
    label : str
        Its label in the reference source (``lem:bki-ratio``), or, for a result beyond the
        paper, a label of ours with a topic prefix (``exo:ki-product``;
        :data:`proofs_checks.reference_labels.BEYOND_THE_PAPER`).
    statement : str
        One line.
    instances : callable
        Returns the Hypothesis strategy of instances the claim is checked on.
    check : callable
        ``check(instance) -> Outcome``.
    negative_control : str
        What the negative control changes: one hypothesis of the claim broken, or a deliberately
        wrong computation carried by the instance.
    negative_instances : callable
        Returns the strategy of such instances. The control runs the claim's own ``check`` on
        them, never another function, and is *caught* when ``check`` reports a violation. So a
        ``check`` that always holds makes every control report "missed"
        (``tests/proofs_checks/test_registry.py`` asserts it for every claim).
    cost : float
        Share of ``--examples`` this claim runs (sampling-heavy claims run fewer instances).
    """

    label: str
    statement: str
    instances: Callable[[], st.SearchStrategy]
    check: Callable[[Any], Outcome]
    negative_control: str
    negative_instances: Callable[[], st.SearchStrategy]
    cost: float = 1.0


@dataclass(frozen=True)
class ClaimReport:
    """What running one claim found."""

    label: str
    statement: str
    instances: int
    violations: int
    witness: dict[str, Any] | None
    negative_control: str
    negative_control_caught: bool
    negative_witness: dict[str, Any] | None
    seconds: float
    observed_failure_rate: float | None = None
    """For claims about repeated sampled trials: the mean failure rate over the instances."""
    status: str = "checked"
    """``"checked"``, or, on one given MDP (:mod:`proofs_checks.given_mdp`), why the claim did not
    run: ``"not applicable"`` (the MDP breaks a hypothesis of the claim), ``"skipped"`` (the
    claim needs generated families) or ``"refused"`` (too large for its exact computation)."""
    reason: str | None = None
    """Why the claim did not run (``status`` other than ``"checked"``)."""
    control_not_applicable: str | None = None
    """On one given MDP: why the negative control could not be made to fail on it. Such a
    control is neither caught nor missed."""

    @property
    def failed(self) -> bool:
        """A violation, or a negative control that applied and was missed."""
        missed = not self.negative_control_caught and self.control_not_applicable is None
        return self.status == "checked" and (self.violations > 0 or missed)

    @property
    def control_verdict(self) -> str:
        """``"caught"``, ``"MISSED"``, or ``"not applicable"`` (with ``control_not_applicable``;
        also for a claim that did not run)."""
        if self.negative_control_caught:
            return "caught"
        return "MISSED" if self.control_not_applicable is None else "not applicable"

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "status": self.status,
            "reason": self.reason,
            "statement": self.statement,
            "instances": self.instances,
            "violations": self.violations,
            "witness": self.witness,
            "negative_control": self.negative_control,
            "negative_control_caught": self.negative_control_caught,
            "negative_witness": self.negative_witness,
            "seconds": round(self.seconds, 3),
            "observed_failure_rate": self.observed_failure_rate,
            "control_not_applicable": self.control_not_applicable,
        }


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (labels are unique)."""
    if claim.label in _REGISTRY:
        raise ValueError(f"claim {claim.label!r} is registered twice")
    _REGISTRY[claim.label] = claim
    return claim


SECTIONS = (
    "definitions", "planning", "preliminaries", "inseparability", "homer_analysis",
    "homer_guarantees", "supporting", "exogenous",
)
"""The modules holding the claims, each registering on import, in the order of
docs/claims.md: the paper's, with the planning claims right after the definitions, then the
results beyond the paper."""


def all_claims() -> list[Claim]:
    """Every registered claim, section by section (:data:`SECTIONS`), in the order of
    registration within a section, whichever module was imported first."""
    order = {}
    for position, section in enumerate(SECTIONS):
        order[importlib.import_module(f"proofs_checks.{section}").__name__] = position
    return sorted(_REGISTRY.values(), key=lambda claim: order.get(claim.check.__module__,
                                                                  len(order)))


class _Violation(Exception):
    pass


MIN_NEGATIVE_EXAMPLES = 40
"""A negative control searches at least this many instances (times the claim's cost), however
small ``--examples`` is: it must find its violation to count as caught."""

SHRINK_BUDGET = 100
"""How many candidate instances are checked while shrinking a violation."""


def claim_seed(label: str) -> int:
    """The seed of a claim's (or, with ``label + "/negative"``, its control's) instances."""
    return zlib.crc32(label.encode())


def _checked(check: Callable[[Any], Outcome], instance: Any) -> Outcome:
    """``check(instance)``; an exception is a violation whose witness names it (``exception``) and
    the instance, so one crashing check is reported with the others instead of ending the run.
    """
    try:
        return check(instance)
    except Exception as error:  # any crash of the code checked is reported
        return Outcome(False, {"exception": f"{type(error).__name__}: {error}",
                               "instance": short_repr(instance, 2000)}, crashed=True)


def search(
    strategy: st.SearchStrategy, check: Callable[[Any], Outcome], examples: int,
    shrink_budget: int, instance_seed: int,
) -> tuple[int, Outcome | None, list[float]]:
    """Check up to ``examples`` instances drawn with ``instance_seed``; return how many were
    tried before the first violation (or all), the violation shrunk with at most
    ``shrink_budget`` checks if any, and the ``failure_rate`` reported by the instances that
    passed (claims about repeated sampled trials report one)."""
    tried = 0
    shrink_checks = 0
    failure: Outcome | None = None
    rates: list[float] = []
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink_budget else [])

    @settings(
        max_examples=max(1, examples),
        database=None,
        deadline=None,
        verbosity=Verbosity.quiet,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @seed(instance_seed)
    @given(strategy)
    def run(instance: Any) -> None:
        nonlocal tried, failure, shrink_checks
        if failure is None:  # count until the first violation, not the shrinking replays
            tried += 1
        else:
            shrink_checks += 1
        # Past the budget every input "fails" unchecked (the smallest witness checked so far is
        # kept), which lets Hypothesis finish shrinking at once. One raise statement: Hypothesis
        # tells failures apart by where they are raised, and this is one failure.
        if failure is None or shrink_checks <= shrink_budget:
            outcome = _checked(check, instance)
            if outcome.holds:
                if failure is None and "failure_rate" in outcome.witness:
                    rates.append(outcome.witness["failure_rate"])
                return
            failure = outcome
        raise _Violation

    with contextlib.suppress(_Violation):
        run()
    return tried, failure, rates


def run_claim(claim: Claim, examples: int, shrink_budget: int = SHRINK_BUDGET) -> ClaimReport:
    """Check ``claim`` on ``examples * claim.cost`` instances and run its negative control;
    each violation found is shrunk with at most ``shrink_budget`` further checks (0: the first
    violation found is the witness)."""
    if shrink_budget < 0:
        raise ValueError(f"shrink_budget must be >= 0, got {shrink_budget}")
    start = time.perf_counter()
    budget = max(1, round(examples * claim.cost))
    tried, failure, rates = search(claim.instances(), claim.check, budget, shrink_budget,
                                    claim_seed(claim.label))
    negative_budget = max(1, round(max(examples, MIN_NEGATIVE_EXAMPLES) * claim.cost))
    _, negative, _ = search(claim.negative_instances(), claim.check, negative_budget,
                             shrink_budget, claim_seed(claim.label + "/negative"))
    return ClaimReport(
        label=claim.label,
        statement=claim.statement,
        instances=tried,
        violations=int(failure is not None),
        witness=failure.witness if failure else None,
        negative_control=claim.negative_control,
        negative_control_caught=negative is not None and not negative.crashed,
        negative_witness=negative.witness if negative else None,
        seconds=time.perf_counter() - start,
        observed_failure_rate=sum(rates) / len(rates) if rates else None,
    )
