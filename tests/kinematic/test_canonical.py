"""The canonical form (Section 3, Figure ``fig:mdp-canonical``)."""

import json
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from kinematic.canonical import canonical_form
from kinematic.errors import InvalidBlockMDP, InvalidPartition
from kinematic.families import combination_lock, figure2_canonical, figure2_split
from kinematic.homing import eta
from kinematic.inseparability import backward_ki_partition, ki_partition
from kinematic.model import relabel_states, with_float_numbers
from kinematic.partition import Partition
from kinematic.spec import from_spec, to_spec
from kinematic.strategies import block_mdps, policies, split_states
from kinematic.visitation import trajectory_distribution
from tests.kinematic.test_homing import by_state

SMALL = block_mdps(max_horizon=3, max_width=2, max_actions=2, max_splits=2)


@given(block_mdps(max_splits=2))
def test_canonical_form_is_a_fixed_point(mdp):
    """Merging KI classes leaves no two KI states: canonical(canonical(M)) = canonical(M)."""
    once = canonical_form(mdp).mdp
    assert ki_partition(once).number_of_blocks == len(once.states)
    assert to_spec(canonical_form(once).mdp) == to_spec(once)


@given(st.data())
def test_canonical_form_emits_the_same_observation_process(data):
    """Under any observation policy, the distribution of (x_1, a_1, ..., x_H, a_H) is the same
    for M and its canonical form, exactly."""
    mdp = data.draw(SMALL)
    policy = data.draw(policies(mdp))
    canonical = canonical_form(mdp).mdp
    assert trajectory_distribution(canonical, policy) == trajectory_distribution(mdp, policy)


@given(block_mdps(max_splits=2))
def test_eta_of_a_class_is_the_sum_over_its_members(mdp):
    """lem:abstraction-policy: one policy maximises every member, so eta(C) = sum eta(s)."""
    result = canonical_form(mdp)
    members = defaultdict(list)
    for state, merged in result.state_map.items():
        members[merged].append(state)
    original, merged_eta = by_state(mdp, eta(mdp)), by_state(result.mdp, eta(result.mdp))
    for merged, states in members.items():
        assert merged_eta[merged] == sum(original[s] for s in states)


@given(split_states(block_mdps(max_splits=0, max_observations=3)))
def test_splitting_a_state_leaves_the_canonical_form_unchanged(case):
    """canonical(split(M)) = canonical(M) up to the names of states; a weight split also refines
    each observation x of the split state into x/a, x/b, which is undone before comparing."""
    mdp, split, state = case
    before, after = canonical_form(mdp), canonical_form(split)
    assert len(after.mdp.states) == len(before.mdp.states)
    halves = [s for s in split.states if s not in mdp.state_location]
    origin = {s: (state if s in halves else s) for s in split.states}
    renaming = {after.state_map[s]: before.state_map[origin[s]] for s in split.states}
    renamed = to_spec(relabel_states(after.mdp, renaming))
    assert merge_refined_observations(renamed, mdp.observations_of(state)) == to_spec(before.mdp)


def merge_refined_observations(spec: dict, observations) -> dict:
    """Undo the refinement x -> x/a, x/b of a weight split (identity for observation splits)."""
    refined = {f"{x}/{half}": x for x in observations for half in "ab"}
    emissions = {}
    for state, distribution in spec.get("emissions", {}).items():
        merged = defaultdict(Fraction)
        for observation, p in distribution.items():
            merged[refined.get(observation, observation)] += Fraction(p)
        if dict(merged) != {state: 1}:
            emissions[state] = {x: str(p) for x, p in merged.items()}
    rewards = {refined.get(x, x): r for x, r in spec.get("rewards", {}).items()}
    result = {k: v for k, v in spec.items() if k not in ("emissions", "rewards")}
    result.update({"emissions": emissions} if emissions else {})
    result.update({"rewards": rewards} if rewards else {})
    return result


def test_figure2_split_has_the_figure2_canonical_form():
    """Figure fig:mdp-canonical: the split MDP's canonical form is the 3-state MDP."""
    result = canonical_form(figure2_split())
    assert result.state_map == {"s1": "s1", "s2a": "s2a+s2b", "s2b": "s2a+s2b", "s3": "s3"}
    renamed = relabel_states(result.mdp, {"s2a+s2b": "s2"})
    assert to_spec(renamed) == to_spec(figure2_canonical())


def test_canonical_form_needs_the_ki_partition_and_points_to_quotient():
    mdp = figure2_split()
    with pytest.raises(InvalidPartition, match=r"^partition: canonical_form needs the KI "
                       r"partition of this very MDP \(ki_partition\(mdp\)\), got a 'backward' "
                       r"partition \(quotient\(mdp, partition\) merges"):
        canonical_form(mdp, backward_ki_partition(mdp))


def test_canonical_form_refuses_the_ki_partition_of_another_mdp_with_the_same_states():
    """Two locks with the same state names but other transitions: the other one's KI partition
    would give 10 states instead of 8."""
    mdp, other = (combination_lock(horizon=4, actions=2, seed=seed) for seed in (1, 0))
    with pytest.raises(InvalidPartition, match=r"got the KI partition of another BlockMDP "
                                               r"object with the same states \(named "
                                               r"'combolock-H4-K2-seed0'\)"):
        canonical_form(mdp, ki_partition(other))
    assert len(canonical_form(mdp, ki_partition(mdp)).mdp.states) == 8


def test_canonical_form_refuses_a_ki_partition_built_without_its_mdp():
    """``kind`` is a free string: a hand-made 'ki' partition is not trusted."""
    mdp = figure2_split()
    all_merged = Partition("ki", mdp.layers, tuple(np.zeros(len(layer), dtype=int)
                                                   for layer in mdp.layers))
    with pytest.raises(InvalidPartition, match=r"got a 'ki' partition without its MDP"):
        canonical_form(mdp, all_merged)


def test_canonical_form_refuses_what_is_not_a_partition_by_name():
    with pytest.raises(InvalidPartition, match=r"^partition must be a Partition"):
        canonical_form(figure2_split(), [["s2a", "s2b"]])


def test_merged_names_that_collide_with_a_state_are_refused():
    """s2a and s2b merge into 's2a+s2b', which is already the name of a layer-3 state."""
    spec = to_spec(figure2_split())
    spec["layers"][2] = ["s2a+s2b"]
    spec["transitions"] = json.loads(json.dumps(spec["transitions"]).replace('"s3"', '"s2a+s2b"'))
    spec["rewards"] = {}
    with pytest.raises(InvalidBlockMDP, match=r"^quotient: the block \{s2a, s2b\} and the "
                       r"state 's2a\+s2b' would both be named 's2a\+s2b'; rename states"):
        canonical_form(from_spec(spec))


@given(block_mdps(max_splits=2))
def test_the_float_canonical_form_is_the_exact_one_in_floats(mdp):
    """Float mode merges with sparse matrices and column sums (``_member_weights``) instead of
    the exact code's non-zero entries: the same states, and the same transitions and emission
    probabilities up to rounding."""
    exact, floats = canonical_form(mdp), canonical_form(with_float_numbers(mdp))
    assert floats.state_map == exact.state_map and floats.mdp.layers == exact.mdp.layers
    for h in range(mdp.horizon):
        assert np.array_equal(floats.mdp.emission_state[h], exact.mdp.emission_state[h])
        assert np.allclose(floats.mdp.emission_probability[h],
                           exact.mdp.emission_probability[h].astype(float), rtol=0, atol=1e-12)
    for h in range(mdp.horizon - 1):
        assert np.allclose(sp.csr_array(floats.mdp.transitions[h]).toarray(),
                           exact.mdp.transitions[h].astype(float), rtol=0, atol=1e-12)
