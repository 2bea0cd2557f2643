"""Bisimulation (Section 5): the trivial abstraction, one class per layer, is a reward-free
bisimulation (same dynamics over abstract states), and the cover built from it misses a state.
Shown on :func:`kinematic.counterexamples.mdps.curiosity_counterexample`."""

from __future__ import annotations

import numpy as np

from kinematic.counterexamples import Counterexample
from kinematic.counterexamples.exploration import worst_case_cover_alpha
from kinematic.counterexamples.mdps import curiosity_counterexample
from kinematic.cover import policy_cover_alpha
from kinematic.model import BlockMDP
from kinematic.planning import exp_oracle_exact

__all__ = ["bisimulation_claim", "is_reward_free_bisimulation"]


def is_reward_free_bisimulation(mdp: BlockMDP, labels: list[np.ndarray]) -> bool:
    """Observations of one class have, for every action, the same probability of moving into
    each class of the next layer: ``T(phi(x') = c | x1, a) = T(phi(x') = c | x2, a)``."""
    for h in range(mdp.horizon - 1):
        tensor = mdp.observation_transition_tensor(h)
        following = labels[h + 1]
        into = np.stack([tensor[:, :, following == c].sum(axis=2)
                         for c in np.unique(following)], axis=-1)  # (m, |A|, classes)
        for c in np.unique(labels[h]):
            members = into[labels[h] == c]
            if not (members == members[0]).all():
                return False
    return True


def bisimulation_claim() -> Counterexample:
    mdp = curiosity_counterexample()
    trivial = [np.zeros(len(x), dtype=np.intp) for x in mdp.observations]
    covers = exp_oracle_exact(mdp, trivial)
    reports = [policy_cover_alpha(mdp, cover) for cover in covers[1:]]
    alphas = [report.alpha_per_layer[h] for h, report in enumerate(reports, start=1)]
    missed = [state for h, report in enumerate(reports, start=1) for state in mdp.layers[h]
              if report.best_visitation[state] == 0]
    worst, _ = worst_case_cover_alpha(mdp, trivial)
    bisimulation = is_reward_free_bisimulation(mdp, trivial)
    return Counterexample(
        "bisimulation",
        "the one-class abstraction is a reward-free bisimulation, and the cover built from it "
        "(exact PSDP, first-action ties) misses a state",
        bool(bisimulation and missed and min(worst) == 0),
        {
            "one class per layer is a reward-free bisimulation": bisimulation,
            "alpha per layer of the cover": [str(a) for a in alphas],
            "states never visited by the cover": missed,
            "worst-case alpha per layer": [str(a) for a in worst],
        },
    )
