"""The non-zero entries of exact (object) matrices, and sums over them.

Exact mode stores transitions as dense object arrays; a random width-100 layer with 10 actions
and 5 successors per pair holds 10^5 entries of which 5,000 are non-zero. numpy's object
reductions, products and comparisons call a ``Fraction`` method on every zero (about 0.3-1 us
each); :attr:`kinematic.model.BlockMDP.transition_entries` finds each layer's non-zero entries
once, and the partitions, the canonical form and exact ``eta`` work on those only.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["Entries", "nonzero_entries", "sum_by"]

Entries = tuple[np.ndarray, np.ndarray, list[Fraction]]
"""Row indices, column indices (row-major order) and values of a matrix's non-zero entries."""

_ZERO = Fraction(0)


def nonzero_entries(matrix: np.ndarray) -> Entries:
    """The :data:`Entries` of a 2-d exact matrix.

    >>> nonzero_entries(np.array([[0, Fraction(1, 2)], [Fraction(1, 3), 0]], dtype=object))
    (array([0, 1]), array([1, 0]), [Fraction(1, 2), Fraction(1, 3)])
    """
    rows, columns = np.nonzero(matrix)
    return rows, columns, matrix[rows, columns].tolist()


def sum_by(keys: np.ndarray, values: list[Fraction], size: int) -> np.ndarray:
    """``totals[k]`` = the sum of the ``values`` whose key is ``k``, as a ``Fraction`` object
    array of length ``size`` (its zeros one shared ``Fraction(0)``, as in ``NumberMode.zeros``).

    >>> sum_by(np.array([2, 0, 2]), [Fraction(1, 2), Fraction(1, 3), Fraction(1, 4)], 3).tolist()
    [Fraction(1, 3), Fraction(0, 1), Fraction(3, 4)]
    """
    totals = [_ZERO] * size
    for key, value in zip(keys.tolist(), values, strict=True):
        total = totals[key]
        totals[key] = value if total is _ZERO else total + value
    result = np.empty(size, dtype=object)
    result[:] = totals
    return result
