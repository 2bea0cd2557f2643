"""Backward / forward / KI partitions (``def:bki``, ``def:fki``, ``def:ki``, ``lem:bki-ratio``,
``lem:bki-policy-ratio``)."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kinematic.errors import AmbiguousTolerance
from kinematic.families import combination_lock, combination_lock_good_actions
from kinematic.inseparability import (
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
    n_bd,
    n_fd,
    n_kd,
)
from kinematic.model import with_float_numbers
from kinematic.spec import from_spec
from kinematic.strategies import block_mdps, policies, separable_pairs
from kinematic.visitation import state_visitation


def visitation_by_name(mdp, policy):
    return {
        s: p
        for layer, values in zip(mdp.layers, state_visitation(mdp, policy), strict=True)
        for s, p in zip(layer, values, strict=True)
    }


def backward_ki_pairwise(mdp, first, second):
    """def:bki via lem:bki-ratio, pairwise: all 2x2 cross products of the columns agree."""
    h1, i1 = mdp.state_location[first]
    h2, i2 = mdp.state_location[second]
    if h1 != h2:
        return False
    if h1 == 0:
        return True
    column1 = mdp.transitions[h1 - 1][:, i1]
    column2 = mdp.transitions[h1 - 1][:, i2]
    return all(
        column1[j] * column2[k] == column2[j] * column1[k]
        for j, k in itertools.combinations(range(len(column1)), 2)
    ) and all((column1[j] == 0) == (column2[j] == 0) for j in range(len(column1)))


def forward_ki_pairwise(mdp, first, second):
    """def:fki, pairwise: equal rows for every action (layer H: always)."""
    h1, i1 = mdp.state_location[first]
    h2, i2 = mdp.state_location[second]
    if h1 != h2:
        return False
    if h1 == mdp.horizon - 1:
        return True
    tensor = mdp.transition_tensor(h1)
    return (tensor[i1] == tensor[i2]).all()


@given(block_mdps(max_splits=2))
def test_partitions_equal_the_pairwise_definitions(mdp):
    """Hashing gives exactly the equivalence classes of the pairwise relations."""
    backward, forward, ki = (
        backward_ki_partition(mdp), forward_ki_partition(mdp), ki_partition(mdp)
    )
    for first, second in itertools.combinations(mdp.states, 2):
        b = backward_ki_pairwise(mdp, first, second)
        f = forward_ki_pairwise(mdp, first, second)
        assert backward.same_block(first, second) == b
        assert forward.same_block(first, second) == f
        assert ki.same_block(first, second) == (b and f)


@given(block_mdps(max_splits=2))
def test_dimensions_are_ordered(mdp):
    """Section 3: max(N_FD, N_BD) <= N_KD <= |S|."""
    assert max(n_fd(mdp), n_bd(mdp)) <= n_kd(mdp) <= len(mdp.states)


def number_of_classes(mdp, related):
    """Classes of an equivalence relation on states: the states related to no earlier one."""
    states = mdp.states
    return sum(not any(related(mdp, earlier, state) for earlier in states[:k])
               for k, state in enumerate(states))


@given(block_mdps(max_splits=2))
def test_dimensions_count_the_classes_of_the_pairwise_definitions(mdp):
    """Section 3: N_BD, N_FD and N_KD are the numbers of backward, forward and full KI classes,
    counted here from the pairwise relations. Catches a dimension counted from the wrong
    partition, or per layer instead of over all layers."""
    assert n_bd(mdp) == number_of_classes(mdp, backward_ki_pairwise)
    assert n_fd(mdp) == number_of_classes(mdp, forward_ki_pairwise)
    assert n_kd(mdp) == number_of_classes(
        mdp, lambda m, s, t: backward_ki_pairwise(m, s, t) and forward_ki_pairwise(m, s, t))


@given(st.data())
def test_backward_ki_states_order_policies_alike(data):
    """lem:bki-policy-ratio: for x1, x2 backward KI and any pi1, pi2,
    P_pi1(x1) / P_pi2(x1) = P_pi1(x2) / P_pi2(x2) (cross-multiplied, exactly)."""
    mdp = data.draw(block_mdps(max_splits=2))
    first = visitation_by_name(mdp, data.draw(policies(mdp)))
    second = visitation_by_name(mdp, data.draw(policies(mdp)))
    for block in backward_ki_partition(mdp).blocks():
        for x1, x2 in itertools.combinations(block, 2):
            assert first[x1] * second[x2] == first[x2] * second[x1]


@given(separable_pairs())
def test_separable_pair_breaks_the_policy_ratio(case):
    """Negative control: two states that are not backward KI are separated by the partition and
    order the two given policies differently."""
    mdp, s1, s2, pi1, pi2 = case
    assert not backward_ki_partition(mdp).same_block(s1, s2)
    first, second = visitation_by_name(mdp, pi1), visitation_by_name(mdp, pi2)
    assert first[s1] * second[s2] != first[s2] * second[s1]


@given(block_mdps(max_splits=2))
def test_float_mode_gives_the_exact_partitions(mdp):
    floats = with_float_numbers(mdp)
    for partition in (backward_ki_partition, forward_ki_partition, ki_partition):
        assert partition(floats).blocks() == partition(mdp).blocks()


@pytest.mark.parametrize("seed", range(4))
def test_combination_lock_partitions(seed):
    """Section 7 lock: for h >= 2 backward KI is {s_ha, s_hb} | {s_hc}; s_ha and s_hb are KI
    exactly when u_h = v_h, and at the last layer."""
    horizon, actions = 15, 3
    mdp = combination_lock(horizon, actions, seed)
    u, v = combination_lock_good_actions(horizon, actions, seed)
    backward, ki = backward_ki_partition(mdp), ki_partition(mdp)
    assert backward.blocks(1) == [["s1a", "s1b"]]
    for h in range(2, horizon + 1):
        assert backward.blocks(h) == [[f"s{h}a", f"s{h}b"], [f"s{h}c"]]
    for h in range(1, horizon + 1):
        merged = u[h - 1] == v[h - 1] or h == horizon
        assert ki.same_block(f"s{h}a", f"s{h}b") == merged


def chain_spec(step: float) -> dict:
    rows = {f"s2_{k}": {"a": {"s3_0": 0.5 + k * step, "s3_1": 0.5 - k * step}} for k in range(3)}
    return {
        "name": "chain",
        "horizon": 3,
        "actions": ["a"],
        "layers": [["s1"], list(rows), ["s3_0", "s3_1"]],
        "start": {"s1": 1.0},
        "transitions": {"s1": {"a": dict.fromkeys(rows, 1 / 3)}, **rows},
    }


def test_float_grouping_refuses_an_ambiguous_chain():
    """s2_0 ~ s2_1 ~ s2_2 within atol but s2_0, s2_2 differ by more: no silent guess."""
    mdp = from_spec(chain_spec(0.6e-9))
    with pytest.raises(AmbiguousTolerance, match="'s2_0' and 's2_2'"):
        forward_ki_partition(mdp)


def test_float_grouping_within_tolerance_merges():
    mdp = from_spec(chain_spec(0.2e-9))
    assert forward_ki_partition(mdp).blocks(2) == [["s2_0", "s2_1", "s2_2"]]
