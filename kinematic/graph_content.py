"""What a drawing of a Block MDP shows before it is laid out (:class:`PanelContent`: the text
of each node, under it and along each edge, at the sizes of a :class:`kinematic.graph_style.Style`),
where its edge labels go at a given scale, and the plan of a drawing at its final width
(:func:`plan_drawing`). Used by :func:`kinematic.draw_block_mdp` and
:func:`kinematic.draw_partitions`.

matplotlib is imported (to measure text) when a content is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kinematic.display import name_text
from kinematic.errors import short_repr
from kinematic.graph_style import (
    Style,
    edge_text,
    fit_name,
    observation_text,
    text_size,
)
from kinematic.label_placement import Box, label_boxes, overlap_free, place_labels
from kinematic.lookup import find
from kinematic.model import BlockMDP
from kinematic.numbers import Number
from kinematic.paper_layout import UNDER_GAP, PanelPlan, plan_panel

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["LABEL_PAD", "PanelContent", "panel_content", "place_edge_labels", "plan_drawing"]

Position = tuple[float, float]

LABEL_PAD = 0.15
"""Padding around an edge label, in units of its font size (its white box)."""


@dataclass(frozen=True)
class PanelContent:
    """What a drawing of an MDP shows, before it is laid out: its graph, each state's text
    (its display label or name) with the font and node diameter that fit it, the observations
    under each state (:func:`_under`: none for a state that emits itself), and the label of
    each edge (empty without
    ``edge_labels``); the sizes in points of the texts under the nodes and of the edge labels
    (with the padding of their boxes)."""

    graph: nx.DiGraph
    names: dict[str, str]
    fits: dict[str, tuple[float, float]]
    under: dict[str, str]
    edge_words: dict[tuple[str, str], str]
    style: Style
    under_sizes: dict[str, tuple[float, float]]
    label_sizes: dict[tuple[str, str], tuple[float, float]]


def panel_content(mdp: BlockMDP, graph: nx.DiGraph, labels: object, edge_labels: bool,
                  observations: bool, style: Style) -> PanelContent:
    """The :class:`PanelContent` of a drawing of ``mdp`` and its transition ``graph``
    (:func:`kinematic.graph.to_networkx`), ``labels`` checked here.

    >>> from kinematic import figure2_canonical, to_networkx
    >>> from kinematic.graph_style import PAPER
    >>> mdp = figure2_canonical()
    >>> content = panel_content(mdp, to_networkx(mdp), {"s2": "$s_2$"}, True, True, PAPER)
    >>> content.names["s2"], content.under, content.edge_words["s1", "s2"]
    ('$s_2$', {'s2': 'x2a: 4/5\\nx2b: 1/5'}, 'a: 1')
    """
    try:
        import matplotlib  # noqa: F401  (it measures the text)
    except ImportError as error:
        raise ImportError("drawing needs matplotlib: pip install 'kinematic[homer]'") from error
    names = _display_names(mdp, labels)
    under = {state: text for state in mdp.states
             if (text := _under(mdp, state))} if observations else {}
    edges: list[tuple[str, str, dict[str, Number]]] = list(graph.edges(data="probabilities"))
    words = {(s, t): edge_text(probabilities, mdp.actions)
             for s, t, probabilities in edges} if edge_labels else {}
    font, pad = style.small_font, 2 * LABEL_PAD * style.small_font
    label_sizes = {edge: (width + pad, height + pad) for edge, (width, height) in (
        (edge, text_size(word, font)) for edge, word in words.items())}
    return PanelContent(graph, names, {s: fit_name(names[s], style) for s in graph}, under,
                        words, style, {s: text_size(text, font) for s, text in under.items()},
                        label_sizes)


def _under(mdp: BlockMDP, state: str) -> str:
    """The text under ``state``: its emission distribution (:func:`kinematic.graph_style.
    observation_text`); for a single observation, its name alone (``q(x|s) = 1`` is implied),
    and nothing when it is named like the state (a state that emits itself: nothing to say).

    >>> from kinematic import figure2_split
    >>> [_under(figure2_split(), state) for state in ("s1", "s2a")]
    ['', 'x2a']
    """
    emitted = list(mdp.observations_of(state))
    if len(emitted) > 1:
        return observation_text(mdp, state)
    return "" if emitted == [state] else name_text(emitted[0])


def _display_names(mdp: BlockMDP, labels: object) -> dict[str, str]:
    """State -> the text drawn for it: ``labels[state]`` when given, else its name."""
    names = {state: state for state in mdp.states}
    if labels is None:
        return names
    if not isinstance(labels, Mapping):
        raise ValueError(f"labels must be a mapping state -> display text, got "
                         f"{short_repr(labels)}")
    for state, text in labels.items():
        find(mdp.state_location, state, "state", "labels")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"labels[{state!r}] must be a non-empty string, got "
                             f"{short_repr(text)}")
        try:
            text_size(text, 1.0)
        except ValueError as error:
            raise ValueError(f"labels[{state!r}]: {text!r} is not valid mathtext "
                             f"({str(error).strip().splitlines()[-1]})") from None
        names[state] = text
    return names


def plan_drawing(mdp: BlockMDP, content: PanelContent, placed: Mapping[str, Position],
                 width: float, what: str, panels: int = 1) -> PanelPlan:
    """The plan of a drawing ``width`` points wide (:func:`kinematic.paper_layout.plan_panel`,
    its error naming ``what`` and the width of ``panels`` side by side) with rows spread
    apart, a little at a time, until the edge labels are clear of each other and of the nodes
    (or spread 4-fold: then some may still touch, which the drawings of the test suite never
    need)."""
    sizes = (placed, {s: d for s, (_, d) in content.fits.items()}, content.under_sizes,
             content.label_sizes, width, what)
    plan = plan_panel(mdp.layers, *sizes, panels=panels)
    spread = 1.0
    while spread < 4 and not place_edge_labels(content, placed, plan.scale)[1]:
        spread *= 1.15
        plan = plan_panel(mdp.layers, *sizes, spread=spread, panels=panels)
    return plan


def place_edge_labels(content: PanelContent, placed: Mapping[str, Position],
                      scale: tuple[float, float]) -> tuple[dict[tuple[str, str], float], bool]:
    """Where along its edge (a fraction of the way) each edge label goes, with ``scale``
    points per data unit (:func:`kinematic.label_placement.place_labels`, clear of the nodes
    and the text under them), and whether every label is clear of the others and of them."""
    obstacles = [_box(_points(placed[s], scale), (d, d)) for s, (_, d) in content.fits.items()]
    for state, (width, height) in content.under_sizes.items():
        x, y = _points(placed[state], scale)
        gap = content.fits[state][1] / 2 + UNDER_GAP
        obstacles.append(_box((x, y - gap - height / 2), (width, height)))
    edges = list(content.edge_words)
    segments = [(_points(placed[s], scale), _points(placed[t], scale)) for s, t in edges]
    sizes = [content.label_sizes[edge] for edge in edges]
    fractions = place_labels(segments, sizes, obstacles)
    clear = overlap_free(label_boxes(segments, sizes, fractions), obstacles)
    return dict(zip(edges, fractions, strict=True)), clear


def _points(position: Position, scale: tuple[float, float]) -> Position:
    return position[0] * scale[0], position[1] * scale[1]


def _box(centre: Position, size: tuple[float, float]) -> Box:
    (x, y), (width, height) = centre, size
    return x - width / 2, y - height / 2, x + width / 2, y + height / 2
