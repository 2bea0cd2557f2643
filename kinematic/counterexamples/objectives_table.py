"""Which objective recovers what, exactly: every objective of the catalogue
(:data:`kinematic.counterexamples.catalogue.OBJECTIVES`) solved on every layer ``h >= 2`` of a
Block MDP and its coarsest Bayes-optimal abstraction compared with backward KI (``def:bki``), KI
(``def:ki``) and, for an exogenous Block MDP, the endogenous partition - with two witness
states for every way they differ (:func:`kinematic.partition.compare_with`).

A layer's relation reads from the objective's side: ``"equal"``; ``"coarser"``: the objective
*merges* two states the reference separates (a failure to recover it: the witness pair);
``"finer"``: the objective *splits* two states the reference merges (recovers at least the
reference's distinctions, at a cost in classes); ``"crossing"``: both. An objective that is not
defined on a layer (a gap of 2 on layer 2) or refuses it (a layer too large for its exact
search) has ``None`` there, and the reason in ``not_solved``.

>>> from kinematic import combination_lock
>>> table = objectives_table(combination_lock(horizon=3, actions=2, seed=0))
>>> cell = table.cell("inverse_dynamics", "KI")
>>> cell.relations, cell.text()
(('coarser', 'equal'), 'h=2 merges s2a, s2b')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import get_close_matches

import numpy as np

from kinematic.counterexamples.catalogue import OBJECTIVES
from kinematic.counterexamples.exploration import state_groups
from kinematic.counterexamples.objectives import ObjectiveSolution
from kinematic.counterexamples.predictive import require_exact
from kinematic.errors import InvalidPartition
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.inseparability import backward_ki_partition, ki_partition
from kinematic.model import BlockMDP
from kinematic.partition import Partition, compare_with

__all__ = ["ObjectivesTable", "RelationCell", "objectives_table"]


@dataclass(frozen=True)
class RelationCell:
    """One objective against one reference partition, layer by layer (layers ``2 .. H``):
    ``relations[i]`` and ``witnesses[i]`` (states the objective merges and the reference
    separates, states the reference merges and the objective separates) for layer ``i + 2``;
    ``unique[i]`` whether the objective's coarsest optimal abstraction there is the only one."""

    objective: str
    reference: str
    relations: tuple[str | None, ...]
    witnesses: tuple[tuple[tuple[str, str] | None, tuple[str, str] | None] | None, ...]
    unique: tuple[bool | None, ...]

    @property
    def recovers(self) -> bool:
        """Whether the objective equals the reference on every layer where it is solved (and
        is solved on one at least)."""
        return (any(r is not None for r in self.relations)
                and all(r in (None, "equal") for r in self.relations))

    def text(self) -> str:
        """``"equal"`` or the layers that differ, each with its witnesses (``h=3 merges s3a,
        s3b; splits s3c, s3d``); ``(one of several)`` marks a layer whose coarsest optimal
        abstraction is not unique: the relation and witnesses are those of the abstraction
        found (:attr:`ObjectivesTable.blocks`), another optimum may differ."""
        if all(r is None for r in self.relations):
            return "not solved"
        if self.recovers:
            return "equal" + ("" if all(u is not False for u in self.unique)
                              else " (one of several)")
        parts = []
        for i, (relation, witness, unique) in enumerate(
                zip(self.relations, self.witnesses, self.unique, strict=True)):
            if relation in (None, "equal") or witness is None:
                continue
            merged, split = witness
            says = []
            if merged is not None:
                says.append(f"merges {merged[0]}, {merged[1]}")
            if split is not None:
                says.append(f"splits {split[0]}, {split[1]}")
            if relation == "unreached":
                says = ["splits the observations of an unreached state"]
            parts.append(f"h={i + 2} " + "; ".join(says)
                         + ("" if unique is not False else " (one of several)"))
        return "; ".join(parts)


@dataclass(frozen=True)
class ObjectivesTable:
    """Every objective on every layer ``h >= 2`` of ``mdp_name``: ``solutions[name][i]`` (layer
    ``i + 2``; None where the objective is not defined) and the cells against each reference
    (``references``: ``"backward KI"``, ``"KI"``, and ``"endogenous"`` for an exogenous Block
    MDP)."""

    mdp_name: str
    references: tuple[str, ...]
    solutions: Mapping[str, tuple[ObjectiveSolution | None, ...]]
    cells: Mapping[tuple[str, str], RelationCell] = field(repr=False)
    blocks: Mapping[str, tuple[list[list[str]] | None, ...]] = field(default_factory=dict,
                                                                   repr=False)
    """``blocks[name][i]``: the objective's classes on layer ``i + 2`` as lists of states."""
    not_solved: Mapping[str, Mapping[int, str]] = field(default_factory=dict, repr=False)
    """``not_solved[name][h]``: why the objective has no solution on layer ``h`` (1-based)."""

    def __repr__(self) -> str:
        return (f"<ObjectivesTable of {self.mdp_name!r}: {len(self.solutions)} objectives "
                f"against {', '.join(self.references)}>")

    def __str__(self) -> str:
        """:meth:`markdown` with its legend."""
        return self.markdown(legend=True)

    def cell(self, objective: str, reference: str) -> RelationCell:
        """The cell of ``objective`` against ``reference``."""
        return self.cells[objective, reference]

    def classes(self, objective: str) -> list[int | None]:
        """The number of classes of the objective's abstraction on layers ``2 .. H``."""
        return [None if s is None else len(np.unique(s.labels))
                for s in self.solutions[objective]]

    def as_json(self) -> dict:
        """The table as JSON values: per objective, layer by layer from 2, its classes (as
        lists of states) and their number, uniqueness and Bayes-optimal loss (the exact square
        loss, summed over the target's values, as ``"p/q"``; AC-State's and ACDF's log loss in
        nats as a float's text), why it has no solution on a layer, and per reference the
        relations, the witnesses (``merged``: two states the objective puts together and the
        reference separates; ``split``: the other way round), the cell's text and whether it
        recovers the reference."""
        def witness(pair: tuple | None) -> dict | None:
            return None if pair is None else {
                "merged": None if pair[0] is None else list(pair[0]),
                "split": None if pair[1] is None else list(pair[1])}

        return {
            "mdp": self.mdp_name, "references": list(self.references),
            "objectives": {
                name: {"blocks": list(self.blocks.get(name, ())),
                       "classes": self.classes(name),
                       "unique": [None if s is None else s.unique for s in solutions],
                       "loss": [None if s is None else str(s.loss) for s in solutions],
                       "not_solved": {str(h): why for h, why
                                      in self.not_solved.get(name, {}).items()},
                       "cells": {r: {"relations": list(self.cell(name, r).relations),
                                     "witnesses": [witness(w) for w
                                                   in self.cell(name, r).witnesses],
                                     "text": self.cell(name, r).text(),
                                     "recovers": self.cell(name, r).recovers}
                                 for r in self.references}}
                for name, solutions in self.solutions.items()},
        }

    def markdown(self, blocks: bool = False, legend: bool = False) -> str:
        """A Markdown table: one row per objective, its number of classes per layer (``-``:
        no solution there, the reason in a note under the table) and one column per
        reference; a ``|`` in a state name is escaped. With ``blocks``, the classes of every
        objective on every layer follow as a list; with ``legend`` (before that list), what
        the columns say and each objective's title and citation
        (:data:`~kinematic.counterexamples.catalogue.OBJECTIVES`)."""
        head = ["objective", "classes h=2.."] + [f"vs {r}" for r in self.references]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for name in self.solutions:
            counts = "/".join("-" if c is None else str(c) for c in self.classes(name))
            cells = [self.cell(name, r).text().replace("|", "\\|") for r in self.references]
            lines.append(f"| {name} | {counts} | " + " | ".join(cells) + " |")
        notes = []
        for name, layers in self.not_solved.items():
            by_reason: dict[str, list[int]] = {}
            for h, why in layers.items():
                by_reason.setdefault(why, []).append(h)
            notes += [f"- {name}, h={', '.join(map(str, hs))}: {why}"
                      for why, hs in by_reason.items()]
        listed = [f"- {name}, h={i + 2}: " + " / ".join("{" + ", ".join(b) + "}" for b in layer)
                  for name, per_layer in self.blocks.items()
                  for i, layer in enumerate(per_layer) if layer is not None] if blocks else []
        for section in (notes, self._legend() if legend else [], listed):
            lines += ["", *section] if section else []
        return "\n".join(lines)

    def _legend(self) -> list[str]:
        return [
            "classes h=2..: the objective's classes on each layer from 2 ('-': no solution "
            "there). Against each reference: equal, or on each layer that differs, merges x, "
            "y (x and y in one class of the objective, apart in the reference) and splits x, "
            "y (apart in the objective, together in the reference), one pair each; (one of "
            "several): the objective has other coarsest optima there.", "",
            *[f"- {name}: {OBJECTIVES[name].title} - {OBJECTIVES[name].citation}"
              for name in self.solutions if name in OBJECTIVES]]


def _state_partition(mdp: BlockMDP, layer: int, labels: np.ndarray) -> Partition | None:
    """The partition of every layer's states that is ``labels`` on ``layer`` (one block
    elsewhere), or None when ``labels`` splits the observations of a state."""
    per_layer = [[0] * len(x) for x in mdp.observations]
    per_layer[layer] = labels.tolist()
    try:
        return Partition.from_observation_labels(mdp, per_layer)
    except InvalidPartition:
        return None


def objectives_table(model: BlockMDP | ExogenousBlockMDP,
                     objectives: Sequence[str] | None = None) -> ObjectivesTable:
    """Solve ``objectives`` (default: every one of the catalogue) on every layer ``h >= 2`` of
    ``model`` (exact mode) and compare each abstraction with backward KI, KI and, when
    ``model`` is an :class:`~kinematic.exogenous.ExogenousBlockMDP`, its endogenous partition.

    ``objectives`` is a list of names (or one name). Raises ``ValueError`` for an unknown
    objective name (listing the known ones) or a float-mode MDP; a layer that an objective's
    exact search refuses (too many observations) is left without a solution, its reason in
    ``not_solved``.
    """
    names = (list(OBJECTIVES) if objectives is None
             else [objectives] if isinstance(objectives, str) else list(objectives))
    unknown = [n for n in names if n not in OBJECTIVES]
    if unknown:
        close = ([n for n in OBJECTIVES if n.startswith(unknown[0])]
                 or get_close_matches(unknown[0], OBJECTIVES, n=1, cutoff=0.3))
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"objectives: unknown {unknown[0]!r}{hint}; known: "
                         f"{', '.join(OBJECTIVES)}")
    mdp = model.mdp if isinstance(model, ExogenousBlockMDP) else model
    require_exact(mdp)
    references: dict[str, Partition] = {"backward KI": backward_ki_partition(mdp),
                                        "KI": ki_partition(mdp)}
    if isinstance(model, ExogenousBlockMDP):
        references["endogenous"] = endogenous_partition(model)
    solutions: dict[str, tuple[ObjectiveSolution | None, ...]] = {}
    blocks: dict[str, tuple[list[list[str]] | None, ...]] = {}
    not_solved: dict[str, dict[int, str]] = {}
    cells: dict[tuple[str, str], RelationCell] = {}
    for name in names:
        per_layer: list[ObjectiveSolution | None] = []
        for layer, found in enumerate(OBJECTIVES[name].solve_all(mdp), start=1):
            if isinstance(found, str):
                per_layer.append(None)
                not_solved.setdefault(name, {})[layer + 1] = found
            else:
                per_layer.append(found)
        solutions[name] = tuple(per_layer)
        blocks[name] = tuple(None if s is None else state_groups(mdp, s.layer, s.labels)
                             for s in per_layer)
        partitions = [None if s is None else _state_partition(mdp, s.layer, s.labels)
                      for s in per_layer]
        for reference, exact in references.items():
            relations: list[str | None] = []
            witnesses: list = []
            for solution, partition in zip(per_layer, partitions, strict=True):
                if solution is None:
                    relations.append(None)
                    witnesses.append(None)
                    continue
                if partition is None:
                    relations.append("unreached")
                    witnesses.append((None, None))
                    continue
                comparison = compare_with(partition, exact, layer=solution.layer + 1)
                relations.append(comparison.relation)
                witnesses.append((comparison.merged_by_first, comparison.merged_by_second))
            cells[name, reference] = RelationCell(
                name, reference, tuple(relations), tuple(witnesses),
                tuple(None if s is None else s.unique for s in per_layer))
    return ObjectivesTable(mdp.name, tuple(references), solutions, cells, blocks, not_solved)
