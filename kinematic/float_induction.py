"""Float-mode ``eta``: batched backward induction with a stopping rule and a single-precision
tail (paper, Section 2, ``def:homing``; used by :func:`kinematic.homing.eta`).

For the targets of one layer (one column each, ``V_h`` their unit vectors) the induction
computes ``V_t(s) = max_a sum_s' T(s'|s, a) V_{t+1}(s')`` back to layer 1 and ``eta = mu^T V_1``.

**Deviations.** Rows of ``T`` sum to 1, so a Bellman step commutes with adding a constant to a
column: each column is kept as ``offset + D`` with ``min_s D(s) = 0``, the offsets summed in
float64 and the step run on the deviations ``D`` alone.

**Stopping rule.** Every later value of a column (and the answer) is a convex combination of
maxima of convex combinations of its values in ``V_t``, so it lies in
``[offset, offset + max D]``: a column whose spread ``max D`` is at most ``2 error`` stops with
the midpoint, within ``error`` of the answer (well-mixing MDPs stop after a few dozen steps,
whatever the horizon).

**Single precision.** Once a column's spread is small, its deviations need few correct digits
relative to their own size: the step then runs in float32 (the product over twice as fast on a
width-1,000 layer). The step is non-expansive in the max norm, so the rounding of each float32
step adds at most its bound to the final error, and the column carries the sum ``spent``:

- one float32 step of a layer with at most ``d`` successors per state-action pair rounds the
  transition probabilities (1), the products (1), the ``d - 1`` sums, the deviations converted
  to float32 (1) and the new shift (1), each relatively on non-negative quantities; the step's
  error is within ``2 gamma_{d+3}`` (``gamma_n = n u / (1 - n u)``, ``u = 2**-24``, the factor 2
  covering the row sums above 1 and the products of the bounds) times the larger of the
  spreads before and after it, plus ``(d + 3) 2**-149`` for underflow
  (:func:`single_precision_step_bound`);
- a column switches to float32 when the bound of a step is at most ``error / 8`` (so that with
  spreads that halve each step it spends at most ``error / 4``) and returns to float64 before
  a step whose bound, at the spread before it, would take ``spent`` past ``error / 2`` (a step
  raises a spread by its rounding at most, so ``spent`` stays within ``error / 2`` up to a
  relative ``10**-6``); its first step and the last one (from layer 1) run in float64;
- it stops once ``spread / 2 + spent <= error``; a column that reaches layer 1 gets
  ``offset + mu^T V_1`` (float64), within ``spent``, about ``error / 2`` at most.

Either way every ``eta`` is within ``error`` of the exact value of the float MDP, plus the
rounding of the float64 steps (of order ``H d 2**-52`` relative), as before the float32 tail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kinematic.certified_induction import rounding_gamma
from kinematic.model import BlockMDP

__all__ = [
    "SINGLE_PRECISION_SHARE",
    "single_precision_step_bound",
    "start_values",
]

SINGLE_PRECISION_SHARE = 1 / 8
"""A column switches to float32 when one step's rounding bound is at most this share of the
requested error (see the module docstring)."""

_UNIT_ROUNDOFF = 2.0**-24
_SMALLEST_SUBNORMAL = 2.0**-149


def single_precision_step_bound(successors: int, spread: np.ndarray) -> np.ndarray:
    """Upper bound on the max-norm error that one float32 step of a layer with at most
    ``successors`` non-zero entries per row adds to a column whose spreads before and after the
    step are at most ``spread`` (module docstring)."""
    roundings = successors + 3
    gamma = rounding_gamma(roundings, _UNIT_ROUNDOFF)
    return 2 * gamma * spread + roundings * _SMALLEST_SUBNORMAL


@dataclass
class _Columns:
    """Running columns in one precision: their target indices, float64 offsets, rounding bound
    spent in float32 so far, deviations (one column each, column minima 0) and their maxima
    (the spreads, float64)."""

    targets: np.ndarray
    offset: np.ndarray
    spent: np.ndarray
    deviations: np.ndarray
    spread: np.ndarray

    def take(self, keep: np.ndarray) -> _Columns:
        return _Columns(self.targets[keep], self.offset[keep], self.spent[keep],
                        self.deviations[:, keep], self.spread[keep])

    def converted(self, dtype: type) -> _Columns:
        return _Columns(self.targets, self.offset, self.spent,
                        self.deviations.astype(dtype, copy=False), self.spread)

    def joined(self, other: _Columns) -> _Columns:
        """Both sets of columns (an empty set may hold deviations of an earlier layer)."""
        if not len(other.targets):
            return self
        if not len(self.targets):
            return other
        return _Columns(np.concatenate([self.targets, other.targets]),
                        np.concatenate([self.offset, other.offset]),
                        np.concatenate([self.spent, other.spent]),
                        np.concatenate([self.deviations, other.deviations], axis=1),
                        np.concatenate([self.spread, other.spread]))


def _bellman_step(mdp: BlockMDP, t: int, columns: _Columns, single: bool) -> None:
    """Replace the columns' deviations by those of ``V_t`` (shifted to minimum 0, the shift
    added to the offsets) and their spreads."""
    matrix = (mdp.single_precision_transitions if single else mdp.action_major_transitions)[t]
    width, count = mdp.width(t), columns.deviations.shape[1]
    values = np.asarray(matrix @ columns.deviations).reshape(mdp.number_of_actions, width, count)
    values = values.max(axis=0)
    low = values.min(axis=0)
    values -= low
    columns.deviations = values
    columns.offset += low
    columns.spread = values.max(axis=0).astype(np.float64)


def start_values(mdp: BlockMDP, target_layer: int, terminal: np.ndarray, error: float
                 ) -> np.ndarray:
    """``max_pi E_pi[terminal(s_h)]`` for each column of ``terminal`` (float mode,
    ``target_layer >= 1``), each within ``error`` plus the rounding of float64 steps (module
    docstring)."""
    count = terminal.shape[1]
    result = np.zeros(count)
    low = terminal.min(axis=0)
    deviations = np.asarray(terminal - low, dtype=np.float64)
    groups = {
        False: _Columns(np.arange(count), low.astype(np.float64), np.zeros(count), deviations,
                        deviations.max(axis=0)),
        True: _Columns(np.arange(0), np.zeros(0), np.zeros(0),
                       np.zeros((len(terminal), 0), dtype=np.float32), np.zeros(0)),
    }
    for t in range(target_layer - 1, 0, -1):
        for single, columns in groups.items():
            if not len(columns.targets):
                continue
            previous = columns.spread
            _bellman_step(mdp, t, columns, single)
            if single:
                columns.spent += single_precision_step_bound(
                    mdp.successor_bounds[t], np.maximum(previous, columns.spread))
            done = columns.spread / 2 + columns.spent <= error
            if done.any():
                result[columns.targets[done]] = (columns.offset[done]
                                                 + columns.spread[done] / 2)
                groups[single] = columns.take(~done)
        if not any(len(columns.targets) for columns in groups.values()):
            return result
        if t > 1:  # the last step (layer 1) runs in float64
            groups = _regrouped(groups, mdp.successor_bounds[t - 1], error)
    columns = groups[False].joined(groups[True].converted(np.float64))
    _bellman_step(mdp, 0, columns, single=False)
    result[columns.targets] = columns.offset + np.asarray(mdp.start @ columns.deviations)
    return result


def _regrouped(groups: dict[bool, _Columns], successors: int, error: float
               ) -> dict[bool, _Columns]:
    """Move columns between float64 and float32 for the next step (switching rule of the
    module docstring)."""
    staying, moving = {}, {}
    for single, columns in groups.items():
        bound = single_precision_step_bound(successors, columns.spread)
        allowed = columns.spent + bound <= error / 2
        if not single:
            allowed &= bound <= SINGLE_PRECISION_SHARE * error
        leave = ~allowed if single else allowed
        moving[single] = columns.take(leave).converted(np.float64 if single else np.float32)
        staying[single] = columns.take(~leave) if leave.any() else columns
    return {False: staying[False].joined(moving[True]),
            True: staying[True].joined(moving[False])}
