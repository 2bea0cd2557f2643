"""Layered Block MDPs as ``networkx`` graphs, and drawings of them with a partition.

Nodes are states (attributes ``layer`` from 1, ``block`` when a partition is given); an edge
``s -> s'`` carries ``probabilities``: action -> ``T(s'|s, a)`` for the actions with positive
probability.

Drawing needs matplotlib (the ``homer`` extra: ``pip install 'kinematic[homer]'``); the graph
itself needs only networkx. Both are imported when first used, so ``import kinematic`` stays
fast and works without matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np

from kinematic.errors import short_repr
from kinematic.graph_style import (
    SINGLE_STATE_COLOUR,
    colour_blocks,
    edge_text,
    fit_name,
    observation_text,
    panel_size,
    partition_description,
    state_colours,
    text_size,
)
from kinematic.label_placement import Box, place_labels
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.numbers import Number
from kinematic.partition import Partition, block_text, check_partition_of

if TYPE_CHECKING:
    import networkx as nx
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.text import Text

__all__ = ["Drawing", "draw_block_mdp", "to_networkx"]

Position = tuple[float, float]

_LEGEND_BLOCKS = 8  # merged blocks named in a legend; the rest are counted
_EDGE_COLOUR = "0.45"
_SMALL_FONT_SIZE = 7.0  # edge labels and observations
_LABEL_PAD = 0.15  # around an edge label, in units of its font size


def to_networkx(mdp: BlockMDP, partition: Partition | None = None) -> nx.DiGraph:
    """The transition graph of ``mdp`` (``partition`` adds a ``block`` attribute per node).

    >>> from kinematic import figure2_split
    >>> graph = to_networkx(figure2_split())
    >>> graph.nodes["s2a"], graph.edges["s1", "s2a"]["probabilities"]
    ({'layer': 2}, {'a': Fraction(4, 5)})

    Raises :class:`kinematic.InvalidPartition` when ``partition`` is not a partition of the
    states of ``mdp``.
    """
    if partition is not None:
        check_partition_of(mdp, partition)
    return _transition_graph(mdp, partition)


def _transition_graph(mdp: BlockMDP, partition: Partition | None) -> nx.DiGraph:
    """:func:`to_networkx` for a ``partition`` already checked to be one of ``mdp``."""
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph(name=mdp.name)
    for h, layer in enumerate(mdp.layers):
        for i, state in enumerate(layer):
            attributes = {"layer": h + 1}
            if partition is not None:
                attributes["block"] = int(partition.labels[h][i])
            graph.add_node(state, **attributes)
    for h in range(mdp.horizon - 1):
        tensor = mdp.transition_tensor(h)
        for i, state in enumerate(mdp.layers[h]):
            for j, target in enumerate(mdp.layers[h + 1]):
                probabilities = {
                    action: tensor[i, a, j]
                    for a, action in enumerate(mdp.actions)
                    if mdp.mode.positive(np.array([tensor[i, a, j]]))[0]
                }
                if probabilities:
                    graph.add_edge(state, target, probabilities=probabilities)
    return graph


@dataclass(frozen=True)
class Drawing:
    """What :func:`draw_block_mdp` drew, to adjust or reuse it.

    Attributes
    ----------
    axes : matplotlib Axes
        The axes drawn on (``axes.figure`` is the figure).
    positions : dict
        State -> ``(x, y)`` in data coordinates: pass it back (changed) as ``positions=``.
    colours : dict
        State -> the colour of its node (hex): its block's, or
        :data:`kinematic.graph_style.SINGLE_STATE_COLOUR`.
    labels : dict
        State -> the Text artist of its name.
    edge_labels : dict
        ``(s, s')`` -> the Text artist of the edge's label (empty without ``edge_labels=True``).
    node_diameters : dict
        State -> the diameter of its node in points (larger for long names).
    """

    axes: Axes
    positions: dict[str, Position] = field(repr=False)
    colours: dict[str, str] = field(repr=False)
    labels: dict[str, Text] = field(repr=False)
    edge_labels: dict[tuple[str, str], Text] = field(repr=False)
    node_diameters: dict[str, float] = field(repr=False)


def draw_block_mdp(
    mdp: BlockMDP,
    partition: Partition | None = None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    positions: Mapping[str, Position] | None = None,
    edge_labels: bool = False,
    observations: bool = False,
    legend: bool = True,
    block_colours: Mapping[frozenset[str], str] | None = None,
) -> Drawing:
    """Draw ``mdp`` layer by layer, left to right, with the blocks of ``partition`` coloured.

    Every block with several states has its own colour across the whole MDP; a state alone in
    its block is light grey, so merges stand out (``def:bki``, ``def:fki``, ``def:ki`` for the
    partitions of :mod:`kinematic.inseparability`). The legend names the coloured blocks.

    Parameters
    ----------
    partition
        the blocks to colour (its states must be ``mdp``'s); none: all grey.
    ax
        the matplotlib axes to draw on; none: a new pyplot figure sized to the MDP.
    title
        default ``"<mdp name>: KI partition"`` (the partition's description), or the name.
    positions
        state -> ``(x, y)`` (two finite numbers, or an array of shape ``(2,)`` as
        ``networkx`` layouts give) for some or all states; the others keep the default layout
        (layer ``h`` at ``x = h``, its states centred on ``y = 0``, one unit apart).
    edge_labels
        label each edge ``s -> s'`` with its actions and ``T(s'|s, a)`` (fractions in
        exact mode; actions of equal probability grouped), each label placed along its edge
        clear of the nodes and the other labels.
    observations
        write each state's emission distribution ``q(x|s)`` under its node.
    legend
        draw the legend (below the axes).
    block_colours
        block (frozenset of states) -> colour, to keep colours equal between
        drawings (:func:`kinematic.graph_style.colour_blocks`); default: this partition's.

    Returns
    -------
    Drawing
        The axes, the positions used, the colours and the text artists.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from kinematic import figure2_split, ki_partition
    >>> split = figure2_split()
    >>> drawing = draw_block_mdp(split, ki_partition(split), edge_labels=True)
    >>> drawing.axes.get_title()
    'figure2: KI partition'
    >>> drawing.positions["s2b"], drawing.edge_labels["s1", "s2b"].get_text()
    ((2, -0.5), 'a: 1/5')
    >>> drawing.colours["s2a"] == drawing.colours["s2b"] != drawing.colours["s1"]
    True
    """
    if partition is not None:
        check_partition_of(mdp, partition)
    return draw_checked(mdp, partition, ax=ax, title=title, positions=positions,
                        edge_labels=edge_labels, observations=observations, legend=legend,
                        block_colours=block_colours)


def draw_checked(
    mdp: BlockMDP,
    partition: Partition | None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    positions: Mapping[str, Position] | None = None,
    edge_labels: bool = False,
    observations: bool = False,
    legend: bool = True,
    block_colours: Mapping[frozenset[str], str] | None = None,
) -> Drawing:
    """:func:`draw_block_mdp` for a ``partition`` its caller has already checked to be one of
    ``mdp`` (:func:`kinematic.partition.check_partition_of`), so that drawing several panels
    checks each partition once."""
    placed = _positions(mdp, positions)
    if ax is None:
        ax = _new_axes(mdp, edge_labels, observations)
    import networkx as nx

    graph = _transition_graph(mdp, partition)
    colours = {state: SINGLE_STATE_COLOUR for state in mdp.states}
    if partition is not None:
        palette = colour_blocks([partition]) if block_colours is None else block_colours
        colours |= state_colours(partition, palette)
    fits = {state: fit_name(state) for state in graph}
    diameters = {state: fits[state][1] for state in graph}
    nodes = list(graph)
    sizes = [diameters[s] ** 2 for s in nodes]  # networkx sizes are marker areas (points^2)
    _frame(ax, placed)
    nx.draw_networkx_edges(graph, placed, ax=ax, nodelist=nodes, node_size=sizes,
                           edge_color=_EDGE_COLOUR, arrows=True, arrowsize=10)
    nx.draw_networkx_nodes(graph, placed, ax=ax, nodelist=nodes, node_size=sizes,
                           node_color=[colours[s] for s in nodes], edgecolors="black",
                           linewidths=0.8)
    labels = {state: ax.text(*placed[state], state, fontsize=fits[state][0], ha="center",
                             va="center", zorder=3) for state in nodes}
    scale = _points_per_unit(ax)
    obstacles = [_box(_points(placed[s], scale), (d, d)) for s, d in diameters.items()]
    if observations:
        obstacles += _draw_observations(ax, mdp, placed, diameters, scale)
    texts = _draw_edge_labels(ax, mdp, graph, placed, scale, obstacles) if edge_labels else {}
    if legend:
        _legend(ax, partition, colours, edge_labels, observations)
    if title is None:
        title = mdp.name if partition is None else (
            f"{mdp.name}: {partition_description(partition)}")
    ax.set_title(title)
    return Drawing(ax, placed, colours, labels, texts, diameters)


def _positions(mdp: BlockMDP, given: Mapping[str, Position] | None) -> dict[str, Position]:
    """The default layered layout, with ``given`` positions in place of the defaults."""
    placed: dict[str, Position] = {
        state: (h + 1, (len(layer) - 1) / 2 - i)
        for h, layer in enumerate(mdp.layers)
        for i, state in enumerate(layer)
    }
    if given is None:
        return placed
    if not isinstance(given, Mapping):
        raise ValueError(f"positions must be a mapping state -> (x, y), got {short_repr(given)}")
    for state, position in given.items():
        find(mdp.state_location, state, "state", "positions")
        pair = _finite_pair(position)
        if pair is None:
            raise ValueError(f"positions[{state!r}] must be a pair of finite numbers (x, y), "
                             f"got {short_repr(position)}")
        placed[state] = pair
    return placed


def _finite_pair(position: object) -> Position | None:
    """``position`` as ``(x, y)`` floats if it is two finite real numbers (a tuple, a list, an
    array of shape ``(2,)``, NumPy scalars or Fractions); None otherwise (strings included)."""
    try:
        array = np.asarray(position)
        if array.shape != (2,) or not (array.dtype.kind in "biuf" or all(
                isinstance(v, Real) for v in array.tolist())):
            return None
        x, y = array.astype(float).tolist()
    except (ValueError, OverflowError):  # ragged, or too large for a float
        return None
    return (x, y) if np.isfinite([x, y]).all() else None


def _points_per_unit(ax: Axes) -> tuple[float, float]:
    """Points per data unit along x and y (the axes' size as laid out now)."""
    box = ax.get_window_extent()
    per_pixel = 72 / ax.figure.dpi
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return box.width * per_pixel / (x1 - x0), box.height * per_pixel / (y1 - y0)


def _points(position: Position, scale: tuple[float, float]) -> Position:
    return position[0] * scale[0], position[1] * scale[1]


def _box(centre: Position, size: tuple[float, float]) -> Box:
    (x, y), (width, height) = centre, size
    return x - width / 2, y - height / 2, x + width / 2, y + height / 2


def _draw_observations(ax: Axes, mdp: BlockMDP, placed: Mapping[str, Position],
                       diameters: Mapping[str, float], scale: tuple[float, float]) -> list[Box]:
    """Each state's emission distribution under its node; their boxes in points."""
    boxes = []
    for state, diameter in diameters.items():
        text = observation_text(mdp, state)
        gap = diameter / 2 + 2
        ax.annotate(text, placed[state], xytext=(0, -gap), textcoords="offset points",
                    ha="center", va="top", fontsize=_SMALL_FONT_SIZE, color="0.25")
        width, height = text_size(text, _SMALL_FONT_SIZE)
        x, y = _points(placed[state], scale)
        boxes.append(_box((x, y - gap - height / 2), (width, height)))
    return boxes


def _draw_edge_labels(ax: Axes, mdp: BlockMDP, graph: nx.DiGraph,
                      placed: Mapping[str, Position], scale: tuple[float, float],
                      obstacles: list[Box]) -> dict[tuple[str, str], Text]:
    """Each edge's actions and probabilities, placed along it clear of the nodes, the
    observations and the other labels (:func:`kinematic.label_placement.place_labels`)."""
    edges: list[tuple[str, str, dict[str, Number]]] = list(graph.edges(data="probabilities"))
    words = [edge_text(probabilities, mdp.actions) for _, _, probabilities in edges]
    pad = 2 * _LABEL_PAD * _SMALL_FONT_SIZE
    sizes = [(width + pad, height + pad)
             for width, height in (text_size(word, _SMALL_FONT_SIZE) for word in words)]
    fractions = place_labels(
        [(_points(placed[s], scale), _points(placed[t], scale)) for s, t, _ in edges], sizes,
        obstacles)
    texts = {}
    for (s, t, _), word, fraction in zip(edges, words, fractions, strict=True):
        (x0, y0), (x1, y1) = placed[s], placed[t]
        texts[s, t] = ax.text(
            x0 + fraction * (x1 - x0), y0 + fraction * (y1 - y0), word, ha="center",
            va="center", fontsize=_SMALL_FONT_SIZE, zorder=2.5,
            bbox={"boxstyle": f"round,pad={_LABEL_PAD}", "facecolor": "white",
                  "edgecolor": "none", "alpha": 0.85})
    return texts


def _new_axes(mdp: BlockMDP, edge_labels: bool, observations: bool) -> Axes:
    """Axes of a new pyplot figure sized to the MDP (so Jupyter shows it after the cell)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "draw_block_mdp needs matplotlib: pip install 'kinematic[homer]'") from error
    return plt.subplots(figsize=panel_size(mdp, edge_labels, observations))[1]


def _legend(ax: Axes, partition: Partition | None, colours: Mapping[str, str],
            edge_labels: bool, observations: bool) -> None:
    """The legend below the axes: the merged blocks by colour (the first few, each by its first
    few states), the colour of a state alone in its block, and what edge labels and the text
    under a node mean."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Artist] = []
    if partition is not None:
        blocks = [block for block in partition.blocks() if len(block) > 1]
        for block in blocks[:_LEGEND_BLOCKS]:
            handles.append(Patch(facecolor=colours[block[0]], edgecolor="black",
                                 label=block_text(block)))
        if len(blocks) > _LEGEND_BLOCKS:
            handles.append(Patch(visible=False,
                                 label=f"... {len(blocks) - _LEGEND_BLOCKS} more blocks"))
        alone = "every state alone in its block" if not blocks else "a state alone in its block"
        handles.append(Patch(facecolor=SINGLE_STATE_COLOUR, edgecolor="black", label=alone))
    if edge_labels:
        handles.append(Line2D([], [], color=_EDGE_COLOUR,
                              label="edge s -> s': actions: T(s' | s, a)"))
    if observations:
        handles.append(Patch(visible=False, label="under a state s: observations x: q(x | s)"))
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  ncols=min(3, len(handles)), fontsize=8, frameon=False)


def _frame(ax: Axes, positions: Mapping[str, Position]) -> None:
    """Limits leaving room for the nodes around the outermost positions; no axis lines."""
    xs, ys = zip(*positions.values(), strict=True)
    for limits, values in ((ax.set_xlim, xs), (ax.set_ylim, ys)):
        low, high = min(values), max(values)
        pad = 0.5 * max(1.0, (high - low) / 10)
        limits(low - pad, high + pad)
    ax.set_axis_off()
