"""HOMER's capacities against the MDP's kinematic inseparability dimensions.

phi_B has ``backward_capacity`` classes and is to tell apart the backward-KI classes of each
layer (``def:bki``), phi_F has ``forward_capacity`` and is to tell apart the forward-KI classes
(``def:fki``); with fewer classes than a layer has, it must merge some. What each needs is the
most classes of one layer, counted by the exact partitions (:func:`kinematic.backward_ki_partition`,
:func:`kinematic.forward_ki_partition`; in float mode too). The paper's ``N_BD`` and ``N_FD``
are these partitions' sizes over all layers, which messages give beside it; HOMER learns one
abstraction per time step, so the widest layer is what a capacity must reach.
:func:`check_capacities` refuses a run below it, or warns when the
configuration allows it (``allow_small_capacity``).

The partitions cost about as much as building the MDP: 0.01 s for the combination lock at
H = 100 (K = 10), 0.4 s for a float MDP of 10^5 states (H = 100, width 1,000, 10 actions),
5 s at 10^6 states, 2.2 s for an exact one of 10^4 states - less than the run's own copy of
the spec (``mdp.json``) takes to write.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from homer.config import HomerConfig
from homer.wording import setting
from kinematic.inseparability import backward_ki_partition, forward_ki_partition
from kinematic.model import BlockMDP

__all__ = ["CapacityTooSmall", "Requirement", "SmallCapacityWarning", "check_capacities",
           "required_capacities"]


class CapacityTooSmall(ValueError):
    """A capacity of the configuration is below the MDP's N_BD or N_FD."""


class SmallCapacityWarning(UserWarning):
    """A run goes on with a capacity below the MDP's N_BD or N_FD (``allow_small_capacity``)."""


@dataclass(frozen=True)
class Requirement:
    """The classes one learned abstraction must tell apart in the widest layer."""

    dimension: str
    """``N_BD`` or ``N_FD``."""
    relation: str
    """``backward-KI`` or ``forward-KI``."""
    label: str
    """The relation's definition in the paper: ``def:bki`` or ``def:fki``."""
    abstraction: str
    """``phi_B`` or ``phi_F``."""
    classes: int
    """The most classes of one layer: what the capacity must reach."""
    layer: int
    """The first layer (counted from 1) with that many classes."""
    total: int
    """The dimension itself: the partition's number of classes over all layers."""

    def shortfall(self, name: str, capacity: int) -> str:
        """The shortfall of the capacity ``name`` = ``capacity`` in words."""
        return (f"{self.classes} {self.relation} classes in layer {self.layer} ({self.label}; "
                f"the most of any layer, {self.dimension} = {self.total} over all layers), "
                f"more than the {capacity} classes of {self.abstraction} "
                f"({setting(name, capacity)})")


def _widest(blocks_per_layer: tuple[int, ...]) -> tuple[int, int, int]:
    """The most blocks of a layer, the first layer (from 1) that has them, and the blocks of
    all layers."""
    most = max(blocks_per_layer)
    return most, blocks_per_layer.index(most) + 1, sum(blocks_per_layer)


_KINDS = {
    "backward_capacity": (backward_ki_partition, ("N_BD", "backward-KI", "def:bki", "phi_B")),
    "forward_capacity": (forward_ki_partition, ("N_FD", "forward-KI", "def:fki", "phi_F")),
}
"""Each capacity's exact partition and the words of its :class:`Requirement`."""


def _requirement(mdp: BlockMDP, name: str) -> Requirement:
    """What the capacity ``name`` must reach on ``mdp``; computes that capacity's partition
    only."""
    partition, words = _KINDS[name]
    return Requirement(*words, *_widest(partition(mdp).blocks_per_layer))


def required_capacities(mdp: BlockMDP) -> dict[str, Requirement]:
    """``backward_capacity`` and ``forward_capacity`` (the :class:`HomerConfig` fields) -> what
    each must reach on ``mdp``: the most backward-KI and forward-KI classes of one layer, with
    the layer that has them and the dimension ``N_BD`` / ``N_FD`` over all layers.

    >>> from kinematic.families import combination_lock
    >>> needs = required_capacities(combination_lock(horizon=4, actions=3, seed=0))
    >>> needs["backward_capacity"].classes, needs["backward_capacity"].total
    (2, 7)
    >>> needs["forward_capacity"].classes, needs["forward_capacity"].total
    (3, 9)
    """
    return {name: _requirement(mdp, name) for name in _KINDS}


def _learned(config: HomerConfig) -> tuple[str, ...]:
    """The capacities the run's objective uses: phi_B's unless it is the single class of
    ``one_class``, phi_F's when the forward model is trained (``contrastive`` only)."""
    if config.objective == "one_class":
        return ()
    if config.objective != "contrastive":
        return ("backward_capacity",)
    return ("backward_capacity", "forward_capacity")


def check_capacities(mdp: BlockMDP, config: HomerConfig) -> None:
    """Raise :class:`CapacityTooSmall` when a capacity ``config`` uses is below what ``mdp``
    requires (:func:`required_capacities`; only the partitions of those capacities are
    computed), naming the dimension, its layer, both numbers
    and the settings to change; with ``config.allow_small_capacity``, warn
    (:class:`SmallCapacityWarning`) and return.

    >>> from kinematic.families import combination_lock
    >>> lock = combination_lock(horizon=4, actions=3, seed=0)
    >>> check_capacities(lock, HomerConfig(forward_capacity=2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    homer.capacity.CapacityTooSmall: 'combolock-H4-K3-seed0' has 3 forward-KI classes in layer 2 ...
    """
    required = {name: _requirement(mdp, name) for name in _learned(config)}
    short = [(name, need) for name, need in required.items()
             if getattr(config, name) < need.classes]
    if not short:
        return
    facts = ", and ".join(need.shortfall(name, getattr(config, name)) for name, need in short)
    if config.allow_small_capacity:
        learners = " and ".join(need.abstraction for _, need in short)
        warnings.warn(SmallCapacityWarning(
            f"{mdp.name!r} has {facts}: running anyway ({setting('allow_small_capacity')}), "
            f"{learners} will merge some of them"), stacklevel=4)
        return
    fixes = [setting(name, need.classes) for name, need in short]
    widest = max(need.classes for _, need in short)
    if widest > config.pretraining_width:
        fixes.append(setting("pretraining_width", widest))
    learners = short[0][1].abstraction if len(short) == 1 else "each"
    raise CapacityTooSmall(
        f"{mdp.name!r} has {facts}: {learners} would have to merge some of them. Use "
        f"{', '.join(fixes)} (or more), or {setting('allow_small_capacity')} to run anyway.")
