"""Every abstraction objective this package solves exactly, by name: Section 5's and the ones
proposed after HOMER, each with its citation and its solution on one layer
(:class:`~kinematic.counterexamples.objectives.ObjectiveSolution`).

A solution's data are the objective's own convention: the uniform random policy to the layer
(AC-State's and ACDF's data; :mod:`kinematic.counterexamples.predictive`), except PPE, whose
data are its candidate paths (:mod:`kinematic.counterexamples.ppe`), and PCID, whose target
holds the previous layer's abstraction (here PCID's own solution there, one class on layer 1).
Each objective also has an :data:`~kinematic.counterexamples.exploration.Objective` form for
HOMER's loop, in its module.

>>> from kinematic.counterexamples.mdps import curiosity_counterexample
>>> mdp = curiosity_counterexample()
>>> [(name, solve(mdp, 2).labels.tolist()) for name, solve in
...  [("inverse_dynamics", OBJECTIVES["inverse_dynamics"].solve),
...   ("multistep_inverse", OBJECTIVES["multistep_inverse"].solve)]]
[('inverse_dynamics', [0, 0, 1]), ('multistep_inverse', [0, 1, 2])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice

import numpy as np

from kinematic.counterexamples.acdf_layered import ac_state_solution, acdf_solution
from kinematic.counterexamples.forward_models import (
    action_forward_solution,
    forward_modelling_solution,
    temporal_contrast_solution,
)
from kinematic.counterexamples.multistep_inverse import multistep_inverse_solution
from kinematic.counterexamples.objectives import (
    ObjectiveSolution,
    pcid_target_abstraction,
    transition_distribution,
)
from kinematic.counterexamples.pcid import pcid_target_loss
from kinematic.counterexamples.ppe import ppe_solution
from kinematic.counterexamples.predictive import require_exact
from kinematic.model import BlockMDP

__all__ = ["LAYERED_GAPS", "OBJECTIVES", "CatalogueEntry", "layered_layers", "layered_solution",
           "pcid_layers", "pcid_solution"]

LAYERED_GAPS = 2
"""The largest gap ``K`` of AC-State's and ACDF's multi-step terms in the catalogue."""


@dataclass(frozen=True)
class CatalogueEntry:
    """One objective: its ``name``, a ``title`` in words, the work that proposed it
    (``citation``) and its ``solver(mdp, layer) -> ObjectiveSolution``; call :meth:`solve`."""

    name: str
    title: str
    citation: str
    solver: Callable[[BlockMDP, int], ObjectiveSolution]
    first_layer: int = 1
    """The first layer (0-based) the objective abstracts: 1, or ``k`` for a fixed gap ``k``."""
    layers: Callable[[BlockMDP], Iterator[ObjectiveSolution]] | None = None
    """For an objective whose layer builds on its own earlier layers (PCID, AC-State, ACDF):
    its solutions on layers ``1 .. H - 1`` in order, each layer solved once."""

    def solve(self, mdp: BlockMDP, layer: int) -> ObjectiveSolution:
        """The objective's solution on ``layer`` (0-based, >= 1: layer ``layer + 1`` of the
        paper), named as the entry. Raises ``ValueError`` naming a layer out of range, a
        float-mode MDP or a layer the exact search refuses."""
        require_exact(mdp)
        _check_layer(mdp, layer)
        if layer < self.first_layer:
            raise ValueError(f"{self.name} is not defined on layer {layer} (0-based): its gap "
                             f"reaches back {self.first_layer} layers")
        return replace(self.solver(mdp, layer), objective=self.name)

    def solve_all(self, mdp: BlockMDP) -> list[ObjectiveSolution | str]:
        """For every layer ``1 .. H - 1`` (0-based): the solution, or why there is none (not
        defined there, or refused by the exact search - then, for an objective built on its
        earlier layers, every later layer too, for the same reason). Raises ``ValueError`` for
        a float-mode MDP."""
        require_exact(mdp)
        undefined = f"not defined: its gap reaches back {self.first_layer} layers"
        result: list[ObjectiveSolution | str] = [undefined] * (
            min(self.first_layer, mdp.horizon) - 1)
        if self.layers is not None:
            try:
                for solution in self.layers(mdp):
                    result.append(replace(solution, objective=self.name))
            except ValueError as error:  # a layer too large for the exact search
                result += [str(error)] * (mdp.horizon - 1 - len(result))
            return result
        for layer in range(self.first_layer, mdp.horizon):
            try:
                result.append(self.solve(mdp, layer))
            except ValueError as error:  # a layer too large for the exact search
                result.append(str(error))
        return result


def _check_layer(mdp: BlockMDP, layer: int) -> None:
    """Raise ``ValueError`` unless ``layer`` (0-based) has an earlier layer in ``mdp``."""
    if not isinstance(layer, int) or not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1} (0-based: layer h + 1 of the "
                         f"paper; layer 0 has no earlier action), got {layer!r}")


def pcid_layers(mdp: BlockMDP) -> Iterator[ObjectiveSolution]:
    """PCID's target (predict ``(phi_{h-1}(x), a)`` from ``phi(x')``, Du et al. 2019) on layers
    ``1 .. H - 1`` (0-based) in order, under the uniform random policy, ``phi_{h-1}`` PCID's
    own solution on the layer before (one class on layer 1): the observations grouped by their
    posterior, the only coarsest optimal abstraction."""
    require_exact(mdp)
    previous = np.zeros(len(mdp.observations[0]), dtype=np.intp)
    for h in range(1, mdp.horizon):
        joint = transition_distribution(mdp, [], h)
        labels = pcid_target_abstraction(joint, previous)
        yield ObjectiveSolution("pcid_target", h, labels, True,
                                pcid_target_loss(joint, previous))  # type: ignore[arg-type]
        previous = labels


def pcid_solution(mdp: BlockMDP, layer: int) -> ObjectiveSolution:
    """:func:`pcid_layers`'s solution on ``layer`` (0-based, >= 1).

    >>> from kinematic.counterexamples.mdps import curiosity_counterexample
    >>> solution = pcid_solution(curiosity_counterexample(), 2)
    >>> solution.labels.tolist(), solution.unique
    ([0, 0, 1], True)
    """
    require_exact(mdp)
    _check_layer(mdp, layer)
    return next(islice(pcid_layers(mdp), layer - 1, None))


def layered_layers(objective: str, mdp: BlockMDP, k_max: int = LAYERED_GAPS
                   ) -> Iterator[ObjectiveSolution]:
    """AC-State's (``objective="ac_state"``) or ACDF's (``"acdf"``) per-layer form on layers
    ``1 .. H - 1`` (0-based) in order, under the uniform random policy, the earlier layers'
    abstractions its own solutions there (one class on layer 1), every term of the gaps
    ``1 .. k_max`` that ends or starts at the layer
    (:mod:`kinematic.counterexamples.acdf_layered`; at most 11 observations per layer)."""
    require_exact(mdp)
    solve = {"ac_state": ac_state_solution, "acdf": acdf_solution}[objective]
    labels = [np.zeros(len(mdp.observations[0]), dtype=np.intp)]
    for h in range(1, mdp.horizon):
        solution = solve(mdp, [], h, labels[-1], k_max, earlier_labels=labels[-2::-1])
        labels.append(solution.labels)
        yield solution


def layered_solution(objective: str, mdp: BlockMDP, layer: int,
                     k_max: int = LAYERED_GAPS) -> ObjectiveSolution:
    """:func:`layered_layers`'s solution on ``layer`` (0-based, >= 1).

    >>> from kinematic.counterexamples.mdps import curiosity_counterexample
    >>> layered_solution("ac_state", curiosity_counterexample(), 2).labels.tolist()
    [0, 0, 1]
    """
    require_exact(mdp)
    _check_layer(mdp, layer)
    return next(islice(layered_layers(objective, mdp, k_max), layer - 1, None))


_ENTRIES = (
    CatalogueEntry("inverse_dynamics", "inverse dynamics (one step)",
                   "Pathak et al. 2017 (curiosity); paper, Section 5",
                   partial(multistep_inverse_solution, gap=1)),
    CatalogueEntry("pcid_target", "PCID's target: previous abstract state and action",
                   "Du et al. 2019; paper, Section 5", pcid_solution, layers=pcid_layers),
    CatalogueEntry("multistep_inverse_k2", "multi-step inverse, gap 2",
                   "Lamb et al. 2022 (AC-State); Mhammedi, Foster, Rakhlin 2023 (MusIK)",
                   partial(multistep_inverse_solution, gap=2), first_layer=2),
    CatalogueEntry("multistep_inverse", "multi-step inverse, every gap 1..t",
                   "Mhammedi, Foster, Rakhlin 2023 (MusIK)", multistep_inverse_solution),
    CatalogueEntry("ppe_path_prediction", "PPE's path prediction",
                   "Efroni, Misra, Krishnamurthy, Agarwal, Langford 2022 (PPE)", ppe_solution),
    CatalogueEntry("forward_modelling", "action-free forward modelling",
                   "Misra, Saran, Xie, Lamb, Langford 2024 (video pre-training)",
                   forward_modelling_solution),
    CatalogueEntry("temporal_contrast", "temporal contrast",
                   "Misra, Saran, Xie, Lamb, Langford 2024 (video pre-training)",
                   temporal_contrast_solution),
    CatalogueEntry("action_forward", "action-conditioned forward model",
                   "Levine, Stone, Zhang 2024 (ACDF's latent forward part)",
                   action_forward_solution),
    CatalogueEntry("ac_state", f"AC-State: both ends encoded, gaps 1..{LAYERED_GAPS}",
                   "Lamb et al. 2022 (AC-State); Levine, Stone, Zhang 2024",
                   partial(layered_solution, "ac_state"),
                   layers=partial(layered_layers, "ac_state")),
    CatalogueEntry("acdf", f"ACDF: AC-State + latent forward model, gaps 1..{LAYERED_GAPS}",
                   "Levine, Stone, Zhang 2024 (ACDF)", partial(layered_solution, "acdf"),
                   layers=partial(layered_layers, "acdf")),
)

OBJECTIVES: dict[str, CatalogueEntry] = {entry.name: entry for entry in _ENTRIES}
"""The objectives by name, in the order the results table lists them."""
