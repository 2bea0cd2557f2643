"""The exact value of a baseline's policy, and its learning curve.

A policy on encodings is turned into a latent observation policy by averaging its action
probabilities over fresh encodings of every latent observation
(:class:`homer.policy_evaluation.LatentPolicies`); its value then follows exactly by
dynamic programming over the latent states. The paper's metric (Figure ``fig:horizon-plot``) is
the number of episodes after which the value first reaches half the optimal value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from homer.encoded import EncodedObservations
from homer.encoders import HadamardNoise
from homer.policy_evaluation import LatentPolicies
from kinematic.model import BlockMDP
from kinematic.planning import optimal_values
from kinematic.policies import Policy
from kinematic.visitation import policy_value, state_visitation

__all__ = ["BaselineResult", "ValueEvaluator"]

Probabilities = Callable[[int, np.ndarray], np.ndarray]
"""``(step, encodings (n, d)) -> action probabilities (n, |A|)``."""


@dataclass
class BaselineResult:
    """What a baseline run reports (``summary()`` is its JSON)."""

    algorithm: str
    value: float
    optimal_value: float
    episodes: int
    episodes_to_half: int | None
    """First evaluated episode count with value >= optimal / 2 (None: never, within budget)."""
    seconds: float
    curve: list[tuple[int, float]] = field(default_factory=list)
    """(episodes, exact value) at each evaluation."""
    visitation: dict[str, float] = field(default_factory=dict)
    """Exact ``P_pi(s)`` of every latent state under the final policy."""
    state_visits: dict[str, int] | None = None
    """Visits of every latent state during training (the batched baselines only: their
    environment counts them, for the traces figure ``fig:traces``)."""
    training_returns: list[tuple[int, float]] | None = None
    """(episodes, mean extrinsic return of the episodes of an update), thinned to at most about
    2000 points by averaging neighbouring updates (the batched baselines only)."""
    abstraction_errors: list[int] | None = None
    """Time steps (1-based) where a learned abstraction merges kinematically separable states
    (PCID only; HOMER's are in ``homer compare``)."""

    def summary(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "value": self.value,
                "optimal_value": self.optimal_value, "episodes": self.episodes,
                "episodes_to_half": self.episodes_to_half, "seconds": round(self.seconds, 2),
                "curve": self.curve, "visitation": self.visitation,
                "state_visits": self.state_visits, "training_returns": self.training_returns,
                "abstraction_errors": self.abstraction_errors}


class ValueEvaluator:
    """Exact values of policies on encodings of ``mdp`` (``samples`` encodings per latent
    observation, fixed once, so successive evaluations are comparable)."""

    def __init__(self, mdp: BlockMDP, encoder: HadamardNoise, samples: int = 200,
                 seed: int = 0):
        self.encoded = EncodedObservations(mdp, encoder, samples, seed)
        self.latent = LatentPolicies(self.encoded)
        self.optimal_value = float(optimal_values(self.latent.floats).value)
        self.curve: list[tuple[int, float]] = []

    def _policy(self, probabilities: Probabilities) -> Policy:
        """The latent policy of ``probabilities`` now (a policy still learning: not kept)."""
        policy, _ = self.latent.latent(lambda vectors, step: probabilities(step - 1, vectors),
                                       "the policy", remember=False)
        return policy

    def value(self, probabilities: Probabilities) -> float:
        return float(policy_value(self.latent.floats, self._policy(probabilities)))

    def visitation(self, probabilities: Probabilities) -> dict[str, float]:
        """Exact ``P_pi(s)`` of every latent state."""
        floats = self.latent.floats
        return {state: float(p) for layer, values in
                zip(floats.layers, state_visitation(floats, self._policy(probabilities)),
                    strict=True)
                for state, p in zip(layer, values, strict=True)}

    def record(self, episodes: int, probabilities: Probabilities) -> float:
        value = self.value(probabilities)
        self.curve.append((episodes, value))
        return value

    def episodes_to_half(self) -> int | None:
        return next((e for e, v in self.curve if v >= self.optimal_value / 2), None)
