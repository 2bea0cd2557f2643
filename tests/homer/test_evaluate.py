"""The torch-free evaluation API (:mod:`homer.evaluate`, :mod:`homer.policy_evaluation`) on
hand-built abstractions and policies whose scores are known: nothing is learned.

Abstractions read the observation back from its encoding (the encoder is a rotation of a
one-hot plus noise of variance 0.01, so the largest of the first ``width`` rotated-back
coordinates is the observation), then give a class chosen from the exact partitions."""

import doctest
import importlib
import subprocess
import sys
from math import comb, sqrt

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from homer.compare import combined_classifier, compare_run
from homer.encoders import HadamardNoise
from homer.evaluate import KINDS, evaluate_abstraction, exact_partitions, pairwise_agreement
from homer.policy_evaluation import evaluate_policies
from homer.reference_learners import labelled_abstraction, reference_abstraction
from homer.summary import Evaluation, format_evaluation
from kinematic.cover import policy_cover_alpha
from kinematic.families import combination_lock, combination_lock_good_actions, split_state
from kinematic.model import BlockMDP
from kinematic.policies import state_policy, uniform_policy
from kinematic.strategies import block_mdps
from tests.homer.handmade import leaking_phi, lock, perfect_artefacts
from tests.homer.test_compare import SAMPLES

TORCH_FREE = ("homer.evaluate", "homer.policy_evaluation", "homer.encoded", "homer.encoders",
              "homer.reference_learners", "homer.summary", "homer.user_code")


def observation_of(mdp: BlockMDP, vectors: np.ndarray, step: int, encoder=None) -> np.ndarray:
    """Each encoding's observation index in its step's layer."""
    return (encoder or HadamardNoise()).decode(mdp, vectors, step)


def exact_classifier(mdp: BlockMDP, kind: str = "ki"):
    """phi giving each observation the index of its exact ``kind`` class."""
    partition = exact_partitions(mdp)[kind]

    def phi(vectors: np.ndarray, step: int) -> np.ndarray:
        blocks = partition.blocks(step)
        states = np.asarray(mdp.emission_state[step - 1])[observation_of(mdp, vectors, step)]
        names = [mdp.layers[step - 1][s] for s in states]
        return np.array([next(k for k, b in enumerate(blocks) if n in b) for n in names])
    return phi


def constant(vectors: np.ndarray, step: int) -> np.ndarray:
    return np.zeros(len(vectors), dtype=int)


def multi_observation_mdp() -> BlockMDP:
    """The H = 3 lock with s2a split into two kinematically inseparable halves, each emitting
    its own observation: step 2 has the KI class {s2a/a, s2a/b} of two observations."""
    return split_state(combination_lock(3, 2, 0), "s2a", weight="1/2")


def test_the_evaluation_modules_do_not_import_torch():
    code = (f"import sys\nimport {', '.join(TORCH_FREE)}\n"
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"


@pytest.mark.parametrize("module", TORCH_FREE)
def test_the_doctests_of_the_evaluation_modules_pass(module):
    tested = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tested.attempted > 0 and tested.failed == 0


def test_the_oracle_makes_no_wrong_merge_on_the_lock():
    mdp = combination_lock(4, 3, 1)
    report = evaluate_abstraction(mdp, reference_abstraction("oracle", mdp), samples=20)
    for kind in KINDS:
        assert [step[kind].wrong_merges for step in report.steps] == [0, 0, 0, 0]
    assert [step["ki"].pairwise_agreement for step in report.steps] == pytest.approx([1.0] * 4)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block_mdps(max_horizon=3, max_observations=3, max_splits=1, rewards=False))
def test_the_oracle_makes_no_wrong_merge_with_several_observations_per_state(mdp):
    report = evaluate_abstraction(mdp, reference_abstraction("oracle", mdp), samples=10)
    for kind in KINDS:
        assert report.steps_with_wrong_merges(kind) == []


def separable_pairs(mdp: BlockMDP, kind: str) -> list[int]:
    """Per step, the pairs of distinct exact ``kind`` classes: C(k, 2)."""
    partition = exact_partitions(mdp)[kind]
    return [comb(len(partition.blocks(h)), 2) for h in range(1, mdp.horizon + 1)]


@pytest.mark.parametrize("mdp", [lock(), multi_observation_mdp()], ids=["lock", "split"])
def test_one_class_merges_exactly_the_separable_pairs(mdp):
    report = evaluate_abstraction(mdp, constant, samples=5)
    for kind in KINDS:
        assert [step[kind].wrong_merges for step in report.steps] == separable_pairs(mdp, kind)
        assert [step[kind].splits for step in report.steps] == [0] * mdp.horizon


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block_mdps(max_horizon=3, max_width=4, max_observations=3, rewards=False))
def test_one_class_merges_exactly_the_separable_pairs_of_generated_mdps(mdp):
    report = evaluate_abstraction(mdp, constant, samples=3)
    for kind in KINDS:
        assert [step[kind].wrong_merges for step in report.steps] == separable_pairs(mdp, kind)


def test_the_exact_ki_classes_score_perfectly_and_one_split_class_shows_one_split():
    mdp = multi_observation_mdp()
    exact = exact_classifier(mdp)
    perfect = evaluate_abstraction(mdp, exact, samples=10)
    assert [(s["ki"].wrong_merges, s["ki"].splits) for s in perfect.steps] == [(0, 0)] * 3
    assert exact_partitions(mdp)["ki"].blocks(2)[0] == ["s2a/a", "s2a/b"]

    def split(vectors: np.ndarray, step: int) -> np.ndarray:
        classes = exact(vectors, step)
        if step == 2:  # the observations of KI class 0 get a class each
            observations = observation_of(mdp, vectors, step)
            classes = np.where(classes == 0, 10 + observations, classes)
        return classes

    report = evaluate_abstraction(mdp, split, samples=10)
    assert [(s["ki"].wrong_merges, s["ki"].splits) for s in report.steps] == [
        (0, 0), (0, 1), (0, 0)]
    # The oracle separates the two halves as well: one split there, and no wrong merge.
    oracle = evaluate_abstraction(mdp, reference_abstraction("oracle", mdp), samples=10)
    assert [(s["ki"].wrong_merges, s["ki"].splits) for s in oracle.steps][1] == (0, 1)


def test_pairwise_agreement_of_a_hand_computed_case():
    """Observations x0, x1 of state 0 and x2 of state 1, drawn with weights 1/2, 1/4, 1/4;
    x0 always in class 0, x1 half in class 0 and half in class 1, x2 always in class 1.

    Joint P(state, class): state 0 -> (1/2 + 1/8, 1/8) = (5/8, 1/8), state 1 -> (0, 1/4).
    P(same state) = (3/4)^2 + (1/4)^2 = 5/8; P(same class) = (5/8)^2 + (3/8)^2 = 17/32;
    P(same state, same class) = 25/64 + 1/64 + 4/64 = 15/32.
    Agreement = 1 - 5/8 - 17/32 + 2 * 15/32 = 25/32 = 0.78125.
    """
    states = np.array([0, 0, 1])
    shares = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    weights = np.array([0.5, 0.25, 0.25])
    assert pairwise_agreement(states, shares, weights) == pytest.approx(25 / 32)
    assert brute_force_agreement(states, shares, weights) == pytest.approx(25 / 32)


def brute_force_agreement(states, shares, weights) -> float:
    """The double sum over pairs of (observation, class) draws of the agreement event."""
    total = 0.0
    for i, w_i in enumerate(weights):
        for j, w_j in enumerate(weights):
            for c, p in enumerate(shares[i]):
                for d, q in enumerate(shares[j]):
                    agree = (states[i] == states[j]) == (c == d)
                    total += w_i * w_j * p * q * agree
    return total


@pytest.mark.parametrize("seed", range(5))
def test_pairwise_agreement_equals_the_double_sum_over_pairs(seed):
    rng = np.random.default_rng(seed)
    observations, classes = 6, 3
    states = rng.integers(3, size=observations)
    shares = rng.dirichlet(np.ones(classes), size=observations)
    weights = rng.dirichlet(np.ones(observations))
    assert pairwise_agreement(states, shares, weights) == pytest.approx(
        brute_force_agreement(states, shares, weights), abs=1e-12)


def good_policy(mdp: BlockMDP, horizon: int, actions: int, seed: int):
    """The lock's good actions (u_h at s_{h,a}, v_h at s_{h,b}, a1 at s_{h,c}) on encodings,
    the state decoded from the observation."""
    u, v = combination_lock_good_actions(horizon, actions, seed)

    def policy(vectors: np.ndarray, step: int) -> np.ndarray:
        states = np.asarray(mdp.emission_state[step - 1])[observation_of(mdp, vectors, step)]
        names = [mdp.layers[step - 1][s] for s in states]
        chosen = [u[step - 1] if n.endswith("a") else v[step - 1] if n.endswith("b") else "a1"
                  for n in names]
        return np.array([mdp.actions.index(a) for a in chosen])
    return policy


def test_the_good_actions_reach_the_good_states_and_the_optimal_value():
    """The good policy reaches s_{h,a} and s_{h,b} with 1/2 each (eta), never s_{h,c}: alpha
    0 from step 2 on, as the exact cover report of its latent policy says; its value is V*."""
    mdp = combination_lock(3, 2, 0)
    report = evaluate_policies(mdp, [good_policy(mdp, 3, 2, 0)], samples=10)
    choices = {f"s{h + 1}{side}": action for side, actions in
               zip("ab", combination_lock_good_actions(3, 2, 0), strict=True)
               for h, action in enumerate(actions)}
    exact = policy_cover_alpha(mdp, [state_policy(mdp, choices)])
    assert [s["alpha_min"] for s in report.steps] == [float(a) for a in exact.alpha_per_layer]
    assert [s["alpha_min"] for s in report.steps] == [1.0, 0.0, 0.0]
    assert report.steps[1]["alpha_per_state"] == {"s2a": 1.0, "s2b": 1.0, "s2c": 0.0}
    assert report.values == [1.0] and report.optimal_value == 1.0
    assert report.action_standard_errors == [0.0]


def test_the_uniform_policy_has_the_exact_alpha_of_the_latent_uniform_policy():
    mdp = combination_lock(4, 3, 0)

    def uniform(vectors: np.ndarray, step: int) -> np.ndarray:
        return np.full((len(vectors), 3), 1 / 3)

    report = evaluate_policies(mdp, [uniform], samples=4)
    exact = policy_cover_alpha(mdp, [uniform_policy(mdp)])
    assert [s["alpha_min"] for s in report.steps] == pytest.approx(
        [float(a) for a in exact.alpha_per_layer], abs=1e-12)
    assert exact.alpha_per_layer[1:] == (pytest.approx(1 / 3), pytest.approx(1 / 9),
                                         pytest.approx(1 / 27))  # (1/K)^(h-1)


def test_a_cover_per_step_is_scored_step_by_step():
    """Step 2's cover, the good policy alone, misses s2c; step 3's adds "always a1", which
    reaches s3c: their alphas are the exact alphas of the latent policies."""
    mdp = combination_lock(3, 2, 0)
    good = good_policy(mdp, 3, 2, 0)

    def always_first(vectors: np.ndarray, step: int) -> np.ndarray:
        return np.zeros(len(vectors), dtype=int)

    report = evaluate_policies(mdp, {2: [good], 3: [good, always_first]}, samples=4)
    assert [s["step"] for s in report.steps] == [2, 3]
    choices = {f"s{h + 1}{side}": action for side, actions in
               zip("ab", combination_lock_good_actions(3, 2, 0), strict=True)
               for h, action in enumerate(actions)}
    latent_good = state_policy(mdp, choices)
    latent_first = state_policy(mdp, dict.fromkeys(mdp.states, "a1"))
    assert report.steps[0]["alpha_min"] == float(
        policy_cover_alpha(mdp, [latent_good]).alpha_per_layer[1]) == 0.0
    both = policy_cover_alpha(mdp, [latent_good, latent_first]).alpha_per_layer[2]
    assert report.steps[1]["alpha_min"] == pytest.approx(float(both), abs=1e-12)
    assert both > 0
    assert len(report.values) == 2  # each distinct policy once


@pytest.mark.parametrize(("output", "message"), [
    (lambda n: np.zeros((n, 5)), r"mine\[0\]\(observations, 1\) returned an array of shape"),
    (lambda n: np.full(n, 5), r"mine\[0\]\(observations, 1\) returned the action 5"),
    (lambda n: np.full((n, 2), 0.7), r"mine\[0\]\(observations, 1\): row 0 is not a "
                                     r"probability distribution"),
    (lambda n: np.full(n, 0.5), r"mine\[0\]\(observations, 1\) returned .* dtype float64"),
])
def test_a_policy_returning_nonsense_is_named(output, message):
    mdp = combination_lock(2, 2, 0)
    with pytest.raises(ValueError, match=message):
        evaluate_policies(mdp, [lambda vectors, step: output(len(vectors))], samples=2,
                          name="mine")


NOISY = HadamardNoise(noise_variance=0.2)
"""Noise enough for phi-bar to misassign some encodings: equal reports need equal draws."""


def test_compare_and_evaluate_give_equal_reports_of_a_runs_phi_bar():
    """``homer compare`` scores phi-bar on the same encodings as ``evaluate_abstraction``:
    every field of each step's comparison with KI is the same."""
    mdp = lock()
    artefacts = perfect_artefacts(mdp, encoder=NOISY)
    compared = compare_run(artefacts, samples=SAMPLES, transitions=100, seed=3)

    def phi_bar(vectors: np.ndarray, step: int) -> np.ndarray:
        return combined_classifier(artefacts, step - 1)(vectors)

    evaluated = evaluate_abstraction(mdp, phi_bar, encoder=NOISY, samples=SAMPLES, seed=3)
    for h in range(mdp.horizon):
        mine, theirs = evaluated.steps[h]["ki"], compared.abstractions[h + 1]["ki"]
        assert mine.to_json() == theirs.to_json()
        assert np.array_equal(mine.confusion, theirs.confusion)
    assert any(step["ki"].misassigned > 0 for step in evaluated.steps)  # the draws matter
    other_seed = evaluate_abstraction(mdp, phi_bar, encoder=NOISY, samples=SAMPLES, seed=4)
    assert [s["ki"].to_json() for s in other_seed.steps] != [
        s["ki"].to_json() for s in evaluated.steps]


# --- what a review of the first version found --------------------------------------------------

TWO_BY_TWO = {
    "name": "two-by-two", "horizon": 2, "actions": ["go"],
    "layers": [["start"], ["left", "right"]], "start": {"start": 1},
    "transitions": {"start": {"go": {"left": "1/2", "right": "1/2"}}},
    "emissions": {"start": {"o": 1}, "left": {"l1": "1/2", "l2": "1/2"},
                  "right": {"r1": "1/2", "r2": "1/2"}}}


def test_a_pair_of_exact_classes_merged_by_two_learned_classes_is_one_wrong_merge():
    """l1, r1 -> class 0 and l2, r2 -> class 1: both learned classes merge {left} with
    {right}, one pair of distinct exact classes (counting per learned class would say 2)."""
    from homer.evaluate import compare_classes
    from kinematic.spec import from_spec
    mdp = from_spec(TWO_BY_TWO)
    ids = np.repeat(np.arange(4), 3)
    learned = np.repeat([0, 1, 0, 1], 3)  # observations l1, l2, r1, r2
    comparison = compare_classes(mdp, 2, "ki", [["left"], ["right"]], ids, learned)
    assert comparison.wrong_merges == 1 and comparison.splits == 2


def test_a_function_given_for_every_kind_is_called_once_per_step():
    calls = []

    def counted(vectors: np.ndarray, step: int) -> np.ndarray:
        calls.append(step)
        return np.random.default_rng(len(calls)).integers(2, size=len(vectors))

    report = evaluate_abstraction(lock(), counted, samples=5)
    assert calls == [1, 2, 3, 4]
    for step in report.steps:  # one classification behind the three comparisons
        assert step["backward"].assignment == step["forward"].assignment == step["ki"].assignment


def test_classes_beyond_int64_are_refused_not_merged():
    with pytest.raises(ValueError, match="must return integer classes"):
        evaluate_abstraction(lock(), lambda x, step: 1e19 * (1 + np.arange(len(x))),
                             samples=2)


def test_the_action_standard_error_of_a_step_counts_the_actions_before_it():
    """A coin flip at step 2 only: nothing random decides who reaches step 2 (error 0), the
    flip decides step 3; one standard error of a share of n coin flips is sqrt(p (1-p) / n)."""
    mdp = lock()

    def flip_at_two(vectors: np.ndarray, step: int) -> np.ndarray:
        if step == 2:
            return np.full((len(vectors), mdp.number_of_actions), 1 / mdp.number_of_actions)
        return np.zeros(len(vectors), dtype=int)

    report = evaluate_policies(mdp, [flip_at_two], samples=10)
    assert [s["action_standard_error"] for s in report.steps] == [0.0, 0.0, 0.0, 0.0]
    coin = evaluate_policies(mdp, [lambda x, step: np.arange(len(x)) % 2 * (step == 2)],
                             samples=10)
    assert [s["action_standard_error"] for s in coin.steps][:2] == [0.0, 0.0]
    assert coin.steps[2]["action_standard_error"] == pytest.approx(np.sqrt(0.25 / 10))
    assert coin.action_standard_errors == [pytest.approx(np.sqrt(0.25 / 10))]


def test_cover_steps_may_be_numpy_integers_but_not_booleans():
    mdp = lock()
    first = constant
    report = evaluate_policies(mdp, {np.int64(3): [first]}, samples=2)
    assert [s["step"] for s in report.steps] == [3]
    with pytest.raises(ValueError, match="the key True is not a time step"):
        evaluate_policies(mdp, {True: [first]}, samples=2)


def test_the_summary_names_the_steps_a_cover_was_given_for():
    from homer.summary import cover_lines
    steps = [{"step": 3, "alpha_min": 0.25}]
    assert cover_lines(steps, [])[0].startswith("policy cover: alpha 0.250 at step 3")
    steps = [{"step": 2, "alpha_min": 0.5}, {"step": 4, "alpha_min": 0.25}]
    assert cover_lines(steps, [])[0] == (
        "policy cover: smallest alpha 0.250 at step 4 of steps 2, 4 (step 1 needs no policy)")


def test_decode_reads_only_the_observations_of_its_step():
    """At variance 0.25 a step with one observation is decoded as that observation, never as
    a noise coordinate of a wider step's."""
    from kinematic.spec import from_spec
    mdp, encoder = from_spec(TWO_BY_TWO), HadamardNoise(noise_variance=0.25)
    vectors = encoder.encode(mdp, 0, np.zeros(2000, dtype=int), np.random.default_rng(0))
    assert set(encoder.decode(mdp, vectors, step=1).tolist()) == {0}


def test_a_users_file_edited_between_loads_is_read_again(tmp_path):
    import os

    from homer.user_code import load_object
    path = tmp_path / "mine.py"
    path.write_text("def phi(observations, step):\n    return 1\n")
    assert load_object(f"{path}:phi", "--abstraction")(None, 1) == 1
    path.write_text("def phi(observations, step):\n    return 2\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert load_object(f"{path}:phi", "--abstraction")(None, 1) == 2


def test_the_reference_learners_print_as_one_line():
    mdp = combination_lock(3, 2, 0)  # at most 3 KI classes per step
    name = "'combolock-H3-K2-seed0'"
    assert repr(reference_abstraction("oracle", mdp)) == f"<reference learner 'oracle' on {name}>"
    assert repr(reference_abstraction("random", mdp, seed=4)) == (
        "<reference learner 'random': 3 classes, seed 4>")
    assert repr(reference_abstraction("kmeans", mdp, capacity=5)) == (
        f"<reference learner 'kmeans' on {name}: 5 classes, seed 0>")
    assert repr(reference_abstraction("pca-kmeans", mdp, seed=2)) == (
        f"<reference learner 'pca-kmeans' on {name}: 3 classes, seed 2>")
    labels = [[0] * len(layer) for layer in mdp.observations]
    assert repr(labelled_abstraction(mdp, labels)) == f"<labelled abstraction on {name}>"


def test_a_40_percent_leak_is_a_wrong_merge_naming_both_classes_and_the_rate():
    """phi is the exact KI partition of the H = 3 lock but for 40% of s3c's encodings, put in
    the class of {s3a, s3b}: each observation's majority stays in its own class (the rule
    before merge rates reported no wrong merge), yet the class of {s3a, s3b} is also earned
    in s3c 40% of the time - a stochastic merge of separable states."""
    mdp = combination_lock(3, 2, 0)
    report = evaluate_abstraction(mdp, leaking_phi(0.4))
    assert report.steps_with_wrong_merges("ki") == [3]
    assert report.steps_with_wrong_merges("backward") == [3]
    assert report.steps_with_wrong_merges("forward") == []  # step 3 has one forward-KI class
    ki = report.steps[2]["ki"]
    assert ki.majority_wrong_merges == 0 and ki.wrong_merges == 1
    (merge,) = ki.merges
    leak = merge.worst
    assert ki.exact_classes[leak.source] == ["s3c"]
    assert ki.exact_classes[leak.target] == ["s3a", "s3b"]
    assert (leak.rate, leak.encodings) == (0.4, 500)  # exactly 200 of s3c's 500 encodings
    assert leak.standard_error == sqrt(0.4 * 0.6 / 500)
    text = format_evaluation(Evaluation("leaks.py:forty", None, report)).splitlines()
    assert text[text.index("  phi vs KI wrong merges:") + 1] == (
        "    step 3: 40.0% of s3c's encodings in a learned class holding 100.0% of {s3a, s3b}'s "
        "(standard error 2.2%)")
    assert ("  wrong merge: a pair of exact classes with a merge rate above 0.05 "
            "(merge_threshold=...);") in text
    document = report.to_json()
    assert document["merge_threshold"] == 0.05
    assert document["steps"][2]["wrong_merges"] == 1
    (rates,) = document["steps"][2]["abstractions"]["ki"]["merge_rates"]
    assert rates["classes"] == [0, 1] and rates["rate"] == 0.4
    assert rates["leaks"][1] == {"from": 1, "into": 0, "learned_class": 0, "rate": 0.4,
                                 "standard_error": sqrt(0.4 * 0.6 / 500), "encodings": 500,
                                 "target_share": 1.0}


def test_a_40_percent_leak_into_half_of_a_split_class_is_a_wrong_merge():
    """As above, but s3b's encodings and the 40% of s3c's go to a third class, 2: {s3a, s3b}
    is split 50/50 between 0 (its majority class, the smaller on the tie) and 2. Class 2 holds
    40% of s3c and half of {s3a, s3b} - a policy rewarded for it cannot tell them apart -
    though neither class 0 nor s3c's class 1 holds any of the other (a rate by majority
    classes alone would be 0, and each observation's majority stays apart)."""
    mdp = combination_lock(3, 2, 0)
    forty = leaking_phi(0.4)

    def phi(observations: np.ndarray, step: int) -> np.ndarray:
        classes = forty(observations, step)
        if step == 3:
            state = np.asarray(mdp.emission_state[2])[observation_of(mdp, observations, 3)]
            classes[(state == 1) | ((state == 2) & (classes == 0))] = 2
        return classes

    report = evaluate_abstraction(mdp, phi)
    ki = report.steps[2]["ki"]
    assert ki.confusion.tolist() == [[500, 0], [0, 300], [500, 200]]
    assert report.steps_with_wrong_merges("ki") == [3]
    assert ki.majority_wrong_merges == 0 and ki.wrong_merges == 1
    (merge,) = ki.merges
    assert merge.rate == 0.4 and merge.worst is merge.leaks[1]
    leak = merge.worst
    assert (leak.learned_class, leak.encodings, leak.target_share) == (2, 500, 0.5)
    assert leak.standard_error == sqrt(0.4 * 0.6 / 500)
    text = format_evaluation(Evaluation("leaks.py:split", None, report)).splitlines()
    assert text[text.index("  phi vs KI wrong merges:") + 1] == (
        "    step 3: 40.0% of s3c's encodings in a learned class holding 50.0% of {s3a, s3b}'s "
        "(standard error 2.2%)")
    (rates,) = report.to_json()["steps"][2]["abstractions"]["ki"]["merge_rates"]
    assert rates["leaks"][1] == {"from": 1, "into": 0, "learned_class": 2, "rate": 0.4,
                                 "standard_error": sqrt(0.4 * 0.6 / 500), "encodings": 500,
                                 "target_share": 0.5}


def test_a_1_percent_leak_is_no_wrong_merge_unless_the_threshold_is_lower():
    mdp = combination_lock(3, 2, 0)
    report = evaluate_abstraction(mdp, leaking_phi(0.01))
    assert report.steps_with_wrong_merges("ki") == []
    assert [p.rate for p in report.steps[2]["ki"].merge_rates] == [0.01]
    strict = evaluate_abstraction(mdp, leaking_phi(0.01), merge_threshold=0.005)
    assert strict.steps_with_wrong_merges("ki") == [3] and strict.merge_threshold == 0.005
    assert strict.steps[2]["ki"].merge_threshold == 0.005
    assert "(merge rate above 0.005)" in repr(strict)
    assert strict.to_json()["merge_threshold"] == 0.005
