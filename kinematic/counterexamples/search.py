"""Automatic search for counterexamples (beyond the paper's Section 5).

Given an abstraction objective, :func:`find_counterexample` searches Hypothesis-generated Block
MDPs for one where HOMER's loop with that objective (Bayes-optimal abstraction learned from
exact data, exact PSDP, ties broken against a state) yields a policy cover with alpha below a
threshold on some layer, while the backward KI abstraction yields alpha = 1; Hypothesis then
shrinks it to a minimal instance, returned as a spec.

With ``non_trivial`` a failure counts only if the objective *learned something* up to the layer
where alpha drops: its abstraction keeps at least two classes of the observations the data show
there, and on that layer and every learned layer before it some posterior of its prediction
target is not uniform. Without it the
finder's smallest failures are degenerate: merging a whole layer when nothing is predictable
(every abstraction is then Bayes-optimal, so the failure says nothing about the objective).
With ``robust`` the failure must also not hinge on tie-breaking: alpha stays below the
threshold when every PSDP tie is broken in the state's favour (a learner breaks ties by noise,
so only such a failure is predicted for it). The instances found with both ship in
``kinematic/counterexamples/found/`` with the search that found them
(:func:`stored_instances`). The search is seeded (:data:`SEARCH_SEED`) since 2026-11-23; the
stored inverse-dynamics instance came from the earlier ``derandomize`` search, and the same
command now finds another instance of the same size (6 states, 3 layers, alpha 0 on layer 3).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from random import Random

import numpy as np
from hypothesis import HealthCheck, Phase, settings
from hypothesis import find as hypothesis_find
from hypothesis.errors import NoSuchExample

from kinematic.counterexamples.curiosity import inverse_dynamics_objective
from kinematic.counterexamples.exploration import (
    ExplorationResult,
    Objective,
    explore_with_objective,
    worst_case_cover_alpha,
)
from kinematic.counterexamples.objectives import (
    inverse_dynamics_posteriors,
    pcid_posteriors,
    transition_distribution,
)
from kinematic.counterexamples.pcid import pcid_target_objective
from kinematic.errors import InvalidBlockMDP
from kinematic.inseparability import backward_ki_partition
from kinematic.json_input import read_json_file
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps

__all__ = ["FOUND", "OBJECTIVES", "SEARCH_SEED", "Found", "find_counterexample",
           "is_counterexample", "is_non_trivial", "stored_instances"]

SEARCH_SEED = 0
"""The search's seed: the same arguments find the same instance (``derandomize`` would seed
from the source of the search's condition, so an edit to it would change what is found)."""

FOUND = Path(__file__).parent / "found"
"""The stored finder instances, ``<objective>.json`` (:meth:`Found.as_json` records)."""

OBJECTIVES: dict[str, Objective] = {
    "inverse_dynamics": inverse_dynamics_objective,
    "pcid_target": pcid_target_objective,
}
"""Named objectives; any callable ``(mdp, cover, layer, previous_labels) -> labels`` works too."""

POSTERIORS: dict[str, Callable[[np.ndarray, np.ndarray], dict]] = {
    "inverse_dynamics": lambda joint, previous_labels: inverse_dynamics_posteriors(joint),
    "pcid_target": pcid_posteriors,
}
"""The prediction target's posteriors of each named objective from ``(joint, previous
labels)`` (:mod:`kinematic.counterexamples.objectives`)."""


@dataclass(frozen=True)
class Found:
    """A counterexample: its spec, the alpha per layer of both abstractions, its size, and how
    long the search took."""

    spec: dict
    worst_case_alpha: list[str]
    backward_ki_alpha: list[str]
    states: int
    layers: int
    seconds: float
    objective: str = ""
    non_trivial: bool = False
    robust: bool = False
    max_examples: int = 0

    def as_json(self) -> dict:
        return {
            "objective": self.objective, "non_trivial": self.non_trivial,
            "robust": self.robust,
            "max_examples": self.max_examples, "seconds": round(self.seconds, 2),
            "states": self.states, "layers": self.layers,
            "worst_case_alpha": self.worst_case_alpha,
            "backward_ki_alpha": self.backward_ki_alpha, "spec": self.spec,
        }


def _explore(mdp: BlockMDP, objective: Objective) -> tuple[ExplorationResult, tuple]:
    learned = explore_with_objective(mdp, objective)
    kinematic, _ = worst_case_cover_alpha(
        mdp, observation_labels(mdp, backward_ki_partition(mdp).labels))
    return learned, kinematic


def is_non_trivial(mdp: BlockMDP, name: str, learned: ExplorationResult,
                   threshold: Fraction) -> bool:
    """Whether the objective ``name`` learned something up to a layer where the worst-case
    alpha is below ``threshold``: on that layer at least two classes among the observations
    its data reach, and on it and every learned layer before it a posterior of its target that
    is not uniform (where all are uniform every abstraction is Bayes-optimal, so what the
    failure builds on is arbitrary; module docstring)."""
    for h in range(1, mdp.horizon):
        joint = transition_distribution(mdp, learned.covers[h - 1], h)
        posteriors = POSTERIORS[name](joint, learned.labels[h - 1]).values()
        if not any(len(set(p)) > 1 for p in posteriors):
            return False
        reached = joint.sum(axis=(0, 1)) > 0
        if (learned.worst_case_alpha[h] < threshold
                and len(np.unique(learned.labels[h][reached])) >= 2):
            return True
    return False


def is_counterexample(mdp: BlockMDP, objective: str | Objective, threshold: Fraction,
                      non_trivial: bool = False, robust: bool = False) -> bool:
    """Whether the objective's cover has alpha < ``threshold`` on some layer while the backward
    KI cover has alpha = 1 on every layer (and, with ``non_trivial``, the failure is not a
    degenerate one: :func:`is_non_trivial`, named objectives only; with ``robust``, alpha stays
    below ``threshold`` with ties broken in every state's favour)."""
    learned, kinematic = _explore(mdp, _objective(objective, non_trivial))
    if not (min(learned.worst_case_alpha) < threshold and all(a == 1 for a in kinematic)):
        return False
    if robust and min(worst_case_cover_alpha(mdp, learned.labels, most=True)[0]) >= threshold:
        return False
    return not non_trivial or is_non_trivial(mdp, str(objective), learned, threshold)


def _objective(objective: str | Objective, non_trivial: bool) -> Objective:
    if isinstance(objective, str):
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}: choose from {sorted(OBJECTIVES)}")
        return OBJECTIVES[objective]
    if non_trivial:
        raise ValueError("non_trivial needs a named objective (its posteriors are known)")
    return objective


def find_counterexample(
    objective: str | Objective,
    threshold: Fraction | float | str = Fraction(1, 2),
    max_examples: int = 3000,
    max_horizon: int = 3,
    max_width: int = 4,
    max_actions: int = 2,
    non_trivial: bool = False,
    robust: bool = False,
) -> Found | None:
    """Search generated exact Block MDPs (one observation per state, no rewards) for a minimal
    counterexample (``non_trivial``, ``robust``: see the module docstring); None if none is
    found within ``max_examples``."""
    chosen = _objective(objective, non_trivial)
    bound = Fraction(threshold)
    strategy = block_mdps(min_horizon=2, max_horizon=max_horizon, max_width=max_width,
                          max_actions=max_actions, max_observations=1, max_splits=0,
                          rewards=False)
    start = time.perf_counter()
    try:
        mdp = hypothesis_find(
            strategy,
            lambda candidate: is_counterexample(candidate, objective, bound, non_trivial,
                                                robust),
            settings=settings(max_examples=max_examples, database=None, deadline=None,
                              phases=[Phase.generate, Phase.shrink],
                              suppress_health_check=list(HealthCheck)),
            random=Random(SEARCH_SEED),
        )
    except NoSuchExample:
        return None
    learned, kinematic = _explore(mdp, chosen)
    return Found(
        spec=to_spec(mdp),
        worst_case_alpha=[str(a) for a in learned.worst_case_alpha],
        backward_ki_alpha=[str(a) for a in kinematic],
        states=len(mdp.states),
        layers=mdp.horizon,
        seconds=time.perf_counter() - start,
        objective=objective if isinstance(objective, str) else getattr(objective, "__name__", ""),
        non_trivial=non_trivial,
        robust=robust,
        max_examples=max_examples,
    )


def stored_instances() -> dict[str, tuple[dict, BlockMDP]]:
    """The stored finder instances: ``{objective: (record, mdp)}`` (records as written by
    ``python -m kinematic find-counterexample --non-trivial --robust --record``)."""
    result = {}
    for path in sorted(FOUND.glob("*.json")):
        record = read_json_file(path)
        if not isinstance(record, dict) or "spec" not in record:
            raise ValueError(f"{path}: not a finder record (no 'spec' entry)")
        try:
            result[path.stem] = (record, from_spec(record["spec"]))
        except InvalidBlockMDP as error:
            raise InvalidBlockMDP(f"{path}: 'spec': {error}") from None
    return result
