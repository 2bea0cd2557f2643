"""``python -m proofs_checks``'s output flags: ``--json`` and ``--markdown`` each replace the
line per claim, so together they are refused before any claim runs (once both printed, one
after the other, neither parseable)."""

import json

import pytest

from proofs_checks.cli import main

ONE_CLAIM = ["--examples", "1", "--only", "lem:bki-ratio"]


def test_json_and_markdown_together_exit_2_naming_both_before_any_claim_runs(capsys):
    with pytest.raises(SystemExit) as stop:
        main([*ONE_CLAIM, "--json", "--markdown"])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "python -m proofs_checks: error: argument --markdown: not allowed with argument --json")


def test_json_alone_prints_one_json_list_and_nothing_else(capsys):
    assert main([*ONE_CLAIM, "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [report["label"] for report in reports] == ["lem:bki-ratio"]
