"""``--lock-variant`` / ``variant=``: every way of building the lock can build the lock of the
authors' released code, and says so when the choice does not apply."""

import json

import gymnasium
import pytest

from homer.cli import main
from kinematic.cli import main as kinematic_main
from kinematic.families import combination_lock_optimal_choices
from kinematic.spec import load_spec

TINY = ["--transitions", "300", "--max-epochs", "10", "--min-epochs", "10"]


@pytest.mark.parametrize("horizon", [2, 4])
def test_the_registered_environment_pays_the_released_rewards(horizon):
    env = gymnasium.make("kinematic/DiabolicalCombinationLock-v0", horizon=horizon, actions=3,
                         seed=1, variant="released")
    good = combination_lock_optimal_choices(horizon, 3, 1)
    for episode in range(5):
        _, info = env.reset(seed=episode)
        rewards = []
        for _ in range(horizon):
            _, reward, _, _, info = env.step(int(good[info["state"]][1:]) - 1)
            rewards.append(reward)
        # -1/(H-1) on each step between good states, 5 at the end (the paper's lock: 0 and 1)
        assert rewards[-1] == 5
        assert sum(rewards[:-1]) == pytest.approx(-1)


def test_family_writes_the_released_lock_that_analyze_values_at_four(tmp_path, capsys):
    spec = tmp_path / "released.json"
    assert kinematic_main(["family", "combolock", "--horizon", "4", "--actions", "3",
                           "--lock-variant", "released", "--out", str(spec)]) == 0
    assert load_spec(spec).name == "combolock-released-H4-K3-seed0"
    assert kinematic_main(["analyze", str(spec), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["optimal_value"] == "4"


def test_family_refuses_a_lock_variant_for_another_family(tmp_path, capsys):
    out = tmp_path / "figure2.json"
    assert kinematic_main(["family", "figure2", "--lock-variant", "paper", "--out",
                           str(out)]) == 2
    assert capsys.readouterr().err == (
        "error: --lock-variant applies to family combolock only, not to family figure2\n")
    assert not out.exists()


def test_run_refuses_a_lock_variant_with_a_spec(tmp_path, capsys):
    spec, out = tmp_path / "lock.json", tmp_path / "run"
    assert kinematic_main(["family", "combolock", "--horizon", "2", "--out", str(spec)]) == 0
    assert main(["run", "--spec", str(spec), "--lock-variant", "released", "--out",
                 str(out)]) == 2
    assert capsys.readouterr().err == ("error: --lock-variant applies to --env combolock only; "
                                       "a --spec file holds its own rewards\n")
    assert not out.exists()


def test_resuming_with_the_other_variant_names_both_locks(tmp_path, capsys):
    out = tmp_path / "run"
    lock = ["run", "--env", "combolock", "--horizon", "1", "--actions", "2", "--out", str(out),
            "--json"]
    assert main(lock) == 0
    capsys.readouterr()
    assert main([*lock, "--lock-variant", "released", "--resume"]) == 2
    assert ("its MDP is combolock-H1-K2-seed0, this one combolock-released-H1-K2-seed0)"
            in capsys.readouterr().err)


def test_compare_rebuilds_the_released_lock_of_a_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["run", "--env", "combolock", "--lock-variant", "released", "--horizon", "2",
                 "--actions", "2", "--out", str(run), "--json", *TINY]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["optimal_value"] == 4
    assert main(["compare", str(run), "--json", "--samples", "50", "--transitions", "300"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["mdp"] == "combolock-released-H2-K2-seed0"
    assert report["optimal_value"] == 4
