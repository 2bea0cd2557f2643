"""``python -m kinematic objectives SPEC``: every objective's exact abstraction of a user's spec
against backward KI, KI and (with a declared factorisation) the endogenous partition."""

import json
import re

from kinematic.cli import main

CELL = re.compile(r"(?<!\\)\|")
"""A cell boundary of a Markdown table: a ``|`` not escaped (state names hold ``|``)."""


def lock_spec(tmp_path, *exogenous: str):
    path = tmp_path / "lock.json"
    assert main(["family", "combolock", "--horizon", "3", "--actions", "2", "--seed", "0",
                 *exogenous, "--out", str(path)]) == 0
    return path


def test_a_declared_factorisation_adds_the_endogenous_column(tmp_path, capsys):
    path = lock_spec(tmp_path, "--exogenous-bits", "1", "--flip", "1/10")
    capsys.readouterr()
    assert main(["objectives", str(path), "--objective", "multistep_inverse",
                 "--objective", "action_forward"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("| objective | classes h=2.. | vs backward KI | vs KI | "
                        "vs endogenous |")
    rows = [[cell.strip() for cell in CELL.split(line)[1:-1]] for line in lines[2:4]]
    assert [len(row) for row in rows] == [5, 5]  # the state names' | escaped
    assert [row[0] for row in rows] == ["multistep_inverse", "action_forward"]
    # the multi-step inverse drops the noise bit that has memory: it merges what KI separates
    assert rows[0][3] == r"h=2 merges s2a\|0, s2a\|1; h=3 merges s3a\|0, s3a\|1"


def test_blocks_lists_the_classes_and_json_holds_them_with_the_witnesses(tmp_path, capsys):
    path = lock_spec(tmp_path, "--exogenous-bits", "1", "--flip", "1/10")
    capsys.readouterr()
    assert main(["objectives", str(path), "--objective", "multistep_inverse", "--blocks"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "- multistep_inverse, h=3: {s3a|0, s3a|1, s3b|0, s3b|1} / {s3c|0, s3c|1}")
    assert main(["objectives", str(path), "--objective", "multistep_inverse", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["objectives"]["multistep_inverse"]
    assert entry["blocks"][0] == [["s2a|0", "s2a|1", "s2b|0", "s2b|1"], ["s2c|0", "s2c|1"]]
    assert entry["cells"]["endogenous"]["witnesses"][0] == {"merged": ["s2a|0", "s2b|0"],
                                                            "split": None}


def test_json_lists_every_objective_without_an_endogenous_column_for_a_plain_spec(
        tmp_path, capsys):
    path = lock_spec(tmp_path)
    capsys.readouterr()
    assert main(["objectives", str(path), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["references"] == ["backward KI", "KI"]
    assert list(table["objectives"]) == [
        "inverse_dynamics", "pcid_target", "multistep_inverse_k2", "multistep_inverse",
        "ppe_path_prediction", "forward_modelling", "temporal_contrast", "action_forward",
        "ac_state", "acdf"]
    inverse = table["objectives"]["inverse_dynamics"]
    assert inverse["classes"] == [2, 2] and inverse["cells"]["backward KI"]["recovers"]
    assert table["objectives"]["multistep_inverse_k2"]["classes"] == [None, 2]
    assert table["objectives"]["multistep_inverse_k2"]["not_solved"] == {
        "2": "not defined: its gap reaches back 2 layers"}


def test_an_unknown_objective_and_a_float_spec_exit_2_naming_them(tmp_path, capsys):
    path = lock_spec(tmp_path)
    capsys.readouterr()
    assert main(["objectives", str(path), "--objective", "curiosity"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: objectives: unknown 'curiosity'")
    assert "; known: inverse_dynamics, pcid_target, multistep_inverse_k2," in error
    assert main(["objectives", str(path), "--objective", "ppe"]) == 2  # homer's name for it
    assert "unknown 'ppe' (did you mean 'ppe_path_prediction'?)" in capsys.readouterr().err
    floats = tmp_path / "floats.json"
    floats.write_text(json.dumps({"name": "floats", "horizon": 2, "actions": ["a"],
                                  "layers": [["s"], ["t"]], "start": {"s": 1.0},
                                  "transitions": {"s": {"a": {"t": 1.0}}}}))
    assert main(["objectives", str(floats)]) == 2
    assert "floats.json: a probability is a float" in capsys.readouterr().err


def test_the_table_says_what_its_columns_mean_and_names_each_objective(tmp_path, capsys):
    path = lock_spec(tmp_path)
    capsys.readouterr()
    assert main(["objectives", str(path), "--objective", "inverse_dynamics", "--objective",
                 "ppe_path_prediction"]) == 0
    printed = capsys.readouterr().out
    assert "merges x, y (x and y in one class of the objective, apart in the reference)" in printed
    assert printed.splitlines()[-2:] == [
        "- inverse_dynamics: inverse dynamics (one step) - Pathak et al. 2017 (curiosity); "
        "paper, Section 5",
        "- ppe_path_prediction: PPE's path prediction - Efroni, Misra, Krishnamurthy, Agarwal, "
        "Langford 2022 (PPE)"]
