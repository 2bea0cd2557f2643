"""The user's code named by ``homer evaluate --abstraction`` / ``--policies`` misbehaving: a
file that parses the command line or exits when imported, a ``BaseException`` raised when
called, ragged or out-of-range results, a path that does not print on one line, an absurd
``--capacity``. Each is a one-line error naming the flag and the user's code, exit status 2."""

from pathlib import Path

import numpy as np
import pytest

from homer.cli import main
from homer.evaluate import learned_classes
from homer.reference_learners import reference_abstraction
from homer.user_code import UserCodeError, load_abstraction, load_object
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec

ARGPARSE_AT_IMPORT = '''
import argparse

parser = argparse.ArgumentParser(prog="train")
parser.add_argument("--epochs", required=True)
parser.parse_args()


def phi(observations, step):
    return [0] * len(observations)
'''

CALLS = '''
import sys

import numpy as np


class Stop(BaseException):
    pass


def exits(observations, step):
    sys.exit("bye")


def stops(observations, step):
    raise Stop("custom")


def generator_exit(observations, step):
    raise GeneratorExit


def multiline(observations, step):
    raise ValueError("first\\nsecond")


def ragged(observations, step):
    return [[0, 1]] + [0] * (len(observations) - 1)


def ragged_rows(observations, step):
    return [[0.5, 0.5]] * (len(observations) - 1) + [[1.0]]


def second_row_out_of_range(observations, step):
    actions = np.zeros(len(observations), dtype=int)
    actions[1] = 7
    return actions


def interrupted(observations, step):
    raise KeyboardInterrupt


def policies_exit(mdp):
    raise SystemExit(4)
'''


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "lock.json").write_text(dumps_spec(combination_lock(3, 2, 0)))
    (tmp_path / "train.py").write_text(ARGPARSE_AT_IMPORT)
    (tmp_path / "exit3.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "calls.py").write_text(CALLS)
    return tmp_path


def evaluate(capsys, files: Path, *arguments: str) -> tuple[int, str, str]:
    code = main(["evaluate", "--spec", str(files / "lock.json"), "--samples", "4",
                 *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    return err


def test_a_file_parsing_the_command_line_at_import_is_named_not_its_usage(capsys, files,
                                                                          monkeypatch):
    """Kills the exit with the script's own usage text and status. The file is named relative
    to the working directory, and the error names its line, not argparse's."""
    monkeypatch.chdir(files)
    err = one_line_error(*evaluate(capsys, files, "--abstraction", "train.py:phi"))
    assert err.startswith("error: --abstraction train.py:phi: importing train.py exited "
                          "(SystemExit 2) after writing 'train: error: the following arguments "
                          f"are required: --epochs' to stderr ({files}/train.py, line 6); ")
    assert "usage:" not in err
    assert "if __name__ == '__main__'" in err


def test_a_file_exiting_at_import_is_named_with_its_status(capsys, files):
    err = one_line_error(*evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                                   f"{files}/exit3.py:cover"))
    assert err.startswith(f"error: --policies {files}/exit3.py:cover: importing "
                          f"{files}/exit3.py exited (SystemExit 3")
    assert f"({files}/exit3.py, line 2)" in err


@pytest.mark.parametrize(("name", "raised"), [
    ("exits", "SystemExit: bye"), ("stops", "Stop: custom"),
    ("generator_exit", "GeneratorExit"), ("multiline", "ValueError: 'first\\nsecond'")])
def test_a_base_exception_of_a_call_is_named_as_the_calls(capsys, files, name, raised):
    """Kills letting SystemExit (the script's status) or a custom BaseException through, and
    a message printed over two lines."""
    err = one_line_error(*evaluate(capsys, files, "--abstraction", f"{files}/calls.py:{name}"))
    assert err.startswith(f"error: --abstraction {files}/calls.py:{name}(observations, 1) "
                          f"raised {raised}")
    err = one_line_error(*evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                                   f"{files}/calls.py:policies_exit"))
    assert err.startswith(f"error: --policies {files}/calls.py:policies_exit(BlockMDP) raised "
                          "SystemExit: 4")


def test_keyboard_interrupt_is_not_an_error_of_the_users_code(files):
    mdp = combination_lock(3, 2, 0)
    phi = load_abstraction(f"{files}/calls.py:interrupted", "--abstraction", mdp)
    with pytest.raises(KeyboardInterrupt):
        phi(np.zeros((2, 3)), 1)
    (files / "interrupts.py").write_text("raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        load_object(f"{files}/interrupts.py:phi", "--abstraction")


def test_a_ragged_abstraction_names_the_call_and_the_item(capsys, files):
    """Kills numpy's bare "setting an array element with a sequence"."""
    err = one_line_error(*evaluate(capsys, files, "--abstraction", f"{files}/calls.py:ragged"))
    assert err.startswith(f"error: --abstraction {files}/calls.py:ragged(observations, 1) "
                          "returned a list of 8 items that is not one integer class per row: "
                          "item 0 is [0, 1]")


def test_ragged_or_out_of_range_actions_name_the_policy_and_the_row(capsys, files):
    mine = f"{files}/calls.py"
    (files / "covers.py").write_text(
        "from calls import ragged_rows, second_row_out_of_range\n"
        "ragged = [ragged_rows]\nout_of_range = {2: [second_row_out_of_range]}\n")
    err = one_line_error(*evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                                   f"{files}/covers.py:ragged"))
    assert err.startswith(f"error: --policies {files}/covers.py:ragged[0](observations, 1) "
                          "returned a list of 8 items that is not one action per row nor one "
                          "row of action probabilities per row: item 7 is [1.0]")
    err = one_line_error(*evaluate(capsys, files, "--abstraction", "oracle", "--policies",
                                   f"{files}/covers.py:out_of_range"))
    assert err.startswith(f"error: --policies {files}/covers.py:out_of_range[2][0](observations,"
                          " 1) returned the action 7 at row 1: actions run 0..1")
    assert mine  # the neighbour module is imported from the file's directory


def test_learned_classes_reject_a_ragged_result_naming_the_item():
    with pytest.raises(ValueError, match=r"^phi\(observations, 2\) returned a tuple of 3 items "
                                         r"that is not one integer class per row: item 2 is "
                                         r"\(1, 2\)$"):
        learned_classes(lambda x, step: (0, 1, (1, 2)), np.zeros((3, 4)), 2)


def test_a_path_with_a_newline_is_shown_on_one_line(capsys, files):
    weird = files / "p\nq.py"
    weird.write_text("def phi(observations, step):\n    return {}['x']\n")
    err = one_line_error(*evaluate(capsys, files, "--abstraction", f"{weird}:phi"))
    assert repr(f"{weird}:phi") in err and repr(str(weird)) in err
    err = one_line_error(*evaluate(capsys, files, "--abstraction", f"{files}/no\nfile.py:phi"))
    assert repr(f"{files}/no\nfile.py:phi") in err
    with pytest.raises(UserCodeError) as raised:
        load_object("a\nb:phi", "--abstraction")
    assert "\n" not in str(raised.value)


def test_an_absurd_capacity_is_refused_naming_the_flag_and_the_range(capsys, files):
    """Kills numpy's "high is out of bounds for int64"."""
    with pytest.raises(SystemExit) as stop:
        evaluate(capsys, files, "--abstraction", "random", "--capacity", str(10**20))
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --capacity: must be an int in [1, 1000000000], got" in err
    with pytest.raises(ValueError, match=r"^capacity must be an int in \[1, 1000000000\]"):
        reference_abstraction("random", combination_lock(3, 2, 0), capacity=10**20)


def test_what_a_file_writes_to_stderr_while_imported_is_kept_when_it_imports(capsys, files):
    """Held back during the import only to name a failure: kills losing a user's warning."""
    (files / "chatty.py").write_text("import sys\nprint('loading phi', file=sys.stderr)\n"
                                     "def phi(observations, step):\n"
                                     "    return [0] * len(observations)\n")
    code, _, err = evaluate(capsys, files, "--abstraction", f"{files}/chatty.py:phi")
    assert code == 0 and err == "loading phi\n"


def test_a_file_asking_for_the_stderr_descriptor_at_import_still_imports(files):
    """The held-back stderr keeps the real one's descriptor: kills failing a legitimate
    ``faulthandler.enable()`` (io.UnsupportedOperation of a plain StringIO)."""
    import faulthandler
    (files / "handler.py").write_text("import faulthandler\nfaulthandler.enable()\n"
                                      "def phi(observations, step):\n"
                                      "    return [0] * len(observations)\n")
    try:
        phi = load_abstraction(f"{files}/handler.py:phi", "--abstraction",
                               combination_lock(3, 2, 0))
        assert phi(np.zeros((2, 3)), 1) == [0, 0]
    finally:
        faulthandler.disable()


def test_a_cover_read_for_another_horizon_is_refused():
    from homer.policy_evaluation import evaluate_policies, read_cover

    def first(observations, step):
        return np.zeros(len(observations), dtype=int)

    cover = read_cover(combination_lock(4, 2, 0), [first])
    with pytest.raises(ValueError, match=r"^policies: a cover read for horizon 4, not the 3 "
                                         r"steps of 'combolock-H3-K2-seed0'$"):
        evaluate_policies(combination_lock(3, 2, 0), cover, samples=2)
