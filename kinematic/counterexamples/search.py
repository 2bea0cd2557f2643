"""Automatic search for counterexamples (beyond the paper's Section 5).

Given an abstraction objective, :func:`find_counterexample` searches Hypothesis-generated Block
MDPs for one where HOMER's loop with that objective (Bayes-optimal abstraction learned from
exact data, exact PSDP, ties broken against a state) yields a policy cover with alpha below a
threshold on some layer, while the backward KI abstraction yields alpha = 1; Hypothesis then
shrinks it to a minimal instance, returned as a spec.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import HealthCheck, Phase, settings
from hypothesis import find as hypothesis_find
from hypothesis.errors import NoSuchExample

from kinematic.counterexamples.curiosity import inverse_dynamics_objective
from kinematic.counterexamples.exploration import (
    Objective,
    explore_with_objective,
    worst_case_cover_alpha,
)
from kinematic.counterexamples.pcid import pcid_target_objective
from kinematic.inseparability import backward_ki_partition
from kinematic.model import BlockMDP
from kinematic.planning import observation_labels
from kinematic.spec import to_spec
from kinematic.strategies import block_mdps

__all__ = ["OBJECTIVES", "Found", "find_counterexample", "is_counterexample"]

OBJECTIVES: dict[str, Objective] = {
    "inverse_dynamics": inverse_dynamics_objective,
    "pcid_target": pcid_target_objective,
}
"""Named objectives; any callable ``(mdp, cover, layer, previous_labels) -> labels`` works too."""


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

    def as_json(self) -> dict:
        return {
            "spec": self.spec, "worst_case_alpha": self.worst_case_alpha,
            "backward_ki_alpha": self.backward_ki_alpha, "states": self.states,
            "layers": self.layers, "seconds": round(self.seconds, 2),
        }


def _alphas(mdp: BlockMDP, objective: Objective) -> tuple[tuple, tuple]:
    learned = explore_with_objective(mdp, objective).worst_case_alpha
    kinematic, _ = worst_case_cover_alpha(
        mdp, observation_labels(mdp, backward_ki_partition(mdp).labels))
    return learned, kinematic


def is_counterexample(mdp: BlockMDP, objective: Objective, threshold: Fraction) -> bool:
    """Whether the objective's cover has alpha < ``threshold`` on some layer while the backward
    KI cover has alpha = 1 on every layer."""
    learned, kinematic = _alphas(mdp, objective)
    return min(learned) < threshold and all(a == 1 for a in kinematic)


def find_counterexample(
    objective: str | Objective,
    threshold: object = Fraction(1, 2),
    max_examples: int = 3000,
    max_horizon: int = 3,
    max_width: int = 4,
    max_actions: int = 2,
) -> Found | None:
    """Search generated exact Block MDPs (one observation per state, no rewards) for a minimal
    counterexample; None if none is found within ``max_examples``."""
    chosen: Callable = OBJECTIVES[objective] if isinstance(objective, str) else objective
    bound = Fraction(threshold)
    strategy = block_mdps(min_horizon=2, max_horizon=max_horizon, max_width=max_width,
                          max_actions=max_actions, max_observations=1, max_splits=0,
                          rewards=False)
    start = time.perf_counter()
    try:
        mdp = hypothesis_find(
            strategy,
            lambda candidate: is_counterexample(candidate, chosen, bound),
            settings=settings(max_examples=max_examples, database=None, derandomize=True,
                              deadline=None, phases=[Phase.generate, Phase.shrink],
                              suppress_health_check=list(HealthCheck)),
        )
    except NoSuchExample:
        return None
    learned, kinematic = _alphas(mdp, chosen)
    return Found(
        spec=to_spec(mdp),
        worst_case_alpha=[str(a) for a in learned],
        backward_ki_alpha=[str(a) for a in kinematic],
        states=len(mdp.states),
        layers=mdp.horizon,
        seconds=time.perf_counter() - start,
    )

