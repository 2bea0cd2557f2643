"""Places the label of each edge along its edge so that labels overlap neither each other nor the
nodes, and sit on other edges as little as possible (greedy, edge by edge): in a layered drawing
every label put at the same fraction of its edge lands in the same column, where the labels of
crossing or converging edges would pile up or sit on a crossing.

Geometry only: points (or any unit equal on both axes), no matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["CANDIDATES", "Box", "label_boxes", "overlap_free", "place_labels"]

Point = tuple[float, float]
Box = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` with ``x0 <= x1`` and ``y0 <= y1``."""

CANDIDATES = (0.5, 0.35, 0.65, 0.25, 0.75, 0.42, 0.58, 0.3, 0.7)
"""Fractions of the way from an edge's source to its target tried for its label, in order."""


def _label_box(edge: tuple[Point, Point], size: tuple[float, float], fraction: float) -> Box:
    """The box of a label of ``size`` centred ``fraction`` of the way along ``edge``."""
    (x0, y0), (x1, y1) = edge
    x, y = x0 + fraction * (x1 - x0), y0 + fraction * (y1 - y0)
    return x - size[0] / 2, y - size[1] / 2, x + size[0] / 2, y + size[1] / 2


def _overlap(box: Box, boxes: np.ndarray) -> float:
    """The area ``box`` shares with ``boxes`` (rows ``x0, y0, x1, y1``), summed."""
    width = np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])
    height = np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])
    return float(np.sum(np.clip(width, 0, None) * np.clip(height, 0, None)))


def _crossing(box: Box, segments: np.ndarray) -> float:
    """The total length of ``segments`` (rows ``x0, y0, x1, y1``) inside ``box``
    (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = segments.T
    dx, dy = x1 - x0, y1 - y0
    low, high = np.zeros(len(segments)), np.ones(len(segments))
    for step, room in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]),
                       (dy, box[3] - y0)):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = room / step
        low = np.where(step < 0, np.maximum(low, ratio), low)
        high = np.where(step > 0, np.minimum(high, ratio), high)
        high = np.where((step == 0) & (room < 0), -1.0, high)  # parallel, outside
    return float(np.sum(np.clip(high - low, 0, None) * np.hypot(dx, dy)))


def place_labels(edges: Sequence[tuple[Point, Point]], sizes: Sequence[tuple[float, float]],
                 obstacles: Sequence[Box] = ()) -> list[float]:
    """For each edge ``(source, target)``, the fraction of the way along it at which to centre
    its label of ``(width, height)``: of :data:`CANDIDATES`, the one whose label overlaps the
    ``obstacles`` and the labels placed before it least, then covers the least length of the
    other edges (the first such in the order of :data:`CANDIDATES`).

    >>> crossing = [((0, 0), (100, 40)), ((0, 40), (100, 0))]
    >>> place_labels(crossing, [(30, 10), (30, 10)])
    [0.35, 0.35]
    """
    segments = np.array([[*source, *target] for source, target in edges], dtype=float)
    placed = np.array(list(obstacles), dtype=float).reshape(-1, 4)
    fractions = []
    for k, (edge, size) in enumerate(zip(edges, sizes, strict=True)):
        others = np.delete(segments, k, axis=0)
        boxes = [_label_box(edge, size, fraction) for fraction in CANDIDATES]
        costs = [(_overlap(box, placed), _crossing(box, others)) for box in boxes]
        best = costs.index(min(costs))  # the first of the least costly
        fractions.append(CANDIDATES[best])
        placed = np.vstack([placed, boxes[best]])
    return fractions


def label_boxes(edges: Sequence[tuple[Point, Point]], sizes: Sequence[tuple[float, float]],
                fractions: Sequence[float]) -> list[Box]:
    """The box of each edge's label of ``(width, height)`` centred at its ``fraction`` of the
    way along it (as :func:`place_labels` chose).

    >>> label_boxes([((0, 0), (100, 40))], [(30, 10)], [0.5])
    [(35.0, 15.0, 65.0, 25.0)]
    """
    return [_label_box(edge, size, fraction)
            for edge, size, fraction in zip(edges, sizes, fractions, strict=True)]


def overlap_free(labels: Sequence[Box], obstacles: Sequence[Box] = ()) -> bool:
    """Whether no two of ``labels`` share any area, and none shares area with ``obstacles``.

    >>> overlap_free([(0, 0, 10, 10), (10, 0, 20, 10)]), overlap_free([(0, 0, 10, 10)],
    ...                                                                [(5, 5, 6, 6)])
    (True, False)
    """
    placed = np.array(list(obstacles), dtype=float).reshape(-1, 4)
    for box in labels:
        if _overlap(box, placed) > 0:
            return False
        placed = np.vstack([placed, box])
    return True
