"""Section 5 counterexamples, exactly, and the counterexample finder."""

import itertools
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis.vendor.pretty import pretty

from kinematic import counterexamples
from kinematic.cli import main as cli_main
from kinematic.counterexamples import Counterexample, all_counterexamples
from kinematic.counterexamples.autoencoder import autoencoder_claim
from kinematic.counterexamples.bisimulation import bisimulation_claim
from kinematic.counterexamples.curiosity import curiosity_claim
from kinematic.counterexamples.exploration import single_policy_alpha, worst_case_cover_alpha
from kinematic.counterexamples.mdps import curiosity_counterexample, pcid_chain
from kinematic.counterexamples.pcid import pcid_model_based_claim, pcid_target_claim
from kinematic.counterexamples.search import (
    OBJECTIVES,
    find_counterexample,
    is_counterexample,
    stored_instances,
)
from kinematic.cover import policy_cover_alpha
from kinematic.families import combination_lock
from kinematic.homing import eta
from kinematic.inseparability import backward_ki_partition
from kinematic.planning import observation_labels
from kinematic.policies import state_policy, uniform_policy
from kinematic.spec import from_spec, load_spec

DATA = Path(__file__).parent / "data"


def test_curiosity():
    claim = curiosity_claim()
    assert claim.holds
    n = claim.numbers
    for layer, loss in ((2, "0"), (3, "1/6")):
        assert n[f"layer {layer}: Bayes-optimal square loss"] == loss
        assert n[f"layer {layer}: loss with the merged abstraction"] == loss
    assert n["layer 3: p(a | x, x') is a point mass for every x' from {s7,s8}"] is True
    assert n["layer 3: Bayes-optimal two-class abstractions"] == [[["s7", "s8"], ["s9"]]]
    assert [["s3", "s4"], ["s5", "s6"]] in n["layer 2: Bayes-optimal two-class abstractions"]
    assert (n["P_pi(s7)"], n["P_pi(s8)"], n["eta(s8)"]) == ("1", "0", "1/2")
    for ties in ("first-action PSDP", "ties against a state", "ties in a state's favour"):
        assert n[f"alpha per layer, curiosity abstraction, {ties}"] == ["1", "1", "0"]
    assert n["alpha per layer, backward KI + exact PSDP"] == ["1", "1"]
    assert n["worst-case alpha per layer, backward KI"] == ["1", "1", "1"]


def test_pcid_target():
    claim = pcid_target_claim()
    assert claim.holds
    n = claim.numbers
    assert n["PCID classes per layer (HOMER loop, exact PSDP)"] == [
        [["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]], [["s7", "s8"], ["s9"]]]
    assert n["worst-case alpha per layer"] == ["1", "1", "0"]
    assert n["alpha per layer, ties in a state's favour"] == ["1", "1", "0"]
    posteriors = n["layer 3: posteriors p(phi(x), a | x')"]
    assert posteriors["s7"] == posteriors["s8"] == ["1/2", "0", "0", "1/2"]
    assert posteriors["s9"] == ["1/10", "2/5", "2/5", "1/10"]
    assert n["PCID classes with s1, s2 separated (deterministic-start oracle)"][2] == [
        ["s7"], ["s8"], ["s9"]]


def test_pcid_model_based_alpha_is_exponentially_small():
    claim = pcid_model_based_claim()
    assert claim.holds
    for horizon in range(2, 13):
        assert claim.numbers[f"H={horizon}"]["alpha"] == str(Fraction(1, 2 ** (horizon - 1)))
    assert claim.numbers["H=2: best abstract-state policy, P({s2a, s2b})"] == "1/2"
    assert claim.numbers["H=2: observation policy, P({s2a, s2b})"] == "1"


def test_autoencoder():
    claim = autoencoder_claim()
    assert claim.holds
    unequal = claim.numbers["d=4, P(s0)=2/3"]
    assert unequal["minimum expected Hamming loss"] == "13/12"
    assert unequal["loss keeping the state bit"] == "3/2"
    assert unequal["loss keeping a noise bit"] == "4/3"
    assert unequal["a minimiser ignores the state bit"] is True
    assert unequal["minimisers that reveal the state"] == 0
    assert unequal["encoders enumerated"] == 2 ** 16
    # d = 3: the majority of the bits beats every encoder that ignores the state bit
    three = claim.numbers["d=3, P(s0)=2/3"]
    assert three["minimum expected Hamming loss"] == "3/4"
    assert three["best loss ignoring the state bit"] == "5/6"
    assert three["a minimiser ignores the state bit"] is False
    assert claim.numbers["d=2, P(s0)=1/2"]["loss keeping the state bit"] == "1/2"


def test_bisimulation():
    claim = bisimulation_claim()
    assert claim.holds
    assert claim.numbers["one class per layer is a reward-free bisimulation"] is True
    assert claim.numbers["states never visited by the cover"] == ["s5", "s6"]
    assert claim.numbers["alpha per layer of the cover"] == ["0", "1/4"]


def test_cli_json_lists_all_five(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kinematic", "counterexamples", "--json"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    records = json.loads(result.stdout)
    assert [r["name"] for r in records] == [
        "curiosity", "pcid_target", "pcid_model_based", "autoencoder", "bisimulation"]
    assert all(r["holds"] and r["claim"] and r["numbers"] for r in records)
    assert [r.as_json() for r in all_counterexamples()] == records


TOY = Counterexample("toy", "s8 is never reached", False,
                     {"alpha": "1/2", "per layer": ["1", "0"], "merged": True})


def test_a_claim_prints_its_verdict_and_name_then_one_line_per_number_as_json():
    assert str(TOY) == ('[FAILS] toy: s8 is never reached\n'
                        '    alpha: "1/2"\n'
                        '    per layer: ["1", "0"]\n'
                        '    merged: true')
    assert str(Counterexample("toy", "c", True)) == "[holds] toy: c"


def test_a_claim_shows_as_its_text_in_ipython_and_hypothesis():
    assert pretty(TOY) == str(TOY)


def test_the_cli_prints_each_claim_as_its_text_and_fails_if_one_fails(monkeypatch, capsys):
    holding = Counterexample("other", "c", True, {"x": "0"})
    monkeypatch.setattr(counterexamples, "all_counterexamples", lambda: [holding, TOY])
    assert cli_main(["counterexamples"]) == 1
    assert capsys.readouterr().out == f"{holding}\n{TOY}\n"


def test_stored_finder_instances_are_non_trivial_robust_counterexamples():
    """What kinematic/counterexamples/found/ holds (find-counterexample --non-trivial --robust
    --record) still fails, without degeneracy, whatever the tie-breaking."""
    stored = stored_instances()
    assert stored, "no stored finder instance"
    for objective, (record, mdp) in stored.items():
        assert record["non_trivial"] and record["robust"] and record["seconds"] > 0
        assert is_counterexample(mdp, OBJECTIVES[objective], Fraction(1, 2))
        assert is_counterexample(mdp, objective, Fraction(1, 2), non_trivial=True, robust=True)
        assert len(mdp.states) < 9  # smaller than the paper's 9-state example


def test_non_trivial_rejects_a_failure_of_the_merged_layer():
    """The finder's earlier PCID instance fails only because nothing is predictable on its
    last layer (uniform posteriors, one class): a counterexample, but a trivial one."""
    mdp = load_spec(DATA / "trivial_pcid_target.json")
    assert is_counterexample(mdp, "pcid_target", Fraction(1, 2))
    assert not is_counterexample(mdp, "pcid_target", Fraction(1, 2), non_trivial=True)


def test_robust_rejects_a_failure_that_needs_adversarial_ties():
    """First-action PSDP with the curiosity abstraction of the paper's MDP fails robustly; the
    Figure-free MDP below fails only when ties go against a state."""
    assert is_counterexample(curiosity_counterexample(), "inverse_dynamics", Fraction(1, 2),
                             non_trivial=True, robust=True)
    # s2_0 reaches s3_0 by both actions: merging s3_0, s3_2 is free, and the {s3_0, s3_2}
    # policy may go either way from s2_0 (a tie); a favourable tie visits s3_2.
    mdp = from_spec({
        "name": "tie", "horizon": 3, "actions": ["a0", "a1"],
        "layers": [["s1_0", "s1_1"], ["s2_0", "s2_1"], ["s3_0", "s3_1", "s3_2"]],
        "start": {"s1_0": "1/2", "s1_1": "1/2"},
        "transitions": {
            "s1_0": {"a0": {"s2_0": "1/2", "s2_1": "1/2"}, "a1": {"s2_0": "1"}},
            "s1_1": {"a0": {"s2_0": "1"}, "a1": {"s2_0": "1"}},
            "s2_0": {"a0": {"s3_0": "1"}, "a1": {"s3_0": "1"}},
            "s2_1": {"a0": {"s3_0": "1/2", "s3_2": "1/2"}, "a1": {"s3_1": "1"}}},
    })
    assert is_counterexample(mdp, "inverse_dynamics", Fraction(1, 2), non_trivial=True)
    assert not is_counterexample(mdp, "inverse_dynamics", Fraction(1, 2), non_trivial=True,
                                 robust=True)


def _one_class(mdp, cover, layer, previous_labels) -> np.ndarray:
    """An objective that merges every observation of a layer."""
    return np.zeros(len(mdp.observations[layer]), dtype=np.intp)


def test_finder_shrinks_the_one_class_failure_to_its_three_state_core():
    """One class on layer 2 gives PSDP one block whose reward every policy earns, so the tie
    is broken against a state that only a mixed action reaches: the smallest such MDP has one
    start state and two next states (alpha 0 for one of them; backward KI separates them)."""
    found = find_counterexample(_one_class, max_examples=300)
    assert (found.states, found.layers) == (3, 2)
    assert found.worst_case_alpha == ["1", "0"] and found.backward_ki_alpha == ["1", "1"]
    mdp = from_spec(found.spec)
    assert is_counterexample(mdp, _one_class, Fraction(1, 2))
    assert not is_counterexample(mdp, _one_class, Fraction(1, 2), robust=True)


@pytest.mark.slow  # 43-51 s, mostly shrinking; the fast test above covers the search
@pytest.mark.no_mutants  # for each mutant of counterexamples/objectives.py it would run 45 s
def test_finder_records_a_shrunk_non_trivial_robust_counterexample(tmp_path, capsys):
    record = tmp_path / "found.json"
    assert cli_main(["find-counterexample", "--objective", "inverse_dynamics", "--non-trivial",
                     "--robust", "--max-examples", "5000", "--record", str(record)]) == 0
    found = json.loads(record.read_text())
    assert found["non_trivial"] and found["robust"] and found["seconds"] > 0
    assert min(Fraction(a) for a in found["worst_case_alpha"]) < Fraction(1, 2)
    assert found["backward_ki_alpha"] == ["1"] * found["layers"]
    mdp = from_spec(found["spec"])
    assert is_counterexample(mdp, "inverse_dynamics", Fraction(1, 2), non_trivial=True,
                             robust=True)
    assert found["states"] <= 6 and found["layers"] <= 3
    assert "found in" in capsys.readouterr().out


def test_backward_ki_is_never_worst_case_broken_on_locks():
    """lem:abstraction-policy: every optimal policy of a backward KI class homes all members."""
    for seed in range(3):
        mdp = combination_lock(5, 3, seed)
        labels = observation_labels(mdp, backward_ki_partition(mdp).labels)
        worst, _ = worst_case_cover_alpha(mdp, labels)
        assert all(a == 1 for a in worst)


def test_single_policy_alpha_is_the_best_cover_of_one_policy():
    """On the curiosity MDP one policy splits s1's mass between s3 and s5 (eta 1/2 each), so
    it reaches alpha 1/2 at best on layer 2 (the uniform policy); the LP is never below any
    deterministic or uniform policy's alpha, and is 1 where one policy homes every state."""
    mdp = curiosity_counterexample()
    assert single_policy_alpha(mdp, 1) == pytest.approx(0.5, abs=1e-9)
    eta_layers = eta(mdp)
    for layer in (1, 2):
        best = single_policy_alpha(mdp, layer)
        candidates = [uniform_policy(mdp)] + [
            state_policy(mdp, dict(zip(["s1", "s2", "s3", "s4", "s5", "s6"], choice,
                                       strict=True)))
            for choice in itertools.product(["a1", "a2"], repeat=6)]
        for policy in candidates:
            alpha = policy_cover_alpha(mdp, [policy], eta_layers).alpha_per_layer[layer]
            assert alpha <= best + 1e-9
    assert single_policy_alpha(pcid_chain(2), 1) == pytest.approx(0.5, abs=1e-9)
    # Two states reached from one start, each by its own action with probability 3/4 (else
    # the other): eta = 3/4 each; one policy mixing both actions evenly reaches each with 1/2.
    fork = from_spec({
        "name": "fork", "horizon": 2, "actions": ["a1", "a2"], "layers": [["s"], ["u", "v"]],
        "start": {"s": "1"},
        "transitions": {"s": {"a1": {"u": "3/4", "v": "1/4"}, "a2": {"u": "1/4", "v": "3/4"}}},
    })
    assert single_policy_alpha(fork, 1) == pytest.approx(2 / 3, abs=1e-9)
