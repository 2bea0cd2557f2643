"""Section 5 counterexamples, exactly, and the counterexample finder."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from kinematic.counterexamples import all_counterexamples
from kinematic.counterexamples.autoencoder import autoencoder_claim
from kinematic.counterexamples.bisimulation import bisimulation_claim
from kinematic.counterexamples.curiosity import curiosity_claim
from kinematic.counterexamples.exploration import worst_case_cover_alpha
from kinematic.counterexamples.pcid import pcid_model_based_claim, pcid_target_claim
from kinematic.counterexamples.search import OBJECTIVES, find_counterexample, is_counterexample
from kinematic.families import combination_lock
from kinematic.inseparability import backward_ki_partition
from kinematic.planning import observation_labels
from kinematic.spec import load_spec

DATA = Path(__file__).parent / "data"


def test_curiosity():
    claim = curiosity_claim()
    assert claim.holds
    n = claim.numbers
    for layer, loss in ((2, "0"), (3, "1/2")):
        assert n[f"layer {layer}: Bayes-optimal square loss"] == loss
        assert n[f"layer {layer}: loss with the merged abstraction"] == loss
    assert n["layer 2: loss when merging {s3,s5} and {s4,s6} instead"] == "1/2"
    assert (n["P_pi(s7)"], n["P_pi(s8)"], n["eta(s8)"]) == ("1", "0", "1")
    assert n["alpha at s8 of the cover {pi}"] == "0"
    assert n["worst-case alpha per layer, curiosity abstraction"] == ["1", "1", "0"]
    assert n["alpha per layer, backward KI + exact PSDP"] == ["1", "1"]
    assert n["worst-case alpha per layer, backward KI"] == ["1", "1", "1"]


def test_pcid_target():
    claim = pcid_target_claim()
    assert claim.holds
    n = claim.numbers
    assert n["PCID classes per layer (HOMER loop, exact PSDP)"] == [
        [["s1", "s2"]], [["s3", "s4"], ["s5", "s6"]], [["s7", "s8"]]]
    assert n["worst-case alpha per layer"] == ["1", "1", "0"]
    assert n["layer 3: posteriors p(phi(x), a | x')"] == {
        "s7": ["1/4"] * 4, "s8": ["1/4"] * 4}
    assert n["PCID classes with s1, s2 separated (deterministic-start oracle)"][2] == [
        ["s7"], ["s8"]]


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
    assert claim.numbers["alpha per layer of the cover"] == ["0", "1/2"]


def test_cli_json_lists_all_five(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kinematic", "counterexamples", "--json"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    records = json.loads(result.stdout)
    assert [r["name"] for r in records] == [
        "curiosity", "pcid_target", "pcid_model_based", "autoencoder", "bisimulation"]
    assert all(r["holds"] and r["claim"] and r["numbers"] for r in records)
    assert [r.as_json() for r in all_counterexamples()] == records


@pytest.mark.parametrize("objective", ["inverse_dynamics", "pcid_target"])
def test_stored_finder_results_replay(objective):
    """The specs the finder returned (python -m kinematic find-counterexample) still fail."""
    mdp = load_spec(DATA / f"found_{objective}.json")
    assert is_counterexample(mdp, OBJECTIVES[objective], Fraction(1, 2))
    assert len(mdp.states) < 8  # smaller than the paper's 8-state example


def test_finder_returns_a_shrunk_counterexample():
    found = find_counterexample("inverse_dynamics", max_examples=1500)
    assert found is not None
    assert min(Fraction(a) for a in found.worst_case_alpha) < Fraction(1, 2)
    assert found.backward_ki_alpha == ["1"] * found.layers
    assert found.states <= 8 and found.layers <= 3


def test_backward_ki_is_never_worst_case_broken_on_locks():
    """lem:abstraction-policy: every optimal policy of a backward KI class homes all members."""
    for seed in range(3):
        mdp = combination_lock(5, 3, seed)
        labels = observation_labels(mdp, backward_ki_partition(mdp).labels)
        worst, _ = worst_case_cover_alpha(mdp, labels)
        assert all(a == 1 for a in worst)
