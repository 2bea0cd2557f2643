"""Every abstraction of a set of observations, and two population losses over all of them at once.

The inverse-dynamics family of objectives (AC-State, ACDF; :mod:`kinematic.counterexamples.acdf`,
:mod:`kinematic.counterexamples.acdf_layered`) ask which encoders ``phi`` (set partitions of the
observations, with a class per block) attain a Bayes-optimal population loss. With ``m``
observations there are ``Bell(m)`` encoders (``Bell(10) = 115,975``); this module enumerates them
as label vectors and evaluates, for a joint table ``J(x, a, y)``, with ``phi`` on ``x`` and
``psi`` on ``y``:

- whether ``p(a | phi(x), psi(y)) = p(a | x, y)`` wherever ``J(x, ., y) > 0`` (exact: the fine
  posteriors are compared as Fractions once, then each block pair ``(c, c')`` must hold a single
  distinct posterior - a mixture of posteriors equals each of them iff they are all equal);
- the conditional entropies ``H(a | phi(x), psi(y))`` and ``H(psi(y) | phi(x), a)`` in nats
  (floats from the exact probabilities), and whether the latter is 0 (exact: on the support).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np
from scipy.special import xlogy

__all__ = [
    "ENCODER_LIMIT",
    "LatentTables",
    "keeps_posteriors",
    "latent_tables",
    "partition_name",
    "posterior_ids",
    "set_partitions",
]

ENCODER_LIMIT = 10**6
"""The largest number of encoders (or of products of encoders) a search enumerates."""

_CHUNK = 8192


def set_partitions(size: int, limit: int = ENCODER_LIMIT) -> np.ndarray:
    """Every set partition of ``range(size)`` as a label vector (restricted growth strings: the
    first element has label 0, each later one an old label or the next new one), shape
    ``(Bell(size), size)``, in lexicographic order (so the one-class partition comes first and
    the singletons last).

    >>> set_partitions(3).tolist()
    [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 2]]
    >>> len(set_partitions(10))
    115975
    """
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    rows = np.zeros((1, 1), dtype=np.int8)
    for _ in range(1, size):
        children = rows.max(axis=1).astype(np.int64) + 2
        if children.sum() > limit:
            raise ValueError(f"{size} observations have more than {limit} partitions (the "
                             "limit of an exhaustive search)")
        parents = np.repeat(rows, children, axis=0)
        first = np.repeat(np.cumsum(children) - children, children)
        values = (np.arange(len(parents)) - first).astype(np.int8)
        rows = np.column_stack([parents, values])
    return rows


def partition_name(labels: np.ndarray, names: list[str] | None = None) -> str:
    """The partition's blocks, by first member, members joined by ``,`` and blocks by ``|``.

    >>> partition_name(np.array([0, 1, 0, 2]))
    '0,2|1|3'
    """
    names = names or [str(i) for i in range(len(labels))]
    blocks: dict[int, list[str]] = {}
    for i, label in enumerate(labels):
        blocks.setdefault(int(label), []).append(names[i])
    return "|".join(",".join(block) for block in blocks.values())


def posterior_ids(joint: np.ndarray) -> np.ndarray:
    """``ids[x, y]``: equal for pairs with equal ``p(a | x, y)`` (exact comparison), ``-1`` where
    ``J(x, ., y) = 0``. ``joint`` has shape ``(m1, |A|, m2)``.

    >>> from fractions import Fraction as F
    >>> joint = np.array([[[F(1, 4), F(1, 4)], [F(1, 4), F(0)]]], dtype=object)  # x, a, y
    >>> posterior_ids(joint).tolist()
    [[0, 1]]
    """
    numbering: dict[tuple[Fraction, ...], int] = {}
    ids = np.full((joint.shape[0], joint.shape[2]), -1)
    for x in range(joint.shape[0]):
        for y in range(joint.shape[2]):
            column = [Fraction(p) for p in joint[x, :, y]]
            total = sum(column)
            if total:
                ids[x, y] = numbering.setdefault(tuple(p / total for p in column),
                                                 len(numbering))
    return ids


def _same_class(labels: np.ndarray) -> np.ndarray:
    """``(E, m * m)``: 1.0 where observations ``x1, x2`` share a class."""
    return (labels[:, :, None] == labels[:, None, :]).reshape(len(labels), -1).astype(np.float32)


def _conflicts(ids: np.ndarray) -> np.ndarray:
    """``(m1 * m1, m2 * m2)``: 1.0 where ``(x1, y1)`` and ``(x2, y2)`` both have mass and
    different posteriors (so no encoder may put ``x1, x2`` together and ``y1, y2`` together)."""
    first = ids[:, None, :, None]
    second = ids[None, :, None, :]
    clash = (first >= 0) & (second >= 0) & (first != second)
    return clash.reshape(ids.shape[0] ** 2, ids.shape[1] ** 2).astype(np.float32)


def keeps_posteriors(ids: np.ndarray, left: np.ndarray, right: np.ndarray | None = None,
                     grid: bool = False) -> np.ndarray:
    """Whether the encoders keep every posterior ``p(a | x, y)`` of :func:`posterior_ids`.

    ``left`` (``(E1, m1)``) encodes ``x`` and ``right`` (``(E2, m2)``, default ``left``: one
    encoder on both ends) ``y``. Row by row (``E1 == E2``, shape ``(E,)``), or every pair
    (``grid``, shape ``(E1, E2)``). A float32 product of 0/1 matrices counts the conflicts
    (exact: counts stay below 2^24).

    >>> ids = np.array([[0, 1], [0, 1]])  # the posterior depends on y only
    >>> keeps_posteriors(ids, np.array([[0, 0], [0, 1]]), np.array([[0, 0], [0, 1]])).tolist()
    [False, True]
    >>> keeps_posteriors(ids, np.array([[0, 0]]), np.array([[0, 0], [0, 1]]), grid=True).tolist()
    [[False, True]]
    """
    conflicts = _conflicts(ids)
    right = left if right is None else right
    if grid:
        through = np.vstack([_same_class(part) @ conflicts for part in _chunks(left)])
        return np.hstack([through @ _same_class(part).T == 0 for part in _chunks(right)])
    if len(left) != len(right):
        raise ValueError(f"row by row needs as many left as right encoders, got {len(left)} "
                         f"and {len(right)}")
    return np.concatenate([
        ((_same_class(left[i:i + _CHUNK]) @ conflicts) * _same_class(right[i:i + _CHUNK]))
        .sum(axis=1) == 0 for i in range(0, len(left), _CHUNK)])


def _chunks(labels: np.ndarray) -> Iterator[np.ndarray]:
    for i in range(0, len(labels), _CHUNK):
        yield labels[i:i + _CHUNK]


class LatentTables:
    """The joint ``J(x, a, y)`` reduced by encoders ``phi`` of ``x`` and ``psi`` of ``y``, one
    pair of encoders per row: ``R[e, a, c, c'] = sum J(x, a, y)`` over ``phi_e(x) = c``,
    ``psi_e(y) = c'`` (floats), and ``support[e, a, c, c']`` whether some term is positive."""

    def __init__(self, joint: np.ndarray, left: np.ndarray, right: np.ndarray) -> None:
        m1, actions, m2 = joint.shape
        weights = np.asarray(joint, dtype=float).transpose(1, 0, 2).reshape(actions, -1)
        positive = (weights > 0).astype(float)
        rows = len(left)
        index = ((np.arange(rows)[:, None, None] * m1 + left[:, :, None]) * m2
                 + right[:, None, :]).reshape(rows, -1)
        flat = index.ravel()
        self.tables = np.stack([
            np.bincount(flat, np.tile(weights[a], rows), rows * m1 * m2).reshape(rows, m1, m2)
            for a in range(actions)], axis=1)
        self.support = np.stack([
            np.bincount(flat, np.tile(positive[a], rows), rows * m1 * m2).reshape(rows, m1, m2)
            for a in range(actions)], axis=1) > 0

    def _entropy_given(self, condition: np.ndarray) -> np.ndarray:
        """``H(a, c, c') - H(condition)`` per row, in nats (rounding below 0 clipped);
        ``condition`` is a two-axis marginal of the tables."""
        tables = self.tables
        return np.maximum(-xlogy(tables, tables).sum(axis=(1, 2, 3))
                          + xlogy(condition, condition).sum(axis=(1, 2)), 0.0)

    def action_entropy(self) -> np.ndarray:
        """``H(a | phi(x), psi(y))`` per row, in nats: ``H(a, c, c') - H(c, c')``."""
        return self._entropy_given(self.tables.sum(axis=1))

    def forward_entropy(self) -> np.ndarray:
        """``H(psi(y) | phi(x), a)`` per row, in nats: ``H(a, c, c') - H(a, c)``."""
        return self._entropy_given(self.tables.sum(axis=3))

    def forward_deterministic(self) -> np.ndarray:
        """Whether ``psi(y)`` is a function of ``(phi(x), a)`` on the support (exact), i.e. the
        forward entropy is exactly 0."""
        return (self.support.sum(axis=3) <= 1).all(axis=(1, 2))


def latent_tables(joint: np.ndarray, left: np.ndarray, right: np.ndarray | None = None
                  ) -> Iterator[LatentTables]:
    """:class:`LatentTables` of ``joint`` for the rows of ``left`` and ``right`` (default
    ``left``), in chunks of a few thousand rows (memory stays in megabytes)."""
    right = left if right is None else right
    for i in range(0, len(left), _CHUNK):
        yield LatentTables(joint, left[i:i + _CHUNK], right[i:i + _CHUNK])
