"""The predictive objectives (multi-step inverse, forward modelling, temporal contrast, the
action-conditioned forward model) against an independent brute force: every abstraction of a
small layer enumerated, the exact square loss of each."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinematic import backward_ki_partition, block_mdp, combination_lock, forward_ki_partition
from kinematic.counterexamples.curiosity import inverse_dynamics_loss
from kinematic.counterexamples.exploration import explore_with_objective, state_groups
from kinematic.counterexamples.forward_models import (
    action_forward_joint,
    action_forward_objective,
    action_forward_solution,
    forward_modelling_joint,
    forward_modelling_objective,
    forward_modelling_solution,
    temporal_contrast_joint,
    temporal_contrast_objective,
    temporal_contrast_solution,
)
from kinematic.counterexamples.mdps import curiosity_counterexample
from kinematic.counterexamples.multistep_inverse import (
    every_gap_joint,
    multistep_inverse_gap_objective,
    multistep_inverse_joint,
    multistep_inverse_objective,
    multistep_inverse_solution,
)
from kinematic.counterexamples.objectives import (
    inverse_dynamics_abstraction,
    inverse_dynamics_posteriors,
    is_pcid_optimal,
    pcid_posteriors,
    pcid_target_abstraction,
    transition_distribution,
)
from kinematic.counterexamples.ppe import open_loop_policy
from kinematic.counterexamples.predictive import (
    MAX_COMPONENT,
    abstraction_loss,
    coarsest_optimal_abstraction,
    compatibility_graph,
    is_optimal,
    posteriors,
    predictive_solution,
)
from kinematic.exogenous import endogenous_partition
from kinematic.families import exogenous_combination_lock
from kinematic.model import BlockMDP, with_float_numbers
from kinematic.partition import Partition, compare_with
from kinematic.planning import observation_labels
from kinematic.strategies import block_mdps, policies
from tests.kinematic.brute_force_abstractions import brute_force_optimum

Joint = Callable[..., np.ndarray]  # (mdp, layer, cover=()) -> joint table

# objective name -> (joint table of a layer, the layers it is defined on)
OBJECTIVES: dict[str, tuple[Joint, Callable[[BlockMDP], range]]] = {
    "multistep_inverse_k1": (lambda mdp, t, cover=(): multistep_inverse_joint(mdp, t, 1, cover),
                             lambda mdp: range(1, mdp.horizon)),
    "multistep_inverse_k2": (lambda mdp, t, cover=(): multistep_inverse_joint(mdp, t, 2, cover),
                             lambda mdp: range(2, mdp.horizon)),
    "multistep_inverse": (every_gap_joint, lambda mdp: range(1, mdp.horizon)),
    "forward_modelling": (forward_modelling_joint, lambda mdp: range(mdp.horizon)),
    "temporal_contrast": (temporal_contrast_joint, lambda mdp: range(1, mdp.horizon)),
    "action_forward": (action_forward_joint, lambda mdp: range(mdp.horizon)),
}


def _blocks(labels: np.ndarray) -> list[list[int]]:
    return sorted(np.flatnonzero(labels == label).tolist() for label in np.unique(labels))


def _agrees_with_brute_force(joint: np.ndarray) -> None:
    """Kills: a non-minimum cover, a cover that loses information, a wrong `unique`, a loss
    of the wrong table."""
    solution = predictive_solution("any", 0, joint)
    best, fewest = brute_force_optimum(joint)
    assert solution.loss == best
    assert len(np.unique(solution.labels)) == len(fewest[0])
    assert _blocks(solution.labels) in [sorted(blocks) for blocks in fewest]
    assert solution.unique == (len(fewest) == 1)
    assert abstraction_loss(joint, solution.labels) == best


def _small_layers(mdp: BlockMDP) -> list[tuple[str, int, np.ndarray]]:
    return [(name, t, joint(mdp, t)) for name, (joint, layers) in OBJECTIVES.items()
            for t in layers(mdp) if len(mdp.observations[t]) <= 7]


@pytest.mark.parametrize("build", [
    curiosity_counterexample,
    lambda: combination_lock(3, 2, seed=0),
    lambda: exogenous_combination_lock(3, 2, seed=0, bits=1, flip="1/10").mdp,
], ids=["curiosity", "lock", "exogenous-lock"])
def test_every_objective_agrees_with_the_brute_force(build):
    mdp = build()
    layers = _small_layers(mdp)
    assert {name for name, _, _ in layers} == set(OBJECTIVES)
    for _, _, joint in layers:
        _agrees_with_brute_force(joint)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agrees_with_the_brute_force_on_random_mdps_and_covers(data):
    mdp = data.draw(block_mdps(min_horizon=2, max_horizon=3, max_width=3, min_actions=2,
                               max_actions=2, max_observations=2, rewards=False))
    cover = data.draw(st.lists(policies(mdp), max_size=2))
    name = data.draw(st.sampled_from(sorted(OBJECTIVES)))
    joint, layers = OBJECTIVES[name]
    for t in layers(mdp):
        table = joint(mdp, t, cover)
        assert sum(table.reshape(-1)) == 1
        _agrees_with_brute_force(table)


@st.composite
def sparse_joints(draw: st.DrawFn) -> np.ndarray:
    """Small joint tables with many zeros and few posteriors, so that observations often share
    no context and compatibility is often not transitive."""
    contexts, observations = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    rows = st.sampled_from([(0, 0), (0, 0), (1, 0), (0, 1), (1, 1), (2, 2), (1, 2)])
    weights = [[draw(rows) for _ in range(observations)] for _ in range(contexts)]
    total = sum(w for row in weights for pair in row for w in pair)
    if total == 0:
        weights[0][0], total = (1, 0), 1
    return np.array([[[Fraction(w, total) for w in pair] for pair in row] for row in weights],
                    dtype=object)


@settings(max_examples=100, deadline=None)
@given(sparse_joints())
def test_agrees_with_the_brute_force_on_sparse_tables(joint):
    """Where the clique cover search is exercised: non-transitive compatibility, several
    minimum covers."""
    _agrees_with_brute_force(joint)


def _not_transitive() -> np.ndarray:
    """x1 ~ x2 in context c1, x2 ~ x3 in c2, x1 and x3 differ in c3."""
    joint = np.zeros((3, 3, 2), dtype=object)
    joint[0, 0] = joint[0, 1] = (Fraction(1, 12), Fraction(1, 12))
    joint[1, 1] = joint[1, 2] = (Fraction(1, 6), 0)
    joint[2, 0], joint[2, 2] = (Fraction(1, 6), 0), (0, Fraction(1, 6))
    return joint


def test_compatibility_not_transitive_and_the_minimum_cover_not_unique():
    joint = _not_transitive()
    assert sorted(compatibility_graph(joint).edges) == [(0, 1), (1, 2)]
    labels, unique = coarsest_optimal_abstraction(joint)
    assert labels.tolist() == [0, 0, 1] and not unique
    assert is_optimal(joint, [0, 1, 1]) and not is_optimal(joint, [0, 0, 0])
    _, fewest = brute_force_optimum(joint)
    assert sorted(map(sorted, fewest)) == [[[0], [1, 2]], [[0, 1], [2]]]


def test_the_loss_of_coarser_labels_exceeds_the_optimum():
    """The doctest's example: merging x1 .. x3 costs more than either optimal cover."""
    joint = _not_transitive()
    assert abstraction_loss(joint, [0, 0, 0]) > abstraction_loss(joint, [0, 1, 1]) == \
        abstraction_loss(joint, [0, 0, 1]) == abstraction_loss(joint)


def test_the_minimum_where_first_fit_is_not():
    """Conflicts x0-x2, x2-x3, x3-x1 (one context each): first fit in index order makes
    {x0, x1} {x2} {x3}; the minimum is {x0, x3} {x1, x2}, unique. Kills a greedy cover."""
    joint = np.zeros((3, 4, 2), dtype=object)
    for c, (x, y) in enumerate([(0, 2), (2, 3), (3, 1)]):
        joint[c, x], joint[c, y] = (Fraction(1, 6), 0), (0, Fraction(1, 6))
    assert sorted(compatibility_graph(joint).edges) == [(0, 1), (0, 3), (1, 2)]
    labels, unique = coarsest_optimal_abstraction(joint)
    assert labels.tolist() == [0, 1, 1, 0] and unique
    _agrees_with_brute_force(joint)


def test_twins_together_and_unseen_observations_alone():
    """x0, x1 twins (equal posteriors wherever both are seen); x2 never shown; x3 in conflict
    with both. Kills merging an unseen observation (the loss could not tell)."""
    joint = np.zeros((2, 4, 2), dtype=object)
    joint[0, 0] = joint[0, 1] = (Fraction(1, 8), Fraction(1, 8))
    joint[1, 1] = (Fraction(1, 8), Fraction(1, 8))
    joint[0, 3] = (Fraction(1, 4), 0)
    labels, unique = coarsest_optimal_abstraction(joint)
    assert labels.tolist() == [0, 0, 1, 2] and unique
    _agrees_with_brute_force(joint)


def star(size: int) -> np.ndarray:
    """x0 in a context of its own, compatible with every leaf; the leaves x1 .. all in conflict
    in the other context: a connected component of ``size`` groups of twins."""
    joint = np.zeros((2, size, size), dtype=object)
    joint[0, 0, 0] = Fraction(1, 2)
    for x in range(1, size):
        joint[1, x, x] = Fraction(1, 2 * (size - 1))
    return joint


def test_refuses_a_component_beyond_the_stated_size():
    labels, unique = coarsest_optimal_abstraction(star(MAX_COMPONENT))  # searched
    assert len(np.unique(labels)) == MAX_COMPONENT - 1 and not unique  # x0 with any leaf
    size = MAX_COMPONENT + 1
    with pytest.raises(ValueError, match=rf"^joint: {size} groups of mutually compatible "
                                         r"observations are connected \(first 0\); the exact "
                                         rf"clique cover searches at most {MAX_COMPONENT}$"):
        coarsest_optimal_abstraction(star(size))


def test_gap_one_is_inverse_dynamics():
    """k = 1 reproduces Section 5's inverse-dynamics posteriors and loss, with a cover too."""
    mdp = curiosity_counterexample()
    cover = explore_with_objective(mdp, multistep_inverse_objective).covers[1]
    for roll_in in ([], cover):
        section5 = transition_distribution(mdp, roll_in, 2)
        ours = multistep_inverse_joint(mdp, 2, 1, roll_in)
        assert posteriors(ours) == inverse_dynamics_posteriors(section5)
        assert abstraction_loss(ours) == inverse_dynamics_loss(section5)


def test_every_gap_is_optimal_iff_optimal_for_each_gap():
    mdp = combination_lock(4, 2, seed=0)
    for t in range(1, mdp.horizon):
        solution = multistep_inverse_solution(mdp, t)
        gaps = [multistep_inverse_joint(mdp, t, k) for k in range(1, t + 1)]
        assert all(is_optimal(joint, solution.labels) for joint in gaps)
        assert solution.loss == sum(abstraction_loss(joint) for joint in gaps) / t
        for k in range(1, t + 1):  # the coarsest of one gap can be coarser, never finer
            alone = coarsest_optimal_abstraction(gaps[k - 1])[0]
            assert len(np.unique(alone)) <= len(np.unique(solution.labels))


def test_every_gap_separates_s7_from_s8_on_the_curiosity_counterexample():
    """Section 5's failure of curiosity is repaired by the gaps up to t: the gap 2 sees the
    start state, from which a1 leads to s7 (from s1) or s8 (from s2) surely."""
    mdp = curiosity_counterexample()
    s7, s8, s1 = (mdp.observation_location[x][1] for x in ("s7", "s8", "s1"))
    one = multistep_inverse_solution(mdp, 2, gap=1)
    every = multistep_inverse_solution(mdp, 2)
    assert state_groups(mdp, 2, one.labels) == [["s7", "s8"], ["s9"]] and one.unique
    assert state_groups(mdp, 2, every.labels) == [["s7"], ["s8"], ["s9"]] and every.unique
    assert (str(one.loss), str(every.loss)) == ("1/6", "7/30")
    witness = posteriors(multistep_inverse_joint(mdp, 2, 2))
    assert witness[s1, s7] == (1, 0) and witness[s1, s8] == (0, 1)
    looped = explore_with_objective(mdp, multistep_inverse_objective)
    assert state_groups(mdp, 2, looped.labels[2]) == [["s7"], ["s8"], ["s9"]]
    assert [str(a) for a in looped.worst_case_alpha] == ["1", "1", "1"]
    curiosity_loop = explore_with_objective(mdp, multistep_inverse_gap_objective(1))
    assert state_groups(mdp, 2, curiosity_loop.labels[2]) == [["s7", "s8"], ["s9"]]
    assert curiosity_loop.worst_case_alpha[2] == 0
    # with the cover Section 5's curiosity loop collects layer 3's data with
    with_cover = multistep_inverse_solution(mdp, 2, cover=curiosity_loop.covers[1])
    assert state_groups(mdp, 2, with_cover.labels) == [["s7"], ["s8"], ["s9"]]
    assert with_cover.unique and str(with_cover.loss) == "7/30"


def _relations(mdp: BlockMDP, objective, truth: Partition) -> list[str]:
    """The objective (in HOMER's loop, exact) against ``truth`` on layers 2 .. H."""
    labels = explore_with_objective(mdp, objective).labels
    found = Partition.from_observation_labels(mdp, labels)
    return [compare_with(found, truth, layer=h).relation for h in range(2, mdp.horizon + 1)]


@pytest.mark.parametrize("flip", ["1/2", "1/10"])
def test_action_free_objectives_recover_the_endogenous_state_with_iid_noise_only(flip):
    """Misra et al. (2024): forward modelling and temporal contrast ignore i.i.d. exogenous
    noise and not noise with memory. Exactly on the exogenous lock: with flip 1/2 their
    abstractions are unions of endogenous classes (never finer, never crossing); with flip
    1/10 they keep the noise bit apart at layer 2 (crossing the endogenous partition). Neither
    recovers the endogenous state itself: the uniform policy makes s2a and s2b look alike (the
    lock breaks their margin condition). The multi-step inverse ignores the noise in both."""
    noisy = exogenous_combination_lock(horizon=3, actions=2, seed=0, bits=1, flip=flip)
    endogenous = endogenous_partition(noisy)
    forward = _relations(noisy.mdp, forward_modelling_objective, endogenous)
    contrast = _relations(noisy.mdp, temporal_contrast_objective, endogenous)
    if flip == "1/2":
        assert forward == contrast == ["coarser", "coarser"]
    else:
        assert forward == ["crossing", "coarser"] and contrast == ["crossing", "crossing"]
    assert _relations(noisy.mdp, multistep_inverse_objective, endogenous) == ["coarser"] * 2


def test_action_forward_is_forward_ki_and_temporal_contrast_coarser_than_backward_ki():
    lock = combination_lock(4, 2, seed=0)
    forward = observation_labels(lock, forward_ki_partition(lock).labels)
    backward = Partition.from_observation_labels(
        lock, observation_labels(lock, backward_ki_partition(lock).labels))
    for h in range(lock.horizon - 1):
        assert _blocks(action_forward_objective(lock, [], h, None)) == _blocks(forward[h])
    contrast = Partition.from_observation_labels(
        lock, [np.zeros(len(lock.observations[0]), int)]
        + [temporal_contrast_objective(lock, [], h, None) for h in range(1, lock.horizon)])
    assert [compare_with(contrast, backward, layer=h).relation for h in (2, 3, 4)] == [
        "coarser", "equal", "equal"]


def test_errors_name_the_argument():
    mdp = curiosity_counterexample()
    with pytest.raises(ValueError, match=r"^mdp: 'curiosity-counterexample' is a float-mode "
                                         r"MDP; the exact objectives compare probabilities for "
                                         r"equality, so each must be exact: write them as "
                                         r"strings such as \"1/3\" in the spec \(one float makes "
                                         r"the whole spec float\)$"):
        multistep_inverse_solution(with_float_numbers(mdp), 2)
    with pytest.raises(ValueError, match=r"gap must lie in 1\.\.2 at layer 2, got 3"):
        multistep_inverse_solution(mdp, 2, gap=3)
    with pytest.raises(ValueError, match=r"layer must lie in 1\.\.2"):
        multistep_inverse_solution(mdp, 0)
    with pytest.raises(ValueError, match=r"layer must lie in 1\.\.2"):
        temporal_contrast_joint(mdp, 3)
    for gap in (0, True, 1.5, "2"):
        with pytest.raises(ValueError, match=rf"^gap must be an int >= 1, got {gap!r}$"):
            multistep_inverse_gap_objective(gap)
    with pytest.raises(ValueError, match=r"^layer must lie in 1\.\.2 \(0-based; layer 0 has no "
                                         r"earlier action\), got 3$"):
        multistep_inverse_solution(mdp, 3)


def test_the_forward_objectives_refuse_a_layer_out_of_range():
    mdp = curiosity_counterexample()
    for layer in (-1, 3):
        with pytest.raises(ValueError, match=rf"^layer must lie in 0\.\.2, got {layer}$"):
            forward_modelling_joint(mdp, layer)
        with pytest.raises(ValueError, match=rf"^layer must lie in 0\.\.2, got {layer}$"):
            action_forward_joint(mdp, layer)


def test_solutions_are_named_after_their_objective():
    """The names the objectives table prints."""
    mdp = curiosity_counterexample()
    assert [solution.objective for solution in (
        forward_modelling_solution(mdp, 1), temporal_contrast_solution(mdp, 1),
        action_forward_solution(mdp, 1), multistep_inverse_solution(mdp, 2),
        multistep_inverse_solution(mdp, 2, gap=2))] == [
        "forward_modelling", "temporal_contrast", "action_forward", "multistep_inverse",
        "multistep_inverse_k2"]


def branch(rows_a, rows_b):
    """s -> A under a1, A 3/4 or B 1/4 under a2; A and B lead to Z and W (or Y) by their rows:
    the cover of the one policy a1 rolls in through A only."""
    states = sorted({x for rows in (rows_a, rows_b) for row in rows.values() for x in row})
    return block_mdp("branch", [["s"], ["A", "B"], states], ["a1", "a2"], {"s": 1},
                     {"s": {"a1": {"A": 1}, "a2": {"A": "3/4", "B": "1/4"}},
                      "A": rows_a, "B": rows_b})


def test_every_objective_takes_its_data_from_the_cover():
    """Layer 3's data collected through the cover {a1} (A only) rather than uniformly (A and
    B): observations only B leads to are unreached and stay alone, contexts only B gives are
    gone, and the losses are those of the cover's data."""
    lost = branch({"a1": {"Z": 1}, "a2": {"W": 1}}, {"a1": {"Y": 1}, "a2": {"Y": 1}})  # W Y Z
    cover = [open_loop_policy(lost, ["a1"])]
    for solution, objective in ((forward_modelling_solution, forward_modelling_objective),
                                (action_forward_solution, action_forward_objective)):
        assert solution(lost, 2).labels.tolist() == [0, 0, 0]
        assert solution(lost, 2, cover).labels.tolist() == [0, 1, 0]  # Y alone
        assert objective(lost, cover, 2, None).tolist() == [0, 1, 0]
    assert multistep_inverse_solution(lost, 2, 1).labels.tolist() == [0, 0, 1]  # W with Y
    assert multistep_inverse_solution(lost, 2, 1, cover).labels.tolist() == [0, 1, 2]
    assert multistep_inverse_gap_objective(1)(lost, cover, 2, None).tolist() == [0, 1, 2]
    assert [temporal_contrast_solution(lost, 2, roll_in).loss for roll_in in ((), cover)] == [
        Fraction(19, 45), Fraction(1, 2)]
    assert [multistep_inverse_solution(lost, 2, cover=roll_in).loss
            for roll_in in ((), cover)] == [Fraction(55, 224), Fraction(3, 14)]
    # temporal contrast: W comes from A only, Z from B too; through A only they look alike
    contrast = branch({"a1": {"Z": 1}, "a2": {"W": 1}}, {"a1": {"Z": 1}, "a2": {"Z": 1}})
    assert temporal_contrast_objective(contrast, (), 2, None).tolist() == [0, 1]
    assert temporal_contrast_objective(contrast, [open_loop_policy(contrast, ["a1"])], 2,
                                       None).tolist() == [0, 0]
    # every gap: only the context B tells which action led to Z or W
    inverse = branch({"a1": {"Z": "1/2", "W": "1/2"}, "a2": {"Z": "1/2", "W": "1/2"}},
                     {"a1": {"Z": 1}, "a2": {"W": 1}})
    assert multistep_inverse_objective(inverse, (), 2, None).tolist() == [0, 1]
    assert multistep_inverse_objective(inverse, [open_loop_policy(inverse, ["a1"])], 2,
                                       None).tolist() == [0, 0]


def test_pcid_groups_the_targets_by_their_posterior_and_leaves_unseen_ones_alone():
    """x'0 and x'1 have the same posterior over (class of x, a) (1/2 each on (0, a0) and
    (1, a1)), x'2 another ((0, a1)), x'3 and x'4 are never seen: {x'0, x'1}, {x'2}, {x'3},
    {x'4}; merging x'1 with x'2 is not optimal, merging x'2 with the unseen x'3 is (it changes
    no posterior: the unseen stay alone by convention only)."""
    joint = np.full((2, 2, 5), Fraction(0), dtype=object)  # (x, a, x')
    joint[0, 0, 0] = joint[1, 1, 0] = Fraction(1, 8)
    joint[0, 0, 1] = joint[1, 1, 1] = Fraction(1, 4)
    joint[0, 1, 2] = Fraction(1, 4)
    previous = np.array([0, 1])
    assert pcid_target_abstraction(joint, previous).tolist() == [0, 0, 1, 2, 3]
    assert pcid_posteriors(joint, previous, np.array([0, 0, 1, 2, 3])) == {
        0: (Fraction(1, 2), 0, 0, Fraction(1, 2)), 1: (0, 1, 0, 0)}
    assert is_pcid_optimal(joint, previous, np.array([0, 0, 1, 2, 3]))
    assert not is_pcid_optimal(joint, previous, np.array([0, 1, 1, 2, 3]))
    assert is_pcid_optimal(joint, previous, np.array([0, 0, 1, 1, 2]))


def test_inverse_dynamics_leaves_an_unreached_target_alone():
    """x'0 and x'1 have the same posterior over the action (1/2, 1/2) and share a class; x'2,
    never reached, imposes nothing but stays alone (the convention of every objective here)."""
    joint = np.full((1, 2, 3), Fraction(0), dtype=object)  # (x, a, x')
    joint[0, :, :2] = Fraction(1, 4)
    assert inverse_dynamics_abstraction(joint).tolist() == [0, 0, 1]


def test_the_transition_table_refuses_a_layer_out_of_range():
    with pytest.raises(ValueError, match=r"^layer must lie in 1\.\.2, got 3$"):
        transition_distribution(curiosity_counterexample(), [], 3)
