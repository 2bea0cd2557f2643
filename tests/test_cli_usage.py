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


@pytest.mark.parametrize(("program", "argv", "error"), [
    ("kinematic", ["analyze", "spec.json", "--latx"],
     "python -m kinematic analyze: error: unrecognized arguments: --latx (did you mean --latex "
     "for --latx?)"),
    ("kinematic", ["--jsn", "analyze", "spec.json"],
     "python -m kinematic analyze: error: unrecognized arguments: --jsn (did you mean --json "
     "for --jsn?)"),
    ("homer", ["evaluate", "--spec", "s.json", "--abstracton", "kmeans"],
     "python -m homer evaluate: error: the following arguments are required: --abstraction "
     "(did you mean --abstraction for --abstracton?)"),
    ("homer", ["run", "--env", "combolock", "--out", "o", "--hiden=3", "--lerning-rate", "2"],
     "python -m homer run: error: unrecognized arguments: --hiden=3 --lerning-rate 2 (did you "
     "mean --hidden for --hiden, --learning-rate for --lerning-rate?)"),
    ("proofs_checks", ["--exampls", "3"],
     "python -m proofs_checks: error: unrecognized arguments: --exampls 3 (did you mean "
     "--examples for --exampls?)"),
    ("homer", ["run", "--env", "combolock", "--out", "o", "--zzzzzz"],
     "python -m homer run: error: unrecognized arguments: --zzzzzz"),
], ids=["a subcommand's flag", "before the subcommand", "a required flag misspelt",
        "two at once", "no subcommand", "nothing close"])
def test_a_misspelt_flag_is_its_subcommands_error_with_the_closest_flag(program, argv, error,
                                                                          capsys):
    """argparse reported a subcommand's unknown flag as the program's, under the program's
    usage, and suggested nothing."""
    assert error_of(program, argv, capsys).splitlines()[-1] == error
