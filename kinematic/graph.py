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
from kinematic.graph_content import (
    LABEL_PAD,
    PanelContent,
    panel_content,
    place_edge_labels,
    plan_drawing,
)
from kinematic.graph_legend import draw_legend
from kinematic.graph_style import (
    PAPER,
    SCREEN,
    SINGLE_STATE_COLOUR,
    Style,
    colour_blocks,
    final_width,
    name_colour,
    panel_size,
    partition_description,
    state_colours,
    text_size,
    wrap_text,
)
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.paper_layout import UNDER_GAP, PanelPlan, Slot, arrange
from kinematic.partition import Partition, check_partition_of

if TYPE_CHECKING:
    import networkx as nx
    from matplotlib.axes import Axes
    from matplotlib.text import Text

__all__ = ["Drawing", "draw_block_mdp", "to_networkx"]

Position = tuple[float, float]

_EDGE_COLOUR = "0.45"
_LABEL_BOX = {"boxstyle": f"round,pad={LABEL_PAD}", "facecolor": "white", "edgecolor": "none",
              "alpha": 0.85}  # behind an edge label, over the edges it crosses
_TICK_GAP = 2.0  # points between the axes and the layer ticks under them
_TITLE_PAD = 3.0  # points between the title and the axes, at a given width


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
    return to_networkx_checked(mdp, partition)


def to_networkx_checked(mdp: BlockMDP, partition: Partition | None) -> nx.DiGraph:
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
    layer_ticks : list
        The Text artists of ``h = 1, ..., H`` under the drawing (empty without them).
    """

    axes: Axes
    positions: dict[str, Position] = field(repr=False)
    colours: dict[str, str] = field(repr=False)
    labels: dict[str, Text] = field(repr=False)
    edge_labels: dict[tuple[str, str], Text] = field(repr=False)
    node_diameters: dict[str, float] = field(repr=False)
    layer_ticks: list[Text] = field(repr=False)


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
    labels: Mapping[str, str] | None = None,
    layer_ticks: bool | None = None,
    width: float | None = None,
    size: str | None = None,
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
        the matplotlib axes to draw on; none: a new pyplot figure sized to the MDP (or to
        ``width``).
    title
        default ``"<mdp name>: KI partition"`` (the partition's description), or the name;
        ``""`` for none (a paper's caption says it).
    positions
        state -> ``(x, y)`` (two finite numbers, or an array of shape ``(2,)`` as
        ``networkx`` layouts give) for some or all states; the others keep the default layout
        (layer ``h`` at ``x = h``, its states centred on ``y = 0``, one unit apart).
    edge_labels
        label each edge ``s -> s'`` with its actions and ``T(s'|s, a)`` (fractions in
        exact mode; actions of equal probability grouped), each label placed along its edge
        clear of the nodes and the other labels.
    observations
        write each state's emission distribution ``q(x|s)`` under its node; a state with a
        single observation shows its name alone (``q(x|s) = 1`` goes without saying), and
        nothing when that observation is named like the state (the default emission of
        :func:`kinematic.block_mdp`: the combination lock's states emit themselves).
    legend
        draw the legend (below the axes).
    block_colours
        block (frozenset of states) -> colour, to keep colours equal between
        drawings (:func:`kinematic.graph_style.colour_blocks`); default: this partition's.
    labels
        state -> the text shown for it (mathtext allowed: ``{"s2a": "$s_{2,a}$"}``), in its
        node and in the legend; the other states show their names. A name that is not a state
        raises :class:`kinematic.UnknownName`.
    layer_ticks
        write ``h = 1, ..., H`` (the paper's layers, numbered from 1 as the text report does)
        under the drawing, under ``x = h``; default: with ``width`` or ``size``.
    width
        the figure's final width in inches, for a paper: it is drawn at that size (a new
        figure, not ``ax``), with no text smaller than 7 points (names at 8, the title at 9)
        and the nodes, the layers' spacing and the legend (in as many columns as fit, never
        wider than the figure) made to fit; the height follows. An MDP whose layers cannot
        fit raises ValueError saying the width it needs.
    size
        ``"column"`` (3.4 inches, one column of a two-column paper) or ``"page"`` (7.0 inches,
        the text width), instead of ``width``.

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

    At one column's width, with the paper's names for two states:

    >>> drawing = draw_block_mdp(split, ki_partition(split), size="column", title="",
    ...                          labels={"s2a": "$s_{2,a}$", "s2b": "$s_{2,b}$"})
    >>> float(drawing.axes.figure.get_size_inches()[0])
    3.4
    >>> drawing.labels["s2a"].get_text(), [t.get_text() for t in drawing.layer_ticks]
    ('$s_{2,a}$', ['$h = 1$', '$h = 2$', '$h = 3$'])
    """
    if partition is not None:
        check_partition_of(mdp, partition)
    return draw_checked(mdp, partition, ax=ax, title=title, positions=positions,
                        edge_labels=edge_labels, observations=observations, legend=legend,
                        block_colours=block_colours, labels=labels, layer_ticks=layer_ticks,
                        width=width, size=size)


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
    labels: Mapping[str, str] | None = None,
    layer_ticks: bool | None = None,
    width: float | None = None,
    size: str | None = None,
) -> Drawing:
    """:func:`draw_block_mdp` for a ``partition`` its caller has already checked to be one of
    ``mdp`` (:func:`kinematic.partition.check_partition_of`), so that drawing several panels
    checks each partition once."""
    final = final_width(width, size)
    placed = positions_of(mdp, positions)
    style = SCREEN if final is None else PAPER
    content = panel_content(mdp, to_networkx_checked(mdp, partition), labels, edge_labels,
                            observations, style)
    ticks = final is not None if layer_ticks is None else layer_ticks
    if final is None:
        if ax is None:
            ax = _new_axes(mdp, edge_labels, observations)
        return draw_panel(ax, mdp, partition, content, placed, None, title=title,
                          legend=legend, block_colours=block_colours, layer_ticks=ticks)
    if ax is not None:
        raise ValueError("ax: a drawing at a given width or size makes its own figure (to "
                         "draw into your own axes, give neither)")
    asked = f"width={width!r}" if width is not None else f"size={size!r}"
    plan = plan_drawing(mdp, content, placed, 72 * final, f"{asked}: {mdp.name!r}")
    ax = _new_axes(mdp, edge_labels, observations, placed_here=True)
    drawing = draw_panel(ax, mdp, partition, content, placed, plan, title=title, legend=legend,
                         block_colours=block_colours, layer_ticks=ticks)
    arrange(ax.figure, [[panel_slot(drawing, plan)]], 72 * final)  # type: ignore[arg-type]
    return drawing


def draw_panel(ax: Axes, mdp: BlockMDP, partition: Partition | None, content: PanelContent,
               placed: Mapping[str, Position], plan: PanelPlan | None, *, title: str | None,
               legend: bool, block_colours: Mapping[frozenset[str], str] | None,
               layer_ticks: bool) -> Drawing:
    """Draw ``content`` on ``ax``: laid out by ``plan`` (a drawing at its final size) or, with
    none, fitted to the axes as they are."""
    import networkx as nx

    style, graph = content.style, content.graph
    colours = {state: SINGLE_STATE_COLOUR for state in mdp.states}
    if partition is not None:
        palette = colour_blocks([partition]) if block_colours is None else block_colours
        colours |= state_colours(partition, palette)
    diameters = {state: diameter for state, (_, diameter) in content.fits.items()}
    nodes = list(graph)
    sizes = [diameters[s] ** 2 for s in nodes]  # networkx sizes are marker areas (points^2)
    if plan is None:
        _frame(ax, placed)
    else:
        ax.set_xlim(plan.limits[0])
        ax.set_ylim(plan.limits[1])
        ax.set_axis_off()
    nx.draw_networkx_edges(graph, placed, ax=ax, nodelist=nodes, node_size=sizes,
                           edge_color=_EDGE_COLOUR, arrows=True, arrowsize=style.arrow_size)
    nx.draw_networkx_nodes(graph, placed, ax=ax, nodelist=nodes, node_size=sizes,
                           node_color=[colours[s] for s in nodes], edgecolors="black",
                           linewidths=0.8)
    names = {state: ax.text(*placed[state], content.names[state],
                            fontsize=content.fits[state][0], ha="center", va="center",
                            color=name_colour(colours[state]), zorder=3) for state in nodes}
    scale = _points_per_unit(ax) if plan is None else plan.scale
    backing = None if plan is None else _LABEL_BOX  # over the edges, in a paper
    for state, text in content.under.items():
        ax.annotate(text, placed[state], xytext=(0, -diameters[state] / 2 - UNDER_GAP),
                    textcoords="offset points", ha="center", va="top",
                    fontsize=style.small_font, color="0.25", bbox=backing)
    texts = _draw_edge_labels(ax, content, placed, scale)
    ticks = _layer_ticks(ax, mdp.horizon, style) if layer_ticks else []
    if legend:
        draw_legend(ax, partition, colours, content, below=_tick_height(style) if ticks else 0.0,
                    width=None if plan is None else plan.size[0])
    if title is None:
        title = mdp.name if partition is None else (
            f"{mdp.name}: {partition_description(partition)}")
    if plan is None:
        ax.set_title(title)
    else:
        ax.set_title(wrap_text(title, float(style.title_font), plan.size[0]),
                     fontsize=style.title_font, pad=_TITLE_PAD)
    return Drawing(ax, dict(placed), colours, names, texts, diameters, ticks)


def panel_slot(drawing: Drawing, plan: PanelPlan) -> Slot:
    """The :class:`kinematic.paper_layout.Slot` of a drawn panel: the points that its title
    takes above the axes, and its layer ticks and legend below them, and its whole width, as
    drawn."""
    ax = drawing.axes
    box, tight = ax.get_window_extent(), ax.get_tightbbox()
    assert tight is not None, "axes in the layout have a box"
    points = 72 / ax.figure.dpi
    above = max(0.0, tight.y1 - box.y1) * points if ax.get_title() else 0.0
    centred = [ax.title, ax.get_legend()]  # centred on the axes, whatever their width
    widths = [artist.get_window_extent().width * points for artist in centred if artist]
    return Slot(ax, plan.size, above, max(0.0, box.y0 - tight.y0) * points,
                max([plan.size[0], *widths]))


def _layer_ticks(ax: Axes, horizon: int, style: Style) -> list[Text]:
    """``h = 1, ..., H`` under the axes, each under ``x = h``."""
    return [ax.annotate(f"$h = {h}$", (h, 0), xycoords=("data", "axes fraction"),
                        xytext=(0, -_TICK_GAP), textcoords="offset points", ha="center",
                        va="top", fontsize=style.small_font)
            for h in range(1, horizon + 1)]


def _tick_height(style: Style) -> float:
    """Points that the row of layer ticks takes under the axes."""
    return _TICK_GAP + text_size("$h = 1$", style.small_font)[1]


def positions_of(mdp: BlockMDP, given: Mapping[str, Position] | None) -> dict[str, Position]:
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


def _draw_edge_labels(ax: Axes, content: PanelContent, placed: Mapping[str, Position],
                      scale: tuple[float, float]) -> dict[tuple[str, str], Text]:
    """Each edge's actions and probabilities, placed along it clear of the nodes, the
    observations and the other labels (:func:`kinematic.label_placement.place_labels`)."""
    fractions, _ = place_edge_labels(content, placed, scale)
    font = content.style.small_font
    texts = {}
    for (s, t), word in content.edge_words.items():
        (x0, y0), (x1, y1), fraction = placed[s], placed[t], fractions[s, t]
        texts[s, t] = ax.text(
            x0 + fraction * (x1 - x0), y0 + fraction * (y1 - y0), word, ha="center",
            va="center", fontsize=font, zorder=2.5, bbox=_LABEL_BOX)
    return texts


def _new_axes(mdp: BlockMDP, edge_labels: bool, observations: bool,
              placed_here: bool = False) -> Axes:
    """Axes of a new pyplot figure sized to the MDP (so Jupyter shows it after the cell); or,
    ``placed_here``, of a figure without a layout engine (the caller places the axes: a user's
    ``figure.constrained_layout.use`` would move them)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "draw_block_mdp needs matplotlib: pip install 'kinematic[homer]'") from error
    if placed_here:
        return plt.figure(layout="none").add_axes((0, 0, 1, 1))
    return plt.subplots(figsize=panel_size(mdp, edge_labels, observations))[1]


def _frame(ax: Axes, positions: Mapping[str, Position]) -> None:
    """Limits leaving room for the nodes around the outermost positions; no axis lines."""
    xs, ys = zip(*positions.values(), strict=True)
    for limits, values in ((ax.set_xlim, xs), (ax.set_ylim, ys)):
        low, high = min(values), max(values)
        pad = 0.5 * max(1.0, (high - low) / 10)
        limits(low - pad, high + pad)
    ax.set_axis_off()
