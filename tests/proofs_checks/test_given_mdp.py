"""``python -m proofs_checks --spec FILE`` and ``proofs_checks.check(mdp)``: every claim that
applies to one given Block MDP runs on it; a claim whose hypothesis the MDP breaks is "not
applicable", never a pass; a claim not about one MDP is skipped, one too large refused; a
negative control that must fail on the MDP and does not is missed."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import proofs_checks
from kinematic import combination_lock, exogenous_combination_lock, figure2_split
from kinematic.spec import dumps_spec, load_spec
from proofs_checks.cli import main
from proofs_checks.given_mdp import EXOGENOUS_PLANS, PLANS, SKIPPED, check, check_claim
from proofs_checks.registry import Outcome, all_claims

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

TWO_ACTIONS = {
    "name": "user-fork", "horizon": 2, "actions": ["left", "right"],
    "layers": [["s1"], ["up", "down"]], "start": {"s1": "1"},
    "transitions": {"s1": {"left": {"up": "1"}, "right": {"up": "1/3", "down": "2/3"}}},
    "emissions": {"down": {"d1": "1/2", "d2": "1/2"}},
    "rewards": {"d1": {"left": "1/2"}},
}


def _write(tmp_path: Path, spec: dict, name: str = "user.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(spec))
    return path


def _reports(capsys, argv: list[str]) -> tuple[int, dict[str, dict]]:
    status = main([*argv, "--json"])
    return status, {r["label"]: r for r in json.loads(capsys.readouterr().out)}


def test_every_claim_runs_is_skipped_or_not_applicable_on_the_shipped_spec(capsys):
    status, reports = _reports(capsys, ["--spec", str(EXAMPLES / "figure2-split.json"),
                                        "--examples", "1"])
    assert status == 0
    assert list(reports) == [c.label for c in all_claims()]
    assert {r["status"] for r in reports.values()} == {"checked", "not applicable", "skipped"}
    checked = [r for r in reports.values() if r["status"] == "checked"]
    assert len(checked) >= 20 and all(r["violations"] == 0 for r in checked)
    assert reports["def:bki"]["negative_control_caught"]
    assert reports["prop:bernstein"]["reason"].startswith("needs generated families: ")
    # Figure 2 has one action: the sample sizes of thm:exp-oracle need a policy class of two.
    assert reports["thm:exp-oracle"]["status"] == "not applicable"
    assert "one action" in reports["thm:exp-oracle"]["reason"]


def test_the_shipped_lock_catches_the_controls_that_must_fail_on_it(capsys):
    only = ["def:homing", "lem:p-form", "alg:oracle-exp", "lem:state-inseparable",
            "thm:exp-oracle"]
    status, reports = _reports(capsys, ["--spec", str(EXAMPLES / "combolock-H3-K2.json"),
                                        "--examples", "1", "--only", *only])
    assert status == 0
    for label in only[:-1]:
        assert reports[label]["status"] == "checked"
        assert reports[label]["negative_control_caught"], label
    # Its sample sizes (eta_min = 1/2, N = 2) are refused with the estimate, not run for minutes.
    assert reports["thm:exp-oracle"]["status"] == "refused"
    assert "n_psdp = 2.55e+06" in reports["thm:exp-oracle"]["reason"]


def test_a_users_spec_runs_with_a_line_per_claim(tmp_path: Path, capsys):
    path = _write(tmp_path, TWO_ACTIONS)
    assert main(["--spec", str(path), "--examples", "2", "--only", "def:bki", "fig:mdp-canonical",
                 "prop:csc-call", "lem:bki-ratio"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (f"Block MDP user-fork from {path}: the claims that apply to it, on it and "
                        "on instances derived from it")
    rows = {line.split()[0]: line for line in lines[2:] if line and not line.startswith(" ")}
    assert rows["def:bki"].split()[1:4] == ["2", "0", "yes"]
    # 'down' emits two observations: split into KI halves, then unequally (the control).
    assert rows["fig:mdp-canonical"].split()[2:4] == ["0", "yes"]
    assert rows["prop:csc-call"].startswith("prop:csc-call" + " " * 28 + "skipped: needs generated")
    # up and down are not backward KI and share (s1, right): a point prior confuses them.
    assert rows["lem:bki-ratio"].split()[3] == "yes"
    assert lines[-1] == ("4 claims, 0 violated, 0 negative controls missed (3 checked, "
                         "0 not applicable, 1 skipped, 0 refused; 0 negative controls not "
                         "applicable on this MDP)")


@pytest.mark.parametrize("reward", ["-1", "2"])
def test_rewards_outside_the_unit_interval_make_the_sampled_theorems_not_applicable(
        tmp_path: Path, capsys, reward):
    """thm:psdp-spread and thm:exp-oracle assume rewards in [0, 1] (their PSDP draws Bernoulli
    rewards); checking them anyway on this spec would be a pass they do not give."""
    path = _write(tmp_path, {**TWO_ACTIONS, "rewards": {"d1": {"left": reward}}})
    status, reports = _reports(capsys, ["--spec", str(path), "--examples", "1", "--only",
                                        "thm:psdp-spread", "thm:exp-oracle", "lem:perf-diff"])
    assert status == 0
    for label in ("thm:psdp-spread", "thm:exp-oracle"):
        assert reports[label]["status"] == "not applicable"
        assert reports[label]["instances"] == 0 and reports[label]["violations"] == 0
        assert reports[label]["reason"] == (
            f"the theorem assumes rewards in [0, 1]; R('d1', 'left') takes the value {reward}")
    assert reports["lem:perf-diff"]["status"] == "checked"  # an identity for any reward


def test_a_horizon_of_one_and_float_numbers_are_not_applicable_never_passes(tmp_path, capsys):
    one_layer = {"name": "one", "horizon": 1, "actions": ["a", "b"], "layers": [["s"]],
                 "start": {"s": "1"}, "transitions": {}}
    status, reports = _reports(capsys, ["--spec", str(_write(tmp_path, one_layer)),
                                        "--examples", "1", "--only", "alg:oracle-exp",
                                        "thm:main-theorem", "def:fki"])
    assert status == 0
    assert reports["alg:oracle-exp"]["status"] == "not applicable"
    assert reports["alg:oracle-exp"]["reason"].startswith("horizon 1: the claim is about")
    assert reports["thm:main-theorem"]["status"] == "not applicable"
    assert reports["def:fki"]["status"] == "checked"
    floats = {**TWO_ACTIONS, "transitions": {"s1": {"left": {"up": 1.0},
                                                    "right": {"up": 0.25, "down": 0.75}}},
              "emissions": {"down": {"d1": 0.5, "d2": 0.5}}, "rewards": {}}
    status, reports = _reports(capsys, ["--spec", str(_write(tmp_path, floats, "f.json")),
                                        "--examples", "1", "--only", "def:bki", "lem:p-form",
                                        "prop:bernstein"])
    assert status == 0
    assert [r["status"] for r in reports.values()] == ["not applicable", "not applicable",
                                                       "skipped"]
    assert "floats; the checks compare exact rationals" in reports["def:bki"]["reason"]


def test_an_exact_computation_too_large_is_refused_with_its_estimate_at_once(tmp_path, capsys):
    wide = {"name": "wide", "horizon": 2, "actions": ["a", "b"], "layers": [["s"], ["t"]],
            "start": {"s": "1"}, "transitions": {"s": {"a": {"t": "1"}, "b": {"t": "1"}}},
            "emissions": {"s": {f"x{k}": "1/13" for k in range(13)}}}
    status, reports = _reports(capsys, ["--spec", str(_write(tmp_path, wide)), "--only",
                                        "def:homing", "lem:homing_deterministic"])
    assert status == 0
    assert reports["def:homing"]["status"] == "refused"
    assert reports["def:homing"]["reason"] == (
        "2^13 = 8.19e+03 deterministic policies to enumerate, above the limit of 4096")
    assert reports["lem:homing_deterministic"]["reason"].startswith("2^14 = 1.64e+04 ")


def test_check_in_python_gives_the_reports_of_the_cli(capsys):
    only = ["def:ki", "lem:bki-policy-ratio", "prop:sq-loss", "thm:exp-oracle"]
    _, cli = _reports(capsys, ["--spec", str(EXAMPLES / "figure2-split.json"), "--examples", "3",
                               "--only", *only])
    python = proofs_checks.check(load_spec(EXAMPLES / "figure2-split.json"), 3, only)
    assert [r.label for r in python] == list(cli)
    for report in python:
        assert {**report.as_json(), "seconds": 0} == {**cli[report.label], "seconds": 0}


def test_a_control_that_must_fail_and_does_not_is_missed_and_fails_the_run(monkeypatch, capsys):
    """A check that always holds: where the control fails by construction (def:bki's wrong
    partitions on a lock) it is missed; where it need not fail (thm:main-theorem's capacity
    below N_BD), it is 'not applicable on this MDP', not caught."""
    lock = combination_lock(2, 2, 0)
    always = {c.label: dataclasses.replace(c, check=lambda case: Outcome(True))
              for c in all_claims()}
    missed = check_claim(always["def:bki"], lock, 1)
    assert (missed.control_verdict, missed.failed) == ("MISSED", True)
    honest = check_claim(always["thm:main-theorem"], lock, 1)
    assert (honest.control_verdict, honest.failed) == ("not applicable", False)
    assert honest.control_not_applicable.startswith("control not applicable on this MDP: the "
                                                    "capacity N = N_BD - 1 = 1 still meets")
    real = check_claim(all_claims()[[c.label for c in all_claims()].index("thm:main-theorem")],
                       lock, 1)
    assert real.control_verdict == "caught"


def test_every_registered_claim_has_a_plan_or_says_why_it_is_skipped():
    labels = {c.label for c in all_claims()}
    assert set(PLANS) | set(SKIPPED) | set(EXOGENOUS_PLANS) == labels
    assert not set(PLANS) & set(SKIPPED)
    assert not (set(PLANS) | set(SKIPPED)) & set(EXOGENOUS_PLANS)


EXO = ["exo:bki-product", "exo:fki-product", "exo:ki-product", "exo:iid-noise"]


def test_the_exo_claims_run_on_a_declared_factorisation_with_their_control_when_noise_is_iid():
    iid = exogenous_combination_lock(3, 2, 0, bits=1, flip="1/2")
    reports = check(iid, 3, EXO)
    assert [(r.status, r.violations, r.control_verdict) for r in reports] == \
        [("checked", 0, "caught")] * 4
    memory = check(exogenous_combination_lock(3, 2, 0, bits=1), 3, EXO)
    assert [(r.status, r.violations) for r in memory] == [("checked", 0)] * 4
    assert all(r.control_not_applicable.endswith("the declared noise has memory already")
               for r in memory)
    plain = check(iid.mdp, 3, EXO)  # the same MDP, no factorisation declared
    assert {(r.status, r.reason) for r in plain} == {
        ("not applicable", "the spec declares no exogenous factorisation (the compact form "
         "'endogenous' + 'exogenous', or 'factorisation': docs/guide/spec-format.md)")}


def test_markdown_rows_say_why_a_claim_did_not_run(tmp_path: Path, capsys):
    path = _write(tmp_path, {**TWO_ACTIONS, "rewards": {"d1": {"left": "-1"}}})
    assert main(["--spec", str(path), "--examples", "1", "--markdown", "--only",
                 "thm:psdp-spread", "def:homing"]) == 0
    out = capsys.readouterr().out
    assert ("| 0 | not applicable: the theorem assumes rewards in [0, 1]; R('d1', 'left') takes "
            "the value -1 | the claim did not run |") in out
    assert "| `def:homing` |" in out and "| caught: " in out


def test_a_spec_that_cannot_be_read_exits_2_with_one_line_naming_it(tmp_path: Path, capsys):
    path = _write(tmp_path, {**TWO_ACTIONS, "horizon": 3})
    assert main(["--spec", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: --spec: {path}: spec: horizon is 3 but there are 2 layers\n"


def test_the_shipped_specs_are_what_kinematic_family_writes():
    assert load_spec(EXAMPLES / "figure2-split.json").start.tolist() == \
        figure2_split().start.tolist()
    assert (EXAMPLES / "combolock-H3-K2.json").read_text() == \
        dumps_spec(combination_lock(3, 2, 0)) + "\n"


def test_a_crash_while_deriving_the_instances_is_a_violation_of_that_claim_only(monkeypatch):
    def crash(mdp):
        raise ZeroDivisionError("deliberately")

    monkeypatch.setitem(PLANS, "def:fki", crash)
    reports = proofs_checks.check(figure2_split(), 1, ["def:bki", "def:fki"])
    assert [(r.status, r.violations, r.failed) for r in reports] == [
        ("checked", 0, False), ("checked", 1, True)]
    assert reports[1].witness == {"exception": "ZeroDivisionError: deliberately",
                                  "while": "deriving the instances from the MDP"}


def test_python_m_proofs_checks_spec_runs_on_the_shipped_lock(tmp_path: Path):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("HYPOTHESIS_STORAGE_DIRECTORY", "MUTANT_UNDER_TEST")}
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [environment.get("PYTHONPATH")])])
    result = subprocess.run(
        [sys.executable, "-m", "proofs_checks", "--spec", "examples/combolock-H3-K2.json",
         "--examples", "1", "--only", "def:ki", "prop:bernstein"],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Block MDP combolock-H3-K2-seed0 from examples/combolock-H3-K2.json")
    assert lines[1].startswith("  (an instance: the MDP with the policies, covers, priors")
    assert lines[3].split()[:4] == ["def:ki", "1", "0", "yes"]
    assert lines[4].startswith("prop:bernstein") and "skipped: needs generated families" in lines[4]
