"""Drawings of Block MDPs (``kinematic.graph``, ``kinematic.graph_style``): block colours over the
whole MDP, positions, edge and observation labels, names inside their nodes, legends, titles."""

from fractions import Fraction

import matplotlib
import networkx as nx
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex

from kinematic import (
    InvalidPartition,
    UnknownName,
    backward_ki_partition,
    block_mdp,
    combination_lock,
    draw_block_mdp,
    figure2_canonical,
    figure2_split,
    forward_ki_partition,
    ki_partition,
    to_networkx,
    with_float_numbers,
)
from kinematic.families import random_sparse_mdp
from kinematic.figures import new_figure
from kinematic.graph_style import (
    BASE_DIAMETER,
    NAME_FONT_SIZE,
    SINGLE_STATE_COLOUR,
    colour_blocks,
    edge_text,
    fit_name,
    panel_size,
)
from kinematic.inseparability import Partition

matplotlib.use("Agg")

LOCK = combination_lock(horizon=6, actions=3, seed=4)


def axes(size=(8, 4)):
    return new_figure(figsize=size).add_subplot()


def drawn_colours(drawing):
    """State -> the face colour of its node as drawn (read back from the node artist)."""
    nodes = next(c for c in drawing.axes.collections if len(c.get_offsets()) == len(
        drawing.positions))
    at = {tuple(offset): to_hex(colour) for offset, colour in
          zip(nodes.get_offsets().tolist(), nodes.get_facecolors(), strict=True)}
    return {state: at[tuple(map(float, xy))] for state, xy in drawing.positions.items()}


def texts(drawing):
    return [text.get_text() for text in drawing.axes.texts]


def merged_names_mdp():
    """Two layers of merged canonical names, the second long."""
    return block_mdp("merged", [["s1"], ["s2a+s2b", "s2c+s2d+s2e+s2f"], ["s3"]], ["a"],
                     {"s1": 1}, {"s1": {"a": {"s2a+s2b": "1/3", "s2c+s2d+s2e+s2f": "2/3"}},
                                 "s2a+s2b": {"a": {"s3": 1}}, "s2c+s2d+s2e+s2f": {"a": {"s3": 1}}})


def test_the_graph_has_a_node_per_state_and_an_edge_per_positive_transition():
    graph = to_networkx(figure2_split(), ki_partition(figure2_split()))
    assert graph.nodes["s2b"] == {"layer": 2, "block": 0}
    assert graph.edges["s1", "s2b"]["probabilities"] == {"a": Fraction(1, 5)}
    assert not graph.has_edge("s2a", "s2b")


def test_blocks_of_different_layers_never_share_a_colour():
    partition = backward_ki_partition(LOCK)  # merged blocks {s_ha, s_hb} in every layer
    drawing = draw_block_mdp(LOCK, partition, ax=axes())
    colours = drawn_colours(drawing)
    merged = [block for block in partition.blocks() if len(block) > 1]
    assert len(merged) == 6
    assert len({colours[block[0]] for block in merged}) == len(merged)


def test_the_states_of_a_block_share_its_colour_and_lone_states_are_grey():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes())
    colours = drawn_colours(drawing)
    assert colours == drawing.colours
    assert colours["s4a"] == colours["s4b"] != SINGLE_STATE_COLOUR
    assert {colours[s] for s in ("s2a", "s2b", "s3c", "s5c")} == {SINGLE_STATE_COLOUR}


def test_without_a_partition_every_state_is_grey():
    drawing = draw_block_mdp(LOCK, ax=axes())
    assert set(drawn_colours(drawing).values()) == {SINGLE_STATE_COLOUR}


def test_many_merged_blocks_get_distinct_colours_none_grey():
    layers = (tuple(f"s{i}" for i in range(60)),)
    partition = Partition("pairs", layers, (np.arange(60) // 2,))
    colours = colour_blocks([partition])
    assert len(colours) == 30
    assert len(set(colours.values())) == 30
    assert SINGLE_STATE_COLOUR not in colours.values()


def test_a_block_found_in_two_partitions_gets_one_colour():
    backward, ki = backward_ki_partition(LOCK), ki_partition(LOCK)
    colours = colour_blocks([backward, ki])
    assert frozenset({"s4a", "s4b"}) in colours  # in both partitions, coloured once
    assert len(set(colours.values())) == len(colours)


def test_the_default_layout_puts_layer_h_at_x_h_centred_on_zero():
    drawing = draw_block_mdp(figure2_split(), ax=axes())
    assert drawing.positions == {"s1": (1, 0.0), "s2a": (2, 0.5), "s2b": (2, -0.5),
                                 "s3": (3, 0.0)}


def test_given_positions_are_used_and_the_other_states_keep_the_layout():
    drawing = draw_block_mdp(figure2_split(), ax=axes(), positions={"s2a": (2.5, 3)})
    assert drawing.positions["s2a"] == (2.5, 3)
    assert drawing.positions["s1"] == (1, 0.0)
    assert drawing.labels["s2a"].get_position() == (2.5, 3)
    assert drawn_colours(drawing)["s2a"] == SINGLE_STATE_COLOUR  # a node is drawn there


def test_positions_naming_an_unknown_state_are_refused_with_the_closest_name():
    with pytest.raises(UnknownName, match=r"positions: unknown state 's2c'.*'s2a'"):
        draw_block_mdp(figure2_split(), ax=axes(), positions={"s2c": (0, 0)})


def test_a_networkx_layout_of_numpy_arrays_gives_the_positions():
    mdp = figure2_split()
    layout = nx.spring_layout(to_networkx(mdp), seed=0)
    drawing = draw_block_mdp(mdp, ax=axes(), positions=layout)
    assert drawing.positions == {state: tuple(xy.tolist()) for state, xy in layout.items()}


def test_positions_that_are_not_a_mapping_are_refused_by_name():
    with pytest.raises(ValueError, match=r"^positions must be a mapping state -> \(x, y\), got "
                                         r"\[\('s1', \(0, 0\)\)\]$"):
        draw_block_mdp(figure2_split(), ax=axes(), positions=[("s1", (0, 0))])


@pytest.mark.parametrize("position", [(1,), (1, "2"), (1, float("nan")), 3, np.zeros(3),
                                      np.array(["1", "2"]), (10**400, 0)])
def test_a_position_that_is_not_two_finite_numbers_is_refused(position):
    with pytest.raises(ValueError, match=r"positions\['s1'\] must be a pair"):
        draw_block_mdp(figure2_split(), ax=axes(), positions={"s1": position})


def test_edge_labels_give_actions_and_exact_probabilities_as_fractions():
    drawing = draw_block_mdp(figure2_split(), ax=axes(), edge_labels=True)
    assert {edge: text.get_text() for edge, text in drawing.edge_labels.items()} == {
        ("s1", "s2a"): "a: 4/5", ("s1", "s2b"): "a: 1/5", ("s2a", "s3"): "a: 1",
        ("s2b", "s3"): "a: 1"}


def test_the_edge_labels_of_the_lock_overlap_neither_each_other_nor_the_nodes():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), edge_labels=True,
                             ax=axes(panel_size(LOCK, edge_labels=True)))
    renderer = FigureCanvasAgg(drawing.axes.figure).get_renderer()
    labels = [t.get_window_extent(renderer) for t in drawing.edge_labels.values()]
    names = [t.get_window_extent(renderer) for t in drawing.labels.values()]
    assert len(labels) == to_networkx(LOCK).number_of_edges()
    assert not any(a.overlaps(b) for k, a in enumerate(labels) for b in labels[k + 1:])
    assert not any(a.overlaps(b) for a in labels for b in names)


def test_edges_are_unlabelled_by_default():
    drawing = draw_block_mdp(figure2_split(), ax=axes())
    assert drawing.edge_labels == {}
    assert not [t for t in texts(drawing) if "4/5" in t]


def test_float_probabilities_are_labelled_with_three_digits():
    drawing = draw_block_mdp(with_float_numbers(figure2_split()), ax=axes(), edge_labels=True)
    assert drawing.edge_labels["s1", "s2a"].get_text() == "a: 0.8"


def test_edge_text_rounds_a_float_to_three_digits_and_writes_a_long_fraction_in_full():
    tiny = Fraction(1, 10 ** 5000)  # str() of it passes Python's 4,300-digit limit
    assert edge_text({"a": 1 / 3, "b": tiny}, ["a", "b"]) == "a: 0.333\nb: 1/1" + "0" * 5000


def test_edge_text_groups_actions_of_equal_probability():
    half, one = Fraction(1, 2), Fraction(1)
    assert edge_text({"a1": half, "a3": half, "a2": one}, ["a1", "a2", "a3"]) == (
        "a1, a3: 1/2\na2: 1")


def test_edge_text_says_any_for_every_action_and_not_for_all_but_one():
    actions = ["a1", "a2", "a3", "a4", "a5"]
    assert edge_text(dict.fromkeys(actions, Fraction(1)), actions) == "any: 1"
    assert edge_text(dict.fromkeys(actions[:2] + actions[3:], Fraction(1)), actions) == (
        "not a3: 1")
    assert edge_text({"a": Fraction(1)}, ["a"]) == "a: 1"


def test_observations_are_written_under_the_states_on_request():
    canonical = figure2_canonical()
    assert "x2a: 4/5\nx2b: 1/5" not in texts(draw_block_mdp(canonical, ax=axes()))
    drawing = draw_block_mdp(canonical, ax=axes(), observations=True)
    under = next(t for t in drawing.axes.texts if t.get_text() == "x2a: 4/5\nx2b: 1/5")
    assert under.xy == drawing.positions["s2"]
    assert under.get_position()[1] < 0  # offset below the node


@pytest.mark.parametrize("size", [None, "column"])
def test_a_state_that_emits_itself_shows_no_observation_and_one_of_another_name_its_name(size):
    """Kills writing ``x: 1`` under every state with a single observation (noise: the
    combination lock's states emit themselves), and dropping the one observation of a split
    state, the point of figure2_split (s2a emits x2a)."""
    def draw(mdp):
        return draw_block_mdp(mdp, observations=True, size=size, layer_ticks=False,
                              ax=None if size else axes())

    drawing = draw(figure2_canonical())  # s1, s3 emit themselves; s2 two observations
    assert texts(drawing) == ["s1", "s2", "s3", "x2a: 4/5\nx2b: 1/5"]
    legend = [t.get_text() for t in drawing.axes.get_legend().get_texts()]
    assert legend == ["under a state s: observations x: q(x | s)"]
    assert texts(draw(figure2_split()))[4:] == ["x2a", "x2b"]  # after the four names
    drawing = draw(combination_lock(horizon=3, actions=2, seed=0))
    assert texts(drawing) == list(drawing.positions) and drawing.axes.get_legend() is None


@pytest.mark.parametrize("name", ["s2a+s2b", "s2c+s2d+s2e+s2f", "s10a+s10b+s10c",
                                  "+".join(f"state{k}" for k in range(12))])
def test_a_long_name_lies_inside_its_node(name):
    mdp = block_mdp("long", [["s1"], [name]], ["a"], {"s1": 1}, {"s1": {"a": {name: 1}}})
    drawing = draw_block_mdp(mdp, ax=axes())
    figure = drawing.axes.figure
    renderer = FigureCanvasAgg(figure).get_renderer()
    box = drawing.labels[name].get_window_extent(renderer)
    centre = drawing.axes.transData.transform(drawing.positions[name])
    radius = drawing.node_diameters[name] / 2 * figure.dpi / 72
    corners = [(x, y) for x in (box.x0, box.x1) for y in (box.y0, box.y1)]
    assert all(np.hypot(x - centre[0], y - centre[1]) <= radius for x, y in corners)


def test_a_long_name_gets_a_smaller_font_and_a_larger_node_than_a_short_one():
    assert fit_name("s1") == (NAME_FONT_SIZE, BASE_DIAMETER)
    font, diameter = fit_name("s2a+s2b+s2c")
    assert font < NAME_FONT_SIZE and diameter > BASE_DIAMETER
    drawing = draw_block_mdp(merged_names_mdp(), ax=axes())
    assert drawing.labels["s2c+s2d+s2e+s2f"].get_fontsize() < drawing.labels["s1"].get_fontsize()


@pytest.mark.parametrize(("partition", "description"), [
    (backward_ki_partition, "backward KI partition"),
    (forward_ki_partition, "forward KI partition"),
    (ki_partition, "KI partition"),
])
def test_the_title_names_the_mdp_and_the_partition(partition, description):
    drawing = draw_block_mdp(LOCK, partition(LOCK), ax=axes())
    assert drawing.axes.get_title() == f"combolock-H6-K3-seed4: {description}"


def test_a_given_title_replaces_the_default_and_no_partition_titles_the_mdp():
    assert draw_block_mdp(LOCK, ax=axes()).axes.get_title() == "combolock-H6-K3-seed4"
    assert draw_block_mdp(LOCK, ax=axes(), title="mine").axes.get_title() == "mine"


def test_the_legend_names_the_merged_blocks_and_the_colour_of_lone_states():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes(), edge_labels=True)
    legend = drawing.axes.get_legend()
    entries = [text.get_text() for text in legend.get_texts()]
    assert entries == ["{s1a, s1b}", "{s4a, s4b}", "{s6a, s6b}", "a state alone in its block",
                       "edge s -> s': actions: T(s' | s, a)"]
    patches = legend.get_patches()
    assert to_hex(patches[1].get_facecolor()) == drawing.colours["s4a"]
    assert to_hex(patches[3].get_facecolor()) == SINGLE_STATE_COLOUR


def test_the_legend_has_no_lone_state_entry_when_no_state_is_alone():
    """The endogenous partition of an exogenous lock merges every state with another."""
    from kinematic import endogenous_partition, exogenous_combination_lock

    model = exogenous_combination_lock(3, 2, 0, bits=1)
    drawing = draw_block_mdp(model.mdp, endogenous_partition(model), ax=axes())
    entries = [text.get_text() for text in drawing.axes.get_legend().get_texts()]
    assert entries and not any("alone in its block" in entry for entry in entries)


def test_the_legend_counts_the_merged_blocks_it_does_not_name():
    lock = combination_lock(horizon=10, actions=2, seed=0)
    drawing = draw_block_mdp(lock, backward_ki_partition(lock), ax=axes())
    entries = [text.get_text() for text in drawing.axes.get_legend().get_texts()]
    assert entries == [*(f"{{s{h}a, s{h}b}}" for h in range(1, 9)), "... 2 more blocks",
                       "a state alone in its block"]


def test_the_legend_names_a_large_block_by_its_first_states():
    mdp = random_sparse_mdp(horizon=2, width=6, actions=1, successors=1, seed=0)
    labels = {state: h for h, layer in enumerate(mdp.layers) for state in layer}
    drawing = draw_block_mdp(mdp, Partition.from_labels(mdp, labels), ax=axes())
    entries = [text.get_text() for text in drawing.axes.get_legend().get_texts()]
    assert entries[:2] == ["{s1_0, s1_1, s1_2, s1_3, ... (2 more)}",
                           "{s2_0, s2_1, s2_2, s2_3, ... (2 more)}"]


def test_no_legend_is_drawn_on_request():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes(), legend=False)
    assert drawing.axes.get_legend() is None


def test_a_partition_of_another_mdp_is_refused():
    with pytest.raises(InvalidPartition, match=r"^partition: it partitions other states than "
                                               r"those of 'combolock-H6-K3-seed4' \(layer 1: "):
        draw_block_mdp(LOCK, ki_partition(figure2_split()), ax=axes())


def test_a_partition_given_as_blocks_is_refused_by_name():
    with pytest.raises(InvalidPartition, match=r"^partition must be a Partition .*got "
                                               r"\[\['s2a', 's2b'\]\]$"):
        draw_block_mdp(figure2_split(), partition=[["s2a", "s2b"]], ax=axes())


def test_the_graph_refuses_a_partition_of_another_mdp():
    """Without the check, blocks of other states label these nodes or index out of range."""
    with pytest.raises(InvalidPartition, match=r"^partition: it partitions other states"):
        to_networkx(figure2_split(), ki_partition(LOCK))

