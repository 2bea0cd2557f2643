"""Exact and sampled planning (``alg:rl_via_homing_policies``, ``alg:oracle-exp``), the
contrastive distribution of HOMER, and the episode sampler."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kinematic.planning as planning
from kinematic.contrastive import (
    bayes_optimal_predictor,
    contrastive_distribution,
    f_rho,
    level_sets,
)
from kinematic.cover import policy_cover_alpha
from kinematic.errors import AmbiguousTolerance, UnknownLayer
from kinematic.families import combination_lock
from kinematic.homing import homing_policy
from kinematic.inseparability import backward_ki_partition
from kinematic.model import with_float_numbers
from kinematic.planning import (
    block_rewards,
    exp_oracle_exact,
    exp_oracle_sampled,
    homer_exact,
    inverse_propensity_scores,
    observation_labels,
    optimal_values,
    psdp_exact,
    psdp_sampled,
    tabular_cb_oracle,
)
from kinematic.policies import Policy, state_policy, uniform_policy
from kinematic.sampling import sample_episodes
from kinematic.spec import from_spec
from kinematic.strategies import block_mdps, policies
from kinematic.visitation import (
    observation_values,
    observation_visitation,
    policy_value,
    state_visitation,
)

SMALL = block_mdps(max_horizon=3, max_width=2, max_actions=2, max_observations=2, max_splits=0)


def all_deterministic_observation_policies(mdp):
    observations = [(h, x) for h, layer in enumerate(mdp.observations) for x in range(len(layer))]
    for actions in itertools.product(range(mdp.number_of_actions), repeat=len(observations)):
        tables = [mdp.mode.zeros((len(layer), mdp.number_of_actions))
                  for layer in mdp.observations]
        for (h, x), a in zip(observations, actions, strict=True):
            tables[h][x, a] = Fraction(1)
        yield Policy(tuple(tables))


@given(SMALL)
def test_optimal_value_is_the_best_deterministic_observation_policy(mdp):
    """Dynamic programming over observations = enumeration of all deterministic policies."""
    solution = optimal_values(mdp)
    best = max(policy_value(mdp, p) for p in all_deterministic_observation_policies(mdp))
    assert solution.value == best == policy_value(mdp, solution.policy)
    first = observation_visitation(mdp, solution.policy)[0]
    assert (first * solution.observation_values[0]).sum() == solution.value
    assert all((v == q.max(axis=1)).all()
               for v, q in zip(solution.observation_values, solution.action_values, strict=True))


@given(st.data())
def test_values_to_go_of_any_reward_add_up_to_the_policy_value(data):
    """V(x_1; pi) averaged over the first observation is V(pi; R), for the rewards given."""
    mdp = data.draw(SMALL)
    policy = data.draw(policies(mdp))
    rewards = tuple(mdp.mode.array(data.draw(st.lists(
        st.lists(st.integers(0, 3), min_size=mdp.number_of_actions,
                 max_size=mdp.number_of_actions), min_size=len(x), max_size=len(x))))
        for x in mdp.observations)
    values = observation_values(mdp, policy, rewards)
    first = observation_visitation(mdp, policy)[0]
    assert (first * values[0]).sum() == policy_value(mdp, policy, rewards)


def test_exact_psdp_keeps_the_first_action_where_its_cover_does_not_reach():
    """Rolling in to s2c only, PSDP's decisions at s2a and s2b are the first action."""
    mdp = combination_lock(horizon=3, actions=3, seed=0)
    covers = [[], [homing_policy(mdp, "s2c")], []]
    policy = psdp_exact(mdp, covers, block_rewards(mdp, 3, np.arange(3), 2), 2)
    for name in ("s2a", "s2b"):
        x = mdp.observations[1].index(name)
        assert policy.action_probabilities[1][x].tolist() == [1, 0, 0]


def test_homer_exact_labels_each_layer_from_the_previous_cover_and_labels():
    """The labelling of layer h gets Psi_{h-1} (empty for h = 2), h counted from 1 and phi_{h-1}
    (layer 1: one class of integers); Psi_h has one policy per class, in increasing order of
    the class; a labelling that ignores the covers gives ExpOracle's covers."""
    lock = combination_lock(horizon=4, actions=2, seed=0)
    backward = observation_labels(lock, backward_ki_partition(lock).labels)
    calls = []

    def labelling(cover, layer, previous):
        calls.append((cover, layer, previous))
        return backward[layer - 1][::-1]  # classes listed in reverse order of observations

    result = homer_exact(lock, labelling)
    assert [layer for _, layer, _ in calls] == [2, 3, 4]
    assert [cover for cover, _, _ in calls] == result.covers[:3]
    assert calls[0][0] == [] and calls[0][2].dtype == np.intp and calls[0][2].tolist() == [0, 0]
    assert all(previous is result.labels[h] for h, (_, _, previous) in enumerate(calls))
    for h in range(1, lock.horizon):
        assert len(result.covers[h]) == len(np.unique(backward[h]))
        for block, policy in enumerate(result.covers[h]):
            reached = observation_visitation(lock, policy)[h][result.labels[h] == block]
            assert sum(reached) == max(sum(observation_visitation(lock, p)[h][
                result.labels[h] == block]) for p in result.covers[h])
    oracle = exp_oracle_exact(lock, backward)
    assert [len(cover) for cover in oracle] == [0, 2, 2, 2]
    for h in range(1, lock.horizon):
        assert policy_cover_alpha(lock, oracle[h]).alpha_per_layer[h] == 1


@given(block_mdps(max_horizon=3, max_splits=1))
def test_exact_psdp_with_homing_covers_is_optimal(mdp):
    """With 1-covers and infinite data, PSDP's reward-sensitive phase finds V*."""
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    policy = psdp_exact(mdp, covers, mdp.rewards, mdp.horizon)
    assert policy_value(mdp, policy) == optimal_values(mdp).value


def test_sampled_exp_oracle_and_psdp_solve_a_small_lock():
    mdp = combination_lock(horizon=4, actions=3, seed=2)
    rng = np.random.default_rng(0)
    labels = observation_labels(mdp, backward_ki_partition(mdp).labels)
    covers = exp_oracle_sampled(mdp, labels, samples=3000, rng=rng)
    assert [len(cover) for cover in covers] == [0, 2, 2, 2]  # one policy per backward class
    for h in range(1, mdp.horizon):  # each class reached by its own (internal reward) policy
        report = policy_cover_alpha(mdp, covers[h])
        assert report.alpha_per_layer[h] == 1
    policy = psdp_sampled(mdp, covers, mdp.rewards, mdp.horizon, samples=3000, rng=rng)
    assert policy_value(mdp, policy) == 1


def test_sampled_psdp_decides_up_to_its_last_layer_and_takes_the_first_action_after():
    mdp = combination_lock(horizon=4, actions=3, seed=2)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    rewards = [np.zeros((len(x), 3)) for x in mdp.observations]
    rewards[3][:, 2] = 1.0  # the last layer rewards its third action, but PSDP decides to layer 2
    policy = psdp_sampled(mdp, covers, tuple(rewards), 2, samples=500,
                          rng=np.random.default_rng(0))
    for h in (2, 3):
        assert (policy.action_probabilities[h][:, 0] == 1).all()


def test_sampled_psdp_draws_bernoulli_rewards_by_default():
    """The default consumes the random numbers of the Bernoulli draws, as the explicit flag."""
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    states = []
    for flag in ({}, {"bernoulli_rewards": True}, {"bernoulli_rewards": False}):
        rng = np.random.default_rng(0)
        psdp_sampled(mdp, covers, mdp.rewards, 3, samples=50, rng=rng, **flag)
        states.append(rng.bit_generator.state)
    assert states[0] == states[1] != states[2]


def test_cb_oracle_breaks_ties_and_unseen_contexts_towards_the_first_action():
    scores = inverse_propensity_scores(
        np.array([0, 0, 1]), np.array([1, 0, 1]), np.array([1.0, 1.0, 0.5]), 0.5, (3, 2))
    assert scores.tolist() == [[2.0, 2.0], [0.0, 1.0], [0.0, 0.0]]
    assert tabular_cb_oracle(scores).tolist() == [0, 1, 0]


def test_sampler_frequencies_match_exact_visitation():
    mdp = combination_lock(horizon=5, actions=3, seed=1)
    policy = uniform_policy(mdp)
    samples = 40_000
    episodes = sample_episodes(mdp, [policy], switch_layer=None, continuation=policy,
                               samples=samples, rng=np.random.default_rng(3))
    for h, exact in enumerate(state_visitation(mdp, policy)):
        counts = np.bincount(episodes.states[:, h], minlength=mdp.width(h))
        for count, p in zip(counts, exact, strict=True):
            p = float(p)
            assert abs(count / samples - p) <= 5 * np.sqrt(p * (1 - p) / samples) + 1e-12


def test_the_sampler_switches_to_a_uniform_action_at_the_layer_counted_from_1():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    always = [state_policy(mdp, {}, default_action=action) for action in mdp.actions]
    episodes = sample_episodes(mdp, [always[0]], switch_layer=2, continuation=always[1],
                               samples=400, rng=np.random.default_rng(0))
    assert (episodes.actions[:, 0] == 0).all()  # layer 1: the roll-in's action
    assert 150 < (episodes.actions[:, 1] == 0).sum() < 250  # layer 2: uniform
    assert (episodes.actions[:, 2] == 1).all()  # layer 3: the continuation's
    with pytest.raises(UnknownLayer, match="switch_layer 0 is out of range"):
        sample_episodes(mdp, [always[0]], switch_layer=0, continuation=always[1], samples=1,
                        rng=np.random.default_rng(0))


@given(st.data())
def test_contrastive_distribution_is_a_distribution_with_the_right_marginals(data):
    mdp = data.draw(block_mdps(min_horizon=2, max_horizon=3))
    layer = data.draw(st.integers(2, mdp.horizon))
    cover = data.draw(st.lists(policies(mdp), min_size=1, max_size=2))
    distribution = contrastive_distribution(mdp, cover, layer)
    joint = distribution.joint
    assert joint.sum() == 1
    assert (joint[..., 1].sum(axis=(0, 1)) == distribution.prior / 2).all()  # real x'
    assert (joint[..., 0].sum(axis=(0, 1)) == distribution.prior / 2).all()  # imposter x'
    assert (joint.sum(axis=(1, 2, 3)) == distribution.roll_in).all()
    defined = joint.sum(axis=-1) > 0
    bayes, closed_form = bayes_optimal_predictor(distribution), f_rho(mdp, distribution)
    assert (bayes[defined] == closed_form[defined]).all()
    assert [value is None for value in closed_form.flat] == (~defined).ravel().tolist()


def test_f_rho_where_the_roll_in_never_reaches_a_state():
    """Rolling in to s2c of a lock, s3a and s3b get no prior (rho = 0): f_rho is undefined
    (None) at every (x, a, x') with D = 0 and equals the Bayes-optimal predictor elsewhere."""
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    distribution = contrastive_distribution(mdp, [homing_policy(mdp, "s2c")], layer=3)
    assert [mdp.observations[2][x] for x in np.flatnonzero(distribution.prior == 0)] == [
        "s3a", "s3b"]
    defined = distribution.joint.sum(axis=-1) > 0
    closed_form, bayes = f_rho(mdp, distribution), bayes_optimal_predictor(distribution)
    for predictor in (closed_form, bayes):
        assert [value is None for value in predictor.flat] == (~defined).ravel().tolist()
    assert (closed_form[defined] == bayes[defined]).all()


def lock_distribution(mdp):
    cover = [homing_policy(mdp, s) for s in mdp.layers[1]]
    return contrastive_distribution(mdp, cover, layer=3)


def test_level_sets_are_the_backward_ki_blocks_in_both_modes():
    """prop:bki-in-class with f* = the Bayes-optimal predictor: its level sets on layer 3 of a
    lock are {s3a, s3b} and {s3c}, exactly and in float mode."""
    exact = combination_lock(horizon=3, actions=2, seed=0)
    for mdp in (exact, with_float_numbers(exact)):
        distribution = lock_distribution(mdp)
        predictor = bayes_optimal_predictor(distribution)
        assert level_sets(mdp, predictor, distribution) == [["s3a", "s3b"], ["s3c"]]


def test_exact_level_sets_tell_apart_values_that_floats_would_merge():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    distribution = lock_distribution(mdp)
    predictor = bayes_optimal_predictor(distribution)
    x = mdp.observations[2].index("s3b")
    context, action = next((c, a) for c in np.flatnonzero(distribution.roll_in)
                           for a in range(2) if predictor[c, a, x])  # 1e-30 is lost in 1/2
    predictor[context, action, x] += Fraction(1, 10**30)
    assert level_sets(mdp, predictor, distribution) == [["s3a"], ["s3b"], ["s3c"]]


def test_float_level_sets_name_the_observations_of_an_ambiguous_chain():
    mdp = with_float_numbers(combination_lock(horizon=3, actions=2, seed=0))
    distribution = lock_distribution(mdp)
    predictor = np.asarray(bayes_optimal_predictor(distribution), dtype=np.float64)
    a, b, c = (mdp.observations[2].index(name) for name in ("s3a", "s3b", "s3c"))
    predictor[:, :, b] = predictor[:, :, a] + 0.6e-9  # a ~ b ~ c within 1e-9, a and c not
    predictor[:, :, c] = predictor[:, :, a] + 1.2e-9
    with pytest.raises(AmbiguousTolerance, match="'s3a' and 's3c'"):
        level_sets(mdp, predictor, distribution)


def test_sampled_psdp_optimises_the_reward_it_is_given():
    """PSDP with an internal reward that the external one contradicts (reach the bad state
    s3c of a lock) returns a policy for the internal reward: it reaches s3c surely."""
    mdp = combination_lock(horizon=3, actions=3, seed=2)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    labels = observation_labels(mdp, backward_ki_partition(mdp).labels)
    bad = int(labels[2][mdp.observations[2].index("s3c")])
    rewards = block_rewards(mdp, 3, labels[2], bad)
    policy = psdp_sampled(mdp, covers, rewards, 2, samples=3000, rng=np.random.default_rng(0))
    h, i = mdp.state_location["s3c"]
    assert state_visitation(mdp, policy)[h][i] == 1


def test_an_empty_cover_is_named_by_its_layer():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    with pytest.raises(ValueError, match=r"^PSDP needs a non-empty policy cover for layer 2$"):
        psdp_exact(mdp, [[], [], []], mdp.rewards, 2)


def test_both_psdps_name_a_last_layer_out_of_range():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    for psdp, extra in ((psdp_exact, {}), (psdp_sampled, {"samples": 10,
                                                          "rng": np.random.default_rng(0)})):
        with pytest.raises(UnknownLayer) as error:
            psdp(mdp, covers, mdp.rewards, 4, **extra)
        assert str(error.value) == "last_layer 4 is out of range: this MDP has layers 1..3"


def test_planned_policies_know_their_mdp_and_print_by_name():
    """optimal_values, psdp_exact and psdp_sampled return policies built with their MDP, so
    ``at`` looks names up (a policy without its MDP refuses)."""
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    for policy in (optimal_values(mdp).policy, psdp_exact(mdp, covers, mdp.rewards, 3),
                   psdp_sampled(mdp, covers, mdp.rewards, 3, samples=10,
                                rng=np.random.default_rng(0))):
        assert policy.mdp is mdp
        assert set(policy.at("s1a")) == set(mdp.actions)


def best_value_deciding_up_to(mdp, last_layer: int):
    """max V(pi) over deterministic observation policies that take the first action after
    layer ``last_layer`` (counted from 1), by enumerating them."""
    deciding = [(h, x) for h in range(last_layer) for x in range(len(mdp.observations[h]))]
    best = None
    for choice in itertools.product(range(mdp.number_of_actions), repeat=len(deciding)):
        tables = [mdp.mode.zeros((len(x), mdp.number_of_actions)) for x in mdp.observations]
        for table in tables:
            table[:, 0] = 1
        for (h, x), a in zip(deciding, choice, strict=True):
            tables[h][x] = 0
            tables[h][x, a] = 1
        value = policy_value(mdp, Policy(tuple(tables)))
        best = value if best is None else max(best, value)
    return best


@given(st.data())
def test_exact_psdp_is_optimal_among_policies_deciding_up_to_its_last_layer(data):
    """With 1-covers and infinite data, PSDP's policy (first action after ``last_layer``) is
    worth the optimum over such policies, later rewards included."""
    mdp = data.draw(block_mdps(min_horizon=2, max_horizon=3, max_width=2, max_actions=2,
                               max_splits=0))
    last_layer = data.draw(st.integers(1, mdp.horizon - 1))
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    policy = psdp_exact(mdp, covers, mdp.rewards, last_layer)
    assert policy_value(mdp, policy) == best_value_deciding_up_to(mdp, last_layer)


def test_exact_psdp_counts_rewards_collected_after_its_last_layer():
    """Deciding only at layer 1: a0 leads (then by the first actions) to the rewarded s3g."""
    mdp = from_spec({
        "name": "late-reward", "horizon": 3, "actions": ["a0", "a1"],
        "layers": [["s1"], ["s2x", "s2y"], ["s3g", "s3b"]], "start": {"s1": 1},
        "transitions": {"s1": {"a0": {"s2x": 1}, "a1": {"s2y": 1}},
                        "s2x": {"a0": {"s3g": 1}, "a1": {"s3g": 1}},
                        "s2y": {"a0": {"s3b": 1}, "a1": {"s3b": 1}}},
        "rewards": {"s3g": {"a0": 1, "a1": 1}}})
    policy = psdp_exact(mdp, [[], [], []], mdp.rewards, 1)
    assert policy_value(mdp, policy) == 1


def test_sampled_psdp_draws_its_samples_in_chunks_and_adds_their_scores(monkeypatch):
    """Chunks of at most CHUNK episodes, ``samples`` in all per step; the oracle sees the scores
    of every chunk (with one-episode chunks, the last episode alone would rarely pick the good
    action of a 10-action lock)."""
    drawn = []

    def counting(*args, **kwargs):
        drawn.append(kwargs["samples"])
        return sample_episodes(*args, **kwargs)

    monkeypatch.setattr(planning, "sample_episodes", counting)
    monkeypatch.setattr(planning, "CHUNK", 7)
    mdp = combination_lock(horizon=2, actions=10, seed=0)
    covers = [[homing_policy(mdp, s) for s in layer] for layer in mdp.layers]
    planning.psdp_sampled(mdp, covers, mdp.rewards, 1, samples=20,
                          rng=np.random.default_rng(0))
    assert drawn == [7, 7, 6]
    monkeypatch.setattr(planning, "CHUNK", 1)
    policy = planning.psdp_sampled(mdp, covers, mdp.rewards, 2, samples=400,
                                   rng=np.random.default_rng(0))
    assert policy_value(mdp, policy) == optimal_values(mdp).value


@given(SMALL)
def test_float_planning_takes_the_exact_decisions(mdp):
    """The same MDP in float mode: the same optimal value (to rounding) and the same greedy
    decisions, ties included (exact ties stay ties within atol)."""
    exact, floats = optimal_values(mdp), optimal_values(with_float_numbers(mdp))
    assert float(exact.value) == pytest.approx(floats.value, abs=1e-12)
    for a, b in zip(exact.policy.action_probabilities, floats.policy.action_probabilities,
                    strict=True):
        assert np.array_equal(np.asarray(a, dtype=np.float64), b)


ATOL = 2.0**-30  # 0.5 + ATOL - ATOL is exactly 0.5: the inclusive boundary is tested exactly


@pytest.mark.parametrize(("gap", "chosen"), [(ATOL / 2, "a0"), (ATOL, "a0"), (2 * ATOL, "a1")])
def test_float_greedy_decisions_break_ties_within_atol_towards_the_first_action(gap, chosen):
    """Per observation: s prefers a1 by ``gap``; t prefers a1 by 0.1 (lower values than s)."""
    mdp = from_spec({"name": "tie", "horizon": 1, "actions": ["a0", "a1"],
                     "layers": [["s", "t"]], "start": {"s": 0.5, "t": 0.5}, "transitions": {},
                     "rewards": {"s": {"a0": 0.5, "a1": 0.5 + gap}, "t": {"a0": 0.1, "a1": 0.2}}},
                    atol=ATOL)
    table = optimal_values(mdp).policy.action_probabilities[0]
    assert [mdp.actions[int(np.argmax(row))] for row in table] == [chosen, "a1"]


@pytest.mark.parametrize("labels, message", [
    ([0, 0, 1], r"^labels: layer 1 has 2 observations, one label each; got 3 labels: "
                r"\[0, 0, 1\]$"),
    ([[0, 1]], r"^labels: layer 1 has 2 observations, one label each; got \[\[0, 1\]\]$"),
])
def test_block_rewards_names_labels_that_do_not_fit_the_layer(labels, message):
    lock = combination_lock(horizon=2, actions=2, seed=0)
    with pytest.raises(ValueError, match=message):
        block_rewards(lock, 1, labels, 1)


def test_the_contrastive_layer_and_roll_in_are_checked():
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    cover = [homing_policy(mdp, "s2a")]
    for layer, message in ((0, "layer 0 is out of range: this MDP has layers 1..3 (layers "
                                "count from 1, as in the paper)"),
                           (4, "layer 4 is out of range: this MDP has layers 1..3"),
                           (1, "layer 1 has no previous layer: the contrastive problem runs at "
                               "layers 2..3 (x in layer h - 1, x' in layer h)")):
        with pytest.raises(UnknownLayer) as error:
            contrastive_distribution(mdp, cover, layer)
        assert str(error.value) == message
    with pytest.raises(ValueError, match=r"^the roll-in needs at least one policy$"):
        contrastive_distribution(mdp, [], 3)


def test_the_label_prior_is_a_probability_in_either_number_mode():
    # it was taken as it came: 2 gave negative masses, "1/2" failed in float mode
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    cover, floats = [uniform_policy(mdp)], with_float_numbers(mdp)
    assert np.allclose(contrastive_distribution(floats, [uniform_policy(floats)], 2, "1/2").joint,
                       contrastive_distribution(mdp, cover, 2).joint.astype(float))
    for value, message in ((2, r"must lie in \[0, 1\], got 2$"), (-0.5, r"got -0.5$"),
                           ("x", r"^positive_probability: 'x' is not a number")):
        with pytest.raises(ValueError, match=message):
            contrastive_distribution(mdp, cover, 2, value)


def test_a_label_prior_of_0_or_1_is_allowed_and_leaves_one_label_only():
    """The bounds of [0, 1] are probabilities too: p = 0 gives only imposter (y = 0) mass,
    p = 1 only real (y = 1) mass."""
    mdp = combination_lock(horizon=3, actions=2, seed=0)
    cover = [uniform_policy(mdp)]
    for p, empty in ((0, 1), (1, 0), ("0", 1), ("1", 0)):
        joint = contrastive_distribution(mdp, cover, 2, p).joint
        assert (joint[..., empty] == 0).all() and joint.sum() == 1
