"""Layered Block MDPs as ``networkx`` graphs, and drawings of them with a partition.

Nodes are states (attributes ``layer`` from 1, ``block`` when a partition is given); an edge
``s -> s'`` carries ``probabilities``: action -> ``T(s'|s, a)`` for the actions with positive
probability.

Drawing needs matplotlib (the ``homer`` extra: ``pip install 'kinematic[homer]'``); the graph
itself needs only networkx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from kinematic.inseparability import Partition
from kinematic.model import BlockMDP

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

__all__ = ["draw_block_mdp", "to_networkx"]


def to_networkx(mdp: BlockMDP, partition: Partition | None = None) -> nx.DiGraph:
    """The transition graph of ``mdp`` (``partition`` adds a ``block`` attribute per node)."""
    graph = nx.DiGraph(name=mdp.name)
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


def draw_block_mdp(
    mdp: BlockMDP,
    partition: Partition | None = None,
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Draw ``mdp`` layer by layer (left to right); states of one block of ``partition`` share a
    colour within their layer, so a block with several states shows as repeated colours."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "draw_block_mdp needs matplotlib: pip install 'kinematic[homer]'"
        ) from error
    graph = to_networkx(mdp, partition)
    if ax is None:
        size = (1.6 * mdp.horizon + 2, 1.2 * max(map(len, mdp.layers)) + 1)
        ax = plt.subplots(figsize=size)[1]
    positions = {
        state: (h, -(i - (len(layer) - 1) / 2))
        for h, layer in enumerate(mdp.layers)
        for i, state in enumerate(layer)
    }
    palette = plt.get_cmap("tab10")
    colors = [
        palette(graph.nodes[s]["block"] % 10) if partition is not None else "lightgray"
        for s in graph.nodes
    ]
    nx.draw_networkx_edges(graph, positions, ax=ax, edge_color="gray", arrows=True,
                           node_size=900, arrowsize=12)
    nx.draw_networkx_nodes(graph, positions, ax=ax, node_color=colors, node_size=900,
                           edgecolors="black")
    nx.draw_networkx_labels(graph, positions, ax=ax, font_size=8)
    kinds = {"backward": "backward KI partition", "forward": "forward KI partition",
             "ki": "KI partition"}
    suffix = f" - {kinds.get(partition.kind, partition.kind)}" if partition is not None else ""
    ax.set_title(title or mdp.name + suffix)
    ax.set_axis_off()
    return ax
