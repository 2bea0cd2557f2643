"""The endogenous partition of an exogenous Block MDP (kind ``"endogenous"``) wherever partitions
go: named in drawings, drawn beside the KI partitions with shared colours, and refused by
``quotient`` with the reason when the exogenous part has memory."""

from fractions import Fraction

import matplotlib
import pytest

from kinematic import (
    Partition,
    UndefinedQuotient,
    backward_ki_partition,
    combination_lock,
    draw_partitions,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
    forward_ki_partition,
    ki_partition,
    quotient,
)
from kinematic.graph_style import partition_description
from tests.kinematic.test_figures import node_colour

matplotlib.use("Agg")

LOCK = combination_lock(3, 2, seed=0)


def noisy(flip):
    q = str(1 - Fraction(flip))
    chain = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                            {"0": {"0": q, "1": flip}, "1": {"0": flip, "1": q}}, horizon=3)
    return exogenous_block_mdp(LOCK, chain)


def test_drawn_beside_the_ki_partitions_with_the_colours_of_shared_blocks():
    """With i.i.d. noise KI's blocks of layer 1 are the endogenous ones: same colour in both
    panels; with memory KI leaves each state of layer 1 alone (grey) where the endogenous
    partition colours s1a|0 and s1a|1 alike."""
    s1a_0, s1a_1 = (1, 1.5), (1, 0.5)  # the first two of the four nodes of layer 1
    for flip, shared in (("1/2", True), ("1/10", False)):
        model = noisy(flip)
        mdp = model.mdp
        partitions = [backward_ki_partition(mdp), forward_ki_partition(mdp), ki_partition(mdp),
                      endogenous_partition(model)]
        figure = draw_partitions(mdp, partitions)
        assert [axes.get_title() for axes in figure.axes] == [
            "backward KI partition", "forward KI partition", "KI partition",
            "endogenous partition"]
        ki_panel, endogenous_panel = figure.axes[2], figure.axes[3]
        assert node_colour(endogenous_panel, s1a_0) == node_colour(endogenous_panel, s1a_1)
        assert (node_colour(ki_panel, s1a_0) == node_colour(endogenous_panel, s1a_0)) is shared
        matplotlib.pyplot.close(figure)


def test_its_description():
    assert partition_description(endogenous_partition(noisy("1/2"))) == "endogenous partition"


def test_a_quotient_by_it_is_refused_with_the_reason_when_the_noise_has_memory():
    model = noisy("1/10")
    with pytest.raises(UndefinedQuotient, match=r"^quotient: states 's1a\|0' and 's1a\|1' of "
                                                r"layer 1 cannot be merged: they are not forward "
                                                r"KI .*\. An endogenous partition has a quotient "
                                                r"only when .* this exogenous part has memory"):
        quotient(model.mdp, endogenous_partition(model))
    # the same blocks as a partition of another kind: the error of any partition
    same = Partition.from_blocks(model.mdp, endogenous_partition(model).blocks())
    with pytest.raises(UndefinedQuotient) as raised:
        quotient(model.mdp, same)
    assert "endogenous" not in str(raised.value)
    # i.i.d. noise: defined, the lock's own layers
    iid = noisy("1/2")
    assert quotient(iid.mdp, endogenous_partition(iid)).mdp.layers[0] == ("s1a|0+s1a|1",
                                                                          "s1b|0+s1b|1")


def test_draw_partitions_takes_the_factorisation_whole_and_adds_the_endogenous_panel():
    model = noisy("1/10")
    figure = draw_partitions(model, size="page")
    assert [axes.get_title() for axes in figure.axes] == [
        "backward KI partition", "forward KI partition", "KI partition", "endogenous partition"]
    given = draw_partitions(model, [endogenous_partition(model)], title="")
    assert [axes.get_title() for axes in given.axes] == ["endogenous partition"]


@pytest.mark.parametrize("function", [ki_partition, backward_ki_partition, forward_ki_partition])
def test_a_function_of_block_mdps_given_the_factorisation_says_where_the_block_mdp_is(function):
    with pytest.raises(AttributeError, match=r"^'ExogenousBlockMDP' object has no attribute "
                                             r"'\w+': it is a Block MDP with its factorisation, "
                                             r"the Block MDP being its \.mdp - give a function "
                                             r"of Block MDPs model\.mdp"):
        function(noisy("1/10"))
