r"""Objectives that predict a target from a context and an abstraction of one layer, solved
exactly: the shared machinery of the multi-step inverse (:mod:`.multistep_inverse`) and the
forward models (:mod:`.forward_models`).

The data are an exact joint table ``P(C, x, Y)`` (a numpy object array of ``Fraction``, shape
``(contexts, observations, targets)``): a context ``C`` the predictor sees in full, an observation
``x`` of the abstracted layer that it sees through ``phi(x)`` only, and the target ``Y``.

Facts (proved here; the Section 5 objectives of :mod:`.objectives` are the special cases
``C = x_{h-1}, Y = a`` and ``C`` constant):

1. *Optimality.* For a strictly proper loss (the square/Brier loss, the log loss), ``phi``
   attains the Bayes-optimal loss iff ``p(Y | C, phi(x)) = p(Y | C, x)`` wherever
   ``P(C, x) > 0``. Proof: the best predictor from ``(C, phi(x))`` is ``p(Y | C, phi(x))``;
   by strict propriety its expected loss exceeds that of ``p(Y | C, x)`` on every
   ``(C, x)`` of positive mass where the two differ, and equals it elsewhere.
2. *Compatibility.* Call ``x1, x2`` compatible when ``p(Y | C, x1) = p(Y | C, x2)`` in every
   context ``C`` where both have positive mass. ``phi`` is optimal iff every class is a
   clique of the compatibility graph. Necessity: if ``x1, x2`` share a class and differ in a
   context where both have mass, ``p(Y | C, phi(x))`` cannot equal both. Sufficiency: in each
   context the members of a class with positive mass all have the same posterior, so the
   class's posterior ``p(Y | C, phi) = sum_x P(x | C, phi) p(Y | C, x)``, a mixture of equal
   vectors, is that posterior too. Pairwise compatibility suffices, although compatibility
   need not be transitive (``x1 ~ x2`` in context ``c1`` only, ``x2 ~ x3`` in ``c2`` only,
   ``x1, x3`` never together).
3. So the coarsest optimal abstractions are the *minimum clique covers* of the compatibility
   graph (minimum colourings of its complement, the graph of conflicts). When compatibility is
   transitive (for instance when every pair of observations shares a context) they are unique:
   its equivalence classes.

Observations the data never show (``P(x) = 0``) impose nothing and are compatible with
everything; the convention of :mod:`.objectives` is kept: they stay in classes of their own.
Merging them anywhere is vacuous (the loss cannot tell), would make no minimum cover unique, and
a learned predictor says nothing sound about them.

The minimum clique cover is found exactly: observations with the same compatibilities (same
closed neighbourhood: the observations of one state always are) are placed together, which
changes no minimum (a twin joins its twin's class and the class stays a clique); then each
connected component of the compatibility graph is searched depth-first, the groups of twins in
the order of their first observation, each joining the earliest class it can or opening a new
one, for ``k = 1, 2, ...`` classes until a cover exists. ``labels`` is the first cover so found;
``unique`` says whether it is the only minimum cover of the groups, which is the same as of the
observations: a minimum cover that splits a group, one twin in class ``A`` and one in ``B``,
lets the whole group move into ``B`` too, which gives another minimum cover of the groups (or
a smaller one, if ``A`` held the group alone). Components with more than
:data:`MAX_COMPONENT` groups of twins are refused: the search is exponential in the worst case.

Losses are the exact square (Brier) loss :func:`kinematic.counterexamples.objectives.
square_loss`, averaged over the contexts with their probabilities.

>>> from fractions import Fraction as F
>>> import numpy as np
>>> joint = np.zeros((3, 3, 2), dtype=object)  # contexts c1, c2, c3; observations x1, x2, x3
>>> joint[0, 0] = joint[0, 1] = (F(1, 12), F(1, 12))  # x1, x2 agree in c1
>>> joint[1, 1] = joint[1, 2] = (F(1, 6), 0)          # x2, x3 agree in c2
>>> joint[2, 0], joint[2, 2] = (F(1, 6), 0), (0, F(1, 6))  # x1, x3 differ in c3
>>> sorted(compatibility_graph(joint).edges)  # not transitive
[(0, 1), (1, 2)]
>>> labels, unique = coarsest_optimal_abstraction(joint)
>>> labels.tolist(), unique  # {x1, x2} {x3}, or {x1} {x2, x3}
([0, 0, 1], False)
>>> abstraction_loss(joint) == abstraction_loss(joint, labels) < abstraction_loss(joint, [0, 0, 0])
True
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import networkx as nx
import numpy as np

from kinematic.counterexamples.objectives import ObjectiveSolution, square_loss
from kinematic.model import BlockMDP
from kinematic.partition import first_appearance

__all__ = [
    "MAX_COMPONENT",
    "abstraction_loss",
    "coarsest_optimal_abstraction",
    "compatibility_graph",
    "is_optimal",
    "posteriors",
    "predictive_solution",
    "require_exact",
]

MAX_COMPONENT = 32
"""The most groups of twin observations in one connected component of the compatibility graph
that :func:`coarsest_optimal_abstraction` searches (layers of the MDPs here have at most a few
dozen observations, most of them twins)."""


def posteriors(joint: np.ndarray, labels: np.ndarray | None = None) -> dict:
    """``{(context, class): p(Y | context, class)}`` (a tuple) over the pairs of positive
    probability; ``labels`` (default: each observation its own class) abstract the observations.
    """
    labels = np.arange(joint.shape[1]) if labels is None else np.asarray(labels)
    result = {}
    for c in range(joint.shape[0]):
        for label in np.unique(labels):
            merged = joint[c][labels == label].sum(axis=0)
            total = merged.sum()
            if total:
                result[c, int(label)] = tuple(merged / Fraction(total))
    return result


def is_optimal(joint: np.ndarray, labels: np.ndarray) -> bool:
    """Whether abstracting the observations by ``labels`` keeps ``p(Y | C, x)`` wherever
    ``P(C, x) > 0`` (fact 1 of the module docstring)."""
    labels = np.asarray(labels)
    coarse = posteriors(joint, labels)
    return all(coarse[c, int(labels[x])] == posterior
               for (c, x), posterior in posteriors(joint).items())


def compatibility_graph(joint: np.ndarray) -> nx.Graph:
    """The graph on the observations (nodes ``0 .. m - 1``) joining two observations that the
    data show and whose posteriors agree in every context where both have positive mass;
    observations never shown have no edge (they stay alone)."""
    shown = joint.sum(axis=(0, 2)) > 0
    conflicts: set[tuple[int, int]] = set()
    for c in range(joint.shape[0]):
        groups: dict[tuple, list[int]] = {}
        for x in range(joint.shape[1]):
            total = joint[c, x].sum()
            if total:
                groups.setdefault(tuple(joint[c, x] / Fraction(total)), []).append(x)
        for first, second in combinations(groups.values(), 2):
            conflicts.update((min(a, b), max(a, b)) for a in first for b in second)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(joint.shape[1]))
    graph.add_edges_from(pair for pair in combinations(np.flatnonzero(shown).tolist(), 2)
                         if pair not in conflicts)
    return graph


def _covers(groups: list[int], compatible: nx.Graph, classes: int,
            found: list[list[list[int]]]) -> None:
    """Append to ``found`` the covers of ``groups`` by at most ``classes`` cliques of
    ``compatible`` (depth-first, each group joining the earliest class it can), stopping at
    two."""
    current: list[list[int]] = []

    def fits(group: int, members: list[int]) -> bool:
        return all(compatible.has_edge(group, other) for other in members)

    def place(i: int) -> bool:
        if i == len(groups):
            found.append([list(members) for members in current])
            return len(found) >= 2
        if len(current) == classes and any(
                not any(fits(g, members) for members in current) for g in groups[i:]):
            return False
        for members in current:
            if fits(groups[i], members):
                members.append(groups[i])
                if place(i + 1):
                    return True
                members.pop()
        if len(current) < classes:
            current.append([groups[i]])
            if place(i + 1):
                return True
            current.pop()
        return False

    place(0)


def _minimum_cover(groups: list[int], compatible: nx.Graph) -> tuple[list[list[int]], bool]:
    """A minimum clique cover of one connected component (``groups`` in search order) and
    whether it is the only one."""
    pairwise_apart: list[int] = []  # a set of pairwise incompatible groups: a lower bound
    for group in groups:
        if not any(compatible.has_edge(group, other) for other in pairwise_apart):
            pairwise_apart.append(group)
    for classes in range(len(pairwise_apart), len(groups) + 1):
        found: list[list[list[int]]] = []
        _covers(groups, compatible, classes, found)
        if found:
            return found[0], len(found) == 1
    raise AssertionError("every group alone is a cover")  # pragma: no cover


def coarsest_optimal_abstraction(joint: np.ndarray) -> tuple[np.ndarray, bool]:
    """A coarsest abstraction of the observations attaining the Bayes-optimal loss (a minimum
    clique cover of :func:`compatibility_graph`, found as the module docstring says) and
    whether it is the only one with that many classes. Labels are numbered by first
    appearance.

    Raises ``ValueError`` when a connected component of the compatibility graph holds more
    than :data:`MAX_COMPONENT` groups of twin observations.
    """
    graph = compatibility_graph(joint)
    twin_of: dict[frozenset, int] = {}
    group = np.array([twin_of.setdefault(frozenset(graph[x]) | {x}, x)
                      for x in range(joint.shape[1])])
    representatives = sorted(twin_of.values())
    reduced = graph.subgraph(representatives)
    members = {g: np.flatnonzero(group == g).tolist() for g in representatives}
    class_of = np.empty(joint.shape[1], dtype=np.intp)
    unique = True
    classes: list[list[int]] = []
    for component in nx.connected_components(reduced):
        ordered = sorted(component)
        if len(ordered) > MAX_COMPONENT:
            raise ValueError(
                f"joint: {len(ordered)} groups of mutually compatible observations are "
                f"connected (first {ordered[0]}); the exact clique cover searches at most "
                f"{MAX_COMPONENT}")
        cover, alone = _minimum_cover(ordered, reduced)
        unique &= alone
        classes.extend(cover)
    for index, found in enumerate(classes):
        for g in found:
            class_of[members[g]] = index
    return first_appearance(class_of.tolist()), bool(unique)


def abstraction_loss(joint: np.ndarray, labels: np.ndarray | None = None) -> Fraction:
    """The exact square (Brier) loss of the best predictor of ``Y`` from ``(C, phi(x))``,
    ``phi`` given by ``labels`` (default: ``x`` itself, the Bayes-optimal loss)."""
    contexts, observations, targets = joint.shape
    labels = np.arange(observations) if labels is None else np.asarray(labels)
    table = joint.reshape(contexts * observations, targets)
    return square_loss(table, [c * observations + np.flatnonzero(labels == label)
                               for c in range(contexts) for label in np.unique(labels)])


def predictive_solution(objective: str, layer: int, joint: np.ndarray) -> ObjectiveSolution:
    """The :class:`~kinematic.counterexamples.objectives.ObjectiveSolution` of the objective
    whose data are ``joint`` on layer ``layer`` (0-based): :func:`coarsest_optimal_abstraction`
    and the Bayes-optimal square loss."""
    labels, unique = coarsest_optimal_abstraction(joint)
    return ObjectiveSolution(objective, layer, labels, unique, abstraction_loss(joint))


def require_exact(mdp: BlockMDP) -> None:
    """Raise ``ValueError`` naming ``mdp`` unless it is exact (posteriors are compared for
    equality)."""
    if not mdp.mode.exact:
        raise ValueError(f"mdp: {mdp.name!r} is a float-mode MDP; the exact objectives compare "
                         "probabilities for equality, so each must be exact: write them as "
                         "strings such as \"1/3\" in the spec (one float makes the whole spec "
                         "float)")
