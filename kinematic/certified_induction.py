"""Exact ``eta(s)`` for every state of a large exact Block MDP (``def:homing``, Section 2).

The batched induction of :func:`kinematic.homing.eta` computes
``V_t = max_a T_a V_{t+1}`` with ``Fraction`` matrices: every action's values, on dense
matrices, with fractions whose denominators grow with the depth. By ``lem:homing_deterministic``
the maximum is attained by a deterministic policy, and only its action's values are needed.
Here each step of a target layer's induction runs in three parts:

1. **Floats decide.** Each row of ``T`` sums to 1 exactly, so ``Q_a = min V + T_a (V - min V)``
   column by column: the argmax depends on the deviations ``V - min V`` only. These are
   computed exactly from the integer values of the previous step (part 3), scaled per column
   by a power of two and correctly rounded to float64; ``T_a`` times them runs in float64 on
   the correctly rounded probabilities. Every quantity is non-negative and only multiplied and
   added, so each float ``q~`` of an exact ``q`` satisfies ``|q~ - q| <= gamma_n q`` with
   ``gamma_n = n u / (1 - n u)``, ``u = 2^-53`` and ``n = 3 + d`` roundings (the deviation,
   the probability, the product, and one per addition of a row's ``d`` products), as long as
   nothing underflows. An action whose float value exceeds every other action's by more than
   that relative margin is the exact argmax, and a float zero is an exact zero. Because the
   floats are rebuilt from exact values at every step, the margin does not grow with the
   depth, and deviations keep their own scale: deep in a mixing MDP, where a column's values
   agree to hundreds of bits, its deviations still decide.
2. **Integers settle the rest.** Where two actions' float ``Q`` lie within the margin (ties
   included), their ``Q`` are computed exactly and compared; the first maximal action wins, as
   in :func:`kinematic.homing._greedy_actions`.
3. **Integers evaluate.** ``V_t`` of the chosen actions in exact integers: each layer's
   probabilities scaled to integers by their common denominator, one multiply-add per
   successor instead of one per successor and action, on Python integers instead of fractions.

A step whose floats could underflow (a non-zero deviation, or the smallest positive deviation
times the smallest probability, below :data:`SAFE_MINIMUM`) gives up (``None``), and the caller
falls back to the ``Fraction`` induction. Target layers run in separate processes (``fork``)
when the work is large (:data:`PARALLEL_OPERATIONS`).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from kinematic.model import BlockMDP

__all__ = [
    "PARALLEL_OPERATIONS",
    "SAFE_MINIMUM",
    "IntegerLayer",
    "certified_maximum_visitation",
    "exact_operations",
    "integer_layers",
    "layer_eta",
    "rounding_gamma",
]

UNIT_ROUNDOFF = 2.0**-53


def rounding_gamma(roundings: int, unit_roundoff: float = UNIT_ROUNDOFF) -> float:
    """``gamma_n = n u / (1 - n u)``: the relative error bound of ``n`` roundings of
    non-negative quantities, unit roundoff ``u`` (float64's by default)."""
    return roundings * unit_roundoff / (1 - roundings * unit_roundoff)


SAFE_MINIMUM = 1e-300
"""Products of at least this size are normal float64 numbers (the smallest is 2.2e-308): no
underflow, so relative error bounds hold and a float zero is an exact zero."""
PARALLEL_OPERATIONS = 10**7
"""Integer multiply-adds (:func:`exact_operations`) above which target layers run in one process
per CPU."""


@dataclass(frozen=True)
class IntegerLayer:
    """One layer's transitions ``T_t`` for :func:`layer_eta`, action-major (``T[a]`` first).

    Attributes
    ----------
    successors : intp ndarray, shape (|A|, n_t, d)
        The next states of each pair (padded with state 0 and numerator 0).
    numerators : object ndarray of int, shape (|A|, n_t, d)
        ``T(successor | s, a) * denominator``.
    denominator : int
        The least common denominator of the layer's probabilities.
    floats : csr_array, shape (|A| n_t, n_{t+1})
        The probabilities correctly rounded to float64, row ``a n_t + s``.
    smallest : float
        The smallest positive float probability.
    """

    successors: np.ndarray
    numerators: np.ndarray
    denominator: int
    floats: sp.csr_array
    smallest: float

    @property
    def roundings(self) -> int:
        """Roundings behind one float ``Q``: the deviation, the probability, the product, and
        one per addition of a row's ``d`` products."""
        return 3 + self.successors.shape[2]


def _integer_layer(mdp: BlockMDP, t: int) -> IntegerLayer:
    """The :class:`IntegerLayer` of layer ``t`` of an exact MDP."""
    actions = mdp.number_of_actions
    pairs, next_width = mdp.transitions[t].shape
    state_major, columns, values = mdp.transition_entries[t]
    rows = (state_major % actions) * (pairs // actions) + state_major // actions
    order = np.argsort(rows, kind="stable")
    rows, columns, values = rows[order], columns[order], [values[i] for i in order.tolist()]
    counts = np.bincount(rows, minlength=pairs)
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    denominator = math.lcm(*{value.denominator for value in values})
    successors = np.zeros((pairs, int(counts.max())), dtype=np.intp)
    successors[rows, slot] = columns
    numerators = np.zeros(successors.shape, dtype=object)
    numerators.fill(0)
    numerators[rows, slot] = [value.numerator * (denominator // value.denominator)
                              for value in values]
    floats = np.array([float(value) for value in values])
    sums = numerators.sum(axis=1)
    if (sums != denominator).any():  # Q_a = min V + T_a (V - min V) needs stochastic rows
        pair = int(np.flatnonzero(sums != denominator)[0])  # action-major: a n_t + s
        width = pairs // actions
        raise ValueError(f"layer {t + 1}, state {mdp.layers[t][pair % width]!r}, action "
                         f"{mdp.actions[pair // width]!r}: probabilities sum to "
                         f"{Fraction(sums[pair], denominator)}, not 1")
    return IntegerLayer(
        successors=successors.reshape(actions, pairs // actions, -1),
        numerators=numerators.reshape(actions, pairs // actions, -1),
        denominator=denominator,
        floats=sp.csr_array((floats, (rows, columns)), shape=(pairs, next_width)),
        smallest=float(floats.min()),
    )


def integer_layers(mdp: BlockMDP) -> tuple[IntegerLayer, ...]:
    """The :class:`IntegerLayer` of every layer of an exact MDP."""
    if not mdp.mode.exact:
        raise ValueError(f"{mdp.name!r} is in float mode; integer layers need exact numbers")
    return tuple(_integer_layer(mdp, t) for t in range(mdp.horizon - 1))


def _settle_uncertain(layer: IntegerLayer, q: np.ndarray, top: np.ndarray, margin: float,
                      uncertain: np.ndarray, values: np.ndarray, best: np.ndarray) -> None:
    """Set ``best`` to the first exact argmax where the float values could not decide: among
    the actions whose float ``Q`` lies within ``margin`` (relative) of the top, compare exact
    integer ``Q`` (the layer's scale is common to all actions)."""
    states, columns = np.nonzero(uncertain)
    if not len(states):
        return
    exact = (layer.numerators[:, states]
             * values[layer.successors[:, states], columns[None, :, None]]).sum(axis=2)
    candidate = q[:, states, columns] * (1 + margin) >= top[states, columns]
    exact[~candidate] = -1
    best[states, columns] = exact.argmax(axis=0)


def _float_deviations(values: np.ndarray) -> np.ndarray | None:
    """``(V - min V) / 2^e`` per column of the exact integer values ``V``, each correctly
    rounded to float64 (``int / int`` division), ``2^e`` the largest power of two not above the
    column's largest deviation; ``None`` if a non-zero deviation underflows (below
    :data:`SAFE_MINIMUM`)."""
    deviations = values - values.min(axis=0)[None, :]
    powers = np.empty(values.shape[1], dtype=object)
    powers[:] = [1 << max(int(top).bit_length() - 1, 0) for top in deviations.max(axis=0)]
    result = (deviations / powers[None, :]).astype(np.float64)
    if ((result < SAFE_MINIMUM) & deviations.astype(bool)).any():
        return None
    return result


def layer_eta(layers: tuple[IntegerLayer, ...], start: np.ndarray, target_layer: int
              ) -> list[Fraction] | None:
    """``eta`` of every state of ``target_layer`` (from 0, at least 1), exactly, from the
    :class:`IntegerLayer` list and the exact start distribution; ``None`` if a step could
    underflow (see the module docstring)."""
    width = layers[target_layer - 1].floats.shape[1]
    columns = np.arange(width)
    values = np.zeros((width, width), dtype=object)
    values.fill(0)
    values[columns, columns] = 1
    scale = 1
    for t in range(target_layer - 1, -1, -1):
        layer = layers[t]
        deviations = _float_deviations(values)
        if deviations is None:
            return None
        positive = deviations[deviations > 0]
        if positive.size and positive.min() * layer.smallest < SAFE_MINIMUM:
            return None
        gamma = rounding_gamma(layer.roundings)
        margin = 4 * gamma + 8 * UNIT_ROUNDOFF  # (1 + gamma) / (1 - gamma) with room to spare
        actions, states = layer.successors.shape[:2]
        q = (layer.floats @ deviations).reshape(actions, states, width)
        best = q.argmax(axis=0)
        top = np.take_along_axis(q, best[None], axis=0)[0]
        np.put_along_axis(q, best[None], -1.0, axis=0)
        second = q.max(axis=0)
        np.put_along_axis(q, best[None], top[None], axis=0)
        uncertain = (second >= 0) & (top <= second * (1 + margin))
        uncertain &= top > 0  # all-zero rows: every action's Q is the column's minimum
        _settle_uncertain(layer, q, top, margin, uncertain, values, best)
        rows = np.arange(states)[:, None]
        values = (layer.numerators[best, rows]
                  * values[layer.successors[best, rows], columns[None, :, None]]).sum(axis=2)
        scale *= layer.denominator
    start_denominator = math.lcm(*{Fraction(p).denominator for p in start})
    start_numerators = np.array(
        [int(Fraction(p) * start_denominator) for p in start], dtype=object)
    return [Fraction(int(total), start_denominator * scale)
            for total in start_numerators @ values]


_SHARED: tuple[tuple[IntegerLayer, ...], np.ndarray] | None = None
"""The layers and start of the running :func:`certified_maximum_visitation`, inherited by its
forked workers."""


def _shared_layer_eta(target_layer: int) -> tuple[int, list[Fraction] | None]:
    assert _SHARED is not None, "certified_maximum_visitation sets it before forking"
    layers, start = _SHARED
    return target_layer, layer_eta(layers, start, target_layer)


def exact_operations(mdp: BlockMDP) -> int:
    """The integer multiply-adds of eta for all states (part 3 of the module docstring): the
    induction of layer ``h`` (``W_h`` targets) evaluates, at each earlier layer ``t``, the
    chosen action of each of the ``W_t`` states with its ``d_t`` successors (``d_t`` the most of
    any pair), ``W_t d_t W_h`` in all."""
    per_step = [mdp.width(t) * int(np.bincount(pairs).max())
                for t, (pairs, _, _) in enumerate(mdp.transition_entries)]
    before = np.cumsum([0, *per_step])
    return int(sum(int(before[h]) * mdp.width(h) for h in range(1, mdp.horizon)))


def certified_maximum_visitation(mdp: BlockMDP, workers: int | None = None
                                 ) -> dict[int, list[Fraction] | None]:
    """Target layer (from 0, at least 1) -> the exact ``eta`` of its states by
    :func:`layer_eta` (``None`` where it gave up), for an exact MDP. Layers run in ``workers``
    forked processes (default: one per CPU) when the work exceeds :data:`PARALLEL_OPERATIONS`
    and ``fork`` is available; otherwise in this process, longest first."""
    global _SHARED
    layers = integer_layers(mdp)
    targets = list(range(mdp.horizon - 1, 0, -1))
    processes = min(workers or os.cpu_count() or 1, len(targets))
    if (processes < 2 or exact_operations(mdp) < PARALLEL_OPERATIONS
            or "fork" not in multiprocessing.get_all_start_methods()):
        return {h: layer_eta(layers, mdp.start, h) for h in targets}
    _SHARED = (layers, mdp.start)
    try:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            return dict(pool.imap_unordered(_shared_layer_eta, targets))
    finally:
        _SHARED = None
