"""Drawings at their final size in a paper (``width=``, ``size=`` of ``draw_block_mdp`` and
``draw_partitions``): rendered with Agg at one column (3.4 inches), no two texts overlap, every
text lies inside the figure, no text is under 7 points and the legend is no wider than the
figure; layer ticks, display labels and the errors of the options."""

import sys
import warnings

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from kinematic import (
    BlockMDP,
    UnknownName,
    backward_ki_partition,
    block_mdp,
    combination_lock,
    draw_block_mdp,
    draw_partitions,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    figure2_split,
    ki_partition,
)
from kinematic.families import random_exact_mdp
from kinematic.figures import new_figure
from kinematic.graph_style import COLUMN_WIDTH, PAGE_WIDTH
from kinematic.spec import from_spec, to_spec

matplotlib.use("Agg")

LOCK = combination_lock(horizon=4, actions=2, seed=0)
LOCK_LABELS = {f"s{h}{x}": f"$s_{{{h},{x}}}$" for h in range(1, 5) for x in "abc"
               if f"s{h}{x}" in LOCK.state_location}


def rendered_texts(figure: Figure) -> list[Text]:
    """Every text drawn in ``figure`` (titles, names, labels, ticks, legend entries), after
    drawing it with Agg."""
    FigureCanvasAgg(figure).draw()
    texts: list[Text] = [*figure.texts]
    for axes in figure.axes:
        texts += [axes.title, *axes.texts]
        if axes.get_legend() is not None:
            texts += axes.get_legend().get_texts()
    return [text for text in texts if text.get_visible() and text.get_text()]


def layout_problems(figure: Figure) -> list[str]:
    """What is wrong with ``figure`` for a paper: texts that overlap, texts out of the figure,
    texts under 7 points, a legend wider than the figure."""
    texts = rendered_texts(figure)
    renderer = figure.canvas.get_renderer()
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in texts]
    width, height = figure.bbox.width, figure.bbox.height
    problems = [f"{text.get_text()!r} at {text.get_fontsize()} pt" for text in texts
                if text.get_fontsize() < 7]
    problems += [f"{name!r} out of the figure" for name, box in boxes
                 if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5
                 or box.y1 > height + 0.5]
    for k, (name, box) in enumerate(boxes):
        for other, other_box in boxes[k + 1:]:
            shared_x = min(box.x1, other_box.x1) - max(box.x0, other_box.x0)
            shared_y = min(box.y1, other_box.y1) - max(box.y0, other_box.y0)
            if shared_x > 0.5 and shared_y > 0.5:
                problems.append(f"{name!r} overlaps {other!r}")
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is not None:
            box = legend.get_window_extent(renderer)
            if box.width > width + 0.5:
                problems.append("the legend is wider than the figure")
            elif box.x0 < -0.5 or box.x1 > width + 0.5:
                problems.append("the legend reaches out of the figure")
    return problems


def test_the_lock_at_one_column_has_clear_readable_labels_and_a_narrow_legend():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), edge_labels=True, observations=True,
                             labels=LOCK_LABELS, size="column")
    figure = drawing.axes.figure
    assert figure.get_size_inches()[0] == pytest.approx(COLUMN_WIDTH)
    assert len(drawing.edge_labels) == 20  # every edge is labelled, so every label is checked
    assert layout_problems(figure) == []


@pytest.mark.parametrize("options", [{}, {"edge_labels": True}])
def test_the_partitions_of_the_lock_at_one_column_have_clear_readable_labels(options):
    figure = draw_partitions(LOCK, width=3.4, **options)
    assert figure.get_size_inches()[0] == pytest.approx(3.4)
    assert len(figure.axes) == 3
    assert layout_problems(figure) == []


def noisy_random_mdp(seed: int) -> BlockMDP:
    """A random 3 x 3 MDP whose first state of each layer emits two observations."""
    spec = to_spec(random_exact_mdp(horizon=3, width=3, actions=2, successors=2, seed=seed))
    spec["emissions"] = {layer[0]: {f"x{layer[0]}a": "1/3", f"x{layer[0]}b": "2/3"}
                         for layer in spec["layers"]}
    return from_spec(spec)


@pytest.mark.parametrize("seed", [1, 2])  # their edge labels need rows spread apart
def test_a_random_mdp_with_observations_at_one_column_has_clear_readable_labels(seed):
    mdp = noisy_random_mdp(seed)
    drawing = draw_block_mdp(mdp, ki_partition(mdp), edge_labels=True, observations=True,
                             size="column")
    assert sum("1/3" in text for text in map(Text.get_text, drawing.axes.texts)) == 3
    assert layout_problems(drawing.axes.figure) == []


def test_a_layout_engine_asked_for_in_matplotlibrc_is_not_used_nor_warned_about():
    """Kills a figure at a width made with the user's layout engine: constrained layout then
    warns, on every draw, that it has no gridspec to lay out."""
    with matplotlib.rc_context({"figure.constrained_layout.use": True}), warnings.catch_warnings():
        warnings.simplefilter("error")
        drawing = draw_block_mdp(LOCK, ki_partition(LOCK), size="column")
        figure = draw_partitions(LOCK, size="column")
        assert layout_problems(drawing.axes.figure) == [] and layout_problems(figure) == []


def test_the_check_finds_the_overlaps_of_a_screen_drawing_squeezed_into_a_column():
    """The drawing without ``size``, in axes 3.4 inches wide (what a paper's user had): its
    edge labels overlap, and its legend is wider than the figure. So the checks above can fail."""
    axes = new_figure(figsize=(COLUMN_WIDTH, 2.6)).add_subplot()
    draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes, edge_labels=True, observations=True)
    problems = layout_problems(axes.figure)
    assert any("overlaps" in problem for problem in problems)
    assert "the legend is wider than the figure" in problems


def test_the_legend_of_many_blocks_at_one_column_stands_in_the_columns_that_fit():
    lock = combination_lock(horizon=5, actions=2, seed=0)
    drawing = draw_block_mdp(lock, backward_ki_partition(lock), size="column")
    assert len(drawing.axes.get_legend().get_texts()) == 6
    assert layout_problems(drawing.axes.figure) == []


def test_at_page_width_the_partitions_of_a_short_mdp_stand_in_one_row():
    figure = draw_partitions(figure2_split(), size="page")
    assert figure.get_size_inches()[0] == pytest.approx(PAGE_WIDTH)
    rows = {round(axes.get_position().y0, 6) for axes in figure.axes}
    assert len(rows) == 1
    assert layout_problems(figure) == []


def test_the_panels_of_a_one_state_mdp_keep_their_titles_and_legends_apart():
    """Kills an axes as narrow as the one node (titles broken word by word, legends spilling
    into the next panel): a panel takes its whole share of the width."""
    figure = draw_partitions(block_mdp("one", [["s1"]], ["a"], {"s1": 1}, {}), size="column")
    assert layout_problems(figure) == []
    assert [axes.get_title() for axes in figure.axes] == [
        "backward KI partition", "forward KI partition", "KI partition"]


def test_layer_ticks_name_the_layers_from_1_under_each_layer():
    drawing = draw_block_mdp(LOCK, size="column")
    ticks = drawing.layer_ticks
    assert [tick.get_text() for tick in ticks] == ["$h = 1$", "$h = 2$", "$h = 3$", "$h = 4$"]
    assert [tick.xy[0] for tick in ticks] == [1, 2, 3, 4]  # the layers' x in the layout
    figure = drawing.axes.figure
    renderer = FigureCanvasAgg(figure).get_renderer()
    lowest_node = drawing.axes.transData.transform((1, min(
        y for _, y in drawing.positions.values())))[1]
    assert all(tick.get_window_extent(renderer).y1 < lowest_node for tick in ticks)


def test_layer_ticks_are_off_by_default_and_on_request_their_legend_goes_below_them():
    axes = new_figure(figsize=(8, 4)).add_subplot()
    assert draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes).layer_ticks == []
    axes = new_figure(figsize=(8, 4)).add_subplot()
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), ax=axes, layer_ticks=True)
    assert len(drawing.layer_ticks) == 4
    assert not any("overlaps" in problem for problem in layout_problems(axes.figure))
    assert draw_block_mdp(LOCK, size="column", layer_ticks=False).layer_ticks == []


def test_display_labels_replace_the_names_in_the_nodes_and_the_legend():
    drawing = draw_block_mdp(LOCK, ki_partition(LOCK), labels={"s4a": "$s_{4,a}$"},
                             size="column")
    assert drawing.labels["s4a"].get_text() == "$s_{4,a}$"
    assert drawing.labels["s4b"].get_text() == "s4b"  # not in the mapping: its name
    entries = [text.get_text() for text in drawing.axes.get_legend().get_texts()]
    assert entries[0] == "{$s_{4,a}$, s4b}"


def test_display_labels_work_without_a_size_too():
    axes = new_figure(figsize=(8, 4)).add_subplot()
    drawing = draw_block_mdp(LOCK, ax=axes, labels={"s1a": "$s_{1,a}$"})
    assert drawing.labels["s1a"].get_text() == "$s_{1,a}$"


@pytest.mark.parametrize(("labels", "message"), [
    ({"s9a": "x"}, r"^labels: unknown state 's9a' \(did you mean"),
    (["s1a"], r"^labels must be a mapping state -> display text, got \['s1a'\]$"),
    ({"s1a": 3}, r"^labels\['s1a'\] must be a non-empty string, got 3$"),
    ({"s1a": "$s_{1$"}, r"^labels\['s1a'\]: '\$s_\{1\$' is not valid mathtext \("),
])
def test_display_labels_that_are_not_states_or_text_are_refused_by_name(labels, message):
    with pytest.raises((UnknownName, ValueError), match=message):
        draw_block_mdp(LOCK, labels=labels, size="column")
    with pytest.raises((UnknownName, ValueError), match=message):
        draw_partitions(LOCK, labels=labels, size="column")


@pytest.mark.parametrize(("options", "message"), [
    ({"width": 3.4, "size": "column"}, r"^width=3.4, size='column': give width or size, not "),
    ({"size": "col"}, r"^size must be 'column' \(3.4 in\) or 'page' \(7.0 in\), got 'col'$"),
    ({"width": 0}, r"^width must be a positive number of inches, got 0$"),
    ({"width": True}, r"^width must be a positive number of inches, got True$"),
    ({"width": "3.4"}, r"^width must be a positive number of inches, got '3.4'$"),
])
def test_a_width_or_size_that_is_not_one_is_refused(options, message):
    with pytest.raises(ValueError, match=message):
        draw_block_mdp(LOCK, **options)


def test_a_width_with_given_axes_is_refused():
    with pytest.raises(ValueError, match=r"^ax: a drawing at a given width or size makes its "):
        draw_block_mdp(LOCK, ax=new_figure().add_subplot(), size="column")
    with pytest.raises(ValueError, match=r"^axes: a figure at a given width or size is laid "):
        draw_partitions(LOCK, axes=new_figure().subplots(1, 3), size="column")


WEATHER = exogenous_block_mdp(
    from_spec({"name": "courier", "horizon": 3, "actions": ["L", "R"],
               "layers": [["a", "b"], ["c", "d", "e"], ["f", "g"]],
               "start": {"a": "1/3", "b": "2/3"},
               "transitions": {"a": {"L": {"c": "1"}, "R": {"d": "1/2", "e": "1/2"}},
                               "b": {"L": {"c": "1/2", "d": "1/2"}, "R": {"e": "1"}},
                               "c": {"L": {"f": "1"}, "R": {"g": "1"}},
                               "d": {"L": {"f": "1"}, "R": {"g": "1"}},
                               "e": {"L": {"f": "1/2", "g": "1/2"}, "R": {"g": "1"}}}}),
    exogenous_chain(["sun", "cloud", "rain"], {"sun": "1/2", "cloud": "1/4", "rain": "1/4"},
                    {"sun": {"sun": "7/10", "cloud": "3/10"},
                     "cloud": {"sun": "3/10", "cloud": "4/10", "rain": "3/10"},
                     "rain": {"cloud": "3/10", "rain": "7/10"}}, horizon=3))
"""A courier in the weather: 21 states whose names (``a|cloud``) make a panel narrow enough at
two columns for its legend's one entry (``every state alone in its block``) to need two lines."""


@pytest.mark.parametrize("options", [{"width": 3.5, "columns": 2}, {"width": 3.5}])
def test_a_legend_wider_than_its_panel_wraps_within_the_figure(options):
    """Its one entry on two lines, inside the figure (it reached out of it), so that the panels
    stand side by side at 3.5 inches also when the layout is left to the function."""
    partitions = [ki_partition(WEATHER.mdp), endogenous_partition(WEATHER)]
    figure = draw_partitions(WEATHER.mdp, partitions, title="", **options)
    assert figure.axes[0].get_legend().get_texts()[-1].get_text() == (
        "every state alone in its\nblock")
    assert figure.get_size_inches()[1] < 7  # side by side
    assert layout_problems(figure) == []


def test_a_too_narrow_width_names_the_width_of_the_whole_figure():
    """In two columns, the width the refusal asks for is the figure's (both panels and the gap
    between them), and it is enough."""
    partitions = [ki_partition(WEATHER.mdp), endogenous_partition(WEATHER)]
    with pytest.raises(ValueError, match=r"in 2 columns needs 3\.5 inches .* not 3\.4: "):
        draw_partitions(WEATHER.mdp, partitions, size="column", columns=2)
    figure = draw_partitions(WEATHER.mdp, partitions, width=3.5, columns=2)
    assert figure.get_size_inches()[0] == pytest.approx(3.5)


def test_an_mdp_too_long_for_the_width_is_refused_with_the_width_it_needs():
    lock = combination_lock(horizon=10, actions=10, seed=0)
    with pytest.raises(ValueError, match=r"^size='column': 'combolock-H10-K10-seed0' needs "
                                         r"8\.\d inches to draw 10 layers with text of at "
                                         r"least 7 points, not 3\.4: give a width"):
        draw_block_mdp(lock, edge_labels=True, size="column")
    assert draw_block_mdp(lock, size="page").axes.figure.get_size_inches()[0] == PAGE_WIDTH


def test_the_refusal_suggests_turning_off_only_the_labels_that_are_on():
    lock = combination_lock(horizon=10, actions=10, seed=0)
    with pytest.raises(ValueError, match=r"or fewer labels \(edge_labels=False\)$"):
        draw_block_mdp(lock, edge_labels=True, size="column")
    with pytest.raises(ValueError, match=r"or shorter names \(labels=\)$"):
        draw_block_mdp(lock, width=1.5)


@pytest.mark.parametrize("options", [{}, {"size": "column"}])
def test_draw_partitions_takes_a_title_and_none_with_an_empty_one(options):
    """A figure under a caption has no title of its own (``title=""``)."""
    def titles(figure):
        return [text.get_text() for text in figure.texts]

    assert titles(draw_partitions(LOCK, **options)) == [LOCK.name]
    assert titles(draw_partitions(LOCK, title="The lock", **options)) == ["The lock"]
    untitled = draw_partitions(LOCK, title="", **options)
    assert titles(untitled) == []
    if options:
        assert layout_problems(untitled) == []
        titled = draw_partitions(LOCK, **options)
        assert untitled.get_size_inches()[1] < titled.get_size_inches()[1]
    with pytest.raises(ValueError, match=r"^title must be a string \('' for none\), got 3$"):
        draw_partitions(LOCK, title=3, **options)


@pytest.mark.parametrize("draw", [
    lambda: draw_block_mdp(LOCK), lambda: draw_block_mdp(LOCK, size="column"),
    lambda: draw_partitions(LOCK, size="column")])
def test_drawing_without_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch, draw):
    """Kills measuring the text (which needs matplotlib) before saying what to install."""
    for name in [name for name in sys.modules if name.split(".")[0] == "matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    with pytest.raises(ImportError, match=r"kinematic\[homer\]"):
        draw()


def test_a_name_is_written_in_the_colour_that_contrasts_most_with_its_node():
    """Black on a lone state's grey, white on the dark colours of the palette: a name drawn
    black on tab10's blue has a contrast ratio of 4.4, white 4.8 (WCAG)."""
    lock = combination_lock(horizon=3, actions=2, seed=0)
    drawing = draw_block_mdp(lock, ki_partition(lock), size="column")
    colours = {state: text.get_color() for state, text in drawing.labels.items()}
    merged = {state for block in ki_partition(lock).blocks() if len(block) > 1 for state in block}
    assert merged and all(colours[state] == "white" for state in merged), colours
    assert all(colour == "black" for state, colour in colours.items() if state not in merged)
    drawing.axes.figure.clear()
