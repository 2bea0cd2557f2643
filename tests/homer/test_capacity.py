"""A run checks its capacities against the MDP's exact N_BD and N_FD before any work: below
them it is refused (exit 2 on the command line) naming the dimension, the layer, both numbers
and the settings to change, unless ``allow_small_capacity`` asks for the experiment (one
warning line, recorded in the run's config)."""

import doctest
import json
import warnings

import pytest

import homer.capacity
import homer.wording
from homer.algorithm import run_homer
from homer.capacity import (
    CapacityTooSmall,
    SmallCapacityWarning,
    check_capacities,
    required_capacities,
)
from homer.cli import main
from homer.config import HomerConfig
from kinematic.families import combination_lock
from kinematic.spec import from_spec

TINY = ["--transitions", "100", "--max-transitions", "100", "--max-epochs", "2",
        "--min-epochs", "2", "--psdp-samples", "100", "--eval-samples", "50",
        "--evaluation-episodes", "50", "--json"]
"""A budget that runs the machinery, not the learning."""


def fan_out(width: int) -> dict:
    """One start state whose ``width`` actions lead to ``width`` distinct states: layer 2 has
    ``width`` backward-KI classes (distinct incoming columns) and one forward-KI class."""
    actions = [f"a{k}" for k in range(width)]
    targets = [f"x{k}" for k in range(width)]
    return {"name": f"fan-{width}", "horizon": 2, "actions": actions,
            "layers": [["s"], targets], "start": {"s": "1"},
            "transitions": {"s": {a: {x: "1"} for a, x in zip(actions, targets, strict=True)}},
            "rewards": {"x1": {"a0": "1"}}}


@pytest.fixture
def three_spec(tmp_path):
    path = tmp_path / "three.json"
    path.write_text(json.dumps(fan_out(3)))
    return path


def test_the_required_capacities_are_the_widest_layers_of_the_exact_partitions():
    needs = required_capacities(from_spec(fan_out(3)))
    backward, forward = needs["backward_capacity"], needs["forward_capacity"]
    assert (backward.dimension, backward.classes, backward.layer, backward.total) == (
        "N_BD", 3, 2, 4)
    assert (forward.dimension, forward.classes, forward.layer, forward.total) == (
        "N_FD", 1, 1, 2)


def test_a_backward_capacity_below_n_bd_is_refused_by_run_homer_before_any_file(tmp_path):
    with pytest.raises(CapacityTooSmall) as error:
        run_homer(from_spec(fan_out(3)), tmp_path / "run", progress=False)
    assert str(error.value) == (
        "'fan-3' has 3 backward-KI classes in layer 2 (def:bki; the most of any layer, N_BD "
        "= 4 over all layers), more than the 2 classes of phi_B (backward_capacity=2): phi_B "
        "would have to merge some of them. Use "
        "backward_capacity=3 (or more), or allow_small_capacity=True to run anyway.")
    assert not (tmp_path / "run").exists()


def test_the_command_line_refuses_a_small_capacity_with_exit_2_naming_the_flags(
        three_spec, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--spec", str(three_spec), "--out", str(out), *TINY]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "error: 'fan-3' has 3 backward-KI classes in layer 2 (def:bki; the most of any layer, "
        "N_BD = 4 over all layers), more than the 2 classes of phi_B (--backward-capacity 2): "
        "phi_B would have to merge some of them. "
        "Use --backward-capacity 3 (or more), or --allow-small-capacity to run anyway."]
    assert captured.out == "" and not out.exists()


def test_allow_small_capacity_runs_with_one_warning_line_and_records_it(
        three_spec, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--spec", str(three_spec), "--out", str(out), "--allow-small-capacity",
                 *TINY]) == 0
    warning = [line for line in capsys.readouterr().err.splitlines() if line]
    assert warning == [
        "warning: 'fan-3' has 3 backward-KI classes in layer 2 (def:bki; the most of any layer, "
        "N_BD = 4 over all layers), more than the 2 classes of phi_B (--backward-capacity 2): "
        "running anyway (--allow-small-capacity), "
        "phi_B will merge some of them"]
    assert json.loads((out / "config.json").read_text())["config"]["allow_small_capacity"]


def test_a_capacity_equal_to_n_bd_runs_without_a_warning(three_spec, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--spec", str(three_spec), "--out", str(out), "--backward-capacity",
                 "3", *TINY]) == 0
    assert capsys.readouterr().err == ""
    assert not json.loads((out / "config.json").read_text())["config"]["allow_small_capacity"]


def test_the_combination_lock_is_checked_against_its_n_fd(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--env", "combolock", "--horizon", "3", "--actions", "3",
                 "--forward-capacity", "2", "--out", str(out), *TINY]) == 2
    error = capsys.readouterr().err
    assert "3 forward-KI classes in layer 2 (def:fki; the most of any layer, N_FD = 6 over " \
           "all layers), more than the 2 classes of phi_F (--forward-capacity 2)" in error
    assert "Use --forward-capacity 3 (or more)" in error


def test_both_shortfalls_are_named_in_one_message():
    spec = fan_out(4)
    spec["horizon"], spec["layers"] = 3, [["s"], spec["layers"][1], ["y0", "y1", "y2", "y3"]]
    spec["transitions"].update({f"x{k}": {a: {f"y{(k + j) % 4}": "1"}
                                          for j, a in enumerate(spec["actions"])}
                                for k in range(4)})
    mdp = from_spec(spec)  # layer 2: 4 backward-KI classes, 4 forward-KI classes
    with pytest.raises(CapacityTooSmall) as error:
        check_capacities(mdp, HomerConfig(backward_capacity=3, forward_capacity=3))
    message = str(error.value)
    assert "4 backward-KI classes in layer 2 (def:bki; the most of any layer, N_BD = 9 over " \
           "all layers), more than the 3 classes of phi_B (backward_capacity=3), and 4 " \
           "forward-KI classes in layer 2 (def:fki; the most of any layer, N_FD = 6 over all " \
           "layers), more than the 3 classes of phi_F (forward_capacity=3): each would" in message
    assert "Use backward_capacity=4, forward_capacity=4 (or more)" in message


def test_a_capacity_above_the_pretraining_width_names_that_width_too():
    with pytest.raises(CapacityTooSmall, match=r"Use backward_capacity=4, "
                                               r"pretraining_width=4 \(or more\)"):
        check_capacities(from_spec(fan_out(4)), HomerConfig(pretraining_width=3))


def test_the_objectives_are_checked_only_on_the_abstractions_they_learn():
    lock = combination_lock(4, 3, 0)  # at most 2 backward-KI and 3 forward-KI classes a layer
    check_capacities(lock, HomerConfig(forward_capacity=2, objective="pcid"))  # no phi_F
    check_capacities(from_spec(fan_out(3)), HomerConfig(objective="one_class"))  # no phi_B
    with pytest.raises(CapacityTooSmall, match="3 backward-KI classes in layer 2"):
        check_capacities(from_spec(fan_out(3)), HomerConfig(objective="pcid"))
    with pytest.raises(CapacityTooSmall, match="3 forward-KI classes in layer 2"):
        check_capacities(lock, HomerConfig(forward_capacity=2))


@pytest.mark.parametrize("objective, computed", [
    ("one_class", []), ("pcid", ["backward_capacity"]),
    ("contrastive", ["backward_capacity", "forward_capacity"])])
def test_only_the_partitions_of_the_learned_abstractions_are_computed(objective, computed,
                                                                      monkeypatch):
    calls = []
    for name, (partition, words) in dict(homer.capacity._KINDS).items():
        def counted(mdp, name=name, partition=partition):
            calls.append(name)
            return partition(mdp)
        monkeypatch.setitem(homer.capacity._KINDS, name, (counted, words))
    check_capacities(combination_lock(4, 3, 0), HomerConfig(objective=objective))
    assert calls == computed


def test_allow_small_capacity_warns_instead_of_refusing():
    config = HomerConfig(allow_small_capacity=True)
    with pytest.warns(SmallCapacityWarning, match=r"running anyway \(allow_small_capacity="
                                                  r"True\), phi_B will merge"):
        check_capacities(from_spec(fan_out(3)), config)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_capacities(combination_lock(4, 3, 0), config)  # enough: no warning


def test_allow_small_capacity_must_be_a_bool():
    with pytest.raises(ValueError, match=r"^allow_small_capacity must be True or False, "
                                         r"got 'yes'$"):
        HomerConfig(allow_small_capacity="yes")


@pytest.mark.parametrize("module", [homer.capacity, homer.wording])
def test_the_examples_in_the_docstrings_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
