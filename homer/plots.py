"""Figures of ``homer compare`` and ``homer evaluate`` (matplotlib ``Figure`` objects, no pyplot
state; each is saved as PNG and SVG by :func:`save_figure`):

- :func:`visitation_figure` - Figure ``fig:traces``: the latent states as a grid (one column per
  time step, one row per state of a layer), opacity proportional to ``log(count + 1)``;
- :func:`dynamics_figure` - Figure ``fig:learned-dynamics``: the learned abstract states of the
  first time steps, named by the canonical states they hold, edges for the recovered
  transitions, wrong merges in red;
- :func:`alpha_figure` - alpha of the learned cover per time step (``def:policy-cover``), or of
  the policies ``homer evaluate`` scores;
- :func:`confusion_figure` - confusion matrices of phi-bar (or any abstraction ``homer evaluate``
  scores) against the KI partition;
- :func:`counterexample_figure` - a row of ``homer counterexamples``: the objective's and
  HOMER's learned classes on the MDP, and the alpha of both covers against the exact
  prediction.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np
from matplotlib.colors import FuncNorm, LinearSegmentedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from homer.evaluate import AbstractionReport
from homer.policy_evaluation import CoverReport
from homer.safe_files import write_atomically
from kinematic.figures import draw_partitions, new_figure
from kinematic.graph_style import panel_size
from kinematic.model import BlockMDP

if TYPE_CHECKING:  # homer.compare reads run directories (torch): not needed by homer evaluate
    from homer.compare import ComparisonReport

__all__ = ["alpha_figure", "confusion_figure", "counterexample_figure", "dynamics_figure",
           "save_figure", "visitation_figure"]


def save_figure(figure: Figure, stem: Path, formats: tuple[str, ...] = ("png", "svg")
                ) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` (or the ``formats`` given); return the paths. Each
    is rendered in memory and written by :func:`homer.safe_files.write_atomically` (never torn,
    never through a symbolic link: matplotlib would open the path itself and follow one)."""
    paths = [stem.with_suffix(f".{suffix}") for suffix in formats]
    for path in paths:
        image = io.BytesIO()
        figure.savefig(image, format=path.suffix[1:], dpi=120, bbox_inches="tight")
        write_atomically(path, image.getvalue())
    return paths


NAMED_STEPS = 12
"""Up to this horizon :func:`visitation_figure` writes each state's name under its marker."""

VISITS = LinearSegmentedColormap.from_list(
    "visits", [(0.1, 0.3, 0.8, 0.0), (0.1, 0.3, 0.8, 1.0)])
"""Opacity of one blue: transparent for no visits, opaque for the most."""


def _row_label(names: list[str]) -> str:
    """The states of one row of the grid (one per layer): all of them when few."""
    if len(names) <= 3:
        return ", ".join(names)
    return f"{names[0]}, {names[1]}, ..., {names[-1]}"


def _count_ticks(most: float) -> list[float]:
    """Colour-bar ticks for counts from 0 to ``most`` on a log(count + 1) scale: 0, the powers
    of 10 below ``most``, and ``most``."""
    powers = [10.0**k for k in range(int(np.log10(most)) + 1)] if most >= 1 else []
    return [0.0, *(p for p in powers if p <= most / 3), most]


def visitation_figure(report: ComparisonReport, mdp: BlockMDP) -> Figure:
    """Expected visits of each latent state while the cover was learned, as Figure
    ``fig:traces`` shows them: one column per time step, one row per position in a layer
    (labelled by the states there), opacity proportional to ``log(count + 1)`` with a colour
    bar in counts."""
    counts = report.visitation_counts
    rows = max(len(layer) for layer in mdp.layers)
    figure = new_figure(figsize=(max(6.0, 0.16 * mdp.horizon + 1.5), 0.55 * rows + 1.2))
    axes = figure.add_subplot()
    values = np.concatenate(counts)
    most = max(float(values.max()), 1.0)
    points = axes.scatter([h + 1 for h, layer in enumerate(counts) for _ in layer],
                          [-k for layer in counts for k in range(len(layer))], c=values,
                          cmap=VISITS, norm=FuncNorm((np.log1p, np.expm1), vmin=0, vmax=most),
                          s=90, edgecolors="black", linewidths=0.6)
    bar = figure.colorbar(points, ax=axes, label="expected visits (log scale)")
    ticks = _count_ticks(most)
    bar.set_ticks(ticks, labels=[f"{t:,.0f}" for t in ticks])
    if mdp.horizon <= NAMED_STEPS:
        for h, layer in enumerate(mdp.layers):
            for k, name in enumerate(layer):
                axes.annotate(name, (h + 1, -k), xytext=(0, -8), textcoords="offset points",
                              ha="center", va="top", fontsize=6)
    axes.set_yticks([-k for k in range(rows)],
                    [_row_label([layer[k] for layer in mdp.layers if k < len(layer)])
                     for k in range(rows)])
    axes.set_xlabel("time step h")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title(f"{mdp.name}: expected visits of each latent state while learning the cover")
    axes.set_xlim(0.3, mdp.horizon + 0.7)
    axes.set_ylim(-rows + 0.4, 0.6)
    return figure


def _node_names(report: ComparisonReport, mdp: BlockMDP, layer: int) -> dict[int, list[str]]:
    """Learned class of ``layer`` -> the KI classes (canonical states) of the observations
    assigned to it."""
    comparison = report.abstractions[layer + 1]["ki"]
    names: dict[int, list[str]] = {}
    for observation, learned in comparison.assignment.items():
        state = mdp.layers[layer][mdp.emission_state[layer][
            mdp.observations[layer].index(observation)]]
        block = next(b for b in comparison.exact_classes if state in b)
        name = "+".join(block)
        if name not in names.setdefault(learned, []):
            names[learned].append(name)
    return names


def dynamics_figure(report: ComparisonReport, mdp: BlockMDP, steps: int = 10,
                    threshold: float = 0.1, min_count: int = 20) -> Figure:
    """The recovered abstract dynamics of the first ``steps`` time steps (Figure
    ``fig:learned-dynamics``): a node per learned abstract state that observations are
    assigned to, labelled by the KI classes it holds (red when it holds more than one: a wrong
    merge), and an edge ``i -> j`` when ``T^(j | i, a) >= threshold`` for some action."""
    layers = [h for h in range(min(steps, mdp.horizon))
              if "ki" in report.abstractions.get(h + 1, {})]
    graph: nx.DiGraph[tuple[int, int]] = nx.DiGraph()  # nodes: (layer, learned class)
    positions: dict[tuple[int, int], tuple[float, float]] = {}
    colours: dict[tuple[int, int], str] = {}
    labels: dict[tuple[int, int], str] = {}
    for h in layers:
        names = _node_names(report, mdp, h)
        rows = {state: k for k, state in enumerate(mdp.layers[h])}
        for learned, held in names.items():
            node = (h, learned)
            graph.add_node(node)
            first = held[0].split("+")[0]
            position = (h + 1, -rows[first] - 0.25 * (len(held) > 1))
            while position in positions.values():  # a split: its parts side by side
                position = (position[0], position[1] - 0.35)
            positions[node] = position
            colours[node] = "tab:red" if len(held) > 1 else "tab:green"
            labels[node] = "\n".join(held)
    for h in layers:
        dynamics = report.dynamics.get(h + 1)
        if dynamics is None or h - 1 not in layers:
            continue
        for r, i in enumerate(dynamics.learned_from):
            for c, j in enumerate(dynamics.learned_to):
                seen = dynamics.counts[r] >= min_count
                strength = np.max(dynamics.estimated[r, seen, c], initial=0.0)
                if (h - 1, i) in graph and (h, j) in graph and strength >= threshold:
                    graph.add_edge((h - 1, i), (h, j), weight=strength)
    figure = new_figure(figsize=(1.3 * max(len(layers), 2) + 1, 4))
    axes = figure.add_subplot()
    nodes = list(graph.nodes)
    nx.draw_networkx_nodes(graph, positions, nodelist=nodes, ax=axes, node_size=700,
                           node_color=[colours[n] for n in nodes], alpha=0.75)
    nx.draw_networkx_labels(graph, positions, labels=labels, ax=axes, font_size=6)
    widths = [_edge_width(graph.edges[e]["weight"]) for e in graph.edges]
    nx.draw_networkx_edges(graph, positions, ax=axes, width=widths, arrowsize=8,
                           node_size=700, edge_color="0.4")
    axes.set_title(f"{mdp.name}: recovered dynamics of the first {len(layers)} steps")
    axes.set_xticks([h + 1 for h in layers])
    axes.set_xlabel("time step h")
    axes.tick_params(bottom=True, labelbottom=True)  # networkx turned the ticks off
    for side in ("left", "right", "top"):
        axes.spines[side].set_visible(False)
    axes.legend(handles=_dynamics_legend(threshold), loc="upper left", bbox_to_anchor=(1, 1),
                fontsize=7, frameon=False, labelspacing=1.2, borderaxespad=0)
    return figure


def _edge_width(strength: float) -> float:
    """Line width of an edge ``i -> j`` of the dynamics figure for ``max_a T^(j | i, a)``."""
    return 1 + 2 * strength


def _dynamics_legend(threshold: float) -> list[Line2D]:
    """What the dynamics figure's node colours and edge widths stand for."""
    nodes = [Line2D([], [], linestyle="", marker="o", markersize=12, alpha=0.75,
                    markerfacecolor=colour, markeredgecolor=colour, label=text)
             for colour, text in (("tab:green", "learned state: one KI class"),
                                  ("tab:red", "learned state: several KI\nclasses (wrong merge)"))]
    edges = [Line2D([], [], color="0.4", linewidth=_edge_width(strength),
                    label=rf"$\max_a \hat T(j \mid i, a) = {strength:g}$")
             for strength in (threshold, 0.5, 1.0)]
    return nodes + edges


def alpha_figure(report: ComparisonReport | CoverReport, label: str = "learned cover"
                 ) -> Figure:
    """``alpha`` of a cover at each time step: ``min_s max_{pi in Psi_h} P_pi(s) / eta(s)``
    over the states of the step - the learned cover of ``homer compare``'s report, or the
    policies ``homer evaluate`` scored (a :class:`homer.policy_evaluation.CoverReport`);
    ``label`` names the line."""
    steps = [s["step"] for s in report.steps]
    alphas = [s["alpha_min"] for s in report.steps]
    figure = new_figure(figsize=(7, 3))
    axes = figure.add_subplot()
    axes.plot(steps, alphas, marker="o", markersize=3, label=label)
    axes.axhline(0.5, color="tab:red", linestyle="--", linewidth=1, label="alpha = 1/2")
    axes.set_ylim(0, 1.05 * max(1.0, *alphas))
    axes.set_xlabel("time step h")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel("alpha (min over states)")
    axes.set_title(f"{report.mdp}: policy cover quality per step")
    axes.legend(loc="lower left")
    return figure


def confusion_figure(report: ComparisonReport | AbstractionReport, panels: int = 12,
                     learned: str | None = None) -> Figure:
    """Confusion matrices (learned class x KI class, sample counts) of the steps with wrong
    merges first, then the first steps, at most ``panels``; one colour scale for all, shown by
    a colour bar. ``report`` is ``homer compare``'s (phi-bar's classes) or
    :func:`homer.evaluate.evaluate_abstraction`'s; ``learned`` names the abstraction (phi-bar,
    or phi for an evaluation, when None)."""
    if isinstance(report, AbstractionReport):
        abstractions, learned = dict(enumerate(report.steps, start=1)), learned or "phi"
    else:
        abstractions, learned = report.abstractions, learned or "phi-bar"
    with_ki = [h for h in sorted(abstractions) if "ki" in abstractions[h]]
    wrong = [h for h in with_ki if abstractions[h]["ki"].wrong_merges]
    chosen = sorted((wrong + [h for h in with_ki if h not in wrong])[:panels])
    columns = min(4, max(len(chosen), 1))
    rows = max(1, -(-len(chosen) // columns))
    figure = new_figure(figsize=(3.2 * columns, 2.8 * rows))
    most = max((int(abstractions[h]["ki"].confusion.max()) for h in chosen), default=1)
    scale = Normalize(vmin=0, vmax=max(most, 1))
    images, all_axes = [], []
    for index, h in enumerate(chosen):
        comparison = abstractions[h]["ki"]
        axes = figure.add_subplot(rows, columns, index + 1)
        images.append(axes.imshow(comparison.confusion, cmap="Blues", norm=scale,
                                  aspect="auto"))
        all_axes.append(axes)
        for (r, c), count in np.ndenumerate(comparison.confusion):
            axes.text(c, r, str(count), ha="center", va="center", fontsize=6,
                      color="white" if count > most / 2 else "black")
        axes.set_xticks(range(len(comparison.exact_classes)),
                        ["+".join(b) for b in comparison.exact_classes], fontsize=6,
                        rotation=30)
        axes.set_yticks(range(len(comparison.learned_classes)),
                        [str(c) for c in comparison.learned_classes], fontsize=6)
        if index % columns == 0:
            axes.set_ylabel(f"learned {learned} class", fontsize=7)
        colour = "tab:red" if comparison.wrong_merges else "black"
        merges = comparison.wrong_merges
        axes.set_title(f"step {h}: {merges} wrong merge{'' if merges == 1 else 's'}",
                       fontsize=8, color=colour)
    figure.suptitle(f"{report.mdp}: {learned} (rows) vs KI classes (columns)", fontsize=9)
    figure.tight_layout()
    if images:
        bar = figure.colorbar(images[0], ax=all_axes, fraction=0.03, pad=0.02)
        bar.set_label("encodings", fontsize=7)
        bar.ax.tick_params(labelsize=6)
        bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return figure


_ALPHA_PANEL_WIDTH = 3.6  # inches of the bars of counterexample_figure


def counterexample_figure(mdp: BlockMDP, row: Mapping[str, Any]) -> Figure:
    """A row of :func:`homer.counterexamples.run_counterexamples`, run on ``mdp``, drawn: the
    objective's learned classes and HOMER's learned ``phi_B`` (a block found by both has one
    colour in both panels; a state split across classes is drawn as
    :func:`homer.counterexamples.classes_partition` says, and named in the title), then the
    alpha of each cover per layer (``def:policy-cover``) as bars, with the exact prediction as a
    dashed line. In the ``abstract_alpha`` row (PCID's model-based cover) the alpha the verdict
    uses is the best cover of policies over PCID's learned classes, not the bars' observation
    policies: a dotted line shows it.

    >>> from kinematic.counterexamples.mdps import curiosity_counterexample
    >>> row = {"name": "curiosity", "objective": "inverse_dynamics", "criterion": "alpha",
    ...        "alpha_min": 0.0, "exact_prediction": "0",
    ...        "alpha_per_layer": [1.0, 1.0, 0.0], "homer_alpha_per_layer": [1.0, 1.0, 1.0],
    ...        "learned_classes": [[["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]],
    ...                            [["s7", "s8"], ["s9"]]],
    ...        "homer_learned_classes": [[["s1", "s2"]], [["s3"], ["s4"], ["s5"], ["s6"]],
    ...                                  [["s7"], ["s8"], ["s9"]]]}
    >>> figure = counterexample_figure(curiosity_counterexample(), row)
    >>> [axes.get_title() for axes in figure.axes]
    ['learned: inverse_dynamics', 'learned: HOMER (phi_B)', 'alpha of each cover per layer']
    """
    # homer.counterexamples runs HOMER (torch): imported for this figure only, so that
    # homer evaluate's figures load without torch
    from homer.counterexamples import exact_prediction, learned_partitions

    prediction = exact_prediction(row)
    partitions = learned_partitions(mdp, row)
    width, height = panel_size(mdp)
    figure = new_figure(figsize=(2 * width + _ALPHA_PANEL_WIDTH, height + 0.4),
                        layout="constrained")
    grid = figure.add_gridspec(1, 3, width_ratios=[width, width, _ALPHA_PANEL_WIDTH])
    draw_partitions(mdp, partitions,
                    axes=[figure.add_subplot(grid[0, k]) for k, _ in enumerate(partitions)])
    axes = figure.add_subplot(grid[0, 2])
    for offset, alphas, label in ((-0.2, row["alpha_per_layer"], row["objective"]),
                                  (0.2, row["homer_alpha_per_layer"], "HOMER")):
        bars = axes.bar(np.arange(1, len(alphas) + 1) + offset, alphas, 0.4, label=label)
        axes.bar_label(bars, fmt="{:.2f}", fontsize=7)  # an alpha of 0 has no bar to see
    axes.axhline(float(prediction), color="black", linestyle="--",
                 label=f"exact prediction: {row['exact_prediction']}")
    if row["criterion"] == "abstract_alpha":
        axes.axhline(row["alpha_min"], color="tab:purple", linestyle=":", linewidth=3,
                     label=f"{row['objective']}: best cover of policies\nover its classes")
    # room above the bars for the legend; a prediction of 0 drawn above the axis
    axes.set(xlabel="layer", ylabel="alpha (worst state of the layer)", ylim=(-0.03, 1.5),
             xticks=list(range(1, mdp.horizon + 1)), yticks=np.linspace(0, 1, 6),
             title="alpha of each cover per layer")
    axes.legend(loc="upper center", fontsize=8)
    figure.suptitle(f"{row['name']}: {row['objective']} and HOMER, learned on {mdp.name}")
    return figure
