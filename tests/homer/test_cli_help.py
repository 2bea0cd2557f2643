"""``python -m homer SUBCOMMAND --help`` states every option's default, once."""

import argparse

import pytest

from homer import cli


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in cli._parser()._actions
                  if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if a.option_strings and not isinstance(a, argparse._HelpAction)]


@pytest.mark.parametrize("name", ["run", "compare", "evaluate", "sweep", "counterexamples",
                                  "objectives"])
def test_every_option_with_a_default_shows_it_once(name):
    parser = subcommands()[name]
    text = " ".join(parser.format_help().split())  # lines unwrapped
    given = {a for group in parser._mutually_exclusive_groups if group.required
             for a in group._group_actions}  # one of them must be given
    shown = 0
    for action in options(parser):
        if action.required or action in given or action.default is False:  # or a switch
            continue
        shown += 1
        if action.default is None:  # said in words: what happens without the option
            assert "(default: " in action.help, action.option_strings
        else:
            assert f"(default: {action.default})" in text, action.option_strings
    assert text.count("(default: ") == shown


def _help_text(capsys, command: str) -> str:
    """``python -m homer COMMAND --help``'s text (exit status 0), whitespace collapsed."""
    with pytest.raises(SystemExit) as stop:
        cli.main([command, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_the_help_of_run_shows_the_capacities_and_the_switch_to_allow_small_ones(capsys):
    text = _help_text(capsys, "run")
    assert "most backward-KI classes of one layer of the MDP; an int >= 2 (default: 2)" in text
    assert ("--allow-small-capacity Run even when a capacity is below the most backward- or "
            "forward-KI classes of a layer") in text


def test_the_help_of_evaluate_says_what_it_does_and_names_the_python_api(capsys):
    text = _help_text(capsys, "evaluate")
    assert "Score a state abstraction phi(observations, step) -> classes" in text
    assert ("homer.evaluate.evaluate_abstraction(mdp, phi) and "
            "homer.policy_evaluation.evaluate_policies(mdp, policies), torch-free") in text
    assert "given the --spec MDP as mdp= if it has a parameter mdp" in text


def test_the_help_of_run_spells_out_gps():
    text = " ".join(subcommands()["run"].format_help().split())
    assert "--gps-epsilon GPS_EPSILON Greedy policy search (GPS; Section 4" in text
