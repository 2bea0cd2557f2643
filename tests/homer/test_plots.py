"""The figures of ``homer compare`` say what they show: rows named by their states, integer
time steps, a colour bar wherever colour encodes a number, a legend for the dynamics' colours
and edge widths (read back from the returned ``Figure``)."""

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from homer.compare import ComparisonReport, compare_run
from homer.plots import (
    alpha_figure,
    confusion_figure,
    counterexample_figure,
    dynamics_figure,
    visitation_figure,
)
from kinematic.counterexamples.mdps import (
    autoencoder_exploration_counterexample,
    curiosity_counterexample,
)
from kinematic.model import BlockMDP
from tests.homer.handmade import abstraction, lock, perfect_artefacts
from tests.homer.test_compare import SAMPLES
from tests.homer.test_verdicts import CURIOSITY_ROW


@pytest.fixture(scope="module")
def compared() -> tuple[ComparisonReport, BlockMDP]:
    """A run of the H = 4 lock whose phi_F merges s2a and s2b (a wrong merge at step 2)."""
    mdp = lock()
    forward = {**perfect_artefacts(mdp).forward, 1: abstraction(mdp, [0, 0, 1])}
    return compare_run(perfect_artefacts(mdp, forward=forward), samples=SAMPLES,
                       transitions=400), mdp


def colour_bars(figure) -> list:
    return [axes for axes in figure.axes if axes.get_label() == "<colorbar>"]


def visible_ticks(axes) -> list[float]:
    low, high = axes.get_xlim()
    return [t for t in axes.get_xticks() if low <= t <= high]


def test_the_visitation_rows_are_labelled_by_the_states_they_hold(compared):
    report, mdp = compared
    axes = visitation_figure(report, mdp).axes[0]
    assert [label.get_text() for label in axes.get_yticklabels()] == [
        "s1a, s2a, ..., s4a", "s1b, s2b, ..., s4b", "s2c, s3c, s4c"]
    assert sorted(text.get_text() for text in axes.texts) == sorted(mdp.states)


def test_the_visitation_opacity_has_a_colour_bar_in_counts(compared):
    report, mdp = compared
    figure = visitation_figure(report, mdp)
    (bar,) = colour_bars(figure)
    assert bar.get_ylabel() == "expected visits (log scale)"
    assert [t.get_text() for t in bar.get_yticklabels()] == ["0", "1", "10", "150"]
    points = figure.axes[0].collections[0]
    opacity = points.to_rgba(points.get_array())[:, 3]
    counts = np.concatenate(report.visitation_counts)
    assert opacity[counts.argmax()] == 1.0  # the most visited state is opaque
    assert (np.diff(opacity[np.argsort(counts)]) >= 0).all()  # more visits, more opaque


@pytest.mark.parametrize("draw", [visitation_figure, dynamics_figure, alpha_figure])
def test_time_steps_are_integer_ticks(compared, draw):
    report, mdp = compared
    figure = draw(report) if draw is alpha_figure else draw(report, mdp)
    assert visible_ticks(figure.axes[0]) == [1, 2, 3, 4]
    assert figure.axes[0].get_xlabel() == "time step h"


def test_the_dynamics_legend_explains_node_colours_and_edge_widths(compared):
    report, mdp = compared
    legend = dynamics_figure(report, mdp, threshold=0.2).axes[0].get_legend()
    texts = [text.get_text() for text in legend.get_texts()]
    assert texts == ["learned state: one KI class",
                     "learned state: several KI\nclasses (wrong merge)",
                     r"$\max_a \hat T(j \mid i, a) = 0.2$",
                     r"$\max_a \hat T(j \mid i, a) = 0.5$",
                     r"$\max_a \hat T(j \mid i, a) = 1$"]
    widths = [handle.get_linewidth() for handle in legend.legend_handles[2:]]
    assert widths == [1.4, 2.0, 3.0]  # the width the edges of that strength are drawn with
    legend_colours = {to_rgb(handle.get_markerfacecolor())
                      for handle in legend.legend_handles[:2]}
    nodes = dynamics_figure(report, mdp).axes[0].collections[0].get_facecolor()
    assert {to_rgb(colour) for colour in nodes} == legend_colours  # both kinds are drawn


def test_the_confusion_matrices_share_one_scale_shown_by_a_colour_bar(compared):
    report, _ = compared
    figure = confusion_figure(report)
    (bar,) = colour_bars(figure)
    assert bar.get_ylabel() == "encodings"
    panels = [axes for axes in figure.axes if axes not in colour_bars(figure)]
    assert len(panels) == 4
    assert {axes.images[0].norm.vmax for axes in panels} == {16}  # the largest count
    assert panels[0].get_ylabel() == "learned phi-bar class"


def test_any_learners_abstraction_report_draws_its_confusion_matrices():
    from homer.evaluate import evaluate_abstraction
    from kinematic.families import combination_lock

    mdp = combination_lock(horizon=3, actions=2, seed=0)
    report = evaluate_abstraction(mdp, lambda x, step: np.zeros(len(x), dtype=int), samples=5)
    figure = confusion_figure(report)
    panels = [axes for axes in figure.axes if axes not in colour_bars(figure)]
    assert [axes.get_title() for axes in panels] == [
        "step 1: 1 wrong merge", "step 2: 3 wrong merges", "step 3: 1 wrong merge"]
    assert panels[0].get_ylabel() == "learned phi class"
    assert {axes.images[0].norm.vmax for axes in panels} == {10}  # KI class s3a+s3b: 2 x 5


def test_a_counterexample_row_draws_both_learned_abstractions_and_alpha_per_layer():
    figure = counterexample_figure(curiosity_counterexample(), CURIOSITY_ROW)
    objective, homer, bars = figure.axes
    assert [axes.get_title() for axes in figure.axes] == [
        "learned: inverse_dynamics", "learned: HOMER (phi_B)", "alpha of each cover per layer"]
    assert figure.get_suptitle() == ("curiosity: inverse_dynamics and HOMER, learned on "
                                     "curiosity-counterexample")
    # the objective's merged {s7, s8} is coloured, HOMER's s7 and s8 are not
    assert {text.get_text() for text in objective.get_legend().get_texts()} >= {"{s7, s8}"}
    assert "{s7, s8}" not in {text.get_text() for text in homer.get_legend().get_texts()}
    heights = [patch.get_height() for patch in bars.patches]
    assert heights == CURIOSITY_ROW["alpha_per_layer"] + CURIOSITY_ROW["homer_alpha_per_layer"]
    assert [text.get_text() for text in bars.get_legend().get_texts()] == [
        "exact prediction: 0", "inverse_dynamics", "HOMER"]


def test_the_prediction_line_is_at_the_exact_prediction_read_without_eval():
    row = {**CURIOSITY_ROW, "exact_prediction": "1/3"}
    (line,) = counterexample_figure(curiosity_counterexample(), row).axes[2].get_lines()
    assert line.get_ydata()[0] == 1 / 3
    assert line.get_label() == "exact prediction: 1/3"
    with pytest.raises(ValueError, match="exact_prediction"):  # read, never evaluated
        counterexample_figure(curiosity_counterexample(), {**row, "exact_prediction": "1 + 1"})


def test_a_split_state_is_named_in_its_panels_title():
    row = {**CURIOSITY_ROW, "name": "autoencoder", "objective": "autoencoder",
           "criterion": "merges", "exact_prediction": "1", "alpha_per_layer": [1.0, 1.0],
           "homer_alpha_per_layer": [1.0, 1.0],
           "learned_classes": [[["s"]], [["s0", "s1"], ["s1"]]],
           "homer_learned_classes": [[["s"]], [["s0"], ["s1"]]]}
    figure = counterexample_figure(autoencoder_exploration_counterexample(), row)
    assert figure.axes[0].get_title() == "learned: autoencoder; s1 split"


def test_the_abstract_state_alpha_of_pcids_model_based_row_has_its_own_line():
    """Its verdict compares the best cover of policies over PCID's classes, which the bars (the
    cover's observation policies) do not show."""
    row = {**CURIOSITY_ROW, "objective": "pcid", "criterion": "abstract_alpha",
           "alpha_min": 0.25, "exact_prediction": "1/2"}
    lines = counterexample_figure(curiosity_counterexample(), row).axes[2].get_lines()
    assert [(line.get_ydata()[0], line.get_label()) for line in lines] == [
        (0.5, "exact prediction: 1/2"), (0.25, "pcid: best cover of policies\nover its classes")]
