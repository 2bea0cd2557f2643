"""The legend of a drawing of a Block MDP (:func:`kinematic.draw_block_mdp`): the merged blocks
by colour, the colour of a state alone in its block, and what the edge labels and the text under
a node mean; below the axes, in as many columns as fit the drawing's width when it has one.

matplotlib is imported when a legend is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kinematic.display import listed, name_text
from kinematic.graph_style import SINGLE_STATE_COLOUR, text_size, wrap_text

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend

    from kinematic.graph import PanelContent
    from kinematic.partition import Partition

__all__ = ["draw_legend", "legend_entry"]

_LEGEND_BLOCKS = 8  # merged blocks named in a legend; the rest are counted
_BLOCK_MEMBERS = 4  # states named in a block's entry, as kinematic.partition.block_text
_COLUMNS = 3  # at most, side by side
_EDGE_COLOUR = "0.45"


def legend_entry(block: list[str], names: Mapping[str, str]) -> str:
    """A block as its legend shows it: ``{s2a, s2b}``, each state by its display label when
    ``names`` gives it one other than its name (else as :func:`kinematic.partition.block_text`
    writes it), the first four only.

    >>> legend_entry(["s2a", "s2b"], {"s2a": "$s_{2,a}$", "s2b": "s2b"})
    '{$s_{2,a}$, s2b}'
    """
    shown = (names[s] if names.get(s, s) != s else name_text(s) for s in block)
    return f"{{{listed(shown, _BLOCK_MEMBERS)}}}"


def draw_legend(ax: Axes, partition: Partition | None, colours: Mapping[str, str],
                content: PanelContent, below: float = 0.0, width: float | None = None) -> None:
    """The legend ``below`` points under the axes (under the layer ticks): the merged blocks
    by colour (the first few, each by its first few states), the colour of a state alone in its
    block (when one is), and what edge labels and the text under a node mean. In up to three
    columns; with a ``width`` (points), in as many as fit in it, down to one, its entries
    wrapped at spaces if one column is still wider."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Artist] = []
    if partition is not None:
        blocks = [block for block in partition.blocks() if len(block) > 1]
        for block in blocks[:_LEGEND_BLOCKS]:
            handles.append(Patch(facecolor=colours[block[0]], edgecolor="black",
                                 label=legend_entry(block, content.names)))
        if len(blocks) > _LEGEND_BLOCKS:
            handles.append(Patch(visible=False,
                                 label=f"... {len(blocks) - _LEGEND_BLOCKS} more blocks"))
        if any(len(block) == 1 for block in partition.blocks()):
            alone = ("every state alone in its block" if not blocks
                     else "a state alone in its block")
            handles.append(Patch(facecolor=SINGLE_STATE_COLOUR, edgecolor="black", label=alone))
    if content.edge_words:
        handles.append(Line2D([], [], color=_EDGE_COLOUR,
                              label="edge s -> s': actions: T(s' | s, a)"))
    if content.under:
        handles.append(Patch(visible=False, label="under a state s: observations x: q(x | s)"))
    if not handles:
        return
    font = content.style.legend_font
    if width is None:
        _legend(ax, handles, min(_COLUMNS, len(handles)), below, font)
        return
    for columns in range(min(_COLUMNS, len(handles)), 0, -1):
        legend = _legend(ax, handles, columns, below, font)
        if _width(legend) <= width:
            return
    # one column is still too wide: its entries wrapped in the room their symbols leave
    labels = [str(handle.get_label()) for handle in handles]
    room = width - (_width(legend) - max(text_size(label, font)[0] for label in labels))
    for handle, label in zip(handles, labels, strict=True):
        handle.set_label(wrap_text(label, font, room))
    _legend(ax, handles, 1, below, font)


def _legend(ax: Axes, handles: list[Artist], columns: int, below: float,
            font: float) -> Legend:
    from matplotlib.transforms import ScaledTranslation

    under = ax.transAxes + ScaledTranslation(0, -below / 72, ax.figure.dpi_scale_trans)
    return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                     bbox_transform=under, ncols=columns, fontsize=font, frameon=False)


def _width(legend: Legend) -> float:
    """The legend's width in points, as drawn."""
    return float(legend.get_window_extent().width * 72 / legend.figure.dpi)
