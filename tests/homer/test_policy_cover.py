"""A policy cover is read and checked in one place (:func:`homer.policy_evaluation.read_cover`)
for ``homer evaluate --policies``, ``homer compare`` and ``evaluate_policies``: a cover that
leaves steps after the first without policies is scored on the steps it covers, the report
names the steps without, and its smallest alpha is not defined (not the smallest over the
covered steps, as if they were all); a cover without any policy is an error."""

import json
from pathlib import Path

import numpy as np
import pytest

from homer.cli import main
from homer.compare import compare_run, format_summary
from homer.policy_evaluation import evaluate_policies, read_cover
from homer.summary import cover_lines
from kinematic.families import combination_lock
from kinematic.spec import dumps_spec
from tests.homer.handmade import lock, perfect_artefacts


def first(observations: np.ndarray, step: int) -> np.ndarray:
    return np.zeros(len(observations), dtype=int)


POLICIES = '''
import numpy as np


def first(observations, step):
    return np.zeros(len(observations), dtype=int)


only_step_1 = {1: [first]}
steps_1_and_3 = {1: [first], 3: [first]}
nothing = {}
empty_list = []
empty_covers = {2: [], 3: []}
'''


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "lock.json").write_text(dumps_spec(combination_lock(3, 2, 0)))
    (tmp_path / "mine.py").write_text(POLICIES)
    return tmp_path


def evaluate(capsys, files: Path, name: str, *more: str) -> tuple[int, str, str]:
    code = main(["evaluate", "--spec", str(files / "lock.json"), "--samples", "4",
                 "--abstraction", "oracle", "--policies", f"{files / 'mine.py'}:{name}", *more])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_cover_of_step_1_alone_says_steps_2_and_3_have_none(capsys, files):
    """Kills the report that scored step 1 only and called its alpha 1 the cover's."""
    code, out, err = evaluate(capsys, files, "only_step_1")
    assert code == 0, err
    lines = out.splitlines()
    assert "policy cover: alpha not defined - steps 2-3 have no policies" in lines
    assert not any("horizon 1" in line for line in lines)
    code, out, err = evaluate(capsys, files, "only_step_1", "--json")
    cover = json.loads(out)["cover"]
    assert cover["alpha_min"] is None and cover["uncovered_steps"] == [2, 3]
    assert [s["step"] for s in cover["steps"]] == [1]


def test_a_cover_with_a_gap_names_the_gap_and_scores_the_rest(capsys, files):
    code, out, err = evaluate(capsys, files, "steps_1_and_3")
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("policy cover: alpha not defined - step 2 has no policies")
    assert lines[at + 1] == "  the steps with policies: alpha 0.250 at step 3"


@pytest.mark.parametrize("name", ["nothing", "empty_list", "empty_covers"])
def test_a_cover_without_any_policy_is_a_one_line_error(capsys, files, name):
    """Kills the traceback of ``max()`` over no values, and a report with nothing in it."""
    code, out, err = evaluate(capsys, files, name)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"error: --policies {files / 'mine.py'}:{name}: no policies for any "
                          "step")


def test_the_python_api_reads_covers_as_the_command_does():
    mdp = combination_lock(3, 2, 0)
    whole = evaluate_policies(mdp, [first], samples=2)
    assert whole.uncovered == [] and whole.alpha_min == 0.25
    assert whole.to_json()["uncovered_steps"] == []
    partial = evaluate_policies(mdp, {1: [first], 3: [first]}, samples=2)
    assert partial.uncovered == [2] and partial.alpha_min is None
    assert [s["step"] for s in partial.steps] == [1, 3]
    assert repr(partial) == ("<CoverReport on 'combolock-H3-K2-seed0': no alpha: no policies "
                             f"for step 2; best value {max(partial.values):.3f} of V* 1.000>")
    only_first = evaluate_policies(mdp, {1: [first]}, samples=2)
    assert repr(only_first).startswith("<CoverReport on 'combolock-H3-K2-seed0': no alpha: no "
                                       "policies for steps 2-3; best value ")
    # an empty list is no policy: the same as a step left out
    assert evaluate_policies(mdp, {2: [], 3: [first]}, samples=2).uncovered == [2]
    # step 1 needs none: its alpha is 1 whatever the policies
    assert evaluate_policies(mdp, {2: [first], 3: [first]}, samples=2).alpha_min == 0.25
    for empty in ({}, [], {1: [], 2: []}):
        with pytest.raises(ValueError, match=r"^policies: no policies for any step"):
            evaluate_policies(mdp, empty, samples=2)


def test_read_cover_keeps_each_policy_once_and_where_it_was_found():
    mdp = combination_lock(3, 2, 0)

    def other(observations: np.ndarray, step: int) -> np.ndarray:
        return np.ones(len(observations), dtype=int)

    cover = read_cover(mdp, {3: [other, first], 2: [first]}, "mine")
    assert cover.policies == [first, other]
    assert cover.names == ["mine[2][0]", "mine[3][0]"]
    assert cover.steps == {2: [0], 3: [1, 0]} and cover.uncovered == []
    listed = read_cover(mdp, [first, other], "mine")
    assert listed.names == ["mine[0]", "mine[1]"] and listed.steps == {1: [0, 1], 2: [0, 1],
                                                               3: [0, 1]}


def test_a_stopped_run_has_no_alpha_and_says_which_steps_it_never_learned():
    """A run stopped after learning step 2 of 4: kills the alpha of steps 1-2 reported as the
    cover's."""
    mdp = lock()
    artefacts = perfect_artefacts(mdp, covers=perfect_artefacts(mdp).covers[:2], policy=None)
    report = compare_run(artefacts, samples=4, transitions=100)
    assert report.uncovered == [3, 4] and report.alpha_min is None
    document = report.to_json()
    assert document["alpha_min"] is None and document["uncovered_steps"] == [3, 4]
    assert ("policy cover: alpha not defined - steps 3-4 have no policies (the run stopped "
            "before learning them)") in format_summary(report).splitlines()
    whole = compare_run(perfect_artefacts(mdp), samples=4, transitions=100)
    assert whole.uncovered == [] and whole.alpha_min == 1.0


def test_cover_lines_name_the_steps_without_policies():
    scored = [{"step": 1, "alpha_min": 1.0}, {"step": 3, "alpha_min": 0.5},
              {"step": 5, "alpha_min": 0.25}]
    assert cover_lines(scored, [2, 4, 6]) == [
        "policy cover: alpha not defined - steps 2, 4, 6 have no policies",
        "  the steps with policies: smallest alpha 0.250 at step 5 of steps 3, 5",
        "  alpha of a step: min over its states s of max_{pi in cover} P_pi(s) / eta(s) "
        "(def:policy-cover)"]
    assert cover_lines(scored[:1], [2], " (why)")[0] == (
        "policy cover: alpha not defined - step 2 has no policies (why)")
    assert cover_lines(scored[:1], list(range(2, 101)))[0] == (
        "policy cover: alpha not defined - steps 2-100 have no policies")
    assert cover_lines(scored[:1], []) == ["policy cover: horizon 1 (step 1 needs no policy)"]
