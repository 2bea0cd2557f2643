"""The registry of claims: every claim holds, every negative control is caught by the claim's
own check, every result of the reference is registered, partition checks catch wrong splits and
wrong merges, and violations come with witnesses."""

import dataclasses
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from kinematic.homing import eta_min
from kinematic.inseparability import Partition
from kinematic.strategies import block_mdps
from proofs_checks.cli import main
from proofs_checks.reference_labels import REFERENCE_LABELS, RESULT_KINDS, label_index
from proofs_checks.registry import Claim, Outcome, all_claims, run_claim
from proofs_checks.witness import spec
from tests.proofs_checks.test_claims_page import page_verdicts

# The comparison of the label index with the paper's LaTeX source runs only when
# KINEMATIC_REFERENCE names the source: a .tex file, or a folder whose .tex files are read.
# Without it that one test is skipped: the project's own index (proofs_checks.reference_labels)
# is used everywhere else.
REFERENCE = os.environ.get("KINEMATIC_REFERENCE", "")
# Instances per claim; `make mutants` runs the suite once per mutant and uses 5.
EXAMPLES = 5 if os.environ.get("HYPOTHESIS_PROFILE") == "mutants" else 10
# The tests below ask whether a violation is found and carries a witness, not how small it is:
# they take the first one found (shrinking, 100 checks per violation by default, is tested by
# test_a_false_claim_is_reported_with_a_shrunk_witness). 67 s -> 26 s for the 35 claims alone.
NO_SHRINKING = 0

CLAIMS = all_claims()
PAGE_VERDICTS = page_verdicts()


def reference_source_labels() -> set[str]:
    """The labels of the source named by ``KINEMATIC_REFERENCE``; skips when it is not set,
    fails when it names no .tex file."""
    if not REFERENCE:
        pytest.skip("KINEMATIC_REFERENCE is not set: set it to the paper's LaTeX source (a .tex "
                    "file or a folder of them) to compare the label index with it")
    source = Path(REFERENCE)
    sources = sorted(source.glob("*.tex")) if source.is_dir() else [source]
    if not sources or not all(path.is_file() and path.suffix == ".tex" for path in sources):
        pytest.fail(f"KINEMATIC_REFERENCE={REFERENCE!r} names no .tex file nor a folder holding "
                    "one")
    return {label for path in sources
            for label in re.findall(r"\\label\{([^}]*)\}", path.read_text())}


def test_the_label_index_matches_the_reference_source():
    labels = reference_source_labels()
    results = {label for label in labels if label.split(":")[0] in RESULT_KINDS}
    index = label_index()
    assert results - set(index) == set(), "results of the reference missing from the index"
    in_source = {entry.label for entry in REFERENCE_LABELS if entry.in_source}
    assert in_source - labels == set(), "indexed as in the source but not there"
    ours = {entry.label for entry in REFERENCE_LABELS if not entry.in_source}
    assert ours & labels == set()


def test_every_indexed_result_is_a_registered_claim_and_back():
    registered = {claim.label for claim in CLAIMS}
    assert set(label_index()) - registered == set(), "indexed results not registered"
    assert registered - set(label_index()) == set(), "registered claims not indexed"
    assert len(registered) == len(CLAIMS)


def test_the_index_covers_every_result_kind():
    kinds = {entry.kind for entry in REFERENCE_LABELS}
    assert set(RESULT_KINDS) <= kinds


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.label for c in CLAIMS])
def test_a_check_that_always_holds_misses_its_control(claim):
    """The control runs the claim's own check: replaced by one that always holds, the claim
    reports no violation and its control reports "missed"."""
    sabotaged = dataclasses.replace(claim, check=lambda _: Outcome(True))
    report = run_claim(sabotaged, 2)
    assert report.violations == 0
    assert not report.negative_control_caught


def _singletons(mdp) -> Partition:
    return Partition("backward", mdp.layers,
                     tuple(np.arange(mdp.width(h)) for h in range(mdp.horizon)))


def _one_class(mdp) -> Partition:
    return Partition("backward", mdp.layers,
                     tuple(np.zeros(mdp.width(h), dtype=np.intp) for h in range(mdp.horizon)))


PARTITION_CLAIMS = ["def:bki", "lem:bki-ratio", "lem:bki-policy-ratio", "lem:abstraction-policy",
                    "alg:rl_via_homing_policies", "alg:oracle-exp", "prop:bki-in-class"]


@pytest.mark.parametrize("mutant", [_singletons, _one_class], ids=["wrong splits", "wrong merges"])
@pytest.mark.parametrize("label", PARTITION_CLAIMS)
def test_partition_claims_catch_a_wrong_backward_partition(monkeypatch, label, mutant):
    """Every claim that uses ``backward_ki_partition`` reports a violation when it returns
    singletons (wrong splits) or one block per layer (wrong merges)."""
    for module in ("definitions", "inseparability", "planning", "homer_analysis"):
        monkeypatch.setattr(f"proofs_checks.{module}.backward_ki_partition", mutant)
    claim = next(c for c in CLAIMS if c.label == label)
    assert run_claim(claim, 30, NO_SHRINKING).violations == 1


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.label for c in CLAIMS])
def test_claim_holds_and_its_negative_control_is_caught(claim):
    """... and docs/claims.md (a run at 30 examples) states the verdicts of this fresh run."""
    report = run_claim(claim, EXAMPLES, NO_SHRINKING)
    assert report.instances >= 1
    assert report.violations == 0, json.dumps(report.witness)
    assert report.negative_control_caught
    assert report.negative_witness  # the control's violation comes with a witness
    fresh = (report.violations == 0, report.negative_control_caught)
    assert PAGE_VERDICTS.get(claim.label) == fresh, (
        f"docs/claims.md's row of {claim.label} (held, control caught) is "
        f"{PAGE_VERDICTS.get(claim.label)}, a fresh run gives {fresh}: regenerate the page")


def test_policy_ratio_violation_carries_instance_policies_and_both_sides():
    claim = next(c for c in CLAIMS if c.label == "lem:bki-policy-ratio")
    witness = run_claim(claim, EXAMPLES, NO_SHRINKING).negative_witness
    assert set(witness) >= {"instance", "policies", "P_pi1(X1) * P_pi2(X2)",
                            "P_pi1(X2) * P_pi2(X1)"}
    assert witness["P_pi1(X1) * P_pi2(X2)"] != witness["P_pi1(X2) * P_pi2(X1)"]
    assert witness["instance"]["horizon"] >= 2 and len(witness["policies"]) == 2


def test_a_false_claim_is_reported_with_a_shrunk_witness():
    """A deliberately false statement ("eta_min = 1 for every MDP") is violated, and the
    witness is a small instance whose eta_min is printed."""

    def check(mdp):
        value = eta_min(mdp)
        return Outcome(value == 1, {"instance": spec(mdp), "eta_min": str(value)})

    claim = Claim("fake", "eta_min is 1", lambda: block_mdps(), check, "none",
                  lambda: block_mdps())
    report = run_claim(claim, 50)
    assert report.violations == 1
    assert report.witness["eta_min"] != "1"
    assert len(report.witness["instance"]["layers"]) <= 2
    unshrunk = run_claim(claim, 50, NO_SHRINKING)
    assert unshrunk.violations == 1 and unshrunk.witness != report.witness
    again = run_claim(claim, 50)  # reproducible
    assert (again.instances, again.witness) == (report.instances, report.witness)
    # The label seeds the instances (with derandomize, every claim had the runner's seed).
    renamed = run_claim(dataclasses.replace(claim, label="fake, renamed"), 50, NO_SHRINKING)
    assert renamed.witness != unshrunk.witness
    with pytest.raises(ValueError, match="shrink_budget must be >= 0, got -1"):
        run_claim(claim, 50, -1)


def test_cli_json_and_exit_status(capsys):
    assert main(["--examples", "3", "--json", "--only", "lem:p-form", "prop:comp-homing"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in reports] == ["prop:comp-homing", "lem:p-form"]
    for report in reports:
        assert set(report) >= {"label", "statement", "instances", "violations",
                               "negative_control_caught", "seconds"}
    assert main(["--only", "no:such-label"]) == 2


def test_cli_markdown_table_and_coverage_line(capsys):
    assert main(["--examples", "2", "--markdown", "--only", "def:bki", "lem:p-form"]) == 0
    out = capsys.readouterr().out
    assert "| `def:bki` |" in out and "P_u(x, a \\| x1')" in out
    assert "2 of 30 labelled results" in out


def test_time_separability_is_not_a_tautology(monkeypatch):
    """On the global observation process (no time step in the keys, explicit start and end
    observations) a zero transition tensor makes observations of different layers forward KI:
    the check reports it (before, empty rows were excluded and it always held)."""
    from kinematic.families import combination_lock
    from kinematic.model import BlockMDP
    from proofs_checks.inseparability import KEEP_NAMES, check_time_separable

    mdp = combination_lock(4, 2, 0)
    assert check_time_separable((mdp, KEEP_NAMES)).holds
    monkeypatch.setattr(BlockMDP, "observation_transition_tensor",
                        lambda self, h: np.zeros((len(self.observations[h]),
                                                  self.number_of_actions,
                                                  len(self.observations[h + 1])), dtype=object))
    outcome = check_time_separable((mdp, KEEP_NAMES))
    assert not outcome.holds and outcome.witness["forward_ki"]


@pytest.mark.parametrize("examples", ["0", "-1", "x"])
def test_fewer_than_one_example_per_claim_is_refused(examples, capsys):
    """Before: --examples 0 or -1 ran one instance per claim and passed."""
    with pytest.raises(SystemExit) as stop:
        main(["--examples", examples, "--only", "lem:p-form"])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"argument --examples: must be an int >= 1, got '{examples}'" in captured.err


def test_a_check_that_raises_is_a_violation_naming_the_error_and_the_run_goes_on():
    """A wrong implementation may crash a check instead of making it false: the claim is
    reported violated with the exception, and a negative control that only crashes is not
    counted as caught."""

    def check(mdp):
        if mdp.horizon >= 2:
            raise ZeroDivisionError("from the code checked")
        return Outcome(True)

    claim = Claim("crash", "never crashes", lambda: block_mdps(), check, "none",
                  lambda: block_mdps())
    report = run_claim(claim, 30, NO_SHRINKING)
    assert report.violations == 1
    assert report.witness["exception"] == "ZeroDivisionError: from the code checked"
    assert report.witness["instance"].startswith("from_spec(")
    assert not report.negative_control_caught
