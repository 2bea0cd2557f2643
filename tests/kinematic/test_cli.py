"""``python -m kinematic``: its subcommands, output formats, exit statuses and help."""

import json
import subprocess
import sys

import pytest

from kinematic.cli import main
from tests.kinematic.test_analysis import REWARDED_SPEC
from tests.kinematic.test_homing import MIDPOINT_SPEC


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kinematic", *args], capture_output=True, text=True, check=False
    )


def test_a_lock_seed_homer_could_not_use_is_refused_naming_the_range(capsys):
    # homer run --lock-seed takes what torch's generators take; a lock written here must be one
    # that homer run can build again
    with pytest.raises(SystemExit) as stop:
        main(["family", "combolock", "--seed", str(2**64)])
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(
        f"error: argument --seed: must be an int in [0, {2**64 - 1}], got '{2**64}'\n")


def test_family_then_analyze_json(tmp_path):
    spec = tmp_path / "lock.json"
    assert main(["family", "combolock", "--horizon", "10", "--actions", "10", "--seed", "0",
                 "--out", str(spec)]) == 0
    result = run("analyze", str(spec), "--json")
    assert result.returncode == 0, result.stderr
    analysis = json.loads(result.stdout)
    assert analysis["eta_min"] == "1/2"
    assert analysis["eta"]["s5c"] == "1"
    assert analysis["n_bd"] == 1 + 2 * 9
    assert analysis["per_layer"][0] == {
        "layer": 1, "states": 2, "n_bd": 1, "n_fd": 2, "n_kd": 2, "eta_min": "1/2"
    }
    assert {"layer": 2, "states": ["s2a", "s2b"]} in analysis["partitions"]["backward"]
    assert analysis["n_kd"] == len(analysis["partitions"]["ki"])
    assert sum(len(layer) for layer in analysis["canonical"]["layers"]) == analysis["n_kd"]
    assert "homing_policies" not in analysis


def test_policies_are_opt_in_and_readable_report(tmp_path, capsys):
    spec = tmp_path / "fig2.json"
    assert main(["family", "figure2", "--split", "--out", str(spec)]) == 0
    assert main(["analyze", str(spec), "--json", "--policies"]) == 0
    analysis = json.loads(capsys.readouterr().out)
    assert analysis["homing_policies"]["s3"] == {"s1": "a", "s2a": "a", "s2b": "a"}
    assert analysis["partitions"]["ki"] == [{"layer": 1, "states": ["s1"]},
                                            {"layer": 2, "states": ["s2a", "s2b"]},
                                            {"layer": 3, "states": ["s3"]}]
    assert main(["analyze", str(spec)]) == 0
    report = capsys.readouterr().out
    assert "\nKI blocks with more than one state: layer 2: {s2a, s2b}\n" in report
    assert "\ncanonical form: 3 states (from 4), merged: s2a+s2b <- s2a, s2b\n" in report


def test_eta_error_flag_bounds_float_eta_and_is_refused_for_exact_specs(tmp_path, capsys):
    """``--eta-error 0.1`` on an MDP whose layer-2 values (0.4, 0.6) lie within 2 * 0.1: eta(t)
    is their midpoint 0.5, within 0.1 of 0.6 - 2e-7; the default bound computes it in full."""
    spec = tmp_path / "midpoint.json"
    spec.write_text(json.dumps(MIDPOINT_SPEC))
    assert main(["analyze", str(spec), "--json", "--eta-error", "0.1"]) == 0
    loose = json.loads(capsys.readouterr().out)
    assert loose["eta"]["t"] == pytest.approx(0.5, abs=1e-12) and loose["eta_error"] == 0.1
    assert main(["analyze", str(spec), "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert default["eta"]["t"] == pytest.approx(0.6 - 2e-7, abs=1e-12)
    assert default["eta_error"] == pytest.approx(1e-12)
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", str(spec), "--eta-error", "-1"])
    assert exit_info.value.code == 2 and "--eta-error" in capsys.readouterr().err
    lock = tmp_path / "lock.json"
    assert main(["family", "combolock", "--horizon", "3", "--out", str(lock)]) == 0
    assert main(["analyze", str(lock), "--eta-error", "0.1"]) == 2
    assert "exact" in capsys.readouterr().err


def test_bad_input_exits_2_with_the_culprit(tmp_path):
    spec = tmp_path / "bad.json"
    spec.write_text(json.dumps({"name": "x", "horizon": 1, "actions": ["a"], "layers": [["s"]],
                                "start": {"s": "1/2"}, "transitions": {}}))
    result = run("analyze", str(spec))
    assert result.returncode == 2
    assert "start sums to 1/2, not 1" in result.stderr
    missing = run("analyze", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "nope.json" in missing.stderr


def test_ctrl_c_exits_130_with_one_line(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    spec = tmp_path / "lock.json"
    assert main(["family", "combolock", "--horizon", "3", "--actions", "2", "--out",
                 str(spec)]) == 0
    monkeypatch.setattr("kinematic.commands.analyze", interrupted)
    assert main(["analyze", str(spec)]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        "error: interrupted before the command finished; rerun it to start again\n")


def test_analyze_reports_v_star_and_the_optimal_policy_in_json(tmp_path, capsys):
    spec = tmp_path / "rewarded.json"
    spec.write_text(json.dumps(REWARDED_SPEC))
    assert main(["analyze", str(spec), "--json", "--policies"]) == 0
    analysis = json.loads(capsys.readouterr().out)
    assert analysis["optimal_value"] == "3/2"
    assert analysis["optimal_policy"][1] == {
        "layer": 2, "decisions": {"s2a": "right", "y": "left", "z": "right"}}


@pytest.mark.parametrize(("flag", "first_line"), [
    ("--markdown", "**Block MDP rewarded** (horizon 2, 3 states, exact arithmetic): "
                   "eta_min = 2/3, N_BD = 3, N_FD = 2, N_KD = 3, V\\* = 3/2"),
    ("--latex", "% python -m kinematic analyze: Block MDP rewarded (horizon 2, 3 states, exact "
                "arithmetic)"),
])
def test_markdown_and_latex_flags_print_the_tables(tmp_path, capsys, flag, first_line):
    spec = tmp_path / "rewarded.json"
    spec.write_text(json.dumps(REWARDED_SPEC))
    assert main(["analyze", str(spec), flag]) == 0
    assert capsys.readouterr().out.split("\n")[0] == first_line


@pytest.mark.parametrize(("flag", "row"), [
    ("--markdown", "| 1 | {s1a, s1b} | 2 singletons | 2 singletons |"),
    ("--latex", "1 & \\{$s_{1a}$, $s_{1b}$\\} & 2 singletons & 2 singletons \\\\"),
])
def test_merged_only_lists_the_merged_blocks_and_counts_the_singletons(tmp_path, capsys, flag,
                                                                       row):
    assert main(["family", "combolock", "--horizon", "3", "--actions", "2",
                 "--out", str(tmp_path / "lock.json")]) == 0
    assert main(["analyze", str(tmp_path / "lock.json"), flag, "--merged-only"]) == 0
    assert row in capsys.readouterr().out.split("\n")


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_merged_only_without_a_table_is_refused_before_the_spec_is_read(tmp_path, capsys, output):
    assert main(["analyze", str(tmp_path / "missing.json"), *output, "--merged-only"]) == 2
    assert capsys.readouterr().err == (
        "error: --merged-only applies to --markdown and --latex only\n")


def test_output_flags_are_mutually_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["analyze", str(tmp_path / "any.json"), "--json", "--latex"])
    assert stop.value.code == 2
    assert "argument --latex: not allowed with argument --json" in capsys.readouterr().err


def help_text(capsys, argv: list[str], command=main) -> str:
    """``--help`` of a command line, with whitespace runs (argparse's wrapping) made one space."""
    with pytest.raises(SystemExit) as stop:
        command([*argv, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(("argv", "defaults"), [
    (["analyze"], ["--atol ATOL tolerance of float-mode specs: a finite number in [0, 0.001] "
                   "(default: 1e-09)",
                   "--eta-error ETA_ERROR float-mode specs: bound on the error of every eta "
                   "(default: 1e-3 atol);"]),
    (["family"], ["combolock, gymnasium: H (default: 10)", "combolock: K (default: 10)",
                  "seed of u, v (default: 0)", "V* = 4 (default: paper)",
                  "like s2a|0101 (default: none)",
                  "(default: 1/10, Intrepid's exo_flip_prob)", "repeatable (default: none)",
                  "simple fraction (default: auto)", "(default: standard output)"]),
    (["find-counterexample"], ["(0, 1] (default: 1/2)", "(default: 3000)",
                               "(default: only printed)", "(default: not written)"]),
])
def test_help_shows_each_default_once_and_none_or_false_never(capsys, argv, defaults):
    text = help_text(capsys, argv)
    for default in defaults:
        assert default in text
    assert text.count("default") == len(defaults)
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "shared/" not in text and "issue" not in text  # no file or tracker outside


def test_output_whose_reader_went_away_ends_quietly_with_the_sigpipe_status():
    # As under `| head -1`: the reader closes the pipe (here before the command starts writing:
    # importing numpy takes far longer than the close), which is no input error.
    process = subprocess.Popen(
        [sys.executable, "-m", "kinematic", "family", "figure2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == ""
