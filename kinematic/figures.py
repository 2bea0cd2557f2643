"""Whole figures: matplotlib Figures that Jupyter shows as the value of a cell, panels of
partitions, and the SVG pictures with which a :class:`BlockMDP` or a
:class:`Partition` shows itself in Jupyter.

A Figure built with ``matplotlib.figure.Figure()`` (outside pyplot, so that scripts do not
accumulate open figures) has no rich display of its own: Jupyter shows it as text until pyplot's
inline backend is loaded (``%matplotlib inline`` or ``import matplotlib.pyplot``).
:func:`new_figure` returns a Figure that also defines ``_repr_png_``, IPython's display protocol,
so it shows itself as a picture either way (when the inline backend is loaded, its own printer
for Figures takes precedence and the picture is drawn once).

matplotlib is imported only when a figure is made.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kinematic.errors import InvalidPartition, short_repr
from kinematic.exogenous import ExogenousBlockMDP, endogenous_partition
from kinematic.graph import (
    draw_block_mdp,
    draw_checked,
    draw_panel,
    panel_slot,
    positions_of,
    to_networkx_checked,
)
from kinematic.graph_content import PanelContent, panel_content, plan_drawing
from kinematic.graph_style import (
    PAPER,
    colour_blocks,
    final_width,
    panel_size,
    partition_description,
    text_size,
    wrap_text,
)
from kinematic.inseparability import (
    Partition,
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
)
from kinematic.lookup import unknown_name
from kinematic.model import BlockMDP
from kinematic.paper_layout import arrange, panel_width
from kinematic.partition import check_partition_of

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

__all__ = ["MAX_PICTURE_STATES", "draw_partitions", "figure_svg", "new_figure", "svg_picture"]

MAX_PICTURE_STATES = 60
"""MDPs with more states show as text in Jupyter: their picture would be unreadable."""

_PICTURE_EDGE_LABELS = 20  # the Jupyter picture labels edges up to this many states
_PANELS_WIDTH = 18.0  # inches of a row of panels; wider, they stack in one column
_PANEL_OPTIONS = ("edge_labels", "observations", "positions", "legend", "labels",
                  "layer_ticks")  # to draw_block_mdp
_SUPTITLE_GAP = 4.0  # points under the figure's title, at a given width


@functools.cache
def _jupyter_figure() -> type[Figure]:
    """The Figure class that shows itself in Jupyter (made once, when first needed, so that
    importing this module does not import matplotlib)."""
    from matplotlib.figure import Figure

    class JupyterFigure(Figure):
        """A matplotlib Figure that Jupyter displays as a PNG picture."""

        def _repr_png_(self) -> bytes:
            image = io.BytesIO()
            self.savefig(image, format="png", bbox_inches="tight")
            return image.getvalue()

    return JupyterFigure


def new_figure(**options: Any) -> Figure:
    """A matplotlib Figure (``Figure(**options)``, outside pyplot) that Jupyter shows as the
    value of a cell, with or without ``%matplotlib inline``.

    >>> figure = new_figure(figsize=(3, 2))
    >>> figure.add_subplot().plot([0, 1])[0].get_xydata().tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    >>> figure._repr_png_()[:4]
    b'\\x89PNG'
    """
    try:
        figure_class = _jupyter_figure()
    except ImportError as error:
        raise ImportError("figures need matplotlib: pip install 'kinematic[homer]'") from error
    return figure_class(**options)


def draw_partitions(
    mdp: BlockMDP | ExogenousBlockMDP,
    partitions: Sequence[Partition] | None = None,
    *,
    columns: int | None = None,
    axes: Sequence[Axes] | None = None,
    width: float | None = None,
    size: str | None = None,
    title: str | None = None,
    **options: Any,
) -> Figure | SubFigure:
    """Drawings of ``mdp`` with each of ``partitions``, in one figure (default: its backward,
    forward and full KI partitions, ``def:bki``, ``def:fki``, ``def:ki``, and for an exogenous
    Block MDP, an :class:`~kinematic.exogenous.ExogenousBlockMDP`, its endogenous partition:
    its ``.mdp`` is drawn).

    A block found in several partitions has the same colour in each panel, so that a split or a
    merge shows as a change of colour. The panels of a new figure, titled by ``title``
    (default: the MDP's name; ``""`` for none, as under a caption), stand in one row when it
    fits in 18 inches, and one above the other otherwise (a long MDP: each panel keeps the width
    its layers need); ``columns`` fills rows of that many panels instead. Or they go to the
    given ``axes`` (one per partition, for a figure of your own; then its figure, or subfigure,
    is returned, its title left alone).
    ``options`` go to :func:`kinematic.graph.draw_block_mdp` (``edge_labels``,
    ``observations``, ``positions``, ``legend``, ``labels``, ``layer_ticks``).

    For a paper, ``width`` (inches) or ``size`` (``"column"``: 3.4 inches, ``"page"``: 7.0)
    draws the figure at its final width, no text under 7 points (as ``draw_block_mdp``'s
    ``width``), with layer ticks ``h = 1, ..., H`` under each panel: the panels stand in one
    row if they fit in it side by side, else one above the other (``columns`` as above); the
    height follows.

    >>> from kinematic import combination_lock
    >>> figure = draw_partitions(combination_lock(horizon=3, actions=2, seed=0))
    >>> [axes.get_title() for axes in figure.axes]
    ['backward KI partition', 'forward KI partition', 'KI partition']
    >>> figure = draw_partitions(combination_lock(horizon=4, actions=2, seed=0),
    ...                          size="column")
    >>> float(figure.get_size_inches()[0]), len(figure.axes)
    (3.4, 3)
    >>> from kinematic import exogenous_combination_lock
    >>> figure = draw_partitions(exogenous_combination_lock(3, 2, seed=0, bits=1))
    >>> [axes.get_title() for axes in figure.axes][-1]
    'endogenous partition'
    """
    if isinstance(mdp, ExogenousBlockMDP):
        if partitions is None:
            partitions = [*_ki_partitions(mdp.mdp), endogenous_partition(mdp)]
        return draw_partitions(mdp.mdp, partitions, columns=columns, axes=axes, width=width,
                               size=size, title=title, **options)
    if partitions is None:
        partitions = _ki_partitions(mdp)
    if not isinstance(partitions, Sequence) or isinstance(partitions, str):
        raise InvalidPartition(f"partitions must be a list of Partitions ([partition] for one), "
                               f"got {short_repr(partitions)}")
    if not partitions:
        raise ValueError("partitions: give at least one partition to draw")
    for k, partition in enumerate(partitions):
        check_partition_of(mdp, partition, f"partitions[{k}]")
    for name in options:
        if name not in _PANEL_OPTIONS:
            raise unknown_name("option", name, _PANEL_OPTIONS, "draw_partitions")
    if columns is not None and (isinstance(columns, bool) or not isinstance(columns, int)
                                or columns < 1):
        raise ValueError(f"columns must be a positive int, got {columns!r}")
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a string ('' for none), got {short_repr(title)}")
    heading = mdp.name if title is None else title
    final = final_width(width, size)
    if final is not None:
        if axes is not None:
            raise ValueError("axes: a figure at a given width or size is laid out here (to "
                             "draw into your own axes, give neither)")
        asked = f"width={width!r}" if width is not None else f"size={size!r}"
        return _paper_panels(mdp, partitions, columns, 72 * final, asked, heading, options)
    figure: Figure | SubFigure
    if axes is None:
        figure, panels = _panel_grid(mdp, len(partitions), columns, options)
        if heading:
            figure.suptitle(heading)
    else:
        panels = _given_axes(axes, len(partitions), columns)
        figure = panels[0].figure
    colours = colour_blocks(partitions)
    for partition, panel in zip(partitions, panels, strict=True):
        draw_checked(mdp, partition, ax=panel, title=partition_description(partition),
                     block_colours=colours, **options)
    return figure


def _paper_panels(mdp: BlockMDP, partitions: Sequence[Partition], columns: int | None,
                  width: float, asked: str, heading: str, options: dict[str, Any]) -> Figure:
    """The panels in a new figure ``width`` points wide (``asked`` for, to name in an error),
    at their final size: in one row if they fit side by side (their layers, titles and
    legends), else in one column; or in rows of ``columns``."""
    placed = positions_of(mdp, options.get("positions"))
    contents = [panel_content(mdp, to_networkx_checked(mdp, partition), options.get("labels"),
                              options.get("edge_labels", False),
                              options.get("observations", False), PAPER)
                for partition in partitions]
    if columns is not None:
        return _paper_figure(mdp, partitions, contents, placed, min(columns, len(partitions)),
                             width, asked, heading, options)[0]
    row = len(partitions)
    if row > 1 and _fits(mdp, contents[0], placed, panel_width(width, row)):
        figure, fits = _paper_figure(mdp, partitions, contents, placed, row, width, asked,
                                     heading, options)
        if fits:
            return figure
    return _paper_figure(mdp, partitions, contents, placed, 1, width, asked, heading,
                         options)[0]


def _ki_partitions(mdp: BlockMDP) -> list[Partition]:
    """The backward, forward and full KI partitions of ``mdp``."""
    backward, forward = backward_ki_partition(mdp), forward_ki_partition(mdp)
    return [backward, forward, ki_partition(mdp, backward, forward)]


def _paper_figure(mdp: BlockMDP, partitions: Sequence[Partition],
                  contents: Sequence[PanelContent], placed: dict[str, tuple[float, float]],
                  columns: int, width: float, asked: str, heading: str,
                  options: dict[str, Any]) -> tuple[Figure, bool]:
    """The figure of :func:`_paper_panels` in rows of ``columns``, and whether every panel fits
    in its share of a row, its title on one line (a legend may wrap its entries)."""
    what = f"{asked}: {mdp.name!r}" + (f" in {columns} columns" if columns > 1 else "")
    share = panel_width(width, columns)
    plan = plan_drawing(mdp, contents[0], placed, share, what, columns)
    figure = new_figure(figsize=(width / 72, 1.0), layout="none")  # the axes placed here
    colours = colour_blocks(partitions)
    slots = []
    for partition, content in zip(partitions, contents, strict=True):
        drawing = draw_panel(figure.add_axes((0, 0, 1, 1)), mdp, partition, content, placed,
                             plan, title=partition_description(partition),
                             legend=options.get("legend", True), block_colours=colours,
                             layer_ticks=options.get("layer_ticks", True) is not False)
        slots.append(panel_slot(drawing, plan))
    title = wrap_text(heading, float(PAPER.title_font), width) if heading else ""
    header = text_size(title, float(PAPER.title_font))[1] + _SUPTITLE_GAP if title else 0.0
    rows = [slots[k:k + columns] for k in range(0, len(slots), columns)]
    total = arrange(figure, rows, width, columns, header)
    if title:
        figure.suptitle(title, fontsize=PAPER.title_font, y=1 - 2 / total, va="top")
    return figure, all(slot.extent <= share + 0.5 and "\n" not in slot.axes.get_title()
                       for slot in slots)


def _fits(mdp: BlockMDP, content: PanelContent, placed: dict[str, tuple[float, float]],
          width: float) -> bool:
    """Whether a panel of ``content`` fits in ``width`` points."""
    try:
        plan_drawing(mdp, content, placed, width, "")
    except ValueError:
        return False
    return True


def _panel_grid(mdp: BlockMDP, count: int, columns: int | None,
                options: dict[str, Any]) -> tuple[Figure, list[Axes]]:
    """A new figure with ``count`` panels in rows of ``columns`` (default: one row if it fits in
    :data:`_PANELS_WIDTH` inches, else one column: never a last row with gaps), each sized to
    the MDP."""
    width, height = panel_size(mdp, options.get("edge_labels", False),
                               options.get("observations", False))
    if columns is None:
        columns = count if count * width <= _PANELS_WIDTH else 1
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    figure = new_figure(figsize=(columns * width, rows * height + 0.4), layout="constrained")
    return figure, [figure.add_subplot(rows, columns, k + 1) for k in range(count)]


def _given_axes(axes: object, count: int, columns: int | None) -> list[Axes]:
    """``axes`` as a list if it is ``count`` matplotlib Axes (a list, or an array as
    ``plt.subplots`` gives) and no ``columns`` is asked for,
    the axes being laid out already), else ValueError naming the argument."""
    from matplotlib.axes import Axes

    if columns is not None:
        raise ValueError("columns: give columns or axes, not both (given axes are laid out "
                         "already)")
    if isinstance(axes, np.ndarray):  # as plt.subplots gives them
        axes = axes.ravel().tolist()
    if not isinstance(axes, Sequence) or not all(isinstance(ax, Axes) for ax in axes):
        raise ValueError(f"axes must be a list of matplotlib Axes, one per partition, got "
                         f"{short_repr(axes)}")
    if len(axes) != count:
        raise ValueError(f"axes: {len(axes)} axes for {count} partitions (give one per "
                         "partition)")
    return list(axes)


def figure_svg(figure: Figure) -> str:
    """The SVG of ``figure`` with its text kept as text (``svg.fonttype = 'none'``: names can
    be searched and copied) and no date or random ids, so that the same figure gives the same
    SVG.

    >>> figure = new_figure(figsize=(2, 1))
    >>> _ = figure.text(0.5, 0.5, "s2a+s2b")
    >>> ">s2a+s2b</text>" in figure_svg(figure)
    True
    """
    from matplotlib import rc_context

    image = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "kinematic"}):
        figure.savefig(image, format="svg", bbox_inches="tight", metadata={"Date": None})
    return image.getvalue()


def svg_picture(mdp: BlockMDP, partition: Partition | None = None) -> str | None:
    """The picture with which ``mdp`` (or ``partition`` of it) shows itself in Jupyter: its
    layered graph as SVG, with the blocks coloured and, up to 20 states, the edges labelled.
    None (Jupyter then shows the text repr) for an MDP of more than
    :data:`MAX_PICTURE_STATES` states, or without matplotlib.

    >>> from kinematic import figure2_split
    >>> svg = svg_picture(figure2_split())
    >>> all(f">{state}</text>" in svg for state in ("s1", "s2a", "s2b", "s3"))
    True
    """
    if len(mdp.states) > MAX_PICTURE_STATES:
        return None
    try:
        import matplotlib  # noqa: F401  (only whether it is there)
    except ImportError:
        return None
    figure = new_figure()
    edge_labels = len(mdp.states) <= _PICTURE_EDGE_LABELS
    figure.set_size_inches(panel_size(mdp, edge_labels))
    draw_block_mdp(mdp, partition, ax=figure.add_subplot(), edge_labels=edge_labels)
    return figure_svg(figure)
