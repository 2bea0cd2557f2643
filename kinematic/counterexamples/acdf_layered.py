"""AC-State's and ACDF's objectives on a layered Block MDP, solved exactly: over every layer
jointly (small MDPs) and one layer at a time inside HOMER's loop.

AC-State (Lamb et al. 2022, "Guaranteed Discovery of Control-Endogenous Latent States with
Multi-Step Inverse Models", its multi-step inverse objective): an encoder ``phi_h`` per layer,
the same on both ends of a pair, and the loss

``L_AC = sum_{h, 1 <= k <= K, h + k < H} CE(a_h | phi_h(x_h), phi_{h+k}(x_{h+k}))``.

Its population minimum is attained exactly by the encoders keeping every posterior
``p(a_h | x_h, x_{h+k})`` (strict propriety of the log loss; decided with Fractions). ACDF
(Levine, Stone and Zhang 2024, "Multistep Inverse Is Not All You Need", the AC-State loss plus
a latent forward model; ``midi-lab/acdf``, ``numerical_experiments/numerical_experiments.py``,
``compute_rep_loss``) adds

``L_F = sum_{h < H - 1} CE(phi_{h+1}(x_{h+1}) | phi_h(x_h), a_h)``.

``L_AC + L_F`` is at least ``min L_AC + 0``; when some encoder attains that bound (AC-State
optimal and every ``phi_{h+1}(x_{h+1})`` a function of ``(phi_h(x_h), a_h)``), the minimisers
are decided exactly, otherwise as the float64 losses within
:data:`~kinematic.counterexamples.acdf.RELATIVE_TIE` of the minimum (``decided`` says which).

Data: the uniform policy from the start (AC-State's and ACDF's data) for the joint form; for the
per-layer form at layer ``h`` (0-based), the convention of the toolkit's objectives: roll in to
layer ``h - 1`` with ``Unf(cover)``, then uniformly random actions. The per-layer form keeps the
terms in which ``phi_h`` appears, with ``phi_{h-k}`` the earlier layers' abstractions and the
later layers not abstracted (they are not learned yet):

``(1/K) [sum_{k <= K} CE(a_{h-k} | phi_{h-k}(x_{h-k}), phi_h(x_h))
+ sum_{k <= K} CE(a_h | phi_h(x_h), x_{h+k})]``,

and for ACDF also ``CE(phi_h(x_h) | phi_{h-1}(x_{h-1}), a_{h-1}) + CE(x_{h+1} | phi_h(x_h), a_h)``
(the inverse terms weighted ``1/K`` as ACDF's loss averages them over ``k``; the joint form
sums them, which changes its minimisers only where no encoder meets the exact bound). HOMER's
loop hands an objective the previous layer's abstraction only, so there the backward terms are
``k = 1``'s; :func:`ac_state_solution` and :func:`acdf_solution` take the earlier layers' too
(``earlier_labels``), as the catalogue does. The earlier layers' terms ``k >= 2`` use the
uniform random policy's visitation. All losses are in nats, floats computed from the exact
probabilities.

>>> from kinematic.counterexamples.mdps import curiosity_counterexample
>>> mdp = curiosity_counterexample()
>>> solution = ac_state_solution(mdp, [], 2, np.array([0, 0, 1, 1]), k_max=1)
>>> solution.labels.tolist(), solution.unique
([0, 0, 1], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

import numpy as np

from kinematic.counterexamples.acdf import RELATIVE_TIE
from kinematic.counterexamples.exploration import Objective
from kinematic.counterexamples.objectives import (
    ObjectiveSolution,
    transition_distribution,
    uniform_step,
)
from kinematic.counterexamples.partition_search import (
    ENCODER_LIMIT,
    keeps_posteriors,
    latent_tables,
    posterior_ids,
    set_partitions,
)
from kinematic.model import BlockMDP
from kinematic.policies import Policy, uniform_policy
from kinematic.visitation import observation_visitation

__all__ = [
    "ac_state_objective",
    "ac_state_solution",
    "acdf_objective",
    "acdf_solution",
    "layered_solutions",
    "pair_joint",
]

OBJECTIVES = ("ac_state", "acdf")


def pair_joint(mdp: BlockMDP, visitation: np.ndarray, layer: int, k: int) -> np.ndarray:
    """``J(x_h, a_h, x_{h+k}) = P(x_h) / |A| * [T_h(. | x_h, a_h) U_{h+1} .. U_{h+k-1}](x_{h+k})``
    with ``P(x_h) = visitation`` and ``U_t`` the uniform-action observation transitions; shape
    ``(m_h, |A|, m_{h+k})`` (``layer`` = ``h``, 0-based)."""
    if not (layer >= 0 and k >= 1 and layer + k < mdp.horizon):
        raise ValueError(f"pair ({layer}, {layer} + {k}) lies outside layers "
                         f"0..{mdp.horizon - 1}")
    reach = mdp.observation_transition_tensor(layer)
    for t in range(layer + 1, layer + k):
        reach = np.einsum("xay,yz->xaz", reach, uniform_step(mdp, t))
    return visitation[:, None, None] * reach / mdp.number_of_actions


def _canonical(labels: np.ndarray) -> np.ndarray:
    return np.unique(np.asarray(labels), return_inverse=True)[1].reshape(-1)


@dataclass
class _Terms:
    """Per candidate: whether every term is at its exact lower bound, and the float loss."""

    optimal: np.ndarray
    loss: np.ndarray

    def add(self, optimal: np.ndarray, loss: np.ndarray) -> None:
        self.optimal = self.optimal & optimal
        self.loss = self.loss + loss


def _entropies(joint: np.ndarray, left: np.ndarray, right: np.ndarray, forward: bool
               ) -> tuple[np.ndarray, np.ndarray]:
    """Row by row: the inverse (``forward``: forward) conditional entropy and whether the
    forward model is deterministic."""
    values, deterministic = [], []
    for tables in latent_tables(joint, left, right):
        values.append(tables.forward_entropy() if forward else tables.action_entropy())
        deterministic.append(tables.forward_deterministic())
    return np.concatenate(values), np.concatenate(deterministic)


def _layer_terms(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                 previous_labels: np.ndarray, k_max: int, objective: str,
                 candidates: np.ndarray, earlier_labels: Sequence[np.ndarray] = ()) -> _Terms:
    rows = len(candidates)
    weight = 1.0 / k_max  # ACDF's loss averages the inverse terms over k = 1 .. K
    previous = np.repeat(_canonical(previous_labels)[None], rows, axis=0)
    backward = transition_distribution(mdp, cover, layer)
    terms = _Terms(keeps_posteriors(posterior_ids(backward), previous, candidates),
                   weight * _entropies(backward, previous, candidates, forward=False)[0])
    if objective == "acdf":
        entropy, deterministic = _entropies(backward, previous, candidates, forward=True)
        terms.add(deterministic, entropy)
    uniform = observation_visitation(mdp, uniform_policy(mdp))
    for k, labels in enumerate(earlier_labels[:max(0, min(k_max, layer) - 1)], start=2):
        joint = pair_joint(mdp, uniform[layer - k], layer - k, k)
        earlier = np.repeat(_canonical(labels)[None], rows, axis=0)
        terms.add(keeps_posteriors(posterior_ids(joint), earlier, candidates),
                  weight * _entropies(joint, earlier, candidates, forward=False)[0])
    visitation = backward.sum(axis=(0, 1))
    for k in range(1, min(k_max, mdp.horizon - 1 - layer) + 1):
        joint = pair_joint(mdp, visitation, layer, k)
        future = np.repeat(np.arange(joint.shape[2])[None], rows, axis=0)
        terms.add(keeps_posteriors(posterior_ids(joint), candidates, future),
                  weight * _entropies(joint, candidates, future, forward=False)[0])
        if objective == "acdf" and k == 1:
            # CE(x_{h+1} | phi(x_h), a_h): minimal iff p(x_{h+1} | x_h, a_h) is kept
            by_action = joint.transpose(0, 2, 1)
            actions = np.repeat(np.arange(mdp.number_of_actions)[None], rows, axis=0)
            terms.add(keeps_posteriors(posterior_ids(by_action), candidates, actions),
                      _entropies(joint, candidates, future, forward=True)[0])
    return terms


def _minimal(optimal: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """The minimisers: exactly those at the lower bound when some are, else within
    ``RELATIVE_TIE`` of the float minimum."""
    if optimal.any():
        return optimal
    best = loss.min()
    return loss <= best + RELATIVE_TIE * max(1.0, abs(best))


def _coarsest(minimal: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The indices of the minimisers with the fewest classes."""
    return np.flatnonzero(minimal & (classes == classes[minimal].min()))


def _solution(objective: str, layer: int, candidates: np.ndarray, terms: _Terms
              ) -> ObjectiveSolution:
    coarsest = _coarsest(_minimal(terms.optimal, terms.loss), candidates.max(axis=1) + 1)
    return ObjectiveSolution(objective, layer, candidates[coarsest[0]].astype(np.intp),
                             len(coarsest) == 1, float(terms.loss[coarsest[0]]))


_MAX_SIZE = 11
"""The most observations of a layer whose partitions are searched (Bell(11) = 678,570)."""


def _bell(size: int) -> int:
    """The number of set partitions of ``size`` items (Bell triangle)."""
    row = [1]
    for _ in range(size - 1):
        following = [row[-1]]
        for value in row:
            following.append(following[-1] + value)
        row = following
    return row[-1]


def _check(objective: str, k_max: int) -> None:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if k_max < 1:
        raise ValueError(f"k_max must be at least 1, got {k_max}")


def _layer_solution(objective: str, mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                    previous_labels: np.ndarray, k_max: int,
                    earlier_labels: Sequence[np.ndarray] = ()) -> ObjectiveSolution:
    _check(objective, k_max)
    if not 1 <= layer < mdp.horizon:
        raise ValueError(f"layer must lie in 1..{mdp.horizon - 1} (0-based; layer 0 has no "
                         f"earlier action), got {layer}")
    size = len(mdp.observations[layer])
    if size > _MAX_SIZE:
        raise ValueError(f"{mdp.name}: layer {layer + 1} has {size} observations, more than "
                         f"{_MAX_SIZE} (Bell({size}) partitions exceed {ENCODER_LIMIT})")
    candidates = set_partitions(size)
    terms = _layer_terms(mdp, cover, layer, previous_labels, k_max, objective, candidates,
                         earlier_labels)
    return _solution(objective, layer, candidates, terms)


def ac_state_solution(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                      previous_labels: np.ndarray, k_max: int = 1,
                      earlier_labels: Sequence[np.ndarray] = ()) -> ObjectiveSolution:
    """AC-State's per-layer form at ``layer`` (0-based, >= 1; module docstring): the coarsest
    partition of ``mdp.observations[layer]`` keeping every posterior of its terms (exact), the
    first in lexicographic order of label vectors when several tie (``unique`` False). At most
    ``10^6`` partitions (11 observations). ``earlier_labels`` are the abstractions of layers
    ``layer - 2, layer - 3, ...`` (nearest first): with them the terms of the gaps ``k >= 2``
    that end at ``layer`` count too; without them (HOMER's loop hands one previous layer) only
    ``k = 1``'s."""
    return _layer_solution("ac_state", mdp, cover, layer, previous_labels, k_max,
                           earlier_labels)


def acdf_solution(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                  previous_labels: np.ndarray, k_max: int = 1,
                  earlier_labels: Sequence[np.ndarray] = ()) -> ObjectiveSolution:
    """ACDF's per-layer form at ``layer`` (0-based, >= 1; module docstring), as
    :func:`ac_state_solution`."""
    return _layer_solution("acdf", mdp, cover, layer, previous_labels, k_max, earlier_labels)


def ac_state_objective(k_max: int = 1) -> Objective:
    """:func:`ac_state_solution`'s labels as an :data:`~kinematic.counterexamples.exploration.
    Objective` for :func:`~kinematic.counterexamples.exploration.explore_with_objective`."""
    _check("ac_state", k_max)
    return lambda mdp, cover, layer, previous: ac_state_solution(
        mdp, cover, layer, previous, k_max).labels


def acdf_objective(k_max: int = 1) -> Objective:
    """:func:`acdf_solution`'s labels as an :data:`~kinematic.counterexamples.exploration.
    Objective`."""
    _check("acdf", k_max)
    return lambda mdp, cover, layer, previous: acdf_solution(
        mdp, cover, layer, previous, k_max).labels


def _grid(values: np.ndarray, rows: int, columns: int, first: int, second: int, horizon: int
          ) -> np.ndarray:
    """A ``(rows * columns,)`` pair table as an array broadcasting over the product's axes."""
    shape = [1] * horizon
    shape[first], shape[second] = rows, columns
    return values.reshape(shape)


def layered_solutions(mdp: BlockMDP, objective: str = "ac_state", k_max: int = 1
                      ) -> tuple[ObjectiveSolution, ...]:
    """The joint form (module docstring): every product of one partition per layer, the data of
    the uniform policy. Returns one solution per layer, from a product with the fewest classes
    in total among the minimisers (the first in lexicographic order); ``unique`` says whether
    that product is the only one with that total, ``loss`` is the layer's share (the terms whose
    earlier end is the layer). Refused beyond ``10^6`` products.

    >>> from kinematic.counterexamples.exploration import state_groups
    >>> from kinematic.counterexamples.mdps import curiosity_counterexample
    >>> mdp = curiosity_counterexample()
    >>> [state_groups(mdp, s.layer, s.labels) for s in layered_solutions(mdp, "acdf")]
    [[['s1'], ['s2']], [['s3'], ['s4', 's5'], ['s6']], [['s7'], ['s8', 's9']]]
    """
    _check(objective, k_max)
    sizes = [len(x) for x in mdp.observations]
    if max(sizes) > _MAX_SIZE or prod(_bell(size) for size in sizes) > ENCODER_LIMIT:
        raise ValueError(f"{mdp.name}: the joint search has "
                         f"{' x '.join(str(_bell(size)) for size in sizes)} products of "
                         f"partitions, more than {ENCODER_LIMIT}; use the per-layer form "
                         "(ac_state_solution, acdf_solution)")
    horizon = mdp.horizon
    encoders = [set_partitions(size) for size in sizes]
    visitation = observation_visitation(mdp, uniform_policy(mdp))
    optimal = np.ones([1] * horizon, dtype=bool)
    shares: list[np.ndarray] = [np.zeros([1] * horizon) for _ in range(horizon)]
    for h in range(horizon - 1):
        for k in range(1, min(k_max, horizon - 1 - h) + 1):
            joint = pair_joint(mdp, np.asarray(visitation[h]), h, k)
            rows, columns = len(encoders[h]), len(encoders[h + k])
            left = np.repeat(encoders[h], columns, axis=0)
            right = np.tile(encoders[h + k], (rows, 1))
            keeps = keeps_posteriors(posterior_ids(joint), encoders[h], encoders[h + k],
                                     grid=True)
            optimal = optimal & _grid(keeps.reshape(-1), rows, columns, h, h + k, horizon)
            inverse, deterministic = _entropies(joint, left, right, forward=False)
            shares[h] = shares[h] + _grid(inverse, rows, columns, h, h + k, horizon)
            if objective == "acdf" and k == 1:
                forward = _entropies(joint, left, right, forward=True)[0]
                optimal = optimal & _grid(deterministic, rows, columns, h, h + 1, horizon)
                shares[h] = shares[h] + _grid(forward, rows, columns, h, h + 1, horizon)
    full = tuple(len(e) for e in encoders)
    total = np.broadcast_to(sum(shares, np.zeros([1] * horizon)), full).reshape(-1)
    classes = sum((e.max(axis=1) + 1).reshape([len(e) if t == h else 1 for t in range(horizon)])
                  for h, e in enumerate(encoders))
    counts = np.broadcast_to(classes, full).reshape(-1)
    coarsest = _coarsest(_minimal(np.broadcast_to(optimal, full).reshape(-1), total), counts)
    chosen = np.unravel_index(coarsest[0], full)
    return tuple(
        ObjectiveSolution(objective, h, encoders[h][chosen[h]].astype(np.intp),
                          len(coarsest) == 1, float(np.broadcast_to(shares[h], full)[chosen]))
        for h in range(horizon))
