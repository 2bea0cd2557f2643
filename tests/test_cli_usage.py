"""An argument error of ``python -m homer``, ``kinematic`` or ``proofs_checks`` ends with its
one error line after at most :data:`kinematic.cli.USAGE_LINES` lines of usage: a long usage
(``homer run`` has 30 lines of options) is replaced by one line naming the positional arguments
and pointing to ``--help``. Fails with argparse's own ``error``, which prints the whole usage."""

from __future__ import annotations

import pytest

from homer import cli as homer_cli
from kinematic import cli as kinematic_cli
from kinematic.cli import USAGE_LINES
from proofs_checks import cli as proofs_checks_cli
from tests.test_cli_startup import command_lines

MAINS = {"homer": homer_cli.main, "kinematic": kinematic_cli.main,
         "proofs_checks": proofs_checks_cli.main}


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse wraps its usage to the terminal's width (``COLUMNS``)."""
    monkeypatch.setenv("COLUMNS", "80")


def error_of(program: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        MAINS[program](argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("program", sorted(MAINS))
def test_every_argument_error_is_short_and_ends_with_the_error(program, capsys):
    errors = [argv for argv in command_lines(program) if "--help" not in argv]
    assert len(errors) >= 4
    for argv in errors:
        lines = error_of(program, argv, capsys).splitlines()
        assert 2 <= len(lines) <= USAGE_LINES + 1, (argv, lines)
        assert lines[0].startswith("usage: python -m ")
        assert ": error: " in lines[-1] and not any(": error: " in line for line in lines[:-1])


def test_a_long_usage_becomes_one_line_with_the_positional_arguments(capsys):
    assert error_of("homer", ["run", "--hidden", "-3"], capsys) == (
        "usage: python -m homer run [options]  (python -m homer run --help lists them)\n"
        "python -m homer run: error: argument --hidden: must be an int >= 1, got '-3'\n")
    assert error_of("homer", ["compare"], capsys).splitlines()[0] == (
        "usage: python -m homer compare [options] run_dir  (python -m homer compare --help "
        "lists them)")


def test_a_short_usage_is_printed_as_argparse_prints_it(capsys):
    lines = error_of("kinematic", ["objectives", "spec.json", "--objective"], capsys).splitlines()
    assert lines[0].startswith("usage: python -m kinematic objectives [-h] [--objective NAME]")
    assert lines[-1] == ("python -m kinematic objectives: error: argument --objective: expected "
                         "one argument")
