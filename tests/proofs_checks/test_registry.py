"""The registry of claims: every claim holds, every negative control is caught, every label is
in the reference source, and violations come with witnesses."""

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import strategies as st

from kinematic.homing import eta_min
from kinematic.strategies import block_mdps
from proofs_checks.cli import main
from proofs_checks.registry import Claim, Outcome, all_claims, run_claim
from proofs_checks.witness import spec

# The reference paper lies in shared/reference beside the repository (as in CI); override with
# KINEMATIC_REFERENCE for another layout.
REFERENCE = Path(os.environ.get(
    "KINEMATIC_REFERENCE", Path(__file__).resolve().parents[3] / "shared" / "reference"))
EXAMPLES = 10

CLAIMS = all_claims()


def reference_labels() -> set[str]:
    sources = list(REFERENCE.glob("*.tex"))
    assert sources, f"no reference source found in {REFERENCE}"
    return {label for path in sources for label in re.findall(r"\\label\{([^}]*)\}",
                                                               path.read_text())}


def test_every_label_is_in_the_reference_source():
    labels = reference_labels()
    missing = [claim.label for claim in CLAIMS if claim.label not in labels]
    assert not missing


def test_the_issue_list_is_registered():
    expected = {
        "lem:homing_deterministic", "prop:comp-homing", "app:appendix-kinematic-inseparability",
        "lem:state-inseparable", "fact:time-separable", "lem:bki-ratio", "lem:bki-policy-ratio",
        "lem:abstraction-policy", "sec:kinematic-inseparable", "fig:mdp-canonical",
        "lem:bound-rho-prior", "lem:p-form", "prop:bki-in-class", "lem:perf-diff",
        "alg:rl_via_homing_policies", "alg:oracle-exp", "prop:csc-call", "thm:psdp-spread",
        "thm:exp-oracle",
    }
    assert {claim.label for claim in CLAIMS} == expected


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.label for c in CLAIMS])
def test_claim_holds_and_its_negative_control_is_caught(claim):
    report = run_claim(claim, EXAMPLES)
    assert report.instances >= 1
    assert report.violations == 0, json.dumps(report.witness)
    assert report.negative_control_caught
    assert report.negative_witness  # the control's violation comes with a witness


def test_policy_ratio_violation_carries_instance_policies_and_both_sides():
    claim = next(c for c in CLAIMS if c.label == "lem:bki-policy-ratio")
    witness = run_claim(claim, EXAMPLES).negative_witness
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
                  lambda: st.just(None), lambda _: Outcome(False))
    report = run_claim(claim, 50)
    assert report.violations == 1
    assert report.witness["eta_min"] != "1"
    assert len(report.witness["instance"]["layers"]) <= 2


def test_cli_json_and_exit_status(capsys):
    assert main(["--examples", "3", "--json", "--only", "lem:p-form", "prop:comp-homing"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in reports] == ["prop:comp-homing", "lem:p-form"]
    for report in reports:
        assert set(report) >= {"label", "statement", "instances", "violations",
                               "negative_control_caught", "seconds"}
    assert main(["--only", "no:such-label"]) == 2
