"""Drawings at their final size in a paper (``width=`` or ``size=`` of
:func:`kinematic.draw_block_mdp` and :func:`kinematic.draw_partitions`): how many points a layer
and a row of the layered layout get so that the nodes, the text under them and the edge labels
fit at a given width, and the panels' axes placed in a figure of that width, each with its title
above and its layer ticks and legend below.

Geometry in points (1/72 inch); matplotlib only to place axes in a figure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["UNDER_GAP", "PanelPlan", "Slot", "arrange", "panel_width", "plan_panel",
           "row_width"]

Position = tuple[float, float]
Size = tuple[float, float]

_NODE_GAP = 12.0  # points between the nodes of two layers (room for an arrow)
_LABEL_GAP = 3.0  # points between an edge label and the nodes on either side
_TEXT_GAP = 4.0  # points between the texts under the nodes of two layers
_ROW_GAP = 6.0  # points between a node (and the text under it) and the node below
UNDER_GAP = 2.0
"""Points between a node and the text under it."""

_EDGE = 2.0  # points between the outermost node or text and the edge of the axes
_PANEL_GAP = 8.0  # points between panels side by side, and between rows of panels


@dataclass(frozen=True)
class PanelPlan:
    """Where a layered drawing goes in its axes.

    Attributes
    ----------
    scale : tuple
        Points per data unit along x and along y (a layer is one unit along x, a row one unit
        along y in the default layout).
    limits : tuple
        ``((x0, x1), (y0, y1))``, the axes' data limits.
    """

    scale: tuple[float, float]
    limits: tuple[tuple[float, float], tuple[float, float]]

    @property
    def size(self) -> Size:
        """``(width, height)`` of the axes in points."""
        (x0, x1), (y0, y1) = self.limits
        return (x1 - x0) * self.scale[0], (y1 - y0) * self.scale[1]


def plan_panel(layers: Sequence[Sequence[str]], positions: Mapping[str, Position],
               diameters: Mapping[str, float], under: Mapping[str, Size],
               edge_labels: Mapping[tuple[str, str], Size], width: float,
               what: str, spread: float = 1.0, panels: int = 1) -> PanelPlan:
    """The plan of a drawing ``width`` points wide: nodes of ``diameters`` at ``positions``
    (layer by layer, ``layers``), a text of size ``under[s]`` under node ``s`` (when given) and a
    label of size ``edge_labels[s, t]`` along each labelled edge; rows ``spread`` times as far
    apart as the nodes and texts need (room for the labels of crossing edges). Raises
    ValueError (``what``: the option asked for and the drawing) when the layers cannot stand
    far enough apart, with the width the figure needs: ``panels`` such drawings side by side
    (:func:`row_width`).

    >>> plan = plan_panel([["s1"], ["s2"]], {"s1": (1, 0), "s2": (2, 0)},
    ...                   {"s1": 22.0, "s2": 22.0}, {}, {}, 100.0, "mdp")
    >>> [round(v, 1) for v in plan.size]
    [100.0, 26.0]
    """
    x_pitch = max([_layer_pitch(before, after, diameters, under, edge_labels)
                   for before, after in itertools.pairwise(layers)], default=0.0)
    side = max(max(diameters[s], under.get(s, (0.0, 0.0))[0]) / 2 for s in positions) + _EDGE
    xs = [x for x, _ in positions.values()]
    span = max(xs) - min(xs)
    needed = x_pitch * span + 2 * side
    if needed > width + 1e-9:
        fewer = [option for option, shown in (("edge_labels=False", edge_labels),
                                              ("observations=False", under)) if shown]
        raise ValueError(
            f"{what} needs {math.ceil(row_width(needed, panels) / 7.2) / 10} inches to draw "
            f"{len(layers)} layers with text of at least 7 points, not "
            f"{round(row_width(width, panels) / 72, 2)}: give a width of at least that"
            + (f", or fewer labels ({', '.join(fewer)})" if fewer else
               ", or shorter names (labels=)"))
    x_scale = (width - 2 * side) / span if span else 1.0
    ys = [y for _, y in positions.values()]
    y_pitch = max(diameters[s] + under.get(s, (0.0, 0.0))[1] + UNDER_GAP + _ROW_GAP
                  for s in positions)
    if edge_labels:
        y_pitch = max(y_pitch, max(diameters.values()) + 2 * max(h for _, h in
                                                                  edge_labels.values()))
    y_pitch *= spread
    top = max(diameters[s] / 2 - (max(ys) - y) * y_pitch for s, (_, y) in positions.items())
    bottom = max(diameters[s] / 2 + (under[s][1] + UNDER_GAP if s in under else 0.0)
                 - (y - min(ys)) * y_pitch for s, (_, y) in positions.items())
    top, bottom = top + _EDGE, bottom + _EDGE
    margin = side / x_scale if span else width / 2  # one layer: centred in the whole width
    return PanelPlan((x_scale, y_pitch), (
        (min(xs) - margin, max(xs) + margin),
        (min(ys) - bottom / y_pitch, max(ys) + top / y_pitch)))


def _layer_pitch(before: Sequence[str], after: Sequence[str], diameters: Mapping[str, float],
                 under: Mapping[str, Size], edge_labels: Mapping[tuple[str, str], Size]
                 ) -> float:
    """Points between two consecutive layers so that their nodes, the texts under them and the
    labels of the edges between them fit side by side."""
    radii = max(diameters[s] for s in before) / 2 + max(diameters[s] for s in after) / 2
    labels = [size[0] for (s, t), size in edge_labels.items() if s in before and t in after]
    nodes = radii + (max(labels) + 2 * _LABEL_GAP if labels else _NODE_GAP)
    texts = [max([under[s][0] for s in layer if s in under], default=0.0)
             for layer in (before, after)]
    return max(nodes, sum(texts) / 2 + _TEXT_GAP)


@dataclass(frozen=True)
class Slot:
    """A panel to place: its axes, their size in points, the points its title takes above
    them and its ticks and legend below them, and the width in points of all it draws."""

    axes: Axes
    size: Size
    above: float
    below: float
    extent: float


def panel_width(width: float, columns: int) -> float:
    """Points of each of ``columns`` panels side by side in ``width`` points.

    >>> panel_width(288.0, 2)
    140.0
    """
    return (width - _PANEL_GAP * (columns - 1)) / columns


def row_width(panel: float, columns: int) -> float:
    """Points of a row of ``columns`` panels of ``panel`` points each: the inverse of
    :func:`panel_width`.

    >>> row_width(panel_width(288.0, 2), 2)
    288.0
    """
    return panel * columns + _PANEL_GAP * (columns - 1)


def arrange(figure: Figure, rows: Sequence[Sequence[Slot]], width: float, columns: int = 1,
            header: float = 0.0) -> float:
    """Sets the height of ``figure`` (``width`` points wide) to fit ``rows`` of panels (at most
    ``columns`` in a row) below a ``header`` of that many points, and places each panel's axes
    at its size, centred in its share of the row (:func:`panel_width`); returns the height in
    points.

    >>> from kinematic.figures import new_figure
    >>> figure = new_figure()
    >>> axes = figure.add_axes((0, 0, 1, 1))
    >>> arrange(figure, [[Slot(axes, (144.0, 72.0), 10.0, 20.0, 144.0)]], 288.0)
    106.0
    >>> [round(float(v), 3) for v in axes.get_position().bounds]
    [0.25, 0.208, 0.5, 0.679]
    """
    heights = [max(s.above for s in row) + max(s.size[1] for s in row)
               + max(s.below for s in row) for row in rows]
    total = header + sum(heights) + _PANEL_GAP * (len(rows) - 1) + 2 * _EDGE
    figure.set_size_inches(width / 72, total / 72)
    share = panel_width(width, columns)
    top = total - header - _EDGE
    for row, height in zip(rows, heights, strict=True):
        above = max(s.above for s in row)
        for k, slot in enumerate(row):
            w, h = slot.size
            left = k * (share + _PANEL_GAP) + (share - w) / 2
            bottom = top - above - h
            slot.axes.set_position((left / width, bottom / total, w / width, h / total))
        top -= height + _PANEL_GAP
    return total
