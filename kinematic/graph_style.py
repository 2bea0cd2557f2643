"""How a drawing of a Block MDP looks: block colours, names fitted to their nodes, and the text
of edge labels, observations and titles (used by :func:`kinematic.graph.draw_block_mdp`).

Colours: every block with several states gets its own colour, distinct across the whole MDP
(so a block of layer 2 and one of layer 3 never share one by accident); a state alone in its
block is drawn in :data:`SINGLE_STATE_COLOUR`, so that merges stand out.

matplotlib is imported only by the functions that need it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinematic.inseparability import Partition
from kinematic.numbers import Number, number_text

if TYPE_CHECKING:
    from kinematic.model import BlockMDP

__all__ = [
    "BASE_DIAMETER",
    "COLUMN_WIDTH",
    "NAME_FONT_SIZE",
    "PAGE_WIDTH",
    "PAPER",
    "SCREEN",
    "SINGLE_STATE_COLOUR",
    "Style",
    "colour_blocks",
    "edge_text",
    "final_width",
    "fit_name",
    "name_colour",
    "observation_text",
    "panel_size",
    "partition_description",
    "state_colours",
    "text_size",
    "wrap_text",
]

SINGLE_STATE_COLOUR = "#dddddd"
"""The colour of a state alone in its block (and of every state when no partition is drawn)."""

NAME_FONT_SIZE = 9.0
"""Font size (points) of a state's name when it fits its node (on screen: :data:`SCREEN`)."""

BASE_DIAMETER = 30.0
"""Diameter (points) of a node whose name fits at :data:`NAME_FONT_SIZE`."""

COLUMN_WIDTH = 3.4
"""Inches of ``size="column"``: one column of a two-column paper (ICML, NeurIPS: 3.25-3.5)."""

PAGE_WIDTH = 7.0
"""Inches of ``size="page"``: the text width of a two-column paper (ICML: 6.75)."""

_SIZES = {"column": COLUMN_WIDTH, "page": PAGE_WIDTH}
_PADDING = 4.0  # points between a name's corners and its circle
_SPARE = 0.95  # of a width, for text measured by its outline


@dataclass(frozen=True)
class Style:
    """The sizes (points) of a drawing's parts.

    A state's name is written at ``name_font`` in a node of ``diameter``; a longer name first
    gets a smaller font, down to ``smallest_name_font``, then a larger node, up to
    ``largest_diameter``, then a smaller font again, down to ``legible_font``, then a larger
    node (:func:`fit_name`). Edge labels, observations and layer ticks are written at
    ``small_font``, the legend at ``legend_font``, the title at ``title_font``.
    """

    name_font: float
    smallest_name_font: float
    diameter: float
    largest_diameter: float
    legible_font: float
    small_font: float
    legend_font: float
    title_font: float | str
    arrow_size: float


SCREEN = Style(name_font=NAME_FONT_SIZE, smallest_name_font=7.0, diameter=BASE_DIAMETER,
               largest_diameter=64.0, legible_font=5.0, small_font=7.0, legend_font=8.0,
               title_font="large", arrow_size=10.0)
"""A drawing on its own axes or a figure sized to the MDP (no ``width``, no ``size``)."""

PAPER = Style(name_font=8.0, smallest_name_font=7.0, diameter=22.0, largest_diameter=22.0,
              legible_font=7.0, small_font=7.0, legend_font=7.0, title_font=9.0,
              arrow_size=7.0)
"""A drawing at its final size in a paper (``width`` or ``size``): no text below 7 points."""


def final_width(width: object, size: object) -> float | None:
    """The final width in inches asked for by ``width`` (inches) or ``size`` (``"column"``:
    :data:`COLUMN_WIDTH`, ``"page"``: :data:`PAGE_WIDTH`); None when neither is given.

    >>> final_width(None, "column"), final_width(5, None), final_width(None, None)
    (3.4, 5.0, None)
    """
    if width is not None and size is not None:
        raise ValueError(f"width={width!r}, size={size!r}: give width or size, not both")
    if size is not None:
        if size not in _SIZES:
            raise ValueError(f"size must be 'column' ({COLUMN_WIDTH} in) or 'page' "
                             f"({PAGE_WIDTH} in), got {size!r}")
        return _SIZES[size]
    if width is None:
        return None
    if (isinstance(width, bool) or not isinstance(width, (int, float))
            or not math.isfinite(width) or width <= 0):
        raise ValueError(f"width must be a positive number of inches, got {width!r}")
    return float(width)


_DIGITS = 3  # significant digits of a float probability on an edge or under a node

_DESCRIPTIONS = {"backward": "backward KI partition", "forward": "forward KI partition",
                 "ki": "KI partition", "endogenous": "endogenous partition"}


def partition_description(partition: Partition) -> str:
    """What a partition is, for a title: ``"KI partition"`` for kind ``"ki"``, ``"backward KI
    partition"``, ``"forward KI partition"``, ``"endogenous partition"`` (of an exogenous Block
    MDP, :func:`kinematic.exogenous.endogenous_partition`), otherwise the kind itself.

    >>> from kinematic import combination_lock, ki_partition
    >>> partition_description(ki_partition(combination_lock(3, 2, seed=0)))
    'KI partition'
    """
    return _DESCRIPTIONS.get(partition.kind, partition.kind)


def _palette(count: int) -> list[str]:
    """``count`` distinct colours, none of them grey: tab10 and then tab20 without their greys,
    evenly spaced hues of ``hsv`` beyond 18."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    if count <= 18:
        name, greys = ("tab10", {7}) if count <= 9 else ("tab20", {14, 15})
        palette = colormaps[name]  # a listed colormap: palette(i) is its i-th colour
        return [to_hex(palette(i)) for i in range(palette.N) if i not in greys][:count]
    hues = colormaps["hsv"]
    return [to_hex(hues(k / count)) for k in range(count)]


def colour_blocks(partitions: Iterable[Partition]) -> dict[frozenset[str], str]:
    """One colour per block with several states, over all layers of all ``partitions``; a block
    found in several partitions (the same set of states) keeps one colour, so side-by-side
    drawings of several partitions of one MDP can be compared.

    >>> from kinematic import combination_lock, ki_partition
    >>> colours = colour_blocks([ki_partition(combination_lock(2, 2, seed=0))])
    >>> sorted(sorted(block) for block in colours)
    [['s1a', 's1b'], ['s2a', 's2b']]
    >>> len(set(colours.values()))
    2
    """
    distinct = list(dict.fromkeys(frozenset(block) for partition in partitions
                                  for block in partition.blocks() if len(block) > 1))
    return dict(zip(distinct, _palette(len(distinct)), strict=True))


def _relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``colour`` (0 black, 1 white)."""
    from matplotlib.colors import to_rgb

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in to_rgb(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def name_colour(fill: str) -> str:
    """The colour of a state's name on a node filled with ``fill``: black or white, whichever
    has the higher WCAG contrast ratio with it (black on the grey of a lone state, white on
    tab10's dark blue).

    >>> name_colour(SINGLE_STATE_COLOUR), name_colour("#1f77b4")
    ('black', 'white')
    """
    luminance = _relative_luminance(fill)
    on_black = (luminance + 0.05) / 0.05
    on_white = 1.05 / (luminance + 0.05)
    return "black" if on_black >= on_white else "white"


def state_colours(partition: Partition,
                  block_colours: Mapping[frozenset[str], str]) -> dict[str, str]:
    """The colour of every state of ``partition``: its block's colour in ``block_colours``, or
    :data:`SINGLE_STATE_COLOUR` (a state alone in its block, or a block not in the mapping)."""
    return {state: block_colours.get(frozenset(block), SINGLE_STATE_COLOUR)
            for block in partition.blocks() for state in block}


def panel_size(mdp: BlockMDP, edge_labels: bool = False,
               observations: bool = False) -> tuple[float, float]:
    """``(width, height)`` in inches of a drawing of ``mdp``: per layer, wider with edge labels;
    per state of the widest layer, taller with observations under the nodes.

    >>> from kinematic import combination_lock
    >>> panel_size(combination_lock(3, 2, seed=0))
    (5.4, 4.8)
    """
    width = (2.4 if edge_labels else 1.3) * mdp.horizon + 1.5
    height = (1.4 if observations else 1.0) * max(map(len, mdp.layers)) + 1.8
    return round(width, 2), round(height, 2)


def fit_name(name: str, style: Style = SCREEN) -> tuple[float, float]:
    """``(font size, node diameter)`` in points so that ``name`` (mathtext allowed), on one
    line, lies inside its circular node: a short name gets ``style.name_font`` in a node of
    ``style.diameter``; a longer one (a merged ``s2a+s2b+s2c``) a smaller font and a larger
    node (:class:`Style`). On screen (:data:`SCREEN`) the font goes down to 5 points; in a
    paper (:data:`PAPER`) never below 7, the node grows instead.

    >>> fit_name("s1")
    (9.0, 30.0)
    >>> font, diameter = fit_name("s2a+s2b+s2c")
    >>> font < 9.0 and diameter > 30.0
    True
    >>> fit_name("s2a+s2b+s2c", PAPER)[0]
    7.0
    """
    diagonal = math.hypot(*_line_box(name, 1.0))  # of the name's box at font size 1
    font = style.name_font
    if font * diagonal + _PADDING > style.diameter:
        font = max(style.smallest_name_font, (style.diameter - _PADDING) / diagonal)
    if font * diagonal + _PADDING > style.largest_diameter:
        font = max(style.legible_font, (style.largest_diameter - _PADDING) / diagonal)
    return font, max(style.diameter, font * diagonal + _PADDING)


def _line_box(line: str, font_size: float) -> tuple[float, float]:
    """``(width, height)`` in points of one line (plain or mathtext) at ``font_size``."""
    from matplotlib.cbook import is_math_text
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    width, height, _ = text_to_path.get_text_width_height_descent(
        line, FontProperties(size=font_size), ismath=is_math_text(line))
    return width, height


def text_size(text: str, font_size: float) -> tuple[float, float]:
    """``(width, height)`` in points of ``text`` (one or more lines, each plain or mathtext:
    ``$s_{2,a}$``) at ``font_size``, as matplotlib lays it out (lines 1.2 font sizes apart).

    >>> width, height = text_size("a1: 1/2\\na2: 1", 10.0)
    >>> round(height, 6), 30 < width < 40
    (24.0, True)
    """
    lines = text.split("\n")
    return max(_line_box(line, font_size)[0] for line in lines), 1.2 * font_size * len(lines)


def wrap_text(text: str, font_size: float, width: float) -> str:
    """``text`` with line breaks at spaces so that each line is at most ``width`` points wide
    at ``font_size`` as drawn (measured by :func:`text_size`, with 5% to spare: a renderer's
    hinting makes text a little wider than its outline). A single word wider than that stays on
    its own line; text with mathtext, ``$...$``, stays as it is (a break inside a formula
    would not parse).

    >>> wrap_text("combolock-H4-K2-seed0: KI partition", 9.0, 120.0)
    'combolock-H4-K2-seed0:\\nKI partition'
    """
    if "$" in text:
        return text
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_size(f"{lines[-1]} {word}", font_size)[0] <= _SPARE * width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return "\n".join(lines)


def edge_text(probabilities: Mapping[str, Number], actions: Sequence[str]) -> str:
    """The label of an edge ``s -> s'`` from its ``action -> T(s'|s, a)``: actions with equal
    probabilities grouped, one group per line (``"a1, a2: 1/2"``; a float probability to 3
    significant digits); a group of every action (of at least three) is ``"any"``, of all
    actions but one or two (of at least five) ``"not a3"``.

    >>> from fractions import Fraction
    >>> edge_text({"a1": Fraction(1, 2), "a2": Fraction(1, 2), "a3": Fraction(1)},
    ...           ["a1", "a2", "a3"])
    'a1, a2: 1/2\\na3: 1'
    >>> edge_text({a: Fraction(1) for a in ["a1", "a2", "a3"]}, ["a1", "a2", "a3"])
    'any: 1'
    """
    groups: dict[Number, list[str]] = {}
    for action in actions:
        if action in probabilities:
            groups.setdefault(probabilities[action], []).append(action)
    lines = []
    for value, group in groups.items():
        missing = [a for a in actions if a not in group]
        if not missing and len(actions) >= 3:
            names = "any"
        elif len(actions) >= 5 and len(missing) <= 2:
            names = "not " + ", ".join(missing)
        else:
            names = ", ".join(group)
        lines.append(f"{names}: {number_text(value, _DIGITS)}")
    return "\n".join(lines)


def observation_text(mdp: BlockMDP, state: str) -> str:
    """The emission distribution ``q(. | state)``, one ``observation: probability`` per line
    (an exact probability as ``p/q``, a float to 3 significant digits).

    >>> from kinematic import figure2_canonical
    >>> print(observation_text(figure2_canonical(), "s2"))
    x2a: 4/5
    x2b: 1/5
    """
    return "\n".join(f"{x}: {number_text(p, _DIGITS)}"
                     for x, p in mdp.observations_of(state).items())
