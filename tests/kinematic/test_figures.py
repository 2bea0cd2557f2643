"""Whole figures (``kinematic.figures``): panels of partitions, Figures that Jupyter shows, and the
SVG pictures of a BlockMDP and a Partition in Jupyter."""

import sys

import matplotlib
import matplotlib.pyplot as plt
import pytest
from IPython.core.formatters import DisplayFormatter
from matplotlib.colors import to_hex

from kinematic import (
    InvalidPartition,
    UnknownName,
    backward_ki_partition,
    block_mdp,
    combination_lock,
    draw_partitions,
    figure2_split,
    ki_partition,
)
from kinematic.figures import MAX_PICTURE_STATES, new_figure, svg_picture
from kinematic.graph_style import panel_size
from kinematic.inseparability import Partition
from kinematic.partition import check_partition_of

matplotlib.use("Agg")

LOCK = combination_lock(horizon=6, actions=3, seed=4)


def merged_names_mdp():
    """A small MDP with long merged names (as a canonical form has)."""
    return block_mdp("merged", [["s1"], ["s2a+s2b", "s2c+s2d+s2e"], ["s3"]], ["a", "b"],
                     {"s1": 1},
                     {"s1": {"a": {"s2a+s2b": "1/3", "s2c+s2d+s2e": "2/3"},
                             "b": {"s2a+s2b": 1}},
                      "s2a+s2b": {"a": {"s3": 1}, "b": {"s3": 1}},
                      "s2c+s2d+s2e": {"a": {"s3": 1}, "b": {"s3": 1}}})


def node_colour(axes, position):
    """The face colour of the node drawn at ``position`` on ``axes``."""
    for collection in axes.collections:
        for offset, colour in zip(collection.get_offsets().tolist(),
                                  collection.get_facecolors(), strict=False):
            if tuple(offset) == tuple(map(float, position)):
                return to_hex(colour)
    raise AssertionError(f"no node at {position}")


def test_panels_show_the_backward_forward_and_ki_partitions_by_default():
    figure = draw_partitions(LOCK)
    assert [axes.get_title() for axes in figure.axes] == [
        "backward KI partition", "forward KI partition", "KI partition"]
    assert figure.get_suptitle() == "combolock-H6-K3-seed4"


def test_panels_of_given_partitions_keep_the_colour_of_a_block_found_in_both():
    figure = draw_partitions(LOCK, [backward_ki_partition(LOCK), ki_partition(LOCK)])
    s4a = (4, 1.0)  # layer 4, first of three states
    assert len(figure.axes) == 2
    assert node_colour(figure.axes[0], s4a) == node_colour(figure.axes[1], s4a)


@pytest.mark.parametrize("horizon, rows, columns", [(3, 1, 3), (4, 3, 1), (10, 3, 1)])
def test_panels_stand_in_one_row_if_it_fits_else_in_one_column(horizon, rows, columns):
    # Never a grid with an empty cell: 3 x 6.7 inches (horizon 4) is wider than a row.
    figure = draw_partitions(combination_lock(horizon, 3, seed=0))
    geometry = [axes.get_subplotspec().get_geometry()[:2] for axes in figure.axes]
    assert geometry == [(rows, columns)] * 3
    width, height = panel_size(combination_lock(horizon, 3, seed=0))
    assert tuple(figure.get_size_inches()) == pytest.approx((columns * width,
                                                             rows * height + 0.4))


def test_panels_fill_rows_of_the_given_number_of_columns():
    figure = draw_partitions(figure2_split(), columns=2)
    geometry = [axes.get_subplotspec().get_geometry()[:2] for axes in figure.axes]
    assert geometry == [(2, 2)] * 3


@pytest.mark.parametrize("columns", [0, -1, 1.5, True])
def test_a_number_of_columns_that_is_not_a_positive_int_is_refused(columns):
    with pytest.raises(ValueError, match="columns must be a positive int"):
        draw_partitions(figure2_split(), columns=columns)


def test_no_partitions_to_draw_is_refused():
    with pytest.raises(ValueError, match="partitions: give at least one"):
        draw_partitions(figure2_split(), [])


def test_a_partition_of_another_mdp_is_refused_naming_its_place_in_the_list():
    split = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^partitions\[1\]: it partitions other states"):
        draw_partitions(split, [ki_partition(split), ki_partition(LOCK)])


def test_partitions_that_are_not_a_list_are_refused():
    split = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^partitions must be a list of Partitions "
                                               r"\(\[partition\] for one\), got Partition\("):
        draw_partitions(split, ki_partition(split))


def test_panels_are_drawn_into_given_axes_of_a_figure_left_untitled():
    figure = new_figure()
    mine = figure.subplots(1, 3)
    assert draw_partitions(LOCK, axes=mine) is figure
    assert [axes.get_title() for axes in mine] == [
        "backward KI partition", "forward KI partition", "KI partition"]
    assert figure.get_suptitle() == ""


def test_a_number_of_axes_other_than_one_per_partition_is_refused():
    with pytest.raises(ValueError, match=r"^axes: 2 axes for 3 partitions"):
        draw_partitions(LOCK, axes=new_figure().subplots(1, 2))


def test_axes_that_are_not_matplotlib_axes_are_refused():
    with pytest.raises(ValueError, match=r"^axes must be a list of matplotlib Axes"):
        draw_partitions(LOCK, axes=["left", "middle", "right"])


def test_columns_with_given_axes_are_refused():
    with pytest.raises(ValueError, match=r"^columns: give columns or axes, not both"):
        draw_partitions(LOCK, columns=3, axes=new_figure().subplots(1, 3))


def test_an_unknown_drawing_option_is_refused_with_the_closest_one():
    with pytest.raises(UnknownName, match=r"^draw_partitions: unknown option 'edge_label' "
                                          r"\(did you mean 'edge_labels' or 'labels'\?\)"):
        draw_partitions(LOCK, edge_label=True)
    with pytest.raises(UnknownName, match=r"^draw_partitions: unknown option 'observation' "
                                          r"\(did you mean 'observations'"):
        draw_partitions(LOCK, observation=True)


@pytest.mark.parametrize("size", [None, "page"])
def test_each_partition_is_checked_once(monkeypatch: pytest.MonkeyPatch, size):
    checked = []

    def counting(mdp, partition, argument="partition"):
        checked.append(partition)
        return check_partition_of(mdp, partition, argument)

    monkeypatch.setattr("kinematic.figures.check_partition_of", counting)
    monkeypatch.setattr("kinematic.graph.check_partition_of", counting)
    partitions = [backward_ki_partition(LOCK), ki_partition(LOCK)]
    draw_partitions(LOCK, partitions, size=size)
    assert checked == partitions


def test_figures_are_not_left_open_in_pyplot():
    before = plt.get_fignums()
    draw_partitions(figure2_split())
    draw_partitions(figure2_split(), size="column")
    svg_picture(figure2_split())
    assert plt.get_fignums() == before


def test_ipython_shows_a_new_figure_as_a_png():
    figure = new_figure(figsize=(2, 1))
    figure.add_subplot().plot([0, 1])
    data, _ = DisplayFormatter().format(figure)
    assert data["image/png"].startswith(b"\x89PNG")


def test_ipython_shows_an_mdp_and_its_partition_as_svg():
    split = figure2_split()
    for shown in (split, ki_partition(split)):
        data, _ = DisplayFormatter().format(shown)
        assert "<svg" in data["image/svg+xml"]
        assert data["text/plain"] == repr(shown)


def test_the_svg_of_an_mdp_contains_every_state_name_as_text():
    mdp = merged_names_mdp()
    svg = mdp._repr_svg_()
    assert all(f">{state}</text>" in svg for state in mdp.states)
    assert ">a: 1/3</text>" in svg  # a small MDP's edges are labelled


def test_the_svg_of_a_partition_colours_its_blocks_and_names_it():
    svg = ki_partition(LOCK)._repr_svg_()
    assert all(f">{state}</text>" in svg for state in LOCK.states)
    assert ">combolock-H6-K3-seed4: KI partition</text>" in svg
    assert ">{s4a, s4b}</text>" in svg  # the legend of its merged blocks


def test_the_svg_is_the_same_each_time():
    assert figure2_split()._repr_svg_() == figure2_split()._repr_svg_()


def test_a_partition_without_its_mdp_shows_as_text():
    partition = ki_partition(LOCK)
    bare = Partition(partition.kind, partition.layers, partition.labels)
    assert bare._repr_svg_() is None


def test_an_mdp_with_more_than_the_limit_of_states_shows_as_text():
    small = combination_lock(horizon=20, actions=2, seed=0)
    large = combination_lock(horizon=21, actions=2, seed=0)
    assert len(small.states) <= MAX_PICTURE_STATES < len(large.states)
    assert large._repr_svg_() is None
    assert ki_partition(large)._repr_svg_() is None
    assert small._repr_svg_() is not None


def test_without_matplotlib_an_mdp_shows_as_text(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert figure2_split()._repr_svg_() is None
