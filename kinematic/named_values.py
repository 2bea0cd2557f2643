"""Per-layer results that read by name: ``eta`` and the visitations of a policy.

:func:`kinematic.eta`, :func:`kinematic.state_visitation` and
:func:`kinematic.visitation.observation_visitation` return one array per layer, as a tuple
(``eta(mdp)[h][i]`` is ``eta`` of ``mdp.layers[h][i]``, ``h`` counted from 0). The tuple is a
:class:`StateValues` (or :class:`ObservationValues`), which also knows the names of its entries:
``.by_state`` (``.by_observation``) maps each name to its number, an exact ``Fraction`` in exact
mode and a ``float`` in float mode. A name the MDP does not have raises
:class:`kinematic.UnknownName` naming the closest ones.

>>> from kinematic import combination_lock, eta
>>> values = eta(combination_lock(horizon=3, actions=2, seed=0))
>>> values.by_state["s3c"], values[2][2]
(Fraction(1, 1), Fraction(1, 1))
>>> values.by_state["s3d"]
Traceback (most recent call last):
kinematic.errors.UnknownName: by_state: unknown state 's3d' (did you mean 's3c' or 's3b' or 's3a'?)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Self

import numpy as np

from kinematic.lookup import unknown_name
from kinematic.numbers import Number

__all__ = ["ByName", "ObservationValues", "StateValues"]


class ByName(dict[str, Number]):
    """Name -> number, in the order of the layers; a missing name raises
    :class:`kinematic.UnknownName` (a ``KeyError``) naming ``argument`` and the closest names."""

    def __init__(self, values: Iterable[tuple[str, Number]], kind: str, argument: str) -> None:
        super().__init__(values)
        self._kind = kind
        self._argument = argument

    def __missing__(self, name: str) -> Number:
        raise unknown_name(self._kind, name, list(self), self._argument)


class _NamedLayers(tuple[np.ndarray, ...]):
    """One array per layer, and the names of its entries (``names[h][i]`` is entry ``i`` of
    layer ``h``); compares, indexes and prints as the plain tuple of arrays."""

    kind: ClassVar[str]
    names: tuple[tuple[str, ...], ...]

    def __new__(cls, arrays: Iterable[np.ndarray], names: tuple[tuple[str, ...], ...]) -> Self:
        self = super().__new__(cls, arrays)
        shapes = [len(values) for values in self]
        if shapes != [len(layer) for layer in names]:
            raise ValueError(f"{cls.__name__}: arrays of lengths {shapes} for the {cls.kind} "
                             f"names of lengths {[len(layer) for layer in names]}")
        self.names = names
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (tuple(self), self.names)

    def _by_name(self, argument: str) -> ByName:
        return ByName(((name, value) for layer, values in zip(self.names, self, strict=True)
                       for name, value in zip(layer, values.tolist(), strict=True)),
                      self.kind, argument)


class StateValues(_NamedLayers):
    """A number per state, one array per layer (over ``mdp.layers[h]``): :func:`kinematic.eta`,
    :func:`kinematic.state_visitation`.

    >>> from kinematic import combination_lock, eta
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> {state: str(value) for state, value in eta(lock).by_state.items() if value < 1}
    {'s1a': '1/2', 's1b': '1/2', 's2a': '1/2', 's2b': '1/2', 's3a': '1/2', 's3b': '1/2'}
    """

    kind = "state"

    @property
    def by_state(self) -> ByName:
        """State name -> its number (``Fraction`` in exact mode, ``float`` in float mode)."""
        return self._by_name("by_state")


class ObservationValues(_NamedLayers):
    """A number per observation, one array per layer (over ``mdp.observations[h]``):
    :func:`kinematic.observation_visitation`, :func:`kinematic.visitation.observation_values`.

    >>> from kinematic import block_mdp, observation_visitation, uniform_policy
    >>> mdp = block_mdp("noisy", layers=[["s1"]], actions=["a"], start={"s1": 1},
    ...                 transitions={}, emissions={"s1": {"x": "1/4", "y": "3/4"}})
    >>> observation_visitation(mdp, uniform_policy(mdp)).by_observation
    {'x': Fraction(1, 4), 'y': Fraction(3, 4)}
    """

    kind = "observation"

    @property
    def by_observation(self) -> ByName:
        """Observation name -> its number (``Fraction`` in exact mode, ``float`` in float
        mode)."""
        return self._by_name("by_observation")
