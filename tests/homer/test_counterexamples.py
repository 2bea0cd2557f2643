"""``python -m homer counterexamples``: every failing objective of Section 5 fails on rich
observations as the exact analysis predicts, and HOMER succeeds on the same MDPs (at a small
budget: 1,000 transitions per step)."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from homer.cli import main
from homer.config import HomerConfig
from homer.counterexamples import (
    CASES,
    learned_partitions,
    run_case,
    run_counterexamples,
)
from kinematic.counterexamples.mdps import (
    autoencoder_exploration_counterexample,
    curiosity_counterexample,
)
from kinematic.spec import dumps_spec

FIELDS = {"name", "objective", "alpha_min", "steps_with_wrong_merges", "value",
          "exact_prediction", "homer_alpha_min", "homer_steps_with_wrong_merges", "seconds"}
SMALL = HomerConfig(transitions=1000, max_transitions=1000)


def _verdicts(out: Path, capsys: pytest.CaptureFixture[str], *cases: str) -> list[dict]:
    """The ``counterexamples`` command's JSON rows (all cases when none are named), after
    checking every row's fields and verdict."""
    selection = ["--cases", ",".join(cases)] if cases else []
    status = main(["counterexamples", "--out", str(out), "--transitions", "1000", "--json",
                   *selection])
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 0, rows
    for row in rows:
        assert set(row) >= FIELDS
        assert row["fails_as_predicted"] and row["homer_succeeds"], row
        assert row["homer_alpha_min"] >= 0.5 and row["homer_steps_with_wrong_merges"] == 0
    assert json.loads((out / "table.json").read_text()) == rows
    return rows


def test_curiosity_and_autoencoder_fail_as_the_paper_says_and_homer_succeeds(tmp_path, capsys):
    """The default tier's share of the table: the paper's two named failures."""
    rows = _verdicts(tmp_path, capsys, "curiosity", "autoencoder")
    by_name = {row["name"]: row for row in rows}
    assert list(by_name) == ["curiosity", "autoencoder"]
    # the paper's failure itself: {s7, s8} merged, s8 never reached
    assert by_name["curiosity"]["learned_classes"][2] == [["s7", "s8"], ["s9"]]
    assert by_name["curiosity"]["alpha_min"] <= 0.05
    assert by_name["autoencoder"]["steps_with_wrong_merges"] == 1
    # the rows' classes as partitions: the autoencoder mixes s0 and s1, HOMER does not
    objective, homer = learned_partitions(autoencoder_exploration_counterexample(),
                                          by_name["autoencoder"])
    assert objective.blocks(2) == [["s0", "s1"]]
    assert homer.blocks(2) == [["s0"], ["s1"]]


@pytest.mark.slow
def test_every_objective_fails_as_predicted_and_homer_succeeds(tmp_path, capsys):
    rows = _verdicts(tmp_path, capsys)
    names = [row["name"] for row in rows]
    assert names[:5] == ["curiosity", "pcid_target", "pcid_model_based", "autoencoder",
                         "bisimulation"]
    assert "found_inverse_dynamics" in names


def test_the_verdict_fails_for_an_objective_that_does_not_fail(tmp_path):
    """Control: HOMER's own objective in the autoencoder's row keeps the states apart, so the
    row is not 'as predicted'."""
    autoencoder = next(case for case in CASES if case.name == "autoencoder")
    row = run_case(replace(autoencoder, objective="contrastive"), tmp_path, SMALL, 0, {})
    assert row["steps_with_wrong_merges"] == 0
    assert not row["fails_as_predicted"]


def test_unknown_cases_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="curiousity"):
        run_counterexamples(tmp_path, SMALL, names=["curiousity"])


def test_run_takes_an_objective_and_compare_reads_its_directory(tmp_path, capsys):
    spec = tmp_path / "curiosity.json"
    spec.write_text(dumps_spec(curiosity_counterexample()))
    out = tmp_path / "run"
    assert main(["run", "--spec", str(spec), "--objective", "one_class", "--out", str(out),
                 "--json"]) == 0
    assert json.loads((out / "config.json").read_text())["config"]["objective"] == "one_class"
    capsys.readouterr()
    assert main(["compare", str(out), "--json", "--samples", "50"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # one class per layer merges backward-KI classes at both learned steps
    assert report["steps_with_wrong_merges_by_abstraction"]["backward"] == 2


def test_a_planted_link_as_the_table_is_refused_before_any_case_runs(tmp_path, capsys):
    outside = tmp_path / "outside.json"
    outside.write_text("not yours")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "table.json").symlink_to(outside)
    assert main(["counterexamples", "--out", str(tmp_path / "out"), "--cases", "curiosity"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {tmp_path / 'out' / 'table.json'}: a symbolic link where HOMER keeps its own "
        "regular file; refused (it could point anywhere): remove it"]
    assert outside.read_text() == "not yours"
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["table.json"]  # nothing ran


@pytest.mark.parametrize("planted", ["curiosity", "homer-curiosity"])
def test_a_planted_link_as_a_case_directory_is_refused_before_any_case_runs(tmp_path, capsys,
                                                                           planted):
    # each case runs HOMER with force=True in its directory: through a link it would replace
    # (and delete) another directory's files
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text("not yours")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / planted).symlink_to(outside)
    assert main(["counterexamples", "--out", str(tmp_path / "out"), "--cases", "curiosity"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {tmp_path / 'out' / planted}: a symbolic link where HOMER keeps its own "
        "directory; refused (it could point anywhere): remove it"]
    assert [p.name for p in outside.iterdir()] == ["config.json"]
    assert (outside / "config.json").read_text() == "not yours"


def test_settings_too_large_for_the_machine_name_the_flag_of_this_command(tmp_path, capsys):
    assert main(["counterexamples", "--out", str(tmp_path / "out"), "--cases", "curiosity",
                 "--transitions", str(10**12)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: HOMER with --max-transitions ")
    assert error.endswith(f"(here --transitions {10**12} sets both transitions and "
                          "max_transitions)\n")
